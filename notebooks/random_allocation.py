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
# # Random allocation over epochs against Poisson sampling, at the tutorials' settings
#
# DP-SGD as the tutorials run it: σ = 1.1, and t steps an epoch (Opacus' CIFAR-10 tutorial:
# 50000 examples, batches of 256, t = 195; TF Privacy's MNIST tutorial: 60000 examples,
# batches of 250, t = 240).  Three ways to batch, at the same expected batch size n / t:
#
# * **random allocation** (balls-and-bins: each example in exactly one of the t steps of
#   each epoch; Chua et al., "Balls-and-Bins Sampling for DP-SGD", AISTATS 2025,
#   arXiv:2412.16802): ε(10⁻⁵) for one epoch as a proven ball, for E epochs as proven
#   digits where σ² t / E ≤ 400 (`epochs=E`: the many-step transform on the lognormal
#   mean's moments; every setting here, TF Privacy's 2 epochs, 145, included) and as a
#   proven bracket elsewhere (the one-epoch pair composed E times on a lattice);
# * **Poisson sampling** with q = 1/t for E t steps, what the accountants assume: ε(10⁻⁵)
#   with proven digits (the many-step transform);
# * **shuffling** (ABLQ_S, 002): only a lower bound is known; 002 eq. (7) gives one for one
#   epoch (zero-out), and E epochs are at least as revealing as the first, so it bounds
#   every E from below.
#
# Add-remove for the first two.  Run: `python notebooks/random_allocation.py [--quick]`;
# writes `random_allocation.png` and `random_allocation.md`.  `--quick` (CI): the Opacus
# setting at E = 1 (more epochs need the proven inversion table, a minute at t = 195).

# %%
import math

import matplotlib.pyplot as plt

import _nb
import refacct
from refacct import api
from refacct.mechanisms import build, gaussian
from refacct.result import exact_rational

QUICK = _nb.quick()
SIGMA, DELTA = "1.1", "1e-5"
SETTINGS = {"Opacus CIFAR-10, t = 195": (195, [1] if QUICK else [1, 2, 5, 10, 15, 20])}
if not QUICK:
    SETTINGS["TF Privacy MNIST, t = 240"] = (240, [1, 2, 5, 10, 20, 40, 60])


def entry(t: int, E: int):
    return build(gaussian(SIGMA), "random-allocation", "add-remove", steps=t, epochs=E)


def in_digits(t: int, E: int) -> bool:
    """Does ``"auto"`` give E epochs of t steps digits (one epoch's ball, or the transform)
    rather than a proven bracket?"""
    return not api.route(entry(t, E)).bracket


def allocation(t: int, E: int):
    """eps(DELTA) of E epochs of random allocation: proven digits, or a proven bracket."""
    return refacct.epsilon(entry(t, E), DELTA, **({"digits": 10} if in_digits(t, E) else
                                                  {"width": "1e-3"}))


def poisson(t: int, E: int):
    """eps(DELTA) of Poisson sampling at rate 1/t for E t steps."""
    entry = build(gaussian(SIGMA), "poisson", "add-remove", q=f"1/{t}")
    return refacct.epsilon(entry, DELTA, steps=t * E, digits=10)


def shuffled(t: int):
    """002 eq. (7)'s lower bound on eps(DELTA) of one shuffled epoch (zero-out)."""
    return refacct.epsilon(build(gaussian(SIGMA), "shuffle", "zero-out", steps=t), DELTA)


found = {name: {"allocation": [allocation(t, E) for E in epochs],
                "poisson": [poisson(t, E) for E in epochs], "shuffle": shuffled(t)}
         for name, (t, epochs) in SETTINGS.items()}

# %%
fig, ax = plt.subplots(figsize=(6.5, 4.5))
for (name, (t, epochs)), color in zip(SETTINGS.items(), ["C0", "C1"]):
    runs = found[name]
    ax.plot(epochs, [float(r.upper) for r in runs["allocation"]], "o-", color=color,
            label=f"random allocation (proven), {name}")
    ax.plot(epochs, [float(r.value) for r in runs["poisson"]], "s--", color=color,
            label=f"Poisson q = 1/t (proven), {name}")
    ax.axhline(float(runs["shuffle"].value), color=color, ls=":", lw=1,
               label=f"shuffling, lower bound (002 eq. 7), {name}")
_nb.finish(fig, ax, "random_allocation", "ε(1e-5) over epochs, σ = 1.1",
           "ε", xlabel="epochs E", legend_size=7)


# %%
def bracket(result, digits: int = 6) -> str:
    """[lower, upper] rounded outward to ``digits`` decimals."""
    scale = 10 ** digits
    low = math.floor(exact_rational(result.lower) * scale)
    high = math.ceil(exact_rational(result.upper) * scale)
    return "[" + ", ".join(f"{n // scale}.{n % scale:0{digits}d}" for n in (low, high)) + "]"


rows = []
for name, (t, epochs) in SETTINGS.items():
    runs = found[name]
    for E, a, p in zip(epochs, runs["allocation"], runs["poisson"]):
        saving = 1 - exact_rational(a.upper) / exact_rational(p.lower)   # "at least": down
        shown = _nb.shown(a, 10) if in_digits(t, E) else bracket(a)
        rows.append([name, E, shown, _nb.shown(p, 8),
                     f"{math.floor(saving * 1000) / 10:.1f}%",
                     _nb.shown(runs["shuffle"], 4)])
_nb.table("random_allocation", "ε(1e-5) over epochs: random allocation, Poisson, shuffling",
          ["setting", "E", "random allocation ε", "Poisson ε", "allocation below Poisson by "
           "at least", "shuffling ε ≥ (one epoch)"], rows,
          "Random allocation and Poisson sampling: add-remove, proven; shuffling: 002 eq. (7), "
          "zero-out, a lower bound for every E.")
