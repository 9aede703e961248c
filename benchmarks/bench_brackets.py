"""Wall-clock benchmark of the proven brackets (refacct.brackets) on 001 Table 1, side by
side with dp_accounting's PLD accountant on the same query.

    python3 benchmarks/bench_brackets.py            # Table 1 (T = 10^4) and the dispute
    python3 benchmarks/bench_brackets.py --quick    # T = 10^3 instead of 10^4 (a smoke run)
    python3 benchmarks/bench_brackets.py --no-peer  # refacct only
    python3 benchmarks/bench_brackets.py --wor      # also Table 1's WOR column (~10 min)
    python3 benchmarks/bench_brackets.py --width 1e-4   # the decisive setting (about 1 min)

Query (001, Sec. 6, Table 1, Poisson column): the Poisson-subsampled
Gaussian, sigma = 0.8, q = 1e-3, T = 10^4 steps, add-remove (the maximum over the add and
remove directions, 001 Sec. 5), eps(delta) for delta = 1e-7, 1e-6, 1e-5, 1e-4.  refacct
computes one composition for the four deltas (``refacct.epsilon(..., method="bracket")`` with the default width
0.01, or ``--width``), the two directions side by side on two cores; the time is that of
the whole call (both directions, all four deltas).  The dispute (sigma = 1, q = 1e-3,
T = 1000, delta(1)) is bracketed to the same width, relative.  ``--width 1e-4`` is the
decisive setting: brackets narrower than the distance between dp_accounting's default
answers and the truth, so that each answer is ruled above (sound) or below (unsound)
instead of "inside".

dp_accounting (optional: ``pip install dp-accounting``): ``PLDAccountant`` with
``value_discretization_interval`` 1e-4 (its default) and 1e-5, pessimistic estimate,
add-or-remove, composed 10^4 times; the time includes the composition and the four
``get_epsilon`` calls.

WOR column (``--wor``): sampling without replacement, gamma = 1/1000 (a batch of 1 out of
1000), through its dominating pair, the substitution pair with doubled sensitivity (001 Thm
10.2, ``wor_subsampled``); the paper prints 17.48, 15.26, 12.98, 10.62.

Accuracy: refacct's is proven, the bracket width (upper - lower).  dp_accounting's is
measured against the bracket: "inside" when its eps lies in [lower, upper] (then its error
is at most the width), else its distance to the nearer end (a proven lower bound on its
error; an eps below the lower end is an unsound answer).

Timings are wall-clock seconds on the machine that runs the script; they are indicative
only and never asserted in tests.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mpmath import mp  # noqa: E402

import refacct  # noqa: E402
from refacct.mechanisms import build, gaussian  # noqa: E402

SIGMA, Q, T = "0.8", "1e-3", 10_000
DELTAS = ["1e-7", "1e-6", "1e-5", "1e-4"]
PRINTED = ["1.19", "0.96", "0.80", "0.64"]  # 001 Table 1, Poisson column
PRINTED_WOR = ["17.48", "15.26", "12.98", "10.62"]  # 001 Table 1, WOR column
INTERVALS = (1e-4, 1e-5)


def refacct_table1(steps: int, wor: bool = False, width: str = "0.01"):
    """(brackets, seconds) for the four deltas (the WOR column with ``wor``)."""
    mech = (build(gaussian(SIGMA), "wor", "add-remove", n=1000, batch=1) if wor
            else build(gaussian(SIGMA), "poisson", "add-remove", q=Q))
    start = time.perf_counter()
    results = refacct.epsilon(mech, DELTAS, steps=steps, method="bracket", width=width)
    return results, time.perf_counter() - start


def dp_accounting_table1(steps: int, interval: float):
    """(eps per delta, seconds) of dp_accounting's pessimistic PLD accountant."""
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
    start = time.perf_counter()
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=interval)
    event = dp_accounting.PoissonSampledDpEvent(float(Q),
                                                dp_accounting.GaussianDpEvent(float(SIGMA)))
    acc.compose(event, steps)
    eps = [acc.get_epsilon(float(d)) for d in DELTAS]
    return eps, time.perf_counter() - start


def accuracy(value: float, r) -> str:
    """Where a peer's eps lies relative to refacct's proven bracket r."""
    if r.lower <= value <= r.upper:
        return "inside"
    if value < r.lower:
        return f"{mp.nstr(r.lower - value, 2)} below (unsound)"
    return f"{mp.nstr(value - r.upper, 2)} above"


def dispute(width: str):
    """The disputed case (peers disagree at their float64 noise floor): sigma = 1, q = 1e-3, T = 1000, delta(eps = 1), bracketed
    to the relative ``width``."""
    mech = build(gaussian(1), "poisson", "add-remove", q=Q)
    start = time.perf_counter()
    r = refacct.delta(mech, 1, steps=1000, method="bracket", width=width)
    return r, time.perf_counter() - start


def dp_accounting_dispute():
    """(delta(1), seconds) of dp_accounting's default PLD accountant on the dispute."""
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
    start = time.perf_counter()
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dp_accounting.PoissonSampledDpEvent(float(Q), dp_accounting.GaussianDpEvent(1.0)),
                1000)
    return acc.get_delta(1.0), time.perf_counter() - start


def table(headers, rows) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    return "\n".join([line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
                     + [line(r) for r in rows])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="T = 1000 instead of 10^4")
    parser.add_argument("--no-peer", action="store_true", help="skip dp_accounting")
    parser.add_argument("--wor", action="store_true", help="also the WOR column (~10 min)")
    parser.add_argument("--width", default="0.01",
                        help="bracket width in eps (default 0.01; 1e-4: decisive)")
    args = parser.parse_args(argv)
    steps = 1000 if args.quick else T
    print(f"001 Table 1: Poisson-subsampled Gaussian, sigma = {SIGMA}, q = {Q}, "
          f"T = {steps}, add-remove; python {sys.version.split()[0]}\n")
    results, seconds = refacct_table1(steps, width=args.width)
    peers = {}
    if not args.no_peer:
        try:
            for interval in INTERVALS:
                peers[interval] = dp_accounting_table1(steps, interval)
        except ImportError:
            print("(dp_accounting not installed: refacct only)\n")
    headers = ["delta", "refacct proven bracket", "width", "paper"]
    for interval in peers:
        headers += [f"dp_acc. {interval:g}", "accuracy"]
    rows = []
    for i, (d, r) in enumerate(zip(DELTAS, results)):
        row = [d, f"[{mp.nstr(r.lower, 7)}, {mp.nstr(r.upper, 7)}]",
               mp.nstr(r.upper - r.lower, 2), PRINTED[i] if steps == T else "-"]
        for interval, (eps, _) in peers.items():
            row += [f"{eps[i]:.7f}", accuracy(eps[i], r)]
        rows.append(row)
    print(table(headers, rows))
    print(f"\nseconds: refacct {seconds:.1f} (all four deltas, both directions; "
          f"attained by {' = '.join(results[0].attained_by)})"
          + "".join(f"; dp_accounting {i:g}: {s:.1f}" for i, (_, s) in peers.items()))
    if args.wor:
        results, seconds = refacct_table1(steps, wor=True)
        rows = [[d, f"[{mp.nstr(r.lower, 7)}, {mp.nstr(r.upper, 7)}]",
                 mp.nstr(r.upper - r.lower, 2), PRINTED_WOR[i] if steps == T else "-"]
                for i, (d, r) in enumerate(zip(DELTAS, results))]
        print("\nWOR column (gamma = 1/1000, the doubled-sensitivity substitution pair):\n")
        print(table(["delta", "refacct proven bracket", "width", "paper"], rows))
        print(f"\nseconds: refacct {seconds:.1f}")
    if not args.quick:
        r, seconds = dispute(args.width)
        print(f"\ndispute (sigma = 1, q = 1e-3, T = 1000): delta(1) in "
              f"[{mp.nstr(r.lower, 6)}, {mp.nstr(r.upper, 6)}], relative width "
              f"{mp.nstr((r.upper - r.lower) / r.lower, 2)}, {seconds:.1f} s")
        if peers:
            value, seconds = dp_accounting_dispute()
            where = ("inside" if r.lower <= value <= r.upper else
                     f"{mp.nstr((r.lower - value) / r.lower, 2)} below the lower end (unsound)"
                     if value < r.lower else
                     f"{mp.nstr((value - r.upper) / r.upper, 2)} above the upper end")
            print(f"dp_accounting (default PLD accountant): {value:.6g}, {where} "
                  f"(relative), {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
