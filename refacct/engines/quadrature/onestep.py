"""One continuous step: H_alpha(P || Q) for Gaussian and Laplace mixtures, in closed form.

H_alpha(P || Q) = sum over the intervals I where p > alpha q of P(I) - alpha Q(I)
(001 Definition 3), with every crossing of p = alpha q found to working precision and
every interval mass computed from the tail on its own side (docs/numerics.md):

* Gaussian mixtures with one common sigma: p(y) - alpha q(y) = phi_sigma(y) * s(y) with
  s(y) = sum_i c_i exp(mu_i y / sigma^2), c_i = (w_i^P - alpha w_i^Q) exp(-mu_i^2 / 2 sigma^2).
  By Rolle's theorem, between consecutive critical points of s(y) exp(-lambda_1 y) (the roots
  of an exponential sum with one term fewer, found recursively) s has at most one root, so
  every sign change is found; the generalised Descartes rule bounds their number.
* Laplace mixtures with one common scale b: between consecutive locations,
  p - alpha q = (A e^{y/b} + B e^{-y/b}) / 2b has at most one root, y = (b/2) ln(-B/A); on the
  two outer pieces p / q is constant (an atom of the privacy loss).

Other families (different sigmas or scales, Gaussian with Laplace) go through the
interval-arithmetic root isolation of ``engines.quadrature.crossings``.

Resolution.  A crossing near a location m of a component of width s must be placed to a
fraction of s, which takes log2(|m| / s) bits beyond the digits wanted (2 + 1e-300 is 2
at 53 bits).  Every evaluator therefore works at the caller's precision plus
``resolution_bits(P, Q)`` = log2(max(1, |m| + s) / smallest s) + 8, capped at
``MAX_RESOLUTION_BITS`` (beyond it a ValueError names the spread).
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache, wraps
from typing import List, Optional, Sequence, Tuple

from mpmath import mp

from ...distributions import Continuous, Gaussian, Laplace, numeric
from ...exact import to_mpf
from ...errors import InputError
from ...guards import cut_points
from .crossings import bracketed_root, general_positive_intervals, quadratic_roots
from .shift import exact_alpha

__all__ = ["OneStep", "onestep", "supports", "by_family", "resolution_bits",
           "MAX_RESOLUTION_BITS"]

MAX_RESOLUTION_BITS = 2 ** 17
UNDECIDED_MAX_BITS = 4096   # bits added to decide crossings near a tangency


def resolution_bits(P: Continuous, Q: Continuous) -> int:
    """Bits beyond the caller's precision that place every crossing to a fraction of the
    narrowest component and tell the nearest two locations apart at the widest one:
    ceil(log2(max(1, max_i |m_i| + s_i) / min_i s_i)) + ceil(log2(max_i s_i / min gap))
    + 8, over the components (location m_i, width s_i) of P and Q, the gap over distinct
    locations (a shift of 1e-300 scales makes p / q = e^{+-1e-300}, 1 to 997 bits).
    ValueError when it exceeds ``MAX_RESOLUTION_BITS`` (locations more than 2^131072
    narrowest widths apart, or that close)."""
    comps = [c for _, c in P.components + Q.components]
    where = sorted({c.mean if isinstance(c, Gaussian) else c.loc for c in comps})
    span = max([Fraction(1)] + [abs(c.mean if isinstance(c, Gaussian) else c.loc) + c.width
                                for c in comps])
    bits = _log2_ceil(span / min(c.width for c in comps)) + 8
    if len(where) > 1:
        gap = min(b - a for a, b in zip(where, where[1:]))
        bits += _log2_ceil(max(c.width for c in comps) / gap)
    if bits > MAX_RESOLUTION_BITS:
        raise InputError(
            f"the pair's locations and scales are too far apart or too close: max |location| "
            f"+ scale over the smallest sigma / scale, times the largest over the smallest gap "
            f"between locations, must be below 2^{MAX_RESOLUTION_BITS - 8}, got about "
            f"2^{bits - 8} ({P!r} vs {Q!r})")
    return bits


def _log2_ceil(ratio: Fraction) -> int:
    """An integer >= max(0, log2(ratio)) and at most 2 above it."""
    return max(0, ratio.numerator.bit_length() - ratio.denominator.bit_length() + 1)


def _raised(method):
    """Run an evaluator method at the evaluator's raised precision."""
    @wraps(method)
    def run(self, *args, **kwargs):
        with mp.workprec(self.prec):
            return method(self, *args, **kwargs)
    return run


def supports(P: Continuous, Q: Continuous) -> Optional[str]:
    """The closed-form family of the pair ("gaussian" or "laplace"), or None."""
    comps = [c for _, c in P.components + Q.components]
    if all(isinstance(c, Gaussian) for c in comps) and len({c.sigma for c in comps}) == 1:
        return "gaussian"
    if all(isinstance(c, Laplace) for c in comps) and len({c.scale for c in comps}) == 1:
        return "laplace"
    return None


def by_family(P: Continuous, Q: Continuous, makers: dict, purpose: str):
    """``makers[family](P, Q)`` for the closed-form family of the pair (``supports``), or a
    ValueError saying that ``purpose`` needs Gaussian mixtures with one sigma or Laplace
    mixtures with one scale."""
    family = supports(P, Q)
    if family not in makers:
        raise InputError(f"{purpose} supports Gaussian mixtures with one common sigma or "
                         f"Laplace mixtures with one common scale, got {P!r} vs {Q!r}")
    return makers[family](P, Q)


def _signed_weights(P: Continuous, Q: Continuous, attr: str):
    """Distinct locations (sorted) with the exact P- and Q-weights at each."""
    table = {}
    for side, dist in ((0, P), (1, Q)):
        for w, c in dist.components:
            slot = table.setdefault(getattr(c, attr), [Fraction(0), Fraction(0)])
            slot[side] += w
    return sorted(table.items())


def _coefficient(wp: Fraction, wq: Fraction, alpha, alpha_exact: Optional[Fraction]):
    """wp - alpha wq; exactly zero only when alpha is rational and equal to wp / wq."""
    if alpha_exact is not None and wp == alpha_exact * wq:
        return None
    return to_mpf(wp) - alpha * to_mpf(wq)


class Undecided(ArithmeticError):
    """Crossings of p = alpha q that the working precision leaves unresolved could change
    the value: more bits may decide them (``OneStep.__call__``)."""


class OneStep:
    """Closed-form H_alpha(P || Q) for one continuous pair at the working precision in
    force when it was built (``onestep(P, Q)`` caches one per precision)."""

    def __init__(self, P: Continuous, Q: Continuous) -> None:
        self.caller_prec = mp.prec
        self.prec = mp.prec + resolution_bits(P, Q)
        with mp.workprec(self.prec):
            self._build(P, Q)

    def _build(self, P: Continuous, Q: Continuous) -> None:
        self.P, self.Q = numeric(P), numeric(Q)
        self.pair = (P, Q)
        self.family = supports(P, Q) or "general"
        self.quadratic = None
        if self.family == "general":
            self.table = []
            self.quadratic = _log_ratio_quadratic(P, Q)
        elif self.family == "gaussian":
            s = to_mpf(P.components[0][1].sigma)
            self.table = [
                (wp, wq, to_mpf(mu) / s**2, mp.exp(-to_mpf(mu) ** 2 / (2 * s**2)))
                for mu, (wp, wq) in _signed_weights(P, Q, "mean")
            ]
        else:
            b = to_mpf(P.components[0][1].scale)
            self.b = b
            self.table = [
                (wp, wq, to_mpf(u), mp.exp(to_mpf(u) / b), mp.exp(-to_mpf(u) / b))
                for u, (wp, wq) in _signed_weights(P, Q, "loc")
            ]

    # --- crossings -----------------------------------------------------------------
    @_raised
    def positive_intervals(self, alpha, alpha_exact: Optional[Fraction] = None):
        """Maximal intervals (a, b) on which p > alpha q, as mpf endpoints (+-inf allowed)."""
        return self._intervals(alpha, alpha_exact)[0]

    def _intervals(self, alpha, alpha_exact):
        """(positive intervals, unresolved intervals: only the general family has any)."""
        if self.family == "gaussian":
            return self._gaussian_intervals(alpha, alpha_exact), []
        if self.family == "laplace":
            return self._laplace_intervals(alpha, alpha_exact), []
        if self.quadratic is not None:
            A, B, C, tangent = self.quadratic
            if tangent is not None and alpha_exact == tangent:
                # ln p - ln q - ln alpha = A (y - vertex)^2 exactly: > 0 off one point
                # when A > 0, nowhere when A < 0
                return ([(-mp.inf, mp.inf)] if A > 0 else []), []
            return _quadratic_intervals(A, B, C, mp.log(alpha), self.caller_prec)
        return general_positive_intervals(self.pair[0], self.pair[1], alpha, alpha_exact)

    def _gaussian_intervals(self, alpha, alpha_exact):
        terms = []
        for wp, wq, lam, e in self.table:
            c = _coefficient(wp, wq, alpha, alpha_exact)
            if c is not None and c != 0:
                terms.append((c * e, lam))
        if not terms:
            return []
        coeffs = [c for c, _ in terms]
        lams = [lam for _, lam in terms]
        roots = exp_sum_roots(coeffs, lams)
        return _alternating(roots, coeffs[0] > 0)

    def _laplace_intervals(self, alpha, alpha_exact):
        rows = []
        for wp, wq, u, eu, emu in self.table:
            c = _coefficient(wp, wq, alpha, alpha_exact)
            rows.append((mp.zero if c is None else c, u, eu, emu))
        n = len(rows)
        b = self.b
        points: List = []
        signs: List[int] = []
        for j in range(n + 1):
            # piece (u_j, u_{j+1}) with u_0 = -inf, u_{n+1} = inf (rows are 0-based)
            left = rows[j - 1][1] if j > 0 else -mp.inf
            right = rows[j][1] if j < n else mp.inf
            A = mp.fsum(c * emu for c, _, _, emu in rows[j:])
            B = mp.fsum(c * eu for c, _, eu, _ in rows[:j])
            scale = mp.fsum(abs(c) * emu for c, _, _, emu in rows[j:]), mp.fsum(
                abs(c) * eu for c, _, eu, _ in rows[:j])
            A = _cleaned(A, scale[0])
            B = _cleaned(B, scale[1])
            cuts = [left]
            if A * B < 0:
                root = b / 2 * mp.log(-B / A)
                if left < root < right:
                    cuts.append(root)
            cuts.append(right)
            for a_, b_ in zip(cuts, cuts[1:]):
                points.append((a_, b_))
                signs.append(_piece_sign(A, B, a_, b_, b))
        return _merge(points, signs)

    # --- value -----------------------------------------------------------------------
    @_raised
    def __call__(self, alpha, alpha_exact: Optional[Fraction] = None,
                 eps: Optional[Fraction] = None):
        """H_alpha(P || Q) to the caller's precision, relative (alpha an mpf >= 0; ``eps``
        the exact eps when alpha = e^eps).

        The sum of P(I) - alpha Q(I) over the intervals cancels when p and q are nearly
        proportional there (a shift far below the scale, eps next to 0): it loses
        log2(sum (P(I) + alpha Q(I)) / value) bits, and the tail masses' condition more
        (``_condition``).  When those exceed the precision
        margin, the value is recomputed at the caller's precision plus what was lost
        (alpha recomputed there too from ``alpha_exact`` or ``eps`` when known exactly, since
        its rounding costs as many bits), until
        they do not; a value that cancels to 0 or below is never returned (one below 0
        by more than rounding is: the guards refuse it).  Exactly 0 only
        when p <= alpha q everywhere (no interval: proven).  ArithmeticError past
        ``MAX_RESOLUTION_BITS`` extra bits, or when crossings left unresolved (mixed
        families, ``engines.quadrature.crossings``; alpha next to the extremum of the loss
        of two Gaussians, ``_quadratic_intervals``) could change the value by more than
        2^-prec relative at ``UNDECIDED_MAX_BITS`` extra bits (at once where alpha is
        known only to its caller's rounding)."""
        if alpha == 0:
            return mp.one
        finer, step = self, 0
        alpha = exact_alpha(alpha, alpha_exact, eps)
        known = alpha_exact is not None or eps is not None   # more bits make alpha finer
        while True:
            try:
                value, size = finer._total(alpha, alpha_exact, known)
            except Undecided as undecided:
                value = size = None
                if not known or step >= UNDECIDED_MAX_BITS:
                    raise ArithmeticError(str(undecided)) from None
            if size is None:
                lost = 2 * (finer.prec - self.caller_prec)
            elif size == 0:
                return mp.zero
            elif value > 0:
                lost = int(mp.log(size / value, 2)) + 1
                # the caller's precision holds 8 digits beyond those asked, and its two
                # evaluations (``engines.quadrature.verify``) see a shortfall: 16 bits of
                # slack keep ordinary pairs from a second pass
                if lost <= finer.prec - self.caller_prec + 12:
                    return value
            elif -value > size * mp.mpf(2) ** (8 - finer.prec):
                return value  # not rounding: a wrong region, which the guards refuse
            else:
                lost = 2 * (finer.prec - self.caller_prec)
            step = max(lost + 16, 2 * step)
            if step > MAX_RESOLUTION_BITS:
                raise ArithmeticError(
                    f"H_alpha cancels beyond {MAX_RESOLUTION_BITS} bits (p and alpha q agree "
                    f"to that many bits where p > alpha q): {self.pair[0]!r} vs "
                    f"{self.pair[1]!r}")
            with mp.workprec(self.caller_prec + step):
                finer = _cached(*self.pair, mp.prec)
                alpha = exact_alpha(alpha, alpha_exact, eps)

    @_raised
    def _total(self, alpha, alpha_exact: Optional[Fraction], strict: bool = True):
        """(sum of P(I) - alpha Q(I), the scale of its rounding error) over the intervals
        where p > alpha q, at this evaluator's precision.  The scale is the sum of
        P(I) + alpha Q(I) times the condition of the tail masses (``_condition``).  Not
        ``strict`` (alpha rounded by a caller, an inner value of a composition, whose two
        evaluations see that rounding), a near tangency of two Gaussians is not doubted:
        its undecided sliver is of the order of alpha's own error."""
        intervals, unresolved = self._intervals(alpha, alpha_exact)
        if not strict and self.quadratic is not None:
            unresolved = []
        total, size = mp.zero, mp.zero
        for a, b in intervals:
            p, q = self.P.mass(a, b), alpha * self.Q.mass(a, b)
            total += p - q
            size += p + q
        size *= self._condition([y for ab in intervals for y in ab if mp.isfinite(y)])
        doubt = mp.fsum(self.P.mass(a, b) + alpha * self.Q.mass(a, b) for a, b in unresolved)
        if doubt > abs(total) * mp.mpf(2) ** -self.caller_prec:
            raise Undecided(
                f"crossings of p = alpha q unresolved at {self.prec} bits could change "
                f"H_alpha by {mp.nstr(doubt, 3)} (value {mp.nstr(total, 3)}): "
                f"{self.pair[0]!r} vs {self.pair[1]!r}")
        return total, size

    def _condition(self, points):
        """max over the points y and the components of 1 + z^2 (Gaussian, z = (y - m) /
        (sigma sqrt 2)) or 1 + abs(z) (Laplace, z = (y - m) / b): a relative rounding of z
        moves the tail mass e^{-z^2} (e^{-z}) by that much relative, and at a crossing far
        in the tails (a shift far below the scale with eps > 0) it is what limits the
        digits, more than the cancellation."""
        worst = mp.one
        for gaussian, _, m, w, _ in self.P.rows + self.Q.rows:
            for y in points:
                z = abs(y - m) / w
                worst = max(worst, 1 + (z * z if gaussian else z))
        return worst

    @_raised
    def atoms(self) -> List:
        """Log-likelihood-ratio values taken on intervals of positive length (Laplace outer
        pieces, and interior pieces where p and q are proportional); [] for Gaussians.
        Mixed families: [0] if P = Q, else [] (their pieces are never proportional unless
        the same components appear with proportional weights, which is not detected)."""
        if self.family == "general":
            return [mp.zero] if self.pair[0] == self.pair[1] else []
        if self.family == "gaussian":
            return []
        n = len(self.table)
        out = []
        for j in range(n + 1):
            (ap, aq), (bp, bq) = self._piece_coefficients(j)
            det = ap * bq - aq * bp
            if j in (0, n) or abs(det) <= mp.eps * 2**8 * (abs(ap * bq) + abs(aq * bp)):
                num, den = (ap, aq) if ap or aq else (bp, bq)
                if num > 0 and den > 0:
                    out.append(mp.log(num / den))
        return out

    def _piece_coefficients(self, j: int):
        """((A_P, A_Q), (B_P, B_Q)): on Laplace piece j, p = (A_P e^{y/b} + B_P e^{-y/b}) / 2b
        and likewise q."""
        right, left = self.table[j:], self.table[:j]
        return ((mp.fsum(to_mpf(wp) * emu for wp, _, _, _, emu in right),
                 mp.fsum(to_mpf(wq) * emu for _, wq, _, _, emu in right)),
                (mp.fsum(to_mpf(wp) * eu for wp, _, _, eu, _ in left),
                 mp.fsum(to_mpf(wq) * eu for _, wq, _, eu, _ in left)))

    @_raised
    def flat_tails(self):
        """For Laplace mixtures, ((u_min, loss left of it), (u_max, loss right of it)): beyond
        the extreme locations p / q is constant.  None for other families."""
        if self.family != "laplace":
            return None
        n = len(self.table)
        (ap, aq), _ = self._piece_coefficients(0)
        _, (bp, bq) = self._piece_coefficients(n)
        left = mp.log(ap / aq) if ap else mp.ninf
        right = mp.log(bp / bq) if bp else mp.ninf
        return (self.table[0][2], left), (self.table[-1][2], right)

    @_raised
    def critical_losses(self) -> List[Tuple[object, str]]:
        """Loss values c where H_beta(P || Q) is not analytic at beta = e^c, each with its
        kind (how the engine integrates across the y where the inner beta reaches e^c):

        * ``"kink"``: H is analytic on either side (Laplace atoms, corners of the
          piecewise-monotone loss); a breakpoint suffices;
        * ``"inf"``: c is the infimum of the loss, a finite limit at +-inf not attained
          (Gaussian mixtures sharing an extreme component, e.g. ln(1 - q) for a
          Poisson-subsampled Gaussian): H_beta = 1 - beta for ln beta <= c, and above c
          H_beta - (1 - beta) is analytic in ln(ln beta - c) and decays like a Gaussian
          tail in it;
        * ``"sup"``: likewise for a supremum that is a limit: H_beta = 0 above c, and
          below it H_beta is analytic in ln(c - ln beta), decaying like a Gaussian tail;
        * ``"branch"``: any other non-analytic point (limits inside the range of the loss,
          smooth extrema with their (c - ln beta)^(3/2) branch).

        [] when there are none (a Gaussian shift: the loss is linear in y).  Mixed families
        and scales: ``_general_critical``."""
        if self.family == "laplace":
            kinks = [mp.log(self.P.pdf(u) / self.Q.pdf(u)) for _, _, u, _, _ in self.table]
            return [(c, "kink") for c in sorted(set(self.atoms() + kinks))]
        if self.family == "general":
            return self._general_critical()
        limits, extrema = self._gaussian_critical()
        lo, hi = self.loss_inf(), self.loss_sup()
        out = {c: "branch" for c in extrema}
        for c in limits:
            if c == lo and all(c < x for x in extrema):
                out[c] = "inf"
            elif c == hi and all(c > x for x in extrema):
                out[c] = "sup"
            else:
                out[c] = "branch"
        return sorted(out.items())

    def _general_critical(self):
        """Mixed families and scales: the loss at the Laplace locations ("kink": corners of
        the loss) and at the interior extrema of the loss ("branch"), found as sign changes
        of the score L' = p'/p - q'/q between sample points around every component
        (``guards.cut_points``, 8 samples between neighbours), refined by
        bisection.  They only place the quadrature's breakpoints: a missed extremum slows
        convergence, and the two evaluations' bound says so; computed once per evaluator."""
        if not hasattr(self, "_general"):
            comps = [c for _, c in self.pair[0].components + self.pair[1].components]
            kinks = {to_mpf(c.loc) for c in comps if not hasattr(c, "sigma")}
            cuts = sorted(kinks | set(cut_points(*self.pair)))
            samples = sorted(set(cuts) | {a + (b - a) * i / 9 for a, b in zip(cuts, cuts[1:])
                                          for i in range(1, 9)})
            extrema = [_bisect_score(self, a, b) for a, b in zip(samples, samples[1:])
                       if a not in kinks and b not in kinks
                       and _score(self, a) * _score(self, b) < 0]
            loss = lambda y: mp.log(self.P.pdf(y) / self.Q.pdf(y))  # noqa: E731
            out = {loss(y): "kink" for y in kinks}
            out.update({loss(y): "branch" for y in extrema if loss(y) not in out})
            out.update({c: "kink" for c in self.atoms()})
            self._general = sorted(out.items())
        return self._general

    def _gaussian_critical(self):
        """(finite limits of the loss at +-inf, values at its interior extrema) for a
        Gaussian mixture with one sigma, where p/q = A(y)/B(y), A = sum_i a_i e^{lam_i y};
        computed once per evaluator (the evaluator belongs to one precision)."""
        if not hasattr(self, "_critical"):
            self._critical = self._gaussian_critical_values()
        return self._critical

    def _gaussian_critical_values(self):
        a = [(to_mpf(wp) * e, lam) for wp, _, lam, e in self.table if wp]
        b = [(to_mpf(wq) * e, lam) for _, wq, lam, e in self.table if wq]
        limits = []
        if a[-1][1] == b[-1][1]:
            limits.append(mp.log(a[-1][0] / b[-1][0]))  # limit at +inf
        if a[0][1] == b[0][1]:
            limits.append(mp.log(a[0][0] / b[0][0]))  # limit at -inf
        # interior extrema: roots of A'B - AB' = sum a_i b_j (lam_i - lam_j) e^{(lam_i+lam_j) y}
        terms = {}
        for ai, li in a:
            for bj, lj in b:
                if li != lj:
                    terms[li + lj] = terms.get(li + lj, mp.zero) + ai * bj * (li - lj)
        lams = sorted(l for l, c in terms.items() if c != 0)
        extrema = [mp.log(self.P.pdf(y) / self.Q.pdf(y))
                   for y in exp_sum_roots([terms[l] for l in lams], lams)]
        return limits, extrema

    def _gaussian_exponents(self):
        """(P's, Q's) exponents lam_i = mu_i / sigma^2 with positive weight."""
        return ([lam for wp, _, lam, _ in self.table if wp],
                [lam for _, wq, lam, _ in self.table if wq])

    @_raised
    def loss_inf(self):
        """inf_y ln(p(y)/q(y)), or -inf.  Laplace mixtures: the least atom or kink value (the
        loss is monotone on each piece).  Gaussian mixtures with one sigma: -inf when the loss
        falls without bound at either end (a larger leading exponent in q), else the least
        of its finite limits and extrema.  Mixed families: -inf (a lower bound)."""
        if self.family == "general":
            return mp.ninf
        if self.family == "laplace":
            return min(c for c, _ in self.critical_losses())
        lp, lq = self._gaussian_exponents()
        if max(lp) < max(lq) or min(lp) > min(lq):
            return mp.ninf
        return min(sum(self._gaussian_critical(), []))

    @_raised
    def loss_sup(self):
        """sup_y ln(p(y)/q(y)), or +inf.  Laplace mixtures: an atom or the value at a
        location (the loss is monotone on each piece).  Gaussian mixtures with one sigma:
        +inf when the loss rises without bound at either end, else the largest of its finite
        limits and extrema.  Mixed families: +inf (an upper bound)."""
        if self.family == "general":
            return mp.inf
        if self.family == "laplace":
            return max(c for c, _ in self.critical_losses())
        lp, lq = self._gaussian_exponents()
        if max(lp) > max(lq) or min(lp) < min(lq):
            return mp.inf
        return max(sum(self._gaussian_critical(), []))


def _score(step: "OneStep", y):
    """L'(y) = p'(y)/p(y) - q'(y)/q(y) (0 where a density vanishes to working precision)."""
    out = mp.zero
    for sign, dist in ((1, step.pair[0]), (-1, step.pair[1])):
        total = slope = mp.zero
        for w, c in dist.components:
            if hasattr(c, "sigma"):
                m, s = to_mpf(c.mean), to_mpf(c.sigma)
                k, d = mp.npdf(y, m, s), -(y - m) / s ** 2
            else:
                m, b = to_mpf(c.loc), to_mpf(c.scale)
                k, d = mp.exp(-abs(y - m) / b) / (2 * b), -mp.sign(y - m) / b
            total += to_mpf(w) * k
            slope += to_mpf(w) * k * d
        if not total:
            return mp.zero
        out += sign * slope / total
    return out


def _bisect_score(step: "OneStep", a, b):
    """A root of the score in (a, b), where it changes sign, to the working precision."""
    sa = _score(step, a)
    for _ in range(mp.prec):
        mid = (a + b) / 2
        if mid in (a, b):
            break
        sm = _score(step, mid)
        if (sm < 0) == (sa < 0):
            a, sa = mid, sm
        else:
            b = mid
    return (a + b) / 2


def _cleaned(value, scale):
    """Treat a coefficient that is zero to working precision as exactly zero (p and q
    proportional on that piece: it contributes p - alpha q = 0 either way)."""
    return mp.zero if abs(value) <= scale * mp.eps * 2**8 else value


def _piece_sign(A, B, a, b, scale) -> int:
    if not A and not B:
        return 0
    if a == -mp.inf:
        return 1 if A > 0 else -1 if A < 0 else (1 if B > 0 else -1)
    if b == mp.inf:
        return 1 if B > 0 else -1 if B < 0 else (1 if A > 0 else -1)
    t = (a + b) / 2
    value = A * mp.exp(t / scale) + B * mp.exp(-t / scale)
    return 1 if value > 0 else -1 if value < 0 else 0


def _merge(pieces, signs):
    out: List[Tuple] = []
    for (a, b), s in zip(pieces, signs):
        if s > 0:
            if out and out[-1][1] == a:
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
    return out


def _log_ratio_quadratic(P: Continuous, Q: Continuous) -> Optional[Tuple]:
    """(A, B, C, tangent) with ln p(y) - ln q(y) = A y^2 + B y + C when P and Q are one
    Gaussian each (of two sigmas: one sigma is the "gaussian" family), else None.  From
    ln N(m, s^2)(y) = -(y - m)^2 / (2 s^2) - ln s - ln sqrt(2 pi): A, B and C_0 = C - ln r,
    r = s_q / s_p, are exact rationals, rounded once.

    ``tangent`` is the rational alpha at which p = alpha q is tangent, decided exactly (no
    precision decides a discriminant that is exactly 0), or None.  The discriminant of
    ln p - ln q - ln alpha is D = R + 4 A ln(alpha / r), R = B^2 - 4 A C_0 rational, A != 0.
    For a rational alpha, D = 0 asks e^{-R / (4 A)} = alpha / r, a rational; e^x is
    irrational for every rational x != 0 (Lambert 1768, Hermite 1873), so D = 0 exactly
    when R = 0 and alpha = r (equal means) and never otherwise; alpha = e^eps with eps
    rational asks ln r = (R + 4 A eps) / (4 A) rational, with r != 1: never."""
    if len(P.components) != 1 or len(Q.components) != 1:
        return None
    p, q = P.components[0][1], Q.components[0][1]
    if not (isinstance(p, Gaussian) and isinstance(q, Gaussian)):
        return None
    vp, vq = p.sigma ** 2, q.sigma ** 2
    a, b = 1 / (2 * vq) - 1 / (2 * vp), p.mean / vp - q.mean / vq
    c0 = q.mean ** 2 / (2 * vq) - p.mean ** 2 / (2 * vp)
    ratio = q.sigma / p.sigma
    tangent = ratio if b * b == 4 * a * c0 else None
    return to_mpf(a), to_mpf(b), to_mpf(c0) + mp.log(to_mpf(ratio)), tangent


def _quadratic_intervals(A, B, C, log_alpha, bits: int) -> Tuple[List[Tuple], List[Tuple]]:
    """(intervals where g(y) = A y^2 + B y + C - ln alpha > 0, unresolved intervals), A !=
    0: outside the roots when A > 0, between them when A < 0.  Where the discriminant D =
    B^2 - 4 A (C - ln alpha) lies within its rounding, 2^(8 - bits) (B^2 + 4 |A| (|C| +
    |ln alpha| + 1)), of 0 (alpha, rounded to ``bits``, next to the loss's extremum: p =
    alpha q nearly tangent), its sign is not decided: the interval about the vertex where
    g's sign could differ, its ends the roots of D + that bound, is returned unresolved,
    and ``_total`` asks for more bits where it could change the value (a double root read
    as a sign change had halved such a value; a negative D read as certain had made a
    value of 1e-91 an exact 0)."""
    c = C - log_alpha
    disc = B * B - 4 * A * c
    slack = mp.ldexp(B * B + 4 * abs(A) * (abs(C) + abs(log_alpha) + 1), 8 - bits)
    if abs(disc) <= slack:
        half = mp.sqrt(abs(disc) + slack) / (2 * abs(A))
        vertex = -B / (2 * A)
        doubt = [(vertex - half, vertex + half)]
        return ([(-mp.inf, vertex - half), (vertex + half, mp.inf)] if A > 0 else []), doubt
    roots = quadratic_roots(A, B, c)
    if disc < 0:
        return ([(-mp.inf, mp.inf)] if A > 0 else []), []
    if A > 0:
        return [(-mp.inf, roots[0]), (roots[1], mp.inf)], []
    return [(roots[0], roots[1])], []


def _alternating(roots: Sequence, positive_at_minus_inf: bool):
    """Intervals of positivity of a function with the given sign changes."""
    edges = [-mp.inf] + list(roots) + [mp.inf]
    out = []
    positive = positive_at_minus_inf
    for a, b in zip(edges, edges[1:]):
        if positive:
            out.append((a, b))
        positive = not positive
    return out


def exp_sum_roots(c: Sequence, lam: Sequence) -> List:
    """The sign-changing real roots of s(y) = sum_i c_i exp(lam_i y) (lam strictly
    increasing, c_i != 0), sorted.

    g(y) = s(y) exp(-lam_0 y) has derivative sum_{i>=1} c_i (lam_i - lam_0) exp((lam_i - lam_0) y),
    an exponential sum with one term fewer; between its sign changes g is monotone, so each
    such interval holds at most one root, bracketed and solved by Newton's method kept
    inside the bracket."""
    m = len(c)
    if m < 2:
        return []
    if m == 2:
        if (c[0] > 0) == (c[1] > 0):
            return []
        return [mp.log(-c[0] / c[1]) / (lam[1] - lam[0])]
    shifts = [l - lam[0] for l in lam[1:]]
    critical = exp_sum_roots([ci * d for ci, d in zip(c[1:], shifts)], shifts)

    def g(y):
        return c[0] + mp.fsum(ci * mp.exp(d * y) for ci, d in zip(c[1:], shifts))

    def slope(y):
        return mp.fsum(ci * d * mp.exp(d * y) for ci, d in zip(c[1:], shifts))

    edges = [-mp.inf] + critical + [mp.inf]
    limits = {-mp.inf: 1 if c[0] > 0 else -1, mp.inf: 1 if c[-1] > 0 else -1}
    step = 1 / (lam[-1] - lam[0])
    roots = []
    for a, b in zip(edges, edges[1:]):
        sa = limits[a] if a in limits else mp.sign(g(a))
        sb = limits[b] if b in limits else mp.sign(g(b))
        if sa * sb >= 0:
            continue
        lo = a if a != -mp.inf else _outward(g, b, -step, sa)
        hi = b if b != mp.inf else _outward(g, a, step, sb)
        roots.append(bracketed_root(g, lo, hi, slope=slope))
    return roots


def _outward(g, start, step, sign):
    """A point beyond ``start`` (in the direction of ``step``) where g has ``sign``."""
    y = (start if start not in (mp.inf, -mp.inf) else mp.zero) + step
    while mp.sign(g(y)) != sign:
        step *= 2
        y += step
    return y


@lru_cache(maxsize=256)
def _cached(P: Continuous, Q: Continuous, prec: int) -> OneStep:
    return OneStep(P, Q)


def onestep(P: Continuous, Q: Continuous) -> OneStep:
    """The ``OneStep`` evaluator of (P, Q) at the current working precision (cached)."""
    return _cached(P, Q, mp.prec)
