"""Independent runs side by side: ``experiments.parallel_map`` and ``experiments.sweep`` on joblib's process workers
and on a local Dask cluster give the results of the sequential loop, bit for bit."""

import os

import distributed
import joblib
import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from solvable import bsr, glm
from solvable.errors import InvalidParameterError
from solvable.experiments import parallel_map, sweep


def gamp_error(alpha, rng):
    """A run of the course: a perceptron teacher and data at ``alpha``, GAMP on it (d = 200, 25 iterations)."""
    data = glm.sample(200, alpha, prior="rademacher", channel="sign", rng=rng)
    return glm.gamp(data, max_iter=25, tol=1e-12, warn=False, rng=rng)


def gd_result(job):
    """A run that returns more than one number: 8 students of bilinear sequence regression on one data set."""
    alpha, rng = job
    data = bsr.sample(12, alpha, beta=1.0, rho=0.25, rng=rng)
    res = bsr.gd(data, n_inits=8, lr=0.1, max_steps=300, tol=0.0, record_every=100, rng=rng)
    return res.errors, res.average_error, res.loss_history


@pytest.fixture(scope="module")
def sequential():
    with threadpool_limits(
        1
    ):  # the workers below run one BLAS thread each (2 workers on 2 cores, or the limit)
        return sweep(gamp_error, [0.5, 1.0, 1.5], 3, rng=2025)


@pytest.mark.parametrize("n_jobs", [1, 2, -1])
def test_sweep_gives_the_same_bits_on_any_number_of_workers(sequential, n_jobs):
    with joblib.parallel_config(backend="loky", inner_max_num_threads=1):
        res = sweep(gamp_error, [0.5, 1.0, 1.5], 3, rng=2025, n_jobs=n_jobs)
    assert res == sequential  # values, errors, iterations and flags; the times differ
    assert np.array_equal(res.runs, sequential.runs) and np.all(res.seconds > 0)
    assert len(np.unique(res.runs)) == 9  # every run drew its own data


def test_parallel_map_keeps_the_order_and_the_bits_of_the_loop():
    children = np.random.default_rng(7).spawn(6)
    jobs = [(a, c) for a, c in zip([0.2, 0.3, 0.4] * 2, children)]
    with threadpool_limits(1):
        loop = [gd_result((a, c)) for a, c in zip([0.2, 0.3, 0.4] * 2, np.random.default_rng(7).spawn(6))]
    with joblib.parallel_config(backend="loky", inner_max_num_threads=1):
        out = parallel_map(gd_result, jobs, n_jobs=2)
    for (e1, a1, h1), (e2, a2, h2) in zip(loop, out, strict=True):
        assert np.array_equal(e1, e2) and a1 == a2 and np.array_equal(h1, h2)
    # a generator of jobs is consumed in order: its children are those of the list above
    lazy = parallel_map(
        lambda j: j[1].standard_normal(),
        ((a, c) for a, c in zip(range(4), np.random.default_rng(7).spawn(4))),
        n_jobs=2,
    )
    assert lazy == [c.standard_normal() for c in np.random.default_rng(7).spawn(4)]


def test_a_sweep_runs_on_a_local_dask_cluster(sequential):
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"},
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        workers = set(client.scheduler_info()["workers"])
        with joblib.parallel_config(backend="dask"):
            res = sweep(gamp_error, [0.5, 1.0, 1.5], 3, rng=2025, n_jobs=-1)
            pids = set(parallel_map(lambda _: os.getpid(), range(8), n_jobs=-1))
    assert len(workers) == 2
    assert res == sequential
    assert os.getpid() not in pids and 1 <= len(pids) <= 2  # the calls ran in the cluster's worker processes


def test_parallel_map_refuses_bad_arguments_and_passes_errors_on():
    with pytest.raises(TypeError, match="function must be a function"):
        parallel_map(3, [1])
    cores = os.cpu_count() or 1
    domain = rf"n_jobs must be -1 \(every core\) or an integer in \[1, {cores}\]"
    for bad in (
        0,
        -2,
        -(10**9),
        cores + 1,
        10**9,
        10**400,
        1.5,
        2.0,
        np.float64(2.0),
        True,
        np.True_,
        "2",
        [2],
    ):
        with pytest.raises(InvalidParameterError, match=domain):
            parallel_map(abs, [1], n_jobs=bad)
        with pytest.raises(InvalidParameterError, match=domain):
            sweep(lambda v, rng: v, [1.0], 1, rng=0, n_jobs=bad)
    # the domain's ends and the integers NumPy hands out are accepted (no process starts for an empty job list)
    for good in (-1, 1, cores, np.int64(cores), np.array(1)):
        assert parallel_map(abs, [], n_jobs=good) == []
    with pytest.raises(ZeroDivisionError):
        parallel_map(lambda x: 1 / x, [1, 0], n_jobs=2)
    with pytest.raises(TypeError, match="run must return"):
        sweep(lambda v, rng: "0.1", [1.0], 2, rng=0, n_jobs=2)
    assert parallel_map(abs, []) == [] and parallel_map(abs, [-2, 3]) == [2, 3]


@pytest.mark.parametrize("n_jobs, bad", [(None, np.nan), (None, np.inf), (2, -np.inf)])
def test_a_sweep_refuses_a_non_finite_run_and_names_it(n_jobs, bad):
    class Result:  # a result whose error is not finite, as a run that diverged silently would return
        error, iterations, converged = bad, 3, True

    def run(value, rng):
        seed_draw = (
            rng.standard_normal()
        )  # every run draws: the failing one is named by its seed, not its draw
        return Result() if value == 2.0 and seed_draw == target else value + seed_draw

    # the draw of child 4 of rng 0 (value 2.0, seed 1 with 3 seeds per value): computed independently of sweep
    target = np.random.default_rng(0).spawn(6)[4].standard_normal()
    with pytest.raises(
        ValueError, match=r"non-finite error .* value = 2\.0 \(values\[1\]\), seed 1 \(child 4 of rng"
    ):
        sweep(run, [1.0, 2.0], 3, rng=0, n_jobs=n_jobs)
    with pytest.raises(ValueError, match=r"value = 1\.0 \(values\[0\]\), seed 0 \(child 0"):
        sweep(lambda v, rng: bad, [1.0, 2.0], 3, rng=0)
