"""Wishart sensing (shared by quadratic networks and attention): property-based tests of the Bayes-optimal MMSE and
of the state evolution of GAMP-RIE over their whole documented domain, their closed-form limits, and bad inputs."""

import math
import sys
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from solvable import amp, rie
from solvable import matrix_sensing as ms
from solvable.errors import ConvergenceWarning

# The documented domain: alpha >= 0, KAPPA_MIN <= kappa <= KAPPA_MAX, delta >= 0; drawn with their ends, tiny values
# included. The computed MMSE is accurate to about 1e-8 (module docstring): the order relations allow that much.
ACCURACY = 1e-8
alphas = st.one_of(st.just(0.0), st.floats(1e-300, 1e-6), st.floats(0.0, 5.0))
kappas = st.one_of(st.sampled_from([ms.KAPPA_MIN, 1.0, 5.0]), st.floats(ms.KAPPA_MIN, 5.0))
deltas = st.one_of(st.just(0.0), st.floats(1e-300, 1e-6), st.floats(0.0, 100.0))
FAST = settings(max_examples=30, deadline=None)


def gaussian_signal_mmse(alpha, delta):
    """kappa -> infinity (S* a GOE matrix, mmse_RIE(s) = s/(1 + s)): qhat/(1 + qhat) + delta qhat/2 = 2 alpha,
    MMSE = 1/(1 + qhat), a quadratic equation (1 - 2 alpha at delta = 0). Among signals of spectral variance 1 the
    Gaussian one is the hardest (the linear estimator reaches s/(1 + s)), so it bounds every kappa from above."""
    if delta == 0:
        return max(0.0, 1.0 - 2.0 * alpha)
    b = 1.0 + delta / 2 - 2.0 * alpha
    root = math.sqrt(
        b * b + 4.0 * delta * alpha
    )  # qhat: positive root of delta q^2/2 + b q - 2 alpha, without cancellation
    qhat = 4.0 * alpha / (b + root) if b > 0 else (root - b) / delta
    return 1.0 / (1.0 + qhat)


# --------------------------------------------------------------------------- Bayes-optimal MMSE


@FAST
@given(alphas, kappas, deltas)
def test_mmse_is_finite_in_range_and_below_the_gaussian_signal(alpha, kappa, delta):
    m = ms.bayes_optimal_mmse(alpha, kappa, delta)
    assert math.isfinite(m) and 0.0 <= m <= 1.0
    assert m <= gaussian_signal_mmse(alpha, delta) + ACCURACY


@FAST
@given(alphas, alphas, kappas, deltas)
def test_mmse_is_non_increasing_in_alpha(a1, a2, kappa, delta):
    lo, hi = sorted((a1, a2))
    assert ms.bayes_optimal_mmse(hi, kappa, delta) <= ms.bayes_optimal_mmse(lo, kappa, delta) + ACCURACY


@FAST
@given(alphas, kappas, deltas, deltas)
def test_mmse_is_non_decreasing_in_delta(alpha, kappa, d1, d2):
    lo, hi = sorted((d1, d2))
    assert ms.bayes_optimal_mmse(alpha, kappa, hi) >= ms.bayes_optimal_mmse(alpha, kappa, lo) - ACCURACY


@FAST
@given(kappas, deltas)
def test_no_data_gives_the_prior_error(kappa, delta):
    assert ms.bayes_optimal_mmse(0.0, kappa, delta) == 1.0


@FAST
@given(kappas, st.floats(0.0, 5.0))
def test_noiseless_recovery_is_exact_above_alpha_pr(kappa, excess):
    alpha = ms.perfect_recovery_threshold(kappa) + excess
    assert ms.bayes_optimal_mmse(alpha, kappa, 0.0) == 0.0


@FAST
@given(kappas, st.floats(1e-3, 5.0), st.floats(1e-300, 1e-9))
def test_tiny_noise_above_alpha_pr_has_its_closed_form(kappa, excess, delta):
    """mmse_RIE(s) = 2 alpha_PR s at small s gives MMSE = alpha_PR delta / (2 (alpha - alpha_PR)): continuous,
    and 0 at delta = 0."""
    a_pr = ms.perfect_recovery_threshold(kappa)
    alpha = a_pr + excess
    assume(alpha > a_pr)
    expected = a_pr * delta / (2.0 * (alpha - a_pr))
    assert ms.bayes_optimal_mmse(alpha, kappa, delta) == pytest.approx(expected, rel=1e-3, abs=1e-300)


@FAST
@given(kappas, st.floats(0.0, 100.0), st.floats(1e-300, 1e-6))
def test_small_alpha_slope(kappa, delta, alpha):
    """MMSE = 1 - 4 alpha/(2 + delta) + O(alpha^2) (g(qhat) = qhat - qhat^2 + ...); the O(alpha^2) coefficient is
    at most (2 + 1/kappa) (4/(2 + delta))^2."""
    x = 4.0 * alpha / (2.0 + delta)
    got = ms.bayes_optimal_mmse(alpha, kappa, delta)
    assert abs(got - (1.0 - x)) <= (2.0 + 1.0 / kappa) * x * x + ACCURACY


@FAST
@given(st.floats(0.0, 5.0), deltas)
def test_large_width_limit_is_the_gaussian_signal(alpha, delta):
    """kappa -> infinity: the fourth free cumulant 1/kappa of S* vanishes and S* is a GOE matrix."""
    assert ms.bayes_optimal_mmse(alpha, 1e6, delta) == pytest.approx(
        gaussian_signal_mmse(alpha, delta), abs=1e-5
    )


def test_published_values_and_threshold():
    """Chapter 4's reference values (cross-checked against the authors' code to 3e-4) and alpha_PR."""
    assert ms.bayes_optimal_mmse(0.1, 0.5) == pytest.approx(0.723677, abs=3e-4)
    assert ms.bayes_optimal_mmse(0.3, 0.5) == pytest.approx(0.128131, abs=3e-4)
    assert ms.bayes_optimal_mmse(0.25, 1.0) == pytest.approx(0.374823, abs=3e-4)
    assert ms.bayes_optimal_mmse(0.4, 0.5, 0.25) == pytest.approx(0.226729, abs=3e-4)
    assert ms.perfect_recovery_threshold(0.5) == 0.375 and ms.perfect_recovery_threshold(4.0) == 0.5


# --------------------------------------------------------------------------- state evolution


@FAST
@given(st.floats(0.0, 5.0), kappas, deltas)
def test_state_evolution_is_in_range_and_decreases_from_the_uninformed_start(alpha, kappa, delta):
    se = ms.state_evolution(alpha, kappa, delta, max_iter=50, warn=False)
    assert isinstance(se, amp.SEResult)
    assert se.history[0] == pytest.approx(1.0 + kappa) and len(se.history) == se.iterations + 1
    assert np.all(np.isfinite(se.history)) and np.all((se.history[1:] >= 0) & (se.history[1:] <= 1))
    assert np.all(np.diff(se.history[1:]) <= ACCURACY)
    assert 0.0 <= se.error <= 1.0 and se.overlap == pytest.approx(1.0 + kappa - se.error)


@settings(max_examples=25, deadline=None)
@given(st.floats(0.0, 5.0), kappas, st.one_of(st.just(0.0), st.floats(0.01, 100.0)))
def test_state_evolution_fixed_point_is_the_bayes_error(alpha, kappa, delta):
    """V = 2 mmse_RIE((delta + V)/(4 alpha)) is the Bayes fixed point (1/s = qhat). Away from the critical slowing
    down at alpha_PR (noiseless) the recursion converges; there its error is the Bayes MMSE."""
    if delta == 0:
        assume(abs(alpha - ms.perfect_recovery_threshold(kappa)) > 0.05)
    se = ms.state_evolution(alpha, kappa, delta, max_iter=20000)
    assert se.converged
    assert se.error == pytest.approx(ms.bayes_optimal_mmse(alpha, kappa, delta), abs=1e-7)


@FAST
@given(st.floats(0.0, 5.0), st.floats(0.0, 5.0), kappas, deltas)
def test_state_evolution_after_t_steps_is_non_increasing_in_alpha(a1, a2, kappa, delta):
    lo, hi = sorted((a1, a2))
    run = [ms.state_evolution(a, kappa, delta, tol=0.0, max_iter=20).history for a in (lo, hi)]
    assert np.all(run[1] <= run[0] + ACCURACY)


def test_state_evolution_without_data_and_at_extreme_ratios():
    se = ms.state_evolution(0.0, 0.5)
    assert se.converged and se.error == 1.0 and se.conjugate == 0.0
    tiny = ms.state_evolution(1e-300, 0.5, 1e300)
    assert tiny.converged and tiny.error == 1.0
    big = ms.state_evolution(1e6, 0.5)
    assert big.converged and big.error < 1e-10


def test_state_evolution_does_not_report_the_unstable_perfect_fixed_point():
    """Below alpha_PR, V = 0 is an unstable fixed point: from V0 = 1e-200 the first change is below tol, which used
    to read as convergence at error 1e-200 (the Bayes error is 0.13)."""
    for delta in (0.0, 1e-250):
        with pytest.warns(ConvergenceWarning, match="unstable fixed point"):
            se = ms.state_evolution(0.3, 0.5, delta, start=1e-200)
        assert not se.converged and se.error < 1e-100
    se = ms.state_evolution(0.3, 0.5, start=1e-6)  # moves away fast enough: reaches the stable fixed point
    assert se.converged and se.error == pytest.approx(ms.bayes_optimal_mmse(0.3, 0.5), abs=1e-7)
    above = ms.state_evolution(0.5, 0.5, start=1e-200)  # above alpha_PR V = 0 is the stable fixed point
    assert above.converged and above.error < 1e-150


def test_huge_ratios_and_noise_together():
    """alpha and delta both huge: g(qhat) <= 2 alpha_PR is negligible against 2 alpha, so qhat = 4 alpha/delta and
    MMSE = mmse_RIE(delta/(4 alpha)); the bracket used to lose its sign to rounding (scipy's "f(a) and f(b) must
    have different signs")."""
    for alpha, delta in ((3.9e49, 4.5e47), (8.7e221, 5.1e219), (1.1e34, 3.1e41)):
        m = ms.bayes_optimal_mmse(alpha, 0.5, delta)
        assert 0.0 <= m <= 1.0
        assert m == pytest.approx(rie.symmetric_rie_mmse(delta / (4 * alpha), 0.5), rel=1e-9)
    se = ms.state_evolution(1e308, 0.5)
    assert se.converged and se.error == 0.0 and se.conjugate == 1 / sys.float_info.min  # saturated, finite


def test_state_evolution_warns_at_its_cap_near_alpha_pr():
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        se = ms.state_evolution(0.375, 0.5, max_iter=50)
    assert not se.converged and se.iterations == 50
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ms.state_evolution(0.375, 0.5, max_iter=50, warn=False)


# --------------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: ms.perfect_recovery_threshold(0.0), "kappa"),
        (lambda: ms.perfect_recovery_threshold(math.nan), "kappa"),
        (lambda: ms.perfect_recovery_threshold(math.inf), "kappa"),
        (lambda: ms.perfect_recovery_threshold(None), "kappa"),
        (lambda: ms.bayes_optimal_mmse(-1e-12, 0.5), "alpha"),
        (lambda: ms.bayes_optimal_mmse(math.inf, 0.5), "alpha"),
        (lambda: ms.bayes_optimal_mmse(math.nan, 0.5), "alpha"),
        (lambda: ms.bayes_optimal_mmse([0.1], 0.5), "alpha"),
        (lambda: ms.bayes_optimal_mmse(0.1, -0.5), "kappa"),
        (lambda: ms.bayes_optimal_mmse(0.1, 1e-6), "kappa"),
        (lambda: ms.bayes_optimal_mmse(0.1, 1e7), "kappa"),
        (lambda: ms.bayes_optimal_mmse(0.1, 0.5, -1.0), "delta"),
        (lambda: ms.bayes_optimal_mmse(0.1, 0.5, math.nan), "delta"),
        (lambda: ms.state_evolution(-0.1, 0.5), "alpha"),
        (lambda: ms.state_evolution(0.1, 0.0), "kappa"),
        (lambda: ms.state_evolution(0.1, 0.5, math.inf), "delta"),
        (lambda: ms.state_evolution(0.1, 0.5, start=-1.0), "start"),
        (lambda: ms.state_evolution(0.1, 0.5, start=math.nan), "start"),
        (lambda: ms.state_evolution(0.1, 0.5, damping=1.0), "damping"),
        (lambda: ms.state_evolution(0.1, 0.5, damping=-0.1), "damping"),
        (lambda: ms.state_evolution(0.1, 0.5, tol=math.inf), "tol"),
        (lambda: ms.state_evolution(0.1, 0.5, tol=-1.0), "tol"),
        (lambda: ms.state_evolution(0.1, 0.5, max_iter=0), "max_iter"),
        (lambda: ms.state_evolution(0.1, 0.5, max_iter=True), "max_iter"),
    ],
)
def test_bad_input_raises_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_start_is_the_initial_output_variance():
    """Issue 20: V0 became start, same meaning: history[0] = start/2; None is 2 (1 + kappa)."""
    default = ms.state_evolution(0.2, 0.5)
    again = ms.state_evolution(0.2, 0.5, start=3.0)
    assert default.history[0] == 1.5 and again.history[0] == 1.5 and default == again
    assert ms.state_evolution(0.2, 0.5, start=0.4).history[0] == 0.2
    # no measurement: s = inf, the RIE's error is the signal's variance 1 (rie.symmetric_rie_mmse at noise inf)
    assert ms.state_evolution(0.0, 0.5).error == 1.0 and rie.symmetric_rie_mmse(math.inf, 0.5) == 1.0
