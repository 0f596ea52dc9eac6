"""Errors of an estimator, from its overlaps with the teacher or from the vectors themselves.

For a teacher ``w*`` with ``rho = E w*_i^2`` and an estimator ``w_hat`` with ``m = w_hat . w*/d`` and
``Q = |w_hat|^2/d``, the probability that ``sign(w_hat . x)`` and ``sign(w* . x)`` disagree on a fresh
Gaussian input is ``arccos(m / sqrt(rho Q)) / pi`` (Chapter 1, eq. ``eq-bayes-error``).

Arguments are checked (:class:`~solvable.errors.InvalidParameterError` naming the parameter; the domains are
declared with :func:`solvable.domains.declare`): ``rho`` and ``Q`` finite and ``> 0``, the overlaps finite and
inside their ranges (``0 <= q <= rho``, ``|m| <= sqrt(rho Q)`` up to round-off), the vectors real, finite,
non-empty and of one shape.
"""

from __future__ import annotations

import math

import numpy as np

from .domains import array, declare, real
from .errors import InvalidParameterError
from .validation import check_in_range

__all__ = ["classification_error", "angle_error", "bayes_classification_error", "gibbs_classification_error"]

#: The teacher's second moment and the squared norm of an estimate: finite numbers > 0 (``rho`` here is not the rank
#: ratio of the vocabulary).
_MOMENT = real(0.0, low_open=True)
#: A vector of the estimate or the teacher: finite real numbers, non-empty (any shape, the same for both).
_VECTOR = array()

#: Relative round-off tolerated on the Cauchy-Schwarz bound ``|m| <= sqrt(rho Q)`` (clipped within it).
_CS_ROUNDOFF = 1e-9


@declare(m=real(), Q=_MOMENT, rho=_MOMENT)
def classification_error(m: float, Q: float, rho: float = 1.0) -> float:
    r"""Classification error ``arccos(m / sqrt(rho Q)) / pi`` of an estimator with overlaps ``(m, Q)``.

    Parameters
    ----------
    m : float
        Teacher-student overlap ``w_hat . w*/d``.
    Q : float
        Squared norm ``|w_hat|^2/d > 0``.
    rho : float, optional
        Teacher's second moment ``> 0``.

    Returns
    -------
    float
        The probability in ``[0, 1]`` that ``sign(w_hat . x)`` and ``sign(w* . x)`` disagree on a Gaussian input.

    Raises
    ------
    ValueError
        For an argument outside its domain, or ``|m| > sqrt(rho Q)`` beyond a relative round-off of 1e-9.

    Notes
    -----
    The two preactivations are jointly Gaussian with correlation ``m/sqrt(rho Q)``; they differ in sign with probability
    ``arccos(m/sqrt(rho Q))/pi`` (Chapter 1, eq. ``eq-bayes-error``).

    References
    ----------
    Chapter 1, Sec. 'The replica free entropy and state evolution'; Engel and Van den Broeck (2001), Ch. 2.
    """
    cos = m / math.sqrt(rho) / math.sqrt(Q)
    if abs(cos) > 1.0 + _CS_ROUNDOFF:
        raise InvalidParameterError(
            f"m must satisfy |m| <= sqrt(rho Q) (Cauchy-Schwarz), got m = {m!r}, Q = {Q!r}, rho = {rho!r}"
        )
    return float(np.arccos(min(max(cos, -1.0), 1.0)) / np.pi)


def _check_overlap(q, rho) -> tuple[float, float]:
    """``q`` in ``[0, rho]`` (the declarations check each on its own)."""
    return check_in_range("q", q, 0.0, rho), rho


@declare(q=real(0.0), rho=_MOMENT)
def bayes_classification_error(q: float, rho: float = 1.0) -> float:
    r"""Bayes-optimal classification error ``arccos(sqrt(q / rho)) / pi``.

    Parameters
    ----------
    q : float
        Overlap in ``[0, rho]``.
    rho : float, optional
        Teacher's second moment ``> 0``.

    Returns
    -------
    float
        The error in ``[0, 1/2]``.

    Raises
    ------
    ValueError
        For an argument outside its domain.

    Notes
    -----
    The posterior mean has ``m = Q = q`` (Nishimori identity), so :func:`classification_error` gives
    ``arccos(sqrt(q/rho))/pi`` (Chapter 1, eq. ``eq-bayes-error``).

    References
    ----------
    Chapter 1, Sec. 'The replica free entropy and state evolution'.
    """
    q, rho = _check_overlap(q, rho)
    return float(np.arccos(math.sqrt(min(q / rho, 1.0))) / np.pi)


@declare(q=real(0.0), rho=_MOMENT)
def gibbs_classification_error(q: float, rho: float = 1.0) -> float:
    r"""Gibbs error ``arccos(q / rho) / pi`` of one random sample of the posterior.

    Parameters
    ----------
    q : float
        Overlap in ``[0, rho]``.
    rho : float, optional
        Teacher's second moment ``> 0``.

    Returns
    -------
    float
        The error in ``[0, 1/2]``.

    Raises
    ------
    ValueError
        For an argument outside its domain.

    Notes
    -----
    A posterior sample has overlap ``q`` with the teacher and norm ``rho`` (Chapter 1, eq. ``eq-gibbs-bayes-ratio``).

    References
    ----------
    Chapter 1, Sec. 'The replica free entropy and state evolution'; Engel and Van den Broeck (2001), Ch. 2.
    """
    q, rho = _check_overlap(q, rho)
    return float(np.arccos(min(q / rho, 1.0)) / np.pi)


@declare(w_hat=_VECTOR, w_star=_VECTOR)
def angle_error(w_hat, w_star) -> float:
    r"""Finite-size classification error from the sample angle, ``arccos(cos(w_hat, w*)) / pi``.

    Parameters
    ----------
    w_hat : array_like
        The estimate.
    w_star : array_like
        The teacher, non-zero, of the same shape.

    Returns
    -------
    float
        The angle over ``pi``, in ``[0, 1]``; 0.5 for ``w_hat = 0`` (a random guess). It does not depend on the scales
        of the two vectors (each is divided by its largest entry first).

    Raises
    ------
    ValueError
        For empty, non-finite or differently shaped vectors, or a zero teacher (no angle).

    Notes
    -----
    ``arccos(w_hat . w* / (|w_hat| |w*|)) / pi`` is the exact test error of ``sign(x . w_hat)`` on fresh Gaussian inputs;
    at finite ``d`` it is the quantity to compare with theory (it uses the sample norms, not ``rho``).

    References
    ----------
    Chapter 1, Sec. 'The algorithm: GAMP follows state evolution'.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable.metrics import angle_error, classification_error
    >>> rng = np.random.default_rng(0)
    >>> w_star = rng.standard_normal(1000)
    >>> w_hat = 3.0 * (w_star + rng.standard_normal(1000))  # m = 3, Q = 18: cosine 1/sqrt(2)
    >>> print(f"{angle_error(w_hat, w_star):.2f}, theory {classification_error(3.0, 18.0):.2f}")
    0.25, theory 0.25
    """
    if w_hat.shape != w_star.shape:
        raise InvalidParameterError(
            f"w_hat and w_star must have the same shape, got {w_hat.shape} and {w_star.shape}"
        )
    # the angle does not depend on the scales: divide each vector by its largest entry first, so that neither the
    # norms nor the dot product overflow (1e200 times a vector) or underflow (1e-200 times one)
    scale_star = float(np.max(np.abs(w_star)))
    if scale_star == 0.0:
        raise InvalidParameterError("w_star must be non-zero (a zero teacher has no angle)")
    scale_hat = float(np.max(np.abs(w_hat)))
    if scale_hat == 0.0:
        return 0.5
    a, b = w_hat.ravel() / scale_hat, w_star.ravel() / scale_star
    cos = float(np.dot(a, b)) / (float(np.linalg.norm(a)) * float(np.linalg.norm(b)))
    return float(np.arccos(min(max(cos, -1.0), 1.0)) / np.pi)
