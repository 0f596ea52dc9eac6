"""Attention: the attention-indexed model (AIM), one tied softmax (or hardmax) attention layer.

**Model** (``science/attention.md``, Secs. 1-5; Boncoraglio, Troiani, Erba, Zdeborova, "Bayes optimal learning
of attention-indexed models", arXiv:2506.01582). A sample is a sequence of ``T`` tokens ``x_a ~ N(0, I_d)``
(``X`` in ``R^{T x d}``); a tied attention layer with weights ``W`` in ``R^{d x r}`` (``r = rho d``, i.i.d.
N(0, 1)) and ``S = W W^T/sqrt(r d)`` (O(1) spectrum, mean ``sqrt(rho)``, second moment
``Q0 = (1/d) Tr S^2 = 1 + rho``) computes the symmetric T x T matrix of **attention indices**

    h_ab = [x_a^T S x_b - delta_ab Tr S] / sqrt(d)              (Var h_ab = Q0, Var h_aa = 2 Q0)

and outputs ``y = row-softmax(h)`` (inverse temperature 1, no noise). With ``n = alpha d^2`` samples,
``d -> inf`` at fixed ``alpha, rho, T``, learning ``S`` is the Wishart matrix-sensing problem of
:mod:`solvable.matrix_sensing` (shared with the quadratic networks; ``kappa -> rho``) with ``T(T+1)/2``
indices per sample seen through the softmax, which keeps ``K = T(T+1)/2 - 1`` of them (each row is fixed up
to a constant, and symmetry leaves one global constant). Hence the Bayes-optimal error solves

    m = F( m / (2 alpha K) ),     F(Delta) = mmse_RIE(Delta; rho)   (symmetric RIE, :mod:`solvable.rie`)

which is the noiseless Wishart-sensing equation at sample ratio ``alpha K``
(:func:`solvable.matrix_sensing.bayes_optimal_mmse`; here :func:`bayes_optimal_mmse`), and the state evolution
of GAMP-RIE is :func:`solvable.matrix_sensing.state_evolution` at ``alpha K`` (:func:`state_evolution`).
Errors are ``m = (1/d)||S_hat - S||_F^2`` (:func:`solvable.rie.symmetric_error`; 1 for the prior mean
``sqrt(rho) I``, 0 at perfect recovery).

GAMP-RIE (:func:`gamp_rie`) is the shared loop :func:`solvable.amp.run_gamp` with

- :class:`AttentionSensingMap`: the ``P = T(T+1)/2`` symmetrised indices ``z_ab = tau_ab h_ab``
  (``tau = sqrt(2)`` off the diagonal, 1 on it) computed from the raw tokens with BLAS products (memory
  O(n T d), never a per-sample d x d tensor). The ``tau`` weights give every component output variance
  ``2 c`` for an error ``c``, exactly as the quadratic network's sensing map, so the precision
  ``A = 2 sum(g^2)/d`` and :class:`solvable.rie.WishartRIEDenoiser` (``kappa = rho``) are reused unchanged;
- :class:`solvable.channels.SoftmaxChannel`: the Gaussian projection of ``omega`` onto the line of indices
  consistent with ``y``, done in the ``tau`` units of ``omega`` (``science/attention.md``, Sec. 3, step 2).

Gradient descent / Adam on the tied student (:func:`train_students`) runs on the library's one optimiser loop
:func:`solvable.gd.run_gd` with the objective :class:`StudentLoss` (``K`` initialisations batched in one
computation per step); averaging their ``S`` is "averaged GD" (Sec. 5).

The **hardmax** output (one-hot argmax rows, ``T = 2``) is the second example: :func:`sample` with
``output="hardmax"``, the exact channel :class:`solvable.channels.HardmaxChannel` (bivariate-normal orthant
probabilities), its Monte-Carlo state evolution :func:`hardmax_state_evolution` and :func:`gamp_rie` on hardmax
data. These are derived here, not taken from ``science/attention.md`` (which leaves them unverified): they are
checked by the Nishimori identity and by GAMP-RIE on data against the state evolution, not against published
values.

The sequence multi-index model of ``science/attention.md``, Sec. 6 (linear sample ratio) has its own module,
:mod:`solvable.smi`. Multi-layer AIMs are not covered. Related: Cui, Behrens, Krzakala, Zdeborova,
arXiv:2402.03902 (positional vs semantic attention; not covered by this module).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace

import numpy as np

from . import gd as _gd
from . import matrix_sensing
from .amp import GAMPResult, SEResult, iterate_fixed_point, run_gamp
from .channels import (
    HardmaxChannel,
    SoftmaxChannel,
    index_weights,
    pack_indices,
    row_hardmax,
    row_softmax,
    unpack_indices,
)
from .errors import ConvergenceWarning, DivergenceError
from .rie import WishartRIEDenoiser, symmetric_error, symmetric_rie_mmse
from .validation import (
    check_array,
    check_choice,
    check_in_range,
    check_int,
    check_nonnegative,
    check_positive,
    check_rng,
    check_size,
    check_tol,
)

__all__ = [
    "AUTO_DAMP_BOTH_BELOW",
    "OUTPUTS",
    "SELF_CONSISTENCY_MAX",
    "STUDENT_NORM_MAX",
    "AttentionSensingMap",
    "Dataset",
    "OutputGenError",
    "StudentLoss",
    "attention_indices",
    "bayes_optimal_mmse",
    "fresh_samples",
    "gamp_rie",
    "hardmax_state_evolution",
    "n_effective_indices",
    "output_error",
    "output_gen_error",
    "perfect_recovery_threshold",
    "sample",
    "self_consistency",
    "state_evolution",
    "student_loss_and_gradient",
    "train_students",
]

#: :func:`gamp_rie` with ``damp="auto"`` also damps the estimate when ``alpha K`` is below this value
#: (measured at d = 80, rho = 0.5, T = 2, 3, 4, seeds 0-2: with output damping alone, runs at
#: ``alpha K <= 0.1`` (and at T = 4, ``alpha K = 0.18``) stop at overconfident fixed points with errors
#: 1.0-1.6; damping both sides brings them back near the theory. At ``alpha K = 0.25`` (T = 3, alpha = 0.05,
#: d = 80, six data sets, issue 10) output damping alone left two runs oscillating at 0.58 and 0.49 against
#: the theory 0.247, damping both gave 0.24-0.30; over five other data sets per point at ``alpha K`` from
#: 0.16 to 0.33 the two choices agree to 0.002 on average. Hence the threshold 0.4, above every sample ratio
#: where the estimate is far from 0.)
AUTO_DAMP_BOTH_BELOW = 0.4

#: :func:`gamp_rie` reports a run whose :func:`self_consistency` ratio exceeds this value as not converged: its
#: variance has collapsed below the error that its own training residuals show (a false fixed point).
SELF_CONSISTENCY_MAX = 1.0

#: :func:`train_students` raises :class:`~solvable.errors.DivergenceError` when a student's ``|S_k|_F^2/d`` ends
#: above this multiple of the teacher's ``1 + rho`` (exploded weights behind a saturated, finite loss).
STUDENT_NORM_MAX = 1e6

#: Output layers of the AIM sampler: the tied softmax (main model) and the hardmax (``T = 2`` only).
OUTPUTS = ("softmax", "hardmax")


def _check_T(T, minimum: int = 2) -> int:
    """``T`` must be an integer >= 2: a 1 x 1 softmax is identically 1 and carries no information."""
    return check_int("T", T, minimum=minimum)


def _check_rho(rho) -> float:
    return check_positive("rho", rho)


def _check_flag(name: str, value) -> bool:
    """A switch such as ``warn``: ``True`` or ``False`` (``TypeError`` naming it otherwise)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _check_rho_theory(rho) -> float:
    """``rho`` in the range where the Wishart RIE's MMSE is computed reliably
    (:data:`solvable.matrix_sensing.KAPPA_MIN` to :data:`~solvable.matrix_sensing.KAPPA_MAX`, ``kappa = rho``)."""
    rho = _check_rho(rho)
    if not matrix_sensing.KAPPA_MIN <= rho <= matrix_sensing.KAPPA_MAX:
        raise ValueError(f"rho must be a number in [{matrix_sensing.KAPPA_MIN:g}, {matrix_sensing.KAPPA_MAX:g}] "
                         f"(where the Wishart RIE's MMSE is reliable), got {rho!r}")
    return rho


# =========================================================================== data


def attention_indices(X, S):
    """Attention indices ``h_ab = [x_a^T S x_b - delta_ab Tr S]/sqrt(d)`` of every sample.

    Parameters
    ----------
    X : (n, T, d) array
        Tokens (sample, token, feature).
    S : (d, d) symmetric array

    Returns
    -------
    (n, T, T) array: symmetric in the last two axes. Cost: one ``(nT, d) @ (d, d)`` product.
    """
    X = _check_tokens(X)
    S = _check_square("S", S, X.shape[2])
    with np.errstate(over="ignore", invalid="ignore"):
        h = _indices(X, S)
    if not np.all(np.isfinite(h)):
        raise ValueError("X and S give non-finite attention indices (entries too large for float64)")
    return h


def _float_array(name, a) -> np.ndarray:
    """``a`` as a float array (``ValueError`` naming it if it is not numeric; :func:`~solvable.validation.check_array`)."""
    return check_array(name, a, finite=False, nonempty=False)


def _check_square(name: str, S, d: int) -> np.ndarray:
    """A finite (d, d) float array (``ValueError`` naming it otherwise)."""
    S = _float_array(name, S)
    if S.shape != (d, d):
        raise ValueError(f"{name} must be ({d}, {d}) to match X, got shape {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError(f"{name} must contain finite numbers only")
    return S


def _check_tokens(X) -> np.ndarray:
    """Tokens ``X`` as a finite, non-empty (n, T, d) float array (``ValueError`` naming ``X`` otherwise)."""
    X = check_array("X", X, finite=False, nonempty=False)
    if X.ndim != 3 or X.size == 0:
        raise ValueError(f"X must be a non-empty 3-d array (n, T, d), got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must contain finite numbers only")
    return X


def _indices(X, S):
    """:func:`attention_indices` without the checks (the sensing map calls it every iteration)."""
    n, T, d = X.shape
    XS = (X.reshape(n * T, d) @ S).reshape(n, T, d)
    h = np.matmul(XS, np.swapaxes(X, 1, 2))
    h[:, np.arange(T), np.arange(T)] -= np.trace(S)
    return h / math.sqrt(d)


@dataclass(frozen=True)
class Dataset:
    """A data set of the attention-indexed model (``science/attention.md``, Sec. 1).

    Attributes
    ----------
    X : (n, T, d) tokens, i.i.d. N(0, 1).
    y : (n, T, T) outputs, ``row-softmax(h)`` (or one-hot rows for ``output="hardmax"``).
    W_star : (d, r) teacher weights; ``S_star = W* W*^T/sqrt(r d)`` (d, d).
    output : ``"softmax"`` or ``"hardmax"``.
    """

    X: np.ndarray
    y: np.ndarray
    W_star: np.ndarray = field(repr=False)
    S_star: np.ndarray = field(repr=False)
    output: str = "softmax"

    def __post_init__(self):
        X, y, W, S = (np.asarray(a) for a in (self.X, self.y, self.W_star, self.S_star))
        if X.ndim != 3 or X.size == 0 or y.shape != (X.shape[0], X.shape[1], X.shape[1]):
            raise ValueError(f"X must be (n, T, d) and y (n, T, T), got shapes {X.shape} and {y.shape}")
        d = X.shape[2]
        if W.ndim != 2 or W.shape[0] != d or W.shape[1] < 1 or S.shape != (d, d):
            raise ValueError(f"W_star must be (d, r) and S_star (d, d) with d = {d}; "
                             f"got {W.shape} and {S.shape}")
        for name, a in (("X", X), ("y", y), ("W_star", W), ("S_star", S)):
            if not (np.issubdtype(a.dtype, np.number) and np.all(np.isfinite(a))):
                raise ValueError(f"{name} must contain finite numbers only")
        if not np.all((y >= 0) & (y <= 1)):
            raise ValueError("y must hold attention outputs, numbers in [0, 1]")
        object.__setattr__(self, "output", check_choice("output", self.output, OUTPUTS))

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def T(self) -> int:
        """Sequence length (tokens per sample)."""
        return self.X.shape[1]

    @property
    def d(self) -> int:
        return self.X.shape[2]

    @property
    def r(self) -> int:
        """Teacher width (columns of ``W_star``)."""
        return self.W_star.shape[1]

    @property
    def rho(self) -> float:
        """Width ratio ``r / d``."""
        return self.r / self.d

    @property
    def alpha(self) -> float:
        """Sample ratio ``n / d^2``."""
        return self.n / self.d**2

    @property
    def indices(self) -> np.ndarray:
        """The teacher's attention indices ``h`` (n, T, T) (recomputed: one BLAS product)."""
        return _indices(np.asarray(self.X, dtype=float), np.asarray(self.S_star, dtype=float))


def sample(d: int, T: int, rho: float, alpha: float, *, output: str = "softmax", rng) -> Dataset:
    """Draw an AIM teacher and ``n = round(alpha d^2)`` samples (``science/attention.md``, Sec. 1).

    Draw order: ``W*`` (d, r) with ``r = round(rho d)``, then the tokens ``X`` (n, T, d). Outputs are
    ``row-softmax(h)`` (``output="softmax"``, the model of the theory) or one-hot rows at the argmax
    (``output="hardmax"``, only for ``T = 2``, the second example of arXiv:2506.01582; see
    :class:`~solvable.channels.HardmaxChannel`). Sizes above :data:`solvable.validation.MAX_ELEMENTS` numbers
    are refused (``ValueError``).
    """
    d = check_int("d", d, minimum=2)
    T = _check_T(T)
    rho = _check_rho(rho)
    alpha = check_positive("alpha", alpha)
    output = check_choice("output", output, OUTPUTS)
    rng = check_rng(rng)
    if output == "hardmax" and T != 2:
        raise ValueError(f"T must be 2 for output='hardmax' (the covered example), got T={T}")
    r, n = round(rho * d), round(alpha * d * d)
    if r < 1 or n < 1:
        raise ValueError(f"rho d and alpha d^2 must round to at least 1; got r = {r}, n = {n} at d = {d}")
    check_size("the teacher W* (d, r = rho d)", d, r)
    check_size("the tokens X (n = alpha d^2, T, d)", n, T, d)
    W = rng.standard_normal((d, r))
    X = rng.standard_normal((n, T, d))
    S = W @ W.T / math.sqrt(r * d)
    h = _indices(X, S)
    y = row_softmax(h) if output == "softmax" else row_hardmax(h)
    return Dataset(X=X, y=y, W_star=W, S_star=S, output=output)


def fresh_samples(data: Dataset, n: int, *, rng) -> Dataset:
    """``n`` new samples of the same teacher as ``data`` (a test set): new tokens, same ``W*`` and output."""
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a solvable.attention.Dataset, got {type(data).__name__}")
    n = check_int("n", n)
    rng = check_rng(rng)
    check_size("the tokens X (n, T, d)", n, data.T, data.d)
    X = rng.standard_normal((n, data.T, data.d))
    h = _indices(X, np.asarray(data.S_star, dtype=float))
    y = row_softmax(h) if data.output == "softmax" else row_hardmax(h)
    return Dataset(X=X, y=y, W_star=data.W_star, S_star=data.S_star, output=data.output)


def output_error(S_hat, data: Dataset) -> float:
    """Plug-in error on the outputs, ``(1/n) sum_mu ||y_mu - softmax(h_mu(S_hat))||_F^2``.

    The finite-size counterpart of :func:`output_gen_error` (``estimator="plugin"``) when ``data`` is a fresh
    test set (Frobenius norm over the T x T output, averaged over samples; arXiv:2506.01582).
    """
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a solvable.attention.Dataset, got {type(data).__name__}")
    S_hat = _check_square("S_hat", S_hat, data.d)
    diff = row_softmax(_indices(np.asarray(data.X, dtype=float), S_hat)) - data.y
    return float(np.sum(diff * diff) / data.n)


# =========================================================================== theory


def n_effective_indices(T: int) -> int:
    """``K = T(T+1)/2 - 1``: the linear combinations of the symmetric indices ``h`` that ``row-softmax(h)``
    determines (each row fixes ``h`` up to a constant; symmetry leaves one global constant)."""
    T = _check_T(T)
    return T * (T + 1) // 2 - 1


def perfect_recovery_threshold(rho: float, T: int) -> float:
    """Sample ratio ``alpha = n/d^2`` above which Bayes-optimal learning of the tied softmax AIM is exact.

    ``alpha_PR = (rho - rho^2/2)/K`` for ``rho <= 1`` and ``(1/2)/K`` for ``rho >= 1``, ``K = T(T+1)/2 - 1``:
    free parameters of a rank-``r`` PSD matrix over the number of equations per sample (arXiv:2506.01582;
    ``science/attention.md``, Sec. 4), i.e. :func:`solvable.matrix_sensing.perfect_recovery_threshold` over
    ``K``. It decays like ``2/T^2``: longer sequences give more equations.
    """
    rho = _check_rho(rho)
    return matrix_sensing.perfect_recovery_threshold(rho) / n_effective_indices(T)


def bayes_optimal_mmse(alpha: float, rho: float, T: int) -> float:
    """Bayes-optimal MMSE ``(1/d)||S_hat - S*||_F^2`` of the one-layer tied softmax AIM (1 at ``alpha = 0``).

    The fixed point (arXiv:2506.01582; ``science/attention.md``, Sec. 2)

        m = F( m / (2 alpha K) ),      F(Delta) = mmse_RIE(Delta; rho),      K = T(T+1)/2 - 1,

    i.e. ``qhat F(1/qhat) = 2 alpha K`` with ``qhat = 2 alpha K/m``: exactly the noiseless Wishart-sensing
    equation of :func:`solvable.matrix_sensing.bayes_optimal_mmse` (``kappa = rho``; the quadratic network's)
    at sample ratio ``alpha K``. It is solved there by Brent's method in ``log qhat`` (unique root:
    ``qhat F(1/qhat)`` increases from 0 to ``2 alpha_PR K``). Returns a value in ``[0, 1]``, non-increasing in
    ``alpha``: 1 at ``alpha = 0`` and 0 for ``alpha >= alpha_PR`` (:func:`perfect_recovery_threshold`).
    Domain: ``alpha >= 0``, ``T >= 2`` and ``rho`` in ``[1e-3, 1e6]`` (:data:`solvable.matrix_sensing.KAPPA_MIN`,
    ``KAPPA_MAX``: where the Wishart RIE's MMSE is computed reliably).
    """
    alpha = check_nonnegative("alpha", alpha)
    rho = _check_rho_theory(rho)
    K = n_effective_indices(T)
    return matrix_sensing.bayes_optimal_mmse(alpha * K, rho)


def state_evolution(alpha: float, rho: float, T: int, *, m0: float | None = None, damping: float = 0.5,
                    tol: float = 1e-10, max_iter: int = 5000, warn: bool = True) -> SEResult:
    """State evolution of GAMP-RIE (``science/attention.md``, Secs. 2-3) from ``m_0 = 1 + rho``:

        v_t = damping v_{t-1} + (1 - damping) m_{t-1},      m_t = F( v_t / (2 alpha K) ),

    with ``v_1 = m_0`` and ``F = mmse_RIE(.; rho)``. ``v`` is half the output variance ``V`` of the loop,
    damped as :func:`gamp_rie` damps ``V``; the fixed point does not depend on ``damping`` and is the
    Bayes-optimal one (:func:`bayes_optimal_mmse`), since the channel is Bayes-optimal and
    ``m = F(m/(2 alpha K))`` has a single solution. This is the Wishart-sensing state evolution
    :func:`solvable.matrix_sensing.state_evolution` at sample ratio ``alpha K`` started from ``V_0 = 2 m_0``
    (its state ``V_t = 2 v_{t+1}``), on the shared driver :func:`solvable.amp.iterate_fixed_point`: it stops
    when ``|V_{t+1} - V_t| < tol`` and warns at ``max_iter`` (:class:`~solvable.errors.ConvergenceWarning`,
    unless ``warn=False``).

    Returns
    -------
    SEResult
        ``history[t] = m_t`` (``history[0] = m_0``), ``error`` the last one, ``overlap = 1 + rho - error``.
    """
    alpha = check_positive("alpha", alpha)
    rho = _check_rho_theory(rho)
    K = n_effective_indices(T)
    m0 = 1.0 + rho if m0 is None else check_positive("m0", m0)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    tol = check_tol(tol)
    max_iter = check_int("max_iter", max_iter)
    warn = _check_flag("warn", warn)
    return matrix_sensing.state_evolution(alpha * K, rho, V0=2.0 * m0, damping=damping, tol=tol,
                                          max_iter=max_iter, warn=warn)


@dataclass(frozen=True)
class OutputGenError:
    """Monte-Carlo estimate of the generalisation error on the outputs (:func:`output_gen_error`): ``value``
    with its standard error ``stderr``, the weight error ``mmse`` and overlap ``q = Q0 - mmse`` used."""

    value: float
    stderr: float
    mmse: float
    overlap: float
    estimator: str


def _symmetric_gaussian(shape_nt, T, variance, rng):
    """Symmetric (..., T, T) Gaussian matrices: off-diagonal variance ``v``, diagonal ``2 v``."""
    G = rng.standard_normal(shape_nt + (T, T))
    return math.sqrt(variance / 2.0) * (G + np.swapaxes(G, -1, -2))


def output_gen_error(alpha: float, rho: float, T: int, *, n_samples: int = 20000, estimator: str = "plugin",
                     n_inner: int = 64, rng) -> OutputGenError:
    """Generalisation error on the outputs, ``E ||y - y_hat||_F^2`` per sample, at the Bayes-optimal point.

    In high dimension the teacher's indices ``h`` and those of the posterior mean ``h_hat = h(S_hat)`` of a
    fresh sample are jointly Gaussian, entry by entry independent, with covariance ``[[Q0, q], [q, q]]``
    (doubled on the diagonal ``a = b``), ``Q0 = 1 + rho``, ``q = Q0 - m`` and ``m`` the MMSE of
    :func:`bayes_optimal_mmse` (``science/attention.md``, Sec. 2, last line; arXiv:2506.01582). So
    ``h = h_hat + sqrt(m) xi`` with ``xi`` an independent symmetric Gaussian matrix, and

    - ``estimator="plugin"`` (default): ``y_hat = softmax(h_hat)``, the output of the network with the
      Bayes-optimal weights ``S_hat`` (what :func:`output_error` measures at finite size, and the test error
      reported next to AMP in arXiv:2506.01582);
    - ``estimator="bayes"``: ``y_hat = E[softmax(h_hat + sqrt(m) xi') | h_hat]``, the Bayes-optimal prediction
      of the outputs (a lower bound on the plug-in error), averaged over ``n_inner`` inner draws of ``xi'``.
      The inner average adds ``B/n_inner`` to the error ``B`` (the inner draws and ``y`` are i.i.d. given
      ``h_hat``), so the estimate is multiplied by ``n_inner/(n_inner + 1)``, which removes that bias.

    The expectation is a Monte Carlo over ``n_samples`` draws of ``(h_hat, xi)`` from ``rng``; ``stderr`` is
    its standard error. At ``alpha = 0`` (``S_hat = sqrt(rho) I``, ``q = rho``) it is the error of that
    uninformed network; above ``alpha_PR`` it is 0.
    """
    m = bayes_optimal_mmse(alpha, rho, T)
    rho, T = _check_rho(rho), _check_T(T)
    n_samples = check_int("n_samples", n_samples, minimum=2)
    n_inner = check_int("n_inner", n_inner)
    estimator = check_choice("estimator", estimator, ("plugin", "bayes"))
    check_size("the Monte-Carlo draws (n_samples, T, T)", n_samples, T, T)
    if estimator == "bayes":
        check_size("the inner Monte-Carlo draws (n_inner, n_samples, T, T)", n_inner, n_samples, T, T)
    rng = check_rng(rng)
    q = 1.0 + rho - m
    h_hat = _symmetric_gaussian((n_samples,), T, q, rng)
    y = row_softmax(h_hat + _symmetric_gaussian((n_samples,), T, m, rng)) if m > 0 else row_softmax(h_hat)
    if estimator == "plugin" or m == 0:
        y_hat = row_softmax(h_hat)
    else:
        y_hat = np.zeros_like(y)
        chunk = max(1, 2_000_000 // (n_samples * T * T))
        for start in range(0, n_inner, chunk):
            k = min(chunk, n_inner - start)
            y_hat += row_softmax(h_hat[None] + _symmetric_gaussian((k, n_samples), T, m, rng)).sum(axis=0)
        y_hat /= n_inner
    err = np.sum((y - y_hat) ** 2, axis=(1, 2))
    if estimator == "bayes":
        err *= n_inner / (n_inner + 1.0)
    return OutputGenError(value=float(err.mean()), stderr=float(err.std(ddof=1) / math.sqrt(n_samples)),
                          mmse=m, overlap=q, estimator=estimator)


def hardmax_state_evolution(alpha: float, rho: float, *, n_samples: int = 100_000, damping: float = 0.5,
                            tol: float = 1e-4, max_iter: int = 2000, warn: bool = True, rng) -> SEResult:
    """Bayes-optimal state evolution of the tied hardmax AIM, ``T = 2`` (Monte-Carlo channel).

    The softmax recursion with the channel integral done by Monte Carlo (arXiv:2506.01582, hardmax example;
    ``science/attention.md``, Sec. 4: learning is much slower than with the softmax):

        v_t = damping v_{t-1} + (1 - damping) m_{t-1},   V = 2 v_t,
        qhat = 4 alpha E ||g_out(y, omega, V)||^2,        m_t = F(1/qhat) = mmse_RIE(1/qhat; rho),

    with :class:`~solvable.channels.HardmaxChannel`, ``omega`` i.i.d. ``N(0, 2 Q0 - V)`` and
    ``z = omega + sqrt(V) u`` in ``tau`` units (``Q0 = 1 + rho``), ``y`` the signs of ``h11 - h12`` and
    ``h22 - h12``. (For the softmax the same recipe gives ``E||g||^2 = K/V`` and ``qhat = 2 alpha K/m``.) The
    ``n_samples`` draws of ``(omega, u)`` are made once from ``rng`` (common random numbers, so the iteration is
    a deterministic map); the Monte-Carlo error of ``qhat`` is about ``1/sqrt(n_samples)`` relative. Starts at
    ``m_0 = Q0`` (``v_1 = m_0``). Runs on the shared driver :func:`solvable.amp.iterate_fixed_point` with the
    state ``V_t = 2 v_{t+1}``: it stops when ``|V_{t+1} - V_t| < tol`` (default 1e-4: the map is piecewise
    constant in ``V`` through the signs of the fixed draws and can end in a 2-cycle of amplitude ~1e-5, far
    below the Monte-Carlo error) and warns at ``max_iter`` (:class:`~solvable.errors.ConvergenceWarning`, unless
    ``warn=False``). No reference values are available for this channel: it is checked by the Nishimori
    identity ``E[g . (z - omega)] = V E||g||^2 = -V E sum dg`` and against :func:`gamp_rie` on hardmax data
    (d = 80, seeds 0-1: 0.50, 0.54 against 0.526 at ``alpha = 0.2``; 0.216, 0.233 against 0.216 at 0.5; 0.097,
    0.080 against 0.081 at 1, ``rho = 0.5``). The error keeps decreasing with ``alpha`` (0.0067 at
    ``alpha = 4``): no finite perfect-recovery threshold was found.

    Returns
    -------
    SEResult
        ``history[t] = m_t`` (``history[0] = Q0``), ``error`` the last one, ``overlap = Q0 - error``,
        ``conjugate`` the last ``qhat``.
    """
    alpha = check_positive("alpha", alpha)
    rho = _check_rho_theory(rho)
    n_samples = check_int("n_samples", n_samples, minimum=2)
    check_size("the Monte-Carlo draws (n_samples, 3)", n_samples, 3)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    tol = check_tol(tol)
    max_iter = check_int("max_iter", max_iter)
    warn = _check_flag("warn", warn)
    rng = check_rng(rng)
    Q0 = 1.0 + rho
    xi = rng.standard_normal((n_samples, 3))
    u = rng.standard_normal((n_samples, 3))
    channel = HardmaxChannel()

    def update(x):
        V = float(x[0])
        omega = math.sqrt(max(2.0 * Q0 - V, 0.0)) * xi
        g, _ = channel.g_out(channel.signs_of(omega + math.sqrt(V) * u), omega, V)
        qhat = 4.0 * alpha * float(np.mean(np.sum(g * g, axis=1)))
        if not (math.isfinite(qhat) and qhat > 0):
            return np.array([math.nan]), (math.nan, qhat)
        mmse = symmetric_rie_mmse(1.0 / qhat, rho)
        return np.array([2.0 * mmse]), (mmse, qhat)

    fp = iterate_fixed_point(update, [2.0 * Q0], damping=damping, tol=tol, max_iter=max_iter, warn=warn,
                             what=f"hardmax state evolution (alpha = {alpha:g}, rho = {rho:g})", stacklevel=3)
    history = np.concatenate([[Q0], fp.observed[:, 0]])
    error = float(history[-1])
    return SEResult(error=error, overlap=Q0 - error, history=history, iterations=fp.iterations,
                    converged=fp.converged, conjugate=float(fp.observed[-1, 1]))


# =========================================================================== GAMP-RIE


class AttentionSensingMap:
    """The map ``S -> z`` with ``z^mu_ab = <Phi^mu_ab, S> = tau_ab h^mu_ab(S)`` for ``a <= b``, on raw tokens.

    ``Phi^mu_ab = sym(x_a x_b^T - delta_ab I)/sqrt(d)``, ``sym(M) = (M + M^T)/sqrt(2)``, diagonal blocks
    further divided by ``sqrt(2)`` (``science/attention.md``, Sec. 3), i.e. ``tau_ab = sqrt(2)`` for ``a < b``
    and 1 on the diagonal. Without any per-sample d x d tensor (memory O(n T d)):

    - ``forward(S)``: ``h = attention_indices(X, S)`` (one ``(nT, d) @ (d, d)`` product), packed, times
      ``tau``;
    - ``adjoint(g) = sum_mu sum_{a<=b} g^mu_ab Phi^mu_ab = [X^T M X - (sum_mu,a g^mu_aa) I]/sqrt(d)`` with the
      symmetric per-sample coefficients ``M_ab = tau_ab g_ab / 2`` (``a != b``), ``M_aa = g_aa``: one
      ``(d, nT) @ (nT, d)`` product.

    Variances: every component has ``E <Phi_ab, A>^2 = 2 |A|_F^2/d``, as the quadratic network's
    ``Tr(Z A)``, so ``forward_variance(c) = 2 c`` and ``adjoint_variance(a) = 2 sum(a)/d`` are those of
    :class:`solvable.quadratic.QuadraticSensingMap`, and :class:`solvable.rie.WishartRIEDenoiser`
    turns the precision into the noise ``Delta = d/(2A) = 1/(2 A_spec)`` of the spec.
    """

    def __init__(self, X):
        X = _check_tokens(X)
        self.X = X
        self.n, self.T, self.d = X.shape
        _check_T(self.T)
        self.tau = index_weights(self.T)
        self._a, self._b = np.triu_indices(self.T)
        self._diag = self._a == self._b

    @property
    def n_indices(self) -> int:
        """``P = T(T+1)/2`` components per sample."""
        return self.tau.size

    def forward(self, S):
        S = np.asarray(S, dtype=float)
        if S.shape != (self.d, self.d):
            raise ValueError(f"S must have shape ({self.d}, {self.d}), got {S.shape}")
        return pack_indices(_indices(self.X, S)) * self.tau

    def adjoint(self, g):
        g = np.asarray(g, dtype=float)
        if g.shape != (self.n, self.n_indices):
            raise ValueError(f"g must have shape ({self.n}, {self.n_indices}), got {g.shape}")
        coef = g * np.where(self._diag, 1.0, self.tau / 2.0)
        M = unpack_indices(coef, self.T)
        Y = np.matmul(M, self.X)  # (n, T, d): sum_b M_ab x_b
        n, T, d = self.X.shape
        out = self.X.reshape(n * T, d).T @ Y.reshape(n * T, d)
        out[np.diag_indices(d)] -= float(np.sum(g[:, self._diag]))
        return out / math.sqrt(d)

    def forward_variance(self, c):
        return 2.0 * float(c)

    def adjoint_variance(self, a):
        return 2.0 * float(np.sum(a)) / self.d


def gamp_rie(data: Dataset, *, damping: float = 0.5, tol: float = 1e-5, max_iter: int = 100, C0: float = 10.0,
             omega0: float = 10.0, V0: float = 10.0, damp: str = "auto", warn: bool = True,
             rng) -> GAMPResult:
    """GAMP-RIE for the tied softmax AIM (arXiv:2506.01582; ``science/attention.md``, Sec. 3).

    The shared loop :func:`solvable.amp.run_gamp` with :class:`AttentionSensingMap` (the ``T(T+1)/2``
    symmetrised indices), :class:`solvable.channels.SoftmaxChannel` and :class:`solvable.rie.WishartRIEDenoiser`
    (``kappa = rho``); the precision is the empirical ``A = 2 sum(g^2)/d`` (``Delta = 1/(2 A_spec)`` of the
    spec) and the damping acts on the output state ``(V, omega)``. Start: ``S_hat`` a prior draw
    ``W W^T/sqrt(r d)`` with a fresh ``W`` from ``rng``, ``C_hat_0 = C0`` (so ``V_1 = 2 C0``), and the first
    Onsager term uses ``g_0 = g_out(y, omega0, V0)`` (``g_0 = 0`` blows up at small alpha). Stops when
    ``|S_new - S_hat|_F^2/d < tol``.
    At ``d ~ 100`` some runs plateau with fluctuations above ``tol``: a
    :class:`~solvable.errors.ConvergenceWarning` says so (unless ``warn=False``) and the last iterate is
    returned; report ``history[-1]`` for every run, converged or not.

    ``damp``: ``"output"`` damps ``(V, omega)``; ``"both"`` also damps ``(S_hat, C_hat)`` (needed at small
    sample ratio, where output damping alone can stop at an overconfident fixed point, ``C_hat -> 0`` with an
    error above 1); ``"auto"`` (default) picks ``"both"`` when ``alpha K < AUTO_DAMP_BOTH_BELOW = 0.4``
    (``science/attention.md``, Sec. 3, says ``alpha < 0.03`` at ``T = 3``, i.e. ``alpha K < 0.15``; we
    measured stuck runs with output damping alone up to ``alpha K = 0.25``: see :data:`AUTO_DAMP_BOTH_BELOW`).
    With
    ``"both"`` the iterate rarely meets ``tol`` at ``d ~ 100``; with ``"output"`` a run that "converges" at
    small ``alpha`` may have converged to the wrong point: compare with :func:`bayes_optimal_mmse`. Below
    ``alpha K ~ 0.06`` at ``d = 80`` (fewer than ~200 samples) some runs fail either way.

    Hardmax data (``data.output == "hardmax"``, ``T = 2``) use :class:`solvable.channels.HardmaxChannel` in the
    same loop (compare with :func:`hardmax_state_evolution`; ``K = 2`` in the ``"auto"`` rule).

    ``damping = 0`` is allowed but fragile: the undamped loop can stop at a false fixed point whose variance
    ``C_hat`` has collapsed (``converged`` was True at error 0.139 where the damped run reaches 1.6e-5). Such a
    run fails the check :func:`self_consistency` and is returned with ``converged=False`` and a
    :class:`~solvable.errors.ConvergenceWarning` (unless ``warn=False``).

    Returns
    -------
    GAMPResult
        ``estimate`` (d, d), ``variance`` ``C_hat``, ``history`` the error ``(1/d)||S_hat^t - S*||_F^2`` after
        each iteration (:func:`solvable.rie.symmetric_error`), ``error`` its last value, ``iterations``,
        ``converged``.
    """
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a solvable.attention.Dataset, got {type(data).__name__}")
    rng = check_rng(rng)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    tol = check_tol(tol)
    max_iter = check_int("max_iter", max_iter)
    warn = _check_flag("warn", warn)
    C0, omega0, V0 = check_positive("C0", C0), check_nonnegative("omega0", omega0), check_positive("V0", V0)
    damp = check_choice("damp", damp, ("auto", "output", "both"))
    if damp == "auto":
        damp = "both" if data.alpha * n_effective_indices(data.T) < AUTO_DAMP_BOTH_BELOW else "output"
    d, r = data.d, data.r
    W0 = rng.standard_normal((d, r))
    S0 = W0 @ W0.T / math.sqrt(r * d)
    channel = SoftmaxChannel(data.T) if data.output == "softmax" else HardmaxChannel(data.T)
    y = channel.observe(data.y)
    S_star = data.S_star
    with warnings.catch_warnings():
        if not warn:
            warnings.simplefilter("ignore", ConvergenceWarning)
        sensing = AttentionSensingMap(data.X)
        res = run_gamp(
            sensing, channel, WishartRIEDenoiser(data.rho), y, S0, C0,
            damping=damping, tol=tol / d, max_iter=max_iter, damp=damp, precision="empirical",
            omega0=np.full(y.shape, omega0), V0=V0, monitor=lambda S: symmetric_error(S, S_star), warn=warn,
        )
    ratio = self_consistency(sensing, channel, y, res.estimate, res.variance)
    if ratio > SELF_CONSISTENCY_MAX:
        if warn:
            warnings.warn(
                f"GAMP-RIE stopped at a false fixed point after {res.iterations} iterations: its variance "
                f"C_hat = {float(res.variance):.2e} collapsed below the error its own training residuals show "
                f"(self-consistency ratio {ratio:.3g} > {SELF_CONSISTENCY_MAX:g}); reported as not converged "
                f"(use damping > 0, e.g. the default 0.5)",
                ConvergenceWarning,
                stacklevel=2,
            )
        res = replace(res, converged=False)
    return res


def self_consistency(sensing: AttentionSensingMap, channel, y, S_hat, C_hat) -> float:
    """Ratio ``mean_mu ||g_mu||^2 / mean_mu sum_ab (-dg_mu_ab)`` of ``(g, dg) = g_out(y, M(S_hat), 2 C_hat)``.

    The Nishimori identity of a Bayes-optimal channel, ``E||g_out||^2 = -E sum dg_out`` (``science/attention.md``,
    Sec. 3, step 2), holds when the output variance ``V = 2 C_hat`` matches the actual error of ``S_hat``. On the
    training data the estimate fits better than on fresh data, so a consistent GAMP-RIE fixed point has a ratio
    below 1 (measured at d = 40-80, rho = 0.5, T = 2-4, 16 runs that reached the theory: at most 0.05 for the
    softmax, 0.26 for the hardmax). For the softmax channel it is the training residual orthogonal to the shift
    direction over the one predicted, ``(1/(2K)) mean||P(z(y) - M(S_hat))||^2 / C_hat``. Undamped GAMP-RIE
    (``damping = 0``) can stop at a false fixed point where ``C_hat`` has collapsed (to 1e-5 - 1e-12) while the
    error stays at 0.05-1: its updates shrink with ``C_hat`` and the change falls below ``tol``. In 16 such runs
    (same sizes; two of them damped, at ``alpha K = 0.09`` and at ``alpha = 0.1 > alpha_PR``, error 0.008 with
    ``C_hat = 9e-6``) the ratio was 3.6 to 2e13.
    :func:`gamp_rie` reports a run with a ratio above :data:`SELF_CONSISTENCY_MAX` as not converged.
    Returns ``inf`` if the ratio is not a finite number (``C_hat = 0``).
    """
    with np.errstate(all="ignore"):
        g, dg = channel.g_out(y, sensing.forward(S_hat), sensing.forward_variance(C_hat))
        ratio = float(np.mean(np.sum(g * g, axis=1)) / np.mean(np.sum(-dg, axis=1)))
    return ratio if math.isfinite(ratio) and ratio >= 0 else math.inf


# =========================================================================== gradient descent / Adam


def _check_students(W, X, y):
    """``(W, X, y)`` as float arrays, ``W`` (K, d, r) (a (d, r) array is one student), ``X`` (n, T, d),
    ``y`` (n, T, T), all finite (``ValueError`` naming the array otherwise)."""
    X, y = _check_outputs(X, y)
    W = _float_array("W", W)
    if W.ndim == 2:
        W = W[None]
    if W.ndim != 3 or W.shape[1] != X.shape[2] or W.shape[0] < 1 or W.shape[2] < 1:
        raise ValueError(f"X must be (n, T, d) and W (K, d, r) or (d, r) with the same d; "
                         f"got {X.shape}, {W.shape}")
    if not np.all(np.isfinite(W)):
        raise ValueError("W must contain finite numbers only")
    return W, X, y


def _check_outputs(X, y):
    """Tokens ``X`` (n, T, d) and outputs ``y`` (n, T, T), finite (``ValueError`` naming the array otherwise)."""
    X = _check_tokens(X)
    y = _float_array("y", y)
    if y.shape != (X.shape[0], X.shape[1], X.shape[1]):
        raise ValueError(f"y must have shape {(X.shape[0], X.shape[1], X.shape[1])}, got {y.shape}")
    if not np.all((y >= 0.0) & (y <= 1.0)):
        raise ValueError("y must hold softmax outputs, numbers in [0, 1]")
    return X, y


def _students_forward(W, X):
    """Projections ``p = W^T x`` (K, n, T, r), softmax outputs (K, n, T, T) and the scale ``1/(d sqrt r)``."""
    K, d, r = W.shape
    n, T, _ = X.shape
    scale = 1.0 / (d * math.sqrt(r))
    P = np.matmul(X.reshape(n * T, d), W).reshape(K, n, T, r)
    h = np.matmul(P, np.swapaxes(P, -1, -2))
    h[..., np.arange(T), np.arange(T)] -= np.sum(W * W, axis=(1, 2))[:, None, None]
    h *= scale
    if not np.all(np.isfinite(h)):
        raise DivergenceError("the students' attention indices overflowed (weights of size "
                              f"{math.sqrt(float(np.max(np.sum(W * W, axis=(1, 2))))):.1e}): training diverged, "
                              "lower lr")
    return P, row_softmax(h), scale


def student_loss_and_gradient(W, X, y):
    """Loss and gradient of ``K`` tied softmax students at once (``science/attention.md``, Sec. 5).

    Student ``k``: ``S_k = W_k W_k^T/sqrt(r d)``, ``y_hat = row-softmax(h(S_k))`` with
    ``h_ab = [p_a . p_b - delta_ab |W_k|_F^2]/(d sqrt r)``, ``p_a = W_k^T x_a``; loss
    ``L_k = sum_mu ||y_hat_mu - y_mu||_F^2 / d``. Backward pass: ``E = 2 (y_hat - y)/d``, through the row
    softmax ``G_ab = y_hat_ab (E_ab - sum_c E_ac y_hat_ac)``, then

        dL/dW = [ sum_mu sum_a x_a ((G + G^T) p)_a^T - 2 W sum_mu Tr G ] / (d sqrt r),

    all as batched matrix products (no loop over samples or students).

    Parameters
    ----------
    W : (K, d, r) or (d, r) array
    X : (n, T, d) tokens; y : (n, T, T) outputs.

    Returns
    -------
    loss : (K,) array; grad : (K, d, r) array.
    """
    W, X, y = _check_students(W, X, y)
    return _loss_and_grad(W, X, y)


def _loss_and_grad(W, X, y):
    K, d, r = W.shape
    n, T, _ = X.shape
    P, y_hat, scale = _students_forward(W, X)
    E = y_hat - y
    loss = np.einsum("knab,knab->k", E, E) / d
    E *= 2.0 / d
    G = y_hat * (E - np.sum(E * y_hat, axis=-1, keepdims=True))
    Q = np.matmul(G + np.swapaxes(G, -1, -2), P).reshape(K, n * T, r)
    grad = np.matmul(X.reshape(n * T, d).T, Q)
    trace = np.einsum("knaa->k", G)
    grad -= 2.0 * trace[:, None, None] * W
    return loss, grad * scale


class StudentLoss:
    """The training loss of tied softmax students, as an objective of :func:`solvable.gd.run_gd`.

    ``StudentLoss(X, y, r)``: tokens ``X`` (n, T, d), outputs ``y`` (n, T, T), student width ``r``. For batched
    parameters ``params = (W,)`` with ``W`` (K, d, r):

    - ``loss_and_gradient(params) -> (L (K,), (dL/dW,))``: the loss ``L_k = sum_mu ||y_hat_mu - y_mu||_F^2/d``
      and its gradient (:func:`student_loss_and_gradient`, ``science/attention.md``, Sec. 5);
    - ``matrix(params)``: ``S_k = W_k W_k^T/sqrt(r d)`` (K, d, d);
    - ``loss_scale``: the loss of the uniform prediction ``y_hat = 1/T``, ``sum_mu ||y_mu - 1/T||_F^2/d``, so
      that ``L/loss_scale`` is the relative training loss that :func:`train_students` reports;
    - ``error(S, S_star)``: ``(1/d)||S_k - S*||_F^2`` per student (the error of :func:`gamp_rie` and of
      :func:`bayes_optimal_mmse`), for ``run_gd``'s ``error`` argument.
    """

    def __init__(self, X, y, r: int):
        self.r = check_int("r", r)
        X, y = _check_outputs(X, y)
        self.X, self.y = X, y
        self.n, self.T, self.d = X.shape
        self.loss_scale = float(np.sum((y - 1.0 / self.T) ** 2)) / self.d
        if not (math.isfinite(self.loss_scale) and self.loss_scale > 0):
            raise ValueError("y must not be the uniform output 1/T everywhere (the relative loss divides by "
                             "its loss)")

    def _W(self, params):
        if not isinstance(params, (tuple, list)) or len(params) != 1:
            raise TypeError("params must be a tuple (W,) with W of shape (K, d, r)")
        W = params[0]
        if W.ndim != 3 or W.shape[1:] != (self.d, self.r):
            raise ValueError(f"W must have shape (K, {self.d}, {self.r}), got {W.shape}")
        return W

    def loss_and_gradient(self, params):
        loss, grad = _loss_and_grad(self._W(params), self.X, self.y)
        return loss, (grad,)

    def matrix(self, params):
        W = self._W(params)
        return np.matmul(W, np.swapaxes(W, -1, -2)) / math.sqrt(self.r * self.d)

    def error(self, S, S_star):
        """``(1/d)||S_k - S*||_F^2`` for each of the (K, d, d) matrices ``S``."""
        diff = S - S_star
        return np.einsum("kij,kij->k", diff, diff) / self.d


def train_students(data: Dataset, *, n_students: int = 32, steps: int = 1500, lr: float = 0.1,
                   optimizer: str = "adam", width: int | None = None,
                   betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, record_every: int = 50,
                   warn: bool = True, rng) -> _gd.GDResult:
    """Full-batch Adam (or plain GD) on ``K = n_students`` tied softmax students, batched in one computation.

    Students have the teacher's architecture (width ``r = width``, default the teacher's), start from
    ``W ~ N(0, 1)`` drawn from ``rng``, and minimise ``sum_mu ||y_hat_mu - y_mu||_F^2/d`` (:class:`StudentLoss`)
    for exactly ``steps`` steps of the library's optimiser loop :func:`solvable.gd.run_gd` (``tol = 0``).
    ``optimizer="adam"``: :class:`solvable.gd.Adam` (Kingma and Ba, arXiv:1412.6980) with constant ``lr`` and
    ``betas``, ``eps``: ``m <- b1 m + (1 - b1) g``, ``v <- b2 v + (1 - b2) g^2``,
    ``W <- W - lr m_hat/(sqrt(v_hat) + eps)``, elementwise, so each student has its own moments.
    ``optimizer="gd"``: :class:`solvable.gd.GradientStep`, ``W <- W - lr g`` (the loss is O(alpha d), so ``lr``
    must be much smaller than Adam's; plain GD is slow here, ``science/attention.md``, Sec. 5).

    Averaging ``S`` over students approaches the Bayes MMSE (arXiv:2506.01582, Sec. 5); single students reach
    zero error above ``alpha_PR``. Some students stall at a relative loss of 1e-5 to 1e-4: read ``losses``
    next to ``errors``. Memory: about ``3 K n T max(r, T) + K d r`` floats.

    A step too large for the loss saturates the softmax: the weights explode while the loss stays finite
    (``lr = 1e6`` with ``optimizer="gd"`` gave an average error of 1e18). ``run_gd`` then warns that the runs
    ended above their initial loss (:class:`~solvable.errors.ConvergenceWarning`, unless ``warn=False``), and
    students whose weights left any sensible scale (``|S_k|_F^2/d`` above 1e6 times the teacher's
    ``1 + rho``) raise :class:`~solvable.errors.DivergenceError`.

    Returns
    -------
    solvable.gd.GDResult
        ``estimates`` (K, d, d) the final ``S_k``, ``average`` their mean (averaged GD), ``errors`` (K,) and
        ``average_error`` ``(1/d)||S - S*||_F^2``, ``losses`` the final relative training loss (over the
        uniform prediction's), ``loss_history`` and ``error_history`` (records, K) every ``record_every`` steps
        (row 0 at step 0), ``steps`` (K,) (all equal to ``steps``).

    Raises
    ------
    DivergenceError
        If the loss becomes non-finite (with the step number) or the weights explode (above).
    """
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a solvable.attention.Dataset, got {type(data).__name__}")
    K = check_int("n_students", n_students)
    steps = check_int("steps", steps, minimum=0)
    lr = check_positive("lr", lr)
    optimizer = check_choice("optimizer", optimizer, ("adam", "gd"))
    r = data.r if width is None else check_int("width", width)
    try:
        b1, b2 = betas
    except (TypeError, ValueError):
        raise ValueError(f"betas must be a pair (beta1, beta2) in [0, 1), got {betas!r}") from None
    b1 = check_in_range("betas[0]", b1, 0.0, 1.0, high_open=True)
    b2 = check_in_range("betas[1]", b2, 0.0, 1.0, high_open=True)
    eps = check_positive("eps", eps)
    record_every = check_int("record_every", record_every)
    warn = _check_flag("warn", warn)
    rng = check_rng(rng)
    d = data.d
    check_size("the students' outputs (n_students, n, T, T)", K, data.n, data.T, data.T)
    check_size("the students' projections (n_students, n, T, width)", K, data.n, data.T, r)
    check_size("the students' estimates (n_students, d, d)", K, d, d)
    objective = StudentLoss(data.X, data.y, r)
    step = _gd.Adam(lr, beta1=b1, beta2=b2, eps=eps) if optimizer == "adam" else _gd.GradientStep(lr)
    W = rng.standard_normal((K, d, r))
    res = _gd.run_gd(objective, (W,), optimiser=step, tol=0.0, max_steps=steps, record_every=record_every,
                     target=data.S_star, error=objective.error, warn=warn)
    scale = np.einsum("kij,kij->k", res.estimates, res.estimates) / d
    if np.any(scale > STUDENT_NORM_MAX * (1.0 + data.rho)):
        raise DivergenceError(
            f"training diverged: {int(np.sum(scale > STUDENT_NORM_MAX * (1.0 + data.rho)))} of {K} students "
            f"ended with |S|_F^2/d up to {scale.max():.2e}, the teacher's is about {1.0 + data.rho:g} "
            f"(lr = {lr:g} is too large for optimizer={optimizer!r})")
    return res
