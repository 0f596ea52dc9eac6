"""Rotationally invariant estimators and their MMSE (``science/random_matrices.md``, Secs. 3-5)."""

import math

import numpy as np
import pytest
from _reference import reference
from scipy.integrate import quad
from scipy.optimize import brentq

from solvable import rie
from solvable.spectra import (
    MarchenkoPastur,
    Semicircle,
    free_convolution_semicircle,
    rectangular_plus_noise,
    wishart_plus_goe,
)


def _adaptive(law, f):
    """scipy's adaptive quadrature over the pieces of the support (the independent reference)."""
    return sum(quad(f, lo, hi, limit=200, epsabs=1e-14, epsrel=1e-11)[0] for lo, hi in law.pieces)


# --------------------------------------------------------------------------- symmetric: formulas


def test_symmetric_mmse_matches_the_notes():
    """Sec. 5, check 4: mmse_RIE(s = 0.6) = 0.28390 at kappa = 0.5 (paper normalisation)."""
    assert rie.symmetric_rie_mmse(0.6, 0.5) == pytest.approx(0.28390, abs=5e-6)


@pytest.mark.parametrize("kappa, s", [(0.5, 0.6), (0.5, 1e-3), (1.0, 0.05), (3.0, 2.0)])
def test_symmetric_mmse_agrees_with_adaptive_quadrature(kappa, s):
    law = wishart_plus_goe(kappa, s)
    i3 = _adaptive(law, lambda x: law.density(x) ** 3)
    expected = s - 4 * math.pi**2 / 3 * s * s * i3
    assert rie.symmetric_rie_mmse(s, kappa) == pytest.approx(expected, rel=1e-6)
    assert rie.symmetric_rie_mmse(s, kappa, n_nodes=128) == pytest.approx(expected, rel=1e-8)


@pytest.mark.parametrize("kappa, slope", [(0.5, 0.75), (0.2, 0.36), (1.0, 1.0), (2.0, 1.0)])
def test_symmetric_small_noise_slope_is_the_parameter_fraction(kappa, slope):
    """Sec. 3: mmse(s)/s -> 2 kappa - kappa^2 (kappa < 1) or 1; continuous across the switch to the limit."""
    assert rie.wishart_parameter_fraction(kappa) == pytest.approx(slope)
    assert rie.symmetric_rie_mmse(1e-6, kappa) / 1e-6 == pytest.approx(slope, rel=1e-12)
    computed = rie.symmetric_rie_mmse(2e-5, kappa) / 2e-5  # just above SYMMETRIC_SMALL_NOISE
    assert computed == pytest.approx(slope, rel=2e-3)
    assert rie.symmetric_rie_mmse(1e-3, kappa) / 1e-3 == pytest.approx(slope, rel=2e-2)
    assert rie.symmetric_rie_mmse(0.0, kappa) == 0.0


def test_symmetric_large_noise_gives_the_spectral_variance():
    """s -> inf: the prior variance of S (1 in the paper normalisation, 1/kappa in the mean-one one)."""
    assert rie.symmetric_rie_mmse(1e4, 0.5) == pytest.approx(1.0, abs=2e-4)
    assert rie.symmetric_rie_mmse(1e4, 0.5, "mean_one") == pytest.approx(2.0, abs=1e-3)
    # and the normalisations are consistent: mmse_W(s) = mmse_paper(kappa s)/kappa
    paper = rie.symmetric_rie_mmse(0.6, 0.5)
    assert rie.symmetric_rie_mmse(0.6 / 0.5, 0.5, "mean_one") == pytest.approx(paper / 0.5)


def test_large_kappa_tends_to_the_goe_limit():
    """Sec. 5, check 6: kappa -> inf (centred Wishart -> GOE) gives s/(1 + s); the gap shrinks ~ 1/kappa."""
    s = 0.5
    gaps = [abs(rie.symmetric_rie_mmse(s, k) - s / (1 + s)) for k in (1e2, 1e3, 1e4)]
    assert gaps[2] < 1e-5 and gaps[0] > gaps[1] > gaps[2]


def test_mmse_is_monotone_in_the_noise():
    s = np.geomspace(1e-4, 1e3, 30)
    values = np.array([rie.symmetric_rie_mmse(x, 0.5) for x in s])
    assert np.all(np.diff(values) > 0) and np.all(values < s)


def test_semicircle_signal_closed_form():
    """Sec. 5, check 3: a semicircle signal of variance v gives s v/(s + v)."""
    v, s = 0.7, 0.4
    law_y = Semicircle(v + s)
    generic = rie.symmetric_rie_mmse_from_density(s, law_y.density, law_y.bulks)
    assert generic == pytest.approx(rie.semicircle_rie_mmse(s, v), rel=1e-12)
    assert rie.semicircle_rie_mmse(s, v) == pytest.approx(s * v / (s + v))
    # the RIE of a semicircle is the linear (Wiener) shrinkage v/(v + s) inside the bulk
    lam = np.linspace(-1.5, 1.5, 7)
    assert np.allclose(rie.symmetric_rie_eigenvalues(lam, s, law=law_y), lam * v / (v + s))


def test_deterministic_signal_has_zero_mmse():
    """Sec. 5, check 3: S = c I is recovered exactly (rho_Y is a semicircle of variance s centred at c)."""
    c, s = 1.3, 0.5
    assert rie.symmetric_rie_mmse_from_density(s, lambda x: Semicircle(s).density(x - c),
                                               [(c - 2 * math.sqrt(s), c + 2 * math.sqrt(s))]) < 1e-12
    rng = np.random.default_rng(0)
    d = 200
    Y = c * np.eye(d) + math.sqrt(s) * rie.sample_goe(d, rng)
    estimate = rie.symmetric_rie(Y, s, law=lambda x: Semicircle(s).stieltjes_real(x - c))
    # bulk eigenvalues go exactly to c; the few beyond the finite-size edges to c + sqrt((x-c)^2 - 4s)
    assert rie.symmetric_error(estimate, c * np.eye(d)) < 1e-3 * s


def test_generic_subordination_route_equals_the_cubic():
    kappa, s = 0.5, 0.6
    law = wishart_plus_goe(kappa, s)

    def density(x):
        return -free_convolution_semicircle(MarchenkoPastur(kappa).stieltjes, s, x + 1e-12j).imag / math.pi

    generic = rie.symmetric_rie_mmse_from_density(s, density, law.pieces, n_nodes=64)
    assert generic == pytest.approx(rie.symmetric_rie_mmse(s, kappa), rel=1e-6)

    def re_g(x):
        return free_convolution_semicircle(MarchenkoPastur(kappa).stieltjes, s, np.asarray(x) + 1e-12j).real

    lam = np.array([-2.0, -0.5, 1.0, 3.0, 4.5, 6.0])
    generic_map = rie.symmetric_rie_eigenvalues(lam, s, law=re_g)
    assert np.allclose(generic_map, rie.symmetric_rie_eigenvalues(lam, s, kappa), atol=1e-7)


# --------------------------------------------------------------------------- symmetric: finite size


def test_symmetric_rie_at_d_1000_matches_the_theory():
    """Sec. 5, check 4: one draw at d = 1000, kappa = 0.5, s = 0.6: ~0.2830 against 0.28390.

    Over 8 seeds the error is 0.28356 +- 0.00063 (std): 1 % is about 4.5 standard deviations, and covers the
    O(1/d) finite-size bias (-0.1 %). One eigendecomposition of size 1000 (about 0.4 s single-threaded).
    """
    rng = np.random.default_rng(2024)
    d, kappa, s = 1000, 0.5, 0.6
    S = rie.sample_wishart(d, kappa, rng)
    Y = S + math.sqrt(s) * rie.sample_goe(d, rng)
    error = rie.symmetric_error(rie.symmetric_rie(Y, s, kappa), S)
    theory = rie.symmetric_rie_mmse(s, kappa)
    assert error == pytest.approx(theory, rel=0.01)
    # the baselines are worse, in the expected order, and match their own formulas
    identity = rie.symmetric_error(Y, S)
    shrunk = rie.symmetric_error(rie.scalar_shrinkage(Y, s, 1 + kappa, mean=math.sqrt(kappa)), S)
    assert identity == pytest.approx(rie.identity_mse(s), rel=0.02)
    assert shrunk == pytest.approx(rie.scalar_shrinkage_mse(s, 1 + kappa, mean=math.sqrt(kappa)), rel=0.02)
    assert error < shrunk < identity


def test_symmetric_rie_handles_outliers_and_small_sizes():
    """Eigenvalues beyond the bulk edges use the branch that continues to ~1/x (finite d, outliers)."""
    rng = np.random.default_rng(1)
    d, kappa, s = 60, 0.5, 0.3
    S = rie.sample_wishart(d, kappa, rng)
    Y = S + math.sqrt(s) * rie.sample_goe(d, rng)
    Y[0, 0] += 8.0  # an outlier far beyond the edge
    estimate = rie.symmetric_rie(Y, s, kappa)
    assert np.all(np.isfinite(estimate)) and np.allclose(estimate, estimate.T)
    lam = np.linalg.eigvalsh(Y)
    mapped = rie.symmetric_rie_eigenvalues(lam, s, kappa)
    assert mapped[-1] == pytest.approx(lam[-1] - 2 * s / lam[-1], rel=0.05)  # Re G ~ 1/x far out
    assert np.all(np.diff(mapped) > 0)  # the map is monotone: no branch jumps


# --------------------------------------------------------------------------- rectangular: formulas


@pytest.mark.parametrize(
    "R1, R2, delta", [(1.0, 0.2, 1.22), (2.0, 0.5, 0.5), (2.0, 0.5, 1e-3), (1.5, 2.0, 0.3)]
)
def test_rectangular_mmse_agrees_with_adaptive_quadrature(R1, R2, delta):
    law = rectangular_plus_noise(R1, R2, delta)
    i3 = 2 * _adaptive(law, lambda x: law.density(x) ** 3)
    i1 = 2 * _adaptive(law, lambda x: law.density(x) / x**2) if R1 > 1 else 0.0
    expected = delta - delta**2 / R1**1.5 * ((R1 - 1) ** 2 * i1 + 4 * math.pi**2 / 3 * i3)
    assert rie.rectangular_rie_mmse(R1, R2, delta) == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("R1, R2, slope", [(1.0, 0.2, 0.36), (2.0, 0.5, 0.625), (2.0, 1.5, 1.0)])
def test_rectangular_small_noise_slope_is_the_parameter_fraction(R1, R2, slope):
    """Sec. 4: mmse_den/delta -> r(d + L - r)/(dL) (0.36 at R1 = 1, R2 = 0.2)."""
    assert rie.rectangular_parameter_fraction(R1, R2) == pytest.approx(slope)
    assert rie.rectangular_rie_mmse(R1, R2, 1e-5) / 1e-5 == pytest.approx(slope, rel=1e-12)
    assert rie.rectangular_rie_mmse(R1, R2, 1.01e-4) / 1.01e-4 == pytest.approx(slope, rel=1e-3)
    assert rie.rectangular_rie_mmse(R1, R2, 1e-2) / 1e-2 == pytest.approx(slope, rel=2e-2)
    assert rie.rectangular_rie_mmse(R1, R2, 0.0) == 0.0


def test_rectangular_limits_and_transposition():
    assert rie.rectangular_rie_mmse(1.0, 0.2, 1e4) == pytest.approx(1.0, abs=2e-4)  # prior variance
    assert rie.rectangular_rie_mmse(3.0, 0.2, 1e4) == pytest.approx(1.0, abs=2e-4)
    # R1 < 1 is read as 1/R1, R2 = r/min(d, L) (science/bsr.md)
    assert rie.rectangular_rie_mmse(0.5, 0.5, 0.5) == rie.rectangular_rie_mmse(2.0, 0.5, 0.5)


# --------------------------------------------------------------------------- rectangular: finite size


def test_rectangular_rie_at_d_300_matches_the_theory():
    """Sec. 5, check 5: d = 300, L = 600, r = 150, delta' = 0.5. Over 6 seeds: +0.18 % +- 0.4 % (std); 2 %
    is about 5 standard deviations."""
    rng = np.random.default_rng(7)
    d, L, r, delta = 300, 600, 150, 0.5
    S = rie.sample_rectangular_signal(d, L, r, rng)
    Y = S + math.sqrt(delta) * rie.sample_rectangular_noise(d, L, rng)
    estimate = rie.rectangular_rie(Y, delta, r / d)
    error = rie.rectangular_error(estimate, S)
    theory = rie.rectangular_rie_mmse(L / d, r / d, delta)
    assert error == pytest.approx(theory, rel=0.02)
    # d > L: solved on the transpose
    assert np.allclose(rie.rectangular_rie(Y.T, delta, r / d), estimate.T)
    # baselines
    identity = rie.rectangular_error(Y, S)
    shrunk = rie.rectangular_error(rie.scalar_shrinkage(Y, delta, 1.0), S)
    truncated = rie.rectangular_error(rie.truncated_svd(Y, r), S)
    assert identity == pytest.approx(rie.identity_mse(delta), rel=0.02)
    assert shrunk == pytest.approx(rie.scalar_shrinkage_mse(delta, 1.0), rel=0.02)
    assert error < shrunk < identity and error < truncated


# --------------------------------------------------------------------------- one-draw experiments


def test_symmetric_denoising_experiment_equals_the_functions_one_by_one():
    d, kappa, s = 120, 0.5, 0.4
    got = rie.symmetric_denoising_experiment(d, kappa, s, np.random.default_rng(3))
    rng = np.random.default_rng(3)
    S = rie.sample_wishart(d, kappa, rng)
    Y = S + math.sqrt(s) * rie.sample_goe(d, rng)
    assert got.rie == pytest.approx(rie.symmetric_error(rie.symmetric_rie(Y, s, kappa), S), rel=1e-10)
    assert got.identity == pytest.approx(rie.symmetric_error(Y, S), rel=1e-12)
    shrunk = rie.scalar_shrinkage(Y, s, 1 + kappa, mean=math.sqrt(kappa))
    assert got.scalar_shrinkage == pytest.approx(rie.symmetric_error(shrunk, S), rel=1e-12)
    truncated = rie.eigenvalue_truncation(Y, 60)
    assert got.truncation == pytest.approx(rie.symmetric_error(truncated, S), rel=1e-10)


def test_rectangular_denoising_experiment_equals_the_functions_one_by_one():
    d, L, r, delta = 80, 160, 16, 0.5
    got = rie.rectangular_denoising_experiment(d, L, r, delta, np.random.default_rng(4))
    rng = np.random.default_rng(4)
    S = rie.sample_rectangular_signal(d, L, r, rng)
    Y = S + math.sqrt(delta) * rie.sample_rectangular_noise(d, L, rng)
    assert got.rie == pytest.approx(rie.rectangular_error(rie.rectangular_rie(Y, delta, r / d), S), rel=1e-10)
    assert got.identity == pytest.approx(rie.rectangular_error(Y, S), rel=1e-12)
    shrunk = rie.scalar_shrinkage(Y, delta, 1.0)
    assert got.scalar_shrinkage == pytest.approx(rie.rectangular_error(shrunk, S), rel=1e-12)
    assert got.truncation == pytest.approx(rie.rectangular_error(rie.truncated_svd(Y, r), S), rel=1e-10)
    gd = rie.optimal_singular_value_shrinkage(Y, delta)
    assert got.optimal_shrinkage == pytest.approx(rie.rectangular_error(gd, S), rel=1e-10)
    symmetric = rie.symmetric_denoising_experiment(40, 0.5, 0.4, np.random.default_rng(3))
    assert math.isnan(symmetric.optimal_shrinkage)
    with pytest.raises(ValueError, match="L"):
        rie.rectangular_denoising_experiment(L, d, r, delta, np.random.default_rng(4))


# --------------------------------------------------------------------------- Gavish-Donoho shrinkage


@pytest.mark.parametrize("R1", [1.0, 2.0, 5.0])
def test_optimal_shrinkage_inverts_the_spike_relation(R1):
    """Closed form of Gavish-Donoho (arXiv:1405.7511) against its parametrisation by the spike strength x:
    a spike x' = x/sigma above beta^{1/4} makes the outlier y = sigma sqrt((1 + x'^2)(beta + x'^2))/x', and
    the Frobenius-optimal output is x c c~ (cosines of Benaych-Georges and Nadakuditi)."""
    delta = 0.7
    sigma, beta = math.sqrt(delta) * R1**0.25, 1.0 / R1
    xp = np.array([1.05, 1.3, 2.0, 4.0, 10.0]) * beta**0.25
    y = sigma * np.sqrt((1 + xp**2) * (beta + xp**2)) / xp
    c2 = (xp**4 - beta) / (xp**4 + beta * xp**2)
    ct2 = (xp**4 - beta) / (xp**4 + xp**2)
    got = rie.optimal_shrinkage_singular_values(y, delta, R1)
    assert np.allclose(got, sigma * xp * np.sqrt(c2 * ct2), rtol=1e-10)
    # the spike error x^2 (1 - c^2 c~^2) sigma^2 is the one of that output: theta^2 + eta^2 - 2 theta eta c c~
    theta = sigma * xp
    direct = theta**2 + got**2 - 2 * theta * got * np.sqrt(c2 * ct2)
    assert np.allclose(rie.optimal_shrinkage_spike_error(theta, delta, R1), direct, rtol=1e-10)
    # below the bulk edge sigma (1 + sqrt(beta)): killed; an undetectable spike costs theta^2
    edge = sigma * (1 + math.sqrt(beta))
    assert np.all(rie.optimal_shrinkage_singular_values([0.0, 0.5 * edge, 0.999 * edge], delta, R1) == 0.0)
    assert rie.optimal_shrinkage_spike_error(0.5 * sigma * beta**0.25, delta, R1) == pytest.approx(
        (0.5 * sigma * beta**0.25) ** 2)
    # R1 < 1 is read as 1/R1; delta = 0 returns the input
    assert np.allclose(rie.optimal_shrinkage_singular_values(y, delta, 1 / R1), got)
    assert np.array_equal(rie.optimal_shrinkage_singular_values(y, 0.0, R1), y)


def test_optimal_shrinkage_square_case_is_sqrt_y2_minus_4():
    """beta = 1, sigma = 1: eta(y) = sqrt(y^2 - 4) for y >= 2 (Gavish and Donoho 2017, square matrices)."""
    y = np.array([1.0, 2.0, 2.5, 3.0, 10.0])
    expected = np.sqrt(np.maximum(y**2 - 4, 0))
    assert np.allclose(rie.optimal_shrinkage_singular_values(y, 1.0, 1.0), expected, atol=1e-12)


def test_optimal_shrinkage_on_a_fixed_rank_spiked_matrix():
    """d = 300, L = 600, two spikes x = 1.5 and 3 (noise units), delta = 1: the measured Frobenius error of
    the Gavish-Donoho shrinker matches the sum of the closed-form spike errors (3.727; 10 seeds gave
    3.70 +- 0.05 (SE), one draw spreads by 4 %), and on every draw it beats the truncated SVD at the true rank
    (5.39 on average), which is not optimal at finite rank."""
    d, L, delta = 300, 600, 1.0
    sigma = math.sqrt(delta) * (L / d) ** 0.25
    thetas = np.array([1.5, 3.0]) * sigma
    theory = float(np.sum(rie.optimal_shrinkage_spike_error(thetas, delta, L / d)))
    errors = []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        A = np.linalg.qr(rng.standard_normal((d, 2)))[0]
        B = np.linalg.qr(rng.standard_normal((L, 2)))[0]
        S = (A * thetas) @ B.T
        Y = S + math.sqrt(delta) * rie.sample_rectangular_noise(d, L, rng)
        gd = np.sum((rie.optimal_singular_value_shrinkage(Y, delta) - S) ** 2)
        truncated = np.sum((rie.truncated_svd(Y, 2) - S) ** 2)
        assert gd < truncated
        errors.append(gd)
    assert np.mean(errors) == pytest.approx(theory, rel=0.06)  # about 4 standard errors


def test_optimal_shrinkage_validates():
    with pytest.raises(ValueError, match="delta"):
        rie.optimal_shrinkage_singular_values([1.0], -1.0, 2.0)
    with pytest.raises(ValueError, match="R1"):
        rie.optimal_shrinkage_singular_values([1.0], 1.0, 0.0)
    with pytest.raises(ValueError, match="singular_values"):
        rie.optimal_shrinkage_singular_values([-1.0], 1.0, 2.0)
    with pytest.raises(ValueError, match="Y"):
        rie.optimal_singular_value_shrinkage(np.ones(3), 1.0)
    with pytest.raises(ValueError, match="theta"):
        rie.optimal_shrinkage_spike_error([-1.0], 1.0, 2.0)


# --------------------------------------------------------------------------- samplers


def test_samplers_have_the_stated_normalisations():
    rng = np.random.default_rng(11)
    d = 300
    Z = rie.sample_goe(d, rng, variance=2.0)
    off = Z[np.triu_indices(d, 1)]
    assert np.allclose(Z, Z.T)
    assert off.var() * d == pytest.approx(2.0, rel=0.02)
    assert np.diag(Z).var() * d == pytest.approx(4.0, rel=0.2)
    S = rie.sample_wishart(d, 0.5, rng)
    lam = np.linalg.eigvalsh(S)
    assert lam.mean() == pytest.approx(math.sqrt(0.5), rel=0.02)
    assert np.mean(lam**2) == pytest.approx(1.5, rel=0.03)  # 1 + kappa
    assert np.sum(lam > 1e-8) == 150  # rank m
    mean_one = rie.sample_wishart(d, 0.5, rng, normalisation="mean_one")
    assert np.trace(mean_one) / d == pytest.approx(1.0, rel=0.02)
    R = rie.sample_rectangular_signal(100, 200, 20, rng)
    assert np.sum(R**2) / math.sqrt(100 * 200) == pytest.approx(1.0, rel=0.1)
    N = rie.sample_rectangular_noise(100, 200, rng)
    assert np.sum(N**2) / math.sqrt(100 * 200) == pytest.approx(1.0, rel=0.02)
    # reproducible from a seed
    assert np.array_equal(rie.sample_goe(5, 3), rie.sample_goe(5, 3))


# --------------------------------------------------------------------------- cross-checks: model fixed points


@pytest.mark.parametrize(
    "kappa, alpha, delta",
    [("0.5", "0.1", "0.0"), ("0.5", "0.3", "0.0"), ("1.0", "0.25", "0.0"), ("0.5", "0.4", "0.25")],
)
def test_quadratic_network_fixed_point_reproduces_the_reference(kappa, alpha, delta):
    """qhat = 4 alpha/(Delta + 2 mmse_RIE(1/qhat)) (science/quadratic.md, Sec. 2) with our symmetric MMSE."""
    value, tol = reference("quadratic.csv", "mmse_BO_paper_norm", kappa=kappa, alpha=alpha, Delta=delta)
    k, a, dl = float(kappa), float(alpha), float(delta)
    def fixed_point(log_qhat):
        return math.exp(log_qhat) * (dl + 2 * rie.symmetric_rie_mmse(math.exp(-log_qhat), k)) - 4 * a

    lq = brentq(fixed_point, -8, 9, xtol=1e-12)
    assert rie.symmetric_rie_mmse(math.exp(-lq), k) == pytest.approx(value, abs=min(tol, 1e-5))


@pytest.mark.parametrize("alpha, delta", [("0.1", "0.0"), ("0.3", "0.0"), ("0.5", "0.1")])
def test_bsr_fixed_point_reproduces_the_reference(alpha, delta):
    """q = 1 - mmse_den(beta, rho, (Delta + 1 - q)/alpha) (science/bsr.md, Sec. 2), our rectangular MMSE."""
    value, tol = reference("bsr.csv", "mmse_BO", beta="1", rho="0.2", alpha=alpha, Delta=delta)
    a, dl = float(alpha), float(delta)
    def fixed_point(q):
        return q - 1 + rie.rectangular_rie_mmse(1.0, 0.2, (dl + 1 - q) / a)

    q = brentq(fixed_point, 0.0, 1 - 1e-12, xtol=1e-13)
    assert 1 - q == pytest.approx(value, abs=tol)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: rie.symmetric_rie_mmse(-0.1, 0.5), "s"),
        (lambda: rie.symmetric_rie_mmse(0.1, 0.0), "kappa"),
        (lambda: rie.symmetric_rie_mmse(0.1, -1.0), "kappa"),
        (lambda: rie.symmetric_rie_mmse(0.1, 0.5, "unit"), "normalisation"),
        (lambda: rie.symmetric_rie_mmse(0.1, 0.5, n_nodes=1), "n_nodes"),
        (lambda: rie.symmetric_rie(np.eye(3), -1.0, 0.5), "s"),
        (lambda: rie.symmetric_rie(np.ones((2, 3)), 0.1, 0.5), "square"),
        (lambda: rie.symmetric_rie(np.triu(np.ones((3, 3))), 0.1, 0.5), "symmetric"),
        (lambda: rie.symmetric_rie(np.eye(3), 0.1), "exactly one"),
        (lambda: rie.symmetric_rie(np.eye(3), 0.1, 0.5, law=Semicircle(1.0)), "exactly one"),
        (lambda: rie.rectangular_rie_mmse(1.0, 0.0, 0.1), "R2"),
        (lambda: rie.rectangular_rie_mmse(1.0, -0.2, 0.1), "R2"),
        (lambda: rie.rectangular_rie_mmse(0.0, 0.2, 0.1), "R1"),
        (lambda: rie.rectangular_rie_mmse(1.0, 0.2, -0.1), "delta"),
        (lambda: rie.rectangular_rie(np.ones((3, 4)), -0.1, 0.5), "delta"),
        (lambda: rie.rectangular_rie(np.ones(4), 0.1, 0.5), "2-d"),
        (lambda: rie.sample_wishart(10, 0.01, 0), "kappa"),
        (lambda: rie.sample_goe(10, None), "rng"),
        (lambda: rie.sample_rectangular_signal(10, 20, 0, 0), "r"),
        (lambda: rie.scalar_shrinkage_mse(0.1, 1.0, mean=1.0), "second_moment"),
    ],
)
def test_invalid_arguments_raise_value_error_naming_them(call, name):
    with pytest.raises(ValueError, match=name):
        call()
