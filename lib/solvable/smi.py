"""The sequence multi-index model (SMI): one tied rank-one softmax layer at linear sample ratio.

**Model** (Troiani, Cui, Dandi, Krzakala, Zdeborova, "Fundamental limits of learning in sequence multi-index
models and deep attention networks", arXiv:2502.00901; Chapter 5, Sec. 'Low-rank attention: the sequence
multi-index model'). A sample is a sequence ``X`` in ``R^{d x T}`` (``T`` token columns of dimension ``d``, i.i.d.
N(0, 1)); the label is ``y = sigma(z_1, ..., z_p)``, an output function ``sigma`` of the projections
``z_l = X^T w_l/sqrt(d)`` on the teacher's directions ``w_l ~ N(0, I_d)``, learned from ``n = alpha d``
samples (``d -> inf`` at fixed ``alpha = n/d``, ``T``: a linear sample ratio, unlike the attention-indexed model of
:mod:`solvable.attention`, whose ``n = alpha d^2``). The worked case (``p = 1``, one direction ``w``) is one tied
rank-one softmax layer,

    z = X^T w / sqrt(d)  in R^T,        y = row-softmax(z z^T)  in R^{T x T}.                        (1)

**Equations.** ``y`` fixes ``z`` up to a global sign, so the Bayes-optimal output channel is the two-point
posterior on ``{+z, -z}``. With the overlap ``Q = w_hat . w/d`` and ``V = 1 - Q``, the state evolution
(:func:`state_evolution`, eq-smi-se) is

    E[z | y, omega] = z tanh(z . omega / V),      g_out = (E[z | y, omega] - omega) / V,
    Qhat = alpha E||g_out||^2,                    Q = Qhat / (1 + Qhat),                              (2)

with ``omega = sqrt(Q) xi`` and ``z = omega + sqrt(V) u`` (``xi``, ``u`` ~ N(0, I_T)). Linearising (2) at
``Q = 0`` gives the weak-recovery threshold (:func:`weak_recovery_threshold`, eq-smi-threshold)

    alpha_c = 1 / E||z z^T - I||_F^2 = 1 / (T (T + 1)),                                              (3)

(the factor is checked by :func:`fisher_factor`), and linearising at ``Q = 1`` gives perfect recovery above
``alpha = 1/T`` (:func:`perfect_recovery_threshold`). :func:`overlap_curve` runs (2) on a grid of ``alpha``.

**Two tied layers** with a skip connection of strength ``c`` (:func:`two_layer_sample`; the chapter takes
``c = 1``): with ``z_l = X^T w_l / sqrt(d)``, the first layer's attention matrix ``A_1`` (skip connection included)
and the projections ``z~_2`` of its output tokens on ``w_2``,

    A_1 = row-softmax(z_1 z_1^T) + c I,     z~_2 = A_1 z_2,     y = row-softmax(z~_2 z~_2^T),           (4)

``y`` fixes ``z~_2`` up to its sign (:func:`second_layer_output`); integrating ``z_2 = +-A_1(z_1)^{-1} z~_2`` out,
the posterior of ``z_1`` and of that sign is ``N(z_1; omega_1, V_1) N(+-A_1(z_1)^{-1} z~_2; omega_2, V_2) /
|det A_1(z_1)|`` and
the state evolution has one overlap per layer (:func:`two_layer_state_evolution`)::

    Qhat_l = alpha E||g_l||^2,      Q_l = Qhat_l / (1 + Qhat_l),      l = 1, 2.                        (5)

Its thresholds: each layer alone at ``1/F_l`` (:func:`two_layer_fisher_factors`), and the first layer once the
second is learned, where ``alpha F_1(Q_2) = 1`` on the branch ``Q_1 = 0`` (:func:`second_layer_branch`).
:func:`two_layer_gamp` is the algorithm.

This module shares only the engine (:func:`solvable.amp.iterate_fixed_point`,
:class:`solvable.amp.SEResult`) and the row softmax (:func:`solvable.channels.row_softmax`) with
:mod:`solvable.attention`; neither imports the other.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Sequence
from dataclasses import field

import numpy as np

from .amp import GAMPResult, SEResult, iterate_fixed_point, relative_change, stop_message
from .channels import row_softmax
from .dataset import Dataset as _BaseDataset
from .domains import VOCABULARY, Domain, array, declare, instance, integer, optional, real, seed
from .errors import ConvergenceWarning, DivergenceError, InvalidParameterError
from .errors import warn as warn_user
from .integration import hermite_rule
from .results import record
from .validation import (
    check_array,
    check_in_range,
    check_nonnegative,
    check_size,
)

__all__ = [
    "Dataset",
    "OverlapCurve",
    "SecondLayerCurve",
    "TwoLayerDataset",
    "TwoLayerSEResult",
    "fisher_factor",
    "overlap_curve",
    "perfect_recovery_threshold",
    "sample",
    "second_layer_branch",
    "second_layer_output",
    "state_evolution",
    "two_layer_fisher_factors",
    "two_layer_gamp",
    "two_layer_sample",
    "two_layer_state_evolution",
    "weak_recovery_threshold",
]

#: Largest overlap the state evolution reaches: ``V = 1 - Q`` divides in (2), so ``Q`` is kept below 1.
Q_MAX = 1.0 - 1e-12


#: The domains of the model's parameters (:mod:`solvable.domains`): the sequence length (a 1 x 1 softmax is
#: identically 1 and carries no information), the sample ratio of a data set, an overlap strictly inside (0, 1)
#: (``Q = 0`` is always a fixed point, ``V = 1 - Q`` divides) and Monte-Carlo draws.
TOKENS = integer(2)
SAMPLE_ALPHA = real(0.0, low_open=True)
OPEN_OVERLAP = real(0.0, 1.0, low_open=True, high_open=True)
N_SAMPLES = integer(2, size=True)


@record
class Dataset(_BaseDataset):
    """A data set of one tied rank-one softmax layer of the sequence multi-index model, eq. (1).

    Parameters
    ----------
    X : numpy.ndarray
        Tokens ``(n, T, d)`` (sample, token, feature, as in :mod:`solvable.attention`): sequence ``mu`` holds the
        ``T`` tokens of dimension ``d``, the columns of the papers' ``X_mu`` (``d x T``), i.i.d. N(0, 1).
    y : numpy.ndarray
        Outputs ``(n, T, T)``, ``row-softmax(z z^T)``.
    w_star : numpy.ndarray
        The teacher's weights ``(d,)``.

    Attributes
    ----------
    n, d, T : int
        Samples, token dimension and sequence length.
    alpha : float
        Sample ratio ``n / d`` (linear scaling, unlike the attention-indexed model).
    z : numpy.ndarray
        The teacher's preactivations ``X^T w / sqrt(d)``, ``(n, T)``.

    Raises
    ------
    TypeError
        If an array is not an array of real numbers.
    ValueError
        If an array is empty, not finite or of the wrong shape.

    Notes
    -----
    ``z = X^T w* / sqrt(d)`` and ``y = row-softmax(z z^T)`` (:func:`sample`).

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model'; Troiani et al. 2025, arXiv:2502.00901.
    """

    w_star: np.ndarray = field(repr=False)

    def _check(self) -> None:
        X, y, w = self.X, self.y, self.w_star
        if X.ndim != 3 or y.shape != (X.shape[0], X.shape[1], X.shape[1]) or w.shape != (X.shape[2],):
            raise InvalidParameterError(
                f"X must be (n, T, d), y (n, T, T) and w_star (d,); got {X.shape}, {y.shape}, {w.shape}"
            )

    @property
    def d(self) -> int:
        """Token dimension (the last axis of ``X``)."""
        return int(self.X.shape[2])

    @property
    def T(self) -> int:
        """Sequence length (the second axis of ``X``)."""
        return int(self.X.shape[1])

    @property
    def alpha(self) -> float:
        """Sample ratio ``n / d`` (linear scaling, unlike the attention-indexed model)."""
        return self.n / self.d

    @property
    def z(self) -> np.ndarray:
        """Teacher preactivations ``X^T w/sqrt(d)`` (n, T)."""
        return np.einsum("ntd,d->nt", self.X, self.w_star) / math.sqrt(self.d)


@declare(d=integer(2, size=True), alpha=SAMPLE_ALPHA, T=TOKENS)
def sample(d: int, alpha: float, *, T: int, rng) -> Dataset:
    """Draw a teacher ``w ~ N(0, I_d)`` and ``n = round(alpha d)`` sequences of eq. (1).

    Parameters
    ----------
    d : int
        Token dimension, ``>= 2``.
    alpha : float
        Sample ratio ``n / d``, ``> 0``.
    T : int
        Sequence length, ``>= 2``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the draws (SPEC 7; ``None`` is refused).

    Returns
    -------
    Dataset
        ``X`` (n, T, d), ``y`` (n, T, T) and ``w_star`` (d,).

    Raises
    ------
    TypeError
        If ``d`` or ``T`` is not an integer or ``rng`` is not a random source.
    ValueError
        If ``alpha`` is out of range, ``alpha d`` rounds to 0, or the arrays would hold more than
        :data:`solvable.validation.MAX_ELEMENTS` numbers at once.

    Notes
    -----
    Draw order: ``w``, then ``X`` (as an ``(n, d, T)`` array, stored ``(n, T, d)``); with ``z = X^T w / sqrt(d)``::

        y = row-softmax(z z^T).

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model'; Troiani et al. 2025, arXiv:2502.00901.

    Examples
    --------
    >>> from solvable import smi
    >>> data = smi.sample(50, 2.0, T=3, rng=0)
    >>> print(data.n, data.d, data.T, data.X.shape, data.y.shape, data.w_star.shape)
    100 50 3 (100, 3, 50) (100, 3, 3) (50,)
    """
    if not alpha * d < 2.0**62:
        raise InvalidParameterError(f"alpha d = {alpha * d:.3g} samples is beyond any array: reduce alpha")
    n = round(alpha * d)
    if n < 1:
        raise InvalidParameterError(
            f"alpha d must round to at least 1 sample, got n = {n} at alpha = {alpha:g}, d = {d}"
        )
    check_size("the tokens X (n = alpha d, T, d)", n, d, T)
    # Peak: the tokens as drawn and as stored, the preactivations and the outputs with the softmax's temporaries.
    check_size(
        "the arrays of sample (X (n, d, T) drawn and (n, T, d) stored, z (n, T), outputs and their "
        "temporaries (n, T, T) x 4) together",
        2 * n * d * T + n * T + 4 * n * T * T + d,
    )
    w = rng.standard_normal(d)
    drawn = rng.standard_normal((n, d, T))  # the papers' X_mu (d x T), one per sequence
    z = np.einsum("ndt,d->nt", drawn, w) / math.sqrt(d)
    X = np.ascontiguousarray(np.swapaxes(drawn, 1, 2))
    return Dataset.adopt(X=X, y=row_softmax(z[:, :, None] * z[:, None, :]), w_star=w)


@declare(T=TOKENS)
def weak_recovery_threshold(T: int) -> float:
    """Weak-recovery threshold ``alpha_c = 1/(T(T+1))`` of one tied rank-one softmax layer, eq. (3).

    Parameters
    ----------
    T : int
        Sequence length, ``>= 2``.

    Returns
    -------
    float
        ``alpha_c``: below it the state evolution (2) decays to ``Q = 0``, above it it grows.

    Raises
    ------
    ValueError
        If ``T < 2`` (TypeError for a non-integer).

    Notes
    -----
    ``y = row-softmax(z z^T)`` fixes ``z`` up to a global sign, so near ``Q = 0`` the state evolution (2) is
    linear, ``Qhat = alpha E||z z^T - I||_F^2 Q``, and (eq-smi-threshold)::

        E||z z^T - I||_F^2 = E|z|^4 - 2 E|z|^2 + T = T (T + 1),      alpha_c = 1 / (T (T + 1)),

    for ``z ~ N(0, I_T)`` (checked by :func:`fisher_factor`). ``T = 2``: 1/6.

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model', eq-smi-threshold; Troiani et al. 2025,
    arXiv:2502.00901.

    Examples
    --------
    >>> from solvable import smi
    >>> print([round(smi.weak_recovery_threshold(T), 4) for T in (2, 3, 4)])
    [0.1667, 0.0833, 0.05]
    """
    return 1.0 / (T * (T + 1))


@declare(T=TOKENS)
def perfect_recovery_threshold(T: int) -> float:
    """Sample ratio ``alpha = n/d`` above which the state evolution (2) reaches ``Q = 1``: ``1/T``.

    Parameters
    ----------
    T : int
        Sequence length, ``>= 2``.

    Returns
    -------
    float
        ``alpha_PR = 1/T``.

    Raises
    ------
    ValueError
        If ``T < 2`` (TypeError for a non-integer).

    Notes
    -----
    Counting: ``y`` fixes the ``T`` numbers ``z`` up to a global sign, so ``n`` samples give ``n T`` equations for
    ``d`` unknowns. Stability: near ``Q = 1`` the sign is known and ``E||g_out||^2 = T/V``, so::

        1 - Q_new = (1 - Q) / (alpha T),

    and ``Q = 1`` attracts iff ``alpha T > 1``. Derived here (not in the paper) and checked numerically by
    :func:`state_evolution`.

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model'; Troiani et al. 2025, arXiv:2502.00901.

    Examples
    --------
    >>> from solvable import smi
    >>> print([round(smi.perfect_recovery_threshold(T), 4) for T in (2, 3, 4)])
    [0.5, 0.3333, 0.25]
    """
    return 1.0 / T


#: Arrays of shape (n_samples, T) that :func:`fisher_factor` holds at once (the draws and their squares).
_FISHER_ARRAYS = 3
#: Arrays of shape (n_samples, T) that :func:`state_evolution` holds at once (the draws and one update's
#: temporaries).
_SE_ARRAYS = 7


@declare(T=TOKENS, n_samples=N_SAMPLES)
def fisher_factor(T: int, *, n_samples: int = 100_000, rng) -> tuple[float, float]:
    """Monte-Carlo estimate of ``E||z z^T - I||_F^2`` for ``z ~ N(0, I_T)`` (exactly ``T(T+1)``, eq. (3)).

    Parameters
    ----------
    T : int
        Sequence length, ``>= 2``.
    n_samples : int, optional
        Monte-Carlo draws of ``z``, ``>= 2``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the draws.

    Returns
    -------
    tuple of float
        ``(mean, stderr)``: the Monte-Carlo mean and its standard error.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If ``T < 2``, ``n_samples < 2``, or the draws and their temporaries would hold more than
        :data:`solvable.validation.MAX_ELEMENTS` numbers at once.

    Notes
    -----
    ``||z z^T - I||_F^2 = |z|^4 - 2 |z|^2 + T``, whose mean is ``T (T + 1)``: the inverse of the weak-recovery
    threshold (:func:`weak_recovery_threshold`).

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model', eq-smi-threshold; Troiani et al. 2025,
    arXiv:2502.00901.

    Examples
    --------
    >>> from solvable import smi
    >>> mean, stderr = smi.fisher_factor(2, n_samples=20000, rng=0)
    >>> print(f"{mean:.1f} +- {stderr:.1f}, exact T(T + 1) = 6")
    6.1 +- 0.1, exact T(T + 1) = 6
    >>> print(round(1 / smi.weak_recovery_threshold(2), 4))
    6.0
    """
    check_size(
        "the Monte-Carlo draws (n_samples, T) and their temporaries together", _FISHER_ARRAYS * n_samples * T
    )
    z = rng.standard_normal((n_samples, T))
    s = np.sum(z * z, axis=1)
    v = s * s - 2.0 * s + T  # ||z z^T - I||_F^2
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(n_samples))


def _qhat(alpha, Q, z, xi):
    """``alpha E||g_out||^2`` of eq. (2) with the two-point posterior, on fixed draws ``z`` (teacher), ``xi``."""
    V = 1.0 - Q
    omega = Q * z + math.sqrt(Q * V) * xi  # (omega, z) jointly Gaussian: Var omega = Q, Cov(omega, z) = Q
    t = np.tanh(np.sum(z * omega, axis=1) / V)
    g = (z * t[:, None] - omega) / V
    return alpha * float(np.mean(np.sum(g * g, axis=1)))


def _check_draws(name: str, value) -> tuple[np.ndarray, np.ndarray]:
    """A pair ``(z, xi)`` of finite 2-d arrays of the same shape with at least one row."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise InvalidParameterError(f"{name} must be a pair of arrays (z, xi), got {type(value).__name__}")
    z, xi = array(2)(f"{name}[0] (z)", value[0]), array(2)(f"{name}[1] (xi)", value[1])
    if z.shape != xi.shape:
        raise InvalidParameterError(
            f"{name} must be two arrays of the same shape (n, T), got {z.shape} and {xi.shape}"
        )
    return z, xi


#: The Monte-Carlo sample of :func:`state_evolution`, given instead of drawn.
DRAWS = optional(
    Domain(
        "a pair (z, xi) of two non-empty finite 2-d arrays of the same shape (n, T)", _check_draws, "object"
    ),
    "drawn from rng",
)


@declare(
    T=TOKENS,
    start=OPEN_OVERLAP,
    n_samples=N_SAMPLES,
    draws=DRAWS,
    rng=optional(VOCABULARY["rng"], "required unless draws is given"),
)
def state_evolution(
    alpha: float,
    T: int,
    *,
    start: float = 1e-3,
    n_samples: int = 100_000,
    damping: float = 0.0,
    tol: float = 1e-7,
    max_iter: int = 3000,
    warn: bool = True,
    draws=None,
    rng=None,
) -> SEResult:
    """Bayes-optimal state evolution (2) of one tied rank-one softmax layer of the sequence multi-index model.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d``, ``>= 0``.
    T : int
        Sequence length, ``>= 2``.
    start : float, optional
        The overlap ``Q_0`` in ``(0, 1)`` at ``t = 0`` (``Q = 0`` is always a fixed point: start just above it).
    n_samples : int, optional
        Monte-Carlo draws of ``(z, omega)``, ``>= 2``.
    damping : float, optional
        In ``[0, 1)``: ``Q_{t+1} = damping Q_t + (1 - damping) Qhat/(1 + Qhat)``.
    tol : float, optional
        In ``[0, 1)``: stop when ``|Q_{t+1} - Q_t| < tol``; ``0`` runs exactly ``max_iter`` steps.
    max_iter : int, optional
        Iteration cap, ``>= 1``.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when ``max_iter`` is reached before ``tol``.
    draws : tuple of two numpy.ndarray, optional
        The Monte-Carlo sample ``(z, xi)``, two finite arrays of shape ``(n, T)`` (``z`` the teacher's
        preactivations, ``xi`` the independent part of ``omega``, both meant to be N(0, 1)); when given,
        ``n_samples`` and ``rng`` are not used. This makes the iteration reproducible draw for draw (the exercise
        of Chapter 5 compares a reader's loop with it iterate for iterate).
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the Monte-Carlo draws, made once (common random numbers: the iteration is a deterministic map);
        required unless ``draws`` is given.

    Returns
    -------
    solvable.amp.SEResult
        ``overlap`` the last ``Q``, ``error = 1 - Q``, ``history`` the error ``1 - Q_t`` after each iteration
        (``history[0] = 1 - start``), ``overlap_history`` the ``Q_t``, ``conjugate`` the last ``Qhat``.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is out of its domain, or the draws and one update's temporaries would hold more than
        :data:`solvable.validation.MAX_ELEMENTS` numbers at once.

    Notes
    -----
    With ``V = 1 - Q``, ``omega = sqrt(Q) xi`` and the teacher ``z = omega + sqrt(V) u`` (``z`` in ``R^T``), the
    posterior of ``z`` given ``y = row-softmax(z z^T)`` and ``omega`` is the two-point law on ``{+z, -z}``
    (eq-smi-se)::

        E[z | y, omega] = z tanh(z . omega/V),   g_out = (E[z | y, omega] - omega)/V,
        Qhat = alpha E||g_out||^2,               Q = Qhat/(1 + Qhat),

    kept in ``[0, 1 - 1e-12]``, on the shared driver :func:`solvable.amp.iterate_fixed_point`. Below
    ``alpha_c = 1/(T(T+1))`` ``Q`` decays to 0, above it it grows to the informative fixed point (critical
    slowing down near ``alpha_c``). The expectation is a Monte-Carlo mean over the draws ``(z, xi)``, with
    ``omega = Q z + sqrt(Q V) xi`` (the same joint law of ``(z, omega)``: ``Var omega = Cov(z, omega) = Q``).

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model', eq-smi-se; Troiani et al. 2025,
    arXiv:2502.00901.

    Examples
    --------
    >>> from solvable import smi
    >>> print(smi.weak_recovery_threshold(2), smi.perfect_recovery_threshold(2))
    0.16666666666666666 0.5
    >>> for alpha in (0.1, 0.3, 0.6):
    ...     res = smi.state_evolution(alpha, 2, n_samples=2000, rng=0)
    ...     print(alpha, f"overlap {res.overlap:.2f}", res.converged)
    ...
    0.1 overlap 0.00 True
    0.3 overlap 0.25 True
    0.6 overlap 1.00 True
    """
    q0 = start
    if draws is None:
        check_size(
            "the Monte-Carlo draws (n_samples, T) and one update's temporaries together",
            _SE_ARRAYS * n_samples * T,
        )
        rng = VOCABULARY["rng"]("rng", rng)  # None is refused here: the draws are made from rng
        z = rng.standard_normal((n_samples, T))
        xi = rng.standard_normal((n_samples, T))
    else:
        z, xi = draws
        if z.shape[1] != T:
            raise InvalidParameterError(
                f"draws must be two arrays of shape (n, T = {T}), got {z.shape} and {xi.shape}"
            )
        check_size("one update's temporaries on the draws (n, T)", _SE_ARRAYS * z.size)

    def update(x):
        # min(.): at a huge alpha the conjugate overflows to inf (and inf/inf is NaN); at the largest float
        # qhat/(1 + qhat) rounds to 1, kept below Q_MAX.
        qhat = min(_qhat(alpha, float(x[0]), z, xi), sys.float_info.max)
        return np.array([qhat / (1.0 + qhat)]), qhat

    fp = iterate_fixed_point(
        update,
        [q0],
        damping=damping,
        tol=tol,
        max_iter=max_iter,
        bounds=(0.0, Q_MAX),
        what=f"SMI state evolution (alpha = {alpha:g}, T = {T})",
        warn=warn,
    )
    overlaps = fp.states[:, 0]
    Q = float(overlaps[-1])
    return SEResult(
        error=1.0 - Q,
        overlap=Q,
        history=1.0 - overlaps,
        iterations=fp.iterations,
        converged=fp.converged,
        message=fp.message,
        conjugate=float(fp.observed[-1]),
        overlap_history=overlaps,
    )


@record
class OverlapCurve:
    """The state-evolution overlap ``Q(alpha)`` of :func:`overlap_curve`, with both thresholds.

    Parameters
    ----------
    alphas : numpy.ndarray
        The sample ratios ``n / d``.
    overlap : numpy.ndarray
        The overlap ``Q`` reached at each ratio.
    alpha_c : float
        The weak-recovery threshold ``1/(T(T+1))``.
    alpha_pr : float
        The perfect-recovery threshold ``1/T``.
    converged : numpy.ndarray
        Whether each point met its tolerance.

    Notes
    -----
    ``Q = 0`` below ``alpha_c``, ``0 < Q < 1`` between the thresholds, ``Q = 1`` above ``alpha_pr`` (eq-smi-se).

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model'; Troiani et al. 2025, arXiv:2502.00901.
    """

    alphas: np.ndarray
    overlap: np.ndarray
    alpha_c: float
    alpha_pr: float
    converged: np.ndarray


@declare(alphas=array(1), T=TOKENS, start=OPEN_OVERLAP, n_samples=N_SAMPLES)
def overlap_curve(
    alphas: Sequence[float],
    T: int,
    *,
    start: float = 1e-3,
    n_samples: int = 100_000,
    tol: float = 1e-7,
    max_iter: int = 3000,
    rng,
) -> OverlapCurve:
    """State-evolution overlap of eq. (2) against ``alpha``, with the same Monte-Carlo draws at every point.

    Parameters
    ----------
    alphas : sequence of float
        Sample ratios ``n / d``, each ``>= 0`` (a non-empty 1-d sequence).
    T : int
        Sequence length, ``>= 2``.
    start : float, optional
        The starting overlap ``Q_0`` in ``(0, 1)`` of every point.
    n_samples : int, optional
        Monte-Carlo draws, ``>= 2``.
    tol : float, optional
        In ``[0, 1)``: each point's tolerance on ``|Q_{t+1} - Q_t|``.
    max_iter : int, optional
        Each point's iteration cap, ``>= 1``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of one seed from which every point's draws are made.

    Returns
    -------
    OverlapCurve
        The overlaps, both thresholds and per-point convergence (points that did not converge, by critical
        slowing down next to ``alpha_c`` and ``alpha_pr``, are flagged instead of warning).

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is out of its domain.

    Notes
    -----
    :func:`state_evolution` at each ``alpha``: ``Q`` is about 0 below ``alpha_c = 1/(T(T+1))``, positive above
    (weak recovery; continuous transition), and 1 above ``alpha_pr = 1/T``.

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model', eq-smi-se; Troiani et al. 2025,
    arXiv:2502.00901.

    Examples
    --------
    >>> from solvable import smi
    >>> curve = smi.overlap_curve([0.1, 0.3, 0.6], 2, n_samples=2000, rng=0)
    >>> print(round(curve.alpha_c, 4), curve.alpha_pr, curve.overlap.round(2), curve.converged)
    0.1667 0.5 [0.   0.26 1.  ] [ True  True  True]
    """
    for i, a in enumerate(alphas):
        check_nonnegative(f"alphas[{i}]", a)
    q0 = start
    check_size(
        "the Monte-Carlo draws (n_samples, T) and one update's temporaries together",
        _SE_ARRAYS * n_samples * T,
    )
    seed = rng.integers(2**63)
    out, conv = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for a in alphas:
            res = state_evolution(
                a,
                T,
                start=q0,
                n_samples=n_samples,
                tol=tol,
                max_iter=max_iter,
                rng=np.random.default_rng(seed),
            )
            out.append(res.overlap)
            conv.append(res.converged)
    return OverlapCurve(
        alphas=alphas,
        overlap=np.asarray(out),
        alpha_c=weak_recovery_threshold(T),
        alpha_pr=perfect_recovery_threshold(T),
        converged=np.asarray(conv),
    )


# --------------------------------------------------------------------------- two tied layers

#: At ``T = 2``, the fixed rule of the quadrature over ``z_1`` (used while ``V_2 < V_1`` and ``V_1 >=``
#: :data:`FIXED_MIN_VARIANCE`) has this many times ``n_nodes`` nodes per token.
FIXED_NODES_FACTOR = 4
#: Smallest ``V_1`` at which the fixed rule on ``N(0, I)`` is reweighted to ``N(omega_1, V_1 I)``; below it the
#: nodes follow ``omega_1`` (with the Laplace components of the likelihood's peaks).
FIXED_MIN_VARIANCE = 0.2

#: Variance of the random part of :func:`two_layer_gamp`'s initial estimate (``w = 0`` is a fixed point of GAMP).
RANDOM_START = 0.01

#: Gauss-Hermite nodes per token of the quadrature over the first layer's preactivations (the product rule has
#: ``TWO_LAYER_NODES ** T`` points). At T = 2 the conjugates of eq. (5) change by less than 1e-3 relative from 12
#: to 40 nodes at every overlap tried (tests/test_smi_two_layer.py).
TWO_LAYER_NODES = 16


@record
class TwoLayerDataset(_BaseDataset):
    """A data set of two tied rank-one softmax layers with a skip connection, eq. (4).

    Parameters
    ----------
    X : numpy.ndarray
        Tokens ``(n, T, d)`` (sample, token, feature, as in :mod:`solvable.attention`): sequence ``mu`` holds the
        ``T`` tokens of dimension ``d``, the columns of the papers' ``X_mu`` (``d x T``), i.i.d. N(0, 1).
    y : numpy.ndarray
        Outputs ``(n, T, T)``, ``row-softmax(z~_2 z~_2^T)``.
    W_star : numpy.ndarray
        The teacher's directions ``(d, 2)``: column 0 the first layer's ``w_1``, column 1 the second's ``w_2``.
    c : float
        Strength of the skip connection, ``>= 0``.

    Attributes
    ----------
    n, d, T : int
        Samples, token dimension and sequence length.
    alpha : float
        Sample ratio ``n / d``.
    z : numpy.ndarray
        The teacher's preactivations ``(n, T, 2)``: ``z[..., l] = X^T w_l / sqrt(d)``.

    Raises
    ------
    TypeError
        If an array is not an array of real numbers.
    ValueError
        If an array is empty, not finite or of the wrong shape, or ``c`` is out of ``[0.01, 1e6]``.

    Notes
    -----
    ``z~_2 = A_1 z_2 = (row-softmax(z_1 z_1^T) + c I) z_2`` and ``y = row-softmax(z~_2 z~_2^T)``
    (:func:`two_layer_sample`).

    References
    ----------
    Chapter 5, Sec. 'Deeper networks: layers learned one after the other'; Troiani et al. 2025, arXiv:2502.00901.
    """

    W_star: np.ndarray = field(repr=False)
    c: float = 1.0

    def _check(self) -> None:
        X, y, W = self.X, self.y, self.W_star
        if X.ndim != 3 or y.shape != (X.shape[0], X.shape[1], X.shape[1]) or W.shape != (X.shape[2], 2):
            raise InvalidParameterError(
                f"X must be (n, T, d), y (n, T, T) and W_star (d, 2); got {X.shape}, {y.shape}, {W.shape}"
            )
        object.__setattr__(self, "c", _check_c(self.c))

    @property
    def d(self) -> int:
        """Token dimension (the last axis of ``X``)."""
        return int(self.X.shape[2])

    @property
    def T(self) -> int:
        """Sequence length (the second axis of ``X``)."""
        return int(self.X.shape[1])

    @property
    def alpha(self) -> float:
        """Sample ratio ``n / d``."""
        return self.n / self.d

    @property
    def z(self) -> np.ndarray:
        """Teacher preactivations ``X^T W / sqrt(d)`` (n, T, 2)."""
        return np.einsum("ntd,dl->ntl", self.X, self.W_star) / math.sqrt(self.d)


def _mixing(z1, c):
    """The first layer's token mixing ``A = row-softmax(z_1 z_1^T) + c I`` on the last axis of ``z1``."""
    h = z1[..., :, None] * z1[..., None, :]
    e = np.exp(h - np.max(h, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True) + c * np.eye(z1.shape[-1])


def _solve_mixing_two(z1, b, c):
    """``A(z_1)^{-1} b`` and ``log |det A(z_1)|`` at ``T = 2`` in closed form (the hot loop of eq. (5)).

    Row ``t`` of the softmax of ``z_1 z_1^T`` is ``(sigma(z_t delta), 1 - sigma(z_t delta))`` with ``delta = z_{1,1} -
    z_{1,2}`` and ``sigma`` the logistic function: ``A = [[p + c, 1 - p], [q, 1 - q + c]]``.
    """
    x0, x1 = z1[..., 0], z1[..., 1]
    delta = x0 - x1
    p = 0.5 * (1.0 + np.tanh(0.5 * x0 * delta))
    q = 0.5 * (1.0 + np.tanh(0.5 * x1 * delta))
    a11, a12, a21, a22 = p + c, 1.0 - p, q, 1.0 - q + c
    det = a11 * a22 - a12 * a21  # = c (1 + c + p - q) > 0 for c > 0
    b0, b1 = b[..., 0], b[..., 1]
    return (a22 * b0 - a12 * b1) / det, (a11 * b1 - a21 * b0) / det, np.log(np.abs(det))


def _solve_logdet(A, b):
    """``A^{-1} b`` and ``log |det A|`` for a stack of small matrices (closed form at T = 2)."""
    if A.shape[-1] == 2:
        a11, a12, a21, a22 = A[..., 0, 0], A[..., 0, 1], A[..., 1, 0], A[..., 1, 1]
        det = a11 * a22 - a12 * a21
        u = np.stack(
            [(a22 * b[..., 0] - a12 * b[..., 1]) / det, (a11 * b[..., 1] - a21 * b[..., 0]) / det], -1
        )
        return u, np.log(np.abs(det))
    return np.linalg.solve(A, b[..., None])[..., 0], np.linalg.slogdet(A)[1]


def _two_layer_output(z, c):
    """``b = (row-softmax(z_1 z_1^T) + c I) z_2`` for preactivations ``z`` of shape ``(..., T, 2)``."""
    return np.einsum("...ts,...s->...t", _mixing(z[..., 0], c), z[..., 1])


@declare(y=array())
def second_layer_output(y) -> np.ndarray:
    """The vector ``b`` in ``y = row-softmax(b b^T)`` (the chapter's ``z~_2``), recovered from the labels up to
    its global sign.

    Parameters
    ----------
    y : array_like (..., T, T)
        Row-softmax outputs of rank-one logits ``b b^T``, ``T >= 2``, with positive entries.

    Returns
    -------
    numpy.ndarray (..., T)
        One of ``+b`` and ``-b`` (the labels cannot tell them apart).

    Raises
    ------
    TypeError
        If ``y`` is not an array of real numbers.
    ValueError
        If ``y`` is not a stack of square matrices with ``T >= 2`` and positive entries, or is not the softmax
        of rank-one logits (two equal entries of ``b`` make the recovery impossible).

    Notes
    -----
    With ``L_ts = log y_ts - log y_tt = b_t (b_s - b_t)``, ``L_ts + L_st = -(b_t - b_s)^2``, so
    ``b_t^2 = L_ts^2 / (-(L_ts + L_st))`` and then ``b_s = b_t + L_ts / b_t`` for every ``s``. The pair ``(t, s)``
    is the one with the largest ``|b_t - b_s|`` and ``t`` its entry of larger modulus (the best conditioned).
    The same holds for the outputs of one layer, ``y = row-softmax(z z^T)`` (eq. (1)).

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model' and 'Deeper networks: layers learned one
    after the other'.
    """
    if y.ndim < 2 or y.shape[-1] != y.shape[-2] or y.shape[-1] < 2:
        raise InvalidParameterError(f"y must be a stack of T x T matrices with T >= 2, got shape {y.shape}")
    if np.any(y <= 0):
        raise InvalidParameterError("y must have positive entries (a softmax of finite logits)")
    L = np.log(y)
    L = L - np.diagonal(L, axis1=-2, axis2=-1)[..., :, None]  # L_ts = log y_ts - log y_tt
    gap = -(L + np.swapaxes(L, -1, -2))  # (b_t - b_s)^2
    flat = gap.reshape(*gap.shape[:-2], -1)
    k = np.argmax(flat, axis=-1)
    T = y.shape[-1]
    t, s = k // T, k % T
    Lts = np.take_along_axis(L.reshape(flat.shape), k[..., None], -1)[..., 0]
    Lst = np.take_along_axis(L.reshape(flat.shape), (s * T + t)[..., None], -1)[..., 0]
    g = np.take_along_axis(flat, k[..., None], -1)[..., 0]
    if np.any(g <= 1e-12 * (1.0 + np.abs(Lts))):
        raise InvalidParameterError(
            "y is not the softmax of rank-one logits b b^T with distinct entries of b"
        )
    bt2, bs2 = Lts**2 / g, Lst**2 / g
    ref = np.where(bt2 >= bs2, t, s)  # the better conditioned entry of the pair
    bref = np.sqrt(np.maximum(bt2, bs2))
    row = np.take_along_axis(L, ref[..., None, None], -2)[..., 0, :]  # L_{ref, s} for every s
    return bref[..., None] + row / bref[..., None]


def _product_rule(T: int, n_nodes: int):
    """Gauss-Hermite product rule for ``N(0, I_T)``: nodes ``(n_nodes^T, T)`` and weights summing to 1."""
    x, w = hermite_rule(n_nodes)
    grid = np.stack(np.meshgrid(*([x] * T), indexing="ij"), -1).reshape(-1, T)
    weights = np.prod(np.stack(np.meshgrid(*([w] * T), indexing="ij"), -1).reshape(-1, T), -1)
    return grid, weights


def _laplace_components(b, omega, V, c):
    """Gaussian approximations of the posterior of ``z_1`` near its peaks when ``V_2`` is small (``T = 2``).

    For a sign ``s``, ``A(z_1) omega_2 = s b`` is linear in the softmax entries ``p = sigma(x_1 delta)``,
    ``q = sigma(x_2 delta)`` of ``A`` (``z_1 = (x_1, x_2)``, ``delta = x_1 - x_2``)::

        p = (s b_1 - c w_1 - w_2) / D,      q = (s b_2 - (1 + c) w_2) / D,      D = w_1 - w_2,

    (``omega_2 = (w_1, w_2)``), and has the two roots ``z_1 = +-(logit p, logit q)/delta``, ``delta^2 = logit p -
    logit q``, iff ``0 < q < p < 1``. Near a root ``r``, ``u(z_1) = s A(z_1)^{-1} b ~ omega_2 + J (z_1 - r)`` with
    ``J = -A^{-1} d(A omega_2)/dz_1``, so the posterior is close to the Gaussian of precision
    ``P = J^T J / V_2 + I/V_1`` and mean ``P^{-1} (J^T J r / V_2 + omega_1 / V_1)``. Returns the means ``(4, m, T)``
    (roots ``+r_s, -r_s`` for ``s = +1, -1``), the Cholesky factors of the covariances ``(4, m, T, T)`` and which
    roots exist ``(4, m)``."""
    V1, V2 = float(V[0]), float(V[1])
    w1, w2 = omega[:, 0, 1], omega[:, 1, 1]
    om1 = omega[..., 0]
    D = w1 - w2
    means, chols, valid = [], [], []
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for sign in (1.0, -1.0):
            p = (sign * b[:, 0] - c * w1 - w2) / D
            q = (sign * b[:, 1] - (1.0 + c) * w2) / D
            ok = (q > 1e-12) & (p > q) & (p < 1.0 - 1e-12) & np.isfinite(p) & np.isfinite(q)
            p, q = np.where(ok, p, 0.75), np.where(ok, q, 0.25)
            lp, lq = np.log(p / (1.0 - p)), np.log(q / (1.0 - q))
            delta = np.sqrt(lp - lq)
            x0, x1 = lp / delta, lq / delta
            pp, qq = p * (1.0 - p), q * (1.0 - q)
            JF = D[:, None, None] * np.stack(
                [np.stack([pp * (2 * x0 - x1), -pp * x0], -1), np.stack([qq * x1, qq * (x0 - 2 * x1)], -1)],
                -2,
            )
            A = np.stack([np.stack([p + c, 1.0 - p], -1), np.stack([q, 1.0 - q + c], -1)], -2)
            J = -np.linalg.solve(A, JF)
            JtJ = np.einsum("mki,mkj->mij", J, J) / V2
            P = JtJ + np.eye(2) / V1  # the precision; its inverse and Cholesky factor written out (2 x 2)
            detP = P[:, 0, 0] * P[:, 1, 1] - P[:, 0, 1] * P[:, 1, 0]
            cov = (
                np.stack(
                    [np.stack([P[:, 1, 1], -P[:, 0, 1]], -1), np.stack([-P[:, 1, 0], P[:, 0, 0]], -1)], -2
                )
                / detP[:, None, None]
            )
            ok &= np.all(np.isfinite(cov), axis=(1, 2)) & (detP > 0) & (cov[:, 0, 0] > 0)
            cov = np.where(ok[:, None, None], cov, V1 * np.eye(2))
            l00 = np.sqrt(cov[:, 0, 0])
            l10 = cov[:, 1, 0] / l00
            l11 = np.sqrt(np.maximum(cov[:, 1, 1] - l10 * l10, 1e-300))
            L = np.stack([np.stack([l00, np.zeros_like(l00)], -1), np.stack([l10, l11], -1)], -2)
            for root in (1.0, -1.0):
                r = root * np.stack([x0, x1], -1)
                mu = np.einsum("mij,mj->mi", cov, np.einsum("mij,mj->mi", JtJ, r) + om1 / V1)
                means.append(np.where(ok[:, None], mu, om1))
                chols.append(L)
                valid.append(ok)
    return np.stack(means), np.stack(chols), np.stack(valid)


class _Quadrature:
    """The quadrature rules of eq. (5) for one ``(T, c, n_nodes)``.

    ``grid, weights``: the product rule of ``N(0, I_T)`` with ``n_nodes`` per token (moved to ``N(omega_1, V_1 I)``
    per sample). At ``T = 2`` also a fixed rule, ``FIXED_NODES_FACTOR * n_nodes`` per token on ``N(0, I)``, with
    the mixing matrices solved once (``inverse``: the entries of ``A^{-1}``, ``logdet``): at ``Q_1 = 0`` the prior
    of ``z_1`` is ``N(0, I)`` for every sample, so one fine rule serves every sample and iteration."""

    def __init__(self, T, c, n_nodes):
        self.T, self.c = T, c
        self.grid, self.weights = _product_rule(T, n_nodes)
        self.fixed = None
        if T == 2 and c > 0:
            grid, weights = _product_rule(2, min(300, FIXED_NODES_FACTOR * n_nodes))
            A = _mixing(grid, c)
            det = A[:, 0, 0] * A[:, 1, 1] - A[:, 0, 1] * A[:, 1, 0]
            inverse = np.stack([A[:, 1, 1], -A[:, 0, 1], -A[:, 1, 0], A[:, 0, 0]], -1) / det[:, None]
            self.fixed = (
                grid,
                np.log(weights) + 0.5 * np.sum(grid * grid, axis=-1),
                inverse,
                np.log(np.abs(det)),
            )

    @property
    def size(self) -> int:
        """The most nodes one sample uses."""
        return 5 * self.grid.shape[0] + (0 if self.fixed is None else self.fixed[0].shape[0])


def _two_layer_posterior(b, omega, V, quad):
    """Posterior means and per-token variances of ``(z_1, z_2)`` given ``b`` (up to sign) and the Gaussian
    predictions ``omega (m, T, 2)`` with variances ``V = (V_1, V_2)``: eq. (5). Returns ``(mean, var)``, both
    ``(m, T, 2)``.

    The integral over ``z_1`` is a Gauss-Hermite product rule on the Gaussian ``N(omega_1, V_1 I)``; at ``T = 2``
    with ``V_2 < V_1``, on a mixture of that Gaussian and the Laplace approximations of
    :func:`_laplace_components` (up to four), each with its own product rule and the integrand divided by the
    mixture's density (a partition of unity: exact in the limit of many nodes, whatever the mixture). Without them a
    narrow peak of the likelihood falls between the nodes: the rule on ``N(omega_1, V_1 I)`` alone misses
    ``Qhat_1`` by a factor 2 at ``Q = (0, 0.98)`` with 16 nodes per token."""
    V = np.asarray(V, dtype=float)
    if V.ndim == 2:  # a full prediction covariance: z_2 given z_1 has mean omega_2 + k (z_1 - omega_1)
        V1, k = float(V[0, 0]), float(V[1, 0] / V[0, 0])
        V2 = float(V[1, 1] - V[1, 0] * V[0, 1] / V[0, 0])
    else:
        V1, V2, k = float(V[0]), float(V[1]), 0.0
    m, T = b.shape
    c, grid, weights = quad.c, quad.grid, quad.weights
    G = grid.shape[0]
    if quad.fixed is None or V2 >= V1:
        z1 = omega[:, None, :, 0] + math.sqrt(V1) * grid[None]  # (m, G, T): nodes of N(omega_1, V_1 I)
        return _posterior_on_nodes(b, omega, V2, c, z1, np.broadcast_to(np.log(weights), (m, G)), k=k)[:3]
    # A mixture of Gaussian components, each with its product rule, the integrand divided by the mixture's
    # density: the fixed fine rule on N(0, I) (component F), the prediction N(omega_1, V_1 I) and the Laplace
    # approximations of the likelihood's peaks.
    mu, L, ok = _laplace_components(b, omega, (V1, V2), c)
    mu = np.concatenate([omega[None, :, :, 0], mu])  # (K, m, T), K = 5: the prediction's Gaussian first
    L = np.concatenate([np.broadcast_to(math.sqrt(V1) * np.eye(T), (1, m, T, T)), L])
    with np.errstate(divide="ignore"):
        logpi = np.log(
            np.concatenate([np.ones((1, m)), ok.astype(float)])
        )  # -inf: a root that does not exist
    K = mu.shape[0]
    l00, l10, l11 = L[..., 0, 0][..., None], L[..., 1, 0][..., None], L[..., 1, 1][..., None]  # (K, m, 1)
    # the nodes of component k: mu_k + L_k x (L_k lower triangular), written out at T = 2: (K, m, G)
    n0 = mu[..., 0][..., None] + l00 * grid[:, 0]
    n1 = mu[..., 1][..., None] + l10 * grid[:, 0] + l11 * grid[:, 1]
    fixed_nodes, fixed_logw, inverse, fixed_logdet = quad.fixed
    GF = fixed_nodes.shape[0]
    # every node of the sample: the fixed ones first, then the components' (m, GF + K G)
    x0 = np.concatenate(
        [np.broadcast_to(fixed_nodes[:, 0], (m, GF)), np.moveaxis(n0, 0, 1).reshape(m, K * G)], 1
    )
    x1 = np.concatenate(
        [np.broadcast_to(fixed_nodes[:, 1], (m, GF)), np.moveaxis(n1, 0, 1).reshape(m, K * G)], 1
    )
    # log N(node; mu_j, L_j L_j^T) for the K components (j, m, nodes), and for F
    s0 = (x0[None] - mu[:, :, 0, None]) / l00
    s1 = (x1[None] - mu[:, :, 1, None] - l10 * s0) / l11
    logq = -0.5 * (s0 * s0 + s1 * s1) - np.log(l00 * l11) - math.log(2 * math.pi) + logpi[..., None]
    logq_fixed = -0.5 * (x0 * x0 + x1 * x1) - math.log(2 * math.pi)
    logmix = np.logaddexp(np.logaddexp.reduce(logq, axis=0), logq_fixed)
    e0, e1 = x0 - omega[:, None, 0, 0], x1 - omega[:, None, 1, 0]
    logprior = -(e0 * e0 + e1 * e1) / (2 * V1) - math.log(2 * math.pi * V1)
    # the rule's weights: the fixed rule's (stored with +|x|^2/2) and, for component k, pi_k times its rule's
    logrule = np.concatenate(
        [
            np.broadcast_to(fixed_logw - 0.5 * np.sum(fixed_nodes**2, -1), (m, GF)),
            np.moveaxis(np.log(weights)[None, None, :] + logpi[:, :, None], 0, 1).reshape(m, K * G),
        ],
        1,
    )
    logw = logrule + logprior - logmix
    z1 = np.stack([x0, x1], -1)
    v0, v1, vd = _solve_mixing_two(z1[:, GF:], b[:, None, :], c)
    u0 = np.concatenate([inverse[:, 0] * b[:, None, 0] + inverse[:, 1] * b[:, None, 1], v0], 1)
    u1 = np.concatenate([inverse[:, 2] * b[:, None, 0] + inverse[:, 3] * b[:, None, 1], v1], 1)
    logdet = np.concatenate([np.broadcast_to(fixed_logdet, (m, GF)), vd], 1)
    return _posterior_on_nodes(b, omega, V2, c, z1, logw, solved=(u0, u1, logdet), k=k)[:3]


def _posterior_on_nodes(b, omega, V2, c, z1, logw, solved=None, k=0.0):
    """Posterior moments from nodes ``z1 (m, G, T)`` of the first layer's preactivations with log-weights
    ``logw (m, G)`` that carry the prior of ``z_1`` (eq-smi-two-layer-posterior): each node weighs
    ``N(s A(z_1)^{-1} b; omega_2 + k (z_1 - omega_1), V_2 I) / |det A(z_1)|`` for each sign ``s`` (``k`` the
    regression of ``z_2`` on ``z_1`` under the prediction's covariance, 0 for a diagonal one; ``V_2`` then the
    conditional variance). Returns ``(mean, var, cross, weights)``: ``mean, var (m, T, 2)``, ``cross (m, T)`` the
    covariance of ``z_1`` and ``z_2`` token by token, ``weights (m, G)`` of the nodes (both signs)."""
    om2 = omega[:, None, :, 1]
    if k != 0.0:
        om2 = om2 + k * (z1 - omega[:, None, :, 0])
    if z1.shape[-1] == 2:  # closed form, without reductions over the short token axis
        u0, u1, logdet = _solve_mixing_two(z1, b[:, None, :], c) if solved is None else solved
        w0, w1 = om2[..., 0], om2[..., 1]
        cross = (u0 * w0 + u1 * w1) / V2  # the two signs differ only in the cross term
        base = logw - ((u0 * u0 + u1 * u1) + (w0 * w0 + w1 * w1)) / (2.0 * V2) - logdet
        lp, lm = base + cross, base - cross
        u = np.stack([u0, u1], -1)
    else:
        u, logdet = _solve_logdet(
            _mixing(z1, c), np.broadcast_to(b[:, None, :], z1.shape)
        )  # z_2 = +- A^{-1} b
        lp = logw - np.sum((u - om2) ** 2, axis=-1) / (2.0 * V2) - logdet
        lm = logw - np.sum((u + om2) ** 2, axis=-1) / (2.0 * V2) - logdet
    top = np.maximum(lp.max(axis=1), lm.max(axis=1))[:, None]
    pp, pm = np.exp(lp - top), np.exp(lm - top)
    Z = np.sum(pp + pm, axis=1)[:, None]
    both, odd = (pp + pm) / Z, (pp - pm) / Z
    m1, m2 = np.einsum("mg,mgt->mt", both, z1), np.einsum("mg,mgt->mt", odd, u)
    s1, s2 = np.einsum("mg,mgt->mt", both, z1 * z1), np.einsum("mg,mgt->mt", both, u * u)
    s12 = np.einsum("mg,mgt->mt", odd, z1 * u)
    mean = np.stack([m1, m2], -1)
    var = np.maximum(np.stack([s1 - m1 * m1, s2 - m2 * m2], -1), 0.0)
    return mean, var, s12 - m1 * m2, both


#: Largest number of (sample, node) pairs :func:`_two_layer_posterior` evaluates in one block.
_POSTERIOR_BLOCK = 2**17
#: Arrays of shape (samples, nodes, T) one posterior block holds at once (nodes, solutions, the 2 x 2 mixing
#: matrices counted as 2 T entries, temporaries).
_POSTERIOR_ARRAYS = 12


def _posterior_blocks(b, omega, V, quad):
    """:func:`_two_layer_posterior` over row blocks of at most :data:`_POSTERIOR_BLOCK` (sample, node) pairs."""
    step = max(1, _POSTERIOR_BLOCK // quad.size)
    out = [
        _two_layer_posterior(b[i : i + step], omega[i : i + step], V, quad)
        for i in range(0, b.shape[0], step)
    ]
    return tuple(np.concatenate([o[j] for o in out]) for j in range(3))


def _check_start_pair(name: str, start) -> np.ndarray:
    """``start``: one overlap in ``(0, 1)`` for both layers, or a pair of them."""
    pair = check_array(name, (start, start) if np.ndim(start) == 0 else start)
    if pair.shape != (2,):
        raise InvalidParameterError(f"{name} must be a number or a pair of numbers, got shape {pair.shape}")
    for l in range(2):
        check_in_range(f"{name}[{l}]", float(pair[l]), 0.0, 1.0, low_open=True, high_open=True)
    return pair.astype(float)


#: Smallest and largest skip strengths of the two-layer model: at ``c = 0`` the mixing ``A(z_1)`` is singular on the
#: line ``z_11 = z_12`` (``det A = c (1 + c + p - q)`` at ``T = 2``); beyond ``C_MAX`` the first layer no longer
#: changes ``b`` in double precision.
C_MIN, C_MAX = 0.01, 1e6
#: Longest sequence of the two-layer quadrature (its product rule has ``n_nodes**T`` points).
T_MAX = 6


#: The domains of the two-layer model: the skip strength, the sequence length of its theory and GAMP (whose
#: quadrature has ``n_nodes**T`` points), the nodes per token, and the starting overlaps of its state evolution.
SKIP = real(C_MIN, C_MAX)
TWO_LAYER_T = integer(2, T_MAX)
N_NODES = integer(2, 300)
START_PAIR = Domain(
    "an overlap in (0, 1), or a pair of them (one per layer)", _check_start_pair, "array", (None,)
)


def _check_c(c) -> float:
    """The skip strength ``c`` of a data set (:data:`SKIP`)."""
    return SKIP("c", c)


def _check_quadrature(T: int, n_nodes: int) -> None:
    """The quadrature's block of ``n_nodes**T`` nodes within the limit of :func:`solvable.validation.check_size`."""
    check_size(
        f"the quadrature's block (n_nodes**T = {n_nodes}**{T} nodes, x T, x {_POSTERIOR_ARRAYS} arrays)",
        _POSTERIOR_ARRAYS * T,
        n_nodes**T,
    )


@declare(d=integer(2, size=True), alpha=SAMPLE_ALPHA, T=TOKENS, c=SKIP)
def two_layer_sample(d: int, alpha: float, *, T: int = 2, c: float = 1.0, rng) -> TwoLayerDataset:
    """Draw two teacher directions ``w_1, w_2 ~ N(0, I_d)`` and ``n = round(alpha d)`` sequences of eq. (4).

    Parameters
    ----------
    d : int
        Token dimension, ``>= 2``.
    alpha : float
        Sample ratio ``n / d``, ``> 0``.
    T : int, optional
        Sequence length, ``>= 2``.
    c : float, optional
        Strength of the skip connection, in ``[0.01, 1e6]``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the draws.

    Returns
    -------
    TwoLayerDataset
        ``X`` (n, T, d), ``y`` (n, T, T), ``W_star`` (d, 2) and ``c``.

    Raises
    ------
    TypeError
        If ``d`` or ``T`` is not an integer or ``rng`` is not a random source.
    ValueError
        If ``alpha`` or ``c`` is out of range, ``alpha d`` rounds to 0, or the arrays would hold more than
        :data:`solvable.validation.MAX_ELEMENTS` numbers at once.

    Notes
    -----
    Draw order: ``W`` (d, 2), then ``X`` (as an ``(n, d, T)`` array, stored ``(n, T, d)``). With
    ``z_l = X^T w_l / sqrt(d)`` (eq-smi-two-layer)::

        A_1 = row-softmax(z_1 z_1^T) + c I,     z~_2 = A_1 z_2,     y = row-softmax(z~_2 z~_2^T).

    A tied rank-one attention layer with a skip connection maps the tokens ``X`` to ``X A_1^T``, whose projections on
    ``w_2`` are ``z~_2 = A_1 z_2``: the second layer reads them through its own tied rank-one softmax.

    References
    ----------
    Chapter 5, Sec. 'Deeper networks: layers learned one after the other'; Troiani et al. 2025, arXiv:2502.00901.

    Examples
    --------
    >>> from solvable import smi
    >>> data = smi.two_layer_sample(50, 2.0, T=2, c=1.0, rng=0)
    >>> print(data.n, data.X.shape, data.y.shape, data.W_star.shape)
    100 (100, 2, 50) (100, 2, 2) (50, 2)
    """
    if not alpha * d < 2.0**62:
        raise InvalidParameterError(f"alpha d = {alpha * d:.3g} samples is beyond any array: reduce alpha")
    n = round(alpha * d)
    if n < 1:
        raise InvalidParameterError(
            f"alpha d must round to at least 1 sample, got n = {n} at alpha = {alpha:g}, d = {d}"
        )
    check_size(
        "the arrays of two_layer_sample (X (n, d, T) drawn and (n, T, d) stored, z (n, T, 2), outputs and "
        "temporaries (n, T, T) x 6)",
        2 * n * d * T + 2 * n * T + 6 * n * T * T + 2 * d,
    )
    W = rng.standard_normal((d, 2))
    drawn = rng.standard_normal((n, d, T))  # the papers' X_mu (d x T), one per sequence
    b = _two_layer_output(np.einsum("ndt,dl->ntl", drawn, W) / math.sqrt(d), c)
    X = np.ascontiguousarray(np.swapaxes(drawn, 1, 2))
    return TwoLayerDataset.adopt(X=X, y=row_softmax(b[:, :, None] * b[:, None, :]), W_star=W, c=c)


@record
class TwoLayerSEResult:
    """The state evolution (5) of two tied softmax layers: one overlap per layer.

    Parameters
    ----------
    overlap : numpy.ndarray
        ``(2,)`` the last overlaps ``(Q_1, Q_2)`` (first layer, second layer).
    history : numpy.ndarray
        ``(iterations + 1, 2)`` the overlaps after each iteration (``history[0]`` the start).
    conjugate : numpy.ndarray
        ``(2,)`` the last conjugates ``(Qhat_1, Qhat_2)``.
    iterations : int
        Iterations run.
    converged : bool
        Whether ``max |Q_{t+1} - Q_t| < tol`` was met before ``max_iter``.
    message : str
        Why the iteration stopped, with its numbers (:func:`solvable.amp.stop_message`).

    Notes
    -----
    ``error`` (a property) is ``1 - Q`` per layer, the mean squared error of the posterior mean of each
    direction (Nishimori). A model-specific result kind: :class:`~solvable.amp.SEResult` holds one overlap.

    References
    ----------
    Chapter 5, Sec. 'Deeper networks: layers learned one after the other'.
    """

    overlap: np.ndarray
    history: np.ndarray = field(repr=False)
    conjugate: np.ndarray
    iterations: int
    converged: bool
    message: str

    @property
    def error(self) -> np.ndarray:
        """``1 - Q`` per layer."""
        return 1.0 - self.overlap


def _two_layer_draws(n_samples, T, c, rng):
    z = rng.standard_normal((n_samples, T, 2))
    xi = rng.standard_normal((n_samples, T, 2))
    return z, xi, _two_layer_output(z, c)


def _mean_g2(mean, var, omega, V):
    """``E||g_l||^2`` per layer from posterior moments ``(m, T, 2)``, by two estimators of the same expectation:
    ``E||E[z_l | y, omega] - omega_l||^2 / V_l^2`` and its Nishimori form ``E sum_t (1/V_l - Var_l/V_l^2)``,
    mixed with weights ``V_l`` and ``1 - V_l``. The first vanishes with ``omega`` (exactly 0 at ``Q_l = 0`` on any
    draws); the second has a Monte-Carlo variance several times smaller once ``V_l`` is small."""
    direct = np.mean(np.sum((mean - omega) ** 2, axis=1), axis=0) / V**2
    nishimori = np.mean(np.sum(1.0 / V - var / V**2, axis=1), axis=0)
    return np.maximum(V * direct + (1.0 - V) * nishimori, 0.0)


@declare(T=TWO_LAYER_T, c=SKIP, start=START_PAIR, n_samples=N_SAMPLES, n_nodes=N_NODES)
def two_layer_state_evolution(
    alpha: float,
    T: int = 2,
    c: float = 1.0,
    *,
    start=1e-3,
    n_samples: int = 2000,
    n_nodes: int = TWO_LAYER_NODES,
    damping: float = 0.0,
    tol: float = 1e-6,
    max_iter: int = 400,
    warn: bool = True,
    rng,
) -> TwoLayerSEResult:
    """Bayes-optimal state evolution (5) of two tied rank-one softmax layers with a skip connection.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d``, ``>= 0``.
    T : int, optional
        Sequence length, ``>= 2`` (the quadrature has ``n_nodes**T`` points: ``T = 2`` or 3 in practice).
    c : float, optional
        Strength of the skip connection, in ``[0.01, 1e6]``.
    start : float or pair of float, optional
        The overlaps ``(Q_1, Q_2)`` at ``t = 0``, each in ``(0, 1)`` (one number: the same for both layers).
    n_samples : int, optional
        Monte-Carlo draws of the teacher's ``(z_1, z_2)`` and of the predictions, ``>= 2``.
    n_nodes : int, optional
        Gauss-Hermite nodes per token of the quadrature over ``z_1``, in ``[2, 300]``.
    damping : float, optional
        In ``[0, 1)``: ``Q_{t+1} = damping Q_t + (1 - damping) Qhat/(1 + Qhat)``.
    tol : float, optional
        In ``[0, 1)``: stop when ``max_l |Q_{l,t+1} - Q_{l,t}| < tol``; ``0`` runs exactly ``max_iter`` steps.
    max_iter : int, optional
        Iteration cap, ``>= 1``.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when ``max_iter`` is reached before ``tol``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the Monte-Carlo draws, made once (the iteration is then a deterministic map).

    Returns
    -------
    TwoLayerSEResult
        The overlaps of both layers, their history and conjugates.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is out of its domain, or the draws and the quadrature would hold more than
        :data:`solvable.validation.MAX_ELEMENTS` numbers at once.

    Notes
    -----
    The model of :func:`two_layer_sample`. The weights have independent N(0, 1) entries, and ``y`` is unchanged by
    ``z_1 -> -z_1`` and by ``z_2 -> -z_2`` separately, so the overlap matrix stays diagonal and each layer has its
    own ``Q_l`` (``V_l = 1 - Q_l``). With ``omega_l = Q_l z_l + sqrt(Q_l V_l) xi_l`` (eq-smi-omega-draw, per layer),
    the posterior of the preactivations given ``y`` (that is ``z~_2`` up to its sign) and ``omega`` is, integrating
    ``z_2 = +-A_1(z_1)^{-1} z~_2`` out (eq-smi-two-layer-posterior)::

        P(z_1, +- | y, omega) ~ N(z_1; omega_1, V_1 I) N(+-A_1(z_1)^{-1} z~_2; omega_2, V_2 I) / |det A_1(z_1)|,

    for both signs ``+-``, computed by a Gauss-Hermite product rule over ``z_1``. Then, with ``g_l = (E[z_l | y, omega] -
    omega_l)/V_l`` (eq-smi-two-layer-se)::

        Qhat_l = alpha E||g_l||^2,      Q_l = Qhat_l / (1 + Qhat_l),

    where ``E||g_l||^2`` mixes, with weights ``V_l`` and ``1 - V_l``, its direct Monte-Carlo estimate (exactly 0 at
    ``Q_l = 0``) and its Nishimori form ``E sum_t (1/V_l - Var[z_lt | y, omega]/V_l^2)`` (the same expectation, with
    a Monte-Carlo variance several times smaller once ``V_l`` is small), on the shared driver :func:`solvable.amp.iterate_fixed_point`, each ``Q_l`` kept in ``[0, 1 - 1e-12]``.
    ``Q = (0, 0)`` is a fixed point; its stability is set by :func:`two_layer_fisher_factors`.

    References
    ----------
    Chapter 5, Sec. 'Deeper networks: layers learned one after the other'; Troiani et al. 2025, arXiv:2502.00901.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import smi
    >>> res = smi.two_layer_state_evolution(3.0, 2, 1.0, n_samples=100, n_nodes=2, start=0.01, rng=0)
    >>> print(res.converged, np.round(res.overlap, 3))
    True [1. 1.]
    """
    if np.ndim(start) == 0:  # a default: one overlap for both layers
        start = np.array([start, start], dtype=float)
    _check_quadrature(T, n_nodes)
    check_size("the Monte-Carlo draws (n_samples, T, 2) and their temporaries together", 12 * n_samples * T)
    quad = _Quadrature(T, c, n_nodes)
    z, xi, b = _two_layer_draws(n_samples, T, c, rng)

    def update(Q):
        Q = np.asarray(Q, dtype=float)
        V = 1.0 - Q
        omega = Q * z + np.sqrt(Q * V) * xi
        mean, var, _ = _posterior_blocks(b, omega, V, quad)
        qhat = np.minimum(alpha * _mean_g2(mean, var, omega, V), sys.float_info.max)
        return qhat / (1.0 + qhat), qhat

    fp = iterate_fixed_point(
        update,
        start,
        damping=damping,
        tol=tol,
        max_iter=max_iter,
        bounds=(0.0, Q_MAX),
        what=f"two-layer SMI state evolution (alpha = {alpha:g}, T = {T}, c = {c:g})",
        warn=warn,
    )
    return TwoLayerSEResult(
        overlap=np.asarray(fp.states[-1], dtype=float),
        history=np.asarray(fp.states, dtype=float),
        conjugate=np.asarray(fp.observed[-1], dtype=float),
        iterations=fp.iterations,
        converged=fp.converged,
        message=fp.message,
    )


@declare(T=TWO_LAYER_T, c=SKIP, n_samples=N_SAMPLES, n_nodes=N_NODES)
def two_layer_fisher_factors(
    T: int = 2, c: float = 1.0, *, n_samples: int = 2000, n_nodes: int = TWO_LAYER_NODES, rng
) -> tuple[np.ndarray, np.ndarray]:
    """Monte-Carlo estimate of ``F_l = E||E[z_l z_l^T | y] - I||_F^2`` for both layers of eq. (4).

    Parameters
    ----------
    T : int, optional
        Sequence length, ``>= 2``.
    c : float, optional
        Strength of the skip connection, in ``[0.01, 1e6]``.
    n_samples : int, optional
        Monte-Carlo draws of the teacher's preactivations, ``>= 2``.
    n_nodes : int, optional
        Gauss-Hermite nodes per token of the quadrature over ``z_1``, in ``[2, 300]``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the draws.

    Returns
    -------
    tuple of numpy.ndarray
        ``(mean, stderr)``, each ``(2,)``: ``(F_1, F_2)`` and their standard errors. The weak-recovery threshold
        of layer ``l`` alone is ``1 / F_l``.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is out of its domain or the arrays would be too large.

    Notes
    -----
    Near ``Q = 0`` the posterior mean is odd in each ``omega_l`` (the sign symmetries), so
    ``E[z_l | y, omega] ~ E[z_l z_l^T | y] omega_l`` and eq. (5) linearises into
    ``Qhat_l = alpha F_l Q_l``, one layer at a time (eq-smi-two-layer-threshold): ``Q_l = 0`` is unstable
    above ``alpha_l = 1/F_l``. One layer alone has ``F = T (T + 1)`` (:func:`fisher_factor`). The conditional
    moments are those of the posterior of eq. (5) at ``omega = 0``, ``V = 1``.

    References
    ----------
    Chapter 5, Sec. 'Deeper networks: layers learned one after the other'; Troiani et al. 2025, arXiv:2502.00901.

    Examples
    --------
    The second layer alone is almost as easy to learn as one layer (``F = T(T + 1) = 6``), the first is not:

    >>> from solvable import smi
    >>> F, F_se = smi.two_layer_fisher_factors(2, 1.0, n_samples=200, rng=0)
    >>> print(f"F_1 = {F[0]:.2f} +- {F_se[0]:.2f}, F_2 = {F[1]:.1f} +- {F_se[1]:.1f}")
    F_1 = 0.16 +- 0.03, F_2 = 5.2 +- 0.6
    >>> print(f"alone from alpha = {1 / F[0]:.1f} (layer 1), {1 / F[1]:.2f} (layer 2)")
    alone from alpha = 6.2 (layer 1), 0.19 (layer 2)
    """
    _check_quadrature(T, n_nodes)
    check_size("the Monte-Carlo draws (n_samples, T, 2) and their temporaries together", 12 * n_samples * T)
    grid, weights = _product_rule(T, n_nodes)
    z, _, b = _two_layer_draws(n_samples, T, c, rng)
    step = max(1, _POSTERIOR_BLOCK // grid.shape[0])
    eye = np.eye(T)
    values = []
    for i in range(0, n_samples, step):
        bb = b[i : i + step]
        u, logdet = _solve_logdet(
            _mixing(np.broadcast_to(grid, (bb.shape[0],) + grid.shape), c),
            np.broadcast_to(bb[:, None, :], (bb.shape[0],) + grid.shape),
        )
        logp = -0.5 * np.sum(u * u, axis=-1) - logdet  # the two signs have the same weight at omega = 0
        p = weights * np.exp(logp - logp.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        M1 = np.einsum("mg,gs,gt->mst", p, grid, grid)
        M2 = np.einsum("mg,mgs,mgt->mst", p, u, u)
        values.append(
            np.stack([np.sum((M1 - eye) ** 2, axis=(1, 2)), np.sum((M2 - eye) ** 2, axis=(1, 2))], -1)
        )
    v = np.concatenate(values)
    return v.mean(axis=0), v.std(axis=0, ddof=1) / math.sqrt(n_samples)


class _TokenMap:
    """``W (d, p) -> X^T W / sqrt(d)``, ``(n, T, p)``, on the ``n T`` token rows, and its adjoint."""

    def __init__(self, X):
        self.n, self.T, self.d = X.shape
        self._F = np.ascontiguousarray(X).reshape(self.n * self.T, self.d) / math.sqrt(self.d)

    def forward(self, w):
        return (self._F @ w).reshape(self.n, self.T, -1)

    def adjoint(self, g):
        return self._F.T @ g.reshape(self.n * self.T, -1)


@declare(
    data=instance(TwoLayerDataset, "a solvable.smi.TwoLayerDataset (from two_layer_sample())"),
    start=real(0.0, 1.0, high_open=True),
    n_nodes=N_NODES,
    rng=seed("init"),
)
def two_layer_gamp(
    data: TwoLayerDataset,
    *,
    start: float = 0.0,
    n_nodes: int = TWO_LAYER_NODES,
    damping: float = 0.0,
    tol: float = 1e-4,
    max_iter: int = 300,
    warn: bool = True,
    rng,
) -> GAMPResult:
    """Bayes-optimal GAMP for two tied rank-one softmax layers, eq. (4), whose state evolution is eq. (5).

    Parameters
    ----------
    data : TwoLayerDataset
        Tokens and labels (:func:`two_layer_sample`); the teacher is read only to monitor the overlaps (and, if
        ``start > 0``, to build the initial estimate).
    start : float, optional
        Overlap in ``[0, 1)`` of the initial estimate with the teacher, ``w_0 = start W* + sqrt(0.01 + start (1 -
        start)) xi`` with ``xi ~ N(0, 1)``: ``0`` (the default) is an uninformed random start.
    n_nodes : int, optional
        Gauss-Hermite nodes per token of the quadrature over ``z_1``, in ``[2, 300]``.
    damping : float, optional
        In ``[0, 1)``: ``w <- damping w + (1 - damping) w_new``, the same for the covariance.
    tol : float, optional
        In ``[0, 1)``: stop when the relative change of the estimate, :func:`solvable.amp.relative_change`, falls
        below it; ``0`` runs ``max_iter`` iterations.
    max_iter : int, optional
        Iteration cap, ``>= 1``; reaching it warns (if ``warn``). Near a threshold the overlaps move slowly
        (critical slowing down, as in the state evolution), hence a cap of 300.
    warn : bool, optional
        Whether reaching ``max_iter`` warns.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the random initial estimate.

    Returns
    -------
    solvable.amp.GAMPResult
        ``estimate`` ``(d, 2)`` (one column per layer), ``variance`` the ``2 x 2`` posterior covariance of a row;
        ``history`` the squared error per entry after each iteration, each direction taken with the sign that fits
        best, ``mean_l (1 - 2|m_l| + q_l)``; ``overlap`` and ``norm`` ``(iterations, 2)``: ``|m_l| = |w_hat_l .
        w_l|/d`` and ``q_l = |w_hat_l|^2/d`` per layer (the labels do not fix the sign of either direction).

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`TwoLayerDataset` or an argument has the wrong type.
    ValueError
        If an argument is out of its domain or the arrays would be too large.
    DivergenceError
        If an iteration produces non-finite numbers.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` is reached before ``tol`` (unless ``warn=False`` or ``tol = 0``).

    Notes
    -----
    GAMP for a multi-index model with vector preactivations (chapter 1's loop with ``2 x 2`` matrices): the ``n T``
    token rows of ``X^T/sqrt(d)``, two preactivations per token, a Gaussian prior on the rows of ``W`` and the
    output channel of eq. (5), the posterior of the ``T x 2`` preactivations of a sequence given ``z~_2`` (recovered
    from ``y`` by :func:`second_layer_output`) and the predictions ``omega`` of covariance ``V``, by the
    quadrature of :func:`two_layer_state_evolution`. With ``C`` the posterior covariance of a row of ``W``::

        V = C,   omega_r = (X^T w_hat/sqrt(d))_r - V g_r,   g_r = V^{-1} (E[z_r | y, omega] - omega_r),
        A = -(1/d) sum_r dg_r/domega_r = (1/d) sum_r (V^{-1} - V^{-1} Cov[z_r | y, omega] V^{-1})  (its diagonal),
        w_hat_i = (I + A)^{-1} (sum_r F_ri g_r + A w_hat_i),   C = (I + A)^{-1}.

    The sign symmetries make the off-diagonal entries of ``A`` and ``C`` vanish as ``d -> inf``, as in the state
    evolution (eq. (5)); GAMP keeps the diagonal of ``A``, clipped at 0, since at finite size the off-diagonal entries
    are noise divided by ``V_1 V_2``, which once both layers are nearly learned makes ``A`` indefinite and the
    iteration diverge.

    References
    ----------
    Chapter 5, Sec. 'Deeper networks: layers learned one after the other'; Troiani et al. 2025, arXiv:2502.00901;
    chapter 1, 'From belief propagation to AMP'.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import smi
    >>> data = smi.two_layer_sample(30, 3.0, T=2, c=1.0, rng=0)
    >>> res = smi.two_layer_gamp(data, n_nodes=2, damping=0.5, rng=1)
    >>> print(res.converged, res.estimate.shape, np.round(res.overlap[-1], 1))
    True (30, 2) [0.9 0.7]
    """
    T, c = data.T, data.c
    if T > T_MAX:
        raise InvalidParameterError(
            f"data must have sequences of T <= {T_MAX} tokens (a product rule of n_nodes**T "
            f"points over the first layer), got T = {T}"
        )
    _check_quadrature(T, n_nodes)
    n, d = data.n, data.d
    check_size(
        "GAMP's arrays (the token rows (n T, d), messages (n, T, 2) x 8)", n * T * d + 16 * n * T + 8 * d
    )
    quad = _Quadrature(T, c, n_nodes)
    b = second_layer_output(data.y)
    W_star = data.W_star
    F = _TokenMap(data.X)
    eye = np.eye(2)
    w = start * W_star + math.sqrt(RANDOM_START + start * (1.0 - start)) * rng.standard_normal((d, 2))
    C = (1.0 - start) * eye  # the posterior covariance of a row of W (the same for every row)
    g = np.zeros((n, T, 2))
    history, overlaps, norms = [], [], []
    converged, change, t = False, math.inf, 0
    for t in range(1, max_iter + 1):
        V = C  # sum_i F_ri^2 C = C on average over the rows
        omega = F.forward(w) - g @ V.T
        mean, var, cross = _posterior_blocks(b, omega, V, quad)
        Vinv = np.linalg.inv(V)
        g = (mean - omega) @ Vinv.T
        cov = np.zeros((n, T, 2, 2))
        cov[..., 0, 0], cov[..., 1, 1] = var[..., 0], var[..., 1]
        cov[..., 0, 1] = cov[..., 1, 0] = cross
        A = -(np.einsum("ij,ntjk,kl->il", Vinv, cov, Vinv) - n * T * Vinv) / d  # -(1/d) sum_r dg_r/domega_r
        # The precision per direction: its off-diagonal entries vanish as d -> inf by the sign symmetries, and at
        # finite size they are noise amplified by 1/V_1 V_2 (with both layers nearly learned they make A indefinite
        # and GAMP diverge); the diagonal is >= 0 (its average can dip below 0 at finite size).
        A = np.diag(np.maximum(np.diag(A), 0.0))
        B = F.adjoint(g) + w @ A.T
        C_new = np.linalg.inv(eye + A)
        w_new = B @ C_new.T
        if not (np.all(np.isfinite(w_new)) and np.all(np.isfinite(C_new))):
            raise DivergenceError(
                f"two-layer GAMP diverged at iteration {t}: non-finite estimate (try damping > 0)"
            )
        change = relative_change(w_new, w)
        w = damping * w + (1.0 - damping) * w_new
        C = damping * C + (1.0 - damping) * C_new
        m = np.abs(np.sum(w * W_star, axis=0)) / d
        q = np.sum(w * w, axis=0) / d
        overlaps.append(m)
        norms.append(q)
        history.append(float(np.mean(1.0 - 2.0 * m + q)))
        if tol > 0 and change < tol:
            converged = True
            break
    message = stop_message(
        "two-layer GAMP",
        converged=converged,
        iterations=t,
        change=change,
        tol=tol,
        max_iter=max_iter,
        fixed_length=tol == 0,
    )
    if warn and not converged and tol > 0:
        warn_user(message, ConvergenceWarning)
    return GAMPResult(
        estimate=w,
        variance=C,
        history=np.array(history),
        iterations=t,
        converged=converged,
        message=message,
        overlap=np.array(overlaps),
        norm=np.array(norms),
    )


@record
class SecondLayerCurve:
    """The state evolution (5) on its branch ``Q_1 = 0``, parametrised by the second layer's overlap.

    Parameters
    ----------
    overlap : numpy.ndarray
        ``(k,)`` the overlaps ``Q_2`` of the second layer.
    alpha : numpy.ndarray
        ``(k,)`` the sample ratio at which each ``Q_2`` is the fixed point of eq. (5) with ``Q_1 = 0``.
    factor : numpy.ndarray
        ``(k,)`` the first layer's factor ``F_1(Q_2) = E||E[z_1 z_1^T | y, omega_2] - I||_F^2``.
    alpha_1 : float or None
        The smallest ``alpha`` on the branch where ``alpha F_1 = 1`` (linear interpolation between the two
        points around the crossing), or None if ``alpha F_1 < 1`` at every point.

    Notes
    -----
    ``growth`` (a property) is ``alpha F_1``: the factor by which one step of eq. (5) multiplies a small ``Q_1``.

    References
    ----------
    Chapter 5, Sec. 'Deeper networks: layers learned one after the other'.
    """

    overlap: np.ndarray
    alpha: np.ndarray
    factor: np.ndarray
    alpha_1: float | None

    @property
    def growth(self) -> np.ndarray:
        """``alpha F_1``: above 1 the branch ``Q_1 = 0`` is unstable."""
        return self.alpha * self.factor


@declare(overlaps=array(1), T=TWO_LAYER_T, c=SKIP, n_samples=N_SAMPLES, n_nodes=N_NODES)
def second_layer_branch(
    overlaps: Sequence[float],
    T: int = 2,
    c: float = 1.0,
    *,
    n_samples: int = 2000,
    n_nodes: int = TWO_LAYER_NODES,
    rng,
) -> SecondLayerCurve:
    """The fixed points of eq. (5) with the first layer unlearned (``Q_1 = 0``) and their stability.

    Parameters
    ----------
    overlaps : sequence of float
        Overlaps ``Q_2`` of the second layer, each in ``(0, 1)``, increasing (a non-empty 1-d sequence).
    T : int, optional
        Sequence length, ``>= 2``.
    c : float, optional
        Strength of the skip connection, in ``[0.01, 1e6]``.
    n_samples : int, optional
        Monte-Carlo draws, ``>= 2`` (the same draws for every ``Q_2``).
    n_nodes : int, optional
        Gauss-Hermite nodes per token of the quadrature over ``z_1``, in ``[2, 300]``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the draws.

    Returns
    -------
    SecondLayerCurve
        ``alpha(Q_2)``, ``F_1(Q_2)`` and the first layer's threshold ``alpha_1``.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is out of its domain or the arrays would be too large.

    Notes
    -----
    With ``Q_1 = 0`` (``omega_1 = 0``, ``V_1 = 1``) eq. (5) is one equation, ``Q_2 = Qhat_2/(1 + Qhat_2)`` with
    ``Qhat_2 = alpha E||g_2||^2`` (estimated as in :func:`two_layer_state_evolution`): for a given
    ``Q_2`` it fixes ``alpha = Q_2 / ((1 - Q_2) E||g_2||^2)``, one
    quadrature per point instead of an iteration. Linearising eq. (5) in ``Q_1`` at
    ``Q_1 = 0``, as for :func:`two_layer_fisher_factors` but with ``omega_2`` known,
    ``Qhat_1 = alpha F_1(Q_2) Q_1``, ``F_1(Q_2) = E||E[z_1 z_1^T | y, omega_2] - I||_F^2``: the branch is unstable
    where ``alpha F_1 > 1``, from ``alpha_1``. ``F_1(0)`` is the factor of :func:`two_layer_fisher_factors`.

    References
    ----------
    Chapter 5, Sec. 'Deeper networks: layers learned one after the other'; Troiani et al. 2025, arXiv:2502.00901.

    Examples
    --------
    On the branch ``Q_1 = 0`` the first layer turns learnable (``alpha F_1 > 1``) only once ``Q_2`` nears 1:

    >>> from solvable import smi
    >>> branch = smi.second_layer_branch([0.5, 0.9, 0.97, 0.99], n_samples=200, n_nodes=8, rng=0)
    >>> print(branch.alpha.round(2), branch.growth.round(2), f"alpha_1 = {branch.alpha_1:.2f}")
    [0.4  0.57 0.7  0.86] [0.07 0.37 0.86 1.55] alpha_1 = 0.73
    """
    _check_quadrature(T, n_nodes)
    q2 = overlaps
    for i, q in enumerate(q2):
        check_in_range(f"overlaps[{i}]", float(q), 0.0, 1.0, low_open=True, high_open=True)
    if np.any(np.diff(q2) <= 0):
        raise InvalidParameterError("overlaps must be increasing")
    check_size("the Monte-Carlo draws (n_samples, T, 2) and their temporaries together", 12 * n_samples * T)
    quad = _Quadrature(T, c, n_nodes)
    z, xi, b = _two_layer_draws(n_samples, T, c, rng)
    eye = np.eye(T)
    alphas, factors = [], []
    for Q2 in q2:
        V = np.array([1.0, 1.0 - Q2])
        omega = np.stack([np.zeros_like(z[..., 0]), Q2 * z[..., 1] + math.sqrt(Q2 * V[1]) * xi[..., 1]], -1)
        g2, F1 = [], []
        step = max(1, _POSTERIOR_BLOCK // quad.size)
        for i in range(0, n_samples, step):
            bb, om = b[i : i + step], omega[i : i + step]
            m = bb.shape[0]
            if quad.fixed is not None:
                nodes, logw0, inverse, logdet = quad.fixed
                u0 = inverse[:, 0] * bb[:, None, 0] + inverse[:, 1] * bb[:, None, 1]
                u1 = inverse[:, 2] * bb[:, None, 0] + inverse[:, 3] * bb[:, None, 1]
                logw = np.broadcast_to(logw0 - 0.5 * np.sum(nodes * nodes, axis=-1), (m, nodes.shape[0]))
                mean, var, _, w = _posterior_on_nodes(
                    bb, om, V[1], c, np.broadcast_to(nodes, (m,) + nodes.shape), logw, solved=(u0, u1, logdet)
                )
            else:
                nodes = quad.grid
                mean, var, _, w = _posterior_on_nodes(
                    bb,
                    om,
                    V[1],
                    c,
                    np.broadcast_to(nodes, (m,) + nodes.shape),
                    np.broadcast_to(np.log(quad.weights), (m, nodes.shape[0])),
                )
            M1 = np.einsum("mg,gs,gt->mst", w, nodes, nodes)
            F1.append(np.sum((M1 - eye) ** 2, axis=(1, 2)))
            g2.append(_mean_g2(mean, var, om, V)[1] * m)  # the block's sum of ||g_2||^2
        e_g2 = float(np.sum(g2)) / n_samples
        alphas.append(Q2 / ((1.0 - Q2) * e_g2))
        factors.append(float(np.mean(np.concatenate(F1))))
    alphas, factors = np.array(alphas), np.array(factors)
    growth = alphas * factors
    alpha_1 = None
    above = np.flatnonzero(growth >= 1.0)
    if above.size:
        k = int(above[0])
        if k == 0:
            alpha_1 = float(alphas[0])
        else:
            t = (1.0 - growth[k - 1]) / (growth[k] - growth[k - 1])
            alpha_1 = float(alphas[k - 1] + t * (alphas[k] - alphas[k - 1]))
    return SecondLayerCurve(overlap=q2, alpha=alphas, factor=factors, alpha_1=alpha_1)
