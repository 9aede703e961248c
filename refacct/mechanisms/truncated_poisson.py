"""Truncated Poisson sampling (004): Poisson(p) batch, cut to a uniformly random subset of
size B when it exceeds B; sum query (records of norm <= Delta) + N(0, sigma^2).

004 Sec. 3 releases r in {1, 2} with Pr[r = 1] = Pr[Binom(n-1, p) < B] (no truncation
among the other n - 1 records) and

    q_trunc = p sum_{s=B}^{n-1} Pr[Binom(n-1, p) = s] / Pr[Binom(n-1, p) >= B] * B / (s+1)
            = Pr[Binom(n, p) >= B+1] / Pr[Binom(n-1, p) >= B] * B / n        (004 Sec. 3.4)

(both exact rationals here).  The dominating pairs are public mixtures over r (the output
reveals r; 004 Sec. 3.4), with M_q(c) = (1 - q) N(0, s^2) + q N(c Delta, s^2):

    add-remove (Thm 3.1):   r = 1: (M_p(1), N(0))      r = 2: (M_q(2), N(0))
    zero-out   (Thm 3.3):   r = 1: (M_p(1), N(0))      r = 2: (M_q(2), M_q(-1))
    replace-one (Thm 3.4):  r = 1: (M_p(1), M_p(-1))   r = 2: (M_q(2), M_q(-2))

Thm 3.1's pair is (M(D), M(D')) for D' = D minus a record, i.e. the *remove* direction; its
swap is the add direction and add-remove takes both.  Zero-out is symmetric: both orders.
Replace-one is symmetric under y -> -y: one term.  Upper bounds in general; for add-remove
tight at the extremes B >= n (plain Poisson) and p = 1, B < n (fixed batch B of n with
doubled sensitivity, 004 Sec. 3.1 "Tightness of the bound").
"""
from __future__ import annotations

from fractions import Fraction
from math import comb

from ..distributions import Gaussian, mixture
from ..exact import positive, probability
from ..pairs import Pair, PublicMixture
from .entry import Dominated, Provenance, steppable
from .relations import check_relation, directions, powered
from ..errors import InputError, InputTypeError

__all__ = ["binom_pmf", "binom_sf", "prob_no_truncation", "q_trunc_sum", "q_trunc",
           "truncated_poisson"]

_PAPER = "004"
_THEOREMS = {"add": "Thm 3.1", "remove": "Thm 3.1", "add-remove": "Thm 3.1",
             "zero-out": "Thm 3.3", "replace-one": "Thm 3.4", "substitution": "Thm 3.4"}


def binom_pmf(n: int, p: Fraction, s: int) -> Fraction:
    """Pr[Binom(n, p) = s], exactly."""
    return comb(n, s) * p ** s * (1 - p) ** (n - s) if 0 <= s <= n else Fraction(0)


def binom_sf(n: int, p: Fraction, s: int) -> Fraction:
    """Pr[Binom(n, p) >= s], exactly: the sum over the shorter side (1 minus the lower
    sum when s <= n / 2), so that a small batch cap B of a large dataset costs B terms,
    not n."""
    s = max(s, 0)
    if s <= n // 2:
        return 1 - sum((binom_pmf(n, p, t) for t in range(s)), Fraction(0))
    return sum((binom_pmf(n, p, t) for t in range(s, n + 1)), Fraction(0))


def prob_no_truncation(n: int, p: Fraction, B: int) -> Fraction:
    """Pr[r = 1] = Pr[Binom(n - 1, p) < B] (004 Thm 3.1)."""
    return 1 - binom_sf(n - 1, p, B)


def q_trunc_sum(n: int, p: Fraction, B: int) -> Fraction:
    """q_trunc as the sum of 004 Thm 3.1 (undefined, ValueError, when Pr[r = 2] = 0)."""
    tail = _r2_mass(n, p, B)
    return p * sum((binom_pmf(n - 1, p, s) / tail * Fraction(B, s + 1)
                    for s in range(B, n)), Fraction(0))


def q_trunc(n: int, p: Fraction, B: int) -> Fraction:
    """q_trunc = Pr[Binom(n, p) >= B+1] / Pr[Binom(n-1, p) >= B] * B / n (004 Sec. 3.4)."""
    return binom_sf(n, p, B + 1) / _r2_mass(n, p, B) * Fraction(B, n)


def _r2_mass(n: int, p: Fraction, B: int) -> Fraction:
    tail = binom_sf(n - 1, p, B)
    if tail == 0:
        raise InputError(f"q_trunc is undefined: Pr[Binom(n-1, p) >= B] = 0 for n = {n}, "
                         f"p = {p}, B = {B} (truncation never happens)")
    return tail


def _check(n: object, p: object, B: object):
    for name, v in (("n", n), ("max_batch", B)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InputTypeError(f"{name} must be an int, got {v!r}")
    if n < 1:
        raise InputError(f"n must be >= 1, got {n}")
    if B < 1:
        raise InputError(f"max_batch must be >= 1, got {B}")
    return n, probability(p, "p_sample"), B


def _components(sigma: Fraction, sensitivity: Fraction, rel: str, p: Fraction, q: Fraction):
    """The (r = 1, r = 2) pairs of the module docstring; r = 2 uses rate q."""
    def m(rate, c):
        return mixture([(1 - rate, Gaussian(0, sigma)), (rate, Gaussian(c * sensitivity, sigma))])
    if rel == "zero-out":
        return Pair(m(p, 1), m(p, 0)), Pair(m(q, 2), m(q, -1))
    if rel in ("replace-one", "substitution"):
        return Pair(m(p, 1), m(p, -1)), Pair(m(q, 2), m(q, -2))
    return Pair(m(p, 1), m(p, 0)), Pair(m(q, 2), m(q, 0))


@steppable
def truncated_poisson(sigma: object, n: int, p_sample: object, max_batch: int,
                      relation: str = "add-remove", steps: int = 1,
                      sensitivity: object = 1) -> Dominated:
    """k steps of 004's truncated-Poisson Gaussian sum on datasets of size n (public)."""
    n, p, B = _check(n, p_sample, max_batch)
    sigma, delta_ = positive(sigma, "sigma"), positive(sensitivity, "sensitivity")
    rel = check_relation(relation)
    w1 = prob_no_truncation(n, p, B)
    q = q_trunc(n, p, B) if w1 != 1 else Fraction(0)
    r1, r2 = _components(sigma, delta_, rel, p, q)
    pm = PublicMixture([(w1, r1), (1 - w1, r2)])
    desc = (f"gaussian(sigma={sigma}, sensitivity={delta_}), truncated Poisson p = {p}, "
            f"B = {B}, n = {n}, {rel}, {steps} step(s)")
    prov = (Provenance(f"004 {_THEOREMS[rel]}", _PAPER, "Sec. 3"),)
    if rel in ("replace-one", "substitution"):
        return Dominated(desc, (("replace-one", powered(pm, steps)),), "upper", prov)
    # Thm 3.1's pair is the remove direction; zero-out is symmetric (both orders)
    terms = directions(pm.swap(), "add-remove" if rel == "zero-out" else rel, steps)
    extreme = w1 == 1 or (p == 1 and B < n)
    bound = "tight" if extreme and rel != "zero-out" else "upper"
    return Dominated(desc, terms, bound, prov)
