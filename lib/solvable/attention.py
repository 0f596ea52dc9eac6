"""Attention: the attention-indexed model (AIM) and the sequence multi-index (SMI) model.

**Attention-indexed model** (``science/attention.md``, Secs. 1-5; Boncoraglio, Troiani, Erba, Zdeborova,
"Bayes optimal learning of attention-indexed models", arXiv:2506.01582). A sample is a sequence of ``T``
tokens ``x_a ~ N(0, I_d)`` (``X`` in ``R^{T x d}``); a tied attention layer with weights ``W`` in
``R^{d x r}`` (``r = rho d``, i.i.d. N(0, 1)) and ``S = W W^T/sqrt(r d)`` (O(1) spectrum, mean ``sqrt(rho)``,
second moment ``Q0 = (1/d) Tr S^2 = 1 + rho``) computes the symmetric T x T matrix of **attention indices**

    h_ab = [x_a^T S x_b - delta_ab Tr S] / sqrt(d)              (Var h_ab = Q0, Var h_aa = 2 Q0)

and outputs ``y = row-softmax(h)`` (inverse temperature 1, no noise). With ``n = alpha d^2`` samples,
``d -> inf`` at fixed ``alpha, rho, T``, learning ``S`` is the same matrix-sensing problem as the quadratic
network (:mod:`solvable.quadratic`, Wishart prior with ``kappa -> rho``) with ``T(T+1)/2`` indices per sample
seen through the softmax, which keeps ``K = T(T+1)/2 - 1`` of them (each row is fixed up to a constant, and
symmetry leaves one global constant). Hence the Bayes-optimal error solves

    m = F( m / (2 alpha K) ),     F(Delta) = mmse_RIE(Delta; rho)   (symmetric RIE, :mod:`solvable.rie`)

which is the quadratic-network equation at ``alpha K`` (:func:`bayes_optimal_mmse`). Errors are
``m = (1/d)||S_hat - S||_F^2`` (1 for the prior mean ``sqrt(rho) I``, 0 at perfect recovery).

GAMP-RIE (:func:`gamp_rie`) is the shared loop :func:`solvable.amp.run_gamp` with

- :class:`AttentionSensingMap`: the ``P = T(T+1)/2`` symmetrised indices ``z_ab = tau_ab h_ab``
  (``tau = sqrt(2)`` off the diagonal, 1 on it) computed from the raw tokens with BLAS products (memory
  O(n T d), never a per-sample d x d tensor). The ``tau`` weights give every component output variance
  ``2 c`` for an error ``c``, exactly as :class:`solvable.quadratic.QuadraticSensingMap`, so the precision
  ``A = 2 sum(g^2)/d`` and :class:`solvable.quadratic.WishartRIEDenoiser` (``kappa = rho``) are reused
  unchanged;
- :class:`SoftmaxChannel`: the Gaussian projection of ``omega`` onto the line of indices consistent with
  ``y``, done in the ``tau`` units of ``omega`` (``science/attention.md``, Sec. 3, step 2).

Gradient descent / Adam on the tied student (:func:`train_students`) batches ``K`` initialisations in one
computation per step; averaging their ``S`` is "averaged GD" (Sec. 5).

**Sequence multi-index model** (Sec. 6; Troiani, Cui, Dandi, Krzakala, Zdeborova, arXiv:2502.00901):
``y = g(w^T X / sqrt(D))`` at linear sample ratio ``alpha = N/D``. The worked case is one tied rank-one
softmax layer, ``y = row-softmax(z z^T)`` with ``z = X^T w/sqrt(D)`` in ``R^T``: its weak-recovery threshold
is ``alpha_c = 1/(T(T+1))`` (:func:`sequence_weak_recovery_threshold`) and its state evolution
(:func:`sequence_state_evolution`, :func:`sequence_overlap_curve`) is a vectorised Monte Carlo over ``z``;
it reaches perfect recovery at ``alpha = 1/T`` (:func:`sequence_perfect_recovery_threshold`, derived here).
Multi-layer AIMs and the two-layer SMI thresholds (``science/attention.md``, Secs. 1 and 6) are not covered.

The **hardmax** output (one-hot argmax rows, ``T = 2``) is the second example: :func:`sample` with
``output="hardmax"``, the exact channel :class:`HardmaxChannel` (bivariate-normal orthant probabilities), its
Monte-Carlo state evolution :func:`hardmax_state_evolution` and :func:`gamp_rie` on hardmax data. These are
derived here, not taken from ``science/attention.md`` (which leaves them unverified): they are checked by the
Nishimori identity and by GAMP-RIE on data against the state evolution, not against published values.

Related: Cui, Behrens, Krzakala, Zdeborova, arXiv:2402.03902 (positional vs semantic attention; not covered
by this module).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from . import quadratic
from .amp import run_gamp
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
from .quadratic import GAMPResult, SEResult, WishartRIEDenoiser, matrix_error
from .rie import symmetric_rie_mmse
from .validation import (
    check_choice,
    check_in_range,
    check_int,
    check_nonnegative,
    check_positive,
    check_rng,
)

__all__ = [
    "OUTPUTS",
    "AUTO_DAMP_BOTH_BELOW",
    "Dataset",
    "sample",
    "fresh_samples",
    "attention_indices",
    "row_softmax",
    "row_hardmax",
    "output_error",
    "n_effective_indices",
    "perfect_recovery_threshold",
    "bayes_optimal_mmse",
    "SEResult",
    "state_evolution",
    "OutputGenError",
    "output_gen_error",
    "hardmax_state_evolution",
    "pack_indices",
    "unpack_indices",
    "index_weights",
    "AttentionSensingMap",
    "SoftmaxChannel",
    "HardmaxChannel",
    "GAMPResult",
    "gamp_rie",
    "student_loss_and_gradient",
    "StudentsResult",
    "train_students",
    "SequenceDataset",
    "sample_sequence",
    "sequence_weak_recovery_threshold",
    "sequence_perfect_recovery_threshold",
    "sequence_fisher_factor",
    "SequenceSEResult",
    "sequence_state_evolution",
    "OverlapCurve",
    "sequence_overlap_curve",
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

#: Output layers of the AIM sampler: the tied softmax (main model) and the hardmax (``T = 2`` only).
OUTPUTS = ("softmax", "hardmax")


def _check_T(T, minimum: int = 2) -> int:
    """``T`` must be an integer >= 2: a 1 x 1 softmax is identically 1 and carries no information."""
    return check_int("T", T, minimum=minimum)


def _check_rho(rho) -> float:
    return check_positive("rho", rho)


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
    X = np.asarray(X, dtype=float)
    S = np.asarray(S, dtype=float)
    if X.ndim != 3:
        raise ValueError(f"X must be a 3-d array (n, T, d), got shape {X.shape}")
    n, T, d = X.shape
    if S.shape != (d, d):
        raise ValueError(f"S must be ({d}, {d}) to match X, got shape {S.shape}")
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
        if X.ndim != 3 or y.shape != (X.shape[0], X.shape[1], X.shape[1]):
            raise ValueError(f"X must be (n, T, d) and y (n, T, T), got shapes {X.shape} and {y.shape}")
        d = X.shape[2]
        if W.ndim != 2 or W.shape[0] != d or S.shape != (d, d):
            raise ValueError(f"W_star must be (d, r) and S_star (d, d) with d = {d}; "
                             f"got {W.shape} and {S.shape}")
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
        return attention_indices(self.X, self.S_star)


def sample(d: int, T: int, rho: float, alpha: float, *, output: str = "softmax", rng) -> Dataset:
    """Draw an AIM teacher and ``n = round(alpha d^2)`` samples (``science/attention.md``, Sec. 1).

    Draw order: ``W*`` (d, r) with ``r = round(rho d)``, then the tokens ``X`` (n, T, d). Outputs are
    ``row-softmax(h)`` (``output="softmax"``, the model of the theory) or one-hot rows at the argmax
    (``output="hardmax"``, only for ``T = 2``, the second example of arXiv:2506.01582; see
    :class:`HardmaxChannel`).
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
    W = rng.standard_normal((d, r))
    X = rng.standard_normal((n, T, d))
    S = W @ W.T / math.sqrt(r * d)
    h = attention_indices(X, S)
    y = row_softmax(h) if output == "softmax" else row_hardmax(h)
    return Dataset(X=X, y=y, W_star=W, S_star=S, output=output)


def fresh_samples(data: Dataset, n: int, *, rng) -> Dataset:
    """``n`` new samples of the same teacher as ``data`` (a test set): new tokens, same ``W*`` and output."""
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a solvable.attention.Dataset, got {type(data).__name__}")
    n = check_int("n", n)
    rng = check_rng(rng)
    X = rng.standard_normal((n, data.T, data.d))
    h = attention_indices(X, data.S_star)
    y = row_softmax(h) if data.output == "softmax" else row_hardmax(h)
    return Dataset(X=X, y=y, W_star=data.W_star, S_star=data.S_star, output=data.output)


def output_error(S_hat, data: Dataset) -> float:
    """Plug-in error on the outputs, ``(1/n) sum_mu ||y_mu - softmax(h_mu(S_hat))||_F^2``.

    The finite-size counterpart of :func:`output_gen_error` (``estimator="plugin"``) when ``data`` is a fresh
    test set (Frobenius norm over the T x T output, averaged over samples; arXiv:2506.01582).
    """
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a solvable.attention.Dataset, got {type(data).__name__}")
    diff = row_softmax(attention_indices(data.X, S_hat)) - data.y
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
    ``science/attention.md``, Sec. 4). It decays like ``2/T^2``: longer sequences give more equations.
    """
    rho = _check_rho(rho)
    return quadratic.perfect_recovery_threshold(rho) / n_effective_indices(T)


def bayes_optimal_mmse(alpha: float, rho: float, T: int) -> float:
    """Bayes-optimal MMSE ``(1/d)||S_hat - S*||_F^2`` of the one-layer tied softmax AIM (1 at ``alpha = 0``).

    The fixed point (arXiv:2506.01582; ``science/attention.md``, Sec. 2)

        m = F( m / (2 alpha K) ),      F(Delta) = mmse_RIE(Delta; rho),      K = T(T+1)/2 - 1,

    i.e. ``qhat F(1/qhat) = 2 alpha K`` with ``qhat = 2 alpha K/m``: exactly the quadratic-network equation of
    :func:`solvable.quadratic.bayes_optimal_mmse` (noiseless, ``kappa = rho``) at sample ratio ``alpha K``.
    It is solved there by Brent's method in ``log qhat`` (unique root: ``qhat F(1/qhat)`` increases from 0 to
    ``2 alpha_PR K``). Returns 0 for ``alpha >= alpha_PR`` (:func:`perfect_recovery_threshold`).
    """
    alpha = check_nonnegative("alpha", alpha)
    rho = _check_rho(rho)
    K = n_effective_indices(T)
    return quadratic.bayes_optimal_mmse(alpha * K, rho)


def state_evolution(alpha: float, rho: float, T: int, *, m0: float | None = None, damping: float = 0.5,
                    tol: float = 1e-10, max_iter: int = 5000) -> SEResult:
    """Iterate the state evolution of GAMP-RIE (``science/attention.md``, Secs. 2-3) from ``m0 = 1 + rho``:

        v_t = damping v_{t-1} + (1 - damping) m_{t-1},      m_t = F( v_t / (2 alpha K) ),

    with ``v_0 = m_0`` and ``F = mmse_RIE(.; rho)``. ``v`` is half the output variance ``V`` of the loop,
    damped as :func:`gamp_rie` damps ``V``; the fixed point does not depend on ``damping`` and is the
    Bayes-optimal one (:func:`bayes_optimal_mmse`), since the channel is Bayes-optimal and
    ``m = F(m/(2 alpha K))`` has a single solution. Stops when ``|m_t - m_{t-1}| < tol``; the cap warns
    (:class:`~solvable.errors.ConvergenceWarning`).
    """
    alpha = check_positive("alpha", alpha)
    rho = _check_rho(rho)
    K = n_effective_indices(T)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    m0 = 1.0 + rho if m0 is None else check_positive("m0", m0)
    max_iter = check_int("max_iter", max_iter)
    ms, v = [m0], m0
    converged = False
    for _ in range(max_iter):
        v = damping * v + (1.0 - damping) * ms[-1]
        ms.append(symmetric_rie_mmse(v / (2.0 * alpha * K), rho))
        if abs(ms[-1] - ms[-2]) < tol:
            converged = True
            break
    if not converged:
        warnings.warn(f"AIM state evolution did not converge in {max_iter} iterations (alpha = {alpha:g}, "
                      f"rho = {rho:g}, T = {T}, last change {abs(ms[-1] - ms[-2]):.1e})",
                      ConvergenceWarning, stacklevel=2)
    return SEResult(mmse=np.asarray(ms), iterations=len(ms) - 1, converged=converged)


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
    n_samples = check_int("n_samples", n_samples, minimum=2)
    n_inner = check_int("n_inner", n_inner)
    estimator = check_choice("estimator", estimator, ("plugin", "bayes"))
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

    with :class:`HardmaxChannel`, ``omega`` i.i.d. ``N(0, 2 Q0 - V)`` and ``z = omega + sqrt(V) u`` in ``tau``
    units (``Q0 = 1 + rho``), ``y`` the signs of ``h11 - h12`` and ``h22 - h12``. (For the softmax the same
    recipe gives ``E||g||^2 = K/V`` and ``qhat = 2 alpha K/m``.) The ``n_samples`` draws of ``(omega, u)`` are
    made once from ``rng`` (common random numbers, so the iteration is a deterministic map); the Monte-Carlo
    error of ``qhat`` is about ``1/sqrt(n_samples)`` relative. Starts at ``m0 = Q0``; stops when
    ``|m_t - m_{t-1}| < tol`` (default 1e-4: the map is piecewise constant in ``V`` through the signs of the
    fixed draws and can end in a 2-cycle of amplitude ~1e-5, far below the Monte-Carlo error). No reference
    values are available for this channel: it is checked by the Nishimori identity
    ``E[g . (z - omega)] = V E||g||^2 = -V E sum dg`` and against :func:`gamp_rie` on hardmax data (d = 80,
    seeds 0-1: 0.50, 0.54 against 0.526 at ``alpha = 0.2``; 0.216, 0.233 against 0.216 at 0.5; 0.097, 0.080
    against 0.081 at 1, ``rho = 0.5``). The error keeps decreasing with ``alpha`` (0.0067 at ``alpha = 4``):
    no finite perfect-recovery threshold was found.
    """
    alpha = check_positive("alpha", alpha)
    rho = _check_rho(rho)
    n_samples = check_int("n_samples", n_samples, minimum=2)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    max_iter = check_int("max_iter", max_iter)
    rng = check_rng(rng)
    Q0 = 1.0 + rho
    xi = rng.standard_normal((n_samples, 3))
    u = rng.standard_normal((n_samples, 3))
    channel = HardmaxChannel()
    ms, v = [Q0], Q0
    converged = False
    for _ in range(max_iter):
        v = damping * v + (1.0 - damping) * ms[-1]
        V = 2.0 * v
        omega = math.sqrt(max(2.0 * Q0 - V, 0.0)) * xi
        g, _ = channel.g_out(channel.signs_of(omega + math.sqrt(V) * u), omega, V)
        qhat = 4.0 * alpha * float(np.mean(np.sum(g * g, axis=1)))
        ms.append(symmetric_rie_mmse(1.0 / qhat, rho))
        if abs(ms[-1] - ms[-2]) < tol:
            converged = True
            break
    if not converged and warn:
        warnings.warn(f"hardmax state evolution did not converge in {max_iter} iterations "
                      f"(alpha = {alpha:g}, rho = {rho:g}, last change {abs(ms[-1] - ms[-2]):.1e})",
                      ConvergenceWarning, stacklevel=2)
    return SEResult(mmse=np.asarray(ms), iterations=len(ms) - 1, converged=converged)


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
    :class:`solvable.quadratic.QuadraticSensingMap`, and :class:`~solvable.quadratic.WishartRIEDenoiser`
    turns the precision into the noise ``Delta = d/(2A) = 1/(2 A_spec)`` of the spec.
    """

    def __init__(self, X):
        X = np.asarray(X, dtype=float)
        if X.ndim != 3:
            raise ValueError(f"X must be a 3-d array (n, T, d), got shape {X.shape}")
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
        return pack_indices(attention_indices(self.X, S)) * self.tau

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
    symmetrised indices), :class:`SoftmaxChannel` and :class:`solvable.quadratic.WishartRIEDenoiser`
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
    error above 1); ``"auto"`` (default) picks ``"both"`` when ``alpha K < AUTO_DAMP_BOTH_BELOW = 0.2``
    (``science/attention.md``, Sec. 3, says ``alpha < 0.03`` at ``T = 3``, i.e. ``alpha K < 0.15``; we
    measured stuck runs with output damping alone up to ``alpha K = 0.25``: see :data:`AUTO_DAMP_BOTH_BELOW`).
    With
    ``"both"`` the iterate rarely meets ``tol`` at ``d ~ 100``; with ``"output"`` a run that "converges" at
    small ``alpha`` may have converged to the wrong point: compare with :func:`bayes_optimal_mmse`. Below
    ``alpha K ~ 0.06`` at ``d = 80`` (fewer than ~200 samples) some runs fail either way.

    Hardmax data (``data.output == "hardmax"``, ``T = 2``) use :class:`HardmaxChannel` in the same loop
    (compare with :func:`hardmax_state_evolution`; ``K = 2`` in the ``"auto"`` rule).
    """
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a solvable.attention.Dataset, got {type(data).__name__}")
    rng = check_rng(rng)
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
        res = run_gamp(
            AttentionSensingMap(data.X), channel, WishartRIEDenoiser(data.rho), y, S0, C0,
            damping=damping, tol=tol / d, max_iter=max_iter, damp=damp, precision="empirical",
            omega0=np.full(y.shape, omega0), V0=V0, monitor=lambda S: (matrix_error(S, S_star),), warn=warn,
        )
    return GAMPResult(estimate=res.estimate, history=res.history[:, 0], iterations=res.iterations,
                      converged=res.converged)


# =========================================================================== gradient descent / Adam


def _check_students(W, X, y):
    W = np.asarray(W, dtype=float)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if W.ndim == 2:
        W = W[None]
    if X.ndim != 3 or W.ndim != 3 or W.shape[1] != X.shape[2]:
        raise ValueError(f"X must be (n, T, d) and W (K, d, r) or (d, r) with the same d; "
                         f"got {X.shape}, {W.shape}")
    if y.shape != (X.shape[0], X.shape[1], X.shape[1]):
        raise ValueError(f"y must have shape {(X.shape[0], X.shape[1], X.shape[1])}, got {y.shape}")
    return W, X, y


def _students_forward(W, X):
    """Projections ``p = W^T x`` (K, n, T, r), softmax outputs (K, n, T, T) and the scale ``1/(d sqrt r)``."""
    K, d, r = W.shape
    n, T, _ = X.shape
    scale = 1.0 / (d * math.sqrt(r))
    P = np.matmul(X.reshape(n * T, d), W).reshape(K, n, T, r)
    h = np.matmul(P, np.swapaxes(P, -1, -2))
    h[..., np.arange(T), np.arange(T)] -= np.sum(W * W, axis=(1, 2))[:, None, None]
    return P, row_softmax(h * scale), scale


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


@dataclass(frozen=True)
class StudentsResult:
    """Outcome of :func:`train_students` (``K`` initialisations on the same data).

    Attributes
    ----------
    estimates : (K, d, d) final ``S_k = W_k W_k^T/sqrt(r d)``; ``average`` (d, d) their mean (averaged GD).
    errors : (K,) ``(1/d)||S_k - S*||_F^2``; ``average_error`` the same for ``average``.
    losses : (K,) final relative training loss: ``sum_mu ||y_hat - y||_F^2`` over that of the uniform
        prediction ``y_hat = 1/T``.
    loss_history : (records, K) relative training loss every ``record_every`` steps (row 0: step 0).
    steps : steps taken.
    error_history : (records, K) ``(1/d)||S_k - S*||_F^2`` at the same steps as ``loss_history`` (what an
        early-stopped student would have reached).
    """

    estimates: np.ndarray = field(repr=False)
    average: np.ndarray = field(repr=False)
    errors: np.ndarray
    average_error: float
    losses: np.ndarray
    loss_history: np.ndarray = field(repr=False)
    steps: int
    error_history: np.ndarray = field(default=None, repr=False)

    @property
    def error(self) -> float:
        """Mean error of a single student, ``mean_k errors_k``."""
        return float(np.mean(self.errors))


def train_students(data: Dataset, *, n_students: int = 32, steps: int = 1500, lr: float = 0.1,
                   optimizer: str = "adam", width: int | None = None,
                   betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, record_every: int = 50,
                   rng) -> StudentsResult:
    """Full-batch Adam (or plain GD) on ``K = n_students`` tied softmax students, batched in one computation.

    Students have the teacher's architecture (width ``r = width``, default the teacher's), start from
    ``W ~ N(0, 1)`` drawn from ``rng``, and minimise ``sum_mu ||y_hat_mu - y_mu||_F^2/d``
    (:func:`student_loss_and_gradient`). Adam (Kingma and Ba, arXiv:1412.6980) with constant ``lr``:
    ``m <- b1 m + (1 - b1) g``, ``v <- b2 v + (1 - b2) g^2``, ``W <- W - lr m_hat/(sqrt(v_hat) + eps)``,
    elementwise, so each student has its own moments. ``optimizer="gd"``: ``W <- W - lr g`` (the loss is
    O(alpha d), so ``lr`` must be much smaller than Adam's; plain GD is slow here, ``science/attention.md``,
    Sec. 5).

    Averaging ``S`` over students approaches the Bayes MMSE (arXiv:2506.01582, Sec. 5); single students reach
    zero error above ``alpha_PR``. Some students stall at a relative loss of 1e-5 to 1e-4: read ``losses``
    next to ``errors``. The softmax is not a linear measurement of ``S``, so :mod:`solvable.gd` (square loss
    on ``M(S)``) does not apply; this is the attention counterpart. Memory: about
    ``3 K n T max(r, T) + K d r`` floats.

    Raises
    ------
    DivergenceError
        If the loss becomes non-finite (with the step number).
    """
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a solvable.attention.Dataset, got {type(data).__name__}")
    K = check_int("n_students", n_students)
    steps = check_int("steps", steps, minimum=0)
    lr = check_positive("lr", lr)
    optimizer = check_choice("optimizer", optimizer, ("adam", "gd"))
    r = data.r if width is None else check_int("width", width)
    b1 = check_in_range("betas[0]", betas[0], 0.0, 1.0, high_open=True)
    b2 = check_in_range("betas[1]", betas[1], 0.0, 1.0, high_open=True)
    eps = check_positive("eps", eps)
    record_every = check_int("record_every", record_every)
    rng = check_rng(rng)
    X, y, d = data.X, data.y, data.d
    baseline = float(np.sum((y - 1.0 / data.T) ** 2)) / d
    W = rng.standard_normal((K, d, r))
    mom, vel = np.zeros_like(W), np.zeros_like(W)
    history, error_history = [], []
    S_star = data.S_star

    def student_errors(W):
        diff = np.matmul(W, np.swapaxes(W, -1, -2)) / math.sqrt(r * d) - S_star
        return np.einsum("kij,kij->k", diff, diff) / d

    for t in range(steps + 1):
        loss, grad = _loss_and_grad(W, X, y)
        if not np.all(np.isfinite(loss)):
            raise DivergenceError(f"training diverged at step {t} (non-finite loss; lower lr)")
        if t % record_every == 0:
            history.append(loss / baseline)
            error_history.append(student_errors(W))
        if t == steps:
            break
        if optimizer == "adam":
            mom = b1 * mom + (1.0 - b1) * grad
            vel = b2 * vel + (1.0 - b2) * grad * grad
            W = W - lr * (mom / (1.0 - b1 ** (t + 1))) / (np.sqrt(vel / (1.0 - b2 ** (t + 1))) + eps)
        else:
            W = W - lr * grad
    S = np.matmul(W, np.swapaxes(W, -1, -2)) / math.sqrt(r * d)
    average = S.mean(axis=0)
    diff = S - data.S_star
    errors = np.einsum("kij,kij->k", diff, diff) / d
    return StudentsResult(estimates=S, average=average, errors=errors,
                          average_error=matrix_error(average, data.S_star), losses=loss / baseline,
                          loss_history=np.array(history), steps=steps, error_history=np.array(error_history))


# =========================================================================== sequence multi-index model


@dataclass(frozen=True)
class SequenceDataset:
    """One tied rank-one softmax layer of the sequence multi-index model (arXiv:2502.00901): tokens ``X`` (N,
    D, T) (``T`` columns of dimension ``D``), teacher ``w`` (D,), ``z = X^T w/sqrt(D)`` (N, T), outputs
    ``y = row-softmax(z z^T)`` (N, T, T)."""

    X: np.ndarray
    y: np.ndarray
    w_star: np.ndarray = field(repr=False)

    def __post_init__(self):
        X, y, w = (np.asarray(a) for a in (self.X, self.y, self.w_star))
        if X.ndim != 3 or y.shape != (X.shape[0], X.shape[2], X.shape[2]) or w.shape != (X.shape[1],):
            raise ValueError(f"X must be (N, D, T), y (N, T, T) and w_star (D,); "
                             f"got {X.shape}, {y.shape}, {w.shape}")

    @property
    def alpha(self) -> float:
        """Sample ratio ``N / D`` (linear scaling, unlike the AIM)."""
        return self.X.shape[0] / self.X.shape[1]

    @property
    def z(self) -> np.ndarray:
        """Teacher preactivations ``X^T w/sqrt(D)`` (N, T)."""
        return np.einsum("ndt,d->nt", self.X, self.w_star) / math.sqrt(self.X.shape[1])


def sample_sequence(D: int, T: int, alpha: float, *, rng) -> SequenceDataset:
    """Draw ``w ~ N(0, I_D)`` and ``N = round(alpha D)`` sequences ``X`` (D x T, i.i.d. N(0, 1)) of the
    sequence multi-index model ``y = g(w^T X/sqrt(D))`` with ``g(z) = row-softmax(z z^T)`` (one tied rank-one
    softmax layer, p = 1; ``science/attention.md``, Sec. 6). Draw order: ``w``, then ``X``."""
    D = check_int("D", D, minimum=2)
    T = _check_T(T)
    alpha = check_positive("alpha", alpha)
    rng = check_rng(rng)
    N = round(alpha * D)
    if N < 1:
        raise ValueError(f"alpha D must round to at least 1, got N = {N} at D = {D}")
    w = rng.standard_normal(D)
    X = rng.standard_normal((N, D, T))
    z = np.einsum("ndt,d->nt", X, w) / math.sqrt(D)
    return SequenceDataset(X=X, y=row_softmax(z[:, :, None] * z[:, None, :]), w_star=w)


def sequence_weak_recovery_threshold(T: int) -> float:
    """Weak-recovery threshold ``alpha_c = 1/(T(T+1))`` of one tied rank-one softmax layer (SMI, p = 1).

    ``y = row-softmax(z z^T)`` fixes ``z`` up to a global sign, so near ``Q = 0`` the state evolution is
    linear, ``Qhat = alpha E||z z^T - I||_F^2 Q``, and ``E||z z^T - I||_F^2 = E|z|^4 - 2 E|z|^2 + T = T(T+1)``
    for ``z ~ N(0, I_T)`` (Troiani et al., arXiv:2502.00901, weak-recovery linearisation;
    ``science/attention.md``, Sec. 6; checked by :func:`sequence_fisher_factor`). ``T = 2``: 1/6.
    """
    T = _check_T(T)
    return 1.0 / (T * (T + 1))


def sequence_perfect_recovery_threshold(T: int) -> float:
    """Sample ratio ``alpha = N/D`` above which the state evolution of one tied rank-one softmax layer reaches
    ``Q = 1`` (perfect recovery): ``1/T``.

    Not in ``science/attention.md``; derived here and checked numerically by :func:`sequence_state_evolution`.
    Counting: ``y`` fixes the ``T`` numbers ``z`` up to a global sign, so ``N`` samples give ``N T`` equations
    for ``D`` unknowns. Stability: near ``Q = 1`` (``V = 1 - Q -> 0``) the sign is known and
    ``E||g_out||^2 = T/V``, so ``1 - Q_new = (1 - Q)/(alpha T)`` and ``Q = 1`` attracts iff ``alpha T > 1``.
    """
    T = _check_T(T)
    return 1.0 / T


def sequence_fisher_factor(T: int, *, n_samples: int = 100_000, rng) -> tuple[float, float]:
    """Monte-Carlo ``(mean, stderr)`` of ``E||z z^T - I||_F^2``, ``z ~ N(0, I_T)`` (exactly T(T+1))."""
    T = _check_T(T)
    n_samples = check_int("n_samples", n_samples, minimum=2)
    rng = check_rng(rng)
    z = rng.standard_normal((n_samples, T))
    s = np.sum(z * z, axis=1)
    v = s * s - 2.0 * s + T  # ||z z^T - I||_F^2
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(n_samples))


@dataclass(frozen=True)
class SequenceSEResult:
    """State evolution of the rank-one softmax SMI: overlap ``Q = w_hat . w/D`` per iteration (``history[0]``
    is the start), the final ``overlap``, its conjugate ``Qhat``, iterations and convergence."""

    overlap: float
    overlap_hat: float
    history: np.ndarray
    iterations: int
    converged: bool


def _smi_qhat(alpha, Q, z, xi):
    """``alpha E||g_out||^2`` with the two-point posterior, on fixed draws ``z`` (teacher) and ``xi``."""
    V = 1.0 - Q
    omega = Q * z + math.sqrt(Q * V) * xi  # (omega, z) jointly Gaussian: Var omega = Q, Cov(omega, z) = Q
    t = np.tanh(np.sum(z * omega, axis=1) / V)
    g = (z * t[:, None] - omega) / V
    return alpha * float(np.mean(np.sum(g * g, axis=1)))


def sequence_state_evolution(alpha: float, T: int, *, q0: float = 1e-3, n_samples: int = 100_000,
                             damping: float = 0.0, tol: float = 1e-7, max_iter: int = 3000, warn: bool = True,
                             rng) -> SequenceSEResult:
    """Bayes-optimal state evolution of one tied rank-one softmax layer of the SMI (p = 1).

    (Troiani et al., arXiv:2502.00901; ``science/attention.md``, Sec. 6.) With ``V = 1 - Q``,
    ``omega = sqrt(Q) xi`` and the teacher ``z = omega + sqrt(V) u`` (``z`` in ``R^T``), the posterior of
    ``z`` given ``y = row-softmax(z z^T)`` and ``omega`` is the two-point law on ``{+z, -z}``:

        E[z | y, omega] = z tanh(z . omega/V),   g_out = (E[z | y, omega] - omega)/V,
        Qhat = alpha E||g_out||^2 (summed over tokens),   Q = Qhat/(1 + Qhat).

    The expectation is a Monte Carlo over ``n_samples`` draws of ``(z, omega)`` made ONCE from ``rng`` (common
    random numbers: the iteration is a deterministic map, so it converges). Starts at ``Q = q0 > 0``
    (``Q = 0`` is always a fixed point); below ``alpha_c = 1/(T(T+1))`` ``Q`` decays to 0, above it grows to
    the informative fixed point (critical slowing down near ``alpha_c``). Stops when ``|Q_new - Q| < tol``.
    """
    alpha = check_nonnegative("alpha", alpha)
    T = _check_T(T)
    q0 = check_in_range("q0", q0, 0.0, 1.0, low_open=True, high_open=True)
    n_samples = check_int("n_samples", n_samples, minimum=2)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    max_iter = check_int("max_iter", max_iter)
    rng = check_rng(rng)
    z = rng.standard_normal((n_samples, T))
    xi = rng.standard_normal((n_samples, T))
    Q, qhat = q0, 0.0
    hist = [Q]
    converged = False
    for _ in range(max_iter):
        qhat = _smi_qhat(alpha, Q, z, xi)
        Q_new = damping * Q + (1.0 - damping) * qhat / (1.0 + qhat)
        Q_new = min(max(Q_new, 0.0), 1.0 - 1e-12)
        if not math.isfinite(Q_new):
            raise DivergenceError(f"SMI state evolution diverged at iteration {len(hist)}")
        hist.append(Q_new)
        if abs(Q_new - Q) < tol:
            Q = Q_new
            converged = True
            break
        Q = Q_new
    if not converged and warn:
        warnings.warn(f"SMI state evolution did not converge in {max_iter} iterations (alpha = {alpha:g}, "
                      f"T = {T}, Q = {Q:.3g})", ConvergenceWarning, stacklevel=2)
    return SequenceSEResult(overlap=Q, overlap_hat=qhat, history=np.asarray(hist), iterations=len(hist) - 1,
                            converged=converged)


@dataclass(frozen=True)
class OverlapCurve:
    """Overlap ``Q(alpha)`` of :func:`sequence_overlap_curve`, with the weak-recovery threshold ``alpha_c``,
    the perfect-recovery threshold ``alpha_pr`` and per-point convergence."""

    alphas: np.ndarray
    overlap: np.ndarray
    alpha_c: float
    alpha_pr: float
    converged: np.ndarray


def sequence_overlap_curve(alphas: Sequence[float], T: int, *, q0: float = 1e-3, n_samples: int = 100_000,
                           tol: float = 1e-7, max_iter: int = 3000, rng) -> OverlapCurve:
    """State-evolution overlap of the rank-one softmax SMI against ``alpha`` (:func:`sequence_state_evolution`
    at each ``alpha``, all with the same Monte-Carlo draws from ``rng``): ~0 below ``alpha_c = 1/(T(T+1))``,
    positive above (weak recovery; continuous transition), 1 above ``alpha_pr = 1/T``. Points that did not
    converge in ``max_iter`` (critical slowing down next to ``alpha_c`` and ``alpha_pr``) are flagged in
    ``converged`` instead of warning."""
    T = _check_T(T)
    alphas = np.asarray(alphas, dtype=float)
    if alphas.ndim != 1 or alphas.size == 0:
        raise ValueError(f"alphas must be a non-empty 1-d sequence, got shape {alphas.shape}")
    for a in alphas:
        check_nonnegative("alpha", a)
    rng = check_rng(rng)
    seed = rng.integers(2**63)
    out, conv = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for a in alphas:
            res = sequence_state_evolution(a, T, q0=q0, n_samples=n_samples, tol=tol, max_iter=max_iter,
                                           rng=np.random.default_rng(seed))
            out.append(res.overlap)
            conv.append(res.converged)
    return OverlapCurve(alphas=alphas, overlap=np.asarray(out), alpha_c=sequence_weak_recovery_threshold(T),
                        alpha_pr=sequence_perfect_recovery_threshold(T), converged=np.asarray(conv))
