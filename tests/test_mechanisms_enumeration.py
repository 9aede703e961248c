"""Every catalogue builder against the mechanism itself.

The oracle enumerates the actual subsampled mechanism on small concrete datasets (n <= 6):
every Poisson subset, every fixed-size batch, every truncation, each with its exact
rational probability, and builds its output distribution (a Mixture of Gaussians / Laplaces
with exact weights, or a Discrete for randomized response).  The built pair must give the
same H_alpha as the enumerated pair of output distributions (tight entries, the datasets of
001 Prop. 9, Prop. 13, Sec. 7, 003 Sec. 3.3, 004's extremes) or at least as large (upper
bounds on other datasets), at several alpha, both directions, k = 1 and 2.  This catches a
swapped P and Q or a missing gamma.  Nothing here reads a pair from refacct.mechanisms:
only the engine (refacct.hockey_stick) computes H for both sides.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from functools import partial
from math import comb

import pytest
from mpmath import mp

import refacct
from conftest import brute_H, product_table
from refacct import Discrete, Gaussian, Laplace, Pair, hockey_stick, mixture
from refacct.mechanisms import (deterministic_batching, gaussian, group_fixed_batch,
                                group_poisson, laplace, poisson_subsampled,
                                randomized_response, truncated_poisson, unsampled,
                                wor_subsampled)
from refacct.mechanisms.pointwise_max import wor_substitution_upper

F = Fraction
# a catalogue entry's curve by the standard engines (exact PLD, closed forms, quadrature)
hockey_stick_max = partial(refacct.hockey_stick, method="quadrature")
ALPHAS = ("1/3", "1", "3/2", "4")
DIGITS = 10


# --- the mechanisms, enumerated ----------------------------------------------------------

def gauss_noise(sigma):
    return lambda total: Gaussian(total, sigma)


def laplace_noise(scale):
    return lambda total: Laplace(total, scale)


def rr_noise(p):
    """001 App. B.1: the bit b = [batch contains a 1], kept w.p. p (records are 0 / 1)."""
    p = F(p)
    return lambda total: Discrete({0: p, 1: 1 - p} if total == 0 else {0: 1 - p, 1: p})


def output(batches, values, noise):
    """Mixture over (probability, index tuple) of noise(sum of the batch's values)."""
    by_sum = {}
    for prob, batch in batches:
        s = sum((F(values[i]) for i in batch), F(0))
        by_sum[s] = by_sum.get(s, F(0)) + prob
    return mixture([(w, noise(s)) for s, w in sorted(by_sum.items()) if w])


def poisson_batches(n, q):
    q = F(q)
    for bits in itertools.product((0, 1), repeat=n):
        prob = F(1)
        for b in bits:
            prob *= q if b else 1 - q
        yield prob, tuple(i for i, b in enumerate(bits) if b)


def wor_batches(n, b):
    for batch in itertools.combinations(range(n), b):
        yield F(1, comb(n, b)), batch


def truncated_batches(n, p, B):
    """004 Algorithm 1: Poisson(p) subset S, then a uniform B-subset of S if |S| > B."""
    for prob, S in poisson_batches(n, p):
        if len(S) <= B:
            yield prob, S
        else:
            for sub in itertools.combinations(S, B):
                yield prob / comb(len(S), B), sub


def poisson_M(values, q, noise):
    return output(poisson_batches(len(values), q), values, noise)


def wor_M(values, b, noise):
    return output(wor_batches(len(values), b), values, noise)


def truncated_M(values, p, B, noise):
    return output(truncated_batches(len(values), p, B), values, noise)


# --- comparing H -------------------------------------------------------------------------

def H(pair, alpha):
    return hockey_stick(pair, alpha, digits=DIGITS)


def compare(built, enumerated, alphas=ALPHAS, equal=True):
    """H_alpha(built) == H_alpha(enumerated) within both bounds (equal=True), or
    H_alpha(enumerated) <= H_alpha(built) + bounds (upper bound)."""
    for a in alphas:
        x, y = H(built, a), H(enumerated, a)
        slack = x.abs_error + y.abs_error + mp.mpf(10) ** (-DIGITS - 5)
        if equal:
            assert abs(x.value - y.value) <= slack, (a, x.value, y.value)
        else:
            assert y.value <= x.value + slack, (a, x.value, y.value)


def term(mech, label):
    return dict(mech.terms)[label]


def check_directions(mech, MD, MDp, k_values=(1, 2), equal=True, alphas=ALPHAS):
    """add term = (M(D), M(D'))^k and remove term = (M(D'), M(D))^k."""
    for k in k_values:
        m = mech(k)
        compare(term(m, "add"), Pair(MD, MDp) ** k, alphas, equal)
        compare(term(m, "remove"), Pair(MDp, MD) ** k, alphas, equal)


# --- no sampling -------------------------------------------------------------------------

def test_unsampled_gaussian_is_the_mechanism_on_neighbours():
    """Sum + N(0, 1/4) with Delta = 1/2: D = (1/4, -1/2), D' = D + (1/2)."""
    noise = gauss_noise(F(1, 2))
    MD, MDp = noise(F(-1, 4)), noise(F(1, 4))
    check_directions(lambda k: unsampled(gaussian("1/2", "1/2"), "add-remove", k), MD, MDp)


# --- Poisson -----------------------------------------------------------------------------

@pytest.mark.parametrize("base,noise,q", [
    (gaussian(1), gauss_noise(1), "1/3"),
    (laplace("1/2"), laplace_noise(F(1, 2)), "2/5"),
])
def test_poisson_add_remove_realised_by_prop_9_datasets(base, noise, q):
    """001 Prop. 9.1: D = (0, 0, 0), D' = (0, 0, 0, 1) realise add; (D', D) remove."""
    MD, MDp = poisson_M([0, 0, 0], q, noise), poisson_M([0, 0, 0, 1], q, noise)
    check_directions(lambda k: poisson_subsampled(base, q, "add-remove", k), MD, MDp)


def test_poisson_randomized_response_realised_by_app_b1_datasets():
    """001 App. B.1: all zeros vs one added 1, gamma = 1/2, p = 3/4 (exact rationals)."""
    noise = rr_noise("3/4")
    MD, MDp = poisson_M([0, 0], "1/2", noise), poisson_M([0, 0, 1], "1/2", noise)
    assert MD == Discrete({0: "3/4", 1: "1/4"}) and MDp == Discrete({0: "1/2", 1: "1/2"})
    mech = poisson_subsampled(randomized_response("3/4"), "1/2", "add-remove", 2)
    for a in ("4/3", "2", "1/2"):
        assert H(term(mech, "add"), a).exact == H(Pair(MD, MDp) ** 2, a).exact
        assert H(term(mech, "remove"), a).exact == H(Pair(MDp, MD) ** 2, a).exact


def test_poisson_dominates_other_datasets():
    """Records in [-1, 1], Delta = 1: any other add neighbours give H <= the built pair."""
    noise = gauss_noise(1)
    D = [F(1, 2), -1, F(3, 4)]
    MD, MDp = poisson_M(D, "1/2", noise), poisson_M(D + [F(-2, 3)], "1/2", noise)
    check_directions(lambda k: poisson_subsampled(gaussian(1), "1/2", "add-remove", k),
                     MD, MDp, k_values=(1,), equal=False)


def test_poisson_substitution_realised_by_prop_13_datasets():
    """001 Prop. 13: D = (0, 0, 1), D' = (0, 0, -1); the pair is symmetric (one term)."""
    noise = gauss_noise(1)
    MD, MDp = poisson_M([0, 0, 1], "1/4", noise), poisson_M([0, 0, -1], "1/4", noise)
    for k, alphas in ((1, ALPHAS), (2, ("1/3", "3/2"))):
        built = term(poisson_subsampled(gaussian(1), "1/4", "substitution", k), "substitution")
        compare(built, Pair(MD, MDp) ** k, alphas)
        compare(built, Pair(MDp, MD) ** k, alphas)
    other = poisson_M([F(1, 2), 0, F(1, 3)], "1/4", noise), poisson_M([F(1, 2), 0, F(-1, 2)],
                                                                       "1/4", noise)
    compare(term(poisson_subsampled(gaussian(1), "1/4", "replace-one", 1), "substitution"),
            Pair(*other), equal=False)


def test_poisson_zero_out_is_add_remove():
    """002 Sec. 2.2: a record against a ghost contributing 0, D = (0, 1), D' = (0, ghost)."""
    noise = gauss_noise(1)
    MD, MDp = poisson_M([0, 1], "1/3", noise), poisson_M([0, 0], "1/3", noise)
    check_directions(lambda k: poisson_subsampled(gaussian(1), "1/3", "zero-out", k),
                     MDp, MD, k_values=(1,))


# --- sampling without replacement --------------------------------------------------------

@pytest.mark.parametrize("base,noise", [(gaussian(1), gauss_noise(1)),
                                        (laplace(1), laplace_noise(1))])
def test_wor_add_remove_realised_by_prop_9_datasets(base, noise):
    """001 Prop. 9.2 / App. A: D = (-1, -1, -1, -1), D' = D with one -1 replaced by 1, b = 2:
    the sensitivity doubles; also D = (-1, -1, -1) of size n - 1 with gamma = b / n."""
    MD, MDp = wor_M([-1, -1, -1, -1], 2, noise), wor_M([-1, -1, -1, 1], 2, noise)
    check_directions(lambda k: wor_subsampled(base, 4, 2, "add-remove", k), MD, MDp)
    compare(term(wor_subsampled(base, 4, 2, "add", 1), "add"),
            Pair(wor_M([-1, -1, -1], 2, noise), MDp))


def test_wor_dominates_other_datasets():
    """Add neighbours of sizes n - 1 = 4 and n = 5, batch 2, gamma = 2 / 5 (001 Thm 10.2)."""
    noise = gauss_noise(1)
    D = [F(1, 2), -1, F(1, 3), F(-1, 4)]
    MD, MDp = wor_M(D, 2, noise), wor_M(D + [F(3, 4)], 2, noise)
    check_directions(lambda k: wor_subsampled(gaussian(1), 5, 2, "add-remove", k), MD, MDp,
                     k_values=(1,), equal=False)


def test_wor_substitution_terms_realised_by_sec_7_datasets():
    """001 Sec. 7: D = (-1, -1, 1), D' = (-1, -1, -1), b = 1: one step H(M(D) || M(D'))
    and its swap are the j = 1 and j = 0 terms; for k = 2 term j is the product of j steps
    (1 vs -1) and k - j steps (-1 vs 1)."""
    noise = laplace_noise(2)
    MD, MDp = wor_M([-1, -1, 1], 1, noise), wor_M([-1, -1, -1], 1, noise)
    one = wor_subsampled(laplace(2), 3, 1, "substitution", 1)
    assert one.bound == "tight"
    compare(term(one, "j=1"), Pair(MD, MDp))
    compare(term(one, "j=0"), Pair(MDp, MD))
    two = wor_subsampled(laplace(2), 3, 1, "substitution", 2)
    assert two.bound == "lower" and len(two.terms) == 3
    for j in range(3):
        compare(term(two, f"j={j}"), Pair(MD, MDp) ** 1 * Pair(MDp, MD)
                if j == 1 else Pair(MD, MDp) ** 2 if j == 2 else Pair(MDp, MD) ** 2,
                alphas=("1/2", "3/2"))


def test_wor_substitution_is_the_sec_7_pair_exactly():
    """001 Sec. 7 prints P = 1/2 Lap(-1, 2) + 1/2 Lap(1, 2), Q = Lap(-1, 2) for datasets of
    size 2, batch 1, x_1 = -1: the builder's one-step pair is exactly (P, Q)."""
    P = mixture([("1/2", Laplace(-1, 2)), ("1/2", Laplace(1, 2))])
    Q = Laplace(-1, 2)
    assert wor_M([-1, 1], 1, laplace_noise(2)) == P
    assert wor_M([-1, -1], 1, laplace_noise(2)) == mixture([(1, Q)])
    assert term(wor_subsampled(laplace(2), 2, 1, "substitution", 1), "j=1") == Pair(P, Q) ** 1


def test_wor_randomized_response_uses_the_same_pair_as_poisson():
    """001 App. B.1: 'it is the same for M_WOR' - batch 1 of 2, all zeros vs one 1."""
    noise = rr_noise("3/4")
    MD, MDp = wor_M([0, 0], 1, noise), wor_M([0, 1], 1, noise)
    mech = wor_subsampled(randomized_response("3/4"), 2, 1, "add-remove", 2)
    assert H(term(mech, "add"), "4/3").exact == H(Pair(MD, MDp) ** 2, "4/3").exact == F(11, 48)


# --- deterministic batching --------------------------------------------------------------

def test_deterministic_batching_is_one_step_of_the_record_s_batch():
    """ABLQ_D with T = 2 batches of 2: x = (0, 0, 0, 1) vs (0, 0, 0, ghost): the outputs are
    N(0) x N(1) and N(0) x N(0); the other batch cancels (parallel composition)."""
    noise = gauss_noise(F(1, 2))
    MD, MDp = noise(0), noise(1)
    for steps in (1, 2):
        mech = deterministic_batching(gaussian("1/2"), "zero-out", steps)
        compare(term(mech, "add"), Pair(noise(0), noise(0)) * Pair(MD, MDp))
        compare(term(mech, "remove"), Pair(noise(0), noise(0)) * Pair(MDp, MD))


# --- truncated Poisson (004) -------------------------------------------------------------

def r_mixture_upper(mech, label, MD, MDp, alphas=ALPHAS):
    compare(term(mech, label), Pair(MD, MDp), alphas, equal=False)


@pytest.mark.parametrize("D", [[1, -1, -1, -1], [1, 0, F(1, 2), -1], [F(-1, 2), 1, 1, 0]])
def test_truncated_poisson_add_remove_dominates(D):
    """004 Thm 3.1, n = 4, p = 1/2, B = 2: M(D) vs M(D minus x_1) (remove) and the swap."""
    noise = gauss_noise(1)
    MD, MDp = truncated_M(D, "1/2", 2, noise), truncated_M(D[1:], "1/2", 2, noise)
    mech = truncated_poisson(1, 4, "1/2", 2, "add-remove")
    assert mech.bound == "upper"
    r_mixture_upper(mech, "remove", MD, MDp)
    r_mixture_upper(mech, "add", MDp, MD)


def test_truncated_poisson_zero_out_and_replace_one_dominate():
    """004 Thm 3.3 (x_1 -> ghost 0) and Thm 3.4 (x_1 -> another record), n = 4, p = 1/2, B = 2."""
    noise = gauss_noise(1)
    for D in ([1, -1, -1, -1], [F(1, 2), 1, 0, -1]):
        MD = truncated_M(D, "1/2", 2, noise)
        ghost = truncated_M([0] + D[1:], "1/2", 2, noise)
        zo = truncated_poisson(1, 4, "1/2", 2, "zero-out")
        r_mixture_upper(zo, "remove", MD, ghost)
        r_mixture_upper(zo, "add", ghost, MD)
        replaced = truncated_M([-D[0]] + D[1:], "1/2", 2, noise)
        ro = truncated_poisson(1, 4, "1/2", 2, "replace-one")
        r_mixture_upper(ro, "replace-one", MD, replaced)
        r_mixture_upper(ro, "replace-one", replaced, MD)


def test_truncated_poisson_extremes_are_realised():
    """004 Sec. 3.1 'Tightness': B >= n is plain Poisson, D = (1, 0, 0, 0) minus x_1; p = 1,
    B < n is the fixed batch with doubled sensitivity, D = (1, -1, -1, -1) minus x_1."""
    noise = gauss_noise(1)
    for k in (1, 2):
        never = truncated_poisson(1, 4, "1/3", 4, "add-remove", k)
        assert never.bound == "tight"
        MD, MDp = truncated_M([1, 0, 0, 0], "1/3", 4, noise), truncated_M([0, 0, 0], "1/3", 4, noise)
        compare(term(never, "remove"), Pair(MD, MDp) ** k)
        always = truncated_poisson(1, 4, 1, 2, "add-remove", k)
        assert always.bound == "tight"
        MD, MDp = truncated_M([1, -1, -1, -1], 1, 2, noise), truncated_M([-1, -1, -1], 1, 2, noise)
        compare(term(always, "remove"), Pair(MD, MDp) ** k)
        compare(term(always, "add"), Pair(MDp, MD) ** k)


# --- group privacy (003) -----------------------------------------------------------------

def test_group_poisson_realised_by_sec_3_3_datasets():
    """003 Sec. 3.3: K = 2 sensitive records of value 1 added to zeros, q = 1/3."""
    noise = gauss_noise(1)
    MD, MDp = poisson_M([0, 0], "1/3", noise), poisson_M([0, 0, 1, 1], "1/3", noise)
    check_directions(lambda k: group_poisson(gaussian(1), "1/3", 2, "add-remove", k), MD, MDp)


def test_group_fixed_batch_realised_by_sec_3_3_datasets():
    """003 Sec. 3.3 (Thm 3.3): n = 3 records of value -1, K = 2 added records of value 1,
    batch 2: the batch sum is -2 + 2m with m ~ Hypergeom(2, 5, 2), the built pair's N(2m)
    shifted by -2."""
    noise = gauss_noise(1)
    MD, MDp = wor_M([-1, -1, -1], 2, noise), wor_M([-1, -1, -1, 1, 1], 2, noise)
    check_directions(lambda k: group_fixed_batch(gaussian(1), 3, 2, 2, "add-remove", k),
                     MD, MDp, k_values=(1,))


def test_truncated_poisson_two_steps_dominate():
    """004 Thm 3.1 composed twice (public mixture over r in each step) against the enumerated
    sampler run twice, D = (1, -1, -1, -1), n = 4, p = 1/2, B = 2."""
    noise = gauss_noise(1)
    D = [1, -1, -1, -1]
    MD, MDp = truncated_M(D, "1/2", 2, noise), truncated_M(D[1:], "1/2", 2, noise)
    mech = truncated_poisson(1, 4, "1/2", 2, "remove", 2)
    compare(term(mech, "remove"), Pair(MD, MDp) ** 2, ("3/2",), equal=False)


# --- the papers' printed formulas that the mechanism contradicts --------------------------

def test_001_printed_remove_and_thm_14_pairs_are_not_the_mechanism():
    """docs/references.md: 001 Thm 10.1 prints the Poisson remove pair as
    ((1 - g) Q + g P, P) and 001 Thm 14 the WOR substitution bound as
    H((1 - g) Q + g P || P); with (P, Q) = (N(0), N(1)) resp. (N(-1), N(1)) both differ from
    the enumerated mechanism (001 Prop. 9.1 and Sec. 7 datasets), which the catalogue's
    pairs match (tests above).  000 Thm 9 drops g: (1 - g) P + Q is no distribution."""
    noise = gauss_noise(1)
    g = F(1, 3)
    removed = Pair(poisson_M([0, 0, 1], g, noise), poisson_M([0, 0], g, noise))
    printed = Pair(mixture([(1 - g, noise(1)), (g, noise(0))]), noise(0))
    sub = Pair(wor_M([-1, -1, 1], 1, noise), wor_M([-1, -1, -1], 1, noise))
    printed14 = Pair(mixture([(1 - g, noise(1)), (g, noise(-1))]), noise(-1))
    for real, paper in ((removed, printed), (sub, printed14)):
        x, y = H(real, 2), H(paper, 2)
        assert abs(x.value - y.value) > 100 * (x.abs_error + y.abs_error)
    with pytest.raises(ValueError, match="sum exactly to 1"):
        mixture([(1 - g, noise(0)), (1, noise(1))])


# --- 001 App. D: the pointwise-maximum upper bound (discrete bases) ------------------------

def test_pointwise_max_pair_is_the_one_step_worst_case():
    """RR (p = 3/4), batch 1 of 2: H(P* || Q*) = H(M(D) || M(D')) for alpha >= 1 and
    H(M(D') || M(D)) below 1 (D = (0, 1), D' = (0, 0)), by exact brute force."""
    noise = rr_noise("3/4")
    MD, MDp = wor_M([0, 1], 1, noise), wor_M([0, 0], 1, noise)
    upper = wor_substitution_upper(randomized_response("3/4"), 2, 1, 1)
    assert upper.bound == "upper"
    for a in ("0", "1/3", "1/2", "3/4", "1", "6/5", "4/3", "2"):
        order = [(MD, MDp)] if F(a) >= 1 else [(MDp, MD)]
        assert H(upper, a).exact == brute_H(product_table(order), a)


def test_pointwise_max_pair_dominates_every_two_step_run():
    """Every non-adaptive two-step run on substitution neighbours of {0, 1}^2 (batch 1 of 2)
    stays below (P*, Q*)^2, and the mixed terms of 001 Sec. 7 are among them."""
    noise = rr_noise("3/4")
    steps = []
    for D in itertools.product((0, 1), repeat=2):
        for i in range(2):
            Dp = list(D)
            Dp[i] = 1 - D[i]
            steps.append((wor_M(list(D), 1, noise), wor_M(Dp, 1, noise)))
    upper = wor_substitution_upper(randomized_response("3/4"), 2, 1, 2)
    for a in ("1/2", "1", "4/3", "2"):
        bound = H(upper, a).exact
        worst = max(brute_H(product_table([s, t]), a) for s in steps for t in steps)
        assert worst <= bound
        lower = hockey_stick_max(wor_subsampled(randomized_response("3/4"), 2, 1,
                                                "substitution", 2), a)
        assert lower.exact == worst
