"""The moments A(a) = E[X^a] of the lognormal mean X at complex a, as proven balls: the
moment generating function of one epoch's privacy loss of random allocation, which the
transform engine composes over epochs (``EpochLoss``; ``engines.transform.inversion``).

X = (1/t) sum_i Z_i, Z_i = e^{b G_i - b^2/2} independent lognormals of mean 1 and
log-scale b = 1/sigma (``refacct.allocation``).  The remove order's loss ln X under P has
M(z) = E_Q[X^{1+z}], the add order's loss -ln X under Q has M(z) = E_Q[X^{-z}]: both are
A(a), at a = 1 + z and a = -z.

**One dimension.**  For an integer N >= 0 above alpha = Re a, x^a = x^N x^{a - N} and
x^{a - N} = (1 / Gamma(N - a)) int_0^inf s^{N - a - 1} e^{-sx} ds, so

    A(a) = (1 / Gamma(N - a)) int_0^inf s^{N - a - 1} D_N(s) ds,
    D_N(s) = E[X^N e^{-sX}] = t^{-N} N! [x^N] (sum_{k <= N} psi_k(s / t) x^k / k!)^t,

psi_k(w) = E[Z^k e^{-wZ}] = e^{b^2 k (k - 1) / 2} phi(w e^{k b^2}) (Z^k tilts G by k b),
phi the lognormal's Laplace transform (``lognormal.laplace_ray``: every node of a ray
from one trapezoidal rule).  D_N is analytic on
Re s > 0, where |D_N(s)| <= D_N(Re s).

**A ray without cancellation.**  With a = alpha + i beta and kappa = N - alpha > 0, the
integrand on the real axis turns as s^{-i beta}, and the integral is smaller than it by
about e^{-pi |beta| / 2} (1 / Gamma(N - a) grows so).  Cauchy's theorem moves it onto the
ray s = e^{u + i theta}, theta = -theta_0 sign(beta) (D_N decays on the arcs):

    A(a) = e^{i theta (N - a)} / Gamma(N - a) int_R e^{(N - a) u} D_N(e^{u + i theta}) du,

|e^{i theta (N - a)}| = e^{-theta_0 |beta|}: what is left to cancel is e^{SLOPE |beta|},
SLOPE = pi/2 - theta_0, paid in bits.

**Trapezoidal rule**, nodes u_k = k D (Trefethen and Weideman, "The exponentially convergent
trapezoidal rule", SIAM Review 56, 2014, Thm 5.1).  The integrand is analytic on the strip
|Im u| < rho, rho + theta_0 < pi/2, where its modulus is at most e^{kappa x + |beta| rho}
D_N(e^x g), g = cos(theta_0 + rho), whose integral over x is e^{|beta| rho} g^{-kappa}
Gamma(kappa) E[X^alpha] (s = e^x g), and E[X^alpha] <= mu_alpha (``_mu``: Jensen, the
geometric mean, or the integer moments interpolated).  So the sum over every node errs by
at most 2 e^{|beta| rho} g^{-kappa} Gamma(kappa) mu_alpha / (e^{2 pi rho / D} - 1); D is
chosen to put that below 2^-bits of the value (its size g^{-kappa} mu_alpha is counted:
one epoch's loss is heavy-tailed, and at the add order's c = 27 for sigma = 1.1, t = 195
the step that ignored it left a bound of e^278).  D = b^2 / m for m a power of 2, so that
the tilted arguments w e^{k b^2} of psi_k are nodes too: one phi per node.

**Nodes below u_lo**: by Taylor, D_N(s) = sum_{j < J} (-s)^j m_{N+j} / j! + R, |R| <=
|s|^J m_{N+J} / J! for Re s >= 0, m_k = E[X^k] (``moments``); each term's sum over the
nodes is geometric, summed in closed form, and R's is bounded so.

**Nodes above u_hi**: for real v with sqrt v >= N, splitting at X = v^{-1/2} (X^N e^{-vX} is
at most X^N below it and decreasing beyond it; X < x needs every Z_i < t x),

    D_N(v) <= v^{-N/2} (Phi((ln t - (ln v) / 2 + b^2 / 2) / b)^t + e^{-sqrt v}),

and |D_N(e^{u + i theta})| <= D_N(e^u cos theta_0).  Each part times e^{kappa u} is
log-concave in u (Phi is log-concave, sqrt(e^u) convex), so once the ratio of consecutive
terms is some rho < 1 every later ratio is at most rho, and the rest is at most
rho / (1 - rho) times the last term: the walk stops at rho <= ``TAIL_RATIO``, or where
that rest is at most the sum so far (nodes b^2 / m apart decay by e^{-s b^2 / m} each at a
log-slope s: a fine ray's ratios stay near 1 for thousands of nodes).

**Decay** (``decay``).  For real eta with |b eta| < pi, moving every G_i to G_i + i eta
multiplies X by e^{i b eta} and the Gaussian weights by e^{-i eta G_i + eta^2 / 2}; the
expectation is analytic in eta and constant for real shifts, so
|A(alpha + i beta)| <= A(alpha) e^{t eta^2 / 2 - b eta |beta|}: at eta = b |beta| / t (while
b^2 |beta| / t < pi) the bound A(alpha) e^{-b^2 beta^2 / (2t)}, decreasing in |beta|.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import factorial
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ... import progress
from ..arb import acb, arb, flint, power_log, to_arb
from ..transform.contour import power_sums
from .halves import TwoStepMoments
from .lognormal import laplace_ray

__all__ = ["EpochMoments", "EpochLoss", "epoch_loss"]

SLOPE = Fraction(3, 4)     # pi/2 - theta_0: the cancellation e^{SLOPE |beta|} paid in bits
STRIP = Fraction(3, 5)     # rho < SLOPE
TAYLOR = 10                # J: the terms of D_N summed in closed form below u_lo
MAX_TAIL = 100_000         # terms walked above u_hi before giving up (an infinite bound)
TAIL_RATIO = Fraction(7, 8)   # the ratio of consecutive tail terms that ends the walk
FINEST = 2 ** 40           # the finest ray: node k of a ray of m nodes a unit is k FINEST / m


def _key(k: int, m: int) -> int:
    """The key of u_k = k b^2 / m (m a power of 2 up to ``FINEST``): one integer for every
    ray that holds the node (a finer ray holds the coarser's nodes)."""
    if FINEST % m:
        raise ValueError(f"the ray's nodes a unit must divide {FINEST}, got {m}")
    return k * (FINEST // m)


def _power(coefficients: Sequence, exponent: int, length: int) -> List:
    """The first ``length`` coefficients of F = P^exponent for a power series P, by
    J. C. P. Miller's recurrence (from P F' = exponent P' F):
    F_0 = P_0^exponent, F_k = sum_{i=1}^{k} ((exponent + 1) i - k) P_i F_{k-i} / (k P_0)
    (Knuth, TAOCP 2, Sec. 4.7); by squaring where the ball of P_0 holds 0 (a phi below its
    own rounding, far out on a ray), which the division would make NaN."""
    p = list(coefficients[:length]) + [coefficients[0] * 0] * (length - len(coefficients))
    if 0 in p[0]:
        return _squared(p, exponent, length)
    out = [p[0] ** exponent]
    for k in range(1, length):
        total = p[0] * 0
        for i in range(1, k + 1):
            total += ((exponent + 1) * i - k) * p[i] * out[k - i]
        out.append(total / (k * p[0]))
    return out


def _squared(p: List, exponent: int, length: int) -> List:
    """``_power`` by binary powering, each product truncated to ``length`` terms."""
    def times(x, y):
        return [sum((x[i] * y[k - i] for i in range(k + 1)), p[0] * 0) for k in range(length)]
    out = None
    while exponent:
        if exponent & 1:
            out = p if out is None else times(out, p)
        exponent >>= 1
        if exponent:
            p = times(p, p)
    return out


class EpochMoments:
    """A(a) = E[X^a] for one epoch of t steps at noise sigma (module docstring): phi on
    the nodes of each ray, kept per side, step and precision."""

    def __init__(self, sigma: Fraction, t: int) -> None:
        self.sigma, self.t = Fraction(sigma), t
        self.b2 = 1 / self.sigma ** 2
        self._phi: Dict[int, Dict[Fraction, Tuple[int, "acb"]]] = {}
        self._d: Dict[Tuple[int, int], Dict[Fraction, Tuple[int, "acb"]]] = {}

    def moments(self, count: int) -> List["arb"]:
        """m_k = E[X^k], k = 0 .. count - 1: k! / t^k times the x^k coefficient of
        (sum_j E[Z^j] x^j / j!)^t, E[Z^j] = e^{b^2 j (j - 1) / 2}, by squaring: products
        of positive coefficients lose nothing to cancellation, where Miller's recurrence
        (``_power``) subtracts and lost every bit at 128 (sigma 20, t = 2: m_41 came out
        as [+- 163] where it is 2.79)."""
        b2 = to_arb(self.b2)
        one = [(b2 * j * (j - 1) / 2).exp() / factorial(j) for j in range(count)]
        power = _squared(one, self.t, count)
        return [power[k] * factorial(k) / arb(self.t) ** k for k in range(count)]

    def _mu(self, alpha: "arb") -> "arb":
        """mu_alpha >= E[X^alpha] for real alpha (module docstring): 1 on (0, 1) (x^alpha
        concave, E X = 1); below 0, (E[Z^{alpha / t}])^t = e^{b^2 alpha (alpha / t - 1) / 2}
        (X >= (prod Z_i)^{1/t} and x^alpha decreasing); above 1, the integer moments
        interpolated, m_n^{n + 1 - alpha} m_{n+1}^{alpha - n} with n <= alpha <= n + 1
        (ln E[X^alpha] is convex in alpha: Hoelder)."""
        b2 = to_arb(self.b2)
        if alpha > 0 and alpha < 1:
            return arb(1)
        if alpha <= 0:
            return (b2 * alpha * (alpha / self.t - 1) / 2).exp()
        if alpha >= 1:
            n = int(alpha.upper().floor().unique_fmpz())
            m = self.moments(n + 2)
            low = alpha - n
            return (m[n].log() * (1 - low) + m[n + 1].log() * low).exp()
        return max(self._mu(alpha.lower()), self._mu(alpha.upper()), arb(1))   # straddling

    # --- the nodes --------------------------------------------------------------------

    def _phis(self, sign: int, m: int, lo: int, hi: int) -> Dict[int, "acb"]:
        """phi(e^{u_k + i theta} / t), u_k = k b^2 / m, theta = -sign theta_0, for k = lo ..
        hi, at the current precision or more; kept by u_k / b^2 (``_key``)."""
        known = self._phi.setdefault(sign, {})
        prec = flint.ctx.prec
        missing = [k for k in range(lo, hi + 1)
                   if known.get(_key(k, m), (0, None))[0] < prec]
        if missing:
            progress.note(f"random allocation over epochs: phi at {len(missing)} nodes")
            b = 1 / to_arb(self.sigma)
            theta = -sign * (arb.pi() / 2 - to_arb(SLOPE))
            step = to_arb(self.b2) / m
            first = min(missing)
            values = laplace_ray(first * step - arb(self.t).log(), step,
                                 max(missing) - first + 1, theta, b, prec)
            for k in missing:
                known[_key(k, m)] = (prec, values[k - first])
        return {k: known[_key(k, m)][1] for k in range(lo, hi + 1)}

    def _nodes(self, sign: int, m: int, n: int, lo: int, hi: int) -> List["acb"]:
        """D_N at the nodes k = lo .. hi of the ray (``_node``), kept like phi."""
        known = self._d.setdefault((sign, n), {})
        prec = flint.ctx.prec
        if any(known.get(_key(k, m), (0, None))[0] < prec for k in range(lo, hi + 1)):
            phis = self._phis(sign, m, lo, hi + n * m)
            for k in range(lo, hi + 1):
                if known.get(_key(k, m), (0, None))[0] < prec:
                    known[_key(k, m)] = (prec, self._node(phis, k, m, n))
        return [known[_key(k, m)][1] for k in range(lo, hi + 1)]

    def _node(self, phis: Dict[int, "acb"], k: int, m: int, n: int) -> "acb":
        """D_N at the node k (module docstring), psi_j from phi at the node k + j m."""
        b2 = to_arb(self.b2)
        psi = [(b2 * j * (j - 1) / 2).exp() * phis[k + j * m] / factorial(j)
               for j in range(n + 1)]
        if n == 0:
            return psi[0] ** self.t
        return _power(psi, self.t, n + 1)[n] * factorial(n) / arb(self.t) ** n

    # --- the bounds -------------------------------------------------------------------

    def _tail_terms(self, kappa: "arb", n: int, step: "arb") -> Callable[[int], Optional[Tuple]]:
        """k -> the two parts of D e^{kappa u_k} D_N(e^{u_k} cos theta_0)'s bound (module
        docstring) at node k, at 64 bits, or None where sqrt v < N (no bound there); each
        node made once, so that the search for the range's end and the bound above it
        share their walks."""
        b = 1 / to_arb(self.sigma)
        b2, cos0 = to_arb(self.b2), (arb.pi() / 2 - to_arb(SLOPE)).cos()
        log_t = arb(self.t).log()
        known: Dict[int, Optional[Tuple]] = {}

        def parts(k: int) -> Optional[Tuple]:
            if k not in known:
                with flint.ctx.workprec(64):
                    u = k * step
                    v = cos0 * u.exp()
                    if not v.sqrt() >= n:
                        known[k] = None
                    else:
                        scale = step * (kappa * u - n * v.log() / 2).exp()
                        x = (log_t - v.log() / 2 + b2 / 2) / b
                        below = ((-x / arb(2).sqrt()).erfc() / 2) ** self.t
                        known[k] = (scale * below, scale * (-v.sqrt()).exp())
            return known[k]
        return parts

    @staticmethod
    def _above(terms: Callable[[int], Optional[Tuple]], first: int,
               cap: Optional["arb"] = None) -> "arb":
        """A bound on D sum_{k >= first} e^{kappa u_k} D_N(e^{u_k} cos theta_0) (module
        docstring) from ``terms`` (``_tail_terms``), at 64 bits; +inf where the walk does
        not end, or once its partial sum exceeds ``cap`` (a search that only asks whether
        the bound is below ``cap`` need not walk on)."""
        with flint.ctx.workprec(64):
            total, ratio = arb(0), to_arb(TAIL_RATIO)
            for which in (0, 1):
                k, last = first, None
                for _ in range(MAX_TAIL):
                    now = terms(k)
                    if now is None:
                        return arb("inf")
                    term = now[which]
                    # the rest is at most term r / (1 - r), r = term / last < 1: stop once
                    # r is small, or once that bound is at most the sum so far (at a fine
                    # step r stays near 1 for thousands of nodes)
                    if last is not None and term < last and \
                            (term <= ratio * last or term * term <= total * (last - term)):
                        total += term / (1 - term / last)      # this term and the rest
                        break
                    total += term
                    if cap is not None and total > cap:
                        return arb("inf")
                    last, k = term, k + 1
                else:
                    return arb("inf")
            return total.upper()

    def _lower_end(self, kappa: "arb", moments: List["arb"], n: int, step: "arb",
                   bits: int) -> int:
        """The first node kept: below it the Taylor remainder's geometric sum is about
        2^-bits (steering only: the remainder is bounded wherever the range starts)."""
        with flint.ctx.workprec(64):
            rest = moments[n + TAYLOR] / factorial(TAYLOR)
            need = (bits * arb(2).log() + rest.log() + 8) / (kappa + TAYLOR)
            return -int((need / step).upper().ceil().unique_fmpz()) - 1

    def _upper_end(self, terms: Callable[[int], Optional[Tuple]], step: "arb", first: int,
                   bits: int) -> int:
        """The last node kept: where the bound above falls below 2^-bits, searched on a
        grid of one unit of u by doubling and halving (the bound falls with its first node;
        steering only: whatever it returns, the bound above it is computed), or past
        u = 200."""
        aim = arb(2) ** -bits
        stride = max(1, int((1 / step).upper().ceil().unique_fmpz()))

        def done(k):
            return k * step > 200 or self._above(terms, k, aim) < aim
        low = max(first, 0)
        if done(low):
            return low
        jump = stride
        while not done(low + jump):
            low, jump = low + jump, 2 * jump
        high = low + jump                   # done(high), not done(low)
        while high - low > stride:
            mid = low + (high - low) // (2 * stride) * stride
            low, high = (low, mid) if done(mid) else (mid, high)
        return high

    def _step(self, kappa: "arb", g: "arb", mu: "arb", top: "arb", bits: int) -> int:
        """m, a power of 2, with the rule's error at D = b^2 / m below 2^-bits of A(alpha)
        (>= 1 for alpha outside (0, 1)) for |beta| <= top (module docstring; steering:
        the error is bounded whatever m)."""
        slope, strip = to_arb(SLOPE), to_arb(STRIP)
        size = (-kappa * g.log() + mu.log()).upper()
        target = 2 * arb.pi() * strip / ((strip + slope) * top + bits * arb(2).log()
                                         + size + 16)
        m = 1
        while not to_arb(self.b2) / m <= target:
            m *= 2
        return m

    # --- values -----------------------------------------------------------------------

    def row(self, alpha: "arb", sign: int, h: "arb", first: int, stop: int) -> List["acb"]:
        """A(alpha + i sign n h) for n = first .. stop - 1 (sign +1 or -1; h >= 0)."""
        if stop <= first:
            return []
        prec = flint.ctx.prec
        top = (stop - 1) * h
        n = max(0, int(alpha.upper().floor().unique_fmpz()) + 1)
        kappa = n - alpha
        lost = int((to_arb(SLOPE) * top / arb(2).log()).upper().ceil().unique_fmpz())
        bits = -(-(prec + lost + 24) // 64) * 64   # a multiple of 64: rays shared
        with flint.ctx.workprec(bits):
            b2, slope, strip = to_arb(self.b2), to_arb(SLOPE), to_arb(STRIP)
            g = (arb.pi() / 2 - slope + strip).cos()
            mu = self._mu(alpha)
            m = self._step(kappa, g, mu, top, bits)
            step = b2 / m
            moments = self.moments(n + TAYLOR + 1)
            lo = self._lower_end(kappa, moments, n, step, bits)
            terms = self._tail_terms(kappa, n, step)
            hi = self._upper_end(terms, step, lo, bits)
            theta = -sign * (arb.pi() / 2 - slope)
            weights, rates = [], []
            for k, d in zip(range(lo, hi + 1), self._nodes(sign, m, n, lo, hi)):
                u = k * step
                weights.append(step * (kappa * u).exp() * d)
                rates.append(acb(0, -sign * h * u))
            sums = power_sums(weights, rates, first, stop)
            above = self._above(terms, hi + 1)
            below = step * moments[n + TAYLOR] / factorial(TAYLOR) \
                * ((kappa + TAYLOR) * (lo - 1) * step).exp() \
                / (1 - (-(kappa + TAYLOR) * step).exp())
            rule = 2 * g ** (-kappa) * kappa.gamma() * mu \
                / ((2 * arb.pi() * strip / step).exp() - 1)
            out = []
            for j, total in zip(range(first, stop), sums):
                a = acb(alpha, sign * j * h)
                beta = abs(a.imag)
                lower = acb(0)
                ray = -(acb(0, theta).exp())
                for i in range(TAYLOR):
                    q = n - a + i
                    lower += step * ray ** i * moments[n + i] / factorial(i) \
                        * (q * (lo - 1) * step).exp() / (1 - (-q * step).exp())
                error = (below + above + rule * (beta * strip).exp()).upper()
                inner = total + lower + acb(arb(0, error), arb(0, error))
                pre = (acb(0, theta) * (n - a)).exp() * (n - a).rgamma()
                out.append(pre * inner)
        with flint.ctx.workprec(prec):
            return [+v for v in out]

    def at(self, alpha: "arb", beta: "arb") -> "acb":
        """A(alpha + i beta) for one real ball beta."""
        sign = -1 if beta < 0 else 1
        return self.row(alpha, sign, abs(beta), 1, 2)[0] if beta != 0 else \
            self.row(alpha, 1, arb(0), 0, 1)[0]

    def decay(self, alpha: "arb", beta: "arb") -> "arb":
        """An upper bound on |A(alpha + i s)| for every |s| >= beta >= 0 (module
        docstring)."""
        b = 1 / to_arb(self.sigma)
        top = self.at(alpha, arb(0)).real.upper()
        limit = arb.pi() * (1 - arb(2) ** -10)
        eta = b * beta / self.t
        if not b * eta < limit:
            eta = limit / b
        return (top * (self.t * eta * eta / 2 - b * eta * beta).exp()).upper()


class EpochLoss:
    """The loss of ``epochs`` epochs of one order of random allocation (``remove``: ln X
    under P, else -ln X under Q), for the transform engine (``engines.transform.mgf``'s
    interface): M_E(z) = A(a(z))^E, a = 1 + z or -z (module docstring).  Unbounded (no
    ``sup``), every moment finite (no ``c_max``); steered up to ``c_steer``, as A at
    Re a = alpha takes N > alpha tilts of phi, each one more node per step of b^2."""

    c_max = None
    c_steer = 16
    max_nodes = None

    def __init__(self, moments: EpochMoments, remove: bool, epochs: int) -> None:
        self.moments, self.remove, self.epochs = moments, remove, epochs
        self.sign = 1 if remove else -1

    def _alpha(self, c: "arb") -> "arb":
        return 1 + c if self.remove else -c

    def log_mgf(self, z: "acb") -> "acb":
        """ln M_E(z): at a real z, from the ray; off the real line (where the inversion
        only steers by it) the disk of radius ``decay``'s bound, as ``power_log`` encodes
        it: one value there would cost a ray as fine as the whole row's."""
        if z.imag == 0:
            return self.epochs * power_log(self.moments.at(self._alpha(z.real), arb(0)))
        top = self.moments.decay(self._alpha(z.real), abs(z.imag))
        return self.epochs * acb(top.log().upper(), arb(0, 4))

    def log_mgf_row(self, c: "arb", h: "arb", first: int, stop: int) -> List["acb"]:
        return [self.epochs * power_log(v)
                for v in self.moments.row(self._alpha(c), self.sign, h, first, stop)]

    def decay(self, c: "arb", t: "arb", drop: Fraction = Fraction(0)) -> "arb":
        return self.moments.decay(self._alpha(c), t) ** self.epochs

    def sup(self) -> Optional["arb"]:
        return None


@lru_cache(maxsize=4)
def _moments(sigma: Fraction, t: int):
    """The moments of one epoch: two steps in one dimension (``halves``), else the ray."""
    return TwoStepMoments(sigma) if t == 2 else EpochMoments(sigma, t)


def epoch_loss(sigma: Fraction, t: int, remove: bool, epochs: int) -> EpochLoss:
    """The ``EpochLoss`` of ``epochs`` epochs of t steps at noise sigma, one order; the
    moments (their rays' nodes) kept for the last few (sigma, t)."""
    return EpochLoss(_moments(Fraction(sigma), t), remove, epochs)
