"""The sequence multi-index model's rank-one softmax layer (solvable.smi): sampler, thresholds, state evolution."""

import math

import numpy as np
import pytest
from _reference import reference_rows
from hypothesis import given, settings
from hypothesis import strategies as st

from solvable import smi
from solvable.amp import SEResult
from solvable.channels import row_softmax
from solvable.errors import ConvergenceWarning

REF = "attention.csv"


def test_weak_recovery_reference_rows():
    rows = [r for r in reference_rows(REF) if r["quantity"] == "alpha_c_weak_recovery"]
    assert rows
    for r in rows:  # the table rounds 1/6 to 7 digits
        assert smi.weak_recovery_threshold(int(r["T"])) == pytest.approx(
            float(r["value"]), abs=float(r["tolerance_hint"])
        )


def test_thresholds_are_exact_fractions():
    assert smi.weak_recovery_threshold(2) == 1 / 6  # the float nearest to 1/6
    assert smi.weak_recovery_threshold(3) == 1 / 12
    assert smi.perfect_recovery_threshold(2) == 0.5 and smi.perfect_recovery_threshold(4) == 0.25


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=2, max_value=10**6))
def test_threshold_closed_forms(T):
    a_c, a_pr = smi.weak_recovery_threshold(T), smi.perfect_recovery_threshold(T)
    assert a_c == 1.0 / (T * (T + 1)) and a_pr == 1.0 / T
    assert 0 < a_c < a_pr <= 0.5  # weak recovery before perfect recovery, for every T


def test_sample_and_fisher_factor():
    data = smi.sample(50, 0.4, T=2, rng=np.random.default_rng(8))
    z = data.z
    assert data.X.shape == (20, 2, 50) and data.alpha == pytest.approx(0.4)
    assert (data.n, data.d, data.T) == (20, 50, 2)
    assert np.allclose(data.y, row_softmax(z[:, :, None] * z[:, None, :]))
    for T in (2, 3):
        mean, se = smi.fisher_factor(T, n_samples=200_000, rng=np.random.default_rng(T))
        assert abs(mean - T * (T + 1)) < 4 * se  # E||z z^T - I||_F^2 = T(T+1): alpha_c = 1/(T(T+1))


def test_tokens_are_stored_sample_token_feature_as_in_attention():
    """Both sequence models store X as (n, T, d): token a of sequence mu is X[mu, a]; the draws are those of the
    papers' X_mu (d x T), one after the other, after the teacher."""
    from solvable import attention

    d, T = 30, 3
    for data, W in ((smi.sample(d, 1.0, T=T, rng=1), None), (smi.two_layer_sample(d, 1.0, T=T, rng=1), 2)):
        gen = np.random.default_rng(1)
        teacher = gen.standard_normal(d if W is None else (d, W))
        drawn = gen.standard_normal((d, d, T))  # n = alpha d = d sequences
        assert data.X.shape == (d, T, d) and np.array_equal(data.X, drawn.transpose(0, 2, 1))
        assert np.array_equal(data.W_star if W else data.w_star, teacher)
    z = np.array([[token @ data.W_star[:, 0] for token in seq] for seq in data.X]) / np.sqrt(d)
    assert np.allclose(data.z[..., 0], z)
    aim = attention.sample(8, 0.5, rho=0.5, T=T, rng=0)
    assert aim.X.shape == (aim.n, T, 8) and data.X.shape[1:] == (T, d)


def test_overlap_curve_shows_weak_and_perfect_recovery():
    curve = smi.overlap_curve([0.1, 0.3, 0.7], 2, n_samples=20000, rng=np.random.default_rng(9))
    assert curve.alpha_c == pytest.approx(1 / 6) and curve.alpha_pr == 0.5
    assert curve.converged.all()
    assert curve.overlap[0] < 1e-4  # below alpha_c: no weak recovery
    assert 0.2 < curve.overlap[1] < 0.35  # between the thresholds (0.27 at 1e5 samples)
    assert curve.overlap[2] > 0.999  # above alpha_pr = 1/T


def test_state_evolution_is_an_se_result():
    res = smi.state_evolution(0.3, 2, n_samples=5000, rng=3)
    assert isinstance(res, SEResult) and res.converged
    assert res.error == pytest.approx(1 - res.overlap) and res.gen_error == res.error
    assert res.overlap_history[0] == 1e-3 and res.overlap_history[-1] == res.overlap
    assert np.allclose(res.history, 1 - res.overlap_history) and res.history.size == res.iterations + 1
    assert res.conjugate / (1 + res.conjugate) == pytest.approx(res.overlap, abs=1e-6)  # Q = Qhat/(1 + Qhat)


def test_state_evolution_warns_at_cap():
    with pytest.warns(ConvergenceWarning, match="3 iterations"):
        res = smi.state_evolution(0.3, 2, n_samples=1000, max_iter=3, rng=0)
    assert res.iterations == 3 and len(res.history) == 4 and not res.converged


def test_state_evolution_tol_zero_runs_exactly_max_iter():
    res = smi.state_evolution(0.3, 2, n_samples=1000, tol=0.0, max_iter=7, rng=0)
    assert res.iterations == 7 and not res.converged


def test_state_evolution_on_given_draws_is_the_same_map():
    """draws=(z, xi) runs the iteration on the reader's Monte-Carlo sample: the same trajectory as drawing it
    from the same generator, and one explicit step of eq. (2) by hand."""
    gen = np.random.default_rng(3)
    z, xi = gen.standard_normal((400, 3)), gen.standard_normal((400, 3))
    by_rng = smi.state_evolution(0.2, 3, n_samples=400, tol=0.0, max_iter=12, warn=False, rng=3)
    by_draws = smi.state_evolution(0.2, 3, tol=0.0, max_iter=12, warn=False, draws=(z, xi))
    assert np.array_equal(by_rng.overlap_history, by_draws.overlap_history)
    q0 = 0.3
    V = 1 - q0
    omega = q0 * z + math.sqrt(q0 * V) * xi
    g = (z * np.tanh(np.sum(z * omega, axis=1) / V)[:, None] - omega) / V
    qhat = 0.2 * np.mean(np.sum(g**2, axis=1))
    one = smi.state_evolution(0.2, 3, start=q0, tol=0.0, max_iter=1, warn=False, draws=(z, xi))
    assert one.overlap_history[1] == pytest.approx(qhat / (1 + qhat), rel=1e-13)


@pytest.mark.parametrize(
    "draws,error",
    [
        ((np.ones((5, 2)), np.ones((5, 3))), ValueError),  # shapes differ
        ((np.ones((5, 3)), np.ones((5, 3))), ValueError),  # T = 3 draws for T = 2
        ((np.ones(5), np.ones(5)), ValueError),  # not (n, T)
        ((np.full((5, 2), np.nan), np.ones((5, 2))), ValueError),
        (np.ones((5, 2)), TypeError),  # not a pair
    ],
)
def test_state_evolution_refuses_bad_draws(draws, error):
    with pytest.raises(error, match="draws"):
        smi.state_evolution(0.2, 2, draws=draws)


@settings(max_examples=30, deadline=None)
@given(
    alpha=st.floats(min_value=0.0, max_value=5.0),
    T=st.integers(min_value=2, max_value=5),
    start=st.floats(min_value=1e-6, max_value=0.999),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_state_evolution_overlap_is_in_the_unit_interval(alpha, T, start, seed):
    res = smi.state_evolution(alpha, T, start=start, n_samples=64, max_iter=30, warn=False, rng=seed)
    Qs = res.overlap_history
    assert np.all(np.isfinite(Qs)) and np.all((Qs >= 0) & (Qs <= 1))
    assert 0 <= res.error <= 1 and math.isfinite(res.conjugate) and res.conjugate >= 0
    if alpha == 0:
        assert res.overlap == 0.0  # no data: Qhat = 0


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: smi.weak_recovery_threshold(1), "T"),
        (lambda: smi.weak_recovery_threshold(2.0), "T"),
        (lambda: smi.perfect_recovery_threshold("3"), "T"),
        (lambda: smi.sample(10, -0.2, T=2, rng=0), "alpha"),
        (lambda: smi.sample(10, math.nan, T=2, rng=0), "alpha"),
        (lambda: smi.sample(10, math.inf, T=2, rng=0), "alpha"),
        (lambda: smi.sample(1, 0.5, T=2, rng=0), "d"),
        (lambda: smi.sample(10, 0.01, T=2, rng=0), "alpha d"),
        (lambda: smi.sample(10, 0.5, T=2, rng=None), "rng"),
        (lambda: smi.sample(10**5, 1e5, T=2, rng=0), "limit"),  # 1e10 tokens: refused, not allocated
        (lambda: smi.fisher_factor(2, n_samples=1, rng=0), "n_samples"),
        (lambda: smi.fisher_factor(2, n_samples=10**10, rng=0), "limit"),
        (lambda: smi.state_evolution(-0.1, 2, rng=0), "alpha"),
        (lambda: smi.state_evolution(math.nan, 2, rng=0), "alpha"),
        (lambda: smi.state_evolution(math.inf, 2, rng=0), "alpha"),
        (lambda: smi.state_evolution(0.2, 2, start=0.0, rng=0), "start"),
        (lambda: smi.state_evolution(0.2, 2, start=1.0, rng=0), "start"),
        (lambda: smi.state_evolution(0.2, 2, tol=math.inf, rng=0), "tol"),
        (lambda: smi.state_evolution(0.2, 2, tol=-1e-3, rng=0), "tol"),
        (lambda: smi.state_evolution(0.2, 2, max_iter=0, rng=0), "max_iter"),
        (lambda: smi.state_evolution(0.2, 2, damping=1.0, rng=0), "damping"),
        (lambda: smi.state_evolution(0.2, 2, n_samples=10**10, rng=0), "limit"),
        (lambda: smi.overlap_curve([], 2, rng=0), "alphas"),
        (lambda: smi.overlap_curve([[0.1, 0.2]], 2, rng=0), "alphas"),
        (lambda: smi.overlap_curve(["a"], 2, rng=0), "alphas"),
        (lambda: smi.overlap_curve([0.1, -0.2], 2, rng=0), "alphas"),
        (lambda: smi.overlap_curve([0.1, math.nan], 2, rng=0), "alphas"),
        (lambda: smi.overlap_curve([0.1], 2, tol=math.inf, rng=0), "tol"),
        (lambda: smi.overlap_curve([0.1], 2, max_iter=0, rng=0), "max_iter"),
        (lambda: smi.Dataset(X=np.ones((4, 3, 2)), y=np.ones((4, 3, 3)), w_star=np.ones(3)), "X must be"),
    ],
)
def test_bad_input_raises(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --------------------------------------------------------------------------- peak memory against the size checks


def _peak_over_counted(monkeypatch, call):
    """Peak of the allocations under tracemalloc (numbers of 8 bytes, less 1 MiB of small objects) over the
    largest count that ``check_size`` was asked about during ``call``."""
    import tracemalloc

    counted = []
    real = smi.check_size

    def spy(what, *shape):
        counted.append(real(what, *shape))
        return counted[-1]

    monkeypatch.setattr(smi, "check_size", spy)
    tracemalloc.start()
    try:
        call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return (peak - 2**20) / 8 / max(counted)


@pytest.mark.parametrize(
    "call",
    [
        lambda: smi.sample(200, 100.0, T=4, rng=0),
        lambda: smi.state_evolution(0.5, 4, n_samples=200_000, max_iter=3, warn=False, rng=0),
        lambda: smi.fisher_factor(4, n_samples=200_000, rng=0),
    ],
    ids=["sample", "state_evolution", "fisher_factor"],
)
def test_size_checks_count_the_peak_of_every_array(monkeypatch, call):
    """Issue 20: the checks capped the draws while the functions held 2 to 6 times more at their peak."""
    assert _peak_over_counted(monkeypatch, call) <= 1.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: smi.state_evolution(
            0.5, 2, n_samples=2 * 10**8, rng=0
        ),  # the draws alone: 4e8 < 2^30 numbers
        lambda: smi.fisher_factor(2, n_samples=2 * 10**8, rng=0),
        lambda: smi.overlap_curve([0.5], 2, n_samples=2 * 10**8, rng=0),
    ],
)
def test_a_size_whose_peak_is_beyond_the_limit_is_refused_before_allocating(call):
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="limit"):
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20


def test_state_evolution_at_a_huge_sample_ratio_reaches_perfect_recovery():
    """Issue 20 (valid extremes): at alpha = 1e300 the conjugate overflowed and Q became NaN (a DivergenceError);
    the limit alpha -> inf is perfect recovery, Q = 1 (kept at Q_MAX = 1 - 1e-12)."""
    res = smi.state_evolution(1e300, 2, n_samples=100, rng=0)
    assert res.converged and res.overlap == pytest.approx(1.0, abs=1e-11) and math.isfinite(res.conjugate)
