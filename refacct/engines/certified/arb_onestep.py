"""Certified one step: the crossings of p = beta q, proven, and H_beta(P || Q) as an Arb ball.

001 Definition 3: H_beta(P || Q) = integral (p - beta q)_+ = sum over the maximal intervals
I where p > beta q of P(I) - beta Q(I).  docs/numerics.md, "Counting the crossings":

* Gaussian mixtures with one sigma: p - beta q = phi_sigma(y) s(y), s(y) = sum_i c_i
  e^{lam_i y}, lam_i = mu_i / sigma^2, c_i = (w_i^P - beta w_i^Q) e^{-mu_i^2 / 2 sigma^2}.
  The signs of the c_i are exact (``engines.certified.expsum``); by the generalised Descartes rule s
  has at most V real roots, V the sign changes of (c_i).  V <= 1: the one root of a
  two-term sum is ln(-c_0 / c_1) / (lam_1 - lam_0), a ball.  V >= 2: Rolle recursion --
  between consecutive sign changes of s' (isolated recursively as balls, on each of which
  the sign of s is certified) s is monotone, so a sign change of s at the ends brackets
  exactly one root, isolated by bisection at exact points.
* Laplace mixtures with one scale b: between consecutive locations p - beta q =
  (A e^{y/b} + B e^{-y/b}) / 2b has at most one root, (b/2) ln(-B/A), and it is there iff
  p - beta q has strictly opposite signs at the two locations (exact signs: the values at
  the locations are sums of exponentials); the two outer pieces are single exponentials
  with the sign of the nearest location (atoms of the loss where they vanish).

H is summed from Arb tail masses (``engines.arb``).  A root known as a ball Y enters at its
midpoint m, plus the ball [-e, e], e = sup_Y |p - beta q| rad(Y): moving an interval end
from the true root to m changes P(I) - beta Q(I) by the integral of p - beta q over [m, root],
at most that (second order in rad(Y), since p - beta q vanishes at the root).

``CertifiedPair.inner`` gives H_beta as an analytic function of a complex ball beta on a
range of beta where the crossing structure is fixed (the integrand of ``engines.certified.arb_composed``).

**One crossing of a lattice of means.**  When the lam_i - lam_0 are integer multiples
n_i d of one d and the weight ratios w_i^P / w_i^Q are monotone in i (likelihood-ratio
order: truncated Poisson under zero-out, means -1, 0, 2), s(y) = e^{lam_0 y} f(w) with the
polynomial f(w) = sum_i c_i w^{n_i} in w = e^{d y}, whose coefficients change sign at most
once for every beta: one positive root at most (Descartes).  As a function of a complex
ball beta it is enclosed by Krawczyk's operator (``_krawczyk``): for a box X, a point x in
it and C ~ 1 / f'(x), K = x - C f(x) + (1 - C f'(X)) (X - x) inside the interior of X
proves that f has exactly one root in X for every beta of the ball, lying in K (by the
mean-value form f(r) - f(x) in f'(X)(r - x), f'(X) a box, hence convex), with f' != 0 on
X: so the root is an analytic function of beta there (implicit functions), and y =
ln(w) / d, once the box is anchored: it straddles the positive real axis and f changes
sign between the ends of its real side at a real beta of the ball (``_anchored``), so the
root enclosed continues the positive real one.  Where a test fails the value is not
finite, and Arb's integration subdivides.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cmp_to_key
from math import gcd, lcm
from typing import Callable, List, Optional, Sequence, Tuple, Union

from ...distributions import Continuous
from ...pairs import Pair
from ..arb import acb, arb, balls, flint, mass, pdf, to_arb, twice_gaussian_masses
from .expsum import BallBeta, ExactBeta, ExpSum
from ..quadrature.onestep import _signed_weights, by_family
from ...errors import InputError

__all__ = ["CertifiedPair", "certified_pair", "Root"]

Beta = Union[ExactBeta, BallBeta]

MAX_DEGREE = 64      # the largest polynomial degree of a lattice of means (module docstring)
NEWTON_STEPS = 6     # on the centres, before Krawczyk's test


@dataclass(frozen=True)
class Root:
    """An interval end at the one crossing inside an open piece: ``key`` names the piece
    (family-specific), ``ref`` is an exact point on the same side of every location."""

    key: tuple
    ref: Optional[Fraction] = None


End = Union[None, Fraction, Root, "arb"]  # -inf / +inf, a location, a root, a root's ball


class CertifiedPair:
    """A continuous pair with certified crossings (``certified_pair`` builds one)."""

    P: Continuous
    Q: Continuous

    # --- interface of the families ------------------------------------------------------
    def structure(self, beta: Beta) -> List[Tuple[End, End]]:
        """The maximal intervals where p > beta q, ends None (infinite), a location
        (``Fraction``), a ``Root`` or a root's ball; rigorous for ``ExactBeta``, and for a
        ``BallBeta`` when it returns (``ArithmeticError`` if the ball cannot decide)."""
        raise NotImplementedError

    def root_ball(self, root: Root, beta: Beta) -> "arb":
        """A real ball containing the crossing ``root`` at beta."""
        raise NotImplementedError

    def root_formula(self, root: Root, beta: "acb", analytic: bool) -> "acb":
        """The crossing ``root`` as an analytic function of a complex beta (non-finite where
        the formula is not analytic)."""
        raise NotImplementedError

    def critical(self) -> List[Tuple[ExactBeta, bool]]:
        """The values e^c of beta where the structure changes, sorted and distinct, each
        with ``singular``: True when H_beta is not analytic in beta on either side
        (a limit of the loss, approached as a root runs to infinity)."""
        raise NotImplementedError

    def loss_sup(self) -> Optional[ExactBeta]:
        """e^{sup of the privacy loss ln(p/q)}, exactly, or None when it is +inf."""
        raise NotImplementedError

    def constant_pieces(self) -> List[Tuple[End, End, ExactBeta]]:
        """Intervals (left, right, e^{-loss}) on which q / p is a constant (Laplace outer
        pieces, and interior pieces where p and q are proportional)."""
        return []

    def kinks(self) -> List[Fraction]:
        """Points where the densities are not analytic (Laplace locations)."""
        return []

    def density_ratio(self, y, ref=None):
        """(p(y), q(y) / p(y)) for a real or complex ball y, in a form without the
        cancellations of two separately computed densities where the family allows;
        ``ref`` as in ``engines.arb.pdf``."""
        p = pdf(self.P, y, ref)
        return p, pdf(self.Q, y, ref) / p

    # --- shared -------------------------------------------------------------------------
    def f_ball(self, y: "arb", beta_ball: "arb") -> "arb":
        """p(y) - beta q(y) on a real ball y."""
        return pdf(self.P, y) - beta_ball * pdf(self.Q, y)

    def hockey(self, beta: ExactBeta) -> "arb":
        """H_beta(P || Q) as a ball at the current Arb precision (beta = 0 gives 1)."""
        if beta.is_zero():
            return arb(1)
        b = beta.ball()
        total, slack = arb(0), arb(0)
        for ends in self.structure(beta):
            points = []
            for end in ends:
                if isinstance(end, Root):
                    end = self.root_ball(end, beta)
                if isinstance(end, arb) and not end.is_exact():
                    slack += self.f_ball(end, b).abs_upper() * end.rad()
                    end = end.mid()
                points.append(end)
            total += mass(self.P, *points) - b * mass(self.Q, *points)
        return total + arb(0, slack) if slack != 0 else total

    def inner(self, beta0: "arb") -> Tuple[List[Tuple[End, End]], Callable[["acb", bool], "acb"]]:
        """(structure at beta0, h) with h(beta) = H_beta(P || Q) for complex balls beta near
        the real range around ``beta0`` on which the structure is that of beta0 (between
        consecutive critical values): the sum over the positive intervals of
        P(I) - beta Q(I), the crossings analytic functions of beta."""
        pieces = self.structure(BallBeta(beta0))
        for a, b in pieces:
            for end in (a, b):
                if isinstance(end, arb):
                    raise InputError(f"{self.describe()}: no closed-form crossing to "
                                     "integrate over")

        refs = [[e.ref if isinstance(e, Root) else None for e in ends] for ends in pieces]

        def h(beta: "acb", analytic: bool) -> "acb":
            total = acb(0)
            for ends, ref in zip(pieces, refs):
                at = [self.root_formula(e, beta, analytic) if isinstance(e, Root) else e
                      for e in ends]
                total += self.difference(at, ref, beta)
            return total

        return pieces, h

    def difference(self, at, ref, beta: "acb") -> "acb":
        """P(I) - beta Q(I) on I = (``at``) for a complex ball beta (``ref`` as in
        ``engines.arb.mass``)."""
        return balls(self.P).mass(*at, *ref) - beta * balls(self.Q).mass(*at, *ref)

    def describe(self) -> str:
        return f"({self.P!r}, {self.Q!r})"


class GaussianPair(CertifiedPair):
    """Gaussian mixtures with one sigma."""

    def __init__(self, P: Continuous, Q: Continuous) -> None:
        self.P, self.Q = P, Q
        self._gaps: dict = {}
        self._cache: dict = {}
        self.sigma = sigma = P.components[0][1].sigma
        self.rows = []  # (lam_i, P-term, Q-term): c_i = P-term - beta Q-term
        for mu, (wp, wq) in _signed_weights(P, Q, "mean"):
            e = -mu * mu / (2 * sigma * sigma)
            self.rows.append((mu / sigma**2, ExpSum.of(wp, e), ExpSum.of(wq, e)))

    def difference(self, at, ref, beta: "acb") -> "acb":
        """sum_i (w_P,i - beta w_Q,i) N(mu_i, sigma^2)(I): the two mixtures share their
        means, so each mean's tails are made once for both (``twice_gaussian_masses``)."""
        rows, halves = self._components()
        total = acb(0)
        for (hp, hq), m in zip(halves, twice_gaussian_masses(rows, *at)):
            total += (hp - beta * hq) * m
        return total

    def _components(self):
        """([(mu_i, 1 / (sigma sqrt 2))], [(w_P,i / 2, w_Q,i / 2)]) as balls, per
        precision."""
        key = ("components", flint.ctx.prec)
        if key not in self._cache:
            inverse = 1 / (to_arb(self.sigma) * arb(2).sqrt())
            weights = _signed_weights(self.P, self.Q, "mean")
            self._cache[key] = ([(to_arb(mu), inverse) for mu, _ in weights],
                                [(to_arb(wp) / 2, to_arb(wq) / 2) for _, (wp, wq) in weights])
        return self._cache[key]

    def density_ratio(self, y, ref=None):
        """p = phi_sigma(y) S_P(y), q / p = S_Q(y) / S_P(y) with the exponential sums
        S(y) = sum_i w_i e^{-mu_i^2 / 2 sigma^2} e^{lam_i y} (the Gaussian factor cancels)."""
        lams, cps, cqs, half, norm = self._balls()
        waves = [(lam * y).exp() for lam in lams]
        SP = sum((c * w for c, w in zip(cps, waves)), arb(0))
        SQ = sum((c * w for c, w in zip(cqs, waves)), arb(0))
        return (-(y * y) * half).exp() * norm * SP, SQ / SP

    def _balls(self):
        """(lam_i, P-terms, Q-terms, 1 / 2 sigma^2, 1 / (sigma sqrt(2 pi))) as balls, per
        precision."""
        prec = flint.ctx.prec
        if prec not in self._cache:
            s = to_arb(self.sigma)
            self._cache[prec] = ([to_arb(lam) for lam, _, _ in self.rows],
                                 [cp.ball() for _, cp, _ in self.rows],
                                 [cq.ball() for _, _, cq in self.rows],
                                 1 / (2 * s * s), 1 / (s * (2 * arb.pi()).sqrt()))
        return self._cache[prec]

    def _coefficients(self, beta: Beta):
        """(index, lam_i, c_i) for the c_i != 0 (c_i an ExpSum or a ball number)."""
        out = []
        for i, (lam, cp, cq) in enumerate(self.rows):
            c = beta.minus(cp, cq)
            if c.sign():
                out.append((i, lam, c))
        return out

    def structure(self, beta: Beta):
        terms = self._coefficients(beta)
        if not terms:
            return []
        signs = [c.sign() for _, _, c in terms]
        changes = sum(a != b for a, b in zip(signs, signs[1:]))  # Descartes: >= #roots
        if len(terms) == 2 and changes:
            roots: Sequence[End] = [Root((terms[0][0], terms[1][0]))]
        elif _one_quadratic_root(terms, signs):
            roots = [Root(tuple(i for i, _, _ in terms) + (signs[2], signs[1]))]
        elif changes == 1 and self._lattice() is not None:
            roots = [Root(("lattice",))]
        else:
            roots = isolate([c.ball() for _, _, c in terms], [lam for _, lam, _ in terms])
        if len(roots) > changes or (changes - len(roots)) % 2:
            raise ArithmeticError("crossing isolation disagrees with the Descartes bound")
        return _alternating(roots, signs[0] > 0)

    def closed_form_crossings(self) -> bool:
        """Is every crossing an analytic function of beta that Arb encloses: by a formula
        (``explicit_crossings``), or on a lattice of means in likelihood-ratio order (one
        crossing at most, a polynomial's root: module docstring)?"""
        return self.explicit_crossings() or self._lattice() is not None

    def explicit_crossings(self) -> bool:
        """Is every crossing a formula in beta: two means; or three equally spaced whose
        outer rows belong to one side each (p / q then runs monotonely from 0 to inf: one
        crossing, a quadratic's root; substitution under Poisson sampling)?  A lattice's
        root instead takes Newton's steps and Krawczyk's test at each beta."""
        if len(self.rows) <= 2:
            return True
        if len(self.rows) == 3:
            (l0, p0, q0), (l1, _, _), (l2, p2, q2) = self.rows
            one_sided = (p0.is_zero() and q2.is_zero()) or (q0.is_zero() and p2.is_zero())
            return l1 - l0 == l2 - l1 and one_sided
        return False

    def _lattice(self) -> Optional[Tuple[Fraction, Tuple[int, ...]]]:
        """(d, (n_i)) when the rows' rates lie on a lattice lam_0 + n_i d, n_i <=
        ``MAX_DEGREE``, with monotone weight ratios (module docstring); else None."""
        if "lattice" not in self._cache:
            self._cache["lattice"] = _lattice_of(self.rows)
        return self._cache["lattice"]

    def _crossing(self, root: Root, cs, log, sqrt) -> object:
        """The crossing ``root`` from the coefficients c of its rows (``_two_term_root``, or
        ``_quadratic_root`` for three)."""
        if len(root.key) == 2:
            return self._two_term_root(root, cs[0], cs[1], log)
        return self._quadratic_root(root, cs, log, sqrt)

    def _quadratic_root(self, root: Root, cs, log, sqrt) -> object:
        """The root of c0 e^{l0 y} + c1 e^{l1 y} + c2 e^{l2 y}, l0, l1, l2 spaced by d, with
        c0 c2 < 0: w = e^{d y} solves c0 + c1 w + c2 w^2 = 0, whose roots have the product
        c0 / c2 < 0, so one is positive: w = (s - c1) / (2 c2) = -2 c0 / (c1 + s) with
        s = sign(c2) sqrt(c1^2 - 4 c0 c2) (> abs(c1)); the second form where c1 and c2
        share their sign, so that no form subtracts nearly equal terms.  The signs of c1
        and c2, fixed between critical values, come in the root's key."""
        i, j, _, s2, s1 = root.key
        c0, c1, c2 = cs
        s = sqrt(c1 * c1 - 4 * c0 * c2)
        s = s if s2 > 0 else -s
        w = -2 * c0 / (c1 + s) if s1 == s2 else (s - c1) / (2 * c2)
        return log(w) * self._inverse_gap(i, j)

    def _two_term_root(self, root: Root, c0, c1, log) -> object:
        """ln(-c0 / c1) / (lam_j - lam_i): the root of c0 e^{lam_i y} + c1 e^{lam_j y}."""
        i, j = root.key
        return log(-c0 / c1) * self._inverse_gap(i, j)

    def _inverse_gap(self, i: int, j: int) -> "arb":
        key = (i, j, flint.ctx.prec)
        if key not in self._gaps:
            self._gaps[key] = 1 / to_arb(self.rows[j][0] - self.rows[i][0])
        return self._gaps[key]

    def root_ball(self, root: Root, beta: Beta):
        if root.key == ("lattice",):
            terms = self._coefficients(beta)
            return isolate([c.ball() for _, _, c in terms], [lam for _, lam, _ in terms])[0]
        cs = [beta.minus(*self.rows[k][1:]).ball() for k in _rows_of(root)]
        return self._crossing(root, cs, lambda x: x.log(), lambda x: x.sqrt())

    def root_formula(self, root: Root, beta, analytic: bool):
        if root.key == ("lattice",):
            return self._lattice_root(beta, analytic)
        cs = [self.rows[k][1].ball() - beta * self.rows[k][2].ball() for k in _rows_of(root)]
        return self._crossing(root, cs, lambda x: x.log(analytic=analytic),
                              lambda x: x.sqrt(analytic=analytic))

    def _lattice_root(self, beta: "acb", analytic: bool) -> "acb":
        """The one crossing of a lattice of means at a complex ball beta (module
        docstring), started from the last root found at this precision (Newton's steps
        from there are steering: the proof is Krawczyk's), else from the real crossing at
        the ball's real centre.  A wide ball (relative radius above 2^(-prec / 2): the
        integrator's bound on an ellipse) gets no second start: there Krawczyk's test
        fails by the width, not the start (measured on truncated Poisson under zero-out:
        7 in 2100 such retries succeeded, each an isolation by bisection), and the
        integrator subdivides instead."""
        d, powers = self._lattice()
        if 0 not in beta.imag:     # no real beta in the ball to anchor the root at
            return acb(arb.nan())
        cs = [cp.ball() - beta * cq.ball() for _, cp, cq in self.rows]
        key = ("start", flint.ctx.prec)
        cached = self._cache.get(key)
        wide = abs(beta).rad() > abs(beta).mid() * arb(2) ** (-flint.ctx.prec // 2)
        for start in (cached,) if wide and cached is not None else (cached, None):
            if start is None:
                try:
                    y = self.root_ball(Root(("lattice",)), BallBeta(beta.real.mid()))
                except (ArithmeticError, IndexError):   # no certain real crossing there
                    break
                start = (y.mid() * to_arb(d)).exp()
            found = _krawczyk(cs, powers, acb(start))
            if found is not None and _anchored(found[1], [cp.ball() - beta.real.mid() * cq.ball()
                                                          for _, cp, cq in self.rows], powers):
                self._cache[key] = found[0].mid()
                return found[0].log(analytic=analytic) / to_arb(d)
        return acb(arb.nan())

    def loss_sup(self):
        """None when P has a component beyond Q's extreme means (the loss rises without
        bound); for two distinct means p/q is monotone (a Moebius function of e^{Lambda y})
        and its sup the larger limit w^P / w^Q at the extreme means."""
        lp = [lam for lam, cp, _ in self.rows if not cp.is_zero()]
        lq = [lam for lam, _, cq in self.rows if not cq.is_zero()]
        if max(lp) > max(lq) or min(lp) < min(lq):
            return None
        if len(self.rows) > 2:
            raise InputError("the sup of the privacy loss of a Gaussian mixture at more than two "
                             "means is not certified")
        limits = [cp.terms[0][1] / cq.terms[0][1] if not cp.is_zero() else Fraction(0)
                  for _, cp, cq in (self.rows[0], self.rows[-1])]
        return ExactBeta.rational(max(limits))

    def critical(self):
        values = [ExactBeta.rational(cp.terms[0][1] / cq.terms[0][1])
                  for _, cp, cq in self.rows if not cp.is_zero() and not cq.is_zero()]
        return [(v, True) for v in _sorted_distinct(values)]


class LaplacePair(CertifiedPair):
    """Laplace mixtures with one scale b.  Locations u_0 < ... < u_{n-1}; piece j is
    (u_{j-1}, u_j) with u_{-1} = -inf, u_n = +inf."""

    def __init__(self, P: Continuous, Q: Continuous) -> None:
        self.P, self.Q = P, Q
        b = P.components[0][1].scale
        rows = _signed_weights(P, Q, "loc")
        self.b = b
        self.locs = [u for u, _ in rows]
        n = len(rows)

        def at(u, side):  # 2b * density at u
            return _expsum([(ws[side], -abs(u - v) / b) for v, ws in rows])

        def A(j, side):  # coefficient of e^{y/b} on piece j (2b times)
            return _expsum([(ws[side], -v / b) for v, ws in rows[j:]])

        def B(j, side):  # coefficient of e^{-y/b} on piece j
            return _expsum([(ws[side], v / b) for v, ws in rows[:j]])

        self.at = [(at(u, 0), at(u, 1)) for u in self.locs]
        self.AB = [((A(j, 0), A(j, 1)), (B(j, 0), B(j, 1))) for j in range(n + 1)]

    def kinks(self):
        return list(self.locs)

    def density_ratio(self, y, ref=None):
        """On the piece j holding ``ref`` (or y): 2b p = A_P e^{y/b} + B_P e^{-y/b}, and
        q / p = (A_Q e^{y/b} + B_Q e^{-y/b}) / (A_P e^{y/b} + B_P e^{-y/b}); densities
        otherwise (a ball across a location)."""
        j = self._piece(ref if ref is not None else y)
        if j is None:
            return super().density_ratio(y, ref)
        (ap, aq), (bp, bq) = self.AB[j]
        t = y / to_arb(self.b)
        up, down = t.exp(), (-t).exp()
        P = ap.ball() * up + bp.ball() * down
        return P / (2 * to_arb(self.b)), (aq.ball() * up + bq.ball() * down) / P

    def _piece(self, y) -> Optional[int]:
        """The piece strictly holding the real ball or rational y, None if undecided."""
        if isinstance(y, acb):
            return None
        y = to_arb(y)
        below = [to_arb(u) < y for u in self.locs]
        above = [to_arb(u) > y for u in self.locs]
        if not all(b or a for b, a in zip(below, above)):
            return None
        return sum(below)

    def _edge(self, j: int) -> Optional[Fraction]:
        """Left end u_{j-1} of piece j (None for -inf); its right end is _edge(j + 1)."""
        return self.locs[j - 1] if 1 <= j <= len(self.locs) else None

    def structure(self, beta: Beta):
        signs = [beta.minus(p, q).sign() for p, q in self.at]
        n = len(self.locs)
        pieces: List[Tuple[End, End, int]] = [(None, self.locs[0], signs[0])]
        for j in range(1, n):
            sa, sb = signs[j - 1], signs[j]
            left, right = self.locs[j - 1], self.locs[j]
            if sa * sb < 0:
                root = Root((j,), (left + right) / 2)
                pieces += [(left, root, sa), (root, right, sb)]
            else:
                pieces.append((left, right, sa or sb))
        pieces.append((self.locs[-1], None, signs[-1]))
        return _merge(pieces)

    def _AB(self, j: int, beta) -> Tuple[object, object]:
        (ap, aq), (bp, bq) = self.AB[j]
        if isinstance(beta, (ExactBeta, BallBeta)):
            return beta.minus(ap, aq).ball(), beta.minus(bp, bq).ball()
        return ap.ball() - beta * aq.ball(), bp.ball() - beta * bq.ball()

    def root_ball(self, root: Root, beta: Beta):
        j = root.key[0]
        A, B = self._AB(j, beta)
        y = to_arb(self.b) / 2 * (-B / A).log()
        return y.intersection(to_arb(self._edge(j)).union(to_arb(self._edge(j + 1))))

    def root_formula(self, root: Root, beta, analytic: bool):
        A, B = self._AB(root.key[0], beta)
        return to_arb(self.b) / 2 * (-B / A).log(analytic=analytic)

    def critical(self):
        return [(v, False) for v in _sorted_distinct([ExactBeta(p, q) for p, q in self.at])]

    def loss_sup(self):
        """The loss is monotone on every piece: its sup is the largest value at a location."""
        return self.critical()[-1][0]

    def constant_pieces(self):
        out = []
        for j, ((ap, aq), (bp, bq)) in enumerate(self.AB):
            if (ap * bq - aq * bp).is_zero():  # p and q proportional on piece j
                num, den = (aq, ap) if not ap.is_zero() else (bq, bp)
                out.append((self._edge(j), self._edge(j + 1), ExactBeta(num, den)))
        return out


def _rows_of(root: Root) -> Tuple[int, ...]:
    """The rows whose coefficients the crossing ``root`` solves for (its key's indices)."""
    return root.key[:2] if len(root.key) == 2 else root.key[:3]


def _lattice_of(rows) -> Optional[Tuple[Fraction, Tuple[int, ...]]]:
    """``GaussianPair._lattice`` from the rows (lam_i, P-term, Q-term), lam_i increasing."""
    gaps = [lam - rows[0][0] for lam, _, _ in rows]
    d = Fraction(gcd(*(g.numerator for g in gaps)), lcm(*(g.denominator for g in gaps)))
    powers = tuple(int(g / d) for g in gaps)
    if d <= 0 or powers[-1] > MAX_DEGREE:
        return None
    ratios = [Fraction(-1) if cq.is_zero() else cp.terms[0][1] / cq.terms[0][1]
              if not cp.is_zero() else Fraction(0) for _, cp, cq in rows]   # -1: infinite
    ranks = [r if r >= 0 else max(r2 for r2 in ratios) + 1 for r in ratios]
    rising = all(a <= b for a, b in zip(ranks, ranks[1:]))
    falling = all(a >= b for a, b in zip(ranks, ranks[1:]))
    return (d, powers) if rising or falling else None


def _krawczyk(cs: Sequence["acb"], powers: Sequence[int], start: "acb"
              ) -> Optional[Tuple["acb", "acb"]]:
    """(K, X): boxes holding the one root of f(w) = sum_i c_i w^{n_i} in X, near ``start``,
    for every coefficient in the balls ``cs``, proven by Krawczyk's operator (module
    docstring), or None: Newton's steps on the centres (until a step is 2^(16 - prec) of
    w), then K(X) inside X for a box X around the last point, 2^(-prec / 2) of it wide at
    least (wide enough for f to show its sign at the ends, ``_anchored``), widened up to
    three times."""
    mid = [c.mid() for c in cs]
    w, tiny = start, arb(2) ** (16 - flint.ctx.prec)
    for _ in range(NEWTON_STEPS):
        value, slope = _horner(mid, powers, w)
        if not (slope.is_finite() and slope != 0):
            return None
        step = (value / slope).mid()
        w = (w - step).mid()
        if abs(step) < tiny * abs(w):
            break
    value, slope = _horner(cs, powers, w)
    inverse = (1 / _horner(mid, powers, w)[1]).mid()
    radius = (abs(inverse * value) * 2).upper() + abs(w).upper() * arb(2) ** (-flint.ctx.prec // 2)
    for _ in range(3):
        box = acb(arb(w.real, radius), arb(w.imag, radius))
        step = w - inverse * value + (1 - inverse * _horner(cs, powers, box)[1]) * (box - w)
        if box.contains_interior(step):
            return step, box
        radius *= 8
    return None


def _anchored(box: "acb", real: Sequence["arb"], powers: Sequence[int]) -> bool:
    """Is the root proven alone in ``box`` (Krawczyk's X) the positive real one at a real
    point of the ball of beta (coefficients ``real``)?  The box straddles the positive real
    axis and f changes sign between the ends of its real side: a positive real root lies
    in the box, the only root there, so the root enclosed is, for every beta of the ball,
    the analytic continuation of the positive real root (one at most, by Descartes)."""
    if not (0 in box.imag and box.real.lower() > 0):
        return False
    ends = [_horner(real, powers, acb(x))[0].real for x in (box.real.lower(), box.real.upper())]
    return bool(ends[0] > 0 and ends[1] < 0 or ends[0] < 0 and ends[1] > 0)


def _horner(cs: Sequence["acb"], powers: Sequence[int], w: "acb") -> Tuple["acb", "acb"]:
    """(f(w), f'(w)) for f(w) = sum_i c_i w^{n_i}, 0 = n_0 < n_1 < ... (a lattice's
    powers: each power of w from the one before)."""
    value, slope = cs[0], acb(0)
    low, m = acb(1), 0          # low = w^m
    for c, n in zip(cs[1:], powers[1:]):
        low *= w ** (n - 1 - m) if n - 1 > m else 1
        m = n - 1
        value += c * low * w
        slope += n * c * low
    return value, slope


def _one_quadratic_root(terms, signs) -> bool:
    """Three exponentials at equally spaced rates whose outer coefficients differ in sign:
    one crossing, in closed form (``GaussianPair._quadratic_root``)."""
    if len(terms) != 3:
        return False
    (_, l0, _), (_, l1, _), (_, l2, _) = terms
    return l1 - l0 == l2 - l1 and signs[0] != signs[2]


def _expsum(terms) -> ExpSum:
    total = ExpSum()
    for c, a in terms:
        total = total + ExpSum.of(c, a)
    return total


def _sorted_distinct(values: List[ExactBeta]) -> List[ExactBeta]:
    out: List[ExactBeta] = []
    for v in values:
        if all(v.compare(w) for w in out):
            out.append(v)
    return sorted(out, key=cmp_to_key(lambda x, y: x.compare(y)))


def _merge(pieces) -> List[Tuple[End, End]]:
    """Maximal positive intervals from consecutive (left, right, sign) pieces."""
    out: List[Tuple[End, End]] = []
    for a, b, s in pieces:
        if s > 0:
            if out and out[-1][1] is not None and out[-1][1] == a:
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
    return out


def _alternating(roots: Sequence[End], positive_first: bool) -> List[Tuple[End, End]]:
    """Positive intervals of a function changing sign exactly at ``roots``."""
    edges = [None, *roots, None]
    return [(a, b) for k, (a, b) in enumerate(zip(edges, edges[1:]))
            if (k % 2 == 0) == positive_first]


# --- root isolation for exponential sums with three or more terms ----------------------------

def isolate(c: Sequence["arb"], lam: Sequence[Fraction]) -> List["arb"]:
    """Disjoint balls, sorted, each holding exactly one sign change of
    s(y) = sum_i c_i e^{lam_i y} (lam increasing, every c_i a ball of certain sign), and no
    sign change outside them.  ``ArithmeticError`` when the precision cannot decide a
    sign (a near-tangency: raise the precision)."""
    if len(c) < 2:
        return []
    if len(c) == 2:
        if _certain_sign(c[0]) == _certain_sign(c[1]):
            return []
        return [(-c[0] / c[1]).log() / to_arb(lam[1] - lam[0])]
    shifts = [to_arb(l - lam[0]) for l in lam[1:]]
    critical = isolate([ci * d for ci, d in zip(c[1:], shifts)], [l - lam[0] for l in lam[1:]])

    def g(y):  # s(y) e^{-lam_0 y}: monotone between the critical balls
        return c[0] + sum((ci * (d * y).exp() for ci, d in zip(c[1:], shifts)), arb(0))

    ends = [None, *critical, None]
    tail = {0: _certain_sign(c[0]), len(ends) - 1: _certain_sign(c[-1])}
    signs = [tail.get(k) or _certain_sign(g(e)) for k, e in enumerate(ends)]
    step = 1 / to_arb(lam[-1] - lam[0])
    roots = []
    for k in range(len(ends) - 1):
        if signs[k] == signs[k + 1]:
            continue
        left, right = ends[k], ends[k + 1]
        lo = left.upper() if left is not None else _beyond(g, right, -step, signs[k])
        hi = right.lower() if right is not None else _beyond(g, left, step, signs[k + 1])
        roots.append(_bisect(g, lo, hi, signs[k]))
    return roots


def _certain_sign(x: "arb") -> int:
    if x > 0:
        return 1
    if x < 0:
        return -1
    raise ArithmeticError(f"sign of {x} undecided (raise the precision)")


def _beyond(g, start, step, sign: int) -> "arb":
    """An exact point past ``start`` (a ball or None = 0) in the direction of ``step``
    where g has ``sign``."""
    y = (arb(0) if start is None else (start.upper() if step > 0 else start.lower())) + step
    for _ in range(4096):
        v = g(y)
        if (v > 0 and sign > 0) or (v < 0 and sign < 0):
            return y.mid()
        step *= 2
        y = (y + step).mid()
    raise ArithmeticError("no point with the tail's sign found")


def _bisect(g, lo: "arb", hi: "arb", sign_lo: int) -> "arb":
    """Ball [lo, hi] shrunk by bisection at exact points around the one sign change of a
    monotone g (sign ``sign_lo`` at lo), until a midpoint's sign is undecided or the width
    reaches the precision."""
    tol = arb(2) ** (-flint.ctx.prec + 8)
    while hi - lo > tol * (1 + abs(lo)):
        mid = ((lo + hi) / 2).mid()
        v = g(mid)
        if v > 0 or v < 0:
            if (v > 0) == (sign_lo > 0):
                lo = mid
            else:
                hi = mid
        else:
            break
    return lo.union(hi)


def certified_pair(pair: Pair) -> CertifiedPair:
    """The certified evaluator of a continuous pair; ``ValueError`` naming what is not
    supported (discrete pairs, mixed families or scales)."""
    if pair.is_discrete:
        raise InputError("certified mode is for continuous pairs; discrete pairs are exact "
                         "already (refacct.hockey_stick returns .exact)")
    return by_family(pair.P, pair.Q, {"gaussian": GaussianPair, "laplace": LaplacePair},
                     "certified mode")
