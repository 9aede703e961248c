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
# # 004: truncated vs untruncated Poisson sampling
#
# DP-SGD's Gaussian sum (σ = 1) on n = 100 records with Poisson rate p = 0.1 (expected
# batch 10), the batch truncated to at most B records (004 Algorithm 1).  004 Thm 3.1's
# dominating pair is a public mixture over r ∈ {1, 2}: with probability
# Pr[Binom(n−1, p) < B] the plain Poisson pair, otherwise a Poisson pair with rate
# q_trunc (004 Sec. 3.4) and doubled sensitivity.  The curve is an upper bound in general
# and tight at the extremes (B ≥ n: plain Poisson; p = 1: fixed batch B).  Small B pays for
# the doubled sensitivity with high probability; as B grows the curve approaches plain
# Poisson sampling.  One step, add-remove.
#
# Run: `python notebooks/004_truncated_poisson.py [--quick]`; writes
# `results/notebooks/004_truncated_poisson.png` and `004_truncated_poisson.md`.

# %%
from fractions import Fraction

import matplotlib.pyplot as plt

import _nb
from refacct.mechanisms.truncated_poisson import prob_no_truncation, q_trunc

QUICK = _nb.quick()
N, P, SIGMA, DIGITS = 100, "0.1", "1", 8
BATCHES = [8, 12] if QUICK else [6, 8, 10, 12, 15, 20]
EPS = _nb.grid("0", "3", 3 if QUICK else 24)

# %%
points = [{"max_batch": B, "eps": e} for B in BATCHES for e in EPS]
truncated = _nb.curves(points, family="gaussian", width=SIGMA, sampling="truncated-poisson",
                       relation="add-remove", steps=1, n=N, p_sample=P, digits=DIGITS)
plain = _nb.curves([{"eps": e} for e in EPS], family="gaussian", width=SIGMA,
                   sampling="poisson", relation="add-remove", steps=1, q=P, digits=DIGITS)
curve = {B: truncated[i * len(EPS):(i + 1) * len(EPS)] for i, B in enumerate(BATCHES)}

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for B in BATCHES:
    ax.semilogy(_nb.floats(EPS), _nb.floats(r.value for r in curve[B]), label=f"truncated, B = {B}")
ax.semilogy(_nb.floats(EPS), _nb.floats(r.value for r in plain), "k--",
            label="Poisson, no truncation")
_nb.finish(fig, ax, "004_truncated_poisson",
           f"004: truncated Poisson, n = {N}, p = {P}, σ = {SIGMA}, one step", "δ(ε)",
           legend_size=8)

# %%
p = Fraction(P)
rows = [(B, _nb.format_mpf(1 - prob_no_truncation(N, p, B), 6), _nb.format_mpf(q_trunc(N, p, B), 6),
         *(_nb.shown(curve[B][i]) for i in (0, len(EPS) // 2, -1))) for B in BATCHES]
rows.append(("∞ (Poisson)", "0", P, *(_nb.shown(plain[i]) for i in (0, len(EPS) // 2, -1))))
_nb.table("004_truncated_poisson", f"004: truncated Poisson, n = {N}, p = {P}, σ = {SIGMA}",
          ["B", "Pr[r = 2]", "q_trunc", f"δ({EPS[0]})", f"δ({EPS[len(EPS) // 2]})",
           f"δ({EPS[-1]})"], rows)
