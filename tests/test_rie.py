"""Rotationally invariant estimators and their MMSE (chapter 2)."""

import dataclasses
import math

import numpy as np
import pytest
from _reference import reference
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.optimize import brentq

from solvable import denoising, rie
from solvable.errors import InvalidParameterError
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
    """Sec. 5, check 4: mmse_RIE(noise = 0.6) = 0.28390 at kappa = 0.5 (paper normalisation)."""
    assert rie.symmetric_rie_mmse(0.6, 0.5) == pytest.approx(0.28390, abs=5e-6)


@pytest.mark.parametrize("kappa, noise", [(0.5, 0.6), (0.5, 1e-3), (1.0, 0.05), (3.0, 2.0)])
def test_symmetric_mmse_agrees_with_adaptive_quadrature(kappa, noise):
    law = wishart_plus_goe(noise, kappa=kappa)
    i3 = _adaptive(law, lambda x: law.density(x) ** 3)
    expected = noise - 4 * math.pi**2 / 3 * noise * noise * i3
    assert rie.symmetric_rie_mmse(noise, kappa) == pytest.approx(expected, rel=1e-6)
    assert rie.symmetric_rie_mmse(noise, kappa, n_nodes=128) == pytest.approx(expected, rel=1e-8)


@pytest.mark.parametrize("kappa, slope", [(0.5, 0.75), (0.2, 0.36), (1.0, 1.0), (2.0, 1.0)])
def test_symmetric_small_noise_slope_is_the_parameter_fraction(kappa, slope):
    """Sec. 3: mmse(noise)/noise -> 2 kappa - kappa^2 (kappa < 1) or 1; continuous across the switch to the limit."""
    assert rie.wishart_parameter_fraction(kappa) == pytest.approx(slope)
    assert rie.symmetric_rie_mmse(1e-6, kappa) / 1e-6 == pytest.approx(slope, rel=1e-12)
    computed = rie.symmetric_rie_mmse(2e-5, kappa) / 2e-5  # just above SYMMETRIC_SMALL_NOISE
    assert computed == pytest.approx(slope, rel=2e-3)
    assert rie.symmetric_rie_mmse(1e-3, kappa) / 1e-3 == pytest.approx(slope, rel=2e-2)
    assert rie.symmetric_rie_mmse(0.0, kappa) == 0.0


def test_symmetric_large_noise_gives_the_spectral_variance():
    """noise -> inf: the prior variance of S (1 in the paper normalisation, 1/kappa in the mean-one one)."""
    assert rie.symmetric_rie_mmse(1e4, 0.5) == pytest.approx(1.0, abs=2e-4)
    assert rie.symmetric_rie_mmse(1e4, 0.5, "mean_one") == pytest.approx(2.0, abs=1e-3)
    # and the normalisations are consistent: mmse_W(noise) = mmse_paper(kappa noise)/kappa
    paper = rie.symmetric_rie_mmse(0.6, 0.5)
    assert rie.symmetric_rie_mmse(0.6 / 0.5, 0.5, "mean_one") == pytest.approx(paper / 0.5)


def test_large_kappa_tends_to_the_goe_limit():
    """Sec. 5, check 6: kappa -> inf (centred Wishart -> GOE) gives noise/(1 + noise); the gap shrinks ~ 1/kappa."""
    noise = 0.5
    gaps = [abs(rie.symmetric_rie_mmse(noise, k) - noise / (1 + noise)) for k in (1e2, 1e3, 1e4)]
    assert gaps[2] < 1e-5 and gaps[0] > gaps[1] > gaps[2]


def test_mmse_is_monotone_in_the_noise():
    noise = np.geomspace(1e-4, 1e3, 30)
    values = np.array([rie.symmetric_rie_mmse(x, 0.5) for x in noise])
    assert np.all(np.diff(values) > 0) and np.all(values < noise)


def test_semicircle_signal_closed_form():
    """Sec. 5, check 3: a semicircle signal of variance v gives noise v/(noise + v)."""
    v, noise = 0.7, 0.4
    law_y = Semicircle(v + noise)
    generic = rie.symmetric_rie_mmse_from_density(noise, law_y.density, law_y.bulks)
    assert generic == pytest.approx(rie.semicircle_rie_mmse(noise, v), rel=1e-12)
    assert rie.semicircle_rie_mmse(noise, v) == pytest.approx(noise * v / (noise + v))
    # the RIE of a semicircle is the linear (Wiener) shrinkage v/(v + noise) inside the bulk
    lam = np.linspace(-1.5, 1.5, 7)
    assert np.allclose(rie.symmetric_rie_eigenvalues(lam, noise, law=law_y), lam * v / (v + noise))


def test_deterministic_signal_has_zero_mmse():
    """Sec. 5, check 3: S = c I is recovered exactly (rho_Y is a semicircle of variance noise centred at c)."""
    c, noise = 1.3, 0.5
    assert (
        rie.symmetric_rie_mmse_from_density(
            noise,
            lambda x: Semicircle(noise).density(x - c),
            [(c - 2 * math.sqrt(noise), c + 2 * math.sqrt(noise))],
        )
        < 1e-12
    )
    rng = np.random.default_rng(0)
    d = 200
    Y = c * np.eye(d) + math.sqrt(noise) * denoising.sample_goe(d, rng=rng)
    estimate = rie.symmetric_rie(Y, noise, law=lambda x: Semicircle(noise).stieltjes_real(x - c))
    # bulk eigenvalues go exactly to c; the few beyond the finite-size edges to c + sqrt((x-c)^2 - 4s)
    assert denoising.symmetric_error(estimate, c * np.eye(d)) < 1e-3 * noise


def test_generic_subordination_route_equals_the_cubic():
    kappa, noise = 0.5, 0.6
    law = wishart_plus_goe(noise, kappa=kappa)

    def density(x):
        return (
            -free_convolution_semicircle(MarchenkoPastur(kappa).stieltjes, noise, x + 1e-12j).imag / math.pi
        )

    generic = rie.symmetric_rie_mmse_from_density(noise, density, law.pieces, n_nodes=64)
    assert generic == pytest.approx(rie.symmetric_rie_mmse(noise, kappa), rel=1e-6)

    def re_g(x):
        return free_convolution_semicircle(
            MarchenkoPastur(kappa).stieltjes, noise, np.asarray(x) + 1e-12j
        ).real

    lam = np.array([-2.0, -0.5, 1.0, 3.0, 4.5, 6.0])
    generic_map = rie.symmetric_rie_eigenvalues(lam, noise, law=re_g)
    assert np.allclose(generic_map, rie.symmetric_rie_eigenvalues(lam, noise, kappa), atol=1e-7)


# --------------------------------------------------------------------------- symmetric: finite size


def test_symmetric_rie_at_d_1000_matches_the_theory():
    """Sec. 5, check 4: one draw at d = 1000, kappa = 0.5, noise = 0.6: ~0.2830 against 0.28390.

    Over 8 seeds the error is 0.28356 +- 0.00063 (std): 1 % is about 4.5 standard deviations, and covers the
    O(1/d) finite-size bias (-0.1 %). One eigendecomposition of size 1000 (about 0.4 noise single-threaded).
    """
    rng = np.random.default_rng(2024)
    d, kappa, noise = 1000, 0.5, 0.6
    S = denoising.sample_wishart(d, kappa, rng=rng)
    Y = S + math.sqrt(noise) * denoising.sample_goe(d, rng=rng)
    error = denoising.symmetric_error(rie.symmetric_rie(Y, noise, kappa), S)
    theory = rie.symmetric_rie_mmse(noise, kappa)
    assert error == pytest.approx(theory, rel=0.01)
    # the baselines are worse, in the expected order, and match their own formulas
    identity = denoising.symmetric_error(Y, S)
    shrunk = denoising.symmetric_error(
        denoising.scalar_shrinkage(Y, noise, 1 + kappa, mean=math.sqrt(kappa)), S
    )
    assert identity == pytest.approx(denoising.identity_mse(noise), rel=0.02)
    assert shrunk == pytest.approx(
        denoising.scalar_shrinkage_mse(noise, 1 + kappa, mean=math.sqrt(kappa)), rel=0.02
    )
    assert error < shrunk < identity


def test_symmetric_rie_handles_outliers_and_small_sizes():
    """Eigenvalues beyond the bulk edges use the branch that continues to ~1/x (finite d, outliers)."""
    rng = np.random.default_rng(1)
    d, kappa, noise = 60, 0.5, 0.3
    S = denoising.sample_wishart(d, kappa, rng=rng)
    Y = S + math.sqrt(noise) * denoising.sample_goe(d, rng=rng)
    Y[0, 0] += 8.0  # an outlier far beyond the edge
    estimate = rie.symmetric_rie(Y, noise, kappa)
    assert np.all(np.isfinite(estimate)) and np.allclose(estimate, estimate.T)
    lam = np.linalg.eigvalsh(Y)
    mapped = rie.symmetric_rie_eigenvalues(lam, noise, kappa)
    assert mapped[-1] == pytest.approx(lam[-1] - 2 * noise / lam[-1], rel=0.05)  # Re G ~ 1/x far out
    assert np.all(np.diff(mapped) > 0)  # the map is monotone: no branch jumps


# --------------------------------------------------------------------------- rectangular: formulas


@pytest.mark.parametrize(
    "beta, rho, noise", [(1.0, 0.2, 1.22), (2.0, 0.5, 0.5), (2.0, 0.5, 1e-3), (1.5, 2.0, 0.3)]
)
def test_rectangular_mmse_agrees_with_adaptive_quadrature(beta, rho, noise):
    law = rectangular_plus_noise(noise, beta=beta, rho=rho)
    i3 = 2 * _adaptive(law, lambda x: law.density(x) ** 3)
    i1 = 2 * _adaptive(law, lambda x: law.density(x) / x**2) if beta > 1 else 0.0
    expected = noise - noise**2 / beta**1.5 * ((beta - 1) ** 2 * i1 + 4 * math.pi**2 / 3 * i3)
    assert rie.rectangular_rie_mmse(noise, beta, rho) == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("beta, rho, slope", [(1.0, 0.2, 0.36), (2.0, 0.5, 0.625), (2.0, 1.5, 1.0)])
def test_rectangular_small_noise_slope_is_the_parameter_fraction(beta, rho, slope):
    """Sec. 4: mmse_den/noise -> r(d + L - r)/(dL) (0.36 at beta = 1, rho = 0.2)."""
    assert rie.rectangular_parameter_fraction(beta, rho) == pytest.approx(slope)
    # (capped at noise/(1 + noise), the linear shrinkage, which a full-rank signal would exceed)
    assert rie.rectangular_rie_mmse(1e-5, beta, rho) / 1e-5 == pytest.approx(
        min(slope, 1 / (1 + 1e-5)), rel=1e-12
    )
    assert rie.rectangular_rie_mmse(1.01e-4, beta, rho) / 1.01e-4 == pytest.approx(slope, rel=1e-3)
    assert rie.rectangular_rie_mmse(1e-2, beta, rho) / 1e-2 == pytest.approx(slope, rel=2e-2)
    assert rie.rectangular_rie_mmse(0.0, beta, rho) == 0.0


def test_rectangular_limits_and_transposition():
    assert rie.rectangular_rie_mmse(1e4, 1.0, 0.2) == pytest.approx(1.0, abs=2e-4)  # prior variance
    assert rie.rectangular_rie_mmse(1e4, 3.0, 0.2) == pytest.approx(1.0, abs=2e-4)
    # beta < 1 is read as 1/beta, rho = r/min(d, L)
    assert rie.rectangular_rie_mmse(0.5, 0.5, 0.5) == rie.rectangular_rie_mmse(0.5, 2.0, 0.5)


# --------------------------------------------------------------------------- rectangular: finite size


def test_rectangular_rie_at_d_300_matches_the_theory():
    """Sec. 5, check 5: d = 300, L = 600, r = 150, noise = 0.5. Over 6 seeds: +0.18 % +- 0.4 % (std); 2 %
    is about 5 standard deviations."""
    rng = np.random.default_rng(7)
    d, L, r, noise = 300, 600, 150, 0.5
    S = denoising.sample_rectangular_signal(d, L, r, rng=rng)
    Y = S + math.sqrt(noise) * denoising.sample_rectangular_noise(d, L, rng=rng)
    estimate = rie.rectangular_rie(Y, noise, r / d)
    error = denoising.rectangular_error(estimate, S)
    theory = rie.rectangular_rie_mmse(noise, L / d, r / d)
    assert error == pytest.approx(theory, rel=0.02)
    # d > L: solved on the transpose
    assert np.allclose(rie.rectangular_rie(Y.T, noise, r / d), estimate.T)
    # baselines
    identity = denoising.rectangular_error(Y, S)
    shrunk = denoising.rectangular_error(denoising.scalar_shrinkage(Y, noise, 1.0), S)
    truncated = denoising.rectangular_error(denoising.truncated_svd(Y, r), S)
    assert identity == pytest.approx(denoising.identity_mse(noise), rel=0.02)
    assert shrunk == pytest.approx(denoising.scalar_shrinkage_mse(noise, 1.0), rel=0.02)
    assert error < shrunk < identity and error < truncated


# --------------------------------------------------------------------------- one-draw experiments


def test_symmetric_denoising_experiment_equals_the_functions_one_by_one():
    d, kappa, noise = 120, 0.5, 0.4
    got = rie.symmetric_denoising_experiment(d, kappa, noise, rng=np.random.default_rng(3))
    rng = np.random.default_rng(3)
    S = denoising.sample_wishart(d, kappa, rng=rng)
    Y = S + math.sqrt(noise) * denoising.sample_goe(d, rng=rng)
    assert got.rie == pytest.approx(
        denoising.symmetric_error(rie.symmetric_rie(Y, noise, kappa), S), rel=1e-10
    )
    assert got.identity == pytest.approx(denoising.symmetric_error(Y, S), rel=1e-12)
    shrunk = denoising.scalar_shrinkage(Y, noise, 1 + kappa, mean=math.sqrt(kappa))
    assert got.scalar_shrinkage == pytest.approx(denoising.symmetric_error(shrunk, S), rel=1e-12)
    truncated = denoising.eigenvalue_truncation(Y, 60)
    assert got.truncation == pytest.approx(denoising.symmetric_error(truncated, S), rel=1e-10)


def test_rectangular_denoising_experiment_equals_the_functions_one_by_one():
    d, L, r, noise = 80, 160, 16, 0.5
    got = rie.rectangular_denoising_experiment(d, L, r, noise, rng=np.random.default_rng(4))
    rng = np.random.default_rng(4)
    S = denoising.sample_rectangular_signal(d, L, r, rng=rng)
    Y = S + math.sqrt(noise) * denoising.sample_rectangular_noise(d, L, rng=rng)
    assert got.rie == pytest.approx(
        denoising.rectangular_error(rie.rectangular_rie(Y, noise, r / d), S), rel=1e-10
    )
    assert got.identity == pytest.approx(denoising.rectangular_error(Y, S), rel=1e-12)
    shrunk = denoising.scalar_shrinkage(Y, noise, 1.0)
    assert got.scalar_shrinkage == pytest.approx(denoising.rectangular_error(shrunk, S), rel=1e-12)
    assert got.truncation == pytest.approx(
        denoising.rectangular_error(denoising.truncated_svd(Y, r), S), rel=1e-10
    )
    gd = denoising.optimal_singular_value_shrinkage(Y, noise)
    assert got.optimal_shrinkage == pytest.approx(denoising.rectangular_error(gd, S), rel=1e-10)
    symmetric = rie.symmetric_denoising_experiment(40, 0.5, 0.4, rng=np.random.default_rng(3))
    assert math.isnan(symmetric.optimal_shrinkage)
    with pytest.raises(ValueError, match="L"):
        rie.rectangular_denoising_experiment(L, d, r, noise, rng=np.random.default_rng(4))


# --------------------------------------------------------------------------- Gavish-Donoho shrinkage


@pytest.mark.parametrize("beta", [1.0, 2.0, 5.0])
def test_optimal_shrinkage_inverts_the_spike_relation(beta):
    """Closed form of Gavish-Donoho (arXiv:1405.7511) against its parametrisation by the spike strength x:
    a spike x' = x/sigma above beta^{1/4} makes the outlier y = sigma sqrt((1 + x'^2)(beta + x'^2))/x', and
    the Frobenius-optimal output is x c c~ (cosines of Benaych-Georges and Nadakuditi)."""
    noise = 0.7
    sigma, beta = math.sqrt(noise) * beta**0.25, 1.0 / beta
    xp = np.array([1.05, 1.3, 2.0, 4.0, 10.0]) * beta**0.25
    y = sigma * np.sqrt((1 + xp**2) * (beta + xp**2)) / xp
    c2 = (xp**4 - beta) / (xp**4 + beta * xp**2)
    ct2 = (xp**4 - beta) / (xp**4 + xp**2)
    got = denoising.optimal_shrinkage_singular_values(y, noise, beta)
    assert np.allclose(got, sigma * xp * np.sqrt(c2 * ct2), rtol=1e-10)
    # the spike error x^2 (1 - c^2 c~^2) sigma^2 is the one of that output: theta^2 + eta^2 - 2 theta eta c c~
    theta = sigma * xp
    direct = theta**2 + got**2 - 2 * theta * got * np.sqrt(c2 * ct2)
    assert np.allclose(denoising.optimal_shrinkage_spike_error(theta, noise, beta), direct, rtol=1e-10)
    # below the bulk edge sigma (1 + sqrt(beta)): killed; an undetectable spike costs theta^2
    edge = sigma * (1 + math.sqrt(beta))
    assert np.all(
        denoising.optimal_shrinkage_singular_values([0.0, 0.5 * edge, 0.999 * edge], noise, beta) == 0.0
    )
    assert denoising.optimal_shrinkage_spike_error(0.5 * sigma * beta**0.25, noise, beta) == pytest.approx(
        (0.5 * sigma * beta**0.25) ** 2
    )
    # beta < 1 is read as 1/beta; noise = 0 returns the input
    assert np.allclose(denoising.optimal_shrinkage_singular_values(y, noise, 1 / beta), got)
    assert np.array_equal(denoising.optimal_shrinkage_singular_values(y, 0.0, beta), y)


def test_optimal_shrinkage_square_case_is_sqrt_y2_minus_4():
    """beta = 1, sigma = 1: eta(y) = sqrt(y^2 - 4) for y >= 2 (Gavish and Donoho 2017, square matrices)."""
    y = np.array([1.0, 2.0, 2.5, 3.0, 10.0])
    expected = np.sqrt(np.maximum(y**2 - 4, 0))
    assert np.allclose(denoising.optimal_shrinkage_singular_values(y, 1.0, 1.0), expected, atol=1e-12)


def test_optimal_shrinkage_on_a_fixed_rank_spiked_matrix():
    """d = 300, L = 600, two spikes x = 1.5 and 3 (noise units), noise = 1: the measured Frobenius error of
    the Gavish-Donoho shrinker matches the sum of the closed-form spike errors (3.727; 10 seeds gave
    3.70 +- 0.05 (SE), one draw spreads by 4 %), and on every draw it beats the truncated SVD at the true rank
    (5.39 on average), which is not optimal at finite rank."""
    d, L, noise = 300, 600, 1.0
    sigma = math.sqrt(noise) * (L / d) ** 0.25
    thetas = np.array([1.5, 3.0]) * sigma
    theory = float(np.sum(denoising.optimal_shrinkage_spike_error(thetas, noise, L / d)))
    errors = []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        A = np.linalg.qr(rng.standard_normal((d, 2)))[0]
        B = np.linalg.qr(rng.standard_normal((L, 2)))[0]
        S = (A * thetas) @ B.T
        Y = S + math.sqrt(noise) * denoising.sample_rectangular_noise(d, L, rng=rng)
        gd = np.sum((denoising.optimal_singular_value_shrinkage(Y, noise) - S) ** 2)
        truncated = np.sum((denoising.truncated_svd(Y, 2) - S) ** 2)
        assert gd < truncated
        errors.append(gd)
    assert np.mean(errors) == pytest.approx(theory, rel=0.06)  # about 4 standard errors


def test_optimal_shrinkage_has_no_overflow_at_huge_arguments():
    """A spike far above the noise (x = theta/sigma -> inf) costs sigma^2 (1 + beta); an outlier y -> inf is kept."""
    sigma2, beta = 0.5 * 2.0**0.5, 0.5
    for theta in (1e30, 1e100, 1e300):
        assert denoising.optimal_shrinkage_spike_error([theta], 0.5, 2.0)[0] == pytest.approx(
            sigma2 * (1 + beta), rel=1e-12
        )
    assert denoising.optimal_shrinkage_spike_error([1e20], 0.5, 2.0)[0] == pytest.approx(
        sigma2 * (1 + beta), rel=1e-12
    )
    y = np.array([1e30, 1e300])
    assert np.allclose(denoising.optimal_shrinkage_singular_values(y, 0.5, 2.0), y, rtol=1e-12)
    assert np.allclose(
        denoising.optimal_shrinkage_singular_values([1.0, 3.0], 1e-300, 2.0), [1.0, 3.0], rtol=1e-12
    )


def test_optimal_shrinkage_validates():
    with pytest.raises(ValueError, match="noise"):
        denoising.optimal_shrinkage_singular_values([1.0], -1.0, 2.0)
    with pytest.raises(ValueError, match="beta"):
        denoising.optimal_shrinkage_singular_values([1.0], 1.0, 0.0)
    with pytest.raises(ValueError, match="singular_values"):
        denoising.optimal_shrinkage_singular_values([-1.0], 1.0, 2.0)
    with pytest.raises(ValueError, match="Y"):
        denoising.optimal_singular_value_shrinkage(np.ones(3), 1.0)
    with pytest.raises(ValueError, match="theta"):
        denoising.optimal_shrinkage_spike_error([-1.0], 1.0, 2.0)


# --------------------------------------------------------------------------- samplers


def test_samplers_have_the_stated_normalisations():
    rng = np.random.default_rng(11)
    d = 300
    Z = denoising.sample_goe(d, variance=2.0, rng=rng)
    off = Z[np.triu_indices(d, 1)]
    assert np.allclose(Z, Z.T)
    assert off.var() * d == pytest.approx(2.0, rel=0.02)
    assert np.diag(Z).var() * d == pytest.approx(4.0, rel=0.2)
    S = denoising.sample_wishart(d, 0.5, rng=rng)
    lam = np.linalg.eigvalsh(S)
    assert lam.mean() == pytest.approx(math.sqrt(0.5), rel=0.02)
    assert np.mean(lam**2) == pytest.approx(1.5, rel=0.03)  # 1 + kappa
    assert np.sum(lam > 1e-8) == 150  # rank m
    mean_one = denoising.sample_wishart(d, 0.5, normalisation="mean_one", rng=rng)
    assert np.trace(mean_one) / d == pytest.approx(1.0, rel=0.02)
    R = denoising.sample_rectangular_signal(100, 200, 20, rng=rng)
    assert np.sum(R**2) / math.sqrt(100 * 200) == pytest.approx(1.0, rel=0.1)
    N = denoising.sample_rectangular_noise(100, 200, rng=rng)
    assert np.sum(N**2) / math.sqrt(100 * 200) == pytest.approx(1.0, rel=0.02)
    # reproducible from a seed
    assert np.array_equal(denoising.sample_goe(5, rng=3), denoising.sample_goe(5, rng=3))


# --------------------------------------------------------------------------- cross-checks: model fixed points


@pytest.mark.parametrize(
    "kappa, alpha, delta",
    [("0.5", "0.1", "0.0"), ("0.5", "0.3", "0.0"), ("1.0", "0.25", "0.0"), ("0.5", "0.4", "0.25")],
)
def test_quadratic_network_fixed_point_reproduces_the_reference(kappa, alpha, delta):
    """qhat = 4 alpha/(Delta + 2 mmse_RIE(1/qhat)) with our symmetric MMSE."""
    value, tol = reference("quadratic.csv", "mmse_BO_paper_norm", kappa=kappa, alpha=alpha, Delta=delta)
    k, a, dl = float(kappa), float(alpha), float(delta)

    def fixed_point(log_qhat):
        return math.exp(log_qhat) * (dl + 2 * rie.symmetric_rie_mmse(math.exp(-log_qhat), k)) - 4 * a

    lq = brentq(fixed_point, -8, 9, xtol=1e-12)
    assert rie.symmetric_rie_mmse(math.exp(-lq), k) == pytest.approx(value, abs=min(tol, 1e-5))


@pytest.mark.parametrize("alpha, delta", [("0.1", "0.0"), ("0.3", "0.0"), ("0.5", "0.1")])
def test_bsr_fixed_point_reproduces_the_reference(alpha, delta):
    """q = 1 - mmse_den(beta, rho, (Delta + 1 - q)/alpha), our rectangular MMSE."""
    value, tol = reference("bsr.csv", "mmse_BO", beta="1", rho="0.2", alpha=alpha, Delta=delta)
    a, dl = float(alpha), float(delta)

    def fixed_point(q):
        return q - 1 + rie.rectangular_rie_mmse((dl + 1 - q) / a, 1.0, 0.2)

    q = brentq(fixed_point, 0.0, 1 - 1e-12, xtol=1e-13)
    assert 1 - q == pytest.approx(value, abs=tol)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: rie.symmetric_rie_mmse(-0.1, 0.5), "noise"),
        (lambda: rie.symmetric_rie_mmse(0.1, 0.0), "kappa"),
        (lambda: rie.symmetric_rie_mmse(0.1, -1.0), "kappa"),
        (lambda: rie.symmetric_rie_mmse(0.1, 0.5, "unit"), "normalisation"),
        (lambda: rie.symmetric_rie_mmse(0.1, 0.5, n_nodes=1), "n_nodes"),
        (lambda: rie.symmetric_rie(np.eye(3), -1.0, 0.5), "noise"),
        (lambda: rie.symmetric_rie(np.ones((2, 3)), 0.1, 0.5), "square"),
        (lambda: rie.symmetric_rie(np.triu(np.ones((3, 3))), 0.1, 0.5), "symmetric"),
        (lambda: rie.symmetric_rie(np.eye(3), 0.1), "exactly one"),
        (lambda: rie.symmetric_rie(np.eye(3), 0.1, 0.5, law=Semicircle(1.0)), "exactly one"),
        (lambda: rie.rectangular_rie_mmse(0.1, 1.0, 0.0), "rho"),
        (lambda: rie.rectangular_rie_mmse(0.1, 1.0, -0.2), "rho"),
        (lambda: rie.rectangular_rie_mmse(0.1, 0.0, 0.2), "beta"),
        (lambda: rie.rectangular_rie_mmse(-0.1, 1.0, 0.2), "noise"),
        (lambda: rie.rectangular_rie(np.ones((3, 4)), -0.1, 0.5), "noise"),
        (lambda: rie.rectangular_rie(np.ones(4), 0.1, 0.5), "2-d"),
        (lambda: denoising.sample_wishart(10, 0.01, rng=0), "kappa"),
        (lambda: denoising.sample_goe(10, rng=None), "rng"),
        (lambda: denoising.sample_rectangular_signal(10, 20, 0, rng=0), "r"),
        (lambda: denoising.scalar_shrinkage_mse(0.1, 1.0, mean=1.0), "second_moment"),
    ],
)
def test_invalid_arguments_raise_value_error_naming_them(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --------------------------------------------------------------------------- hard edges (issue 11)


def test_truncated_svd_refuses_non_finite_input_at_once():
    """Issue 11: with one inf in Y, LAPACK's SVD never returned (and ignored signals)."""
    Y = np.ones((5, 6))
    Y[2, 3] = np.inf
    with pytest.raises(ValueError, match="Y must have finite entries"):
        denoising.truncated_svd(Y, 3)
    Y[2, 3] = np.nan
    with pytest.raises(ValueError, match="Y must have finite entries"):
        denoising.truncated_svd(Y, 3)
    with pytest.raises(ValueError, match="rank"):
        denoising.truncated_svd(np.ones((5, 6)), -1)


def test_rectangular_mmse_at_huge_aspect_ratio_is_in_range_or_raises():
    """Issue 11: rectangular_rie_mmse(noise=1e4, beta=1e6, rho=0.1) (old order (1e6, 0.1, 1e4)) returned 1.23, above
    its maximum 1. The quartic is not resolved there (its mass is off by 2e-5, times the noise), and the bracket
    [mmse(beta = inf), noise/(1 + noise)] = [0.9989, 0.9999], intersected with quadrature +- error, stands in for
    it (within RECTANGULAR_BRACKET_TOL)."""
    value = rie.rectangular_rie_mmse(1e4, 1e6, 0.1)
    low = rie.rectangular_rie_mmse(1e4, math.inf, 0.1)
    assert low <= value <= 1e4 / (1 + 1e4) and 1e4 / (1 + 1e4) - low < 2 * rie.RECTANGULAR_BRACKET_TOL
    assert value == pytest.approx(
        rie.rectangular_rie_mmse(1e4, 1e6, 0.1, n_nodes=400), abs=rie.RECTANGULAR_BRACKET_TOL
    )
    # where the bracket is narrow (noise 1e6, the alpha -> 0 end of bsr at beta = 1e8) it gives the value
    low, high = rie.rectangular_rie_mmse(1.01e6, math.inf, 0.1), 1.01e6 / (1 + 1.01e6)
    value = rie.rectangular_rie_mmse(1.01e6, 1e8, 0.1)
    assert low <= value <= high and high - low < 2e-5
    # beyond spectra.MAX_ASPECT_RATIO the beta = inf limit, once it is within the tolerance
    assert rie.rectangular_rie_mmse(0.5, 1e12, 0.2) == rie.rectangular_rie_mmse(0.5, math.inf, 0.2)
    assert rie.rectangular_rie_mmse(0.5, 1e300, 0.2) == rie.rectangular_rie_mmse(0.5, math.inf, 0.2)
    # huge noise: 1 - O(1/noise), never above the linear-shrinkage bound
    for noise in (1e8, 1e13, 1e300):
        value = rie.rectangular_rie_mmse(noise, 2.0, 0.5)
        assert rie.rectangular_rie_mmse(noise, math.inf, 0.5) <= value <= noise / (1 + noise)


def test_rectangular_wide_limit_has_no_cancellation():
    """beta = inf: 2 rho noise/(2 + a + sqrt(a^2 + 4 rho noise)) equals the notes' form, and keeps 1 - O(1/noise)."""
    for noise, rho in [(1e-6, 0.2), (0.5, 0.2), (3.0, 2.0), (40.0, 1.0)]:
        a = rho * noise + rho - 1
        notes = noise - noise / 2 * (math.sqrt(a * a + 4 * rho * noise) - a)
        assert rie.rectangular_rie_mmse(noise, math.inf, rho) == pytest.approx(notes, rel=1e-12)
    # 1 - (1 + rho)/(rho noise) + O(noise^-2)
    assert 1 - rie.rectangular_rie_mmse(1e10, math.inf, 0.1) == pytest.approx(11e-10, rel=1e-6)


def test_errors_require_equal_two_dimensional_shapes():
    """Issue 11: symmetric_error(np.ones((3, 3)), np.ones(3)) returned 0.0 (the shapes broadcast)."""
    with pytest.raises(ValueError, match="shape"):
        denoising.symmetric_error(np.ones((3, 3)), np.ones(3))
    with pytest.raises(ValueError, match="same shape"):
        denoising.symmetric_error(np.ones((3, 3)), np.ones((1, 3)))
    with pytest.raises(ValueError, match="square"):
        denoising.symmetric_error(np.ones((3, 4)), np.ones((3, 4)))
    with pytest.raises(ValueError, match="same shape"):
        denoising.rectangular_error(np.ones((3, 4)), np.ones((4, 3)))
    with pytest.raises(ValueError, match="shape"):
        denoising.rectangular_error(np.ones((3, 4)), np.ones(4))
    with pytest.raises(ValueError, match="estimate must have finite"):
        denoising.symmetric_error(np.full((2, 2), np.nan), np.ones((2, 2)))
    with pytest.raises(TypeError, match="signal"):
        denoising.rectangular_error(np.ones((2, 2)), np.ones((2, 2)) * 1j)
    assert denoising.symmetric_error(2 * np.eye(3), np.eye(3)) == 1.0
    assert denoising.rectangular_error(np.ones((2, 8)), np.zeros((2, 8))) == 4.0


@pytest.mark.parametrize("normalisation, variance", [("paper", 1.0), ("mean_one", 2.0)])
def test_symmetric_mmse_stays_in_range_at_any_noise(normalisation, variance):
    """In [0, min(noise, variance)] (variance 1 paper, 1/kappa mean-one) up to noise = 1e300; at large noise the
    expansion of the docstring takes over from the quadrature, which loses log10(noise) digits."""
    kappa = 0.5
    for noise in (1e-8, 1e-3, 0.6, 30.0, 1e3, 1e6, 1e10, 1e14, 1e300):
        value = rie.symmetric_rie_mmse(noise, kappa, normalisation)
        assert 0.0 <= value <= min(noise, variance)
    t = 1e10 * kappa if normalisation == "mean_one" else 1e10
    assert rie.symmetric_rie_mmse(1e10, kappa, normalisation) == pytest.approx(
        variance * (1 - 1 / t), rel=1e-15
    )


@pytest.mark.parametrize("kappa", [1e-4, 0.01, 0.1, 0.5, 1.0, 3.0, 1e3])
def test_symmetric_large_noise_expansion_matches_the_quadrature(kappa):
    """Either side of the switch SYMMETRIC_LARGE_NOISE max(10, 1/kappa): the expansion and a 128-node quadrature
    agree to 1e-10 (kappa >= 0.01; 1e-8 at kappa = 1e-4, where the quadrature's cancellation, ~6e-15 noise,
    dominates)."""
    switch = rie.SYMMETRIC_LARGE_NOISE * max(10.0, 1.0 / kappa)
    below = rie.symmetric_rie_mmse(0.999 * switch, kappa, n_nodes=128)
    above = rie.symmetric_rie_mmse(switch, kappa)
    x = 1 / kappa
    t = 0.999 * switch
    expansion = 1 - 1 / t + (1 - x) / t**2 + (-1 + 4 * x - x * x) / t**3
    assert below == pytest.approx(expansion, abs=1e-8 if kappa < 0.01 else 1e-10)
    # continuous and increasing across the switch (the step is 1e-3/switch), up to the quadrature's error
    assert (-1e-8 if kappa < 0.01 else 0.0) < above - below < 2e-3 / switch


def test_symmetric_rie_mmse_from_density_checks_its_range_and_density():
    law = Semicircle(1.0)
    lo, hi = law.bulks[0]
    # not a law over its support: a density of mass 4, a support that misses half the mass, an interval listed
    # twice (the MMSE came out outside [0, noise], or silently off by tens of per cent)
    for density, support, mass in (
        (lambda x: 4 * law.density(x), law.bulks, "4"),
        (law.density, [(lo, 0.5 * (lo + hi))], "0.5"),
        (law.density, [law.bulks[0], law.bulks[0]], "2"),
    ):
        with pytest.raises(InvalidParameterError, match=f"integrate to 1 over support, got {mass}"):
            rie.symmetric_rie_mmse_from_density(0.5, density, support)
    with pytest.raises(ValueError, match="density"):
        rie.symmetric_rie_mmse_from_density(0.5, lambda x: np.full_like(x, np.nan), law.bulks)
    with pytest.raises(TypeError, match="density"):
        rie.symmetric_rie_mmse_from_density(0.5, "semicircle", law.bulks)
    with pytest.raises(ValueError, match="support"):
        rie.symmetric_rie_mmse_from_density(0.5, law.density, [(0.0, math.inf)])


BAD_NUMBERS = [math.nan, math.inf, -1.0, "a", None]
Y_SYM = np.eye(4) + 0.1
Y_RECT = np.ones((3, 5)) + np.arange(15).reshape(3, 5) / 15


@pytest.mark.parametrize(
    "call, name",
    [
        *[
            (lambda b=b: rie.symmetric_rie_mmse(b, 0.5), "noise") for b in BAD_NUMBERS if b != math.inf
        ],  # inf: no information
        *[(lambda b=b: rie.symmetric_rie_mmse(0.5, b), "kappa") for b in BAD_NUMBERS + [0.0]],
        (lambda: rie.symmetric_rie_mmse(0.5, 0.5, n_nodes=0), "n_nodes"),
        (lambda: rie.symmetric_rie_mmse(0.5, 0.5, n_nodes=2.5), "n_nodes"),
        (lambda: rie.symmetric_rie_mmse(0.5, 1e300), "kappa"),
        *[(lambda b=b: rie.rectangular_rie_mmse(b, 2.0, 0.5), "noise") for b in BAD_NUMBERS if b != math.inf],
        *[
            (lambda b=b: rie.rectangular_rie_mmse(0.5, b, 0.5), "beta")
            for b in [math.nan, -1.0, "a", None, 0.0]
        ],
        *[(lambda b=b: rie.rectangular_rie_mmse(0.5, 2.0, b), "rho") for b in BAD_NUMBERS + [0.0, 1e300]],
        (lambda: rie.rectangular_rie_mmse(0.5, 2.0, 0.5, n_nodes=0), "n_nodes"),
        (lambda: rie.semicircle_rie_mmse(0.5, math.nan), "variance"),
        (lambda: rie.wishart_parameter_fraction(math.inf), "kappa"),
        (lambda: rie.rectangular_parameter_fraction(2.0, -1.0), "rho"),
        (lambda: denoising.identity_mse(math.nan), "noise"),
        (lambda: denoising.scalar_shrinkage_mse(0.5, 1.5, mean=math.nan), "mean"),
        (lambda: denoising.scalar_shrinkage_mse(0.5, 1.5, mean=1e300), "second_moment"),
        (lambda: denoising.scalar_shrinkage(Y_SYM, 0.5, 1.5, mean=math.inf), "mean"),
        (lambda: denoising.scalar_shrinkage(np.full(3, np.nan), 0.5, 1.5), "Y"),
        (lambda: rie.symmetric_rie(Y_SYM, 0.5, math.nan), "kappa"),
        (lambda: rie.symmetric_rie(Y_SYM, 0.0, -1.0), "kappa"),
        (lambda: rie.symmetric_rie(Y_SYM, 1e300, 0.5), "noise"),
        (lambda: rie.symmetric_rie(np.where(np.eye(4) > 0, np.nan, 0.0), 0.5, 0.5), "Y must have finite"),
        (lambda: rie.symmetric_rie(np.eye(4) * 1j, 0.5, 0.5), "Y must be an array of real"),
        (lambda: rie.symmetric_rie(np.eye(3), 0.5, law=lambda x: np.full_like(x, np.nan)), "law"),
        (lambda: rie.symmetric_rie_eigenvalues([1.0, np.inf], 0.5, 0.5), "eigenvalues"),
        (lambda: rie.symmetric_rie_eigenvalues(["a"], 0.5, 0.5), "eigenvalues"),
        (lambda: rie.rectangular_rie(Y_RECT, 1e300, 0.5), "noise"),
        (lambda: rie.rectangular_rie(Y_RECT, 0.5, math.nan), "rho"),
        (lambda: rie.rectangular_rie(np.ones((0, 3)), 0.5, 0.5), "non-empty"),
        (lambda: rie.rectangular_rie_singular_values([1.0, np.nan], 0.5, 2.0, 0.5), "singular_values"),
        (lambda: rie.rectangular_rie_singular_values([-1.0], 0.5, 2.0, 0.5), "singular_values"),
        (lambda: rie.rectangular_rie_singular_values([1.0], 0.5, math.inf, 0.5), "beta"),
        (lambda: denoising.eigenvalue_truncation(Y_SYM, 1.5), "rank"),
        (lambda: denoising.eigenvalue_truncation(np.ones((2, 3)), 1), "square"),
        (lambda: denoising.optimal_shrinkage_singular_values([1.0], 0.5, 1e300), "beta"),
        (lambda: denoising.optimal_shrinkage_spike_error([1.0], 0.0, 2.0), "noise"),
        (lambda: denoising.optimal_shrinkage_spike_error([np.inf], 0.5, 2.0), "theta"),
        (lambda: denoising.optimal_singular_value_shrinkage(Y_RECT, math.inf), "noise"),
        (lambda: rie.WishartRIEDenoiser(math.nan), "kappa"),
        (lambda: rie.RectangularRIEDenoiser(2.0, -1.0), "rho"),
        (lambda: denoising.sample_goe(0, rng=0), "d"),
        (lambda: denoising.sample_goe(10**6, rng=0), "above the limit"),
        (lambda: denoising.sample_wishart(10**5, 10.0, rng=0), "above the limit"),
        (lambda: denoising.sample_rectangular_signal(10**5, 10**5, 10, rng=0), "above the limit"),
        (lambda: denoising.sample_rectangular_noise(10**5, 10**5, rng=0), "above the limit"),
        (lambda: rie.symmetric_denoising_experiment(10**5, 0.5, 0.5, rng=0), "above the limit"),
        (lambda: rie.symmetric_denoising_experiment(20, 0.5, 0.0, rng=0), "noise"),
        (lambda: rie.rectangular_denoising_experiment(10**5, 10**5, 10, 0.5, rng=0), "above the limit"),
        (lambda: rie.rectangular_denoising_experiment(10, 20, 2, math.nan, rng=0), "noise"),
        (lambda: rie.rectangular_denoising_experiment(10, 20, 2, 0.5, rng=None), "rng"),
    ],
)
def test_every_public_function_refuses_bad_input_naming_it(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()


# --------------------------------------------------------------------------- properties (hypothesis)


_log_noise = st.floats(-6.0, 9.0)
_log_kappa = st.floats(-3.0, 3.0)
_normalisation = st.sampled_from(["paper", "mean_one"])


@settings(max_examples=25, deadline=None)
@given(_log_noise, st.floats(0.05, 1.0), _log_kappa, _normalisation)
def test_symmetric_mmse_is_finite_in_range_and_non_decreasing(log_noise, step, log_kappa, normalisation):
    """Over kappa in [1e-3, 1e3] and noise in [1e-6, 1e9]: finite, in [0, min(noise, variance)] (variance 1 paper,
    1/kappa mean-one), and non-decreasing in the noise (to the quadrature's rounding, ~1e-14 noise)."""
    kappa, noise = 10.0**log_kappa, 10.0**log_noise
    variance = 1.0 if normalisation == "paper" else 1.0 / kappa
    low = rie.symmetric_rie_mmse(noise, kappa, normalisation)
    high = rie.symmetric_rie_mmse(noise * 10.0**step, kappa, normalisation)
    for value in (low, high):
        assert math.isfinite(value) and 0.0 <= value <= variance
    assert low <= noise
    assert high >= low - 1e-13 * max(1.0, noise) * variance


@settings(max_examples=25, deadline=None)
@given(_log_kappa, _normalisation)
def test_symmetric_mmse_small_noise_slope_is_the_parameter_fraction(log_kappa, normalisation):
    kappa = 10.0**log_kappa
    fraction = rie.wishart_parameter_fraction(kappa)
    assert rie.symmetric_rie_mmse(1e-7, kappa, normalisation) == pytest.approx(1e-7 * fraction, rel=1e-12)
    # just above the switch to the limit the quadrature agrees with the slope (2e-3 relative, at kappa ~ 1); in
    # the paper normalisation, where the noise is that of the spectral variance 1
    assert rie.symmetric_rie_mmse(2e-5, kappa) / 2e-5 == pytest.approx(fraction, rel=2e-3)


@settings(max_examples=25, deadline=None)
@given(st.floats(-4.0, 4.0), st.floats(-2.0, 2.0))
def test_semicircle_signal_closed_form_through_the_generic_route(log_noise, log_variance):
    """A semicircle signal of variance v through GOE noise: noise v/(noise + v) (Sec. 5, check 3)."""
    noise, v = 10.0**log_noise, 10.0**log_variance
    law_y = Semicircle(noise + v)
    got = rie.symmetric_rie_mmse_from_density(noise, law_y.density, law_y.bulks)
    # (the cancellation in noise - noise^2 int rho^3 costs ~1e-14 noise)
    assert got == pytest.approx(rie.semicircle_rie_mmse(noise, v), rel=1e-9, abs=1e-13 * noise)


_log_R1 = st.floats(0.0, 3.0)
_log_R2 = st.floats(-2.0, 2.0)


@settings(max_examples=25, deadline=None)
@given(st.floats(-6.0, 2.0), st.floats(0.05, 1.0), _log_R1, _log_R2, st.booleans())
def test_rectangular_mmse_is_finite_in_range_bracketed_and_non_decreasing(
    log_noise, step, log_R1, log_R2, wide
):
    """Over beta in [1, 1e3] (and inf), rho in [1e-2, 1e2], noise in [1e-6, 1e3]: finite, in [0, min(noise, 1)],
    between its beta = inf limit and the linear shrinkage noise/(1 + noise), non-decreasing in the noise."""
    noise, rho = 10.0**log_noise, 10.0**log_R2
    beta = math.inf if wide else 10.0**log_R1
    low = rie.rectangular_rie_mmse(noise, beta, rho)
    high = rie.rectangular_rie_mmse(noise * 10.0**step, beta, rho)
    tol = 1e-13 * max(1.0, noise)
    for value, n in ((low, noise), (high, noise * 10.0**step)):
        assert math.isfinite(value) and 0.0 <= value <= min(n, 1.0)
        assert rie.rectangular_rie_mmse(n, math.inf, rho) - tol <= value <= n / (1 + n) + tol
    assert high >= low - tol


@settings(max_examples=25, deadline=None)
@given(_log_R1, _log_R2)
def test_rectangular_mmse_small_noise_slope_is_the_parameter_fraction(log_R1, log_R2):
    beta, rho = 10.0**log_R1, 10.0**log_R2
    fraction = rie.rectangular_parameter_fraction(beta, rho)
    assert rie.rectangular_rie_mmse(1e-6, beta, rho) == pytest.approx(1e-6 * fraction, rel=1.1e-6)
    assert rie.rectangular_rie_mmse(1e-3, beta, rho) == pytest.approx(1e-3 * fraction, rel=0.05)
    # transposition: beta < 1 is read as 1/beta
    assert rie.rectangular_rie_mmse(0.3, 1 / beta, rho) == pytest.approx(
        rie.rectangular_rie_mmse(0.3, beta, rho), rel=1e-12
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**31), _log_kappa, _log_R2)
def test_rie_of_a_noiseless_observation_returns_it(d, L, seed, log_kappa, log_R2):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((d, d))
    Y = A + A.T
    assert np.array_equal(rie.symmetric_rie(Y, 0.0, 10.0**log_kappa), Y)
    lam = np.linalg.eigvalsh(Y)
    assert np.array_equal(rie.symmetric_rie_eigenvalues(lam, 0.0, 10.0**log_kappa), lam)
    B = rng.standard_normal((d, L))
    assert np.array_equal(rie.rectangular_rie(B, 0.0, 10.0**log_R2), B)
    sv = np.linalg.svd(B, compute_uv=False)
    assert np.array_equal(rie.rectangular_rie_singular_values(sv, 0.0, L / d, 10.0**log_R2), sv)
    assert np.array_equal(denoising.optimal_shrinkage_singular_values(sv, 0.0, L / d), sv)
    assert rie.symmetric_rie_mmse(0.0, 10.0**log_kappa) == 0.0
    assert rie.rectangular_rie_mmse(0.0, L / d, 10.0**log_R2) == 0.0


def test_symmetric_rie_below_the_resolvable_noise_returns_its_zero_noise_limit():
    # GAMP-RIE next to exact recovery asks for noise < 1e-12, below spectra.NOISE_RANGE: the limit is used there,
    # the top m = kappa d eigenvalues (rank of the Wishart signal), with O(noise) corrections.
    rng = np.random.default_rng(0)
    S = denoising.sample_wishart(60, 0.5, rng=rng)
    for noise in (1e-13, 1e-20):
        Y = S + math.sqrt(noise) * denoising.sample_goe(60, rng=rng)
        est = rie.symmetric_rie(Y, noise, 0.5)
        assert np.abs(est - S).max() < 1e3 * math.sqrt(noise)
        assert np.linalg.matrix_rank(est, tol=1e-8) == 30
    full = denoising.sample_wishart(40, 2.0, rng=rng)
    assert np.allclose(rie.symmetric_rie(full, 1e-14, 2.0), full)


@settings(max_examples=25, deadline=None)
@given(st.floats(3.0, 8.0), _log_R1, _log_R2)
def test_rectangular_mmse_at_large_noise_is_in_range_or_refused(log_noise, log_R1, log_R2):
    """Above noise 1e3 the quadrature of the quartic's law loses digits near beta = 1 (measured: 1.2e-5 below the
    beta = inf value at noise 3e4, beta = 1, rho = 10): the value is either in range or refused with ArithmeticError."""
    noise, beta, rho = 10.0**log_noise, 10.0**log_R1, 10.0**log_R2
    try:
        value = rie.rectangular_rie_mmse(noise, beta, rho)
    except ArithmeticError as err:
        assert "not resolved" in str(err)
    else:
        assert math.isfinite(value) and 1.0 - 2.0 / noise - 1e-4 <= value <= noise / (1.0 + noise)


# --------------------------------------------------------------------------- issue 20


def test_the_mmses_are_defined_at_infinite_noise():
    """One safe-everywhere MMSE: noise = inf carries no information (the signal's variance)."""
    assert rie.rectangular_rie_mmse(math.inf, 2.0, 0.3) == 1.0
    assert rie.rectangular_rie_mmse(math.inf, math.inf, 0.3) == 1.0
    assert rie.symmetric_rie_mmse(math.inf, 0.5) == 1.0
    assert rie.symmetric_rie_mmse(math.inf, 0.5, "mean_one") == pytest.approx(2.0)
    # and the limit is approached continuously: 1 - O(1/noise)
    assert 1.0 - rie.rectangular_rie_mmse(1e10, 2.0, 0.3) < 1e-9
    assert 1.0 - rie.symmetric_rie_mmse(1e10, 0.5) < 1e-9


def test_se_overlap_is_one_minus_the_mmse_and_zero_without_information():
    den = rie.RectangularRIEDenoiser(2.0, 0.3)
    assert den.se_overlap(0.0) == 0.0 and den.se_overlap(5e-324) == 0.0
    # the beta = inf closed form, independently: 2 rho D/(2 + a + sqrt(a^2 + 4 rho D)), a = rho D + rho - 1
    wide = rie.RectangularRIEDenoiser(math.inf, 0.3)
    D, rho = 0.5, 0.3
    a = rho * D + rho - 1
    assert wide.se_overlap(1 / D) == pytest.approx(
        1 - (D - D / 2 * (math.sqrt(a * a + 4 * rho * D) - a)), abs=1e-14
    )
    assert rie.WishartRIEDenoiser(0.5).se_error(0.6) == pytest.approx(0.28390, abs=5e-6)  # chapter 2's value


def test_documented_node_maximum_finishes_and_the_limit_is_named():
    """Issue 20: an MMSE at its documented maximum number of nodes ran for more than 30 s (a Gauss-Legendre rule
    of 10^4 nodes costs O(n^3)); spectra.MAX_NODES is now 2,000 and a call at it completes, agreeing with the
    default rule."""
    from solvable.spectra import MAX_NODES

    assert MAX_NODES <= 2000
    assert rie.rectangular_rie_mmse(0.5, 1.5, 0.5, n_nodes=MAX_NODES) == pytest.approx(
        rie.rectangular_rie_mmse(0.5, 1.5, 0.5), rel=1e-9
    )
    assert rie.symmetric_rie_mmse(0.5, 0.5, n_nodes=MAX_NODES) == pytest.approx(
        rie.symmetric_rie_mmse(0.5, 0.5), rel=1e-9
    )
    for call in (
        lambda: rie.rectangular_rie_mmse(0.5, 1.5, 0.5, n_nodes=MAX_NODES + 1),
        lambda: rie.symmetric_rie_mmse(0.5, 0.5, n_nodes=MAX_NODES + 1),
    ):
        with pytest.raises(ValueError, match="n_nodes"):
            call()


def test_rng_is_keyword_only_and_results_are_records():
    with pytest.raises(TypeError):
        denoising.sample_goe(5, 1.0, 0)
    with pytest.raises(TypeError):
        rie.symmetric_denoising_experiment(12, 0.5, 0.5, 0)
    a = rie.rectangular_denoising_experiment(8, 12, 2, 0.5, rng=0)
    assert a == rie.rectangular_denoising_experiment(8, 12, 2, 0.5, rng=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.rie = 0.0


def test_rectangular_parameter_fraction_at_a_subnormal_beta_is_its_limit_rho():
    """max(beta, 1/beta) overflows for beta = 1e-320: the fraction rho (1 + beta - rho) / beta was inf/inf = NaN;
    its beta -> inf limit is rho."""
    from solvable import rie as _rie

    assert _rie.rectangular_parameter_fraction(1e-320, 0.5) == 0.5
    assert _rie.rectangular_parameter_fraction(1e300, 0.5) == pytest.approx(0.5, rel=1e-15)


# --------------------------------------------------------------------------- data-driven RIE, overlaps


def test_empirical_rie_reaches_the_mmse_knowing_only_the_noise():
    """Chapter 2: the data-driven RIE (G of Y's own spectrum at lambda - i d^-1/2) at kappa = 1/2, noise = 0.6,
    d = 1000, 3 draws: its error is the MMSE 0.28390 of the limiting law within 1 %, as is the library's RIE."""
    errors, limiting = [], []
    for g in np.random.default_rng(21).spawn(3):
        S = denoising.sample_wishart(1000, 0.5, rng=g)
        Y = S + np.sqrt(0.6) * denoising.sample_goe(1000, rng=g)
        errors.append(denoising.symmetric_error(rie.empirical_symmetric_rie(Y, 0.6), S))
        limiting.append(denoising.symmetric_error(rie.symmetric_rie(Y, 0.6, 0.5), S))
    assert np.mean(errors) == pytest.approx(0.28390, rel=0.01)
    assert np.mean(limiting) == pytest.approx(0.28390, rel=0.01)
    assert (
        np.mean(errors) > np.mean(limiting) - 1e-3
    )  # knowing the law cannot hurt (beyond one draw's spread)


def test_empirical_rie_map_tends_to_the_limiting_map():
    """Inside the bulk the data-driven map approaches lambda - 2 noise Re G_Y(lambda), the error shrinking with d."""
    law = wishart_plus_goe(0.6, kappa=0.5)
    gaps = []
    for d in (250, 2000):
        g = np.random.default_rng(d)
        lam = np.linalg.eigvalsh(
            denoising.sample_wishart(d, 0.5, rng=g) + np.sqrt(0.6) * denoising.sample_goe(d, rng=g)
        )
        inner = (lam > law.edges[0] + 0.3) & (lam < law.edges[-1] - 0.3)
        new = rie.empirical_symmetric_rie_eigenvalues(lam, 0.6)
        gaps.append(np.sqrt(np.mean((new - (lam - 1.2 * law.stieltjes_real(lam)))[inner] ** 2)))
    assert gaps[1] < 0.05 and gaps[1] < gaps[0] / 1.5, gaps


def test_empirical_rie_validates_and_handles_zero_noise():
    Y = np.diag([0.0, 1.0, 2.0])
    assert np.array_equal(rie.empirical_symmetric_rie(Y, 0.0), Y)
    with pytest.raises(ValueError, match="width"):
        rie.empirical_symmetric_rie(Y, 0.5, width=0.0)
    with pytest.raises(ValueError, match="noise"):
        rie.empirical_symmetric_rie_eigenvalues([0.0, 1.0], -1.0)
    with pytest.raises(ValueError, match="eigenvalues"):
        rie.empirical_symmetric_rie_eigenvalues([1.0], 0.5)
    # A 2 x 2 check by hand: G(x - i w) = (1/2)[1/(-i w) + 1/(x - y - i w)], Re = (1/2)(x - y)/((x - y)^2 + w^2).
    new = rie.empirical_symmetric_rie_eigenvalues([0.0, 1.0], 0.5, width=1.0)
    assert np.allclose(new, [0.0 + 0.5 * 0.5, 1.0 - 0.5 * 0.5])


def test_ledoit_peche_overlap_is_normalised_and_averages_to_the_rie_map():
    """int Omega(lambda, theta) nu_S(theta) = 1 and int Omega theta nu_S = lambda - 2 noise Re G_Y(lambda),
    over the Marchenko-Pastur bulk by scipy's adaptive quadrature plus the atom at 0."""
    kappa, noise = 0.5, 0.6
    law, mp = wishart_plus_goe(noise, kappa=kappa), MarchenkoPastur(kappa)
    ((lo, hi),) = mp.bulks
    for lam in (0.5, 2.0, -0.3):

        def o(t, lam=lam):
            return float(rie.ledoit_peche_overlap(lam, t, noise, law)) * mp.density(t)

        norm = quad(o, lo, hi, limit=200)[0] + (1 - kappa) * float(
            rie.ledoit_peche_overlap(lam, 0.0, noise, law)
        )
        mean = quad(lambda t: t * o(t), lo, hi, limit=200)[0]
        assert norm == pytest.approx(1.0, abs=1e-6)
        assert mean == pytest.approx(lam - 2 * noise * float(law.stieltjes_real(lam)), abs=1e-6)
    with pytest.raises(TypeError, match="law"):
        rie.ledoit_peche_overlap(0.5, 1.0, noise, object())


def test_spiked_top_overlap_has_the_law_of_the_dense_experiment_and_the_bbp_limit():
    rng = np.random.default_rng(5)
    d, n = 60, 600
    tri = [rie.spiked_top_overlap(d, 1.5, 1.0, rng=g) for g in rng.spawn(n)]
    dense = []
    for g in rng.spawn(n):
        v = g.standard_normal(d)
        v /= np.linalg.norm(v)
        u = np.linalg.eigh(1.5 * np.outer(v, v) + denoising.sample_goe(d, rng=g))[1][:, -1]
        dense.append((u @ v) ** 2)
    se = np.hypot(np.std(tri), np.std(dense)) / np.sqrt(n)
    assert abs(np.mean(tri) - np.mean(dense)) < 4 * se
    big = [rie.spiked_top_overlap(20000, 2.0, 1.0, rng=g) for g in rng.spawn(20)]
    assert np.mean(big) == pytest.approx(1 - 1 / 4, abs=0.01)  # BBP: 1 - noise/theta^2
    assert np.mean([rie.spiked_top_overlap(20000, 0.5, 1.0, rng=g) for g in rng.spawn(5)]) < 0.01
    with pytest.raises(ValueError, match="noise"):
        rie.spiked_top_overlap(10, 1.0, 0.0, rng=0)
    with pytest.raises(TypeError):
        rie.spiked_top_overlap(10, 1.0, 1.0)


def test_symmetry_is_checked_relative_to_the_matrix_at_every_scale():
    """A matrix of entries 1e-9 with an asymmetry of 1e-10 (10 % of it) is not symmetric, as at scale 1; the same
    matrix rescaled is accepted or refused alike."""
    Y = np.array([[1.0, 2.0], [2.1, 1.0]])
    for scale in (1e-9, 1.0, 1e9):
        with pytest.raises(InvalidParameterError, match="symmetric"):
            rie.symmetric_rie(scale * Y, 0.5, 0.5)
        assert denoising.symmetric_error(scale * (Y + Y.T), scale * (Y + Y.T)) == 0.0


def test_denoising_owns_its_names():
    """The samplers, metrics and baselines of the denoising problem are public in solvable.denoising only: rie
    publishes none of them again (one name, one home)."""
    from solvable import denoising

    assert not set(rie.__all__) & set(denoising.__all__)
    for name in ("sample_goe", "symmetric_error", "truncated_svd", "DenoisingErrors"):
        assert name in denoising.__all__
