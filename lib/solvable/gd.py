"""Gradient descent and Adam on factorised weights: one optimiser loop for every model of the course.

A student that learns a matrix ``S`` through a factorisation (``S = U V^T/sqrt(r)`` in bilinear sequence
regression, ``S = W^T W/sqrt(m d)`` in quadratic networks, ``S = W W^T/sqrt(r d)`` for attention) is trained by
full-batch descent on a loss. :func:`run_gd` needs only

- an **objective** (:class:`Objective`): ``loss_and_gradient(params) -> (loss, grads)`` and
  ``matrix(params) -> S``, batched over a leading axis of ``K`` independent runs, and ``loss_scale``, the
  denominator of the relative training loss that ``tol`` is compared with;
- an **optimiser step** (:class:`Optimiser`): :class:`GradientStep` (``params -= lr * grad``) or :class:`Adam`.

The square loss of the matrix-sensing models is the objective :class:`SquareLoss`,

    loss(params) = sum_mu (y_hat_mu - y_mu)^2 / 4,      y_hat = M(S(params)),                       (1)

whose gradient the chain rule splits into the two parts that change between models,

    dloss/dS = M^T((y_hat - y)/2),     dloss/dparams = (dS/dparams)^T dloss/dS:

- a **measurement** ``M`` (:class:`Measurement`): ``forward(S) -> y_hat`` and ``adjoint(r) -> S-shaped``,
  batched (e.g. :class:`solvable.bsr.BilinearMap`);
- a **parametrisation** (:class:`Parametrisation`): ``matrix(params) -> S`` and
  ``pullback(params, G) -> dloss/dparams`` given ``G = dloss/dS``, also batched
  (:class:`LowRankProduct` for BSR, :class:`SymmetricSquare` for quadratic networks).
The softmax students of the attention-indexed model are another objective
(``solvable.attention.StudentLoss``) on the same loop.

``K`` initialisations on the same data run as ONE batched computation per step (one matrix product per
operation, no Python loop over samples or initialisations); averaging their final ``S`` gives "averaged GD"
(Erba, Troiani, Biggio, Maillard, Zdeborova, arXiv:2410.18858; ``science/bsr.md``, Sec. 6).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .errors import ConvergenceWarning, DivergenceError
from .validation import check_array, check_in_range, check_int, check_interface, check_positive, check_tol

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
]


class Objective(Protocol):
    """A batched training loss: ``loss_and_gradient(params) -> (loss (K,), grads like params)``,
    ``matrix(params) -> (K, *shape)`` (the learned matrix, for errors and averaging) and ``loss_scale > 0``
    (the relative training loss is ``loss/loss_scale``)."""

    loss_scale: float

    def loss_and_gradient(self, params): ...

    def matrix(self, params): ...


class Optimiser(Protocol):
    """An optimiser step on batched parameters: ``init(params) -> state`` (a tuple of arrays with the leading
    ``K`` axis) and ``step(params, grads, state, t) -> (params, state)`` at step ``t = 0, 1, ...``."""

    def init(self, params): ...

    def step(self, params, grads, state, t): ...


@dataclass(frozen=True)
class GradientStep:
    """Plain gradient descent, ``params <- params - lr * grad``."""

    lr: float

    def __post_init__(self):
        check_positive("lr", self.lr)

    def init(self, params):
        return ()

    def step(self, params, grads, state, t):
        return tuple(p - self.lr * g for p, g in zip(params, grads)), state


@dataclass(frozen=True)
class Adam:
    """Adam (Kingma and Ba, arXiv:1412.6980) with constant ``lr``, elementwise, so each run has its own moments:
    ``m <- b1 m + (1 - b1) g``, ``v <- b2 v + (1 - b2) g^2``,
    ``params <- params - lr m_hat/(sqrt(v_hat) + eps)`` with ``m_hat = m/(1 - b1^(t+1))``,
    ``v_hat = v/(1 - b2^(t+1))``."""

    lr: float
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8

    def __post_init__(self):
        check_positive("lr", self.lr)
        check_in_range("beta1", self.beta1, 0.0, 1.0, high_open=True)
        check_in_range("beta2", self.beta2, 0.0, 1.0, high_open=True)
        check_positive("eps", self.eps)

    def init(self, params):
        return tuple(np.zeros_like(p) for p in params) * 2

    def step(self, params, grads, state, t):
        P = len(params)
        mom, vel = state[:P], state[P:]
        mom = tuple(self.beta1 * m + (1.0 - self.beta1) * g for m, g in zip(mom, grads))
        vel = tuple(self.beta2 * v + (1.0 - self.beta2) * g * g for v, g in zip(vel, grads))
        c1, c2 = 1.0 - self.beta1 ** (t + 1), 1.0 - self.beta2 ** (t + 1)
        new = tuple(p - self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps) for p, m, v in zip(params, mom, vel))
        return new, mom + vel


class Measurement(Protocol):
    """A linear map of a batch of matrices: ``forward((K, *shape)) -> (K, n)``, ``adjoint((K, n)) -> (K, *shape)``."""

    def forward(self, S): ...

    def adjoint(self, g): ...


class Parametrisation(Protocol):
    """``matrix(params) -> (K, *shape)`` and ``pullback(params, G) -> tuple of gradients like params``."""

    def matrix(self, params): ...

    def pullback(self, params, G): ...


@dataclass(frozen=True)
class LowRankProduct:
    """``S = U V^T/sqrt(r)`` with ``U`` ``(K, d, r)``, ``V`` ``(K, L, r)`` (bilinear sequence regression).

    ``dloss/dU = G V/sqrt(r)``, ``dloss/dV = G^T U/sqrt(r)`` for ``G = dloss/dS``.
    """

    r: int

    def __post_init__(self):
        object.__setattr__(self, "r", check_int("r", self.r))

    def matrix(self, params):
        U, V = params
        return np.matmul(U, np.swapaxes(V, -1, -2)) / math.sqrt(self.r)

    def pullback(self, params, G):
        U, V = params
        s = 1.0 / math.sqrt(self.r)
        return np.matmul(G, V) * s, np.matmul(np.swapaxes(G, -1, -2), U) * s


@dataclass(frozen=True)
class SymmetricSquare:
    """``S = W^T W/sqrt(m d)`` with ``W`` ``(K, m, d)`` (quadratic networks, paper normalisation).

    ``dloss/dW = W (G + G^T)/sqrt(m d)``.
    """

    m: int
    d: int

    def __post_init__(self):
        object.__setattr__(self, "m", check_int("m", self.m))
        object.__setattr__(self, "d", check_int("d", self.d))

    def matrix(self, params):
        (W,) = params
        return np.matmul(np.swapaxes(W, -1, -2), W) / math.sqrt(self.m * self.d)

    def pullback(self, params, G):
        (W,) = params
        return (np.matmul(W, G + np.swapaxes(G, -1, -2)) / math.sqrt(self.m * self.d),)


@dataclass(frozen=True)
class SquareLoss:
    """The square loss (1) of a measurement of a factorised matrix, as an :class:`Objective` for :func:`run_gd`.

    ``loss_scale = sum(y^2)``: ``tol`` is a target for ``loss/sum(y^2)``.
    """

    measurement: Measurement
    parametrisation: Parametrisation
    y: np.ndarray

    def __post_init__(self):
        check_interface("measurement", self.measurement, "forward", "adjoint")
        check_interface("parametrisation", self.parametrisation, "matrix", "pullback")
        y = check_array("y", self.y, ndim=1)
        if not math.isfinite(float(y @ y)):
            raise ValueError("y must have a finite sum of squares")
        if float(y @ y) == 0.0:
            raise ValueError("y must not be identically zero (the relative loss is loss/sum(y^2))")
        object.__setattr__(self, "y", y)

    @property
    def loss_scale(self) -> float:
        return float(np.asarray(self.y, dtype=float) @ np.asarray(self.y, dtype=float))

    def matrix(self, params):
        return self.parametrisation.matrix(params)

    def loss_and_gradient(self, params):
        S = self.parametrisation.matrix(params)
        res = self.measurement.forward(S) - self.y.astype(S.dtype, copy=False)
        loss = 0.25 * np.einsum("kn,kn->k", res, res, dtype=np.float64)
        return loss, self.parametrisation.pullback(params, self.measurement.adjoint(0.5 * res))


@dataclass(frozen=True)
class GDResult:
    """Outcome of :func:`run_gd` (``K`` initialisations on the same data).

    Attributes
    ----------
    estimates : (K, *shape) final ``S_k``.
    average : (*shape) averaged GD, ``mean_k S_k``.
    errors : (K,) error of each ``S_k`` against the target (NaN without a target).
    average_error : error of ``average`` (NaN without a target).
    losses : (K,) final relative training loss ``loss_k/loss_scale`` (for the square loss, eq. (1) over
        ``sum(y^2)``).
    steps : (K,) steps taken by each run (a run stops once below ``tol``).
    converged : (K,) whether each run reached ``tol``.
    loss_history : (T, K) relative training loss every ``record_every`` steps (row 0 at step 0).
    error_history : (T, K) error of each run against the target at the same steps (NaN without a target);
        with ``loss_history`` it shows what early stopping at a given training loss would have given.
    """

    estimates: np.ndarray = field(repr=False)
    average: np.ndarray = field(repr=False)
    errors: np.ndarray
    average_error: float
    losses: np.ndarray
    steps: np.ndarray
    converged: np.ndarray
    loss_history: np.ndarray = field(repr=False)
    error_history: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_inits(self) -> int:
        return self.estimates.shape[0]

    @property
    def error(self) -> float:
        """Mean error of a single run, ``mean_k errors_k``."""
        return float(np.mean(self.errors))


def _mean_square_error(estimates, target):
    """Per-entry error ``mean((S_k - target)^2)`` over the matrix axes, one value per run."""
    diff = estimates - target
    return np.mean(diff * diff, axis=tuple(range(1, diff.ndim)))


def loss_and_gradient(measurement: Measurement, parametrisation: Parametrisation, y, params):
    """Loss (1) of each of the ``K`` runs, shape (K,), and its gradient with respect to ``params`` (a tuple
    shaped like ``params``): ``dloss/dS = M^T((y_hat - y)/2)`` pulled back through the parametrisation."""
    objective = SquareLoss(measurement, parametrisation, y)
    if not isinstance(params, (tuple, list)) or len(params) == 0:
        raise TypeError("params must be a non-empty tuple of arrays with a leading (K) axis")
    params = tuple(check_array("params", p) for p in params)
    return objective.loss_and_gradient(params)


def run_gd(objective: Objective, params0, *, lr: float | None = None, optimiser: Optimiser | None = None,
           tol: float = 1e-6, max_steps: int = 50_000, record_every: int = 10, target=None,
           error: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None, warn: bool = True,
           dtype=np.float64) -> GDResult:
    """Full-batch descent on ``objective`` for ``K`` initialisations at once: the one optimiser loop.

    Each step: ``loss, grads = objective.loss_and_gradient(params)`` (batched), then
    ``params, state = optimiser.step(params, grads, state, t)``. A run whose relative loss
    ``loss/objective.loss_scale`` is below ``tol`` is frozen: its parameters stop moving and the following steps
    are one batched computation over the runs still active only (near ``alpha_PR`` the slowest of ``K`` runs
    can need several times the median number of steps). The loop ends when every run is frozen or after
    ``max_steps``; in the latter case a :class:`~solvable.errors.ConvergenceWarning` gives the step count and
    the number of runs still above ``tol``. A run that ends with a larger loss than it started with also warns
    (the step is too large: a saturated softmax, for example, can stop learning with exploded weights and a
    finite loss). Always check ``losses`` before reading off errors: a too-large step can bounce at a relative
    loss of 1e-2 without diverging (``science/bsr.md``, Sec. 6).

    Parameters
    ----------
    objective : Objective
        E.g. :class:`SquareLoss` (module docstring).
    params0 : tuple of arrays with leading axis K
        Initial parameters (copied).
    lr : float > 0, optional
        Learning rate of plain gradient descent (shorthand for ``optimiser=GradientStep(lr)``).
    optimiser : Optimiser, optional
        :class:`GradientStep` or :class:`Adam`; give exactly one of ``lr`` and ``optimiser``.
    tol : float in [0, 1)
        Relative training-loss target (``0``: run ``max_steps`` steps, no convergence warning).
    max_steps : int >= 0
    record_every : int >= 1
        Period of ``loss_history``.
    target : array, optional
        The teacher's ``S*``; ``error(estimates, target)`` gives ``errors`` and ``error_history`` (default:
        per-entry mean square).
    dtype : numpy float dtype
        Precision of the parameters and of the products (default float64). ``np.float32`` halves the
        memory traffic and runs the large products about 1.7 times faster (single-threaded, BSR at
        ``d = L = 100``, ``K = 64``; no gain at ``d = L = 40``); the measurement must then keep float32
        inputs in float32 (:class:`solvable.bsr.BilinearMap` built on a float32 design does). Losses are
        accumulated and errors computed in float64; a relative loss of ``tol = 1e-6`` means residuals of
        relative size 1e-3, far above float32 rounding (1e-7). Along the flat directions of the loss the
        rounding moves each run slightly: measured at ``d = L = 40``, ``alpha = 0.3`` (thousands of steps),
        per-run errors differ by up to 0.03 (of 1.8) and averaged GD by 1e-4 from float64.

    Raises
    ------
    DivergenceError
        If the loss becomes non-finite (with the step number).
    """
    check_interface("objective", objective, "loss_and_gradient", "matrix")
    if not hasattr(objective, "loss_scale"):
        raise TypeError(f"objective must have a loss_scale, got {type(objective).__name__}")
    if (lr is None) == (optimiser is None):
        raise ValueError("give exactly one of lr (plain gradient descent) and optimiser")
    if optimiser is None:
        optimiser = GradientStep(check_positive("lr", lr))
    elif not (hasattr(optimiser, "init") and hasattr(optimiser, "step")):
        raise TypeError(f"optimiser must be a solvable.gd optimiser (GradientStep, Adam), got {optimiser!r}")
    tol = check_tol(tol)
    max_steps = check_int("max_steps", max_steps, minimum=0)
    record_every = check_int("record_every", record_every)
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    if not isinstance(params0, (tuple, list)) or len(params0) == 0:
        raise TypeError("params0 must be a non-empty tuple of arrays with a leading (K) axis")
    params = tuple(np.array(p, dtype=dtype, copy=True) for p in params0)
    if any(p.ndim < 1 for p in params) or not all(np.all(np.isfinite(p)) for p in params):
        raise ValueError("params0 must be arrays of finite numbers with a leading (K) axis")
    K = params[0].shape[0]
    if K < 1 or any(p.shape[0] != K for p in params):
        raise ValueError(f"params0 arrays must share their leading (K) axis, got shapes {[p.shape for p in params]}")
    scale = float(objective.loss_scale)
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"objective.loss_scale must be finite and > 0, got {scale!r}")
    fixed_length = tol == 0.0
    if target is not None:
        target = np.asarray(target, dtype=float)
        err_fn = _mean_square_error if error is None else error

        def errors_of(S):
            return np.asarray(err_fn(np.asarray(S, dtype=float), target), dtype=float)
    else:
        def errors_of(S):
            return np.full(S.shape[0], np.nan)

    state = tuple(optimiser.init(params))
    loss, grads = objective.loss_and_gradient(params)
    loss = np.array(loss, dtype=float)
    first = loss / scale
    active = np.ones(K, dtype=bool)
    steps = np.zeros(K, dtype=int)
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
        if active.all():  # one batched step over all K runs
            params, state = optimiser.step(params, grads, state, step)
            loss, grads = objective.loss_and_gradient(params)
            loss = np.array(loss, dtype=float)
        else:  # frozen runs keep their parameters and state: compute on the active ones only
            idx = np.flatnonzero(active)
            sub, sub_state = optimiser.step(tuple(p[idx] for p in params), tuple(g[idx] for g in grads),
                                            tuple(s[idx] for s in state), step)
            for p, q in zip(params, sub):
                p[idx] = q
            for s_all, s_sub in zip(state, sub_state):
                s_all[idx] = s_sub
            loss_a, grads_a = objective.loss_and_gradient(sub)
            loss[idx] = loss_a
            for g, g_a in zip(grads, grads_a):
                g[idx] = g_a
        steps += active
        step += 1
    rel = loss / scale
    converged = rel < tol if not fixed_length else np.zeros(K, dtype=bool)
    if warn and not fixed_length and not converged.all():
        warnings.warn(
            f"gradient descent stopped at its cap of {max_steps} steps with {int((~converged).sum())} of {K} "
            f"runs above tol {tol:.1e} (relative loss up to {rel.max():.2e})",
            ConvergenceWarning,
            stacklevel=2,
        )
    if max_steps > 0 and np.any(rel > first):
        warnings.warn(
            f"{int(np.sum(rel > first))} of {K} runs ended with a larger training loss than they started with "
            f"(up to {rel.max():.2e} against {first.max():.2e}): the step is too large (lower lr)",
            ConvergenceWarning,
            stacklevel=2,
        )
    S = np.asarray(objective.matrix(params), dtype=float)
    if not np.all(np.isfinite(S)):
        raise DivergenceError(f"gradient descent diverged: non-finite weights after {step} steps (lower lr)")
    average = S.mean(axis=0)
    errors = errors_of(S)
    average_error = float(errors_of(average[None])[0]) if target is not None else math.nan
    return GDResult(estimates=S, average=average, errors=errors, average_error=average_error, losses=rel,
                    steps=steps, converged=converged, loss_history=np.array(history),
                    error_history=np.array(error_history))
