"""A large product of Arb matrices is refused before it is allocated when it would not fit
(``engines.memory``: FLINT aborts the process when an allocation fails), and the door then
takes the route's fallback."""
from __future__ import annotations

import pytest

import refacct
from refacct.engines import memory
from refacct.engines.arb import acb, flint
from refacct.engines.transform.contour import power_sums
from refacct.errors import OutOfReach
from refacct.mechanisms import build, gaussian


def test_a_product_beyond_the_memory_available_is_refused(monkeypatch):
    """1000 nodes' powers at 10^4 points hold about 4 * 100 * 1000 balls of about 200
    bytes: 80 MB, refused where 100 MB are available (its share is half), made where
    nothing is reported; the sums are those of the nodes one by one either way."""
    rates = [acb(0, k) / 1000 for k in range(1000)]
    with flint.ctx.workprec(128):
        monkeypatch.setattr(memory, "available_bytes", lambda: 100 * 2 ** 20)
        with pytest.raises(OutOfReach, match="GiB of memory"):
            power_sums([acb(1)] * 1000, rates, 0, 10 ** 4)
        monkeypatch.setattr(memory, "available_bytes", lambda: None)
        sums = power_sums([acb(1)] * 1000, rates, 0, 10 ** 4)
        n = 7777
        direct = sum(((n * a).exp() for a in rates), acb(0))
        assert sums[n].overlaps(direct) and len(sums) == 10 ** 4


def test_the_door_takes_the_bracket_where_the_transform_would_not_fit(monkeypatch):
    """The Poisson-subsampled Gaussian at 1000 steps (the transform, 25 digits in 3 s) with
    1 MB available: the transform's first product is refused and the proven bracket
    answers; asked by name, the transform is refused saying why."""
    entry = build(gaussian(1), "poisson", "add-remove", q="1/100")
    monkeypatch.setattr(memory, "available_bytes", lambda: 2 ** 20)
    found = refacct.delta(entry, 1, steps=1000)
    assert found.engine == "proven-bracket"
    with pytest.raises(OutOfReach, match="GiB of memory"):
        refacct.delta(entry, 1, steps=1000, method="transform")
