"""The one message-passing engine of the course: GAMP and its state evolution.

Every model of the ladder is a signal (a vector ``w`` or, in later chapters, a matrix ``S``) seen
through a linear map and then an output channel. Generalised approximate message passing (GAMP;
Rangan, arXiv:1010.5141; Donoho, Maleki, Montanari, PNAS 2009) is the same loop for all of them;
only three parts change:

- the **linear map** ``M``: ``forward(w)`` (signal -> preactivations), ``adjoint(g)`` (residuals ->
  signal-shaped field) and the two variance propagations ``forward_variance(c)`` (``sum_i F_mi^2 c_i``)
  and ``adjoint_variance(a)`` (``sum_m F_mi^2 a_m``), which may return scalars for uniform variances;
- the **output channel**: ``g_out(y, omega, V) -> (g, dg)`` (:mod:`solvable.channels`);
- the **denoiser**: ``denoise(A, B) -> (estimate, variance)`` (:mod:`solvable.priors`; rotationally
  invariant matrix denoisers later).

One GAMP iteration (``science/perceptron.md``, Sec. 5)::

    V     = M.forward_variance(c)
    omega = M.forward(w) - V * g            # Onsager term with the previous g
    g, dg = channel.g_out(y, omega, V)
    A     = M.adjoint_variance(-dg)
    B     = M.adjoint(g) + A * w            # Onsager term
    w, c  = denoiser.denoise(A, B)          # with damping

Its state evolution is the scalar recursion ``mhat_t = alpha * channel.se_mhat_factor(q_t)``,
``q_{t+1} = prior.se_overlap(mhat_t)`` (:func:`iterate_state_evolution`).

Options of the loop used by the matrix models (defaults reproduce the textbook loop above):

- ``precision="empirical"``: ``A = M.adjoint_variance(g^2)`` instead of ``M.adjoint_variance(-dg)``. Under the
  Bayes-optimal (Nishimori) conditions ``E g^2 = E(-dg)``, so both estimate the same precision; for the
  noisy linear channel ``-dg = 1/(delta + V)`` does not look at the data at all, while ``g^2`` measures the
  actual residuals. The two differ when ``V`` does not match the actual error, and the empirical form then has
  a false fixed point: with ``V`` above the error, ``mean(g^2) ~ error/V^2`` is small, the denoiser is told a
  noise larger than the real one, its variance stays large and ``V`` with it. GAMP-RIE of bilinear sequence
  regression stalled there above exact recovery (error 0.02 with ``V`` ~ 0.3 at ``alpha = 0.45``); it now uses
  the derivative form with the channel's residual floor (:class:`~solvable.channels.LinearChannel`,
  ``residual_floor=True``; ``solvable.bsr.gamp_rie``). The quadratic and attention models still use the
  empirical form.
- ``damp="output"``: damp the output side ``(V, omega)`` instead of the estimate ``(w, c)``. With the empirical
  precision, damping the estimate (0.5) let BSR's GAMP-RIE converge to a false fixed point (``c -> 1e-4``
  while the error stays at 0.44-0.46 instead of 0.35), which damping ``(V, omega)`` avoided
  (``science/bsr.md``, Sec. 3; same setting). With the derivative precision and the residual floor, damping the
  estimate (0.3) converges there too, and faster (``solvable.bsr.gamp_rie``, ``damp``).
  ``damp="both"`` damps both sides with the same factor (GAMP-RIE of the attention-indexed model at small
  sample ratio, where output damping alone can settle on a fixed point worse than the prior;
  ``science/attention.md``, Sec. 3).
- ``omega0`` (with ``V0``): start from a given output state instead of ``g = 0``; the first Onsager term
  then uses ``g_0 = g_out(y, omega0, V0)`` and output damping mixes into ``(omega0, V0)``. ``omega0 = y``
  gives ``g_0 = 0`` for the linear channel (the first Onsager term vanishes).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .errors import ConvergenceWarning, DivergenceError
from .validation import check_in_range, check_int, check_nonnegative

__all__ = [
    "LinearMap",
    "DenseLinearMap",
    "AMPResult",
    "run_gamp",
    "SETrajectory",
    "iterate_state_evolution",
]


class LinearMap(Protocol):
    """What the GAMP loop needs from the linear part of a model (see module docstring)."""

    def forward(self, w): ...

    def adjoint(self, g): ...

    def forward_variance(self, c): ...

    def adjoint_variance(self, a): ...


class DenseLinearMap:
    """The perceptron's map ``w -> F w`` with ``F = X / sqrt(d)``, on the raw data ``X`` (n x d).

    ``variance="exact"`` propagates variances with ``F**2`` (the textbook GAMP; one extra n x d array);
    ``variance="uniform"`` replaces ``F_mi^2`` by its mean ``1/d`` (equivalent for i.i.d. Gaussian ``X``
    at large ``d``, no extra memory, and the form that the matrix models use).
    """

    def __init__(self, X, variance: str = "exact"):
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-d array (n, d), got shape {X.shape}")
        if variance not in ("exact", "uniform"):
            raise ValueError(f"variance must be 'exact' or 'uniform', got {variance!r}")
        self.n, self.d = X.shape
        self._scale = 1.0 / np.sqrt(self.d)
        self._X = X
        self._F2 = (X * X) / self.d if variance == "exact" else None
        self.variance = variance

    def forward(self, w):
        return (self._X @ w) * self._scale

    def adjoint(self, g):
        return (self._X.T @ g) * self._scale

    def forward_variance(self, c):
        if self._F2 is None:
            return float(np.mean(c)) * np.ones(self.n) if np.ndim(c) else float(c) * np.ones(self.n)
        return self._F2 @ np.broadcast_to(c, (self.d,))

    def adjoint_variance(self, a):
        if self._F2 is None:
            return float(np.sum(a)) / self.d
        return self._F2.T @ a


@dataclass(frozen=True)
class AMPResult:
    """Outcome of :func:`run_gamp`.

    Attributes
    ----------
    estimate, variance : the last posterior-mean estimate and its variances.
    history : array (iterations, k) of what ``monitor`` returned after each iteration (empty without monitor).
    iterations : number of iterations run.
    converged : whether the change ``mean((w_new - w)^2)`` fell below ``tol``.
    """

    estimate: np.ndarray
    variance: np.ndarray | float
    history: np.ndarray
    iterations: int
    converged: bool


def run_gamp(
    linear_map: LinearMap,
    channel,
    denoiser,
    y,
    w0,
    c0,
    *,
    damping: float = 0.0,
    tol: float = 1e-8,
    max_iter: int = 200,
    monitor: Callable[[np.ndarray], tuple] | None = None,
    min_iter: int = 1,
    collapse_tol: float = 1e-12,
    warn: bool = True,
    damp: str = "estimate",
    precision: str = "derivative",
    omega0=None,
    V0=None,
) -> AMPResult:
    """Run GAMP (module docstring) from ``(w0, c0)`` with ``g = 0`` (or ``g_out(y, omega0, V0)``).

    Parameters
    ----------
    damping : float in [0, 1)
        ``w <- damping * w + (1 - damping) * w_new`` (same for ``c``); with ``damp="output"``,
        ``V <- damping * V_old + (1 - damping) * V_new`` and the same for ``omega``.
    damp : {"estimate", "output", "both"}
        What the damping mixes: the denoiser's output ``(w, c)`` (default), the output-channel state
        ``(V, omega)`` (module docstring), or both. Without ``omega0`` the first output step is undamped.
    precision : {"derivative", "empirical"}
        ``A = M.adjoint_variance(-dg)`` (default) or ``M.adjoint_variance(g**2)`` (module docstring).
    omega0, V0 : array_like or float, optional
        Initial output state: ``g_0 = g_out(y, omega0, V0)`` (default ``g_0 = 0``). ``V0`` defaults to
        ``M.forward_variance(c0)``.
    tol : float >= 0
        Stop when ``mean((w_new - w)^2) < tol`` (after ``min_iter`` iterations). ``tol = 0`` runs exactly
        ``max_iter`` iterations (to compare with state evolution iteration by iteration): no convergence test,
        no warning, ``converged`` is False.
    collapse_tol : float
        Also stop when the mean posterior variance falls below it: the posterior has collapsed on a point
        (a discrete signal recovered exactly). Iterating further is meaningless there: with a noiseless sign
        channel every message vanishes once the variance is below the squared smallest margin, and the
        estimate would be reset to the prior mean.
    max_iter : int
        Iteration cap; reaching it emits :class:`~solvable.errors.ConvergenceWarning` (if ``warn``).
    monitor : callable, optional
        ``monitor(w) -> tuple of floats`` recorded after every iteration (e.g. overlaps with a teacher).

    Raises
    ------
    DivergenceError
        If an iteration produces non-finite numbers (with the iteration number).
    """
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    tol = check_nonnegative("tol", tol)
    max_iter = check_int("max_iter", max_iter)
    if damp not in ("estimate", "output", "both"):
        raise ValueError(f"damp must be 'estimate', 'output' or 'both', got {damp!r}")
    if precision not in ("derivative", "empirical"):
        raise ValueError(f"precision must be 'derivative' or 'empirical', got {precision!r}")
    damp_output = damp in ("output", "both")
    damp_estimate = damp in ("estimate", "both")
    fixed_length = tol == 0.0
    w = np.array(w0, dtype=float, copy=True)
    c = np.array(c0, dtype=float, copy=True) if np.ndim(c0) else float(c0)
    y = np.asarray(y, dtype=float)
    if omega0 is None:
        g = np.zeros_like(y)
        omega_old = V_old = None
    else:
        V_old = linear_map.forward_variance(c) if V0 is None else V0
        omega_old = np.broadcast_to(np.asarray(omega0, dtype=float), y.shape)
        g, _ = channel.g_out(y, omega_old, V_old)
    history = []
    converged = False
    t = 0
    for t in range(1, max_iter + 1):
        V = linear_map.forward_variance(c)
        omega = linear_map.forward(w) - V * g
        if damp_output and omega_old is not None and damping > 0:
            V = damping * V_old + (1.0 - damping) * V
            omega = damping * omega_old + (1.0 - damping) * omega
        omega_old, V_old = omega, V
        g, dg = channel.g_out(y, omega, V)
        A = linear_map.adjoint_variance(g * g if precision == "empirical" else -dg)
        B = linear_map.adjoint(g) + A * w
        w_new, c_new = denoiser.denoise(A, B)
        if not (np.all(np.isfinite(w_new)) and np.all(np.isfinite(c_new))):
            raise DivergenceError(f"GAMP diverged at iteration {t}: non-finite estimate (try damping > 0)")
        change = float(np.mean((w_new - w) ** 2))
        if not damp_estimate:
            w, c = w_new, c_new
        else:
            w = damping * w + (1.0 - damping) * w_new
            c = damping * c + (1.0 - damping) * c_new
        if monitor is not None:
            history.append(tuple(monitor(w)))
        if not fixed_length and t >= min_iter and (change < tol or float(np.mean(c)) < collapse_tol):
            converged = True
            break
    if not converged and warn and not fixed_length:
        warnings.warn(
            f"GAMP did not converge in {t} iterations (last change {change:.2e} >= tol {tol:.1e})",
            ConvergenceWarning,
            stacklevel=2,
        )
    hist = np.array(history, dtype=float) if history else np.empty((0, 0))
    return AMPResult(estimate=w, variance=c, history=hist, iterations=t, converged=converged)


@dataclass(frozen=True)
class SETrajectory:
    """Iterates of the state evolution: ``q[t]`` (``q[0]`` is the initial overlap) and ``mhat[t]``
    (``mhat[t]`` is computed from ``q[t]``, so it has one entry less when the run stopped on ``q``)."""

    q: np.ndarray
    mhat: np.ndarray
    iterations: int
    converged: bool

    @property
    def overlap(self) -> float:
        """Last overlap ``q``."""
        return float(self.q[-1])


def iterate_state_evolution(
    prior,
    channel,
    alpha: float,
    q0: float,
    *,
    rho: float = 1.0,
    damping: float = 0.0,
    tol: float = 1e-12,
    max_iter: int = 20000,
    warn: bool = True,
) -> SETrajectory:
    """Iterate ``mhat_t = alpha * channel.se_mhat_factor(q_t)``, ``q_{t+1} = prior.se_overlap(mhat_t)``.

    Stops when ``|q_{t+1} - q_t| < tol``. Near a spinodal the recursion slows down critically: reaching
    ``max_iter`` warns with :class:`~solvable.errors.ConvergenceWarning`; non-finite values raise
    :class:`~solvable.errors.DivergenceError`. ``q`` is kept in ``[0, rho]``.
    (``science/perceptron.md``, Sec. 3; Barbier et al., arXiv:1708.03395.)
    """
    q = float(q0)
    qs = [q]
    mhats = []
    converged = False
    t = 0
    for t in range(1, max_iter + 1):
        mhat = alpha * float(channel.se_mhat_factor(q, rho))
        q_new = float(prior.se_overlap(mhat))
        if not (np.isfinite(mhat) and np.isfinite(q_new)):
            raise DivergenceError(f"state evolution diverged at iteration {t} (q = {q!r}, mhat = {mhat!r})")
        q_new = min(max(damping * q + (1.0 - damping) * q_new, 0.0), rho)
        mhats.append(mhat)
        qs.append(q_new)
        if abs(q_new - q) < tol:
            converged = True
            q = q_new
            break
        q = q_new
    if not converged and warn:
        warnings.warn(
            f"state evolution did not converge in {t} iterations (alpha = {alpha:g}, q = {q:.6g})",
            ConvergenceWarning,
            stacklevel=2,
        )
    return SETrajectory(q=np.array(qs), mhat=np.array(mhats), iterations=t, converged=converged)
