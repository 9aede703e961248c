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
# # 001 Fig. 1 and Fig. 3: add vs remove, and the three substitution terms
#
# **Fig. 1** (001 Sec. 5): privacy curves of the Poisson-subsampled Laplace mechanism under
# the add and the remove relation for k = 1, 2, 3 compositions.  Fig. 1's parameters are
# not stated; the PLD atom −ln(0.1 + 0.9/e) that 001 mentions fixes q = 9/10 and scale 1.
# For k = 1 remove dominates; from k = 2 on the curves cross (001 Prop. 11), so no single
# ordered pair of datasets gives the add-remove curve.  001 estimated its curves by Monte
# Carlo (App. B.2, accuracy 0.001); these are verified to the digits shown.
#
# **Fig. 3** (001 Sec. 7): WOR with n = 2, batch 1, Laplace scale 2, two steps under
# substitution: H(Q×Q‖P×P), H(P×Q‖Q×P), H(P×P‖Q×Q) with P = ½Lap(−1, 2) + ½Lap(1, 2) and
# Q = Lap(−1, 2); each is the largest on an interval of ε.
#
# Run: `python notebooks/001_fig1_fig3.py [--quick]`; writes `results/notebooks/001_fig1.png`,
# `001_fig3.png` and `001_fig1_fig3.md`.

# %%
import matplotlib.pyplot as plt

import _nb

QUICK = _nb.quick()
DIGITS = 8
STEPS = [1, 2] if QUICK else [1, 2, 3]
EPS1 = _nb.grid("0", "2.5", 5 if QUICK else 25)
EPS3 = _nb.grid("0", "1.3", 4 if QUICK else 26)

# %% [markdown]
# ## Fig. 1: add and remove, k = 1, 2, 3

# %%
sec5 = dict(family="laplace", width="1", sampling="poisson", relation="add-remove",
            q="9/10", digits=DIGITS)
points = [{"steps": k, "eps": e} for k in STEPS for e in EPS1]
fig1 = dict(zip([(p["steps"], p["eps"]) for p in points], _nb.curves(points, **sec5)))

fig, ax = plt.subplots(figsize=(6, 4))
for k, color in zip(STEPS, ["C0", "C1", "C2"]):
    for label, style in (("add", "--"), ("remove", "-")):
        values = [dict(fig1[k, e].terms)[label].value for e in EPS1]
        ax.plot(_nb.floats(EPS1), _nb.floats(values), style, color=color, label=f"{label}, k = {k}")
_nb.finish(fig, ax, "001_fig1", "001 Fig. 1: Poisson q = 9/10, Laplace scale 1", "δ(ε)")

# %% [markdown]
# ## Fig. 3: the three substitution terms, k = 2

# %%
sec7 = dict(family="laplace", width="2", sampling="wor", relation="substitution", steps=2,
            n=2, batch=1, digits=DIGITS)
fig3 = _nb.curves([{"eps": e} for e in EPS3], **sec7)
names = {"j=0": "H(Q×Q‖P×P)", "j=1": "H(P×Q‖Q×P)", "j=2": "H(P×P‖Q×Q)"}

fig, ax = plt.subplots(figsize=(6, 4))
for label, name in names.items():
    ax.plot(_nb.floats(EPS3), _nb.floats(dict(r.terms)[label].value for r in fig3), label=name)
for x in ("0.30483676", "0.51899413"):  # switch points, proofs/001_sec7_substitution_terms.py
    ax.axvline(float(x), color="grey", lw=0.5)
_nb.finish(fig, ax, "001_fig3",
           "001 Fig. 3: WOR n = 2, b = 1, Laplace scale 2, k = 2", "hockey-stick divergence")

# %% [markdown]
# ## Table

# %%
rows = [(k, e, *(_nb.shown(dict(fig1[k, e].terms)[d]) for d in ("add", "remove")),
         " = ".join(fig1[k, e].attained_by)) for k in STEPS for e in EPS1[::2]]
rows3 = [(e, *(_nb.shown(dict(r.terms)[label]) for label in names), " = ".join(r.attained_by))
         for e, r in zip(EPS3[::2], fig3[::2])]
_nb.table("001_fig1_fig3", "001 Fig. 1 and Fig. 3 (verified values ± bound)",
          ["k", "ε", "δ_add", "δ_remove", "larger"], rows,
          "Fig. 3 terms (j=0 Q²‖P², j=1 P×Q‖Q×P, j=2 P²‖Q²):\n\n"
          + _nb.markdown(["ε", "j=0", "j=1", "j=2", "largest"], rows3))
