"""Wall-clock benchmark of the core engines.

    python3 benchmarks/bench_core.py            # k = 1, 2, 3 for the continuous cases
    python3 benchmarks/bench_core.py --steps 4 --timeout 1800   # k = 4 only, capped
    python3 benchmarks/bench_core.py --quick    # k = 1 continuous, k <= 100 discrete
    python3 benchmarks/bench_core.py --timeout 600   # give up on a case after 600 s
    python3 benchmarks/bench_core.py --steps --discrete 10000 100000 --absorbing --timeout 300
                                                # randomized response rows only
    python3 benchmarks/bench_core.py --steps --discrete --absorbing 10000 100000 1000000
                                                # (0, delta_1) rows only

Continuous cases: delta(eps = 1) with digits = 20 for the k-fold composition of
  * the Gaussian pair               N(1, 1) || N(0, 1);
  * the Poisson-subsampled Gaussian (9/10) N(0, 1) + (1/10) N(1, 1) || N(0, 1);
  * the Laplace pair                Lap(1, 1/2) || Lap(0, 1/2);
  * the subsampled Laplace          (9/10) Lap(0, 1/2) + (1/10) Lap(1, 1/2) || Lap(0, 1/2).
The Laplace scale is 1/2 so that the pair has delta(1) > 0 already at k = 1 (with scale 1
the privacy loss of one step is at most 1 and delta(1) is exactly 0).  The subsampled
Laplace loss is at most ln(9/10 + e^2/10) ~ 0.49 per step, so its delta(1) is exactly 0 for
k <= 2, which refacct returns as an exact 0.
Discrete case: randomized response {0: 51/100, 1: 49/100} || {0: 49/100, 1: 51/100}
(eps_0 = ln(51/49) ~ 0.04, so delta(1) moves from 0 to ~0.93 over the range) for
k = 10, 100, 1000, 10^4, 10^5, 10^6 (exact PLD; the value is A - e B evaluated to 20
digits);
and the (0, delta_1) pair {0: d, 1: 1 - d} || {1: 1 - d, 2: d}, d = 1e-8, for k = 10^4,
10^5, 10^6 (three atoms at any k: ``engines.exact.discrete.AbsorbingPLD``), against
dp_accounting's PLD from_privacy_parameters(0, 1e-8).self_compose(k).

The peer columns time dp_accounting's PLD accountant (its default, pessimistic) on the
same query where it has the same pair: GaussianDpEvent(1) and LaplaceDpEvent(1/2) composed
with a count (their add-or-remove PLDs are the symmetric pairs above), and
RandomizedResponseDpEvent(noise_parameter = 49/50, num_buckets = 2) under REPLACE_ONE,
composed as ComposedDpEvent([event] * k): dp_accounting 0.6.0 ignores the count of
compose(event, count) and SelfComposedDpEvent for this event (docs/findings.md).  "ratio"
is refacct's time over the peer's.  The subsampled rows take the peer's PLD of the same
direction: from_gaussian_mechanism(1, sampling_prob = 1/10) (from_laplace_mechanism(1/2,
...)) composed k times, its remove part (``_pmf_remove``, whose upper distribution is the
mixture: at k = 1 it gives delta(1) = 2.0712e-4, the pair's 2.07121486021e-4), not its
add-or-remove answer, the maximum over both directions.

"digits" is the number of significant digits guaranteed by the returned error bound
(``DeltaResult.verified_digits``; "exact" when the bound is 0).  Timings are wall-clock
seconds of one call in a fresh process state (engine caches are not shared between cases
of different pairs); they are indicative only and never asserted in tests.
"""
from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from refacct import Discrete, Gaussian, Laplace, Mixture, Pair, delta  # noqa: E402
from refacct.result import format_mpf  # noqa: E402

EPS = 1
DIGITS = 20
Q = "1/10"


def continuous_cases():
    g0, g1 = Gaussian(0, 1), Gaussian(1, 1)
    l0, l1 = Laplace(0, "1/2"), Laplace(1, "1/2")
    return [
        ("Gaussian N(1,1) vs N(0,1)", Pair(g1, g0)),
        ("subsampled Gaussian, q = 1/10", Pair(Mixture([("9/10", g0), (Q, g1)]), g0)),
        ("Laplace Lap(1,1/2) vs Lap(0,1/2)", Pair(l1, l0)),
        ("subsampled Laplace, q = 1/10, b = 1/2", Pair(Mixture([("9/10", l0), (Q, l1)]), l0)),
    ]


def discrete_case():
    return ("randomized response 51/100 vs 49/100",
            Pair(Discrete({0: "51/100", 1: "49/100"}), Discrete({0: "49/100", 1: "51/100"})))


ABSORBING = "(0, delta_1) pair, delta_1 = 1e-8"


def absorbing_case():
    """P = {0: d, 1: 1 - d}, Q = {1: 1 - d, 2: d}: delta(eps >= 0) = 1 - (1 - d)^k, a PLD of
    three atoms at any k (prv_accountant's own test composes it 10^5 times)."""
    return (ABSORBING, Pair(Discrete({0: "1e-8", 1: "99999999/100000000"}),
                            Discrete({1: "99999999/100000000", 2: "1e-8"})))


def run(name: str, pair: Pair, k: int):
    start = time.perf_counter()
    result = delta(pair ** k, EPS, digits=DIGITS)
    seconds = time.perf_counter() - start
    vd = result.verified_digits
    digits = "exact" if vd is None else str(vd)
    return name, k, format_mpf(result.value, 12), digits, seconds


def peer(name: str, k: int):
    """(delta, seconds) of dp_accounting's PLD accountant on the row's query, or None."""
    try:
        import dp_accounting as dpa
        from dp_accounting import dp_event as ev
    except ImportError:
        return None
    if name.startswith("Gaussian"):
        acc, event = dpa.pld.PLDAccountant(), (ev.GaussianDpEvent(1.0), k)
    elif name.startswith("Laplace"):
        acc, event = dpa.pld.PLDAccountant(), (ev.LaplaceDpEvent(0.5), k)
    elif name == ABSORBING:
        start = time.perf_counter()
        pld = dpa.pld.privacy_loss_distribution.from_privacy_parameters(
            dpa.pld.common.DifferentialPrivacyParameters(0.0, 1e-8)).self_compose(k)
        return pld.get_delta_for_epsilon(float(EPS)), time.perf_counter() - start
    elif name.startswith("subsampled"):
        make = (dpa.pld.privacy_loss_distribution.from_gaussian_mechanism
                if "Gaussian" in name else
                dpa.pld.privacy_loss_distribution.from_laplace_mechanism)
        start = time.perf_counter()
        pld = make(1.0 if "Gaussian" in name else 0.5, sampling_prob=0.1).self_compose(k)
        return pld._pmf_remove.get_delta_for_epsilon(float(EPS)), time.perf_counter() - start
    elif name.startswith("randomized"):
        acc = dpa.pld.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE)
        rr = ev.RandomizedResponseDpEvent(noise_parameter=0.98, num_buckets=2)
        event = (ev.ComposedDpEvent([rr] * k), 1)
    else:
        return None
    start = time.perf_counter()
    acc.compose(*event)
    value = acc.get_delta(float(EPS))
    return value, time.perf_counter() - start


def _child(conn, job) -> None:
    conn.send(job[0](*job[1:]))
    conn.close()


def run_limited(job, timeout):
    """``job[0](*job[1:])``, in a child process killed after ``timeout`` seconds when one is
    set (None then)."""
    if timeout is None:
        return job[0](*job[1:])
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(send, job), daemon=True)
    child.start()
    if receive.poll(timeout):
        row = receive.recv()
        child.join()
        return row
    child.terminate()
    child.join()
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="*", default=[1, 2, 3], metavar="K",
                        help="k for the continuous cases (default: 1 2 3; 4 is very slow; "
                             "none: no continuous rows)")
    parser.add_argument("--discrete", type=int, nargs="*",
                        default=[10, 100, 1000, 10_000, 100_000, 1_000_000], metavar="K",
                        help="k for randomized response (default: 10 100 1000 10000 100000 "
                             "1000000)")
    parser.add_argument("--absorbing", type=int, nargs="*",
                        default=[10_000, 100_000, 1_000_000], metavar="K",
                        help="k for the (0, delta_1) pair (default: 10000 100000 1000000)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: k = 1 continuous, k <= 100 discrete")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="give up on a case after this many seconds (default: never)")
    parser.add_argument("--skip", action="append", default=[], metavar="CASE:K",
                        help="skip the row whose case name starts with CASE at k = K "
                             "(printed as skipped), e.g. --skip 'subsampled Gaussian:3'")
    args = parser.parse_args(argv)

    ks = [1] if args.quick else args.steps
    kd = [10, 100] if args.quick else args.discrete
    jobs = [(name, pair, k) for name, pair in continuous_cases() for k in ks]
    name, pair = discrete_case()
    jobs += [(name, pair, k) for k in kd]
    name, pair = absorbing_case()
    jobs += [(name, pair, k) for k in ([10, 100] if args.quick else args.absorbing)]

    header = ("case", "k", f"delta({EPS}), 12 digits", "digits verified", "seconds",
              "dp_accounting delta", "peer s", "ratio")
    print(f"delta(eps = {EPS}), digits = {DIGITS}; python {sys.version.split()[0]}")
    print()
    widths = [38, 6, 19, 15, 9, 19, 9, 8]
    line = " | ".join(h.ljust(w) for h, w in zip(header, widths))
    print("| " + line + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    skipped = {tuple(s.rsplit(":", 1)) for s in args.skip}
    for job in jobs:
        if any(job[0].startswith(case) and str(job[2]) == k for case, k in skipped):
            cells = [job[0], str(job[2]), "skipped", "-", "-", "-", "-", "-"]
            print("| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |", flush=True)
            continue
        row = run_limited((run,) + job, args.timeout) or (job[0], job[2], "-", "timeout", None)
        seconds = f"> {args.timeout:g}" if row[4] is None else f"{row[4]:.3f}"
        other = run_limited((peer, job[0], job[2]), args.timeout)
        theirs = ["-", "-", "-"] if other is None else [
            f"{other[0]:.12g}", f"{other[1]:.3f}",
            "-" if row[4] is None else f"{row[4] / max(other[1], 1e-6):.3g}"]
        cells = [row[0], str(row[1]), row[2], row[3], seconds] + theirs
        print("| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
