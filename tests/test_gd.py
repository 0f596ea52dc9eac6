"""Gradient descent on factorised weights (``solvable.gd``) and averaged GD for BSR (``science/bsr.md``, Sec. 6)."""

import math

import numpy as np
import pytest
from solvable import bsr, gd, streams
from solvable.errors import ConvergenceWarning, DivergenceError


class QuadraticMeasurement:
    """``y_hat_mu = x_mu^T S x_mu/sqrt(d)`` (quadratic networks), batched over K: a second plug-in for run_gd."""

    def __init__(self, x):
        self.x = np.asarray(x, dtype=float)
        self.d = self.x.shape[1]

    def forward(self, S):
        return np.einsum("ni,kij,nj->kn", self.x, S, self.x) / math.sqrt(self.d)

    def adjoint(self, g):
        return np.einsum("kn,ni,nj->kij", g, self.x, self.x) / math.sqrt(self.d)


def _numerical_gradient(f, params, eps=1e-6):
    grads = []
    for i, p in enumerate(params):
        g = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            up = [q.copy() for q in params]
            dn = [q.copy() for q in params]
            up[i][idx] += eps
            dn[i][idx] -= eps
            g[idx] = (f(up)[idx[0]] - f(dn)[idx[0]]) / (2 * eps)  # run idx[0] only depends on its own params
        grads.append(g)
    return grads


def test_gradients_of_both_parametrisations_match_finite_differences():
    rng = np.random.default_rng(0)
    data = bsr.sample(4, 1.0, beta=1.25, rho=0.5, rng=rng)
    M, P = bsr.BilinearMap(data.X), gd.LowRankProduct(2)
    params = (rng.standard_normal((3, 4, 2)), rng.standard_normal((3, 5, 2)))
    loss, grads = gd.loss_and_gradient(M, P, data.y, params)
    num = _numerical_gradient(lambda p: gd.loss_and_gradient(M, P, data.y, p)[0], params)
    for g, n in zip(grads, num):
        assert g == pytest.approx(n, rel=1e-5, abs=1e-7)
    # the quadratic network plugs in its own measurement and parametrisation S = W^T W/sqrt(m d)
    x = rng.standard_normal((12, 4))
    Q, W = QuadraticMeasurement(x), gd.SymmetricSquare(m=3, d=4)
    y = rng.standard_normal(12)
    params = (rng.standard_normal((2, 3, 4)),)
    loss, grads = gd.loss_and_gradient(Q, W, y, params)
    num = _numerical_gradient(lambda p: gd.loss_and_gradient(Q, W, y, p)[0], params)
    assert grads[0] == pytest.approx(num[0], rel=1e-5, abs=1e-7)
    assert loss.shape == (2,)


def test_batched_runs_equal_separate_runs():
    data = bsr.sample(8, 0.3, beta=1.25, rho=0.25, rng=3)
    batch = bsr.gd(data, n_inits=3, lr=0.2, rng=7, max_steps=5000)
    assert batch.converged.all() and len(set(batch.iterations)) > 1
    rng = streams.stream(7, "init")  # the initialisations of an integer seed
    U0, V0 = rng.standard_normal((3, 8, 2)), rng.standard_normal((3, 10, 2))
    for k in range(3):
        one = gd.run_gd(
            gd.SquareLoss(bsr.BilinearMap(data.X), gd.LowRankProduct(2), data.y),
            (U0[k : k + 1], V0[k : k + 1]),
            lr=0.2,
            max_steps=5000,
            target=data.S_star,
        )
        assert (
            one.iterations[0] == batch.iterations[k]
        )  # a converged run is frozen: same stopping step as alone
        assert one.estimates[0] == pytest.approx(batch.estimates[k], abs=1e-10)
    assert batch.average == pytest.approx(batch.estimates.mean(axis=0))
    assert batch.average_error == pytest.approx(bsr.mse(batch.average, data))


@pytest.mark.parametrize("alpha, seed", [(0.1, 10), (0.2, 11)])
def test_averaged_gd_is_closer_to_the_bayes_error_than_single_gd(alpha, seed):
    """Lecture size of Sec. 6: d = L = 40, rho = 0.2, prior init, lr 0.4, K = 32, stop at loss/sum(y^2) < 1e-6.

    Measured over 4 data sets: single/Bayes 1.96-2.26 (alpha = 0.1), 2.39-3.29 (0.2); averaged/Bayes 0.94-1.12,
    0.99-1.45 (the notes: 1.9-2.05, 2.4-2.8 and 0.90-1.04, 0.96-1.15). 50-160 steps, 0.1-1 s.
    """
    data = bsr.sample(40, alpha, beta=1.0, rho=0.2, rng=seed)
    res = bsr.gd(data, n_inits=32, lr=0.4, tol=1e-6, rng=seed)
    bayes = bsr.bayes_optimal_mmse(alpha, 1.0, 0.2)
    assert res.converged.all() and np.all(res.losses < 1e-6)  # the training loss is really below tolerance
    assert res.loss_history[0].min() > 0.1 and res.iterations.max() < 400
    assert abs(res.average_error - bayes) < abs(res.error - bayes)
    assert 1.6 < res.error / bayes < 4.0
    assert 0.8 < res.average_error / bayes < 1.6


def test_error_history_and_single_precision():
    """``error_history`` follows each run (its last row is the final error); float32 reaches the same
    solutions up to rounding amplified along flat directions (measured at d = L = 40, alpha = 0.1: errors
    within 1e-7; at alpha = 0.3, with thousands of steps: per-run errors within 0.03, averaged GD within
    1e-4)."""
    data = bsr.sample(20, 0.1, beta=1.0, rho=0.2, rng=2)
    r64 = bsr.gd(data, n_inits=4, lr=0.4, record_every=1, rng=3)
    assert r64.error_history.shape == r64.loss_history.shape == (r64.iterations.max() + 1, 4)
    assert r64.error_history[-1] == pytest.approx(r64.errors, rel=1e-12)
    assert r64.error_history[0].min() > r64.errors.max() / 10  # from the prior init, far from any solution
    r32 = bsr.gd(data, n_inits=4, lr=0.4, record_every=1, rng=3, dtype=np.float32)
    assert r32.converged.all() and r32.estimates.dtype == np.float64 and np.all(r32.losses < 1e-6)
    assert r32.errors == pytest.approx(r64.errors, abs=1e-4)
    assert abs(r32.average_error - r64.average_error) < 1e-4
    with pytest.raises(ValueError, match="dtype"):
        bsr.gd(data, n_inits=2, lr=0.4, dtype=np.int32, rng=0)
    with pytest.raises(ValueError, match="dtype"):
        gd.run_gd(
            gd.SquareLoss(bsr.BilinearMap(data.X), gd.LowRankProduct(4), data.y),
            (np.ones((1, 20, 4)), np.ones((1, 20, 4))),
            lr=0.1,
            dtype=np.float16,
        )


def test_gd_warns_at_its_step_cap_and_raises_on_divergence():
    data = bsr.sample(10, 0.3, beta=1.0, rho=0.2, rng=0)
    with pytest.warns(ConvergenceWarning, match="cap of 5 steps"):
        res = bsr.gd(data, n_inits=4, lr=0.1, max_steps=5, rng=0)
    assert not res.converged.any() and np.all(res.iterations == 5) and res.loss_history.shape == (1, 4)
    fixed = bsr.gd(data, n_inits=2, lr=0.1, tol=0.0, max_steps=7, record_every=1, rng=0)  # no warning
    assert np.all(fixed.iterations == 7) and fixed.loss_history.shape == (8, 2)
    with pytest.raises(DivergenceError, match="step"):
        bsr.gd(data, n_inits=2, lr=1e3, rng=0)


def test_small_initialisation_and_no_target():
    data = bsr.sample(10, 0.3, beta=1.0, rho=0.2, rng=1)
    res = bsr.gd(data, n_inits=2, lr=0.4, init="small", init_scale=1e-4, rng=0, max_steps=20000)
    assert res.converged.all() and res.losses.max() < 1e-6
    out = gd.run_gd(
        gd.SquareLoss(bsr.BilinearMap(data.X), gd.LowRankProduct(2), data.y),
        (np.ones((1, 10, 2)), np.ones((1, 10, 2))),
        lr=0.1,
        tol=0.0,
        max_steps=3,
    )
    assert np.isnan(out.errors).all() and math.isnan(out.average_error)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"lr": -0.1}, "lr"),
        ({"lr": 0.1, "tol": -1.0}, "tol"),
        ({"lr": 0.1, "max_steps": -1}, "max_steps"),
        ({"lr": 0.1, "tol": float("inf")}, "tol"),
        ({}, "lr"),
        ({"lr": 0.1, "params0": (np.full((2, 3, 1), np.nan), np.ones((2, 3, 1)))}, "params0"),
        ({"lr": 0.1, "record_every": 0}, "record_every"),
        ({"lr": 0.1, "y": np.zeros(5)}, "y"),
        ({"lr": 0.1, "y": np.ones((5, 1))}, "y"),
        ({"lr": 0.1, "params0": (np.ones((2, 3, 1)), np.ones((3, 3, 1)))}, "params0"),
    ],
)
def test_run_gd_rejects_bad_input(kwargs, name):
    data = bsr.sample(3, 0.6, beta=1.0, rho=1 / 3, rng=0)
    args = {"y": data.y, "params0": (np.ones((2, 3, 1)), np.ones((2, 3, 1)))}
    args.update(kwargs)
    y = args.pop("y")
    with pytest.raises(ValueError, match=name):
        gd.run_gd(gd.SquareLoss(bsr.BilinearMap(data.X), gd.LowRankProduct(1), y), **args)


def test_optimisers_store_their_controls_as_floats():
    """A Fraction or NumPy scalar step size is stored as the float it is (and compares equal to it)."""
    from fractions import Fraction

    assert gd.GradientStep(lr=Fraction(1, 10)) == gd.GradientStep(lr=0.1)
    a = gd.Adam(lr=Fraction(1, 100), beta1=np.float32(0.5), beta2=Fraction(9, 10), eps=np.float64(1e-8))
    assert a == gd.Adam(lr=0.01, beta1=0.5, beta2=0.9, eps=1e-8)
    assert all(type(v) is float for v in (a.lr, a.beta1, a.beta2, a.eps))
