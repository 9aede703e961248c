"""Which engine (``refacct.engine``) answers a query: ``ENGINES`` maps each method of the
door (``refacct.api``) to its engine; for ``method="auto"`` the rule below chooses between
the standard engines (``refacct.hockey``) and a proven bracket (``refacct.brackets``).
The rule lives here and only here; the door, the command line and the validation
catalogue ask ``route_entry`` / ``route_pair`` (through ``refacct.api.route``).

The rule counts the one-step factors of the largest term (its *compositions*):

* only discrete factors: the exact PLD up to ``EXACT_MAX_STEPS`` = 10^4 compositions, a
  proven bracket beyond; a self-composition of one pair whose PLD has at most two atoms of
  finite positive ratio (binary randomized response, the (0, delta_1) pair: binomial
  partial sums by binary splitting, ``engines.exact.discrete.BinomialPLD``, beside the
  atoms of ratio inf and 0 in closed form, ``AbsorbingPLD``) up to ``CLOSED_MAX_STEPS``
  = 10^6;
* a continuous factor: quadrature up to ``QUADRATURE_MAX_STEPS`` = 3 compositions (three
  steps of a Gaussian mixture already take minutes at 20 digits), a proven bracket beyond;
  at two compositions that no closed form answers, the certified engine first for delta
  and H_alpha where it takes every term (``certified.CertifiedFirst``: proven, 0.05-0.4 s
  where the quadrature took 0.4-1.9 s for the Gaussian catalogue's Poisson and WOR
  entries, 1.3 s for truncated Poisson substitution where it took 9 s), the quadrature
  where it falls short of the digits or cannot decide, and for eps(delta);
  products of Gaussian shifts (the Gaussian mechanism without sampling) are one Gaussian
  shift in closed form (``engines.quadrature.shift``) up to ``CLOSED_MAX_STEPS``;
  self-compositions of one Laplace shift pair (the Laplace mechanism without sampling, one
  ratio abs(a - a') / b) are its privacy-loss distribution convolved exactly
  (``engines.quadrature.laplace_shift``) up to ``LAPLACE_MAX_STEPS`` = 10^4 (its cost grows
  with the steps off the atoms, T (1 - e^{-e0}) / 2, below the transform's 50: at b 100,
  20 digits, delta in 0.5, 2.5 and 5 s and eps(delta) in 3, 25 and 55 s at T = 1000, 5000
  and 10^4);
* beyond those, the transform engine (``refacct.transform``: proven digits) where it
  takes every term (Gaussian and Laplace shifts, Poisson- and WOR-subsampled Gaussians
  and Laplaces under add, remove or substitution, groups included, and public mixtures of
  subsampled Gaussians: truncated Poisson sampling), the Laplace factors
  have at least ``LAPLACE_MIN_OFF_ATOMS`` = 50 steps off their loss's atoms in expectation
  (``engines.transform.laplace``: the truncation bound's floor, the atoms' share to the
  power T, is then about e^-50; where no closed form answers and the alternative is a
  proven bracket of 1 to 3 digits, from ``LAPLACE_BEYOND_OFF_ATOMS`` = 2: the transform's
  floor then limits its digits, which it reports: Laplace shifts beyond
  ``LAPLACE_MAX_STEPS`` at b 100 gave 4 to 5 digits at 1000 steps, 8 to 9 at 3000, 15 to
  17 at 7000, 20 from 9500, in 1 to 8 s, the bracket 1 to 3 in 1 to 250 s; Poisson-
  subsampled Laplaces at 100 steps, b 1/2, 1 and 4, q 1/100 and 1/10, delta(1/10) and
  eps(1e-5), 21 to 23 digits at b 1/2 (1 to 8 s), 16 to 17 at b 1 (4 to 8 s), 6 to 7 at
  b 4 (2 to 7 s), from 10 to 33 steps off the atoms), the record (or group) is used in at least
  ``TRANSFORM_MIN_USES`` = 1 step in expectation (sum_i T_i q_i, a group of g counting
  1 - (1 - q)^g for q, ``engines.transform.mgf.Product.uses``: with fewer uses the loss is
  nearly a lattice of few active steps, and only the decay bound for few steps below
  reaches it, which losses with atoms and public mixtures lack), in at least
  ``TRANSFORM_MIN_STEPS`` = 100 compositions, and every sampling rate is at least
  ``TRANSFORM_MIN_RATE`` = 10^-5
  (``Product.least_rate``: the decay bound's scan runs to t ~ 1 / q; at sigma 1, q 1e-5,
  T 10^6, eps(1e-5) and delta(1/2) take 7 and 8 s, at q 1e-4, T 10^5 delta(1/10) and
  delta(1/2) 1.5 and 2.3 s, where the bracket gives 2 digits in 3 to 40 s); else a
  proven bracket;
* from three compositions on (public mixtures at three and from ``PUBLIC_MIN_STEPS`` =
  20), subsampled Gaussians (no Laplace factor with atoms in its loss), the record used
  in at least ``FEW_STEPS_MIN_USES`` = 1/100 step in expectation at rates of at least
  ``TRANSFORM_MIN_RATE``, and below one use a spread sum_i T_i e^{-1/sigma_i^2} of at
  least ``FEW_STEPS_MIN_SPREAD`` = 1/2 (``engines.transform.mgf.SubsampledGaussian.spread``:
  the steps that do not use the record make a near-atom, narrower at small sigma), take the
  transform whatever their count; its fallback is the quadrature at three compositions,
  the bracket beyond (its decay bound for few steps,
  ``engines.transform.mgf.SubsampledGaussian.strip``: sigma 1, q 1/10, delta(1) to 25
  proven digits in 3 s where the nested quadrature took 101 s), except three
  compositions of Gaussian pairs with two means that are not all one pair
  (``_nested_in_arb``), which take the quadrature in Arb first.  Measured on sigma 1/2,
  1, 2, q 1/10 to 1e-4, 4 to 5000 steps, delta(1) and eps(1e-5) in both directions: from
  1/100 use and spread 1, 20 to 29 digits in 0.4 to 31 s, except eps(1e-5) at sigma 1,
  q 1/100, 4 steps (spread 1.5) and eps(1e-100) at sigma 1/2, q 1e-3, 100 steps (spread
  1.8), out of reach in 1 to 2 s (then the bracket), and delta(1) at sigma 2, q 1e-4,
  1000 steps, a tail of 1e-63 bounded without a digit in 15 s; between spread 1/2 and 1
  below one use, 23 to 28 digits in 8 to 29 s (sigma 1/2, q 1/100, 30 and 45 steps,
  spread 0.55 and 0.82, delta(1) and eps(1e-5); three different steps of spread 0.87,
  delta(1), where the nested quadrature took 185 s; WOR substitution, sigma 1, batch 1 of
  100, 50 steps, spread 0.92: delta(1) 25 digits in 15 s, refused before); below (sigma
  1/2 up to 16 steps: spread 0.29) out of reach unless the record is used once (sigma
  1/2, q 1/10, 16 steps; WOR substitution, sigma 1 (1/2 on its lattice), batch 1 of 10,
  20 and 50 steps: 25 digits in 9 and 4 s, where 5 steps are out of reach); public
  mixtures (truncated Poisson, sigma 1, n 1000, p 1/100 cut at 12, or n 100, p 1/20 cut
  at 6) reached 4 digits at three steps and 0 at ten (p 1/20; out of reach at p 1/100
  add-remove), and from 20 steps 21 to 28 digits in 7 to 116 s under add-remove,
  zero-out and replace-one (delta(1), eps(1e-5), eps(1e-100); at 20 to 100 steps below
  one use the bracket gave 2 to 5 digits in 9 to 117 s); since, at three steps (n 100,
  p 1/20, delta(1), 20 digits) 23 to 24 digits in 11 to 19 s under zero-out,
  substitution and replace-one (5 to 7 s since the grid's sums leave out the nodes below
  their floor, ``contour.Powers.sums``), where the nested quadrature, their fallback, took
  more than a minute, and out of reach in 2 s under remove and add-remove (the remove
  direction needs t to about 6e6);
* self-compositions of a Laplace shift take the transform below ``LAPLACE_MAX_STEPS`` too
  once 50 steps leave the atoms (e0 = 1: 200 steps; milliseconds where the T-fold law's
  closed form takes seconds to minutes);
* sampling without replacement under substitution (below) by the same two rules;
* a query the transform finds out of its reach (``errors.OutOfReach``: a tail where the
  loss's atoms dominate, so its decay bound cannot reach the tolerance within
  ``MAX_NODES`` nodes) goes to the route's fallback: the standard engines within their
  range, else the bracket;
* never a bracket of more than ``MAX_STEPS`` = 10^5 compositions (the brackets' range),
  never more than ``CLOSED_MAX_STEPS`` compositions at all.

``force=True`` (``--bracket``) takes the bracket whatever the count.

A catalogue entry (``refacct.mechanisms.build``) for T steps is routed by how its terms
depend on the steps, read off its 1-step and 2-step entries:

* *self-composition* (the 2-step terms are the 1-step terms composed twice: no sampling,
  Poisson, WOR add / remove, truncated Poisson, groups): the brackets get the 1-step entry
  and T, and so does the transform where a term is a public mixture (truncated Poisson,
  ``engines.transform.public``), so that T-step entry is never built (a public mixture
  with ~T^6 terms);
* *independent of the steps* (deterministic batching, 002: the curve is the same for every
  T): the T-step entry, routed by its one-step terms;
* *mixed* (WOR substitution, 001 Sec. 7: T + 1 terms mixing the two orders): the
  transform where it takes both orders composed T times (either rule above),
  given their ``MixedOrders`` and T (it maximises over the orders on one grid,
  ``engines.transform.orders``: the T + 1 terms are never built), and where that grid is
  out of its reach, the T-step entry term by term up to ``ORDERS_TERMS_MAX_STEPS`` steps:
  every term's Chernoff ceiling (about 0.04 s a term at 100 steps), the transform on the
  terms that may attain the maximum (deep in a Laplace loss's tail that is one order
  alone, a single factor whose part that does not decay is subtracted, ``endpoints``,
  where the maximum's grid composes two); else the T-step entry
  itself, bracketed only up to ``MAX_MIXED_STEPS`` steps (one bracket per term); of
  discrete pairs the exact engine takes its terms up to ``MIXED_EXACT_MAX_STEPS`` steps
  where a step has two outcomes of finite ratio, and beyond them the binomial engine
  (``refacct.binomial``: the orders' cumulative masses on one tree of convolutions, proven
  by rounding; 4 s for delta(1) at 10^4 steps); ``MIXED_GENERAL_MAX_STEPS`` where a step
  has more outcomes (``_mixed_limit``), and beyond them the entry is refused;
* shuffling (``Shuffled``: 002's lower bounds, not a pair) is never bracketed; random
  allocation (``Allocated``) has proven balls for one epoch (``refacct.allocation``) and
  over E epochs the transform (``engines.allocation.moments``), whose nodes grow as the
  square root of sigma^2 t / E (the decay e^{-E b^2 s^2 / (2t)} of M_E(c + is), b =
  1/sigma), up to ``EPOCHS_MAX_SPREAD`` and from 3 steps an epoch, else proven brackets
  (or with ``method="bracket"``).  eps(1e-5) under add-remove, 2 cores: 17-19 s at
  sigma 1, t = 100 over 5 to 20 epochs and at sigma 1.1, t = 195 over 20 (spread 12); 45 s
  at t = 195 over 5 and 2 epochs (47, 118); 31 s at sigma 5, t = 100, E = 25 (100), 121 s
  at sigma 1, t = 10^4, E = 100 (100), 174 s at sigma 1/2, t = 1000, E = 3 (83), 259 s at
  sigma 1/2, t = 10^4, E = 25 (100); at spread 200 (sigma 2, t = 1000, E = 20) 215 s,
  then left to the bracket.  Since the tail bound's walk and the ray's products in blocks:
  61 s and 0.3 GB at sigma 1, t = 10^4, E = 100 (was 6.4 GB), 93 s at sigma 1/2,
  t = 1000, E = 3 and 134 s at sigma 1.1, t = 195, E = 2 (both had aborted past 11 GB);
  since the transform's range ends within 2^(1/8) of its aim, 27 digits in 32-77 s and
  at most 0.31 GB from spread 148 to 400 (sigma 2, t = 1000, E = 27, 20, 13, 10; sigma 1,
  t = 10^4, E = 67, 40; sigma 3, t = 100, E = 3), where the bracket gives 3 digits; at
  800 (sigma 2, t = 1000, E = 5) 273 s and 1.2 GB, left to the bracket.
  Two steps an epoch (no lattice cells: the brackets refuse them) take the transform from
  ``TWO_STEPS_MIN_EPOCHS`` epochs at sigma >= ``TWO_STEPS_MIN_SIGMA`` up to the spread
  ``TWO_STEPS_MAX_SPREAD``, their moments one integral each
  (``engines.allocation.halves``): eps(1e-5) at sigma 1 over 3 epochs 1.3 s (13-34 s by
  the ray), sigma 20 over 3 0.8 s (117 s), sigma 1/2 over 2 2.3 s (past 10 minutes),
  sigma 1/16 over 2 24 s, sigma 1000 over 2 (spread 10^6) 52 s; they are
  refused elsewhere.  One epoch whose inversion is out of its
  node budget (few steps, small sigma) falls back on the same transform at E = 1 where
  ``ONE_EPOCH_MIN_SPREAD`` <= sigma^2 t <= ``ONE_EPOCH_MAX_SPREAD`` (sigma 1, t 10: 52 s;
  sigma 1/2, t 100: 116 s; below the least spread the strike e^eps grows and the nodes
  with it: sigma 1/2, t 10 ran past 400 s).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, Dict, List, Optional, Tuple

from .brackets import BRACKET
from .certified import CERTIFIED, CERTIFIED_FIRST
from .engine import Engine
from .engines.exact.discrete import pld_of_pair
from .engines.quadrature import two_means
from .engines.quadrature.laplace_shift import laplace_shift
from .engines.quadrature.shift import shift_squared
from .engines.transform.mgf import loss_of
from .errors import InputError, InputTypeError
from .exact import count as check_count, to_mpf
from .hockey import EXACT, QUADRATURE
from .mechanisms import Allocated, Dominated, Shuffled
from .mechanisms.relations import MixedOrders
from .pairs import Composition, Pair, PublicMixture, as_composition
from .shuffle import SHUFFLE, SHUFFLE_EXACT
from .allocation import ALLOCATION
from .binomial import BINOMIAL, two_outcomes
from .transform import TRANSFORM

__all__ = ["MAX_STEPS", "CLOSED_MAX_STEPS", "QUADRATURE_MAX_STEPS", "LAPLACE_MAX_STEPS",
           "EXACT_MAX_STEPS",
           "MAX_MIXED_STEPS", "MIXED_EXACT_MAX_STEPS", "MIXED_GENERAL_MAX_STEPS", "TRANSFORM_MIN_USES", "TRANSFORM_MIN_STEPS", "TRANSFORM_MIN_RATE",
           "FEW_STEPS_MIN_USES", "FEW_STEPS_MIN_SPREAD", "PUBLIC_MIN_STEPS",
           "ORDERS_TERMS_MAX_STEPS",
           "LAPLACE_MIN_OFF_ATOMS", "LAPLACE_BEYOND_OFF_ATOMS", "EPOCHS_MAX_SPREAD",
           "TWO_STEPS_MIN_EPOCHS", "TWO_STEPS_MIN_SIGMA", "TWO_STEPS_MAX_SPREAD",
           "ONE_EPOCH_MIN_SPREAD",
           "ONE_EPOCH_MAX_SPREAD", "ENGINES",
           "SHUFFLED_ENGINES", "Route", "compositions", "self_composition", "route_pair",
           "route_entry"]

MAX_STEPS = 10 ** 5
CLOSED_MAX_STEPS = 10 ** 6
QUADRATURE_MAX_STEPS = 3
LAPLACE_MAX_STEPS = 10 ** 4
EXACT_MAX_STEPS = 10 ** 4
MAX_MIXED_STEPS = 7
MIXED_EXACT_MAX_STEPS = 2000
MIXED_GENERAL_MAX_STEPS = 40
TRANSFORM_MIN_USES = 1
TRANSFORM_MIN_STEPS = 100
LAPLACE_MIN_OFF_ATOMS = 50
LAPLACE_BEYOND_OFF_ATOMS = 2
TRANSFORM_MIN_RATE = Fraction(1, 10 ** 5)
FEW_STEPS_MIN_USES = Fraction(1, 100)
FEW_STEPS_MIN_SPREAD = Fraction(1, 2)
PUBLIC_MIN_STEPS = 20
ORDERS_TERMS_MAX_STEPS = 400
EPOCHS_MAX_SPREAD = 400
TWO_STEPS_MIN_EPOCHS = 2
TWO_STEPS_MIN_SIGMA = Fraction(1, 16)
TWO_STEPS_MAX_SPREAD = 10 ** 6
ONE_EPOCH_MIN_SPREAD = 5
ONE_EPOCH_MAX_SPREAD = 30
STANDARD = "standard engines"
CERTIFIED_WHY = ("two compositions: the certified engine's proven enclosures, the standard "
                 "engines where it falls short")
SHUFFLED = "002's lower bounds"
ORDERS_BY_TERMS = ("the orders one by one: every term's Chernoff ceiling, the transform on "
                   "those that may attain the maximum")
TWO_OUTCOMES = (f"the orders of a two-outcome pair beyond {MIXED_EXACT_MAX_STEPS} steps: "
                "every order's two binomial counts on one tree, in fixed point")
ALLOCATED = "random allocation's one-epoch pair (arXiv:2412.16802), one-dimensional"
ALLOCATED_EPOCHS = ("random allocation's one-epoch pair (arXiv:2412.16802) composed over its "
                    "epochs on a lattice")
ALLOCATED_TRANSFORM = ("random allocation's one-epoch pair (arXiv:2412.16802): its moments "
                       f"E[X^a] composed over the epochs, sigma^2 t / E <= "
                       f"{EPOCHS_MAX_SPREAD}: the transform")

# the engine each method names (``refacct.engine``): a new engine is one line here
ENGINES: Dict[str, Engine] = {"auto": QUADRATURE, "exact": EXACT, "quadrature": QUADRATURE,
                              "certified": CERTIFIED, "bracket": BRACKET,
                              "transform": TRANSFORM}
SHUFFLED_ENGINES: Dict[str, Engine] = {"auto": SHUFFLE, "exact": SHUFFLE_EXACT}


@dataclass(frozen=True)
class Route:
    """``target`` is what ``engine`` evaluates: a pair (``Pair`` / ``Composition`` /
    ``PublicMixture``), a catalogue entry or a ``Shuffled``, composed ``steps`` more times
    by the engine itself (T for a proven bracket of a self-composition's 1-step entry;
    else 1, and ``target`` already holds every composition).  ``reason`` says why, in
    words; ``fallback`` is where a query goes that ``engine`` finds out of its reach
    (``errors.OutOfReach``: the transform on a tail its decay bound does not reach)."""

    target: object
    steps: int
    engine: Engine
    reason: str
    fallback: Optional["Route"] = None

    @property
    def bracket(self) -> bool:
        """Is the answer a proven bracket (``refacct.brackets``)?"""
        return self.engine is BRACKET


def _terms(x) -> Tuple:
    """The pairs whose maximum is the curve: a catalogue entry's terms, or x itself."""
    return tuple(pair for _, pair in x.terms) if isinstance(x, Dominated) else (x,)


def _factors(pair) -> Tuple[Tuple[Pair, int], ...]:
    if isinstance(pair, Pair):
        return ((pair, 1),)
    if isinstance(pair, Composition):
        return pair.factors
    if isinstance(pair, PublicMixture):
        return tuple(f for _, comp in pair.terms for f in comp.factors)
    raise InputTypeError(f"expected a Pair, Composition, PublicMixture or catalogue entry, got "
                    f"{type(pair).__name__}")


def compositions(x) -> Tuple[int, bool]:
    """(the number of one-step factors of the largest term of ``x``, whether any factor is
    continuous); a public mixture's term is one of its components."""
    count, continuous = 0, False
    for pair in _terms(x):
        if isinstance(pair, PublicMixture):
            count = max([count] + [comp.steps for _, comp in pair.terms])
        else:
            count = max(count, sum(n for _, n in _factors(pair)))
        continuous = continuous or any(not p.is_discrete for p, _ in _factors(pair))
    return count, continuous


def _limit(x, continuous: bool) -> int:
    if continuous:
        pairs = _pair_factors(x)
        if pairs is None:
            return QUADRATURE_MAX_STEPS
        if all(shift_squared(factors) is not None for factors in pairs):
            return CLOSED_MAX_STEPS
        if _laplace(pairs):
            return LAPLACE_MAX_STEPS
        return QUADRATURE_MAX_STEPS
    return CLOSED_MAX_STEPS if all(_few_atoms(pair) for pair in _terms(x)) else EXACT_MAX_STEPS


def _mixed_limit(one, continuous: bool) -> int:
    """The steps up to which the standard engines take an entry whose terms mix the orders
    of its steps (``one``: its 1-step entry), T + 1 terms of T factors: of discrete pairs
    ``MIXED_EXACT_MAX_STEPS`` where each has two outcomes of finite positive ratio (each
    term a ``TwoBinomialPLD``, about T^3 / 5 products of T-digit integers in all: 18 s
    at 1000 steps, 163 s at 2000), else ``MIXED_GENERAL_MAX_STEPS`` (each term expanded,
    about T^(2a - 1) atoms in all for a atoms a step: 5 s at 40 steps of three atoms)."""
    if continuous:
        return _limit(one, continuous)
    return MIXED_EXACT_MAX_STEPS if all(_few_atoms(pair) for pair in _terms(one)) else \
        MIXED_GENERAL_MAX_STEPS


def _pair_factors(x) -> Optional[List]:
    """The factors of each term of ``x`` (None if a term is a public mixture)."""
    pairs = [_factors(pair) for pair in _terms(x) if not isinstance(pair, PublicMixture)]
    return pairs if len(pairs) == len(_terms(x)) else None


def _laplace(pairs) -> bool:
    """Is every term a self-composition of one Laplace shift pair?"""
    return pairs is not None and all(laplace_shift(factors) is not None for factors in pairs)


def _few_atoms(pair) -> bool:
    """Is ``pair`` a self-composition of one discrete pair whose one-step PLD has at most
    two atoms of finite positive ratio?  Its k-fold PLD is then a binomial one beside the
    atoms of ratio inf and 0, summed in closed form at any k."""
    factors = _factors(pair) if isinstance(pair, (Pair, Composition)) else ()
    if len(factors) != 1:
        return False
    one = pld_of_pair(factors[0][0].P, factors[0][0].Q)
    return sum(1 for p, q in one.atoms if p and q) <= 2


def _transformed(x, times: int = 1) -> bool:
    """Does the transform engine take every term of ``x`` composed ``times`` times, with
    at least ``TRANSFORM_MIN_STEPS`` compositions where a factor is subsampled, the
    record used in at least ``TRANSFORM_MIN_USES`` steps in expectation and no
    sampling rate below ``TRANSFORM_MIN_RATE`` (subsampled factors), and at least
    ``LAPLACE_MIN_OFF_ATOMS`` steps off the loss's atoms (Laplace factors), or
    ``LAPLACE_BEYOND_OFF_ATOMS`` where no closed form answers (Laplace shifts beyond
    ``LAPLACE_MAX_STEPS``, subsampled Laplaces and compositions with subsampled factors)?"""
    for pair in _terms(x):
        try:
            loss = loss_of(pair)
        except InputError:
            return False
        uses, off = times * loss.uses(), times * loss.off_atoms()
        steps = times * compositions(pair)[0]
        least = LAPLACE_BEYOND_OFF_ATOMS if uses or steps > LAPLACE_MAX_STEPS else \
            LAPLACE_MIN_OFF_ATOMS
        if not (uses or off) or 0 < uses < TRANSFORM_MIN_USES or \
                uses and steps < TRANSFORM_MIN_STEPS or \
                0 < off < least or loss.least_rate() < TRANSFORM_MIN_RATE:
            return False
    return True


def _within(x, total: int, times: int = 1) -> bool:
    """Does the transform take ``x`` composed ``times`` times (``total`` compositions)
    where the many-step rule (``_transformed``) may not: Laplace shifts it takes, or from
    ``QUADRATURE_MAX_STEPS`` compositions on (public mixtures at that count, where the
    fallback is the nested quadrature, and from ``PUBLIC_MIN_STEPS`` on),
    terms without atoms in their loss whose record is used in at least
    ``FEW_STEPS_MIN_USES`` steps in
    expectation, with a spread (``Product.spread``) of at least ``FEW_STEPS_MIN_SPREAD``
    below ``TRANSFORM_MIN_USES`` uses, at sampling rates of at least
    ``TRANSFORM_MIN_RATE``?"""
    pairs = _pair_factors(x)
    if _laplace(pairs):
        return _transformed(x, times)
    if total < QUADRATURE_MAX_STEPS or pairs is None and \
            QUADRATURE_MAX_STEPS < total < PUBLIC_MIN_STEPS:
        return False
    if total == QUADRATURE_MAX_STEPS and _nested_in_arb(x, times):
        return False
    for pair in _terms(x):
        try:
            loss = loss_of(pair)
        except InputError:
            return False
        uses = times * loss.uses()
        if loss.off_atoms() or uses < FEW_STEPS_MIN_USES or loss.least_rate() < \
                TRANSFORM_MIN_RATE or uses < TRANSFORM_MIN_USES and \
                times * loss.spread() < to_mpf(FEW_STEPS_MIN_SPREAD):
            return False
    return True


def _nested_in_arb(x, times: int = 1) -> bool:
    """Is every term (every component of a public mixture) of ``x`` composed ``times``
    times a composition of Gaussian pairs with two means that the nested quadrature in Arb
    takes (``two_means.supports``), some of different pairs?  The transform makes one
    product of Arb matrices for each distinct pair, the quadrature costs the same whether
    they differ or not: three different Poisson-subsampled Gaussians, delta(1), 20 digits,
    2.6 s against 9.9 s (one pair three times: 2.9 s against 1.7 s)."""
    comps, mixed = [], False
    for term in _terms(x):
        if isinstance(term, PublicMixture):
            comps += [c for _, c in term.terms]
            mixed = mixed or times > 1 and len(term.terms) > 1
        else:
            comps.append(as_composition(term))
    mixed = mixed or any(len(c.factors) > 1 for c in comps)
    return mixed and all(two_means.supports(c.pairs() * times) for c in comps)


def _by_transform(x, total: int, continuous: bool, fallback: Optional[Route],
                  steps: int = 1) -> Route:
    if total <= _limit(x, continuous):
        why = (f"{total} compositions, Laplace shifts >= {LAPLACE_MIN_OFF_ATOMS} steps off the "
               f"loss's atoms or three steps that use the record >= {FEW_STEPS_MIN_USES} "
               f"times in expectation: the transform (the standard engines are slower here)")
    elif not _transformed(x, steps):
        why = (f"{_why(x, total, continuous, False)}; the record used in >= "
               f"{FEW_STEPS_MIN_USES} steps in expectation, sampling rates >= "
               f"{TRANSFORM_MIN_RATE}: the transform")
    else:
        why = (f"{_why(x, total, continuous, False)}; the record used in >= "
               f"{TRANSFORM_MIN_USES} steps in expectation in >= {TRANSFORM_MIN_STEPS} "
               f"steps, sampling rates >= "
               f"{TRANSFORM_MIN_RATE}, Laplace factors >= {LAPLACE_MIN_OFF_ATOMS} steps off "
               f"their atoms (>= {LAPLACE_BEYOND_OFF_ATOMS} where no closed form answers: "
               f"subsampled, or beyond {LAPLACE_MAX_STEPS} steps): the transform")
    return Route(x, steps, TRANSFORM, why, fallback)


def _standard(x) -> Route:
    """The standard engines' route, the certified engine first where it takes every term
    at two compositions that no closed form answers (``_certified_first``)."""
    quadrature = Route(x, 1, QUADRATURE, STANDARD)
    if _certified_first(x):
        return Route(x, 1, CERTIFIED_FIRST, CERTIFIED_WHY, quadrature)
    return quadrature


def _certified_first(x) -> bool:
    """Two compositions with a continuous factor, not Gaussian or Laplace shifts (closed
    forms, milliseconds), every term taken by the certified engine."""
    count, continuous = compositions(x)
    if count != 2 or not continuous:
        return False
    pairs = _pair_factors(x)
    if pairs is not None and (all(shift_squared(f) is not None for f in pairs) or
                              _laplace(pairs)):
        return False
    return all(CERTIFIED.supports(pair) is None for pair in _terms(x))


def _check_total(total: int, bracket: bool = True) -> None:
    """Refuse more compositions than the brackets take (``bracket``) or than any engine
    takes."""
    limit = MAX_STEPS if bracket else CLOSED_MAX_STEPS
    if total > limit:
        what = ("the range of the proven brackets" if bracket else "the range of the "
                "closed forms and few-atom exact PLDs")
        raise InputError(f"steps must be <= {limit} ({what}), got {total} compositions")


def _why(x, total: int, continuous: bool, force: bool) -> str:
    if force:
        return "proven bracket requested"
    kind = "a continuous" if continuous else "a discrete"
    engine = "quadrature" if continuous else "the exact PLD"
    return f"{kind} pair composed {total} > {_limit(x, continuous)} times (beyond {engine})"


def route_pair(x, force: bool = False) -> Route:
    """The route of a pair (``Pair``, ``Composition`` or ``PublicMixture``) or of a
    catalogue entry that already holds every composition."""
    count, continuous = compositions(x)
    _check_total(count, bracket=False)
    beyond = count > _limit(x, continuous)
    bracket = Route(x, 1, BRACKET, _why(x, count, continuous, force)) \
        if count <= MAX_STEPS else None
    if not force and (beyond and _transformed(x) or _within(x, count)):
        return _by_transform(x, count, continuous,
                             bracket if beyond else _standard(x))
    if force or beyond:
        _check_total(count)
        return bracket
    return _standard(x)


def self_composition(one, two) -> bool:
    """Are the 2-step entry's terms the 1-step entry's composed twice (module docstring)?"""
    return [label for label, _ in two.terms] == [label for label, _ in one.terms] and \
        all(p2 == p1 ** 2 for (_, p1), (_, p2) in zip(one.terms, two.terms))


def route_entry(make: Callable[[int], object], steps: int, force: bool = False) -> Route:
    """The route of the catalogue entry ``make(steps)``; ``make(k)`` builds the entry for
    k steps (module docstring for how the 1- and 2-step entries decide)."""
    T = check_count(steps, "steps")
    _check_total(T, bracket=False)
    one = make(1)
    if isinstance(one, Shuffled):  # lower bounds by formula, no pair to bracket
        if force:
            raise InputError("shuffling has no proven-bracket path: its curve is 002's lower "
                             "bound, not a pair")
        return Route(make(T), 1, SHUFFLE, SHUFFLED)
    if isinstance(one, Allocated):  # one epoch: proven balls; epochs: the transform
        if force or one.epochs > 1:
            _check_total(one.epochs)
            bracket = Route(make(T), one.epochs, BRACKET, ALLOCATED_EPOCHS)
            entry = make(T)
            spread = entry.sigma ** 2 * entry.steps
            if not force and entry.steps == 2 and entry.epochs >= TWO_STEPS_MIN_EPOCHS and \
                    entry.sigma >= TWO_STEPS_MIN_SIGMA and \
                    spread <= TWO_STEPS_MAX_SPREAD * entry.epochs:
                return Route(entry, entry.epochs, TRANSFORM, ALLOCATED_TRANSFORM)
            if force or entry.steps < 3 or spread > EPOCHS_MAX_SPREAD * entry.epochs:
                return bracket
            return Route(entry, entry.epochs, TRANSFORM, ALLOCATED_TRANSFORM, bracket)
        entry = make(T)
        spread = entry.sigma ** 2 * entry.steps
        fallback = Route(entry, 1, TRANSFORM, ALLOCATED_TRANSFORM) \
            if entry.steps >= 3 and ONE_EPOCH_MIN_SPREAD <= spread <= ONE_EPOCH_MAX_SPREAD \
            else None
        return Route(entry, 1, ALLOCATION, ALLOCATED, fallback)
    count, continuous = compositions(one)
    two = make(2)
    if self_composition(one, two):
        beyond = count * T > _limit(one, continuous)
        bracket = Route(one, T, BRACKET, _why(one, count * T, continuous, force)) \
            if count * T <= MAX_STEPS else None
        if not force and (beyond and _transformed(one, T) or _within(one, count * T, T)):
            if _pair_factors(one) is None:   # public mixtures: the 1-step entry and T
                return _by_transform(one, count * T, continuous,
                                     bracket if beyond else _standard(make(T)), T)
            return _by_transform(make(T), count * T, continuous,
                                 bracket if beyond else _standard(make(T)))
        if force or beyond:
            _check_total(count * T)
            return bracket
        return _standard(make(T))
    if two.terms == one.terms:  # the curve does not depend on the steps
        return route_pair(make(T), force)
    if not force and T <= _mixed_limit(one, continuous):
        return _standard(make(T))
    orders = MixedOrders.of(one, two)
    if not force and orders is not None and two_outcomes(orders.pair) is not None:
        return Route(orders, T, BINOMIAL, TWO_OUTCOMES)
    if not force and orders is not None and (_transformed(one, T) or _within(one, T, T)):
        fallback = Route(make(T), 1, BRACKET, _why(one, T, continuous, force)) \
            if T <= MAX_MIXED_STEPS else Route(make(T), 1, TRANSFORM, ORDERS_BY_TERMS) \
            if T <= ORDERS_TERMS_MAX_STEPS else None
        return replace(_by_transform(one, T, continuous, fallback, T), target=orders)
    if T > MAX_MIXED_STEPS:
        raise InputError(f"{one.description.replace('1 step(s)', f'{T} step(s)')} has "
                         f"{T + 1} terms mixing the orders of the steps, not a {T}-fold "
                         f"composition: proven brackets take it up to {MAX_MIXED_STEPS} "
                         f"steps, the standard engines up to {_mixed_limit(one, continuous)}, "
                         f"the "
                         f"transform where the record is used at least "
                         f"{FEW_STEPS_MIN_USES} times in expectation, at least "
                         f"{TRANSFORM_MIN_USES} from {TRANSFORM_MIN_STEPS} steps on, and for "
                         f"the Laplace mechanism where at least {LAPLACE_BEYOND_OFF_ATOMS} "
                         f"steps leave its loss's atoms in expectation")
    return Route(make(T), 1, BRACKET, _why(one, T, continuous, force))
