"""Output channels ``P_out(y | z)``: what message passing and state evolution need from them.

A channel enters through ``Z_out(y, omega, V) = E_xi P_out(y | omega + sqrt(V) xi)``:

- ``g_out(y, omega, V)`` returns ``g = d_omega log Z_out`` and its derivative ``dg = d_omega g``;
- ``se_mhat_factor(q, rho)`` is ``E_xi int dy Z_out g_out^2`` at ``omega = sqrt(q) xi``, ``V = rho - q``
  (the state evolution is ``mhat = alpha * se_mhat_factor(q, rho)``);
- ``psi_out(q, rho)`` is ``E_xi int dy Z_out log Z_out`` (the channel part of the replica free entropy;
  ``2 alpha d_q psi_out = mhat``);
- ``sample(z, rng)`` draws labels.

Channels: ``sign`` (``y = sign z``), ``probit`` (``y = sign(z + sqrt(delta) xi)``) and ``linear``
(``y = z + sqrt(delta) xi``). Equations: Chapter 1, Sec. 'The building blocks' (eqs. ``eq-channel-probit``,
``eq-channel-linear``, ``eq-gout``); Barbier et al.,
PNAS 116:5451 (2019), arXiv:1708.03395; Rangan, arXiv:1010.5141.
"""

from __future__ import annotations


import numpy as np
import math

from scipy.special import log_ndtr, ndtr, owens_t

from .domains import Domain, array, choice, declare, flag, integer
from .errors import InvalidParameterError
from .integration import (
    DEFAULT_HERMITE_NODES,
    DEFAULT_LEGENDRE_NODES,
    U_MAX,
    _hermite_rule,
    _legendre_rule,
    _log_phi_pdf,
    _mills_ratio,
    _sign_channel_fisher,
)
from .results import record
from .validation import check_choice, check_rng, check_size

__all__ = [
    "SignChannel",
    "LinearChannel",
    "CHANNELS",
    "get_channel",
    "row_softmax",
    "row_hardmax",
    "index_weights",
    "pack_indices",
    "unpack_indices",
    "SoftmaxChannel",
    "HardmaxChannel",
]

# Smallest variance kept away from zero: q is clipped to [Q_EPS, rho - Q_EPS].
Q_EPS = 1e-14
# GAMP floors the output variance V + delta at VAR_FLOOR: once a discrete signal is recovered exactly the
# denoiser's variances underflow to 0 and g_out would be 0/0; at this floor the estimate is already exact.
VAR_FLOOR = 1e-12


def _check_preactivations(z) -> np.ndarray:
    z = np.asarray(z, dtype=float)
    if not np.all(np.isfinite(z)):
        raise InvalidParameterError("z (the preactivations) must contain finite numbers only")
    return z


def _Phi_log_Phi_expectation(k) -> np.ndarray:
    """``E_xi[Phi(k xi) log Phi(k xi)]`` vectorised over ``k >= 0`` (``u = k xi`` for ``k >= 1``)."""
    k = np.atleast_1d(np.asarray(k, dtype=float))
    out = np.empty_like(k)
    small = k < 1.0
    if np.any(small):
        x, w = _hermite_rule(DEFAULT_HERMITE_NODES)
        lp = log_ndtr(np.outer(k[small], x))
        out[small] = (np.exp(lp) * lp) @ w
    if np.any(~small):
        u, w = _legendre_rule(DEFAULT_LEGENDRE_NODES, U_MAX)
        lp = log_ndtr(u)
        kk = k[~small][:, None]
        out[~small] = (np.exp(_log_phi_pdf(u / kk)) / kk * (np.exp(lp) * lp)[None, :]) @ w
    return out


@record
class SignChannel:
    r"""Sign channel ``y = sign(z + sqrt(delta) xi)``: noiseless sign for ``delta = 0``, probit otherwise.

    Parameters
    ----------
    delta : float, optional
        Noise variance ``>= 0``.
    name : str, optional
        ``"sign"`` or ``"probit"``.

    Raises
    ------
    ValueError
        For a ``delta`` that is negative or not finite.

    Notes
    -----
    ``Z_out = Phi(y omega / sqrt(V + delta))``; with ``u = y omega / sqrt(V + delta)`` and ``r = phi(u) / Phi(u)``:
    ``g_out = y r / sqrt(V + delta)``, ``dg = -(u r + r^2) / (V + delta)``. State evolution with ``W = rho - q + delta``
    and ``k = sqrt(q / W)``: ``se_mhat_factor = I(k) / W`` (:func:`solvable.integration.sign_channel_fisher`) and
    ``psi_out = 2 E_xi[Phi(k xi) log Phi(k xi)]`` (Chapter 1, eqs. ``eq-channel-probit``, ``eq-gout``).

    References
    ----------
    Chapter 1, Sec. 'The building blocks'; Barbier et al., arXiv:1708.03395.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import channels
    >>> ch = channels.SignChannel()
    >>> print(ch.sample(np.array([-0.5, 0.0, 2.0]), rng=0))
    [-1.  1.  1.]
    >>> g, dg = ch.g_out(np.array([1.0, -1.0]), np.zeros(2), 1.0)  # omega = 0, V = 1: +-sqrt(2/pi), -2/pi
    >>> print(g.round(4), dg.round(4))
    [ 0.7979 -0.7979] [-0.6366 -0.6366]
    """

    delta: float = 0.0
    name: str = "sign"

    def sample(self, z, rng: np.random.Generator) -> np.ndarray:
        r"""Labels ``sign(z + sqrt(delta) xi)`` in ``{-1, +1}``.

        Parameters
        ----------
        z : array_like
            Preactivations (finite).
        rng : numpy.random.Generator, int, numpy.random.SeedSequence or numpy.random.BitGenerator
            Source of the label noise.

        Returns
        -------
        numpy.ndarray
            The labels.

        Raises
        ------
        ValueError
            For non-finite preactivations.
        """
        z = _check_preactivations(z)
        rng = check_rng(rng)
        if self.delta > 0:
            z = z + np.sqrt(self.delta) * rng.standard_normal(z.shape)
        return np.where(z >= 0, 1.0, -1.0)

    def g_out(self, y, omega, V):
        r"""Output function ``(g_out, d_omega g_out)`` at each sample.

        Parameters
        ----------
        y : numpy.ndarray
            Labels.
        omega : numpy.ndarray
            Means of the preactivations.
        V : float or numpy.ndarray
            Their variances.

        Returns
        -------
        tuple
            ``(g, dg)``: ``g = d_omega log Z_out(y, omega, V)`` and ``dg = d_omega g``, elementwise.

        Notes
        -----
        Chapter 1, eq. ``eq-gout``; the variance ``V + delta`` is floored at ``VAR_FLOOR``.
        """
        W = np.maximum(V + self.delta, VAR_FLOOR)
        s = np.sqrt(W)
        u = y * omega / s
        r = _mills_ratio(u)
        return y * r / s, -(u * r + r * r) / W

    def se_mhat_factor(self, q, rho: float = 1.0):
        r"""State-evolution factor ``E_xi sum_y Z_out g_out^2 = I(k) / (rho - q + delta)``.

        Parameters
        ----------
        q : float or array_like
            Overlap(s), clipped to ``[Q_EPS, rho - Q_EPS]``.
        rho : float, optional
            Teacher's second moment.

        Returns
        -------
        numpy.ndarray
            The factor (``mhat = alpha`` times it).

        Notes
        -----
        ``k = sqrt(q / (rho - q + delta))`` (Chapter 1, eq. ``eq-state-evolution``).
        """
        q = np.clip(np.asarray(q, dtype=float), Q_EPS, rho - Q_EPS)
        W = rho - q + self.delta
        return _sign_channel_fisher(np.sqrt(q / W)).reshape(q.shape) / W

    def psi_out(self, q, rho: float = 1.0):
        r"""Channel part of the free entropy, ``psi_out(q) = 2 E_xi[Phi(k xi) log Phi(k xi)]``.

        Parameters
        ----------
        q : float or array_like
            Overlap(s), clipped to ``[Q_EPS, rho - Q_EPS]``.
        rho : float, optional
            Teacher's second moment.

        Returns
        -------
        numpy.ndarray
            ``psi_out``.

        Notes
        -----
        ``k = sqrt(q / (rho - q + delta))`` (Chapter 1, eq. ``eq-free-entropy``).
        """
        q = np.clip(np.asarray(q, dtype=float), Q_EPS, rho - Q_EPS)
        W = rho - q + self.delta
        return 2.0 * _Phi_log_Phi_expectation(np.sqrt(q / W)).reshape(q.shape)

    def mean_log_likelihood(self, rho: float = 1.0) -> float:
        r"""Mean log-likelihood ``E log P_out(y | z)`` over ``z ~ N(0, rho)``.

        Parameters
        ----------
        rho : float, optional
            Teacher's second moment.

        Returns
        -------
        float
            0 for the sign channel, ``2 E[Phi(k xi) log Phi(k xi)]``, ``k = sqrt(rho / delta)``, for the probit channel.

        Notes
        -----
        Enters the mutual information ``I/d = -f_RS + alpha E log P_out``.
        """
        if self.delta == 0:
            return 0.0
        return float(2.0 * _Phi_log_Phi_expectation(np.sqrt(rho / self.delta))[0])


@record
class LinearChannel:
    r"""Noisy linear channel ``y = z + sqrt(delta) xi``.

    Parameters
    ----------
    delta : float, optional
        Noise variance ``>= 0``.
    name : str, optional
        The channel's name, ``"linear"``.
    residual_floor : bool, optional
        Replace ``V + delta`` by ``W = max(V + delta, mean((y - omega)^2))`` in ``g_out`` and ``dg`` (see Notes).

    Raises
    ------
    TypeError
        If ``residual_floor`` is not a boolean.
    ValueError
        For a ``delta`` that is negative or not finite.

    Notes
    -----
    ``g_out = (y - omega) / (V + delta)``, ``dg = -1 / (V + delta)``; ``se_mhat_factor = 1 / (rho - q + delta)``;
    ``psi_out = -log(2 pi (rho - q + delta))/2 - 1/2`` (Chapter 1, eq. ``eq-channel-linear``).

    ``residual_floor=True``: in GAMP the predicted output variance ``V + delta`` is the variance of the residual
    ``y - omega`` whenever state evolution holds (the Nishimori identity), so the floor is inactive in the large-size
    limit. At finite size, when a matrix denoiser's actual error lags behind its asymptotic MMSE, a ``V`` below the
    observed residual makes the Onsager-corrected loop unstable; the floor never lets the loop trust a precision larger
    than the residuals show, and unlike the empirical precision ``A ~ mean(g^2)`` it has no false fixed point with ``V``
    above the error.

    References
    ----------
    Chapter 1, Sec. 'The building blocks'; Chapter 3, GAMP-RIE; Rangan, arXiv:1010.5141.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import channels
    >>> ch = channels.LinearChannel(delta=0.1)
    >>> g, dg = ch.g_out(np.array([1.0]), np.array([0.5]), 0.4)  # (y - omega)/(V + delta), -1/(V + delta)
    >>> print(g.round(4), dg.round(4))
    [1.] [-2.]
    >>> print(round(float(ch.se_mhat_factor(0.5)), 4))  # 1/(rho - q + delta) at q = 0.5
    1.6667
    """

    delta: float = 0.0
    name: str = "linear"
    residual_floor: bool = False

    def sample(self, z, rng: np.random.Generator) -> np.ndarray:
        r"""Labels ``z + sqrt(delta) xi``.

        Parameters
        ----------
        z : array_like
            Preactivations (finite).
        rng : numpy.random.Generator, int, numpy.random.SeedSequence or numpy.random.BitGenerator
            Source of the label noise.

        Returns
        -------
        numpy.ndarray
            The labels.

        Raises
        ------
        ValueError
            For non-finite preactivations.
        """
        z = _check_preactivations(z)
        rng = check_rng(rng)
        if self.delta > 0:
            z = z + np.sqrt(self.delta) * rng.standard_normal(z.shape)
        return z.copy()

    def g_out(self, y, omega, V):
        r"""Output function ``(g_out, d_omega g_out)`` at each sample.

        Parameters
        ----------
        y : numpy.ndarray
            Labels.
        omega : numpy.ndarray
            Means of the preactivations.
        V : float or numpy.ndarray
            Their variances.

        Returns
        -------
        tuple
            ``(g, dg)``: ``g = d_omega log Z_out(y, omega, V)`` and ``dg = d_omega g``, elementwise.

        Notes
        -----
        ``g = (y - omega)/W``, ``dg = -1/W``, ``W = max(V + delta, VAR_FLOOR)`` (and the residual floor if set).
        """
        W = np.maximum(V + self.delta, VAR_FLOOR)
        if self.residual_floor:
            W = np.maximum(W, float(np.mean((np.asarray(y) - omega) ** 2)))
        return (y - omega) / W, np.broadcast_to(-1.0 / W, np.shape(omega))

    def se_mhat_factor(self, q, rho: float = 1.0):
        r"""State-evolution factor ``1 / (rho - q + delta)``.

        Parameters
        ----------
        q : float or array_like
            Overlap(s), clipped to ``[0, rho - Q_EPS]``.
        rho : float, optional
            Teacher's second moment.

        Returns
        -------
        numpy.ndarray
            The factor (``mhat = alpha`` times it).

        Notes
        -----
        Chapter 1, eq. ``eq-state-evolution``.
        """
        q = np.clip(np.asarray(q, dtype=float), 0.0, rho - Q_EPS)
        return 1.0 / (rho - q + self.delta)

    def psi_out(self, q, rho: float = 1.0):
        r"""Channel part of the free entropy, ``-log(2 pi (rho - q + delta)) / 2 - 1/2``.

        Parameters
        ----------
        q : float or array_like
            Overlap(s), clipped to ``[0, rho - Q_EPS]``.
        rho : float, optional
            Teacher's second moment.

        Returns
        -------
        numpy.ndarray
            ``psi_out``.

        Notes
        -----
        Chapter 1, eq. ``eq-free-entropy``.
        """
        q = np.clip(np.asarray(q, dtype=float), 0.0, rho - Q_EPS)
        return -0.5 * np.log(2.0 * np.pi * (rho - q + self.delta)) - 0.5

    def mean_log_likelihood(self, rho: float = 1.0) -> float:
        r"""Mean log-density of the label, ``E log P_out(y | z) = -log(2 pi delta)/2 - 1/2``.

        Parameters
        ----------
        rho : float, optional
            Teacher's second moment.

        Returns
        -------
        float
            The value; ``+inf`` without noise (a noiseless continuous observation carries infinite information).

        Notes
        -----
        Enters the mutual information ``I/d = -f_RS + alpha E log P_out``.
        """
        if self.delta == 0:
            return np.inf
        return float(-0.5 * np.log(2.0 * np.pi * self.delta) - 0.5)


SignChannel.__init__ = declare(name=choice("sign", "probit"))(SignChannel.__init__)
LinearChannel.__init__ = declare(name=choice("linear"), residual_floor=flag())(LinearChannel.__init__)

#: Names accepted by :func:`get_channel`.
CHANNELS = ("sign", "probit", "linear")


def _check_channel(name, value):
    if isinstance(value, (SignChannel, LinearChannel)):
        return value
    return check_choice(name, value, CHANNELS)


#: The domain of a channel argument: a name in :data:`CHANNELS` (case-insensitive) or a channel object.
CHANNEL = Domain(
    "one of " + ", ".join(map(repr, CHANNELS)) + ", or a channel object",
    _check_channel,
    "choice",
    options=CHANNELS,
)


@declare(channel=CHANNEL)
def get_channel(channel, delta: float = 0.0) -> SignChannel | LinearChannel:
    r"""Channel object for a name in ``CHANNELS`` and a label-noise variance ``delta``.

    Parameters
    ----------
    channel : str or SignChannel or LinearChannel
        ``"sign"``, ``"probit"`` or ``"linear"``, or a channel object (returned as is).
    delta : float, optional
        Label-noise variance: 0 for ``sign``, ``> 0`` for ``probit``, ``>= 0`` for ``linear``.

    Returns
    -------
    SignChannel or LinearChannel
        The channel.

    Raises
    ------
    ValueError
        For an unknown name, or a ``delta`` that does not fit the channel (the message names it).

    References
    ----------
    Chapter 1, Sec. 'The building blocks'.
    """
    if isinstance(channel, (SignChannel, LinearChannel)):
        return channel
    if channel == "sign":
        if delta != 0:
            raise InvalidParameterError(
                f"delta must be 0 for channel 'sign' (use channel='probit' for a noisy sign), got {delta!r}"
            )
        return SignChannel()
    if channel == "probit":
        if delta == 0:
            raise InvalidParameterError(
                "delta must be a number > 0 for channel 'probit' (channel='sign' is the "
                f"noiseless sign), got {delta!r}"
            )
        return SignChannel(delta=delta, name="probit")
    return LinearChannel(delta=delta)


# =========================================================================== attention channels
# The output channels of the attention-indexed model (Chapter 5; Troiani et al.,
# arXiv:2506.01582): a row-wise softmax or hardmax of the T x T attention indices, which enter GAMP packed
# as the P = T(T+1)/2 pairs a <= b in ``tau`` units (tau_ab = sqrt(2) off the diagonal, 1 on it).


#: The domains of the attention channels' parameters: a sequence length (the hardmax channel's is 2), logits.
TOKENS = integer(2)
LOGITS = array()


@declare(h=LOGITS)
def row_softmax(h):
    r"""Softmax along the last axis.

    Parameters
    ----------
    h : array_like
        Finite logits, at least one axis.

    Returns
    -------
    numpy.ndarray
        ``exp(h) / sum exp(h)`` row by row (the row maximum is subtracted first).

    Raises
    ------
    TypeError, ValueError
        For non-numeric or zero-dimensional input.

    References
    ----------
    Chapter 5; Troiani et al., arXiv:2506.01582.

    Examples
    --------
    Rows sum to 1, and large logits do not overflow:

    >>> import numpy as np
    >>> from solvable import channels
    >>> p = channels.row_softmax(np.array([[0.0, 0.0], [0.0, np.log(3.0)], [1000.0, 1000.0]]))
    >>> print(p.round(4), p.sum(axis=1).round(4))
    [[0.5  0.5 ]
     [0.25 0.75]
     [0.5  0.5 ]] [1. 1. 1.]
    """
    if h.ndim < 1:
        raise InvalidParameterError(f"h must have at least one axis, got shape {h.shape}")
    e = np.exp(h - np.max(h, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


@declare(h=array(finite=False))
def row_hardmax(h):
    r"""One-hot rows at the argmax of the last axis.

    Parameters
    ----------
    h : array_like
        Logits without NaN, at least one axis.

    Returns
    -------
    numpy.ndarray
        One-hot rows (ties, of probability zero, go to the first index).

    Raises
    ------
    TypeError, ValueError
        For non-numeric input, NaN, or zero-dimensional input.

    References
    ----------
    Chapter 5; Troiani et al., arXiv:2506.01582.
    """
    if h.ndim < 1 or np.any(np.isnan(h)):
        raise InvalidParameterError(
            f"h must be an array with at least one axis and no NaN, got shape {h.shape}"
        )
    out = np.zeros_like(h)
    np.put_along_axis(out, np.argmax(h, axis=-1)[..., None], 1.0, axis=-1)
    return out


def _upper(T):
    return np.triu_indices(T)


@declare(T=TOKENS)
def index_weights(T: int) -> np.ndarray:
    r"""Weights ``tau_ab`` of the ``P = T(T+1)/2`` index pairs ``a <= b`` in :func:`pack_indices` order.

    Parameters
    ----------
    T : int
        Sequence length ``>= 2``.

    Returns
    -------
    numpy.ndarray
        ``sqrt(2)`` for ``a < b``, 1 for ``a = b``; ``sum tau^2 = T^2``.

    Raises
    ------
    TypeError, ValueError
        For a ``T`` that is not an integer ``>= 2``, or too large.

    References
    ----------
    Chapter 5; Troiani et al., arXiv:2506.01582.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import channels
    >>> tau = channels.index_weights(3)  # pairs (1,1), (1,2), (1,3), (2,2), (2,3), (3,3)
    >>> print(tau.round(4), round(float(np.sum(tau**2)), 4))
    [1.     1.4142 1.4142 1.     1.4142 1.    ] 9.0
    """
    check_size("the index weights (T(T+1)/2 pairs)", T, T + 1)
    a, b = _upper(T)
    return np.where(a == b, 1.0, math.sqrt(2.0))


@declare(M=array())
def pack_indices(M):
    r"""The upper triangle ``a <= b`` of ``(..., T, T)`` arrays as ``(..., T(T+1)/2)`` (row-major order).

    Parameters
    ----------
    M : array_like
        Finite, non-empty array ending with two equal axes.

    Returns
    -------
    numpy.ndarray
        The packed entries.

    Raises
    ------
    ValueError
        For a malformed ``M``.

    References
    ----------
    Chapter 5.
    """
    if M.ndim < 2 or M.shape[-1] != M.shape[-2]:
        raise InvalidParameterError(f"M must end with two equal axes (..., T, T), got shape {M.shape}")
    T = M.shape[-1]
    a, b = _upper(T)
    return M[..., a, b]


@declare(p=array(), T=TOKENS)
def unpack_indices(p, T: int):
    r"""Inverse of :func:`pack_indices` for symmetric matrices: ``(..., T(T+1)/2) -> (..., T, T)``.

    Parameters
    ----------
    p : array_like
        Finite, non-empty packed entries.
    T : int
        Sequence length ``>= 2``.

    Returns
    -------
    numpy.ndarray
        The symmetric matrices.

    Raises
    ------
    TypeError, ValueError
        For a malformed ``p`` or ``T``.

    References
    ----------
    Chapter 5.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import channels
    >>> M = channels.unpack_indices(np.arange(6.0), 3)
    >>> print(M)
    [[0. 1. 2.]
     [1. 3. 4.]
     [2. 4. 5.]]
    >>> print(channels.pack_indices(M))
    [0. 1. 2. 3. 4. 5.]
    """
    if p.ndim < 1:
        raise InvalidParameterError(f"p must have at least one axis, got shape {p.shape}")
    if p.shape[-1] != T * (T + 1) // 2:
        raise InvalidParameterError(
            f"p must end with an axis of T(T+1)/2 = {T * (T + 1) // 2}, got shape {p.shape}"
        )
    a, b = _upper(T)
    M = np.zeros(p.shape[:-1] + (T, T), dtype=p.dtype)
    M[..., a, b] = p
    M[..., b, a] = p
    return M


@record
class SoftmaxChannel:
    """The noiseless softmax output channel of the AIM, in the ``tau`` units of :class:`solvable.attention.AttentionSensingMap`.

    Parameters
    ----------
    T : int
        Sequence length ``>= 2``.

    Notes
    -----
    The data enter as the packed canonical logits ``y = tau-free h0`` of :meth:`observe`: with ``L = log y``,
    ``h0_ab = L_ab + L_Ta - L_aT`` is one symmetric ``h`` consistent with the outputs; every other one is
    ``h0 + c`` (a common shift). The posterior of ``z = tau * h`` given ``omega`` (prior ``N(omega, V I)``)
    lives on the line ``z = tau (h0 + c)``, so

        c = (1/T^2) sum_{a<=b} tau_ab (omega_ab - tau_ab h0_ab),    g_ab = (tau_ab (h0_ab + c) - omega_ab)/V,
        dg_ab = (tau_ab^2/T^2 - 1)/V,

    using ``sum tau^2 = T^2``. ``g`` is invariant under ``h0 -> h0 + c`` and ``omega -> omega + c tau``; at
    the Bayes fixed point ``E sum_ab g_ab^2 = K/V`` (``P - 1`` directions are constrained). Projecting in
    ``h`` units with equal weights instead is a different (wrong) channel.

    Examples
    --------
    Softmax outputs fix symmetric logits up to one common shift; the channel constrains the other
    ``K = T(T+1)/2 - 1`` directions of the packed preactivations (``-sum dg = K/V``):

    >>> import numpy as np
    >>> from solvable import channels
    >>> ch = channels.SoftmaxChannel(3)
    >>> h = np.array([[0.0, 1.0, 2.0], [1.0, 0.5, -1.0], [2.0, -1.0, 0.3]])
    >>> h0 = ch.observe(channels.row_softmax(h[None]))  # packed canonical logits (1, 6)
    >>> shift = channels.unpack_indices(h0, 3)[0] - h
    >>> print(bool(np.allclose(shift, shift[0, 0])))
    True
    >>> _, dg = ch.g_out(h0, np.zeros((1, 6)), 1.0)
    >>> print(round(float(-dg.sum()), 4))
    5.0
    """

    T: int

    @property
    def tau(self) -> np.ndarray:
        """The weights ``tau_ab`` of the packed pairs (:func:`index_weights`)."""
        return index_weights(self.T)

    def observe(self, y):
        r"""Packed canonical logits ``h0`` (n, P) of softmax outputs.

        Parameters
        ----------
        y : array_like
            Softmax outputs ``(n, T, T)``, all entries ``> 0``.

        Returns
        -------
        numpy.ndarray
            ``h0_ab = L_ab + L_Ta - L_aT`` with ``L = log y``, packed.

        Raises
        ------
        ValueError
            For a wrong shape or a non-positive entry.
        """
        y = np.asarray(y, dtype=float)
        if y.ndim != 3 or y.shape[1:] != (self.T, self.T):
            raise InvalidParameterError(f"y must have shape (n, {self.T}, {self.T}), got {y.shape}")
        if not np.all(y > 0):
            raise InvalidParameterError(
                "softmax outputs y must be > 0 (log y is needed; one-hot y: HardmaxChannel)"
            )
        L = np.log(y)
        h0 = L + L[:, -1, :][:, :, None] - L[:, :, -1][:, :, None]
        return pack_indices(h0)

    def g_out(self, y, omega, V):
        r"""Output function ``(g, dg)`` (n, P) of the softmax channel.

        Parameters
        ----------
        y : array_like
            Packed canonical logits (n, P), or raw outputs (n, T, T).
        omega : array_like
            Means of the packed preactivations (n, P).
        V : float
            Their variance.

        Returns
        -------
        tuple
            ``(g, dg)``, see the class Notes.
        """
        y = np.asarray(y, dtype=float)
        if y.ndim == 3:
            y = self.observe(y)
        omega = np.asarray(omega, dtype=float)
        tau = self.tau
        V = float(V)
        tau_h0 = tau * y
        c = (omega - tau_h0) @ tau / self.T**2
        g = (tau_h0 + c[:, None] * tau - omega) / V
        dg = np.broadcast_to((tau * tau / self.T**2 - 1.0) / V, g.shape)
        return g, dg


_BVN_FLOOR = 1e-300
_SQRT_HALF = math.sqrt(0.5)


def _bvn_orthant(h, k, r):
    """``P(u1 < h, u2 < k)`` for standard normals of correlation ``r`` (vectorised, Owen's T function).

    ``Phi2 = [Phi(h) + Phi(k)]/2 - T(h, a_h) - T(k, a_k) - beta`` with ``a_h = (k - r h)/(h sqrt(1 - r^2))``,
    ``beta = 1/2`` when ``h k < 0`` (Owen 1956). Exact zeros are nudged to ``1e-12``. Absolute accuracy is
    about 1e-16: deep in the negative quadrant (both arguments below about -6) the value is not reliable.
    """
    h = np.where(h == 0.0, 1e-12, h)
    k = np.where(k == 0.0, 1e-12, k)
    s = np.sqrt(1.0 - r * r)
    beta = np.where(h * k < 0.0, 0.5, 0.0)
    out = 0.5 * (ndtr(h) + ndtr(k)) - owens_t(h, (k - r * h) / (h * s)) - owens_t(k, (h - r * k) / (k * s))
    out = out - beta
    return np.clip(out, 0.0, 1.0)


SoftmaxChannel.__init__ = declare(T=TOKENS)(SoftmaxChannel.__init__)


@record
class HardmaxChannel:
    """The noiseless hardmax output channel, ``T = 2``, in the ``tau`` units of :class:`solvable.attention.AttentionSensingMap`.

    Parameters
    ----------
    T : int, optional
        Sequence length; must be 2.

    Notes
    -----
    The second example of Troiani et al., arXiv:2506.01582. With packed ``z = (h11, sqrt(2) h12, h22)``, the one-hot rows reveal the signs ``s1`` of
    ``u1 = h11 - h12 = a1 . z`` and ``s2`` of ``u2 = h22 - h12 = a2 . z``, ``a1 = (1, -1/sqrt(2), 0)``,
    ``a2 = (0, -1/sqrt(2), 1)``. Under ``z ~ N(omega, V I)`` the ``u_i`` have variance ``sigma^2 = 3V/2`` and
    correlation ``1/3``, so

        Z_out = Phi2(k1, k2; r),   k_i = s_i a_i . omega / sigma,   r = s1 s2 / 3,
        g_out = d log Z_out / d omega = (D1 s1 a1 + D2 s2 a2) / sigma,
        D1 = phi(k1) Phi((k2 - r k1)/sqrt(1 - r^2)) / Phi2  (and 1 <-> 2),

    and ``dg`` is the diagonal of the Hessian of ``log Z_out``. (The orthant probability is a bivariate normal
    CDF, evaluated with Owen's T function; its gradient involves ``phi(k1) Phi(...)``, not the bivariate
    density.)
    Data enter as packed signs ``(s1, 0, s2)`` (:meth:`observe`).
    """

    T: int = 2

    def observe(self, y):
        r"""Packed signs ``(s1, 0, s2)`` (n, 3) of one-hot outputs.

        Parameters
        ----------
        y : array_like
            One-hot rows ``(n, 2, 2)``.

        Returns
        -------
        numpy.ndarray
            The packed signs.

        Raises
        ------
        ValueError
            For a wrong shape or entries other than 0 and 1.
        """
        y = np.asarray(y, dtype=float)
        if y.ndim != 3 or y.shape[1:] != (2, 2) or not np.all((y == 0) | (y == 1)):
            raise InvalidParameterError(f"y must be one-hot rows of shape (n, 2, 2), got shape {y.shape}")
        out = np.zeros((y.shape[0], 3))
        out[:, 0] = 2.0 * y[:, 0, 0] - 1.0
        out[:, 2] = 2.0 * y[:, 1, 1] - 1.0
        return out

    @staticmethod
    def signs_of(z):
        r"""Packed signs ``(s1, 0, s2)`` of packed indices in ``tau`` units (the outputs).

        Parameters
        ----------
        z : array_like
            Packed indices ``(n, 3)``.

        Returns
        -------
        numpy.ndarray
            The packed signs ``(n, 3)``.
        """
        z = np.asarray(z, dtype=float)
        out = np.zeros_like(z)
        out[:, 0] = np.where(z[:, 0] - _SQRT_HALF * z[:, 1] > 0, 1.0, -1.0)
        out[:, 2] = np.where(z[:, 2] - _SQRT_HALF * z[:, 1] > 0, 1.0, -1.0)
        return out

    def g_out(self, y, omega, V):
        r"""Output function ``(g, dg)`` (n, 3) of the hardmax channel.

        Parameters
        ----------
        y : array_like
            Packed signs (n, 3), or one-hot outputs (n, 2, 2).
        omega : array_like
            Means of the packed preactivations (n, 3).
        V : float
            Their variance.

        Returns
        -------
        tuple
            ``(g, dg)``: the gradient and the diagonal of the Hessian of ``log Z_out``.
        """
        y = np.asarray(y, dtype=float)
        if y.ndim == 3:
            y = self.observe(y)
        omega = np.asarray(omega, dtype=float)
        V = float(V)
        s1, s2 = y[:, 0], y[:, 2]
        sigma = math.sqrt(1.5 * V)
        r = s1 * s2 / 3.0
        sr = math.sqrt(8.0) / 3.0
        k1 = s1 * (omega[:, 0] - _SQRT_HALF * omega[:, 1]) / sigma
        k2 = s2 * (omega[:, 2] - _SQRT_HALF * omega[:, 1]) / sigma
        c1, c2 = (k2 - r * k1) / sr, (k1 - r * k2) / sr
        log_p = np.log(np.maximum(_bvn_orthant(k1, k2, r), _BVN_FLOOR))
        log_pdf1 = -0.5 * k1 * k1 - 0.5 * math.log(2 * math.pi)
        log_pdf2 = -0.5 * k2 * k2 - 0.5 * math.log(2 * math.pi)
        D1 = np.exp(log_pdf1 + log_ndtr(c1) - log_p)
        D2 = np.exp(log_pdf2 + log_ndtr(c2) - log_p)
        B = np.exp(log_pdf1 - 0.5 * c1 * c1 - 0.5 * math.log(2 * math.pi) - log_p) / sr  # density / Phi2
        H11 = -k1 * D1 - r * B - D1 * D1
        H22 = -k2 * D2 - r * B - D2 * D2
        H12 = B - D1 * D2
        a1 = np.array([1.0, -_SQRT_HALF, 0.0])
        a2 = np.array([0.0, -_SQRT_HALF, 1.0])
        g = (np.outer(D1 * s1, a1) + np.outer(D2 * s2, a2)) / sigma
        dg = np.outer(H11, a1 * a1) + np.outer(H22, a2 * a2) + np.outer(2.0 * H12 * s1 * s2, a1 * a2)
        dg /= sigma**2
        return g, dg


HardmaxChannel.__init__ = declare(T=integer(2, 2))(HardmaxChannel.__init__)
