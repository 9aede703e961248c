"""The transform engine (``method="transform"``) at DP-SGD scale, side by side with
dp_accounting's PLD accountant and prv_accountant on the same queries, in one run.

    python3 benchmarks/bench_transform.py               # 10 digits (proven width <= 1e-10)
    python3 benchmarks/bench_transform.py --digits 20
    python3 benchmarks/bench_transform.py --no-peer      # refacct only

Queries: eps(delta) of the Poisson-subsampled Gaussian under add-remove (the maximum over
the add and remove directions, 001 Sec. 5):

* the Opacus CIFAR-10 tutorial: sigma 1.1, q 256/50000, T 3910, delta 1e-5;
* the TF Privacy MNIST tutorial: sigma 1.1, q 1/240 (256 of 60000 rounded as the tutorial
  does in its accountant call), T 14400, delta 1e-5;
* 001 Table 1's Poisson column: sigma 0.8, q 1e-3, T 10^4, delta 1e-7, 1e-6, 1e-5, 1e-4;
* the record drawn once in expectation: sigma 1, q 1/100, T 100, delta 1e-5, 1e-10;

and of the Laplace mechanism (scale b, sensitivity 1, add-remove), alone and Poisson-
subsampled, at 10^2 to 10^5 steps (``LAPLACE``; dp_accounting's ``LaplaceDpEvent``; not
prv_accountant: it has no subsampled Laplace, and its ``LaplaceMechanism`` failed on these
rows, "Discrete mean differs from continuous mean significantly" at b 1, T 1000, and
allocating a 1.1 GiB float128 array per delta at b 10, T 10^4, where the machine's memory
ran out).

refacct: a proven enclosure ``[lower, upper]`` to ``--digits`` digits (``verified``: the
digits its width guarantees).  dp_accounting (``pip install dp-accounting``):
``PLDAccountant(value_discretization_interval=1e-5)``, pessimistic estimate, one
``get_epsilon`` per delta after one composition.  prv_accountant (``pip install
prv-accountant``): ``PRVAccountant`` with eps_error 1e-3 and delta_error delta / 1000, its
upper value (it composes the remove direction only).  Each peer's answer is placed against
refacct's enclosure: "inside", "above" (sound, by that much) or "below (unsound)".  The
ratio is refacct's seconds over dp_accounting's for the same row.  Wall-clock seconds of
one call on the machine that runs the script: indicative, never asserted in tests.
"""
from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mpmath import mp  # noqa: E402

import refacct  # noqa: E402
from bench_brackets import accuracy, table  # noqa: E402
from refacct.mechanisms import build, gaussian, laplace  # noqa: E402

SETTINGS = [("Opacus CIFAR-10", "1.1", "256/50000", 3910, ["1e-5"]),
            ("TF Privacy MNIST", "1.1", "1/240", 14400, ["1e-5"]),
            ("001 Table 1, Poisson", "0.8", "1e-3", 10000, ["1e-7", "1e-6", "1e-5", "1e-4"]),
            ("one use in 100 steps", "1", "1/100", 100, ["1e-5", "1e-10"])]


LAPLACE = [("Laplace b 1, T 1000", "1", None, 1000, ["1e-5", "1e-10"]),
           ("Poisson Laplace b 1, q 1/100, T 100", "1", "1/100", 100, ["1e-5", "1e-10"]),
           ("Poisson Laplace b 1/2, q 1/100, T 100", "1/2", "1/100", 100, ["1e-5", "1e-10"]),
           ("Poisson Laplace b 4, q 1/100, T 100", "4", "1/100", 100, ["1e-5", "1e-10"]),
           ("Laplace b 10, T 10^4", "10", None, 10000, ["1e-5", "1e-10"]),
           ("Poisson Laplace b 1, q 1/100, T 10^4", "1", "1/100", 10000, ["1e-5", "1e-10"]),
           ("Poisson Laplace b 2, q 1/50, T 10^5", "2", "1/50", 100000, ["1e-5"])]


def ours(family: str, width: str, q, steps: int, deltas, digits: int):
    base = gaussian(width) if family == "gaussian" else laplace(width)
    entry = build(base, "poisson", "add-remove", q=q) if q else build(base, "none",
                                                                      "add-remove")
    start = time.perf_counter()
    found = refacct.epsilon(entry, deltas, steps=steps, method="transform", digits=digits)
    return found, time.perf_counter() - start


def dp_accounting_eps(family: str, width: str, q, steps: int, deltas):
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
    start = time.perf_counter()
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-5)
    event = (dp_accounting.GaussianDpEvent if family == "gaussian" else
             dp_accounting.LaplaceDpEvent)(float(Fraction(width)))
    if q:
        event = dp_accounting.PoissonSampledDpEvent(float(Fraction(q)), event)
    acc.compose(event, steps)
    return [acc.get_epsilon(float(d)) for d in deltas], time.perf_counter() - start


def prv_eps(family: str, width: str, q, steps: int, deltas):
    import prv_accountant as prv
    if family != "gaussian":
        return None
    mechanism = prv.PoissonSubsampledGaussianMechanism(float(Fraction(q)), float(width))
    start = time.perf_counter()
    out = []
    for d in deltas:
        acc = prv.PRVAccountant(prvs=[mechanism], max_self_compositions=[steps],
                                eps_error=1e-3, delta_error=float(d) / 1000)
        out.append(acc.compute_epsilon(float(d), [steps])[2])
    return out, time.perf_counter() - start


def peer(run, *args):
    """(answers, seconds); None when the peer is not installed or has no such mechanism;
    its exception when it fails (shown in the table: a finding)."""
    try:
        return run(*args)
    except ImportError:
        return None
    except Exception as exc:   # the peer's own failure, reported
        return exc


def cells(found, i: int, r):
    """The value, where it lies against refacct's enclosure, and the peer's seconds."""
    if found is None:
        return ["-", "-", ""]
    if isinstance(found, Exception):
        return ([f"failed: {type(found).__name__}" if i == 0 else "", "", ""])
    return [f"{found[0][i]:.10f}", accuracy(found[0][i], r),
            f"{found[1]:.2f}" if i == 0 else ""]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--digits", type=int, default=10)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args(argv)
    print(f"eps(delta), add-remove; refacct at {args.digits} digits; python "
          f"{sys.version.split()[0]}\n")
    for family, settings in (("gaussian", SETTINGS), ("laplace", LAPLACE)):
        print(rows_of(family, settings, args) + "\n")
    return 0


def rows_of(family: str, settings, args) -> str:
    """One table: refacct and the peers on each setting's deltas."""
    rows = []
    for name, width, q, steps, deltas in settings:
        found, seconds = ours(family, width, q, steps, deltas, args.digits)
        dpa, prv = (None, None) if args.no_peer else (
            peer(dp_accounting_eps, family, width, q, steps, deltas),
            peer(prv_eps, family, width, q, steps, deltas))
        for i, (d, r) in enumerate(zip(deltas, found)):
            width = mp.nstr((r.upper - r.lower) / r.upper, 2)
            row = [name if i == 0 else "", d, mp.nstr(r.value, 14), width,
                   f"{seconds:.2f}" if i == 0 else ""]
            timed = isinstance(dpa, tuple) and i == 0
            row += cells(dpa, i, r) + [f"{seconds / dpa[1]:.2f}" if timed else ""]
            rows.append(row + cells(prv, i, r))
    return table(["setting", "delta", "refacct eps", "rel. width", "s", "dp_accounting 1e-5",
                  "where", "s", "ratio", "prv_accountant", "where", "s"], rows)


if __name__ == "__main__":
    sys.exit(main())
