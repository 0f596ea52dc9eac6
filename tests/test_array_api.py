"""Gradient descent is written against the Python array API: the same runs on NumPy and on ``array_api_strict``.

``array_api_strict`` is the standard's reference implementation: it has no function beyond the standard and refuses
NumPy arrays, so a run of :func:`solvable.gd.run_gd` on its arrays proves that the loop, the optimisers and the
objectives of the models (BSR, quadratic networks, attention) call nothing NumPy-only, the property that lets PyTorch
or CuPy arrays run them on a GPU. Each run must give the NumPy run's result (float64, to 1e-12), with plain gradient
steps, with Adam, and with runs frozen by ``tol`` (the boolean-mask path of the loop). Also: the device plumbing of
:mod:`solvable.backend` (its errors, ``"auto"`` on a machine without a GPU, round trips to the host).
"""

from __future__ import annotations

import numpy as np
import pytest

from solvable import attention, backend, bsr, gd, quadratic
from solvable.errors import InvalidParameterError

xs = pytest.importorskip("array_api_strict")


def _strict(*arrays):
    return tuple(xs.asarray(a) for a in arrays)


def _bsr_case():
    data = bsr.sample(10, 1.5, beta=1.0, rho=0.3, rng=1)
    rng = np.random.default_rng(2)
    params = (rng.standard_normal((4, 10, 3)), rng.standard_normal((4, 10, 3)))

    def objective(X, y):
        return gd.SquareLoss(bsr.BilinearMap(X), gd.LowRankProduct(3), y)

    return data, params, objective, 0.1


def _quadratic_case():
    data = quadratic.sample(10, 1.2, kappa=0.5, rng=3)
    params = (np.random.default_rng(4).standard_normal((4, data.m, 10)),)

    def objective(X, y):
        return quadratic._FactorisedSquareLoss(X, y, data.m)

    return data, params, objective, 0.05


def _attention_case():
    data = attention.sample(10, 0.8, rho=0.5, T=2, rng=5)
    params = (np.random.default_rng(6).standard_normal((4, 10, data.r)),)

    def objective(X, y):
        return attention.StudentLoss(X, y, data.r)

    return data, params, objective, 0.3


CASES = {"bsr": _bsr_case, "quadratic": _quadratic_case, "attention": _attention_case}
#: (optimiser, tol): a fixed number of steps, and runs frozen one by one once below tol (the masked path).
RUNS = {
    "gd": (lambda lr: gd.GradientStep(lr), 0.0),
    "adam": (lambda lr: gd.Adam(lr / 10), 0.0),
    "gd-frozen": (lambda lr: gd.GradientStep(lr), "tol"),
    "adam-frozen": (lambda lr: gd.Adam(lr / 10), "tol"),
}


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("case", CASES)
def test_run_gd_on_array_api_strict_equals_numpy(case, run):
    data, params, objective, lr = CASES[case]()
    make_step, tol = RUNS[run]
    kw = {"max_steps": 120, "record_every": 7, "target": data.S_star, "warn": False}
    numpy_objective = objective(data.X, data.y)
    if tol == "tol":  # halfway between the losses of the runs after a short descent: some freeze, some do not
        probe = gd.run_gd(
            numpy_objective, params, optimiser=make_step(lr), tol=0.0, **{**kw, "max_steps": 40}
        )
        tol = float(np.median(probe.losses))
    if case == "attention":
        kw["error"] = numpy_objective.error
    ref = gd.run_gd(numpy_objective, params, optimiser=make_step(lr), tol=tol, **kw)
    strict_objective = objective(*_strict(data.X, data.y))
    if case == "attention":
        kw["error"] = strict_objective.error
    res = gd.run_gd(strict_objective, _strict(*params), optimiser=make_step(lr), tol=tol, **kw)
    if tol > 0:  # runs stopped at different steps: some ran while others were frozen
        assert ref.converged.any() and len(set(ref.iterations.tolist())) > 1
    for name in ("estimates", "average", "errors", "losses", "loss_history", "error_history"):
        value = getattr(res, name)
        assert type(value) is np.ndarray, f"GDResult.{name} is not a NumPy array"
        np.testing.assert_allclose(value, getattr(ref, name), rtol=1e-12, atol=1e-14, err_msg=name)
    assert res.average_error == pytest.approx(ref.average_error, rel=1e-12)
    assert (
        res.iterations.tolist() == ref.iterations.tolist()
        and res.converged.tolist() == ref.converged.tolist()
    )


def test_float32_runs_in_float32_on_array_api_strict():
    data, params, objective, lr = _bsr_case()
    res = gd.run_gd(
        objective(*_strict(data.X.astype(np.float32), data.y)),
        _strict(*params),
        lr=lr,
        tol=0.0,
        max_steps=30,
        target=data.S_star,
        dtype=np.float32,
    )
    ref = gd.run_gd(
        objective(data.X.astype(np.float32), data.y),
        params,
        lr=lr,
        tol=0.0,
        max_steps=30,
        target=data.S_star,
        dtype=np.float32,
    )
    assert res.estimates.dtype == np.float64  # the result is float64 on the host whatever the precision
    np.testing.assert_allclose(res.estimates, ref.estimates, rtol=1e-5, atol=1e-6)


def test_device_argument_errors():
    with pytest.raises(ValueError, match="device"):
        backend.resolve("tpu")
    with pytest.raises(TypeError, match="device"):
        backend.resolve(3)
    data = bsr.sample(6, 1.0, beta=1.0, rho=0.5, rng=0)
    with pytest.raises(ValueError, match="device"):
        bsr.gd(data, n_inits=2, max_steps=2, device="tpu", rng=0)
    with pytest.raises(TypeError, match="device"):
        quadratic.gd(quadratic.sample(6, 0.5, kappa=0.5, rng=0), n_inits=2, max_steps=2, device=3, rng=0)


@pytest.mark.skipif(backend.gpu_available(), reason="this machine has a GPU library with a device")
def test_cuda_without_a_gpu_library_says_what_is_missing_and_auto_is_the_cpu():
    with pytest.raises(ValueError, match="device='cuda' needs PyTorch with CUDA or CuPy"):
        backend.resolve("cuda")
    data = attention.sample(8, 0.5, rho=0.5, T=2, rng=0)
    with pytest.raises(ValueError, match="device='cuda'"):
        attention.gd(data, n_inits=2, max_steps=2, device="cuda", rng=0)
    xp, dev = backend.resolve("auto")
    assert (xp, dev) == backend.resolve("cpu") and dev == "cpu"
    assert xp is backend.namespace(np.zeros(2))
    # "auto" gives the CPU run itself
    a = attention.gd(data, n_inits=2, max_steps=5, device="auto", rng=1)
    b = attention.gd(data, n_inits=2, max_steps=5, rng=1)
    assert np.array_equal(a.estimates, b.estimates)


def test_to_numpy_and_asarray_round_trips():
    x = np.random.default_rng(0).standard_normal((3, 4))
    assert backend.to_numpy(x) is x
    strict = xs.asarray(x)
    back = backend.to_numpy(strict)
    assert type(back) is np.ndarray and np.array_equal(back, x)
    xp, dev = backend.resolve("cpu")
    assert backend.asarray(x, xp, dev) is x
    y32 = backend.asarray(x, xp, dev, np.float32)
    assert y32.dtype == np.float32 and np.array_equal(backend.to_numpy(y32), x.astype(np.float32))
    s32 = backend.asarray(x, xs, xs.Device("CPU_DEVICE"), np.float32)
    assert s32.dtype == xs.float32 and np.array_equal(backend.to_numpy(s32), x.astype(np.float32))
    assert backend.to_numpy([1.0, 2.0]).tolist() == [1.0, 2.0]
    assert backend.is_non_numpy_array(strict) and not backend.is_non_numpy_array(x)
    with pytest.raises(ValueError, match="dtype"):
        backend.asarray(x, xp, dev, np.int64)


@pytest.mark.parametrize("bad", [[[1.0, 2.0], [3.0]], np.array(["a", "b"]), np.array([1j])])
def test_asarray_and_to_numpy_name_x_for_what_numpy_cannot_read(bad):
    with pytest.raises(InvalidParameterError, match="x must be an array"):
        backend.asarray(bad, np, "cpu")
    if isinstance(bad, list):  # to_numpy reads any array; a ragged list is none
        with pytest.raises(InvalidParameterError, match="x must be an array"):
            backend.to_numpy(bad)
