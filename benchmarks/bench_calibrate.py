"""Noise calibration side by side: refacct's brackets (``refacct.calibrate``) and riskcal's
calibrations (extra ``more-peers``) on the same targets, one unsampled Gaussian step.

    python3 benchmarks/bench_calibrate.py

A row is one target: refacct's bracket on sigma* and its seconds, riskcal's sigma and its
seconds, where riskcal's sigma lies against the bracket ("above": meets the target;
"below": misses it) and the time ratio riskcal / refacct.
"""
from __future__ import annotations

import time
import warnings
from fractions import Fraction

from refacct.calibrate import noise_scale, noise_scale_for_errors
from refacct.mechanisms import build, gaussian
from refacct.result import directed_text, exact_rational

TARGETS = [("advantage <= 1/10", "advantage", Fraction(1, 10)),
           ("beta(1/10) >= 1/4", "errors", Fraction(1, 4)),
           ("beta(1/10) >= 1/2", "errors", Fraction(1, 2))]


def one_step(s):
    return build(gaussian(s), "none", "add-remove"), 1


def refacct_row(kind: str, target: Fraction):
    start = time.perf_counter()
    r = (noise_scale(one_step, 0, target) if kind == "advantage"
         else noise_scale_for_errors(one_step, Fraction(1, 10), target))
    return r, time.perf_counter() - start


def riskcal_row(kind: str, target: Fraction):
    from riskcal.calibration import dpsgd
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sigma = (dpsgd.find_noise_multiplier_for_advantage(float(target), 1.0, 1)
                 if kind == "advantage" else
                 dpsgd.find_noise_multiplier_for_err_rates(0.1, float(target), 1.0, 1))
    return sigma, time.perf_counter() - start


def main() -> None:
    print("| target | refacct sigma* bracket | s | riskcal sigma | s | riskcal vs bracket "
          "| time ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, kind, target in TARGETS:
        r, ours = refacct_row(kind, target)
        sigma, theirs = riskcal_row(kind, target)
        lo, hi = exact_rational(r.lower), exact_rational(r.upper)
        where = ("above" if Fraction(sigma) >= hi else
                 "below" if Fraction(sigma) < lo else "inside")
        bracket = f"[{directed_text(lo, 7, False)}, {directed_text(hi, 7, True)}]"  # outward
        print(f"| {name} | {bracket} | {ours:.1f} | {sigma!r} | "
              f"{theirs:.1f} | {where} | {theirs / ours:.1f} |", flush=True)


if __name__ == "__main__":
    main()
