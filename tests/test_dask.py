"""refacct.sweep on a real dask.distributed cluster (LocalCluster, two worker processes;
extra ``cluster``): the same results as the local process pool and as a direct call, both
within their bounds of the Gaussian closed form (Balle and Wang 2018, Thm. 8), and one cache
shared between the executors.  Skipped when distributed is not installed."""
from __future__ import annotations

from fractions import Fraction

import pytest
from mpmath import mp

from refacct import Gaussian, Pair, delta
from refacct.sweep import product, sweep

distributed = pytest.importorskip("distributed")

CALLS = []
POINTS = product(eps=["0", "1/2", "2"], digits=[20])


def gaussian_delta(eps, digits):
    """delta(eps) of N(1, 1) vs N(0, 1); counted when run in this process."""
    CALLS.append(eps)
    return delta(Pair(Gaussian(1, 1), Gaussian(0, 1)), eps, digits=digits)


def closed_form(eps: str) -> mp.mpf:
    """Phi(1/2 - eps) - e^eps Phi(-1/2 - eps): mu = 1 (Balle and Wang 2018, Thm. 8)."""
    with mp.workdps(60):
        e = mp.mpf(Fraction(eps).numerator) / Fraction(eps).denominator
        return mp.ncdf(mp.mpf(1) / 2 - e) - mp.exp(e) * mp.ncdf(-mp.mpf(1) / 2 - e)


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def exact(results):
    return [(r.value, r.abs_error) for r in results]


def test_cluster_results_equal_the_local_pool_and_the_closed_form(client):
    on_cluster = sweep(gaussian_delta, POINTS, executor=client.get_executor())
    assert client.status == "running"  # a given executor is left running
    on_pool = sweep(gaussian_delta, POINTS, workers=2)
    assert exact(on_cluster) == exact(on_pool)
    for point, result in zip(POINTS, on_cluster):
        with mp.workdps(60):
            assert abs(result.value - closed_form(point["eps"])) <= result.abs_error


def test_one_cache_serves_the_cluster_and_the_local_pool(client, tmp_path):
    CALLS.clear()
    first = sweep(gaussian_delta, POINTS[:1], cache=tmp_path, workers=1)  # here: counted
    assert CALLS == ["0"]
    on_cluster = sweep(gaussian_delta, POINTS, cache=tmp_path, executor=client.get_executor())
    assert CALLS == ["0"]  # the cluster computed the rest, in its workers
    assert exact(on_cluster[:1]) == exact(first)
    stored = sorted(p.name for p in tmp_path.rglob("*.json"))
    assert len(stored) == len(POINTS)
    again = sweep(gaussian_delta, POINTS, cache=tmp_path, workers=1)
    assert CALLS == ["0"]  # every point came from the cache the cluster filled
    assert exact(again) == exact(on_cluster)
