"""Ellipsoid fitting (``solvable.ellipsoid``): the feasibility solver against exact constructions, planted
solutions, independent checks of its certificates, and the SAT/UNSAT transition far from n/d^2 = 1/4.

Timing note (one core): at d = 30, n = d^2/4 an iteration costs about 0.3 ms and an instance 0.05-1 s (up to a few
seconds when it lands right at the transition); at d = 20 and n/d^2 = 0.1 or 0.5 an instance takes about 10 ms.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvable import ellipsoid as el
from solvable.errors import ConvergenceWarning


def _certifies_infeasibility(X, z):
    """Independent check of a Farkas certificate: sum_i z_i x_i x_i^T PSD and sum_i z_i < 0 prove that no PSD S has
    x_i^T S x_i = 1 for all i (for such an S, sum z_i = <sum z_i x_i x_i^T, S> >= 0)."""
    M = X.T @ (z[:, None] * X)
    w = np.linalg.eigvalsh(M)
    # PSD up to the rounding of the product (1e-12 of its scale), and a sum clearly negative
    return w[0] >= -1e-12 * max(abs(w[-1]), 1e-300) and z.sum() < -1e-10 * np.abs(z).sum()


# --------------------------------------------------------------------------- constants


def test_threshold_and_its_finite_size_heuristic():
    assert el.threshold() == el.THRESHOLD == 0.25
    # d(d+1)/4 (statistical dimension of the PSD cone) over d^2, decreasing to 1/4
    for d in (1, 2, 20, 30, 1000):
        assert math.isclose(el.finite_size_threshold(d), d * (d + 1) / 4 / d**2, rel_tol=1e-14)
    assert el.finite_size_threshold(10**6) - 0.25 < 1e-6


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "4", None])
def test_sample_points_validates_sizes(bad):
    with pytest.raises(ValueError, match="n"):
        el.sample_points(5, n=bad, rng=0)
    with pytest.raises(ValueError, match="d"):
        el.sample_points(bad, n=5, rng=0)


def test_sample_points_shape_and_rng():
    X = el.sample_points(3, n=7, rng=1)
    assert X.shape == (7, 3)
    np.testing.assert_array_equal(X, el.sample_points(3, n=7, rng=np.random.default_rng(1)))
    with pytest.raises(ValueError, match="rng"):
        el.sample_points(3, n=7, rng=None)


@pytest.mark.parametrize(
    "points", [np.ones(5), np.full((3, 2), np.nan), np.zeros((0, 3)), "abc", np.full((3, 2), 1e200)]
)
def test_fit_validates_points(points):
    with pytest.raises(ValueError, match="points"):
        el.fit(points)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"tol": 1.0}, "tol"),
        ({"tol": -1e-3}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"max_iter": 1.5}, "max_iter"),
        ({"margin": -0.1}, "margin"),
        ({"margin": 1.0}, "margin"),
        ({"check_every": 0}, "check_every"),
    ],
)
def test_fit_validates_controls(kwargs, name):
    with pytest.raises(ValueError, match=name):
        el.fit(el.sample_points(3, n=4, rng=0), **kwargs)


def test_project_affine_validates_S():
    X = el.sample_points(3, n=4, rng=0)
    with pytest.raises(ValueError, match="S"):
        el.project_affine(np.eye(4), X)
    with pytest.raises(ValueError, match="S"):
        el.project_affine(np.triu(np.ones((3, 3))), X)
    with pytest.raises(ValueError, match="points"):
        el.project_affine(np.eye(3), el.sample_points(3, n=7, rng=0))  # n > d(d+1)/2 = 6: empty affine set


def test_sweep_validates():
    with pytest.raises(ValueError, match="ratios"):
        el.feasibility_sweep(5, [0.1, -0.2], 2, rng=0)
    with pytest.raises(ValueError, match="ratios"):
        el.feasibility_sweep(5, [0.1, 1.5], 2, rng=0)
    with pytest.raises(ValueError, match="n_seeds"):
        el.feasibility_sweep(5, [0.1], 0, rng=0)
    with pytest.raises(ValueError, match="n_seeds"):
        el.feasibility_sweep(5, [0.1], el.MAX_INSTANCES + 1, rng=0)


# --------------------------------------------------------------------------- the affine projection


def test_project_affine_is_the_orthogonal_projection():
    rng = np.random.default_rng(3)
    d, n = 8, 20
    X = el.sample_points(d, n=n, rng=rng)
    A = rng.standard_normal((d, d))
    S = A + A.T
    P = el.project_affine(S, X)
    np.testing.assert_allclose(el.constraint_values(X, P), 1.0, atol=1e-10)  # P is in the affine set
    np.testing.assert_allclose(el.project_affine(P, X), P, atol=1e-10)  # idempotent
    # S - P is orthogonal to the directions of the affine set: for T in it, <S - P, T - P> = 0
    B = rng.standard_normal((d, d))
    T = el.project_affine(B + B.T, X)
    assert abs(np.sum((S - P) * (T - P))) < 1e-8 * np.linalg.norm(S - P) * np.linalg.norm(T - P)


# --------------------------------------------------------------------------- feasible side


@pytest.mark.parametrize("seed", range(3))
def test_fewer_points_than_dimensions_is_feasible(seed):
    """n < d: the points are independent; S = B^T B with B = (X X^T)^{-1} X fits them exactly (X S X^T = I)."""
    n, d = 12, 20
    X = el.sample_points(d, n=n, rng=seed)
    B = np.linalg.solve(X @ X.T, X)
    S = B.T @ B
    np.testing.assert_allclose(el.constraint_values(X, S), 1.0, atol=1e-10)
    assert np.linalg.eigvalsh(S)[0] > -1e-12
    r = el.fit(X)
    assert r.feasible and r.converged and r.status == "feasible"
    assert r.residual <= 1e-8 and r.min_eigenvalue >= 0.0


@pytest.mark.parametrize("seed", range(4))
def test_fits_well_below_the_threshold(seed):
    """d = 20, n = 0.1 d^2 = 40. The transition sits near n = d(d+1)/4 = 105 with a window of a few d (about
    +-0.05 in n/d^2 at d = 20, measured); 40 points are far inside the feasible phase for every seed."""
    d = 20
    X = el.sample_points(d, n=round(0.1 * d * d), rng=seed)
    r = el.fit(X)
    assert r.status == "feasible"
    assert r.residual <= 1e-8
    w = np.linalg.eigvalsh(r.estimate)
    assert w[0] >= 0.0 and r.min_eigenvalue == pytest.approx(w[0])
    np.testing.assert_allclose(el.constraint_values(X, r.estimate), 1.0, atol=1e-8)
    assert r.iterations < 200  # measured 10-30


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), d=st.integers(3, 9), ratio=st.floats(0.05, 0.45))
def test_planted_ellipsoids_are_found_beyond_the_threshold(seed, d, ratio):
    """Points placed on a given ellipsoid (x_i rescaled so that x_i^T S0 x_i = 1, S0 positive definite) are
    feasible at any n <= d(d+1)/2, also above 1/4: the solver must never claim 'infeasible' there, and it finds a
    fit (S0 is an interior point of the PSD cone, so alternating projections converge linearly)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((d, d))
    S0 = np.eye(d) + 0.3 * (A @ A.T) / d
    n = max(1, min(round(ratio * d * d), d * (d + 1) // 2 - 1))
    X = el.sample_points(d, n=n, rng=rng)
    X /= np.sqrt(np.einsum("ij,jk,ik->i", X, S0, X))[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        r = el.fit(X, max_iter=20_000)
    assert r.status == "feasible"
    np.testing.assert_allclose(el.constraint_values(X, r.estimate), 1.0, atol=1e-8)
    assert np.linalg.eigvalsh(r.estimate)[0] >= 0.0


# --------------------------------------------------------------------------- infeasible side


@pytest.mark.parametrize("seed", range(4))
def test_does_not_fit_well_above_the_threshold(seed):
    """d = 20, n = 0.5 d^2 = 200 (below d(d+1)/2 = 210, so the affine set is not empty): far into the infeasible
    phase; the certificate is checked independently of the solver."""
    d = 20
    X = el.sample_points(d, n=round(0.5 * d * d), rng=seed)
    r = el.fit(X)
    assert r.status == "infeasible" and not r.feasible and r.converged
    assert _certifies_infeasibility(X, r.certificate)
    assert r.residual > 0.1  # the last PSD iterate is far from fitting
    assert r.iterations < 50  # measured 1


def test_more_constraints_than_unknowns():
    """n > d(d+1)/2: no symmetric matrix fits generic points; certificate from the null space of the Gram matrix."""
    X = el.sample_points(6, n=25, rng=0)
    r = el.fit(X)
    assert r.status == "infeasible" and _certifies_infeasibility(X, r.certificate)


def test_point_at_the_origin():
    X = el.sample_points(4, n=5, rng=0)
    X[2] = 0.0
    r = el.fit(X)
    assert r.status == "infeasible" and _certifies_infeasibility(X, r.certificate)


def test_every_infeasible_claim_carries_a_valid_certificate_near_the_transition():
    """Near n/d^2 = 1/4 the decision is delicate: every 'infeasible' must come with a valid certificate and every
    'feasible' with a PSD exact fit (d = 12, n from 0.2 d^2 to 0.3 d^2)."""
    rng = np.random.default_rng(11)
    d = 12
    statuses = set()
    for ratio in (0.2, 0.25, 0.3):
        for _ in range(5):
            X = el.sample_points(d, n=round(ratio * d * d), rng=rng)
            r = el.fit(X, warn=False)
            statuses.add(r.status)
            if r.status == "infeasible":
                assert _certifies_infeasibility(X, r.certificate)
            elif r.status == "feasible":
                assert r.residual <= 1e-8 and np.linalg.eigvalsh(r.estimate)[0] >= 0.0
    assert {"feasible", "infeasible"} <= statuses


def test_cap_is_reported_as_undecided():
    """One iteration is not enough at the transition: the result says so and warns; it is neither answer."""
    X = el.sample_points(20, n=round(0.26 * 400), rng=5)
    with pytest.warns(ConvergenceWarning, match="undecided"):
        r = el.fit(X, max_iter=1, check_every=1000)
    assert r.status == "undecided" and not r.feasible and not r.converged and r.certificate is None


# --------------------------------------------------------------------------- the sweep


def test_sweep_counts_and_error_bars():
    sw = el.feasibility_sweep(10, [0.1, 0.5], 6, rng=0)
    np.testing.assert_array_equal(sw.feasible + sw.infeasible + sw.undecided, [6, 6])
    np.testing.assert_array_equal(sw.n, [10, 50])
    # far from the transition at d = 10 (n = 10 and 50 against d(d+1)/4 = 27.5, window of a few d)
    np.testing.assert_array_equal(sw.fraction, [1.0, 0.0])
    assert np.all(sw.sem > 0) and np.all(sw.sem < 0.2)
    assert sw.iterations.shape == (2, 6)


def _sweep_with_counts(feasible, infeasible, instances, ratios):
    ratios = np.asarray(ratios, dtype=float)
    feasible, infeasible = np.asarray(feasible), np.asarray(infeasible)
    return el.FeasibilitySweep(
        d=20,
        ratios=ratios,
        n=np.round(ratios * 400).astype(int),
        feasible=feasible,
        infeasible=infeasible,
        undecided=instances - feasible - infeasible,
        n_seeds=instances,
        iterations=np.zeros((ratios.size, instances), dtype=int),
        seconds=0.0,
    )


def test_transition_fit_recovers_a_probit_curve():
    """Counts drawn from Phi((0.26 - r)/0.02) with 2000 instances per ratio: the centre's standard error is about
    4e-4 (reported by the fit and checked against its Fisher-information value), so 5 s.e. = 0.002."""
    from scipy.stats import norm

    ratios = np.array([0.1, 0.15, 0.2, 0.225, 0.25, 0.275, 0.3, 0.35, 0.4])
    N = 2000
    k = np.random.default_rng(0).binomial(N, norm.cdf((0.26 - ratios) / 0.02))
    t = _sweep_with_counts(k, N - k, N, ratios).transition()
    assert 2e-4 < t.center_sem < 1e-3
    assert abs(t.center - 0.26) < 5 * t.center_sem
    assert abs(t.width - 0.02) < 0.003  # relative s.e. of the width ~ 3 % at these counts


def test_transition_fit_with_a_jump_reports_the_grid_resolution():
    ratios = np.array([0.2, 0.25, 0.3])
    t = _sweep_with_counts([10, 10, 0], [0, 0, 10], 10, ratios).transition()
    assert 0.25 <= t.center <= 0.3 and t.center_sem == pytest.approx(0.025)


def test_a_gram_matrix_beyond_the_size_limit_is_refused_before_allocating():
    """Issue 20: fit and project_affine formed the n x n Gram matrix (and its factor) with no size check: 17000
    points in R^200 (n <= d(d+1)/2) meant 4 arrays of 2.9e8 numbers (9 GiB). Now refused with the peak named,
    before anything of that size is allocated."""
    import tracemalloc

    points = np.random.default_rng(0).standard_normal((17_000, 200))
    for call in (lambda: el.fit(points), lambda: el.project_affine(np.eye(200), points)):
        tracemalloc.start()
        try:
            with pytest.raises(ValueError, match="Gram matrix.*limit"):
                call()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 100 * 2**20


@pytest.mark.parametrize("scale", [1e-150, 1e-8, 1e8, 1e150])
def test_fit_decides_the_same_at_every_scale_of_the_points(scale):
    """x^T S x = 1 for x -> c x is solved by S / c^2: feasibility does not depend on the scale. At 1e-8 and 1e8
    the absolute eigenvalue floor left the fit 'undecided' after 10^4 iterations; at 1e+-150 it raised."""
    pts = np.random.default_rng(8).standard_normal((6, 4))
    assert el.fit(pts, warn=False).status == "feasible"
    r = el.fit(scale * pts, warn=False)
    assert r.status == "feasible" and r.residual <= 1e-8
    assert np.allclose(np.einsum("ij,jk,ik->i", scale * pts, r.estimate, scale * pts), 1.0, atol=1e-8)
    assert r.min_eigenvalue > 0
    with pytest.raises(ValueError, match="points are too"):
        el.fit(1e300 * pts, warn=False)
