"""Attention: the AIM's Bayes-optimal error and thresholds, its state evolution, the softmax and hardmax channels,
GAMP-RIE on raw tokens and Adam on tied students (the sequence multi-index model: tests/test_smi.py)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from _reference import reference_rows
from hypothesis import given, settings
from hypothesis import strategies as st

from solvable import attention as at
from solvable import channels as ch
from solvable import gd, matrix_sensing, smi, streams
from solvable.amp import GAMPResult, SEResult
from solvable.errors import ConvergenceWarning, DivergenceError, InvalidParameterError

REF = "attention.csv"
MMSE_TOL = 3e-4  # the tolerance on the Bayes MMSE (table hint 2e-4; the stricter one applies)


# --------------------------------------------------------------------------- reference values


def _check_row(r):
    q = r["quantity"]
    value, hint = float(r["value"]), float(r["tolerance_hint"])
    if q == "mmse_BO":
        got = at.bayes_optimal_mmse(float(r["alpha"]), float(r["rho"]), int(r["T"]))
        assert got == pytest.approx(value, abs=min(MMSE_TOL, hint)), r
    elif q == "alpha_PR":
        got = at.perfect_recovery_threshold(float(r["rho"]), int(r["T"]))
        assert got == pytest.approx(value, abs=1e-12), r  # exact (the table gives all digits)
    elif q == "alpha_c_weak_recovery":
        got = smi.weak_recovery_threshold(int(r["T"]))
        assert got == pytest.approx(value, abs=hint), r  # the table rounds 1/6 to 7 digits
    else:
        raise AssertionError(f"unknown quantity {q!r} in {REF}: add a check for it")


def test_every_reference_row_is_reproduced():
    rows = reference_rows(REF)
    assert len(rows) >= 5
    for r in rows:
        _check_row(r)


def test_thresholds_are_exact_fractions():
    assert Fraction(at.perfect_recovery_threshold(0.5, 2)) == Fraction(3, 16)
    assert at.perfect_recovery_threshold(2.0, 3) == 0.5 / 5  # rho >= 1: (1/2)/K


# --------------------------------------------------------------------------- theory


def test_perfect_recovery_threshold_decays_like_two_over_T_squared():
    rho = 0.5
    c = rho - rho**2 / 2
    Ts = np.array([2, 3, 5, 10, 30, 100])
    a_pr = np.array([at.perfect_recovery_threshold(rho, int(T)) for T in Ts])
    assert np.all(np.diff(a_pr) < 0)  # longer sequences: more equations per sample
    ratio = a_pr * Ts**2 / (2 * c)  # = T^2/(T^2 + T - 2): 1 at T = 2, 0.89 at T = 5, -> 1 as T -> inf
    assert np.allclose(ratio, Ts**2 / (Ts**2 + Ts - 2.0), rtol=1e-14)
    assert np.all((ratio > 0.85) & (ratio <= 1.0)) and ratio[-1] == pytest.approx(1.0, abs=0.011)


def test_bayes_mmse_is_the_wishart_sensing_equation_at_alpha_K():
    for alpha, rho, T in [(0.02, 0.5, 3), (0.05, 1.5, 2), (0.01, 0.25, 5)]:
        K = T * (T + 1) // 2 - 1
        assert at.n_effective_indices(T) == K
        assert at.bayes_optimal_mmse(alpha, rho, T) == matrix_sensing.bayes_optimal_mmse(alpha * K, rho)


@pytest.mark.parametrize("T", [2, 3, 4])
def test_mmse_limits_and_monotonicity(T):
    rho = 0.5
    assert at.bayes_optimal_mmse(0.0, rho, T) == 1.0
    a_pr = at.perfect_recovery_threshold(rho, T)
    assert at.bayes_optimal_mmse(a_pr * 1.001, rho, T) == 0.0
    grid = np.linspace(0.02, 0.99, 8) * a_pr
    errs = np.array([at.bayes_optimal_mmse(a, rho, T) for a in grid])
    assert np.all(np.diff(errs) < 0) and errs[0] < 1 and errs[-1] < 0.05


def test_state_evolution_reaches_the_bayes_fixed_point():
    se = at.state_evolution(0.05, 0.5, 3)
    assert isinstance(se, SEResult)
    assert se.converged and se.history[0] == pytest.approx(1.5)  # m0 = Q0 = 1 + rho
    assert (
        se.error == pytest.approx(at.bayes_optimal_mmse(0.05, 0.5, 3), abs=1e-6) and se.gen_error == se.error
    )
    assert se.overlap == pytest.approx(1.5 - se.error)
    assert np.all(np.diff(se.history[1:]) <= 1e-12)  # monotone from the uninformative start
    undamped = at.state_evolution(0.05, 0.5, 3, damping=0.0)
    assert undamped.error == pytest.approx(se.error, abs=1e-6) and undamped.iterations < se.iterations


def test_state_evolution_is_the_damped_recursion():
    """v_t = eta v_{t-1} + (1 - eta) m_{t-1}, m_t = F(v_t/(2 alpha K)) with v_1 = m_0 (the former hand-written
    loop), written out for six steps."""
    alpha, rho, T, eta = 0.04, 0.5, 3, 0.5
    K = at.n_effective_indices(T)
    se = at.state_evolution(alpha, rho, T, damping=eta, tol=0.0, max_iter=6)
    from solvable.rie import symmetric_rie_mmse

    ms, v = [1.5], 1.5
    for _ in range(6):
        v = eta * v + (1 - eta) * ms[-1]
        ms.append(symmetric_rie_mmse(v / (2 * alpha * K), rho))
    assert np.allclose(se.history, ms, rtol=1e-12, atol=0) and se.iterations == 6 and not se.converged


def test_output_gen_error():
    rng = np.random.default_rng(0)
    plug = at.output_gen_error(0.05, 0.5, 3, n_samples=20000, rng=rng)
    bayes = at.output_gen_error(0.05, 0.5, 3, n_samples=20000, estimator="bayes", n_inner=32, rng=rng)
    assert plug.mmse == pytest.approx(at.bayes_optimal_mmse(0.05, 0.5, 3)) and plug.overlap == pytest.approx(
        1.5 - plug.mmse
    )
    assert 0 < bayes.value < plug.value + 3 * plug.sem
    trivial = at.output_gen_error(0.0, 0.5, 3, n_samples=20000, rng=rng)
    assert trivial.value > plug.value  # learning helps
    assert at.output_gen_error(0.2, 0.5, 2, n_samples=100, rng=rng).value == 0.0  # above alpha_PR


# --------------------------------------------------------------------------- data and the sensing map


def test_sample_follows_the_model():
    data = at.sample(40, 0.1, rho=0.5, T=3, rng=np.random.default_rng(1))
    assert (data.n, data.T, data.d, data.r) == (160, 3, 40, 20)
    assert data.alpha == pytest.approx(0.1) and data.rho == 0.5
    X, W = data.X, data.W_star
    S = W @ W.T / math.sqrt(20 * 40)
    mu, a, b = 7, 0, 2
    h_ab = X[mu, a] @ S @ X[mu, b] / math.sqrt(40)
    h_aa = (X[mu, a] @ S @ X[mu, a] - np.trace(S)) / math.sqrt(40)
    assert data.indices[mu, a, b] == pytest.approx(h_ab) and data.indices[mu, a, a] == pytest.approx(h_aa)
    assert np.allclose(data.y.sum(axis=2), 1.0) and np.allclose(data.y, ch.row_softmax(data.indices))
    ev = np.linalg.eigvalsh(data.S_star)
    assert ev.mean() == pytest.approx(math.sqrt(0.5), rel=0.1)
    assert np.mean(ev**2) == pytest.approx(1.5, rel=0.15)
    hard = at.sample(20, 0.2, rho=0.5, T=2, output="hardmax", rng=0)
    assert set(np.unique(hard.y)) == {0.0, 1.0} and np.all(hard.y.sum(axis=2) == 1)
    test = at.fresh_samples(data, 50, rng=2)
    assert test.n == 50 and test.S_star is data.S_star


def test_sensing_map_matches_the_explicit_tensor():
    """arXiv:2506.01582 (chapter 5): Phi_ab = sym(x_a x_b^T - delta_ab I)/sqrt(d), sym(M) = (M + M^T)/sqrt(2),
    diagonal blocks divided by a further sqrt(2); tiny size, explicit per-sample tensors."""
    rng = np.random.default_rng(0)
    n, T, d = 6, 3, 5
    X = rng.standard_normal((n, T, d))
    a_idx, b_idx = np.triu_indices(T)
    Phi = np.zeros((n, len(a_idx), d, d))
    for mu in range(n):
        for k, (a, b) in enumerate(zip(a_idx, b_idx, strict=True)):
            M = np.outer(X[mu, a], X[mu, b]) - (a == b) * np.eye(d)
            Phi[mu, k] = (M + M.T) / math.sqrt(2 * d) / (math.sqrt(2) if a == b else 1.0)
    S = rng.standard_normal((d, d))
    S = S + S.T
    g = rng.standard_normal((n, len(a_idx)))
    M = at.AttentionSensingMap(X)
    assert np.allclose(M.forward(S), np.einsum("mkij,ij->mk", Phi, S))
    assert np.allclose(M.adjoint(g), np.einsum("mk,mkij->ij", g, Phi))
    assert np.allclose(M.forward(S) / ch.index_weights(T), ch.pack_indices(at.attention_indices(X, S)))
    # the variance convention of the quadratic network: E <Phi, A>^2 = 2 |A|_F^2/d for every component
    Xb = np.random.default_rng(1).standard_normal((4000, 2, 30))
    A = np.random.default_rng(2).standard_normal((30, 30))
    A = A + A.T
    z = at.AttentionSensingMap(Xb).forward(A)
    assert np.mean(z**2, axis=0) == pytest.approx(np.full(3, 2 * np.sum(A**2) / 30), rel=0.08)


def test_pack_unpack_round_trip():
    rng = np.random.default_rng(3)
    M = rng.standard_normal((4, 3, 3))
    M = M + np.swapaxes(M, 1, 2)
    assert np.array_equal(ch.unpack_indices(ch.pack_indices(M), 3), M)
    assert np.sum(ch.index_weights(5) ** 2) == pytest.approx(25)


# --------------------------------------------------------------------------- the softmax channel


def _channel_draw(T, V, n, rng, Q0=1.5):
    """Bayes-optimal channel input in tau units: omega ~ N(0, 2 Q0 - V), z = omega + sqrt(V) u,
    y = softmax(z/tau)."""
    tau = ch.index_weights(T)
    omega = math.sqrt(2 * Q0 - V) * rng.standard_normal((n, tau.size))
    z = omega + math.sqrt(V) * rng.standard_normal((n, tau.size))
    y = ch.row_softmax(ch.unpack_indices(z / tau, T))
    return omega, z, y


def test_softmax_channel_observation_is_the_indices_up_to_a_shift():
    rng = np.random.default_rng(4)
    T = 4
    _, z, y = _channel_draw(T, 0.7, 50, rng)
    h0 = ch.SoftmaxChannel(T).observe(y)
    shift = h0 - z / ch.index_weights(T)
    assert np.allclose(shift, shift[:, :1])  # one global constant per sample


def test_softmax_channel_invariances():
    rng = np.random.default_rng(5)
    T, V = 3, 0.8
    channel = ch.SoftmaxChannel(T)
    tau = ch.index_weights(T)
    omega, _, y = _channel_draw(T, V, 40, rng)
    h0 = channel.observe(y)
    g, dg = channel.g_out(h0, omega, V)
    c = rng.standard_normal((40, 1))
    assert np.allclose(channel.g_out(h0 + c, omega, V)[0], g)  # another h consistent with y
    assert np.allclose(channel.g_out(h0, omega + c * tau, V)[0], g)  # global shift of omega in tau units
    assert np.allclose(channel.g_out(y, omega, V)[0], g)  # raw outputs accepted
    assert np.allclose(g @ tau, 0.0)  # no information along the shift direction
    assert dg.shape == g.shape and np.allclose(dg[0], (tau**2 / T**2 - 1) / V)


@pytest.mark.parametrize("T", [2, 3])
def test_softmax_channel_fisher_identity(T):
    """At the Bayes fixed point E ||g||^2 = K/V = -E sum dg (the Nishimori identity)."""
    rng = np.random.default_rng(6)
    V = 0.6
    K = at.n_effective_indices(T)
    omega, _, y = _channel_draw(T, V, 20000, rng)
    g, dg = ch.SoftmaxChannel(T).g_out(ch.SoftmaxChannel(T).observe(y), omega, V)
    e = np.sum(g * g, axis=1)
    assert np.mean(e) == pytest.approx(K / V, abs=4 * np.std(e) / math.sqrt(e.size))
    assert -np.sum(dg[0]) == pytest.approx(K / V)


# --------------------------------------------------------------------------- GAMP-RIE


def test_gamp_rie_at_d80_is_within_006_of_theory():
    """Issue requirement: d = 80, T = 3, rho = 0.5, alpha = 0.05 within 0.06 of theory (0.2473). Seeds 0-2
    give 0.289, 0.257, 0.292 (0 of 3 meet tol = 1e-5: the iterate plateaus with 1e-3 fluctuations); over
    seeds 0-9 the mean is 0.274 (3 of 10 converged), the largest deviation 0.046: a finite-size bias of about
    +0.03 at d = 80 (+0.016 at d = 150). Each seed is asserted within 0.06 and the mean within 0.045."""
    theory = at.bayes_optimal_mmse(0.05, 0.5, 3)
    errs = []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        data = at.sample(80, 0.05, rho=0.5, T=3, rng=rng)
        res = at.gamp_rie(data, max_iter=100, rng=rng, warn=False)
        assert len(res.history) == res.iterations
        assert isinstance(res, GAMPResult) and res.error == res.history[-1]
        errs.append(res.error)
    errs = np.array(errs)
    assert np.all(np.abs(errs - theory) < 0.06), errs
    assert abs(errs.mean() - theory) < 0.045, errs


def test_gamp_rie_small_alpha_needs_both_dampings():
    """T = 3, alpha = 0.02 (alpha K = 0.1) at d = 80: output damping alone stops seeds 0 and 2 at 1.25 and
    1.13 (worse than the prior); damp='auto' also damps S_hat there (0.77, 0.74, 0.76 against 0.724)."""
    theory = at.bayes_optimal_mmse(0.02, 0.5, 3)
    rng = np.random.default_rng(0)
    data = at.sample(80, 0.02, rho=0.5, T=3, rng=rng)
    res = at.gamp_rie(data, rng=rng, warn=False)
    assert abs(res.error - theory) < 0.08


def test_gamp_rie_auto_damping_avoids_the_oscillating_plateau():
    """T = 3, alpha = 0.05 (alpha K = 0.25) at d = 80, the third child of seed 5: output damping alone
    oscillates around 0.5 (0.58 at iteration 200) against the theory 0.247; damp='auto' (both sides below
    alpha K = 0.4) ends at 0.28."""
    theory = at.bayes_optimal_mmse(0.05, 0.5, 3)
    rng = np.random.default_rng(5).spawn(3)[2]
    data = at.sample(80, 0.05, rho=0.5, T=3, rng=rng)
    res = at.gamp_rie(data, rng=rng, warn=False)
    assert abs(res.error - theory) < 0.06


def test_gamp_rie_warns_at_its_cap():
    rng = np.random.default_rng(0)
    data = at.sample(30, 0.1, rho=0.5, T=2, rng=rng)
    with pytest.warns(ConvergenceWarning, match="2 iterations"):
        res = at.gamp_rie(data, max_iter=2, rng=rng)
    assert res.iterations == 2 and len(res.history) == 2


# --------------------------------------------------------------------------- hardmax (T = 2)


def test_hardmax_channel_derivatives_and_nishimori_identity():
    """g_out = grad log Phi2 and dg = its Hessian diagonal (finite differences); at the Bayes point
    E[g.(z - omega)]/V = E||g||^2 = -E sum dg (only the exact posterior mean satisfies the first equality)."""
    hard = ch.HardmaxChannel()
    rng = np.random.default_rng(10)
    V = 0.7
    omega = rng.standard_normal((6, 3))
    y = hard.signs_of(rng.standard_normal((6, 3)))
    assert np.allclose(
        hard.observe(ch.row_hardmax(ch.unpack_indices(omega / ch.index_weights(2), 2))), hard.signs_of(omega)
    )

    def log_z(om):
        sig = math.sqrt(1.5 * V)
        k1 = y[:, 0] * (om[:, 0] - om[:, 1] / math.sqrt(2)) / sig
        k2 = y[:, 2] * (om[:, 2] - om[:, 1] / math.sqrt(2)) / sig
        return np.log(ch._bvn_orthant(k1, k2, y[:, 0] * y[:, 2] / 3))

    g, dg = hard.g_out(y, omega, V)
    eps = 1e-5
    for j in range(3):
        e = np.zeros(3)
        e[j] = eps
        assert np.allclose((log_z(omega + e) - log_z(omega - e)) / (2 * eps), g[:, j], atol=1e-8)
        fd = (hard.g_out(y, omega + e, V)[0][:, j] - hard.g_out(y, omega - e, V)[0][:, j]) / (2 * eps)
        assert np.allclose(fd, dg[:, j], atol=1e-8)
    n, Q0 = 100_000, 1.5
    for V in (2.0, 0.3):
        om = math.sqrt(2 * Q0 - V) * rng.standard_normal((n, 3))
        z = om + math.sqrt(V) * rng.standard_normal((n, 3))
        g, dg = hard.g_out(hard.signs_of(z), om, V)
        e2 = np.sum(g * g, axis=1)
        tol = 4 * np.std(e2) / math.sqrt(n)
        assert np.mean(np.sum(g * (z - om), axis=1)) / V == pytest.approx(np.mean(e2), abs=tol)
        assert -np.mean(np.sum(dg, axis=1)) == pytest.approx(np.mean(e2), abs=tol)


def test_hardmax_g_out_is_the_monte_carlo_posterior_mean():
    """g_out = (E[z | signs, omega] - omega)/V, checked against a direct Monte Carlo: draw z ~ N(omega, V I),
    keep the draws with each sign pattern, average. This is the term
    phi(k1) Phi((k2 - r k1)/sqrt(1 - r^2))/Phi2 of the gradient of log Phi2. The bivariate normal density in
    its place, with the same factor for both rows (what issue 10 reports of the authors' public
    state-evolution code), misses it by more than 0.05 in every sign pattern tried (by 0.23 to 0.62 at seed
    21). Tolerance 5 standard errors of each conditional mean (about 0.01 at 4e5 draws)."""
    hard = ch.HardmaxChannel()
    rng = np.random.default_rng(21)
    n = 400_000
    for omega, V in ((np.array([0.3, -0.4, 0.8]), 1.0), (np.array([-0.4, 0.3, 0.2]), 0.5)):
        z = omega + math.sqrt(V) * rng.standard_normal((n, 3))
        signs = hard.signs_of(z)
        for s1 in (-1.0, 1.0):
            for s2 in (-1.0, 1.0):
                keep = (signs[:, 0] == s1) & (signs[:, 2] == s2)
                count = int(keep.sum())
                assert count > 5_000
                mc = (z[keep].mean(axis=0) - omega) / V
                se = z[keep].std(axis=0) / math.sqrt(count) / V
                g, _ = hard.g_out(np.array([[s1, 0.0, s2]]), omega[None, :], V)
                assert np.all(np.abs(g[0] - mc) < 5 * se + 1e-3), (omega, V, s1, s2, g[0], mc)
                # the bivariate-density variant (same factor for both rows) is far off
                sig = math.sqrt(1.5 * V)
                k1 = s1 * (omega[0] - omega[1] / math.sqrt(2)) / sig
                k2 = s2 * (omega[2] - omega[1] / math.sqrt(2)) / sig
                r = s1 * s2 / 3
                p2 = ch._bvn_orthant(np.array([k1]), np.array([k2]), r)[0]
                dens = math.exp(-(k1 * k1 - 2 * r * k1 * k2 + k2 * k2) / (2 * (1 - r * r))) / (
                    2 * math.pi * math.sqrt(1 - r * r)
                )
                a1, a2 = np.array([1, -1 / math.sqrt(2), 0]), np.array([0, -1 / math.sqrt(2), 1])
                wrong = dens / p2 * (s1 * a1 + s2 * a2) / sig
                assert np.max(np.abs(wrong - mc)) > 0.05


def test_hardmax_gamp_follows_its_state_evolution():
    """d = 60, rho = 0.5, alpha = 0.5 (seed 0): GAMP-RIE on hardmax data against the Monte-Carlo state
    evolution (0.216); at d = 80 seeds 0-1 give 0.216, 0.233. The hardmax learns more slowly than the softmax
    (which is exact above alpha_PR = 0.1875)."""
    se = at.hardmax_state_evolution(0.5, 0.5, n_samples=20000, rng=11)
    assert isinstance(se, SEResult) and se.history[0] == 1.5 and se.overlap == pytest.approx(1.5 - se.error)
    assert se.converged and se.error == pytest.approx(0.216, abs=0.01)
    assert at.bayes_optimal_mmse(0.5, 0.5, 2) == 0.0
    rng = np.random.default_rng(0)
    data = at.sample(60, 0.5, rho=0.5, T=2, output="hardmax", rng=rng)
    res = at.gamp_rie(data, rng=rng, warn=False)
    assert abs(res.error - se.error) < 0.05


# --------------------------------------------------------------------------- gradient descent / Adam


def test_student_gradient_matches_finite_differences():
    rng = np.random.default_rng(7)
    data = at.sample(7, 0.5, rho=4 / 7, T=3, rng=rng)
    W = rng.standard_normal((3, 7, 4))  # three students, width 4 (not the teacher's 3: any width works)
    loss, grad = at.student_loss_and_gradient(W, data.X, data.y)
    for _ in range(3):
        E = rng.standard_normal(W.shape)
        eps = 1e-6
        lp, _ = at.student_loss_and_gradient(W + eps * E, data.X, data.y)
        lm, _ = at.student_loss_and_gradient(W - eps * E, data.X, data.y)
        assert np.allclose((lp - lm) / (2 * eps), np.einsum("kij,kij->k", grad, E), rtol=1e-6, atol=1e-9)
    # the teacher is a global minimum: zero loss and zero gradient
    l0, g0 = at.student_loss_and_gradient(data.W_star, data.X, data.y)
    assert l0[0] < 1e-25 and np.max(np.abs(g0)) < 1e-12
    # loss definition: sum_mu ||y_hat - y||_F^2/d for one student
    S = W[0] @ W[0].T / math.sqrt(4 * 7)
    y_hat = ch.row_softmax(at.attention_indices(data.X, S))
    assert loss[0] == pytest.approx(np.sum((y_hat - data.y) ** 2) / 7)


def test_averaged_adam_is_closer_to_bayes_than_single_students():
    """Tiny size (d = 30, T = 2, rho = 0.5, alpha = 0.1, 8 students, 800 Adam steps, about 1 s): single /
    Bayes 2.39, averaged / Bayes 1.41 (seed 0); the lecture size (d = 60, 32 students, 1500 steps) is left to
    the chapter."""
    rng = np.random.default_rng(0)
    data = at.sample(30, 0.1, rho=0.5, T=2, rng=rng)
    res = at.gd(data, n_inits=8, max_steps=800, rng=rng)
    bayes = at.bayes_optimal_mmse(0.1, 0.5, 2)
    assert np.median(res.losses) < 1e-3  # students fit the data
    assert res.average_error < res.errors.min() and res.average_error < 0.75 * res.error
    assert bayes < res.average_error < 2.0 * bayes
    assert res.loss_history.shape == (800 // 50 + 1, 8) and res.estimates.shape == (8, 30, 30)
    # the error is recorded with the loss; its last row is the final error, its first the prior draw's
    assert res.error_history.shape == res.loss_history.shape
    assert np.allclose(res.error_history[-1], res.errors) and np.all(res.error_history[0] > 1.0)


# --------------------------------------------------------------------------- hard edges (issue 11)


def test_undamped_gamp_rie_does_not_report_a_false_fixed_point():
    """Issue 11: gamp_rie(..., damping=0) reported converged=True at error 0.139 where the damped run reaches
    1.6e-5. The undamped loop stops when its variance C_hat collapses (here to 9e-7) while the error stays at
    0.135: the updates shrink with C_hat and the change falls below tol. The self-consistency ratio (training
    residual over the predicted one) is then far above 1; the run is reported as not converged, with a warning."""
    data = at.sample(40, 0.3, rho=0.5, T=2, rng=np.random.default_rng(0))
    with pytest.warns(ConvergenceWarning, match="false fixed point"):
        bad = at.gamp_rie(data, damping=0.0, rng=np.random.default_rng(7))
    assert not bad.converged and bad.error > 0.1 and float(bad.variance) < 1e-5
    channel = ch.SoftmaxChannel(2)
    sensing = at.AttentionSensingMap(data.X)
    y = channel.observe(data.y)
    assert at.self_consistency(sensing, channel, y, bad.estimate, bad.variance) > 1e3
    good = at.gamp_rie(data, damping=0.5, max_iter=60, rng=np.random.default_rng(7), warn=False)
    assert good.error < 1e-3  # above alpha_PR = 0.1875: near-exact recovery
    assert at.self_consistency(sensing, channel, y, good.estimate, good.variance) < at.SELF_CONSISTENCY_MAX


def test_plain_gd_with_a_huge_step_says_so():
    """Issue 11: train_students(..., lr=1e6, optimizer='gd') (now gd(..., optimiser='gd')) returned an average error of 1e18 without a warning.
    The softmax saturates, the loss stays finite (4 against 1.7 at the start) and the weights explode: run_gd
    warns that the runs ended above their initial loss, and the exploded students raise DivergenceError."""
    data = at.sample(20, 0.2, rho=0.5, T=2, rng=0)
    with (
        pytest.warns(ConvergenceWarning, match="larger training loss"),
        pytest.raises(DivergenceError, match="too large"),
    ):
        at.gd(data, n_inits=4, max_steps=200, lr=1e6, optimiser="gd", rng=1)


def test_gd_first_adam_step_is_a_sign_step():
    """Adam's first step, with bias-corrected moments m_hat = g and v_hat = g^2, is W1 = W0 - lr g/(|g| + eps),
    i.e. a sign step of size lr: a closed form of the optimiser, independent of the loop. The draws of the
    initialisations are W0 ~ N(0, 1) from rng, one (d, r) block per student."""
    data = at.sample(12, 0.3, rho=0.5, T=2, rng=3)
    res = at.gd(data, n_inits=3, max_steps=1, record_every=1, lr=0.1, rng=4)
    assert (
        isinstance(res, gd.GDResult) and np.array_equal(res.iterations, [1, 1, 1]) and not res.converged.any()
    )
    W0 = streams.stream(4, "init").standard_normal((3, 12, data.r))  # an integer seed: its "init" stream
    _, grad = at.student_loss_and_gradient(W0, data.X, data.y)
    W1 = W0 - 0.1 * grad / (np.abs(grad) + 1e-8)
    S1 = np.matmul(W1, np.swapaxes(W1, -1, -2)) / math.sqrt(data.r * 12)
    assert np.allclose(res.estimates, S1, rtol=1e-10, atol=1e-12)
    # loss_scale: the uniform prediction's loss; error: (1/d)||S - S*||_F^2 (denoising.symmetric_error)
    obj = at.StudentLoss(data.X, data.y, data.r)
    assert obj.loss_scale == pytest.approx(np.sum((data.y - 0.5) ** 2) / 12)
    from solvable.denoising import symmetric_error

    assert res.errors[1] == pytest.approx(symmetric_error(S1[1], data.S_star), rel=1e-9)
    assert res.average_error == pytest.approx(symmetric_error(S1.mean(axis=0), data.S_star), rel=1e-9)


def test_state_evolution_warns_at_cap():
    with pytest.warns(ConvergenceWarning, match="2 iterations"):
        se = at.state_evolution(0.05, 0.5, 3, max_iter=2)
    assert not se.converged


def test_hardmax_state_evolution_warns_at_cap():
    with pytest.warns(ConvergenceWarning, match="2 iterations"):
        se = at.hardmax_state_evolution(0.5, 0.5, n_samples=500, max_iter=2, rng=0)
    assert not se.converged and se.iterations == 2 and se.history.size == 3


# --------------------------------------------------------------------------- properties (hypothesis)

RHOS = st.floats(min_value=0.01, max_value=5.0)
TS = st.integers(min_value=2, max_value=12)


@settings(max_examples=40, deadline=None)
@given(rho=RHOS, T=TS, u=st.floats(min_value=0.0, max_value=1.5), v=st.floats(min_value=0.0, max_value=1.5))
def test_bayes_mmse_properties(rho, T, u, v):
    """Finite, in [0, 1], 1 at alpha = 0, 0 above alpha_PR, non-increasing in alpha (alpha = u alpha_PR)."""
    a_pr = at.perfect_recovery_threshold(rho, T)
    lo, hi = sorted((u, v))
    m_lo, m_hi = at.bayes_optimal_mmse(lo * a_pr, rho, T), at.bayes_optimal_mmse(hi * a_pr, rho, T)
    for m in (m_lo, m_hi):
        assert math.isfinite(m) and 0.0 <= m <= 1.0
    assert m_hi <= m_lo + 1e-12
    assert at.bayes_optimal_mmse(0.0, rho, T) == 1.0
    if hi >= 1.0:
        assert m_hi == 0.0


@settings(max_examples=25, deadline=None)
@given(
    rho=st.floats(min_value=0.05, max_value=3.0),
    T=st.integers(min_value=2, max_value=8),
    u=st.floats(min_value=0.02, max_value=0.9),
)
def test_state_evolution_properties(rho, T, u):
    """Finite, every iterate in [0, 1 + rho] (the start m0 = 1 + rho is the prior's error in this recursion),
    decreasing from the uninformative start, ending at the Bayes MMSE below alpha_PR (alpha = u alpha_PR) and at
    ~0 above it."""
    a_pr = at.perfect_recovery_threshold(rho, T)
    se = at.state_evolution(u * a_pr, rho, T, damping=0.0, tol=1e-9, max_iter=20000, warn=False)
    assert np.all(np.isfinite(se.history)) and np.all((se.history >= 0) & (se.history <= 1 + rho + 1e-12))
    assert np.all(np.diff(se.history[1:]) <= 1e-12)
    if se.converged:
        assert se.error == pytest.approx(at.bayes_optimal_mmse(u * a_pr, rho, T), abs=1e-5)
    above = at.state_evolution(a_pr * (1.2 + u), rho, T, damping=0.0, warn=False)
    assert above.converged and 0.0 <= above.error < 1e-8


def test_state_evolution_small_alpha_limit():
    """alpha -> 0: no information, the first step already gives F(inf) = 1 (the prior mean's error)."""
    se = at.state_evolution(1e-9, 0.5, 3, damping=0.0)
    assert se.error == pytest.approx(1.0, abs=1e-6)


# --------------------------------------------------------------------------- validation

_DATA = at.sample(10, 0.2, rho=0.5, T=2, rng=0)
NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: at.bayes_optimal_mmse(-0.1, 0.5, 2), "alpha"),
        (lambda: at.bayes_optimal_mmse(NAN, 0.5, 2), "alpha"),
        (lambda: at.bayes_optimal_mmse(INF, 0.5, 2), "alpha"),
        (lambda: at.bayes_optimal_mmse(0.1, 0.0, 2), "rho"),
        (lambda: at.bayes_optimal_mmse(0.1, NAN, 2), "rho"),
        (lambda: at.bayes_optimal_mmse(0.1, INF, 2), "rho"),
        (lambda: at.bayes_optimal_mmse(0.1, 1e-6, 2), "rho"),
        (lambda: at.state_evolution(0.1, 1e9, 2), "rho"),
        (lambda: at.bayes_optimal_mmse(0.1, 0.5, 1), "T"),
        (lambda: at.bayes_optimal_mmse(0.1, 0.5, 2.5), "T"),
        (lambda: at.perfect_recovery_threshold(-1.0, 2), "rho"),
        (lambda: at.perfect_recovery_threshold(0.5, 1), "T"),
        (lambda: at.n_effective_indices(True), "T"),
        (lambda: at.state_evolution(0.0, 0.5, 2), "alpha"),
        (lambda: at.state_evolution(NAN, 0.5, 2), "alpha"),
        (lambda: at.state_evolution(0.1, 0.5, 2, start=-1.0), "start"),
        (lambda: at.state_evolution(0.1, 0.5, 2, start=NAN), "start"),
        (lambda: at.state_evolution(0.1, 0.5, 2, tol=INF), "tol"),
        (lambda: at.state_evolution(0.1, 0.5, 2, tol=1.0), "tol"),
        (lambda: at.state_evolution(0.1, 0.5, 2, max_iter=0), "max_iter"),
        (lambda: at.state_evolution(0.1, 0.5, 2, max_iter=2.5), "max_iter"),
        (lambda: at.state_evolution(0.1, 0.5, 2, damping=1.0), "damping"),
        (lambda: at.state_evolution(0.1, 0.5, 2, damping=-0.1), "damping"),
        (lambda: at.hardmax_state_evolution(0.5, -1.0, rng=0), "rho"),
        (lambda: at.hardmax_state_evolution(0.0, 0.5, rng=0), "alpha"),
        (lambda: at.hardmax_state_evolution(0.5, 0.5, tol=INF, rng=0), "tol"),
        (lambda: at.hardmax_state_evolution(0.5, 0.5, max_iter=0, rng=0), "max_iter"),
        (lambda: at.hardmax_state_evolution(0.5, 0.5, damping=1.0, rng=0), "damping"),
        (lambda: at.hardmax_state_evolution(0.5, 0.5, n_samples=1, rng=0), "n_samples"),
        (lambda: at.hardmax_state_evolution(0.5, 0.5, n_samples=10**10, rng=0), "limit"),
        (lambda: at.hardmax_state_evolution(0.5, 0.5, rng=None), "rng"),
        (lambda: at.output_gen_error(0.1, 0.5, 2, estimator="map", rng=0), "estimator"),
        (lambda: at.output_gen_error(0.1, 0.5, 2, rng=None), "rng"),
        (lambda: at.output_gen_error(0.1, 0.5, 2, n_samples=1, rng=0), "n_samples"),
        (lambda: at.output_gen_error(0.1, 0.5, 2, n_inner=0, rng=0), "n_inner"),
        (lambda: at.output_gen_error(0.1, 0.5, 10**6, rng=0), "limit"),
        (lambda: at.output_gen_error(-0.1, 0.5, 2, rng=0), "alpha"),
        (lambda: at.sample(10, -0.2, rho=0.5, T=2, rng=0), "alpha"),
        (lambda: at.sample(10, NAN, rho=0.5, T=2, rng=0), "alpha"),
        (lambda: at.sample(10, INF, rho=0.5, T=2, rng=0), "alpha"),
        (lambda: at.sample(10, 0.2, rho=-0.5, T=2, rng=0), "rho"),
        (lambda: at.sample(1, 0.2, rho=0.5, T=2, rng=0), "d"),
        (lambda: at.sample(10.0, 0.2, rho=0.5, T=2, rng=0), "d"),
        (lambda: at.sample(10, 0.2, rho=0.01, T=2, rng=0), "rho"),
        (lambda: at.sample(10, 0.2, rho=0.5, T=2, rng=None), "rng"),
        (lambda: at.sample(10, 0.2, rho=0.5, T=3, output="hardmax", rng=0), "T must be 2"),
        (lambda: at.sample(10, 0.2, rho=0.5, T=2, output="argmax", rng=0), "output"),
        (
            lambda: at.sample(1000, 1e3, rho=0.5, T=2, rng=0),
            "limit",
        ),  # 4e9 token entries: refused, not allocated
        (lambda: at.sample(10**6, 1e-9, rho=1e-3, T=2, rng=0), "limit"),  # the teacher alone: 1e9 entries
        (lambda: at.fresh_samples(_DATA, 0, rng=0), "n"),
        (lambda: at.fresh_samples(_DATA, 10**9, rng=0), "limit"),
        (lambda: at.output_error(np.eye(3), _DATA), "S_hat must be"),
        (lambda: at.output_error(np.full((10, 10), NAN), _DATA), "finite"),
        (lambda: at.gamp_rie(_DATA, damp="estimate", rng=0), "damp"),
        (lambda: at.gamp_rie(_DATA, damping=1.0, rng=0), "damping"),
        (lambda: at.gamp_rie(_DATA, damping=NAN, rng=0), "damping"),
        (lambda: at.gamp_rie(_DATA, tol=INF, rng=0), "tol"),
        (lambda: at.gamp_rie(_DATA, tol=-1.0, rng=0), "tol"),
        (lambda: at.gamp_rie(_DATA, max_iter=0, rng=0), "max_iter"),
        (lambda: at.gamp_rie(_DATA, start_variance=0.0, rng=0), "start_variance"),
        (lambda: at.gamp_rie(_DATA, onsager_variance=INF, rng=0), "onsager_variance"),
        (lambda: at.gamp_rie(_DATA, onsager_omega=NAN, rng=0), "onsager_omega"),
        (lambda: at.gamp_rie(_DATA, rng=None), "rng"),
        (lambda: at.gd(_DATA, lr=0.0, rng=0), "lr"),
        (lambda: at.gd(_DATA, lr=INF, rng=0), "lr"),
        (lambda: at.gd(_DATA, n_inits=0, rng=0), "n_inits"),
        (lambda: at.gd(_DATA, max_steps=-1, rng=0), "max_steps"),
        (lambda: at.gd(_DATA, optimiser="sgd", rng=0), "optimiser"),
        (lambda: at.gd(_DATA, width=0, rng=0), "width"),
        (lambda: at.gd(_DATA, betas=(1.0, 0.999), rng=0), "betas"),
        (lambda: at.gd(_DATA, betas=0.9, rng=0), "betas"),
        (lambda: at.gd(_DATA, eps=0.0, rng=0), "eps"),
        (lambda: at.gd(_DATA, record_every=0, rng=0), "record_every"),
        (lambda: at.gd(_DATA, n_inits=10**8, rng=0), "limit"),
        (lambda: at.gd(_DATA, rng=None), "rng"),
        (
            lambda: at.student_loss_and_gradient(np.ones((2, 4, 3)), np.ones((5, 2, 6)), np.ones((5, 2, 2))),
            "same d",
        ),
        (
            lambda: at.student_loss_and_gradient(
                np.full((6, 3), NAN), np.ones((5, 2, 6)), np.ones((5, 2, 2))
            ),
            "W",
        ),
        (
            lambda: at.student_loss_and_gradient(np.ones((6, 3)), np.ones((5, 2, 6)), np.ones((5, 3, 3))),
            "y must",
        ),
        (
            lambda: at.student_loss_and_gradient(
                np.ones((6, 3)), np.ones((5, 2, 6)), np.full((5, 2, 2), 1e300)
            ),
            "y must",
        ),
        (lambda: at.attention_indices(np.full((5, 2, 6), 1e300), np.eye(6)), "non-finite"),
        (
            lambda: at.student_loss_and_gradient(
                np.ones((6, 3)), np.full((5, 2, 6), INF), np.ones((5, 2, 2))
            ),
            "X",
        ),
        (lambda: at.StudentLoss(np.ones((5, 2, 6)), np.full((5, 2, 2), 0.5), 3), "uniform"),
        (lambda: at.StudentLoss(np.ones((5, 2, 6)), np.ones((5, 2, 2)), 0), "r"),
        (lambda: at.StudentLoss(_DATA.X, _DATA.y, 5).loss_and_gradient((np.ones((2, 10, 4)),)), "W must"),
        (lambda: at.attention_indices(np.ones((5, 6)), np.eye(6)), "X must be"),
        (lambda: at.attention_indices(np.full((5, 2, 6), NAN), np.eye(6)), "X must"),
        (lambda: at.attention_indices(np.ones((5, 2, 6)), np.eye(5)), "S must"),
        (lambda: at.attention_indices(np.ones((5, 2, 6)), np.full((6, 6), INF)), "S must"),
        (lambda: at.attention_indices(np.ones((0, 2, 6)), np.eye(6)), "X must"),
        (lambda: at.AttentionSensingMap(np.ones((5, 2, 6))).adjoint(np.ones((5, 2))), "g must have shape"),
        (lambda: at.AttentionSensingMap(np.ones((5, 2, 6))).forward(np.eye(5)), "S must have shape"),
        (lambda: at.AttentionSensingMap(np.ones((5, 1, 6))), "T"),
        (lambda: at.AttentionSensingMap(np.full((5, 2, 6), NAN)), "X must"),
        (lambda: ch.SoftmaxChannel(2).observe(np.zeros((3, 2, 2))), "> 0"),
        (lambda: ch.HardmaxChannel(3), "T must be an integer >= 2 and <= 2"),
        (lambda: ch.HardmaxChannel().observe(np.full((3, 2, 2), 0.5)), "one-hot"),
        (
            lambda: at.Dataset(
                X=np.ones((4, 2, 3)), y=np.ones((4, 3, 3)), W_star=np.ones((3, 1)), S_star=np.ones((3, 3))
            ),
            "X must be",
        ),
        (
            lambda: at.Dataset(
                X=np.full((4, 2, 3), NAN),
                y=np.ones((4, 2, 2)),
                W_star=np.ones((3, 1)),
                S_star=np.ones((3, 3)),
            ),
            "X must contain finite",
        ),
        (
            lambda: at.Dataset(
                X=np.ones((4, 2, 3)),
                y=np.ones((4, 2, 2)),
                W_star=np.ones((3, 1)),
                S_star=np.ones((3, 3)),
                output="argmax",
            ),
            "output",
        ),
    ],
)
def test_bad_input_raises(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: at.gamp_rie(object(), rng=0),
        lambda: at.gd(_DATA.X, rng=0),
        lambda: at.fresh_samples(None, 10, rng=0),
        lambda: at.output_error(np.eye(10), "data"),
        lambda: at.StudentLoss(_DATA.X, _DATA.y, 5).loss_and_gradient(np.ones((2, 10, 5))),
    ],
)
def test_wrong_types_raise_type_error(call):
    with pytest.raises(TypeError, match="data|params"):
        call()


@pytest.mark.parametrize(
    ("d", "alpha", "T", "output", "seed"), [(30, 1.0, 2, "hardmax", 0), (30, 0.1, 3, "softmax", 1)]
)
def test_gamp_rie_converged_means_one_more_iteration_moves_less_than_tol(d, alpha, T, output, seed):
    """The contract of GAMP convergence: a run reported converged moves its estimate by less than ``tol`` (relative
    change) in one more iteration (the same run repeated with ``tol = 0`` for one iteration more)."""
    from solvable.amp import relative_change

    data = at.sample(d, alpha, rho=0.5, T=T, output=output, rng=seed)
    res = at.gamp_rie(data, rng=seed + 10)
    assert res.converged and res.iterations > 1
    more = at.gamp_rie(data, tol=0.0, max_iter=res.iterations + 1, rng=seed + 10, warn=False)
    assert np.array_equal(more.history[:-1], res.history)
    assert relative_change(more.estimate, res.estimate) < at.GAMP_TOL


def test_hardmax_gamp_rie_reaches_its_fixed_point_with_the_defaults():
    """Issue 20: the hardmax loop contracts slowly, and an absolute tolerance with a cap of 100 iterations stopped
    it far from its fixed point (alpha = 2.27: 0.146 against 0.0215 when run on). With the defaults the run
    converges (337 iterations here; 0.343 after 100) within 1e-3 of the error of the same run pushed to a relative
    change of 1e-12 (0.1743)."""
    data = at.sample(30, 1.0, rho=0.5, T=2, output="hardmax", rng=1)
    res = at.gamp_rie(data, rng=11)
    assert res.converged and res.iterations > 100
    ref = at.gamp_rie(data, tol=1e-12, max_iter=3000, rng=11)
    assert ref.converged and abs(res.error - ref.error) < 1e-3 and res.history[99] - ref.error > 0.1


# --------------------------------------------------------------------------- peak memory against the size checks


def _peak_over_counted(monkeypatch, call):
    """Run ``call`` under tracemalloc with ``check_size`` spied on: the peak of the allocations (in numbers of
    8 bytes, less 1 MiB of small objects) over the largest count that the size checks were asked about."""
    import tracemalloc

    counted = []
    real = at.check_size

    def spy(what, *shape):
        counted.append(real(what, *shape))
        return counted[-1]

    monkeypatch.setattr(at, "check_size", spy)
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
        lambda: at.sample(40, 10.0, rho=0.5, T=3, rng=0),
        lambda: at.sample(40, 10.0, rho=0.5, T=2, output="hardmax", rng=0),
        lambda: at.fresh_samples(at.sample(20, 0.5, rho=0.5, T=3, rng=0), 20000, rng=1),
        lambda: at.output_gen_error(0.05, 0.5, 3, n_samples=200_000, rng=0),
        lambda: at.output_gen_error(0.05, 0.5, 3, n_samples=20_000, n_inner=64, estimator="bayes", rng=0),
        lambda: at.hardmax_state_evolution(0.5, 0.5, n_samples=200_000, max_iter=3, warn=False, rng=0),
        lambda: at.gd(at.sample(30, 3.0, rho=0.1, T=8, rng=0), n_inits=8, max_steps=2, warn=False, rng=0),
        lambda: at.gd(at.sample(30, 10.0, rho=0.5, T=2, rng=0), n_inits=8, max_steps=2, warn=False, rng=0),
    ],
    ids=[
        "sample",
        "sample-hardmax",
        "fresh_samples",
        "output_gen_error",
        "output_gen_error-bayes",
        "hardmax_state_evolution",
        "gd-long",
        "gd-wide",
    ],
)
@pytest.mark.filterwarnings("ignore::solvable.errors.ConvergenceWarning")
def test_size_checks_count_the_peak_of_every_array(monkeypatch, call):
    """Issue 20: the size checks capped one array while the function held several (2 to 12 times more at its
    peak): each check now counts every array alive at once, so the measured peak stays below the count."""
    assert _peak_over_counted(monkeypatch, call) <= 1.0


@pytest.mark.parametrize(
    ("call", "name"),
    [
        # each single array is below MAX_ELEMENTS = 2^30; the arrays held at once are not
        (lambda: at.hardmax_state_evolution(0.5, 0.5, n_samples=2 * 10**8, rng=0), "n_samples"),
        (lambda: at.sample(1000, 0.3, rho=0.5, T=2, rng=0), "X"),
        (lambda: at.output_gen_error(0.05, 0.5, 3, n_samples=10**8, rng=0), "Monte-Carlo"),
    ],
)
def test_a_size_whose_peak_is_beyond_the_limit_is_refused_before_allocating(call, name):
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=f"(?s){name}.*limit"):
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20


def test_another_models_data_set_raises_type_error_naming_data():
    """A data set of another model (the quadratic network's) is a wrong type here: TypeError naming ``data``."""
    from solvable import quadratic

    other = quadratic.sample(6, 0.5, kappa=0.5, rng=0)
    for call in (
        lambda: at.gamp_rie(other, rng=0),
        lambda: at.gd(other, rng=0),
        lambda: at.fresh_samples(other, 3, rng=0),
        lambda: at.output_error(np.eye(6), other),
    ):
        with pytest.raises(TypeError, match="data must be a solvable.attention.Dataset"):
            call()
    with pytest.raises(TypeError):
        at.sample(6, 2, 0.5, 0.5, rng=0)  # the former sample(d, T, rho, alpha): now a TypeError, not a swap


def test_teacher_is_stored_ambient_dimension_first_and_records_compare_by_value():
    a = at.sample(8, 0.5, rho=0.5, T=2, rng=3)
    b = at.sample(8, 0.5, rho=0.5, T=2, rng=3)
    assert a.W_star.shape == (8, 4) and a == b and not a.X.flags.writeable
    assert np.allclose(a.S_star, a.W_star @ a.W_star.T / math.sqrt(4 * 8))


def test_hardmax_state_evolution_from_a_tiny_start_is_finite():
    """Issue 20 (valid extremes): a start below about 1e-9 made the channel's orthant probabilities underflow (NaN,
    a DivergenceError at iteration 1). The channel is now evaluated at V >= 1e-8; from a tiny start the
    recursion climbs (run for 300 steps: its first step is below the absolute tol) to the fixed point reached
    from the prior's error (hardmax alpha = 0.5: about 0.226 with these 2000 draws)."""
    tiny = at.hardmax_state_evolution(0.5, 0.5, start=1e-300, n_samples=2000, tol=0.0, max_iter=300, rng=0)
    prior = at.hardmax_state_evolution(0.5, 0.5, n_samples=2000, rng=0, warn=False)
    assert np.all(np.isfinite(tiny.history)) and abs(tiny.error - prior.error) < 0.01


def test_gd_plain_step_and_state_evolution_start():
    """optimiser="gd": one step is W1 = W0 - lr grad (closed form). state_evolution's ``start`` is the error at
    t = 0 (history[0]); its first step is F(start / (2 alpha K)) undamped at damping 0."""
    data = at.sample(10, 0.3, rho=0.5, T=2, rng=5)
    res = at.gd(data, optimiser="gd", n_inits=2, max_steps=1, lr=1e-3, record_every=1, rng=6)
    W0 = streams.stream(6, "init").standard_normal((2, 10, data.r))
    _, grad = at.student_loss_and_gradient(W0, data.X, data.y)
    W1 = W0 - 1e-3 * grad
    assert np.allclose(
        res.estimates, np.matmul(W1, np.swapaxes(W1, -1, -2)) / math.sqrt(data.r * 10), atol=1e-12
    )
    from solvable.rie import symmetric_rie_mmse

    se = at.state_evolution(0.05, 0.5, 3, start=0.7, damping=0.0, tol=0.0, max_iter=1)
    assert se.history[0] == 0.7
    assert se.history[1] == pytest.approx(symmetric_rie_mmse(0.7 / (2 * 0.05 * 5), 0.5), rel=1e-9)


def test_pack_indices_refuses_an_object_array_with_a_named_type_error():
    """An object array reached np.isfinite (a raw 'ufunc not supported' TypeError); a numeric one is read."""
    from solvable import channels

    with pytest.raises(TypeError, match="M"):
        channels.pack_indices(np.array([[["a", "b"], ["c", "d"]]], dtype=object))
    with pytest.raises(TypeError, match="M"):  # as validation.check_array: no object arrays
        channels.pack_indices(np.ones((2, 3, 3)).astype(object))


def test_gamp_rie_refuses_an_onsager_variance_whose_inverse_overflows():
    """onsager_variance = 1e-320 ended in an internal 'p must be a non-empty array of finite numbers' (1e-300 in
    a divergence at the first step): g_0 ~ 1/V overflows; the value is refused, named."""
    from solvable import attention as _at

    data = _at.sample(6, 0.5, rho=0.5, T=2, rng=0)
    for v in (1e-320, 1e-300):
        with pytest.raises(ValueError, match="onsager_variance"):
            _at.gamp_rie(data, onsager_variance=v, max_iter=5, rng=0)
    # with the derivative precision the first field grows like 1/onsager_variance: at 1e-100 it left the RIE's
    # range ('Y is too large for the spectral law', naming no argument); refused up front, named
    with pytest.raises(InvalidParameterError, match="onsager_variance.*derivative"):
        _at.gamp_rie(data, onsager_variance=1e-100, max_iter=5, rng=0)
    # the empirical precision divides g_0 by g_0^2: a huge first g_0 stays a finite first step
    res = _at.gamp_rie(
        data,
        onsager_variance=1e-100,
        max_iter=20,
        tol=1e-4,
        damping=0.5,
        precision="empirical",
        warn=False,
        rng=0,
    )
    assert np.all(np.isfinite(res.estimate))


def test_gamp_rie_default_precision_reaches_zero_above_threshold_where_the_empirical_one_stalls():
    """T = 2, rho = 1/2: alpha_PR = 0.1875. At alpha = 0.25 the default (derivative) precision drives the error
    towards 0; the empirical one stops at a false fixed point (Chapter 3, Sec. 'One recipe for GAMP-RIE')."""
    data = at.sample(40, 0.25, rho=0.5, T=2, rng=3)
    default = at.gamp_rie(data, max_iter=300, warn=False, rng=0)
    empirical = at.gamp_rie(data, max_iter=300, precision="empirical", warn=False, rng=0)
    assert default.error < 1e-4 and empirical.error > 10 * default.error


def test_gamp_rie_default_damping_keeps_small_sample_ratios_finite():
    """At alpha K = 0.04 the derivative precision diverges at damping 1/2; the default damping (0.8 there) does not."""
    data = at.sample(40, 0.02, rho=0.5, T=2, rng=5)
    res = at.gamp_rie(data, max_iter=300, warn=False, rng=0)
    assert 0.7 < res.error < 1.2
