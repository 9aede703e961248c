"""The shipped reference cases: well-formed, and their stored values against independent
oracles (never against refacct itself; that is the drift check's job,
test_validation_recompute.py).

Oracles: the exact rationals printed in 001 App. B.1; the printed 002 values and the
Balle-Wang closed form (002 Prop. 3.1, conftest.balle_wang); the one-step Poisson-subsampled
Gaussian and mixture-of-Gaussians curves written from the densities (monotone likelihood
ratio: one crossing, found by mpmath bisection; tails with erfc) below; and the subsampled-
Laplace quadrature oracle of test_mechanisms_papers (001 Sec. 5 and Sec. 7); the two-step
subsampled Gaussian as a one-dimensional mpmath quadrature over the one-step closed form.
Cases without an independent oracle here (three steps, group of two over two steps, truncated
Poisson, Laplace k = 2, eps(delta) at two steps) are covered by the drift check and the
core's own tests.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from mpmath import mp

from conftest import balle_wang, mpq, upper_tail
from test_mechanisms_papers import ADD, REMOVE, SEC5, SEC7, TERMS, LaplaceOracle, oracle
from refacct.validation import load_cases
from refacct.validation.cases import KINDS

CASES = {c.name: c for c in load_cases()}


def refs(name):
    """{(kind, at as text): Reference} of a case."""
    return {(q.kind, q.text): q.reference for q in CASES[name].queries}


def assert_contains(ref, value, value_err=0):
    """The stored interval [v - e, v + e] and the oracle's overlap."""
    assert abs(mpq(ref.value) - value) <= mpq(ref.abs_error) + value_err


def assert_eps_root(ref, delta_of_eps, target):
    """The oracle's delta at the ends of the stored eps interval straddles the target."""
    assert delta_of_eps(mpq(ref.low)) > mpq(target) > delta_of_eps(mpq(ref.high))


def test_catalogue_is_well_formed():
    assert len(CASES) == len(load_cases())  # unique names
    for case in CASES.values():
        entry = case.entry()
        assert entry.bound in ("tight", "upper", "lower")
        for q in case.queries:
            assert q.kind in KINDS and q.reference is not None
            assert q.reference.bound == entry.bound and q.reference.abs_error >= 0


@pytest.mark.parametrize("name,alpha,printed", [
    ("001-B1-rr-poisson-k2-add", "4/3", Fraction(11, 48)),
    ("001-B1-rr-poisson-k2-remove", "4/3", Fraction(1, 6)),
    ("001-B1-rr-poisson-k2-add", "2", Fraction(1, 16)),
    ("001-B1-rr-poisson-k2-remove", "2", Fraction(1, 8)),
    ("001-B1-rr-poisson-k2", "4/3", Fraction(11, 48)),
    ("001-B1-rr-poisson-k2", "2", Fraction(1, 8)),
])
def test_randomized_response_printed_rationals(name, alpha, printed):
    """001 App. B.1: H_4/3(P||Q) = 11/48, H_4/3(Q||P) = 1/6, H_2(P||Q) = 1/16,
    H_2(Q||P) = 1/8; the add-remove maximum switches from add to remove."""
    ref = refs(name)[("alpha", alpha)]
    assert ref.exact == printed and ref.low <= printed <= ref.high
    if name == "001-B1-rr-poisson-k2":
        assert ref.attained_by == ("add" if alpha == "4/3" else "remove")


def test_002_deterministic_batching_against_balle_wang_and_print():
    """002 Sec. 4.3 / App. A.1: delta_D(4) ~ 0.244 (sigma 0.4), eps_D(1e-6) ~ 10.997
    (sigma 0.5), eps_D(1e-5) ~ 6.652 (sigma 0.7)."""
    with mp.workdps(60):
        d = refs("002-deterministic-sigma0.4")[("delta", "4")]
        assert_contains(d, balle_wang(4, Fraction(5, 2)))
        assert mp.nstr(mpq(d.value), 3) == "0.244"
        for name, target, m, printed in (("002-deterministic-sigma0.5", "1e-6", 2, "10.997"),
                                         ("002-deterministic-sigma0.7", "1e-5", Fraction(10, 7), "6.652")):
            e = refs(name)[("epsilon", target)]
            assert_eps_root(e, lambda x, m=m: balle_wang(x, m), target)
            assert mp.nstr(mpq(e.value), len(printed) - 1) == printed


def test_gaussian_two_steps_is_a_shift_by_sqrt2():
    """N(0, 1)^2 vs N(1, 1)^2 = N(0, 1) vs N(sqrt 2, 1) (docs/numerics.md)."""
    with mp.workdps(60):
        for (kind, at), ref in refs("gaussian-k2").items():
            assert_contains(ref, balle_wang(mpq(Fraction(at)), mp.sqrt(2)))


def _crossing(ratio, target, lo=-60, hi=60):
    """The y with ratio(y) = target for an increasing ratio, by bisection (mpmath)."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    for _ in range(mp.prec + 20):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ratio(mid) < target else (lo, mid)
    return (lo + hi) / 2


def mixture_delta(weights, eps):
    """delta(eps) = max(H(P || Q), H(Q || P)) for P = sum_j w_j N(j, 1), Q = N(0, 1)
    (Poisson-subsampled Gaussian: weights (1 - q, q); group of K: Binom(K, q), 003 Thm 3.1).
    The likelihood ratio r(y) = sum_j w_j e^{j y - j^2 / 2} increases in y, so
    H(P||Q) = sum_j w_j T(y* - j) - a T(y*) with r(y*) = a, and H(Q||P) = T(-y') -
    a sum_j w_j T(j - y') with r(y') = 1 / a when 1 / a > w_0 (else 0); T the upper tail."""
    a = mp.exp(eps if isinstance(eps, mp.mpf) else mpq(eps))
    w = [mpq(x) for x in weights]
    ratio = lambda y: sum(wj * mp.exp(j * y - mp.mpf(j * j) / 2) for j, wj in enumerate(w))  # noqa: E731
    ys = _crossing(ratio, a)
    remove = sum(wj * upper_tail(ys - j) for j, wj in enumerate(w)) - a * upper_tail(ys)
    if 1 / a <= w[0]:
        return remove
    ya = _crossing(ratio, 1 / a)
    add = upper_tail(-ya) - a * sum(wj * upper_tail(j - ya) for j, wj in enumerate(w))
    return max(remove, add)


def test_tiny_delta_one_step_against_the_closed_form():
    """Poisson q = 1/100, sigma = 1, one step: delta(3/2) ~ 6e-11, delta(7) ~ 5e-32,
    delta(17) ~ 2e-102 and eps(1e-10), eps(1e-30), eps(1e-100)."""
    weights = (Fraction(99, 100), Fraction(1, 100))
    with mp.workdps(60):
        for (kind, at), ref in refs("tiny-delta-poisson-gaussian-k1").items():
            if kind == "delta":
                value = mixture_delta(weights, Fraction(at))
                assert_contains(ref, value)
                assert mpq(ref.abs_error) < value * mp.mpf(10) ** -19
            else:
                assert_eps_root(ref, lambda x: mixture_delta(weights, x), at)


@pytest.mark.parametrize("name,K,q", [("003-group-poisson-K2-k1", 2, Fraction(1, 10)),
                                      ("003-fig1-group-K2", 2, Fraction(1, 100)),
                                      ("003-fig1-group-K8", 8, Fraction(1, 100))])
def test_group_one_step_against_the_mixture_of_gaussians(name, K, q):
    """003 Thm 3.1: sensitivity Binom(K, q) in units of Delta = 1, sigma = 1."""
    weights = [comb(K, j) * q ** j * (1 - q) ** (K - j) for j in range(K + 1)]
    with mp.workdps(60):
        for (kind, at), ref in refs(name).items():
            if kind == "delta":
                assert_contains(ref, mixture_delta(weights, Fraction(at)))
            else:
                assert_eps_root(ref, lambda x: mixture_delta(weights, x), at)


def _laplace_max(params, orders, eps):
    values = [oracle(params, o, eps) for o in orders]
    value, err = max(values)
    return value, max(e for _, e in values)


@pytest.mark.parametrize("name,params,orders,winners", [
    ("001-sec5-laplace-poisson-k2", SEC5, (ADD, REMOVE),
     {"1/4": "add", "3/10": "add", "1/2": "add", "0.69750711265": "add",
      "0.69750711275": "remove", "9/10": "remove", "3/2": "remove"}),
    ("001-prop11-laplace-wor-k2", ("9/10", -1, 1, 2), (ADD, REMOVE),
     {"1/2": "add", "9/10": "remove"}),
    ("001-sec7-laplace-wor-substitution-k2", SEC7, tuple(TERMS.values()),
     {"1/10": "j=0", "0.304836755": "j=0", "0.304836765": "j=1", "2/5": "j=1",
      "0.518994125": "j=1", "0.518994135": "j=2", "4/5": "j=2"}),
])
def test_subsampled_laplace_crossings_against_the_quadrature_oracle(name, params, orders, winners):
    """001 Sec. 5 / Prop. 11: add above remove before eps ~ 0.6975071127, remove after;
    001 Sec. 7: each of the three terms attains the maximum somewhere, switching at
    0.30483676 and 0.51899413 (half a unit of the last printed digit either side)."""
    for (kind, at), ref in refs(name).items():
        value, err = _laplace_max(params, orders, at)
        with mp.workdps(45):
            assert_contains(ref, value, err)
        assert ref.attained_by == winners[at]


def poisson_gaussian_two_steps(q, eps):
    """delta(eps) of the Poisson-subsampled Gaussian (sigma = 1, rate q) composed twice, for
    eps > 2 ln(1 / (1 - q)), where the add direction is 0 (its loss is at most ln(1 / (1 - q))
    per step), so delta = H_a(P^2 || Q^2) with P = (1 - q) N(0, 1) + q N(1, 1), Q = N(0, 1).

    H_a(P^2 || Q^2) = integral p(y) H_{a / r(y)}(P || Q) dy with r = p / q = 1 - q + q e^{y - 1/2}
    (docs/numerics.md, Composition); one step H_b(P || Q) = (1 - q) T(y_b) + q T(y_b - 1) - b T(y_b)
    with r(y_b) = b for b > 1 - q, and 1 - b for b <= 1 - q, i.e. for y >= y1 with
    r(y1) = a / (1 - q); that part is P(Y > y1) - a Q(Y > y1) in closed form, the rest is
    tanh-sinh quadrature on (-inf, y1]."""
    q, a = mpq(q), mp.exp(mpq(eps))
    r = lambda y: 1 - q + q * mp.exp(y - mp.mpf(1) / 2)  # noqa: E731
    y_at = lambda b: mp.log((b - 1 + q) / q) + mp.mpf(1) / 2  # noqa: E731
    tail = lambda y: (1 - q) * upper_tail(y) + q * upper_tail(y - 1)  # noqa: E731
    p = lambda y: ((1 - q) * mp.npdf(y) + q * mp.npdf(y, 1))  # noqa: E731

    def one(b):
        return 1 - b if b <= 1 - q else tail(y_at(b)) - b * upper_tail(y_at(b))
    y1 = y_at(a / (1 - q))
    flat = tail(y1) - a * upper_tail(y1)
    return flat + mp.quad(lambda y: p(y) * one(a / r(y)), [-mp.inf, y1 - 10, y1 - 1, y1])


@pytest.mark.parametrize("name,q,dps", [
    ("poisson-gaussian-q0.1-k2", Fraction(1, 10), 40),
    ("tiny-delta-poisson-gaussian-k2", Fraction(1, 100), 120),
])
def test_two_steps_against_the_one_dimensional_quadrature(name, q, dps):
    """Two quadratures, at dps and dps + 20 digits, agree; the stored value lies within
    both bounds (the 1e-94 value needs the 120 digits: mp.quad's tolerance is absolute)."""
    for (kind, at), ref in refs(name).items():
        with mp.workdps(dps):
            low = poisson_gaussian_two_steps(q, Fraction(at))
        with mp.workdps(dps + 20):
            high = poisson_gaussian_two_steps(q, Fraction(at))
            assert_contains(ref, high, 10 * abs(high - low))
            assert 10 * abs(high - low) < high * mp.mpf(10) ** -14


def test_sec5_one_step_against_the_closed_form():
    """001 Sec. 5, k = 1: remove = H(A || B) dominates add = H(B || A) (one step in closed
    form from the monotone likelihood ratio, LaplaceOracle.one)."""
    for (kind, at), ref in refs("001-sec5-laplace-poisson-k1").items():
        with mp.workdps(40):
            pair, a = LaplaceOracle(*SEC5), mp.exp(mpq(Fraction(at)))
            assert_contains(ref, max(pair.one("AB", a), pair.one("BA", a)), mp.mpf(10) ** -35)
        assert ref.attained_by == "remove"


# --- large-T cases: proven brackets (refacct.brackets) and the transform's digits ----------

def test_gaussian_bracket_at_100_steps_contains_the_closed_form():
    """100 steps of N(1, 100) vs N(0, 100) are N(1, 1) vs N(0, 1) (sum of the observations,
    docs/numerics.md): Balle-Wang with m = 1 (002 Prop. 3.1) lies in every stored bracket."""
    with mp.workdps(40):
        for (kind, at), ref in refs("gaussian-sigma10-T100").items():
            assert ref.proven and ref.low < ref.high
            assert mpq(ref.low) <= balle_wang(Fraction(at), 1) <= mpq(ref.high)


# proven lattice brackets the many-step Poisson references were before the transform
# gave them 20 digits (refacct.brackets: a method sharing nothing with the transform)
FORMER_BRACKETS = {
    "dispute-poisson-gaussian-T1000": {("delta", "1"): ("2.53709e-13", "2.54289e-13")},
    "001-table1-poisson": {("epsilon", "1e-7"): ("1.16932", "1.17158"),
                           ("epsilon", "1e-6"): ("0.945191", "0.947971"),
                           ("epsilon", "1e-5"): ("0.780243", "0.783202"),
                           ("epsilon", "1e-4"): ("0.626614", "0.629361")},
    "tiny-delta-poisson-gaussian-T100": {("epsilon", "1e-10"): ("2.16229", "2.16309"),
                                         ("epsilon", "1e-30"): ("7.81286", "7.81375"),
                                         ("epsilon", "1e-100"): ("26.7190", "26.7201")},
    # the conformance suite's trade-off cases: the attack advantage delta(0)
    "tradeoff-gauss-poisson-s1-q1e-2-T100": {("delta", "0"): ("0.0504698", "0.0507696")},
    "tradeoff-gauss-poisson-s2-q1e-2-T1000": {("delta", "0"): ("0.0666211", "0.0671850")}}
CONFORMANCE = {c.name: c for c in load_cases(suite="conformance")}


@pytest.mark.parametrize("name", sorted(FORMER_BRACKETS))
def test_transform_references_lie_inside_the_former_brackets(name):
    case = CASES[name] if name in CASES else CONFORMANCE[name]
    stored = {(q.kind, q.text): q.reference for q in case.queries}
    assert set(FORMER_BRACKETS[name]) <= set(stored)
    for key, (lo, hi) in FORMER_BRACKETS[name].items():
        ref = stored[key]
        assert ref.proven and ref.high - ref.low <= ref.low * Fraction(1, 10 ** 19)
        assert Fraction(lo) <= ref.low <= ref.high <= Fraction(hi)


def test_table1_printed_values_lie_just_above_the_truth():
    """001 Table 1, Poisson column: 1.19, 0.96, 0.80, 0.64 lie 0.011 .. 0.019 above the
    proven upper ends (a finding: the printed values are valid upper bounds, not tight, as
    an accountant with an eps error of ~0.01 on the safe side returns; 001 Sec. 6 used
    Opacus's PLD accountant), and within 0.02 of the truth."""
    printed = {"1e-7": "1.19", "1e-6": "0.96", "1e-5": "0.80", "1e-4": "0.64"}
    for (kind, at), ref in refs("001-table1-poisson").items():
        assert ref.proven and ref.high - ref.low <= Fraction(1, 100) + Fraction(1, 10 ** 5)
        assert ref.high < Fraction(printed[at]) <= ref.high + Fraction(2, 100)


class PoissonGaussian:
    """Independent bounds for T steps of the Poisson-subsampled Gaussian (rate q, noise
    sigma, sensitivity 1), written from the densities here:

    * an upper bound: the Renyi divergence of order alpha (integers) of the subsampled
      Gaussian, rho_alpha = ln(sum_k C(alpha, k) (1 - q)^(alpha - k) q^k
      e^{(k^2 - k) / (2 sigma^2)}) / (alpha - 1) (Mironov, Talwar, Zhang 2019), composes
      additively, and T rho_alpha converts to delta <= e^{(alpha - 1)(T rho - eps)} / alpha
      (1 - 1/alpha)^(alpha - 1) (Canonne, Kamath, Steinke 2020, Prop. 12);
    * a lower bound: for the event S = {max_i y_i > t}, delta(eps) >= P^T(S) - e^eps Q^T(S)
      (001 Definition 3 as a supremum over events), with P = (1 - q) N(0, s^2) + q N(1, s^2),
      Q = N(0, s^2) per step (the remove direction), maximised over t on a grid."""

    def __init__(self, q, sigma, T, orders=range(2, 97)):
        self.q, self.s, self.T = mpq(q), mpq(sigma), T
        self.rho = {}
        for a in orders:
            terms = [mp.binomial(a, k) * (1 - self.q) ** (a - k) * self.q ** k
                     * mp.exp(mp.mpf(k * k - k) / (2 * self.s ** 2)) for k in range(a + 1)]
            self.rho[a] = T * mp.log(mp.fsum(terms)) / (a - 1)

    def delta_upper(self, eps):
        return min(mp.exp((a - 1) * (r - eps)) / a * (1 - mp.mpf(1) / a) ** (a - 1)
                   for a, r in self.rho.items())

    def eps_upper(self, delta):
        return min(r + (mp.log(1 / delta) - mp.log(a) + (a - 1) * mp.log(1 - mp.mpf(1) / a)) / (a - 1)
                   for a, r in self.rho.items())

    def delta_lower(self, eps):
        a, best = mp.exp(eps), mp.mpf(0)
        for i in range(1, 801):          # t up to 40
            t = mp.mpf(i) / 20
            p = (1 - self.q) * upper_tail(t / self.s) + self.q * upper_tail((t - 1) / self.s)
            q = upper_tail(t / self.s)
            best = max(best, -mp.expm1(self.T * mp.log1p(-p)) + a * mp.expm1(self.T * mp.log1p(-q)))
        return best


@pytest.mark.parametrize("name,q,sigma,T", [
    ("dispute-poisson-gaussian-T1000", "1e-3", 1, 1000),
    ("001-table1-poisson", "1e-3", "0.8", 10000),
    ("tiny-delta-poisson-gaussian-T100", "1/100", 1, 100),
])
def test_large_T_brackets_between_independent_bounds(name, q, sigma, T):
    """Weak but independent of refacct (PoissonGaussian): every stored lower end lies below
    the RDP upper bound; every stored upper end of delta lies above the max-test lower
    bound, and the max-test lower bound at the stored upper end of eps(delta) is at most
    delta (else eps(delta) would exceed that end)."""
    with mp.workdps(30):
        bounds = PoissonGaussian(Fraction(q), Fraction(sigma), T)
        for (kind, at), ref in refs(name).items():
            assert ref.proven
            if kind == "delta":
                assert mpq(ref.low) <= bounds.delta_upper(mpq(at))
                assert bounds.delta_lower(mpq(at)) <= mpq(ref.high)
            else:
                assert mpq(ref.low) <= bounds.eps_upper(mpq(at))
                assert bounds.delta_lower(mpq(ref.high)) <= mpq(at)


def test_randomized_response_ten_steps_by_brute_force():
    """rr-replace-one-k10: the 2^10 outcomes of randomized response 51/100 enumerated with
    exact masses (conftest); delta(0) exactly, delta(eps) = A - e^eps B, and the stored
    eps(1e-3) interval straddles the root of the brute-force curve."""
    from conftest import brute_AB, brute_H, brute_delta_mpf, product_table
    from refacct import Discrete
    rows = product_table([(Discrete({0: "51/100", 1: "49/100"}),
                           Discrete({0: "49/100", 1: "51/100"}))] * 10)
    ref = refs("rr-replace-one-k10")
    exact = brute_H(rows, 1)
    assert ref[("delta", "0")].exact == exact
    assert ref[("delta", "0")].low <= exact <= ref[("delta", "0")].high
    with mp.workdps(40):
        for eps in ("1/100", "1/5"):
            A, B = brute_AB(rows, eps)
            assert_contains(ref[("delta", eps)], mpq(A) - mp.exp(mpq(eps)) * mpq(B))
        assert_eps_root(ref[("epsilon", "1e-3")], lambda e: brute_delta_mpf(rows, e), "1e-3")


# proven lattice brackets (refacct.brackets: mass on a lattice, nothing shared with the
# transform that gives the settings suite its 20 digits), rounded outward:
# refacct.epsilon / delta(entry, ..., steps=T, method="bracket", width="1e-4"), 85-140 s each
# (random allocation: width="1e-6")
SETTINGS_BRACKETS = {
    "opacus-cifar10-tutorial": {("epsilon", "1e-5"): ("1.46501", "1.46506"),
                                ("delta", "2"): ("2.13778e-8", "2.13911e-8")},   # remove's
    "opacus-cifar10-tutorial-substitution": {("epsilon", "1e-5"): ("2.50807", "2.50811"),
                                             ("delta", "2"): ("2.35150e-4", "2.35159e-4")},
    "tfprivacy-mnist-tutorial": {("epsilon", "1e-5"): ("2.34953", "2.34958"),
                                 ("delta", "1"): ("0.0146003", "0.0146012")},
    # one epoch of random allocation, t = 195: the lattice on the one-epoch cells
    # (engines.allocation.cells, 58 s and 407 s), not the inversion's balls at the strike
    # that give its 10 digits (refacct.allocation)
    "opacus-cifar10-random-allocation": {("epsilon", "1e-5"): ("0.3044148", "0.3044154"),
                                         ("delta", "1/2"): ("1.164645e-7", "1.164646e-7")},
}


SETTINGS = {c.name: c for c in load_cases(suite="settings")}


def test_training_settings_are_well_formed():
    assert len(SETTINGS) == len(load_cases(suite="settings"))  # unique names
    for case in SETTINGS.values():
        for q in case.queries:
            assert q.kind in KINDS and q.reference is not None and q.reference.abs_error >= 0


@pytest.mark.parametrize("name", sorted(SETTINGS_BRACKETS))
def test_training_settings_lie_inside_the_lattice_brackets(name):
    stored = {(q.kind, q.text): q.reference for q in SETTINGS[name].queries}
    digits = SETTINGS[name].digits
    for key, (lo, hi) in SETTINGS_BRACKETS[name].items():
        ref = stored[key]
        assert ref.proven and ref.high - ref.low <= ref.low * Fraction(1, 10 ** (digits - 1))
        assert Fraction(lo) <= ref.low <= ref.high <= Fraction(hi)
