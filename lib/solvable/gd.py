r"""Gradient descent and Adam on factorised weights: one optimiser loop for every model of the course.

A student that learns a matrix ``S`` through a factorisation (``S = U V^T/sqrt(r)`` in bilinear sequence
regression, ``S = W^T W/sqrt(m d)`` in quadratic networks, ``S = W W^T/sqrt(r d)`` for attention) is trained by
full-batch descent on a loss. :func:`run_gd` needs only

- an **objective** (:class:`Objective`): ``loss_and_gradient(params) -> (loss, grads)`` and
  ``matrix(params) -> S``, batched over a leading axis of ``J`` independent runs, and ``loss_scale``, the
  denominator of the relative training loss that ``tol`` is compared with;
- an **optimiser step** (:class:`Optimiser`): :class:`GradientStep` (``params -= lr * grad``) or :class:`Adam`.

The square loss of the matrix-sensing models is the objective :class:`SquareLoss`,

.. math::

   \mathcal{L}(\theta) = \frac{1}{4} \sum_{\mu=1}^{n} (\hat y_\mu - y_\mu)^2, \qquad
   \hat y = M(S(\theta)),

whose gradient the chain rule splits into the two parts that change between models,
:math:`\partial\mathcal{L}/\partial S = M^\top((\hat y - y)/2)` and
:math:`\partial\mathcal{L}/\partial\theta = (\partial S/\partial\theta)^\top\, \partial\mathcal{L}/\partial S`:

- a **measurement** ``M`` (:class:`Measurement`): ``forward(S) -> y_hat`` and ``adjoint(r) -> S-shaped``,
  batched (e.g. :class:`solvable.bsr.BilinearMap`);
- a **parametrisation** (:class:`Parametrisation`): ``matrix(params) -> S`` and
  ``pullback(params, G) -> dloss/dparams`` given ``G = dloss/dS``, also batched
  (:class:`LowRankProduct` for BSR, :class:`SymmetricSquare` for quadratic networks).

The softmax students of the attention-indexed model are another objective
(``solvable.attention.StudentLoss``) on the same loop.

``J`` initialisations on the same data run as one batched computation per step (one matrix product per
operation, no Python loop over samples or initialisations); averaging their final ``S`` gives "averaged GD".

The loop, the optimisers, :class:`SquareLoss` and the parametrisations are written against the Python array API
standard (2023.12): they call only the functions of the namespace of their arrays
(``array_api_compat.array_namespace``, :mod:`solvable.backend`), so NumPy arrays run on the CPU and PyTorch or
CuPy arrays on a GPU through the same lines; the result always comes back as NumPy arrays on the host.

References
----------
The book: Chapter 3, Sec. "Gradient descent on the factorised weights" (loss ``eq-bsr-loss``); Chapter 4,
Sec. "Gradient descent: a sampler of the posterior" (``eq-qn-gd-loss``); Chapter 5, Sec. "Gradient descent on the
tied attention layer" (``eq-aim-loss``).

Papers: Erba, Troiani, Biggio, Maillard, Zdeborová, "Bilinear sequence regression", arXiv:2410.18858 (averaged GD);
Kingma and Ba, "Adam: a method for stochastic optimization", arXiv:1412.6980.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import field
from typing import Protocol

import array_api_compat
import numpy as np

from . import backend
from .errors import InvalidParameterError, ConvergenceWarning, DivergenceError
from .errors import warn as warn_user
from .domains import (
    VOCABULARY,
    choice,
    declare,
    function,
    integer,
    interface,
    optional,
    real,
    seed,
    unchecked,
)
from .results import record
from .validation import (
    check_array,
    check_in_range,
    check_interface,
)

__all__ = [
    "Objective",
    "Optimiser",
    "GradientStep",
    "Adam",
    "Measurement",
    "Parametrisation",
    "LowRankProduct",
    "SymmetricSquare",
    "SquareLoss",
    "GDResult",
    "loss_and_gradient",
    "run_gd",
    "fit_students",
    "OPTIMISERS",
]

#: The optimisers a model's ``gd`` offers by name: plain gradient descent (:class:`GradientStep`) and :class:`Adam`.
OPTIMISERS = ("gd", "adam")


class Objective(Protocol):
    """A batched training loss, the interface :func:`run_gd` descends on.

    ``loss_and_gradient(params) -> (loss, grads)`` returns the loss of each of the ``J`` runs, shape ``(J,)``,
    and its gradient, a tuple shaped like ``params``; ``matrix(params)`` returns the learned matrices, shape
    ``(J, *shape)`` (for the errors and the average); ``loss_scale > 0`` is the denominator of the relative
    training loss ``loss / loss_scale`` that ``tol`` is compared with. :class:`SquareLoss` is one;
    ``solvable.attention.StudentLoss`` another.
    """

    loss_scale: float

    def loss_and_gradient(self, params):
        """Loss of each run, shape ``(J,)``, and its gradient, a tuple of arrays shaped like ``params``."""
        ...

    def matrix(self, params):
        """The learned matrix of each run, shape ``(J, *shape)``."""
        ...


class Optimiser(Protocol):
    """An optimiser step on batched parameters: :class:`GradientStep` or :class:`Adam`.

    ``init(params) -> state`` returns the optimiser's state (a tuple of arrays with the leading ``J`` axis) and
    ``step(params, grads, state, t) -> (params, state)`` makes step ``t = 0, 1, ...``; both act elementwise on
    each run, so runs frozen by :func:`run_gd` can be left out of a step.
    """

    def init(self, params):
        """The optimiser's initial state for ``params``: a tuple of arrays, each with the leading ``J`` axis."""
        ...

    def step(self, params, grads, state, t):
        """Step ``t`` (0, 1, ...) from ``params`` along ``grads``: returns ``(params, state)``."""
        ...


#: The domains of gradient descent's controls, declared once: run_gd, fit_students and the gd function of every
#: model (bsr, quadratic, attention) declare theirs from these.
LEARNING_RATE = real(0.0, low_open=True)
MOMENT_DECAY = real(0.0, 1.0, high_open=True)
DTYPE = backend.DTYPE
GD_CONTROLS = {
    "n_inits": VOCABULARY["n_inits"],
    "optimiser": choice(*OPTIMISERS),
    "lr": optional(LEARNING_RATE, "the model's default step"),
    "betas": unchecked("Adam's (beta1, beta2), each in [0, 1): checked as a pair by fit_students"),
    "eps": real(0.0, low_open=True),
    "tol": VOCABULARY["tol"],
    "max_steps": VOCABULARY["max_steps"],
    "record_every": VOCABULARY["record_every"],
    "warn": VOCABULARY["warn"],
    "dtype": DTYPE,
    "device": unchecked("'cpu', 'cuda' or 'auto': resolved by solvable.backend.resolve"),
    "rng": seed("init"),
}


@declare(lr=LEARNING_RATE)
@record
class GradientStep:
    """Plain gradient descent, ``params <- params - lr * grad``.

    Parameters
    ----------
    lr : float
        Learning rate, > 0.

    Raises
    ------
    ValueError
        If ``lr`` is not a finite positive number.
    """

    lr: float

    def init(self, params):
        return ()

    def step(self, params, grads, state, t):
        return tuple(p - self.lr * g for p, g in zip(params, grads)), state


@declare(lr=LEARNING_RATE, beta1=MOMENT_DECAY, beta2=MOMENT_DECAY, eps=real(0.0, low_open=True))
@record
class Adam:
    r"""Adam with a constant learning rate, elementwise, so each run has its own moments.

    Parameters
    ----------
    lr : float
        Learning rate, > 0.
    beta1 : float, default 0.9
        Decay of the first moment, in [0, 1).
    beta2 : float, default 0.999
        Decay of the second moment, in [0, 1).
    eps : float, default 1e-8
        Added to the square root of the second moment, > 0.

    Raises
    ------
    ValueError
        If a parameter is outside its range.

    Notes
    -----
    At step :math:`t = 0, 1, \dots` with gradient :math:`g`,

    .. math::

       m \leftarrow \beta_1 m + (1 - \beta_1) g, \quad v \leftarrow \beta_2 v + (1 - \beta_2) g^2, \quad
       \theta \leftarrow \theta - \mathrm{lr}\, \frac{m / (1 - \beta_1^{t+1})}
       {\sqrt{v / (1 - \beta_2^{t+1})} + \epsilon}.

    References
    ----------
    Kingma and Ba, "Adam: a method for stochastic optimization", arXiv:1412.6980.
    """

    lr: float
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8

    def init(self, params):
        xp = backend.namespace(*params)
        return tuple(xp.zeros_like(p) for p in params) * 2

    def step(self, params, grads, state, t):
        xp = backend.namespace(*params)
        P = len(params)
        mom, vel = state[:P], state[P:]
        mom = tuple(self.beta1 * m + (1.0 - self.beta1) * g for m, g in zip(mom, grads))
        vel = tuple(self.beta2 * v + (1.0 - self.beta2) * g * g for v, g in zip(vel, grads))
        c1, c2 = 1.0 - self.beta1 ** (t + 1), 1.0 - self.beta2 ** (t + 1)
        new = tuple(
            p - self.lr * (m / c1) / (xp.sqrt(v / c2) + self.eps) for p, m, v in zip(params, mom, vel)
        )
        return new, mom + vel


class Measurement(Protocol):
    """A linear map of a batch of matrices, the ``M`` of :class:`SquareLoss`.

    ``forward(S)`` maps matrices of shape ``(J, *shape)`` to predictions of shape ``(J, n)``, and ``adjoint(g)``
    maps ``(J, n)`` back to ``(J, *shape)``; e.g. :class:`solvable.bsr.BilinearMap`.
    """

    def forward(self, S):
        """Predictions of each run, shape ``(J, n)``, for matrices ``S`` of shape ``(J, *shape)``."""
        ...

    def adjoint(self, g):
        """The adjoint map: ``(J, n)`` to ``(J, *shape)``."""
        ...


class Parametrisation(Protocol):
    """A factorisation of the learned matrix, the ``S(params)`` of :class:`SquareLoss`.

    ``matrix(params)`` returns the matrices, shape ``(J, *shape)``, and ``pullback(params, G)`` the gradient with
    respect to ``params`` (a tuple shaped like ``params``) given ``G = dloss/dS``; e.g. :class:`LowRankProduct`,
    :class:`SymmetricSquare`.
    """

    def matrix(self, params):
        """The matrix of each run, shape ``(J, *shape)``."""
        ...

    def pullback(self, params, G):
        """Gradient with respect to ``params`` (a tuple shaped like them) given ``G = dloss/dS``."""
        ...


@declare(r=integer(1))
@record
class LowRankProduct:
    r"""The factorisation ``S = U V^T / sqrt(r)`` of bilinear sequence regression, as a :class:`Parametrisation`.

    The parameters are ``(U, V)`` with ``U`` of shape ``(J, d, r)`` and ``V`` of shape ``(J, L, r)``.

    Parameters
    ----------
    r : int
        Rank of the factorisation (width of ``U`` and ``V``), >= 1.

    Raises
    ------
    TypeError
        If ``r`` is not an integer.
    ValueError
        If ``r`` < 1.

    Notes
    -----
    With :math:`G = \partial\mathcal{L}/\partial S`, the pullback is
    :math:`\partial\mathcal{L}/\partial U = G V / \sqrt{r}` and
    :math:`\partial\mathcal{L}/\partial V = G^\top U / \sqrt{r}`.

    References
    ----------
    Chapter 3, Sec. "Gradient descent on the factorised weights" (``eq-bsr-loss``).
    """

    r: int

    def _factors(self, params):
        U, V = params
        if U.ndim < 2 or V.ndim < 2 or U.shape[-1] != self.r or V.shape[-1] != self.r:
            raise InvalidParameterError(
                f"the factors (U, V) must have width r = {self.r}, got shapes {tuple(U.shape)} and "
                f"{tuple(V.shape)}"
            )
        return U, V

    def matrix(self, params):
        U, V = self._factors(params)
        xp = backend.namespace(U, V)
        return (U @ xp.matrix_transpose(V)) / math.sqrt(self.r)

    def pullback(self, params, G):
        U, V = self._factors(params)
        xp = backend.namespace(U, V, G)
        s = 1.0 / math.sqrt(self.r)
        return (G @ V) * s, (xp.matrix_transpose(G) @ U) * s


@declare(m=integer(1))
@record
class SymmetricSquare:
    r"""The factorisation ``S = W^T W / sqrt(m d)`` of quadratic networks, as a :class:`Parametrisation`.

    The parameters are ``(W,)`` with ``W`` of shape ``(J, m, d)`` (the paper's normalisation).

    Parameters
    ----------
    m : int
        Width of the student (rows of ``W``), >= 1.
    d : int
        Input dimension (columns of ``W``), >= 1.

    Raises
    ------
    TypeError
        If ``m`` or ``d`` is not an integer.
    ValueError
        If ``m`` or ``d`` < 1.

    Notes
    -----
    With :math:`G = \partial\mathcal{L}/\partial S`, the pullback is
    :math:`\partial\mathcal{L}/\partial W = W (G + G^\top) / \sqrt{m d}`.

    References
    ----------
    Chapter 4, Sec. "Gradient descent: a sampler of the posterior" (``eq-qn-gd-loss``).
    """

    m: int
    d: int

    def _weights(self, params):
        (W,) = params
        if W.ndim < 2 or tuple(W.shape[-2:]) != (self.m, self.d):
            raise InvalidParameterError(
                f"the weights W must have shape (J, m, d) = (J, {self.m}, {self.d}), got {tuple(W.shape)}"
            )
        return W

    def matrix(self, params):
        W = self._weights(params)
        xp = backend.namespace(W)
        return (xp.matrix_transpose(W) @ W) / math.sqrt(self.m * self.d)

    def pullback(self, params, G):
        W = self._weights(params)
        xp = backend.namespace(W, G)
        return ((W @ (G + xp.matrix_transpose(G))) / math.sqrt(self.m * self.d),)


#: The pieces of an objective, and labels that may live on another array library's device.
MEASUREMENT = interface("forward", "adjoint")
PARAMETRISATION = interface("matrix", "pullback")
DEVICE_LABELS = unchecked(
    "a finite 1-d array, not identically zero, NumPy or another array-API library's: "
    "checked on a host copy and kept on its device"
)


@declare(measurement=MEASUREMENT, parametrisation=PARAMETRISATION, y=DEVICE_LABELS)
@record
class SquareLoss:
    r"""The square loss of a measurement of a factorised matrix, as an :class:`Objective` for :func:`run_gd`.

    Parameters
    ----------
    measurement : Measurement
        The linear map ``M`` (``forward``, ``adjoint``).
    parametrisation : Parametrisation
        The factorisation ``S(params)`` (``matrix``, ``pullback``).
    y : array of shape (n,)
        The labels; finite and not all zero. A NumPy array, or an array of another array-API library (PyTorch,
        CuPy, ``array_api_strict``) in the namespace and on the device of the parameters :func:`run_gd`
        descends (it is checked on a host copy and kept as it is).

    Raises
    ------
    TypeError
        If ``measurement`` or ``parametrisation`` lacks a method of its interface.
    ValueError
        If ``y`` is not a finite one-dimensional array or is identically zero.

    Notes
    -----
    The loss of each run and its gradient are

    .. math::

       \mathcal{L}(\theta) = \frac{1}{4} \sum_{\mu=1}^{n} (\hat y_\mu - y_\mu)^2, \quad
       \hat y = M(S(\theta)), \quad
       \frac{\partial\mathcal{L}}{\partial S} = M^\top\Big(\frac{\hat y - y}{2}\Big),

    pulled back through the parametrisation. ``loss_scale`` is :math:`\sum_\mu y_\mu^2`, so the ``tol`` of
    :func:`run_gd` is a target for :math:`\mathcal{L} / \sum_\mu y_\mu^2`. The loss and its gradient use
    array-API functions of the parameters' namespace only (:mod:`solvable.backend`); the loss is summed in
    float64 whatever the precision of the parameters.

    References
    ----------
    Chapter 3, Sec. "Gradient descent on the factorised weights" (``eq-bsr-loss``); Chapter 4, Sec. "Gradient
    descent: a sampler of the posterior" (``eq-qn-gd-loss``).
    """

    measurement: Measurement
    parametrisation: Parametrisation
    y: np.ndarray

    def __post_init__(self):
        foreign = backend.is_non_numpy_array(self.y)
        y = check_array("y", backend.to_numpy(self.y) if foreign else self.y, ndim=1)
        if not math.isfinite(float(y @ y)):
            raise InvalidParameterError("y must have a finite sum of squares")
        if float(y @ y) == 0.0:
            raise InvalidParameterError("y must not be identically zero (the relative loss is loss/sum(y^2))")
        if foreign:
            xp = backend.namespace(self.y)
            y = self.y if xp.isdtype(self.y.dtype, "real floating") else xp.astype(self.y, xp.float64)
        object.__setattr__(self, "y", y)

    @property
    def loss_scale(self) -> float:
        """Denominator of the relative training loss, ``sum(y**2)``."""
        y = np.asarray(backend.to_numpy(self.y), dtype=float)
        return float(y @ y)

    def matrix(self, params):
        return self.parametrisation.matrix(params)

    def loss_and_gradient(self, params):
        S = self.parametrisation.matrix(params)
        xp = backend.namespace(S)
        y = self.y if self.y.dtype == S.dtype else xp.astype(self.y, S.dtype)
        res = self.measurement.forward(S) - y
        res64 = res if res.dtype == xp.float64 else xp.astype(res, xp.float64)
        loss = 0.25 * xp.sum(res64 * res64, axis=-1)
        return loss, self.parametrisation.pullback(params, self.measurement.adjoint(0.5 * res))


@record
class GDResult:
    r"""Outcome of :func:`run_gd`: ``J`` initialisations trained on the same data.

    Parameters
    ----------
    estimates : array of shape (J, \*shape)
        The final matrix ``S_k`` of each run.
    average : array of shape (\*shape)
        Averaged GD, ``mean_k S_k``.
    errors : array of shape (J,)
        Error of each ``S_k`` against the target (NaN without a target).
    average_error : float
        Error of ``average`` against the target (NaN without a target).
    losses : array of shape (J,)
        Final relative training loss ``loss_k / loss_scale`` of each run (for :class:`SquareLoss`,
        the loss over ``sum(y**2)``).
    iterations : array of int, shape (J,)
        Steps taken by each run (a run stops once its relative loss is below ``tol``).
    converged : array of bool, shape (J,)
        Whether each run reached ``tol``.
    message : str
        Why the runs stopped, with the numbers (``tol``, the cap, the largest final relative loss); at the cap, the
        warning's text.
    loss_history : array of shape (T, J)
        Relative training loss every ``record_every`` steps (row 0 at step 0).
    error_history : array of shape (T, J) or None
        Error of each run against the target at the same steps (NaN without a target); with
        ``loss_history`` it shows what early stopping at a given training loss would have given.
    """

    estimates: np.ndarray = field(repr=False)
    average: np.ndarray = field(repr=False)
    errors: np.ndarray
    average_error: float
    losses: np.ndarray
    iterations: np.ndarray
    converged: np.ndarray
    message: str
    loss_history: np.ndarray = field(repr=False)
    error_history: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_inits(self) -> int:
        """Number of runs ``J``."""
        return self.estimates.shape[0]

    @property
    def error(self) -> float:
        """Mean error of a single run, ``mean_k errors_k``."""
        return float(np.mean(self.errors))


def _mean_square_error(estimates, target):
    """Per-entry error ``mean((S_k - target)^2)`` over the matrix axes, one value per run (any namespace)."""
    xp = backend.namespace(estimates, target)
    diff = estimates - target
    return xp.mean(diff * diff, axis=tuple(range(1, diff.ndim)))


@declare(
    measurement=MEASUREMENT,
    parametrisation=PARAMETRISATION,
    y=DEVICE_LABELS,
    params=unchecked("a non-empty tuple of arrays with a leading (J) axis, checked by the body"),
)
def loss_and_gradient(measurement: Measurement, parametrisation: Parametrisation, y, params):
    r"""Square loss of each of ``J`` runs and its gradient with respect to the factors.

    The loss and gradient of :class:`SquareLoss` without building the objective by hand.

    Parameters
    ----------
    measurement : Measurement
        The linear map ``M`` (``forward``, ``adjoint``).
    parametrisation : Parametrisation
        The factorisation ``S(params)`` (``matrix``, ``pullback``).
    y : array of shape (n,)
        The labels.
    params : tuple of arrays
        The factors, each with a leading axis of ``J`` runs.

    Returns
    -------
    loss : ndarray of shape (J,)
        :math:`\mathcal{L} = \sum_\mu (\hat y_\mu - y_\mu)^2 / 4` of each run.
    grads : tuple of ndarrays
        The gradient, shaped like ``params``.

    Raises
    ------
    TypeError
        If ``params`` is not a non-empty tuple or list of arrays, or an interface is incomplete.
    ValueError
        If ``y`` is not a finite, not identically zero, one-dimensional array, or an array of ``params`` is not
        finite.

    Notes
    -----
    :math:`\partial\mathcal{L}/\partial S = M^\top((\hat y - y)/2)`, pulled back through the parametrisation:
    :math:`\partial\mathcal{L}/\partial\theta = (\partial S/\partial\theta)^\top\,
    \partial\mathcal{L}/\partial S`.
    """
    objective = SquareLoss(measurement, parametrisation, y)
    if not isinstance(params, (tuple, list)) or len(params) == 0:
        raise InvalidParameterError("params must be a non-empty tuple of arrays with a leading (J) axis")
    params = tuple(check_array("params", p) for p in params)
    return objective.loss_and_gradient(params)


def _initial_parameters(params0, dtype):
    """``(xp, params)``: the initial parameters copied in ``dtype``, in their array namespace (NumPy for NumPy
    arrays and array_likes, or one other array-API library), checked: real, finite, a shared leading axis."""
    if not isinstance(params0, (tuple, list)) or len(params0) == 0:
        raise InvalidParameterError(
            "params0 must be a non-empty tuple of arrays with a leading (J) axis, got "
            f"{type(params0).__name__}"
        )
    foreign = [backend.is_non_numpy_array(p) for p in params0]
    if any(foreign) and not all(foreign):
        raise InvalidParameterError(
            "params0 mixes NumPy arrays (or array_likes) with arrays of another library "
            f"({[type(p).__name__ for p in params0]}): give all of them in one namespace"
        )
    if all(foreign):  # run in their namespace, on their device
        try:
            xp = backend.namespace(*params0)
        except TypeError as err:
            raise InvalidParameterError(f"params0 arrays must belong to one array library: {err}") from None
        for k, p in enumerate(params0):
            if not xp.isdtype(p.dtype, ("real floating", "integral")):
                raise InvalidParameterError(f"params0[{k}] must hold real numbers, got dtype {p.dtype}")
        params = tuple(xp.astype(p, getattr(xp, dtype.name), copy=True) for p in params0)
    else:
        params = tuple(
            np.array(check_array(f"params0[{k}]", p, finite=False), dtype=dtype, copy=True)
            for k, p in enumerate(params0)
        )
        xp = backend.namespace(*params)
    if any(p.ndim < 1 for p in params) or not all(bool(xp.all(xp.isfinite(p))) for p in params):
        raise InvalidParameterError("params0 must be arrays of finite numbers with a leading (J) axis")
    J = params[0].shape[0]
    if J < 1 or any(p.shape[0] != J for p in params):
        raise InvalidParameterError(
            f"params0 arrays must share their leading (J) axis, got shapes {[tuple(p.shape) for p in params]}"
        )
    return xp, params


@declare(
    objective=unchecked("an Objective instance (loss_and_gradient, matrix, loss_scale), checked by the body"),
    params0=unchecked("a tuple of arrays with a leading (J) axis, checked against the objective by the body"),
    lr=optional(LEARNING_RATE, "give optimiser instead"),
    optimiser=unchecked("an optimiser instance (GradientStep, Adam), or None with lr: checked by the body"),
    tol=GD_CONTROLS["tol"],
    max_steps=GD_CONTROLS["max_steps"],
    record_every=GD_CONTROLS["record_every"],
    target=unchecked("the teacher's matrix, shaped like one estimate: checked against the objective"),
    error=optional(function(), "the mean square error"),
    dtype=DTYPE,
)
def run_gd(
    objective: Objective,
    params0,
    *,
    lr: float | None = None,
    optimiser: Optimiser | None = None,
    tol: float = 1e-6,
    max_steps: int = 50_000,
    record_every: int = 10,
    target=None,
    error: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    warn: bool = True,
    dtype=np.float64,
) -> GDResult:
    """Full-batch descent on a batched objective for ``J`` initialisations at once: the one optimiser loop.

    Each step computes ``loss, grads = objective.loss_and_gradient(params)`` for all runs in one batched
    computation, then ``params, state = optimiser.step(params, grads, state, t)``. A run whose relative loss
    ``loss / objective.loss_scale`` is below ``tol`` is frozen: its parameters stop moving and the following
    steps compute on the runs still active only. The loop ends when every run is frozen or after ``max_steps``.

    Parameters
    ----------
    objective : Objective
        The batched loss, e.g. :class:`SquareLoss`.
    params0 : tuple of arrays
        Initial parameters, each with a leading axis of ``J`` runs (copied, not modified). NumPy arrays (or
        array_likes), or arrays of one other array-API library (PyTorch, CuPy, ``array_api_strict``), on any
        device: the descent then runs in that namespace, on that device, with the objective's data there too.
    lr : float, optional
        Learning rate of plain gradient descent, > 0 (shorthand for ``optimiser=GradientStep(lr)``). Give exactly
        one of ``lr`` and ``optimiser``.
    optimiser : Optimiser, optional
        :class:`GradientStep` or :class:`Adam`.
    tol : float, default 1e-6
        Target of the relative training loss, in [0, 1); ``0`` runs exactly ``max_steps`` steps and never warns
        about convergence.
    max_steps : int, default 50000
        Cap on the number of steps, >= 0.
    record_every : int, default 10
        Period, in steps, of ``loss_history`` and ``error_history``, >= 1.
    target : array, optional
        The teacher's matrix ``S*``; with it, ``error(estimates, target)`` gives ``errors`` and ``error_history``.
        Moved to the device of the parameters, in float64.
    error : callable, optional
        ``error(S, target)`` -> one error per run for matrices ``S`` of shape ``(J, *shape)``, both float64
        arrays of the parameters' namespace (NumPy arrays for NumPy parameters); default: the per-entry mean
        square error ``mean((S_k - target)**2)``.
    warn : bool, default True
        Whether to warn (:class:`~solvable.errors.ConvergenceWarning`) when runs are still above ``tol`` at
        ``max_steps``.
    dtype : {numpy.float64, numpy.float32}, default numpy.float64
        Precision of the parameters and of the products (the namespace's type of that name). With ``float32``
        the measurement must keep float32 inputs in float32 (:class:`solvable.bsr.BilinearMap` built on a
        float32 design does); losses and errors are accumulated in float64 either way. On a GPU float32 is the
        fast path.

    Returns
    -------
    GDResult
        Final matrices, their average, errors, relative losses, step counts and histories: NumPy arrays on the
        host whatever the device.

    Raises
    ------
    TypeError
        If ``objective`` or ``optimiser`` lacks a method of its interface or is a class instead of an instance,
        ``error`` is not callable, ``params0`` is not a non-empty tuple of arrays of real numbers, or ``target``
        is not an array of real numbers.
    ValueError
        If both or neither of ``lr`` and ``optimiser`` are given, a parameter is out of range, ``params0`` is not
        finite, mixes array libraries, does not share its leading axis or does not fit the objective (its
        gradient shaped otherwise, or an error from the first evaluation), ``target`` is not finite or not
        shaped as one estimate, or ``error`` does not return one number per run (or returns NaN).
    DivergenceError
        If the loss or the final weights become non-finite (with the step number).

    Warns
    -----
    ConvergenceWarning
        When runs are still above ``tol`` after ``max_steps`` steps (with ``warn``), and when a run ends with a
        larger training loss than it started with (the step is too large: a saturated softmax, for example,
        can stop learning with exploded weights and a finite loss).

    Notes
    -----
    One step is array-API calls on the parameters' device; the ``J`` losses come to the host (NumPy) for the
    stopping rule and the histories, and the runs still active are selected with a boolean mask. Check
    ``losses`` before reading off errors: a too-large step can bounce at a relative loss well above ``tol``
    without diverging. With ``float32`` a relative loss of ``tol = 1e-6`` means residuals of relative
    size 1e-3, far above the float32 rounding (1e-7); along the flat directions of the loss the rounding moves
    each run slightly, so per-run errors differ slightly from float64 ones.

    References
    ----------
    Chapter 3, Sec. "Gradient descent on the factorised weights"; Erba et al., "Bilinear sequence regression",
    arXiv:2410.18858 (averaged GD).

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import bsr, gd
    >>> data = bsr.sample(10, 1.0, beta=1.0, rho=0.2, rng=0)
    >>> objective = gd.SquareLoss(bsr.BilinearMap(data.X), gd.LowRankProduct(data.r), data.y)
    >>> rng = np.random.default_rng(1)
    >>> params0 = (rng.standard_normal((3, 10, 2)), rng.standard_normal((3, 10, 2)))
    >>> res = gd.run_gd(objective, params0, lr=0.1, tol=1e-8, target=data.S_star)
    >>> print(res.converged, bool(np.all(res.errors < 1e-5)))
    [ True  True  True] True
    """
    if isinstance(objective, type):
        raise InvalidParameterError(f"objective must be an instance, got the class {objective.__name__}")
    check_interface("objective", objective, "loss_and_gradient", "matrix")
    if not hasattr(objective, "loss_scale"):
        raise InvalidParameterError(f"objective must have a loss_scale, got {type(objective).__name__}")
    if (lr is None) == (optimiser is None):
        raise InvalidParameterError("give exactly one of lr (plain gradient descent) and optimiser")
    if optimiser is None:
        optimiser = GradientStep(lr)
    elif isinstance(optimiser, type):
        raise InvalidParameterError(
            f"optimiser must be an optimiser instance, got the class {optimiser.__name__} "
            f"(write {optimiser.__name__}(lr=...))"
        )
    elif not (callable(getattr(optimiser, "init", None)) and callable(getattr(optimiser, "step", None))):
        raise InvalidParameterError(
            f"optimiser must be a solvable.gd optimiser (GradientStep, Adam), got {optimiser!r:.60}"
        )
    dtype = np.dtype(dtype)  # the default as given (an argument was converted by its domain)
    xp, params = _initial_parameters(params0, dtype)
    J = params[0].shape[0]
    dev = array_api_compat.device(params[0])
    scale = float(objective.loss_scale)
    if not (math.isfinite(scale) and scale > 0):
        raise InvalidParameterError(f"objective.loss_scale must be finite and > 0, got {scale!r}")
    fixed_length = tol == 0.0
    try:  # the first evaluation tells whether params0 fits the objective
        S0 = objective.matrix(params)
        loss, grads = objective.loss_and_gradient(params)
    except (ValueError, TypeError, IndexError, RuntimeError) as err:
        raise InvalidParameterError(
            f"params0 (shapes {[tuple(p.shape) for p in params]}) do not fit the objective "
            f"{type(objective).__name__}: {err}"
        ) from err
    grads = tuple(grads) if isinstance(grads, (tuple, list)) else None
    if (
        grads is None
        or len(grads) != len(params)
        or any(tuple(g.shape) != tuple(p.shape) for g, p in zip(grads, params))
    ):
        raise InvalidParameterError(
            f"params0 (shapes {[tuple(p.shape) for p in params]}) do not fit the objective "
            f"{type(objective).__name__}: its gradient is not shaped like the parameters"
        )
    loss = np.array(backend.to_numpy(loss), dtype=float)
    if loss.shape != (J,) or S0.ndim < 1 or S0.shape[0] != J:
        raise InvalidParameterError(
            f"params0: the objective {type(objective).__name__} gives losses of shape {loss.shape} "
            f"and matrices of shape {tuple(S0.shape)} for J = {J} runs (expected ({J},) and "
            f"({J}, ...))"
        )
    if target is not None:
        host = check_array(
            "target", backend.to_numpy(target) if backend.is_non_numpy_array(target) else target
        )
        if tuple(host.shape) != tuple(S0.shape[1:]):
            raise InvalidParameterError(
                f"target must have the shape of one estimate, {tuple(S0.shape[1:])}, got {tuple(host.shape)}"
            )
        target = xp.asarray(host, device=dev)
        err_fn = _mean_square_error if error is None else error

        def errors_of(S):  # on the device, in float64; J numbers come back to the host
            S = S if S.dtype == xp.float64 else xp.astype(S, xp.float64)
            out = np.asarray(backend.to_numpy(err_fn(S, target)), dtype=float)
            if out.shape != (S.shape[0],):
                raise InvalidParameterError(
                    f"error must return one number per run, shape ({S.shape[0]},); got shape {out.shape}"
                )
            if np.any(np.isnan(out)):
                raise InvalidParameterError("error returned NaN for finite estimates and target")
            return out
    else:

        def errors_of(S):
            return np.full(S.shape[0], np.nan)

    state = tuple(optimiser.init(params))
    first = loss / scale
    active = np.ones(J, dtype=bool)
    steps = np.zeros(J, dtype=int)
    history, error_history = [], []
    step = 0
    while True:
        rel = loss / scale
        if not np.all(np.isfinite(rel)):
            raise DivergenceError(f"gradient descent diverged at step {step} (non-finite loss; lower lr)")
        if step % record_every == 0:
            history.append(rel.copy())
            error_history.append(errors_of(objective.matrix(params)))
        if not fixed_length:
            active &= rel >= tol
        if not active.any() or step == max_steps:
            break
        if active.all():  # one batched step over all J runs
            params, state = optimiser.step(params, grads, state, step)
            loss, grads = objective.loss_and_gradient(params)
            loss = np.array(backend.to_numpy(loss), dtype=float)
        else:  # frozen runs keep their parameters and state: compute on the active ones only (boolean masks)
            mask = xp.asarray(active, device=dev)
            sub, sub_state = optimiser.step(
                tuple(p[mask] for p in params),
                tuple(g[mask] for g in grads),
                tuple(s[mask] for s in state),
                step,
            )
            for p, q in zip(params, sub):
                p[mask] = q
            for s_all, s_sub in zip(state, sub_state):
                s_all[mask] = s_sub
            loss_a, grads_a = objective.loss_and_gradient(sub)
            loss[active] = backend.to_numpy(loss_a)
            for g, g_a in zip(grads, grads_a):
                g[mask] = g_a
        steps += active
        step += 1
    rel = loss / scale
    converged = rel < tol if not fixed_length else np.zeros(J, dtype=bool)
    if fixed_length:
        message = (
            f"gradient descent ran its fixed {max_steps} steps (tol = 0: no stopping test; relative loss up "
            f"to {rel.max():.2e})"
        )
    elif converged.all():
        message = (
            f"gradient descent converged: all {J} runs below tol {tol:.1e} in {int(steps.min())} to "
            f"{int(steps.max())} steps (relative loss up to {rel.max():.2e})"
        )
    else:
        message = (
            f"gradient descent stopped at its cap of {max_steps} steps with {int((~converged).sum())} of {J} "
            f"runs above tol {tol:.1e} (relative loss up to {rel.max():.2e})"
        )
        if warn:
            warn_user(message, ConvergenceWarning)
    if max_steps > 0 and np.any(rel > first):
        warn_user(
            f"{int(np.sum(rel > first))} of {J} runs ended with a larger training loss than they started with "
            f"(up to {rel.max():.2e} against {first.max():.2e}): the step is too large (lower lr)",
            ConvergenceWarning,
        )
    S = objective.matrix(params)
    S = S if S.dtype == xp.float64 else xp.astype(S, xp.float64)
    if not bool(xp.all(xp.isfinite(S))):
        raise DivergenceError(f"gradient descent diverged: non-finite weights after {step} steps (lower lr)")
    average = xp.mean(S, axis=0)
    errors = errors_of(S)
    average_error = float(errors_of(xp.expand_dims(average, axis=0))[0]) if target is not None else math.nan
    S, average = backend.to_numpy(S), backend.to_numpy(average)
    return GDResult(
        estimates=S,
        average=average,
        errors=errors,
        average_error=average_error,
        losses=rel,
        iterations=steps,
        converged=converged,
        message=message,
        loss_history=np.array(history),
        error_history=np.array(error_history),
    )


@declare(
    GD_CONTROLS,
    objective=function(),
    init=function(),
    default_lr=optional(function(), "lr must be given"),
    target=unchecked("the teacher's matrix, shaped like one estimate: checked by run_gd"),
    error=optional(function(), "the mean square error"),
    size=optional(function(), "no size check"),
)
def fit_students(
    objective: Callable,
    init: Callable,
    *,
    n_inits: int,
    optimiser: str = "gd",
    lr: float | None = None,
    default_lr: Callable[[str], float] | None = None,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    tol: float = 1e-6,
    max_steps: int = 50_000,
    record_every: int = 10,
    warn: bool = True,
    dtype=np.float64,
    device: str = "cpu",
    rng,
    target=None,
    error: Callable | None = None,
    size: Callable[[int, np.dtype], object] | None = None,
) -> GDResult:
    r"""The gradient-descent front end of every model: the controls checked once, the students drawn, the loop run.

    A model's ``gd`` says only what is its own (the objective, the parametrisation drawn at the start, a default
    step size, the count of its arrays, a rule for divergence) and passes the user's controls through; this
    function validates them, draws the ``n_inits`` initialisations in NumPy from the ``"init"`` stream of ``rng``
    (:func:`solvable.streams.stream`), moves them and the data to ``device`` and runs :func:`run_gd`.

    Parameters
    ----------
    objective : callable
        ``objective(xp, dev, dtype) -> Objective``: the model's batched loss with its data in the array namespace
        ``xp`` on the device ``dev`` (:func:`solvable.backend.resolve`), in the precision ``dtype``.
    init : callable
        ``init(rng, n_inits) -> tuple of numpy.ndarray``: the initial parameters, each with a leading axis of
        ``n_inits`` runs, drawn from the generator ``rng``.
    n_inits : int
        Number of initialisations ``J``, ``>= 1``.
    optimiser : {"gd", "adam"}, default "gd"
        :class:`GradientStep` or :class:`Adam` (with ``betas`` and ``eps``).
    lr : float or None, optional
        Step size, ``> 0``; ``None`` asks ``default_lr(optimiser)``.
    default_lr : callable, optional
        ``default_lr(optimiser) -> float``, the model's step size when ``lr`` is ``None``; without it ``lr`` is
        required.
    betas : tuple of float, default (0.9, 0.999)
        Adam's ``(beta1, beta2)``, each in ``[0, 1)``.
    eps : float, default 1e-8
        Adam's ``eps``, ``> 0``.
    tol : float, default 1e-6
        Target of the relative training loss, in ``[0, 1)`` (:func:`run_gd`; ``0``: exactly ``max_steps`` steps).
    max_steps : int, default 50000
        Cap on the steps, ``>= 0``.
    record_every : int, default 10
        Period of the histories, ``>= 1``.
    warn : bool, default True
        ``False`` silences every :class:`~solvable.errors.ConvergenceWarning` of the run (the cap and a final
        loss above the initial one); read ``converged`` and ``losses`` instead.
    dtype : {numpy.float64, numpy.float32}, default numpy.float64
        Precision of the parameters and of the products.
    device : {"cpu", "cuda", "auto"}, default "cpu"
        Where the descent runs (:func:`solvable.backend.resolve`).
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the initialisations: its ``"init"`` stream (:func:`solvable.streams.stream`), so that a seed
        also given to the sampler never makes a student the teacher; a generator is used as it is.
    target : array, optional
        The teacher's matrix, for the errors (:func:`run_gd`).
    error : callable, optional
        ``error(S, target)``, one error per run (:func:`run_gd`).
    size : callable, optional
        ``size(n_inits, dtype)``: the model's count of its arrays (:func:`solvable.validation.check_size`),
        called once the controls are checked and before anything is drawn.

    Returns
    -------
    GDResult
        As :func:`run_gd`, NumPy arrays on the host.

    Raises
    ------
    TypeError
        If a control has the wrong type (``warn`` not a bool, ``dtype`` not a floating type, ``rng`` not a
        random source), or ``objective``/``init`` is not callable.
    ValueError
        If a control is out of its domain, the arrays exceed the size limit, or ``device="cuda"`` finds no GPU
        library.
    DivergenceError
        If a run diverges (:func:`run_gd`).

    Notes
    -----
    The draws are made in NumPy whatever the device (the same numbers on every device), then moved with
    :func:`solvable.backend.asarray`; the same controls of two models are checked by the same lines, so they
    accept and refuse the same values.

    References
    ----------
    Chapter 3, Sec. "Gradient descent on the factorised weights"; Chapter 4, Sec. "Gradient descent: a sampler of
    the posterior"; Chapter 5, Sec. "Gradient descent on the tied attention layer".
    """
    K = n_inits
    if lr is None:
        if default_lr is None:
            raise InvalidParameterError("lr must be a number > 0 (this model has no default step size)")
        lr = default_lr(optimiser)
    try:
        b1, b2 = betas
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"betas must be a pair (beta1, beta2) in [0, 1), got {betas!r:.60}"
        ) from None
    b1 = check_in_range("betas[0]", b1, 0.0, 1.0, high_open=True)
    b2 = check_in_range("betas[1]", b2, 0.0, 1.0, high_open=True)
    step = Adam(lr, beta1=b1, beta2=b2, eps=eps) if optimiser == "adam" else GradientStep(lr)
    dtype = np.dtype(dtype)
    if size is not None:
        size(K, dtype)
    xp, dev = backend.resolve(device)
    params0 = tuple(backend.asarray(p, xp, dev, dtype) for p in init(rng, K))
    loss = objective(xp, dev, dtype)
    with warnings.catch_warnings():
        if not warn:
            warnings.simplefilter("ignore", ConvergenceWarning)
        return run_gd(
            loss,
            params0,
            optimiser=step,
            tol=tol,
            max_steps=max_steps,
            record_every=record_every,
            target=target,
            error=error,
            warn=warn,
            dtype=dtype,
        )
