"""Speed targets that bench_core.py and bench_brackets.py do not time, one row each,
refacct beside dp_accounting's PLD accountant on the same query where it has one.

    python3 benchmarks/bench_targets.py --timeout 120          # every row, 2 minutes a row
    python3 benchmarks/bench_targets.py --only catalogue       # one group of rows
    python3 benchmarks/bench_targets.py --only certified --timeout 600

Groups (``--only``):
  * ``catalogue``: every entry of the mechanism catalogue (Gaussian sigma = 1, Laplace
    b = 1, randomized response p = 3/4; no sampling, Poisson q = 1/10, WOR n = 100 /
    batch 10, truncated Poisson n = 100 / p = 1/20 / B = 6, deterministic batching; every
    relation the scheme has) at k = 2: delta(1), 20 digits, target 0.5 s; ``catalogue3``
    the same at k = 3, target 10 s.  The entries are built as validation cases, so the
    peer's query is the validation adapter's.
  * ``mixed``: k = 2 of pairs mixing families or scales, delta(1/2), 20 digits, target 5 s.
  * ``deep``: the Poisson-subsampled Gaussian (9/10) N(0,1) + (1/10) N(1,1) || N(0,1) at
    k = 3, 4, 8 (targets 3, 10, 60 s), delta(1), 20 digits, beside dp_accounting's PLD of
    the same direction (``bench_core.peer``: the remove part of its subsampled Gaussian
    PLD composed k times); and the Laplace pair Lap(1, 1/2) vs Lap(0, 1/2) at k = 4
    (target 10 s) beside dp_accounting's Laplace PLD.
  * ``heterogeneous``: the first 3, 4 and 8 of eight different Poisson-subsampled
    Gaussians (``STEPS``: sigma 4/5 .. 3/2, q 1/20 .. 1/4), delta(1), one direction, with
    the self-compositions' targets (3, 10, 60 s), beside dp_accounting's remove PLDs of
    the same steps composed.
  * ``accountant``: a typical DP-SGD history (sigma = 1, q = 1e-3, T = 10^4,
    eps(1e-5)) through ``refacct.accountants.DpAccountant`` (a proven bracket, default width
    1/100) beside dp_accounting's PLD accountant (no goal);
  * ``certified``: proven enclosures (``refacct.certified``) at k = 3, delta(1), 20 digits,
    target 60 s.

"digits" is what the returned bound guarantees (``verified_digits``; "exact" when it is
0; "refused": certified mode does not take the pair at k steps); "met": at least 20 verified digits
(or exact) within the target's seconds.  Timings are wall-clock seconds of one call in a
child process (killed after ``--timeout``); they are indicative and never asserted.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import time
from fractions import Fraction
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import peer, run_limited  # noqa: E402
from refacct import Composition, Gaussian, Laplace, Mixture, Pair, delta  # noqa: E402
from refacct.errors import InputError  # noqa: E402
from refacct.mechanisms import RELATIONS  # noqa: E402
from refacct.validation.cases import case_from_json  # noqa: E402

DIGITS = 20
BASES = {"gaussian": {"family": "gaussian", "sigma": "1"},
         "laplace": {"family": "laplace", "scale": "1"},
         "rr": {"family": "rr", "p": "3/4"}}
SAMPLINGS = {"none": {"scheme": "none"},
             "poisson": {"scheme": "poisson", "q": "1/10"},
             "wor": {"scheme": "wor", "n": 100, "batch": 10},
             "truncated-poisson": {"scheme": "truncated-poisson", "n": 100,
                                   "p_sample": "1/20", "max_batch": 6},
             "deterministic": {"scheme": "deterministic"}}


def catalogue_cases(steps: int = 2):
    """Every (base, sampling, relation) the catalogue builds, as validation cases."""
    cases = []
    for (family, mech), (scheme, sampling), relation in product(
            BASES.items(), SAMPLINGS.items(), RELATIONS):
        case = case_from_json({
            "name": f"{family} {scheme} {relation}", "source": "bench", "mechanism": mech,
            "sampling": sampling, "relation": relation, "steps": steps, "digits": DIGITS,
            "queries": [{"kind": "delta", "at": "1"}]})
        try:
            case.entry()
        except InputError:
            continue
        cases.append(case)
    return cases


def subsampled_gaussian() -> Pair:
    g0 = Gaussian(0, 1)
    return Pair(Mixture([("9/10", g0), ("1/10", Gaussian(1, 1))]), g0)


# (sigma, q) of the heterogeneous rows' steps, the first k of them
STEPS = [("4/5", "1/10"), ("9/10", "1/20"), ("1", "1/10"), ("11/10", "1/5"), ("6/5", "1/10"),
         ("13/10", "1/8"), ("7/5", "1/10"), ("3/2", "1/4")]


def different_steps(k: int) -> Composition:
    """The first k of ``STEPS``: (1 - q) N(0, s^2) + q N(1, s^2) vs N(0, s^2) each."""
    def one(sigma, q):
        g0 = Gaussian(0, sigma)
        return Pair(Mixture([(1 - Fraction(q), g0), (Fraction(q), Gaussian(1, sigma))]), g0)
    return Composition.of(*[one(Fraction(s), q) for s, q in STEPS[:k]])


def laplace_pair() -> Pair:
    return Pair(Laplace(1, "1/2"), Laplace(0, "1/2"))


def mixed_pairs():
    return [("N(0,4) vs N(1,1/4)", Pair(Gaussian(0, 2), Gaussian(1, "1/2"))),
            ("N(0,1) vs Lap(0,3)", Pair(Gaussian(0, 1), Laplace(0, 3)))]


def rows(only):
    """(group, label, refacct job, peer job or None, target seconds)."""
    out = []
    for group, k, target in (("catalogue", 2, 0.5), ("catalogue3", 3, 10)):
        if only in (None, group):
            out += [(f"catalogue k={k}", c.name, (_refacct_case, c), (_peer_case, c), target)
                    for c in catalogue_cases(k)]
    if only in (None, "mixed"):
        out += [("mixed k=2", name, (_refacct_pair, pair, 2, "1/2"), None, 5)
                for name, pair in mixed_pairs()]
    if only in (None, "deep"):
        out += [(f"subsampled Gaussian k={k}", "delta(1), one direction",
                 (_refacct_pair, subsampled_gaussian(), k, "1"), (_peer_poisson, k), target)
                for k, target in ((3, 3), (4, 10), (8, 60))]
        out += [("Laplace k=4", "Lap(1,1/2) vs Lap(0,1/2), delta(1)",
                 (_refacct_pair, laplace_pair(), 4, "1"), (_peer_laplace, 4), 10)]
    if only in (None, "heterogeneous"):
        out += [(f"{k} different steps", "subsampled Gaussians, delta(1), one direction",
                 (_refacct_steps, k, "1"), (_peer_steps, k), target)
                for k, target in ((3, 3), (4, 10), (8, 60))]
    if only in (None, "accountant"):
        out += [("DpAccountant T=10^4", "eps(1e-5), sigma 1, q 1e-3", (_refacct_accountant,),
                 (_peer_poisson_eps,), None)]
    if only in (None, "certified"):
        out += [("certified k=3", name, (_certified_pair, pair, 3), None, 60)
                for name, pair in (("subsampled Gaussian", subsampled_gaussian()),
                                   ("Lap(1,1/2) vs Lap(0,1/2)", laplace_pair()))]
    return out


def _digits(result) -> str:
    vd = result.verified_digits
    return "exact" if vd is None else str(vd)


def _refacct_case(case):
    from refacct.validation.recompute import compute
    start = time.perf_counter()
    result = compute(case, case.queries[0])
    return _digits(result), time.perf_counter() - start


def _refacct_pair(pair, k, eps):
    start = time.perf_counter()
    result = delta(pair ** k, eps, digits=DIGITS)
    return _digits(result), time.perf_counter() - start


def _certified_pair(pair, k):
    start = time.perf_counter()
    try:
        result = delta(pair, 1, steps=k, digits=DIGITS, method="certified")
    except InputError:  # a pair certified mode does not take at k steps
        return "refused", time.perf_counter() - start
    return _digits(result), time.perf_counter() - start


def _refacct_accountant():
    """A typical DP-SGD history through refacct.accountants.DpAccountant."""
    import dp_accounting as dpa
    from refacct.accountants import DpAccountant
    start = time.perf_counter()
    acc = DpAccountant().compose(dpa.PoissonSampledDpEvent(1e-3, dpa.GaussianDpEvent(1.0)),
                                 10_000)
    result = acc.epsilon_result(1e-5)
    return "proven" if result.proven else _digits(result), time.perf_counter() - start


def _peer_poisson_eps():
    import dp_accounting as dpa
    start = time.perf_counter()
    acc = dpa.pld.PLDAccountant()
    acc.compose(dpa.PoissonSampledDpEvent(1e-3, dpa.GaussianDpEvent(1.0)), 10_000)
    acc.get_epsilon(1e-5)
    return time.perf_counter() - start


def _peer_case(case):
    """Seconds of dp_accounting's pessimistic PLD accountant (validation adapter), or None."""
    from refacct.validation.adapters import resolve
    try:
        importlib.import_module("dp_accounting")  # before the clock starts
        pld = resolve("dp_accounting.pld")[0]
    except (ImportError, InputError):
        return None
    start = time.perf_counter()
    try:
        answer = pld.prepare(case)
        if answer is None:
            return None
        answer(case.queries[0])
    except Exception:  # the peer refuses the query (e.g. UnsupportedEventError)
        return None
    return time.perf_counter() - start


def _peer_poisson(k):
    """Seconds of dp_accounting's PLD of the row's direction (``bench_core.peer``), or None."""
    found = peer("subsampled Gaussian", k)
    return None if found is None else found[1]


def _refacct_steps(k, eps):
    start = time.perf_counter()
    result = delta(different_steps(k), eps, digits=DIGITS)
    return _digits(result), time.perf_counter() - start


def _peer_steps(k):
    """Seconds of dp_accounting's remove PLDs of the k steps, composed, at delta(1)."""
    try:
        import dp_accounting as dpa
    except ImportError:
        return None
    start = time.perf_counter()
    plds = [dpa.pld.privacy_loss_distribution.from_gaussian_mechanism(
        float(Fraction(s)), sampling_prob=float(Fraction(q))) for s, q in STEPS[:k]]
    total = plds[0]
    for pld in plds[1:]:
        total = total.compose(pld)
    total._pmf_remove.get_delta_for_epsilon(1.0)
    return time.perf_counter() - start


def _peer_laplace(k):
    """Seconds of dp_accounting's PLD of the Laplace mechanism b = 1/2 (``bench_core.peer``)."""
    found = peer("Laplace", k)
    return None if found is None else found[1]


def _met(digits: str, seconds, target) -> bool:
    """The target: ``DIGITS`` verified digits (or exact) within ``target`` seconds."""
    enough = digits == "exact" or (digits.isdigit() and int(digits) >= DIGITS)
    return enough and seconds is not None and seconds <= target


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("catalogue", "catalogue3", "mixed", "deep",
                                           "heterogeneous",
                                           "accountant", "certified"))
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="give up on a row after this many seconds (default: never)")
    args = parser.parse_args(argv)
    widths = [26, 38, 14, 9, 9, 8, 6, 4]
    header = ("target", "query", "digits", "seconds", "peer s", "ratio", "goal", "met")
    print(f"digits = {DIGITS}; python {sys.version.split()[0]}\n")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for group, label, job, peer_job, target in rows(args.only):
        mine = run_limited(job, args.timeout)
        theirs = None if peer_job is None else run_limited(peer_job, args.timeout)
        seconds = None if mine is None else mine[1]
        digits = "timeout" if mine is None else mine[0]
        cells = [group, label, digits,
                 f"> {args.timeout:g}" if seconds is None else f"{seconds:.2f}",
                 "-" if theirs is None else f"{theirs:.2f}",
                 "-" if theirs is None or seconds is None else f"{seconds / max(theirs, 1e-6):.3g}",
                 "-" if target is None else f"{target:g}",
                 "-" if target is None else "yes" if _met(digits, seconds, target) else "no"]
        print("| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
