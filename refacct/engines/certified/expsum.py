"""Exact sums of exponentials sum_i c_i e^{a_i} (c_i, a_i rational) with certified signs,
and the two kinds of "beta" the certified one-step engine is called with.

Lindemann-Weierstrass (in Baker's form: e^{a_1}, ..., e^{a_n} are linearly independent
over the algebraic numbers for distinct algebraic a_i) makes such a sum, with equal
exponents merged, zero exactly when every merged coefficient is zero.  So zero is decided
exactly, and a nonzero sum's sign by Arb balls at increasing precision, which must
terminate.  Every coefficient the certified engines branch on has this form
(docs/numerics.md, "Counting the crossings"): Gaussian c_i = (w_i^P - alpha w_i^Q)
e^{-mu_i^2 / 2 sigma^2}, Laplace piece coefficients sum_i c_i e^{-+u_i / b} and values at
the locations, with alpha rational or e^eps (eps rational), or alpha times e^{-c} for a
critical loss c of an inner factor (a ratio of two such sums).

``ExactBeta``  a positive real num / den given by two ``ExpSum``: signs exact.
``BallBeta``   a positive real known as an Arb ball (beta(y) = alpha q1(y) / p1(y) at a
               point): signs decided by the ball, ``ArithmeticError`` when it cannot be.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Dict, Optional, Tuple

from ..arb import arb, flint, to_arb

__all__ = ["ExpSum", "ExactBeta", "BallBeta", "SIGN_PREC_LIMIT"]

SIGN_PREC_LIMIT = 1 << 16  # bits: beyond this a sign is reported as undecidable


def _sign_of_ball(x: "arb") -> int:
    """+1 / -1 when the ball excludes 0, 0 when it is exactly 0, None when undecided."""
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0 if x.is_exact() and x == 0 else None


@dataclass(frozen=True)
class ExpSum:
    """sum_i c_i e^{a_i} with rational c_i != 0 and distinct rational a_i, stored as sorted
    ``(a_i, c_i)`` pairs; ``ExpSum.of(c, a)`` is the single term c e^a."""

    terms: Tuple[Tuple[Fraction, Fraction], ...] = ()
    _balls: Dict[int, "arb"] = field(default_factory=dict, init=False, repr=False,
                                     compare=False, hash=False)

    @staticmethod
    def of(coefficient: object = 1, exponent: object = 0) -> "ExpSum":
        return ExpSum._merged({Fraction(exponent): Fraction(coefficient)})

    @staticmethod
    def _merged(table: Dict[Fraction, Fraction]) -> "ExpSum":
        return ExpSum(tuple(sorted((a, c) for a, c in table.items() if c)))

    def __add__(self, other: "ExpSum") -> "ExpSum":
        table = dict(self.terms)
        for a, c in other.terms:
            table[a] = table.get(a, Fraction(0)) + c
        return ExpSum._merged(table)

    def __neg__(self) -> "ExpSum":
        return ExpSum(tuple((a, -c) for a, c in self.terms))

    def __sub__(self, other: "ExpSum") -> "ExpSum":
        return self + (-other)

    def __mul__(self, other: object) -> "ExpSum":
        if not isinstance(other, ExpSum):
            other = ExpSum.of(other)
        table: Dict[Fraction, Fraction] = {}
        for a, c in self.terms:
            for b, d in other.terms:
                table[a + b] = table.get(a + b, Fraction(0)) + c * d
        return ExpSum._merged(table)

    __rmul__ = __mul__

    def is_zero(self) -> bool:
        """Exact (Lindemann-Weierstrass): no term survives the merge."""
        return not self.terms

    def ball(self) -> "arb":
        """The value as a ball at the current Arb precision (cached per precision)."""
        prec = flint.ctx.prec
        if prec not in self._balls:
            total = arb(0)
            for a, c in self.terms:
                total += to_arb(c) * to_arb(a).exp()
            self._balls[prec] = total
        return self._balls[prec]

    def sign(self) -> int:
        """-1, 0 or +1, exactly: 0 only for the empty sum, otherwise the first precision
        (from the caller's, doubling) at which the ball excludes 0."""
        if self.is_zero():
            return 0
        prec = max(flint.ctx.prec, 64)
        while prec <= SIGN_PREC_LIMIT:
            with flint.ctx.workprec(prec):
                s = _sign_of_ball(self.ball())
            if s:
                return s
            prec *= 2
        raise ArithmeticError(f"sign of {self} undecided at {SIGN_PREC_LIMIT} bits")

    def __str__(self) -> str:
        return " + ".join(f"{c}*e^({a})" for a, c in self.terms) or "0"


@dataclass(frozen=True)
class ExactBeta:
    """beta = num / den > 0 exactly (two ``ExpSum``): alpha, e^eps, alpha e^{-c}."""

    num: ExpSum
    den: ExpSum

    @staticmethod
    def rational(value: Fraction) -> "ExactBeta":
        return ExactBeta(ExpSum.of(value), ExpSum.of(1))

    @staticmethod
    def exp(eps: Fraction) -> "ExactBeta":
        return ExactBeta(ExpSum.of(1, eps), ExpSum.of(1))

    def times(self, other: "ExactBeta") -> "ExactBeta":
        return ExactBeta(self.num * other.num, self.den * other.den)

    def inverse(self) -> "ExactBeta":
        return ExactBeta(self.den, self.num)

    def minus(self, a: ExpSum, b: ExpSum) -> ExpSum:
        """a - beta b up to the positive factor 1/den (same sign and zeros): a den - b num."""
        return a * self.den - b * self.num

    def compare(self, other: "ExactBeta") -> int:
        """sign(self - other), exactly."""
        return (self.num * other.den - other.num * self.den).sign()

    def ball(self) -> "arb":
        return self.num.ball() / self.den.ball()

    def exponent(self) -> Optional[Fraction]:
        """ln beta exactly where beta = e^a is one term over 1 (beta = e^eps), else None."""
        if len(self.num.terms) != 1 or self.den.terms != ((Fraction(0), Fraction(1)),):
            return None
        a, c = self.num.terms[0]
        return a if c == 1 else None

    def is_zero(self) -> bool:
        return self.num.is_zero()


class _BallNumber:
    """A real ball with the ``sign`` / ``ball`` interface of ``ExpSum``."""

    __slots__ = ("value",)

    def __init__(self, value: "arb") -> None:
        self.value = value

    def ball(self) -> "arb":
        return self.value

    def sign(self) -> int:
        s = _sign_of_ball(self.value)
        if s is None:
            raise ArithmeticError(f"sign of {self.value} undecided at {flint.ctx.prec} bits")
        return s

    def is_zero(self) -> bool:
        return self.sign() == 0


class BallBeta:
    """beta > 0 known as a real ball: ``minus`` gives balls whose sign is decided when the
    ball allows (``ArithmeticError`` otherwise)."""

    __slots__ = ("value",)

    def __init__(self, value: "arb") -> None:
        self.value = value

    def minus(self, a: ExpSum, b: ExpSum) -> _BallNumber:
        return _BallNumber(a.ball() - self.value * b.ball())

    def ball(self) -> "arb":
        return self.value

    def is_zero(self) -> bool:
        return False
