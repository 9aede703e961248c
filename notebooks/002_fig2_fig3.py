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
# # 002 Fig. 2 (at small T) and Fig. 3: deterministic, Poisson and shuffled batches
#
# **Fig. 2 style.**  002 plots δ_D and bounds on δ_P for σ = 0.3, T = 10 (from
# dp_accounting).  refacct computes δ_P exactly-to-verified-digits only for T ≤ 2 at this
# cost (T = 3 of a Poisson-subsampled Gaussian takes far too long, see the known
# limitations in docs/method.md), so this is T = 2 with q = 1/2: δ_D (002 Prop. 3.1; independent of T),
# δ_P = max(add, remove) and H(P_S‖Q_S), the shuffle pair of 002 eqs. (1)-(2), which lies
# below δ_D (Thm 4.1).  δ_P < δ_D for small ε and δ_P > δ_D for large ε (Thm 4.2) with one
# switch (Conj. 4.4; located in proofs/002_thm42_conj44.py at ε = 7.1516142).
#
# **Fig. 3.**  σ = 0.4, T = 10,000: δ_D and the eq. (7) lower bound on δ_S (maximised over
# real C).  002 prints δ_S(4) ≥ 0.226 and δ_D(4) ≈ 0.244 (`refacct reproduce` rows).  δ_P at
# T = 10,000 is out of refacct's reach (002 used dp_accounting: δ_P(4) ≤ 1.18e-5).
#
# Run: `python notebooks/002_fig2_fig3.py [--quick]`; writes `results/notebooks/002_fig2.png`,
# `002_fig3.png` and `002_fig2_fig3.md`.

# %%
import matplotlib.pyplot as plt

import _nb

QUICK = _nb.quick()
DIGITS = 8
EPS2 = _nb.grid("0", "15", 3 if QUICK else 15)
EPS3 = _nb.grid("0", "14", 4 if QUICK else 28)

# %% [markdown]
# ## Fig. 2 style: σ = 0.3, T = 2

# %%
points = [{"eps": e} for e in EPS2]
det = _nb.curves(points, family="gaussian", width="0.3", sampling="deterministic",
                 relation="zero-out", steps=1, digits=DIGITS)
poisson = _nb.curves(points, family="gaussian", width="0.3", sampling="poisson",
                     relation="add-remove", steps=2, q="1/2", digits=DIGITS)
shuffled = _nb.swept(_nb.shuffle_delta, points, sigma="0.3", steps=2, exact=True, digits=DIGITS)

fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogy(_nb.floats(EPS2), _nb.floats(r.value for r in det), label="δ_D (deterministic)")
ax.semilogy(_nb.floats(EPS2), _nb.floats(r.value for r in poisson), label="δ_P (Poisson, q = 1/2)")
ax.semilogy(_nb.floats(EPS2), _nb.floats(r.value for r in shuffled), "--",
            label="H(P_S‖Q_S) (shuffle pair)")
ax.axvline(7.1516142, color="grey", lw=0.5)
_nb.finish(fig, ax, "002_fig2", "002 Fig. 2 style: σ = 0.3, T = 2", "δ(ε)")

# %% [markdown]
# ## Fig. 3: σ = 0.4, T = 10,000

# %%
points = [{"eps": e} for e in EPS3]
det3 = _nb.curves(points, family="gaussian", width="0.4", sampling="deterministic",
                  relation="zero-out", steps=1, digits=DIGITS)
lower = _nb.swept(_nb.shuffle_delta, points, sigma="0.4", steps=10000, digits=DIGITS)

fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogy(_nb.floats(EPS3), _nb.floats(r.value for r in det3), label="δ_D (deterministic)")
ax.semilogy(_nb.floats(EPS3), _nb.floats(r.value for r in lower), "--",
            label="δ_S lower bound, eq. (7)")
_nb.finish(fig, ax, "002_fig3", "002 Fig. 3: σ = 0.4, T = 10,000", "δ(ε)")

# %%
rows = [(e, _nb.shown(d), _nb.shown(p), " = ".join(p.attained_by), _nb.shown(s))
        for e, d, p, s in zip(EPS2, det, poisson, shuffled)]
rows3 = [(e, _nb.shown(d), _nb.shown(s)) for e, d, s in zip(EPS3[::2], det3[::2], lower[::2])]
_nb.table("002_fig2_fig3", "002 Fig. 2 (σ = 0.3, T = 2) and Fig. 3 (σ = 0.4, T = 10,000)",
          ["ε", "δ_D", "δ_P", "δ_P attained by", "H(P_S‖Q_S)"], rows,
          "Fig. 3:\n\n" + _nb.markdown(["ε", "δ_D", "δ_S ≥ (eq. 7)"], rows3))
