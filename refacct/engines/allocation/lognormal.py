"""The Laplace transform of a lognormal of mean 1, phi(w) = E[e^{-wZ}] with
Z = e^{bG - b^2/2} and G ~ N(0, 1), as a proven complex ball for Re w > 0; and a bound on
|phi| along a vertical line, for truncating an inversion.

**A contour without oscillation.**  phi(w) = int_R exp(-w e^{bx - b^2/2}) phi_N(x) dx, and
the integrand is entire in x.  Moving the line of integration to Im x = theta / b gives

    phi(w) = e^{eta^2 / 2} int_R exp(-w e^{i theta} e^{bx - b^2/2}) phi_N(x) e^{-i eta x} dx,
    eta = theta / b,

by Cauchy's theorem whenever |arg w + theta| < pi/2: between the two lines the argument of
w e^{b x} runs between arg w and arg w + theta, so the integrand decays double-
exponentially as Re x -> +inf, and as a Gaussian as Re x -> -inf (|phi_N(x + iv)| =
phi_N(x) e^{v^2/2}).  With theta = -arg w the exponent is real, -|w| e^{bx - b^2/2}, and
what oscillates is e^{-i eta x}, at most pi / (2b) radians per unit of x: the integral
over [-A, B] is FLINT's rigorous Gauss-Legendre (``acb.integral``); outside it the first
factor is <= 1 in modulus, so the left tail weighs at most sqrt(2 pi) erfc(A / sqrt 2) / 2
and the right one exp(-|w| e^{bB - b^2/2}) times the same with B (before the factors
e^{eta^2/2} / sqrt(2 pi)), added as a radius.  The factor e^{eta^2/2} is cancellation the
integral must absorb (eta^2 / (2 ln 2) extra bits, up to 30 nats at b = 1/5).

**Decay** (``modulus_bound``).  The same move bounds the modulus: for any theta with
|arg w + theta| < pi/2,

    |phi(w)| <= e^{theta^2 / (2 b^2)} phi(Re(w e^{i theta})),

phi of a real argument, decreasing in it.  For w = (c + iy) / t with c > 0, y >= Y > 0 and
theta in (-pi/2, 0], Re(w e^{i theta}) = (c cos theta + y |sin theta|) / t grows with y, so
one real evaluation bounds |phi| on the whole ray y >= Y.
"""
from __future__ import annotations

import math
from typing import List

from flint import acb_mat

from ..arb import acb, arb, flint

__all__ = ["laplace", "laplace_ray", "modulus_bound"]

STRIP_CAP = 8   # the trapezoidal rule's strip half-width a <= pi / (2b) is capped here
# balls of one product of ``laplace_ray`` (a few hundred bytes each at its 300-500 bits): a
# ray of 10^4 nodes times 10^3 rule nodes had held more than 6 GB at once
BLOCK_ENTRIES = 2 ** 20


def laplace(w: "acb", b: "arb", bits: int) -> "acb":
    """E[e^{-wZ}], Z = e^{bG - b^2/2}, G ~ N(0, 1), for Re w > 0 (the lognormal of mean 1
    and log-scale b), a ball proven at about ``bits`` bits relative to its modulus
    bound e^{eta^2/2} phi(|w|) (module docstring)."""
    w = acb(w)
    if not w.real > 0:
        raise ValueError(f"the lognormal's Laplace transform needs Re w > 0, got {w}")
    eta = -w.arg() / b
    lift = float((eta * eta / 2).mid())
    extra = int(lift / math.log(2)) + 16
    with flint.ctx.workprec(bits + extra):
        half = b * b / 2
        log_r = abs(w).log() - half
        i_eta = acb(0, eta)

        def integrand(x, analytic):
            return (-(log_r + b * x).exp() - x * x / 2 - i_eta * x).exp()

        left, right = _ends(abs(w), b, bits + extra, lift)
        body = acb.integral(integrand, -left, right, rel_tol=arb(2) ** -(bits + extra))
        # outside [-left, right]: |integrand| <= e^{-x^2/2}, and right of ``right`` also
        # <= exp(-|w| e^{b right - b^2/2}); each Gaussian tail is sqrt(2 pi) erfc(. / sqrt 2) / 2
        gauss = (arb.pi() / 2).sqrt()
        tails = gauss * ((left / arb(2).sqrt()).erfc()
                         + (-(log_r + b * right).exp()).exp() * (right / arb(2).sqrt()).erfc())
        total = body + acb(arb(0, tails.upper()), arb(0, tails.upper()))
        return total * (eta * eta / 2).exp() / (2 * arb.pi()).sqrt()


def laplace_ray(start: "arb", step: "arb", count: int, theta: "arb", b: "arb",
                bits: int) -> List["acb"]:
    """phi(w_k), w_k = e^{start + k step + i theta} for k = 0 .. count - 1 (|theta| <
    pi / 2: nodes of a ray), proven to about 2^-bits absolute, by one trapezoidal rule in
    x shared by every node.

    With eta = -theta / b and r_k = |w_k| e^{-b^2/2}, phi(w_k) = C I_k, C = e^{eta^2/2} /
    sqrt(2 pi), I_k = int F_k, F_k(x) = exp(-r_k e^{bx}) g(x), g(x) = e^{-x^2/2 - i eta x}
    (module docstring).  F_k is entire, and for |y| <= a <= pi / (2b) (cos(by) >= 0)
    |F_k(x + iy)| <= e^{-x^2/2 + a^2/2 + |eta| a}, so on every line of that strip
    int |F_k| <= M = sqrt(2 pi) e^{a^2/2 + |eta| a}, and the rule of step h errs by at
    most 2 M / (e^{2 pi a / h} - 1) (Trefethen and Weideman, SIAM Review 2014, Thm 5.1).
    With h = (q / p) step / b for integers p, q (one of them 1), r_k e^{b x_j} =
    e^{start - b^2/2 + (kp + jq) step / p}: the double exponential E_n = exp(-e^{start -
    b^2/2 + n step / p}) is made once per index n = kp + jq, and each node is a sum of
    products g(x_j) E_n.  The sum
    runs over j >= -J (left of x = -Jh the terms weigh at most int_{-inf}^{-Jh}
    e^{-x^2/2} = sqrt(pi / 2) erfc(Jh / sqrt 2), g's modulus increasing there) and up to
    where E_n falls below e^{-R} or x_j passes Jh (right of it at most E_n (sqrt(2 pi) +
    h), E decreasing and h sum_j e^{-x_j^2/2} <= sqrt(2 pi) + h; or the Gaussian tail
    alone).  Each bound goes into the node's radius; a, h, J and R only steer."""
    eta = -theta / b
    lift = eta * eta / (2 * arb(2).log())     # bits the factor e^{eta^2/2} cancels
    work = bits + int(lift.upper().ceil().unique_fmpz()) + 16
    with flint.ctx.workprec(work):
        need = arb(work) * arb(2).log()
        a = min(arb.pi() / (2 * b), arb(STRIP_CAP))
        size = eta * eta / 2 + a * a / 2 + abs(eta) * a
        h_max = 2 * arb.pi() * a / (need + size + 2)
        p = max(1, int((step / (b * h_max)).upper().ceil().unique_fmpz()))
        q = 1 if p > 1 else max(1, int((b * h_max / step).lower().floor().unique_fmpz()))
        h = step * q / (b * p)
        rule = 2 * (2 * arb.pi()).sqrt() * (a * a / 2 + abs(eta) * a).exp() \
            / ((2 * arb.pi() * a / h).exp() - 1)                          # 2 M / (...)
        edge = (2 * need).sqrt() + 1
        reach = int((edge / h).upper().ceil().unique_fmpz())             # J
        left = -reach
        shift = start - b * b / 2
        cut = int((((need + 8).log() - shift) * p / step).upper().ceil().unique_fmpz())
        top = min(cut, (count - 1) * p + reach * q)
        low = min(left * q, top)
        doubles = [acb((-(shift + n * step / p).exp()).exp()) for n in range(low, top + 1)]
        width = reach - left + 1
        padded = doubles + [acb(0)] * ((count - 1) * p + reach * q - top)   # past the cut
        weights = acb_mat(width, 1, [acb(-(j * h) ** 2 / 2, -eta * j * h).exp()
                                     for j in range(left, reach + 1)])
        sums = []
        block = max(1, BLOCK_ENTRIES // width)   # nodes a product: the memory it holds
        for first in range(0, count, block):
            rows = [x for k in range(first, min(first + block, count)) for x in
                    padded[k * p + left * q - low: k * p + reach * q - low + 1: q]]
            product = acb_mat(len(rows) // width, width, rows) * weights
            sums += [product[i, 0] for i in range(len(rows) // width)]
        gauss = (arb.pi() / 2).sqrt()
        far_left = gauss * (reach * h / arb(2).sqrt()).erfc()
        scale = (eta * eta / 2 - (2 * arb.pi()).log() / 2).exp()
        out = []
        for k in range(count):
            last = min(reach, (top - k * p) // q)
            if last == reach:
                right = far_left
            else:   # E_n decreasing: every term right of ``last`` has E below this one
                right = doubles[max(k * p + last * q, low) - low].real \
                    * ((2 * arb.pi()).sqrt() + h)
            err = (rule + far_left + right).upper()
            out.append((h * sums[k] + acb(arb(0, err), arb(0, err))) * scale)
        return out


def _ends(r: "arb", b: "arb", bits: int, lift: float):
    """[-left, right] holding all but about 2^-bits e^-lift of the integral: the Gaussian
    tail on the left, and on the right where r e^{bx - b^2/2} passes bits ln 2 (the double
    exponential).  The choice only steers: the tails are bounded whatever it is."""
    need = bits * math.log(2) + lift + 8
    left = math.sqrt(2 * need) + 1
    scale = float(r.mid())
    beta = float(b.mid())
    right = (math.log(need / scale) + beta * beta / 2) / beta + 1 if scale > 0 else left
    return arb(left), arb(min(left, max(right, 1.0)))


def modulus_bound(c: "arb", Y: "arb", t: int, b: "arb", bits: int) -> "arb":
    """An upper bound on |phi((c + iy) / t)| for every y >= Y (c > 0, Y > 0): the best of the
    rotations theta = -j pi / 32, j = 0 .. 15, that a ternary search on j visits (module
    docstring, "Decay"; any theta gives a valid bound, so the search only steers).  At 48
    bits: the upper end of a coarse ball is as valid a bound as a fine one's."""
    def bound(j: int) -> "arb":
        theta = -arb.pi() * j / 32
        point = (c * theta.cos() - Y * theta.sin()) / t
        value = (theta * theta / (2 * b * b)).exp() * laplace(acb(point), b, min(bits, 48)).real
        return arb(value.upper())

    seen = {}

    def at(j: int) -> "arb":
        if j not in seen:
            seen[j] = bound(j)
        return seen[j]

    low, high = 0, 15
    while high - low > 2:
        a, z = low + (high - low) // 3, high - (high - low) // 3
        if at(a) < at(z):
            high = z
        else:
            low = a
    return min((at(j) for j in range(low, high + 1)), key=lambda v: v.mid())
