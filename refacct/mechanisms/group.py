"""Group privacy for DP-SGD-style Gaussian sums (003): neighbours differ in up to K records.

Mixture-of-Gaussians pairs (003 Sec. 2.3), add direction (N(0, s^2), sum_m w_m N(c m Delta, s^2)):

    Poisson(q) (003 Thm 3.1):          w_m = Pr[Binom(K, q) = m],            c = 1
    fixed batch B, datasets >= n
    (003 Thm 3.3):                     w_m = Pr[Hypergeom(B, n + K, K) = m],  c = 2

remove is the swap, add-remove both (003 Sec. 2.2, steps 1-5).  Tight (003 Sec. 3.3).
Baseline: Vadhan's conversion (003 Lemma 1.1): example-level (eps, delta) gives groups of K
(K eps, K e^{K eps} delta), i.e. delta_K(eps) <= K e^eps delta_1(eps / K), computed here
from refacct's own example-level delta_1 (an upper bound).
"""
from __future__ import annotations

from fractions import Fraction
from math import comb


from ..exact import probability
from ..pairs import Pair
from .base import Additive
from .entry import Dominated, Provenance, steppable
from .relations import check_relation, directions
from .truncated_poisson import binom_pmf
from .without_replacement import batch_size
from ..errors import InputError, InputTypeError

__all__ = ["group_poisson", "group_fixed_batch", "hypergeom_pmf", "group_size"]

_PAPER = "003"


# The pairs of a group of K under sampling are mixtures of K + 1 Gaussians, whose one-step
# closed form isolates the crossings of an exponential sum of K + 1 terms: about K^2 / 5000
# seconds on the 2-core machine (23 s at K = 300, 50 s at K = 500), and the weights alone
# are K exact rationals of K bits.  Beyond MAX_GROUP the query is refused at once, with that
# estimate, instead of running for hours.
MAX_GROUP = 500


def group_size(K: object, mixture: bool = False) -> int:
    """K, checked; ``mixture``: the pair is a mixture of K + 1 components (``MAX_GROUP``)."""
    if isinstance(K, bool) or not isinstance(K, int):
        raise InputTypeError(f"group must be an int, got {K!r}")
    if K < 1:
        raise InputError(f"group must be >= 1, got {K}")
    if mixture and K > MAX_GROUP:
        hours = K * K / 5000 / 3600
        raise InputError(
            f"group must be <= {MAX_GROUP} under sampling, got {K}: its pair is a mixture of "
            f"{K + 1} Gaussians, whose closed form would take about {hours:.3g} hours "
            f"(K^2 / 5000 s); for larger groups Vadhan's conversion "
            f"(refacct.derived.vadhan_delta) gives an upper bound")
    return K


def hypergeom_pmf(draws: int, total: int, marked: int, m: int) -> Fraction:
    """Pr[Hypergeom(draws, total, marked) = m]: m marked among ``draws`` drawn without
    replacement from ``total`` of which ``marked`` are marked (003 Sec. 3.2)."""
    return Fraction(comb(marked, m) * comb(total - marked, draws - m), comb(total, draws))


def _mog(base: Additive, weights, c: int, rel: str, steps: int, desc: str, theorem: str):
    if not (isinstance(base, Additive) and base.family == "gaussian"):
        raise InputError("group privacy (003) is in the catalogue for the Gaussian mechanism only")
    rel = check_relation(rel, ("add", "remove", "add-remove"), "group privacy")
    add = Pair(base.at(0), base.mix([(w, c * m) for m, w in enumerate(weights)]))
    return Dominated(f"{base.name}, {desc}, {rel}, {steps} step(s)",
                     directions(add, rel, steps), "tight",
                     (Provenance(f"003 {theorem}, tight by Sec. 3.3", _PAPER, "Sec. 3"),))


@steppable
def group_poisson(base: Additive, q: object, group: int, relation: str = "add-remove",
                  steps: int = 1) -> Dominated:
    """003 Thm 3.1: sensitivity Binom(K, q) times Delta."""
    q, K = probability(q, "q"), group_size(group, mixture=True)
    weights = [binom_pmf(K, q, m) for m in range(K + 1)]
    return _mog(base, weights, 1, relation, steps, f"Poisson q = {q}, group K = {K}",
                "Thm 3.1")


@steppable
def group_fixed_batch(base: Additive, n: int, batch: int, group: int,
                      relation: str = "add-remove", steps: int = 1) -> Dominated:
    """003 Thm 3.3: sensitivity 2 Hypergeom(B, n + K, K) times Delta (datasets of size >= n)."""
    batch_size(n, batch)
    K = group_size(group, mixture=True)
    weights = [hypergeom_pmf(batch, n + K, K, m) for m in range(K + 1)]
    return _mog(base, weights, 2, relation, steps,
                f"fixed batch {batch}, n = {n}, group K = {K}", "Thm 3.3")
