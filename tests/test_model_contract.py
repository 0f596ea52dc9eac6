"""The model contract of lib/solvable/README.md ("The model contract"), checked on every model's signatures.

The fuzz of tests/test_contract.py feeds bad values to every public function one at a time; this file checks what
the fuzz cannot see: that every model speaks the same dialect (argument order, names, keyword-only controls and
``rng``), that a data set of the wrong kind is refused with a ``TypeError``, that results and data sets are
immutable values with a working ``==``, that quantities which are scale invariant are so at extreme scales, and
that functions with a size check hold no more memory at their peak than the cap they enforce.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import tracemalloc

import numpy as np
import pytest

from solvable import dataset, results, validation

MODELS = ("glm", "bsr", "quadratic", "attention", "smi")

#: The theory signature of each model: (parameters after alpha, in order), as lib/solvable/README.md lists them.
THEORY = {
    "glm": ("prior", "channel", "delta"),
    "bsr": ("beta", "rho", "delta"),
    "quadratic": ("kappa", "delta"),
    "attention": ("rho", "T"),
    "smi": ("T",),
}
#: The function of each model whose signature defines its theory order.
THEORY_FUNCTION = {
    "glm": "bayes_gen_error",
    "bsr": "bayes_optimal_mmse",
    "quadratic": "bayes_optimal_mmse",
    "attention": "bayes_optimal_mmse",
    "smi": "state_evolution",
}

#: Parameter names that the contract retired, with the name that replaced them.
RETIRED = {
    "q0": "start",
    "V0": "start / start_variance",
    "m0": "start",
    "C0": "start_variance",
    "c0": "start",
    "R1": "beta",
    "R2": "rho",
    "optimizer": "optimiser",
    "n_students": "n_inits",
    "steps": "max_steps",
    "D": "d",
}
#: Where a retired name is still right: the engine's GAMP loop starts from an estimate and variance (w0, c0) and an
#: output state (omega0, V0), which are the loop's own words, not a model's starting order parameter.
RETIRED_ALLOWED = {
    ("amp", "run_gamp", "c0"),
    ("amp", "run_gamp", "V0"),
    ("amp", "iterate_state_evolution", "q0"),
}

ALGORITHMS = ("gamp", "gamp_rie", "gd", "min_nuclear_norm", "nuclear_norm_erm", "fit_ridge")

P = inspect.Parameter


def _public(module):
    m = importlib.import_module(f"solvable.{module}")
    return m, [(name, getattr(m, name)) for name in getattr(m, "__all__", ())]


def _functions(module):
    m, names = _public(module)
    return [(name, f) for name, f in names if inspect.isfunction(f)]


def _all_modules():
    import pkgutil

    import solvable

    return sorted(mod.name for mod in pkgutil.iter_modules(solvable.__path__) if not mod.name.startswith("_"))


# --------------------------------------------------------------------------- argument order and names
@pytest.mark.parametrize("model", MODELS)
def test_theory_order(model):
    """The model's defining theory function takes alpha, then the model's parameters in the listed order."""
    m = importlib.import_module(f"solvable.{model}")
    params = list(inspect.signature(getattr(m, THEORY_FUNCTION[model])).parameters.values())
    positional = [p.name for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    assert positional[: 1 + len(THEORY[model])] == ["alpha", *THEORY[model]], positional


@pytest.mark.parametrize("model", MODELS)
def test_every_theory_function_follows_the_theory_order(model):
    """A public function of the model that takes alpha and some of the model's parameters takes them in order."""
    order = ["alpha", *THEORY[model]]
    bad = []
    for name, f in _functions(model):
        params = inspect.signature(f).parameters
        if name == "sample" or "data" in params:
            continue
        present = [p for p in params if p in order]
        if present != [p for p in order if p in present]:
            bad.append(f"{model}.{name}{inspect.signature(f)}")
    assert not bad, f"arguments out of the theory order {order}: {bad}"


@pytest.mark.parametrize("model", MODELS)
def test_sample_signature(model):
    """sample(d, alpha, *, <model parameters>, rng): only d and alpha positional, rng keyword-only."""
    m = importlib.import_module(f"solvable.{model}")
    params = inspect.signature(m.sample).parameters
    positional = [n for n, p in params.items() if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    assert positional == ["d", "alpha"], f"{model}.sample positional parameters: {positional}"
    assert params["rng"].kind is P.KEYWORD_ONLY
    model_params = [n for n in THEORY[model] if n in params]
    assert model_params == [n for n in THEORY[model] if n != "delta" or "delta" in params], (
        f"{model}.sample must take the model parameters {THEORY[model]} by name, has {list(params)}"
    )


@pytest.mark.parametrize("model", MODELS)
def test_algorithms_take_the_data_set_only_positionally(model):
    for name, f in _functions(model):
        params = inspect.signature(f).parameters
        if "data" not in params:
            continue
        positional = [n for n, p in params.items() if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
        if name in ALGORITHMS:
            assert positional[0] == "data", f"{model}.{name}: data must come first, got {positional}"
        if name in ("gamp", "gamp_rie", "gd"):
            assert positional == ["data"], f"{model}.{name}: controls must be keyword-only, got {positional}"


@pytest.mark.parametrize("module", _all_modules())
def test_rng_is_keyword_only_and_names_are_the_contract_s(module):
    """rng is keyword-only everywhere; retired names (q0, V0, R1, optimizer, ...) are gone; no test_ prefix."""
    bad = []
    _, names = _public(module)
    for name, obj in names:
        if name.startswith("test_"):
            bad.append(f"{module}.{name}: public name with pytest's test_ prefix")
        if not callable(obj):
            continue
        target = obj.__init__ if inspect.isclass(obj) else obj
        try:
            params = inspect.signature(target).parameters
        except (TypeError, ValueError):
            continue
        if (
            "rng" in params
            and params["rng"].kind is not P.KEYWORD_ONLY
            and module not in ("validation", "streams")
        ):
            bad.append(f"{module}.{name}: rng must be keyword-only")
        for p in params:
            if (
                p in RETIRED
                and (module, name, p) not in RETIRED_ALLOWED
                and module in (*MODELS, "matrix_sensing", "rie", "erm", "gardner", "ellipsoid")
            ):
                bad.append(f"{module}.{name}: parameter {p!r} is now {RETIRED[p]!r}")
    assert not bad, bad


@pytest.mark.parametrize("model", ["bsr", "quadratic", "attention"])  # the models whose students are trained
def test_gradient_descent_is_gd_with_an_optimiser(model):
    m = importlib.import_module(f"solvable.{model}")
    params = inspect.signature(m.gd).parameters
    for name in ("optimiser", "n_inits", "lr", "max_steps", "tol", "record_every", "device", "rng"):
        assert name in params, f"{model}.gd lacks {name}"
    device = params["device"]
    assert device.kind is inspect.Parameter.KEYWORD_ONLY and device.default == "cpu"


# --------------------------------------------------------------------------- data sets
def _small_data():
    glm, bsr, qn, at, smi = (importlib.import_module(f"solvable.{m}") for m in MODELS)
    return {
        "glm": glm.sample(20, 1.0, prior="gaussian", channel="sign", rng=0),
        "bsr": bsr.sample(10, 0.5, beta=1.0, rho=0.2, rng=0),
        "quadratic": qn.sample(10, 0.3, kappa=0.5, rng=0),
        "attention": at.sample(10, 0.3, rho=0.5, T=2, rng=0),
        "smi": smi.sample(10, 1.0, T=2, rng=0),
    }


@pytest.fixture(scope="module")
def small_data():
    return _small_data()


@pytest.mark.parametrize("model", MODELS)
def test_data_sets_share_one_base_and_orientation(small_data, model):
    data = small_data[model]
    assert isinstance(data, dataset.Dataset)
    assert data.n == data.X.shape[0] and data.n >= 1
    teachers = [f.name for f in dataclasses.fields(data) if f.name.endswith("_star")]
    assert teachers, f"{model}: no teacher field"
    for t in teachers:
        a = getattr(data, t)
        if t in ("U_star", "W_star", "w_star"):
            assert a.shape[0] == data.d, f"{model}.{t} must have the ambient dimension first, got {a.shape}"
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.X = None
    with pytest.raises(ValueError):
        data.X[(0,) * data.X.ndim] = 1.0
    again = dataclasses.replace(data)
    assert again == data and not (again != data)


@pytest.mark.parametrize("model", MODELS)
def test_an_algorithm_refuses_another_model_s_data_with_a_type_error(small_data, model):
    m = importlib.import_module(f"solvable.{model}")
    other = small_data["glm" if model != "glm" else "bsr"]
    for name in ALGORITHMS:
        f = getattr(m, name, None)
        if f is None or "data" not in inspect.signature(f).parameters:
            continue
        params = inspect.signature(f).parameters
        extra = {k: 0.1 for k in ("lam",) if k in params and params[k].default is P.empty}
        if "rng" in params:
            extra["rng"] = 0
        for bad in (other, "abc"):
            with pytest.raises(TypeError, match="data"):
                f(bad, **extra)


# --------------------------------------------------------------------------- results
def _record_classes():
    out = []
    for module in _all_modules():
        _, names = _public(module)
        out += [
            (module, name, obj)
            for name, obj in names
            if inspect.isclass(obj) and dataclasses.is_dataclass(obj)
        ]
    return out


@pytest.mark.parametrize(
    "module, name, cls", _record_classes(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_public_dataclass_is_a_record(module, name, cls):
    """Frozen, read-only arrays, value equality: results.record (the README's "Results")."""
    assert cls.__dataclass_params__.frozen, f"{module}.{name} is not frozen"
    assert cls.__eq__ is not object.__eq__ and cls.__hash__ is None, (
        f"{module}.{name} is not a results.record"
    )
    assert getattr(cls.__post_init__, "__wrapped_post_init__", "missing") != "missing", (
        f"{module}.{name} is not decorated with results.record"
    )


def test_results_compare_by_value_and_cannot_be_changed():
    from solvable import bsr, glm

    a = glm.state_evolution(1.0, "gaussian", "sign")
    b = glm.state_evolution(1.0, "gaussian", "sign")
    assert a == b  # not "the truth value of an array is ambiguous"
    with pytest.raises(ValueError):
        a.history[0] = 0.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.error = 0.0
    c = bsr.state_evolution(0.3, 1.0, 0.2)
    assert c != a
    assert results.values_equal(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))


# --------------------------------------------------------------------------- numbers that are not real numbers
@pytest.mark.parametrize(
    "bad, exc",
    [
        (np.complex128(0.5), TypeError),
        (0.5 + 0j, TypeError),
        (bytearray(b"0.5"), TypeError),
        (10**400, ValueError),
        ("0.5", TypeError),
    ],
)
def test_theory_functions_refuse_non_real_numbers(bad, exc):
    from solvable import attention, bsr, glm, quadratic

    calls = [
        lambda a: glm.bayes_gen_error(a, "gaussian", "sign"),
        lambda a: bsr.bayes_optimal_mmse(a, 1.0, 0.2),
        lambda a: quadratic.bayes_optimal_mmse(a, 0.5),
        lambda a: attention.bayes_optimal_mmse(a, 0.5, 2),
    ]
    for call in calls:
        with pytest.raises(exc, match="alpha"):
            call(bad)


def test_numpy_scalars_are_the_numbers_they_hold():
    from solvable import bsr, glm, quadratic

    assert glm.bayes_gen_error(np.float32(1.5), "gaussian", "sign") == glm.bayes_gen_error(
        1.5, "gaussian", "sign"
    )
    assert bsr.bayes_optimal_mmse(np.float64(0.3), np.int64(1), 0.2) == bsr.bayes_optimal_mmse(0.3, 1.0, 0.2)
    assert quadratic.bayes_optimal_mmse(np.float32(0.25), 0.5) == quadratic.bayes_optimal_mmse(0.25, 0.5)


@pytest.mark.parametrize(
    "rng, exc",
    [
        (-1, ValueError),
        (None, TypeError),
        (1.5, TypeError),
        ("0", TypeError),
        (np.random.RandomState(0), TypeError),
    ],
)
def test_rng_follows_spec_7(rng, exc):
    from solvable import glm

    with pytest.raises(exc, match="rng"):
        glm.sample(10, 1.0, rng=rng)


def test_rng_accepts_what_default_rng_accepts():
    from solvable import glm

    a = glm.sample(10, 1.0, rng=np.random.SeedSequence(3))
    b = glm.sample(10, 1.0, rng=np.random.default_rng(np.random.SeedSequence(3)))
    c = glm.sample(10, 1.0, rng=np.random.PCG64(np.random.SeedSequence(3)))
    assert a == b == c


# --------------------------------------------------------------------------- peak memory against the size cap
#: (call, what grows): each call is made with a growing size under a small cap; every accepted call must hold at
#: most PEAK_FACTOR times the cap at its peak (tracemalloc sees NumPy's allocations).
CAP = 2**18  # 256 Ki numbers, 2 MiB
PEAK_FACTOR = 2.0


def _sized_calls():
    def mk(module, fname, **kw):
        def call(size):
            m = importlib.import_module(f"solvable.{module}")
            args = {k: (v(size) if callable(v) else v) for k, v in kw.items()}
            return getattr(m, fname)(**args)

        return pytest.param(call, id=f"{module}.{fname}")

    return [
        mk("glm", "sample", d=lambda s: s, alpha=2.0, rng=0),
        mk("bsr", "sample", d=lambda s: s, alpha=0.5, beta=1.0, rho=0.25, rng=0),
        mk("quadratic", "sample", d=lambda s: s, alpha=0.5, kappa=0.5, rng=0),
        mk("attention", "sample", d=lambda s: s, alpha=0.5, rho=0.5, T=3, rng=0),
        mk("smi", "sample", d=lambda s: s, alpha=2.0, T=3, rng=0),
        mk(
            "attention",
            "hardmax_state_evolution",
            alpha=0.5,
            rho=0.5,
            n_samples=lambda s: s * s,
            max_iter=2,
            warn=False,
            rng=0,
        ),
        mk("smi", "fisher_factor", T=3, n_samples=lambda s: s * s, rng=0),
    ]


@pytest.mark.parametrize("call", _sized_calls())
def test_peak_memory_stays_within_the_size_cap(monkeypatch, call):
    monkeypatch.setattr(validation, "MAX_ELEMENTS", CAP)
    refused = False
    for size in (8, 16, 32, 64, 128, 256, 512, 1024, 2048):
        tracemalloc.start()
        try:
            call(size)
        except ValueError as e:
            assert "limit" in str(e) or "MAX_ELEMENTS" in str(e), e
            refused = True
            break
        finally:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        assert peak <= PEAK_FACTOR * 8 * CAP + 2**20, (
            f"size {size}: peak {peak / 2**20:.1f} MiB for a cap of {8 * CAP / 2**20:.0f} MiB"
        )
    assert refused, "the size check never refused a size, up to 2048"


# --------------------------------------------------------------------------- scale invariance
@pytest.mark.parametrize("scale", [1e-8, 1.0, 1e200])
def test_scale_invariant_quantities_are_scale_invariant(scale):
    from solvable import gardner, metrics

    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 10))
    w = rng.standard_normal(10)
    y = np.sign(X @ w)
    assert gardner.is_linearly_separable(scale * X, y)
    X_bad, y_bad = np.vstack([X, X[:1]]), np.append(y, -y[0])  # one point with both labels: not separable
    assert not gardner.is_linearly_separable(scale * X_bad, y_bad)
    with pytest.raises(ValueError):
        gardner.hard_margin_weights(scale * X_bad, y_bad)
    w_hat = gardner.hard_margin_weights(scale * X, y)
    assert np.all(np.isfinite(w_hat)) and np.any(w_hat != 0)
    assert np.all(np.sign(X @ w_hat) == y)
    ref = metrics.angle_error(w + 0.1, w)
    assert math.isclose(metrics.angle_error(scale * (w + 0.1), scale * w), ref, rel_tol=1e-9)


@pytest.mark.parametrize("model", MODELS)
def test_a_data_set_does_not_share_writable_memory_with_its_caller(small_data, model):
    """Built from the caller's arrays, a data set keeps its own copy: changing them afterwards changes nothing."""
    data = small_data[model]
    fields = {
        f.name: (
            np.array(getattr(data, f.name))
            if isinstance(getattr(data, f.name), np.ndarray)
            else getattr(data, f.name)
        )
        for f in dataclasses.fields(data)
    }
    built = type(data)(**fields)
    before = built.X.copy()
    fields["X"][...] = 0.0
    assert np.array_equal(built.X, before) and built == data
