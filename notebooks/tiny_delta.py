# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Tiny δ: δ(ε) down to 1e-100 and below, and where float64 accountants stop
#
# Part 1, one step.  Two one-step pairs: the Gaussian mechanism N(1, 1) vs N(0, 1) (002
# Prop. 3.1's closed form) and the Poisson-subsampled Gaussian, q = 1/10, σ = 1, add-remove.
# refacct computes δ(ε) with tail masses from the tail side (erfc, exact exponentials), so
# δ = 1e-150 keeps all its verified digits.  When `dp_accounting` is importable its PLD
# accountant (float64, pessimistic discretisation, tail mass truncated) and RDP accountant
# (an upper bound) are shown as well: the PLD values stop at the floor of its truncated tail
# mass (about 1e-23 here), far above the true δ; the RDP bound keeps decreasing but is loose
# by orders of magnitude.  Without `dp_accounting` only refacct's curves are drawn.
#
# Part 2, T = 100 compositions.  ε(δ) of DP-SGD (Poisson q = 1/100, σ = 1, add and remove
# terms maximised) for δ = 1e-10, 1e-20, ..., 1e-100 as a *proven* bracket from
# `refacct.brackets` (width ≤ 0.05), against the peers called as a new user would call them,
# default knobs: dp_accounting's PLD and RDP accountants, prv_accountant, Koskela's
# fourier_accountant, autodp and Opacus (each only when installed).  Failures are marked:
# ε = ∞ (PLD below its 1e-15 truncated tail mass), exceptions (prv_accountant: "Floating
# point errors will dominate"), and answers below refacct's proven lower end (an ε the
# mechanism does not satisfy; fourier_accountant's Newton iteration stops at
# |δ - target| ≤ 1e-10, so it returns one ε for every δ ≤ 1e-20).
#
# Run: `python notebooks/tiny_delta.py [--quick]`; writes `results/notebooks/tiny_delta.png`,
# `tiny_delta.md`, `tiny_delta_eps.png` and `tiny_delta_eps.md`.  `--quick` (CI) keeps
# part 2 to δ = 1e-10, 1e-20.

# %%
import matplotlib.pyplot as plt
from mpmath import mp

import _nb

QUICK = _nb.quick()
EPS = _nb.grid("0", "24", 4 if QUICK else 48)
PAIRS = {"Gaussian σ = 1": dict(sampling="none"),
         "Poisson q = 1/10, σ = 1": dict(sampling="poisson", q="1/10")}
ref = {name: _nb.curves([{"eps": e} for e in EPS], family="gaussian", width="1", steps=1,
                        relation="add-remove", digits=10, **extra)
       for name, extra in PAIRS.items()}

# %%
try:
    import dp_accounting
    from dp_accounting.pld import privacy_loss_distribution
    from dp_accounting.rdp import rdp_privacy_accountant
except ImportError:  # optional: the comparison is skipped
    dp_accounting = None


def peers(name: str):
    """{accountant: [float delta per eps]} from dp_accounting (float64 by design)."""
    if dp_accounting is None:
        return {}
    q = 0.1 if "Poisson" in name else 1.0
    pld = privacy_loss_distribution.from_gaussian_mechanism(
        standard_deviation=1.0, sensitivity=1.0, sampling_prob=q)
    rdp = rdp_privacy_accountant.RdpAccountant()
    event = dp_accounting.GaussianDpEvent(1.0)
    rdp.compose(event if q == 1.0 else dp_accounting.PoissonSampledDpEvent(q, event))
    eps = _nb.floats(EPS)
    return {"dp_accounting PLD": [pld.get_delta_for_epsilon(e) for e in eps],
            "dp_accounting RDP": [rdp.get_delta(e) for e in eps]}


other = {name: peers(name) for name in PAIRS}

# %%
fig, ax = plt.subplots(figsize=(6.5, 4.5))  # log10(delta) on a linear axis: 1e-150 and below
for (name, results), color in zip(ref.items(), ["C0", "C1"]):
    ax.plot(_nb.floats(EPS), [float(mp.log10(r.value)) for r in results], "-", color=color,
            label=f"refacct, {name}")
    for (peer, values), style in zip(other[name].items(), ["--", ":"]):
        ax.plot(_nb.floats(EPS), [float(mp.log10(v)) if v > 0 else float("nan") for v in values],
                style, color=color, label=f"{peer}, {name}")
ax.axhline(-100, color="grey", lw=0.5)
_nb.finish(fig, ax, "tiny_delta",
           "Tiny δ: refacct vs float64 accountants", "log10 δ(ε)", legend_size=7)

# %%
rows = []
for name, results in ref.items():
    for i in range(0, len(EPS), max(1, len(EPS) // 8)):
        cells = [name, EPS[i], _nb.shown(results[i], 8)]
        cells += [f"{values[i]:.3e}" for values in other[name].values()]
        rows.append(cells)
_nb.table("tiny_delta", "Tiny δ: refacct (verified) vs dp_accounting (float64)",
          ["pair", "ε", "refacct δ ± bound"] + list(next(iter(other.values())).keys()), rows,
          "" if dp_accounting else "dp_accounting is not installed: no comparison.")

# %% [markdown]
# ## Part 2: ε(δ) for T = 100 compositions, δ = 1e-10 ... 1e-100
#
# refacct's bracket comes from proven brackets on δ(ε) (`refacct.delta(..., method="bracket")`,
# one T-fold composition for a whole list of ε): δ(ε) is non-increasing, so a proven
# lower end δ_lo(a) > δ gives ε(δ) ≥ a and a proven upper end δ_hi(b) ≤ δ gives ε(δ) ≤ b.
# A coarse pass on the integers locates every δ (extended until the smallest δ is
# reached), a fine pass places a few ε around the log-linear interpolation of each
# crossing.  (The bracket of ε(δ) itself once kept its composition window at mean + 12 sd
# + 8 of the loss when ε(δ) lay beyond it and then returned the upper end +inf, here for
# δ ≤ 1e-40; inverting δ(ε), whose window reaches past the largest ε asked, does not
# depend on that.)

# %%
import math
import time
import warnings
from fractions import Fraction

import mpmath

from refacct import mechanisms
import refacct
from refacct.sweep import sweep

SGD_SIGMA, SGD_Q, SGD_STEPS, WIDTH = "1", "1/100", 100, Fraction(1, 20)
EXPONENTS = [10, 20] if QUICK else list(range(10, 101, 10))
DELTAS = [Fraction(1, 10 ** k) for k in EXPONENTS]


def delta_grid(eps: list, sigma: str, q: str, steps: int):
    """([(lower, upper)] proven ends of delta(eps) for every eps of the list, seconds), from
    one composition of the catalogue entry (add and remove terms maximised)."""
    entry = mechanisms.build(mechanisms.gaussian(sigma), "poisson", "add-remove", q=q)
    start = time.perf_counter()
    ends = [(r.lower, r.upper) for r in refacct.delta(entry, eps, steps=steps, method="bracket")]
    return ends, f"{time.perf_counter() - start:.1f}"


def _below(upper, delta: Fraction) -> bool:
    return not mpmath.isinf(upper) and _nb._exact(upper) <= delta


def epsilon_brackets(deltas, width: Fraction, start: int = 8):
    """{delta: (lo, hi)} with lo <= eps(delta) <= hi proven and hi - lo <= width, the
    number of compositions used and their seconds (as first computed; cached after)."""
    known = {}  # eps (Fraction) -> (lower, upper) of delta(eps)
    seconds = []

    def run(points):
        points = sorted(set(points) - set(known))
        ends, took = sweep(delta_grid, [dict(eps=[str(e) for e in points], sigma=SGD_SIGMA,
                                       q=SGD_Q, steps=SGD_STEPS)],
                     cache=_nb.CACHE, workers=1)[0]
        known.update(zip(points, ends))
        seconds.append(float(took))

    def bracket(d):
        lo = max((e for e, (low, _) in known.items() if _nb._exact(low) > d), default=Fraction(0))
        hi = min((e for e, (_, up) in known.items() if _below(up, d)), default=None)
        return lo, hi

    def log_mid(e):
        low, up = known[e]
        return (mpmath.log(low) + mpmath.log(up)) / 2

    top = start
    run(range(1, top + 1))
    while bracket(min(deltas))[1] is None:  # extend: log-linear extrapolation, + 2
        slope = log_mid(top - 1) - log_mid(top)
        reach = (log_mid(top) - mpmath.log(min(deltas))) / slope if slope > 0 else top
        new_top = top + min(max(int(mpmath.ceil(reach)) + 2, 2), 4 * top)
        run(range(top + 1, new_top + 1))
        top = new_top
    for _ in range(4):  # fine passes
        points = []
        for d in deltas:
            lo, hi = bracket(d)
            if hi - lo <= width:
                continue
            if lo in known and mpmath.isfinite(log_mid(hi)) and log_mid(lo) > log_mid(hi):
                guess = lo + (hi - lo) * float((log_mid(lo) - mpmath.log(d))
                                               / (log_mid(lo) - log_mid(hi)))
            else:
                guess = (lo + hi) / 2
            step = width / 4
            centre = Fraction(round(guess / step)) * step
            near = [centre + k * step for k in range(-2, 3) if lo < centre + k * step < hi]
            points += near or [lo + (hi - lo) * k / 8 for k in range(1, 8)]
        if not points:
            break
        run(points)
    return {d: bracket(d) for d in deltas}, len(seconds), sum(seconds)


eps_bracket, compositions, ref_seconds = epsilon_brackets(DELTAS, WIDTH)
print(f"refacct: {compositions} compositions, {ref_seconds:.0f} s")

# %%
def eps_peers(deltas):
    """{peer: [eps float, math.inf, or the exception] per delta}, each peer called with its
    default knobs for Poisson-subsampled Gaussian DP-SGD, sigma = 1, q = 0.01, T = 100."""
    sigma, q, steps = float(SGD_SIGMA), float(Fraction(SGD_Q)), SGD_STEPS
    calls = {}
    try:
        import dp_accounting as dpa

        def pld(d):
            acc = dpa.pld.PLDAccountant()
            acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps)
            return acc.get_epsilon(d)

        def rdp(d):
            acc = dpa.rdp.RdpAccountant()
            acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps)
            return acc.get_epsilon(d)
        calls.update({"dp_accounting PLD": pld, "dp_accounting RDP": rdp})
    except ImportError:
        pass
    try:
        from prv_accountant.dpsgd import DPSGDAccountant

        def prv(d):  # (lower, estimate, upper): the upper end
            acc = DPSGDAccountant(noise_multiplier=sigma, sampling_probability=q, max_steps=steps)
            return acc.compute_epsilon(delta=d, num_steps=steps)[2]
        calls["prv_accountant"] = prv
    except ImportError:
        pass
    try:
        import fourier_accountant

        calls["fourier_accountant"] = lambda d: fourier_accountant.get_epsilon_R(
            target_delta=d, sigma=sigma, q=q, ncomp=steps)
    except ImportError:
        pass
    try:
        from autodp import mechanism_zoo, transformer_zoo

        def autodp(d):
            one = transformer_zoo.AmplificationBySampling(PoissonSampling=True)(
                mechanism_zoo.GaussianMechanism(sigma=sigma), q)
            return transformer_zoo.Composition()([one], [steps]).get_approxDP(d)
        calls["autodp"] = autodp
    except ImportError:
        pass
    try:
        from opacus.accountants import PRVAccountant, RDPAccountant

        def opacus(kind):
            def answer(d):
                acc = kind()
                for _ in range(steps):
                    acc.step(noise_multiplier=sigma, sample_rate=q)
                return acc.get_epsilon(d)
            return answer
        calls.update({"Opacus RDP": opacus(RDPAccountant), "Opacus PRV": opacus(PRVAccountant)})
    except ImportError:
        pass
    out = {}
    for name, fn in calls.items():
        out[name] = []
        for d in deltas:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out[name].append(float(fn(float(d))))
            except Exception as exc:  # noqa: BLE001 -- a peer's failure is the result
                out[name].append(exc)
    return out


eps_other = eps_peers(DELTAS)


def verdict(value, lo: Fraction, hi: Fraction) -> str:
    """A peer's answer against refacct's proven bracket [lo, hi]."""
    if isinstance(value, Exception):
        return f"**{type(value).__name__}**: {str(value).split('. ')[0][:60]}"
    if math.isinf(value) or math.isnan(value):
        return f"**{value}**"
    if value < lo:
        return f"{value:.4f} **below the proven lower end**"
    return f"{value:.4f} (≥ truth)" if value >= hi else f"{value:.4f} (in bracket)"


# %%
fig, ax = plt.subplots(figsize=(7, 4.8))
xs = [float(d) for d in DELTAS]
los, his = [float(eps_bracket[d][0]) for d in DELTAS], [float(eps_bracket[d][1]) for d in DELTAS]
ax.fill_between(xs, los, his, color="k", alpha=0.3)
ax.plot(xs, his, "-", color="k", lw=2, label="refacct proven bracket [lower, upper]")
finite = [v for values in eps_other.values() for v in values
          if isinstance(v, float) and math.isfinite(v)]
top = 1.1 * max(his + finite)
markers = iter(["o", "s", "D", "v", "P", "X", "<", ">"])
unsafe = []  # (delta, eps) answers below refacct's proven lower end
for i, (name, values) in enumerate(eps_other.items()):
    color, marker = f"C{i}", next(markers)
    ok = [(x, v) for x, v in zip(xs, values) if isinstance(v, float) and math.isfinite(v)]
    if ok:
        ax.plot(*zip(*ok), "--" + marker, color=color, ms=5, label=name)
    unsafe += [(x, v) for (x, v), d in zip(zip(xs, values), DELTAS)
               if isinstance(v, float) and v < eps_bracket[d][0]]
    inf = [x for x, v in zip(xs, values) if isinstance(v, float) and not math.isfinite(v)]
    if inf:
        ax.plot(inf, [top] * len(inf), "^", color=color, ms=9, mfc="none",
                label=f"{name}: ε = ∞ ({len(inf)} of {len(xs)})")
    err = [x for x, v in zip(xs, values) if isinstance(v, Exception)]
    if err:
        kind = type(next(v for v in values if isinstance(v, Exception))).__name__
        ax.plot(err, [0.02 * top] * len(err), "x", color=color, ms=9, mew=2,
                label=f"{name}: {kind} ({len(err)} of {len(xs)})")
if unsafe:
    ax.plot(*zip(*unsafe), "o", color="red", ms=12, mfc="none", mew=1.5,
            label="below refacct's proven lower end: under-reports ε")
ax.axhline(top, color="grey", lw=0.5, ls=":")
ax.annotate("ε = ∞", (xs[0], top), textcoords="offset points", xytext=(-4, 4), fontsize=8)
ax.set_xscale("log")
ax.set_xticks(xs, [f"1e-{k}" for k in EXPONENTS], fontsize=8)
ax.minorticks_off()
ax.invert_xaxis()
ax.set_ylim(0, top * 1.05)
_nb.finish(fig, ax, "tiny_delta_eps",
           f"ε(δ), Poisson-subsampled Gaussian, σ = {SGD_SIGMA}, q = {SGD_Q}, T = {SGD_STEPS}",
           "ε", xlabel="δ", legend_size=7)

# %%
_nb.table("tiny_delta_eps",
          f"ε(δ) of DP-SGD (σ = {SGD_SIGMA}, q = {SGD_Q}, T = {SGD_STEPS}): refacct's proven "
          "bracket vs peers (default knobs)",
          ["δ", "refacct lower", "refacct upper"] + list(eps_other),
          [(f"1e-{k}", _nb._text(eps_bracket[d][0]), _nb._text(eps_bracket[d][1]))
           + tuple(verdict(v[i], *eps_bracket[d]) for v in eps_other.values())
           for i, (k, d) in enumerate(zip(EXPONENTS, DELTAS))],
          f"refacct: {compositions} T-fold compositions (`refacct.delta(..., method=\"bracket\")`, catalogue entry "
          f"with add and remove terms), {ref_seconds:.0f} s (first run; cached after).  "
          "Peers: ∞ / exceptions as returned; \"below the proven lower end\" is an ε the "
          "mechanism does not satisfy at that δ.")
