"""Compositions of Gaussian pairs with two means, by nested Gauss-Legendre quadrature in Arb.

docs/numerics.md, "Composition" (001 Sec. 2): with the privacy loss L1 = ln(p1 / q1),

    H_{e^s}(P1 x R || Q1 x S) = integral p1(y) H_{e^{s - L1(y)}}(R || S) dy.

**One step in closed form.**  A pair of Gaussian mixtures with one sigma and two means
mu_0 < mu_1 (a Poisson-subsampled or WOR Gaussian in either direction, a Gaussian shift) has
p(y) = phi_sigma(y) (a_0 + a_1 E) e^{lam_0 y} and q(y) = phi_sigma(y) (b_0 + b_1 E) e^{lam_0 y}
with E = e^{(lam_1 - lam_0) y}, lam_i = mu_i / sigma^2, a_i = w^P_i e^{-mu_i^2 / 2 sigma^2}
and b_i likewise.  So L(y) = ln((a_0 + a_1 E) / (b_0 + b_1 E)) is monotone (its derivative in
E has the sign of a_1 b_0 - a_0 b_1), runs between the limits ln(w^P_0 / w^Q_0) and
ln(w^P_1 / w^Q_1) (infinite where a weight is 0), and L(y) = t has the one root
E = (e^t b_0 - a_0) / (a_1 - e^t b_1).  One step is then H_{e^s} = P(L > s) - e^s Q(L > s),
masses of a half-line by erfc from its own side.

**k steps.**  At each level the inner product's loss has the limits m (sum of the inner
factors' infima) and M (sum of their suprema).  Where s - L1(y) <= m the inner H is
1 - e^{s - L1(y)} and the outer integral is P1(I) - e^s Q1(I) in closed form (I a half-line,
its end a root of L1 = s - m); where s - L1(y) >= M it is 0.  Only sums of every factor's
inf (or of every factor's sup) are points where the inner H is not analytic, so the
composition is taken here only when the finite limits all lie on one side (every factor
bounded below, or every one bounded above; a factor with neither limit finite is smooth);
a mixed composition keeps the general engine (``composed``).

The ends where s - L1(y) reaches m or M are the only non-analytic points of the outer
integrand; there the inner H differs from its closed form beyond by a function of
ln|y - e| that decays like a Gaussian tail in it, so the piece of width w next to an end e
is integrated in v, y = e + w e^{-v} (as ``composed._log_substituted``).  Next to m the
difference is rho(b) = H_{e^b}(R || S) - (1 - e^b) = e^b H_{e^{-b}}(S || R), computed as the
reverse direction's nested integral, which has no cancellation; the part 1 - e^b is
integrated in closed form up to the y_s where b = 0 (both parts are non-negative there;
beyond, where they would cancel, H itself is integrated).  Elsewhere pieces of ``PIECE``
feature widths (the integrand is analytic within pi feature widths of the real line: the
loss's branch points lie at Im y = pi sigma^2 / (mu_1 - mu_0)) get Gauss-Legendre with
``NODE_RATE`` nodes a digit, marching out until the outer tail mass beyond (a rigorous bound
on what is dropped, 0 <= H <= 1) is 10^-(d+5) of the value; a piece whose integrand (at
its ends and midpoint) is 10^-j below the largest so far gets j digits fewer, and so do the
inner values it needs; so does a part of a log-substituted piece, from the magnitudes its
scan found at every unit of v (each node the digits of its scanned neighbours).

**Shared inner values.**  Where the inner product is itself an integral (three steps or
more), a regular piece takes its inner H as a function of b = s - L1(y) over the piece's
range of b: a Chebyshev interpolant (first kind, barycentric form) whose size comes from
the largest Bernstein ellipse about that range free of the inner H's singular points (the
inner loss's finite limits m, M, and those shifted by +-2 pi i, H being a function of e^b),
when that is smaller than the piece's node count.  Far from the limits the range of b is
short (L1 flattens towards its finite limit as the Gaussian tail goes on), so a handful of
inner values serve a piece's dozens of nodes: 1.45 times faster at three steps.

Every value is an Arb ball, but the quadrature error is not enclosed: the error bound comes
from two evaluations that share no nodes or cuts (rule 1 runs 8 digits higher, so with more
nodes, and its end pieces are 3/2 as wide, so every later cut moves by one feature width;
``verify.two_evaluations``), as for the general engine.  What differs from it is the
arithmetic: Arb's erfc, exp and log on balls instead of mpmath's, and roots in closed form
instead of isolated.  Node rates were set on k = 2 against 60-digit values: 20 and 30
digits asked gave 20 and 30 or more correct ones for the WOR pair (sigma 1, shift 2,
q 1/10) both ways and Poisson-subsampled Gaussians (sigma 4/5, q 1/10; sigma 2, q 1/100,
delta = 4e-27).
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import List, Optional, Sequence, Tuple

from mpmath import mp

from ... import progress
from ...distributions import Gaussian
from ...pairs import Pair
from ..arb import acb, arb, arb_mid_rad, flint, floor_mid, to_arb
from ..transform.legendre import legendre_rule
from .composed import LOG_PIECE, SCAN_DIGITS, loss_steepness
from .onestep import _signed_weights

__all__ = ["TwoMeans", "supports", "hockey_two_means"]

Limit = Optional[Fraction]  # e^{limit of the loss}; None: infinite


class TwoMeans:
    """One factor: the pair's constants as balls (per precision) and its loss's limits."""

    def __init__(self, mus: Tuple[Fraction, Fraction], wp: Tuple[Fraction, Fraction],
                 wq: Tuple[Fraction, Fraction], sigma: Fraction, width: Fraction) -> None:
        self.mus, self.wp, self.wq, self.sigma, self.width = mus, wp, wq, sigma, width
        self.increasing = wp[1] * wq[0] > wp[0] * wq[1]
        ends = [_ratio(wp[0], wq[0]), _ratio(wp[1], wq[1])]  # L at -inf, +inf
        self.inf, self.sup = (ends[0], ends[1]) if self.increasing else (ends[1], ends[0])
        self._cache: dict = {}

    @classmethod
    def of(cls, pair: Pair) -> Optional["TwoMeans"]:
        """The factor of a pair of Gaussian mixtures with one sigma and two means, else None."""
        comps = [c for _, c in pair.P.components + pair.Q.components]
        if not all(type(c) is Gaussian for c in comps) or len({c.sigma for c in comps}) != 1:
            return None
        rows = _signed_weights(pair.P, pair.Q, "mean")
        if len(rows) != 2:
            return None
        (m0, (p0, q0)), (m1, (p1, q1)) = rows
        if p0 * q1 == p1 * q0:
            return None  # P = Q
        sigma = comps[0].sigma
        spread = m1 - m0
        width = sigma * sigma / spread if spread > sigma else sigma
        return cls((m0, m1), (p0, p1), (q0, q1), sigma, width)

    def reversed(self) -> "TwoMeans":
        """The pair (Q, P): loss -L (made once)."""
        if "reversed" not in self._cache:
            back = TwoMeans(self.mus, self.wq, self.wp, self.sigma, self.width)
            back._cache["reversed"] = self
            self._cache["reversed"] = back
        return self._cache["reversed"]

    # --- balls --------------------------------------------------------------------------
    def constants(self) -> dict:
        """The pair's constants as balls at the current precision (made once per precision)."""
        prec = flint.ctx.prec
        if prec not in self._cache:
            s = to_arb(self.sigma)
            lam = [to_arb(m / self.sigma**2) for m in self.mus]
            damp = [(-to_arb(m * m / (2 * self.sigma**2))).exp() for m in self.mus]
            self._cache[prec] = {
                "a": [to_arb(w) * e for w, e in zip(self.wp, damp)],
                "b": [to_arb(w) * e for w, e in zip(self.wq, damp)],
                "lam0": lam[0], "gap": lam[1] - lam[0],
                "mus": [to_arb(m) for m in self.mus],
                "wp": [to_arb(w) for w in self.wp], "wq": [to_arb(w) for w in self.wq],
                "half": 1 / (2 * s * s), "norm": 1 / (s * (2 * arb.pi()).sqrt()),
                "scale": 1 / (s * arb(2).sqrt()),
                "inf": None if self.inf is None else _log(self.inf),
                "sup": None if self.sup is None else _log(self.sup)}
        return self._cache[prec]

    def pdf_loss(self, y: "arb") -> Tuple["arb", "arb"]:
        """(p(y), L(y))."""
        c = self.constants()
        E = (c["gap"] * y).exp()
        sp = c["a"][0] + c["a"][1] * E
        sq = c["b"][0] + c["b"][1] * E
        p = (-(y * y) * c["half"] + c["lam0"] * y).exp() * c["norm"] * sp
        return p, (sp / sq).log()

    def root(self, t: "arb", et: Optional["arb"] = None) -> Optional["arb"]:
        """The y with L(y) = t (et = e^t if known), for t strictly between the limits; None
        where t lies so close to a limit that the ball of E = e^{(lam_1 - lam_0) y} reaches
        0 or infinity (the root is then beyond the Gaussian tails)."""
        c = self.constants()
        et = t.exp() if et is None else et
        a, b = c["a"], c["b"]
        E = (et * b[0] - a[0]) / (a[1] - et * b[1])
        return E.log() / c["gap"] if E.is_finite() and E > 0 else None

    def inside(self, t: "arb") -> int:
        """-1 / 0 / 1: t at or below the inf of L, strictly between the limits, at or above
        its sup.  A ball that meets a limit counts as at it: H there equals its limit form
        (1 - e^t or 0) up to a remainder that vanishes faster than any power of the distance
        to the limit (the root runs off into a Gaussian tail)."""
        c = self.constants()
        if c["inf"] is not None and (t <= c["inf"] or t.overlaps(c["inf"])):
            return -1
        if c["sup"] is not None and (t >= c["sup"] or t.overlaps(c["sup"])):
            return 1
        return 0

    def nearer_limit(self, t: "arb") -> int:
        """-1 if the inf of L is finite and nearer to t than a finite sup, else 1."""
        c = self.constants()
        if c["inf"] is None:
            return 1
        return -1 if c["sup"] is None or abs(t - c["inf"]) < abs(t - c["sup"]) else 1

    def tails(self, y: "arb", upper: bool) -> List["arb"]:
        """N(mu_i, sigma^2)((y, inf)) (upper) or ((-inf, y)), each from its own side."""
        c = self.constants()
        sign = 1 if upper else -1
        return [((y - m) * c["scale"] * sign).erfc() / 2 for m in c["mus"]]

    def half_line(self, y: "arb", upper: bool, es: "arb") -> "arb":
        """P(I) - e^s Q(I) on I = (y, inf) (upper) or (-inf, y)."""
        c = self.constants()
        (p0, p1), (q0, q1) = c["wp"], c["wq"]
        t0, t1 = self.tails(y, upper)
        return (p0 - es * q0) * t0 + (p1 - es * q1) * t1

    def piece(self, a: "arb", b: "arb", es: "arb") -> "arb":
        """P([a, b]) - e^s Q([a, b]), each component's mass from the side of its mean."""
        c = self.constants()
        total = arb(0)
        for p, q, m, ta, tb, la, lb in zip(c["wp"], c["wq"], c["mus"], self.tails(a, True),
                                           self.tails(b, True), self.tails(a, False),
                                           self.tails(b, False)):
            total += (p - es * q) * (ta - tb if a >= m else lb - la)
        return total

    def one_step(self, s: "arb") -> "arb":
        """H_{e^s}(P || Q) = P(L > s) - e^s Q(L > s)."""
        side = self.inside(s)
        if side > 0:
            return arb(0)
        es = s.exp()
        y = None if side else self.root(s, es)
        if y is None:
            side = side or self.nearer_limit(s)
            return 1 - es if side < 0 else arb(0)
        return self.half_line(y, self.increasing, es)


def _ratio(wp: Fraction, wq: Fraction) -> Limit:
    """e^{a limit of the loss}: wp / wq, or None when the limit is infinite (+inf where
    wq = 0, -inf where wp = 0: which one follows from the side it is on)."""
    return None if wq == 0 or wp == 0 else wp / wq


def _log(r: Fraction) -> "arb":
    """ln r at the current precision."""
    return _log_at(r, flint.ctx.prec)


@lru_cache(maxsize=1024)
def _log_at(r: Fraction, prec: int) -> "arb":
    with flint.ctx.workprec(prec):
        return to_arb(r).log()


def _limits(fs: Sequence[TwoMeans]) -> Tuple[Optional["arb"], Optional["arb"]]:
    """The inf and the sup of the product's loss (sums of the factors'; None: infinite), at
    the current precision."""
    lo = hi = arb(0)
    for f in fs:
        c = f.constants()
        lo = None if lo is None or c["inf"] is None else lo + c["inf"]
        hi = None if hi is None or c["sup"] is None else hi + c["sup"]
    return lo, hi


def supports(pairs: Sequence[Pair]) -> bool:
    """Every factor a Gaussian pair with one sigma and two means, and the finite limits of
    their losses all on one side (module docstring)."""
    fs = [TwoMeans.of(p) if not p.is_discrete else None for p in pairs]
    if len(fs) < 2 or any(f is None for f in fs):
        return False
    if any(f.inf is not None and f.sup is not None for f in fs):
        return False
    return not (any(f.inf is not None for f in fs) and any(f.sup is not None for f in fs))


# --- the nested integral ----------------------------------------------------------------------

def hockey_two_means(pairs: Sequence[Pair], alpha, alpha_exact: Optional[Fraction], rule: int):
    """(H_alpha of the product, truncation bound plus the ball's radius) at the working
    precision with rule ``rule`` (``supports(pairs)`` must hold)."""
    if alpha == 0:
        return mp.one, mp.zero   # H_0 = integral p = 1
    fs = tuple(TwoMeans.of(p) for p in sorted(pairs, key=loss_steepness))
    digits = mp.dps
    with flint.ctx.workprec(_bits(digits)):
        s = (to_arb(alpha_exact) if alpha_exact is not None else to_arb(alpha)).log()
        value, tail = _hockey(fs, s, digits, rule, outermost=True)
    mid, rad = arb_mid_rad(value)
    return +mid, rad + arb_mid_rad(arb(tail.abs_upper()))[0]


def _bits(digits: int) -> int:
    return int(3.33 * digits) + 24


def _hockey(fs: Tuple[TwoMeans, ...], s: "arb", d: int, rule: int, outermost: bool = False):
    """(H_{e^s}(prod P_i || prod Q_i), outer tail mass dropped) to about d digits."""
    if len(fs) == 1:
        return fs[0].one_step(s), arb(0)
    lo, hi = _limits(fs)
    if hi is not None and (s >= hi or s.overlaps(hi)):   # TwoMeans.inside: at the limit
        return arb(0), arb(0)
    if lo is not None and (s <= lo or s.overlaps(lo)):
        return 1 - s.exp(), arb(0)
    with flint.ctx.workprec(_bits(d)):
        return _Level(fs, s, d, rule, outermost).run()


class _Level:
    """integral p1(y) H_{e^{s - L1(y)}}(rest) dy at one level of the recursion."""

    def __init__(self, fs, s, d: int, rule: int, outermost: bool) -> None:
        self.f, self.rest = fs[0], fs[1:]
        self.s, self.es, self.d, self.rule, self.outermost = s, s.exp(), d, rule, outermost
        self.w = to_arb(PIECE * self.f.width)
        self.w0 = to_arb(self.f.width * (2 + rule))  # the log-substituted end pieces
        self.peak = arb(0)
        self._probes: dict = {}

    # --- the integrand ----------------------------------------------------------------------
    def F(self, y: "arb", d: int) -> "arb":
        p, loss = self.f.pdf_loss(y)
        return p * _hockey(self.rest, self.s - loss, d, self.rule)[0]

    def rho(self, y: "arb", d: int) -> "arb":
        """p1(y) (H - (1 - e^b)) at b = s - L1(y): p1(y) e^b H_{e^{-b}}(reversed rest)."""
        p, loss = self.f.pdf_loss(y)
        b = self.s - loss
        back = tuple(g.reversed() for g in self.rest)
        return p * b.exp() * _hockey(back, -b, d, self.rule)[0]

    # --- layout -------------------------------------------------------------------------------
    def ends(self):
        """(closed part, left end, right end): an end is None (infinite) or (y, kind), kind
        "inf" where the inner H turns into 1 - e^b, "sup" where it turns into 0."""
        f, s = self.f, self.s
        m, M = _limits(self.rest)
        closed, flat, zero = arb(0), None, None
        if m is not None and f.inside(s - m) == 0:
            flat = f.root(s - m)   # None: beyond the tails, the side stays numeric
        if flat is not None:
            flat = flat.mid()
            closed = f.half_line(flat, f.increasing, self.es)  # L1 >= s - m: H = 1 - e^b
        if M is not None and f.inside(s - M) == 0:
            zero = f.root(s - M)   # L1 <= s - M: H = 0
            zero = None if zero is None else zero.mid()
        low, high = ((zero, "sup"), (flat, "inf")) if f.increasing else ((flat, "inf"), (zero, "sup"))
        return closed, (None if low[0] is None else low), (None if high[0] is None else high)

    def run(self):
        closed, left, right = self.ends()
        total = closed
        self.peak = abs(closed.mid())
        w0 = self.w0
        inner_left = inner_right = None
        if left is not None and right is not None and right[0] - left[0] <= 2 * w0:
            mid = ((left[0] + right[0]) / 2).mid()
            return total + self.logged(left, mid) + self.logged(right, mid), arb(0)
        if left is not None:
            inner_left = (left[0] + w0).mid()
            total += self.logged(left, inner_left)
        if right is not None:
            inner_right = (right[0] - w0).mid()
            total += self.logged(right, inner_right)
        self.peak = max(self.peak, abs(total.mid()))
        if inner_left is not None and inner_right is not None:
            n = max(1, floor_mid((inner_right - inner_left) / self.w) + 1)
            step = (inner_right - inner_left) / n
            for j in range(n):
                total += self.regular(inner_left + j * step, inner_left + (j + 1) * step, j, n)
            return total, arb(0)
        if inner_left is None and inner_right is None:
            centre = to_arb(sum(w * m for w, m in zip(self.f.wp, self.f.mus)))
            start = (centre + self.w * self.rule / 2).mid()
            total, tail_r = self.march(start, 1, total)
            total, tail_l = self.march(start, -1, total)
            return total, tail_r + tail_l
        if inner_left is not None:
            return self.march(inner_left, 1, total)
        return self.march(inner_right, -1, total)

    def march(self, start: "arb", direction: int, total: "arb"):
        """Pieces of width w from ``start`` outward until the P1-mass beyond is below
        10^-(d+5) of the value (returned as the truncation bound)."""
        threshold = arb(10) ** -(self.d + 5)
        floor = arb(2) ** (-10 * flint.ctx.prec)
        previous = None
        for j in range(1 << 14):
            a = start + direction * j * self.w
            b = a + direction * self.w
            part = self.regular(min(a, b, key=_mid), max(a, b, key=_mid), j, None)
            total += part
            beyond = self._beyond(b, direction)
            scale = abs(total.mid())
            small = beyond <= threshold * scale if scale != 0 else beyond <= floor
            if j >= 1 and small and (previous is None or abs(part.mid()) <= previous):
                return total, beyond
            previous = abs(part.mid())
        raise ArithmeticError("two-means quadrature: no truncation point found")

    def _beyond(self, y: "arb", direction: int) -> "arb":
        """P1-mass beyond y in the direction of the march."""
        return sum((to_arb(w) * t for w, t in zip(self.f.wp, self.f.tails(y, direction > 0))),
                   arb(0))

    def regular(self, a: "arb", b: "arb", j: int, n: Optional[int]) -> "arb":
        """Gauss-Legendre on [a, b], its digits lowered by how far the integrand at the ends
        and the midpoint (SCAN_DIGITS) lies below the largest value so far."""
        progress.check()
        if self.outermost:
            progress.note(f"outer piece {j + 1}{'' if n is None else f'/{n}'}, "
                          f"evaluation {self.rule + 1} of 2")
        probe = max(self.probe(y) for y in (a, ((a + b) / 2).mid(), b)) * (b - a)
        self.peak = max(self.peak, probe)
        if probe == 0:
            return arb(0)
        d = self.d - floor_mid((self.peak / probe).log() / arb(10).log()) + 2
        if d <= 0:
            return arb(0)
        d = max(d, SCAN_DIGITS)
        n = _nodes_for(d)
        table = self.table(a, b, d, n) if len(self.rest) > 1 else None
        if table is not None:
            def G(y):
                p, loss = self.f.pdf_loss(y)
                return p * table(self.s - loss)
            return _gauss_legendre(G, a, b, n)
        return _gauss_legendre(lambda y: self.F(y, d), a, b, n)

    def table(self, a: "arb", b: "arb", d: int, n: int) -> Optional["_Chebyshev"]:
        """The inner H as a Chebyshev interpolant in b = s - L1(y) over the piece's range
        of b, when that takes fewer inner values than the piece's n nodes (module
        docstring), else None."""
        ends = sorted((self.s - self.f.pdf_loss(y)[1] for y in (a, b)), key=_mid)
        centre, radius = ((ends[0] + ends[1]) / 2).mid(), ((ends[1] - ends[0]) / 2).mid()
        if not radius > 0:
            return None
        size = _chebyshev_size(centre, radius, _limits(self.rest), d + TABLE_GUARD)
        if size >= n:
            return None
        return _Chebyshev(lambda x: _hockey(self.rest, x, d + 2, self.rule)[0],
                          centre, radius, size)

    def probe(self, y: "arb") -> "arb":
        """|F(y)| to SCAN_DIGITS (kept: neighbouring pieces share their ends)."""
        key = _mid(y).str(30, radius=False)
        if key not in self._probes:
            self._probes[key] = abs(self.F(y, SCAN_DIGITS).mid())
        return self._probes[key]

    def logged(self, end, other: "arb") -> "arb":
        """The piece between a non-analytic end (y, kind) and ``other``, in v with
        y = e + (other - e) e^{-v} (module docstring).  For "inf", between e and the y_s
        where b = s - L1(y) = 0 the integrand is p1 (1 - e^b) + p1 rho(b), both parts
        non-negative (b <= 0): the first in closed form, the second in v; beyond y_s
        (b > 0, where 1 - e^b and rho would cancel) p1 H itself."""
        e, kind = end
        width = other - e
        span = abs(width)

        def along(g):
            def h(v, d):
                t = (-v).exp()
                return g(e + width * t, d) * span * t
            return h

        closed, head, start, g = arb(0), arb(0), arb(0), self.F
        if kind == "inf":
            g = self.rho
            cross = self._zero_budget(e, other)
            closed = self.f.piece(*sorted((e, other if cross is None else cross), key=_mid),
                                  self.es)
            if cross is not None:
                start = (span / abs(cross - e)).log().mid()
                head = self._span(along(self.F), arb(0), start)
        h = along(g)
        threshold = arb(10) ** -(self.d + 4)
        peak, mags = max(abs(closed.mid()), abs(head.mid())), []
        while True:
            mags.append(abs(h(start + len(mags), SCAN_DIGITS).mid()))
            peak = max(peak, mags[-1])
            if len(mags) > 3 and mags[-1] <= mags[-2] and mags[-1] <= threshold * peak:
                break
            if len(mags) > 10**3:
                raise ArithmeticError("log-substituted piece: the integrand does not decay")
        top = start + len(mags) - 1 + 2 * self.rule
        return closed + head + self._span(h, start, top, mags, max(peak, self.peak))

    def _zero_budget(self, e: "arb", other: "arb") -> Optional["arb"]:
        """The y strictly between e and ``other`` where L1(y) = s, else None."""
        y = self.f.root(self.s) if self.f.inside(self.s) == 0 else None
        if y is None:
            return None
        y = y.mid()
        return y if min(e, other, key=_mid) < y < max(e, other, key=_mid) else None

    def _span(self, h, a: "arb", b: "arb", mags: Sequence = (), peak=None) -> "arb":
        """integral_a^b h(v) dv on equal parts of at most LOG_PIECE units.  With ``mags``,
        |h| at a, a + 1, ... (SCAN_DIGITS), a part whose largest is 10^-j below ``peak``
        gets j digits fewer and its nodes the digits of their neighbours there."""
        m = max(1, floor_mid((b - a) / LOG_PIECE) + 1)
        cuts = [a + (b - a) * i / m for i in range(m + 1)]
        total = arb(0)
        for u, v in zip(cuts, cuts[1:]):
            d = self._below(peak, mags[max(0, floor_mid(u - a)):floor_mid(v - a) + 2])
            if d <= 0:
                continue
            total += _gauss_legendre(lambda x: h(x, max(SCAN_DIGITS, self._below(
                peak, mags[max(0, floor_mid(x - a)):floor_mid(x - a) + 2], 2))), u, v,
                _log_nodes(d, (b - a) / m))
        return total

    def _below(self, peak, mags: Sequence, extra: int = 0) -> int:
        """self.d + extra, less the decades by which the largest of ``mags`` lies below
        ``peak`` (all of them when there are no ``mags``); at least SCAN_DIGITS unless
        nothing is left (<= 0)."""
        if not mags:
            return self.d + extra
        top = max(mags)
        if top == 0:
            return 0
        d = self.d + extra - max(0, floor_mid((peak / top).log() / arb(10).log()))
        return d if d <= 0 else max(d, SCAN_DIGITS)


PIECE = 6          # feature widths per regular piece
NODE_RATE = 1.1    # Gauss-Legendre nodes per digit on a regular piece
LOG_RATE = 1.2     # nodes per digit on LOG_PIECE units of v
SHORT_POWER = 0.3


def _nodes_for(digits: int) -> int:
    return int(NODE_RATE * digits) + 6


def _log_nodes(digits: int, length: "arb") -> int:
    """Nodes on ``length`` <= LOG_PIECE units of v: LOG_RATE a digit on LOG_PIECE units,
    fewer on a shorter part (as its share to the power SHORT_POWER)."""
    share = (length / LOG_PIECE) ** SHORT_POWER
    return floor_mid(share * int(LOG_RATE * digits)) + 10


TABLE_GUARD = 6   # digits beyond the piece's own in the interpolation error estimate


def _chebyshev_size(centre: "arb", radius: "arb", limits, digits: int) -> int:
    """Points for a Chebyshev interpolant of the inner H on centre +- radius to ``digits``
    digits: its error falls like rho^-n, rho the largest Bernstein ellipse about the
    interval free of singular points (the real limits of the inner loss, and the same
    shifted by +-2 pi i, H being a function of e^b; a point pi i away stands in where
    there is none).  Steering only: the two evaluations check the result."""
    points = [acb(0, arb.pi())]
    for lim in limits:
        if lim is not None:
            points += [acb(lim - centre, 2 * k * arb.pi()) for k in (-1, 0, 1)]
    rho = None
    for point in points:
        z = point / radius
        root = (z * z - 1).sqrt()
        r = max(abs(z + root), abs(z - root))
        rho = r if rho is None else min(rho, r, key=_mid)
    if not rho > 1:
        return 1 << 30
    return max(2, floor_mid(arb(10).log() * digits / rho.log()) + 2)


class _Chebyshev:
    """The interpolant of f at n Chebyshev points of the first kind on centre +- radius,
    evaluated in barycentric form (weights (-1)^j sin((2j + 1) pi / 2n))."""

    def __init__(self, f, centre: "arb", radius: "arb", n: int) -> None:
        angles = [arb.pi() * (2 * j + 1) / (2 * n) for j in range(n)]
        self.nodes = [(centre + radius * t.cos()).mid() for t in angles]
        self.weights = [(-1) ** j * t.sin() for j, t in enumerate(angles)]
        self.values = [f(x) for x in self.nodes]

    def __call__(self, x: "arb") -> "arb":
        top = bottom = arb(0)
        for node, w, v in zip(self.nodes, self.weights, self.values):
            gap = x - node
            if gap == 0:
                return v
            top += w * v / gap
            bottom += w / gap
        return top / bottom


def _mid(x: "arb"):
    return x.mid()


def _gauss_legendre(F, a: "arb", b: "arb", n: int) -> "arb":
    """integral_a^b F by the n-point rule (n up to a multiple of 4, the nodes' precision up
    to a multiple of 64 bits, so pieces share one table)."""
    prec = -(-flint.ctx.prec // 64) * 64
    half, mid = (b - a) / 2, (a + b) / 2
    rule = legendre_rule(-(-n // 4) * 4, prec)
    return half * sum((w * F((mid + half * x).mid()) for x, w in rule), arb(0))
