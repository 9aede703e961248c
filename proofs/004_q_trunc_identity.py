"""004 Sec. 3.4: the probability q_trunc that a record is in a truncated batch,

    p sum_{s=B}^{n-1} Pr[Binom(n-1, p) = s] / Pr[Binom(n-1, p) >= B] * B / (s + 1)
        = Pr[Binom(n, p) >= B + 1] / Pr[Binom(n-1, p) >= B] * B / n,

for general n, s, B (sympy), and exactly for sample values against refacct's
``q_trunc`` / ``q_trunc_sum`` and against the truncated-Poisson sampler itself.

Symbolic proof (the denominator Pr[Binom(n-1, p) >= B] is common to both sides):
1. termwise, p C(n-1, s) p^s (1-p)^(n-1-s) B/(s+1) = C(n, s+1) p^(s+1) (1-p)^(n-s-1) B/n for
   symbolic integers n > s >= 0 and 0 < p < 1: sympy reduces the ratio of the two sides to 1
   (gammasimp), i.e. C(n-1, s) / (s + 1) = C(n, s + 1) / n;
2. the sum over s = B..n-1 of C(n, s+1) p^(s+1) (1-p)^(n-s-1) is, after t = s + 1, the sum
   over t = B+1..n of C(n, t) p^t (1-p)^(n-t) = Pr[Binom(n, p) >= B + 1] (sympy change_index,
   compared structurally with that sum).
The sampler (004 Algorithm 1): each of n records is sampled w.p. p; if the batch S has more
than B records, B of them are kept uniformly.  q_trunc = Pr[x_1 kept | at least B of the
other n - 1 sampled] is enumerated over all 2^n patterns.
"""
from __future__ import annotations

from fractions import Fraction as F

import sympy as sp

from _common import claim, done, poisson_batches
from refacct.mechanisms.truncated_poisson import q_trunc, q_trunc_sum


def symbolic() -> None:
    n, s, B, t = sp.symbols("n s B t", integer=True, nonnegative=True)
    p = sp.symbols("p", positive=True)
    lhs = p * sp.binomial(n - 1, s) * p ** s * (1 - p) ** (n - 1 - s) * B / (s + 1)
    rhs = sp.binomial(n, s + 1) * p ** (s + 1) * (1 - p) ** (n - s - 1) * B / n
    ratio = sp.gammasimp((lhs / rhs).rewrite(sp.gamma))
    claim(ratio == 1, "termwise: p C(n-1,s) p^s (1-p)^(n-1-s) B/(s+1) = C(n,s+1) p^(s+1) "
          "(1-p)^(n-s-1) B/n for symbolic n, s, B, p",
          f"sympy: gammasimp of the ratio of the two sides = {ratio}")
    shifted = sp.Sum(sp.binomial(n, s + 1) * p ** (s + 1) * (1 - p) ** (n - s - 1),
                     (s, B, n - 1)).change_index(s, s + 1, t)
    tail = sp.Sum(sp.binomial(n, t) * p ** t * (1 - p) ** (n - t), (t, B + 1, n))
    claim(shifted == tail, "sum_{s=B}^{n-1} C(n,s+1) p^(s+1) (1-p)^(n-s-1) = "
          "Pr[Binom(n, p) >= B+1] for symbolic n, B, p",
          f"sympy: change of index t = s + 1 gives {shifted}, structurally equal to the tail sum")


def algorithm_1(n: int, p: F, B: int) -> F:
    """Pr[x_1 in the final batch | at least B of the other n - 1 are sampled], enumerated:
    x_1 survives truncation of a batch of size m > B with probability B / m."""
    kept = condition = F(0)
    for prob, batch in poisson_batches(n, p):
        others = len([i for i in batch if i != 0])
        if others < B:
            continue
        condition += prob
        if 0 in batch:
            kept += prob * min(F(1), F(B, len(batch)))
    return kept / condition


def exact(n: int, p: F, B: int) -> None:
    value = algorithm_1(n, p, B)
    ok = q_trunc(n, p, B) == q_trunc_sum(n, p, B) == value
    claim(ok, f"n = {n}, p = {p}, B = {B}: the sum, the closed form and the sampler all give "
          f"q_trunc = {value}", f"exact rationals; enumeration of the 2^{n} sampling patterns")


if __name__ == "__main__":
    symbolic()
    for n, p, B in ((5, F(1, 3), 2), (6, F(1, 2), 3), (7, F(2, 7), 1), (8, F(9, 10), 5),
                    (6, F(1), 2)):
        exact(n, p, B)
    done()
