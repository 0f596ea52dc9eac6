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
  invariant matrix denoisers in :mod:`solvable.rie`).

One GAMP iteration (chapter 1, "From belief propagation to AMP")::

    V     = M.forward_variance(c)
    omega = M.forward(w) - V * g            # Onsager term with the previous g
    g, dg = channel.g_out(y, omega, V)
    A     = M.adjoint_variance(-dg)
    B     = M.adjoint(g) + A * w            # Onsager term
    w, c  = denoiser.denoise(A, B)          # with damping

Its state evolution is the scalar recursion ``mhat_t = alpha * channel.se_mhat_factor(q_t)``,
``q_{t+1} = prior.se_overlap(mhat_t)`` (:func:`iterate_state_evolution`; Javanmard and Montanari 2013).

Options of the loop used by the matrix models (the defaults are the textbook loop above):

- ``precision="empirical"``: ``A = M.adjoint_variance(g^2)`` instead of ``M.adjoint_variance(-dg)``. Under the
  Bayes-optimal (Nishimori) conditions ``E g^2 = E(-dg)``, so both estimate the same precision; for the
  noisy linear channel ``-dg = 1/(delta + V)`` does not look at the data, while ``g^2`` measures the actual
  residuals. The two differ when ``V`` does not match the actual error: with ``V`` above the error,
  ``mean(g^2) ~ error/V^2`` is small, the denoiser is told a noise larger than the real one, its variance
  stays large and ``V`` with it, a false fixed point of the empirical form.
- ``damp="output"``: damp the output side ``(V, omega)`` instead of the estimate ``(w, c)``; ``damp="both"``
  damps both sides with the same factor.
- ``omega0`` (with ``V0``): start from a given output state instead of ``g = 0``; the first Onsager term
  then uses ``g_0 = g_out(y, omega0, V0)`` and output damping mixes into ``(omega0, V0)``. ``omega0 = y``
  gives ``g_0 = 0`` for the linear channel (the first Onsager term vanishes).

Convergence is one rule for every model: the relative change of the estimate, :func:`relative_change`, below
``tol``. State evolutions run on one damped fixed-point driver, :func:`iterate_fixed_point`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import field
from typing import Protocol

import numpy as np

from .errors import InvalidParameterError, ConvergenceWarning, DivergenceError
from .errors import warn as warn_user
from .results import record
from .domains import (
    Domain,
    array,
    choice,
    declare,
    flag,
    function,
    integer,
    interface,
    optional,
    real,
    unchecked,
)
from .validation import check_array, check_in_range

__all__ = [
    "LinearMap",
    "OutputChannel",
    "Denoiser",
    "DenseLinearMap",
    "GAMPResult",
    "run_gamp",
    "relative_change",
    "stop_message",
    "FixedPoint",
    "iterate_fixed_point",
    "SEResult",
    "iterate_state_evolution",
]


class LinearMap(Protocol):
    """What the GAMP loop needs from the linear part of a model (see module docstring).

    ``forward(w)`` maps the signal to the preactivations, ``adjoint(g)`` maps residuals back to a signal-shaped
    field; ``forward_variance(c) = sum_i F_mi^2 c_i`` and ``adjoint_variance(a) = sum_m F_mi^2 a_m`` propagate
    the variances (scalars for uniform variances). Implementations: :class:`DenseLinearMap` (perceptron),
    :class:`solvable.bsr.BilinearMap`, :class:`solvable.quadratic.QuadraticSensingMap`,
    :class:`solvable.attention.AttentionSensingMap`.
    """

    def forward(self, w): ...

    def adjoint(self, g): ...

    def forward_variance(self, c): ...

    def adjoint_variance(self, a): ...


class OutputChannel(Protocol):
    """What the GAMP loop needs from the output channel ``P(y | z)``.

    ``g_out(y, omega, V) -> (g, dg)``: ``g = (E[z | y, omega, V] - omega)/V`` and its derivative in ``omega``
    (chapter 1, "From belief propagation to AMP"). Implementations live in :mod:`solvable.channels` (sign,
    probit, noisy linear, softmax and hardmax attention).
    """

    def g_out(self, y, omega, V): ...


class Denoiser(Protocol):
    """What the GAMP loop needs from the prior: ``denoise(A, B) -> (estimate, variance)``, the posterior mean and
    variance of the signal given the Gaussian observation ``B/A = signal + noise/sqrt(A)``. Implementations:
    the separable priors of :mod:`solvable.priors` and the rotationally invariant denoisers of :mod:`solvable.rie`.
    A denoiser that returns non-finite numbers makes :func:`run_gamp` raise :class:`~solvable.errors.DivergenceError`.
    """

    def denoise(self, A, B): ...


class DenseLinearMap:
    """The perceptron's map ``w -> F w`` with ``F = X / sqrt(d)``, on the raw data ``X`` (n x d).

    Parameters
    ----------
    X : array_like, shape (n, d)
        The inputs, finite real numbers (not rescaled).
    variance : {"exact", "uniform"}, optional
        ``"exact"`` propagates variances with ``F**2`` (the textbook GAMP; one extra n x d array);
        ``"uniform"`` replaces ``F_mi^2`` by its mean ``1/d`` (equivalent for i.i.d. Gaussian ``X`` at large
        ``d``, no extra memory, and the form that the matrix models use).

    Raises
    ------
    TypeError
        If ``X`` is not an array of real numbers.
    ValueError
        If ``X`` is not a finite 2-d array or ``variance`` is not one of the choices.

    Notes
    -----
    ``forward(w) = X w / sqrt(d)``, ``adjoint(g) = X^T g / sqrt(d)``, ``forward_variance(c) = (X**2/d) c`` and
    ``adjoint_variance(a) = (X**2/d)^T a`` (chapter 1, "From belief propagation to AMP").

    Examples
    --------
    >>> import numpy as np
    >>> from solvable.amp import DenseLinearMap
    >>> X = np.random.default_rng(0).standard_normal((200, 100))
    >>> F, U = DenseLinearMap(X), DenseLinearMap(X, variance="uniform")
    >>> print(F.forward(np.ones(100)).shape, F.adjoint(np.ones(200)).shape)
    (200,) (100,)
    >>> c = np.full(100, 0.5)  # the variances: exact (X**2/d) c against uniform mean(c)
    >>> print(f"exact {F.forward_variance(c).mean():.2f}, uniform {U.forward_variance(c).mean():.2f}")
    exact 0.50, uniform 0.50
    """

    @declare(X=array(2), variance=choice("exact", "uniform"))
    def __init__(self, X, variance: str = "exact"):
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


@record
class GAMPResult:
    """Outcome of a GAMP run, the same shape for every model (:func:`run_gamp`, ``glm.gamp``, ``*.gamp_rie``).

    Parameters
    ----------
    estimate : numpy.ndarray
        The last posterior-mean estimate (vector or matrix).
    variance : numpy.ndarray or float
        Its last posterior variance (a float for the matrix denoisers): the algorithm's own error estimate.
    history : numpy.ndarray
        ``(iterations,)`` the error against the teacher after each iteration (the first value ``monitor``
        returned; empty without monitor). Compare with :attr:`SEResult.history` ``[1:]``.
    iterations : int
        Number of iterations run.
    converged : bool
        Whether the relative change of the estimate fell below ``tol`` (False when stopped at the cap).
    message : str
        Why the run stopped, with its numbers (the change against ``tol``, or the cap), as the warning at a cap.
    overlap, norm : numpy.ndarray
        ``(iterations,)`` ``m_t = <estimate, teacher>/N`` and ``Q_t = |estimate|^2/N`` when the monitor
        returned them (second and third values), else empty.

    Notes
    -----
    A frozen :func:`~solvable.results.record`: its arrays are read-only and ``==`` compares them by value.
    """

    estimate: np.ndarray = field(repr=False)
    variance: np.ndarray | float = field(repr=False)
    history: np.ndarray
    iterations: int
    converged: bool
    message: str
    overlap: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    norm: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)

    @property
    def error(self) -> float:
        """Error of the last iterate, ``history[-1]`` (raises without a monitored teacher)."""
        if self.history.size == 0:
            raise InvalidParameterError("this run had no monitor (teacher unknown): no error history")
        return float(self.history[-1])


def _check_loop_name(name, value):
    if not isinstance(value, str) or not value:
        raise InvalidParameterError(f"{name} must be a non-empty string, the loop's name; got {value!r:.60}")
    return value


#: The name of a loop in its messages.
_LOOP_NAME = Domain("a non-empty string, the loop's name", _check_loop_name, "any")


@declare(
    what=_LOOP_NAME,
    converged=flag(),
    change=real(0.0, allow_inf=True),
    fixed_length=flag(),
)
def stop_message(
    what: str,
    *,
    converged: bool,
    iterations: int,
    change: float,
    tol: float,
    max_iter: int,
    fixed_length: bool = False,
) -> str:
    """Why an iteration stopped, in words and numbers: the one wording of every loop of the library.

    Parameters
    ----------
    what : str
        The loop's name (``"GAMP"``, ``"state evolution"``, ...).
    converged : bool
        Whether it met its tolerance.
    iterations : int
        Iterations run.
    change : float
        The last change its stop rule measured.
    tol : float
        The tolerance.
    max_iter : int
        The cap.
    fixed_length : bool, optional
        A run of exactly ``max_iter`` iterations (``tol = 0``): no convergence test.

    Returns
    -------
    str
        ``"<what> converged: change <c> < tol <tol> after <t> iterations"``, ``"<what> did not converge in <t>
        iterations (last change <c> >= tol <tol>)"`` at the cap (the warning's text), or ``"<what> ran its fixed
        <t> iterations (tol = 0: no convergence test)"``.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If a number is outside its domain.

    Notes
    -----
    Every loop's result carries this text as ``message`` (``GAMPResult``, ``FixedPoint``, ``SEResult``), and a
    loop stopped at its cap warns with the same text (:class:`~solvable.errors.ConvergenceWarning`).

    References
    ----------
    Chapter 1, Sec. "The algorithm: GAMP follows state evolution" (GAMP's stop rule).

    Examples
    --------
    >>> from solvable.amp import stop_message
    >>> stop_message("GAMP", converged=False, iterations=200, change=3e-5, tol=1e-8, max_iter=200)
    'GAMP did not converge in 200 iterations (last change 3.00e-05 >= tol 1.0e-08)'
    """
    if fixed_length:
        return f"{what} ran its fixed {iterations} iterations (tol = 0: no convergence test)"
    if converged:
        return f"{what} converged: change {change:.2e} < tol {tol:.1e} after {iterations} iterations"
    return f"{what} did not converge in {iterations} iterations (last change {change:.2e} >= tol {tol:.1e})"


def _check_variance(name, value):
    """A posterior variance: a number > 0, or an array of finite numbers > 0 (one per component)."""
    c = check_array(name, value)
    if not np.all(c > 0):
        raise InvalidParameterError(f"{name} must be > 0 (a variance), got {value!r:.60}")
    return c.copy() if c.ndim else float(c)


#: The domains of the engine, declared once: a variance (a number or one per component), the parts of a GAMP
#: (each by its interface), and the controls of the loop and of the fixed-point driver.
VARIANCE = Domain("a number > 0 or an array of finite numbers > 0", _check_variance, "array", (None,))
LINEAR_MAP = interface("forward", "adjoint", "forward_variance", "adjoint_variance")
ITERATE = array(finite=False, nonempty=False)


@declare(new=ITERATE, old=ITERATE)
def relative_change(new, old) -> float:
    """The relative change ``||new - old||_2 / ||new||_2`` of an iterate (GAMP's convergence measure).

    Parameters
    ----------
    new, old : numpy.ndarray
        Two successive iterates of the same shape.

    Returns
    -------
    float
        The Euclidean norm of the difference over that of ``new``; ``0`` when both are zero and ``inf`` when only
        ``new`` is (a collapse to zero has not converged).

    Raises
    ------
    TypeError
        If an iterate is not an array of real numbers.
    ValueError
        If an iterate holds a NaN or an infinity, or the shapes differ.
    """
    if new.shape != old.shape:
        raise InvalidParameterError(f"new and old must have the same shape, got {new.shape} and {old.shape}")
    d = np.ravel(new) - np.ravel(old)
    s_new, s_diff = float(np.max(np.abs(new), initial=0.0)), float(np.max(np.abs(d), initial=0.0))
    if s_new == 0.0:
        return 0.0 if s_diff == 0.0 else math.inf
    if s_diff == 0.0:
        return 0.0
    # each norm measured on its array divided by its largest entry: no overflow or underflow at 1e+-300
    return float(np.linalg.norm(d / s_diff) / np.linalg.norm(np.ravel(new) / s_new)) * (s_diff / s_new)


@declare(
    linear_map=LINEAR_MAP,
    channel=interface("g_out"),
    denoiser=interface("denoise"),
    y=array(),
    w0=array(),
    c0=VARIANCE,
    monitor=optional(function(), "no monitor"),
    min_iter=integer(1),
    collapse_tol=real(0.0, 1.0, high_open=True),
    damp=choice("estimate", "output", "both"),
    precision=choice("derivative", "empirical"),
    omega0=optional(array(nonempty=False), "g = 0 at the start"),
    V0=optional(VARIANCE, "forward_variance(c0)"),
)
def run_gamp(
    linear_map: LinearMap,
    channel: OutputChannel,
    denoiser: Denoiser,
    y,
    w0,
    c0,
    *,
    damping: float = 0.0,
    tol: float = 1e-8,
    max_iter: int = 200,
    monitor: Callable[[np.ndarray], float | tuple] | None = None,
    min_iter: int = 1,
    collapse_tol: float = 1e-12,
    warn: bool = True,
    damp: str = "estimate",
    precision: str = "derivative",
    omega0=None,
    V0=None,
) -> GAMPResult:
    """Run GAMP (module docstring) from ``(w0, c0)`` with ``g = 0`` (or ``g_out(y, omega0, V0)``).

    Parameters
    ----------
    linear_map : LinearMap
        The linear part of the model (``forward``, ``adjoint`` and the two variance propagations).
    channel : OutputChannel
        The output channel (``g_out``).
    denoiser : Denoiser
        The prior's denoiser (``denoise``).
    damping : float in [0, 1)
        ``w <- damping * w + (1 - damping) * w_new`` (same for ``c``); with ``damp="output"``,
        ``V <- damping * V_old + (1 - damping) * V_new`` and the same for ``omega``.
    damp : {"estimate", "output", "both"}
        What the damping mixes: the denoiser's output ``(w, c)`` (default), the output-channel state
        ``(V, omega)`` (module docstring), or both. Without ``omega0`` the first output step is undamped.
    precision : {"derivative", "empirical"}
        ``A = M.adjoint_variance(-dg)`` (default) or ``M.adjoint_variance(g**2)`` (module docstring).
    y, w0 : arrays of finite numbers
        Labels and the initial estimate.
    c0 : float or array > 0
        Initial posterior variance (a zero variance would stop the loop at once as "collapsed").
    omega0, V0 : array_like or float, optional
        Initial output state: ``g_0 = g_out(y, omega0, V0)`` (default ``g_0 = 0``). ``V0 > 0`` defaults to
        ``M.forward_variance(c0)``.
    tol : float in [0, 1)
        Stop when the relative change of the estimate, :func:`relative_change` ``(w_new, w) =
        ||w_new - w||_2 / ||w_new||_2``, falls below ``tol`` (after ``min_iter`` iterations; ``w_new`` is the
        denoiser's output before damping). The rule is the same for every model: a run reported converged moves
        its estimate by less than ``tol`` of its norm in one more iteration. ``tol = 0`` runs exactly
        ``max_iter`` iterations (to compare with state evolution iteration by iteration): no convergence test,
        no warning, ``converged`` is False.
    collapse_tol : float
        Also stop when the mean posterior variance falls below it: the posterior has collapsed on a point
        (a discrete signal recovered exactly). Iterating further is meaningless there:
        with a noiseless sign channel every message vanishes once the variance is below the squared smallest
        margin, and the estimate would be reset to the prior mean.
    max_iter : int >= 1
        Iteration cap; reaching it emits :class:`~solvable.errors.ConvergenceWarning` (if ``warn``).
    monitor : callable, optional
        ``monitor(w) -> error`` or ``(error, overlap, norm)`` recorded after every iteration.
    min_iter : int >= 1, optional
        Iterations run before the convergence test applies.
    warn : bool, optional
        Whether reaching ``max_iter`` warns.

    Returns
    -------
    GAMPResult
        The last estimate and variance, the monitored history, the iteration count and whether it converged.

    Raises
    ------
    TypeError
        If a part lacks a method of its interface, or ``monitor`` is not callable.
    ValueError
        For a malformed control or start (named).
    DivergenceError
        If an iteration produces non-finite numbers (with the iteration number).

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` is reached before the tolerance (unless ``warn=False`` or ``tol = 0``).

    Notes
    -----
    The iteration of the module docstring; the estimate is damped as ``w <- damping w + (1 - damping) w_new``.
    Its state evolution is the model's ``state_evolution`` (chapter 1, eq. ``eq-state-evolution``; Rangan 2011,
    arXiv:1010.5141; Javanmard and Montanari 2013, arXiv:1211.5164).

    References
    ----------
    Chapter 1 of the book, "From belief propagation to AMP"; chapters 3-5 for the GAMP-RIE of the matrix models.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import amp
    >>> from solvable.channels import LinearChannel
    >>> from solvable.priors import GaussianPrior
    >>> rng = np.random.default_rng(0)
    >>> n, d, delta = 300, 100, 0.1
    >>> X = rng.standard_normal((n, d))
    >>> w = rng.standard_normal(d)
    >>> y = X @ w / np.sqrt(d) + np.sqrt(delta) * rng.standard_normal(n)
    >>> res = amp.run_gamp(amp.DenseLinearMap(X), LinearChannel(delta), GaussianPrior(), y, np.zeros(d),
    ...                    np.ones(d), tol=1e-8, max_iter=100, monitor=lambda v: float(np.mean((v - w) ** 2)))
    >>> from solvable import glm
    >>> theory = glm.bayes_gen_error(n / d, "gaussian", "linear", delta)
    >>> print(res.converged, f"GAMP {res.history[-1]:.2f}, theory {theory:.2f}")
    True GAMP 0.05, theory 0.05
    """
    damp_output = damp in ("output", "both")
    damp_estimate = damp in ("estimate", "both")
    fixed_length = tol == 0.0
    w, c = w0.copy(), c0
    try:
        z = np.asarray(linear_map.forward(w))
    except ValueError as e:  # a NumPy shape error from inside the map (matmul's core-dimension message)
        if not any(word in str(e) for word in ("mismatch", "not aligned", "shape")):
            raise  # the map's own error, not a shape: reported as it is
        raise InvalidParameterError(
            f"w0 must have the input shape of the linear map, got shape {w.shape} ({e})"
        ) from None
    if z.shape != y.shape:
        raise InvalidParameterError(
            f"y must have one label per output of the linear map: forward(w0) has shape {z.shape}, "
            f"y has shape {y.shape} (or w0 has the wrong shape)"
        )
    if np.ndim(c) and c.shape != w.shape:
        raise InvalidParameterError(f"c0 must be a scalar or have the shape of w0 {w.shape}, got {c.shape}")
    if omega0 is None:
        g = np.zeros_like(y)
        omega_old = V_old = None
    else:
        V_old = linear_map.forward_variance(c) if V0 is None else V0
        if not (np.all(np.isfinite(V_old)) and np.all(np.asarray(V_old) > 0)):
            raise InvalidParameterError(f"V0 must be finite and > 0, got {V0!r}")
        omega_old = np.broadcast_to(omega0, y.shape)
        g, _ = channel.g_out(y, omega_old, V_old)
    history = []
    converged = False
    change = math.inf
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
        change = relative_change(w_new, w)
        if not damp_estimate:
            w, c = w_new, c_new
        else:
            w = damping * w + (1.0 - damping) * w_new
            c = damping * c + (1.0 - damping) * c_new
        if monitor is not None:
            m = monitor(w)
            history.append(tuple(m) if isinstance(m, tuple) else (m,))
        if not fixed_length and t >= min_iter and (change < tol or float(np.mean(c)) < collapse_tol):
            converged = True
            break
    message = stop_message(
        "GAMP",
        converged=converged,
        iterations=t,
        change=change,
        tol=tol,
        max_iter=max_iter,
        fixed_length=fixed_length,
    )
    if converged and change >= tol:
        message = (
            f"GAMP converged: the posterior collapsed (mean variance {float(np.mean(c)):.2e} < collapse_tol "
            f"{collapse_tol:.1e}) after {t} iterations"
        )
    if not converged and warn and not fixed_length:
        warn_user(message, ConvergenceWarning)
    hist = np.array(history, dtype=float) if history else np.empty((0, 1))
    empty = np.empty(0)
    return GAMPResult(
        estimate=w,
        variance=c,
        history=hist[:, 0],
        iterations=t,
        converged=converged,
        message=message,
        overlap=hist[:, 1] if hist.shape[1] > 1 else empty,
        norm=hist[:, 2] if hist.shape[1] > 2 else empty,
    )


# --------------------------------------------------------------------------- fixed points


@record
class FixedPoint:
    """Outcome of :func:`iterate_fixed_point`.

    Parameters
    ----------
    states : numpy.ndarray
        ``(iterations + 1, k)`` the iterates, row 0 the start (a scalar state has ``k = 1``).
    observed : numpy.ndarray
        ``(iterations, ...)`` what ``update`` reported with each step (e.g. the conjugate overlap computed
        from ``states[t]``), or an empty array.
    iterations : int
        Steps taken.
    converged : bool
        Whether the last change fell below the tolerance (False at the cap, or with ``tol = 0``).
    change : float
        The last change.
    message : str
        Why the iteration stopped, with its numbers (:func:`stop_message`; at the cap, the warning's text).
    """

    states: np.ndarray = field(repr=False)
    observed: np.ndarray = field(repr=False)
    iterations: int
    converged: bool
    change: float
    message: str

    @property
    def state(self) -> np.ndarray:
        """The last iterate, shape (k,)."""
        return self.states[-1]

    @property
    def value(self) -> float:
        """The first component of the last iterate, as a float (the state of a scalar recursion)."""
        return float(self.states[-1, 0])


def _check_bounds(bounds, size: int):
    """``bounds`` of :func:`iterate_fixed_point`: ``None`` or ``(low, high)``, each a real number or an array of
    ``size`` (the state's length), not NaN (infinities allowed), with ``low <= high`` everywhere."""
    if bounds is None:
        return None
    if isinstance(bounds, (str, bytes)) or not hasattr(bounds, "__len__") or len(bounds) != 2:
        raise InvalidParameterError(f"bounds must be None or a pair (low, high), got {bounds!r:.60}")
    pair = []
    for side, value in zip(("low", "high"), bounds):
        arr = check_array(f"bounds ({side})", value, finite=False)
        if arr.ndim > 1 or arr.size not in (1, size) or np.any(np.isnan(arr)):
            raise InvalidParameterError(
                f"bounds ({side}) must be a number or an array of the state's length {size}, "
                f"without NaN, got {value!r:.60}"
            )
        pair.append(float(arr.reshape(-1)[0]) if size == 1 else (arr if arr.ndim else float(arr)))
    low, high = pair
    if np.any(np.asarray(low) > np.asarray(high)):
        raise InvalidParameterError(
            f"bounds must satisfy low <= high, got low = {low!r:.60}, high = {high!r:.60} "
            "(reversed bounds would clip every iterate to one point)"
        )
    return tuple(pair)


def _driver_message(what, converged, t, change, tol, max_iter, fixed_length, warn, *, state) -> str:
    """The stop message of a fixed-point driver; at the cap it names the last state (``state()``, formatted only
    then) and warns (if ``warn``)."""
    message = stop_message(
        what,
        converged=converged,
        iterations=t,
        change=change,
        tol=tol,
        max_iter=max_iter,
        fixed_length=fixed_length,
    )
    if not converged and not fixed_length:
        message = f"{message[:-1]}, state {state()})"
        if warn:
            warn_user(message, ConvergenceWarning)
    return message


@declare(
    update=function(),
    x0=unchecked("a number or array: checked as the start of the fixed point (named by what)"),
    relative=flag(),
    what=unchecked("the name of the iteration in messages"),
    bounds=unchecked("None or a pair (low, high): checked against the state's length"),
)
def iterate_fixed_point(
    update: Callable[[np.ndarray], np.ndarray | tuple],
    x0,
    *,
    damping: float = 0.0,
    tol: float = 1e-10,
    max_iter: int = 1000,
    relative: bool = False,
    bounds: tuple | None = None,
    what: str = "state evolution",
    warn: bool = True,
) -> FixedPoint:
    """The one damped fixed-point driver of the library: every state evolution and saddle point runs here.

    Iterates

        x_{t+1} = clip( damping * x_t + (1 - damping) * update(x_t) ),

    and stops when ``max_i |x_{t+1,i} - x_{t,i}| / s_i < tol`` with ``s_i = 1`` (absolute change) or
    ``s_i = max(1, |x_{t+1,i}|)`` (``relative=True``).

    Parameters
    ----------
    update : callable
        ``update(x) -> x_new`` or ``(x_new, observed)`` (``x`` a 1-d float array; a scalar state is an array of
        length 1, and its update may return a float; ``observed`` anything numeric the caller wants recorded
        with the step).
    x0 : float or 1-d array of finite numbers
        Start.
    damping : float in [0, 1)
        Mixing of the old state into the new one (``0``: no damping).
    tol : float in [0, 1)
        ``0`` runs exactly ``max_iter`` steps (a trajectory to compare with an algorithm step by step):
        no convergence test, no warning, ``converged`` is False. A state that a step leaves exactly unchanged is
        a fixed point in floating point: the remaining steps, which would repeat it, are filled in without being
        computed (the update is assumed deterministic).
    max_iter : int >= 1
        Cap; reaching it warns (:class:`~solvable.errors.ConvergenceWarning`, with ``what``) unless ``warn=False``.
    bounds : (low, high), optional
        Clip every iterate to this box (e.g. an overlap to ``[0, rho]``): numbers (infinities allowed) or arrays
        of the state's length, ``low <= high``.
    relative : bool, optional
        Measure the change relative to ``max(1, |x|)`` instead of absolutely.
    what : str
        Name used in the warning and error messages.
    warn : bool, optional
        Whether reaching ``max_iter`` warns.

    Returns
    -------
    FixedPoint
        The iterates, what ``update`` observed, the step count, whether it converged and the last change.

    Raises
    ------
    TypeError
        If ``update`` is not callable.
    ValueError
        For a malformed control or start (named), or ``bounds`` that are not a pair ``low <= high`` of numbers
        (or of arrays of the state's length) without NaN.
    DivergenceError
        If ``update`` returns non-finite numbers (with the iteration number and the state).

    Notes
    -----
    ``x_{t+1} = clip(damping x_t + (1 - damping) update(x_t))``; every state evolution of the book is such a
    recursion (chapter 1, eq. ``eq-state-evolution``; chapters 3-5).

    Examples
    --------
    >>> import numpy as np
    >>> from solvable.amp import iterate_fixed_point
    >>> fp = iterate_fixed_point(lambda x: np.cos(x), [1.0], tol=1e-12, max_iter=200)
    >>> print(fp.converged, f"{fp.states[-1, 0]:.6f}")
    True 0.739085
    """
    try:
        x = check_array("x0", x0).reshape(-1).copy()
    except (TypeError, ValueError) as err:
        raise type(err)(f"{err} (the start of the {what})") from None
    bounds = _check_bounds(bounds, x.size)
    fixed_length = tol == 0.0
    if (
        x.size == 1
    ):  # scalar recursions (most state evolutions): the same loop on Python floats, 3-4x less overhead
        return _iterate_scalar(update, float(x[0]), damping, tol, max_iter, relative, bounds, what, warn)
    states = [x.copy()]
    observed = []
    converged = False
    change = math.inf
    t = 0
    for t in range(1, max_iter + 1):
        out = update(x)
        if isinstance(out, tuple):
            new, obs = out
            observed.append(obs)
        else:
            new = out
        new = np.asarray(new, dtype=float).reshape(-1)
        if new.shape != x.shape or not np.all(np.isfinite(new)):
            raise DivergenceError(f"{what} diverged at iteration {t}: state {x.tolist()} -> {new.tolist()}")
        new = damping * x + (1.0 - damping) * new if damping > 0 else new
        if bounds is not None:
            new = np.clip(new, bounds[0], bounds[1])
        scale = np.maximum(1.0, np.abs(new)) if relative else 1.0
        change = float(np.max(np.abs(new - x) / scale))
        x = new
        states.append(x.copy())
        if not fixed_length and change < tol:
            converged = True
            break
        if fixed_length and change == 0.0 and t < max_iter:
            # a fixed point in floating point: every further step of the (deterministic) update repeats this state,
            # so the rest of the requested run is filled in without computing it (tol = 0, max_iter = 10**6)
            states.extend([x.copy()] * (max_iter - t))
            observed.extend(observed[-1:] * (max_iter - t))
            t = max_iter
            break
    message = _driver_message(
        what,
        converged,
        t,
        change,
        tol,
        max_iter,
        fixed_length,
        warn,
        state=lambda: np.array2string(x, precision=6),
    )
    return FixedPoint(
        states=np.array(states),
        observed=np.array(observed, dtype=float),
        iterations=t,
        converged=converged,
        change=change,
        message=message,
    )


def _iterate_scalar(update, x, damping, tol, max_iter, relative, bounds, what, warn) -> FixedPoint:
    """:func:`iterate_fixed_point` for a state of one number (identical arithmetic, Python floats)."""
    lo, hi = (float(bounds[0]), float(bounds[1])) if bounds is not None else (-math.inf, math.inf)
    fixed_length = tol == 0.0
    states = [x]
    observed = []
    converged = False
    change = math.inf
    t = 0
    for t in range(1, max_iter + 1):
        out = update(np.array([x]))
        if isinstance(out, tuple):
            new, obs = out
            observed.append(obs)
        else:
            new = out
        if isinstance(new, np.ndarray):
            if new.size != 1:
                raise DivergenceError(f"{what}: update returned {new.size} numbers for a state of one")
            new = new.item()
        new = float(new)
        if not math.isfinite(new):
            raise DivergenceError(f"{what} diverged at iteration {t}: state [{x!r}] -> [{new!r}]")
        if damping > 0:
            new = damping * x + (1.0 - damping) * new
        new = min(max(new, lo), hi)
        change = abs(new - x) / max(1.0, abs(new)) if relative else abs(new - x)
        x = new
        states.append(x)
        if not fixed_length and change < tol:
            converged = True
            break
        if fixed_length and change == 0.0 and t < max_iter:
            # a fixed point in floating point: every further step repeats it (see iterate_fixed_point)
            states.extend([x] * (max_iter - t))
            observed.extend(observed[-1:] * (max_iter - t))
            t = max_iter
            break
    message = _driver_message(
        what, converged, t, change, tol, max_iter, fixed_length, warn, state=lambda: f"[{x:.6g}]"
    )
    return FixedPoint(
        states=np.array(states, dtype=float)[:, None],
        observed=np.array(observed, dtype=float),
        iterations=t,
        converged=converged,
        change=change,
        message=message,
    )


@record
class SEResult:
    """A state evolution, the same shape for every model of the library.

    Parameters
    ----------
    error : float
        The model's error at the end of the iteration: the Bayes-optimal (or the algorithm's) error of the
        model (classification error or weight MMSE for the perceptron; per-entry MMSE on the matrix signal for
        BSR, quadratic networks and attention; ``1 - overlap`` for the sequence multi-index model).
    overlap : float
        The order parameter at the end (``q``, or ``Q0 - mmse`` for a matrix signal).
    history : numpy.ndarray
        ``(iterations + 1,)`` the predicted error after ``t`` iterations, ``history[0]`` at the start: what
        GAMP's :attr:`GAMPResult.history` is compared with.
    iterations : int
        Iterations run.
    converged : bool
        Whether the iteration met its tolerance (False at the cap).
    message : str
        Why the iteration stopped, with its numbers (:func:`stop_message`; at the cap, the warning's text).
    conjugate : float
        The conjugate order parameter (``mhat``, ``qhat``) at the end, or NaN where the model has none.
    free_entropy : float or None
        The replica-symmetric free entropy at the fixed point, where computed (else None).
    branch : str
        ``"uninformed"`` or ``"informed"``: which initialisation gave the reported fixed point (models
        with a hard phase run both and keep the one with the larger free entropy).
    algorithmic_error : float or None
        The error of the fixed point reached from the uninformed start (what AMP attains); equal
        to ``error`` outside a hard phase.
    overlap_history : numpy.ndarray or None
        ``(iterations + 1,)`` the order parameter after ``t`` iterations, where the model tracks it
        (else None).
    root : float or None
        The error at the root of the fixed-point equation found by a bracketing solver, where the model
        solves for it as well as iterating (else None). ``error`` is always what the iteration reached; the
        model checks that the two agree when the iteration converged.

    Raises
    ------
    DivergenceError
        If ``error`` or ``overlap`` is not finite.
    """

    error: float
    overlap: float
    history: np.ndarray = field(repr=False)
    iterations: int
    converged: bool
    message: str
    conjugate: float = math.nan
    free_entropy: float | None = None
    branch: str = "uninformed"
    algorithmic_error: float | None = None
    overlap_history: np.ndarray | None = field(default=None, repr=False)
    root: float | None = None

    def __post_init__(self):
        if not (math.isfinite(self.error) and math.isfinite(self.overlap)):
            raise DivergenceError(
                f"state evolution produced a non-finite result: error {self.error}, overlap {self.overlap}"
            )
        if self.algorithmic_error is None:
            object.__setattr__(self, "algorithmic_error", self.error)

    @property
    def gen_error(self) -> float:
        """``error`` under the name of the library's stable API (``glm.state_evolution(...).gen_error``)."""
        return self.error


@declare(
    prior=interface("se_overlap"),
    channel=interface("se_mhat_factor"),
    rho=real(0.0, low_open=True),
    q0=unchecked("an overlap in [0, rho]: checked against rho"),
)
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
) -> FixedPoint:
    """The GLM-form state evolution on :func:`iterate_fixed_point`.

    Parameters
    ----------
    prior : object
        Has ``se_overlap(mhat)`` (:mod:`solvable.priors`).
    channel : object
        Has ``se_mhat_factor(q, rho)`` (:mod:`solvable.channels`).
    alpha : float >= 0
        Sample ratio ``n/d``.
    q0 : float in [0, rho]
        The starting overlap.
    rho : float > 0, optional
        The prior's second moment.
    damping, tol, max_iter, warn
        As in :func:`iterate_fixed_point`.

    Returns
    -------
    FixedPoint
        ``states[:, 0]`` holds ``q_t`` (``q_0`` first), kept in ``[0, rho]``; ``observed[t]`` is ``mhat_t``,
        computed from ``q_t``.

    Raises
    ------
    TypeError
        If ``prior`` or ``channel`` lacks its method.
    ValueError
        For a parameter out of its range (named).
    DivergenceError
        If the recursion produces non-finite values.

    Warns
    -----
    ConvergenceWarning
        Near a spinodal the recursion slows down critically and may reach ``max_iter``.

    Notes
    -----
    ``mhat_t = alpha * channel.se_mhat_factor(q_t)``, ``q_{t+1} = prior.se_overlap(mhat_t)`` (chapter 1,
    eq. ``eq-state-evolution``).

    References
    ----------
    Barbier, Krzakala, Macris, Miolane and Zdeborova, PNAS 116, 5451 (2019), arXiv:1708.03395.
    """

    q0 = check_in_range("q0", q0, 0.0, rho)

    def update(x):
        mhat = alpha * float(channel.se_mhat_factor(float(x[0]), rho))
        if not math.isfinite(mhat):
            return math.nan, mhat
        return float(prior.se_overlap(mhat)), mhat

    return iterate_fixed_point(
        update,
        [q0],
        damping=damping,
        tol=tol,
        max_iter=max_iter,
        bounds=(0.0, rho),
        what=f"state evolution (alpha = {alpha:g})",
        warn=warn,
    )
