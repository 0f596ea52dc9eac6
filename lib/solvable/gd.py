"""Gradient descent on factorised weights, for every matrix model of the course.

A student that learns a matrix ``S`` through a factorisation (``S = U V^T/sqrt(r)`` in bilinear sequence
regression, ``S = W^T W/sqrt(m d)`` in quadratic networks) and predicts through a linear map of ``S``
(``y_hat_mu = <X_mu, S>/sqrt(dL)``, resp. ``x_mu^T S x_mu/sqrt(d)``) is trained by plain full-batch gradient
descent on the square loss

    loss(params) = sum_mu (y_hat_mu - y_mu)^2 / 4,      y_hat = M(S(params)).                       (1)

The chain rule splits the gradient into the two parts that change between models:

    dloss/dS = M^T((y_hat - y)/2),     dloss/dparams = (dS/dparams)^T dloss/dS,

so :func:`run_gd` only needs

- a **measurement** ``M`` (:class:`Measurement`): ``forward(S) -> y_hat`` and ``adjoint(r) -> S-shaped``,
  batched over a leading axis of ``K`` independent runs (e.g. :class:`solvable.bsr.BilinearMap`);
- a **parametrisation** (:class:`Parametrisation`): ``matrix(params) -> S`` and
  ``pullback(params, G) -> dloss/dparams`` given ``G = dloss/dS``, also batched
  (:class:`LowRankProduct` for BSR, :class:`SymmetricSquare` for quadratic networks).

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
from .validation import check_int, check_nonnegative, check_positive

__all__ = [
    "Measurement",
    "Parametrisation",
    "LowRankProduct",
    "SymmetricSquare",
    "GDResult",
    "loss_and_gradient",
    "run_gd",
]


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

    def matrix(self, params):
        (W,) = params
        return np.matmul(np.swapaxes(W, -1, -2), W) / math.sqrt(self.m * self.d)

    def pullback(self, params, G):
        (W,) = params
        return (np.matmul(W, G + np.swapaxes(G, -1, -2)) / math.sqrt(self.m * self.d),)


@dataclass(frozen=True)
class GDResult:
    """Outcome of :func:`run_gd` (``K`` initialisations on the same data).

    Attributes
    ----------
    estimates : (K, *shape) final ``S_k``.
    average : (*shape) averaged GD, ``mean_k S_k``.
    errors : (K,) error of each ``S_k`` against the target (NaN without a target).
    average_error : error of ``average`` (NaN without a target).
    losses : (K,) final relative training loss ``loss_k/sum(y^2)`` (loss of eq. (1)).
    steps : (K,) GD steps taken by each run (a run stops once below ``tol``).
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


def _evaluate(measurement, parametrisation, y, params):
    """``S``, residuals ``y_hat - y`` (K, n) and the loss (1) of each run (K,), accumulated in float64."""
    S = parametrisation.matrix(params)
    res = measurement.forward(S) - y
    return S, res, 0.25 * np.einsum("kn,kn->k", res, res, dtype=np.float64)


def _gradient(measurement, parametrisation, params, res):
    """``dloss/dparams`` from the residuals: ``pullback(params, M^T(res/2))``."""
    return parametrisation.pullback(params, measurement.adjoint(0.5 * res))


def loss_and_gradient(measurement: Measurement, parametrisation: Parametrisation, y, params):
    """Loss (1) of each of the ``K`` runs, shape (K,), and its gradient with respect to ``params`` (a tuple
    shaped like ``params``): ``dloss/dS = M^T((y_hat - y)/2)`` pulled back through the parametrisation."""
    y = np.asarray(y, dtype=float)
    params = tuple(np.asarray(p, dtype=float) for p in params)
    _, res, loss = _evaluate(measurement, parametrisation, y, params)
    return loss, _gradient(measurement, parametrisation, params, res)


def run_gd(measurement: Measurement, parametrisation: Parametrisation, y, params0, *, lr: float,
           tol: float = 1e-6, max_steps: int = 50_000, record_every: int = 10, target=None,
           error: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None, warn: bool = True,
           dtype=np.float64) -> GDResult:
    """Plain full-batch gradient descent on eq. (1) for ``K`` initialisations at once.

    Each step: ``S = matrix(params)`` (batched), ``y_hat = M.forward(S)`` (one ``(K, .) @ (., n)`` product),
    ``G = M.adjoint((y_hat - y)/2)`` (one product), ``params -= lr * pullback(params, G)``. A run whose relative
    loss ``loss/sum(y^2)`` is below ``tol`` is frozen: its parameters stop moving and the following steps are
    one batched computation over the runs still active only (near ``alpha_PR`` the slowest of ``K`` runs can
    need several times the median number of steps). The loop ends when every run is frozen or after
    ``max_steps``; in the latter case a :class:`~solvable.errors.ConvergenceWarning` gives the step count and
    the number of runs still above ``tol``. Always check ``losses`` before reading off errors: a too-large
    step can bounce at a relative loss of 1e-2 without diverging (``science/bsr.md``, Sec. 6).

    Parameters
    ----------
    measurement, parametrisation : see the module docstring.
    y : (n,) array
        Labels.
    params0 : tuple of arrays with leading axis K
        Initial parameters (copied).
    lr : float > 0
        Learning rate.
    tol : float >= 0
        Relative training-loss target (``0``: run ``max_steps`` steps, no warning).
    max_steps : int >= 1
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
    lr = check_positive("lr", lr)
    tol = check_nonnegative("tol", tol)
    max_steps = check_int("max_steps", max_steps)
    record_every = check_int("record_every", record_every)
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    y = np.asarray(y, dtype=float)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-d array, got shape {y.shape}")
    params = tuple(np.array(p, dtype=dtype, copy=True) for p in params0)
    K = params[0].shape[0]
    if any(p.shape[0] != K for p in params):
        raise ValueError(f"params0 arrays must share their leading (K) axis, got shapes {[p.shape for p in params]}")
    norm_y = float(y @ y)
    if norm_y == 0.0:
        raise ValueError("y must not be identically zero (the relative loss is loss/sum(y^2))")
    fixed_length = tol == 0.0
    y_work = y.astype(dtype, copy=False)
    if target is not None:
        target = np.asarray(target, dtype=float)
        err_fn = _mean_square_error if error is None else error

        def errors_of(S):
            return np.asarray(err_fn(np.asarray(S, dtype=float), target), dtype=float)
    else:
        def errors_of(S):
            return np.full(S.shape[0], np.nan)

    S, res, loss = _evaluate(measurement, parametrisation, y_work, params)
    S = np.array(S, copy=True)
    active = np.ones(K, dtype=bool)
    steps = np.zeros(K, dtype=int)
    current_errors = errors_of(S)  # refreshed every record_every steps
    history, error_history = [], []
    step = 0
    while True:
        rel = loss / norm_y
        if not np.all(np.isfinite(rel)):
            raise DivergenceError(f"gradient descent diverged at step {step} (non-finite loss; lower lr)")
        if step % record_every == 0:
            history.append(rel.copy())
            error_history.append(current_errors.copy())
        if not fixed_length:
            active &= rel >= tol
        if not active.any() or step == max_steps:
            break
        if active.all():  # one batched step over all K runs
            grads = _gradient(measurement, parametrisation, params, res)
            params = tuple(p - lr * g for p, g in zip(params, grads))
            S, res, loss = _evaluate(measurement, parametrisation, y_work, params)
            S = np.array(S, copy=True)
        else:  # frozen runs keep their parameters, S and residuals: compute on the active ones only
            idx = np.flatnonzero(active)
            sub = tuple(p[idx] for p in params)
            grads = _gradient(measurement, parametrisation, sub, res[idx])
            for p, q, g in zip(params, sub, grads):
                p[idx] = q - lr * g
            new = tuple(p[idx] for p in params)
            S_a, res_a, loss_a = _evaluate(measurement, parametrisation, y_work, new)
            S[idx], res[idx], loss[idx] = S_a, res_a, loss_a
        steps += active
        step += 1
        if step % record_every == 0:
            current_errors = errors_of(S)
    rel = loss / norm_y
    converged = rel < tol if not fixed_length else np.zeros(K, dtype=bool)
    if warn and not fixed_length and not converged.all():
        warnings.warn(
            f"gradient descent stopped at its cap of {max_steps} steps with {int((~converged).sum())} of {K} "
            f"runs above tol {tol:.1e} (relative loss up to {rel.max():.2e})",
            ConvergenceWarning,
            stacklevel=2,
        )
    S = np.asarray(S, dtype=float)
    average = S.mean(axis=0)
    errors = errors_of(S)
    average_error = float(errors_of(average[None])[0]) if target is not None else math.nan
    return GDResult(estimates=S, average=average, errors=errors, average_error=average_error, losses=rel,
                    steps=steps, converged=converged, loss_history=np.array(history),
                    error_history=np.array(error_history))
