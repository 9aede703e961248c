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
# # 001 Fig. 4 (left): one step of the WOR Gaussian mechanism under substitution
#
# σ = 4, γ = 0.05 (batch 1 of n = 20).  With A = 0.95 N(−1, 16) + 0.05 N(1, 16) and
# B = N(−1, 16) (001 Sec. 7 / Thm 14), the one-step curve is H_{e^ε}(A‖B) for ε ≥ 0 and
# H_{e^ε}(B‖A) for ε < 0; 001 App. D builds a dominating pair from the point-wise maximum
# of the two, switching at ε = 0 (where both are the total variation distance).
#
# Run: `python notebooks/001_fig4_left.py [--quick]`; writes `results/notebooks/001_fig4_left.png`
# and `001_fig4_left.md`.

# %%
import matplotlib.pyplot as plt

import _nb

QUICK = _nb.quick()
EPS = _nb.grid("-0.2", "0.2", 8 if QUICK else 40)
query = dict(family="gaussian", width="4", sampling="wor", relation="substitution", steps=1,
             n=20, batch=1, digits=10)
results = _nb.curves([{"eps": e} for e in EPS], **query)

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for label, name, style in (("j=1", "H(A‖B)", "-"), ("j=0", "H(B‖A)", "--")):
    ax.plot(_nb.floats(EPS), _nb.floats(dict(r.terms)[label].value for r in results), style,
            label=name)
ax.plot(_nb.floats(EPS), _nb.floats(r.value for r in results), ":", color="k", lw=2,
        label="point-wise max")
_nb.finish(fig, ax, "001_fig4_left", "001 Fig. 4 left: WOR, σ = 4, γ = 0.05, substitution",
           "hockey-stick divergence, one step")

# %%
_nb.table("001_fig4_left", "001 Fig. 4 left: one step, WOR Gaussian σ = 4, γ = 0.05",
          ["ε", "H(A‖B)", "H(B‖A)", "larger"],
          [(e, _nb.shown(dict(r.terms)["j=1"]), _nb.shown(dict(r.terms)["j=0"]),
            {("j=1",): "A‖B", ("j=0",): "B‖A"}.get(r.attained_by, "tie"))
           for e, r in list(zip(EPS, results))[::2]])
