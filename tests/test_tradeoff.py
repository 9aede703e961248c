"""refacct.tradeoff: trade-off curves beta(alpha) as brackets from the privacy profile.

Oracles, each derived without refacct's engines:
* the Gaussian curve G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu) (Dong, Roth, Su, "Gaussian
  Differential Privacy", 2019, arXiv:1905.02383, Sec. 2.3), mu = sqrt(T) / sigma for T
  unsampled Gaussian steps of sensitivity 1;
* the Laplace curve, from the Neyman-Pearson tests "reject when x > t" of Lap(0, 1)
  against Lap(1, 1) (worked out in ``laplace_curve``);
* discrete pairs: the Neyman-Pearson construction itself, in exact rationals, on the
  product space (``neyman_pearson``);
* the symmetry of a mechanism's curve under add-remove, f(f(alpha)) = alpha (Dong et al.,
  Prop. 2.12 and Def. F.1: the curve of a symmetric profile is symmetric).
"""
from fractions import Fraction
from itertools import product

import mpmath
import pytest

from refacct import Discrete, Pair
from refacct.errors import InputError, InputTypeError
from refacct.mechanisms import build, gaussian, laplace, randomized_response
from refacct.result import exact_rational
from refacct.tradeoff import beta

ALPHAS = ["1/100000", "1/100", "1/10", "1/2", "9/10"]


def gaussian_curve(mu, alpha: Fraction):
    with mpmath.workdps(40):
        a = mpmath.mpf(alpha.numerator) / alpha.denominator
        return mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1) - mu)


def laplace_curve(alpha: Fraction):
    """T(Lap(0, 1), Lap(1, 1)): rejecting when x > t gives alpha = P(X > t) and beta =
    Q(X <= t); t >= 1: alpha = e^-t / 2, beta = 1 - e alpha; 0 <= t <= 1: alpha = e^-t / 2,
    beta = e^(t-1) / 2 = e^-1 / (4 alpha); t <= 0: alpha = 1 - e^t / 2, beta = e^-1 (1 - alpha)."""
    with mpmath.workdps(40):
        a, e = mpmath.mpf(alpha.numerator) / alpha.denominator, mpmath.e
        if a <= 1 / (2 * e):
            return 1 - e * a
        if a <= mpmath.mpf(1) / 2:
            return 1 / (4 * e * a)
        return (1 - a) / e


def neyman_pearson(P: dict, Q: dict, alpha: Fraction) -> Fraction:
    """T(P, Q)(alpha) exactly: reject on outcomes in decreasing order of Q/P (P = 0 first),
    the last one in part."""
    order = sorted(set(P) | set(Q), key=lambda o: (P.get(o, 0) == 0, Fraction(Q.get(o, 0)) /
                                                   P[o] if P.get(o, 0) else 0), reverse=True)
    spent, power = Fraction(0), Fraction(0)
    for o in order:
        p, q = Fraction(P.get(o, 0)), Fraction(Q.get(o, 0))
        if spent + p >= alpha:
            return 1 - power - (q * (alpha - spent) / p if p else q)
        spent, power = spent + p, power + q
    return 1 - power


def power(dist: dict, k: int) -> dict:
    out = {}
    for outcomes in product(dist, repeat=k):
        mass = Fraction(1)
        for o in outcomes:
            mass *= Fraction(dist[o])
        out[outcomes] = mass
    return out


def ends(result):
    return exact_rational(result.lower), exact_rational(result.upper)


def contains(result, truth) -> bool:
    """lower <= truth <= upper, exactly (an mpf truth at its exact binary value)."""
    truth = truth if isinstance(truth, Fraction) else exact_rational(truth)
    low, high = ends(result)
    return low <= truth <= high


@pytest.mark.parametrize("sigma, steps", [(1, 1), (2, 4), ("1/2", 1)])
def test_gaussian_closed_form(sigma, steps):
    s = Fraction(sigma)
    with mpmath.workdps(40):
        mu = mpmath.sqrt(steps) * s.denominator / s.numerator
    results = beta(build(gaussian(sigma), "none", "add-remove"), ALPHAS, steps=steps)
    for alpha, r in zip(ALPHAS, results):
        truth = gaussian_curve(mu, Fraction(alpha))
        assert contains(r, truth), (alpha, r, truth)
        low, high = ends(r)
        assert high - low <= Fraction(1, 10 ** 6) * high
        assert r.bound == "tight"


def test_laplace_closed_form():
    alphas = ["1/100", "1/10", "1/4", "1/2", "3/4"]  # all three pieces of the curve
    for alpha, r in zip(alphas, beta(build(laplace(1), "none", "add-remove"), alphas)):
        assert contains(r, laplace_curve(Fraction(alpha))), (alpha, r)


P = {"a": Fraction(1, 2), "b": Fraction(1, 2)}
Q = {"a": Fraction(1, 5), "b": Fraction(7, 10), "c": Fraction(1, 10)}


@pytest.mark.parametrize("steps", [1, 2])
def test_discrete_pair_against_neyman_pearson(steps):
    """An asymmetric pair (Q has an atom P lacks): T(P, Q) and T(Q, P) differ, so the
    directions of the duality are checked too."""
    pair = Pair(Discrete(P), Discrete(Q))
    alphas = [Fraction(1, 7), Fraction(1, 4), Fraction(1, 2), Fraction(4, 5)]
    for x, (A, B) in ((pair, (P, Q)), (pair.swap(), (Q, P))):
        for alpha, r in zip(alphas, beta(x, alphas, steps=steps)):
            truth = neyman_pearson(power(A, steps), power(B, steps), alpha)
            assert contains(r, truth), (alpha, r, truth)
            low, high = ends(r)
            assert high - low <= Fraction(1, 10 ** 5) * high
            assert r.proven  # exact delta(eps) = A - e^eps B in Arb balls


def test_randomized_response_is_pure_dp_curve():
    """RR(3/4) is (ln 3, 0)-DP and no better: f(alpha) = max(0, 1 - 3 alpha, (1 - alpha) / 3)
    (Dong et al. Sec. 2.2, the curve f_{eps, 0})."""
    entry = build(randomized_response("3/4"), "none", "substitution")
    for alpha in (Fraction(1, 10), Fraction(1, 4), Fraction(1, 2)):
        truth = max(0, 1 - 3 * alpha, (1 - alpha) / 3)
        assert contains(beta(entry, alpha), truth)


def test_poisson_curve_is_symmetric():
    """f(f(alpha)) = alpha for the add-remove curve: with beta(alpha) in [l, u] and f
    decreasing, f(u) <= alpha <= f(l)."""
    entry = build(gaussian(1), "poisson", "add-remove", q="1/10")
    alpha = Fraction(1, 10)
    r = beta(entry, alpha, width="1/1000")
    low, high = ends(r)
    back = beta(entry, [low, high], width="1/1000")
    assert ends(back[1])[0] <= alpha <= ends(back[0])[1]


@pytest.mark.parametrize("alpha", [0, 1, "-1/2", "3/2"])
def test_alpha_outside_the_open_unit_interval(alpha):
    with pytest.raises(InputError, match="alpha must lie in"):
        beta(build(gaussian(1), "none", "add-remove"), alpha)


def test_shuffled_entries_have_no_curve():
    with pytest.raises(InputTypeError, match="shuffled"):
        beta(build(gaussian(1), "shuffle", "zero-out", n=10), "1/10")


def test_command_line_brackets_the_gaussian_curve(capsys):
    """`refacct beta gaussian --sigma 2 --steps 4`: mu = 1; the printed lower and upper ends
    (rounded outward) hold G_1."""
    from refacct.cli import main
    assert main(["beta", "gaussian", "--sigma", "2", "--steps", "4", "--alpha", "1/100",
                 "1/2", "--json"]) == 0
    records = __import__("json").loads(capsys.readouterr().out)
    for record in records:
        truth = exact_rational(gaussian_curve(1, Fraction(record["alpha"])))
        assert Fraction(record["lower"]) <= truth <= Fraction(record["upper"])
        assert record["bound"] == "tight"


@pytest.mark.parametrize("argv, message", [
    (["beta", "gaussian", "--alpha", "1"], "alpha must lie in (0, 1)"),
    (["beta", "gaussian", "--alpha", "1/2", "--width", "0"], "--width must be > 0"),
    (["beta", "--alpha", "1/2"], "required: --pair"),
    (["beta", "gaussian", "--sigma", "1", "--sampling", "shuffle", "--n", "10", "--alpha",
      "1/2"], "shuffled"),
])
def test_command_line_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    from refacct.cli import main
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("refacct: error:") and message in err and err.count("\n") == 1


def test_a_time_limit_returns_a_marked_bracket_that_holds(monkeypatch):
    """Three Gaussian steps with the closed form for products of shifts turned off (the
    quadrature of k = 3 takes about a minute): a 5-second limit cuts the profile short,
    and the curve G_sqrt(3) still lies in the bracket returned (clipped to [0, 1])."""
    import refacct.hockey
    import refacct.routing
    for module in (refacct.hockey, refacct.routing):
        monkeypatch.setattr(module, "shift_squared", lambda factors: None)
    r = beta(build(gaussian(1), "none", "add-remove"), "1/10", steps=3, time_limit=5)
    with mpmath.workdps(40):
        truth = gaussian_curve(mpmath.sqrt(3), Fraction(1, 10))
    assert r.time_limited and "time limit" in r.method
    assert contains(r, truth), (r, truth)
    assert 0 <= r.lower and r.upper <= 1
