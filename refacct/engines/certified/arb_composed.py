"""Certified two-step composition by rigorous integration (Arb's ``acb.integral``).

docs/numerics.md, "Composition" (001 Sec. 2):

    H_alpha(P1 x P2 || Q1 x Q2) = integral p1(y) h(beta(y)) dy,
    h(beta) = H_beta(P2 || Q2),  beta(y) = alpha q1(y) / p1(y).

The inner factor must have crossings in closed form (``CertifiedPair.inner``: Laplace
mixtures, Gaussian mixtures whose p - beta q has two exponential terms).  Its crossing
structure changes only where beta equals a critical value e^c (``CertifiedPair.critical``);
the y where beta(y) = e^c are the crossings of p1 = alpha e^{-c} q1, certified by the outer
pair's one-step engine.  Those y (balls), and the outer kinks, split the line into
segments on each of which h(beta(y)) is one closed-form expression, analytic in y on a
complex neighbourhood of the open segment:

* structure "nowhere positive": h = 0;  "everywhere positive": h = 1 - beta, the segment
  gives P1(I) - alpha Q1(I) in closed form;
* Laplace outer pieces where q1 / p1 is constant (the two tails always): P1(I) h(const),
  h from the certified one-step engine;
* otherwise ``acb.integral`` of p1(y) h(beta(y)) (Gauss-Legendre with error bounds from
  complex analyticity, Arb's ``acb_calc_integrate``).

What is not integrated is enclosed, never dropped (h(beta) = H_beta is non-increasing in
beta, and rho(beta) = h(beta) - (1 - beta) = integral (beta q2 - p2)_+ is non-decreasing):

* a short interval J around a breakpoint ball ("sliver"): with B the ball of beta(J), the
  integral is |J| times a value in p1(J) [h(sup B), h(inf B)], or, when B <= 1, the closed
  form P1(J) - alpha Q1(J) plus |J| p1(J) [rho(inf B), rho(sup B)] (h and rho at the two
  rational ends of B by the certified one-step engine).  Both are second order in |J|, and
  next to a limit of the inner loss (``singular``: h or rho vanishes like a Gaussian tail in
  log |y - y0|, where Gauss-Legendre would need ever smaller pieces) the sliver is widened
  until its radius reaches the tolerance;
* an unbounded Gaussian segment is cut at R, the rest in [0, P1(|Y| > R)] (0 <= h <= 1).
"""
from __future__ import annotations

from fractions import Fraction
from typing import List, Optional

from ...exact import rational
from ..arb import acb, arb, arb_ends, floor_mid, mass, pdf, to_arb
from .arb_onestep import CertifiedPair, Root
from .expsum import ExactBeta

__all__ = ["composed_hockey"]



def _one_sided(bound: "arb") -> "arb":
    """The ball [0, bound] (a non-negative remainder at most ``bound``)."""
    top = bound.abs_upper()
    return arb(top / 2, top / 2)


class _Breakpoint:
    """A ball holding a point where the integrand changes formula."""

    __slots__ = ("ball", "singular")

    def __init__(self, ball: "arb", singular: bool) -> None:
        self.ball, self.singular = ball, singular


def _breakpoints(outer: CertifiedPair, inner: CertifiedPair, alpha: ExactBeta) -> List[_Breakpoint]:
    """Sorted disjoint balls: outer kinks and the y with beta(y) = a critical value."""
    found = [_Breakpoint(to_arb(u), False) for u in outer.kinks()]
    for value, singular in inner.critical():
        shifted = alpha.times(value.inverse())  # p1 = alpha e^{-c} q1
        for ends in outer.structure(shifted):
            for end in ends:
                if end is None:
                    continue
                ball = outer.root_ball(end, shifted) if isinstance(end, Root) else to_arb(end)
                found.append(_Breakpoint(ball, singular))
    found.sort(key=lambda b: b.ball.mid())
    merged: List[_Breakpoint] = []
    for b in found:
        if merged and merged[-1].ball.upper() >= b.ball.lower():
            last = merged[-1]
            merged[-1] = _Breakpoint(last.ball.union(b.ball), last.singular or b.singular)
        else:
            merged.append(b)
    return merged


class _Segment:
    """The open stretch between two breakpoints (None: infinite) and its formula:
    ``kind`` is "zero", "flat" (h = 1 - beta), "constant" (q1 / p1 constant, ``ratio``)
    or "cross" (integrate p1 h(beta) with ``h``); ``a`` / ``b`` are exact ends, moved out of
    the breakpoint slivers."""

    __slots__ = ("a", "b", "kind", "h", "ratio", "ref", "cut_a", "cut_b")

    def __init__(self, a, b) -> None:
        self.a, self.b = a, b
        self.cut_a = self.cut_b = None  # truncation points of unbounded "cross" segments
        self.kind, self.h, self.ratio, self.ref = "zero", None, None, None


class _Composed:
    """One evaluation of H_alpha(P1 x P2 || Q1 x Q2) aiming at 2^-bits relative."""

    def __init__(self, outer: CertifiedPair, inner: CertifiedPair, alpha: ExactBeta,
                 bits: int) -> None:
        self.outer, self.inner, self.alpha = outer, inner, alpha
        self.P1, self.Q1 = outer.P, outer.Q
        self.alpha_ball = alpha.ball()
        self.bits = bits
        self.rel = arb(2) ** -bits
        self.width = max((to_arb(c.width) for _, c in self.P1.components), key=lambda x: x.mid())
        self.tolerances(arb(1))

    def tolerances(self, estimate: "arb") -> None:
        """Absolute tolerances from an estimate of H: the quadrature's, and the target
        radius of each sliver and truncated tail."""
        self.abs = self.rel * estimate / 16
        self.target = self.rel * estimate / 64

    # --- pieces of the integrand -----------------------------------------------------------
    def beta(self, y, ref=None):
        """beta(y) = alpha q1(y) / p1(y) (real or complex ball)."""
        return self.alpha_ball * self.outer.density_ratio(y, ref)[1]

    def flat(self, a, b) -> "arb":
        """integral_a^b (p1 - alpha q1): where h = 1 - beta."""
        return mass(self.P1, a, b) - self.alpha_ball * mass(self.Q1, a, b)

    def integrate(self, seg: _Segment, a: "arb", b: "arb") -> "arb":
        """acb.integral of p1 h(beta) on [a, b] inside a "cross" segment."""
        h, ref, alpha, outer = seg.h, seg.ref, self.alpha_ball, self.outer

        def F(y, analytic):
            p, ratio = outer.density_ratio(y, ref)
            return p * h(alpha * ratio, analytic)

        value = acb.integral(F, a, b, rel_tol=self.rel, abs_tol=self.abs)
        if not value.real.is_finite() or not value.imag.contains(0):
            raise ArithmeticError(f"rigorous integration failed on [{a}, {b}]")
        return value.real

    def sliver(self, lo: "arb", hi: "arb") -> "arb":
        """Enclosure of integral_lo^hi p1 h(beta) by the monotonicity of h and rho."""
        J = lo.union(hi)
        b_lo, b_hi = (rational(e, "beta") for e in arb_ends(self.beta(J)))
        b_lo = max(b_lo, Fraction(0))
        h = lambda b: self.inner.hockey(ExactBeta.rational(b))  # noqa: E731
        if b_hi <= 1:  # p1 h = (p1 - alpha q1) + p1 rho, rho non-decreasing
            rho = (h(b_lo) - 1 + to_arb(b_lo)).union(h(b_hi) - 1 + to_arb(b_hi))
            return self.flat(lo, hi) + (hi - lo) * pdf(self.P1, J) * rho
        return (hi - lo) * pdf(self.P1, J) * h(b_hi).union(h(b_lo))

    # --- layout ----------------------------------------------------------------------------
    def segments(self, breaks: List[_Breakpoint]) -> List[_Segment]:
        edges = [None, *breaks, None]
        segs = [_Segment(None if left is None else left.ball.upper(),
                         None if right is None else right.ball.lower())
                for left, right in zip(edges, edges[1:])]
        constant = self.outer.constant_pieces()
        for seg in segs:
            seg.ref = ref = _representative(seg.a, seg.b)
            ratio = [r for l, rr, r in constant if _inside(ref, l, rr)]
            if ratio:
                seg.kind, seg.ratio = "constant", ratio[0]
                continue
            pieces, seg.h = self.inner.inner(self.beta(ref, ref))
            if pieces:
                seg.kind = "flat" if pieces == [(None, None)] else "cross"
        return segs

    def breakpoint(self, bp: _Breakpoint, left: _Segment, right: _Segment) -> "arb":
        """The sliver around one breakpoint ball, widened into a "cross" neighbour when the
        breakpoint is singular until its radius meets the target; sets the neighbours' ends."""
        grow = [bp.singular and seg.kind == "cross" for seg in (left, right)]
        room = [self.width if e is None else (bp.ball - e).abs_lower() / 4
                for e in (left.a, right.b)]
        w = [(r if g else arb(0)) for r, g in zip(room, grow)]
        for _ in range(64):
            lo, hi = (bp.ball.lower() - w[0]).lower(), (bp.ball.upper() + w[1]).upper()
            part = self.sliver(lo, hi)
            if part.rad() <= self.target or not any(grow):
                break
            w = [(x / 8).mid() for x in w]
        left.b, right.a = lo, hi
        return part

    # --- where the integrand lives ---------------------------------------------------------
    def point(self, seg: _Segment, y: "arb") -> "arb":
        """p1(y) h(beta(y)) at an exact real point of a "cross" segment."""
        p, ratio = self.outer.density_ratio(y, seg.ref)
        return (p * seg.h(acb(self.alpha_ball * ratio), False)).real

    def scan(self, segs: List[_Segment]) -> None:
        """Estimate H (Riemann sums of the integrand on a lattice of a quarter noise width,
        closed forms elsewhere; steering only, no bound rests on it), set the tolerances
        from it, and cut each unbounded "cross" segment where the P1-mass beyond is below
        the target (scanning outward until then, so an integrand living far out is found)."""
        step = self.width / 4
        total = arb(0)
        for seg in segs:
            if seg.kind in ("flat", "constant"):
                total += self.value(seg)
            elif seg.kind == "cross" and seg.a is not None and seg.b is not None:
                n = max(4, min(64, floor_mid((seg.b - seg.a) / step) + 1))
                h = (seg.b - seg.a) / n
                total += h * sum((self.point(seg, (seg.a + (k + arb(1) / 2) * h).mid())
                                  for k in range(n)), arb(0))
        for seg in segs:
            if seg.kind == "cross" and (seg.a is None or seg.b is None):
                total += self._scan_out(seg, step, total)
        usable = total.is_finite() and total.mid() != 0
        self.tolerances(abs(total.mid()) if usable else arb(1))

    def _scan_out(self, seg: _Segment, step: "arb", total: "arb") -> "arb":
        """Riemann sum outward from the finite end (0 for the whole line) of an unbounded
        segment; records the cut(s) in seg.a / seg.b."""
        part = arb(0)
        for direction in (-1, 1):
            if (seg.a if direction < 0 else seg.b) is not None:
                continue
            start = seg.b if direction < 0 else seg.a
            start = start if start is not None else arb(0)
            for k in range(1 << 16):
                y = (start + direction * (k + arb(1) / 2) * step).mid()
                part += step * self.point(seg, y)
                beyond = mass(self.P1, None, y) if direction < 0 else mass(self.P1, y, None)
                if k >= 4 and beyond < self.rel * abs((total + part).mid()) / 256:
                    break
            else:
                raise ArithmeticError("no truncation point found for an unbounded segment")
            if direction < 0:
                seg.cut_a = y
            else:
                seg.cut_b = y
        return part

    def value(self, seg: _Segment) -> "arb":
        if seg.kind == "zero":
            return arb(0)
        if seg.kind == "flat":
            return self.flat(seg.a, seg.b)
        if seg.kind == "constant":
            return mass(self.P1, seg.a, seg.b) * self.inner.hockey(self.alpha.times(seg.ratio))
        a, b, rest = seg.a, seg.b, arb(0)
        if a is None:
            a = seg.cut_a
            rest += _one_sided(mass(self.P1, None, a))
        if b is None:
            b = seg.cut_b
            rest += _one_sided(mass(self.P1, b, None))
        return self.integrate(seg, a, b) + rest


def composed_hockey(outer: CertifiedPair, inner: CertifiedPair, alpha: ExactBeta,
                    bits: int) -> "arb":
    """H_alpha(P1 x P2 || Q1 x Q2) as a ball, the quadrature and the enclosed remainders
    aiming at 2^-bits relative."""
    if alpha.is_zero():
        return arb(1)  # H_0 = integral p = 1
    job = _Composed(outer, inner, alpha, bits)
    breaks = _breakpoints(outer, inner, alpha)
    segs = job.segments(breaks)
    job.scan(segs)
    total = arb(0)
    for k, bp in enumerate(breaks):
        total += job.breakpoint(bp, segs[k], segs[k + 1])
    for seg in segs:
        if seg.a is not None and seg.b is not None and not seg.a < seg.b:
            raise ArithmeticError("a segment vanished between its breakpoint slivers")
        total += job.value(seg)
    return total


def _representative(a: Optional["arb"], b: Optional["arb"]) -> "arb":
    """An exact point inside the segment (a, b) (either end may be None: infinite)."""
    if a is None and b is None:
        return arb(0)
    if a is None:
        return (b - 1).mid()
    if b is None:
        return (a + 1).mid()
    return ((a + b) / 2).mid()


def _inside(y: "arb", left: Optional[Fraction], right: Optional[Fraction]) -> bool:
    return (left is None or y > to_arb(left)) and (right is None or y < to_arb(right))
