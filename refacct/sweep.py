"""Parameter grids in parallel: ``sweep(fn, points)`` runs ``fn(**point)`` for every point
on a ``concurrent.futures`` executor and returns the results **in input order**.

    >>> from refacct.sweep import sweep, product
    >>> points = product(eps=["0", "1/2", "1"], digits=[15])
    >>> results = sweep(my_delta, points, cache="results/cache")    # doctest: +SKIP

Design:

- **Executors.**  Without ``executor`` a local ``ProcessPoolExecutor`` with ``workers``
  processes (default: all cores) is created and shut down; ``workers=1`` runs in this
  process.  The processes start the platform's way (forked on Linux), unless FLINT's
  thread pool holds threads here (``flint.ctx.threads`` > 1: ``engines.arb.fork_is_safe``),
  where a forked child would deadlock in its first threaded product: then they are
  spawned, and the calling script needs the ``if __name__ == "__main__":`` guard.  Any ``concurrent.futures.Executor`` may be passed instead and is left running,
  e.g. a cluster's: with ``dask.distributed``, ``client = Client("scheduler:8786")`` and
  ``sweep(fn, points, executor=client.get_executor())``.  There is no scheduler here; ``fn``
  and the points must be picklable (a module-level function, exact parameters).
- **Deterministic.**  Each point is computed by ``fn`` alone, so the results do not depend
  on the executor, the number of workers or the order of completion.
- **Cache.**  With ``cache`` (a directory) each result is stored under the SHA-256 of the
  full query: ``fn``'s module and name (and script file for ``__main__``), the point's
  parameters (``digits`` included), the refacct version and a hash of refacct's own source
  files (so an engine change without a version bump never reuses old values; the calling
  script's code is not hashed: clear the cache when ``fn`` changes).  A re-run loads what is there
  and computes the rest.  Values are stored exactly: an ``mpf`` as its integer mantissa
  and binary exponent, a ``Fraction`` as "n/d", refacct's result dataclasses field by
  field; a binary ``float`` is refused, as parameter and as value, so nothing is ever read
  back from a 15-digit approximation (docs/numerics.md, "Caches and string round-trips").
- **Progress.**  On stderr, once a sweep has run for ``progress_after`` seconds (or always
  with ``progress=True``; never with ``progress=False``).
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
import itertools
import json
import multiprocessing
import os
import sys
import time
from functools import lru_cache
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import mpmath
from mpmath import mp
from mpmath.libmp import from_man_exp

from . import __version__
from .engines.arb import fork_is_safe
from .exact import mpf_parts
from .exact_text import fraction_from_text, fraction_text, int_text
from .errors import InputError, InputTypeError

__all__ = ["sweep", "product", "query_key", "encode", "decode"]

Point = Mapping[str, Any]


def product(**axes: Sequence[Any]) -> List[Dict[str, Any]]:
    """The grid of all combinations of the axes, as keyword dicts, the last axis varying
    fastest: ``product(k=[1, 2], eps=[0, 1])`` gives (1, 0), (1, 1), (2, 0), (2, 1)."""
    names = list(axes)
    return [dict(zip(names, values)) for values in itertools.product(*axes.values())]


# --- exact encoding ----------------------------------------------------------------------

_JSON_INT_BITS = 10_000  # about 3000 digits: plain JSON numbers below, {"int": text} above


def encode(x: Any) -> Any:
    """``x`` as JSON-ready data that ``decode`` turns back into an equal object, exactly:
    mpf (mantissa and exponent; +-inf, nan by name), Fraction, str, int, bool, None, lists,
    tuples, dicts with str keys and dataclass instances (class path and fields)."""
    if isinstance(x, int) and not isinstance(x, bool) and abs(x).bit_length() > _JSON_INT_BITS:
        return {"int": int_text(x)}  # json.dumps refuses ints beyond Python's str limit
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, float):
        raise InputTypeError(f"binary float {x!r} refused: pass exact values (str, Fraction, int, mpf)")
    if isinstance(x, mpmath.mpf):
        return {"mpf": _mpf_text(x)}
    if isinstance(x, Fraction):
        return {"fraction": fraction_text(x)}
    if isinstance(x, (list, tuple)):
        return {"tuple" if isinstance(x, tuple) else "list": [encode(v) for v in x]}
    if isinstance(x, dict):
        if not all(isinstance(k, str) for k in x):
            raise InputTypeError("dict keys must be str")
        return {"dict": {k: encode(v) for k, v in x.items()}}
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        cls = type(x)
        fields = {f.name: encode(getattr(x, f.name)) for f in dataclasses.fields(x) if f.init}
        return {"dataclass": f"{cls.__module__}:{cls.__qualname__}", "fields": fields}
    raise InputTypeError(f"cannot store a {type(x).__name__} exactly")


def decode(data: Any) -> Any:
    """Inverse of ``encode``."""
    if not isinstance(data, dict):
        return data
    if "dataclass" in data:
        module, name = data["dataclass"].split(":")
        cls = getattr(importlib.import_module(module), name)
        if not dataclasses.is_dataclass(cls):
            raise ValueError(f"{data['dataclass']} is not a dataclass")
        return cls(**{k: decode(v) for k, v in data["fields"].items()})
    (tag, value), = data.items()
    if tag == "mpf":
        return _mpf_from_text(value)
    if tag == "fraction":
        return fraction_from_text(value)
    if tag == "int":
        return fraction_from_text(value).numerator
    if tag in ("list", "tuple"):
        items = [decode(v) for v in value]
        return tuple(items) if tag == "tuple" else items
    if tag == "dict":
        return {k: decode(v) for k, v in value.items()}
    raise ValueError(f"not an encoded value: {data!r}")


def _mpf_text(x: mpmath.mpf) -> str:
    """"<man>p<exp>" (x = man 2^exp exactly) or "+inf" / "-inf" / "nan"."""
    if mpmath.isnan(x):
        return "nan"
    if mpmath.isinf(x):
        return "+inf" if x > 0 else "-inf"
    man, exp = mpf_parts(x)
    return f"{int_text(man)}p{exp}"


def _mpf_from_text(text: str) -> mpmath.mpf:
    if text in ("+inf", "-inf", "nan"):
        return {"+inf": mp.inf, "-inf": -mp.inf, "nan": mp.nan}[text]
    man, exp = text.split("p")
    man, exp = fraction_from_text(man).numerator, int(exp)
    return mp.make_mpf(from_man_exp(man, exp))  # exact: no rounding to mp.prec


# --- cache -------------------------------------------------------------------------------

def _function_name(fn: Callable) -> str:
    name = f"{fn.__module__}:{fn.__qualname__}"
    if fn.__module__ == "__main__":  # two scripts' functions of one name must not collide
        name += f" ({Path(inspect.getfile(fn)).name})"
    return name


@lru_cache(maxsize=1)
def code_version() -> str:
    """refacct's version and the SHA-256 of its source files (``refacct/**/*.py`` and
    package data), read once per process."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".json") and path.is_file():
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:16]}"


def query_key(fn: Callable, point: Point) -> str:
    """SHA-256 of the full query: function, parameters (exactly encoded; ``digits`` is
    one of them) and ``code_version()``."""
    query = {"function": _function_name(fn), "point": encode(dict(point)),
             "refacct": code_version()}
    return hashlib.sha256(json.dumps(query, sort_keys=True).encode()).hexdigest()


class _Cache:
    """One JSON file per query, ``<dir>/<key[:2]>/<key>.json``, written atomically."""

    def __init__(self, directory: Union[str, Path, None]):
        self.dir = None if directory is None else Path(directory)

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def load(self, key: str):
        """(True, value) on a hit, (False, None) otherwise."""
        if self.dir is None or not self._path(key).is_file():
            return False, None
        return True, decode(json.loads(self._path(key).read_text(encoding="utf-8"))["value"])

    def store(self, key: str, fn: Callable, point: Point, value: Any) -> None:
        if self.dir is None:
            return
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"function": _function_name(fn), "point": encode(dict(point)),
                  "refacct": code_version(), "value": encode(value)}
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)


# --- progress ------------------------------------------------------------------------------

class _Progress:
    """"sweep: 12/40 done (3 cached), 35 s" on stderr, at most once a second, starting
    ``after`` seconds into the sweep (0 with progress=True, never with False)."""

    def __init__(self, total: int, cached: int, progress: Optional[bool], after: float):
        self.total, self.cached, self.done = total, cached, cached
        self.start = self.last = time.monotonic()
        self.after = {True: 0.0, False: None, None: after}[progress]
        self.shown = False

    def step(self) -> None:
        self.done += 1
        now = time.monotonic()
        if self.after is None or now - self.start < self.after:
            return
        if now - self.last >= 1 or self.done == self.total or not self.shown:
            self.last, self.shown = now, True
            end = "\n" if self.done == self.total or not sys.stderr.isatty() else "\r"
            print(f"sweep: {self.done}/{self.total} done ({self.cached} cached), "
                  f"{now - self.start:.0f} s", end=end, file=sys.stderr, flush=True)


# --- the sweep -------------------------------------------------------------------------------

def _call(fn: Callable, point: Point):
    return fn(**point)


def sweep(fn: Callable[..., Any], points: Iterable[Point], *,
          executor: Optional[Executor] = None, workers: Optional[int] = None,
          cache: Union[str, Path, None] = None, progress: Optional[bool] = None,
          progress_after: float = 5.0) -> List[Any]:
    """``[fn(**p) for p in points]``, computed in parallel, in input order (module docstring).

    ``executor``: any ``concurrent.futures.Executor`` (left running); otherwise a local
    process pool of ``workers`` processes (default ``os.cpu_count()``), or this process
    for ``workers=1``.  ``cache``: a directory for exact, version-keyed results.
    Exceptions raised by ``fn`` propagate (pending points are cancelled)."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise InputError(f"workers must be an int >= 1 or None, got {workers!r}")
    if executor is not None and not isinstance(executor, Executor):
        raise InputTypeError(f"executor must be a concurrent.futures.Executor, got {executor!r}")
    points = [dict(p) for p in points]
    store = _Cache(cache)
    keys = [query_key(fn, p) for p in points]
    results: List[Any] = [None] * len(points)
    todo = []
    for i, key in enumerate(keys):
        hit, value = store.load(key)
        if hit:
            results[i] = value
        else:
            todo.append(i)
    bar = _Progress(len(points), len(points) - len(todo), progress, progress_after)

    def finish(i: int, value: Any) -> None:
        store.store(keys[i], fn, points[i], value)
        results[i] = value
        bar.step()

    if not todo:
        return results
    if executor is None and workers == 1:
        for i in todo:
            finish(i, fn(**points[i]))
        return results
    own = executor is None
    context = None if fork_is_safe() else multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=workers or os.cpu_count(),
                               mp_context=context) if own else executor
    futures: Dict[Future, int] = {}
    try:
        futures = {pool.submit(_call, fn, points[i]): i for i in todo}
        for fut in as_completed(futures):
            finish(futures[fut], fut.result())
    finally:
        for fut in futures:
            fut.cancel()
        if own:
            pool.shutdown(wait=True, cancel_futures=True)
    return results
