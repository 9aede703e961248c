"""A sweep of the reference cases on 1 and 2 workers: in this process, on the local process
pool, and on a dask.distributed LocalCluster (extra ``cluster``), with the speed-up.

    python3 benchmarks/bench_sweep.py [--slow] [--cases PATTERN ...] [--no-dask]

Each point recomputes one reference case (all its queries, ``recompute.compute_all``) and
returns the stored form of its references (``recompute.reference_json``).  Every run must
return the same references, point for point: the last column says so.  Slow cases (proven
brackets of many steps, minutes each) only with ``--slow``.
"""
from __future__ import annotations

import argparse
import os
import platform
import time

from refacct.sweep import sweep
from refacct.validation.cases import load_cases, select
from refacct.validation.recompute import compute_all, reference_json


def references(name: str):
    """The references of the reference case ``name``, recomputed (a sweep point)."""
    case = next(c for c in load_cases() if c.name == name)
    return [reference_json(case, r) for r in compute_all(case)]


def _dask(workers: int):
    """A LocalCluster of ``workers`` single-threaded worker processes and its client."""
    from dask.distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return cluster, Client(cluster)


def _timed(points, how: str, workers: int):
    """(seconds, results) of one sweep; a cluster's start-up is not timed."""
    if how != "dask":
        start = time.perf_counter()
        out = sweep(references, points, workers=workers if how == "pool" else 1)
        return time.perf_counter() - start, out
    cluster, client = _dask(workers)
    try:
        client.run(lambda: __import__("refacct.validation.recompute"))  # warm the workers
        start = time.perf_counter()
        out = sweep(references, points, executor=client.get_executor())
        return time.perf_counter() - start, out
    finally:
        client.close()
        cluster.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", action="store_true")
    parser.add_argument("--cases", nargs="*")
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    cases = select(load_cases(), args.cases, include_slow=args.slow)
    points = [{"name": c.name} for c in cases]
    runs = [("this process", 1), ("pool", 1), ("pool", 2)]
    if not args.no_dask:
        runs += [("dask", 1), ("dask", 2)]
    print(f"{len(points)} reference cases, {sum(len(c.queries) for c in cases)} queries; "
          f"{platform.python_version()}, {os.cpu_count()} cores")
    print("| executor | workers | wall s | speed-up | same references |")
    print("|---|---|---|---|---|")
    base = first = None
    for how, workers in runs:
        spent, out = _timed(points, how, workers)
        base = spent if base is None else base
        first = out if first is None else first
        print(f"| {how} | {workers} | {spent:.1f} | {base / spent:.2f} | "
              f"{'yes' if out == first else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
