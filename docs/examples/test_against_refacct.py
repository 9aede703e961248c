"""Three accountants against refacct's certified reference dataset: the standard library
reads the records, each test asks its accountant the same queries, and an upper bound on
eps below the certified interval is unsound.  Run with pytest beside
``refacct-reference.jsonl`` (or with ``REFACCT_DATASET`` set to its path)."""
import json
import os
from fractions import Fraction

import pytest

DATASET = os.environ.get("REFACCT_DATASET", "refacct-reference.jsonl")


def dp_sgd_records():
    """(step, record, noise multiplier, rate, delta): eps(delta) of one Poisson-sampled
    Gaussian composed with itself under add-remove, the lower difficulty level."""
    with open(DATASET, encoding="utf-8") as fh:
        for r in map(json.loads, fh):
            step, *more = r["composition"]
            if (not more and step["mechanism"]["noise"] == "gaussian" and r["group"] == 1
                    and step["sampling"]["scheme"] == "poisson" and r["relation"] == "add-remove"
                    and r["query"]["kind"] == "epsilon" and r["difficulty"] == "lower"):
                z = Fraction(step["mechanism"]["sigma"]) / Fraction(step["mechanism"]["sensitivity"])
                yield (step["steps"], r, float(z), float(Fraction(step["sampling"]["rate"])),
                       float(Fraction(r["query"]["at"])))


def sound(eps, record):
    return Fraction(eps) >= Fraction(record["certified"]["lower"])


def test_dp_accounting_pld():
    dpa = pytest.importorskip("dp_accounting")
    for steps, r, z, q, delta in dp_sgd_records():
        event = dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z))
        eps = dpa.pld.PLDAccountant().compose(event, steps).get_epsilon(delta)
        assert sound(eps, r), r["id"]


def test_prv_accountant():
    prv = pytest.importorskip("prv_accountant")
    for steps, r, z, q, delta in dp_sgd_records():
        mechanism = prv.PoissonSubsampledGaussianMechanism(noise_multiplier=z, sampling_probability=q)
        accountant = prv.PRVAccountant(prvs=[mechanism], max_self_compositions=[steps],
                                       eps_error=0.01, delta_error=delta / 1000)
        low, estimate, high = accountant.compute_epsilon(delta=delta, num_self_compositions=[steps])
        assert sound(high, r), r["id"]


def test_opacus_prv():
    accountants = pytest.importorskip("opacus.accountants")
    for steps, r, z, q, delta in dp_sgd_records():
        accountant = accountants.create_accountant(mechanism="prv")
        accountant.history = [(z, q, steps)]
        assert sound(accountant.get_epsilon(delta), r), r["id"]
