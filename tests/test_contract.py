"""The contract of every public entry point of ``solvable``, checked by a fuzz (issue 11, "Hard edges").

For each public function (and validating constructor) of the library, :data:`TABLE` gives one cheap VALID call and
the domain of each of its parameters. Each parameter is then replaced, one at a time, by bad values of the
categories of the issue: NaN, +-inf, negative, zero (where the domain excludes it), values above a bounded range,
wrong types (a string, None, a list), wrong shapes, non-finite or empty arrays, absurd sizes, huge and tiny numbers,
and bad iteration controls (``tol = inf, -1, nan, 1``; ``max_iter = 0, -1, 1.5, True``; ``damping = 1, -0.1, nan``).

The contract (``tests/test_contract.py`` checks it case by case, with ids ``module.function-param-category``):

* a value outside the documented domain (the first tuple of :data:`KINDS`) raises ``ValueError`` or ``TypeError`` whose
  message names the parameter;
* a value at the edge of the domain (``huge``, ``tiny``, absurd sizes) either raises that way (or raises
  :class:`solvable.errors.DivergenceError` / an ``ArithmeticError`` with an explanation, for a numerical failure),
  or returns a result whose every number is finite (and inside the documented range, where the table gives one);
* nothing hangs: every call runs under a time limit (:data:`TIMEOUT_S`), in a helper process with a memory cap
  (:class:`_Worker`), so that a call that allocates without bound fails fast and one stuck in compiled code (which
  ignores the alarm) is killed, without taking the test session with it.

A parameter value that is legitimately allowed is listed in :data:`ALLOWED` with the reason; its result is still
checked.
An entry may list alternative names (``"old.name|new.name"``); the first that exists is used, and an
entry none of whose names exists fails (a renamed function must be renamed here too).
"""

# ruff: noqa: C408 - the table reads best as dict(param=value) calls
from __future__ import annotations

import dataclasses
import importlib
import math
import os
import pickle
import pkgutil
import resource
import signal
import sys
import warnings
from functools import cache

import inspect

import numpy as np
import pytest
import solvable
from solvable.domains import domains_of, fuzz_categories, fuzz_value

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="the fuzz uses POSIX signals and resource limits"
)

#: Wall-clock limit of one call, in seconds: a call still running then is a hang.
TIMEOUT_S = 10.0

#: True would skip (instead of failing) entries whose function does not exist: only for a restructuring in progress.
PENDING_LENIENCY = False


# --------------------------------------------------------------------------- bad values by category
class _Lazy:
    """A value built on first use (data sets, arrays), so that collecting the tests imports nothing heavy."""

    def __init__(self, make):
        self.make = make

    def __call__(self):
        return self.make()


def lazy(make):
    return _Lazy(cache(make))


def _resolve(value):
    return value() if isinstance(value, _Lazy) else value


#: category -> bad value, for scalar parameters
SCALARS = {
    "nan": math.nan,
    "inf": math.inf,
    "neginf": -math.inf,
    "negative": -1.0,
    "zero": 0.0,
    "one": 1.0,
    "above": 1.5,
    "string": "abc",
    "none": None,
    "list": [0.5],
    "huge": 1e300,
    "tiny": 1e-300,
    # types that look like numbers but are not real numbers, and a Python int beyond float range
    "complex": np.complex128(0.5 + 0.0j),
    "pycomplex": 0.5 + 0.0j,
    "bytearray": bytearray(b"1"),
    "huge_int": 10**400,
}
INTS = {
    "zero": 0,
    "negative": -1,
    "float": 1.5,
    "bool": True,
    "string": "3",
    "none": None,
    "nan": math.nan,
    "huge": 10**9,
    "np_float": np.float64(3.0),
    "bytearray": bytearray(b"3"),
    "huge_int": 10**400,
}

#: categories built from the valid value: the same number as a NumPy scalar (must behave like the Python one)
NUMPY_SCALARS = ("np_scalar",)
_NOT_REAL = ("complex", "pycomplex", "bytearray", "huge_int")

#: parameter kind -> (categories that must raise, categories that may be accepted with a finite result)
KINDS = {
    "pos": (
        ("nan", "inf", "neginf", "negative", "zero", "string", "none", "list", *_NOT_REAL),
        ("huge", "tiny", "np_scalar"),
    ),
    "nonneg": (
        ("nan", "inf", "neginf", "negative", "string", "none", "list", *_NOT_REAL),
        ("huge", "tiny", "np_scalar"),
    ),
    "pos_or_none": (
        ("nan", "inf", "neginf", "negative", "zero", "string", "list", *_NOT_REAL),
        ("huge", "tiny", "np_scalar", "none"),
    ),  # > 0, or None (auto)
    "pos_or_inf": (
        ("nan", "neginf", "negative", "zero", "string", "none", "list", *_NOT_REAL),
        ("huge", "tiny", "np_scalar", "inf"),
    ),  # > 0, inf allowed
    "real": (("nan", "inf", "neginf", "string", "none", "list", *_NOT_REAL), ("huge", "tiny", "np_scalar")),
    "unit0": (
        ("nan", "inf", "neginf", "negative", "above", "string", "none", *_NOT_REAL),
        ("tiny", "np_scalar"),
    ),  # [0, 1]
    "tol": (
        ("nan", "inf", "negative", "one", "string", "none", "complex", "bytearray"),
        ("np_scalar",),
    ),  # [0, 1)
    "damping": (
        ("nan", "inf", "negative_small", "one", "string", "none", "complex", "bytearray"),
        ("np_scalar",),
    ),  # [0, 1)
    "damping_or_none": (
        ("nan", "inf", "negative_small", "one", "string", "complex", "bytearray"),
        ("np_scalar", "none"),
    ),  # [0, 1) or None (auto)
    "int": (
        ("zero", "negative", "float", "bool", "string", "none", "nan", "np_float", "bytearray", "huge_int"),
        ("huge", "np_scalar"),
    ),
    "size": (
        ("zero", "negative", "float", "bool", "string", "none", "nan", "np_float", "bytearray", "huge_int"),
        ("huge", "np_scalar"),
    ),  # sets an allocation
    "int0": (
        ("negative", "float", "bool", "string", "none", "nan", "np_float", "bytearray"),
        ("huge", "np_scalar"),
    ),
    "iter": (
        ("zero", "negative", "float", "bool", "string", "none", "np_float", "bytearray"),
        ("np_scalar",),
    ),
    "iter0": (("negative", "float", "bool", "string", "none", "np_float", "bytearray"), ("np_scalar",)),
    "choice": (("bad_choice", "int_choice", "none"), ()),
    "rng": (("string", "none", "float_rng", "negative_seed", "legacy_rng"), ("seed_sequence",)),
    "array": (("string", "none", "nan_entry", "inf_entry", "shape", "empty"), ("huge_entry",)),
    "array_any": (("string", "none", "nan_entry", "inf_entry", "empty"), ("huge_entry", "shape")),  # any ndim
    "array_ufunc": (("string", "none"), ()),  # elementwise: NaN in -> NaN out, like a NumPy ufunc
    "data": (("string", "none", "nan_labels"), ()),
    "object": (("string", "none", "int_object"), ()),
    "callable": (("string", "none"), ()),
}


def _bad_value(kind: str, category: str, valid):
    """The bad value of ``category`` for a parameter of ``kind`` whose valid value is ``valid``."""
    if (
        category == "np_scalar"
    ):  # the valid value as a NumPy scalar: np.int64 for an int, np.float32 for a float
        if isinstance(valid, (int, np.integer)) and not isinstance(valid, bool):
            return np.int64(valid)
        return np.float32(valid) if float(np.float32(valid)) == float(valid) else np.float64(valid)
    if category == "negative_seed":
        return -1
    if category == "legacy_rng":
        return np.random.RandomState(0)
    if category == "seed_sequence":
        return np.random.SeedSequence(0)
    if kind in ("int", "int0", "size", "iter", "iter0"):
        return INTS[category]
    if category == "negative_small":
        return -0.1
    if category == "bad_choice":
        return "no-such-choice"
    if category == "int_choice":
        return 3
    if category == "float_rng":
        return 1.5
    if category == "int_object":
        return 3
    if kind in ("array", "array_any", "array_ufunc") and category not in ("string", "none"):
        a = np.array(valid, copy=True)
        a = a.astype(np.result_type(a.dtype, float))  # keeps complex arguments complex
        if category == "nan_entry":
            a.flat[a.size // 2] = np.nan
            return a
        if category == "inf_entry":
            a.flat[a.size // 2] = np.inf
            return a
        if category == "huge_entry":
            a.flat[a.size // 2] = 1e300
            return a
        if category == "shape":  # one axis more or less
            return a.ravel()[:, None] if a.ndim == 1 else a.reshape(a.shape[0], -1)[..., :1].ravel()
        if category == "empty":
            return np.zeros((0,) + a.shape[1:])
    if category == "nan_labels":
        y = np.array(valid.y, dtype=float, copy=True)
        y.flat[0] = np.nan
        return dataclasses.replace(valid, y=y)  # a Dataset that validates itself raises here already
    if category in ("string", "none") and kind in ("data", "object", "callable", "array", "array_ufunc"):
        return "abc" if category == "string" else None
    return SCALARS[category]


# --------------------------------------------------------------------------- data for the valid calls
@cache
def _m(name):
    return importlib.import_module(f"solvable.{name}")


GLM_DATA = lazy(lambda: _m("glm").sample(30, 2.0, prior="gaussian", channel="sign", rng=0))
BSR_DATA = lazy(lambda: _m("bsr").sample(6, 0.6, beta=1.0, rho=1 / 3, rng=0))
QN_DATA = lazy(lambda: _m("quadratic").sample(6, 0.5, kappa=0.5, rng=0))
ELL_X = lazy(lambda: np.random.default_rng(8).standard_normal((6, 4)))  # 6 points in R^4 (n <= d(d+1)/2 = 10)
ELL_S = lazy(lambda: np.eye(4) / 4)
ELL_RATIOS = lazy(lambda: np.array([0.1, 0.5]))
AT_DATA = lazy(lambda: _m("attention").sample(6, 0.5, rho=0.5, T=2, rng=0))
SMI2_DATA = lazy(lambda: _m("smi").two_layer_sample(10, 1.0, rng=0))
X_GLM = lazy(lambda: np.random.default_rng(1).standard_normal((40, 10)))
Y_SIGN = lazy(lambda: np.sign(np.random.default_rng(2).standard_normal(40)))
W0_GLM = lazy(lambda: 1e-3 * np.random.default_rng(3).standard_normal(10))
Y_SEP = lazy(lambda: np.sign(X_GLM()[:, 0] + 1e-3))  # linearly separable labels
W10 = lazy(lambda: np.random.default_rng(3).standard_normal(10))


def _goe12():
    a = np.random.default_rng(4).standard_normal((12, 12))
    return (a + a.T) / np.sqrt(24)


SYM = lazy(_goe12)
RECT = lazy(lambda: np.random.default_rng(5).standard_normal((8, 12)) / np.sqrt(12))
SV = lazy(lambda: np.linalg.svd(RECT(), compute_uv=False))
EIG = lazy(lambda: np.linalg.eigvalsh(SYM()))
S6 = lazy(lambda: np.eye(6))
Z3 = lazy(lambda: np.array([0.5 + 0.1j, -1.0 + 0.2j, 2.0 + 0.1j]))
GRID = lazy(lambda: np.linspace(-3.0, 3.0, 7))


def _axes():
    import matplotlib

    matplotlib.use("Agg")
    return _m("plotting").new_axes(width=2.0, height=1.5)[1]


AXES = lazy(_axes)
SWEEP = lazy(
    lambda: _m("experiments").sweep(
        lambda v, rng: v + 0.1 * rng.standard_normal(), [0.1, 0.2], n_seeds=2, rng=0
    )
)
PHASE_ROWS = lazy(lambda: _m("plotting").phase_map_rows())
NUMPY_NS = lazy(lambda: _m("backend").resolve("cpu")[0])


def _slider():
    import ipywidgets

    return ipywidgets.FloatSlider(value=1.0, min=0.0, max=2.0)


def _draw_frame(ax, value=1.0, **values):
    ax.plot([0.0, 1.0], [0.0, value])


def _square(x):
    return x * x


def _square_loss():
    gd, qn = _m("gd"), _m("quadratic")
    data = QN_DATA()
    return gd.SquareLoss(qn.QuadraticSensingMap(data.X), gd.SymmetricSquare(3, 6), data.y)


SQUARE_LOSS = lazy(_square_loss)
W0_GD = lazy(lambda: (1e-2 * np.random.default_rng(7).standard_normal((2, 3, 6)),))


def _gamp_parts():
    amp, pr, ch = _m("amp"), _m("priors"), _m("channels")
    return amp.DenseLinearMap(X_GLM()), ch.get_channel("sign"), pr.get_prior("gaussian")


# --------------------------------------------------------------------------- the table
@dataclasses.dataclass(frozen=True)
class Entry:
    """One public entry point: candidate dotted names (the first that exists is used), a valid call, domains."""

    names: tuple
    call: dict
    kinds: dict
    check: object = None  # callable(result) -> None or a message, for documented ranges
    aliases: tuple = ()  # other words a message may use for a parameter (e.g. "y" for a data set)
    refused: object = None  # callable(result) -> the refusal's message, or None: for a function that
    # reports a bad argument in its result instead of raising (the exercise checks)

    @property
    def id(self):
        return self.names[0]


def E(names, call, check=None, aliases=(), refused=None, **kinds):
    return Entry(tuple(names.split("|")), call, kinds, check, aliases, refused)


def check_error(verdict):
    """The message of an exercise check's CHECK ERROR verdict (its refusal of a bad argument: a check never
    raises), or None."""
    return verdict.message if getattr(verdict, "status", None) == "check error" else None


def in01(r):
    return None if 0.0 <= float(r) <= 1.0 else f"{r} outside [0, 1]"


def nonneg_result(r):
    return None if float(r) >= 0.0 else f"{r} < 0"


def error01(r):
    """The final error of a state-evolution result lies in [0, 1] (the error at alpha = 0 is 1 in every model)."""
    for name in ("gen_error", "error", "mmse"):
        v = getattr(r, name, None)
        if v is not None:
            v = float(np.ravel(np.asarray(v, dtype=float))[-1])
            return None if -1e-12 <= v <= 1 + 1e-9 else f"{name} = {v} outside [0, 1]"
    return None


TABLE = [
    # ---------------------------------------------------------------- glm (perceptron)
    E("glm.sample", dict(d=20, alpha=1.0, prior="gaussian", channel="sign", delta=0.0, rng=0)),
    E(
        "glm.state_evolution",
        dict(alpha=1.0, prior="gaussian", channel="sign", delta=0.0, tol=1e-8, max_iter=500),
        check=error01,
    ),
    E(
        "glm.se_trajectory",
        dict(alpha=1.0, prior="gaussian", channel="sign", delta=0.0, iterations=10, start=1e-6),
    ),
    E("glm.free_entropy", dict(q=0.3, mhat=0.5, alpha=1.0, prior="gaussian", channel="sign", delta=0.0)),
    E("glm.bayes_gen_error", dict(alpha=1.0, prior="gaussian", channel="sign", delta=0.0), check=in01),
    E("glm.gibbs_gen_error", dict(alpha=1.0, prior="gaussian", channel="sign", delta=0.0), check=in01),
    E(
        "glm.mutual_information",
        dict(alpha=1.0, prior="gaussian", channel="sign", delta=0.0),
        check=nonneg_result,
    ),
    E("glm.perfect_learning_thresholds", dict(prior="rademacher", channel="sign")),
    E("glm.branch_curve", dict(prior="rademacher", channel="sign", delta=0.0, q=[0.2, 0.5, 0.9])),
    E("glm.gamp", dict(data=GLM_DATA, damping=0.0, tol=1e-6, max_iter=30, init_scale=1e-3, rng=0)),
    E(
        "glm.gamp_iterates",
        dict(X=X_GLM, y=Y_SIGN, w0=W0_GLM, iterations=3, prior="gaussian", channel="sign", delta=0.0),
    ),
    E("convex.nuclear_norm_statistical_dimension", dict(beta=2.0, rho=0.3), check=in01),
    E("convex.psd_trace_statistical_dimension", dict(kappa=0.5), check=in01),
    E(
        "convex.psd_trace_minimization",
        dict(
            sensing=lazy(lambda: np.stack([np.eye(3), np.diag([1.0, -1.0, 0.0])])),
            y=lazy(lambda: np.array([1.0, 0.5])),
            rho_admm=100.0,
            tol=1e-5,
            max_iter=200,
        ),
    ),
    E(
        "convex.nuclear_norm_minimization",
        dict(
            sensing=lazy(lambda: np.stack([np.eye(2, 3), np.ones((2, 3))])),
            y=lazy(lambda: np.array([1.0, 0.5])),
            rho_admm=100.0,
            tol=1e-5,
            max_iter=200,
        ),
    ),
    E(
        "glm.gamp_gen_error",
        dict(d=20, alpha=1.0, prior="gaussian", channel="sign", delta=0.0, rng=0),
        check=in01,
    ),
    E("erm.erm_gen_error", dict(alpha=1.0, loss="ridge", lam=0.5), check=in01),
    E("gardner.gardner_capacity", dict(weights="spherical", margin=0.0)),
    # ---------------------------------------------------------------- erm
    E(
        "erm.erm_state_evolution",
        dict(alpha=1.0, loss="ridge", lam=0.5, damping=0.5, tol=1e-8, max_iter=500, n_hermite=61),
        check=error01,
    ),
    E("erm.optimal_lambda", dict(alpha=1.0, loss="ridge", n_scan=3, xatol=1e-2)),
    E("erm.max_margin_state_evolution", dict(alpha=3.0), check=error01),
    E("erm.max_margin_gen_error", dict(alpha=3.0), check=in01),
    E("erm.optimal_ridge_lambda", dict(), check=nonneg_result),
    E("erm.max_margin_tail_constant", dict(), check=nonneg_result),
    E("regression.fit_ridge", dict(X=X_GLM, y=Y_SIGN, lam=0.1)),
    E("regression.gaussian_linear_mse", dict(alpha=0.5, delta=0.1), check=in01),
    E("erm.fit_ridge_batch", dict(X=lazy(lambda: X_GLM()[None]), y=lazy(lambda: Y_SIGN()[None]), lam=0.1)),
    E("erm.fit_logistic", dict(X=X_GLM, y=Y_SIGN, lam=0.1, tol=1e-6, max_iter=200)),
    E("erm.fit_hinge", dict(X=X_GLM, y=Y_SIGN, lam=0.1, tol=1e-6, max_iter=200)),
    E("erm.fit_max_margin", dict(X=X_GLM, y=Y_SEP)),
    E("erm.erm_gen_error_simulation", dict(d=10, alpha=1.0, loss="ridge", lam=0.5, rng=0), check=in01),
    E("erm.erm_simulation", dict(d=10, alpha=1.0, loss="ridge", lam=0.5, n_seeds=2, rng=0)),
    # ---------------------------------------------------------------- gardner
    E("gardner.spherical_capacity", dict(margin=0.5)),
    E("gardner.binary_entropy_potential", dict(q=0.5, qhat=1.0, alpha=0.5, margin=0.0)),
    E(
        "gardner.binary_storage_entropy",
        dict(alpha=0.5, margin=0.0, start=0.3, damping=0.5, tol=1e-10, max_iter=2000),
    ),
    E("gardner.binary_capacity", dict(margin=0.0, xtol=1e-6)),
    E("gardner.is_linearly_separable", dict(X=X_GLM, y=Y_SEP, margin=0.0, method="lp")),
    E("gardner.hard_margin_weights", dict(X=X_GLM, y=Y_SEP)),
    E("gardner.max_margin", dict(X=X_GLM, y=Y_SEP)),
    E("gardner.storage_probability", dict(d=5, alpha=1.0, n_seeds=3, rng=0, margin=0.0), check=in01),
    E("gardner.cover_probability", dict(d=10, n=15), check=in01),
    # ---------------------------------------------------------------- metrics, priors, channels, integration
    E("metrics.classification_error", dict(m=0.5, Q=1.0, rho=1.0), check=in01),
    E("metrics.angle_error", dict(w_hat=W10, w_star=lazy(lambda: W10() + 0.1)), check=in01),
    E("metrics.bayes_classification_error", dict(q=0.5, rho=1.0), check=in01),
    E("metrics.gibbs_classification_error", dict(q=0.5, rho=1.0), check=in01),
    E("priors.GaussianPrior", dict(rho=1.0)),
    E("priors.RademacherPrior", dict(rho=1.0)),
    E("priors.get_prior", dict(prior="gaussian")),
    E("channels.SignChannel", dict(delta=0.0)),
    E("channels.LinearChannel", dict(delta=0.1)),
    E("channels.get_channel", dict(channel="probit", delta=0.1)),
    E("channels.row_softmax", dict(h=lazy(lambda: np.ones((2, 3, 3))))),
    E("channels.row_hardmax", dict(h=lazy(lambda: np.arange(18.0).reshape(2, 3, 3)))),
    E("channels.index_weights", dict(T=3)),
    E("channels.pack_indices", dict(M=lazy(lambda: np.ones((2, 3, 3))))),
    E("channels.unpack_indices", dict(p=lazy(lambda: np.ones((2, 6))), T=3)),
    E("channels.SoftmaxChannel", dict(T=2)),
    E("channels.HardmaxChannel", dict(T=2)),
    E("integration.hermite_rule", dict(n=21)),
    E("integration.legendre_rule", dict(n=40, half_width=10.0)),
    E("integration.half_normal_rule", dict(n=16, upper=8.0)),
    E("integration.gaussian_expectation", dict(f=np.cos, n=21)),
    E("integration.log_phi_pdf", dict(x=GRID)),
    E("integration.log_Phi", dict(x=GRID)),
    E("integration.mills_ratio", dict(u=GRID)),
    E("integration.sign_channel_fisher", dict(k=lazy(lambda: np.array([0.0, 1.0, 10.0])))),
    # ---------------------------------------------------------------- amp, gd (the engine)
    E("integration.phi_log_phi_expectation", dict(k=lazy(lambda: np.array([0.0, 1.0, 10.0])))),
    E(
        "experiments.sweep",
        dict(run=lambda v, rng: v + rng.standard_normal(), values=[0.1, 0.2], n_seeds=2, rng=0),
    ),
    E("experiments.mean_se", dict(values=[0.1, 0.2, 0.4])),
    E(
        "experiments.grid",
        dict(
            run=lambda a, b, rng: a + b * rng.standard_normal(),
            points=[(0.1, 1.0), (0.2, 2.0)],
            n_seeds=2,
            rng=0,
        ),
    ),
    E("experiments.repeat", dict(run=lambda rng: rng.standard_normal(), n=3, rng=0)),
    E("amp.DenseLinearMap", dict(X=X_GLM, variance="exact")),
    E(
        "amp.run_gamp",
        dict(
            linear_map=lazy(lambda: _gamp_parts()[0]),
            channel=lazy(lambda: _gamp_parts()[1]),
            denoiser=lazy(lambda: _gamp_parts()[2]),
            y=Y_SIGN,
            w0=lazy(lambda: 1e-3 * W10()),
            c0=1.0,
            damping=0.0,
            tol=1e-6,
            max_iter=20,
        ),
    ),
    E("dataset.check_dataset", dict(data=GLM_DATA, cls=lazy(lambda: _m("glm").Dataset))),
    E("amp.relative_change", dict(new=W10, old=lazy(lambda: W10() + 0.1)), check=nonneg_result),
    E(
        "amp.stop_message",
        dict(
            what="GAMP", converged=False, iterations=5, change=1e-3, tol=1e-8, max_iter=5, fixed_length=False
        ),
    ),
    E(
        "amp.iterate_fixed_point",
        dict(update=lambda x: 0.5 * x + 0.25, x0=0.1, damping=0.0, tol=1e-10, max_iter=200),
    ),
    E(
        "amp.iterate_state_evolution",
        dict(
            prior=lazy(lambda: _m("priors").get_prior("gaussian")),
            channel=lazy(lambda: _m("channels").get_channel("sign")),
            alpha=1.0,
            q0=1e-3,
            damping=0.0,
            tol=1e-8,
            max_iter=500,
        ),
    ),
    E("gd.GradientStep", dict(lr=0.1)),
    E("gd.Adam", dict(lr=0.01, beta1=0.9, beta2=0.999, eps=1e-8)),
    E("gd.LowRankProduct", dict(r=2)),
    E("gd.SymmetricSquare", dict(m=3, d=6)),
    E(
        "gd.SquareLoss",
        dict(
            measurement=lazy(lambda: _m("quadratic").QuadraticSensingMap(QN_DATA().X)),
            parametrisation=lazy(lambda: _m("gd").SymmetricSquare(3, 6)),
            y=lazy(lambda: QN_DATA().y),
        ),
    ),
    E(
        "gd.loss_and_gradient",
        dict(
            measurement=lazy(lambda: _m("quadratic").QuadraticSensingMap(QN_DATA().X)),
            parametrisation=lazy(lambda: _m("gd").SymmetricSquare(3, 6)),
            y=lazy(lambda: QN_DATA().y),
            params=W0_GD,
        ),
    ),
    E(
        "gd.run_gd",
        dict(objective=SQUARE_LOSS, params0=W0_GD, lr=0.05, tol=1e-4, max_steps=50, record_every=10),
    ),
    # ---------------------------------------------------------------- bsr (+ regression)
    E("bsr.sample", dict(d=6, alpha=0.5, beta=1.0, rho=1 / 3, delta=0.0, rng=0)),
    E("bsr.mse", dict(estimate=RECT, target=lazy(lambda: RECT() * 0.9)), check=nonneg_result),
    E("bsr.normalised_mse", dict(estimate=RECT, target=lazy(lambda: RECT() * 0.9))),
    E("bsr.bayes_optimal_mmse", dict(alpha=0.3, beta=1.0, rho=0.2, delta=0.0), check=in01),
    E(
        "bsr.state_evolution",
        dict(alpha=0.3, beta=1.0, rho=0.2, delta=0.0, start=0.0, tol=1e-8, max_iter=500),
        check=error01,
    ),
    E("bsr.perfect_recovery_threshold", dict(beta=1.0, rho=0.2)),
    E("bsr.nuclear_norm_threshold", dict(beta=1.0, rho=0.2, n_nodes=50)),
    E("bsr.low_rank_sample_ratio", dict(alpha=0.3, beta=1.0, rho=0.2)),
    E("bsr.soft_threshold_risk", dict(noise=0.5, threshold=0.8, beta=1.0, rho=0.2, n_nodes=32)),
    E("bsr.nuclear_norm_mse", dict(alpha=0.3, beta=1.0, rho=0.2, n_nodes=32)),
    E("bsr.ridge_mse", dict(alpha=0.5, delta=0.1), check=in01),
    E("bsr.low_rank_limit_mmse", dict(alpha_lr=0.8, beta=1.0, delta=0.0), check=in01),
    E("bsr.BilinearMap", dict(X=lazy(lambda: BSR_DATA().X))),
    E("bsr.gamp_rie", dict(data=BSR_DATA, damping=0.5, tol=1e-4, max_iter=30, rng=0, callback=None)),
    E("bsr.fit_ridge", dict(data=BSR_DATA, lam=0.1)),
    E("bsr.min_nuclear_norm", dict(data=BSR_DATA, tol=1e-4, max_iter=200, penalty=1.0)),
    E(
        "bsr.gd",
        dict(
            data=BSR_DATA, optimiser="gd", n_inits=2, lr=0.1, tol=1e-3, max_steps=50, record_every=10, rng=0
        ),
    ),
    # ---------------------------------------------------------------- quadratic, matrix_sensing
    E("quadratic.sample", dict(d=6, alpha=0.5, kappa=0.5, delta=0.0, rng=0)),
    E("quadratic.perfect_recovery_threshold", dict(kappa=0.5)),
    E("quadratic.bayes_optimal_mmse", dict(alpha=0.2, kappa=0.5, delta=0.0), check=in01),
    E("quadratic.bayes_test_error", dict(alpha=0.2, kappa=0.5, delta=0.0), check=nonneg_result),
    E("quadratic.to_mean_one", dict(mmse=0.5, kappa=0.5, delta=0.1)),
    E("quadratic.from_mean_one", dict(mmse_w=0.5, kappa=0.5, delta_w=0.1)),
    E("quadratic.effective_noise_of_preactivation_noise", dict(sigma=0.1)),
    E(
        "quadratic.state_evolution",
        dict(alpha=0.2, kappa=0.5, delta=0.0, damping=0.0, tol=1e-8, max_iter=500),
        check=error01,
    ),
    E("quadratic.QuadraticSensingMap", dict(X=lazy(lambda: QN_DATA().X))),
    E("quadratic.sensing_noise", dict(X=lazy(lambda: QN_DATA().X), rng=0)),
    E(
        "quadratic.gamp_rie",
        dict(data=QN_DATA, damping=0.5, tol=1e-4, max_iter=30, start_variance=5.0, rng=0),
    ),
    E("quadratic.gd", dict(data=QN_DATA, n_inits=2, lr=0.1, tol=1e-3, max_steps=50, record_every=10, rng=0)),
    E("quadratic.nuclear_norm_erm", dict(data=QN_DATA, lam=0.1, tol=1e-4, max_iter=100)),
    E("quadratic.psd_soft_threshold_stats", dict(kappa=0.5, noise=0.3, threshold=0.2)),
    E("quadratic.nuclear_norm_erm_theory", dict(alpha=0.3, kappa=0.5, lam_over_d=0.1, delta=0.0)),
    # ---------------------------------------------------------------- ellipsoid
    E("ellipsoid.threshold", dict()),
    E("ellipsoid.finite_size_threshold", dict(d=20)),
    E("ellipsoid.sample_points", dict(n=10, d=4, rng=0)),
    E("ellipsoid.constraint_values", dict(points=ELL_X, S=ELL_S)),
    E("ellipsoid.project_affine", dict(S=ELL_S, points=ELL_X)),
    E("ellipsoid.fit", dict(points=ELL_X, tol=1e-8, max_iter=200, margin=1e-3, check_every=5, warn=False)),
    E("ellipsoid.feasibility_sweep", dict(d=5, ratios=ELL_RATIOS, n_seeds=2, rng=0, max_iter=200)),
    E("matrix_sensing.perfect_recovery_threshold", dict(kappa=0.5)),
    E("matrix_sensing.bayes_optimal_mmse", dict(alpha=0.2, kappa=0.5, delta=0.0), check=in01),
    E(
        "matrix_sensing.state_evolution",
        dict(alpha=0.2, kappa=0.5, delta=0.0, start=3.0, damping=0.0, tol=1e-8, max_iter=500),
        check=error01,
    ),
    # ---------------------------------------------------------------- attention (AIM)
    E("attention.sample", dict(d=6, alpha=0.5, rho=0.5, T=2, output="softmax", rng=0)),
    E("attention.fresh_samples", dict(data=AT_DATA, n=5, rng=0)),
    E("attention.attention_indices", dict(X=lazy(lambda: AT_DATA().X), S=S6)),
    E("attention.output_error", dict(S_hat=S6, data=AT_DATA)),
    E("attention.n_effective_indices", dict(T=3)),
    E("attention.perfect_recovery_threshold", dict(rho=0.5, T=2)),
    E("attention.bayes_optimal_mmse", dict(alpha=0.05, rho=0.5, T=2), check=in01),
    E(
        "attention.state_evolution",
        dict(alpha=0.05, rho=0.5, T=2, damping=0.5, tol=1e-8, max_iter=500),
        check=error01,
    ),
    E("attention.output_gen_error", dict(alpha=0.05, rho=0.5, T=2, n_samples=200, n_inner=8, rng=0)),
    E(
        "attention.hardmax_state_evolution",
        dict(alpha=0.3, rho=0.5, n_samples=500, damping=0.5, tol=1e-3, max_iter=50, rng=0),
    ),
    E("attention.AttentionSensingMap", dict(X=lazy(lambda: AT_DATA().X))),
    E("attention.gamp_rie", dict(data=AT_DATA, damping=0.5, tol=1e-4, max_iter=20, rng=0)),
    E("attention.gd", dict(data=AT_DATA, n_inits=2, max_steps=20, lr=0.05, record_every=10, rng=0)),
    # ---------------------------------------------------------------- sequence multi-index model (-> smi)
    E(
        "attention.student_loss_and_gradient",
        dict(
            W=lazy(lambda: 0.1 * np.random.default_rng(8).standard_normal((2, 6, 3))),
            X=lazy(lambda: AT_DATA().X),
            y=lazy(lambda: AT_DATA().y),
        ),
    ),
    E("attention.StudentLoss", dict(X=lazy(lambda: AT_DATA().X), y=lazy(lambda: AT_DATA().y), r=3)),
    E("smi.sample", dict(d=10, alpha=1.0, T=2, rng=0)),
    E("smi.weak_recovery_threshold", dict(T=2)),
    E("smi.perfect_recovery_threshold", dict(T=2)),
    E("smi.fisher_factor", dict(T=2, n_samples=500, rng=0)),
    E(
        "smi.state_evolution",
        dict(alpha=1.0, T=2, start=1e-3, n_samples=500, damping=0.0, tol=1e-4, max_iter=50, rng=0),
    ),
    E("smi.overlap_curve", dict(alphas=[0.5, 1.0], T=2, n_samples=300, tol=1e-3, max_iter=30, rng=0)),
    E("smi.two_layer_sample", dict(d=10, alpha=1.0, T=2, c=1.0, rng=0)),
    E("smi.second_layer_output", dict(y=lazy(lambda: SMI2_DATA().y))),
    E(
        "smi.two_layer_state_evolution",
        dict(
            alpha=0.5,
            T=2,
            c=1.0,
            start=0.1,
            n_samples=20,
            n_nodes=4,
            damping=0.0,
            tol=1e-3,
            max_iter=3,
            rng=0,
        ),
    ),
    E("smi.two_layer_fisher_factors", dict(T=2, c=1.0, n_samples=20, n_nodes=4, rng=0)),
    E("smi.second_layer_branch", dict(overlaps=[0.3, 0.9], T=2, c=1.0, n_samples=20, n_nodes=4, rng=0)),
    E(
        "smi.two_layer_gamp",
        dict(data=SMI2_DATA, start=0.1, n_nodes=4, damping=0.0, tol=1e-3, max_iter=3, rng=0),
    ),
    # ---------------------------------------------------------------- rie
    E("rie.symmetric_rie", dict(Y=SYM, noise=0.5, kappa=0.5)),
    E("rie.symmetric_rie_eigenvalues", dict(eigenvalues=EIG, noise=0.5, kappa=0.5)),
    E("rie.empirical_symmetric_rie", dict(Y=SYM, noise=0.5)),
    E("rie.empirical_symmetric_rie_eigenvalues", dict(eigenvalues=EIG, noise=0.5)),
    E("rie.empirical_rectangular_rie", dict(Y=RECT, noise=0.5)),
    E("rie.empirical_rectangular_rie_singular_values", dict(singular_values=SV, noise=0.5, beta=1.5)),
    E(
        "rie.ledoit_peche_overlap",
        dict(
            eigenvalue=1.0,
            signal_eigenvalue=1.0,
            noise=0.5,
            law=lazy(lambda: importlib.import_module("solvable.spectra").wishart_plus_goe(0.5, kappa=0.5)),
        ),
    ),
    E("rie.spiked_top_overlap", dict(theta=1.5, d=50, noise=1.0, rng=0), check=error01),
    E("rie.symmetric_rie_mmse", dict(noise=0.5, kappa=0.5, n_nodes=32), check=nonneg_result),
    E(
        "rie.symmetric_rie_mmse_from_density",
        dict(
            noise=0.5,
            density=lambda x: np.sqrt(np.clip(6.0 - x * x, 0, None)) / (3 * np.pi),
            support=[(-(6.0**0.5), 6.0**0.5)],
            n_nodes=32,
        ),
        check=nonneg_result,
    ),
    E("rie.semicircle_rie_mmse", dict(noise=0.5, variance=1.0), check=nonneg_result),
    E("rie.wishart_parameter_fraction", dict(kappa=0.5), check=in01),
    E("rie.rectangular_rie", dict(Y=RECT, noise=0.5, rho=0.5)),
    E("rie.rectangular_rie_singular_values", dict(singular_values=SV, noise=0.5, beta=1.5, rho=0.25)),
    E("rie.rectangular_rie_mmse", dict(noise=0.5, beta=0.5, rho=0.5, n_nodes=32), check=in01),
    E("rie.rectangular_parameter_fraction", dict(beta=0.5, rho=0.5), check=in01),
    E("rie.WishartRIEDenoiser", dict(kappa=0.5)),
    E("rie.RectangularRIEDenoiser", dict(beta=0.5, rho=0.5)),
    E("denoising.identity_mse", dict(noise=0.5)),
    E("denoising.scalar_shrinkage", dict(Y=SYM, noise=0.5, second_moment=1.0, mean=0.0)),
    E("denoising.scalar_shrinkage_mse", dict(noise=0.5, second_moment=1.0, mean=0.0), check=nonneg_result),
    E("denoising.eigenvalue_truncation", dict(Y=SYM, rank=3)),
    E("denoising.truncated_svd", dict(Y=RECT, rank=3)),
    E("denoising.optimal_shrinkage_singular_values", dict(singular_values=SV, noise=0.5, beta=1.5)),
    E("denoising.optimal_singular_value_shrinkage", dict(Y=RECT, noise=0.5)),
    E(
        "denoising.optimal_shrinkage_spike_error",
        dict(theta=lazy(lambda: np.array([0.5, 1.0, 2.0])), noise=0.5, beta=0.5),
    ),
    E("denoising.symmetric_error", dict(estimate=SYM, signal=lazy(lambda: SYM() * 0.9)), check=nonneg_result),
    E(
        "denoising.rectangular_error",
        dict(estimate=RECT, signal=lazy(lambda: RECT() * 0.9)),
        check=nonneg_result,
    ),
    E("rie.symmetric_denoising_experiment", dict(d=12, kappa=0.5, noise=0.5, rng=0)),
    E("rie.rectangular_denoising_experiment", dict(d=8, L=12, r=2, noise=0.5, rng=0)),
    E("denoising.sample_goe", dict(d=6, rng=0, variance=1.0)),
    E("denoising.sample_wishart", dict(d=6, kappa=0.5, rng=0)),
    E("denoising.sample_rectangular_signal", dict(d=6, L=8, r=2, rng=0)),
    E("denoising.sample_rectangular_noise", dict(d=6, L=8, rng=0)),
    # ---------------------------------------------------------------- spectra
    E("spectra.bulk_quadrature", dict(intervals=[(-2.0, 2.0)], n=16)),
    E(
        "spectra.kolmogorov_distance",
        dict(
            samples=EIG,
            density=lambda x: np.sqrt(np.clip(4 - x * x, 0, None)) / (2 * np.pi),
            support=[(-2.0, 2.0)],
            n=201,
        ),
        check=in01,
    ),
    E("spectra.semicircle_density", dict(x=GRID, variance=1.0)),
    E("spectra.semicircle_stieltjes", dict(z=Z3, variance=1.0)),
    E("spectra.semicircle_stieltjes_iterates", dict(z=Z3, variance=1.0, iterations=3)),
    E("spectra.marchenko_pastur_density", dict(x=lazy(lambda: np.linspace(0.1, 4, 7)), kappa=0.5)),
    E("spectra.marchenko_pastur_stieltjes", dict(z=Z3, kappa=0.5)),
    E("spectra.Semicircle", dict(variance=1.0)),
    E("spectra.MarchenkoPastur", dict(kappa=0.5)),
    E("spectra.WishartPlusNoise", dict(kappa=0.5, noise=0.5)),
    E("spectra.RectangularPlusNoise", dict(beta=1.5, rho=0.5, noise=0.5)),
    E("spectra.wishart_plus_goe", dict(kappa=0.5, noise=0.5)),
    E("spectra.rectangular_plus_noise", dict(beta=1.5, rho=0.5, noise=0.5)),
    E(
        "spectra.free_convolution_semicircle",
        dict(stieltjes_S=lambda z: -1.0 / z, noise=0.5, z=Z3, tol=1e-10, max_iter=60),
    ),
    # ---------------------------------------------------------------- views: plotting, widgets, quote, exercises
    E("plotting.printed_size", dict(points=11.0, width=6.4)),
    E("plotting.font_size", dict(width=6.4)),
    E("plotting.use_course_style", dict()),
    E("plotting.new_axes", dict(ncols=1, nrows=1, width=2.0, height=1.5)),
    E("plotting.theory_curve", dict(x=[0.0, 1.0], y=[0.0, 1.0], label="theory", ax=AXES)),
    E("plotting.experiment_points", dict(x=[0.5, 1.0], y=[0.5, 0.4], yerr=[0.1, 0.1], label="GAMP", ax=AXES)),
    E("plotting.sweep_points", dict(sweep=SWEEP, label="sweep", ax=AXES)),
    E("plotting.threshold_line", dict(x=1.0, label="threshold", ax=AXES)),
    E("plotting.spectrum_histogram", dict(values=EIG, total=20, bins=10, ax=AXES)),
    E("plotting.finish", dict(ax=AXES, xlabel="x", ylabel="y", title="a title", legend=True)),
    E("plotting.greyscale_twins", dict(ax=AXES)),
    E("plotting.phase_map_rows", dict()),
    E("plotting.phase_map", dict(rows=PHASE_ROWS, ax=AXES, alpha_range=(0.05, 3.0))),
    E("widgets.interactive_explorer", dict(draw=_draw_frame, figsize=(2.0, 1.5), value=lazy(_slider))),
    E(
        "widgets.static_slider",
        dict(draw=_draw_frame, values=[1.0, 2.0], figsize=(2.0, 1.5), interval=100, printed_frame=0),
    ),
    E("quote.upper_bound", dict(value=0.0184, digits=2)),
    E("quote.lower_bound", dict(value=16.7, digits=2)),
    E("quote.quote", dict(gd_students=16, ratio=0.25, name="lecture")),
    E(
        "exercises.check_function",
        dict(
            name="the square",
            function=_square,
            reference=lambda x: x**2,
            cases=[dict(x=2.0)],
            outputs=None,
            axes=("entry",),
            rtol=1e-8,
            atol=1e-12,
            hint="look at the power",
            mistakes={"the power is 3": lambda x: x**3},
            max_bytes=1e6,
        ),
        refused=check_error,
    ),
    E(
        "exercises.check",
        dict(
            name="a value",
            got=2.0,
            expected=2.0,
            rtol=1e-8,
            atol=1e-12,
            hint="halve it",
            mistakes={"it is doubled": 4.0},
        ),
        refused=check_error,
    ),
    E("exercises.progress", dict(names=["_square"])),
    # ---------------------------------------------------------------- base: config, backend, streams
    E("config.preset_name", dict()),
    E("config.sizes", dict()),
    E("config.device", dict()),
    E("config.n_jobs", dict(device="cpu")),
    E("config.max_jobs", dict()),
    E("config.check_jobs", dict(name="n_jobs", value=1)),
    E("config.jobs_from_environment", dict(variable="SOLVABLE_CONTRACT_UNSET", default=-1)),
    E("backend.gpu_available", dict()),
    E("backend.resolve", dict(device="cpu")),
    E("backend.namespace", dict()),
    E("backend.is_non_numpy_array", dict(x=W10)),
    E("backend.asarray", dict(x=W10, xp=NUMPY_NS, dev="cpu", dtype=np.float64)),
    E("backend.to_numpy", dict(x=W10)),
    # streams sits below domains (domains draws its seeds from it): its checks are written by hand
    E("streams.stream", dict(rng=0, purpose="init"), rng="rng"),
    E("streams.purpose_key", dict(purpose="init")),
]

#: (entry id, parameter, category) -> why that value is legitimate: the call may then return (a finite result,
#: inside the documented range) instead of raising.
ALLOWED = {
    ("bsr.gd", "width", "none"): "width = None (the default) is the teacher's rank r",
    (
        "rie.rectangular_rie_mmse",
        "beta",
        "inf",
    ): "beta = L/d = inf (L >> d) is allowed: the closed-form limit",
    ("rie.rectangular_rie_mmse", "noise", "inf"): "noise = inf carries no information: the MMSE is 1",
    ("rie.symmetric_rie_mmse", "noise", "inf"): "noise = inf carries no information: the signal's variance",
    ("glm.branch_curve", "q", "none"): "q = None (the default) means the built-in grid of overlaps",
    (
        "attention.state_evolution",
        "start",
        "none",
    ): "start = None (the default) is the prior draw's error 1 + rho",
    (
        "attention.hardmax_state_evolution",
        "start",
        "none",
    ): "start = None (the default) is the prior's error 1 + rho",
    (
        "rie.RectangularRIEDenoiser",
        "beta",
        "inf",
    ): "beta = inf (L >> d) is allowed, as in rectangular_rie_mmse",
    ("amp.iterate_fixed_point", "x0", "list"): "the state of a fixed point may be a vector",
    ("amp.run_gamp", "c0", "list"): "c0 may be a float or an array > 0 (one variance per component)",
}


#: (entry id, parameter, category) -> why a non-finite result is the right answer there: an elementwise function
#: whose exact value at that input lies beyond the float range, so that +-inf is its correctly rounded value (as
#: ``np.exp(1e300)``); the rest of the result is still checked.
NONFINITE_RESULTS = {
    (
        "integration.log_phi_pdf",
        "x",
        "huge_entry",
    ): "log phi(1e300) = -5e599 rounds to -inf, as log phi(inf) = -inf",
}


# --------------------------------------------------------------------------- calling and checking
# Every fuzzed call runs in one helper process (:class:`_Worker`), never in the test process: a call that
# allocates without limit hits the worker's memory cap (a MemoryError, reported as an obscure error), one that
# crashes or sits in compiled code (LAPACK on an inf, which ignores signals) is killed at the time limit and the
# worker restarted, so a bad library call can fail its test but not take the test session down with it.


class CallTimeout(BaseException):
    """Raised in the worker when a call overruns :data:`TIMEOUT_S` (a BaseException: not swallowed)."""


class _Missing(Exception):
    """The function of an entry does not exist (yet)."""


#: Address-space cap of the worker: an absurd size must be refused before it is allocated.
WORKER_MEMORY_BYTES = 6 * 2**30


def _on_alarm(signum, frame):
    raise CallTimeout(f"no answer after {TIMEOUT_S:.0f} s")


def _nonfinite_leaves(value, path="result"):
    """Paths of every non-finite number in ``value`` (floats, arrays, tuples, lists, dicts, dataclasses)."""
    if value is None or isinstance(value, (str, bool, np.bool_, int, np.integer)):
        return []
    if isinstance(value, (float, np.floating, complex, np.complexfloating)):
        return [] if np.isfinite(value) else [f"{path} = {value!r}"]
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc" and not np.all(np.isfinite(value)):
            return [f"{path} has {value.size - np.count_nonzero(np.isfinite(value))} non-finite entries"]
        if value.dtype == object:
            return [p for i, v in enumerate(value.ravel()[:50]) for p in _nonfinite_leaves(v, f"{path}[{i}]")]
        return []
    if isinstance(value, (tuple, list)):
        return [p for i, v in enumerate(value) for p in _nonfinite_leaves(v, f"{path}[{i}]")]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _nonfinite_leaves(v, f"{path}[{k!r}]")]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            p
            for f in dataclasses.fields(value)
            for p in _nonfinite_leaves(getattr(value, f.name), f"{path}.{f.name}")
        ]
    return []  # other objects (channels, denoisers, laws): their construction was the check


def _lookup(entry):
    """The callable of ``entry`` (its first existing candidate name) and that name; _Missing if none exists."""
    missing = []
    for dotted in entry.names:
        mod, _, name = dotted.rpartition(".")
        try:
            module = importlib.import_module(f"solvable.{mod}")
        except ModuleNotFoundError as e:
            if e.name != f"solvable.{mod}":
                raise
            missing.append(dotted)
            continue
        f = getattr(module, name, None)
        if f is not None:
            return f, dotted
        missing.append(dotted)
    raise _Missing(" / ".join(missing))


def _timed_call(f, kwargs):
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, TIMEOUT_S)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                return f(**kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@cache
def _baseline(entry_id):
    """The valid call of an entry: (callable, dotted name, kwargs, result paths that are non-finite by design)."""
    entry = BY_ID[entry_id]
    f, dotted = _lookup(entry)
    kwargs = {k: _resolve(v) for k, v in entry.call.items()}
    result = _timed_call(f, kwargs)
    # fields that are NaN in a valid result by design (e.g. SEResult.conjugate = nan where it does not apply)
    allowed = frozenset(p.split(" ")[0] for p in _nonfinite_leaves(result))
    return f, dotted, kwargs, allowed, result


def _raised(e, call):
    return {
        "status": "raised",
        "call": call,
        "type": type(e).__name__,
        "message": str(e)[:400],
        "value_or_type_error": isinstance(e, (ValueError, TypeError)),
        "arithmetic": isinstance(e, ArithmeticError)
        and not isinstance(e, (ZeroDivisionError, FloatingPointError)),
    }


def _run_case(entry_id, param=None, kind=None, category=None):
    """The outcome of one case, as a small dict (computed in the worker)."""
    entry = BY_ID[entry_id]
    try:
        f, dotted, kwargs, allowed, result = _baseline(entry_id)
    except _Missing as e:
        return {"status": "missing", "message": str(e)}
    except BaseException as e:  # noqa: BLE001
        return {"status": "baseline_failed", "message": f"{type(e).__name__}: {str(e)[:400]}"}
    if param is None:  # the valid call itself
        msg = entry.check(result) if entry.check is not None else None
        if msg is None and entry.refused is not None and entry.refused(result) is not None:
            msg = f"the valid call was refused: {entry.refused(result)}"
        return {
            "status": "returned",
            "call": dotted,
            "problems": [msg] if msg else [],
            "nonfinite_by_design": sorted(allowed),
        }
    kwargs = dict(kwargs)
    try:
        if kind == DECLARED:  # the value is generated from the function's own declaration of the parameter
            kwargs[param] = fuzz_value(domains_of(f)[param], category, _valid_value(f, kwargs, param))
        else:
            kwargs[param] = _bad_value(kind, category, kwargs.get(param))
    except (ValueError, TypeError) as e:  # e.g. a Dataset that refuses NaN labels when it is built
        return {**_raised(e, f"building the bad {param} for {dotted}"), "built": True}
    call = f"{dotted}({param}={_short(kwargs[param])})"
    try:
        result = _timed_call(f, kwargs)
    except CallTimeout as e:
        return {"status": "timeout", "call": call, "message": str(e)}
    except Exception as e:  # noqa: BLE001 - the type is the point of the check
        return _raised(e, call)
    refusal = entry.refused(result) if entry.refused is not None else None
    if refusal is not None:  # refused in the result (an exercise check's CHECK ERROR), not raised
        return {
            "status": "raised",
            "call": call,
            "type": type(result).__name__,
            "message": refusal[:400],
            "value_or_type_error": False,
            "arithmetic": False,
            "refused": True,
        }
    problems = [p for p in _nonfinite_leaves(result) if p.split(" ")[0] not in allowed]
    if (entry_id, param, category) in ALLOWED:  # an allowed value may be stored as given (R1 = inf)
        problems = [p for p in problems if p.split(" ")[0] != f"result.{param}"]
    if (
        entry_id,
        param,
        category,
    ) in NONFINITE_RESULTS:  # +-inf is the correctly rounded value there, NaN is not
        problems = [p for p in problems if not p.endswith("non-finite entries")]
        if np.isnan(np.asarray(result, dtype=float)).any():
            problems.append("result has NaN entries")
    if entry.check is not None and not problems:
        try:
            msg = entry.check(result)
        except Exception as e:  # noqa: BLE001
            msg = f"range check failed: {type(e).__name__}: {e}"
        if msg:
            problems.append(msg)
    return {"status": "returned", "call": call, "problems": problems}


def _short(v):
    if isinstance(v, np.ma.MaskedArray):
        return f"masked array{v.shape}"
    if isinstance(v, np.ndarray):
        flags = ""
        if v.dtype.kind == "f" and v.ndim:
            flags = (
                (" with nan" if np.isnan(v).any() else "")
                + (" with inf" if np.isinf(v).any() else "")
                + (" with 1e300" if (np.abs(v[np.isfinite(v)]) >= 1e299).any() else "")
            )
        return f"array{v.shape}{flags}"
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return f"{type(v).__name__}(... NaN label)"
    r = repr(v)
    return r if len(r) < 40 else r[:37] + "..."


def _worker_main():  # pragma: no cover - runs in the helper process
    """Serve cases read from stdin (pickled tuples) until EOF, answering pickled outcomes on stdout."""
    resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY_BYTES, resource.getrlimit(resource.RLIMIT_AS)[1]))
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # prints of the library must not corrupt the answers
    while True:
        try:
            request = pickle.load(inp)
        except EOFError:
            return
        try:
            answer = _run_case(*request)
        except BaseException as e:  # noqa: BLE001
            answer = {
                "status": "raised",
                "call": str(request),
                "type": type(e).__name__,
                "message": str(e)[:400],
                "value_or_type_error": False,
                "arithmetic": False,
            }
        pickle.dump(answer, out)
        out.flush()


class _Worker:
    """The helper process that makes the calls, restarted after a hang or a crash."""

    def __init__(self):
        self.proc = None

    def _start(self):
        import subprocess

        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", "1")
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        code = "import sys; sys.path.insert(0, sys.argv[1]); import test_contract as t; t._worker_main()"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, os.path.dirname(os.path.abspath(__file__))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )

    def ask(self, *request, timeout=TIMEOUT_S + 5.0):
        import select

        if self.proc is None or self.proc.poll() is not None:
            self._start()
        try:
            pickle.dump(request, self.proc.stdin)
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            if ready:
                return pickle.load(self.proc.stdout)
        except (EOFError, BrokenPipeError, pickle.UnpicklingError):
            code = self.proc.poll()
            self.close()
            return {"status": "crash", "message": f"the call killed the worker process (exit code {code})"}
        self.close()
        return {
            "status": "timeout",
            "message": f"no answer after {timeout:.0f} s (killed: compiled code ignored the alarm)",
        }

    def close(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None


@pytest.fixture(scope="module")
def worker():
    w = _Worker()
    yield w
    w.close()


BY_ID = {e.id: e for e in TABLE}
assert len(BY_ID) == len(TABLE), "duplicate entry in TABLE"

#: The modules whose public names the fuzz covers (validation, errors, domains and results are the base that the
#: checks and records are made of).
FUZZED_MODULES = (
    "amp",
    "attention",
    "bsr",
    "channels",
    "dataset",
    "denoising",
    "ellipsoid",
    "erm",
    "experiments",
    "gardner",
    "gd",
    "glm",
    "integration",
    "matrix_sensing",
    "metrics",
    "priors",
    "quadratic",
    "regression",
    "rie",
    "smi",
    "spectra",
    "plotting",
    "widgets",
    "exercises",
    "quote",
    "config",
    "backend",
    "streams",
)

#: Public callables that are deliberately not in TABLE, with the reason.
NOT_FUZZED = {
    "gd.fit_students": "the gradient-descent front end that bsr.gd, quadratic.gd and attention.gd configure; its "
    "controls are theirs and are fuzzed through them",
    "attention.self_consistency": "a diagnostic of the GAMP-RIE loop on its internal objects; exercised by gamp_rie",
    "config.Sizes": "the record of a size preset: the library builds the three of PRESETS, a user picks one by name",
    "widgets.StaticExplorer": "the notebook output of static_slider, built by it (the fuzz covers static_slider)",
    "exercises.Verdict": "the record of a check's outcome, built by check and check_function",
    "experiments.parallel_map": "fuzzing n_jobs with large integers would start that many processes; its arguments "
    "and errors are tested in tests/test_parallel.py",
}
#: Dataclasses with these name endings are result or data containers (built by the library, not by the user).
CONTAINERS = (
    "Result",
    "Curve",
    "Errors",
    "Simulation",
    "Lambda",
    "Sweep",
    "Thresholds",
    "FixedPoint",
    "Dataset",
    "OutputGenError",
    "Run",
    "Verdict",  # exercises.check's verdict
    "Sizes",  # config.sizes(preset)
    "Explorer",  # widgets' static twin of an interactive figure
)


def _public_callables():
    """``(module.name, object)`` of every public callable of the fuzzed modules, the result containers left out."""
    for mod in FUZZED_MODULES:
        try:
            module = importlib.import_module(f"solvable.{mod}")
        except ModuleNotFoundError:
            continue
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if callable(obj) and not (isinstance(obj, type) and name.endswith(CONTAINERS)):
                yield f"{mod}.{name}", obj


def test_every_public_function_is_in_the_table():
    """A new public function gets an entry in TABLE (or a reason in NOT_FUZZED)."""
    covered = {name for e in TABLE for name in e.names}
    covered_objects = (
        set()
    )  # a function re-exported by another module (rie re-exports denoising) is covered once
    for dotted in covered:
        mod, _, name = dotted.rpartition(".")
        try:
            covered_objects.add(id(getattr(importlib.import_module(f"solvable.{mod}"), name)))
        except (ModuleNotFoundError, AttributeError):
            pass
    missing = [
        dotted
        for dotted, obj in _public_callables()
        if not getattr(obj, "_is_protocol", False)
        and dotted not in covered
        and id(obj) not in covered_objects
        and dotted not in NOT_FUZZED
    ]
    assert not missing, f"public callables without a fuzz entry in tests/test_contract.py: {missing}"


#: What comes before the noise: the observation a denoiser is given (a matrix, its spectrum, its Stieltjes
#: transform), or the points a function is evaluated at (the spike strengths ``theta`` of an error curve).
OBSERVATIONS = (
    "Y",
    "eigenvalues",
    "singular_values",
    "stieltjes_S",
    "eigenvalue",
    "signal_eigenvalue",
    "theta",
)


def _noise_position_violation(dotted: str, obj) -> str | None:
    """Where ``noise`` must sit (lib/solvable/README.md, "One name per concept"), or None when it does.

    A function that draws its own data (it takes ``rng``) takes the dimension ``d`` first, as every sampler, and
    the noise after the signal's parameters, last of its positional arguments. A denoiser takes the noise right
    after its observation (or the points it is evaluated at). Any other function of the noise (a law, an MMSE, a risk) takes it first, its other
    ratios keyword-only where two of them could be swapped silently; a law's class takes every field by name.
    """
    params = list(inspect.signature(obj).parameters.values())
    names = [p.name for p in params]
    if "noise" not in names:
        return None
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if isinstance(obj, type):
        if positional:
            return f"{dotted}: a law's fields are keyword-only, got positional {positional}"
        return None
    if "rng" in names:
        if positional[0] != "d" or positional[-1] != "noise":
            return f"{dotted}: a function that draws takes d first and noise last, got {positional}"
        return None
    observed = [n for n in positional[: positional.index("noise")] if n in OBSERVATIONS]
    if positional.index("noise") != len(observed) or not observed and positional[0] != "noise":
        return f"{dotted}: noise comes first, or right after the observation, got {positional}"
    return None


def test_noise_has_one_position():
    """``noise`` sits in one place for each kind of function, across every module that has it."""
    bad, seen = [], 0
    for dotted, obj in _public_callables():
        try:
            inspect.signature(obj)
        except (TypeError, ValueError):
            continue
        seen += "noise" in inspect.signature(obj).parameters
        bad.append(_noise_position_violation(dotted, obj))
    assert seen >= 25, seen
    assert not [b for b in bad if b], [b for b in bad if b]


def test_noise_rule_refuses_the_old_orders():
    """The rule itself fails on the orders the library had before (so the test above can fail)."""

    def law(kappa, noise, normalisation="paper"): ...

    def risk(kappa, noise, threshold): ...

    def draws(theta, d, noise, *, rng): ...

    def denoiser(Y, kappa, noise): ...

    for f in (law, risk, draws, denoiser):
        assert _noise_position_violation(f.__name__, f) is not None
    for f in (lambda noise, *, kappa: 0, lambda Y, noise, rho: 0, lambda d, kappa, noise, *, rng: 0):
        assert _noise_position_violation("ok", f) is None


#: The kind of a case whose value comes from the function's declared domain (solvable.domains), not from TABLE.
DECLARED = "declared"

#: Values built from the parameter's valid value: not generated where the valid call leaves the parameter at a
#: default of None (nothing to build them from).
_NEED_VALID = {
    "np_scalar",
    "zero_d",
    "upper",
    "class",
    "read_only",
    "non_contiguous",
    "float32",
    "huge_entry",
    "nan_entry",
    "inf_entry",
    "complex_array",
    "masked",
    "object_array",
    "ndim_plus",
    "ndim_minus",
}


def _valid_value(f, kwargs, param):
    """The parameter's value in the valid call, or its default."""
    if param in kwargs:
        return kwargs[param]
    default = inspect.signature(f).parameters[param].default
    return None if default is inspect.Parameter.empty else default


@cache
def _declared(entry_id):
    """The declared domains of an entry's function (name -> Domain), or None where it declares none."""
    try:
        f, _ = _lookup(BY_ID[entry_id])
    except _Missing:
        return None
    return domains_of(f)


def _declared_cases(entry):
    doms = _declared(entry.id)
    f, _ = _lookup(entry)
    for param, dom in doms.items():
        must, edge = fuzz_categories(dom)
        has_valid = (entry.call[param] if param in entry.call else _valid_value(f, {}, param)) is not None
        for category in must + edge:
            if category in _NEED_VALID and not has_valid:
                continue
            must_raise = category in must and (entry.id, param, category) not in ALLOWED
            yield pytest.param(
                entry.id,
                param,
                DECLARED,
                category,
                must_raise,
                id=f"{entry.id.split('|')[0]}-{param}-{category}",
            )


#: The modules below the declarations: ``domains`` and what it imports (the one error, records, the checks its
#: domains call, the random streams). Their functions check their arguments by hand; a declaration there would
#: import ``domains`` into a module that ``domains`` imports.
FOUNDATION = ("domains", "errors", "results", "streams", "validation")

#: The modules whose every public function and user-built class declares the domain of each of its parameters
#: (solvable.domains): every module but the foundation (tests/test_contract.py::test_only_the_foundation...).
DECLARED_MODULES = (
    "glm",
    "smi",
    "gd",
    "attention",
    "convex",
    "matrix_sensing",
    "ellipsoid",
    "quadratic",
    "bsr",
    "erm",
    "gardner",
    "regression",
    "priors",
    "integration",
    "channels",
    "denoising",
    "rie",
    "spectra",
    "amp",
    "experiments",
    "metrics",
    "dataset",
    "plotting",
    "widgets",
    "exercises",
    "quote",
    "config",
    "backend",
)


def test_declared_modules_declare_every_parameter():
    """Every public function of a declared module carries its domains (and so is fuzzed from them)."""
    undeclared, seen = [], 0
    for mod in DECLARED_MODULES:
        module = importlib.import_module(f"solvable.{mod}")
        for name in module.__all__:
            obj = getattr(module, name)
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            user_class = (
                isinstance(obj, type)
                and not name.endswith(CONTAINERS)
                and not getattr(obj, "_is_protocol", False)
            )
            if inspect.isfunction(obj) or user_class:
                seen += 1
                if domains_of(obj) is None:
                    undeclared.append(f"{mod}.{name}")
    assert seen >= 230, seen
    assert not undeclared, f"public functions and classes without declared domains: {undeclared}"


def test_only_the_foundation_is_not_declared():
    """Every module but the five below the declarations (which ``domains`` itself imports) declares its domains."""
    modules = {m.name for m in pkgutil.iter_modules(solvable.__path__)}
    assert set(DECLARED_MODULES) == modules - set(FOUNDATION)
    for mod in FOUNDATION:  # the layering that keeps them below: none imports domains
        assert (
            "from .domains" not in inspect.getsource(importlib.import_module(f"solvable.{mod}"))
            or mod == "domains"
        )


def test_a_declared_domain_is_not_written_again_in_the_table():
    """The fuzz of a declared function comes from its declaration: TABLE gives only its valid call."""
    twice = {e.id: sorted(e.kinds) for e in TABLE if _declared(e.id) is not None and e.kinds}
    assert not twice, f"domains declared in the library and written again in TABLE: {twice}"


def _cases():
    for entry in TABLE:
        if _declared(entry.id) is not None:
            yield from _declared_cases(entry)
            continue
        for param, kind in entry.kinds.items():
            must, edge = KINDS[kind]
            for category in must + edge:
                # an allowed value need not raise, but if accepted its result is still checked (finite, in range)
                must_raise = category in must and (entry.id, param, category) not in ALLOWED
                yield pytest.param(
                    entry.id,
                    param,
                    kind,
                    category,
                    must_raise,
                    id=f"{entry.id.split('|')[0]}-{param}-{category}",
                )


def _skip_or_fail_on_baseline(out, entry_id, fuzz):
    if out["status"] == "missing":
        if PENDING_LENIENCY:
            pytest.skip(
                f"{out['message']}: does not exist (yet) - the library is being restructured (issue 11)"
            )
        pytest.fail(f"no public function {out['message']}")
    if out["status"] == "baseline_failed":
        if fuzz:  # reported once, by test_valid_call_returns_finite_results
            pytest.skip(f"the valid call of {entry_id} fails ({out['message']}): fuzz not run")
        pytest.fail(f"VALID-CALL: the valid call of {entry_id} fails: {out['message']}")


@pytest.mark.parametrize("entry_id", [pytest.param(e.id, id=e.id.split("|")[0]) for e in TABLE])
def test_valid_call_returns_finite_results(worker, entry_id):
    """The valid call of each entry works and is in range (otherwise the fuzz of that entry tests nothing)."""
    out = worker.ask(entry_id)
    _skip_or_fail_on_baseline(out, entry_id, fuzz=False)
    assert out["status"] == "returned", f"VALID-CALL: {entry_id}: {out}"
    assert not out["problems"], f"VALID-CALL: {out['call']}: {out['problems']}"


@pytest.mark.parametrize("entry_id, param, kind, category, must_raise", list(_cases()))
def test_bad_value_is_refused_or_harmless(worker, entry_id, param, kind, category, must_raise):
    entry = BY_ID[entry_id]
    out = worker.ask(entry_id, param, kind, category)
    _skip_or_fail_on_baseline(out, entry_id, fuzz=True)
    call = out.get("call", f"{entry_id}({param}=<{category}>)")
    if out["status"] in ("timeout", "crash"):
        pytest.fail(
            f"HANG: {call}: {out['message']}"
            if out["status"] == "timeout"
            else f"CRASH: {call}: {out['message']}"
        )
    if out["status"] == "raised":
        msg = out["message"]
        if out.get("refused"):  # a function that never raises reports the refusal in its result
            assert param in msg, f"OBSCURE: {call} was refused without naming {param!r}: {msg}"
            return
        if kind == DECLARED and must_raise:  # outside a declared domain: the one error, naming the parameter
            assert out["type"] == "InvalidParameterError" and param in msg, (
                f"OBSCURE: {call} raised {out['type']} (not InvalidParameterError naming {param!r}): {msg}"
            )
            return
        if out["value_or_type_error"]:
            # at the edge of the domain (huge, tiny) a combination of parameters may become invalid: the message
            # may then name the other parameter of the constraint (e.g. q in [0, rho] when rho = 1e-300)
            names = [param, *entry.aliases] + ([] if must_raise else list(entry.call))
            if out.get("built"):  # the Dataset refused the bad labels when it was built
                names.append("y")
            assert any(n in msg for n in names), (
                f"OBSCURE: {call} raised {out['type']} without naming {param!r}: {msg}"
            )
            return
        if out["arithmetic"] and not must_raise and len(msg) > 20:
            return  # a numerical failure that explains itself (DivergenceError, OverflowError with a message)
        pytest.fail(f"OBSCURE: {call} raised {out['type']}: {msg}")
    problems = out["problems"]
    if must_raise:
        detail = f" and returned {problems}" if problems else ""
        pytest.fail(f"SILENT: {call} was accepted{detail}; expected a ValueError/TypeError naming {param!r}")
    assert not problems, f"SILENT: {call} returned {problems}"
