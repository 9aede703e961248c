"""Random allocation: eps(delta) from refacct (one epoch: a proven ball, 20 digits; E > 1
epochs: the transform's proven digits where sigma^2 t / E <= 120 and t >= 3, else a proven
bracket of the one-epoch loss composed) beside the two accountants that compute it, on the
same queries, with the time ratio.

    python3 benchmarks/bench_allocation.py --timeout 300
    python3 benchmarks/bench_allocation.py --sigma 1 --steps 100 1000 --delta 1e-5
    python3 benchmarks/bench_allocation.py --sigma 2 --steps 1000 --epochs 1 2 5 10

Peers (extra ``more-peers``; random-allocation imports pandas without declaring it, and
the extra names it; a missing one prints "absent"):
  * ``pld-accounting`` (``PLD_accounting.random_allocation_api.gaussian_allocation_epsilon_
    range``): an (upper, lower) pair from its geometric PLD discretisation, default
    accuracy;
  * ``random-allocation`` (``random_allocation``'s decomposition upper bound and its lower
    bound, default ``SchemeConfig``; both take one epoch only, so over E > 1 epochs its
    RDP_DCO upper bound, with 0 as the lower end).

"verdict" says whether each peer's range contains refacct's ball (an upper bound below it,
or a lower bound above it, is unsound).  Timings are wall-clock seconds of one call in a
child process (killed after ``--timeout``); they are indicative and never asserted.
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
import warnings
from fractions import Fraction
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_core import run_limited  # noqa: E402


def mine(sigma: str, steps: int, delta: str, epochs: int):
    import refacct
    from refacct.errors import OutOfReach
    from refacct.mechanisms import build, gaussian
    start = time.perf_counter()
    entry = build(gaussian(Fraction(sigma)), "random-allocation", "add-remove", steps=steps,
                  epochs=epochs)
    try:
        found = refacct.epsilon(entry, delta)
    except OutOfReach:
        return "refused"
    return _shown(found, time.perf_counter() - start)


def _shown(found, seconds: float):
    """(lower, upper, digits, seconds, text): the proven ends as floats rounded outward
    (for the verdicts), and the midpoint of the exact ends to the digits they guarantee
    (at most 17, at least 3 for a bracket's centre)."""
    import mpmath
    from refacct.result import exact_rational
    lower, upper = exact_rational(found.lower), exact_rational(found.upper)
    digits = found.verified_digits or 0
    middle = (lower + upper) / 2
    with mpmath.workdps(40):
        text = mpmath.nstr(mpmath.mpf(middle.numerator) / middle.denominator,
                           min(17, max(digits, 3)))
    return (math.nextafter(float(lower), -math.inf), math.nextafter(float(upper), math.inf),
            digits, seconds, text)


def pld_accounting(sigma: str, steps: int, delta: str, epochs: int):
    from PLD_accounting.random_allocation_api import gaussian_allocation_epsilon_range
    start = time.perf_counter()
    upper, lower = gaussian_allocation_epsilon_range(
        delta=float(delta), sigma=float(Fraction(sigma)), num_steps=steps, num_epochs=epochs)
    return lower, upper, time.perf_counter() - start


def random_allocation(sigma: str, steps: int, delta: str, epochs: int):
    warnings.filterwarnings("ignore")
    from random_allocation.comparisons.structs import PrivacyParams, SchemeConfig
    from random_allocation.random_allocation_scheme.decomposition import (
        allocation_epsilon_decomposition)
    from random_allocation.random_allocation_scheme.lower_bound import (
        allocation_epsilon_lower_bound)
    from random_allocation.random_allocation_scheme.RDP_DCO import allocation_epsilon_RDP_DCO
    params = PrivacyParams(sigma=float(Fraction(sigma)), num_steps=steps, num_epochs=epochs,
                           delta=float(delta))
    start = time.perf_counter()
    if epochs > 1:
        return 0.0, allocation_epsilon_RDP_DCO(params, SchemeConfig()), \
            time.perf_counter() - start
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
    parser.add_argument("--epochs", type=int, nargs="*", default=[1])
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS")
    args = parser.parse_args(argv)
    print(f"{'sigma':>5} {'t':>6} {'E':>3} {'delta':>6}  {'refacct eps (proven)':<26} "
          f"{'dig':>3} {'s':>6}  {'peer':<18} {'lower':>9} {'upper':>9} {'s':>6} {'ratio':>6}"
          "  verdict")
    for sigma, steps, epochs, delta in product(args.sigma, args.steps, args.epochs,
                                               args.delta):
        ours = run_limited((mine, sigma, steps, delta, epochs), args.timeout)
        head = f"{sigma:>5} {steps:>6} {epochs:>3} {delta:>6}  "
        if ours in (None, "refused"):
            print(head + f"{ours or 'timeout':<26}")
            continue
        text = ours[4]
        head += f"{text:<26} {ours[2]:>3} {ours[3]:>6.2f}  "
        for name, job in (("pld-accounting", pld_accounting),
                          ("random-allocation", random_allocation)):
            theirs = _peer((job, sigma, steps, delta, epochs), args.timeout)
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
