"""Output channels ``P_out(y | z)``: what message passing and state evolution need from them.

A channel enters through ``Z_out(y, omega, V) = E_xi P_out(y | omega + sqrt(V) xi)``:

- ``g_out(y, omega, V)`` returns ``g = d_omega log Z_out`` and its derivative ``dg = d_omega g``;
- ``se_mhat_factor(q, rho)`` is ``E_xi int dy Z_out g_out^2`` at ``omega = sqrt(q) xi``, ``V = rho - q``
  (the state evolution is ``mhat = alpha * se_mhat_factor(q, rho)``);
- ``psi_out(q, rho)`` is ``E_xi int dy Z_out log Z_out`` (the channel part of the replica free entropy;
  ``2 alpha d_q psi_out = mhat``);
- ``sample(z, rng)`` draws labels.

Channels: ``sign`` (``y = sign z``), ``probit`` (``y = sign(z + sqrt(delta) xi)``) and ``linear``
(``y = z + sqrt(delta) xi``). Equations: ``science/perceptron.md``, Sec. 2; Barbier et al.,
PNAS 116:5451 (2019), arXiv:1708.03395; Rangan, arXiv:1010.5141.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr

from .integration import hermite_rule, legendre_rule, log_phi_pdf, mills_ratio, sign_channel_fisher
from .validation import check_choice, check_nonnegative, check_positive

__all__ = ["SignChannel", "LinearChannel", "CHANNELS", "get_channel"]

# Smallest variance kept away from zero: q is clipped to [Q_EPS, rho - Q_EPS] (science/perceptron.md, Sec. 8).
Q_EPS = 1e-14
# GAMP floors the output variance V + delta at VAR_FLOOR: once a discrete signal is recovered exactly the
# denoiser's variances underflow to 0 and g_out would be 0/0; at this floor the estimate is already exact.
VAR_FLOOR = 1e-12


def _Phi_log_Phi_expectation(k) -> np.ndarray:
    """``E_xi[Phi(k xi) log Phi(k xi)]`` vectorised over ``k >= 0`` (``u = k xi`` for ``k >= 1``)."""
    k = np.atleast_1d(np.asarray(k, dtype=float))
    out = np.empty_like(k)
    small = k < 1.0
    if np.any(small):
        x, w = hermite_rule()
        lp = log_ndtr(np.outer(k[small], x))
        out[small] = (np.exp(lp) * lp) @ w
    if np.any(~small):
        u, w = legendre_rule()
        lp = log_ndtr(u)
        kk = k[~small][:, None]
        out[~small] = (np.exp(log_phi_pdf(u / kk)) / kk * (np.exp(lp) * lp)[None, :]) @ w
    return out


@dataclass(frozen=True)
class SignChannel:
    """Sign channel ``y = sign(z + sqrt(delta) xi)``: noiseless sign for ``delta = 0``, probit otherwise.

    ``Z_out = Phi(y omega / sqrt(V + delta))``; with ``u = y omega / sqrt(V + delta)`` and
    ``r = phi(u) / Phi(u)``: ``g_out = y r / sqrt(V + delta)``, ``dg = -(u r + r^2) / (V + delta)``.
    State evolution with ``W = rho - q + delta`` and ``k = sqrt(q / W)``:
    ``se_mhat_factor = I(k) / W`` (see :func:`solvable.integration.sign_channel_fisher`) and
    ``psi_out = 2 E_xi[Phi(k xi) log Phi(k xi)]``.
    """

    delta: float = 0.0
    name: str = "sign"

    def sample(self, z, rng: np.random.Generator) -> np.ndarray:
        """Labels ``sign(z + sqrt(delta) xi)`` in ``{-1, +1}``."""
        z = np.asarray(z, dtype=float)
        if self.delta > 0:
            z = z + np.sqrt(self.delta) * rng.standard_normal(z.shape)
        return np.where(z >= 0, 1.0, -1.0)

    def g_out(self, y, omega, V):
        """``(g_out, d_omega g_out)`` at each sample."""
        W = np.maximum(V + self.delta, VAR_FLOOR)
        s = np.sqrt(W)
        u = y * omega / s
        r = mills_ratio(u)
        return y * r / s, -(u * r + r * r) / W

    def se_mhat_factor(self, q, rho: float = 1.0):
        """``E_xi sum_y Z_out g_out^2 = I(k) / (rho - q + delta)``."""
        q = np.clip(np.asarray(q, dtype=float), Q_EPS, rho - Q_EPS)
        W = rho - q + self.delta
        return sign_channel_fisher(np.sqrt(q / W)).reshape(q.shape) / W

    def psi_out(self, q, rho: float = 1.0):
        """``psi_out(q) = 2 E_xi[Phi(k xi) log Phi(k xi)]``, ``k = sqrt(q / (rho - q + delta))``."""
        q = np.clip(np.asarray(q, dtype=float), Q_EPS, rho - Q_EPS)
        W = rho - q + self.delta
        return 2.0 * _Phi_log_Phi_expectation(np.sqrt(q / W)).reshape(q.shape)

    def mean_log_likelihood(self, rho: float = 1.0) -> float:
        """``E log P_out(y | z)`` over ``z ~ N(0, rho)``: 0 for the sign, ``2 E[Phi(k xi) log Phi(k xi)]``,
        ``k = sqrt(rho / delta)``, for the probit channel (enters the mutual information)."""
        if self.delta == 0:
            return 0.0
        return float(2.0 * _Phi_log_Phi_expectation(np.sqrt(rho / self.delta))[0])


@dataclass(frozen=True)
class LinearChannel:
    """Noisy linear channel ``y = z + sqrt(delta) xi``.

    ``g_out = (y - omega) / (V + delta)``, ``dg = -1 / (V + delta)``;
    ``se_mhat_factor = 1 / (rho - q + delta)``; ``psi_out = -log(2 pi (rho - q + delta))/2 - 1/2``.

    ``residual_floor=True`` replaces ``V + delta`` by ``W = max(V + delta, mean((y - omega)^2))`` in both
    ``g_out`` and ``dg``. In GAMP the predicted output variance ``V + delta`` is the variance of the residual
    ``y - omega`` whenever state evolution holds (``E g^2 = E(-dg)``, the Nishimori identity), so the floor is
    inactive in the large-size limit. At finite size, when a matrix denoiser's actual error lags behind its
    asymptotic MMSE (near exact recovery, where ``V`` falls geometrically), a ``V`` below the observed residual
    makes the Onsager-corrected loop unstable; the floor never lets the loop trust a precision larger than the
    residuals show. Unlike the empirical precision ``A ~ mean(g^2)`` it has no false fixed point with ``V``
    above the error: there the derivative form ``1/(V + delta)`` is kept (``science/bsr.md``, Sec. 3,
    correction; measured in ``tests/test_bsr.py``).
    """

    delta: float = 0.0
    name: str = "linear"
    residual_floor: bool = False

    def sample(self, z, rng: np.random.Generator) -> np.ndarray:
        """Labels ``z + sqrt(delta) xi``."""
        z = np.asarray(z, dtype=float)
        if self.delta > 0:
            z = z + np.sqrt(self.delta) * rng.standard_normal(z.shape)
        return z.copy()

    def g_out(self, y, omega, V):
        """``(g_out, d_omega g_out)`` at each sample."""
        W = np.maximum(V + self.delta, VAR_FLOOR)
        if self.residual_floor:
            W = np.maximum(W, float(np.mean((np.asarray(y) - omega) ** 2)))
        return (y - omega) / W, np.broadcast_to(-1.0 / W, np.shape(omega))

    def se_mhat_factor(self, q, rho: float = 1.0):
        """``1 / (rho - q + delta)``."""
        q = np.clip(np.asarray(q, dtype=float), 0.0, rho - Q_EPS)
        return 1.0 / (rho - q + self.delta)

    def psi_out(self, q, rho: float = 1.0):
        """``-log(2 pi (rho - q + delta)) / 2 - 1/2``."""
        q = np.clip(np.asarray(q, dtype=float), 0.0, rho - Q_EPS)
        return -0.5 * np.log(2.0 * np.pi * (rho - q + self.delta)) - 0.5

    def mean_log_likelihood(self, rho: float = 1.0) -> float:
        """``E log P_out(y | z) = -log(2 pi delta)/2 - 1/2`` (``-inf`` without noise)."""
        if self.delta == 0:
            return -np.inf
        return float(-0.5 * np.log(2.0 * np.pi * self.delta) - 0.5)


CHANNELS = ("sign", "probit", "linear")


def get_channel(channel, delta: float = 0.0) -> SignChannel | LinearChannel:
    """Channel object for a name in ``CHANNELS`` and a label-noise variance ``delta``.

    ``sign`` needs ``delta = 0`` (a noisy sign is ``probit``), ``probit`` needs ``delta > 0``,
    ``linear`` takes any ``delta >= 0``.
    """
    if isinstance(channel, (SignChannel, LinearChannel)):
        return channel
    name = check_choice("channel", channel, CHANNELS)
    delta = check_nonnegative("delta", delta)
    if name == "sign":
        if delta != 0:
            raise ValueError(f"delta must be 0 for channel 'sign' (use channel='probit' for a noisy sign), got {delta!r}")
        return SignChannel()
    if name == "probit":
        return SignChannel(delta=check_positive("delta", delta), name="probit")
    return LinearChannel(delta=delta)
