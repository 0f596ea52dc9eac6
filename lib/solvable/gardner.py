"""Gardner capacity of the perceptron: how many random labels can a perceptron store?

Storage problem (Chapter 1, Sec. 'Warm-up: how many random labels can a perceptron store?', eq. ``eq-gardner``): ``n = alpha d`` inputs ``x_mu ~ N(0, I_d)`` with
labels ``y_mu = +-1`` drawn independently of the inputs. A weight vector ``w`` stores them with margin
``gamma >= 0`` if::

    y_mu x_mu . w / sqrt(d) >= gamma  (all mu),   with |w|^2 = d  (spherical)  or  w in {-1, +1}^d  (binary).

As ``d -> infinity`` the probability that such a ``w`` exists drops from 1 to 0 at the capacity ``alpha_c``:

- spherical weights (Gardner, J. Phys. A 21:257 (1988)):
  ``alpha_c(gamma) = 1 / int_{-gamma}^inf Dxi (xi + gamma)^2``, ``alpha_c(0) = 2``;
- binary weights (Krauth and Mezard, J. Phys. France 50:3057 (1989)): the replica-symmetric entropy (log of
  the number of solutions, per weight) vanishes at ``alpha_c``, ``alpha_c(0) = 0.8331``. The naive RS
  criterion ``q -> 1`` (Gardner and Derrida 1988) gives ``4/pi`` at ``gamma = 0``, which is wrong: the
  entropy is already negative there.

Finite size: :func:`is_linearly_separable` (a linear program), :func:`storage_probability` (Monte Carlo) and
Cover's exact counting formula :func:`cover_probability` (Cover, IEEE Trans. Electron. Comput. EC-14:326
(1965)), whose step sharpens around ``alpha = 2`` as ``d`` grows.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq, linprog, nnls
from scipy.special import log_ndtr, ndtr
from scipy.stats import binom

from .amp import iterate_fixed_point
from .domains import array, choice, declare, explained, integer, real
from .errors import ConvergenceWarning, DivergenceError, InvalidParameterError
from .errors import warn as warn_user
from .integration import DEFAULT_HERMITE_NODES, _hermite_rule, _legendre_rule, _log_phi_pdf, _mills_ratio
from .results import record
from .validation import check_design, check_size

__all__ = [
    "WEIGHTS",
    "BINARY_MARGIN_MAX",
    "BinaryEntropyResult",
    "gardner_capacity",
    "spherical_capacity",
    "binary_entropy_potential",
    "binary_storage_entropy",
    "binary_capacity",
    "is_linearly_separable",
    "hard_margin_weights",
    "max_margin",
    "storage_probability",
    "cover_probability",
]

#: Weight constraints with a capacity formula in this module.
WEIGHTS = ("spherical", "binary")
#: The largest margin of :func:`binary_capacity` (see its docstring).
BINARY_MARGIN_MAX = 4.0
#: The most trials :func:`storage_probability` runs (each solves one linear program).
MAX_TRIALS = 10**5
_SEPARABILITY_METHODS = ("lp", "nnls")
#: The largest starting overlap: from q_0 closer to 1 the iteration falls into its q = 1 flow (entropy -inf) even
#: where a replica-symmetric fixed point with q < 1 exists (at alpha = 0.5 from q_0 = 1 - 1e-9, say).
_START_MAX = 1.0 - 1e-6


#: The domains of the module's parameters (solvable.domains): a margin, a sample ratio of a finite problem (> 0), an
#: overlap between two solutions, a tolerance in (0, 1), the data of a storage problem (labels +-1, checked with the
#: shapes in the body).
MARGIN = real(0.0)
SAMPLE_ALPHA = real(0.0, low_open=True)
OVERLAP = real(0.0, 1.0, high_open=True)
OPEN_TOL = real(0.0, 1.0, low_open=True, high_open=True)
INPUTS = array(2)
LABELS = array(1)
METHOD = choice(*_SEPARABILITY_METHODS)
BINARY_MARGIN = explained(
    real(0.0, BINARY_MARGIN_MAX),
    "at larger margins the replica-symmetric overlap runs to "
    "q -> 1 before the entropy vanishes (near margin 10 and above), and before that the "
    "iteration slows down by orders of magnitude",
)

#: Round-off allowed on the constraints ``z_mu . w >= 1`` of the hard-margin weights before they count as violated.
_CERTIFICATE_TOL = 1e-6


@record
class BinaryEntropyResult:
    r"""Replica-symmetric storage entropy of binary weights at one ``(alpha, margin)``.

    Parameters
    ----------
    entropy : float
        ``s(alpha)``: (1/d) log of the number of binary ``w`` storing the labels (RS), at most ``log 2``; ``-inf`` where
        the RS overlap runs to ``q -> 1`` (no fixed point with ``q < 1``: no solutions), with ``converged = False``.
    q : float
        Overlap between two solutions, ``w . w' / d``.
    qhat : float
        Its conjugate.
    converged : bool
        Whether the fixed-point iteration met its tolerance at an overlap ``q < 1``.
    iterations : int
        Iterations used.
    message : str
        Why the iteration stopped, with its numbers (the warning's text where it warns).

    References
    ----------
    Chapter 1, Sec. 'Warm-up: how many random labels can a perceptron store?'; Krauth and Mezard, J. Phys. France
    50:3057 (1989).
    """

    entropy: float
    q: float
    qhat: float
    converged: bool
    iterations: int
    message: str

    def __post_init__(self):
        """Freeze the record (its arrays become read-only)."""


@declare(margin=MARGIN)
def spherical_capacity(margin: float = 0.0) -> float:
    r"""Gardner capacity of spherical weights at margin ``gamma``.

    Parameters
    ----------
    margin : float, optional
        The margin ``gamma >= 0`` (in units of ``x . w/sqrt(d)`` with ``|w|^2 = d``).

    Returns
    -------
    float
        ``alpha_c(gamma)``: 2 at ``gamma = 0``, decreasing, ``~ 1/gamma^2`` for large ``gamma`` (0.0, its rounded
        value, beyond ``gamma ~ 1e154``).

    Raises
    ------
    ValueError
        For a margin that is negative or not finite.

    Notes
    -----
    .. math:: \alpha_c(\gamma) = 1 / \int_{-\gamma}^\infty D\xi\, (\xi + \gamma)^2
              = 1 / [(1 + \gamma^2) \Phi(\gamma) + \gamma \varphi(\gamma)]

    (Chapter 1, eq. ``eq-gardner``); the Gaussian integral is elementary.

    References
    ----------
    Chapter 1, Sec. 'Warm-up: how many random labels can a perceptron store?'; Gardner, J. Phys. A 21:257 (1988).

    Examples
    --------
    >>> from solvable import gardner
    >>> print([round(gardner.spherical_capacity(k), 4) for k in (0.0, 0.5, 1.0)])
    [2.0, 0.9612, 0.5196]
    """
    gamma = margin
    # gamma * gamma (not gamma**2, which raises OverflowError): beyond gamma ~ 1e154 the second moment is +inf
    # in floating point and the capacity ~ 1/gamma^2 underflows to 0.0, its correctly rounded value.
    with np.errstate(over="ignore"):
        second_moment = (1.0 + gamma * gamma) * ndtr(gamma) + gamma * math.exp(float(_log_phi_pdf(gamma)))
    return float(1.0 / second_moment)


def _u_of(q: float, gamma: float, xi: np.ndarray) -> np.ndarray:
    """Normalised stability ``u = (sqrt(q) xi - gamma) / sqrt(1 - q)``."""
    return (math.sqrt(q) * xi - gamma) / math.sqrt(1.0 - q)


@declare(q=OVERLAP, qhat=real(0.0), margin=MARGIN)
def binary_entropy_potential(q: float, qhat: float, alpha: float, margin: float = 0.0) -> float:
    r"""RS storage functional of binary weights before extremisation.

    Parameters
    ----------
    q : float
        Overlap in ``[0, 1)``.
    qhat : float
        Conjugate overlap ``>= 0``.
    alpha : float
        Sample ratio ``>= 0``.
    margin : float, optional
        Margin ``gamma >= 0``.

    Returns
    -------
    float
        ``phi(q, qhat)``.

    Raises
    ------
    ValueError
        For an argument outside its domain (named).
    DivergenceError
        If the value overflows (``log Phi`` of stabilities ``~ -margin^2/(2 (1 - q))``).

    Notes
    -----
    .. math::

        \varphi(q, \hat q) = -\frac{\hat q (1 - q)}{2} + E_\xi \log 2\cosh(\sqrt{\hat q}\,\xi)
            + \alpha\, E_\xi \log \Phi\!\left(\frac{\sqrt q\,\xi - \gamma}{\sqrt{1 - q}}\right)

    The entropy is its value at the stationary point (:func:`binary_storage_entropy`). The last term uses Gauss-Hermite
    with ``log Phi`` from ``log_ndtr``; the ``log 2cosh`` term is ``sqrt(qhat) sqrt(2/pi) + E log(1 + e^{-2 sqrt(qhat)
    |xi|})`` on a Gauss-Legendre grid, accurate for large ``qhat``.

    References
    ----------
    Chapter 1, Sec. 'Warm-up: how many random labels can a perceptron store?'; Gardner and Derrida, J. Phys. A 21:271
    (1988).

    Examples
    --------
    >>> from solvable import gardner
    >>> print(f"{gardner.binary_entropy_potential(0.0, 0.0, 0.0):.4f}")  # no labels: all 2^d weights, log 2
    0.6931
    >>> res = gardner.binary_storage_entropy(0.5)  # at the stationary point: the entropy
    >>> print(f"{gardner.binary_entropy_potential(res.q, res.qhat, 0.5):.4f} = {res.entropy:.4f}")
    0.3144 = 0.3144
    """
    gamma = margin
    with np.errstate(over="ignore", invalid="ignore"):
        value = _potential(q, qhat, alpha, gamma)
    if not math.isfinite(value):
        raise DivergenceError(
            f"binary_entropy_potential overflows at q = {q}, qhat = {qhat}, alpha = {alpha}, "
            f"margin = {gamma} (log Phi of stabilities ~ -margin^2/(2 (1 - q)))"
        )
    return value


def _potential(q, qhat, alpha, gamma):
    xi, w = _hermite_rule(DEFAULT_HERMITE_NODES)
    energy = np.dot(w, log_ndtr(_u_of(q, gamma, xi)))
    return float(-0.5 * qhat * (1.0 - q) + _prior_integrals(qhat)[1] + alpha * energy)


_PRIOR_NODES = 160
_PRIOR_X_MAX = 20.0


def _prior_integrals(qhat: float) -> tuple[float, float]:
    """``(1 - q, E log 2cosh(a xi))`` with ``a = sqrt(qhat)`` and ``q = E tanh^2(a xi)``.

    ``1 - q = E sech^2(a xi)`` (no cancellation as q -> 1) and ``E log 2cosh(a xi) = a sqrt(2/pi)
    + E log(1 + e^{-2a|xi|})``. Both remaining integrands are even and decay like ``e^{-2|x|}`` in
    ``x = a xi``, which becomes sharp in ``xi`` for large ``qhat`` (where Gauss-Hermite on ``xi`` is
    inaccurate: at qhat ~ 14 it moves q by 1e-3). We substitute ``x = a |xi|``:
    ``E g(a xi) = 2 int_0^X dx phi(x/a)/a g(x)`` with ``X = min(10 a, 20)``, Gauss-Legendre.
    """
    a = math.sqrt(qhat)
    if a == 0.0:
        return 1.0, math.log(2.0)
    t, wt = _legendre_rule(_PRIOR_NODES, 1.0)
    upper = min(10.0 * a, _PRIOR_X_MAX)
    x = 0.5 * upper * (t + 1.0)
    w = upper * wt * np.exp(_log_phi_pdf(x / a)) / a  # = 2 * (upper/2) * wt * phi(x/a)/a
    e = np.exp(-2.0 * x)
    one_minus_q = float(np.dot(w, 4.0 * e / (1.0 + e) ** 2))
    log2cosh = a * math.sqrt(2.0 / math.pi) + float(np.dot(w, np.log1p(e)))
    return one_minus_q, log2cosh


def _qhat_of_q(q, alpha, gamma, xi, w):
    """``qhat = -2 alpha d/dq E log Phi(u)`` (stationarity in q), via Stein's lemma on xi.

    With ``r = phi(u)/Phi(u)`` and ``r' = -r (u + r)``:
    ``qhat = alpha/(1-q)^2 E[r (u + r)] + alpha gamma E[r] / (1-q)^{3/2}``.
    """
    u = _u_of(q, gamma, xi)
    r = _mills_ratio(u)
    return alpha * (np.dot(w, r * (u + r)) / (1.0 - q) ** 2 + gamma * np.dot(w, r) / (1.0 - q) ** 1.5)


@declare(alpha=SAMPLE_ALPHA, margin=MARGIN, start=real(0.0, _START_MAX, low_open=True), tol=OPEN_TOL)
def binary_storage_entropy(
    alpha: float,
    margin: float = 0.0,
    *,
    start: float = 0.3,
    damping: float = 0.5,
    tol: float = 1e-13,
    max_iter: int = 20_000,
) -> BinaryEntropyResult:
    r"""RS entropy of binary perceptrons storing ``alpha d`` random labels with margin ``gamma``.

    Parameters
    ----------
    alpha : float
        Sample ratio ``> 0``.
    margin : float, optional
        Stability threshold ``gamma >= 0``.
    start : float, optional
        Starting overlap ``q_0`` between two solutions, in ``(0, 1 - 1e-6]`` (closer to 1 the iteration falls into
        its ``q = 1`` flow even below the capacity).
    damping : float, optional
        Damping on ``q`` in ``[0, 1)``.
    tol : float, optional
        Tolerance on ``|q_new - q|`` in ``(0, 1)``.
    max_iter : int, optional
        Iteration cap ``>= 1`` (reaching it warns with :class:`~solvable.errors.ConvergenceWarning`).

    Returns
    -------
    BinaryEntropyResult
        The entropy, the overlaps and the iteration's outcome; ``entropy = -inf``, ``q = 1``, ``converged = False``
        (with a :class:`~solvable.errors.ConvergenceWarning`) where the overlap runs to ``q -> 1``.

    Raises
    ------
    ValueError
        For an argument outside its domain (named).
    DivergenceError
        If the entropy at the fixed point is not finite.

    Notes
    -----
    ``s(alpha) = extr_{q, qhat} phi(q, qhat)`` (:func:`binary_entropy_potential`), with stationarity conditions

    .. math::

        q = E_\xi \tanh^2(\sqrt{\hat q}\,\xi),\qquad
        \hat q = \frac{\alpha}{(1-q)^2} E_\xi[r (u + r)] + \frac{\alpha \gamma}{(1-q)^{3/2}} E_\xi[r],

    ``u = (sqrt(q) xi - gamma)/sqrt(1-q)``, ``r = phi(u)/Phi(u)`` (Stein's lemma), iterated from ``q_0 = start`` on the engine's
    driver (:func:`solvable.amp.iterate_fixed_point`, ``q`` kept in ``[1e-14, 1 - 1e-12]``). Beyond the RS fixed point
    (``alpha > 4/pi`` at ``gamma = 0``, or a margin far above the capacity) the overlap runs to ``q -> 1``, along which
    the RS functional diverges to ``-inf``.

    References
    ----------
    Chapter 1, Sec. 'Warm-up: how many random labels can a perceptron store?'; Krauth and Mezard, J. Phys. France
    50:3057 (1989); Gardner and Derrida, J. Phys. A 21:271 (1988).

    Examples
    --------
    >>> from solvable import gardner
    >>> res = gardner.binary_storage_entropy(0.5)
    >>> print(f"entropy {res.entropy:.4f}, overlap {res.q:.4f}, converged {res.converged}")
    entropy 0.3144, overlap 0.3224, converged True
    >>> print(abs(gardner.binary_storage_entropy(gardner.binary_capacity()).entropy) < 1e-6)  # zero at 0.833
    True
    """
    return _binary_entropy(alpha, margin, start, damping, tol, max_iter, warn=True)


_Q_MAX = 1.0 - 1e-12


def _binary_entropy(alpha, gamma, q, damping, tol, max_iter, *, warn):
    xi, w = _hermite_rule(DEFAULT_HERMITE_NODES)
    what = f"binary storage entropy (alpha={alpha}, margin={gamma})"

    def update(x):
        with np.errstate(over="ignore", invalid="ignore"):
            qhat = _qhat_of_q(float(x[0]), alpha, gamma, xi, w)
        if not (math.isfinite(qhat) and qhat >= 0.0):
            # overflow far beyond the capacity (qhat -> inf, whose limit is q = 1); qhat >= 0 by definition, a
            # negative value is the round-off of that overflow (margins ~ 1e30)
            return np.array([1.0])
        return np.array([1.0 - _prior_integrals(qhat)[0]])

    fp = iterate_fixed_point(
        update,
        [q],
        damping=damping,
        tol=tol,
        max_iter=max_iter,
        bounds=(1e-14, _Q_MAX),
        what=what,
        warn=False,
    )
    q = fp.value
    if q >= _Q_MAX:  # the iteration ran to q -> 1: there is no RS fixed point with q < 1
        message = (
            f"{what}: the overlap ran to q -> 1 after {fp.iterations} iterations (no replica-symmetric fixed "
            "point with q < 1); the RS entropy along that flow is -inf (no solutions): returning -inf"
        )
        if warn:
            warn_user(message, ConvergenceWarning)
        return BinaryEntropyResult(
            entropy=-math.inf,
            q=1.0,
            qhat=math.inf,
            converged=False,
            iterations=fp.iterations,
            message=message,
        )
    message = fp.message
    if not fp.converged:
        message = (
            f"{what} did not converge in {fp.iterations} iterations: last change {fp.change:.2e}, "
            f"q = {q:.6f}; the entropy returned is not meaningful"
        )
        if warn:
            warn_user(message, ConvergenceWarning)
    qhat = _qhat_of_q(q, alpha, gamma, xi, w)
    entropy = _potential(q, qhat, alpha, gamma)
    if not math.isfinite(entropy):
        raise DivergenceError(f"{what}: the RS entropy is not finite at q = {q}, qhat = {qhat}")
    return BinaryEntropyResult(
        entropy=entropy,
        q=float(q),
        qhat=float(qhat),
        converged=fp.converged,
        iterations=fp.iterations,
        message=message,
    )


@declare(margin=BINARY_MARGIN, xtol=OPEN_TOL)
def binary_capacity(margin: float = 0.0, *, xtol: float = 1e-10) -> float:
    r"""Krauth-Mezard capacity of binary weights: the ``alpha`` where the RS entropy vanishes.

    Parameters
    ----------
    margin : float, optional
        Margin ``gamma`` in ``[0, 4]`` (:data:`BINARY_MARGIN_MAX`).
    xtol : float, optional
        Absolute tolerance on ``alpha_c`` of Brent's method, in (0, 1).

    Returns
    -------
    float
        ``alpha_c(gamma)``; ``alpha_c(0) = 0.833079`` (there ``q = 0.5639``, ``qhat = 2.576``).

    Raises
    ------
    ValueError
        For a margin above 4: the replica-symmetric overlap then runs to ``q -> 1`` before the entropy vanishes (near
        margin 10 and above), and the iteration slows down by orders of magnitude before that; or a bad ``xtol``.
    DivergenceError
        If the entropy does not change sign below the spherical capacity (not expected for margins up to 4).

    Notes
    -----
    ``s(alpha_c, gamma) = 0`` (:func:`binary_storage_entropy`); ``s`` decreases from ``log 2`` at ``alpha = 0``. The
    ``alpha`` axis is scanned with step ``alpha_c^spherical(gamma) / 16`` (binary weights lie on the sphere, so
    ``alpha_c^binary < alpha_c^spherical``) up to the first negative entropy, then refined by Brent's method; a grid point
    where the RS iteration runs to ``q -> 1`` is moved back by bisection. The naive criterion ``q -> 1`` gives ``4/pi``
    at ``gamma = 0``, which is wrong: the entropy is already negative there.

    References
    ----------
    Chapter 1, Sec. 'Warm-up: how many random labels can a perceptron store?'; Krauth and Mezard, J. Phys. France
    50:3057 (1989).

    Examples
    --------
    >>> from solvable import gardner
    >>> print(f"{gardner.binary_capacity():.4f}")
    0.8331
    """
    gamma = margin
    upper = spherical_capacity(gamma)

    def entropy(alpha):
        """RS entropy at alpha, or None where the iteration finds no fixed point with q < 1."""
        res = _binary_entropy(alpha, gamma, 0.3, 0.5, 1e-13, 20_000, warn=False)
        return res.entropy if res.converged and res.q < _Q_MAX else None

    def entropy_defined(alpha):
        s = entropy(alpha)
        if (
            s is None
        ):  # pragma: no cover - q(alpha) grows with alpha, and both ends of the bracket are defined
            raise DivergenceError(f"no RS fixed point with q < 1 at alpha={alpha} (margin={gamma})")
        return s

    steps = 16
    lo = upper / (4 * steps)
    s_lo = entropy(lo)
    if s_lo is None or s_lo <= 0.0:  # pragma: no cover - s ~ log 2 at small alpha
        raise DivergenceError(f"binary storage entropy not positive at alpha={lo} (margin={gamma})")
    for k in range(1, steps + 1):
        hi = upper * k / steps
        if hi <= lo:
            continue
        s_hi = entropy(hi)
        # Above some alpha > alpha_c the RS iteration runs to q -> 1: shrink towards lo until the entropy
        # is defined again (it is negative there, giving a bracket) or the interval collapses.
        while s_hi is None and hi - lo > xtol:
            mid = 0.5 * (lo + hi)
            s_mid = entropy(mid)
            if s_mid is not None and s_mid > 0.0:
                lo = mid
            else:
                hi, s_hi = mid, s_mid
        if s_hi is None:
            break
        if s_hi < 0.0:
            return float(brentq(entropy_defined, lo, hi, xtol=xtol, rtol=4 * np.finfo(float).eps))
        lo = hi
    raise DivergenceError(
        f"the RS binary storage entropy does not reach 0 below alpha={hi} (margin={gamma}): the fixed "
        "point runs to q -> 1 first"
    )


@declare(weights=choice(*WEIGHTS), margin=MARGIN)
def gardner_capacity(weights: str = "spherical", margin: float = 0.0) -> float:
    r"""Storage capacity ``alpha_c`` of the perceptron with random labels.

    Parameters
    ----------
    weights : {"spherical", "binary"}, optional
        Weight constraint: ``|w|^2 = d`` or ``w in {-1, +1}^d``.
    margin : float, optional
        Margin ``gamma >= 0`` in units of ``x . w/sqrt(d)`` with ``|w|^2 = d`` (at most 4 for binary weights).

    Returns
    -------
    float
        ``alpha_c``: 2 (spherical) and 0.8331 (binary) at ``gamma = 0``.

    Raises
    ------
    ValueError
        For an unknown ``weights`` or a margin outside its domain.

    Notes
    -----
    Spherical: ``alpha_c(gamma) = 1 / int_{-gamma}^inf Dxi (xi + gamma)^2`` (:func:`spherical_capacity`, eq. ``eq-gardner``).
    Binary: the zero of the RS entropy (:func:`binary_capacity`).

    References
    ----------
    Chapter 1, Sec. 'Warm-up: how many random labels can a perceptron store?'; Gardner, J. Phys. A 21:257 (1988);
    Krauth and Mezard, J. Phys. France 50:3057 (1989); Engel and Van den Broeck (2001), Ch. 6.

    Examples
    --------
    >>> from solvable import gardner
    >>> print(f"{gardner.gardner_capacity('spherical'):.4f} {gardner.gardner_capacity('binary'):.4f}")
    2.0000 0.8331
    """
    return spherical_capacity(margin) if weights == "spherical" else binary_capacity(margin)


# ---------------------------------------------------------------------------------------------------
# Finite size
# ---------------------------------------------------------------------------------------------------


def _normalised(X: np.ndarray) -> np.ndarray | None:
    """``X / max|X|`` (separability, margins and weight directions are invariant under a rescaling of the data,
    and the solvers work at scale 1), or None for all-zero inputs."""
    scale = float(np.max(np.abs(X)))
    return None if scale == 0.0 else X / scale


def _strictly_separable(Z: np.ndarray) -> bool:
    """Strict separability of the rows ``z_mu = y_mu x_mu`` by an LP (see :func:`is_linearly_separable`)."""
    n, d = Z.shape
    Z = _normalised(Z)
    if Z is None:  # every z_mu = 0: no w has z_mu . w > 0
        return False
    # variables (w, t): maximise t subject to t - z_mu . w <= 0, |w_i| <= 1
    res = linprog(
        c=np.r_[np.zeros(d), -1.0],
        A_ub=np.hstack([-Z, np.ones((n, 1))]),
        b_ub=np.zeros(n),
        bounds=[(-1.0, 1.0)] * d + [(None, None)],
        method="highs",
    )
    if res.status != 0:  # pragma: no cover - the normalised LP is bounded and feasible (w = 0, t = 0)
        raise RuntimeError(f"linprog failed on the separability problem: {res.message}")
    # certificate: the returned w separates strictly in floating point
    return bool(np.min(Z @ res.x[:d]) > 0.0)


@declare(X=INPUTS, y=LABELS, margin=MARGIN, method=METHOD)
def is_linearly_separable(X, y, margin: float = 0.0, *, method: str = "lp") -> bool:
    r"""Whether some spherical ``w`` stores the labels: ``y_mu x_mu . w/sqrt(d) >= gamma`` with ``|w|^2 = d``.

    Parameters
    ----------
    X : array_like
        Inputs ``(n, d)``.
    y : array_like
        Labels ``(n,)`` in {-1, +1}.
    margin : float, optional
        ``gamma >= 0``, in units of the normalised preactivation ``x . w / sqrt(d)`` with ``|w|^2 = d``.
    method : {"lp", "nnls"}, optional
        Decision method at ``margin = 0``: a linear program, or :func:`max_margin` (10-20 times faster).

    Returns
    -------
    bool
        True if the labels are stored (strictly at ``margin = 0``). At ``margin = 0`` the answer does not depend on the
        scale of ``X``; all-zero inputs are not separable.

    Raises
    ------
    ValueError
        For malformed data, margin or method.

    Notes
    -----
    ``margin = 0`` means strict separability, ``y_mu x_mu . w > 0`` for all ``mu``. The LP solved is the bounded
    ``maximise t subject to y_mu x_mu . w >= t, |w_i| <= 1`` on the data divided by their largest entry, with
    ``scipy.optimize.linprog`` (HiGHS); the answer is True only if the returned ``w`` separates strictly in floating
    point (an explicit certificate). ``margin > 0`` fixes the scale: the condition is ``max_margin(X, y) >= margin``.

    References
    ----------
    Chapter 1, Sec. 'Warm-up: how many random labels can a perceptron store?', eq. ``eq-cover``; Cover, IEEE Trans.
    Electron. Comput. EC-14:326 (1965).
    """
    X, y = check_design(X, y, binary=True)
    gamma = margin
    if gamma == 0.0 and method == "lp":
        return _strictly_separable(y[:, None] * X)
    margin_star = max_margin(X, y)
    return margin_star > 0.0 if gamma == 0.0 else margin_star >= gamma


@declare(X=INPUTS, y=LABELS)
def hard_margin_weights(X, y) -> np.ndarray:
    r"""Solution of the hard-margin program ``min |w|^2`` subject to ``y_mu x_mu . w / sqrt(d) >= 1``.

    Parameters
    ----------
    X : array_like
        Inputs ``(n, d)``.
    y : array_like
        Labels ``(n,)`` in {-1, +1}.

    Returns
    -------
    numpy.ndarray
        The weights ``w0`` ``(d,)``; they satisfy every constraint (up to a relative ``1e-6``), a certificate that the
        data are separable. ``hard_margin_weights(c X, y) = hard_margin_weights(X, y) / c``.

    Raises
    ------
    ValueError
        If the data are not linearly separable (or all zero), or malformed, or so small (subnormal entries) that
        the weights, of size about ``1/max|X|``, overflow.

    Notes
    -----
    A least-distance program, solved exactly by one non-negative least-squares problem on the data divided by their
    largest entry: with ``z_mu = y_mu x_mu / sqrt(d)``, ``E = [Z^T; 1^T]`` and ``f = (0, ..., 0, 1)``,
    ``u = argmin_{u >= 0} |E u - f|`` (``scipy.optimize.nnls``), ``r = E u - f``, ``w0 = -r_{1..d} / r_{d+1}``. It is
    the max-margin estimator of :func:`solvable.erm.fit_max_margin`.

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'; Lawson and Hanson, *Solving Least Squares Problems* (1974), Ch. 23.
    """
    X, y = check_design(X, y, binary=True)
    n, d = X.shape
    scale = float(np.max(np.abs(X)))
    if scale == 0.0:
        raise InvalidParameterError("the data (X, y) are not linearly separable: X is all zeros")
    Z = y[:, None] * (X / scale) / math.sqrt(d)
    E = np.vstack([Z.T, np.ones((1, n))])
    f = np.zeros(d + 1)
    f[-1] = 1.0
    u, _ = nnls(E, f, maxiter=max(100, 30 * n))
    r = E @ u - f
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        w = -r[:d] / r[-1] if r[-1] != 0.0 else np.full(d, np.nan)
        stabilities = Z @ w
    # certificate: w separates strictly in floating point (z_mu . w > 0 for every mu), which proves separability
    # (the same certificate as the linear program's)
    if not (np.all(np.isfinite(w)) and np.min(stabilities) > 0.0):
        raise InvalidParameterError(
            "the data (X, y) are not linearly separable (no w with y_mu x_mu . w > 0 for every mu): "
            "no hard-margin weights"
        )
    lowest = float(np.min(stabilities))
    if lowest < 1.0 - _CERTIFICATE_TOL:
        # near the capacity the solution has a huge norm and round-off leaves some z_mu . w slightly below 1:
        # rescaling by the lowest stability restores every constraint z_mu . w >= 1
        w = w / lowest
    with np.errstate(over="ignore"):
        w = w / scale
    if not np.all(np.isfinite(w)):
        # |w| ~ sqrt(d) / (gamma* max|X|): for X of subnormal size the weights are beyond the float range
        raise InvalidParameterError(
            f"X is too small (largest entry {scale:.1e}): the hard-margin weights, of size about "
            f"1/max|X|, overflow; rescale X"
        )
    return w


@declare(X=INPUTS, y=LABELS)
def max_margin(X, y) -> float:
    r"""Largest stability ``gamma* = max_{|w|^2 = d} min_mu y_mu x_mu . w / sqrt(d)``, or 0 if not separable.

    Parameters
    ----------
    X : array_like
        Inputs ``(n, d)``.
    y : array_like
        Labels ``(n,)`` in {-1, +1}.

    Returns
    -------
    float
        ``gamma* >= 0``: the margin that the hard-margin weights achieve, a certified lower bound (equal to ``gamma*`` up
        to rounding). Homogeneous of degree one: ``max_margin(c X, y) = c max_margin(X, y)``.

    Raises
    ------
    ValueError
        For malformed data.

    Notes
    -----
    The hard-margin weights ``w0`` (:func:`hard_margin_weights`, computed on ``X / max|X|``) give
    ``gamma* = sqrt(d) / |w0|``; the value returned is ``sqrt(d) min_mu z_mu . w0 / |w0|`` rescaled by ``max|X|``.

    References
    ----------
    Chapter 1, Sec. 'Warm-up: how many random labels can a perceptron store?'; Gardner, J. Phys. A 21:257 (1988).
    """
    X, y = check_design(X, y, binary=True)
    d = X.shape[1]
    scale = float(np.max(np.abs(X)))
    if scale == 0.0:
        return 0.0
    Xn = X / scale  # gamma*(c X) = c gamma*(X): solve at scale 1
    try:
        w0 = hard_margin_weights(Xn, y)
    except ValueError:
        return 0.0
    norm = np.linalg.norm(w0)
    achieved = float(np.min((y[:, None] * Xn) @ w0)) / math.sqrt(d)
    if not (achieved > 0.0 and math.isfinite(norm) and norm > 0.0):
        return 0.0
    return float(scale * (math.sqrt(d) * achieved / norm))


@declare(alpha=SAMPLE_ALPHA, n_seeds=integer(1, MAX_TRIALS), margin=MARGIN, method=METHOD)
def storage_probability(
    d: int, alpha: float, n_seeds: int, *, margin: float = 0.0, method: str = "lp", rng
) -> float:
    r"""Monte Carlo estimate of ``P(n = round(alpha d) random labels are storable)`` at size ``d``.

    Parameters
    ----------
    d : int
        Dimension.
    alpha : float
        Sample ratio ``> 0``.
    n_seeds : int
        Independent trials (a teacher-free data set each), at most ``MAX_TRIALS``.
    margin : float, optional
        Margin ``gamma >= 0``.
    method : {"lp", "nnls"}, optional
        Decision method of :func:`is_linearly_separable` (``"nnls"`` is much faster for large sweeps).
    rng : numpy.random.Generator, int, numpy.random.SeedSequence or numpy.random.BitGenerator
        Source of randomness (keyword-only).

    Returns
    -------
    float
        The fraction of successes; its standard error is ``sqrt(p (1 - p) / n_seeds)``.

    Raises
    ------
    TypeError, ValueError
        For a malformed argument (named) or too many trials.

    Notes
    -----
    Each trial draws ``X = rng.standard_normal((n, d))`` and then ``y = rng.choice([-1, 1], n)``. At ``margin = 0`` the
    exact value is :func:`cover_probability`; as ``d -> inf`` it tends to a step at :func:`gardner_capacity`.

    References
    ----------
    Chapter 1, Sec. 'Warm-up: how many random labels can a perceptron store?'.

    Examples
    --------
    >>> from solvable import gardner
    >>> alphas = (1.5, 2.0, 2.5)
    >>> print([gardner.storage_probability(50, a, 20, method="nnls", rng=0) for a in alphas])
    [1.0, 0.65, 0.0]
    >>> print([round(gardner.cover_probability(50, round(50 * a)), 3) for a in alphas])  # the exact values
    [0.998, 0.5, 0.012]
    """
    gamma = margin
    n = max(1, round(alpha * d))
    # the inputs and, in the separability test, the signed, normalised and negated copies and the LP's matrix
    check_size(
        "one trial's inputs X (n = alpha d, d) and the four copies of its separability test", 5 * n * d
    )
    hits = 0
    for _ in range(n_seeds):  # one small LP / QP per trial
        X = rng.standard_normal((n, d))
        y = rng.choice(np.array([-1.0, 1.0]), size=n)
        hits += is_linearly_separable(X, y, gamma, method=method)
    return hits / n_seeds


@declare(n=integer(1))
def cover_probability(d: int, n: int) -> float:
    r"""Cover's probability that ``n`` random points with random labels in ``R^d`` are strictly separable.

    Parameters
    ----------
    d : int
        Dimension ``>= 1``.
    n : int
        Number of points ``>= 1``.

    Returns
    -------
    float
        ``P(n, d)``: 1 for ``n <= d``, 1/2 at ``n = 2d``; a step at ``alpha = n/d = 2`` as ``d -> inf``.

    Raises
    ------
    TypeError, ValueError
        For a non-integer or non-positive ``d`` or ``n``.

    Notes
    -----
    .. math:: P(n, d) = 2^{1-n} \sum_{k=0}^{d-1} \binom{n-1}{k} = P(\mathrm{Bin}(n - 1, 1/2) \le d - 1)

    for points in general position and hyperplanes through the origin (Chapter 1, eq. ``eq-cover``), evaluated with
    ``scipy.stats.binom.cdf``.

    References
    ----------
    Chapter 1, Sec. 'Warm-up: how many random labels can a perceptron store?'; Cover, IEEE Trans. Electron. Comput.
    EC-14:326 (1965).

    Examples
    --------
    >>> from solvable import gardner
    >>> print([round(gardner.cover_probability(100, n), 4) for n in (100, 150, 200, 250)])  # a step at n = 2d
    [1.0, 1.0, 0.5, 0.0007]
    """
    return float(binom.cdf(d - 1, n - 1, 0.5))
