"""Shared linear-regression pieces (``solvable.regression``): the ridge estimator and the Gaussian linear MMSE."""

import math

import numpy as np
import pytest

from solvable import regression


@pytest.mark.parametrize("n, d", [(40, 10), (10, 40), (25, 25)])
def test_fit_ridge_is_the_direct_solve_of_the_normal_equations(n, d):
    """Both branches (d x d system when d <= n, n x n otherwise) equal (F^T F + lam I)^{-1} F^T y, F = X/sqrt(d)."""
    rng = np.random.default_rng(n + d)
    X, y = rng.standard_normal((n, d)), rng.standard_normal(n)
    F = X / math.sqrt(d)
    for lam in (1e-3, 0.7, 50.0):
        w = regression.fit_ridge(X, y, lam)
        direct = np.linalg.solve(F.T @ F + lam * np.eye(d), F.T @ y)
        assert w.shape == (d,) and w == pytest.approx(direct, rel=1e-9, abs=1e-12)
        grad = F.T @ (F @ w - y) + lam * w  # the objective's gradient vanishes
        assert np.max(np.abs(grad)) < 1e-9


@pytest.mark.parametrize(
    "args, name",
    [
        ((np.ones((3, 2)), np.ones(3), 0.0), "lam"),
        ((np.ones((3, 2)), np.ones(3), -1.0), "lam"),
        ((np.ones((3, 2)), np.ones(3), math.inf), "lam"),
        ((np.ones((3, 2)), np.ones(3), math.nan), "lam"),
        ((np.ones((3, 2)), np.ones(3), "1"), "lam"),
        ((np.ones(3), np.ones(3), 1.0), "X"),
        ((np.ones((0, 2)), np.ones(0), 1.0), "X"),
        ((np.ones((3, 2)), np.ones(4), 1.0), "y"),
        ((np.ones((3, 2)), np.ones((3, 1)), 1.0), "y"),
        ((np.full((3, 2), np.nan), np.ones(3), 1.0), "finite"),
        ((np.ones((3, 2)), np.array([1.0, np.inf, 0.0]), 1.0), "finite"),
    ],
)
def test_fit_ridge_refuses_malformed_input(args, name):
    with pytest.raises(ValueError, match=name):
        regression.fit_ridge(*args)


def test_gaussian_linear_mse_closed_forms():
    for alpha, delta in [(0.2, 0.1), (0.5, 0.0), (1.5, 0.3), (2.0, 1e-8), (1e6, 1.0), (1e-6, 1e6)]:
        m = regression.gaussian_linear_mse(alpha, delta)
        assert 0.0 <= m <= 1.0
        # the positive root of m^2 + (delta + alpha - 1) m - delta = 0, i.e. m = 1/(1 + alpha/(delta + m))
        assert m * m + (delta + alpha - 1) * m - delta == pytest.approx(
            0.0, abs=1e-12 * max(1.0, delta, alpha)
        )
        if delta > 0:
            assert m == pytest.approx(1 / (1 + alpha / (delta + m)), rel=1e-12)
    assert regression.gaussian_linear_mse(0.3, 0.0) == pytest.approx(0.7)
    assert regression.gaussian_linear_mse(1.5, 0.0) == 0.0
    assert regression.gaussian_linear_mse(0.0, 0.4) == 1.0
    # no cancellation at large alpha: m ~ delta/alpha
    assert regression.gaussian_linear_mse(1e12, 1.0) == pytest.approx(1e-12, rel=1e-6)
    # no overflow at huge noise (sqrt(b^2 + 4 delta) used to overflow to inf and give 0.0): m ~ 1 - alpha/delta
    assert regression.gaussian_linear_mse(0.3, 1e300) == 1.0
    assert regression.gaussian_linear_mse(1e300, 1e300) == pytest.approx(0.5)
    alphas = np.linspace(0.0, 5.0, 51)
    for delta in (0.0, 0.01, 1.0):
        m = [regression.gaussian_linear_mse(a, delta) for a in alphas]
        assert np.all(np.diff(m) <= 1e-15)  # non-increasing in alpha


def test_gaussian_linear_mse_is_the_finite_size_ridge_error():
    """Ridge at lam = delta is the posterior mean of a Gaussian signal: d = 200, alpha = 0.5, delta = 0.2, 20 seeds
    (spread about 0.01 per seed; tolerance 0.015 on the mean)."""
    d, alpha, delta = 200, 0.5, 0.2
    errs = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        w = rng.standard_normal(d)
        X = rng.standard_normal((round(alpha * d), d))
        y = X @ w / math.sqrt(d) + math.sqrt(delta) * rng.standard_normal(X.shape[0])
        errs.append(np.mean((regression.fit_ridge(X, y, delta) - w) ** 2))
    assert abs(np.mean(errs) - regression.gaussian_linear_mse(alpha, delta)) < 0.015


@pytest.mark.parametrize(
    "alpha, delta, name",
    [
        (-0.1, 0.0, "alpha"),
        (math.nan, 0.0, "alpha"),
        (math.inf, 0.0, "alpha"),
        ("a", 0.0, "alpha"),
        (0.5, -1e-3, "delta"),
        (0.5, math.nan, "delta"),
        (0.5, math.inf, "delta"),
        (0.5, None, "delta"),
    ],
)
def test_gaussian_linear_mse_refuses_malformed_input(alpha, delta, name):
    with pytest.raises(ValueError, match=name):
        regression.gaussian_linear_mse(alpha, delta)


def test_fit_ridge_at_huge_scales_and_rank_deficient_inputs():
    # SciPy's "array must not contain infs or NaNs" (X = 1e200 ...) and LinAlgError (rank-deficient, lam = 1e-300)
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((20, 8)), rng.standard_normal(20)
    fit_ridge = regression.fit_ridge
    w = fit_ridge(X, y, 0.5)
    for s in (1e-150, 1e150):
        np.testing.assert_allclose(fit_ridge(s * X, s * y, 0.5 * s * s), w, rtol=1e-10)
    Xr = np.hstack([X, X, X])
    np.testing.assert_allclose(
        fit_ridge(Xr, y, 1e-300), np.linalg.pinv(Xr / np.sqrt(24)) @ y, rtol=1e-8, atol=1e-10
    )
    assert np.array_equal(fit_ridge(np.zeros((5, 3)), np.ones(5), 1.0), np.zeros(3))
    with pytest.raises(ValueError, match="y .*too large"):
        fit_ridge(X * 1e-200, y * 1e200, 1e-300)
