"""refacct: a reference accountant for differential privacy.

Exact (rational) and verified arbitrary-precision hockey-stick divergences
H_alpha(P || Q), delta(eps) and eps(delta) for pairs of output distributions and their
compositions; the ground truth fast accountants are checked against.

``delta``, ``epsilon`` and ``hockey_stick`` are the front door (``refacct.api``): pairs,
compositions, public mixtures, catalogue entries and shuffled entries, any number of steps,
by any method (``"auto"``, ``"exact"``, ``"quadrature"``, ``"certified"``, ``"bracket"``).
``beta`` is the trade-off curve (f-DP) of a pair or a catalogue entry, bracketed from its
privacy profile (``refacct.tradeoff``).
"""
from .distributions import Continuous, Discrete, Gaussian, Laplace, Mixture, mixture
from .api import METHODS, delta, epsilon, hockey_stick
from .pairs import Composition, Pair, PublicMixture
from .result import DeltaResult, EpsilonResult, TradeoffResult
from .tradeoff import beta

__all__ = [
    "Continuous", "Discrete", "Gaussian", "Laplace", "Mixture", "mixture",
    "Pair", "Composition", "PublicMixture",
    "hockey_stick", "delta", "epsilon", "beta", "METHODS",
    "DeltaResult", "EpsilonResult", "TradeoffResult",
]

__version__ = "0.1.0"
