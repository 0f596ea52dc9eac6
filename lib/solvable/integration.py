"""Scalar toolbox: Gaussian expectations and stable Gaussian tail functions.

Every state-evolution equation of the course is a handful of one-dimensional Gaussian integrals.
This module evaluates them with fixed quadrature rules (so that the integrals are smooth, vectorised
functions of the order parameters and can be root-found) and gives the numerically safe forms of
``log Phi`` and of the ratios ``phi/Phi`` that sign-type channels need.

Conventions: ``phi`` is the standard normal density, ``Phi`` its CDF, ``H(x) = Phi(-x)``;
``xi ~ N(0, 1)``.  See ``science/perceptron.md``, Sec. 8 ("Robust numerics").
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from numpy.polynomial.legendre import leggauss
from scipy.special import log_ndtr

__all__ = [
    "LOG_SQRT_2PI",
    "hermite_rule",
    "legendre_rule",
    "half_normal_rule",
    "gaussian_expectation",
    "log_phi_pdf",
    "log_Phi",
    "mills_ratio",
    "sign_channel_fisher",
]

LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)

#: Default number of Gauss-Hermite nodes for smooth integrands (priors, logistic loss).
DEFAULT_HERMITE_NODES = 201
#: Gauss-Legendre rule on [-U_MAX, U_MAX] for the ``u = k xi`` substitution of sign-type channels.
U_MAX = 14.0
DEFAULT_LEGENDRE_NODES = 400


@lru_cache(maxsize=16)
def hermite_rule(n: int = DEFAULT_HERMITE_NODES) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights such that ``sum(w * f(x)) ~ E_xi f(xi)``, ``xi ~ N(0, 1)``.

    Probabilists' Gauss-Hermite rule (``numpy.polynomial.hermite_e.hermegauss``) with the weights
    normalised to sum to one. Exact for polynomials of degree ``< 2n``. The arrays are read-only.
    ``n`` is limited to 300: beyond about 350 nodes numpy's ``hermegauss`` overflows into NaN weights.
    """
    if not 1 <= n <= 300:
        raise ValueError(f"n must be an integer in [1, 300] (Gauss-Hermite nodes), got {n!r}")
    x, w = hermegauss(n)
    w = w / w.sum()
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w


@lru_cache(maxsize=16)
def legendre_rule(n: int = DEFAULT_LEGENDRE_NODES, half_width: float = U_MAX) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on ``[-half_width, half_width]`` (read-only arrays)."""
    x, w = leggauss(n)
    x = x * half_width
    w = w * half_width
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w


@lru_cache(maxsize=16)
def half_normal_rule(n: int = 64, upper: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``z >= 0`` and weights such that ``sum(w * g(z)) ~ E_xi g(|xi|) = 2 int_0^inf phi(z) g(z) dz``.

    Gauss-Legendre on ``[0, upper]`` with the weights multiplied by ``2 phi(z)`` (the mass beyond
    ``upper = 10`` is ``2 H(10) ~ 1.5e-23``). Use it for Gaussian integrals over a half-line, where a
    Gauss-Hermite rule on ``g(|xi|)`` would converge slowly because of the kink at 0; the Legendre
    nodes cluster near ``z = 0``, where integrands of the form ``g(m z + ...)`` with large ``m`` vary
    fastest. The arrays are read-only.
    """
    x, w = leggauss(n)
    z = 0.5 * upper * (x + 1.0)
    w = 0.5 * upper * w * 2.0 * np.exp(log_phi_pdf(z))
    z.setflags(write=False)
    w.setflags(write=False)
    return z, w


def gaussian_expectation(f, n: int = DEFAULT_HERMITE_NODES) -> float:
    """``E_xi f(xi)`` for ``xi ~ N(0, 1)`` by Gauss-Hermite quadrature; ``f`` must accept arrays."""
    x, w = hermite_rule(n)
    return float(np.dot(w, f(x)))


def log_phi_pdf(x):
    """``log phi(x) = -x^2/2 - log sqrt(2 pi)``."""
    x = np.asarray(x, dtype=float)
    return -0.5 * x * x - LOG_SQRT_2PI


def log_Phi(x):
    """``log Phi(x)``, accurate for very negative ``x`` (``scipy.special.log_ndtr``)."""
    return log_ndtr(x)


def mills_ratio(u):
    """``phi(u) / Phi(u)``, computed as ``exp(log phi(u) - log Phi(u))`` so that it never overflows.

    For ``u -> -inf`` it behaves like ``-u``; for ``u -> +inf`` like ``phi(u)``.
    """
    u = np.asarray(u, dtype=float)
    return np.exp(log_phi_pdf(u) - log_ndtr(u))


def _sign_fisher_integrand(u):
    # phi(u)^2 / (Phi(u) Phi(-u)), smooth, even, decays like |u| phi(u).
    return np.exp(2.0 * log_phi_pdf(u) - log_ndtr(u) - log_ndtr(-u))


def sign_channel_fisher(k) -> np.ndarray:
    """``I(k) = E_xi[ phi(k xi)^2 / (Phi(k xi) Phi(-k xi)) ]``, vectorised over ``k >= 0``.

    This is the Fisher-information integral of every sign-type channel: with ``V`` the variance of
    the preactivation given the estimate and ``k = sqrt(q / V)``, the state-evolution conjugate is
    ``mhat = alpha I(k) / V`` (``science/perceptron.md``, Sec. 2). For ``k < 1`` the integrand is
    smooth on the scale of ``xi`` and Gauss-Hermite is used. For ``k >= 1`` it becomes sharp
    (width ``1/k``), so we substitute ``u = k xi``:
    ``I(k) = (1/k) int du phi(u/k) phi(u)^2 / (Phi(u) Phi(-u))`` on a Gauss-Legendre grid.
    ``I(0) = 2/pi``.
    """
    k = np.atleast_1d(np.asarray(k, dtype=float))
    out = np.empty_like(k)
    small = k < 1.0
    if np.any(small):
        x, w = hermite_rule()
        out[small] = _sign_fisher_integrand(np.outer(k[small], x)) @ w
    if np.any(~small):
        u, w = legendre_rule()
        kk = k[~small][:, None]
        vals = np.exp(log_phi_pdf(u / kk)) / kk * _sign_fisher_integrand(u)[None, :]
        out[~small] = vals @ w
    return out
