"""001 Prop. 9 and Prop. 13: the stated datasets realise the stated dominating pairs.

The subsampled sum query M_S(D) = sum_{i in S} x_i + noise is enumerated here exactly: every
Poisson subset (probability q^|S| (1-q)^(n-|S|)) or every fixed-size batch (probability
1 / C(n, b)), giving the law of the batch sum as exact rationals; the output is that law
convolved with the noise, i.e. the mixture sum_s w_s Noise(s).  The pair built by refacct's
catalogue must be that pair of mixtures: same noise width, same locations, same weights
(as exact rationals, not just the same H).

- Prop. 9.1 (Poisson, Gaussian and Laplace): D = (0, ..., 0) (n - 1 records),
  D' = (0, ..., 0, 1) (n records): (M(D), M(D')) = poisson_subsampled(., q, "add") and
  (M(D'), M(D)) its "remove" term.
- Prop. 9.2 (WOR, batch b of n): D = (-1, ..., -1) (n - 1 records), D' = D plus a 1: with
  b = 1 exactly wor_subsampled(., n, 1, "add"); for b > 1 the batch sum has b - 1 more
  records of -1, the same pair translated by -(b - 1) (H is translation invariant).
- Prop. 13 (Poisson, substitution, Gaussian): D = (0, ..., 0, 1), D' = (0, ..., 0, -1):
  poisson_subsampled(gaussian, q, "substitution").
"""
from __future__ import annotations

from fractions import Fraction as F

from _common import claim, done, fixed_batches, locations, poisson_batches, sum_law, width
from refacct import Gaussian, Laplace
from refacct.mechanisms import gaussian, laplace, poisson_subsampled, wor_subsampled


def realised(term, kind, w, law_P, law_Q, shift=F(0)) -> bool:
    """The one-step ``term`` (a Composition of one factor) is the pair
    (sum_s law_P[s] Noise(s + shift), same for Q) with noise width w."""
    (pair,) = term.pairs()

    def moved(law):
        return {s + shift: p for s, p in law.items()}
    return (width(pair.P) == width(pair.Q) == {w}
            and locations(pair.P, kind) == moved(law_P)
            and locations(pair.Q, kind) == moved(law_Q))


def prop_9_1(n: int, q: F) -> None:
    D, D1 = [0] * (n - 1), [0] * (n - 1) + [1]
    law_D = sum_law(poisson_batches(n - 1, q), D)
    law_D1 = sum_law(poisson_batches(n, q), D1)
    for base, kind, w in ((gaussian("1/2"), Gaussian, F(1, 2)), (laplace(2), Laplace, F(2))):
        terms = dict(poisson_subsampled(base, q, "add-remove").terms)
        ok = (realised(terms["add"], kind, w, law_D, law_D1)
              and realised(terms["remove"], kind, w, law_D1, law_D))
        claim(ok, f"Prop. 9.1, {kind.__name__} noise, Poisson q = {q}, n = {n}: (M(D), M(D')) "
              f"with D = {tuple(D)}, D' = {tuple(D1)} is the catalogue's add pair "
              f"(M(D') = {law_D1[0]} Noise(0) + {law_D1[1]} Noise(1)), (M(D'), M(D)) its "
              "remove pair", f"exact enumeration of the {2 ** n} Poisson subsets")


def prop_9_2(n: int, b: int) -> None:
    D, D1 = [-1] * (n - 1), [-1] * (n - 1) + [1]
    law_D = sum_law(fixed_batches(n - 1, b), D)
    law_D1 = sum_law(fixed_batches(n, b), D1)
    for base, kind, w in ((gaussian(1), Gaussian, F(1)), (laplace("1/2"), Laplace, F(1, 2))):
        terms = dict(wor_subsampled(base, n, b, "add-remove").terms)
        ok = (realised(terms["add"], kind, w, law_D, law_D1, shift=F(b - 1))
              and realised(terms["remove"], kind, w, law_D1, law_D, shift=F(b - 1)))
        claim(ok, f"Prop. 9.2, {kind.__name__} noise, WOR batch {b} of {n}: D = {tuple(D)}, "
              f"D' = {tuple(D1)} give the catalogue's add pair"
              + (f" translated by {b - 1}" if b > 1 else "") + ", (D', D) its remove pair",
              "exact enumeration of every fixed-size batch")


def prop_13(n: int, q: F) -> None:
    D, D1 = [0] * (n - 1) + [1], [0] * (n - 1) + [-1]
    law_D, law_D1 = (sum_law(poisson_batches(n, q), x) for x in (D, D1))
    (_, pair), = poisson_subsampled(gaussian(1), q, "substitution").terms
    claim(realised(pair, Gaussian, F(1), law_D, law_D1),
          f"Prop. 13, Gaussian, Poisson q = {q}, n = {n}: D = {tuple(D)}, D' = {tuple(D1)} "
          f"give the catalogue's substitution pair ((1-q) N(0) + q N(1), (1-q) N(0) + q N(-1))",
          f"exact enumeration of the {2 ** n} Poisson subsets")


if __name__ == "__main__":
    for n, q in ((3, F(1, 3)), (5, F(2, 7))):
        prop_9_1(n, q)
        prop_13(n, q)
    for n, b in ((4, 1), (5, 2), (5, 3)):
        prop_9_2(n, b)
    done()
