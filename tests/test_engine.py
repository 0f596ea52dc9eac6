"""The engine shared by every model: the damped fixed-point driver, the GAMP loop's checks and results, and the
optimiser steps of gradient descent."""

from __future__ import annotations

import hashlib
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvable import amp, attention, gd, glm, quadratic, streams
from solvable.channels import LinearChannel
from solvable.errors import ConvergenceWarning, DivergenceError
from solvable.priors import GaussianPrior

# --------------------------------------------------------------------------- fixed-point driver


def test_fixed_point_driver_solves_a_contraction_with_and_without_damping():
    # x = cos(x): the Dottie number 0.739085133215...
    for damping in (0.0, 0.5):
        fp = amp.iterate_fixed_point(np.cos, 0.0, damping=damping, tol=1e-13, max_iter=500)
        assert fp.converged and fp.value == pytest.approx(0.7390851332151607, abs=1e-12)
        assert fp.states.shape == (fp.iterations + 1, 1) and fp.states[0, 0] == 0.0
    # damping slows the approach of this contraction (|f'| = 0.67) but not its limit
    slow = amp.iterate_fixed_point(np.cos, 0.0, damping=0.9, tol=1e-13, max_iter=5000)
    fast = amp.iterate_fixed_point(np.cos, 0.0, tol=1e-13, max_iter=500)
    assert slow.iterations > fast.iterations


def test_fixed_point_driver_records_what_the_update_reports_and_clips():
    fp = amp.iterate_fixed_point(
        lambda x: (2.0 * x, float(x[0])), 0.25, tol=1e-12, max_iter=10, bounds=(0.0, 1.0), warn=False
    )
    # 0.25 -> 0.5 -> 1 -> clipped at 1: a fixed point of the clipped map
    assert fp.converged and np.allclose(fp.states[:, 0], [0.25, 0.5, 1.0, 1.0])
    assert np.allclose(fp.observed, [0.25, 0.5, 1.0])


def test_fixed_point_driver_relative_tolerance_on_a_vector_state():
    target = np.array([1e6, 2.0])
    fp = amp.iterate_fixed_point(
        lambda x: 0.5 * (x + target), [0.0, 0.0], tol=1e-9, relative=True, max_iter=200
    )
    assert fp.converged and np.allclose(fp.state, target, rtol=1e-8)


def test_fixed_point_driver_fixed_length_cap_and_divergence():
    fixed = amp.iterate_fixed_point(np.cos, 0.0, tol=0.0, max_iter=7)  # no warning, exactly 7 steps
    assert fixed.iterations == 7 and not fixed.converged and fixed.states.shape == (8, 1)
    with pytest.warns(ConvergenceWarning, match="toy map did not converge in 3 iterations"):
        capped = amp.iterate_fixed_point(np.cos, 0.0, tol=1e-14, max_iter=3, what="toy map")
    assert not capped.converged and capped.iterations == 3
    with pytest.raises(DivergenceError, match="iteration 2"), np.errstate(over="ignore"):
        amp.iterate_fixed_point(lambda x: x * x, 1e100, max_iter=10)  # 1e100 -> 1e200 -> inf
    with pytest.raises(DivergenceError, match="iteration 1"):
        amp.iterate_fixed_point(lambda x: np.array([math.nan]), 0.0)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"tol": math.inf}, "tol"),
        ({"tol": 1.0}, "tol"),
        ({"tol": -1e-3}, "tol"),
        ({"tol": math.nan}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"max_iter": 2.5}, "max_iter"),
        ({"max_iter": True}, "max_iter"),
        ({"damping": 1.0}, "damping"),
        ({"damping": -0.1}, "damping"),
        ({"damping": math.nan}, "damping"),
    ],
)
def test_fixed_point_driver_rejects_bad_controls(kwargs, name):
    with pytest.raises(ValueError, match=name):
        amp.iterate_fixed_point(np.cos, 0.0, **kwargs)


def test_fixed_point_driver_rejects_a_bad_start():
    for x0 in (math.nan, math.inf, []):
        with pytest.raises(ValueError, match="start"):
            amp.iterate_fixed_point(np.cos, x0)


def test_state_evolution_tolerance_is_checked_before_any_step():
    # the glm.state_evolution(1.0, tol=inf): reported converged after one step (overlap 0.389, not 0.486)
    with pytest.raises(ValueError, match="tol"):
        amp.iterate_state_evolution(GaussianPrior(), LinearChannel(0.5), 1.0, 1e-6, tol=math.inf)


# --------------------------------------------------------------------------- results


def test_se_result_refuses_non_finite_numbers_and_names_its_error():
    res = amp.SEResult(
        error=0.25,
        overlap=0.75,
        history=np.array([1.0, 0.25]),
        iterations=1,
        converged=True,
        message="converged",
    )
    assert res.gen_error == res.error == 0.25 and res.algorithmic_error == 0.25
    with pytest.raises(DivergenceError, match="non-finite"):
        amp.SEResult(
            error=math.nan,
            overlap=0.5,
            history=np.array([1.0]),
            iterations=1,
            converged=False,
            message="stopped",
        )


def _linear_problem(n=300, d=100, delta=0.1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = X @ w / math.sqrt(d) + math.sqrt(delta) * rng.standard_normal(n)
    return amp.DenseLinearMap(X), LinearChannel(delta), GaussianPrior(), y, w


def test_run_gamp_returns_one_result_shape():
    M, C, P, y, w = _linear_problem()
    res = amp.run_gamp(
        M,
        C,
        P,
        y,
        np.zeros(100),
        np.ones(100),
        tol=1e-10,
        max_iter=100,
        monitor=lambda v: (float(np.mean((v - w) ** 2)), float(v @ w) / 100, float(v @ v) / 100),
    )
    assert isinstance(res, amp.GAMPResult) and res.converged
    assert res.history.shape == res.overlap.shape == res.norm.shape == (res.iterations,)
    assert res.error == res.history[-1] and res.error < 0.2
    bare = amp.run_gamp(M, C, P, y, np.zeros(100), np.ones(100), tol=1e-10, max_iter=100)
    assert bare.history.size == 0 and bare.overlap.size == 0
    with pytest.raises(ValueError, match="monitor"):
        bare.error  # noqa: B018


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"c0": 0.0}, "c0"),
        ({"c0": -1.0}, "c0"),
        ({"c0": math.nan}, "c0"),
        ({"w0": np.full(100, math.inf)}, "w0"),
        ({"tol": math.inf}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"damping": 1.0}, "damping"),
        ({"min_iter": 0}, "min_iter"),
        ({"omega0": 0.0, "V0": 0.0}, "V0"),
        ({"omega0": math.nan, "V0": 1.0}, "omega0"),
        ({"damp": "both sides"}, "damp"),
        ({"precision": "exact"}, "precision"),
    ],
)
def test_run_gamp_rejects_bad_starts_and_controls(kwargs, name):
    M, C, P, y, _ = _linear_problem()
    args = {"w0": np.zeros(100), "c0": 1.0}
    args.update(kwargs)
    w0, c0 = args.pop("w0"), args.pop("c0")
    with pytest.raises(ValueError, match=name):
        amp.run_gamp(M, C, P, y, w0, c0, **args)


def test_run_gamp_rejects_non_finite_labels():
    M, C, P, y, _ = _linear_problem()
    y[3] = math.nan
    with pytest.raises(ValueError, match="y"):
        amp.run_gamp(M, C, P, y, np.zeros(100), 1.0)


# --------------------------------------------------------------------------- optimiser steps


class _Quadratic:
    """``loss_k = |A w_k - b|^2/2`` for K runs (a convex toy objective)."""

    def __init__(self, A, b):
        self.A, self.b = A, b
        self.loss_scale = float(b @ b) / 2

    def matrix(self, params):
        return params[0][:, :, None]

    def loss_and_gradient(self, params):
        (w,) = params
        r = w @ self.A.T - self.b
        return 0.5 * np.sum(r * r, axis=1), (r @ self.A,)


def test_adam_matches_its_definition_step_by_step():
    rng = np.random.default_rng(1)
    A, b = rng.standard_normal((8, 3)), rng.standard_normal(8)
    obj = _Quadratic(A, b)
    w0 = rng.standard_normal((2, 3))
    opt = gd.Adam(lr=0.05)
    res = gd.run_gd(obj, (w0,), optimiser=opt, tol=0.0, max_steps=25, record_every=25)
    w, m, v = w0.copy(), np.zeros_like(w0), np.zeros_like(w0)
    for t in range(25):
        g = obj.loss_and_gradient((w,))[1][0]
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = w - 0.05 * (m / (1 - 0.9 ** (t + 1))) / (np.sqrt(v / (1 - 0.999 ** (t + 1))) + 1e-8)
    assert np.allclose(res.estimates[:, :, 0], w, rtol=1e-12, atol=1e-14)
    assert np.all(res.iterations == 25) and not res.converged.any()


def test_gradient_step_converges_and_freezes_runs_one_by_one():
    rng = np.random.default_rng(2)
    A = rng.standard_normal((10, 3))
    b = A @ np.array([1.0, -2.0, 0.5])  # consistent: the loss reaches 0
    obj = _Quadratic(A, b)
    w0 = np.vstack([np.zeros(3), 3.0 * rng.standard_normal(3)])
    for opt in (gd.GradientStep(0.02), gd.Adam(0.05)):
        res = gd.run_gd(obj, (w0,), optimiser=opt, tol=1e-12, max_steps=20000)
        assert res.converged.all() and np.all(res.losses < 1e-12)
        assert np.allclose(res.estimates[:, :, 0], [1.0, -2.0, 0.5], atol=1e-4)
        assert res.iterations[0] != res.iterations[1]  # each run stopped on its own


def test_run_gd_warns_when_training_ends_above_its_initial_loss():
    rng = np.random.default_rng(3)
    A, b = rng.standard_normal((10, 3)), rng.standard_normal(10)
    with pytest.warns(ConvergenceWarning, match="larger training loss"):
        gd.run_gd(_Quadratic(A, b), (np.zeros((1, 3)),), lr=0.3, tol=0.0, max_steps=3)


def test_optimisers_and_run_gd_reject_bad_controls():
    for make in (
        lambda: gd.GradientStep(0.0),
        lambda: gd.Adam(-1.0),
        lambda: gd.Adam(0.1, beta1=1.0),
        lambda: gd.Adam(0.1, beta2=math.nan),
        lambda: gd.Adam(0.1, eps=0.0),
    ):
        with pytest.raises(ValueError):
            make()
    obj = _Quadratic(np.eye(3), np.ones(3))
    with pytest.raises(ValueError, match="exactly one"):
        gd.run_gd(obj, (np.zeros((1, 3)),), lr=0.1, optimiser=gd.Adam(0.1))
    with pytest.raises(TypeError, match="optimiser"):
        gd.run_gd(obj, (np.zeros((1, 3)),), optimiser="adam")
    with pytest.raises(TypeError, match="params0"):
        gd.run_gd(obj, np.zeros((1, 3)), lr=0.1)


def _gamp_problem(channel_name, seed=0, d=200, alpha=2.0):
    from solvable.channels import get_channel

    rng = np.random.default_rng(seed)
    n = int(alpha * d)
    X = rng.standard_normal((n, d))
    w_star = rng.standard_normal(d)
    z = X @ w_star / math.sqrt(d)
    y = np.sign(z) if channel_name == "sign" else z + 0.1 * rng.standard_normal(n)
    channel = get_channel(channel_name, 0.0 if channel_name == "sign" else 0.01)
    return amp.DenseLinearMap(X), channel, GaussianPrior(), y, 1e-3 * rng.standard_normal(d), w_star


@pytest.mark.parametrize("channel_name", ["sign", "linear"])
@pytest.mark.parametrize("damping", [0.0, 0.5])
def test_a_converged_gamp_run_moves_less_than_tol_in_one_more_iteration(channel_name, damping):
    """What "converged" means: one more iteration moves the estimate by less than tol of its norm.

    The loop is deterministic, so the run with one more iteration is the same loop run for exactly
    ``iterations + 1`` steps (``tol = 0``). A convergence test on anything else (the variance, an absolute change
    of a vanishing estimate) fails here.
    """
    M, ch, prior, y, w0, _ = _gamp_problem(channel_name)
    tol = 1e-6
    run = amp.run_gamp(M, ch, prior, y, w0, 1.0, damping=damping, tol=tol, max_iter=500)
    assert run.converged
    more = amp.run_gamp(M, ch, prior, y, w0, 1.0, damping=damping, tol=0.0, max_iter=run.iterations + 1)
    assert amp.relative_change(more.estimate, run.estimate) < tol
    # and the run did not stop early: two iterations before its end it was still moving by more than tol
    a, b = (
        amp.run_gamp(M, ch, prior, y, w0, 1.0, damping=damping, tol=0.0, max_iter=run.iterations - k)
        for k in (2, 1)
    )
    assert amp.relative_change(b.estimate, a.estimate) >= (1 - damping) * tol


def test_relative_change_is_the_relative_euclidean_distance():
    assert amp.relative_change(np.array([3.0, 4.0]), np.array([3.0, 4.0])) == 0.0
    assert math.isclose(amp.relative_change(np.array([3.0, 4.0]), np.array([0.0, 0.0])), 1.0)
    assert math.isclose(amp.relative_change(np.array([0.0, 2.0]), np.array([0.0, 1.0])), 0.5)
    assert amp.relative_change(np.zeros(2), np.ones(2)) == math.inf
    assert amp.relative_change(np.zeros(2), np.zeros(2)) == 0.0


def test_a_fixed_length_run_reaching_an_exact_fixed_point_is_filled_in_not_computed():
    """tol = 0, max_iter = 10**6 (a fixed-length run) took minutes; once a step leaves the state exactly unchanged,
    the remaining steps repeat it. The trajectory is still the one of the plain recursion, step by step."""
    import time

    from solvable import amp as _amp

    x, manual = 0.1, [0.1]
    for _ in range(3000):  # the recursion x -> 0.5 x + 0.25 by hand: it reaches 0.5 exactly
        x = 0.5 * x + 0.25
        manual.append(x)
    fp = _amp.iterate_fixed_point(lambda v: 0.5 * v + 0.25, 0.1, tol=0.0, max_iter=3000)
    assert fp.iterations == 3000 and np.array_equal(fp.states[:, 0], manual) and not fp.converged
    t0 = time.perf_counter()
    big = _amp.iterate_fixed_point(
        lambda v: (0.5 * v + 0.25, float(v[0])), [0.1, 0.2], tol=0.0, max_iter=10**6
    )
    assert time.perf_counter() - t0 < 2.0  # computing every step takes about 8 s
    assert big.iterations == 10**6 and big.states.shape == (10**6 + 1, 2) and big.observed.shape == (10**6,)
    assert np.all(big.states[-1] == 0.5) and big.observed[-1] == 0.5


def test_run_gamp_names_w0_when_its_shape_does_not_fit_the_linear_map():
    """A w0 of the wrong length raised NumPy's matmul core-dimension error, which names no parameter."""
    from solvable import amp as _amp
    from solvable import channels, priors

    X = np.random.default_rng(1).standard_normal((40, 10))
    y = np.sign(X[:, 0])
    with pytest.raises(ValueError, match="w0"):
        _amp.run_gamp(
            _amp.DenseLinearMap(X),
            channels.get_channel("sign"),
            priors.get_prior("gaussian"),
            y,
            np.full(1, 1e-3),
            1.0,
            max_iter=5,
        )


# --------------------------------------------------------------------------- random streams of one seed


def test_the_data_stream_of_a_seed_is_default_rng_and_a_generator_is_used_as_it_is():
    for seed in (0, 12345, np.random.SeedSequence(7), np.random.SeedSequence(7).spawn(3)[2]):
        assert np.array_equal(
            streams.stream(seed, "data").integers(0, 2**62, 5),
            np.random.default_rng(seed).integers(0, 2**62, 5),
        )
    bitgen = np.random.PCG64(3)
    assert np.array_equal(
        streams.stream(bitgen, "data").integers(0, 2**62, 5),
        np.random.default_rng(np.random.PCG64(3)).integers(0, 2**62, 5),
    )
    g = np.random.default_rng(1)
    assert streams.stream(g, "init") is g and streams.stream(g, "data") is g


def test_the_init_stream_is_a_child_of_the_seed_keyed_by_the_purpose_digest():
    """The spawn key is the first 4 bytes (little endian) of SHA-256("solvable.streams:" + purpose): stable across
    runs and platforms, unlike Python's salted hash()."""
    key = int.from_bytes(hashlib.sha256(b"solvable.streams:init").digest()[:4], "little")
    assert streams.purpose_key("init") == key
    expected = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(key,))).integers(0, 2**62, 4)
    assert np.array_equal(streams.stream(5, "init").integers(0, 2**62, 4), expected)
    parent = np.random.SeedSequence(5).spawn(2)[1]  # a spawned seed keeps its own key in front
    expected = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(1, key))).integers(0, 2**62, 4)
    assert np.array_equal(streams.stream(parent, "init").integers(0, 2**62, 4), expected)
    assert np.array_equal(
        streams.stream(np.random.PCG64(5), "init").integers(0, 2**62, 4),
        streams.stream(5, "init").integers(0, 2**62, 4),
    )


@pytest.mark.parametrize(
    "rng, purpose, kind",
    [
        (None, "init", TypeError),
        (-1, "init", ValueError),
        (True, "init", TypeError),
        (1.5, "data", TypeError),
        (0, "", ValueError),
        (0, 3, ValueError),
    ],
)
def test_stream_rejects_bad_seeds_and_purposes(rng, purpose, kind):
    with pytest.raises(kind, match="rng|purpose"):
        streams.stream(rng, purpose)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**64 - 1))
def test_a_seed_given_to_sample_and_to_gd_never_starts_a_student_at_the_teacher(seed):
    """The same integer seed for the data and the students: the first student is a fresh draw, not the teacher
    (one stream for both would draw W0[0] = W* exactly: error 0 at step 0)."""
    data = quadratic.sample(6, 0.5, kappa=0.5, rng=seed)
    res = quadratic.gd(data, n_inits=2, max_steps=0, warn=False, rng=seed)
    assert np.all(res.errors > 1e-3)
    tied = attention.sample(6, 0.5, rho=0.5, T=2, rng=seed)
    res = attention.gd(tied, n_inits=2, max_steps=0, rng=seed)
    assert np.all(res.errors > 1e-3)
    draws = {p: streams.stream(seed, p).standard_normal(8) for p in ("data", "init", "algorithm")}
    assert not np.allclose(draws["data"], draws["init"]) and not np.allclose(
        draws["init"], draws["algorithm"]
    )
    assert not np.allclose(draws["data"], draws["algorithm"])


def test_a_seed_given_to_sample_and_to_gamp_never_starts_gamp_at_the_teacher():
    """quadratic.gamp_rie and glm.gamp draw their start from the "init" stream: with the data's seed the start
    is not the teacher (one stream for both would give quadratic S0 = S*, glm w0 = init_scale w*)."""
    data = quadratic.sample(8, 0.5, kappa=0.5, rng=3)
    res = quadratic.gamp_rie(data, max_iter=1, tol=0, warn=False, rng=3)
    assert res.history[0] > 0.1
    perceptron = glm.sample(200, 2.0, rng=4)
    from_seed = glm.gamp(perceptron, max_iter=1, tol=0, rng=4).estimate
    assert np.array_equal(
        from_seed, glm.gamp(perceptron, max_iter=1, tol=0, rng=streams.stream(4, "init")).estimate
    )
    assert not np.array_equal(
        from_seed, glm.gamp(perceptron, max_iter=1, tol=0, rng=np.random.default_rng(4)).estimate
    )


# --------------------------------------------------------------------------- engine edges: what run_gd and the driver refuse


def _square_loss(d=3, L=4, n=5, seed=0):
    from solvable import bsr

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d, L))
    return gd.SquareLoss(bsr.BilinearMap(X), gd.LowRankProduct(2), rng.standard_normal(n))


@pytest.mark.parametrize(
    "kwargs, kind, name",
    [
        ({"target": np.zeros((4, 3))}, ValueError, "target"),  # transposed
        ({"target": np.zeros(12)}, ValueError, "target"),
        ({"target": np.full((3, 4), np.nan)}, ValueError, "target"),
        ({"target": np.zeros((3, 4)) + 1j}, TypeError, "target"),
        ({"target": np.zeros((3, 4)), "error": "mse"}, TypeError, "error"),
        ({"target": np.zeros((3, 4)), "error": lambda S, T: np.zeros(7)}, ValueError, "error"),
        (
            {"target": np.zeros((3, 4)), "error": lambda S, T: np.full(S.shape[0], np.nan)},
            ValueError,
            "error",
        ),
        ({"optimiser": gd.Adam}, TypeError, "optimiser"),
    ],
)
def test_run_gd_validates_its_target_error_and_optimiser(kwargs, kind, name):
    params0 = (np.ones((2, 3, 2)), np.ones((2, 4, 2)))
    kw = {"lr": 0.1} if "optimiser" not in kwargs else {}
    with pytest.raises(kind, match=name):
        gd.run_gd(_square_loss(), params0, max_steps=2, **kw, **kwargs)


@pytest.mark.parametrize(
    "params0, kind",
    [
        ((np.ones((2, 3, 2)) + 0j, np.ones((2, 4, 2))), TypeError),  # complex: never cast to real silently
        ((np.ones((2, 3, 3)), np.ones((2, 4, 3))), ValueError),  # a width the objective does not have
        ((np.ones((2, 4, 2)), np.ones((2, 3, 2))), ValueError),  # U and V swapped
        ((np.ones((2, 3, 2)),), ValueError),  # one factor missing
        ((np.ones((2, 3, 2)), np.full((2, 4, 2), np.inf)), ValueError),
        ((np.ones((2, 3, 2)), np.ones((3, 4, 2))), ValueError),
        (("ab", np.ones((2, 4, 2))), TypeError),
    ],
)
def test_run_gd_validates_its_initial_parameters(params0, kind):
    with pytest.raises(kind, match="params0"):
        gd.run_gd(_square_loss(), params0, lr=0.1, max_steps=2)


def test_run_gd_refuses_parameters_of_two_array_libraries():
    xps = pytest.importorskip("array_api_strict")
    params0 = (xps.asarray(np.ones((2, 3, 2))), np.ones((2, 4, 2)))
    with pytest.raises(ValueError, match="params0"):
        gd.run_gd(_square_loss(), params0, lr=0.1, max_steps=2)


@pytest.mark.parametrize(
    "bounds, kind",
    [
        ((1.0, 0.0), ValueError),
        ((math.nan, 1.0), ValueError),
        ((0.0,), TypeError),
        ("ab", TypeError),
        ((np.zeros(3), 1.0), ValueError),
    ],
)
def test_fixed_point_driver_refuses_reversed_or_malformed_bounds(bounds, kind):
    """Reversed bounds would clip every iterate to one point, reported converged."""
    with pytest.raises(kind, match="bounds"):
        amp.iterate_fixed_point(lambda x: 0.5 * x + 0.3, 0.9, bounds=bounds)
    with pytest.raises(kind, match="bounds"):
        amp.iterate_fixed_point(lambda x: 0.5 * x + 0.3, np.array([0.9, 0.1]), bounds=bounds)


def test_fixed_point_driver_accepts_infinite_and_per_component_bounds():
    res = amp.iterate_fixed_point(
        lambda x: 0.5 * x + 0.3,
        np.array([0.9, 0.1]),
        bounds=(np.array([0.0, -math.inf]), np.array([0.5, math.inf])),
    )
    assert res.converged and np.allclose(res.states[-1], [0.5, 0.6], atol=1e-9)


# --------------------------------------------------------------------------- one GD front end: the same controls


@pytest.mark.parametrize("model", ["bsr", "quadratic", "attention"])
@pytest.mark.parametrize(
    "kwargs, kind, name",
    [
        ({"warn": "no"}, TypeError, "warn"),
        ({"warn": None}, TypeError, "warn"),
        ({"dtype": None}, TypeError, "dtype"),
        ({"dtype": "int8"}, ValueError, "dtype"),
        ({"optimiser": "sgd"}, ValueError, "optimiser"),
        ({"lr": 0.0}, ValueError, "lr"),
        ({"lr": None}, ValueError, "lr"),
        ({"n_inits": 0}, ValueError, "n_inits"),
        ({"tol": 1.0}, ValueError, "tol"),
        ({"max_steps": -1}, ValueError, "max_steps"),
        ({"record_every": 0}, ValueError, "record_every"),
        ({"device": "tpu"}, ValueError, "device"),
        ({"rng": None}, TypeError, "rng"),
    ],
)
def test_the_three_gd_front_ends_accept_and_refuse_the_same_controls(model, kwargs, kind, name):
    """One front end (gd.fit_students) checks the controls of every model's gd: the same value is refused by all
    three, naming the parameter."""
    data = _GD_DATA[model]()
    module = {"bsr": __import__("solvable.bsr").bsr, "quadratic": quadratic, "attention": attention}[model]
    if model == "attention" and "dtype" in kwargs:
        pytest.skip("attention.gd trains in float64 only (no dtype argument)")
    if model == "quadratic" and kwargs == {"lr": None}:
        pytest.skip("quadratic.gd has a default step size (lr=None)")
    call = {"n_inits": 2, "max_steps": 1, "rng": 0}
    call.update(kwargs)
    with pytest.raises(kind, match=name):
        module.gd(data, **call)


_GD_DATA = {
    "bsr": lambda: __import__("solvable.bsr").bsr.sample(4, 0.5, beta=1.0, rho=0.5, rng=1),
    "quadratic": lambda: quadratic.sample(4, 0.5, kappa=0.5, rng=1),
    "attention": lambda: attention.sample(4, 0.5, rho=0.5, T=2, rng=1),
}


@pytest.mark.parametrize("model", ["bsr", "quadratic", "attention"])
def test_the_three_gd_front_ends_run_zero_steps_and_silence_every_warning(model, recwarn):
    """``max_steps=0`` is the initial state in every model; ``warn=False`` silences every ConvergenceWarning."""
    import warnings as _w

    module = {"bsr": __import__("solvable.bsr").bsr, "quadratic": quadratic, "attention": attention}[model]
    with _w.catch_warnings():
        _w.simplefilter("error", ConvergenceWarning)
        res = module.gd(_GD_DATA[model](), n_inits=2, max_steps=0, tol=1e-3, warn=False, rng=0)
    assert np.array_equal(res.iterations, [0, 0]) and res.loss_history.shape == (1, 2)


def test_warnings_name_the_callers_line_whatever_the_path():
    """A warning points at the user's line, however many library frames (a declared function's check, a model's
    front end, the fixed-point driver, the GAMP loop) lie between it and the line that warns."""
    data = quadratic.sample(10, 0.3, kappa=0.5, rng=0)
    calls = {
        "declared state evolution": lambda: glm.state_evolution(
            2.0, prior="gaussian", channel="sign", max_iter=2
        ),
        "declared GAMP-RIE on the shared loop": lambda: quadratic.gamp_rie(data, max_iter=2, rng=0),
        "the driver itself": lambda: amp.iterate_fixed_point(lambda x: 0.5 * x + 1, 0.0, max_iter=2),
    }
    for path, call in calls.items():
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            call()
        assert seen, f"{path}: no warning at the iteration cap"
        assert all(w.filename == __file__ for w in seen), (path, [(w.filename, w.lineno) for w in seen])


def test_a_maps_own_error_is_not_reported_as_a_shape_error():
    """GAMP reads a NumPy shape error from a map's forward product as a wrong w0; any other error of the user's map
    reaches the user as it is."""
    from solvable.errors import InvalidParameterError
    from solvable.priors import get_prior

    class Broken(amp.DenseLinearMap):
        def forward(self, w):
            raise ValueError("the map's own bug")

    X = np.random.default_rng(0).standard_normal((20, 10))
    y = X @ np.ones(10) / np.sqrt(10)
    parts = (LinearChannel(delta=0.1), get_prior("gaussian"), y)
    with pytest.raises(ValueError, match="the map's own bug") as raised:
        amp.run_gamp(Broken(X), *parts, np.zeros(10), 1.0, max_iter=3)
    assert not isinstance(raised.value, InvalidParameterError)
    with pytest.raises(InvalidParameterError, match="w0"):
        amp.run_gamp(amp.DenseLinearMap(X), *parts, np.zeros(7), 1.0, max_iter=3)
