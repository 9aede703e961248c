"""Random allocation, one epoch: eps(delta) from refacct (proven ball, 20 digits) beside
the two accountants that compute it, on the same queries, with the time ratio.

    python3 benchmarks/bench_allocation.py --timeout 300
    python3 benchmarks/bench_allocation.py --sigma 1 --steps 100 1000 --delta 1e-5

Peers (extra ``more-peers``; random-allocation imports pandas without declaring it, and
the extra names it; a missing one prints "absent"):
  * ``pld-accounting`` (``PLD_accounting.random_allocation_api.gaussian_allocation_epsilon_
    range``): an (upper, lower) pair from its geometric PLD discretisation, default
    accuracy;
  * ``random-allocation`` (``random_allocation``'s decomposition upper bound and its lower
    bound, default ``SchemeConfig``).

"verdict" says whether each peer's range contains refacct's ball (an upper bound below it,
or a lower bound above it, is unsound).  Timings are wall-clock seconds of one call in a
child process (killed after ``--timeout``); they are indicative and never asserted.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import warnings
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_core import run_limited  # noqa: E402


def mine(sigma: str, steps: int, delta: str):
    from refacct.allocation import allocation_epsilon
    from refacct.errors import OutOfReach
    start = time.perf_counter()
    try:
        found = allocation_epsilon(Fraction(sigma), steps, delta)
    except OutOfReach:
        return "refused"
    return (float(found.lower), float(found.upper), found.verified_digits,
            time.perf_counter() - start)


def pld_accounting(sigma: str, steps: int, delta: str):
    from PLD_accounting.random_allocation_api import gaussian_allocation_epsilon_range
    start = time.perf_counter()
    upper, lower = gaussian_allocation_epsilon_range(delta=float(delta), sigma=float(Fraction(sigma)),
                                                     num_steps=steps)
    return lower, upper, time.perf_counter() - start


def random_allocation(sigma: str, steps: int, delta: str):
    warnings.filterwarnings("ignore")
    from random_allocation.comparisons.structs import PrivacyParams, SchemeConfig
    from random_allocation.random_allocation_scheme.decomposition import (
        allocation_epsilon_decomposition)
    from random_allocation.random_allocation_scheme.lower_bound import (
        allocation_epsilon_lower_bound)
    params = PrivacyParams(sigma=float(Fraction(sigma)), num_steps=steps, delta=float(delta))
    start = time.perf_counter()
    upper = allocation_epsilon_decomposition(params, SchemeConfig())
    lower = allocation_epsilon_lower_bound(params, SchemeConfig())
    return lower, upper, time.perf_counter() - start


def _verdict(ours, theirs) -> str:
    if theirs is None:
        return "-"
    lower, upper = theirs[0], theirs[1]
    if upper < ours[0]:
        return "UNSOUND (upper below)"
    if lower > ours[1]:
        return "UNSOUND (lower above)"
    return "contains"


def _peer(job, timeout):
    """The peer's row, "absent" when it is not installed (None: timed out)."""
    name = job[0].__name__
    module = {"pld_accounting": "PLD_accounting", "random_allocation": "random_allocation"}
    if importlib.util.find_spec(module[name]) is None:
        return "absent"
    return run_limited(job, timeout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sigma", nargs="*", default=["1/2", "1", "2"])
    parser.add_argument("--steps", type=int, nargs="*", default=[10, 100, 1000, 10000])
    parser.add_argument("--delta", nargs="*", default=["1e-5"])
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS")
    args = parser.parse_args(argv)
    print(f"{'sigma':>5} {'t':>6} {'delta':>6}  {'refacct eps (proven)':<26} {'dig':>3} "
          f"{'s':>6}  {'peer':<18} {'lower':>9} {'upper':>9} {'s':>6} {'ratio':>6}  verdict")
    for sigma in args.sigma:
        for steps in args.steps:
            for delta in args.delta:
                ours = run_limited((mine, sigma, steps, delta), args.timeout)
                head = f"{sigma:>5} {steps:>6} {delta:>6}  "
                if ours in (None, "refused"):
                    print(head + f"{ours or 'timeout':<26}")
                    continue
                text = f"{(ours[0] + ours[1]) / 2:.17g}"
                head += f"{text:<26} {ours[2]:>3} {ours[3]:>6.2f}  "
                for name, job in (("pld-accounting", pld_accounting),
                                  ("random-allocation", random_allocation)):
                    theirs = _peer((job, sigma, steps, delta), args.timeout)
                    if theirs in (None, "absent"):
                        print(head + f"{name:<18} {theirs or 'timeout'}")
                    else:
                        print(head + f"{name:<18} {theirs[0]:>9.5g} {theirs[1]:>9.5g} "
                              f"{theirs[2]:>6.2f} {ours[3] / theirs[2]:>6.2f}  "
                              f"{_verdict(ours, theirs)}")
                    head = " " * len(head)
                sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
