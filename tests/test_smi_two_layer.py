"""Two tied rank-one softmax layers of the sequence multi-index model (solvable.smi, eq-smi-two-layer): the label
inversion, the posterior of eq. (5) against independent computations, the thresholds, the state evolution against
one layer and against GAMP."""

import math
import warnings

import numpy as np
import pytest

from solvable import smi
from solvable.amp import GAMPResult
from solvable.channels import row_softmax
from solvable.errors import ConvergenceWarning
from solvable.smi import _mixing, _posterior_blocks, _Quadrature, _solve_mixing_two


@pytest.mark.parametrize("T", [2, 3, 5])
def test_second_layer_output_recovers_b_up_to_sign(T):
    b = np.random.default_rng(T).standard_normal((200, T)) * 2.0
    got = smi.second_layer_output(row_softmax(b[:, :, None] * b[:, None, :]))
    err = np.minimum(np.abs(got - b).max(axis=1), np.abs(got + b).max(axis=1))
    assert err.max() < 1e-9 * (1 + np.abs(b).max())


def test_second_layer_output_refuses_what_is_not_a_rank_one_softmax():
    with pytest.raises(ValueError, match="y must be a stack"):
        smi.second_layer_output(np.ones(3))
    with pytest.raises(ValueError, match="positive"):
        smi.second_layer_output(np.array([[1.0, 0.0], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="distinct entries"):
        smi.second_layer_output(np.full((2, 2), 0.5))  # b = (x, x): the logits are constant on every row


def test_sample_shapes_and_labels():
    data = smi.two_layer_sample(30, 0.5, T=3, c=0.5, rng=0)
    assert (data.n, data.d, data.T, data.c) == (15, 30, 3, 0.5) and data.W_star.shape == (30, 2)
    z = data.z
    A = row_softmax(z[..., 0][:, :, None] * z[..., 0][:, None, :]) + 0.5 * np.eye(3)
    b = np.einsum("nts,ns->nt", A, z[..., 1])
    np.testing.assert_allclose(data.y, row_softmax(b[:, :, None] * b[:, None, :]), rtol=1e-12)
    assert smi.two_layer_sample(30, 0.5, rng=0) == smi.two_layer_sample(30, 0.5, rng=0)
    with pytest.raises(TypeError, match="data"):
        smi.two_layer_gamp(smi.sample(10, 1.0, T=2, rng=0), rng=0)


def test_closed_form_at_two_tokens_matches_the_general_solve():
    rng = np.random.default_rng(1)
    z1, b = 2.0 * rng.standard_normal((500, 2)), rng.standard_normal((500, 2))
    for c in (0.0, 0.3, 2.0):
        u0, u1, logdet = _solve_mixing_two(z1, b, c)
        A = _mixing(z1, c)
        u, ld = np.linalg.solve(A, b[..., None])[..., 0], np.linalg.slogdet(A)[1]
        np.testing.assert_allclose(np.stack([u0, u1], -1), u, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(logdet, ld, rtol=1e-10, atol=1e-12)


def _posterior_by_brute_force(b, omega, V, c, rng):
    """Independent estimate of E[z | b up to sign, omega] (eq-smi-two-layer-posterior): weight each z_1 by
    N(z_1; omega_1, V_1) N(s A^{-1} b; omega_2, V_2) / |det A|, on a dense uniform grid (T = 2: 601 x 601 points
    over omega_1 +- 6 sqrt(V_1)) or on 400 000 draws of z_1 (T = 3)."""
    T = b.size
    if T == 2:
        x = np.linspace(-6, 6, 601) * math.sqrt(V[0])
        z1 = omega[:, 0] + np.stack(np.meshgrid(x, x, indexing="ij"), -1).reshape(-1, 2)
        logprior = -np.sum((z1 - omega[:, 0]) ** 2, -1) / (2 * V[0])
    else:
        z1 = omega[:, 0] + math.sqrt(V[0]) * rng.standard_normal((400_000, T))
        logprior = 0.0
    A = _mixing(z1, c)
    u = np.linalg.solve(A, np.broadcast_to(b, z1.shape)[..., None])[..., 0]
    logdet = np.linalg.slogdet(A)[1]
    lp = logprior - np.sum((u - omega[:, 1]) ** 2, -1) / (2 * V[1]) - logdet
    lm = logprior - np.sum((u + omega[:, 1]) ** 2, -1) / (2 * V[1]) - logdet
    top = max(lp.max(), lm.max())
    wp, wm = np.exp(lp - top), np.exp(lm - top)
    Z = np.sum(wp + wm)
    return np.sum((wp + wm)[:, None] * z1, 0) / Z, np.sum((wp - wm)[:, None] * u, 0) / Z


@pytest.mark.parametrize("T, V", [(2, (0.6, 0.3)), (3, (0.6, 0.3)), (2, (0.9, 0.02)), (2, (0.3, 0.005))])
def test_posterior_mean_matches_a_brute_force_integral(T, V):
    """The quadrature (each of its rules: V_2 >= V_1, and the mixture with the fixed rule and the Laplace
    components at V_2 < V_1) against a dense grid (T = 2) or sampling (T = 3), on sequences of the model."""
    rng = np.random.default_rng(10 + T)
    V = np.array(V)
    z = rng.standard_normal((6, T, 2))
    b = smi._two_layer_output(z, 1.0)
    omega = (1 - V) * z + np.sqrt((1 - V) * V) * rng.standard_normal((6, T, 2))
    exact = np.array([np.stack(_posterior_by_brute_force(b[k], omega[k], V, 1.0, rng), -1) for k in range(6)])
    if T == 3:  # sampling: its own error ~ 0.01
        mean, _, _ = _posterior_blocks(b, omega, V, _Quadrature(T, 1.0, 10))
        assert np.abs(mean - exact).max() < 0.02
        return
    # At the default nodes most sequences are exact to 1e-3; a sequence whose likelihood peaks where the softmax
    # degenerates (z_1 near a line x_1 = 0, x_2 = 0 or x_1 = x_2) is off by up to 0.02 and converges with nodes.
    err = [
        np.abs(_posterior_blocks(b, omega, V, _Quadrature(T, 1.0, k))[0] - exact).max(axis=(1, 2))
        for k in (smi.TWO_LAYER_NODES, 32)
    ]
    assert np.median(err[0]) < 1e-3 and err[0].max() < 0.03 and err[1].max() < 0.005


def test_quadrature_converged_at_the_default_nodes():
    """The claim of TWO_LAYER_NODES: one step of eq. (5), with 12, 16 and 32 nodes per token, from overlaps on
    both sides of the staircase (the second layer nearly learned, the first not)."""
    # The hardest number is the first layer's small conjugate while the second is nearly learned, Q = (0.01,
    # 0.98): 12 nodes are 17 % off, 16 nodes 5 %; the second layer's conjugate is within 2 % everywhere.
    for Q in ((0.05, 0.5), (0.01, 0.98), (0.1, 0.99), (0.5, 0.995), (0.9, 0.999)):
        hats = np.array(
            [
                smi.two_layer_state_evolution(
                    0.8, start=Q, n_samples=150, n_nodes=k, tol=0.0, max_iter=1, rng=3
                ).conjugate
                for k in (12, smi.TWO_LAYER_NODES, 32)
            ]
        )
        np.testing.assert_allclose(hats[:2, 1], hats[2, 1], rtol=0.02)
        np.testing.assert_allclose(hats[1, 0], hats[2, 0], rtol=0.06)
        np.testing.assert_allclose(hats[0, 0], hats[2, 0], rtol=0.2)


def test_nishimori_identity_of_the_posterior():
    """E||g||^2 = E[sum_t (1/V - Var/V^2)] on the teacher's own draws: the variances and the means agree."""
    rng = np.random.default_rng(4)
    n, T = 2000, 2
    z, xi = rng.standard_normal((n, T, 2)), rng.standard_normal((n, T, 2))
    b = smi._two_layer_output(z, 1.0)
    quad = _Quadrature(T, 1.0, 8)
    for Q in (np.array([0.2, 0.6]), np.array([0.7, 0.95]), np.array([0.01, 0.98])):
        V = 1 - Q
        omega = Q * z + np.sqrt(Q * V) * xi
        mean, var, _ = _posterior_blocks(b, omega, V, quad)
        g2 = np.sum(((mean - omega) / V) ** 2, axis=1)
        dg = np.sum(1 / V - var / V**2, axis=1)
        diff = g2 - dg
        assert np.all(np.abs(diff.mean(0)) < 4 * diff.std(0) / math.sqrt(n))


def test_a_strong_skip_connection_leaves_one_softmax_layer():
    """c -> inf: A ~ c I, b ~ c z_2. Layer 2 becomes the one-layer model (F = T(T+1), the same state evolution)
    and layer 1 is invisible."""
    F, se = smi.two_layer_fisher_factors(2, c=100.0, n_samples=4000, rng=5)
    assert abs(F[1] - 6.0) < 4 * se[1] + 0.1 and F[0] < 1e-3
    two = smi.two_layer_state_evolution(
        0.35, 2, 100.0, n_samples=800, n_nodes=6, max_iter=80, tol=1e-6, rng=6
    )
    one = smi.state_evolution(0.35, 2, n_samples=800, max_iter=200, tol=1e-7, rng=6)
    assert abs(two.overlap[1] - one.overlap) < 0.03 and two.overlap[0] < 1e-4


def test_thresholds_of_the_two_layers_at_unit_skip():
    """c = 1, T = 2: the second layer alone becomes learnable at 1/F_2 ~ 0.2, the first alone only at 1/F_1 ~ 6;
    the state evolution follows the linear stability on both sides of 1/F_2."""
    F, se = smi.two_layer_fisher_factors(2, 1.0, n_samples=3000, rng=7)
    assert 4.5 < F[1] < 5.8 and 0.12 < F[0] < 0.2 and np.all(se < 0.08 * F)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        below = smi.two_layer_state_evolution(0.8 / F[1], n_samples=300, n_nodes=8, max_iter=40, rng=8)
        above = smi.two_layer_state_evolution(1.6 / F[1], n_samples=300, n_nodes=8, max_iter=40, rng=8)
    assert below.overlap.max() < 1e-4 and above.overlap[1] > 0.2 and above.overlap[0] < 1e-4


def test_state_evolution_history_and_start():
    r = smi.two_layer_state_evolution(0.5, start=(0.1, 0.2), n_samples=200, tol=0.0, max_iter=3, rng=0)
    assert r.history.shape == (4, 2) and tuple(r.history[0]) == (0.1, 0.2) and not r.converged
    np.testing.assert_array_equal(r.error, 1 - r.overlap)
    with pytest.raises(ValueError, match="start"):
        smi.two_layer_state_evolution(0.5, start=(0.1, 0.2, 0.3), rng=0)
    with pytest.raises(ValueError, match=r"start\[1\]"):
        smi.two_layer_state_evolution(0.5, start=(0.1, 1.0), rng=0)


def test_derivative_of_the_posterior_mean_is_its_variance():
    """dE[z_l | y, omega]/domega_l = Var/V_l token by token (the posterior of a Gaussian prediction), by finite
    differences, on the rule that follows omega_1 rigidly (V_2 >= V_1; the mixture used at V_2 < V_1 moves its
    components with omega and is checked against a brute-force integral instead)."""
    rng = np.random.default_rng(12)
    z, xi = rng.standard_normal((30, 2, 2)), rng.standard_normal((30, 2, 2))
    b = smi._two_layer_output(z, 1.0)
    quad = _Quadrature(2, 1.0, 8)
    for Q in (
        np.array([0.2, 0.1]),
        np.array([0.6, 0.3]),
        np.array([0.95, 0.9]),
    ):  # the rule on N(omega_1, V_1)
        V = 1 - Q
        omega = Q * z + np.sqrt(Q * V) * xi
        _, var, _ = _posterior_blocks(b, omega, V, quad)
        for l in (0, 1):
            up, down = omega.copy(), omega.copy()
            up[:, 0, l] += 1e-6
            down[:, 0, l] -= 1e-6
            deriv = (_posterior_blocks(b, up, V, quad)[0] - _posterior_blocks(b, down, V, quad)[0])[
                :, 0, l
            ] / 2e-6
            # in omega_2 the identity holds for the quadrature's own measure (the nodes do not move); in omega_1
            # the nodes move with omega_1 and it holds to the quadrature's accuracy
            np.testing.assert_allclose(deriv, var[:, 0, l] / V[l], atol=1e-6 if l == 1 else 0.02)


def test_gamp_learns_the_layers_where_the_state_evolution_does():
    """d = 200, one data set each: at alpha = 0.6 the second layer only (state evolution 0.91), at alpha = 1.2
    both (state evolution 1, 1); the teacher's norm fluctuates by sqrt(2/d) = 0.1 at this size."""
    runs = {
        a: smi.two_layer_gamp(smi.two_layer_sample(200, a, rng=1), n_nodes=6, max_iter=60, warn=False, rng=2)
        for a in (0.6, 1.2)
    }
    for r in runs.values():
        assert isinstance(r, GAMPResult) and r.overlap.shape == (r.iterations, 2) == r.norm.shape
        assert r.variance.shape == (2, 2)
    m = runs[0.6].overlap[-1]
    assert m[0] < 0.1 and 0.6 < m[1] < 1.1
    assert np.all(runs[1.2].overlap[-1] > 0.7)


def test_second_layer_branch_and_the_first_layer_threshold():
    br = smi.second_layer_branch(
        [0.01, 0.3, 0.6, 0.9, 0.95, 0.97, 0.98, 0.99], n_samples=600, n_nodes=12, rng=4
    )
    assert np.all(np.diff(br.alpha) > 0) and np.all(np.diff(br.growth) > 0)
    assert 0.15 < br.alpha[0] < 0.22  # Q_2 -> 0: alpha -> 1/F_2
    assert 0.6 < br.alpha_1 < 0.78  # the first layer becomes unstable with Q_2 ~ 0.97
    np.testing.assert_allclose(br.growth, br.alpha * br.factor)
    # the branch is a fixed point of eq. (5): one step from (Q_1 -> 0, Q_2) returns Q_2
    se = smi.two_layer_state_evolution(
        br.alpha[3], start=(1e-9, br.overlap[3]), n_samples=600, n_nodes=12, tol=0.0, max_iter=1, rng=4
    )
    assert abs(se.history[1, 1] - br.overlap[3]) < 2e-3
    # one step multiplies Q_1 by alpha F_1 on average over the draws of omega_1 (Monte-Carlo error ~ 15 %)
    assert se.history[1, 0] / 1e-9 == pytest.approx(br.growth[3], rel=0.25)
    with pytest.raises(ValueError, match="increasing"):
        smi.second_layer_branch([0.5, 0.3], rng=0)
