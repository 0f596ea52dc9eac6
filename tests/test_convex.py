"""Statistical dimensions of descent cones (``solvable.convex``): against the Donoho-Gavish-Montanari threshold of
``bsr``, closed forms at the edges, a Monte Carlo draw at finite size, and the nuclear-norm ERM theory of
``quadratic`` (its lambda -> 0+ error vanishes exactly above the PSD statistical dimension)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solvable import bsr, convex, quadratic


@pytest.mark.parametrize(("beta", "rho"), [(1.0, 0.2), (1.0, 0.5), (2.0, 0.1), (0.5, 0.1), (4.0, 0.7)])
def test_nuclear_norm_equals_the_mnne_threshold(beta, rho):
    # two computations: stationarity root (bsr) and direct minimisation (convex)
    assert convex.nuclear_norm_statistical_dimension(beta, rho) == pytest.approx(
        bsr.nuclear_norm_threshold(beta, rho), abs=1e-9)


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
    below = quadratic.nuclear_norm_erm_theory(0.40, 0.5, 0.0).mse
    above = quadratic.nuclear_norm_erm_theory(0.43, 0.5, 0.0).mse
    assert below > 1e-3 and above < 1e-6


@pytest.mark.parametrize(("call", "bad"), [
    (lambda: convex.nuclear_norm_statistical_dimension(0.0, 0.2), "beta"),
    (lambda: convex.nuclear_norm_statistical_dimension(1.0, 1.5), "rho"),
    (lambda: convex.psd_trace_statistical_dimension(-0.1), "kappa"),
])
def test_bad_arguments_are_named(call, bad):
    with pytest.raises(ValueError, match=bad):
        call()
