"""003 Thm 3.1 is tight (003 Sec. 3.3), K = 2 (and K = 3), one step: on the stated loss
function the DP-SGD step *is* the mixture-of-Gaussians mechanism of Thm 3.1.

003 Sec. 3.3: L = 1, the loss is 0 for every example except the K sensitive ones, where
l(theta; d) = -theta (gradient -1, clipped norm 1).  With Poisson sampling at rate q, the
update theta_i - theta_{i-1} is, up to the step size and sign, (number of sensitive
examples in the batch) + N(0, sigma^2).  D' = D without the group (remove), D with it
(add): the output laws are N(0, sigma^2) without the group and sum_S Pr[S] N(|S|, sigma^2)
over the inclusion patterns S of the group.

Proof: enumerate the 2^K inclusion patterns of the group with their exact probabilities
q^|S| (1 - q)^(K - |S|), collect the law of |S|, and compare exactly (locations, weights,
sigma) with the add pair of refacct's group_poisson (003 Thm 3.1: sensitivity Binom(K, q)),
and its remove term with the swap.  Equality of the pairs (not only of H) is what tightness
means here.  As a numerical cross-check, H_{e^eps} of the enumerated pair equals the
catalogue's curve within the error bounds.
"""
from __future__ import annotations

from fractions import Fraction as F

from _common import claim, done, locations, poisson_batches, shown, sum_law, width
from refacct import Gaussian, Pair, delta, mixture
from refacct.mechanisms import gaussian, group_poisson


def check(K: int, q: F, sigma: F) -> None:
    inclusion = sum_law(poisson_batches(K, q), [1] * K)   # law of |S|, sensitive examples
    terms = dict(group_poisson(gaussian(sigma), q, K, "add-remove").terms)
    (add,), (remove,) = terms["add"].pairs(), terms["remove"].pairs()
    same = (locations(add.P, Gaussian) == {F(0): F(1)} and locations(add.Q, Gaussian) == inclusion
            and width(add.P) == width(add.Q) == {sigma} and remove == add.swap())
    var = f"{sigma}^2" if sigma.denominator == 1 else f"({sigma})^2"
    law = " + ".join(f"{w} N({m}, {var})" for m, w in sorted(inclusion.items()))
    claim(same, f"K = {K}, q = {q}, sigma = {sigma}: DP-SGD on 003 Sec. 3.3's loss outputs "
          f"N(0, {var}) vs {law} = the Thm 3.1 MoG pair (add; remove = its swap)",
          f"exact enumeration of the 2^{K} inclusion patterns of the group, exact rationals")
    enumerated = Pair(Gaussian(0, sigma),
                      mixture([(w, Gaussian(m, sigma)) for m, w in inclusion.items()]))
    for eps in ("1/2", "2"):
        mine = max((delta(enumerated, eps, digits=15), delta(enumerated.swap(), eps, digits=15)),
                   key=lambda r: r.value)
        theirs = delta(group_poisson(gaussian(sigma), q, K, "add-remove"), eps, digits=15)
        claim(abs(mine.value - theirs.value) <= mine.abs_error + theirs.abs_error,
              f"K = {K}, q = {q}: delta({eps}) of the enumerated mechanism "
              f"{shown(mine)} = the catalogue's {shown(theirs)}",
              "verified values within their bounds (numerical cross-check of the exact claim)")


if __name__ == "__main__":
    check(2, F(1, 10), F(1))
    check(3, F(1, 4), F(1, 2))
    done()
