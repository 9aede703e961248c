"""Moment generating functions of the Laplace mechanism's privacy loss, for the transform
engine (``inversion``; the interface is ``mgf``'s): the shift pair in closed form
(``LaplaceShift``), two Laplace mixtures on a lattice by integrals over its cells
(``SubsampledLaplace``).

Lap(a, b) || Lap(a', b) with e0 = abs(a - a') / b: under P the loss has the atoms e0 (mass
1/2) and -e0 (mass e^{-e0} / 2) and the density e^{(x - e0) / 2} / 4 on (-e0, e0)
(``engines.quadrature.laplace_shift``), so with w = z + 1/2

    M(z) = E_P[e^{z L}] = e^{-e0 / 2} (cosh(w e0) + sinh(w e0) / (2 w))

(M(0) = M(-1) = 1).  **Decay.**  With u = Re w = c + 1/2: abs(cosh(w e0)) <= cosh(u e0) and
abs(sinh(w e0)) <= cosh(u e0) (abs(sinh(x + iy))^2 = sinh(x)^2 + sin(y)^2), abs(w) >=
sqrt(u^2 + s^2), so

    abs(M(c + is)) <= e^{-e0 / 2} cosh(u e0) (1 + 1 / (2 sqrt(u^2 + s^2))),

which decreases in s: its value at t bounds the supremum beyond t.  It falls only to the
atoms' share cosh(u e0) / (cosh(u e0) + sinh(u e0) / (2u)) of M(c), not to 0: the loss of T
steps keeps atoms, and the truncation bound falls as that share to the power T.  So the
transform takes the Laplace mechanism once many steps leave the atoms (``uses``); with few
it is nearly a lattice, which the closed form of the T-fold law and the brackets take.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Dict, List, Optional, Sequence, Tuple

from ... import progress
from ..arb import acb, arb, flint, power_log, to_arb
from .contour import power_sums
from .endpoints import Expansion
from .lattice import lattice_weights, rate
from .legendre import LegendreCell
from .scan import scan

__all__ = ["LaplaceShift", "SubsampledLaplace"]

SUBCELLS = 32   # pieces of a lattice cell on which the variation's derivative is bounded


class LaplaceShift:
    """The loss of ``steps`` compositions of a Laplace shift pair with ratio ``e0`` > 0
    (module docstring)."""

    c_max = None   # the loss is bounded: M(c) is finite for every c

    def __init__(self, e0: Fraction, steps: int) -> None:
        if e0 <= 0:
            raise ValueError(f"e0 must be > 0, got {e0}")
        self.e0, self.steps = Fraction(e0), steps

    def one_step(self, z: "acb") -> "acb":
        """M(z) of one step (module docstring)."""
        e0 = to_arb(self.e0)
        w = z + acb(arb(1) / 2)
        # sinh(w e0) / (2 w) = (e0 / 2) sinc(i w e0): finite at w = 0 (c = -1/2)
        return (-e0 / 2).exp() * ((w * e0).cosh() + e0 / 2 * (acb(0, 1) * w * e0).sinc())

    def log_mgf(self, z: "acb") -> "acb":
        return self.steps * power_log(self.one_step(z))

    def decay(self, c: "arb", t: "arb", drop: Fraction = Fraction(0)) -> "arb":
        """The module docstring's bound at s = t, to the power T (``drop`` is not needed:
        the bound is in closed form)."""
        e0, u = to_arb(self.e0), c + arb(1) / 2
        one = (-e0 / 2).exp() * (u * e0).cosh() * (1 + 1 / (2 * (u * u + t * t).sqrt()))
        return one ** self.steps

    def sup(self) -> Optional["arb"]:
        """The loss of a step is at most e0: T e0."""
        return self.steps * to_arb(self.e0)

    def top_mass(self) -> "arb":
        """ln P(L_T = T e0) = T ln(1/2): the atom e0 has P-mass 1/2 (module docstring)."""
        return -self.steps * arb(2).log()

    def uses(self) -> Fraction:
        """Not a subsampled use of the record (``Product.uses``): none."""
        return Fraction(0)

    def off_atoms(self) -> Fraction:
        """A lower bound on the expected number of steps whose loss lies between the atoms,
        T (1 - e^{-e0}) / 2 >= T e0 / (2 (1 + e0)) (1 - e^{-x} >= x / (1 + x)): the atoms'
        share of M(c) tends to (1 + e^{-e0}) / 2 as c -> 0, and its T-th power, about
        e^{-T (1 - e^{-e0}) / 2}, is the floor of the truncation bound relative to M_T(c)."""
        return self.steps * self.e0 / (2 * (1 + self.e0))


class SubsampledLaplace:
    """The loss of ``steps`` steps of two Laplace mixtures on one lattice: P = sum_j a_j
    Lap(j, b) against Q = sum_j b_j Lap(j, b), j = 0 .. g, a_j / b_j monotone in j
    (likelihood-ratio order): Poisson sampling under remove (a = (1 - q, q), b = (1, 0)),
    add (reversed) and substitution (001 Sec. 7).

    Below 0 and above g each component's density is e^{+-(y - j) / b} / (2 b) with one sign,
    so p / q is constant there: the loss has the atoms r_0 = sum_j a_j e^{-j/b} / sum_j b_j
    e^{-j/b} (Q-mass sum_j b_j e^{-j/b} / 2) and r_g = sum_j a_j e^{j/b} / sum_j b_j e^{j/b}
    (Q-mass sum_j b_j e^{-(g - j)/b} / 2).  On a cell (k, k + 1), with x = e^{2y/b}, the
    density of Q is x^{-1/2} N_B / (2b), N_B = al_B + be_B x, al_B = sum_{j <= k} b_j e^{j/b},
    be_B = sum_{j > k} b_j e^{-j/b} (P alike), so p / q = R = N_A / N_B is a Moebius map of
    x, monotone, and

        M(z) = sum_atoms w r^{1 + z} + sum_cells int_k^{k+1} q R^{1 + z} dy,

    each cell by Arb's rigorous integration (``acb.integral``) at real z, and along Re z = c
    by Gauss-Legendre rules whose error bound holds for every t up to the largest asked
    (``cells``, ``legendre``): their node values are made once per c, so a row of t costs
    one product of Arb matrices (Poisson q 1/100, b 1, 100 steps: delta(1/10) in 2.6 s, 72
    s by one adaptive integral per t and cell).

    **Decay.**  On a cell u = ln R is strictly monotone: D = be_A al_B - al_A be_B = sum over
    i > k >= j of (a_i b_j - a_j b_i) e^{(j - i)/b}, whose terms have one sign by the order;
    all vanish only if every weight pair (a_i, b_i) above the cut is parallel to every one
    below it, and with both end points used (``mgf.loss_of``; trailing zeros dropped) that
    makes a = b (a pair given with an unused end point would get an infinite bound: wide,
    never wrong).  And int q R^{1 + c} e^{isu} dy = int G e^{isu} du with G = q R^{1 + c} /
    |du/dy| = x^{-3/2} N_A^{2 + c} N_B^{1 - c} / (4 |D|); one integration by parts bounds it
    by (G(x_k) + G(x_{k+1}) + TV(G)) / s, and TV(G) <= sum over ``SUBCELLS`` pieces of
    their width times a ball of |dG/dx| = G |(2 + c) be_A / N_A + (1 - c) be_B / N_B -
    3 / (2x)| on the piece (pieces of equal ratio in x: x spans e^{2/b}, and pieces of
    equal width overstated V twofold at b 1/2).  So |M(c + is)| <= W + V / s, W = sum_atoms
    w r^{1 + c}: the far bound of the scan (``scan``), whose level is kept above W + (M(c) -
    W) / 16 (the atoms do not decay: the bound's floor is about that to the power T, as
    for the shift pair; with one cell that part is subtracted, ``expansion``).  V is large where u is flat: at b 1/2, q 1/100, G at the cell's
    low end is about 180 M(c), and the scan's cells, narrow where |M| nears W as the atoms'
    terms come into phase, stop before V / s reaches the level; the far bound at the
    node range's end then bounds alone (100 steps: 21-23 digits, 2 when it did not).
    **Lipschitz:** |dM/ds| <= sum_atoms w r^{1 + c} |ln r| + sum_cells M_cell(c) max |u|
    (u monotone on the cell: its largest modulus is at an end).
    """

    c_max = None   # the loss is bounded: M(c) is finite for every c

    def __init__(self, scale: Fraction, weights: Sequence[Fraction], steps: int,
                 against: Sequence[Fraction] = (1,)) -> None:
        a, b, _ = lattice_weights(weights, against)
        self.scale, self.steps = Fraction(scale), steps
        self.weights, self.against, self.top = a, b, len(a) - 1
        self._rules: Dict[tuple, List[LegendreCell]] = {}

    def _parts(self, weights, k: int) -> Tuple["arb", "arb"]:
        """(al, be) of a side on the cell (k, k + 1) (class docstring)."""
        inv = 1 / to_arb(self.scale)
        al = sum((to_arb(w) * (j * inv).exp() for j, w in enumerate(weights[:k + 1]) if w),
                 arb(0))
        be = sum((to_arb(w) * (-j * inv).exp() for j, w in enumerate(weights)
                  if w and j > k), arb(0))
        return al, be

    def _atoms(self) -> List[Tuple["arb", "arb"]]:
        """[(Q-mass, ln r)] of the two outer atoms."""
        inv = 1 / to_arb(self.scale)

        def total(weights, sign):
            return sum((to_arb(w) * (sign * j * inv).exp() for j, w in enumerate(weights)
                        if w), arb(0))
        low_b, high_b = total(self.against, -1), total(self.against, 1)
        return [(low_b / 2, (total(self.weights, -1) / low_b).log()),
                (high_b * (-self.top * inv).exp() / 2, (total(self.weights, 1) / high_b).log())]

    def _edge(self, j: int) -> "arb":
        """e^{j / b}: x^{1/2} at the lattice point j."""
        return (j / to_arb(self.scale)).exp()

    def _cell(self, k: int):
        """(al_A, be_A, al_B, be_B, D) on the cell (k, k + 1)."""
        (al_a, be_a), (al_b, be_b) = (self._parts(w, k) for w in (self.weights, self.against))
        return al_a, be_a, al_b, be_b, be_a * al_b - al_a * be_b

    def one_step(self, z: "acb") -> "acb":
        """M(z) of one step (class docstring): the cells by Arb's integral at real z, else
        by the Gauss-Legendre rules of ``cells``."""
        total = acb(0)
        for mass, log_r in self._atoms():
            total += mass * ((1 + z) * log_r).exp()
        if z.imag == 0:
            for k in range(self.top):
                total += self._piece(k, z)
            return total
        for cell in self.cells(z.real):
            total += cell.at(z.imag)
        return total

    def one_step_row(self, c: "arb", h: "arb", first: int, stop: int) -> List["acb"]:
        """M(c + i n h) of one step, n = first .. stop - 1: the atoms' terms and the sums
        of the cells' rules (``cells``)."""
        atoms = self._atoms()
        total = power_sums([mass * ((1 + c) * log_r).exp() for mass, log_r in atoms],
                           [acb(0, h) * log_r for _, log_r in atoms], first, stop)
        rules = self.cells(c)
        for i, cell in enumerate(rules):
            progress.note(f"transform: nodes {first} to {stop - 1}, cell rule {i + 1} of "
                          f"{len(rules)}")
            total = [x + y for x, y in zip(total, cell.row(h, first, stop))]
        return total

    def log_mgf_row(self, c: "arb", h: "arb", first: int, stop: int) -> List["acb"]:
        """ln M_T(c + i n h), n = first .. stop - 1."""
        return [self.steps * power_log(m) for m in self.one_step_row(c, h, first, stop)]

    def cells(self, c: "arb") -> List[LegendreCell]:
        """The Gauss-Legendre rules (``legendre``) for the cells' integrals on Re z = c,
        at the current precision; kept for the last few c.

        In y the integrand of cell k is g e^{itu}, ln g = -y / b + ln N_B - ln(2b) + (1 + c)
        u, u = ln N_A - ln N_B, N = al + be x, x = e^{2y / b}.  On |Im y| < pi b / 4, Re x
        > 0, so Re N > 0 (al, be >= 0, not both 0): the principal logs continue the real
        ones and the integrand is analytic; the strip given is 15/16 of that.  Each cell is
        cut into pieces of half-width at most 3/4 of it, so that the ellipse of rho = 3
        (semi-minor axis 4/3 of the half-width) fits."""
        key = (c.mid().man_exp(), c.rad().man_exp(), flint.ctx.prec)
        if key not in self._rules:
            if len(self._rules) >= 4:
                self._rules.pop(next(iter(self._rules)))
            strip = arb.pi() * to_arb(self.scale) / 4 * 15 / 16
            pieces = int((1 / (2 * strip * 3 / 4)).upper().ceil().unique_fmpz())
            rules = []
            for k in range(self.top):
                parts = self._parts_of(k, c)
                for i in range(pieces):
                    rules.append(LegendreCell(parts, k + arb(i) / pieces,
                                              k + arb(i + 1) / pieces, strip))
            self._rules[key] = rules
        return self._rules[key]

    def _parts_of(self, k: int, c: "arb"):
        """y -> (ln g(y), u(y)) on cell k (``cells``)."""
        al_a, be_a, al_b, be_b, _ = self._cell(k)
        inv = 1 / to_arb(self.scale)
        log_norm = (2 * to_arb(self.scale)).log()

        def parts(y):
            x = (2 * y * inv).exp()
            log_b = (al_b + be_b * x).log()
            u = (al_a + be_a * x).log() - log_b
            return -y * inv + log_b - log_norm + (1 + c) * u, u
        return parts

    def _far(self, c: "arb") -> Tuple["arb", "arb"]:
        """(W, V) of the class docstring: |M(c + is)| <= W + V / s."""
        atoms = sum((mass * ((1 + c) * log_r).exp() for mass, log_r in self._atoms()),
                    arb(0))
        variation = arb(0)
        for k in range(self.top):
            al_a, be_a, al_b, be_b, det = self._cell(k)

            def big_g(x):
                n_a, n_b = al_a + be_a * x, al_b + be_b * x
                return (x ** (-arb(3) / 2) * ((2 + c) * n_a.log()).exp()
                        * ((1 - c) * n_b.log()).exp() / (4 * abs(det)))

            def slope(x):
                n_a, n_b = al_a + be_a * x, al_b + be_b * x
                return big_g(x) * abs((2 + c) * be_a / n_a + (1 - c) * be_b / n_b
                                      - 3 / (2 * x))
            x1, x2 = self._edge(2 * k), self._edge(2 * k + 2)
            variation += big_g(x1) + big_g(x2)
            ratio = (x2 / x1).log() / SUBCELLS
            for i in range(SUBCELLS):
                lo, hi = x1 * (i * ratio).exp(), x1 * ((i + 1) * ratio).exp()
                variation += (hi - lo) * slope(lo.union(hi))
        return atoms.upper(), variation.upper()

    def lipschitz(self, c: "arb") -> "arb":
        """K >= |dM(c + is)/ds| (class docstring)."""
        total = sum((mass * ((1 + c) * log_r).exp() * abs(log_r)
                     for mass, log_r in self._atoms()), arb(0))
        for k in range(self.top):
            al_a, be_a, al_b, be_b, _ = self._cell(k)
            x1, x2 = self._edge(2 * k), self._edge(2 * k + 2)
            most = max(abs(((al_a + be_a * x) / (al_b + be_b * x)).log()) for x in (x1, x2))
            total += self._piece(k, acb(c)).real * most
        return total.upper()

    def _piece(self, k: int, z: "acb") -> "acb":
        """int over the cell (k, k + 1) of q R^{1 + z} dy, q = e^{-y/b} N_B / (2b)."""
        al_a, be_a, al_b, be_b, _ = self._cell(k)
        inv = 1 / to_arb(self.scale)

        def f(y, analytic):
            x = (2 * y * inv).exp()
            n_a, n_b = al_a + be_a * x, al_b + be_b * x
            log_ratio = n_a.log(analytic=analytic) - n_b.log(analytic=analytic)
            return (-y * inv).exp() * n_b * inv / 2 * ((1 + z) * log_ratio).exp()
        return acb.integral(f, k, k + 1)

    def log_mgf(self, z: "acb") -> "acb":
        return self.steps * power_log(self.one_step(z))

    def expansion(self) -> Optional[Expansion]:
        """The part of M_T that does not decay, to subtract (``endpoints``), for one cell:
        Poisson sampling of one mechanism (None for more cells)."""
        return Expansion(self) if self.top == 1 else None

    def decay(self, c: "arb", t: "arb", drop: Fraction = Fraction(0)) -> "arb":
        """The scan (``scan``) with the far bound W + V / s, aiming at e^{drop / T} M(c)
        a step, and never below W + (M(c) - W) / 16."""
        top = self.one_step(acb(c)).real.upper()
        atoms, variation = self._far(c)
        level = (top * to_arb(drop / self.steps).exp()).upper() if drop < 0 else arb(0)
        level = max(level, atoms + (top - atoms) / 16)
        return scan(self.one_step, c, t, top, level, self.lipschitz(c),
                    lambda s: atoms + variation / s) ** self.steps

    def rate(self) -> Fraction:
        """The chance that a step uses the record (``lattice.rate``)."""
        return rate(self.weights, self.against)

    def uses(self) -> Fraction:
        """The expected number of the T steps that use the record: T times ``rate``."""
        return self.steps * self.rate()

    def off_atoms(self) -> Fraction:
        """A lower bound on the expected number of steps whose loss lies off the two outer
        atoms: T P([0, g]), P_j([0, g]) = 1 - e^{-j/b} / 2 - e^{-(g - j)/b} / 2 >= (x_1 /
        (1 + x_1) + x_2 / (1 + x_2)) / 2 with x_1 = j / b, x_2 = (g - j) / b."""
        total = Fraction(0)
        for j, w in enumerate(self.weights):
            x1, x2 = Fraction(j) / self.scale, Fraction(self.top - j) / self.scale
            total += w * (x1 / (1 + x1) + x2 / (1 + x2)) / 2
        return self.steps * total

    def top_mass(self) -> "arb":
        """ln P(L_T = sup) = T ln(w r), w r the P-mass of the upper atom: p / q is monotone
        in y (the weights are in likelihood-ratio order), so its largest value is an
        atom's."""
        mass, log_r = max(self._atoms(), key=lambda atom: atom[1].mid())
        return self.steps * (mass.log() + log_r)

    def sup(self) -> Optional["arb"]:
        """T times the largest ln R: R is monotone on each cell and constant outside, so the
        largest is at a lattice point."""
        best = None
        for j in range(self.top + 1):
            k = min(j, self.top - 1)
            (al_a, be_a), (al_b, be_b) = (self._parts(w, k) for w in
                                          (self.weights, self.against))
            x = self._edge(2 * j)
            value = ((al_a + be_a * x) / (al_b + be_b * x)).log()
            best = value if best is None else max(best, value)
        return self.steps * best

