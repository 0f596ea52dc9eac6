"""Statistical dimensions of descent cones (``solvable.convex``): against the Donoho-Gavish-Montanari threshold of
``bsr``, closed forms at the edges, a Monte Carlo draw at finite size, and the nuclear-norm ERM theory of
``quadratic`` (its lambda -> 0+ error vanishes exactly above the PSD statistical dimension); the ADMM solver of the
minimum-trace PSD program (recovery above the threshold, failure below, KKT conditions, validation)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvable import bsr, convex, quadratic
from solvable.errors import ConvergenceWarning


@pytest.mark.parametrize(("beta", "rho"), [(1.0, 0.2), (1.0, 0.5), (2.0, 0.1), (0.5, 0.1), (4.0, 0.7)])
def test_nuclear_norm_equals_the_mnne_threshold(beta, rho):
    # two computations: stationarity root (bsr) and direct minimisation (convex)
    assert convex.nuclear_norm_statistical_dimension(beta, rho) == pytest.approx(
        bsr.nuclear_norm_threshold(beta, rho), abs=1e-9
    )


def test_nuclear_norm_edges():
    assert convex.nuclear_norm_statistical_dimension(1.0, 0.2) == pytest.approx(0.5716899, abs=1e-7)
    assert convex.nuclear_norm_statistical_dimension(math.inf, 0.3) == pytest.approx(0.3 * 1.7)
    assert convex.nuclear_norm_statistical_dimension(3.0, 1.0) == 1.0
    assert convex.nuclear_norm_statistical_dimension(3.0, 0.0) == pytest.approx(0.0, abs=1e-12)
    # large aspect ratio approaches the beta = inf closed form
    assert convex.nuclear_norm_statistical_dimension(1e6, 0.3) == pytest.approx(0.51, abs=1e-3)


def test_psd_trace_values_and_edges():
    assert convex.psd_trace_statistical_dimension(0.5) == pytest.approx(0.4221750, abs=1e-7)
    assert convex.psd_trace_statistical_dimension(1.0) == 0.5
    assert convex.psd_trace_statistical_dimension(0.0) == 0.0
    kappas = np.linspace(0.05, 0.95, 10)
    values = [convex.psd_trace_statistical_dimension(k) for k in kappas]
    assert np.all(np.diff(values) > 0)
    # above the parameter count kappa - kappa^2/2 (convexity costs samples), below 1/2
    assert all(quadratic.perfect_recovery_threshold(k) < v < 0.5 for k, v in zip(kappas, values))


def test_psd_trace_against_a_finite_size_draw():
    # E dist^2(G, tau df) at d = 120, k = 60, tau = t sqrt(d) at the optimal t of the limit (t ~ 0.146 at kappa 1/2):
    # tangent part exact, orthogonal block from 4 GOE draws; the limit holds to O(1/d)
    d, k, t = 120, 60, 0.146
    rng = np.random.default_rng(0)
    tau, tangent = t * math.sqrt(d), k * d - k * (k - 1) / 2
    block = []
    for _ in range(4):
        A = rng.standard_normal((d - k, d - k))
        lam = np.linalg.eigvalsh((A + A.T) / 2)  # diagonal variance 1, off-diagonal 1/2
        block.append(np.sum(np.clip(lam - tau, 0, None) ** 2))
    value = (tangent + tau**2 * k + np.mean(block)) / d**2
    assert value == pytest.approx(convex.psd_trace_statistical_dimension(0.5), abs=5e-3)


def test_psd_threshold_is_where_the_interpolating_erm_recovers():
    # the lambda -> 0+ limit of the chapter's ERM theory: error of order one below, ~0 above
    below = quadratic.nuclear_norm_erm_theory(0.40, 0.5, 0.0).error
    above = quadratic.nuclear_norm_erm_theory(0.43, 0.5, 0.0).error
    assert below > 1e-3 and above < 1e-6


@pytest.mark.parametrize(
    ("call", "bad"),
    [
        (lambda: convex.nuclear_norm_statistical_dimension(0.0, 0.2), "beta"),
        (lambda: convex.nuclear_norm_statistical_dimension(1.0, 1.5), "rho"),
        (lambda: convex.psd_trace_statistical_dimension(-0.1), "kappa"),
    ],
)
def test_bad_arguments_are_named(call, bad):
    with pytest.raises(ValueError, match=bad):
        call()


# --------------------------------------------------------------------------- psd_trace_minimization (ADMM)
def _network_problem(d, alpha, seed, kappa=0.5):
    data = quadratic.sample(d, alpha, kappa=kappa, rng=seed)
    Z = (data.X[:, :, None] * data.X[:, None, :] - np.eye(d)) / math.sqrt(d)
    return Z, data


def test_trace_minimization_recovers_above_the_threshold():
    # d = 16, kappa = 1/2: alpha = 0.5 lies well above alpha_cvx = 0.42 (and its finite-d value ~0.44)
    for seed in range(2):
        Z, data = _network_problem(16, 0.5, seed)
        r = convex.psd_trace_minimization(Z, data.y)
        assert r.converged
        assert np.linalg.norm(r.estimate - data.S_star) < 1e-4 * np.linalg.norm(data.S_star)
        assert r.trace == pytest.approx(np.trace(data.S_star), rel=1e-5)


def test_trace_minimization_fails_below_the_threshold_and_beats_the_teacher():
    # alpha = 0.3 (below alpha_PR = 0.375 even): another PSD matrix fits, of smaller trace than S*
    Z, data = _network_problem(16, 0.3, 0)
    r = convex.psd_trace_minimization(Z, data.y)
    assert r.converged
    assert np.linalg.norm(r.estimate - data.S_star) > 0.1 * np.linalg.norm(data.S_star)
    assert r.trace < np.trace(data.S_star)


def test_trace_minimization_kkt():
    # feasibility, PSD primal, PSD certificate M = I - A^*(nu), complementary slackness, dual in range(A^*)
    Z, data = _network_problem(16, 0.38, 1)
    r = convex.psd_trace_minimization(Z, data.y, tol=1e-7, max_iter=20000)
    S, M = r.estimate, r.certificate
    residual = np.einsum("mij,ij->m", Z, S) - data.y
    assert r.converged and np.linalg.norm(residual) < 1e-5 * np.linalg.norm(data.y)
    assert r.feasibility < 1e-5
    assert np.linalg.eigvalsh(S).min() > -1e-12 and np.linalg.eigvalsh(M).min() > -1e-4
    assert abs(np.sum(M * S)) < 1e-4 * np.trace(S)
    # I - M lies in the span of the Z_mu
    A = Z.reshape(len(Z), -1)
    coef = np.linalg.lstsq(A.T, (np.eye(16) - M).ravel(), rcond=None)[0]
    assert np.linalg.norm(A.T @ coef - (np.eye(16) - M).ravel()) < 1e-4 * np.linalg.norm(np.eye(16) - M)


def test_trace_minimization_scale_invariance_and_zero_labels():
    Z, data = _network_problem(12, 0.5, 2)
    r1 = convex.psd_trace_minimization(Z, data.y)
    r2 = convex.psd_trace_minimization(3.0 * Z, 3.0 * 7.0 * data.y)  # (Z, y) -> c(Z, y), then y -> 7 y
    assert np.allclose(r2.estimate, 7.0 * r1.estimate, atol=1e-6 * np.abs(r1.estimate).max() * 7)
    r0 = convex.psd_trace_minimization(Z, np.zeros(len(data.y)))
    assert r0.converged and r0.trace == 0.0 and not r0.estimate.any()


def test_trace_minimization_gaussian_sensing_recovers():
    # GOE sensing matrices: the same program, the same threshold in the limit
    rng = np.random.default_rng(5)
    d, k = 14, 3
    W = rng.standard_normal((d, k))
    S = W @ W.T / d
    n = int(0.45 * d * d)
    G = rng.standard_normal((n, d, d))
    G = (G + G.transpose(0, 2, 1)) / 2
    r = convex.psd_trace_minimization(G, np.einsum("mij,ij->m", G, S))
    assert np.linalg.norm(r.estimate - S) < 1e-4 * np.linalg.norm(S)


def test_trace_minimization_warns_at_the_cap():
    Z, data = _network_problem(12, 0.5, 3)
    with pytest.warns(ConvergenceWarning, match="did not converge in 3 iterations"):
        r = convex.psd_trace_minimization(Z, data.y, max_iter=3)
    assert not r.converged and r.iterations == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        convex.psd_trace_minimization(Z, data.y, max_iter=3, warn=False)


def _bad_calls():
    Z = np.stack([np.eye(3), np.diag([1.0, -1.0, 0.0])])
    y = np.array([1.0, 0.5])
    nonsym = Z.copy()
    nonsym[0, 0, 1] = 1.0
    return [
        (lambda: convex.psd_trace_minimization(Z[:, :, :2], y), "sensing"),
        (lambda: convex.psd_trace_minimization(nonsym, y), "symmetric"),
        (lambda: convex.psd_trace_minimization(np.stack([Z[0], 2 * Z[0]]), y), "linearly dependent"),
        (lambda: convex.psd_trace_minimization(np.zeros((7, 3, 3)), np.ones(7)), "sensing"),
        (lambda: convex.psd_trace_minimization(Z, y[:1]), "y"),
        (lambda: convex.psd_trace_minimization(Z, [np.nan, 1.0]), "y"),
        (lambda: convex.psd_trace_minimization(Z, y, rho_admm=0.0), "rho_admm"),
        (lambda: convex.psd_trace_minimization(Z, y, tol=1.0), "tol"),
        (lambda: convex.psd_trace_minimization(Z, y, max_iter=0), "max_iter"),
    ]


@pytest.mark.parametrize("case", range(9))
def test_trace_minimization_bad_arguments(case):
    call, match = _bad_calls()[case]
    with pytest.raises(ValueError, match=match):
        call()
    with pytest.raises(TypeError, match="sensing"):
        convex.psd_trace_minimization("abc", [1.0])


# --------------------------------------------------------------------------- nuclear_norm_minimization (ADMM)
def _low_rank_problem(d, L, r, ratio, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((d, r)) @ rng.standard_normal((r, L)) / math.sqrt(d)
    G = rng.standard_normal((int(ratio * d * L), d, L))
    return G, np.einsum("mij,ij->m", G, X), X


def test_nuclear_norm_minimization_threshold_and_kkt():
    # d = 12, L = 16, rank 2: the statistical dimension is 0.46 dL; recovery at 0.65 dL, not at 0.3 dL
    assert convex.nuclear_norm_statistical_dimension(16 / 12, 2 / 12) == pytest.approx(0.463, abs=1e-3)
    G, y, X = _low_rank_problem(12, 16, 2, 0.65, 0)
    r = convex.nuclear_norm_minimization(G, y, tol=1e-7, max_iter=20000)
    assert r.converged and np.linalg.norm(r.estimate - X) < 1e-4 * np.linalg.norm(X)
    G, y, X = _low_rank_problem(12, 16, 2, 0.3, 1)
    r = convex.nuclear_norm_minimization(G, y, tol=1e-7, max_iter=20000)
    assert r.converged and np.linalg.norm(r.estimate - X) > 0.1 * np.linalg.norm(X)
    assert r.nuclear_norm < np.sum(np.linalg.svd(X, compute_uv=False))  # a smaller-norm matrix fits
    # KKT: feasible, ||Y||_op <= 1, <Y, X_hat> = ||X_hat||_*, Y in the span of the Z_mu
    Y = r.certificate
    assert r.feasibility < 1e-5 and np.linalg.norm(Y, 2) < 1 + 1e-4
    assert np.sum(Y * r.estimate) == pytest.approx(r.nuclear_norm, rel=1e-4)
    A = G.reshape(len(G), -1)
    coef = np.linalg.lstsq(A.T, Y.ravel(), rcond=None)[0]
    assert np.linalg.norm(A.T @ coef - Y.ravel()) < 1e-4 * np.linalg.norm(Y)


def test_nuclear_norm_minimization_validation_and_cap():
    G, y, _ = _low_rank_problem(4, 5, 1, 0.5, 2)
    with pytest.warns(ConvergenceWarning, match="nuclear_norm_minimization did not converge in 2"):
        convex.nuclear_norm_minimization(G, y, max_iter=2)
    with pytest.raises(ValueError, match="sensing"):
        convex.nuclear_norm_minimization(np.ones((21, 4, 5)), np.ones(21))
    with pytest.raises(ValueError, match="y"):
        convex.nuclear_norm_minimization(G, y[:-1])
    with pytest.raises(ValueError, match="rho_admm"):
        convex.nuclear_norm_minimization(G, y, rho_admm=-1.0)
    zero = convex.nuclear_norm_minimization(G, np.zeros_like(y))
    assert zero.nuclear_norm == 0.0 and zero.estimate.shape == (4, 5)


# --------------------------------------------------------------------------- scale equivariance (hypothesis)


def _fixed_problem():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((5, 1)) @ rng.standard_normal((1, 6))
    G = rng.standard_normal((14, 5, 6))
    P = rng.standard_normal((5, 2))
    Zs = rng.standard_normal((10, 5, 5))
    Zs = Zs + np.swapaxes(Zs, 1, 2)
    return G, np.einsum("mij,ij->m", G, X), Zs, np.einsum("mij,ij->m", Zs, P @ P.T)


_G, _Y, _ZS, _YS = _fixed_problem()
_BASE = convex.nuclear_norm_minimization(_G, _Y, tol=1e-9, max_iter=20000)
_BASE_PSD = convex.psd_trace_minimization(_ZS, _YS, tol=1e-9, max_iter=20000)


@settings(max_examples=12, deadline=None)
@given(log_c=st.floats(-250, 250), row=st.integers(0, 9), log_r=st.floats(-250, 250))
def test_the_convex_programs_are_scale_equivariant(log_c, row, log_r):
    """y -> c y scales the minimiser by c; (Z_mu, y_mu) -> r (Z_mu, y_mu) for one measurement leaves it unchanged,
    for c and r anywhere in the float range (tiny labels are not S = 0, huge ones not beyond the float range, a
    rescaled row not linearly dependent)."""
    c, r = 10.0**log_c, 10.0**log_r
    res = convex.nuclear_norm_minimization(_G, c * _Y, tol=1e-9, max_iter=20000)
    assert res.converged and res.nuclear_norm == pytest.approx(c * _BASE.nuclear_norm, rel=1e-9)
    assert np.allclose(res.estimate / c, _BASE.estimate, rtol=0, atol=1e-9 * np.max(np.abs(_BASE.estimate)))
    G, y = _G.copy(), _Y.copy()
    G[row], y[row] = r * G[row], r * y[row]
    res = convex.nuclear_norm_minimization(G, y, tol=1e-9, max_iter=20000)
    assert res.nuclear_norm == pytest.approx(_BASE.nuclear_norm, rel=1e-9)
    res = convex.psd_trace_minimization(_ZS, c * _YS, tol=1e-9, max_iter=20000)
    assert res.converged and res.trace == pytest.approx(c * _BASE_PSD.trace, rel=1e-9)
    Z, y = _ZS.copy(), _YS.copy()
    Z[row], y[row] = r * Z[row], r * y[row]
    assert convex.psd_trace_minimization(Z, y, tol=1e-9, max_iter=20000).trace == pytest.approx(
        _BASE_PSD.trace, rel=1e-9
    )


def test_labels_whose_minimiser_leaves_the_float_range_are_refused():
    G = np.stack([np.eye(2, 3), np.ones((2, 3))])
    with pytest.raises(ValueError, match="beyond the float range"):
        convex.nuclear_norm_minimization(G * 1e-300, np.array([1e300, 1.0]), tol=1e-6)
    with pytest.raises(ValueError, match="zero"):
        convex.nuclear_norm_minimization(np.stack([np.eye(2, 3), np.zeros((2, 3))]), np.ones(2))
