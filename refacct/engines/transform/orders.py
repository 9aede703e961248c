"""The maximum over the orders of two directions, for the transform engine (``mgf``): under
substitution with sampling without replacement each of the T steps may run either way
(001 Sec. 7, ``mechanisms.relations.mixed_directions``), and the curve is

    delta(eps) = max_{j = 0 .. T} delta_j(eps),   delta_j = H_{e^eps}(A^j B^{T-j} || B^j A^{T-j}),

whose loss adds j steps of ln(A / B) under A and T - j of ln(B / A) under B:
ln M_j = j alpha + (T - j) beta with alpha = ln M_{A||B}, beta = ln M_{B||A} one step.  The
T + 1 terms are never built: on one grid (``inversion``: c, h, N) all share the nodes.

**One grid for every j.**  The trapezoidal sum of term j is S(j) = sum_n Re w_n e^{j d_n},
w_n = g_n (h / 2 pi) e^{T beta_n - z_n eps} / (z_n (z_n + 1)) (g_0 = 1, else 2: phi(-t) is
the conjugate of phi(t)) and d_n = alpha_n - beta_n at z_n = c + inh.  Its error bounds
(``inversion``) are log-linear in j, so the larger of the two ends bounds every j:
sup_{s >= t} |M_j(c + is)| <= D_A^{j / T} D_B^{1 - j / T} <= max(D_A, D_B) with D_A, D_B
the T-step decay bounds of A || B and B || A (a one-step bound to the power T), and
M_j(c2) <= max(M_{A||B}(c2)^T, M_{B||A}(c2)^T); A_- does not depend on j.  As every
delta_j lies in [S(j) - E - A_- - A_+, S(j) + E] with these E, A_-, A_+,

    max_j delta_j  lies in  [max_j S(j) - E - A_- - A_+, max_j S(j) + E].

**The maximum over the integers j.**  S is a smooth function of real j, and on [j1, j2]
any C^2 function lies below the larger end value plus (j2 - j1)^2 / 8 sup |S''| (the chord
plus the interpolation error (j - j1)(j2 - j)/2 sup |S''|), with

    |S''(j)| <= sum_n |w_n| |d_n|^2 e^{j Re d_n} <= sum_n |w_n| |d_n|^2 max(e^{j1 Re d_n},
    e^{j2 Re d_n})

(each term monotone in j).  Branch and bound from [0, T]: an interval whose bound does not
exceed the largest upper end of the values computed cannot raise the maximum's upper end
and is dropped; the others are split at their midpoint, down to neighbours, whose values
are the maximum there.  The number of values grows about as the square root of the
distance over which the terms fall by their curvature, not as T.  Far in a tail that
distance is long (at T = 1000, eps(1e-100): 1500 values and 750 bounds a grid, a minute a
query), so up to ``EVERY`` orders every S(j) is computed, the curvature bound unused: with
j = r B + s (0 <= s < B), S(j) = Re sum_n (w_n e^{r B d_n}) (e^{s d_n}), one product of
Arb matrices (``contour.Powers``, its rates' half made once a grid).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Dict, List, NamedTuple, Optional, Tuple

from ..arb import acb, arb, flint, to_arb
from .contour import Powers

__all__ = ["OrdersLoss", "Nodes", "larger", "attained", "EVERY"]

EVERY = 4096   # up to this many orders, every S(j) (a product of matrices: 0.1-0.3 s)


def larger(x: "arb", y: "arb") -> "arb":
    """A ball that holds max(X, Y) for every X in x and Y in y."""
    return max(x.lower(), y.lower()).union(max(x.upper(), y.upper()))


class Nodes(NamedTuple):
    """T alpha and T beta at one node; ``real``, the larger real part, steers
    (``inversion._refined``: the decay bound's aim at t = 0)."""

    a: "acb"
    b: "acb"

    @property
    def real(self) -> "arb":
        return larger(self.a.real, self.b.real)


class OrdersLoss:
    """max_j delta_j over the orders of ``ab`` = T steps of A || B and ``ba`` = T steps of
    B || A (module docstring), each a loss of ``mgf`` (``log_mgf``, ``log_mgf_row``,
    ``decay``, ``sup``); ``steps`` = T.  ``log_mgf`` is the envelope: its real part holds
    max_j Re ln M_j(z) (only real parts are used off the nodes)."""

    def __init__(self, ab, ba, steps: int) -> None:
        self.ab, self.ba, self.steps = ab, ba, steps
        finite = [x.c_max for x in (ab, ba) if x.c_max is not None]
        self.c_max = min(finite) if finite else None
        self._kept: Optional[Tuple[object, int, Optional[Powers]]] = None

    def powers(self, logs) -> Optional[Powers]:
        """The rates' half of ``_every``'s sums on the grid of ``logs`` (d_n does not
        depend on eps), kept for the last grid; None beyond ``EVERY`` orders."""
        if self._kept is None or self._kept[0] is not logs or \
                self._kept[1] != flint.ctx.prec:
            made = Powers([(node.a - node.b) / self.steps for node in logs], 0,
                          self.steps + 1) if self.steps + 1 <= EVERY else None
            self._kept = (logs, flint.ctx.prec, made)
        return self._kept[2]

    @property
    def max_nodes(self) -> Optional[int]:
        budgets = [getattr(x, "max_nodes", None) for x in (self.ab, self.ba)]
        return None if None in budgets else min(budgets)

    def log_mgf(self, z: "acb") -> "acb":
        return acb(larger(self.ab.log_mgf(z).real, self.ba.log_mgf(z).real))

    def log_mgf_row(self, c: "arb", h: "arb", first: int, stop: int) -> List[Nodes]:
        return [Nodes(a, b) for a, b in zip(self.ab.log_mgf_row(c, h, first, stop),
                                            self.ba.log_mgf_row(c, h, first, stop))]

    def decay(self, c: "arb", t: "arb", drop: Fraction = Fraction(0)) -> "arb":
        return max(self.ab.decay(c, t, drop).upper(), self.ba.decay(c, t, drop).upper())

    def sup(self) -> Optional["arb"]:
        tops = self.ab.sup(), self.ba.sup()
        return None if any(top is None for top in tops) else larger(*tops)

    def trapezoid(self, logs, c: Fraction, h: Fraction, e: Fraction) -> "arb":
        """A ball holding max_j S(j) (module docstring)."""
        c, h, e = to_arb(c), to_arb(h), to_arb(e)
        return _Search(_weights(logs, c, h, e, self.steps), self.steps,
                       self.powers(logs)).run()[0]


def _weights(logs, c: "arb", h: "arb", e: "arb", steps: int):
    """(w_n, d_n, |w_n| |d_n|^2) for every node (module docstring)."""
    out, scale = [], h / (2 * arb.pi())
    for n, node in enumerate(logs):
        z = acb(c, n * h)
        w = (node.b - z * e).exp() / (z * (z + 1)) * (scale if n == 0 else 2 * scale)
        d = (node.a - node.b) / steps
        out.append((w, d, abs(w) * abs(d) ** 2))
    return out


class _Search:
    """The branch and bound of the module docstring over j = 0 .. ``steps``, or given
    ``powers`` (``OrdersLoss.powers``: at most ``EVERY`` orders) every value at once
    (``_every``)."""

    def __init__(self, weights, steps: int, powers: Optional[Powers] = None) -> None:
        self.weights, self.steps = weights, steps
        self.values: Dict[int, Tuple["arb", List["arb"]]] = {}
        if powers is not None:
            self.values = {j: (v, []) for j, v in enumerate(_every(weights, powers))}

    def value(self, j: int) -> Tuple["arb", List["arb"]]:
        """(S(j), e^{j Re d_n} for every node)."""
        if j not in self.values:
            total, moduli = arb(0), []
            for w, d, _ in self.weights:
                power = (j * d).exp()
                total += (w * power).real
                moduli.append(abs(power))
            self.values[j] = total, moduli
        return self.values[j]

    def bound(self, j1: int, j2: int) -> "arb":
        """The upper bound of S on [j1, j2] (module docstring)."""
        (s1, m1), (s2, m2) = self.value(j1), self.value(j2)
        curve = arb(0)
        for (_, _, k), x, y in zip(self.weights, m1, m2):
            curve += k * max(x.upper(), y.upper())
        return max(s1.upper(), s2.upper()) + arb((j2 - j1) ** 2) / 8 * curve

    def run(self, slack: "arb" = arb(0)) -> Tuple["arb", List[Tuple[int, int]]]:
        """(a ball holding max_j S(j), the runs of j whose value or interval bound reaches
        its lower end less ``slack``)."""
        self.value(0), self.value(self.steps)
        open_, kept = [] if len(self.values) == self.steps + 1 else [(0, self.steps)], []
        while open_:
            j1, j2 = open_.pop()
            if j2 - j1 > 1:
                top = max(s.upper() for s, _ in self.values.values())
                if self.bound(j1, j2) > top:
                    mid = (j1 + j2) // 2
                    open_ += [(j1, mid), (mid, j2)]
                    continue
            kept.append((j1, j2))
        low = max(s.lower() for s, _ in self.values.values())
        high = max(s.upper() for s, _ in self.values.values())
        floor = low - slack
        reach = [(j, j) for j, (s, _) in self.values.items() if s.upper() >= floor]
        reach += [(j1, j2) for j1, j2 in kept if j2 - j1 > 1 and self.bound(j1, j2) >= floor]
        return low.union(high), _runs(reach)


def _every(weights, powers: Powers) -> List["arb"]:
    """S(j) for j = 0 .. T (module docstring), ``powers`` made from the d_n for that range."""
    return [v.real for v in powers.sums([w for w, _, _ in weights])]


def _runs(spans: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """The union of integer ranges [a, b] as disjoint runs, in order."""
    out: List[Tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def attained(loss: OrdersLoss, nodes, eps: Fraction, found) -> List[Tuple[int, int]]:
    """The runs of j whose delta_j(eps) may attain the maximum, from the grid ``nodes`` and
    the enclosure ``found`` on it at ``eps`` (``inversion``: ``Grid``, ``Enclosure``):
    S(j) + E reaches max_j S(j) - E - A_- - A_+."""
    plan = nodes.plan
    with flint.ctx.workprec(plan.prec):
        c, h, e = (to_arb(v) for v in (plan.c, plan.h, eps))
        slack = 2 * found.truncation + found.below + found.above
        return _Search(_weights(nodes.logs, c, h, e, loss.steps), loss.steps,
                       loss.powers(nodes.logs)).run(slack)[1]
