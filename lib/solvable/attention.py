"""Attention: the attention-indexed model (AIM), one tied softmax (or hardmax) attention layer.

**Model** (Chapter 5; Boncoraglio, Troiani, Erba, Zdeborova, "Bayes optimal learning of attention-indexed
models", arXiv:2506.01582). A sample is a sequence of ``T`` tokens ``x_a ~ N(0, I_d)``
(``X`` in ``R^{T x d}``); a tied attention layer with weights ``W`` in ``R^{d x r}`` (``r = rho d``, i.i.d.
N(0, 1)) and ``S = W W^T/sqrt(r d)`` (O(1) spectrum, mean ``sqrt(rho)``, second moment
``Q0 = (1/d) Tr S^2 = 1 + rho``) computes the symmetric T x T matrix of **attention indices**

    h_ab = [x_a^T S x_b - delta_ab Tr S] / sqrt(d)              (Var h_ab = Q0, Var h_aa = 2 Q0)

and outputs ``y = row-softmax(h)`` (inverse temperature 1, no noise). With ``n = alpha d^2`` samples,
``d -> inf`` at fixed ``alpha, rho, T``, learning ``S`` is the Wishart matrix-sensing problem of
:mod:`solvable.matrix_sensing` (shared with the quadratic networks; ``kappa -> rho``) with ``T(T+1)/2``
indices per sample seen through the softmax, which keeps ``K = T(T+1)/2 - 1`` of them (each row is fixed up
to a constant, and symmetry leaves one global constant). Hence the Bayes-optimal error solves

    m = mmse_RIE( m / (2 alpha K); rho )   (the symmetric RIE's error at noise s, :mod:`solvable.rie`)

which is the noiseless Wishart-sensing equation at sample ratio ``alpha K``
(:func:`solvable.matrix_sensing.bayes_optimal_mmse`; here :func:`bayes_optimal_mmse`), and the state evolution
of GAMP-RIE is :func:`solvable.matrix_sensing.state_evolution` at ``alpha K`` (:func:`state_evolution`).
Errors are ``m = (1/d)||S_hat - S||_F^2`` (:func:`solvable.denoising.symmetric_error`; 1 for the prior mean
``sqrt(rho) I``, 0 at perfect recovery).

GAMP-RIE (:func:`gamp_rie`) is the shared loop :func:`solvable.amp.run_gamp` with

- :class:`AttentionSensingMap`: the ``K + 1 = T(T+1)/2`` symmetrised indices ``z_ab = tau_ab h_ab``
  (``tau = sqrt(2)`` off the diagonal, 1 on it) computed from the raw tokens with BLAS products (memory
  O(n T d), never a per-sample d x d tensor). The ``tau`` weights give every component output variance
  ``2 C`` for an error ``C``, exactly as the quadratic network's sensing map, so the book's precision (Chapter 3,
  eq-gamp-rie-recipe, with the symmetric signal's constant ``c = 2``), ``A = 2 alpha mean_mu sum_k (-dg_{mu,k})``
  with the RIE told the noise ``1/(2A)``, and :class:`solvable.rie.WishartRIEDenoiser` (``kappa = rho``) are
  reused unchanged;
- :class:`solvable.channels.SoftmaxChannel`: the Gaussian projection of ``omega`` onto the line of indices
  consistent with ``y``, done in the ``tau`` units of ``omega``.

Gradient descent / Adam on the tied student (:func:`gd`) runs on the library's one optimiser loop
:func:`solvable.gd.run_gd` with the objective :class:`StudentLoss` (``J`` initialisations batched in one
computation per step); averaging their ``S`` is "averaged GD" (arXiv:2506.01582).

The **hardmax** output (one-hot argmax rows, ``T = 2``) is the second example: :func:`sample` with
``output="hardmax"``, the exact channel :class:`solvable.channels.HardmaxChannel` (bivariate-normal orthant
probabilities), its Monte-Carlo state evolution :func:`hardmax_state_evolution` and :func:`gamp_rie` on hardmax
data. These are derived here: they are checked by the Nishimori identity and by GAMP-RIE on data against the
state evolution, not against published values.

The sequence multi-index model (linear sample ratio, arXiv:2502.00901) has its own module,
:mod:`solvable.smi`. Multi-layer AIMs are not covered. Related: Cui, Behrens, Krzakala, Zdeborova,
arXiv:2402.03902 (positional vs semantic attention; not covered by this module).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import field, replace

import array_api_compat
import numpy as np

from . import backend, matrix_sensing
from . import gd as _gd
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
from .dataset import Dataset as _BaseDataset
from .domains import (
    VOCABULARY,
    Domain,
    array,
    choice,
    declare,
    instance,
    integer,
    interface,
    optional,
    real,
    seed,
)
from .errors import ConvergenceWarning, DivergenceError, InvalidParameterError
from .errors import warn as warn_user
from .results import record
from .denoising import symmetric_error
from .rie import WishartRIEDenoiser, symmetric_rie_mmse
from .validation import (
    check_choice,
    check_in_range,
    check_size,
)

__all__ = [
    "AUTO_DAMP_BOTH_BELOW",
    "STRONG_DAMPING",
    "STRONG_DAMPING_BELOW",
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
    "gd",
    "hardmax_state_evolution",
    "n_effective_indices",
    "output_error",
    "output_gen_error",
    "perfect_recovery_threshold",
    "sample",
    "self_consistency",
    "state_evolution",
    "student_loss_and_gradient",
]

#: :func:`gamp_rie` with ``damp="auto"`` also damps the estimate when ``alpha K`` is below this value: at small
#: sample ratios output damping alone can stop at an overconfident fixed point (an error above the prior's) or
#: oscillate on a plateau, and above 0.4 the two choices agree.
AUTO_DAMP_BOTH_BELOW = 0.4

#: :func:`gamp_rie` with ``damping=None`` damps by :data:`STRONG_DAMPING` below this fraction of ``alpha_PR``, by
#: 1/2 above (the same rule as :func:`solvable.quadratic.gamp_rie`): with the derivative precision, a run at
#: ``T = 2``, ``d = 60``, ``alpha = 0.02 = 0.11 alpha_PR`` diverges at damping 1/2 on 6 data sets of 6 and reaches
#: 0.94 +- 0.02 (MMSE 0.907) at 0.8; from ``0.24 alpha_PR`` up the two dampings give the same errors.
STRONG_DAMPING_BELOW = 0.25

#: The damping used below ``STRONG_DAMPING_BELOW * alpha_PR``.
STRONG_DAMPING = 0.8

_ONSAGER_OMEGA_MAX = 1e6

#: :func:`gamp_rie` reports a run whose :func:`self_consistency` ratio exceeds this value as not converged: its
#: variance has collapsed below the error that its own training residuals show (a false fixed point).
SELF_CONSISTENCY_MAX = 1.0

#: :func:`gd` raises :class:`~solvable.errors.DivergenceError` when a student's ``|S_k|_F^2/d`` ends
#: above this multiple of the teacher's ``1 + rho`` (exploded weights behind a saturated, finite loss).
STUDENT_NORM_MAX = 1e6

#: Default relative tolerance of :func:`gamp_rie` (its docstring gives the reason).
GAMP_TOL = 1e-5

#: Default iteration cap of :func:`gamp_rie` (its docstring gives the reason).
GAMP_MAX_ITER = 1000

#: Arrays of shape (n_samples, 3) that :func:`hardmax_state_evolution` holds at once (the draws, the channel's
#: temporaries), counted in its size check.
_HARDMAX_SE_ARRAYS = 14
#: Smallest output variance at which :func:`hardmax_state_evolution` evaluates the channel (its orthant
#: probabilities underflow below it).
_HARDMAX_SE_MIN_V = 1e-8

#: Output layers of the AIM sampler: the tied softmax (main model) and the hardmax (``T = 2`` only).
OUTPUTS = ("softmax", "hardmax")


#: The domains of the model's parameters (:mod:`solvable.domains`): tokens per sample (a 1 x 1 softmax is
#: identically 1 and carries no information), the width ratio ``rho`` of a data set and of the theory (where the
#: Wishart RIE's MMSE is computed reliably, :data:`solvable.matrix_sensing.KAPPA_MIN` to
#: :data:`~solvable.matrix_sensing.KAPPA_MAX`, ``kappa = rho``), the sample ratio of a data set, Monte-Carlo draws
#: and the arrays of tokens ``(n, T, d)`` and of outputs ``(n, T, T)``.
TOKENS = integer(2)
WIDTH = real(0.0, low_open=True)
THEORY_WIDTH = real(matrix_sensing.KAPPA_MIN, matrix_sensing.KAPPA_MAX)
SAMPLE_ALPHA = real(0.0, low_open=True)
N_SAMPLES = integer(2, size=True)
TOKEN_ARRAY = array(3)
OUTPUT_ARRAY = array(3)
MATRIX = array(2)


# =========================================================================== data


@declare(X=TOKEN_ARRAY, S=MATRIX)
def attention_indices(X, S):
    """Attention indices ``h_ab = [x_a^T S x_b - delta_ab Tr S]/sqrt(d)`` of every sample.

    Parameters
    ----------
    X : array_like
        Tokens ``(n, T, d)`` (sample, token, feature), finite.
    S : array_like
        A ``(d, d)`` matrix, finite (symmetric for the model's indices).

    Returns
    -------
    numpy.ndarray
        ``h`` of shape ``(n, T, T)``, symmetric in the last two axes when ``S`` is.

    Raises
    ------
    ValueError
        If an array is malformed or the indices overflow.

    Notes
    -----
    One ``(nT, d) @ (d, d)`` product::

        h_ab = [x_a^T S x_b - delta_ab Tr S] / sqrt(d),      Var h_ab = Q0 (a != b),  Var h_aa = 2 Q0.

    References
    ----------
    Chapter 5, Sec. 'From a transformer layer to the attention-indexed model'; Boncoraglio et al. 2025, arXiv:2506.01582.
    """
    _check_square("S", S, X.shape[2])
    with np.errstate(over="ignore", invalid="ignore"):
        h = _indices(X, S)
    if not np.all(np.isfinite(h)):
        raise InvalidParameterError(
            "X and S give non-finite attention indices (entries too large for float64)"
        )
    return h


def _check_square(name: str, S: np.ndarray, d: int) -> np.ndarray:
    """A checked matrix ``S`` of shape ``(d, d)``, ``d`` the tokens' dimension (InvalidParameterError naming it)."""
    if S.shape != (d, d):
        raise InvalidParameterError(
            f"{name} must be ({d}, {d}) to match the tokens' dimension d = {d}, got shape {S.shape}"
        )
    return S


def _indices(X, S):
    """:func:`attention_indices` without the checks (the sensing map calls it every iteration)."""
    n, T, d = X.shape
    XS = (X.reshape(n * T, d) @ S).reshape(n, T, d)
    h = np.matmul(XS, np.swapaxes(X, 1, 2))
    h[:, np.arange(T), np.arange(T)] -= np.trace(S)
    return h / math.sqrt(d)


@record
class Dataset(_BaseDataset):
    """A data set of the attention-indexed model: tokens, attention outputs and the teacher.

    Parameters
    ----------
    X : numpy.ndarray
        Tokens ``(n, T, d)``, i.i.d. N(0, 1) (``T >= 2``).
    y : numpy.ndarray
        Outputs ``(n, T, T)``: ``row-softmax(h)``, or one-hot rows at the argmax for ``output="hardmax"``;
        numbers in ``[0, 1]``.
    W_star : numpy.ndarray
        The teacher's weights ``(d, r)``.
    S_star : numpy.ndarray
        The teacher's matrix ``S* = W* W*^T / sqrt(r d)``, ``(d, d)``.
    output : {"softmax", "hardmax"}, optional
        The output layer.

    Attributes
    ----------
    n, T, d, r : int
        Samples, tokens per sample, token dimension and teacher width.
    rho : float
        Width ratio ``r / d``.
    alpha : float
        Sample ratio ``n / d^2``.
    indices : numpy.ndarray
        The teacher's attention indices ``h`` ``(n, T, T)``.

    Raises
    ------
    TypeError
        If an array is not an array of real numbers.
    ValueError
        If an array is empty, not finite, of the wrong shape, ``y`` leaves ``[0, 1]`` or ``output`` is unknown.

    Notes
    -----
    ``h_ab = [x_a^T S* x_b - delta_ab Tr S*] / sqrt(d)`` and ``y = row-softmax(h)`` (:func:`sample`).

    References
    ----------
    Chapter 5, Sec. 'From a transformer layer to the attention-indexed model'; Boncoraglio et al. 2025,
    arXiv:2506.01582.
    """

    W_star: np.ndarray = field(repr=False)
    S_star: np.ndarray = field(repr=False)
    output: str = "softmax"

    def _check(self) -> None:
        X, y, W, S = self.X, self.y, self.W_star, self.S_star
        if X.ndim != 3 or y.shape != (X.shape[0], X.shape[1], X.shape[1]):
            raise InvalidParameterError(
                f"X must be (n, T, d) and y (n, T, T), got shapes {X.shape} and {y.shape}"
            )
        d = X.shape[2]
        if W.ndim != 2 or W.shape[0] != d or W.shape[1] < 1 or S.shape != (d, d):
            raise InvalidParameterError(
                f"W_star must be (d, r) and S_star (d, d) with d = {d}; got {W.shape} and {S.shape}"
            )
        if not np.all((y >= 0) & (y <= 1)):
            raise InvalidParameterError("y must hold attention outputs, numbers in [0, 1]")
        object.__setattr__(self, "output", check_choice("output", self.output, OUTPUTS))

    @property
    def T(self) -> int:
        """Sequence length (tokens per sample)."""
        return int(self.X.shape[1])

    @property
    def d(self) -> int:
        """Token dimension."""
        return int(self.X.shape[2])

    @property
    def r(self) -> int:
        """Teacher width (columns of ``W_star``)."""
        return int(self.W_star.shape[1])

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
        return _indices(self.X, self.S_star)


#: A data set of this model, the argument of its algorithms.
DATA = instance(Dataset, "a solvable.attention.Dataset (from that model's sample())")


def _count(name: str, ratio: float, d: int) -> int:
    """``round(ratio d)`` if ``ratio d`` is within 1e-9 of an integer >= 1, else ``ValueError`` naming ``name``."""
    x = ratio * d
    k = round(x)
    if k < 1 or abs(x - k) > 1e-9 * max(1.0, abs(x)):
        raise InvalidParameterError(
            f"{name} * d must be an integer >= 1 (the teacher's width), got {name} * d = {x:.10g} at d = {d}"
        )
    return int(k)


def _check_sample_memory(n: int, T: int, d: int) -> None:
    """Refuse sizes whose sampler would hold more than ``MAX_ELEMENTS`` numbers at once (``ValueError``).

    At its peak the sampler holds the tokens ``X`` and their product ``X S`` (``n T d`` each), the indices ``h``
    and the outputs with the softmax's temporaries (about ``4 n T^2``).
    """
    check_size("the tokens X (n = alpha d^2, T, d)", n, T, d)
    check_size(
        "the arrays of sample (X and X S* (n, T, d), indices and outputs (n, T, T)) together",
        2 * n * T * d + 4 * n * T * T + d * d,
    )


@declare(d=integer(2, size=True), alpha=SAMPLE_ALPHA, rho=WIDTH, T=TOKENS, output=choice(*OUTPUTS))
def sample(d: int, alpha: float, *, rho: float, T: int, output: str = "softmax", rng) -> Dataset:
    """Draw an attention-indexed-model teacher and ``n = round(alpha d^2)`` samples.

    Parameters
    ----------
    d : int
        Token dimension, ``>= 2``.
    alpha : float
        Sample ratio ``n / d^2``, ``> 0``.
    rho : float
        Width ratio ``r / d``; ``rho d`` must be an integer ``r >= 1`` (within 1e-9).
    T : int
        Tokens per sample, ``>= 2`` (``T = 2`` for the hardmax).
    output : {"softmax", "hardmax"}, optional
        The output layer: the tied softmax (the model of the theory) or one-hot rows at the argmax.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the draws (SPEC 7; ``None`` is refused).

    Returns
    -------
    Dataset
        ``X`` (n, T, d), ``y`` (n, T, T), ``W_star`` (d, r), ``S_star`` (d, d) and ``output``.

    Raises
    ------
    TypeError
        If ``d`` or ``T`` is not an integer or ``rng`` is not a random source.
    ValueError
        If a ratio is out of range, ``rho d`` is not an integer, ``alpha d^2`` rounds to 0, ``output="hardmax"``
        with ``T != 2``, or the arrays would hold more than :data:`solvable.validation.MAX_ELEMENTS` numbers
        at once.

    Notes
    -----
    Draw order: ``W*`` (d, r) with entries N(0, 1), then the tokens. With ``S* = W* W*^T / sqrt(r d)``::

        h_ab = [x_a^T S* x_b - delta_ab Tr S*] / sqrt(d),        y = row-softmax(h)   (or row-hardmax(h)).

    References
    ----------
    Chapter 5, Sec. 'From a transformer layer to the attention-indexed model'; Boncoraglio et al. 2025,
    arXiv:2506.01582 (the hardmax is its second example).

    Examples
    --------
    >>> from solvable import attention
    >>> data = attention.sample(10, 1.0, rho=0.5, T=3, rng=0)
    >>> print(data.n, data.d, data.r, data.T, data.X.shape, data.y.shape)
    100 10 5 3 (100, 3, 10) (100, 3, 3)
    >>> print(round(float(data.y[0].sum(axis=1).max()), 4))
    1.0
    """
    if output == "hardmax" and T != 2:
        raise InvalidParameterError(f"T must be 2 for output='hardmax' (the covered example), got T={T}")
    r = _count("rho", rho, d)
    if not alpha * d * d < 2.0**62:
        raise InvalidParameterError(
            f"alpha d^2 = {alpha * d * d:.3g} samples is beyond any array: reduce alpha"
        )
    n = round(alpha * d * d)
    if n < 1:
        raise InvalidParameterError(
            f"alpha d^2 must round to at least 1 sample, got n = {n} at alpha = {alpha:g}, d = {d}"
        )
    check_size("the teacher W* (d, r = rho d)", d, r)
    _check_sample_memory(n, T, d)
    W = rng.standard_normal((d, r))
    X = rng.standard_normal((n, T, d))
    S = W @ W.T / math.sqrt(r * d)
    h = _indices(X, S)
    y = row_softmax(h) if output == "softmax" else row_hardmax(h)
    return Dataset.adopt(X=X, y=y, W_star=W, S_star=S, output=output)


@declare(data=DATA, n=integer(1, size=True))
def fresh_samples(data: Dataset, n: int, *, rng) -> Dataset:
    """Draw ``n`` new samples of the same teacher as ``data`` (a test set): new tokens, same ``W*`` and output.

    Parameters
    ----------
    data : Dataset
        A data set of this model (its teacher and output layer are reused).
    n : int
        Number of new samples, ``>= 1``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the tokens.

    Returns
    -------
    Dataset
        ``n`` samples ``(X, y)`` with the same ``W_star``, ``S_star`` and ``output``.

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`Dataset` of this model or an argument has the wrong type.
    ValueError
        If ``n < 1`` or the arrays would exceed :data:`solvable.validation.MAX_ELEMENTS` numbers at once.

    Notes
    -----
    As :func:`sample`: ``y = row-softmax(h)`` (or row-hardmax) with ``h_ab = [x_a^T S* x_b - delta_ab Tr S*]/sqrt(d)``.

    References
    ----------
    Chapter 5, Sec. 'Gradient descent on the tied attention layer'; Boncoraglio et al. 2025, arXiv:2506.01582.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import attention
    >>> data = attention.sample(10, 1.0, rho=0.5, T=3, rng=0)
    >>> test = attention.fresh_samples(data, 500, rng=1)
    >>> print(test.n, test.X.shape, test.y.shape, bool(np.array_equal(test.S_star, data.S_star)))
    500 (500, 3, 10) (500, 3, 3) True
    """
    _check_sample_memory(n, data.T, data.d)
    X = rng.standard_normal((n, data.T, data.d))
    h = _indices(X, np.asarray(data.S_star, dtype=float))
    y = row_softmax(h) if data.output == "softmax" else row_hardmax(h)
    return Dataset.adopt(X=X, y=y, W_star=data.W_star, S_star=data.S_star, output=data.output)


@declare(S_hat=MATRIX, data=DATA)
def output_error(S_hat, data: Dataset) -> float:
    """Plug-in error on the outputs, ``(1/n) sum_mu ||y_mu - softmax(h_mu(S_hat))||_F^2``.

    The finite-size counterpart of :func:`output_gen_error` (``estimator="plugin"``) when ``data`` is a fresh
    test set (Frobenius norm over the T x T output, averaged over samples).

    Parameters
    ----------
    S_hat : array_like
        The estimate, ``(d, d)``, finite.
    data : Dataset
        A data set of this model (a fresh test set for a generalisation error).

    Returns
    -------
    float
        The mean squared error on the outputs, ``>= 0``.

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`Dataset` of this model.
    ValueError
        If ``S_hat`` is malformed.

    Notes
    -----
    ::

        E_out = (1/n) sum_mu ||y_mu - row-softmax(h_mu(S_hat))||_F^2.

    References
    ----------
    Chapter 5, Sec. 'GAMP-RIE: reaching the Bayes-optimal error'; Boncoraglio et al. 2025, arXiv:2506.01582.

    Examples
    --------
    The teacher predicts a test set exactly; ``S_hat = 0`` (uniform attention) does not:

    >>> import numpy as np
    >>> from solvable import attention
    >>> data = attention.sample(10, 1.0, rho=0.5, T=3, rng=0)
    >>> test = attention.fresh_samples(data, 1000, rng=1)
    >>> print(f"teacher {attention.output_error(data.S_star, test):.4f}")
    teacher 0.0000
    >>> print(f"uniform {attention.output_error(np.zeros((10, 10)), test):.2f}")
    uniform 0.49
    """
    _check_square("S_hat", S_hat, data.d)
    diff = row_softmax(_indices(np.asarray(data.X, dtype=float), S_hat)) - data.y
    return float(np.sum(diff * diff) / data.n)


# =========================================================================== theory


@declare(T=TOKENS)
def n_effective_indices(T: int) -> int:
    """The number ``K = T(T+1)/2 - 1`` of combinations of the indices that the softmax output determines.

    Parameters
    ----------
    T : int
        Tokens per sample, ``>= 2``.

    Returns
    -------
    int
        ``K``.

    Raises
    ------
    ValueError
        If ``T < 2`` (TypeError for a non-integer).

    Notes
    -----
    ``row-softmax(h)`` fixes each row of ``h`` up to a constant, and symmetry leaves one global constant::

        K = T (T + 1) / 2 - 1.

    References
    ----------
    Chapter 5, Sec. 'Why it is solvable: matrix sensing with $T(T+1)/2$ indices'; Boncoraglio et al. 2025, arXiv:2506.01582.

    Examples
    --------
    >>> from solvable import attention
    >>> print([attention.n_effective_indices(T) for T in (2, 3, 4, 5)])
    [2, 5, 9, 14]
    """
    return T * (T + 1) // 2 - 1


@declare(rho=WIDTH, T=TOKENS)
def perfect_recovery_threshold(rho: float, T: int) -> float:
    """Sample ratio ``alpha = n/d^2`` above which Bayes-optimal learning of the tied softmax AIM is exact.

    ``alpha_PR = (rho - rho^2/2)/K`` for ``rho <= 1`` and ``(1/2)/K`` for ``rho >= 1``, ``K = T(T+1)/2 - 1``:
    free parameters of a rank-``r`` PSD matrix over the number of equations per sample, i.e.
    :func:`solvable.matrix_sensing.perfect_recovery_threshold` over ``K``. It decays like ``2/T^2``: longer
    sequences give more equations.

    Parameters
    ----------
    rho : float
        Width ratio ``r / d``, ``> 0``.
    T : int
        Tokens per sample, ``>= 2``.

    Returns
    -------
    float
        ``alpha_PR``.

    Raises
    ------
    ValueError
        If an argument is out of its domain (TypeError for a wrong type).

    Notes
    -----
    With ``K = T(T+1)/2 - 1`` (eq-aim-alpha-pr)::

        alpha_PR = (rho - rho^2/2) / K   (rho <= 1),        alpha_PR = (1/2) / K   (rho >= 1).

    References
    ----------
    Chapter 5, Sec. 'Why it is solvable: matrix sensing with $T(T+1)/2$ indices', eq-aim-alpha-pr; Boncoraglio et al. 2025, arXiv:2506.01582.

    Examples
    --------
    >>> from solvable import attention
    >>> print([round(attention.perfect_recovery_threshold(0.5, T), 4) for T in (2, 3, 4)])
    [0.1875, 0.075, 0.0417]
    """
    return matrix_sensing.perfect_recovery_threshold(rho) / n_effective_indices(T)


@declare(rho=THEORY_WIDTH, T=TOKENS)
def bayes_optimal_mmse(alpha: float, rho: float, T: int) -> float:
    """Bayes-optimal MMSE ``(1/d)||S_hat - S*||_F^2`` of the one-layer tied softmax AIM (1 at ``alpha = 0``).

    The fixed point is that of :func:`solvable.matrix_sensing.bayes_optimal_mmse` at ``alpha K``, i.e. ``qhat mmse_RIE(1/qhat) = 2 alpha K`` with ``qhat = 2 alpha K/m``: exactly the noiseless Wishart-sensing
    equation of :func:`solvable.matrix_sensing.bayes_optimal_mmse` (``kappa = rho``; the quadratic network's)
    at sample ratio ``alpha K``. It is solved there by Brent's method in ``log qhat`` (unique root:
    ``qhat mmse_RIE(1/qhat)`` increases from 0 to ``2 alpha_PR K``). Returns a value in ``[0, 1]``, non-increasing in
    ``alpha``: 1 at ``alpha = 0`` and 0 for ``alpha >= alpha_PR`` (:func:`perfect_recovery_threshold`).

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d^2``, ``>= 0``.
    rho : float
        Width ratio ``r / d``, in ``[1e-3, 1e6]`` (:data:`solvable.matrix_sensing.KAPPA_MIN`, ``KAPPA_MAX``:
        where the Wishart RIE's MMSE is computed reliably).
    T : int
        Tokens per sample, ``>= 2``.

    Returns
    -------
    float
        The MMSE, in ``[0, 1]``.

    Raises
    ------
    ValueError
        If an argument is out of its domain (TypeError for a wrong type).

    Notes
    -----
    The replica fixed point (eq-aim-fixed-point)::

        m = mmse_RIE( m / (2 alpha K); rho ),      K = T(T+1)/2 - 1.

    References
    ----------
    Chapter 5, Sec. 'Why it is solvable: matrix sensing with $T(T+1)/2$ indices', eq-aim-fixed-point;
    Boncoraglio et al. 2025, arXiv:2506.01582.

    Examples
    --------
    >>> from solvable import attention
    >>> print([round(attention.bayes_optimal_mmse(a, 0.5, 2), 4) for a in (0.05, 0.1, 0.2)])
    [0.7237, 0.3922, 0.0]
    >>> print(attention.perfect_recovery_threshold(0.5, 2))
    0.1875
    """
    K = n_effective_indices(T)
    return matrix_sensing.bayes_optimal_mmse(alpha * K, rho)


@declare(
    alpha=SAMPLE_ALPHA,
    rho=THEORY_WIDTH,
    T=TOKENS,
    start=optional(real(0.0, low_open=True), "1 + rho, the error of the estimate S_hat = 0"),
)
def state_evolution(
    alpha: float,
    rho: float,
    T: int,
    *,
    start: float | None = None,
    damping: float = 0.5,
    tol: float = 1e-10,
    max_iter: int = 5000,
    warn: bool = True,
) -> SEResult:
    """State evolution of GAMP-RIE for the tied softmax attention-indexed model.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d^2``, ``> 0``.
    rho : float
        Width ratio ``r / d``, in ``[1e-3, 1e6]``.
    T : int
        Tokens per sample, ``>= 2``.
    start : float or None, optional
        The error of the estimate at ``t = 0``, ``m_0 = (1/d)||S_hat_0 - S*||_F^2 > 0`` (``history[0]``).
        ``None``: ``Q_0 = 1 + rho``, the error of the estimate ``S_hat = 0`` (an independent prior draw has
        error ``2 (Q_0 - rho) = 2``, the prior mean ``sqrt(rho) I`` has 1).
    damping : float, optional
        In ``[0, 1)``: the damping of ``v`` below, as :func:`gamp_rie` damps its output variance (the fixed
        point does not depend on it).
    tol : float, optional
        In ``[0, 1)``: stop when ``|V_{t+1} - V_t| < tol``; ``0`` runs exactly ``max_iter`` steps.
    max_iter : int, optional
        Iteration cap, ``>= 1``.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when ``max_iter`` is reached before ``tol``.

    Returns
    -------
    solvable.amp.SEResult
        ``history[t] = m_t`` (``history[0] = start``), ``error`` the last one, ``overlap = 1 + rho - error``.

    Raises
    ------
    ValueError
        If an argument is out of its domain (named in the message; TypeError for a wrong type).

    Notes
    -----
    With ``mmse_RIE(s) = mmse_RIE(s; rho)`` and ``K = T(T+1)/2 - 1`` (eq-aim-se)::

        v_t = damping v_{t-1} + (1 - damping) m_{t-1},      m_t = mmse_RIE( v_t / (2 alpha K) ),      v_1 = m_0.

    This is the Wishart-sensing state evolution :func:`solvable.matrix_sensing.state_evolution` at sample ratio
    ``alpha K`` (its output variance ``V_t = 2 v_{t+1}``); its fixed point is :func:`bayes_optimal_mmse`.

    References
    ----------
    Chapter 5, Sec. 'GAMP-RIE: reaching the Bayes-optimal error', eq-aim-se; Boncoraglio et al. 2025,
    arXiv:2506.01582.

    Examples
    --------
    >>> from solvable import attention
    >>> res = attention.state_evolution(0.1, 0.5, 2)
    >>> print(f"MMSE {res.error:.4f}, converged {res.converged}")
    MMSE 0.3922, converged True
    >>> print(f"{attention.bayes_optimal_mmse(0.1, 0.5, 2):.4f}")
    0.3922
    """
    K = n_effective_indices(T)
    m0 = 1.0 + rho if start is None else start
    return matrix_sensing.state_evolution(
        alpha * K, rho, start=2.0 * m0, damping=damping, tol=tol, max_iter=max_iter, warn=warn
    )


@record
class OutputGenError:
    """Monte-Carlo estimate of the generalisation error on the outputs (:func:`output_gen_error`).

    Parameters
    ----------
    value : float
        The estimate of ``E ||y - y_hat||_F^2`` per sample.
    sem : float
        Its Monte-Carlo standard error.
    mmse : float
        The weight error used (:func:`bayes_optimal_mmse`).
    overlap : float
        The overlap ``q = Q0 - mmse``.
    estimator : {"plugin", "bayes"}
        The predictor whose error is estimated.

    Notes
    -----
    ``h = h_hat + sqrt(mmse) xi`` with ``h_hat`` of variance ``q`` (doubled on the diagonal).

    References
    ----------
    Chapter 5, Sec. 'GAMP-RIE: reaching the Bayes-optimal error'; Boncoraglio et al. 2025, arXiv:2506.01582.
    """

    value: float
    sem: float
    mmse: float
    overlap: float
    estimator: str


def _symmetric_gaussian(shape_nt, T, variance, rng):
    """Symmetric (..., T, T) Gaussian matrices: off-diagonal variance ``v``, diagonal ``2 v``."""
    G = rng.standard_normal(shape_nt + (T, T))
    return math.sqrt(variance / 2.0) * (G + np.swapaxes(G, -1, -2))


@declare(
    rho=THEORY_WIDTH,
    T=TOKENS,
    n_samples=N_SAMPLES,
    estimator=choice("plugin", "bayes"),
    n_inner=integer(1, size=True),
)
def output_gen_error(
    alpha: float,
    rho: float,
    T: int,
    *,
    n_samples: int = 20000,
    estimator: str = "plugin",
    n_inner: int = 64,
    rng,
) -> OutputGenError:
    """Generalisation error on the outputs, ``E ||y - y_hat||_F^2`` per sample, at the Bayes-optimal point.

    In high dimension the teacher's indices ``h`` and those of the posterior mean ``h_hat = h(S_hat)`` of a
    fresh sample are jointly Gaussian, entry by entry independent, with covariance ``[[Q0, q], [q, q]]``
    (doubled on the diagonal ``a = b``), ``Q0 = 1 + rho``, ``q = Q0 - m`` and ``m`` the MMSE of
    :func:`bayes_optimal_mmse`. So
    ``h = h_hat + sqrt(m) xi`` with ``xi`` an independent symmetric Gaussian matrix, and

    - ``estimator="plugin"`` (default): ``y_hat = softmax(h_hat)``, the output of the network with the
      Bayes-optimal weights ``S_hat`` (what :func:`output_error` measures at finite size, and the test error
      reported next to AMP in arXiv:2506.01582);
    - ``estimator="bayes"``: ``y_hat = E[softmax(h_hat + sqrt(m) xi') | h_hat]``, the Bayes-optimal prediction
      of the outputs (a lower bound on the plug-in error), averaged over ``n_inner`` inner draws of ``xi'``.
      The inner average adds ``B/n_inner`` to the error ``B`` (the inner draws and ``y`` are i.i.d. given
      ``h_hat``), so the estimate is multiplied by ``n_inner/(n_inner + 1)``, which removes that bias.

    The expectation is a Monte Carlo over ``n_samples`` draws of ``(h_hat, xi)`` from ``rng``; ``sem`` is
    its standard error. At ``alpha = 0`` (``S_hat = sqrt(rho) I``, ``q = rho``) it is the error of that
    uninformed network; above ``alpha_PR`` it is 0.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d^2``, ``>= 0``.
    rho : float
        Width ratio ``r / d``, in ``[1e-3, 1e6]``.
    T : int
        Tokens per sample, ``>= 2``.
    n_samples : int, optional
        Monte-Carlo draws of ``(h_hat, xi)``, ``>= 2``.
    estimator : {"plugin", "bayes"}, optional
        The predictor: the network with the Bayes-optimal weights, or the Bayes-optimal prediction of outputs.
    n_inner : int, optional
        Inner draws of the ``"bayes"`` estimator, ``>= 1``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the draws.

    Returns
    -------
    OutputGenError
        The estimate, its standard error, and the ``mmse`` and overlap used.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is out of its domain, or the draws would exceed :data:`solvable.validation.MAX_ELEMENTS`
        numbers at once.

    Notes
    -----
    ::

        E_out = E || row-softmax(h_hat + sqrt(m) xi) - y_hat(h_hat) ||_F^2.

    References
    ----------
    Chapter 5, Sec. 'GAMP-RIE: reaching the Bayes-optimal error'; Boncoraglio et al. 2025, arXiv:2506.01582.

    Examples
    --------
    >>> from solvable import attention
    >>> res = attention.output_gen_error(0.05, 0.5, 2, n_samples=2000, rng=0)
    >>> print(f"{res.value:.2f} +- {res.sem:.2f} at MMSE {res.mmse:.4f}")
    0.22 +- 0.01 at MMSE 0.7237
    >>> print(attention.output_gen_error(0.3, 0.5, 2, n_samples=2000, rng=0).value)  # above alpha_PR = 0.1875
    0.0
    """
    m = bayes_optimal_mmse(alpha, rho, T)
    # Peak: the draws of h_hat and xi with their symmetrised copies, the outputs y, y_hat and the softmax's
    # temporaries: about 8 arrays (n_samples, T, T) at once.
    check_size("the Monte-Carlo draws and outputs (n_samples, T, T) x 8 together", 8 * n_samples * T * T)
    if estimator == "bayes":
        check_size("the inner Monte-Carlo draws (n_inner, n_samples, T, T)", n_inner, n_samples, T, T)
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
    return OutputGenError(
        value=float(err.mean()),
        sem=float(err.std(ddof=1) / math.sqrt(n_samples)),
        mmse=m,
        overlap=q,
        estimator=estimator,
    )


@declare(
    alpha=SAMPLE_ALPHA,
    rho=THEORY_WIDTH,
    start=optional(real(0.0, low_open=True), "Q0 = 1 + rho"),
    n_samples=N_SAMPLES,
)
def hardmax_state_evolution(
    alpha: float,
    rho: float,
    *,
    start: float | None = None,
    n_samples: int = 100_000,
    damping: float = 0.5,
    tol: float = 1e-4,
    max_iter: int = 2000,
    warn: bool = True,
    rng,
) -> SEResult:
    """Bayes-optimal state evolution of the tied hardmax attention-indexed model, ``T = 2`` (Monte-Carlo channel).

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d^2``, ``> 0``.
    rho : float
        Width ratio ``r / d``, in ``[1e-3, 1e6]``.
    start : float or None, optional
        The error of the estimate at ``t = 0``, ``m_0`` in ``(0, Q0]`` with ``Q0 = 1 + rho`` (``history[0]``).
        ``None``: ``Q0``, the error of a prior draw.
    n_samples : int, optional
        Monte-Carlo draws of ``(omega, u)``, ``>= 2``; the relative error of ``qhat`` is about
        ``1/sqrt(n_samples)``.
    damping : float, optional
        In ``[0, 1)``: the damping of ``v`` below.
    tol : float, optional
        In ``[0, 1)``: stop when ``|V_{t+1} - V_t| < tol``. Default 1e-4: the map is piecewise constant in ``V``
        through the signs of the fixed draws and can end in a 2-cycle of amplitude about 1e-5, far below the
        Monte-Carlo error.
    max_iter : int, optional
        Iteration cap, ``>= 1``.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when ``max_iter`` is reached before ``tol``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the Monte-Carlo draws, made once (common random numbers: the iteration is a deterministic map).

    Returns
    -------
    solvable.amp.SEResult
        ``history[t] = m_t`` (``history[0] = start``), ``error`` the last one, ``overlap = Q0 - error``,
        ``conjugate`` the last ``qhat``.

    Raises
    ------
    ValueError
        If an argument is out of its domain, or the draws and their temporaries would hold more than
        :data:`solvable.validation.MAX_ELEMENTS` numbers at once.
    TypeError
        If an argument has the wrong type.

    Notes
    -----
    The softmax recursion with the channel integral done by Monte Carlo, with
    :class:`~solvable.channels.HardmaxChannel`, ``omega`` i.i.d. ``N(0, 2 Q0 - V)``, ``z = omega + sqrt(V) u``
    in ``tau`` units and ``y`` the signs of ``h11 - h12`` and ``h22 - h12``::

        v_t = damping v_{t-1} + (1 - damping) m_{t-1},   V = 2 v_t,
        qhat = 4 alpha E ||g_out(y, omega, V)||^2,        m_t = mmse_RIE(1/qhat; rho).

    For the softmax the same recipe gives ``E||g||^2 = K/V`` and ``qhat = 2 alpha K/m``
    (:func:`state_evolution`). No reference values are published for this channel: it is checked by the
    Nishimori identity and against :func:`gamp_rie` on hardmax data.

    References
    ----------
    Chapter 5, Sec. 'A contrast: the hardmax output'; Boncoraglio et al. 2025, arXiv:2506.01582 (hardmax
    example).

    Examples
    --------
    >>> from solvable import attention
    >>> for alpha in (0.1, 1.0):
    ...     res = attention.hardmax_state_evolution(alpha, 0.5, n_samples=2000, rng=0)
    ...     print(alpha, f"MMSE {res.error:.2f}", res.converged)
    ...
    0.1 MMSE 0.75 True
    1.0 MMSE 0.08 True
    """
    Q0 = 1.0 + rho
    m0 = Q0 if start is None else check_in_range("start", start, 0.0, Q0, low_open=True)  # (0, Q0]: with rho
    check_size(
        "the Monte-Carlo draws and the channel's temporaries (n_samples, 3) together",
        _HARDMAX_SE_ARRAYS * n_samples * 3,
    )
    xi = rng.standard_normal((n_samples, 3))
    u = rng.standard_normal((n_samples, 3))
    channel = HardmaxChannel()

    def update(x):
        # Below V = 1e-8 the channel's orthant probabilities underflow (NaN); the error there is below 1e-8.
        V = max(float(x[0]), _HARDMAX_SE_MIN_V)
        omega = math.sqrt(max(2.0 * Q0 - V, 0.0)) * xi
        g, _ = channel.g_out(channel.signs_of(omega + math.sqrt(V) * u), omega, V)
        qhat = 4.0 * alpha * float(np.mean(np.sum(g * g, axis=1)))
        if not (math.isfinite(qhat) and qhat > 0):
            return np.array([math.nan]), (math.nan, qhat)
        mmse = symmetric_rie_mmse(1.0 / qhat, rho)
        return np.array([2.0 * mmse]), (mmse, qhat)

    fp = iterate_fixed_point(
        update,
        [2.0 * m0],
        damping=damping,
        tol=tol,
        max_iter=max_iter,
        warn=warn,
        what=f"hardmax state evolution (alpha = {alpha:g}, rho = {rho:g})",
    )
    history = np.concatenate([[m0], fp.observed[:, 0]])
    error = float(history[-1])
    return SEResult(
        error=error,
        overlap=Q0 - error,
        history=history,
        iterations=fp.iterations,
        converged=fp.converged,
        message=fp.message,
        conjugate=float(fp.observed[-1, 1]),
    )


# =========================================================================== GAMP-RIE


class AttentionSensingMap:
    """The map ``S -> z`` with ``z^mu_ab = <Phi^mu_ab, S> = tau_ab h^mu_ab(S)`` for ``a <= b``, on raw tokens.

    ``Phi^mu_ab = sym(x_a x_b^T - delta_ab I)/sqrt(d)``, ``sym(M) = (M + M^T)/sqrt(2)``, diagonal blocks
    further divided by ``sqrt(2)``, i.e. ``tau_ab = sqrt(2)`` for ``a < b``
    and 1 on the diagonal. Without any per-sample d x d tensor (memory O(n T d)):

    - ``forward(S)``: ``h = attention_indices(X, S)`` (one ``(nT, d) @ (d, d)`` product), packed, times
      ``tau``;
    - ``adjoint(g) = sum_mu sum_{a<=b} g^mu_ab Phi^mu_ab = [X^T M X - (sum_mu,a g^mu_aa) I]/sqrt(d)`` with the
      symmetric per-sample coefficients ``M_ab = tau_ab g_ab / 2`` (``a != b``), ``M_aa = g_aa``: one
      ``(d, nT) @ (nT, d)`` product.

    Variances: every component has ``E <Phi_ab, A>^2 = 2 |A|_F^2/d``, as the quadratic network's
    ``Tr(Z A)``, so ``forward_variance(c) = 2 c`` and ``adjoint_variance(a) = 2 sum(a)/d`` are those of
    :class:`solvable.quadratic.QuadraticSensingMap`, and :class:`solvable.rie.WishartRIEDenoiser` tells the RIE
    the noise ``1/(2A)`` for the book's precision ``A = 2 alpha mean_mu sum_k (-dg_{mu,k})`` (its interface
    takes the loop's unnormalised ``d A``).

    Parameters
    ----------
    X : array_like
        Tokens ``(n, T, d)``, finite, ``T >= 2``.

    Attributes
    ----------
    n, T, d : int
        Samples, tokens per sample and token dimension.
    n_indices : int
        ``K + 1 = T(T+1)/2`` components per sample.

    Raises
    ------
    ValueError
        If ``X`` is malformed or ``T < 2``.

    Notes
    -----
    ``z^mu_ab = <Phi^mu_ab, S> = tau_ab h^mu_ab(S)`` for ``a <= b``, ``E <Phi_ab, A>^2 = 2 |A|_F^2 / d``.

    References
    ----------
    Chapter 5, Sec. 'GAMP-RIE: reaching the Bayes-optimal error'; Boncoraglio et al. 2025, arXiv:2506.01582.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import attention
    >>> data = attention.sample(10, 1.0, rho=0.5, T=3, rng=0)
    >>> M = attention.AttentionSensingMap(data.X)
    >>> print(M.n, M.T, M.d, M.n_indices, M.tau.round(4))
    100 3 10 6 [1.     1.4142 1.4142 1.     1.4142 1.    ]
    >>> z = M.forward(data.S_star)  # (n, T(T+1)/2): h_11, sqrt(2) h_12, sqrt(2) h_13, h_22, ...
    >>> print(z.shape, bool(np.allclose(z[:, 1], np.sqrt(2) * data.indices[:, 0, 1])))
    (100, 6) True
    """

    @declare(X=TOKEN_ARRAY)
    def __init__(self, X):
        if X.shape[1] < 2:
            raise InvalidParameterError(
                f"X must hold T >= 2 tokens per sample (axis 1 of (n, T, d)), got shape {X.shape}"
            )
        self.X = X
        self.n, self.T, self.d = X.shape
        self.tau = index_weights(self.T)
        self._a, self._b = np.triu_indices(self.T)
        self._diag = self._a == self._b

    @property
    def n_indices(self) -> int:
        """``K + 1 = T(T+1)/2`` components per sample."""
        return self.tau.size

    def forward(self, S):
        S = np.asarray(S, dtype=float)
        if S.shape != (self.d, self.d):
            raise InvalidParameterError(f"S must have shape ({self.d}, {self.d}), got {S.shape}")
        return pack_indices(_indices(self.X, S)) * self.tau

    def adjoint(self, g):
        g = np.asarray(g, dtype=float)
        if g.shape != (self.n, self.n_indices):
            raise InvalidParameterError(f"g must have shape ({self.n}, {self.n_indices}), got {g.shape}")
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


#: The smallest onsager_variance of gamp_rie: g_0 ~ 1/onsager_variance overflows in the first step below it.
_ONSAGER_VARIANCE_MIN = 1e-100
#: The smallest onsager_variance of gamp_rie with precision="derivative": the first field grows like
#: onsager_omega/onsager_variance and leaves the RIE's range (Frobenius norm 1e50) near 1e-45 at d = 6 (measured
#: from d = 6 to 80, T = 2 to 5); the empirical precision divides g_0 by g_0^2 and keeps the first step finite.
_ONSAGER_VARIANCE_MIN_DERIVATIVE = 1e-30


@declare(
    data=DATA,
    damping=optional(VOCABULARY["damping"], "0.8 below alpha_PR / 4, 1/2 above"),
    start_variance=real(0.0, low_open=True),
    onsager_omega=real(0.0, _ONSAGER_OMEGA_MAX),
    onsager_variance=real(_ONSAGER_VARIANCE_MIN),
    damp=choice("auto", "output", "both"),
    precision=choice("derivative", "empirical"),
    rng=seed("init"),
)
def gamp_rie(
    data: Dataset,
    *,
    damping: float | None = None,
    tol: float = GAMP_TOL,
    max_iter: int = GAMP_MAX_ITER,
    start_variance: float = 10.0,
    onsager_omega: float = 10.0,
    onsager_variance: float = 10.0,
    damp: str = "auto",
    precision: str = "derivative",
    warn: bool = True,
    rng,
) -> GAMPResult:
    """GAMP-RIE for the attention-indexed model (softmax or hardmax output).

    Parameters
    ----------
    data : Dataset
        A data set of this model (:func:`sample`).
    damping : float or None, optional
        In ``[0, 1)``: the damping of the output state ``(V, omega)`` (and of the estimate, see ``damp``).
        ``None`` (default) picks :data:`STRONG_DAMPING` = 0.8 when ``alpha`` is below
        ``STRONG_DAMPING_BELOW * alpha_PR`` = ``alpha_PR / 4`` (:func:`perfect_recovery_threshold`), 1/2 above.
        ``damping = 0`` is allowed but fragile: the undamped loop can stop at a false fixed point whose variance
        has collapsed; such a run fails :func:`self_consistency` and is reported as not converged.
    tol : float, optional
        In ``[0, 1)``: stop when the relative change of the estimate, ``||S_new - S_hat||_F / ||S_new||_F``,
        falls below ``tol``; ``0`` runs exactly ``max_iter`` iterations. Default ``GAMP_TOL = 1e-5``: the
        hardmax loop contracts slowly (a few per cent per iteration near its fixed point), and the distance
        left to the fixed point is the last change divided by one minus the contraction factor; 1e-5 keeps
        that distance below 1e-3 of the norm of the estimate, below the spread of the error between data sets.
    max_iter : int, optional
        Iteration cap, ``>= 1``. Default ``GAMP_MAX_ITER = 1000``: the slowest loop, the hardmax near
        ``alpha = 2.3`` at ``d`` from 40 to 100, meets the default tolerance in 750 to 950 iterations; a softmax
        run that converges does so in a few hundred. Runs at small ``alpha`` and finite ``d`` can keep
        fluctuating (by about 1 % of the norm per iteration) and stop at the cap with a
        :class:`~solvable.errors.ConvergenceWarning`.
    start_variance : float, optional
        The variance ``C_0 > 0`` of the initial estimate (the first output variance is ``2 C_0``). Default 10:
        above the error ``2 (Q_0 - rho) = 2`` of the independent prior draw that starts the run.
    onsager_omega : float, optional
        The first Onsager term uses ``g_0 = g_out(y, onsager_omega, onsager_variance)`` (the same
        ``onsager_omega`` in ``[0, 1e6]`` in every component): ``g_0 = 0`` blows up at small ``alpha``, and beyond
        ``1e6`` the first step leaves the range of the RIE.
    onsager_variance : float, optional
        The output variance of that first ``g_0``, ``>= 1e-100`` (``g_0`` grows like its inverse), and
        ``>= 1e-30`` with ``precision="derivative"`` (where the first step grows like its inverse too).
    damp : {"auto", "output", "both"}, optional
        ``"output"`` damps ``(V, omega)``; ``"both"`` also damps ``(S_hat, C_hat)`` (needed at small sample
        ratio, where output damping alone can stop at an overconfident fixed point); ``"auto"`` picks
        ``"both"`` when ``alpha K < AUTO_DAMP_BOTH_BELOW`` (``K`` of :func:`n_effective_indices`).
    precision : {"derivative", "empirical"}, optional
        How the precision ``A`` of the back-projection is computed (Chapter 3, Sec. 'One recipe for GAMP-RIE'):
        ``"derivative"`` (default) ``A = 2 alpha mean_mu sum_k (-dg_{mu,k})`` from the derivative of the
        channel's ``g_out`` (the mean over the samples of the sum over a sample's ``T(T+1)/2`` components; the
        constant ``c = 2`` of a symmetric signal); ``"empirical"`` ``A = 2 alpha mean_mu sum_k g_{mu,k}^2``.
        The RIE is told the noise ``1/(2A)`` either way. Both agree below ``alpha_PR``; above it the empirical form stops at
        a false fixed point (at ``T = 2``, ``d = 60``, ``alpha = 0.2``: 2e-4 against 2e-6).
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` at the cap or at a false fixed point.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the initial estimate (a prior draw).

    Returns
    -------
    solvable.amp.GAMPResult
        ``estimate`` ``S_hat`` (d, d), ``variance`` ``C_hat``, ``history`` the error
        ``(1/d)||S_hat_t - S*||_F^2`` after each iteration (:func:`solvable.denoising.symmetric_error`), ``error`` its
        last value, ``iterations``, ``converged``.

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`Dataset` of this model or ``rng`` is not a random source.
    ValueError
        If a control is out of its domain (named in the message).
    solvable.errors.DivergenceError
        If an iteration produces non-finite numbers.

    Notes
    -----
    The shared loop :func:`solvable.amp.run_gamp` with :class:`AttentionSensingMap` (the ``T(T+1)/2``
    symmetrised indices), the channel :class:`solvable.channels.SoftmaxChannel` (or
    :class:`solvable.channels.HardmaxChannel` for hardmax data) and :class:`solvable.rie.WishartRIEDenoiser`
    (``kappa = rho``); the precision is the book's ``A = c alpha mean_mu sum_k (-dg_{mu,k})`` with ``c = 2``
    (Chapter 3, eq-gamp-rie-recipe; ``g^2`` in place of ``-dg`` with ``precision="empirical"``), and the RIE is
    told the noise ``1/(2A)`` (eq-aim-gamp)::

        R = S_hat + M^T(g)/(A d),      Delta = 1/(2A),      S_hat = RIE_rho(R, Delta),      C_hat = mmse_RIE(Delta).

    (The shared loop passes the denoiser the unnormalised precision ``d A`` and the field ``d A R``.)

    Its state evolution is :func:`state_evolution` (softmax) or :func:`hardmax_state_evolution` (hardmax).
    A run whose :func:`self_consistency` ratio exceeds :data:`SELF_CONSISTENCY_MAX` is reported as not
    converged.

    References
    ----------
    Chapter 5, Sec. 'GAMP-RIE: reaching the Bayes-optimal error' and Sec. 'A contrast: the hardmax output';
    Boncoraglio et al. 2025, arXiv:2506.01582.

    Examples
    --------
    >>> from solvable import attention
    >>> data = attention.sample(30, 0.3, rho=0.5, T=2, rng=0)
    >>> res = attention.gamp_rie(data, rng=1)
    >>> print(f"GAMP-RIE {res.history[-1]:.2f}, theory {attention.bayes_optimal_mmse(0.3, 0.5, 2):.2f}")
    GAMP-RIE 0.00, theory 0.00
    """
    if damping is None:
        small = data.alpha < STRONG_DAMPING_BELOW * perfect_recovery_threshold(data.rho, data.T)
        damping = STRONG_DAMPING if small else 0.5
    C0, omega0, V0 = start_variance, onsager_omega, onsager_variance
    if precision == "derivative" and V0 < _ONSAGER_VARIANCE_MIN_DERIVATIVE:
        raise InvalidParameterError(
            f"onsager_variance must be >= {_ONSAGER_VARIANCE_MIN_DERIVATIVE:g} with "
            f"precision='derivative' (the first step grows like 1/onsager_variance and "
            f"leaves the range of the RIE below), got {V0!r}"
        )
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
            sensing,
            channel,
            WishartRIEDenoiser(data.rho),
            y,
            S0,
            C0,
            damping=damping,
            tol=tol,
            max_iter=max_iter,
            damp=damp,
            precision=precision,
            omega0=np.full(y.shape, omega0),
            V0=V0,
            monitor=lambda S: symmetric_error(S, S_star),
            warn=warn,
        )
    ratio = self_consistency(sensing, channel, y, res.estimate, res.variance)
    if ratio > SELF_CONSISTENCY_MAX:
        message = (
            f"GAMP-RIE stopped at a false fixed point after {res.iterations} iterations: its variance "
            f"C_hat = {float(res.variance):.2e} collapsed below the error its own training residuals show "
            f"(self-consistency ratio {ratio:.3g} > {SELF_CONSISTENCY_MAX:g}); reported as not converged "
            f"(use damping > 0, e.g. the default 0.5)"
        )
        if warn:
            warn_user(message, ConvergenceWarning)
        res = replace(res, converged=False, message=message)
    return res


@declare(
    sensing=instance(AttentionSensingMap, "an AttentionSensingMap"),
    channel=interface("g_out"),
    y=MATRIX,
    S_hat=MATRIX,
    C_hat=real(0.0),
)
def self_consistency(sensing: AttentionSensingMap, channel, y, S_hat, C_hat) -> float:
    """Ratio ``mean_mu ||g_mu||^2 / mean_mu sum_ab (-dg_mu_ab)`` of ``(g, dg) = g_out(y, M(S_hat), 2 C_hat)``.

    The Nishimori identity of a Bayes-optimal channel, ``E||g_out||^2 = -E sum dg_out``, holds when the output
    variance ``V = 2 C_hat`` matches the actual error of ``S_hat``. On the training data the estimate fits better
    than on fresh data, so a consistent GAMP-RIE fixed point has a ratio below 1. For the softmax channel it is
    the training residual orthogonal to the shift direction over the one predicted,
    ``(1/(2K)) mean||P(z(y) - M(S_hat))||^2 / C_hat``. Undamped GAMP-RIE (``damping = 0``) can stop at a false
    fixed point where ``C_hat`` has collapsed while the error stays large: its updates shrink with ``C_hat``
    and the change falls below ``tol``; the ratio is then far above 1.
    :func:`gamp_rie` reports a run with a ratio above :data:`SELF_CONSISTENCY_MAX` as not converged.

    Parameters
    ----------
    sensing : AttentionSensingMap
        The sensing map of the training data.
    channel : solvable.channels.SoftmaxChannel or solvable.channels.HardmaxChannel
        The output channel.
    y : numpy.ndarray
        The observations as the channel reads them (``channel.observe(data.y)``).
    S_hat : numpy.ndarray
        The estimate, ``(d, d)``.
    C_hat : float
        Its variance.

    Returns
    -------
    float
        The ratio, ``>= 0``; ``inf`` if it is not a finite number (``C_hat = 0``).

    Notes
    -----
    The Nishimori identity at ``V = 2 C_hat``::

        E ||g_out||^2 = -E sum dg_out.

    References
    ----------
    Chapter 5, Sec. 'GAMP-RIE: reaching the Bayes-optimal error'; Boncoraglio et al. 2025, arXiv:2506.01582.
    """
    with np.errstate(all="ignore"):
        g, dg = channel.g_out(y, sensing.forward(S_hat), sensing.forward_variance(C_hat))
        ratio = float(np.mean(np.sum(g * g, axis=1)) / np.mean(np.sum(-dg, axis=1)))
    return ratio if math.isfinite(ratio) and ratio >= 0 else math.inf


# =========================================================================== gradient descent / Adam


def _check_students(W, X, y):
    """The checked arrays ``W`` (J, d, r) (a (d, r) array is one student), ``X`` (n, T, d) and ``y`` (n, T, T)
    against each other (InvalidParameterError naming the array otherwise); ``W`` as (J, d, r)."""
    _check_outputs(X, y)
    if W.ndim == 2:
        W = W[None]
    if W.ndim != 3 or W.shape[1] != X.shape[2] or W.shape[0] < 1 or W.shape[2] < 1:
        raise InvalidParameterError(
            f"X must be (n, T, d) and W (K, d, r) or (d, r) with the same d; got {X.shape}, {W.shape}"
        )
    return W


def _check_outputs(X, y):
    """The checked tokens ``X`` (n, T, d) against the outputs ``y`` (n, T, T), numbers in [0, 1]."""
    if y.shape != (X.shape[0], X.shape[1], X.shape[1]):
        raise InvalidParameterError(
            f"y must have shape {(X.shape[0], X.shape[1], X.shape[1])}, got {y.shape}"
        )
    if not np.all((y >= 0.0) & (y <= 1.0)):
        raise InvalidParameterError("y must hold softmax outputs, numbers in [0, 1]")


def _host_or_foreign(domain: Domain) -> Domain:
    """``domain`` for a NumPy array (or array_like); an array of another array-API library (PyTorch, CuPy) passes
    as it is, to be checked by the function on a host copy (it is kept in its namespace, on its device)."""

    def check(name, value):
        return value if backend.is_non_numpy_array(value) else domain(name, value)

    return replace(
        domain, text=domain.text + " (NumPy, or an array of another array-API library)", check=check
    )


def _students_forward(W, X):
    """Projections ``p = W^T x`` (J, n, T, r), softmax outputs (J, n, T, T) and the scale ``1/(d sqrt r)``, in the
    array-API namespace of ``W`` and ``X`` (NumPy, or PyTorch or CuPy on a GPU)."""
    xp = backend.namespace(W, X)
    K, d, r = W.shape
    n, T, _ = X.shape
    scale = 1.0 / (d * math.sqrt(r))
    P = xp.reshape(xp.reshape(X, (n * T, d)) @ W, (K, n, T, r))
    h = P @ xp.matrix_transpose(P)
    sq_norm = xp.reshape(xp.sum(W * W, axis=(1, 2)), (K, 1, 1, 1))
    h = (h - xp.eye(T, dtype=h.dtype, device=array_api_compat.device(h)) * sq_norm) * scale
    if not bool(xp.all(xp.isfinite(h))):
        raise DivergenceError(
            "the students' attention indices overflowed (weights of size "
            f"{math.sqrt(float(xp.max(sq_norm))):.1e}): training diverged, lower lr"
        )
    e = xp.exp(h - xp.max(h, axis=-1, keepdims=True))  # the row softmax (channels.row_softmax)
    return P, e / xp.sum(e, axis=-1, keepdims=True), scale


@declare(W=array(), X=TOKEN_ARRAY, y=OUTPUT_ARRAY)
def student_loss_and_gradient(W, X, y):
    """Loss and gradient of ``J`` tied softmax students at once.

    Student ``k``: ``S_k = W_k W_k^T/sqrt(r d)``, ``y_hat = row-softmax(h(S_k))`` with
    ``h_ab = [p_a . p_b - delta_ab |W_k|_F^2]/(d sqrt r)``, ``p_a = W_k^T x_a``; loss
    ``L_k = sum_mu ||y_hat_mu - y_mu||_F^2 / d``. Backward pass: ``E = 2 (y_hat - y)/d``, through the row
    softmax ``G_ab = y_hat_ab (E_ab - sum_c E_ac y_hat_ac)``, then

        dL/dW = [ sum_mu sum_a x_a ((G + G^T) p)_a^T - 2 W sum_mu Tr G ] / (d sqrt r),

    all as batched matrix products (no loop over samples or students).

    Parameters
    ----------
    W : array_like
        The students' weights ``(J, d, r)``, or ``(d, r)`` for one student.
    X : array_like
        Tokens ``(n, T, d)``.
    y : array_like
        Outputs ``(n, T, T)``, numbers in ``[0, 1]``.

    Returns
    -------
    loss : numpy.ndarray
        ``(J,)`` losses ``L_k``.
    grad : numpy.ndarray
        ``(J, d, r)`` gradients ``dL_k/dW_k``.

    Raises
    ------
    ValueError
        If an array is malformed or the shapes do not match.
    solvable.errors.DivergenceError
        If the students' indices overflow.

    References
    ----------
    Chapter 5, Sec. 'Gradient descent on the tied attention layer'; Boncoraglio et al. 2025, arXiv:2506.01582.
    """
    W = _check_students(W, X, y)
    return _loss_and_grad(W, X, y)


def _loss_and_grad(W, X, y):
    """:func:`student_loss_and_gradient` without the checks, in the array-API namespace of the arrays; the loss is
    summed in float64."""
    xp = backend.namespace(W, X, y)
    K, d, r = W.shape
    n, T, _ = X.shape
    P, y_hat, scale = _students_forward(W, X)
    E = y_hat - y
    E64 = E if E.dtype == xp.float64 else xp.astype(E, xp.float64)
    loss = xp.sum(xp.reshape(E64 * E64, (K, -1)), axis=-1) / d
    E *= 2.0 / d
    G = y_hat * (E - xp.sum(E * y_hat, axis=-1, keepdims=True))
    Q = xp.reshape((G + xp.matrix_transpose(G)) @ P, (K, n * T, r))
    grad = xp.matrix_transpose(xp.reshape(X, (n * T, d))) @ Q
    # sum_mu Tr G_mu: the traces of the samples added one after the other (cumulative_sum), in a fixed order
    trace = xp.cumulative_sum(xp.sum(xp.linalg.diagonal(G), axis=-1), axis=-1)[:, -1]
    grad -= 2.0 * xp.reshape(trace, (K, 1, 1)) * W
    return loss, grad * scale


class StudentLoss:
    """The training loss of tied softmax students, as an objective of :func:`solvable.gd.run_gd`.

    ``StudentLoss(X, y, r)``: tokens ``X`` (n, T, d), outputs ``y`` (n, T, T), student width ``r``. For batched
    parameters ``params = (W,)`` with ``W`` (J, d, r):

    - ``loss_and_gradient(params) -> (L (J,), (dL/dW,))``: the loss ``L_k = sum_mu ||y_hat_mu - y_mu||_F^2/d``
      and its gradient (:func:`student_loss_and_gradient`);
    - ``matrix(params)``: ``S_k = W_k W_k^T/sqrt(r d)`` (J, d, d);
    - ``loss_scale``: the loss of the uniform prediction ``y_hat = 1/T``, ``sum_mu ||y_mu - 1/T||_F^2/d``, so
      that ``L/loss_scale`` is the relative training loss that :func:`gd` reports;
    - ``error(S, S_star)``: ``(1/d)||S_k - S*||_F^2`` per student (the error of :func:`gamp_rie` and of
      :func:`bayes_optimal_mmse`), for ``run_gd``'s ``error`` argument.

    Parameters
    ----------
    X : array_like
        Tokens ``(n, T, d)``. A NumPy array (or array_like), or an array of another array-API library (PyTorch,
        CuPy, ``array_api_strict``), in the namespace and on the device of the weights :func:`solvable.gd.run_gd`
        descends; such arrays are checked on a host copy and kept as they are.
    y : array_like
        Outputs ``(n, T, T)``, not all equal to ``1/T``; the same kind of array as ``X``.
    r : int
        Student width, ``>= 1``.

    Raises
    ------
    ValueError
        If an array is malformed or ``y`` is the uniform output everywhere.

    Notes
    -----
    ``L_k = sum_mu ||row-softmax(h_mu(S_k)) - y_mu||_F^2 / d`` with ``S_k = W_k W_k^T / sqrt(r d)``. The forward
    and backward passes use array-API functions of the weights' namespace only (:mod:`solvable.backend`), in the
    weights' precision (``X`` and ``y`` are converted to it once, on first use); the loss is summed in float64.

    References
    ----------
    Chapter 5, Sec. 'Gradient descent on the tied attention layer'; Boncoraglio et al. 2025, arXiv:2506.01582.
    """

    @declare(X=_host_or_foreign(TOKEN_ARRAY), y=_host_or_foreign(OUTPUT_ARRAY), r=integer(1))
    def __init__(self, X, y, r: int):
        self.r = r
        foreign = backend.is_non_numpy_array(X) and backend.is_non_numpy_array(y)
        X_host = TOKEN_ARRAY("X", backend.to_numpy(X)) if backend.is_non_numpy_array(X) else X
        y_host = OUTPUT_ARRAY("y", backend.to_numpy(y)) if backend.is_non_numpy_array(y) else y
        _check_outputs(X_host, y_host)
        if foreign:  # kept in their namespace, on their device
            xp = backend.namespace(X, y)
            X = X if xp.isdtype(X.dtype, "real floating") else xp.astype(X, xp.float64)
            y = y if xp.isdtype(y.dtype, "real floating") else xp.astype(y, xp.float64)
        else:
            X, y = X_host, y_host
        self.X, self.y = X, y
        self._typed = {}
        self.n, self.T, self.d = X.shape
        self.loss_scale = float(np.sum((y_host - 1.0 / self.T) ** 2)) / self.d
        if not (math.isfinite(self.loss_scale) and self.loss_scale > 0):
            raise InvalidParameterError(
                "y must not be the uniform output 1/T everywhere (the relative loss divides by its loss)"
            )

    def _W(self, params):
        if not isinstance(params, (tuple, list)) or len(params) != 1:
            raise InvalidParameterError("params must be a tuple (W,) with W of shape (K, d, r)")
        W = params[0]
        if W.ndim != 3 or tuple(W.shape[1:]) != (self.d, self.r):
            raise InvalidParameterError(f"W must have shape (K, {self.d}, {self.r}), got {W.shape}")
        return W

    def _data(self, dtype):
        """``(X, y)`` in the floating type ``dtype`` of the weights (converted once, then kept)."""
        if self.X.dtype == dtype:
            return self.X, self.y
        if dtype not in self._typed:
            xp = backend.namespace(self.X, self.y)
            self._typed[dtype] = (xp.astype(self.X, dtype), xp.astype(self.y, dtype))
        return self._typed[dtype]

    def loss_and_gradient(self, params):
        W = self._W(params)
        loss, grad = _loss_and_grad(W, *self._data(W.dtype))
        return loss, (grad,)

    def matrix(self, params):
        W = self._W(params)
        xp = backend.namespace(W)
        return (W @ xp.matrix_transpose(W)) / math.sqrt(self.r * self.d)

    def error(self, S, S_star):
        """``(1/d)||S_k - S*||_F^2`` for each of the (J, d, d) matrices ``S`` (any array-API namespace)."""
        return _student_errors(S, S_star)


def _student_errors(S, S_star):
    """``(1/d)||S_k - S*||_F^2`` for each of the (J, d, d) matrices ``S`` (any array-API namespace)."""
    xp = backend.namespace(S, S_star)
    diff = S - S_star
    return xp.sum(xp.reshape(diff * diff, (diff.shape[0], -1)), axis=-1) / S_star.shape[-1]


@declare(_gd.GD_CONTROLS, data=DATA, width=optional(integer(1), "the teacher's rank r"), lr=_gd.LEARNING_RATE)
def gd(
    data: Dataset,
    *,
    optimiser: str = "adam",
    n_inits: int = 32,
    lr: float = 0.1,
    max_steps: int = 1500,
    tol: float = 0.0,
    record_every: int = 50,
    width: int | None = None,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    warn: bool = True,
    device: str = "cpu",
    rng,
) -> _gd.GDResult:
    """Full-batch Adam (or plain gradient descent) on ``n_inits`` tied softmax students, batched in one computation.

    Parameters
    ----------
    data : Dataset
        A softmax data set of this model (:func:`sample`).
    optimiser : {"adam", "gd"}, optional
        :class:`solvable.gd.Adam` with constant ``lr``, ``betas`` and ``eps`` (each student has its own moments),
        or :class:`solvable.gd.GradientStep`, ``W <- W - lr g`` (the loss is O(alpha d), so ``lr`` must be much
        smaller than Adam's).
    n_inits : int, optional
        Number of students ``J`` (independent initialisations ``W ~ N(0, 1)``), ``>= 1``.
    lr : float, optional
        Step size, ``> 0``.
    max_steps : int, optional
        Number of steps, ``>= 0`` (every student runs exactly ``max_steps`` steps when ``tol = 0``).
    tol : float, optional
        In ``[0, 1)``: freeze a student once its relative training loss is below ``tol`` (:func:`solvable.gd.run_gd`).
        Default 0: a fixed number of steps, as in the paper's experiments.
    record_every : int, optional
        Record losses and errors every ``record_every`` steps, ``>= 1``.
    width : int or None, optional
        Student width ``r``; ``None``: the teacher's.
    betas : tuple of float, optional
        Adam's ``(beta1, beta2)``, each in ``[0, 1)``.
    eps : float, optional
        Adam's ``eps``, ``> 0``.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when runs stop at ``max_steps`` or end above
        their initial loss (``False``: read ``converged`` and ``losses`` instead).
    device : {"cpu", "cuda", "auto"}, optional
        Where the students train (:func:`solvable.backend.resolve`): NumPy (default), a CUDA GPU through
        PyTorch or CuPy, or the GPU where one is available. The result is the same up to rounding (float64).
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the initialisations: its ``"init"`` stream (:func:`solvable.streams.stream`), so that the
        seed given to :func:`sample` never makes a student the teacher; a generator is used as it is.

    Returns
    -------
    solvable.gd.GDResult
        ``estimates`` (J, d, d) the final ``S_k``, ``average`` their mean (averaged GD), ``errors`` (J,) and
        ``average_error`` ``(1/d)||S - S*||_F^2``, ``losses`` the final relative training loss (over the
        uniform prediction's), ``loss_history`` and ``error_history`` every ``record_every`` steps, ``steps``.

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`Dataset` of this model or an argument has the wrong type.
    ValueError
        If an argument is out of its domain, the students' arrays would exceed
        :data:`solvable.validation.MAX_ELEMENTS` numbers, or ``device="cuda"`` finds no GPU library.
    solvable.errors.DivergenceError
        If the loss becomes non-finite or a student's ``|S_k|_F^2/d`` ends above ``STUDENT_NORM_MAX`` times the
        teacher's ``1 + rho`` (exploded weights behind a saturated, finite loss).

    Notes
    -----
    Student ``k``: ``S_k = W_k W_k^T / sqrt(r d)``, ``y_hat = row-softmax(h(S_k))``, loss
    ``L_k = sum_mu ||y_hat_mu - y_mu||_F^2 / d`` (:class:`StudentLoss`). Adam (Kingma and Ba,
    arXiv:1412.6980), elementwise::

        m <- b1 m + (1 - b1) g,    v <- b2 v + (1 - b2) g^2,    W <- W - lr m_hat / (sqrt(v_hat) + eps).

    Averaging ``S`` over students approaches the Bayes MMSE; single students reach zero error above
    ``alpha_PR``. Memory: about ``3 J n T max(r, T) + J d r`` numbers.

    The data and the initial weights are checked and drawn in NumPy whatever the ``device`` (the same draws of
    ``rng``), then moved to the device (:func:`solvable.backend.asarray`); the students train there in float64
    and the result comes back as NumPy arrays on the host.

    References
    ----------
    Chapter 5, Sec. 'Gradient descent on the tied attention layer'; Boncoraglio et al. 2025, arXiv:2506.01582.

    Examples
    --------
    Adam on four tied students, well above the perfect-recovery threshold (``tol = 0``: every run takes all its
    steps):

    >>> import numpy as np
    >>> from solvable import attention
    >>> data = attention.sample(8, 2.0, rho=0.5, T=2, rng=0)
    >>> res = attention.gd(data, n_inits=4, max_steps=800, rng=1)
    >>> print(res.iterations, bool(np.all(res.errors < 1e-8)))
    [800 800 800 800] True
    """
    r = data.r if width is None else width
    d = data.d

    def size(K, dtype):
        check_size(
            "the students' arrays (n_inits x (5 outputs and their gradients (n, T, T), 3 projections "
            "(n, T, width), 4 weights and moments (d, width), 2 estimates (d, d))) together",
            K * (5 * data.n * data.T * data.T + 3 * data.n * data.T * r + 4 * d * r + 2 * d * d),
        )

    def draw(rng, K):
        return (rng.standard_normal((K, d, r)),)

    def objective(xp, dev, dtype):
        loss = StudentLoss(data.X, data.y, r)  # checked in NumPy, then moved as they are
        if xp is not backend.resolve("cpu")[0]:
            loss = StudentLoss(backend.asarray(data.X, xp, dev), backend.asarray(data.y, xp, dev), r)
        return loss

    res = _gd.fit_students(
        objective,
        draw,
        n_inits=n_inits,
        optimiser=optimiser,
        lr=lr,
        betas=betas,
        eps=eps,
        tol=tol,
        max_steps=max_steps,
        record_every=record_every,
        warn=warn,
        dtype=np.float64,
        device=device,
        rng=rng,
        target=data.S_star,
        error=_student_errors,
        size=size,
    )
    K = res.n_inits
    scale = np.einsum("kij,kij->k", res.estimates, res.estimates) / d
    if np.any(scale > STUDENT_NORM_MAX * (1.0 + data.rho)):
        raise DivergenceError(
            f"training diverged: {int(np.sum(scale > STUDENT_NORM_MAX * (1.0 + data.rho)))} of {K} students "
            f"ended with |S|_F^2/d up to {scale.max():.2e}, the teacher's is about {1.0 + data.rho:g} "
            f"(lr = {lr:g} is too large for optimiser={optimiser!r})"
        )
    return res
