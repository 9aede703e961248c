"""Verdict rules on hand-made references (exact rationals; no refacct computation)."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from refacct.validation.cases import Reference
from refacct.validation.verdicts import exact_value, flag_non_monotone, judge, noise_level


def ref(value, err="1e-20", bound="tight", infinite=False):
    return Reference(F(value), F(err), "20", "test", "add", bound, None, infinite)


@pytest.mark.parametrize("reported,claims,verdict", [
    (0.25, "upper", "sound"),                 # 0.25 is exact: equal to the truth
    (0.2524, "upper", "sound"),               # ratio 1.0096: within the 1% tolerance
    (0.3, "upper", "loose"),
    (0.2499, "upper", "unsound"),
    (0.25 - 2 ** -55, "upper", "unsound"),    # 2.8e-17 below, bound 1e-20: unsound
    (0.2499, "lower", "sound"),
    (0.2, "lower", "loose"),
    (0.2501, "lower", "unsound"),
    (float("nan"), "upper", "failed"),
    (float("inf"), "upper", "failed"),
    (-1e-300, "lower", "failed"),
    ("0.25", "upper", "sound"),
    ("1/4", "upper", "failed"),               # not a decimal: a user accountant's junk
    (object(), "upper", "failed"),
])
def test_judge_against_a_quarter(reported, claims, verdict):
    assert judge(reported, ref("1/4"), claims).verdict == verdict


def test_the_reference_bound_decides_closeness():
    """Within [v - e, v + e] nothing is unsound; just outside it is."""
    r = ref("1/4", "1e-10")
    assert judge(F(1, 4) - F(1, 10 ** 10), r).verdict == "sound"
    assert judge(F(1, 4) - F(2, 10 ** 10), r).verdict == "unsound"
    assert judge(F(1, 4) + F(2, 10 ** 10), r, "lower").verdict == "unsound"


def test_one_sided_references_leave_the_other_side_undecided():
    """An upper reference (e.g. 004 truncated Poisson) cannot refute an upper claim below
    it; a lower reference (001 Sec. 7) cannot refute a lower claim above it."""
    assert judge(0.2, ref("1/4", bound="upper")).verdict == "undecided"
    assert judge(0.3, ref("1/4", bound="lower"), "lower").verdict == "undecided"
    assert judge(0.2, ref("1/4", bound="lower")).verdict == "unsound"


def test_infinite_truth():
    inf = ref(0, "0", infinite=True)
    assert judge(float("inf"), inf).verdict == "sound"
    assert judge(30.0, inf).verdict == "unsound"
    assert judge(30.0, inf, "lower").verdict == "sound"


def test_a_correctly_rounded_float_is_not_unsound():
    """A truth 1e-18 above the double nearest 0.1 (half an ulp there is 6.9e-18): that
    double is the best a float can say (sound); the same value as an exact Fraction, or the
    next double below, is below the truth (unsound)."""
    truth = ref(F(0.1) + F(1, 10 ** 18), "1e-30")
    assert judge(0.1, truth).verdict == "sound"
    assert judge(F(0.1), truth).verdict == "unsound"
    assert judge(0.09999999999999999, truth).verdict == "unsound"


def test_ratio_is_exact():
    assert judge(0.5, ref("1/4")).ratio == 2
    assert judge(0.1, ref("1/10")).ratio == F(0.1) * 10  # the float's exact value


def test_exact_value_of_floats_and_strings():
    assert exact_value(0.1) == F(3602879701896397, 2 ** 55)
    assert exact_value("1e-100") == F(1, 10 ** 100)
    with pytest.raises(ValueError):
        exact_value(float("inf"))


def test_non_monotone_answers_are_flagged():
    """delta(eps) and eps(delta) are non-increasing; a rise is flagged at the larger point."""
    points = [(F(2), F(1, 10)), (F(1), F(1, 5)), (F(3), F(1, 4)), (F(4), None)]
    reasons = flag_non_monotone(points)
    assert reasons[0] is None and reasons[1] is None and "non-monotone" in reasons[2]
    assert reasons[3] is None


def bracket(lower, upper, bound="tight"):
    """A proven-bracket reference [lower, upper] (value the midpoint)."""
    lo, up = F(lower), F(upper)
    return Reference((lo + up) / 2, (up - lo) / 2, "2", "proven bracket: test", "remove", bound,
                     None, False, (lo, up), True)


def test_a_proven_bracket_refutes_with_proof():
    """The disputed case: truth in [2.5371e-13, 2.5429e-13]; an upper bound of
    2.394e-13 is below the proven lower end, a lower bound of 2.6e-13 above the upper."""
    r = bracket("2.5371e-13", "2.5429e-13")
    for reported, claims in ((2.394e-13, "upper"), (2.6e-13, "lower")):
        v = judge(reported, r, claims)
        assert v.verdict == "unsound" and "unsound with proof" in v.reason and "proven" in v.reason
    assert judge(2.54e-13, r).verdict == judge(2.54e-13, r, "lower").verdict == "sound"
    assert judge(2.412e-13, r, "lower").verdict == "loose"   # 0.951 of the lower end


def test_loose_counts_the_tolerance_from_the_interval_end():
    """Loose only when proven: beyond the upper end times 1 + tolerance (upper claims) or
    below the lower end divided by it (lower claims), not from the midpoint."""
    r = bracket("1/5", "3/10")      # midpoint 1/4
    assert judge(F(3, 10) * F(101, 100), r).verdict == "sound"     # ratio 1.212 to the middle
    assert judge(F(3, 10) * F(1011, 1000), r).verdict == "loose"
    assert judge(F(1, 5) / F(101, 100), r, "lower").verdict == "sound"
    assert judge(F(1, 5) / F(1011, 1000), r, "lower").verdict == "loose"
    wide = ref("1/4", "1e-3")       # the same rule for a value with a bound
    assert judge(F(251, 1000) * F(101, 100), wide).verdict == "sound"
    assert judge(F(251, 1000) * F(1011, 1000), wide).verdict == "loose"


def test_a_one_sided_bracket_still_leaves_its_side_undecided():
    assert judge(0.1, bracket("1/5", "3/10", bound="upper")).verdict == "undecided"


# --- noise level: a verdict that float64 noise of size F could flip ---------------------------

FLOOR = F(1, 10 ** 15)


@pytest.mark.parametrize("reported,claims,flagged", [
    (F(1, 4) - F(1, 10 ** 16), "upper", True),    # 1e-16 below the truth: noise decides
    (F(1, 4) - F(2, 10 ** 15), "upper", False),   # 2e-15 below: unsound whatever the noise
    (F(1, 4), "upper", True),                     # on the boundary
    (F(101, 400), "upper", True),                 # at high (1 + 1%): sound / loose edge
    (F(1, 8), "upper", False),                    # far below: unsound on every platform
    (F(1, 2), "upper", False),                    # far above: loose on every platform
    (F(1, 4) + F(1, 10 ** 16), "lower", True),
    (F(1, 4) * 100 / 101 + F(1, 10 ** 16), "lower", True),   # the lower claim's tolerance edge
    (F(1, 5), "lower", False),
])
def test_noise_level_of_delta_answers(reported, claims, flagged):
    note = noise_level(reported, ref("1/4"), "delta", F(1), FLOOR, claims)
    assert bool(note) == flagged
    assert not note or "sound or unsound depending on the platform" in note


def test_noise_level_near_zero_and_without_a_floor():
    """A truth below the floor: any answer within F of 0 (negative ones too) is noise;
    an accountant without a floor is never flagged; infinities are not noise."""
    tiny = ref("1e-31", "1e-50")
    assert noise_level(-2e-17, tiny, "delta", F(7), FLOOR)
    assert noise_level(0.0, tiny, "delta", F(7), FLOOR)
    assert not noise_level(1e-14, tiny, "delta", F(7), FLOOR)   # 10 F above: not noise
    assert not noise_level(-2e-17, tiny, "delta", F(7), None)
    assert not noise_level(float("inf"), tiny, "delta", F(7), FLOOR)


def test_noise_level_of_epsilon_answers():
    """eps(delta) is noise when the delta it inverts is at most F / tolerance (1e-13)."""
    r = ref("3/2")
    assert noise_level(1.5, r, "epsilon", F(1, 10 ** 13), FLOOR)
    assert noise_level(1.5, r, "epsilon", F(1, 10 ** 30), FLOOR)
    assert not noise_level(1.5, r, "epsilon", F(2, 10 ** 13), FLOOR)


def test_fft_noise_floor():
    """T 2^-52 compositions of the case; one for deterministic batching."""
    from refacct.validation import load_cases, select
    from refacct.validation.adapters import fft_noise_floor
    dispute = select(load_cases(), ["dispute-poisson-gaussian-T1000"])[0]
    assert fft_noise_floor(dispute) == F(1000, 2 ** 52)
    deterministic = [c for c in load_cases() if c.scheme == "deterministic"]
    assert deterministic and all(fft_noise_floor(c) == F(1, 2 ** 52) for c in deterministic)
