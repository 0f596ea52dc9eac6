"""Scalar toolbox: Gaussian expectations and stable Gaussian tail functions.

Every state-evolution equation of the course is a handful of one-dimensional Gaussian integrals.
This module evaluates them with fixed quadrature rules (so that the integrals are smooth, vectorised
functions of the order parameters and can be root-found) and gives the numerically safe forms of
``log Phi`` and of the ratios ``phi/Phi`` that sign-type channels need.

Conventions: ``phi`` is the standard normal density, ``Phi`` its CDF, ``H(x) = Phi(-x)``;
``xi ~ N(0, 1)``. Chapter 1, Sec. 'The building blocks' uses them throughout.

Arguments: the rules take an integer number of nodes ``>= 1`` and a finite positive width (``ValueError``
naming the argument otherwise); the integrals over ``k`` take ``k >= 0``. The elementwise functions
(``log_phi_pdf``, ``log_Phi``, ``mills_ratio``) behave like NumPy ufuncs: ``+-inf`` give their limits and a NaN
entry gives NaN at the same place, so that the GAMP loop that calls them can report the iteration that diverged
(:class:`~solvable.errors.DivergenceError`) instead of a ``ValueError`` deep inside a channel. Each public
function declares these domains (:mod:`solvable.domains`); the loops of the library, which evaluate them thousands of
times on values they have already checked, call the unchecked cores (``_hermite_rule``, ``_mills_ratio``, ...).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from numpy.polynomial.legendre import leggauss
from scipy.special import erfcx, log_ndtr

from .domains import Domain, array, declare, function, integer, real
from .errors import InvalidParameterError
from . import validation

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
    "phi_log_phi_expectation",
]

#: ``log sqrt(2 pi)``, the normalisation of the standard normal log-density.
LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)

#: Default number of Gauss-Hermite nodes for smooth integrands (priors, logistic loss).
DEFAULT_HERMITE_NODES = 201
#: Gauss-Legendre rule on [-U_MAX, U_MAX] for the ``u = k xi`` substitution of sign-type channels.
U_MAX = 14.0
DEFAULT_LEGENDRE_NODES = 400
#: Upper end of the half-normal rule (the mass beyond is ``2 H(10) ~ 1.5e-23``).
HALF_NORMAL_UPPER = 10.0
#: The largest upper end of the half-normal rule: beyond about 38.6 the Gaussian density underflows to 0, so that a
#: wider rule spreads its nodes over zero weights (at ``upper = 1e300`` every weight is 0, a rule of mass 0).
HALF_NORMAL_UPPER_MAX = 40.0


#: The most Gauss-Legendre nodes a rule will have (numpy's leggauss solves an n x n eigenproblem; 1e4 nodes take
#: seconds, and no integral of the course needs more than a few hundred).
MAX_LEGENDRE_NODES = 10_000
#: The most Gauss-Hermite nodes (beyond about 350 NumPy's ``hermegauss`` overflows into NaN weights).
MAX_HERMITE_NODES = 300


def _nonnegative(finite: bool) -> Domain:
    """Numbers ``>= 0`` (finite unless not ``finite``; never NaN): a number or a non-empty array of them."""
    base = array(finite=finite)
    text = (
        f"{'finite ' if finite else ''}numbers >= 0{'' if finite else ' (inf allowed)'}: a number or a "
        "non-empty array of them"
    )

    def check(name, value):
        try:
            a = base.check(name, value)
        except InvalidParameterError:
            raise InvalidParameterError(
                f"{name} must contain {text}, got {type(value).__name__} {str(value)[:60]}"
            ) from None
        if not 0.0 <= a.min():  # NaN fails the comparison too
            raise InvalidParameterError(f"{name} must contain {text}, got {str(value)[:60]}")
        return a

    return Domain(text, check, "array", (None,), finite=finite)


#: The domains of the toolbox's parameters (solvable.domains): numbers of nodes, widths of a rule, the arguments
#: ``k >= 0`` of the sign-channel integrals and of the elementwise helpers (real arrays of any shape, NaN passing
#: through as in a NumPy ufunc).
HERMITE_NODES = integer(1, MAX_HERMITE_NODES)
LEGENDRE_NODES = integer(1, MAX_LEGENDRE_NODES)
WIDTH = real(0.0, low_open=True)
HALF_NORMAL_END = real(0.0, HALF_NORMAL_UPPER_MAX, low_open=True)
K_FINITE = _nonnegative(True)
K_INF = _nonnegative(False)
ELEMENTWISE = array(finite=False, nonempty=False)


def _legendre_size(n: int) -> int:
    """``n`` checked against the size cap: NumPy's ``leggauss`` solves an ``n x n`` companion eigenproblem, so the
    peak is ``n^2`` numbers, not ``n``."""
    validation.check_size(f"the n x n Gauss-Legendre eigenproblem of n = {n} nodes", n, n)
    return n


@declare(n=HERMITE_NODES)
def hermite_rule(n: int = DEFAULT_HERMITE_NODES) -> tuple[np.ndarray, np.ndarray]:
    r"""Gauss-Hermite nodes and weights for expectations over a standard Gaussian.

    Parameters
    ----------
    n : int, optional
        Number of nodes, in ``[1, 300]`` (beyond about 350 NumPy's ``hermegauss`` overflows into NaN weights).

    Returns
    -------
    tuple of numpy.ndarray
        ``(x, w)``, read-only, such that ``sum(w * f(x)) ~ E_xi f(xi)``, ``xi ~ N(0, 1)``.

    Raises
    ------
    TypeError, ValueError
        For a non-integer ``n`` or one outside ``[1, 300]``.

    Notes
    -----
    Probabilists' Gauss-Hermite rule (``numpy.polynomial.hermite_e.hermegauss``) with the weights normalised to sum to
    one; exact for polynomials of degree ``< 2n``.

    References
    ----------
    Chapter 1, Sec. 'The building blocks'; Abramowitz and Stegun, *Handbook of Mathematical Functions* (1964), Ch. 25.
    """
    return _hermite_rule(n)


@lru_cache(maxsize=16)
def _hermite_rule(n: int) -> tuple[np.ndarray, np.ndarray]:
    x, w = hermegauss(n)
    w = w / w.sum()
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w


@declare(n=LEGENDRE_NODES, half_width=WIDTH)
def legendre_rule(
    n: int = DEFAULT_LEGENDRE_NODES, half_width: float = U_MAX
) -> tuple[np.ndarray, np.ndarray]:
    r"""Gauss-Legendre nodes and weights on ``[-half_width, half_width]``.

    Parameters
    ----------
    n : int, optional
        Number of nodes, in ``[1, MAX_LEGENDRE_NODES]``.
    half_width : float, optional
        Half-width of the interval, finite and ``> 0``.

    Returns
    -------
    tuple of numpy.ndarray
        ``(x, w)``, read-only, such that ``sum(w * f(x)) ~ int f``.

    Raises
    ------
    TypeError, ValueError
        For a bad ``n`` or ``half_width`` (named).

    Notes
    -----
    ``numpy.polynomial.legendre.leggauss`` scaled to the interval; exact for polynomials of degree ``< 2n``.

    References
    ----------
    Chapter 1, Sec. 'The building blocks'; Abramowitz and Stegun, *Handbook of Mathematical Functions* (1964), Ch. 25.
    """
    return _legendre_rule(_legendre_size(n), half_width)


@lru_cache(maxsize=16)
def _legendre_rule(n: int, half_width: float) -> tuple[np.ndarray, np.ndarray]:
    x, w = leggauss(n)
    x = x * half_width
    w = w * half_width
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w


@declare(n=LEGENDRE_NODES, upper=HALF_NORMAL_END)
def half_normal_rule(n: int = 64, upper: float = HALF_NORMAL_UPPER) -> tuple[np.ndarray, np.ndarray]:
    r"""Nodes ``z >= 0`` and weights such that ``sum(w * g(z)) ~ E_xi g(|xi|) = 2 int_0^inf phi(z) g(z) dz``.

    Parameters
    ----------
    n : int, optional
        Number of nodes, in ``[1, MAX_LEGENDRE_NODES]``.
    upper : float, optional
        Upper end of the rule, in ``(0, 40]`` (the mass beyond 10 is ``2 H(10) ~ 1.5e-23``; beyond about 38.6 the
        Gaussian density underflows to 0, so that a wider rule would only spread its nodes over zero weights).

    Returns
    -------
    tuple of numpy.ndarray
        ``(z, w)``, read-only.

    Raises
    ------
    TypeError, ValueError
        For a bad ``n`` or ``upper`` (named).

    Notes
    -----
    Gauss-Legendre on ``[0, upper]`` with the weights multiplied by ``2 phi(z)``: for Gaussian integrals over a
    half-line, where Gauss-Hermite on ``g(|xi|)`` would converge slowly because of the kink at 0; the nodes cluster near
    ``z = 0``, where integrands ``g(m z + ...)`` with large ``m`` vary fastest.

    References
    ----------
    Chapter 1, Sec. 'The building blocks'; Abramowitz and Stegun, *Handbook of Mathematical Functions* (1964), Ch. 25.
    """
    return _half_normal_rule(_legendre_size(n), upper)


@lru_cache(maxsize=16)
def _half_normal_rule(n: int, upper: float) -> tuple[np.ndarray, np.ndarray]:
    x, w = leggauss(n)
    z = 0.5 * upper * (x + 1.0)
    w = 0.5 * upper * w * 2.0 * np.exp(_log_phi_pdf(z))
    z.setflags(write=False)
    w.setflags(write=False)
    return z, w


@declare(f=function(), n=HERMITE_NODES)
def gaussian_expectation(f, n: int = DEFAULT_HERMITE_NODES) -> float:
    r"""``E_xi f(xi)`` for ``xi ~ N(0, 1)`` by Gauss-Hermite quadrature.

    Parameters
    ----------
    f : callable
        Vectorised integrand: takes the array of nodes and returns one value per node.
    n : int, optional
        Number of nodes (:func:`hermite_rule`).

    Returns
    -------
    float
        The expectation.

    Raises
    ------
    TypeError
        If ``f`` is not callable.
    ValueError
        If ``f`` returns anything but one real number per node (a complex, masked or non-numeric array, the wrong
        shape), or a NaN or an infinite value.

    Notes
    -----
    ``E f(xi) ~ sum_i w_i f(x_i)`` (:func:`hermite_rule`).

    References
    ----------
    Chapter 1, Sec. 'The building blocks'; Abramowitz and Stegun, *Handbook of Mathematical Functions* (1964), Ch. 25.
    """
    x, w = _hermite_rule(n)
    raw = f(x)
    if isinstance(raw, np.ma.MaskedArray):
        raise InvalidParameterError(
            "f must return an array of real numbers, got a masked array (its mask would be ignored)"
        )
    try:
        values = validation.check_array("f(x)", raw, finite=False, nonempty=False)
    except InvalidParameterError:  # a complex value would lose its imaginary part, a string is no number
        raise InvalidParameterError(
            f"f must return real numbers, one per node; got {type(raw).__name__} {str(raw)[:60]}"
        ) from None
    if values.shape != x.shape:
        raise InvalidParameterError(
            f"f must return one value per node, shape {x.shape}; got shape {values.shape}"
        )
    if not validation.all_finite(values):
        raise InvalidParameterError(
            f"f returned {values.size - np.count_nonzero(np.isfinite(values))} non-finite "
            "values (NaN or inf) at the quadrature nodes: no finite expectation"
        )
    return float(np.dot(w, values))  # finite: the weights are positive and sum to 1


@declare(x=ELEMENTWISE)
def log_phi_pdf(x):
    r"""``log phi(x) = -x^2/2 - log sqrt(2 pi)``, elementwise.

    Parameters
    ----------
    x : float or array_like
        Arguments (NaN gives NaN, like a NumPy ufunc).

    Returns
    -------
    numpy.ndarray or float
        The log-density.

    Raises
    ------
    TypeError
        For a non-numeric argument.

    Notes
    -----
    The standard normal log-density.

    References
    ----------
    Chapter 1, Sec. 'The building blocks'; Abramowitz and Stegun, *Handbook of Mathematical Functions* (1964), Ch. 25.
    """
    return _log_phi_pdf(x)


def _log_phi_pdf(x):
    """:func:`log_phi_pdf` on a float (array), unchecked: the library's loops call it on their own iterates."""
    return -0.5 * x * x - LOG_SQRT_2PI


@declare(x=ELEMENTWISE)
def log_Phi(x):
    r"""``log Phi(x)``, accurate for very negative ``x``, elementwise.

    Parameters
    ----------
    x : float or array_like
        Arguments (``-inf`` gives ``-inf``, NaN gives NaN).

    Returns
    -------
    numpy.ndarray or float
        ``scipy.special.log_ndtr(x)``.

    Raises
    ------
    TypeError
        For a non-numeric argument.

    Notes
    -----
    ``log Phi(x) ~ -x^2/2 - log(-x sqrt(2 pi))`` as ``x -> -inf`` without underflow.

    References
    ----------
    Chapter 1, Sec. 'The building blocks'; Abramowitz and Stegun, *Handbook of Mathematical Functions* (1964), Ch. 25.
    """
    return log_ndtr(x)


#: Below this argument mills_ratio is computed from the scaled complementary error function (no cancellation).
_MILLS_FAR = -1e6


@declare(u=ELEMENTWISE)
def mills_ratio(u):
    r"""``phi(u) / Phi(u)``, computed as ``exp(log phi(u) - log Phi(u))`` so that it never overflows.

    Parameters
    ----------
    u : float or array_like
        Arguments (``-inf`` gives ``+inf``, NaN gives NaN).

    Returns
    -------
    numpy.ndarray or float
        The ratio: ``~ -u`` as ``u -> -inf``, ``~ phi(u)`` as ``u -> +inf``.

    Raises
    ------
    TypeError
        For a non-numeric argument.

    Notes
    -----
    The ratio of every sign-type output function ``g_out = y r / sqrt(V + delta)`` (Chapter 1, eq. ``eq-gout``).

    References
    ----------
    Chapter 1, Sec. 'The building blocks'; Abramowitz and Stegun, *Handbook of Mathematical Functions* (1964), Ch. 25.
    """
    return _mills_ratio(u)


def _mills_ratio(u):
    """:func:`mills_ratio` on a float array, unchecked: GAMP's output functions call it at every iteration."""
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.exp(_log_phi_pdf(u) - log_ndtr(u))
    far = u < _MILLS_FAR
    if np.any(far):
        # exp(log phi - log Phi) loses u^2 eps / 2 to cancellation (5e-5 relative at -1e6, 80% at -1e8, 1.0 instead
        # of 3e150 at -3e150, inf beyond -1.4e154); phi(u)/Phi(u) = sqrt(2/pi) / erfcx(-u/sqrt(2)) ~ |u| has none
        with np.errstate(divide="ignore"):  # u = -inf: erfcx(inf) = 0, the ratio inf
            r = np.where(far, math.sqrt(2.0 / math.pi) / erfcx(-np.where(far, u, -1.0) / math.sqrt(2.0)), r)
        r = r[()] if r.ndim == 0 else r
    return r


def _sign_fisher_integrand(u):
    # phi(u)^2 / (Phi(u) Phi(-u)), smooth, even, decays like |u| phi(u).
    return np.exp(2.0 * _log_phi_pdf(u) - log_ndtr(u) - log_ndtr(-u))


@declare(k=K_FINITE)
def sign_channel_fisher(k) -> np.ndarray:
    r"""``I(k) = E_xi[ phi(k xi)^2 / (Phi(k xi) Phi(-k xi)) ]``, vectorised over ``k >= 0``.

    Parameters
    ----------
    k : float or array_like
        Finite numbers ``>= 0``.

    Returns
    -------
    numpy.ndarray
        ``I(k)``, 1-d; ``I(0) = 2/pi``, ``I(k) ~ J/(sqrt(2 pi) k)`` as ``k -> inf`` with
        ``J = int phi^2/(Phi Phi(-u)) du = 1.8064``.

    Raises
    ------
    ValueError
        For a negative or non-finite ``k``.

    Notes
    -----
    The Fisher-information integral of every sign-type channel: with ``V`` the variance of the preactivation given the
    estimate and ``k = sqrt(q / V)``, the state-evolution conjugate is ``mhat = alpha I(k) / V`` (Chapter 1,
    eq. ``eq-state-evolution``). For ``k < 1`` Gauss-Hermite in ``xi``; for ``k >= 1`` (width ``1/k``) the substitution
    ``u = k xi`` gives ``I(k) = (1/k) int du phi(u/k) phi(u)^2 / (Phi(u) Phi(-u))`` on a Gauss-Legendre grid.

    References
    ----------
    Chapter 1, Sec. 'The building blocks'; Abramowitz and Stegun, *Handbook of Mathematical Functions* (1964), Ch. 25.
    """
    return _sign_channel_fisher(k)


def _sign_channel_fisher(k) -> np.ndarray:
    """:func:`sign_channel_fisher` on finite numbers ``k >= 0``, unchecked: every state-evolution step calls it."""
    k = np.atleast_1d(np.asarray(k, dtype=float))
    out = np.empty_like(k)
    small = k < 1.0
    if np.any(small):
        x, w = _hermite_rule(DEFAULT_HERMITE_NODES)
        out[small] = _sign_fisher_integrand(np.outer(k[small], x)) @ w
    if np.any(~small):
        u, w = _legendre_rule(DEFAULT_LEGENDRE_NODES, U_MAX)
        kk = k[~small][:, None]
        vals = np.exp(_log_phi_pdf(u / kk)) / kk * _sign_fisher_integrand(u)[None, :]
        out[~small] = vals @ w
    return out


@declare(k=K_INF)
def phi_log_phi_expectation(k) -> np.ndarray:
    r"""``E_xi[Phi(k xi) log Phi(k xi)]``, vectorised over ``k >= 0``.

    Parameters
    ----------
    k : float or array_like
        Numbers ``>= 0`` (``inf`` allowed).

    Returns
    -------
    numpy.ndarray
        The expectation, 1-d: ``-log(2)/2`` at ``k = 0``, 0 at ``k = inf``, ``~ c/k`` as ``k -> inf``.

    Raises
    ------
    ValueError
        For a negative or NaN ``k``.

    Notes
    -----
    The free entropy of every sign-type channel is ``psi_out = 2 E[Phi(k xi) log Phi(k xi)]`` with
    ``k = sqrt(q / (rho - q + delta))`` (Chapter 1, eq. ``eq-free-entropy``). For ``k < 1`` Gauss-Hermite in ``xi``;
    for ``k >= 1`` the substitution ``u = k xi``, ``(1/k) int du phi(u/k) Phi(u) log Phi(u)`` on a Gauss-Legendre grid.

    References
    ----------
    Chapter 1, Sec. 'The building blocks'; Abramowitz and Stegun, *Handbook of Mathematical Functions* (1964), Ch. 25.
    """
    return _phi_log_phi_expectation(k)


def _phi_log_phi_expectation(k) -> np.ndarray:
    """:func:`phi_log_phi_expectation` on numbers ``k >= 0`` (inf allowed), unchecked: every state-evolution step
    calls it."""
    k = np.atleast_1d(np.asarray(k, dtype=float))
    out = np.zeros_like(k)
    small = k < 1.0
    large = ~small & np.isfinite(k)
    if np.any(small):
        x, w = _hermite_rule(DEFAULT_HERMITE_NODES)
        lp = log_ndtr(np.outer(k[small], x))
        out[small] = (np.exp(lp) * lp) @ w
    if np.any(large):
        u, w = _legendre_rule(DEFAULT_LEGENDRE_NODES, U_MAX)
        lp = log_ndtr(u)
        kk = k[large][:, None]
        out[large] = (np.exp(_log_phi_pdf(u / kk)) / kk * (np.exp(lp) * lp)[None, :]) @ w
    return out
