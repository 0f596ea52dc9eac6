"""The data-driven rectangular RIE (chapter 2): the limiting law's ``v`` replaced by the smoothed empirical one."""

import numpy as np
import pytest

from solvable import denoising, rie
from solvable.spectra import rectangular_plus_noise

BETA, RHO, NOISE = 2.0, 0.2, 1.0


def _draw(d, seed, beta=BETA, rho=RHO, noise=NOISE):
    g = np.random.default_rng(seed)
    L, r = round(beta * d), round(rho * d)
    S = denoising.sample_rectangular_signal(d, L, r, rng=g)
    return S, S + np.sqrt(noise) * denoising.sample_rectangular_noise(d, L, rng=g)


def test_empirical_v_has_the_normalisation_of_the_limiting_law():
    """``v_d(sigma) = Re (1/2d) sum_j [1/(z - sigma_j) + 1/(z + sigma_j)]`` at ``z = sigma - i d^-1/2`` is
    ``stieltjes_real`` of the limiting law to O(d^-1/2): read back from the map, at two sizes."""
    law = rectangular_plus_noise(NOISE, beta=BETA, rho=RHO)
    gaps = []
    for d in (200, 800):
        sv = np.linalg.svd(_draw(d, d)[1], compute_uv=False)
        new = rie.empirical_rectangular_rie_singular_values(sv, NOISE, BETA)
        v_emp = (sv - new) * np.sqrt(BETA) / (2 * NOISE) - (BETA - 1) / (2 * sv)
        gaps.append(np.mean(np.abs(v_emp - law.stieltjes_real(sv))))
    # measured: 0.051 at d = 200, 0.026 at d = 800 (the rate d^-1/2 halves it)
    assert gaps[1] < 0.035 and gaps[1] < gaps[0] / 1.5, gaps


def test_empirical_map_tends_to_the_oracle_map():
    """Mean |empirical - limiting-law map| over the singular values falls with d (measured 0.041 -> 0.021)."""
    gaps = []
    for d in (200, 800):
        sv = np.linalg.svd(_draw(d, d + 1)[1], compute_uv=False)
        emp = rie.empirical_rectangular_rie_singular_values(sv, NOISE, BETA)
        lim = rie.rectangular_rie_singular_values(sv, NOISE, BETA, RHO)
        gaps.append(np.mean(np.abs(emp - lim)))
    assert gaps[1] < 0.03 and gaps[1] < gaps[0] / 1.5, gaps


def test_empirical_error_approaches_the_oracle_error_and_the_mmse():
    S, Y = _draw(600, 3)
    scale = np.sqrt(S.size)
    emp = np.sum((rie.empirical_rectangular_rie(Y, NOISE) - S) ** 2) / scale
    lim = np.sum((rie.rectangular_rie(Y, NOISE, RHO) - S) ** 2) / scale
    mmse = rie.rectangular_rie_mmse(NOISE, BETA, RHO)
    assert lim <= emp < lim + 0.01, (emp, lim)
    assert emp == pytest.approx(mmse, rel=0.03)


def test_transposed_input_is_the_transposed_estimate():
    _, Y = _draw(40, 5)
    assert np.allclose(rie.empirical_rectangular_rie(Y.T, 0.7), rie.empirical_rectangular_rie(Y, 0.7).T)
    sv = np.linalg.svd(Y, compute_uv=False)
    assert np.array_equal(
        rie.empirical_rectangular_rie_singular_values(sv, 0.7, 0.5),
        rie.empirical_rectangular_rie_singular_values(sv, 0.7, 2.0),
    )


def test_zero_noise_returns_a_copy_and_the_output_is_finite():
    _, Y = _draw(20, 6)
    out = rie.empirical_rectangular_rie(Y, 0.0)
    assert np.array_equal(out, Y) and out is not Y
    sv = np.array([0.0, 0.5, 1.0, 2.0])
    same = rie.empirical_rectangular_rie_singular_values(sv, 0.0, 2.0)
    assert np.array_equal(same, sv) and same is not sv
    new = rie.empirical_rectangular_rie_singular_values(sv, 5.0, 1.0)  # a zero singular value, large noise
    assert np.all(np.isfinite(new)) and np.all(new >= 0) and new[0] == 0.0


def test_small_case_by_hand():
    """Two singular values 1, 2 at beta = 1, width 1: v_d(1) = (1/4) Re[1/(-i) + 1/(2 - i) + 1/(-1 - i) + 1/(3 - i)]."""
    v1 = 0.25 * (1 / (-1j) + 1 / (2 - 1j) + 1 / (-1 - 1j) + 1 / (3 - 1j)).real
    v2 = 0.25 * (1 / (1 - 1j) + 1 / (3 - 1j) + 1 / (-1j) + 1 / (4 - 1j)).real
    new = rie.empirical_rectangular_rie_singular_values([1.0, 2.0], 0.1, 1.0, width=1.0)
    assert np.allclose(new, [1.0 - 0.2 * v1, 2.0 - 0.2 * v2], rtol=1e-12)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(singular_values=[1.0], noise=0.5, beta=2.0), "singular_values"),
        (dict(singular_values=[1.0, -0.5], noise=0.5, beta=2.0), "singular_values"),
        (dict(singular_values=[1.0, np.nan], noise=0.5, beta=2.0), "singular_values"),
        (dict(singular_values=[1.0, 2.0], noise=-0.5, beta=2.0), "noise"),
        (dict(singular_values=[1.0, 2.0], noise=0.5, beta=0.0), "beta"),
        (dict(singular_values=[1.0, 2.0], noise=0.5, beta=2.0, width=0.0), "width"),
    ],
)
def test_singular_value_map_errors_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rie.empirical_rectangular_rie_singular_values(**kwargs)


def test_estimator_errors_name_the_argument():
    Y = np.ones((3, 5))
    with pytest.raises(ValueError, match="Y"):
        rie.empirical_rectangular_rie(np.ones((1, 5)), 0.5)
    with pytest.raises(ValueError, match="Y"):
        rie.empirical_rectangular_rie(np.full((3, 5), np.inf), 0.5)
    with pytest.raises(ValueError, match="noise"):
        rie.empirical_rectangular_rie(Y, -1.0)
    with pytest.raises(ValueError, match="width"):
        rie.empirical_rectangular_rie(Y, 0.5, width=-1.0)
