"""Shared oracles for the refacct test suite.

Everything here is computed *independently* of refacct: exact enumeration with
``Fraction`` for discrete pairs, the Balle-Wang closed form (002 Prop. 3.1) with
``mpmath.erfc`` for Gaussian shift pairs, and helpers to compare a refacct result with an
oracle.  No helper imports anything from ``refacct`` except the result object it checks.
Precision is always set locally (``mp.workdps``); ``mp.dps`` is never changed globally.
Two helpers for command-line tests: the ``write`` fixture (a pair spec to a file) and
``run_cli`` (``refacct.cli.main`` in-process, with its exit status and output).
"""
from __future__ import annotations

import itertools
import json
from fractions import Fraction

import mpmath
import pytest
from mpmath import mp

ORACLE_DPS = 80  # oracles are computed well above the 20-30 digits that are checked


def mpq(x) -> "mp.mpf":
    """A Fraction / int / str rational as an mpf at the current precision."""
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


class StoredBracket:
    """A proven bracket [lower, upper] of the lattice engine (``method="bracket"``: mass on
    a lattice, no transform), computed once and stored with its ends rounded outward to
    six digits: the second method against which the transform's digits are checked, without
    its 30-90 s in every run of the suite.  Compared exactly (the ends as rationals)."""

    def __init__(self, lower: str, upper: str):
        self.lower, self.upper = Fraction(lower), Fraction(upper)

    def holds(self, lo, hi) -> bool:
        """lower <= lo <= hi <= upper, for mpf (or rational) lo and hi."""
        return self.lower <= _rational(lo) <= _rational(hi) <= self.upper


def _rational(x) -> Fraction:
    """An mpf (man 2^exp, read as it is: converting it would round it to the working
    precision) or a rational, exactly."""
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if not isinstance(x, mpmath.mpf) or not mpmath.isfinite(x):
        raise TypeError(f"a finite mpf or a rational, got {x!r}")
    man, exp = x.man_exp
    return Fraction(man) * Fraction(2) ** exp


# --- Gaussian closed forms ----------------------------------------------------------------

def upper_tail(x):
    """P(N(0, 1) > x) = erfc(x / sqrt 2) / 2, accurate in the far tail."""
    return mp.erfc(x / mp.sqrt(2)) / 2


def balle_wang(eps, m):
    """delta(eps) = H_{e^eps}(N(m, 1) || N(0, 1)) (002 Sec. 3, Prop. 3.1, Balle & Wang Thm 8).

    Written with upper tails: Phi(-eps/m + m/2) = T(eps/m - m/2) and
    Phi(-eps/m - m/2) = T(eps/m + m/2) with T the upper tail, so values far below 1e-50
    keep their relative accuracy.  Valid for every real eps (for eps < 0 as well: the
    derivation, p > e^eps q  <=>  y > eps/m + m/2, does not use the sign of eps).
    N(mu, s^2) vs N(0, s^2) is the same pair after y -> y/s, i.e. m = mu / s.
    Evaluate inside ``mp.workdps``; eps and m are mpf (or rationals)."""
    eps = mpq(eps) if not isinstance(eps, mp.mpf) else eps
    m = mpq(m) if not isinstance(m, mp.mpf) else m
    return upper_tail(eps / m - m / 2) - mp.exp(eps) * upper_tail(eps / m + m / 2)


def gaussian_H(alpha, m):
    """H_alpha(N(m,1) || N(0,1)) for alpha >= 0 (alpha = 0 gives 1)."""
    if alpha == 0:
        return mp.one
    return balle_wang(mp.log(mpq(alpha) if not isinstance(alpha, mp.mpf) else alpha), m)


# --- Laplace closed form ------------------------------------------------------------------

def laplace_H(alpha, t):
    """H_alpha(Lap(mu, b) || Lap(0, b)) with t = mu / b > 0, derived in
    tests/test_onestep.py::test_laplace_one_step_closed_form:
    1 - alpha for alpha <= e^-t, 1 - sqrt(alpha e^-t) for e^-t <= alpha <= e^t, 0 above."""
    alpha = mpq(alpha) if not isinstance(alpha, mp.mpf) else alpha
    t = mpq(t) if not isinstance(t, mp.mpf) else t
    if alpha <= mp.exp(-t):
        return 1 - alpha
    if alpha >= mp.exp(t):
        return mp.zero
    return 1 - mp.sqrt(alpha * mp.exp(-t))


# --- discrete brute force -----------------------------------------------------------------

def masses(dist) -> dict:
    """{outcome: Fraction} of a refacct Discrete (read from its public ``masses``)."""
    return {x: Fraction(m) for x, m in dist.masses}


def product_table(pairs):
    """All outcome tuples of P1 x ... x Pk and Q1 x ... x Qk with exact masses:
    a list of (p, q) Fractions, one per outcome tuple (no grouping)."""
    tables = []
    for P, Q in pairs:
        p, q = masses(P), masses(Q)
        support = sorted(set(p) | set(q), key=repr)
        tables.append([(p.get(x, Fraction(0)), q.get(x, Fraction(0))) for x in support])
    rows = []
    for combo in itertools.product(*tables):
        pp, qq = Fraction(1), Fraction(1)
        for a, b in combo:
            pp *= a
            qq *= b
        rows.append((pp, qq))
    return rows


def brute_H(rows, alpha) -> Fraction:
    """sum over outcomes of (p - alpha q)_+ (001 Definition 3), exactly."""
    alpha = Fraction(alpha)
    return sum((max(p - alpha * q, Fraction(0)) for p, q in rows), Fraction(0))


def ratio_exceeds_exp(p: Fraction, q: Fraction, eps) -> bool:
    """p / q > e^eps for rational eps, decided at high precision (for rational p/q != 1 and
    eps != 0, ln(p/q) != eps by Lindemann, so a large enough precision decides; assert it)."""
    if q == 0:
        return p > 0
    if p == 0:
        return False
    eps = Fraction(eps)
    if eps == 0:
        return p > q
    with mp.workdps(200):
        gap = mp.log(mpq(p / q)) - mpq(eps)
        assert abs(gap) > mp.mpf(10) ** -150, "tie too close to decide"
        return gap > 0


def brute_AB(rows, eps):
    """(A, B): P- and Q-mass of outcomes with p > e^eps q, so delta(eps) = A - e^eps B."""
    A = sum((p for p, q in rows if ratio_exceeds_exp(p, q, eps)), Fraction(0))
    B = sum((q for p, q in rows if ratio_exceeds_exp(p, q, eps)), Fraction(0))
    return A, B


def brute_delta_mpf(rows, eps):
    """sum (p - e^eps q)_+ at the current precision for an mpf eps."""
    a = mp.exp(eps)
    total = mp.zero
    for p, q in rows:
        v = mpq(p) - a * mpq(q)
        if v > 0:
            total += v
    return total


# --- comparing results with oracles -------------------------------------------------------

def assert_verified(result, oracle, digits=20, oracle_err=0):
    """|value - oracle| <= abs_error + oracle_err, and the result claims >= digits."""
    with mp.workdps(max(ORACLE_DPS, digits + 40)):
        diff = abs(mp.mpf(result.value) - oracle)
        bound = mp.mpf(result.abs_error) + oracle_err
        assert diff <= bound, (
            f"|value - oracle| = {mp.nstr(diff, 5)} exceeds the claimed bound "
            f"{mp.nstr(bound, 5)} (value {mp.nstr(result.value, 30)}, "
            f"oracle {mp.nstr(oracle, 30)})")
    vd = result.verified_digits
    assert vd is None or vd >= digits, f"claims only {vd} digits, {digits} requested"


def oracle_agree(fn, dps_low=60, dps_high=90):
    """Evaluate an oracle at two precisions; return the high-precision value and the
    difference (times 10) as its own error, which must be tiny."""
    with mp.workdps(dps_low):
        low = fn()
    with mp.workdps(dps_high):
        high = fn()
        err = 10 * abs(high - low)
    return high, err


_CHECKED_MODULES = {"test_distributions", "test_pairs", "test_discrete", "test_onestep",
                    "test_composed", "test_api"}


@pytest.fixture(autouse=True)
def _precision_is_restored(request):
    """Every test of the modules above must leave mp.prec as it found it (refacct sets
    precision locally; so do these tests).  Other test modules are left alone."""
    if request.module.__name__.rsplit(".", 1)[-1] not in _CHECKED_MODULES:
        yield
        return
    before = mp.prec
    yield
    assert mp.prec == before, "mp precision was changed and not restored"


# --- direct quadrature of (p - alpha q)_+ for continuous mixtures --------------------------

def mixture_rows(dist):
    """[(weight, is_gaussian, centre, width)] read from a refacct continuous distribution's
    public ``components`` (its input parameters, nothing computed by refacct)."""
    rows = []
    for w, c in dist.components:
        if hasattr(c, "sigma"):
            rows.append((Fraction(w), True, Fraction(c.mean), Fraction(c.sigma)))
        else:
            rows.append((Fraction(w), False, Fraction(c.loc), Fraction(c.scale)))
    return rows


def density(rows):
    """Textbook density of a Gaussian / Laplace mixture at the current precision."""
    params = [(mpq(w), g, mpq(m), mpq(s)) for w, g, m, s in rows]

    def f(y):
        total = mp.zero
        for w, g, m, s in params:
            if g:
                total += w * mp.exp(-((y - m) / s) ** 2 / 2) / (s * mp.sqrt(2 * mp.pi))
            else:
                total += w * mp.exp(-abs(y - m) / s) / (2 * s)
        return total
    return f


def quad_hockey(P, Q, alpha, half_width=30, step=None):
    """H_alpha(P || Q) = integral (p - alpha q)_+ by mp.quad (tanh-sinh) at the current
    precision, independently of refacct: the sign changes of p - alpha q are located on a
    grid over [c - half_width, c + half_width] (in units of the largest noise scale) and
    refined by mp.findroot (solver 'anderson', a bracketing method); the Laplace locations
    are breakpoints too, so every piece is smooth.  The two outer pieces run to -inf / +inf
    (beyond the outermost kink a Laplace p - alpha q is one exponential; a Gaussian crossing
    more than half_width scales outside the centres would need weight ratios ~ e^{half_width}).
    Returns the value (the caller compares two precisions for its error)."""
    prow, qrow = mixture_rows(P), mixture_rows(Q)
    p, q = density(prow), density(qrow)
    a = mpq(alpha) if not isinstance(alpha, mp.mpf) else alpha
    centres = [mpq(m) for _, _, m, _ in prow + qrow]
    width = max(mpq(s) for _, _, _, s in prow + qrow)
    lo, hi = min(centres) - half_width * width, max(centres) + half_width * width
    h = step if step is not None else min(mpq(s) for _, _, _, s in prow + qrow) / 16
    kinks = sorted({mpq(m) for _, g, m, _ in prow + qrow if not g})

    def g(y):
        return p(y) - a * q(y)

    n = int((hi - lo) / h) + 1
    ys = [lo + j * h for j in range(n + 1)]
    breaks = set(kinks) | {lo, hi}  # lo, hi are cuts too (keeps tanh-sinh pieces short)
    previous = g(ys[0])
    for y0, y1 in zip(ys, ys[1:]):
        current = g(y1)
        if current == 0:
            breaks.add(y1)             # a crossing exactly on the grid
        elif previous * current < 0:
            breaks.add(mp.findroot(g, (y0, y1), solver="anderson"))
        previous = current
    pts = [-mp.inf] + sorted(b for b in breaks if lo <= b <= hi) + [mp.inf]
    total = mp.zero
    for x0, x1 in zip(pts, pts[1:]):
        mid = (x0 + x1) / 2 if mp.isfinite(x0) and mp.isfinite(x1) else (
            x1 - 1 if mp.isfinite(x1) else x0 + 1)
        if g(mid) > 0:
            # finer cuts every noise scale, so no tanh-sinh piece is long compared with
            # the features of the integrand
            inner = [x for x in ys[::16] if x0 < x < x1]
            total += mp.quad(g, [x0] + inner + [x1])
    return total


@pytest.fixture
def write(tmp_path):
    """write(obj or text, name) -> path of a JSON file in the test's temporary folder."""
    def _write(obj, name="pair.json"):
        path = tmp_path / name
        path.write_text(obj if isinstance(obj, str) else json.dumps(obj), encoding="utf-8")
        return str(path)
    return _write


def run_cli(capsys, *argv):
    """(exit status, stdout, stderr) of ``refacct <argv>`` run in-process."""
    from refacct.cli import main
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err
