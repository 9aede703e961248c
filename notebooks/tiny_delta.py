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
# Two one-step pairs: the Gaussian mechanism N(1, 1) vs N(0, 1) (002 Prop. 3.1's closed
# form) and the Poisson-subsampled Gaussian, q = 1/10, σ = 1, add-remove.  refacct computes
# δ(ε) with tail masses from the tail side (erfc, exact exponentials), so δ = 1e-150 keeps
# all its verified digits.  When `dp_accounting` is importable its PLD accountant (float64,
# pessimistic discretisation, tail mass truncated) and RDP accountant (an upper bound) are
# shown as well: the PLD values stop at the floor of its truncated tail mass (about 1e-23
# here), far above the true δ; the RDP bound keeps decreasing but is loose by orders of
# magnitude.  Without `dp_accounting` only refacct's curves are drawn.
#
# Run: `python notebooks/tiny_delta.py [--quick]`; writes `results/notebooks/tiny_delta.png`
# and `tiny_delta.md`.

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
