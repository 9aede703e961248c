"""Pair specifications: a JSON description of a (composed) pair of output distributions.

Format::

    {"P": [factor, ...], "Q": [factor, ...], "steps": k}

``P`` and ``Q`` are lists of equal length; entry i of each is one *factor*, and the pair is
the product prod_i Pair(P[i], Q[i]) (composition of different mechanisms), raised to the
power ``steps`` (self-composition, default 1, an integer >= 1).  A factor is one of::

    {"gaussian": {"mean": "0", "sigma": "1"}}          N(mean, sigma^2), sigma > 0
    {"laplace":  {"loc": "-1", "scale": "2"}}           Lap(loc, scale), scale > 0
    {"discrete": {"0": "3/4", "1": "1/4"}}             outcome label -> mass, summing to 1
    {"mixture":  [["1/2", factor], ["1/2", factor]]}   weights in [0, 1] summing to 1

P[i] and Q[i] must be both discrete or both continuous; a mixture of discrete factors is
discrete, a mixture of continuous ones is a ``Mixture``; mixing the two is an error.

**Numbers are exact.**  Write them as JSON strings (``"3/4"``, ``"0.1"``, ``"1e-3"``) or
JSON integers (``3``).  JSON floats (``0.1``, ``1e-3``) are rejected, because most JSON
tools turn them into binary floats (0.1 would become 3602879701896397/2^55) before
refacct could see the digits you wrote; the error message shows the string to write
instead.  NaN and infinities are rejected in any form.

Every error is a ``SpecError`` (a ``ValueError``) whose message starts with the path of the
offending entry, e.g. ``P[0].gaussian.sigma: sigma must be > 0, got -1``.  Unknown and
missing keys, duplicate keys in a JSON object, unequal lengths of P and Q, weights or
masses that do not sum exactly to 1 and steps < 1 are all errors.

>>> load_pair({"P": [{"gaussian": {"mean": 1, "sigma": "1/2"}}],
...            "Q": [{"gaussian": {"mean": 0, "sigma": "1/2"}}]})
Pair(P=Gaussian(mean=1, sigma=1/2), Q=Gaussian(mean=0, sigma=1/2))
>>> rr = {"P": [{"discrete": {"0": "3/4", "1": "1/4"}}],
...       "Q": [{"discrete": {"0": "1/2", "1": "1/2"}}], "steps": 2}
>>> load_pair(rr).steps
2
>>> load_pair({"P": [{"gaussian": {"mean": 0, "sigma": 0.5}}],
...            "Q": [{"gaussian": {"mean": 1, "sigma": "1/2"}}]})
Traceback (most recent call last):
...
refacct.spec.SpecError: P[0].gaussian.sigma: 0.5 is a JSON float; write the number as a string, "0.5", so that it is read exactly
"""
from __future__ import annotations

import decimal
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Dict, List, Union

from .distributions import Discrete, Gaussian, Laplace, mixture
from .exact import positive, probability, rational
from .errors import InputError
from .pairs import Composition, Pair

__all__ = ["SpecError", "load_pair", "load_pair_file", "parse_factor", "loads"]

FACTOR_KINDS = ("gaussian", "laplace", "discrete", "mixture")
PARAMETERS = {"gaussian": (("mean", rational), ("sigma", positive)),
              "laplace": (("loc", rational), ("scale", positive))}


class SpecError(InputError):
    """A pair specification that cannot be read; the message starts with the path of the
    offending entry."""


class _JsonFloat(str):
    """The literal text of a JSON float, kept so it can be quoted back in the error."""


class _JsonConstant(str):
    """NaN, Infinity or -Infinity written bare in the JSON text."""


def _fail(path: str, message: str) -> SpecError:
    return SpecError(f"{path}: {message}" if path else message)


def _number(value: Any, path: str) -> Union[int, str, Fraction, decimal.Decimal]:
    """An exact number as the core accepts it: int, numeric string, Fraction or Decimal.

    Binary floats, bools, NaN and infinities are rejected here; the core's ``rational``
    then rejects strings that are not finite rationals, naming the parameter."""
    if isinstance(value, _JsonConstant):
        raise _fail(path, f"{value} is not a finite number")
    if isinstance(value, _JsonFloat) or isinstance(value, float):
        text = str(value) if isinstance(value, _JsonFloat) else repr(value)
        if isinstance(value, float) and not math.isfinite(value):
            raise _fail(path, f"{text} is not a finite number")
        raise _fail(path, f"{text} is a JSON float; write the number as a string, "
                          f"\"{text}\", so that it is read exactly")
    if isinstance(value, bool) or value is None:
        raise _fail(path, f"expected a number (a string such as \"3/4\" or an integer), "
                          f"got {json.dumps(value)}")
    if isinstance(value, (int, str, Fraction, decimal.Decimal)):
        return value
    raise _fail(path, f"expected a number (a string such as \"3/4\" or an integer), "
                      f"got {_kind(value)}")


def _build(path: str, make: Callable[[], Any]) -> Any:
    """Run a core constructor, prefixing its ValueError / TypeError with ``path``."""
    try:
        return make()
    except SpecError:
        raise
    except (ValueError, TypeError) as exc:
        raise _fail(path, str(exc)) from None


def _exact(value: Any, path: str, check: Callable[[Any], Fraction]) -> Fraction:
    """``check(_number(value))`` (a core parser such as ``positive``), errors at ``path``."""
    number = _number(value, path)
    return _build(path, lambda: check(number))


def _dict(value: Any, path: str, what: str) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(path, f"{what} must be a JSON object, got {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    if isinstance(value, (_JsonFloat, float, int)) and not isinstance(value, bool):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return {dict: "an object", list: "an array", bool: "a boolean", type(None): "null"}.get(
        type(value), type(value).__name__)


def parse_factor(factor: Any, path: str = "factor"):
    """One factor (see the module docstring) as a ``Gaussian``, ``Laplace``, ``Discrete``
    or ``Mixture``."""
    factor = _dict(factor, path, "a factor")
    if len(factor) != 1:
        keys = ", ".join(sorted(factor)) or "none"
        raise _fail(path, f"a factor must have exactly one key out of "
                          f"{', '.join(FACTOR_KINDS)}; got {keys}")
    (kind, body), = factor.items()
    here = f"{path}.{kind}"
    if kind in PARAMETERS:
        body = _dict(body, here, f"the {kind} parameters")
        names = [n for n, _ in PARAMETERS[kind]]
        _check_keys(body, names, names, here)
        args = [_exact(body[n], f"{here}.{n}", lambda v, n=n, check=check: check(v, n))
                for n, check in PARAMETERS[kind]]
        return _build(here, lambda: (Gaussian if kind == "gaussian" else Laplace)(*args))
    if kind == "discrete":
        body = _dict(body, here, "the discrete masses")
        if not body:
            raise _fail(here, "needs at least one outcome")
        masses = {
            label: _exact(m, f"{here}.{label}",
                          lambda v, label=label: probability(v, f"mass of outcome {label!r}"))
            for label, m in body.items()
        }
        return _build(here, lambda: Discrete(masses))
    if kind == "mixture":
        if not isinstance(body, list):
            raise _fail(here, f"a mixture must be an array of [weight, factor] pairs, "
                              f"got {_kind(body)}")
        if not body:
            raise _fail(here, "a mixture needs at least one [weight, factor] pair")
        parts = []
        for i, item in enumerate(body):
            at = f"{here}[{i}]"
            if not isinstance(item, list) or len(item) != 2:
                raise _fail(at, f"expected a [weight, factor] pair, got {_kind(item)}"
                                + (f" of length {len(item)}" if isinstance(item, list) else ""))
            weight = _exact(item[0], f"{at}[0]", lambda v: probability(v, "mixture weight"))
            parts.append((weight, parse_factor(item[1], f"{at}[1]")))
        return _build(here, lambda: mixture(parts))
    raise _fail(path, f"unknown factor kind {kind!r}; expected one of "
                      f"{', '.join(FACTOR_KINDS)}")


def _check_keys(obj: Dict[str, Any], required, allowed, path: str) -> None:
    unknown = [k for k in obj if k not in allowed]
    if unknown:
        raise _fail(path, f"unknown key{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(repr(k) for k in unknown)}; allowed: "
                          f"{', '.join(repr(k) for k in allowed)}")
    missing = [k for k in required if k not in obj]
    if missing:
        raise _fail(path, f"missing key{'s' if len(missing) > 1 else ''} "
                          f"{', '.join(repr(k) for k in missing)}")


def load_pair(spec: Any) -> Union[Pair, Composition]:
    """The pair described by ``spec`` (a dict in the format of the module docstring):
    a ``Pair`` for one factor and ``steps`` = 1, otherwise a ``Composition``."""
    spec = _dict(spec, "", "a pair spec")
    _check_keys(spec, ("P", "Q"), ("P", "Q", "steps"), "spec")
    sides = {}
    for side in ("P", "Q"):
        factors = spec[side]
        if not isinstance(factors, list):
            raise _fail(side, f"must be an array of factors, got {_kind(factors)}")
        if not factors:
            raise _fail(side, "needs at least one factor")
        sides[side] = factors
    if len(sides["P"]) != len(sides["Q"]):
        raise _fail("spec", f"P and Q must have the same number of factors, got "
                            f"{len(sides['P'])} and {len(sides['Q'])}")
    steps = spec.get("steps", 1)
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise _fail("steps", f"must be an integer >= 1, got {_show(steps)}")
    if steps < 1:
        raise _fail("steps", f"must be an integer >= 1, got {steps}")
    pairs: List[Pair] = []
    for i, (p, q) in enumerate(zip(sides["P"], sides["Q"])):
        P = parse_factor(p, f"P[{i}]")
        Q = parse_factor(q, f"Q[{i}]")
        pairs.append(_build(f"P[{i}], Q[{i}]", lambda P=P, Q=Q: Pair(P, Q)))
    if len(pairs) == 1 and steps == 1:
        return pairs[0]
    return Composition.of(*pairs) ** steps


def _show(value: Any) -> str:
    if isinstance(value, _JsonFloat):
        return str(value)
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise SpecError(f"duplicate key {key!r} in a JSON object")
        out[key] = value
    return out


def loads(text: str) -> Any:
    """Parse JSON text for ``load_pair``: floats and NaN / Infinity are kept as their
    literal text (so ``load_pair`` can reject them with a useful message) and duplicate
    keys are an error."""
    try:
        return json.loads(text, parse_float=_JsonFloat, parse_constant=_JsonConstant,
                          object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise SpecError(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") \
            from None
    except RecursionError:
        raise SpecError("invalid pair spec: JSON nested too deeply (a pair spec needs a few "
                        "levels)") from None


def load_pair_file(path: Union[str, Path]) -> Union[Pair, Composition]:
    """``load_pair`` of the JSON file at ``path`` (UTF-8).  An unreadable file raises
    ``OSError``; everything else ``SpecError``."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        return load_pair(loads(text))
    except SpecError as exc:
        raise SpecError(f"{path}: {exc}") from None
