"""The teacher-student perceptron, or generalised linear model (GLM): replica theory, state evolution and GAMP.

Model (Chapter 1, Sec. 'The model', eq. ``eq-perceptron-model``): a teacher ``w* in R^d`` with i.i.d. entries
from a prior (``gaussian`` N(0, 1), eq. ``eq-priors``, or ``rademacher`` +-1, whose denoiser is derived in
Chapter 1's exercise ``ex-perceptron-gamp-rademacher``; so ``rho = E w*_i^2 = 1``), inputs
``x_mu ~ N(0, I_d)``, ``mu = 1..n``, ``alpha = n/d``, preactivations ``z_mu = x_mu . w* / sqrt(d)`` and labels
through a channel (``sign``, ``probit`` with noise variance ``delta``, ``linear`` with noise variance ``delta``;
eqs. ``eq-channel-probit``, ``eq-channel-linear``).

Theory: the replica-symmetric free entropy ``f_RS(q, mhat) = psi_w(mhat) + alpha psi_out(q) - mhat q / 2``
(eq. ``eq-free-entropy``; Barbier, Krzakala, Macris, Miolane, Zdeborova, PNAS 116:5451 (2019),
arXiv:1708.03395, Thm. 1), whose stationary points are the fixed points of state evolution
(eq. ``eq-state-evolution``); the Bayes-optimal overlap ``q`` is the stationary point with the largest free
entropy. Algorithm: GAMP (Chapter 1, Sec. 'GAMP in twelve lines', eq. ``eq-gamp``; :mod:`solvable.amp`).

Normalisation: ``z ~ N(0, rho)``; Barbier et al. call our ``(d, n, w*, X)`` ``(n, m, X, Phi)``.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from scipy.optimize import brentq, minimize_scalar

from .amp import DenseLinearMap, GAMPResult, SEResult, iterate_fixed_point, run_gamp
from .channels import CHANNELS, LinearChannel, SignChannel, get_channel
from .dataset import Dataset as _BaseDataset
from .domains import array, choice, declare, instance, optional, real, seed
from .errors import DivergenceError, InvalidParameterError
from .integration import (
    _phi_log_phi_expectation as phi_log_phi_expectation,
)  # the unchecked cores: inner loops
from .integration import _sign_channel_fisher as sign_channel_fisher
from .metrics import angle_error, gibbs_classification_error
from .priors import PRIORS, GaussianPrior, RademacherPrior, get_prior
from .regression import gaussian_linear_mse
from .results import record
from .validation import check_in_range, check_size

__all__ = [
    "GAMP_TOL",
    "GAMP_MAX_ITER",
    "MAX_TRAJECTORY",
    "Dataset",
    "sample",
    "state_evolution",
    "se_trajectory",
    "free_entropy",
    "bayes_gen_error",
    "gibbs_gen_error",
    "mutual_information",
    "Thresholds",
    "perfect_learning_thresholds",
    "BranchCurve",
    "branch_curve",
    "gamp",
    "gamp_iterates",
    "gamp_gen_error",
]

#: Initial overlap of the uninformed state evolution, matching GAMP started from ``1e-3 N(0, 1)``.
Q0_UNINFORMED = 1e-6
#: Initial distance to 1 of the informed (planted) branch, used for discrete priors.
Q0_INFORMED_GAP = 1e-10
#: Smallest mean-squared error ``rho - q`` that state evolution represents (the smallest normal double); an
#: iterate below it is exact recovery for a discrete prior and an underflow for a continuous one.
_MSE_FLOOR = sys.float_info.min
#: Default tolerance of :func:`gamp` on the relative change of its estimate (reason in its docstring).
GAMP_TOL = 1e-4
#: Default iteration cap of :func:`gamp`.
GAMP_MAX_ITER = 100
#: The most iterations of :func:`se_trajectory` (a trajectory to compare with an algorithm step by step).
MAX_TRAJECTORY = 10**6


#: The domains of the model's parameters (solvable.domains): the prior and channel names, the sample ratio of a data
#: set (a theory function takes alpha >= 0, the vocabulary's), an overlap and GAMP's controls.
PRIOR = choice(*PRIORS)
CHANNEL = choice(*CHANNELS)
SAMPLE_ALPHA = real(0.0, low_open=True)
OVERLAP = real(0.0, 1.0)
GLM_TOL = real(0.0, 1.0, low_open=True, high_open=True)

# --------------------------------------------------------------------------- data


@record
class Dataset(_BaseDataset):
    """A perceptron data set: inputs, labels, the teacher and the model it was drawn with.

    Parameters
    ----------
    X : array_like
        Inputs ``(n, d)``, one sample ``x_mu`` per row.
    y : array_like
        Labels ``(n,)``.
    w_star : array_like
        The teacher ``(d,)``.
    prior : str, optional
        Name of the teacher's prior (``"gaussian"`` or ``"rademacher"``): the Bayes-optimal student knows it.
    channel : str, optional
        Name of the output channel (``"sign"``, ``"probit"`` or ``"linear"``).
    delta : float, optional
        Label-noise variance of the channel.

    Attributes
    ----------
    n, d, alpha
        Number of samples, dimension and sample ratio ``n / d``.

    Raises
    ------
    TypeError
        If an array is not an array of real numbers.
    ValueError
        If the shapes do not match, an entry is not finite, or the model is not a valid prior / channel / noise.

    Notes
    -----
    ``y_mu ~ P_out(. | x_mu . w* / sqrt(d))`` (Chapter 1, eq. ``eq-perceptron-model``). The arrays are read-only
    and two data sets are equal when all fields are.

    References
    ----------
    Chapter 1, Sec. 'The model'.
    """

    w_star: np.ndarray
    prior: str = "gaussian"
    channel: str = "sign"
    delta: float = 0.0

    def _check(self) -> None:
        if self.X.ndim != 2 or self.y.ndim != 1 or self.w_star.ndim != 1:
            raise InvalidParameterError(
                f"X, y, w_star must be 2-d, 1-d, 1-d; got shapes {self.X.shape}, {self.y.shape}, "
                f"{self.w_star.shape}"
            )
        if self.X.shape[1] != self.w_star.shape[0]:
            raise InvalidParameterError(
                f"shapes do not match: X is {self.X.shape}, so w_star must have {self.X.shape[1]} "
                f"entries (got {self.w_star.shape[0]})"
            )
        P, C = get_prior(self.prior), get_channel(self.channel, self.delta)
        object.__setattr__(self, "prior", P.name)
        object.__setattr__(self, "channel", C.name)
        object.__setattr__(self, "delta", float(C.delta))


@declare(alpha=SAMPLE_ALPHA, prior=PRIOR, channel=CHANNEL)
def sample(d: int, alpha: float, *, prior="gaussian", channel="sign", delta: float = 0.0, rng) -> Dataset:
    """Draw a teacher and ``n = round(alpha d)`` labelled samples of the perceptron.

    Parameters
    ----------
    d : int
        Dimension (>= 1).
    alpha : float
        Sample ratio ``n / d`` (> 0); ``n = max(1, round(alpha d))``.
    prior : {"gaussian", "rademacher"}, optional
        Prior of the teacher's entries.
    channel : {"sign", "probit", "linear"}, optional
        Output channel.
    delta : float, optional
        Label-noise variance (0 for ``sign``, > 0 for ``probit``, >= 0 for ``linear``).
    rng : numpy.random.Generator, int, numpy.random.SeedSequence or numpy.random.BitGenerator
        Source of randomness (keyword-only; SPEC 7, ``None`` refused).

    Returns
    -------
    Dataset
        ``X`` (n, d), ``y`` (n,), the teacher ``w_star`` (d,) and the model.

    Raises
    ------
    TypeError
        For a non-integer ``d`` or a wrong ``rng`` type.
    ValueError
        For a bad ratio or model, or a design above :data:`solvable.validation.MAX_ELEMENTS` numbers (refused
        before anything is drawn).

    Notes
    -----
    Draw order: ``w* ~ P_w`` (d,), then ``X ~ N(0, 1)`` (n, d), then the channel noise;
    ``y = P_out(X w* / sqrt(d))`` (Chapter 1, eq. ``eq-perceptron-model``).

    References
    ----------
    Chapter 1, Sec. 'The model'.

    Examples
    --------
    >>> from solvable import glm
    >>> data = glm.sample(200, 2.0, prior="rademacher", rng=0)
    >>> data.n, data.d, data.alpha
    (400, 200, 2.0)
    >>> print(data.X.shape, sorted(set(data.y.tolist())), sorted(set(data.w_star.tolist())))
    (400, 200) [-1.0, 1.0] [-1.0, 1.0]
    """
    P, C = get_prior(prior), get_channel(channel, delta)
    n = max(1, int(round(alpha * d)))
    check_size("the design X (n = alpha d, d)", n, d)
    w_star = P.sample(d, rng)
    X = rng.standard_normal((n, d))
    y = C.sample(X @ w_star / np.sqrt(d), rng)
    return Dataset.adopt(X=X, y=y, w_star=w_star, prior=P.name, channel=C.name, delta=float(C.delta))


# --------------------------------------------------------------------------- replica theory


def _psi_out(C, q: float, mse: float) -> float:
    """Channel part of the free entropy at overlap ``q``, with ``rho - q = mse`` given separately.

    ``-log(2 pi W)/2 - 1/2`` (linear) and ``2 E[Phi(k xi) log Phi(k xi)]``, ``k = sqrt(q / W)`` (sign, probit),
    with ``W = mse + delta``; ``mse`` is not recomputed as ``rho - q`` (which cancels as ``q -> rho``). Exact
    limits at ``W = 0``: ``+inf`` (linear), 0 (sign).
    """
    W = mse + C.delta
    if isinstance(C, LinearChannel):
        return math.inf if W == 0 else -0.5 * math.log(2.0 * math.pi * W) - 0.5
    if W == 0:
        return 0.0
    return 2.0 * float(phi_log_phi_expectation(math.sqrt(q / W))[0])


def _channel_information(C, rho: float, q: float, mse: float) -> float:
    """``E log P_out(y | z) - psi_out(q)`` (>= 0): what the labels tell about ``z`` beyond the estimate.

    Linear: ``log(1 + mse/delta)/2``; sign and probit: ``2 E[Phi(k0 xi) log Phi(k0 xi)] - 2 E[Phi(k xi) log
    Phi(k xi)]``, ``k0 = sqrt(rho/delta)`` (the first term is 0 for the sign channel), ``k = sqrt(q/(mse +
    delta))``, so that ``alpha`` times it has no cancellation at large ``alpha``.
    """
    if mse == 0.0:
        return 0.0
    if isinstance(C, LinearChannel):
        return math.inf if C.delta == 0 else 0.5 * math.log1p(mse / C.delta)
    mean_log_lik = 0.0 if C.delta == 0 else 2.0 * float(phi_log_phi_expectation(math.sqrt(rho / C.delta))[0])
    return mean_log_lik - _psi_out(C, q, mse)


def _f_rs(mhat: float, mse: float, alpha: float, P, C) -> float:
    """``f_RS = [psi_w(mhat) - rho mhat/2] + mhat mse/2 + alpha psi_out`` with ``q = rho - mse``: the two terms that
    grow like ``mhat`` cancel analytically (:meth:`~solvable.priors.GaussianPrior.psi_reduced`)."""
    channel_part = alpha * _psi_out(C, P.rho - mse, mse) if alpha > 0 else 0.0
    return float(P.psi_reduced(mhat) + 0.5 * mhat * mse + channel_part)


@declare(q=OVERLAP, mhat=real(0.0), prior=PRIOR, channel=CHANNEL)
def free_entropy(
    q: float, mhat: float, alpha: float, prior="gaussian", channel="sign", delta: float = 0.0
) -> float:
    """Replica-symmetric free entropy ``f_RS(q, mhat)`` of the perceptron, before extremisation.

    Parameters
    ----------
    q : float
        Overlap in ``[0, rho]`` (``q < rho`` for the noiseless linear channel, where ``psi_out`` diverges).
    mhat : float
        Conjugate overlap, finite and >= 0.
    alpha : float
        Sample ratio ``n / d`` >= 0.
    prior : {"gaussian", "rademacher"}, optional
        Prior of the teacher.
    channel : {"sign", "probit", "linear"}, optional
        Output channel.
    delta : float, optional
        Label-noise variance.

    Returns
    -------
    float
        ``f_RS(q, mhat)``.

    Raises
    ------
    ValueError
        For an argument outside its domain (named), ``q = rho`` with the noiseless linear channel, or an
        ``alpha`` so large that ``alpha psi_out`` overflows double precision.

    Notes
    -----
    .. math:: f_{RS}(q, \\hat m) = \\psi_w(\\hat m) + \\alpha\\,\\psi_{out}(q) - \\hat m q / 2,

    evaluated as ``[psi_w(mhat) - rho mhat/2] + mhat (rho - q)/2 + alpha psi_out(q)`` so that the terms growing
    like ``mhat`` cancel in closed form (Chapter 1, eq. ``eq-free-entropy``).

    References
    ----------
    Chapter 1, Sec. 'The replica free entropy and state evolution'; Barbier et al., PNAS 116:5451 (2019),
    arXiv:1708.03395.
    """
    P, C = get_prior(prior), get_channel(channel, delta)
    q = check_in_range("q", q, 0.0, P.rho)
    if isinstance(C, LinearChannel) and C.delta == 0 and q == P.rho and alpha > 0:
        raise InvalidParameterError(
            "q must be < rho for the noiseless linear channel (channel='linear', delta=0): "
            "f_RS diverges at q = rho"
        )
    with np.errstate(over="ignore"):
        f = _f_rs(mhat, P.rho - q, alpha, P, C)
    if not math.isfinite(f):
        raise InvalidParameterError(
            f"alpha = {alpha!r} is too large: alpha psi_out overflows double precision at q = {q!r}, "
            f"delta = {C.delta!r}"
        )
    return f


def _error_of_mse(mse, P, C, q=None):
    """The error of an estimate with ``rho - q = mse``: ``mse`` (linear) or ``arctan(sqrt(mse/q))/pi``
    (sign-type; ``= arccos(sqrt(q/rho))/pi`` without its cancellation as ``q -> rho``); elementwise. ``q`` may be
    given where it is known more precisely than ``rho - mse`` (small overlaps)."""
    mse = np.clip(np.asarray(mse, dtype=float), 0.0, P.rho)
    if isinstance(C, LinearChannel):
        return mse
    q = P.rho - mse if q is None else np.clip(np.asarray(q, dtype=float), 0.0, P.rho)
    return np.arctan2(np.sqrt(mse), np.sqrt(q)) / np.pi


def _mhat_of_mse(alpha: float, mse: float, P, C) -> float:
    """``alpha E int dy Z_out g_out^2`` at ``q = rho - mse``, with ``W = mse + delta`` never cancelled or clipped."""
    W = mse + C.delta
    if alpha == 0.0:
        return 0.0
    with np.errstate(over="ignore"):
        if isinstance(C, LinearChannel):
            return alpha / W if W > 0 else math.inf
        if W == 0.0:
            return math.inf
        k = math.sqrt((P.rho - mse) / W)
        return alpha * float(sign_channel_fisher(k)[0]) / W


def _mse_of_mhat(P, mhat: float) -> float:
    """The prior's ``rho - q(mhat)`` (:meth:`~solvable.priors.GaussianPrior.se_mse`), 0 for ``mhat = inf``."""
    if not mhat < math.inf:
        return 0.0
    return float(P.se_mse(mhat))


def _iterate(alpha, P, C, mse0, *, tol, max_iter, damping, warn, what):
    """State evolution in the variable ``log(rho - q)`` on the engine's driver; returns the FixedPoint and the
    MSE of each iterate (floored at ``_MSE_FLOOR``, whose log is the lower bound of the state)."""
    lo, hi = math.log(_MSE_FLOOR), math.log(P.rho)

    def update(x):
        mse = math.exp(float(x[0]))
        new = _mse_of_mhat(P, _mhat_of_mse(alpha, mse, P, C))
        return math.log(min(max(new, _MSE_FLOOR), P.rho))

    x0 = math.log(min(max(mse0, _MSE_FLOOR), P.rho))
    fp = iterate_fixed_point(
        update, [x0], damping=damping, tol=tol, max_iter=max_iter, bounds=(lo, hi), what=what, warn=warn
    )
    return fp, np.exp(fp.states[:, 0])


def _at_floor(mse: float) -> bool:
    return mse <= _MSE_FLOOR * (1.0 + 1e-12)


def _fixed_point(mse: float, alpha: float, P, C) -> tuple[float, float, float]:
    """``(mhat, mse, f_RS)`` at the fixed point reached with MSE ``mse`` (0 for exact recovery)."""
    if mse == 0.0:
        if C.delta == 0 and isinstance(P, RademacherPrior):
            # exact recovery of a binary teacher: mhat = inf, f_RS = -log 2 (sign) or +inf (noiseless linear)
            return math.inf, 0.0, (math.inf if isinstance(C, LinearChannel) else -math.log(2.0))
        if C.delta == 0:  # noiseless linear observations determine a continuous signal: f_RS diverges
            return math.inf, 0.0, math.inf
        mhat = _mhat_of_mse(alpha, 0.0, P, C)
        # psi_reduced -> -H(prior) and mhat mse -> 0 as mse -> 0 (a discrete prior learned exactly)
        return mhat, 0.0, float(-P.entropy + alpha * _psi_out(C, P.rho, 0.0))
    mhat = _mhat_of_mse(alpha, mse, P, C)
    mse_fp = _mse_of_mhat(P, mhat)  # the half step that closes the fixed point
    return mhat, mse_fp, _f_rs(mhat, mse_fp, alpha, P, C)


@declare(prior=PRIOR, channel=CHANNEL, start=OVERLAP)
def se_trajectory(
    alpha: float,
    prior="gaussian",
    channel="sign",
    delta: float = 0.0,
    *,
    iterations: int = 60,
    start: float = Q0_UNINFORMED,
) -> np.ndarray:
    """The first state-evolution overlaps ``q_0 .. q_T`` from ``q_0 = start``, without a convergence test.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d`` >= 0.
    prior : {"gaussian", "rademacher"}, optional
        Prior of the teacher.
    channel : {"sign", "probit", "linear"}, optional
        Output channel.
    delta : float, optional
        Label-noise variance.
    iterations : int, optional
        Number ``T`` of iterations, in ``[1, MAX_TRAJECTORY]``.
    start : float, optional
        The starting overlap ``q_0`` in ``[0, rho]``; the default ``1e-6`` matches GAMP started from
        ``1e-3 N(0, 1)`` (:func:`gamp`'s ``init_scale``).

    Returns
    -------
    numpy.ndarray
        ``(iterations + 1,)`` the overlaps ``q_t``, ``q_0`` first: the prediction for GAMP's overlap after ``t``
        iterations. The error of iterate ``t`` is ``arccos(sqrt(q_t/rho))/pi`` (sign-type) or ``rho - q_t``
        (linear), as in :attr:`~solvable.amp.SEResult.history` of :func:`state_evolution`.

    Raises
    ------
    ValueError
        For an argument outside its domain (named).

    Notes
    -----
    ``mhat_t = alpha E int dy Z_out g_out^2 (q_t)``, ``q_{t+1} = E f_w^2 (mhat_t)`` (Chapter 1,
    eq. ``eq-state-evolution``), iterated on ``log(rho - q_t)`` so that ``rho - q_t`` keeps its relative
    precision as ``q_t -> rho``.

    References
    ----------
    Chapter 1, Sec. 'GAMP in twelve lines'.

    Examples
    --------
    >>> from solvable import glm
    >>> q = glm.se_trajectory(2.0, "gaussian", "sign", iterations=60)
    >>> print(f"q_1 = {q[1]:.4f}, q_60 = {q[-1]:.4f}, fixed point {glm.state_evolution(2.0).overlap:.4f}")
    q_1 = 0.5601, q_60 = 0.7283, fixed point 0.7283
    """
    if iterations > MAX_TRAJECTORY:
        raise InvalidParameterError(f"iterations must be at most {MAX_TRAJECTORY}, got {iterations}")
    P, C = get_prior(prior), get_channel(channel, delta)
    start = check_in_range("start", start, 0.0, P.rho)
    _, mse = _iterate(
        alpha,
        P,
        C,
        P.rho - start,
        tol=0.0,
        max_iter=iterations,
        damping=0.0,
        warn=False,
        what=f"state evolution (alpha = {alpha})",
    )
    q = P.rho - mse
    q[0] = start
    return q


@declare(prior=PRIOR, channel=CHANNEL, tol=GLM_TOL)
def state_evolution(
    alpha: float,
    prior="gaussian",
    channel="sign",
    delta: float = 0.0,
    *,
    tol: float = 1e-12,
    max_iter: int = 20000,
    damping: float = 0.0,
) -> SEResult:
    """Bayes-optimal state-evolution fixed point of the perceptron (GLM).

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d`` >= 0.
    prior : {"gaussian", "rademacher"}, optional
        Prior of the teacher.
    channel : {"sign", "probit", "linear"}, optional
        Output channel.
    delta : float, optional
        Label-noise variance (0 for ``sign``, > 0 for ``probit``, >= 0 for ``linear``).
    tol : float, optional
        Stop when the relative change of ``rho - q_t`` falls below ``tol``, in (0, 1).
    max_iter : int, optional
        Iteration cap (>= 1); reaching it warns (:class:`~solvable.errors.ConvergenceWarning`).
    damping : float, optional
        Damping in [0, 1) of the iterated variable ``log(rho - q)``.

    Returns
    -------
    SEResult
        ``error`` (also ``gen_error``): the Bayes-optimal error at the fixed point reached (classification error
        ``arccos(sqrt(q/rho))/pi`` for sign-type channels, weight MSE ``rho - q`` for the linear channel);
        ``overlap`` ``q``; ``conjugate`` ``mhat`` (``inf`` at exact recovery of a binary teacher, or where
        noiseless linear observations determine a Gaussian teacher); ``free_entropy`` ``f_RS`` there (``-log 2``
        at exact recovery through the sign channel, ``+inf`` where noiseless linear observations determine the
        signal); ``history`` / ``overlap_history``: the error and ``q_t`` of the uninformed iteration (GAMP
        iteration ``t`` <-> ``q_t``); ``branch`` (``"uninformed"`` or ``"informed"``) and ``algorithmic_error``
        (the fixed point reached from ``q_0 ~ 0``, what GAMP attains; larger than ``error`` in the hard phase);
        ``iterations`` / ``converged`` of the uninformed iteration; ``root``: for the Gaussian prior and the
        linear channel, the closed-form fixed point (:func:`solvable.regression.gaussian_linear_mse`), else None.

    Raises
    ------
    ValueError
        For an argument outside its domain (named); or, for a Gaussian teacher, an ``alpha`` so large (about
        ``1e150`` for the sign channel, ``alpha / delta > 1e300`` for the linear one) that ``rho - q`` underflows
        double precision (the error is then below ``1e-150``, given by its asymptote).
    DivergenceError
        If the converged iteration disagrees with the closed form (a bug, not an input error).

    Notes
    -----
    .. math:: \\hat m_t = \\alpha\\, E_\\xi \\int dy\\, Z_{out}\\, g_{out}^2 (q_t),\\qquad
              q_{t+1} = E_\\xi f_w^2(\\hat m_t)

    (Chapter 1, eq. ``eq-state-evolution``), iterated in ``log(rho - q)`` on the engine's driver
    (:func:`solvable.amp.iterate_fixed_point`) from ``q_0 = 1e-6``, so that ``rho - q`` keeps its relative
    precision at large ``alpha`` (where ``1 - q ~ 2 pi / (J alpha)^2`` for the Gaussian prior and the sign
    channel, ``J = int phi^2/(Phi Phi(-u)) du``, and ``alpha eps -> 0.4417``). For the Rademacher prior it is also
    iterated from ``q_0 = 1 - 1e-10`` (the informed branch) and the fixed point with the larger free entropy is
    kept (Chapter 1, Sec. 'The binary perceptron'). An iterate below the smallest normal double counts as exact
    recovery (``q = rho``) for the binary prior.

    References
    ----------
    Chapter 1, Secs. 'The replica free entropy and state evolution' and 'The binary perceptron';
    Barbier et al., PNAS 116:5451 (2019), arXiv:1708.03395; Engel and Van den Broeck, *Statistical Mechanics of
    Learning* (2001), Ch. 2.

    Examples
    --------
    >>> from solvable import glm
    >>> res = glm.state_evolution(2.0, "gaussian", "sign")
    >>> print(f"error {res.error:.4f}, overlap {res.overlap:.4f}, converged {res.converged}")
    error 0.1745, overlap 0.7283, converged True
    >>> print(f"{glm.state_evolution(1.6, 'rademacher', 'sign').error:.4f}")
    0.0000
    """
    P, C = get_prior(prior), get_channel(channel, delta)
    closed_form = isinstance(P, GaussianPrior) and isinstance(C, LinearChannel)
    low, mse_traj = _iterate(
        alpha,
        P,
        C,
        P.rho - Q0_UNINFORMED,
        tol=tol,
        max_iter=max_iter,
        damping=damping,
        warn=True,
        what=f"state evolution (alpha = {alpha}, {P.name}, {C.name})",
    )
    mse_low = float(mse_traj[-1])
    if _at_floor(mse_low):
        if isinstance(P, GaussianPrior) and not (
            isinstance(C, LinearChannel) and C.delta == 0 and alpha >= 1
        ):
            raise InvalidParameterError(
                f"alpha = {alpha!r} is too large for double precision: the fixed point's MSE rho - q "
                f"falls below {_MSE_FLOOR:.1e} (delta = {C.delta!r}); the error there is below 1e-150"
            )
        mse_low = 0.0
        mse_traj = np.where(mse_traj <= _MSE_FLOOR * (1 + 1e-12), 0.0, mse_traj)
    root = None
    if closed_form:
        root = float(gaussian_linear_mse(alpha, C.delta / P.rho) * P.rho)
        if low.converged and abs(mse_low - root) > 1e-6 * max(root, 1e-300) + 1e-14:
            raise DivergenceError(
                f"state evolution converged to rho - q = {mse_low!r}, but the closed-form fixed "
                f"point is {root!r} (alpha = {alpha}, delta = {C.delta})"
            )
    mhat_low, _, f_low = _fixed_point(mse_low, alpha, P, C)
    best = (mse_low, mhat_low, f_low, "uninformed")
    if isinstance(P, RademacherPrior) and alpha > 0:
        _, mse_high_traj = _iterate(
            alpha,
            P,
            C,
            Q0_INFORMED_GAP,
            tol=tol,
            max_iter=max_iter,
            damping=damping,
            warn=True,
            what=f"informed state evolution (alpha = {alpha}, {C.name})",
        )
        mse_high = float(mse_high_traj[-1])
        mse_high = 0.0 if _at_floor(mse_high) else mse_high
        mhat_high, _, f_high = _fixed_point(mse_high, alpha, P, C)
        if f_high > f_low + 1e-12 and mse_high < mse_low - 1e-9:
            best = (mse_high, mhat_high, f_high, "informed")
    mse, mhat, f, branch = best
    mse_traj[0] = P.rho - Q0_UNINFORMED  # the start itself (exp(log(rho - q0)) is rho - q0 to round-off)
    q_traj = P.rho - mse_traj
    q_traj[0] = Q0_UNINFORMED
    return SEResult(
        error=float(_error_of_mse(mse, P, C)),
        overlap=float(P.rho - mse),
        history=_error_of_mse(mse_traj, P, C, q_traj),
        iterations=low.iterations,
        converged=low.converged,
        message=low.message
        if branch == "uninformed"
        else f"{low.message}; the informed branch kept (larger free entropy)",
        conjugate=float(mhat),
        free_entropy=float(f),
        branch=branch,
        algorithmic_error=float(_error_of_mse(mse_low, P, C)),
        overlap_history=q_traj,
        root=root,
    )


@declare(prior=PRIOR, channel=CHANNEL)
def bayes_gen_error(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0) -> float:
    """Bayes-optimal generalisation error of the perceptron at sample ratio ``alpha``.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d`` >= 0.
    prior : {"gaussian", "rademacher"}, optional
        Prior of the teacher.
    channel : {"sign", "probit", "linear"}, optional
        Output channel.
    delta : float, optional
        Label-noise variance.

    Returns
    -------
    float
        Sign-type channels: the classification error ``arccos(sqrt(q/rho))/pi`` of the Bayes-optimal predictor
        (for ``probit``, its disagreement with the noiseless teacher ``sign(z)``), 1/2 at ``alpha = 0``. Linear
        channel: the weight MMSE ``rho - q`` (add ``delta`` for the test MSE of a noisy label), ``rho`` at
        ``alpha = 0``; for the Gaussian prior, the closed form.

    Raises
    ------
    ValueError
        As :func:`state_evolution`.

    Notes
    -----
    ``eps = arccos(sqrt(q/rho))/pi`` at the Bayes-optimal fixed point of :func:`state_evolution` (Chapter 1,
    eq. ``eq-bayes-error``); ``alpha eps -> 0.4417`` as ``alpha -> inf`` for the Gaussian teacher and the sign
    channel.

    References
    ----------
    Chapter 1, Sec. 'The replica free entropy and state evolution'; Barbier et al., arXiv:1708.03395;
    Opper and Haussler, PRL 66:2677 (1991).

    Examples
    --------
    >>> from solvable import glm
    >>> print(f"{glm.bayes_gen_error(2.0):.4f}")
    0.1745
    >>> print(f"{100 * glm.bayes_gen_error(100.0):.4f}")
    0.4416
    """
    P, C = get_prior(prior), get_channel(channel, delta)
    if isinstance(P, GaussianPrior) and isinstance(C, LinearChannel):
        return float(gaussian_linear_mse(alpha, C.delta / P.rho) * P.rho)  # the closed form
    return state_evolution(alpha, prior, channel, delta).error


@declare(prior=PRIOR, channel=CHANNEL)
def gibbs_gen_error(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0) -> float:
    """Generalisation error ``arccos(q/rho)/pi`` of one random posterior sample (Gibbs learning).

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d`` >= 0.
    prior : {"gaussian", "rademacher"}, optional
        Prior of the teacher.
    channel : {"sign", "probit"}, optional
        A sign-type output channel.
    delta : float, optional
        Label-noise variance.

    Returns
    -------
    float
        The Gibbs error in ``[0, 1/2]``.

    Raises
    ------
    ValueError
        For the linear channel (no classification error) or an argument outside its domain.

    Notes
    -----
    Two posterior samples have overlap ``q``, so one of them disagrees with the teacher with probability
    ``arccos(q/rho)/pi`` (Chapter 1, eq. ``eq-gibbs-bayes-ratio``; ``eps_Gibbs / eps_Bayes -> sqrt 2``).

    References
    ----------
    Chapter 1, Sec. 'The replica free entropy and state evolution'; Engel and Van den Broeck (2001), Ch. 2.

    Examples
    --------
    >>> from solvable import glm
    >>> print(f"Gibbs {glm.gibbs_gen_error(2.0):.4f}, Bayes {glm.bayes_gen_error(2.0):.4f}")
    Gibbs 0.2403, Bayes 0.1745
    >>> print(f"{glm.gibbs_gen_error(100.0) / glm.bayes_gen_error(100.0):.3f}")  # -> sqrt(2) as alpha -> inf
    1.414
    """
    C = get_channel(channel, delta)
    if isinstance(C, LinearChannel):
        raise InvalidParameterError("channel must be 'sign' or 'probit' for the Gibbs classification error")
    P = get_prior(prior)
    return gibbs_classification_error(state_evolution(alpha, prior, channel, delta).overlap, P.rho)


#: Round-off allowed on the bounds ``0 <= I <= H(prior)`` of the mutual information before it counts as an error.
_INFO_ROUNDOFF = 1e-10


def _gaussian_linear_information(alpha: float, delta: float) -> float:
    """Closed-form mutual information of a Gaussian teacher through the linear channel (``delta > 0``).

    With ``r = mmse/delta`` (computed as ``2/(b + sqrt(b^2 + 4 delta))/...`` without underflow), ``W = delta (1 +
    r)`` and ``mhat = alpha / W``: ``I = log(1 + mhat)/2 - mhat mmse/2 + alpha log(1 + r)/2``, with
    ``log(1 + mhat) = log(W + alpha) - log W`` and ``mhat mmse = alpha r/(1 + r)``.
    """
    b = delta + alpha - 1.0
    root = math.hypot(b, 2.0 * math.sqrt(delta))
    r = 2.0 / (b + root) if b > 0 else 0.5 * (root - b) / delta  # mmse / delta
    log_w = math.log(delta) + math.log1p(r)
    log_1p_mhat = (
        float(np.logaddexp(log_w, math.log(alpha))) - log_w if alpha > 0 else 0.0
    )  # log(W + alpha) - log W
    return 0.5 * log_1p_mhat - 0.5 * alpha * r / (1.0 + r) + 0.5 * alpha * math.log1p(r)


@declare(prior=PRIOR, channel=CHANNEL)
def mutual_information(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0) -> float:
    """Mutual information per variable ``I(w*; y | X) / d`` between the teacher and the labels.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d`` >= 0.
    prior : {"gaussian", "rademacher"}, optional
        Prior of the teacher.
    channel : {"sign", "probit", "linear"}, optional
        Output channel.
    delta : float, optional
        Label-noise variance.

    Returns
    -------
    float
        ``I / d`` in ``[0, H(prior)]`` (``H = log 2`` for the binary prior; no upper bound for the Gaussian one);
        0 at ``alpha = 0``; ``log 2`` at exact recovery of a binary teacher.

    Raises
    ------
    ValueError
        For a Gaussian teacher seen through the noiseless linear channel at ``alpha > 0`` (infinite information:
        use ``delta > 0``), or as :func:`state_evolution`.
    DivergenceError
        If the evaluation left ``[0, H(prior)]`` by more than round-off (a bug, not an input error).

    Notes
    -----
    .. math:: I/d = -f_{RS} + \\alpha\\, E \\log P_{out}(y | z),

    evaluated as ``-[psi_w(mhat) - rho mhat/2] - mhat (rho - q)/2 + alpha [E log P_out - psi_out(q)]`` at the
    Bayes-optimal fixed point, so that the terms growing with ``alpha`` cancel in closed form; at small ``alpha``
    ``I / d = alpha I_1 + O(alpha^2)`` with ``I_1`` the information of one label. For the Gaussian prior and the
    linear channel it is the closed form ``[log(1 + mhat) - mhat mmse + alpha log(1 + mmse/delta)] / 2``.

    References
    ----------
    Chapter 1, Sec. 'The replica free entropy and state evolution'; Barbier et al., PNAS 116:5451 (2019),
    arXiv:1708.03395, Thm. 1.
    """
    P, C = get_prior(prior), get_channel(channel, delta)
    if alpha == 0:
        return 0.0
    if isinstance(C, LinearChannel) and isinstance(P, GaussianPrior):
        if C.delta == 0:
            raise InvalidParameterError(
                "delta must be > 0 for the mutual information of a Gaussian teacher through the "
                "linear channel: noiseless real-valued observations of a continuous signal carry "
                "infinite information (I = +inf)"
            )
        return float(max(_gaussian_linear_information(alpha / P.rho, C.delta / P.rho), 0.0))
    res = state_evolution(alpha, prior, channel, delta)
    mhat = res.conjugate
    if math.isinf(mhat) or res.overlap == P.rho and isinstance(P, RademacherPrior):
        info = P.entropy  # exact recovery of a discrete teacher: all of its entropy is learned
    else:
        mse = float(P.se_mse(mhat))
        info = float(
            -P.psi_reduced(mhat) - 0.5 * mhat * mse + alpha * _channel_information(C, P.rho, P.rho - mse, mse)
        )
    if not (-_INFO_ROUNDOFF <= info <= P.entropy + _INFO_ROUNDOFF):
        raise DivergenceError(
            f"mutual information {info!r} left [0, H(prior) = {P.entropy}] at alpha = {alpha}, "
            f"prior {P.name!r}, channel {C.name!r}, delta = {C.delta}"
        )
    return float(min(max(info, 0.0), P.entropy))


# --------------------------------------------------------------------------- first-order transition


@record
class Thresholds:
    """Thresholds of the binary perceptron's first-order transition.

    Parameters
    ----------
    alpha_it : float
        Information-theoretic threshold: perfect learning becomes Bayes-optimal.
    alpha_alg : float
        Algorithmic (spinodal) threshold: the uninformed fixed point disappears and GAMP learns perfectly.

    Notes
    -----
    Unpacks as a pair: ``alpha_it, alpha_alg = perfect_learning_thresholds()``.

    References
    ----------
    Chapter 1, Sec. 'The binary perceptron'.
    """

    alpha_it: float
    alpha_alg: float

    def __post_init__(self):
        """Freeze the record (its arrays become read-only)."""

    def __iter__(self):
        return iter((self.alpha_it, self.alpha_alg))

    def __len__(self) -> int:
        return 2


@record
class BranchCurve:
    """Fixed points of state evolution parametrised by their overlap.

    Parameters
    ----------
    q : numpy.ndarray
        The overlaps.
    alpha : numpy.ndarray
        The sample ratio at which each ``q`` is a fixed point.
    free_entropy : numpy.ndarray
        ``f_RS`` at each fixed point.
    stable : numpy.ndarray
        Boolean mask of the branch that state evolution from ``q_0 ~ 0`` reaches.

    References
    ----------
    Chapter 1, Sec. 'The binary perceptron'.
    """

    q: np.ndarray
    alpha: np.ndarray
    free_entropy: np.ndarray
    stable: np.ndarray

    def __post_init__(self):
        """Freeze the record (its arrays become read-only)."""


def _branch_alpha(q: float, P, C) -> float:
    # q is a fixed point at alpha iff alpha * se_mhat_factor(q) = mhat*(q), with mhat*(q) the prior's inverse.
    return P.mhat_of_overlap(q) / float(C.se_mhat_factor(q, P.rho))


def _branch_free_entropy(q: float, P, C) -> float:
    mhat = P.mhat_of_overlap(q)
    alpha = mhat / float(C.se_mhat_factor(q, P.rho))
    return float(P.psi(mhat) + alpha * C.psi_out(q, P.rho) - 0.5 * mhat * q)


def _check_transition_model(prior, channel):
    P, C = get_prior(prior), get_channel(channel)
    if not (isinstance(P, RademacherPrior) and isinstance(C, SignChannel) and C.delta == 0):
        raise InvalidParameterError(
            "perfect learning at finite alpha needs a discrete prior and a noiseless channel: "
            f"prior must be 'rademacher' and channel 'sign', got prior={prior!r}, channel={channel!r}"
        )
    return P, C


def _spinodal(P, C) -> tuple[float, float]:
    grid = np.linspace(0.02, 0.98, 49)
    alphas = np.array([_branch_alpha(q, P, C) for q in grid])
    i = int(np.argmax(alphas))
    res = minimize_scalar(
        lambda q: -_branch_alpha(q, P, C),
        bounds=(grid[max(i - 1, 0)], grid[min(i + 1, 48)]),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return float(res.x), float(-res.fun)


@declare(prior=PRIOR, channel=CHANNEL)
def perfect_learning_thresholds(prior="rademacher", channel="sign") -> Thresholds:
    """Thresholds ``(alpha_IT, alpha_alg)`` of the binary perceptron's first-order transition.

    Parameters
    ----------
    prior : {"rademacher"}, optional
        Prior of the teacher (a discrete one: perfect learning at finite ``alpha``).
    channel : {"sign"}, optional
        Output channel (noiseless).

    Returns
    -------
    Thresholds
        ``alpha_it`` = 1.2447 and ``alpha_alg`` = 1.4926.

    Raises
    ------
    ValueError
        For another prior or channel.

    Notes
    -----
    Every fixed point ``q`` of state evolution lies on the curve ``alpha(q) = mhat*(q) / se_mhat_factor(q)``
    (``mhat*`` inverts the prior's overlap map). The uninformed branch ends at the maximum of ``alpha(q)``, the
    spinodal ``alpha_alg``; ``alpha_IT`` is where that branch's free entropy crosses the informed branch's
    ``f_RS = -log 2`` (root in ``q`` below the spinodal).

    References
    ----------
    Chapter 1, Sec. 'The binary perceptron'; Gyorgyi, PRA 41:7097 (1990); Barbier et al., arXiv:1708.03395.

    Examples
    --------
    >>> from solvable import glm
    >>> th = glm.perfect_learning_thresholds("rademacher", "sign")
    >>> print(f"alpha_IT = {th.alpha_it:.4f}, alpha_alg = {th.alpha_alg:.4f}")
    alpha_IT = 1.2447, alpha_alg = 1.4926
    """
    P, C = _check_transition_model(prior, channel)
    q_sp, alpha_alg = _spinodal(P, C)
    q_it = brentq(lambda q: _branch_free_entropy(q, P, C) + math.log(2.0), 1e-3, q_sp, xtol=1e-13)
    return Thresholds(alpha_it=float(_branch_alpha(q_it, P, C)), alpha_alg=alpha_alg)


@declare(prior=PRIOR, channel=CHANNEL, q=optional(array(1), "200 overlaps in (0, 0.995)"))
def branch_curve(prior="rademacher", channel="sign", delta: float = 0.0, q=None) -> BranchCurve:
    """Fixed points of state evolution as a curve in ``(alpha, f_RS)``, parametrised by the overlap ``q``.

    Parameters
    ----------
    prior : {"gaussian", "rademacher"}, optional
        Prior of the teacher.
    channel : {"sign", "probit", "linear"}, optional
        Output channel.
    delta : float, optional
        Label-noise variance.
    q : array_like, optional
        Non-empty 1-d array of overlaps in ``[0, rho)``; default 200 points in ``(0, 0.995)``.

    Returns
    -------
    BranchCurve
        ``alpha(q)``, ``f_RS`` there and the mask of the stable (uninformed) part.

    Raises
    ------
    ValueError
        For a malformed ``q`` or model.

    Notes
    -----
    ``alpha(q) = mhat*(q) / se_mhat_factor(q)``: the state-evolution fixed points of every ``alpha`` at once,
    including the unstable part of the branch beyond the spinodal (Chapter 1, eq. ``eq-state-evolution``).

    References
    ----------
    Chapter 1, Sec. 'The binary perceptron'.

    Examples
    --------
    >>> from solvable import glm
    >>> branch = glm.branch_curve("rademacher", "sign")
    >>> print(f"alpha_alg = {branch.alpha.max():.3f}, stable points {branch.stable.sum()} of {branch.q.size}")
    alpha_alg = 1.493, stable points 180 of 200
    """
    P, C = get_prior(prior), get_channel(channel, delta)
    if q is None:
        q = np.linspace(0.005, 0.995, 200)
    else:
        try:
            q = np.asarray(q, dtype=float)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"q must be a 1-d array of overlaps in [0, rho), got {q!r}") from None
        if q.ndim != 1 or q.size == 0 or not np.all(np.isfinite(q)) or np.any(q < 0) or np.any(q >= P.rho):
            raise InvalidParameterError(
                f"q must be a non-empty 1-d array of finite overlaps in [0, {P.rho}), got {q!r}"
            )
    alphas = np.array([_branch_alpha(x, P, C) for x in q])
    fs = np.array([_branch_free_entropy(x, P, C) for x in q])
    stable = np.zeros(q.shape, dtype=bool)
    peak = int(np.argmax(alphas))
    stable[: peak + 1] = True
    stable &= np.concatenate([[True], np.diff(alphas) > 0])
    return BranchCurve(q=q, alpha=alphas, free_entropy=fs, stable=stable)


# --------------------------------------------------------------------------- GAMP


@declare(
    data=instance(Dataset),
    prior=optional(PRIOR, "the data set's"),
    channel=optional(CHANNEL, "the data set's"),
    delta=optional(real(0.0), "the data set's"),
    variance=choice("exact", "uniform"),
    init_scale=real(0.0),
    rng=seed("init"),
)
def gamp(
    data: Dataset,
    *,
    prior=None,
    channel=None,
    delta=None,
    damping: float = 0.0,
    tol: float = GAMP_TOL,
    max_iter: int = GAMP_MAX_ITER,
    variance: str = "exact",
    init_scale: float = 1e-3,
    warn: bool = True,
    rng,
) -> GAMPResult:
    """Bayes-optimal GAMP on a perceptron data set.

    Parameters
    ----------
    data : Dataset
        A data set from :func:`sample` (or built as :class:`Dataset`).
    prior : {"gaussian", "rademacher"}, optional
        Prior the student assumes; default the data set's (a different one runs a mismatched GAMP).
    channel : {"sign", "probit", "linear"}, optional
        Channel the student assumes; default the data set's.
    delta : float, optional
        Noise variance the student assumes; default the data set's.
    damping : float, optional
        Damping in [0, 1) of the estimate (:func:`solvable.amp.run_gamp`).
    tol : float, optional
        Stop when the relative change of the estimate ``||w_t - w_{t-1}|| / ||w_t||`` falls below ``tol``, in
        [0, 1); ``tol = 0`` runs exactly ``max_iter`` iterations (to compare with state evolution iteration by
        iteration). Default ``1e-4``: the error then moves by less than about ``1e-4`` per further iteration, far
        below its finite-size fluctuations ``O(1/sqrt(d))`` at every size the book uses (``d <= 10^4``), and a run
        at ``d = 1000`` stops within about 80 iterations.
    max_iter : int, optional
        Iteration cap (>= 1), default 100: away from a spinodal GAMP reaches ``tol = 1e-4`` in 10-80 iterations;
        reaching the cap warns (:class:`~solvable.errors.ConvergenceWarning`).
    variance : {"exact", "uniform"}, optional
        Variance propagation of :class:`solvable.amp.DenseLinearMap`.
    init_scale : float, optional
        ``w_0 = init_scale N(0, 1)``, overlap ``q_0 ~ init_scale^2`` (the start of :func:`se_trajectory`).
    warn : bool, optional
        Whether reaching ``max_iter`` warns.
    rng : numpy.random.Generator, int, numpy.random.SeedSequence or numpy.random.BitGenerator
        Source of the initial estimate (keyword-only).

    Returns
    -------
    GAMPResult
        ``estimate``, ``variance``; ``history``: the error against the teacher after each iteration (angle
        error ``arccos(cos(w_hat, w*))/pi`` for sign-type channels, ``|w_hat - w*|^2/d`` for the linear channel;
        ``error`` is its last value, to compare with :attr:`~solvable.amp.SEResult.history` ``[1:]``);
        ``overlap`` and ``norm``: ``m_t = w_hat.w*/d`` and ``Q_t = |w_hat|^2/d`` (state evolution predicts
        ``m_t ~ Q_t ~ q_t``); ``iterations``, ``converged``.

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`Dataset` or ``rng`` has a wrong type.
    ValueError
        For a bad control (named).
    DivergenceError
        If an iteration produces non-finite numbers.

    Notes
    -----
    One iteration (Chapter 1, eq. ``eq-gamp``): ``V = F^2 c``, ``omega = F w - V g``, ``g = g_out(y, omega, V)``,
    ``A = -(F^2)^T dg``, ``B = F^T g + A w``, ``(w, c) = (f_w, c_w)(A, B)``, with ``F = X/sqrt(d)``; started from
    ``c_0 = rho``, ``g = 0``.

    References
    ----------
    Chapter 1, Sec. 'GAMP in twelve lines'; Rangan, arXiv:1010.5141; Barbier et al., arXiv:1708.03395.

    Examples
    --------
    >>> from solvable import glm
    >>> from solvable.metrics import angle_error
    >>> data = glm.sample(1000, 2.0, rng=1)
    >>> res = glm.gamp(data, rng=2)
    >>> print(f"GAMP {angle_error(res.estimate, data.w_star):.2f}, theory {glm.bayes_gen_error(2.0):.2f}")
    GAMP 0.18, theory 0.17
    """
    P = get_prior(data.prior if prior is None else prior)
    C = get_channel(data.channel if channel is None else channel, data.delta if delta is None else delta)
    w_star = np.asarray(data.w_star)
    d = data.d
    w0 = init_scale * rng.standard_normal(d)
    linear = isinstance(C, LinearChannel)

    def monitor(w):
        m, Q = float(w @ w_star) / d, float(w @ w) / d
        err = float(np.mean((w - w_star) ** 2)) if linear else angle_error(w, w_star)
        return err, m, Q

    return run_gamp(
        DenseLinearMap(data.X, variance=variance),
        C,
        P,
        data.y,
        w0,
        np.full(d, P.rho),
        damping=damping,
        tol=tol,
        max_iter=max_iter,
        monitor=monitor,
        warn=warn,
    )


@declare(X=array(2), y=array(1), w0=array(1), prior=PRIOR, channel=CHANNEL)
def gamp_iterates(
    X, y, w0, iterations: int, *, prior="gaussian", channel="sign", delta: float = 0.0
) -> np.ndarray:
    """The undamped GAMP iterates ``w_0 .. w_T`` from a given start, to compare an implementation step by step.

    Parameters
    ----------
    X : array_like
        Inputs ``(n, d)``, one sample per row.
    y : array_like
        Labels ``(n,)``.
    w0 : array_like
        The start ``(d,)``; the start of the variances is the prior's ``rho`` and ``g = 0``.
    iterations : int
        Number ``T`` of iterations (>= 1), run without a convergence test.
    prior : {"gaussian", "rademacher"}, optional
        The student's prior.
    channel : {"sign", "probit", "linear"}, optional
        The student's channel.
    delta : float, optional
        The channel's noise variance.

    Returns
    -------
    numpy.ndarray
        ``(T + 1, d)``: row ``t`` is the estimate after ``t`` iterations, row 0 is ``w0``.

    Raises
    ------
    ValueError
        For a malformed input (named), or if the posterior collapses onto a point before ``T`` iterations
        (a binary teacher recovered exactly: the loop stops there, see :func:`solvable.amp.run_gamp`).

    Notes
    -----
    The loop of :func:`gamp` (Chapter 1, eq. ``eq-gamp``), without damping and with the exact variances.

    References
    ----------
    Chapter 1, exercise 'Build it yourself: GAMP for binary weights'.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import glm
    >>> data = glm.sample(500, 2.0, rng=0)
    >>> w0 = 1e-3 * np.random.default_rng(1).standard_normal(500)  # the start glm.gamp draws from
    >>> w = glm.gamp_iterates(data.X, data.y, w0, 20)  # the same generator
    >>> res = glm.gamp(data, max_iter=20, tol=0, rng=np.random.default_rng(1))
    >>> print(w.shape, np.allclose(w[-1], res.estimate, rtol=0, atol=1e-10))
    (21, 500) True
    """
    w0 = np.array(w0)
    if y.shape != (X.shape[0],) or w0.shape != (X.shape[1],):
        raise InvalidParameterError(
            f"X must be (n, d), y (n,) and w0 (d,), got shapes {X.shape}, {y.shape} and {w0.shape}"
        )
    P, C = get_prior(prior), get_channel(channel, delta)
    kept = [w0.copy()]

    def keep(w):
        kept.append(np.array(w, dtype=float))
        return 0.0

    run_gamp(
        DenseLinearMap(X),
        C,
        P,
        y,
        w0,
        np.full(X.shape[1], P.rho),
        tol=0.0,
        max_iter=iterations,
        monitor=keep,
        warn=False,
    )
    if len(kept) != iterations + 1:
        raise ValueError(f"the posterior collapsed after {len(kept) - 1} of {iterations} iterations")
    return np.array(kept)


@declare(alpha=SAMPLE_ALPHA, prior=PRIOR, channel=CHANNEL)
def gamp_gen_error(
    d: int, alpha: float, *, prior="gaussian", channel="sign", delta: float = 0.0, rng, **gamp_kwargs
) -> float:
    """Final error of GAMP on one freshly drawn data set: one finite-size experiment.

    Parameters
    ----------
    d : int
        Dimension.
    alpha : float
        Sample ratio ``n / d`` > 0.
    prior : {"gaussian", "rademacher"}, optional
        Prior of the teacher.
    channel : {"sign", "probit", "linear"}, optional
        Output channel.
    delta : float, optional
        Label-noise variance.
    rng : numpy.random.Generator, int, numpy.random.SeedSequence or numpy.random.BitGenerator
        Draws the data set, then GAMP's start (keyword-only).
    **gamp_kwargs
        Controls of :func:`gamp` (``damping``, ``tol``, ``max_iter``, ``variance``, ``init_scale``, ``warn``).

    Returns
    -------
    float
        The final error (angle error for sign-type channels, weight MSE for the linear channel).

    Raises
    ------
    TypeError, ValueError
        As :func:`sample` and :func:`gamp`.

    Notes
    -----
    Fluctuates around :func:`state_evolution`'s ``algorithmic_error`` by ``O(1/sqrt(d))``.

    References
    ----------
    Chapter 1, Sec. 'The algorithm: GAMP follows state evolution'.

    Examples
    --------
    >>> from solvable import glm
    >>> err = glm.gamp_gen_error(200, 2.0, rng=1)
    >>> print(f"GAMP {err:.2f}, theory {glm.state_evolution(2.0).algorithmic_error:.2f}")
    GAMP 0.17, theory 0.17
    """
    data = sample(d, alpha, prior=prior, channel=channel, delta=delta, rng=rng)
    return gamp(data, rng=rng, **gamp_kwargs).error
