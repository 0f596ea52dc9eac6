"""Size presets, argument validation, experiment sweeps: the plumbing every chapter relies on."""

import math
import os

import numpy as np
import pytest

from solvable import config
from solvable.errors import InvalidParameterError
from solvable.experiments import Run, grid, mean_se, repeat, sweep
from solvable.metrics import angle_error, classification_error
from solvable.validation import (
    check_choice,
    check_in_range,
    check_int,
    check_nonnegative,
    check_positive,
    check_rng,
)


def test_size_presets(monkeypatch):
    monkeypatch.delenv("SOLVABLE_SIZE", raising=False)
    assert config.preset_name() == "lecture" and config.sizes() == config.PRESETS["lecture"]
    monkeypatch.setenv("SOLVABLE_SIZE", "paper")
    assert config.sizes() == config.PRESETS["paper"]
    # The paper preset's problems are never smaller than the lecture ones (a tuple field, a grid of values, has at
    # least as many). Counts of independent repetitions (data sets, seeds, initialisations) may be smaller at the
    # larger size, where each run fluctuates less; so may the numeric settings that are not sizes.
    lecture, paper = config.PRESETS["lecture"], config.PRESETS["paper"]
    repetitions = ("_seeds", "_datasets", "_inits", "_students", "_trials")
    not_sizes = {"bsr_gd_dtype", "bsr_gd_max_steps"}

    def size(value):
        return len(value) if isinstance(value, tuple) else value

    checked = [f for f in lecture.__dataclass_fields__ if not f.endswith(repetitions) and f not in not_sizes]
    assert len(checked) > 15
    smaller = [f for f in checked if size(getattr(paper, f)) < size(getattr(lecture, f))]
    assert not smaller, f"paper preset smaller than lecture: {smaller}"
    # every experiment still has independent repetitions for its error bars at both sizes
    for preset in (lecture, paper):
        assert all(
            getattr(preset, f) >= 2
            for f in preset.__dataclass_fields__
            if f.endswith(("_seeds", "_datasets"))
        )
    # the full preset is the paper preset with the papers' protocols where that one shrinks them: never smaller,
    # repetitions included
    full = config.PRESETS["full"]
    larger = [f for f in paper.__dataclass_fields__ if getattr(full, f) != getattr(paper, f)]
    assert set(larger) >= {"bsr_gd_alphas", "bsr_gd_max_steps", "quadratic_gd_inits", "attention_gd_d"}
    assert all(size(getattr(full, f)) > size(getattr(paper, f)) for f in larger), larger
    assert full.bsr_gd_L == 100 and full.bsr_gd_inits == 64 and full.bsr_gd_max_steps == 50_000
    assert max(full.bsr_gd_alphas) >= 0.3 and full.quadratic_gd_inits == 64 and full.attention_gd_d == 200
    assert set(config.HARDWARE) == set(config.PRESETS) and "GPU" in config.HARDWARE["full"]
    monkeypatch.setenv("SOLVABLE_SIZE", "huge")
    with pytest.raises(ValueError, match="SOLVABLE_SIZE must be one of 'lecture', 'paper', 'full'"):
        config.sizes()


def test_workers_and_device_come_from_the_preset_or_the_environment(monkeypatch):
    for var in ("SOLVABLE_SIZE", "SOLVABLE_JOBS", "SOLVABLE_DEVICE"):
        monkeypatch.delenv(var, raising=False)
    assert config.n_jobs() is None and config.device() == "cpu"  # lecture: as the committed outputs were made
    monkeypatch.setenv("SOLVABLE_SIZE", "paper")
    assert config.n_jobs() == -1 and config.device() == "cpu"
    monkeypatch.setenv("SOLVABLE_SIZE", "full")
    assert config.device() == "auto" and config.n_jobs("cuda") == 1  # one process drives the GPU
    monkeypatch.setenv("SOLVABLE_JOBS", "1")
    monkeypatch.setenv("SOLVABLE_DEVICE", "CPU")
    assert config.n_jobs() == 1 and config.device() == "cpu"
    cores = os.cpu_count() or 1
    monkeypatch.setenv("SOLVABLE_JOBS", str(cores))
    assert config.n_jobs() == cores
    for bad in ("0", "two", "1.5", "-2", str(cores + 1), "10**9", "True"):
        monkeypatch.setenv("SOLVABLE_JOBS", bad)
        with pytest.raises(
            ValueError, match=rf"SOLVABLE_JOBS must be -1 \(every core\) or an integer in \[1, {cores}\]"
        ):
            config.n_jobs()
    monkeypatch.setenv("SOLVABLE_DEVICE", "tpu")
    with pytest.raises(ValueError, match="SOLVABLE_DEVICE must be one of 'cpu', 'cuda', 'auto'"):
        config.device()
    with pytest.raises(ValueError, match="device must be one of"):
        config.n_jobs("gpu")
    with pytest.raises(TypeError, match="device must be one of"):
        config.n_jobs(0)


@pytest.mark.parametrize(
    "check,args,message",
    [
        (check_positive, ("alpha", -1.0), r"alpha must be a number > 0, got -1.0"),
        (check_positive, ("alpha", 0.0), r"alpha must be a number > 0"),
        (check_positive, ("alpha", math.inf), r"alpha must be a number > 0"),
        (check_positive, ("alpha", "x"), r"alpha must be a number > 0"),
        (check_nonnegative, ("delta", -0.1), r"delta must be a finite number >= 0"),
        (check_nonnegative, ("delta", math.nan), r"delta must be a finite number >= 0"),
        (check_in_range, ("rho", 1.5, 0.0, 1.0), r"rho must be a number in \[0.0, 1.0\]"),
        (
            check_in_range,
            ("damping", 1.0, 0.0, 1.0, False, True),
            r"damping must be a number in \[0.0, 1.0\)",
        ),
        (
            check_choice,
            ("prior", "laplace", ("gaussian", "rademacher")),
            r"prior must be one of 'gaussian', 'rademacher'",
        ),
        (check_int, ("d", 2.5), r"d must be an integer >= 1"),
        (check_int, ("d", True), r"d must be an integer >= 1"),
    ],
)
def test_validation_messages_name_parameter_and_range(check, args, message):
    if check is check_in_range and len(args) == 6:
        name, value, lo, hi, low_open, high_open = args
        with pytest.raises(ValueError, match=message):
            check(name, value, lo, hi, low_open=low_open, high_open=high_open)
        return
    with pytest.raises(ValueError, match=message):
        check(*args)


def test_validation_accepts_good_values():
    assert check_positive("beta", math.inf, allow_inf=True) == math.inf
    assert check_in_range("rho", 1.0, 0.0, 1.0) == 1.0
    assert check_choice("channel", "Sign", ("sign",)) == "sign"
    assert isinstance(check_rng(3), np.random.Generator)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator, a non-negative integer seed"):
        check_rng(None)
    with pytest.raises(ValueError, match="rng must be a non-negative integer seed"):
        check_rng(-1)


def test_sweep_is_reproducible_and_its_runs_independent():
    def run(value, rng):
        return value + rng.standard_normal()

    a = sweep(run, [0.0, 1.0], 4, rng=np.random.default_rng(0))
    b = sweep(run, [0.0, 1.0], 4, rng=np.random.default_rng(0))
    assert np.array_equal(a.runs, b.runs) and a.runs.shape == (2, 4)
    assert len(np.unique(a.runs)) == 8  # every (value, seed) pair drew its own noise
    assert a.sem.shape == (2,) and np.all(a.sem > 0)
    assert np.allclose(a.mean, a.runs.mean(axis=1))
    with pytest.raises(ValueError, match="n_seeds"):
        sweep(run, [0.0], 0, rng=np.random.default_rng(0))


def test_mean_se_against_the_textbook_formula():
    # 1, 2, 3, 4: mean 2.5, sample variance 5/3, standard error sqrt(5/3 / 4) = 0.6455
    m, se = mean_se([1.0, 2.0, 3.0, 4.0])
    assert m == 2.5 and se == pytest.approx(math.sqrt(5 / 12), rel=1e-15)
    assert mean_se([7.0]) == (7.0, 0.0)
    m, se = mean_se(np.array([[1.0, 3.0], [2.0, 2.0]]), axis=1)
    assert np.allclose(m, [2.0, 2.0]) and np.allclose(se, [1.0, 0.0])
    with pytest.raises(ValueError, match="values"):
        mean_se([1.0, np.nan])


def _exact_mean_se(column):
    """Mean and standard error in exact rational arithmetic (one rounding at the end), independent of mean_se."""
    from fractions import Fraction

    xs = [Fraction(float(x)) for x in column]
    n = len(xs)
    mean = sum(xs) / n
    r = sum((x - mean) ** 2 for x in xs) / (n - 1) / n
    k = (r.denominator.bit_length() - r.numerator.bit_length()) // 2  # sqrt(r 4^k) / 2^k: no underflow
    return float(mean), math.ldexp(math.sqrt(float(r * Fraction(2) ** (2 * k))), -k) if r else 0.0


def test_mean_se_along_an_axis_rescales_each_slice_on_its_own():
    # columns of scales 1e-12 and 1e12 side by side: the small column keeps its own standard error (a scale common
    # to the whole array would divide it by 1e24 first, and its spread would vanish)
    rng = np.random.default_rng(3)
    v = np.column_stack(
        [
            1e-12 * rng.standard_normal(6),
            1e12 * rng.standard_normal(6),
            1e-300 * rng.standard_normal(6),
            np.zeros(6),
        ]
    )
    for axis, values in ((0, v), (1, v.T), (-1, v.T)):
        m, se = mean_se(values, axis=axis)
        for j in range(v.shape[1]):
            em, ese = _exact_mean_se(v[:, j])
            assert m[j] == pytest.approx(em, rel=1e-14, abs=0.0)
            assert se[j] == pytest.approx(ese, rel=1e-12, abs=0.0), (axis, j, se[j], ese)
    assert mean_se(v, axis=0)[1][0] > 0 and mean_se(v, axis=0)[1][3] == 0
    # huge values do not overflow
    assert mean_se([1e308, -1e308, 1e308]) == pytest.approx(_exact_mean_se([1e308, -1e308, 1e308]), rel=1e-14)
    with pytest.raises(ValueError, match="axis must be None or an integer"):
        mean_se(v, axis=2)


def test_sweep_keeps_what_each_run_reported():
    class Result:  # a result that reports its iterations and convergence, as GAMP's does
        def __init__(self, error, iterations, converged):
            self.error, self.iterations, self.converged = error, iterations, converged

    res = sweep(lambda v, rng: Result(v + rng.random(), int(10 * v), v < 1), [0.5, 2.0], 2, rng=0)
    assert res.iterations.tolist() == [[5, 5], [20, 20]]
    assert res.converged.tolist() == [[True, True], [False, False]] and not res.all_converged
    runs = res.records()
    assert [r.seed for r in runs] == [0, 1, 2, 3] and isinstance(runs[0], Run)
    assert runs[2].value == 2.0 and runs[2].iterations == 20 and runs[2].converged is False
    assert runs[0].error == res.runs[0, 0] and np.all(res.seconds >= 0)
    plain = sweep(lambda v, rng: v, [1.0], 1, rng=0).records()[0]
    assert plain.iterations is None and plain.converged is True
    with pytest.raises(TypeError, match="run must return"):
        sweep(lambda v, rng: "0.1", [1.0], 1, rng=0)


def test_classification_error_from_overlaps_matches_monte_carlo():
    rng = np.random.default_rng(0)
    d = 50
    w_star = rng.standard_normal(d)
    w_hat = w_star + 1.5 * rng.standard_normal(d)
    X = rng.standard_normal((200_000, d))
    empirical = np.mean(np.sign(X @ w_hat) != np.sign(X @ w_star))
    # binomial standard error sqrt(p(1-p)/N) ~ 1e-3
    assert empirical == pytest.approx(angle_error(w_hat, w_star), abs=4e-3)
    m, Q, rho = w_hat @ w_star / d, w_hat @ w_hat / d, w_star @ w_star / d
    assert classification_error(m, Q, rho) == pytest.approx(angle_error(w_hat, w_star), abs=1e-12)
    assert angle_error(np.zeros(d), w_star) == 0.5
    with pytest.raises(ValueError, match="same shape"):
        angle_error(np.ones(3), np.ones(4))


def test_check_int_reads_a_0d_integer_array_as_its_integer():
    """Like a 0-d real array for a float parameter, ``np.array(3)`` is the integer 3 (it was refused as a type);
    a 0-d float or bool array still is not an integer."""
    from solvable import glm

    assert check_int("d", np.array(3)) == 3 and type(check_int("d", np.array(3, dtype=np.uint8))) is int
    assert glm.sample(np.array(20), 1.0, rng=0) == glm.sample(20, 1.0, rng=0)
    for bad in (np.array(3.0), np.array(True), np.array([3])):
        with pytest.raises(TypeError, match="d must be an integer"):
            check_int("d", bad)


def test_check_size_refuses_counts_beyond_the_float_range_with_a_value_error():
    """A count of more than 1e308 numbers (a ratio of 1e250) is refused as too large, not with an OverflowError
    from formatting the count as a float."""
    from solvable import bsr
    from solvable.validation import check_size

    with pytest.raises(ValueError, match="MAX_ELEMENTS"):
        check_size("a huge array", 10**200, 10**200)
    with pytest.raises(ValueError, match="MAX_ELEMENTS"):
        bsr.sample(6, 0.5, beta=1e250, rho=1 / 3, rng=0)


def test_check_array_refuses_a_bool_and_reads_a_fraction():
    """A bool is not a number (as for scalars): it was read as the array 1.0; a Fraction (a real number) was
    refused as an object array."""
    from fractions import Fraction

    from solvable.validation import check_array

    with pytest.raises(TypeError, match="x0"):
        check_array("x0", True)
    with pytest.raises(TypeError, match="x0"):
        check_array("x0", np.bool_(False))
    assert check_array("c0", Fraction(1, 4)) == 0.25


def test_sweep_children_are_those_of_one_spawn():
    """The runs' generators are spawned one at a time (not all held at once): they are the children of one
    rng.spawn(len(values) * n_seeds), in order."""
    res = sweep(lambda v, rng: v + rng.standard_normal(), [0.1, 0.2], n_seeds=3, rng=0)
    children = np.random.default_rng(0).spawn(6)
    expected = [v + c.standard_normal() for v, c in zip([0.1, 0.1, 0.1, 0.2, 0.2, 0.2], children)]
    assert np.array_equal(res.runs.ravel(), expected)


def test_grid_hands_out_the_children_of_one_spawn_in_order():
    """Run s at point i gets child n_0 + ... + n_{i-1} + s of rng (the chapters' numbers depend on it), whatever
    the number of workers; tuple points are unpacked, a generator passed in goes on spawning after the grid."""

    def run(a, b, rng):
        return (a, b, rng.standard_normal(2))

    points = [(1, "x"), (2, "y"), (3, "z")]

    def child(k):  # a fresh copy of child k of default_rng(5)
        return np.random.default_rng(5).spawn(k + 1)[k]

    for n_seeds, starts in ((2, (0, 2, 4)), ([1, 4, 2], (0, 1, 5))):
        counts = [n_seeds] * 3 if isinstance(n_seeds, int) else n_seeds
        for n_jobs in (None, 2):
            out = grid(run, points, n_seeds, rng=5, n_jobs=n_jobs)
            assert [len(runs) for runs in out] == counts
            for (a, b), runs, start in zip(points, out, starts):
                for s, (ra, rb, draws) in enumerate(runs):
                    assert (ra, rb) == (a, b)
                    assert np.array_equal(draws, child(start + s).standard_normal(2))
    gen = np.random.default_rng(5)
    grid(run, points, [1, 4, 2], rng=gen)
    assert gen.spawn(1)[0].standard_normal() == child(7).standard_normal()  # children 0 .. 6 went to the grid
    # nested: child s of child i, so that more runs at one point leave the others unchanged
    out = grid(run, points, [1, 4, 2], rng=5, nested=True, n_jobs=2)
    parents = np.random.default_rng(5).spawn(3)
    expected = [[g.standard_normal(2) for g in parent.spawn(k)] for parent, k in zip(parents, [1, 4, 2])]
    assert all(np.array_equal(r[2], e) for runs, exp in zip(out, expected) for r, e in zip(runs, exp))
    more = grid(run, points, [1, 5, 2], rng=5, nested=True)
    assert np.array_equal(more[2][1][2], out[2][1][2]) and np.array_equal(more[1][3][2], out[1][3][2])
    # one non-tuple argument per point, and repeat: grid without parameters
    assert grid(lambda x, rng: x * 2, [1.5, 2.5], 1, rng=0) == [[3.0], [5.0]]
    assert repeat(lambda rng: rng.integers(10**9), 4, rng=3) == [
        c.integers(10**9) for c in np.random.default_rng(3).spawn(4)
    ]
    with pytest.raises(InvalidParameterError, match="n_seeds: 2 counts for 3 points"):
        grid(run, points, [1, 2], rng=0)
    with pytest.raises(InvalidParameterError, match="n_seeds must be"):
        grid(run, points, [1, 0, 2], rng=0)


def test_sweep_does_not_hold_every_child_generator_at_once():
    """16384 runs held 16384 spawned generators at once (14.5 MiB at the peak); one at a time, the peak is the
    list of results."""
    import tracemalloc

    tracemalloc.start()
    try:
        sweep(lambda v, rng: v, [0.1], n_seeds=16384, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 * 2**20


def test_classification_errors_at_any_scale_and_no_silent_complex():
    # m = sqrt(rho Q): the estimate is the teacher up to scale, error 0 (rho Q overflows or underflows as a product)
    for scale in (1e-200, 1.0, 1e200):
        assert classification_error(scale, scale, scale) == 0.0
        assert classification_error(-scale, scale, scale) == 1.0
    with pytest.raises(TypeError, match="w_hat must be"):
        angle_error(np.ones(3) + 1j, np.ones(3))  # not cast to its real part
