"""Shared by the notebooks: command line (``--quick`` for the small CI grid), the output
folder ``results/notebooks/`` (or $REFACCT_NOTEBOOK_RESULTS), markdown tables, the sweep
cache, and picklable tasks for ``refacct.sweep`` (a worker process imports this module to
run them).

Numbers stay exact (rational strings) or mpf until ``floats`` converts them for plotting.
"""
from __future__ import annotations

import argparse
import os
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path
from typing import Iterable, List, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import refacct  # noqa: E402
from refacct import mechanisms  # noqa: E402
from refacct.derived import vadhan_delta  # noqa: E402
from refacct.result import format_mpf, printed  # noqa: E402, F401 (format_mpf: for the notebooks)

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(os.environ.get("REFACCT_NOTEBOOK_RESULTS", ROOT / "results" / "notebooks"))
CACHE = OUT / "cache"


def quick() -> bool:
    """True with ``--quick`` on the command line (also when run inside Jupyter, where the
    kernel's own arguments are ignored)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="small grid (CI)")
    args, _ = parser.parse_known_args()
    return args.quick


def grid(lo: str, hi: str, n: int) -> List[str]:
    """n + 1 equally spaced exact rationals from lo to hi, as strings: decimal ("0.65")
    when that is exact, else "n/d"."""
    a, b = Fraction(lo), Fraction(hi)
    return [_text(a + (b - a) * i / n) for i in range(n + 1)]


def _text(x: Fraction) -> str:
    with localcontext() as ctx:
        ctx.prec = 40
        d = (Decimal(x.numerator) / Decimal(x.denominator)).normalize()
    return f"{d:f}" if Fraction(d) == x else str(x)


def floats(values: Iterable) -> List[float]:
    """mpf / Fraction / str values as floats -- for plotting only, at the very end."""
    return [float(Fraction(v)) if isinstance(v, str) else float(v) for v in values]


def finish(fig, ax, name: str, title: str, ylabel: str, xlabel: str = "ε",
           legend_size=None) -> Path:
    """Label ``ax``, add the legend and save ``fig`` as results/notebooks/<name>.png."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=legend_size)
    return save(fig, name)


def save(fig, name: str) -> Path:
    """Write ``fig`` as results/notebooks/<name>.png."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.png"
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {path}")
    return path


def table(name: str, title: str, header: Sequence[str], rows: Iterable[Sequence[str]],
          notes: str = "") -> Path:
    """Write a markdown table as results/notebooks/<name>.md (and print it)."""
    OUT.mkdir(parents=True, exist_ok=True)
    text = f"# {title}\n\n{markdown(header, rows)}" + (f"\n{notes}\n" if notes else "")
    path = OUT / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    print(text)
    print(f"wrote {path}")
    return path


def markdown(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]) + "\n"


def shown(result, digits: int = 6) -> str:
    """A value with its bound for tables: "0.123456 ± 5.01e-7" (the bound covers the
    rounding of the printed digits, ``refacct.result.printed``)."""
    value, bound = printed(result.value, result.abs_error, digits)
    return f"{value} ± {bound}"


# --- tasks for refacct.sweep (module level: picklable) -------------------------------------

def entry(family: str, width: str, sampling: str, relation: str, steps: int, **params):
    """The catalogue entry (refacct.mechanisms.build) from plain, exact parameters;
    ``width`` is sigma (gaussian), scale (laplace) or p (rr)."""
    key = {"gaussian": "sigma", "laplace": "scale", "rr": "p"}[family]
    base = mechanisms.base_mechanism(family, **{key: width})
    return mechanisms.build(base, sampling, relation, steps=steps, **params)


def curve_delta(eps: str, digits: int, **query):
    """delta(eps) of the catalogue entry ``entry(**query)``: a MechanismDelta with every
    term's result."""
    return refacct.delta(entry(**query), eps, digits=digits)


def curve_epsilon(delta: str, digits: int, **query):
    """eps(delta) of ``entry(**query)``: a MechanismEpsilon."""
    return refacct.epsilon(entry(**query), delta, digits=digits)


def curves(points: Iterable[dict], **fixed) -> list:
    """``curve_delta`` over ``points`` (each merged into ``fixed``) with refacct.sweep: in
    parallel on all cores, in input order, cached under results/notebooks/cache."""
    return swept(curve_delta, points, **fixed)


def shuffle_delta(eps: str, digits: int, sigma: str, steps: int, exact: bool = False,
                  swap: bool = False):
    """002's shuffle pair: H(P_S || Q_S) itself (``exact``, T <= 3; ``swap`` for Q_S || P_S)
    or the eq. (7) lower bound on delta_S (refacct.shuffle)."""
    from refacct import shuffle
    if exact:
        return shuffle.shuffle_exact(sigma, steps, eps, digits=digits, swap=swap)
    return shuffle.shuffle_lower_bound(sigma, steps, eps, digits=digits)


def swept(fn, points: Iterable[dict], **fixed) -> list:
    """Any task of this module over ``points`` merged into ``fixed`` (see ``curves``)."""
    from refacct.sweep import sweep
    return sweep(fn, [dict(fixed, **p) for p in points], cache=CACHE)


def vadhan_epsilon(delta: str, digits: int, sigma: str, q: str, group: int):
    """The smallest group-level eps with Vadhan's bound K e^eps delta_1(eps / K) <= delta
    (003 Lemma 1.1 on refacct's example-level curve, Poisson q, one step), bracketed by
    bisection on verified values to relative width 10^-digits: returns (lo, hi) as
    Fractions, the bound exceeding delta at lo and below it at hi."""
    example = entry("gaussian", sigma, "poisson", "add-remove", 1, q=q)
    target = Fraction(delta)

    def above(eps: Fraction) -> bool:
        r = vadhan_delta(example, group, eps, digits=digits)
        value, err = _exact(r.value), _exact(r.abs_error)
        if value - err > target:
            return True
        if value + err < target:
            return False
        raise ArithmeticError(f"Vadhan bound at eps = {eps} not decided at {digits} digits")

    lo, hi = Fraction(0), Fraction(1)
    while above(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > hi * Fraction(1, 10 ** digits):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if above(mid) else (lo, mid)
    return lo, hi


def _exact(x) -> Fraction:
    """A finite mpf as the exact Fraction it represents."""
    man, exp = x.man_exp if x else (0, 0)
    return Fraction(man) * Fraction(2) ** exp
