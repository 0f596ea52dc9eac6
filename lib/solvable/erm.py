"""Empirical risk minimisation (ERM) with an l2 penalty on the teacher-student perceptron.

Model (Chapter 1, Secs. 'The model' and 'Empirical risk minimisation', eq. ``eq-erm``): teacher ``w* ~ N(0, I_d)`` (``rho = 1``), inputs
``x_mu ~ N(0, I_d)``, labels ``y_mu = sign(x_mu . w* / sqrt(d))``, ``mu = 1..n``, ``alpha = n/d``. The
student is::

    w_hat = argmin_w  sum_mu l(y_mu, x_mu . w / sqrt(d)) + (lam/2) |w|^2,                         (ERM)

with the square loss ``l = (y - z)^2/2`` (``loss="ridge"``), the logistic loss ``l = log(1 + e^{-y z})``
(``loss="logistic"``) or the hinge loss ``l = max(0, 1 - y z)`` (``loss="hinge"``); the hinge estimator
tends to the max-margin (hard-margin SVM) estimator as ``lam -> 0`` (:func:`max_margin_state_evolution`).
As ``d -> infinity`` the overlaps ``m = w_hat . w*/d``, ``Q = |w_hat|^2/d`` and the prox variance ``V``
concentrate on the fixed point of six scalar equations (Aubin, Krzakala, Lu, Zdeborova, "Generalization
error in high-dimensional perceptrons: approaching Bayes error with convex optimization", NeurIPS 2020,
arXiv:2006.06560, proved there with Gordon's min-max inequality), and the classification test error is
``eps = arccos(m / sqrt(Q)) / pi``.

The finite-size solvers :func:`~solvable.regression.fit_ridge`, :func:`fit_logistic`, :func:`fit_hinge` and
:func:`fit_max_margin` minimise exactly (ERM), with the same ``1/sqrt(d)`` normalisation and the same
unnormalised sum over samples, so that ``lam`` means the same
thing in theory and in simulation. (Papers that minimise ``(1/n) sum_mu l + (lam'/2)|w|^2`` have
``lam' = lam / alpha``; scikit-learn's ``C`` is ``1/lam`` with inputs ``x/sqrt(d)``.)
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq, minimize, minimize_scalar
from scipy.special import expit, ndtr

from scipy.special import log_ndtr

from .amp import iterate_fixed_point
from .domains import Domain, array, choice, declare, integer, optional, real
from .errors import ConvergenceWarning, DivergenceError, InvalidParameterError
from .errors import warn as warn_user
from .gardner import hard_margin_weights
from .integration import (
    HALF_NORMAL_UPPER,
    MAX_HERMITE_NODES,
    MAX_LEGENDRE_NODES,
    _half_normal_rule,
    _hermite_rule,
    _log_phi_pdf,
    half_normal_rule,
)
from .metrics import angle_error, classification_error
from .regression import fit_ridge
from .results import record
from .validation import check_design, check_size

__all__ = [
    "LOSSES",
    "LOGISTIC_LAM_MIN",
    "MAX_SCAN",
    "MAX_SEEDS",
    "ESTIMATORS",
    "ERMResult",
    "erm_state_evolution",
    "erm_gen_error",
    "optimal_ridge_lambda",
    "OptimalLambda",
    "optimal_lambda",
    "max_margin_state_evolution",
    "max_margin_gen_error",
    "max_margin_tail_constant",
    "fit_ridge_batch",
    "fit_logistic",
    "fit_hinge",
    "fit_max_margin",
    "erm_gen_error_simulation",
    "ERMSimulation",
    "erm_simulation",
]

#: Losses with an asymptotic theory and a finite-size solver in this module.
LOSSES = ("ridge", "logistic", "hinge")
#: Estimators accepted by the finite-size helpers: the penalised losses and the ``lam -> 0`` hinge limit.
ESTIMATORS = LOSSES + ("max-margin",)
_FORMS = ("teacher", "student")
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
#: The most data sets of :func:`erm_simulation` (one fit each).
MAX_SEEDS = 10**5
#: The most scan points of :func:`optimal_lambda` (each solves one state evolution).
MAX_SCAN = 1000
#: Smallest penalty of the logistic state evolution (see :func:`erm_state_evolution`).
LOGISTIC_LAM_MIN = 1e-12
#: Largest sample ratio of :func:`max_margin_state_evolution`: the norm grows like ``Q ~ alpha^2`` and would overflow.
_MM_ALPHA_MAX = 1e100


def _finite_vector(length: int, text: str, valid) -> Domain:
    """``length`` finite numbers (a tuple, list or 1-d array) for which ``valid(a)`` holds; checked as a tuple."""
    base = array(1)

    def check(name, value):
        try:
            a = base.check(name, value)
        except InvalidParameterError:
            a = None
        if a is None or a.shape != (length,) or not valid(a):
            raise InvalidParameterError(f"{name} must be {text}, got {str(value)[:80]}")
        return tuple(float(x) for x in a)

    return Domain(text, check, "array", (1,))


#: The domains of the module's parameters (solvable.domains): the sample ratio of ERM (> 0; the max-margin theory
#: up to 1e100), a penalty, a loss or estimator, a tolerance in (0, 1), the data of the solvers (labels +-1 and the
#: agreement of the shapes are checked in the body), the start of the state evolution and the bounds of a search.
SAMPLE_ALPHA = real(0.0, low_open=True)
MM_ALPHA = real(0.0, _MM_ALPHA_MAX, low_open=True)
LAM = real(0.0, low_open=True)
LOSS = choice(*LOSSES)
ESTIMATOR = choice(*ESTIMATORS)
OPEN_TOL = real(0.0, 1.0, low_open=True, high_open=True)
INPUTS = array(2)
LABELS = array(1)
INIT = _finite_vector(
    3, "(m, Q, V): three finite numbers with Q > m^2 and V > 0", lambda a: a[2] > 0 and a[1] > a[0] * a[0]
)
BOUNDS = _finite_vector(
    2, "a pair (low, high) of finite numbers with 0 < low < high", lambda a: 0 < a[0] < a[1]
)


@record
class ERMResult:
    r"""Fixed point of the ERM state evolution (:func:`erm_state_evolution`).

    Parameters
    ----------
    m : float
        Teacher-student overlap ``w_hat . w* / d``.
    Q : float
        Squared norm ``|w_hat|^2 / d``.
    V : float
        Prox variance ``1 / (lam + Vhat)`` (the linear response of the preactivations); ``inf`` for max margin.
    error : float
        Classification test error ``arccos(m / sqrt(Q)) / pi`` (also :attr:`gen_error`).
    train_loss : float
        Average training loss ``(1/n) sum_mu l(y_mu, x_mu . w_hat / sqrt(d))`` (penalty excluded), ``E l(y, h(y, omega,
        V))`` with ``h`` the prox of the loss at the fixed point.
    converged : bool
        Whether the iteration met its tolerance (True for closed forms).
    iterations : int
        Fixed-point iterations used (0 for a closed form).
    message : str
        How the fixed point was found: the iteration's stop (:func:`solvable.amp.stop_message`; at the cap, the
        warning's text), or which closed form or root-finder gave it.

    Raises
    ------
    DivergenceError
        If ``m``, ``Q`` or ``error`` is not finite.

    Notes
    -----
    ``eps = arccos(m / sqrt(Q)) / pi`` (Chapter 1, eq. ``eq-bayes-error`` with the estimator's overlaps).

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'; Aubin, Krzakala, Lu, Zdeborova, NeurIPS 2020, arXiv:2006.06560.
    """

    m: float
    Q: float
    V: float
    error: float
    train_loss: float
    converged: bool
    iterations: int
    message: str

    def __post_init__(self):
        if not (math.isfinite(self.m) and math.isfinite(self.Q) and math.isfinite(self.error)):
            raise DivergenceError(
                f"ERM fixed point is not finite: m = {self.m}, Q = {self.Q}, error = {self.error}"
            )

    @property
    def gen_error(self) -> float:
        """``error`` under the library's stable name (``erm_state_evolution(...).gen_error``)."""
        return self.error

    @property
    def overlap(self) -> float:
        """The teacher-student overlap ``m`` (the order parameter, as ``SEResult.overlap``)."""
        return self.m


# ---------------------------------------------------------------------------------------------------
# Proximal operators. For a label y = +1 and a field omega, h = argmin_z [(z - omega)^2/(2V) + l(+1, z)];
# we return f = (h - omega)/V, its derivative d f/d omega = -l''(h)/(1 + V l''(h)), and l(+1, h).
# Both losses satisfy l(-y, -z) = l(y, z), hence f(-1, omega) = -f(+1, -omega),
# df(-1, omega) = df(+1, -omega), l(-1, h(-1, omega)) = l(+1, h(+1, -omega)).
# ---------------------------------------------------------------------------------------------------


def _prox_ridge_plus(omega, V):
    """Square loss, label +1: h = (omega + V)/(1 + V), f = (1 - omega)/(1 + V), df = -1/(1 + V)."""
    r = 1.0 - omega
    f = r / (1.0 + V)
    return f, np.full_like(omega, -1.0 / (1.0 + V)), 0.5 * (r / (1.0 + V)) ** 2


_NEWTON_MAX = 400


def _prox_logistic_plus(omega, V):
    """Logistic loss, label +1: solve g(h) = h - omega - V sigma(-h) = 0 by safeguarded Newton.

    g is increasing (g' = 1 + V sigma(h) sigma(-h) >= 1) and its root lies in (omega, omega + V), which
    is kept as a bracket (narrowed to ``h <= max(omega, 0) + log(1 + V)``, so that a huge ``V``, i.e. a tiny
    ``lam``, costs a few bisections, not a thousand): a Newton step that leaves the bracket, or does not halve the previous move, is
    replaced by bisection (as in Numerical Recipes' ``rtsafe``). Vectorised over all entries of ``omega``.
    """
    lo = omega
    # g(H) >= log(1 + V) - V/(1 + V) >= 0 at H = max(omega, 0) + log(1 + V): a bracket of width O(log V), not V
    hi = np.minimum(omega + V, np.maximum(omega, 0.0) + math.log1p(V))
    s = expit(-omega)
    h = np.clip(omega + V * s / (1.0 + V * s * (1.0 - s)), lo, hi)  # first Newton step from h = omega
    tiny = 1e-14 * (1.0 + np.abs(omega) + min(V, math.log1p(V) + 1.0))
    last = np.full_like(h, np.inf)  # size of the previous move, per entry
    for _ in range(_NEWTON_MAX):
        s = expit(-h)
        g = h - omega - V * s
        step = g / (1.0 + V * s * (1.0 - s))
        if np.all(np.abs(step) <= tiny):  # |h - h*| <= |g| <= |step| (1 + V/4): converged
            h = h - step
            break
        lo = np.where(g < 0.0, h, lo)
        hi = np.where(g > 0.0, h, hi)
        h_new = h - step
        # Newton if it stays inside the bracket and at least halves the previous move, else bisection
        # (entries already within tolerance keep their Newton update: bisecting them would undo it)
        newton = ((h_new > lo) & (h_new < hi) & (np.abs(step) <= 0.5 * last)) | (np.abs(step) <= tiny)
        h_new = np.where(newton, h_new, 0.5 * (lo + hi))
        last = np.abs(h_new - h)
        h = h_new
    else:  # pragma: no cover - the bracketed iteration always converges in practice
        raise DivergenceError(f"logistic prox: Newton did not converge in {_NEWTON_MAX} steps")
    s = expit(-h)
    l2 = s * (1.0 - s)
    return s, -l2 / (1.0 + V * l2), np.logaddexp(0.0, -h)


def _prox_hinge_plus(omega, V):
    """Hinge loss, label +1: ``h = omega + V`` if ``omega < 1 - V``,
    ``h = 1`` if ``1 - V <= omega <= 1`` (there ``df = -1/V``), ``h = omega`` if ``omega > 1``."""
    below = omega < 1.0 - V
    middle = ~below & (omega <= 1.0)
    f = np.where(below, 1.0, np.where(middle, (1.0 - omega) / V, 0.0))
    df = np.where(middle, -1.0 / V, 0.0)
    loss = np.where(below, 1.0 - omega - V, 0.0)
    return f, df, loss


_PROX = {"ridge": _prox_ridge_plus, "logistic": _prox_logistic_plus, "hinge": _prox_hinge_plus}


def _phi(x):
    return np.exp(_log_phi_pdf(x))


def _hinge_moments(a, s, V):
    """Exact Gaussian averages over ``omega = a + s eta``, ``eta ~ N(0, 1)``, of the hinge prox (label +1).

    With ``t1 = (1 - V - a)/s``, ``t2 = (1 - a)/s``, ``c = 1 - a``, ``f`` is 1 below ``t1``,
    ``(c - s t)/V`` on ``[t1, t2]`` and 0 above, so (with ``int_{t1}^{t2} t phi = phi(t1) - phi(t2)`` and
    ``int t^2 phi = Delta Phi + t1 phi(t1) - t2 phi(t2)``) every moment is a combination of ``Phi`` and
    ``phi``.
    Returns ``(E f, E f^2, -E df, E loss)``; exact, so the kinks of the hinge cost no quadrature error.
    """
    c = 1.0 - a
    t1, t2 = (c - V) / s, c / s
    P1, dP = ndtr(t1), ndtr(t2) - ndtr(t1)
    p1, p2 = _phi(t1), _phi(t2)
    I1 = c * dP - s * (p1 - p2)
    I2 = c * c * dP - 2.0 * c * s * (p1 - p2) + s * s * (dP + t1 * p1 - t2 * p2)
    return P1 + I1 / V, P1 + I2 / V**2, dP / V, (c - V) * P1 + s * p1


def _conjugates_hinge_teacher(m, Q, V, alpha, prox, n_hermite, n_half):
    """Teacher form of the conjugates (see :func:`_conjugates_teacher`) for the hinge loss, with the
    ``eta`` average done exactly (:func:`_hinge_moments`) and the ``|z|`` average by the half-normal rule
    (``prox`` and ``n_hermite`` are unused: same signature as the generic conjugates)."""
    z, w_z = _half_normal_rule(n_half, HALF_NORMAL_UPPER)
    s = math.sqrt(max(Q - m * m, 1e-300))
    Ef0 = _hinge_moments(np.zeros(1), s, V)[0][0]
    _, Ef2, Edf, Eloss = _hinge_moments(m * z, s, V)
    return (
        alpha * _SQRT_2_OVER_PI * Ef0,
        alpha * np.dot(w_z, Ef2),
        alpha * np.dot(w_z, Edf),
        np.dot(w_z, Eloss),
    )


def _conjugates_teacher(m, Q, V, alpha, prox, n_hermite, n_half):
    """(mhat, Qhat, Vhat, train_loss) integrating over the teacher preactivation z (default form).

    Equivalent to the equations of Sec. 6 of the notes (derivation in :func:`erm_state_evolution`),
    but every integrand is smooth: with z ~ N(0, 1), omega | z ~ N(m z, Q - m^2) and the symmetry
    l(-y, -z) = l(y, z),
        mhat = alpha sqrt(2/pi) E_eta f(+1, s eta),              s = sqrt(Q - m^2),
        Qhat = alpha E_{|z|, eta} f(+1, m |z| + s eta)^2,
        Vhat = -alpha E_{|z|, eta} df(+1, m |z| + s eta).
    """
    eta, w_eta = _hermite_rule(n_hermite)
    z, w_z = _half_normal_rule(n_half, HALF_NORMAL_UPPER)
    s = math.sqrt(max(Q - m * m, 0.0))
    grid = m * z[:, None] + s * eta[None, :]
    omega = np.concatenate([grid.ravel(), s * eta])
    f, df, loss = prox(omega, V)
    k = grid.size
    weights = (w_z[:, None] * w_eta[None, :]).ravel()
    mhat = alpha * _SQRT_2_OVER_PI * np.dot(w_eta, f[k:])
    Qhat = alpha * np.dot(weights, f[:k] ** 2)
    Vhat = -alpha * np.dot(weights, df[:k])
    train = np.dot(weights, loss[:k])
    return mhat, Qhat, Vhat, train


def _conjugates_student(m, Q, V, alpha, prox, n_hermite, n_half):
    """(mhat, Qhat, Vhat, train_loss) in the form of the notes: omega = sqrt(Q) xi, sum over y = +-1.

    With mu = (m/sqrt(Q)) xi, v = 1 - m^2/Q, Z*(y) = Phi(y mu/sqrt(v)), dZ*/dmu = y phi(mu/sqrt(v))/sqrt(v):
    mhat = alpha E_xi sum_y dZ* f, Qhat = alpha E_xi sum_y Z* f^2, Vhat = -alpha E_xi sum_y Z* df.
    Both labels and all Gauss-Hermite nodes are evaluated in one vectorised prox call. The factor
    Phi(y mu/sqrt(v)) becomes a step as m^2/Q -> 1 (large alpha), where this form loses accuracy.
    """
    xi, w = _hermite_rule(n_hermite)
    v = max(1.0 - m * m / Q, 1e-300)
    b = (m / math.sqrt(Q)) * xi / math.sqrt(v)
    omega = math.sqrt(Q) * xi
    f, df, loss = prox(np.concatenate([omega, -omega]), V)  # labels +1 and -1 (via the symmetry)
    n = xi.size
    f_p, f_m = f[:n], -f[n:]
    df_p, df_m = df[:n], df[n:]
    z_p = np.exp(log_ndtr(b))
    z_m = np.exp(log_ndtr(-b))
    dz = np.exp(-0.5 * b * b) / math.sqrt(2.0 * math.pi * v)  # dZ*(+1)/dmu = -dZ*(-1)/dmu
    mhat = alpha * np.dot(w, dz * (f_p - f_m))
    Qhat = alpha * np.dot(w, z_p * f_p**2 + z_m * f_m**2)
    Vhat = -alpha * np.dot(w, z_p * df_p + z_m * df_m)
    train = np.dot(w, z_p * loss[:n] + z_m * loss[n:])
    return mhat, Qhat, Vhat, train


_CONJUGATES = {"teacher": _conjugates_teacher, "student": _conjugates_student}


def _ridge_closed_form(alpha: float, lam: float) -> ERMResult:
    """Closed-form ridge fixed point (Sec. 6 of the notes); see :func:`erm_state_evolution`.

    Written so that no intermediate overflows or underflows at extreme ``alpha`` or ``lam``: the discriminant as
    ``hypot(b, 2 sqrt(lam))``, ``Q = [m^2 + c (1 - 2 m sqrt(2/pi))]/(1 - c)``, and the error from
    ``cos^2 = m^2/Q = (1 - c)/(1 + r)``, ``sin^2 = (c + r)/(1 + r)``, ``r = pi (1 - 2 m sqrt(2/pi)) / (2 alpha)``
    (with ``(1 + V) mhat = alpha sqrt(2/pi)``; ``V`` cancels between ``m = mhat V`` and ``Q ~ V^2``), as
    ``atan2(sin, cos)/pi``, which keeps its relative precision when the error is small.
    """
    b = lam + alpha - 1.0
    # V = [-b + sqrt(b^2 + 4 lam)]/(2 lam), written without cancellation for b > 0.
    disc = math.hypot(b, 2.0 * math.sqrt(lam))
    V = 2.0 / (b + disc) if b > 0 else (disc - b) / (2.0 * lam)
    mhat = alpha * _SQRT_2_OVER_PI / (1.0 + V)
    m = mhat * V
    c = (alpha * V / (1.0 + V)) * (V / (1.0 + V))  # alpha V^2/(1 + V)^2 without underflow of V^2
    if not c < 1.0:  # pragma: no cover - c < 1 for every lam > 0
        raise DivergenceError(f"ridge fixed point has no finite norm (c = {c} >= 1)")
    residual = 1.0 - 2.0 * m * _SQRT_2_OVER_PI
    Q = (m * m + c * residual) / (1.0 - c)  # V^2 mhat^2 = m^2
    train = (
        (1.0 - 2.0 * m * _SQRT_2_OVER_PI + Q) / (1.0 + V) / (1.0 + V) / 2.0
    )  # (1 + V)^2 overflows at lam ~ 1e-300
    # cos^2 = (1 - c)/(1 + r), sin^2 = (c + r)/(1 + r) with r = pi (1 - 2 m sqrt(2/pi))/(2 alpha): the angle as
    # atan2(sin, cos) keeps its relative precision when it is small (acos(1 - eps) loses it)
    r = residual * math.pi / (2.0 * alpha)  # (1 + V) mhat = alpha sqrt(2/pi)
    angle = math.atan2(math.sqrt(max(c + r, 0.0)), math.sqrt(1.0 - c))
    return ERMResult(
        m=float(m),
        Q=float(Q),
        V=float(V),
        error=float(angle / math.pi),
        train_loss=float(train),
        converged=True,
        iterations=0,
        message="closed form of the ridge fixed point (no iteration)",
    )


@declare(
    alpha=SAMPLE_ALPHA,
    loss=LOSS,
    lam=LAM,
    method=choice("auto", "iterate"),
    form=choice(*_FORMS),
    tol=OPEN_TOL,
    init=INIT,
    n_hermite=optional(integer(2, MAX_HERMITE_NODES), "61 (teacher form), 201 (student)"),
    n_half=integer(2, MAX_LEGENDRE_NODES),
)
def erm_state_evolution(
    alpha: float,
    loss: str = "ridge",
    *,
    lam: float,
    method: str = "auto",
    form: str = "teacher",
    damping: float = 0.5,
    tol: float = 1e-11,
    max_iter: int = 5000,
    init: tuple[float, float, float] = (0.5, 1.0, 1.0),
    n_hermite: int | None = None,
    n_half: int = 64,
) -> ERMResult:
    r"""Asymptotic overlaps of l2-penalised ERM on the sign teacher.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n/d > 0``.
    loss : {"ridge", "logistic", "hinge"}, optional
        Training loss: ``(y - z)^2/2``, ``log(1 + e^{-y z})`` or ``max(0, 1 - y z)``.
    lam : float
        l2 penalty ``> 0`` (keyword-only; normalisation of eq. ``eq-erm`` in the module docstring); ``>= 1e-12``
        (:data:`LOGISTIC_LAM_MIN`) for the logistic loss.
    method : {"auto", "iterate"}, optional
        ``"auto"``: closed form for ridge, the max-margin fixed point for the hinge loss at a penalty so small that no
        sample lies inside the margin, iteration otherwise. ``"iterate"``: always iterate.
    form : {"teacher", "student"}, optional
        Quadrature form of the conjugate equations (see Notes).
    damping : float, optional
        ``x <- damping x + (1 - damping) x_new`` for ``x`` in ``(m, Q, V)``, in [0, 1).
    tol : float, optional
        Stop when ``max |x_new - x| / max(1, |x_new|) < tol`` over ``(m, Q, V)``, in (0, 1).
    max_iter : int, optional
        Iteration cap; reaching it warns with :class:`~solvable.errors.ConvergenceWarning`.
    init : tuple of float, optional
        Starting point ``(m, Q, V)``, ``Q > m^2`` and ``V > 0``.
    n_hermite : int, optional
        Gauss-Hermite nodes (default 61 for the teacher form, 201 for the student form), at most 300.
    n_half : int, optional
        Nodes of the half-normal rule of the teacher form.

    Returns
    -------
    ERMResult
        ``m``, ``Q``, ``V``, the test error and the training loss at the fixed point.

    Raises
    ------
    ValueError
        For an argument outside its domain (named), a logistic ``lam`` below 1e-12 (the estimator's norm and ``V ~ 1/lam``
        grow without bound: its limit is :func:`max_margin_state_evolution`), or the student form with the hinge loss.
    DivergenceError
        If the iteration produces non-finite values.

    Notes
    -----
    With the prox ``h(y, omega, V) = argmin_z [(z - omega)^2/(2V) + l(y, z)]``, ``f = (h - omega)/V`` and
    ``df/domega = -l''(h)/(1 + V l''(h))``, the fixed point is

    .. math::

        \hat m = \alpha E_\xi \sum_y \partial_\mu Z^* f,\quad
        \hat Q = \alpha E_\xi \sum_y Z^* f^2,\quad
        \hat V = -\alpha E_\xi \sum_y Z^* \partial_\omega f,

        m = \hat m/(\lambda + \hat V),\quad Q = (\hat m^2 + \hat Q)/(\lambda + \hat V)^2,\quad
        V = 1/(\lambda + \hat V),

    with ``omega = sqrt(Q) xi``, ``Z*(y) = Phi(y mu/sqrt(v))``, ``mu = (m/sqrt(Q)) xi``, ``v = 1 - m^2/Q``, and
    ``eps = arccos(m/sqrt(Q))/pi``.

    ``form="student"`` evaluates these expectations literally (Gauss-Hermite over ``xi``, both labels at once).
    ``form="teacher"`` integrates over the teacher's preactivation ``z ~ N(0,1)`` first, with ``omega | z ~ N(m z, Q -
    m^2)``: ``mhat = alpha sqrt(2/pi) E_eta f(+1, sqrt(Q - m^2) eta)`` and, by the symmetry ``l(-y, -z) = l(y, z)``,
    ``Qhat`` and ``Vhat`` become integrals over ``|z|`` (half-normal rule) and ``eta`` (Gauss-Hermite); it stays accurate
    as ``m^2/Q -> 1`` (large ``alpha``), where ``Phi(y mu/sqrt(v))`` becomes a step.

    Ridge has the closed form ``lam V^2 + (lam + alpha - 1) V - 1 = 0``, ``mhat = alpha sqrt(2/pi)/(1 + V)``,
    ``m = mhat V``, ``Q = [m^2 + c (1 - 2 m sqrt(2/pi))]/(1 - c)`` with ``c = alpha V^2/(1+V)^2``. The logistic prox
    is solved by safeguarded Newton at all quadrature nodes at once. The hinge prox is piecewise linear, so its ``eta``
    averages are exact; as ``lam -> 0`` its fixed point is that of :func:`max_margin_state_evolution`, with
    ``V = (1 - alpha p)/lam`` (``p`` the fraction of support vectors).

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation', eq. ``eq-erm``; Aubin, Krzakala, Lu, Zdeborova, "Generalization error
    in high-dimensional perceptrons: approaching Bayes error with convex optimization", NeurIPS 2020, arXiv:2006.06560.

    Examples
    --------
    >>> from solvable import erm
    >>> res = erm.erm_state_evolution(2.0, "logistic", lam=0.1)
    >>> print(f"m {res.m:.4f}, Q {res.Q:.4f}, V {res.V:.4f}, error {res.error:.4f}, converged {res.converged}")
    m 1.7203, Q 4.1458, V 3.9765, error 0.1797, converged True
    """
    if n_hermite is None:
        n_hermite = 61 if form == "teacher" else 201
    m, Q, V = init

    if loss == "ridge" and method == "auto":
        return _ridge_closed_form(alpha, lam)
    if loss == "logistic" and lam < LOGISTIC_LAM_MIN:
        raise InvalidParameterError(
            f"lam must be >= {LOGISTIC_LAM_MIN:g} for the logistic loss, got {lam!r}: below, the norm of "
            "the estimator and the prox variance V ~ 1/lam grow without bound and the fixed-point "
            "iteration loses its precision; as lam -> 0 the logistic estimator tends to the max-margin "
            "one (max_margin_state_evolution)"
        )
    if loss == "hinge" and method == "auto":
        plateau = _hinge_plateau(alpha, lam)
        if plateau is not None:
            return plateau
    if loss == "hinge" and form == "student":
        raise InvalidParameterError(
            "form must be 'teacher' for the hinge loss (Gauss-Hermite across its kinks is inaccurate)"
        )

    half_normal_rule(n_half)  # the rule, checked against the size cap once (the loop reads it from the cache)
    prox = _PROX[loss]
    # hinge: exact eta integrals (teacher form only)
    conjugates = _conjugates_hinge_teacher if loss == "hinge" else _CONJUGATES[form]

    def update(x):
        """One step of the saddle-point equations: (m, Q, V) -> conjugates -> (m, Q, V); observed: train loss."""
        m, Q, V = x
        if not (V > 0 and Q >= m * m):  # left the domain of the equations: report it as a divergence
            return np.full(3, math.nan), math.nan
        mhat, Qhat, Vhat, train = conjugates(m, Q, V, alpha, prox, n_hermite, n_half)
        r = lam + Vhat
        if not r > 0:
            return np.full(3, math.nan), train
        return np.array([mhat / r, (mhat * mhat + Qhat) / r**2, 1.0 / r]), train

    fp = iterate_fixed_point(
        update,
        [m, Q, V],
        damping=damping,
        tol=tol,
        max_iter=max_iter,
        relative=True,
        what=f"ERM state evolution ({loss}, alpha={alpha}, lam={lam})",
    )
    m, Q, V = (float(x) for x in fp.state)
    if fp.converged:
        # train loss at the converged point (the last evaluation used the previous iterate)
        train = conjugates(m, Q, V, alpha, prox, n_hermite, n_half)[3]
    else:
        train = float(fp.observed[-1])
    return ERMResult(
        m=m,
        Q=Q,
        V=V,
        error=classification_error(m, Q),
        train_loss=float(train),
        converged=fp.converged,
        iterations=fp.iterations,
        message=fp.message,
    )


def _hinge_plateau(alpha: float, lam: float) -> ERMResult | None:
    """The hinge fixed point at a penalty so small that no sample is inside the margin: the max-margin one.

    With the max-margin overlaps ``(m, Q)``, ``s = sqrt(Q - m^2)``, the fraction of support vectors
    ``p = E_z Phi((1 - m|z|)/s)`` and ``V = (1 - alpha p)/lam``, a sample lies inside the margin with
    probability ``E_z Phi((1 - V - m|z|)/s) <= Phi(-(V - 1)/s)``; when that is below ``Phi(-40)`` (zero in
    double precision) the hinge estimator is the max-margin one. Returns None otherwise.
    """
    mm = max_margin_state_evolution(alpha)
    s = mm.m * math.tan(
        math.pi * mm.error
    )  # s = m r with eps = arctan(r)/pi (Q - m^2 cancels at large alpha)
    if not s > 0.0:
        return None
    z, w_z = _half_normal_rule(64, HALF_NORMAL_UPPER)
    p = float(np.dot(w_z, ndtr((1.0 - mm.m * z) / s)))
    v = 1.0 - alpha * p
    with np.errstate(over="ignore", divide="ignore"):
        V = v / lam
    if not (v > 0 and math.isfinite(V) and (V - 1.0) / s > 40.0):
        return None
    return ERMResult(
        m=mm.m,
        Q=mm.Q,
        V=float(V),
        error=mm.error,
        train_loss=0.0,
        converged=True,
        iterations=0,
        message=f"no sample inside the margin at this penalty: the max-margin fixed point ({mm.message})",
    )


@declare(alpha=SAMPLE_ALPHA, loss=LOSS, lam=LAM)
def erm_gen_error(alpha: float, loss: str = "ridge", *, lam: float) -> float:
    r"""Asymptotic classification test error of l2-penalised ERM on the sign teacher.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n/d > 0``.
    loss : {"ridge", "logistic", "hinge"}, optional
        Training loss.
    lam : float
        l2 penalty ``> 0`` (keyword-only).

    Returns
    -------
    float
        ``eps = arccos(m / sqrt(Q)) / pi`` at the fixed point of :func:`erm_state_evolution`; for example
        ``erm_gen_error(2.0, "ridge", lam=optimal_ridge_lambda())`` is 0.186028.

    Raises
    ------
    ValueError
        As :func:`erm_state_evolution`.

    Notes
    -----
    Gaussian teacher ``w* ~ N(0, I)``, labels ``sign(x . w*/sqrt(d))``, estimator of eq. ``eq-erm``.

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'; Aubin et al., NeurIPS 2020, arXiv:2006.06560.

    Examples
    --------
    >>> from solvable import erm, glm
    >>> print(f"ridge {erm.erm_gen_error(2.0, 'ridge', lam=0.5708):.4f}, Bayes {glm.bayes_gen_error(2.0):.4f}")
    ridge 0.1860, Bayes 0.1745
    """
    return erm_state_evolution(alpha, loss, lam=lam).error


@declare()
def optimal_ridge_lambda() -> float:
    r"""Penalty minimising the ridge test error on the sign teacher, ``lam* = pi/2 - 1``.

    Returns
    -------
    float
        ``pi/2 - 1 ~ 0.5708``, independent of ``alpha``.

    Notes
    -----
    The square loss fits the labels ``y = sign(z)`` as a linear channel ``y = mu z + noise`` with
    ``mu = E|z| = sqrt(2/pi)`` and noise variance ``1 - 2/pi``; the Bayes-optimal ridge penalty for a ``N(0, 1)`` signal
    seen through ``mu z`` is ``noise / mu^2 = (1 - 2/pi)/(2/pi) = pi/2 - 1``.

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'; Aubin et al., NeurIPS 2020, arXiv:2006.06560.

    Examples
    --------
    >>> from solvable import erm
    >>> lam = erm.optimal_ridge_lambda()
    >>> print(f"{lam:.4f}", [round(erm.erm_gen_error(2.0, "ridge", lam=x), 4) for x in (0.1, lam, 2.0)])
    0.5708 [0.1955, 0.186, 0.1944]
    """
    return math.pi / 2.0 - 1.0


def _max_margin_G(u):
    """``G(u) = E (u - eta)_+ = u Phi(u) + phi(u)``."""
    return u * ndtr(u) + _phi(u)


def _max_margin_g(t):
    """``g(t) = E (-t - eta)_+^2 = (t^2 + 1) Phi(-t) - t phi(t)``."""
    return (t * t + 1.0) * ndtr(-t) - t * _phi(t)


_MM_T_MAX = 12.0  # g(t) < 1e-33 beyond
_MM_NODES = np.polynomial.legendre.leggauss(200)


def _max_margin_residual(u: float, alpha: float) -> float:
    """Left side minus right side of the ``Q`` equation of :func:`max_margin_state_evolution` at ``u``."""
    r = 1.0 / (alpha * _SQRT_2_OVER_PI * _max_margin_G(u))
    t_nodes, t_w = _MM_NODES
    half = 0.5 * (_MM_T_MAX + u)
    t = -u + half * (t_nodes + 1.0)
    integral = half * np.dot(t_w, 2.0 * _phi(r * (u + t)) * _max_margin_g(t))
    return alpha * r * integral - 1.0


#: Below this sample ratio every sample is a support vector to double precision (``u = 1/s > 18``), and the
#: Gauss-Legendre rule of the general equation no longer resolves its peak of width ``1/r ~ sqrt(alpha)``:
#: :func:`max_margin_state_evolution` uses the closed form of :func:`_max_margin_small_alpha`.
_MM_ALPHA_SMALL = 3e-3


def _max_margin_small_alpha(alpha: float) -> ERMResult:
    """Max-margin fixed point when every constraint is active: ``m = alpha sqrt(2/pi)``,
    ``s^2 = alpha (1 - 2 m sqrt(2/pi) + m^2) / (1 - alpha)``.

    The positive parts of the equations of :func:`max_margin_state_evolution` are inactive with probability
    ``Phi(-1/s) < 1e-70`` here, so that the estimator is the minimum-norm interpolator of the labels and the
    equations are polynomial; ``eps = 1/2 - arctan(m/s)/pi ~ 1/2 - sqrt(2 alpha/pi)/pi`` as ``alpha -> 0``.
    """
    m = alpha * _SQRT_2_OVER_PI
    s = math.sqrt(alpha * (1.0 - 2.0 * m * _SQRT_2_OVER_PI + m * m) / (1.0 - alpha))
    return ERMResult(
        m=float(m),
        Q=float(m * m + s * s),
        V=math.inf,
        error=float(0.5 - math.atan2(m, s) / math.pi),
        train_loss=0.0,
        converged=True,
        iterations=0,
        message=f"closed form at alpha < {_MM_ALPHA_SMALL:g}: every sample a support vector (no iteration)",
    )


@declare(alpha=MM_ALPHA, xtol=OPEN_TOL)
def max_margin_state_evolution(alpha: float, *, xtol: float = 1e-13) -> ERMResult:
    r"""Asymptotic overlaps of the max-margin (hard-margin SVM) estimator on the sign teacher.

    Parameters
    ----------
    alpha : float
        Sample ratio in ``(0, 1e100]`` (beyond, the norm ``Q ~ alpha^2`` overflows).
    xtol : float, optional
        Absolute tolerance of Brent's method on ``u``, relative to the bracket, in (0, 1).

    Returns
    -------
    ERMResult
        ``m``, ``Q``, ``V = inf``, the test error ``arctan(r)/pi``, ``train_loss = 0`` (every margin is at least 1),
        ``converged = True`` and ``iterations = 0`` (a root, not an iteration).

    Raises
    ------
    ValueError
        For ``alpha`` or ``xtol`` outside its domain.
    DivergenceError
        If no root is bracketed (not expected for ``alpha > 0``).

    Notes
    -----
    ``w_hat = argmin |w|^2`` subject to ``y_mu x_mu . w/sqrt(d) >= 1``; its margin in the units of
    :func:`solvable.gardner.max_margin` is ``kappa = 1/sqrt(Q)``. It is the ``lam -> 0`` limit of the hinge fixed point
    of :func:`erm_state_evolution`: with ``V = v/lam`` the six equations reduce to two (``s^2 = Q - m^2``):

    .. math::

        m = \alpha \sqrt{2/\pi}\; E_\eta (1 - s\eta)_+ ,\qquad
        Q - m^2 = \alpha\, E_{z, \eta} (1 - m|z| - s\eta)_+^2 ,

    Gardner's equations for the perceptron of maximal stability. In ``r = s/m`` (``eps = arctan(r)/pi``) and ``u = 1/s``
    the first is ``r = 1/(alpha sqrt(2/pi) G(u))``, ``G(u) = u Phi(u) + phi(u)``, and the second the single equation
    ``alpha r int_{-u}^inf 2 phi(r (u + t)) g(t) dt = 1``, ``g(t) = (t^2 + 1) Phi(-t) - t phi(t)``, solved for ``u`` by
    Brent's method. As ``alpha -> inf``, ``alpha eps -> 0.5005`` (:func:`max_margin_tail_constant`), against 0.4417 for
    the Bayes-optimal error. Below ``alpha = 3e-3`` every sample is a support vector to double precision and the
    equations are polynomial: ``m = alpha sqrt(2/pi)``, ``s^2 = alpha (1 - 2 m sqrt(2/pi) + m^2)/(1 - alpha)`` (the
    minimum-norm interpolator; ``eps ~ 1/2 - sqrt(2 alpha/pi)/pi``).

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'; Gardner, J. Phys. A 21:257 (1988); Aubin et al., NeurIPS 2020,
    arXiv:2006.06560.

    Examples
    --------
    >>> from solvable import erm
    >>> res = erm.max_margin_state_evolution(5.0)
    >>> print(f"error {res.error:.4f}, converged {res.converged}")
    error 0.0938, converged True
    """
    if alpha < _MM_ALPHA_SMALL:
        return _max_margin_small_alpha(alpha)
    grid = np.logspace(-4, 4, 161)
    values = np.array([_max_margin_residual(u, alpha) for u in grid])
    sign_change = np.nonzero(np.sign(values[:-1]) != np.sign(values[1:]))[0]
    if sign_change.size == 0:  # pragma: no cover - there is always a root for alpha > 0
        raise DivergenceError(f"max-margin equations: no root in u for alpha={alpha}")
    k = int(sign_change[0])
    u = brentq(_max_margin_residual, grid[k], grid[k + 1], args=(alpha,), xtol=xtol * grid[k], rtol=1e-14)
    r = 1.0 / (alpha * _SQRT_2_OVER_PI * float(_max_margin_G(u)))
    s = 1.0 / u
    m = s / r
    Q = m * m + s * s
    return ERMResult(
        m=float(m),
        Q=float(Q),
        V=math.inf,
        error=float(math.atan(r) / math.pi),
        train_loss=0.0,
        converged=True,
        iterations=0,
        message=f"root of the max-margin equation by Brent's method (u = {u:.6g}, xtol {xtol:.0e})",
    )


@declare()
def max_margin_tail_constant() -> float:
    r"""The large-``alpha`` constant of the max-margin error, ``lim alpha eps = 0.5005``.

    Returns
    -------
    float
        ``1/(sqrt(2 pi) G(u))`` with ``G(u) = u Phi(u) + phi(u)``.

    Notes
    -----
    ``u`` is the root of ``G(u) = int_{-u}^inf g(t) dt``, ``g(t) = (t^2 + 1) Phi(-t) - t phi(t)``: the ``r -> 0`` limit of
    the equations of :func:`max_margin_state_evolution`.

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'; Aubin et al., NeurIPS 2020, arXiv:2006.06560.

    Examples
    --------
    >>> from solvable import erm, glm
    >>> print(f"{erm.max_margin_tail_constant():.4f}")
    0.5005
    >>> a = 1000.0  # alpha eps at large alpha: max margin against Bayes (0.4417)
    >>> print(f"max-margin {a * erm.max_margin_gen_error(a):.4f}, Bayes {a * glm.bayes_gen_error(a):.4f}")
    max-margin 0.5005, Bayes 0.4417
    """
    t_nodes, t_w = _MM_NODES

    def residual(u):
        half = 0.5 * (_MM_T_MAX + u)
        return half * np.dot(t_w, _max_margin_g(-u + half * (t_nodes + 1.0))) - _max_margin_G(u)

    u = brentq(residual, 1e-3, 10.0, xtol=1e-14)
    return float(1.0 / (math.sqrt(2.0 * math.pi) * _max_margin_G(u)))


@declare(alpha=MM_ALPHA)
def max_margin_gen_error(alpha: float) -> float:
    r"""Asymptotic test error of the max-margin estimator on the sign teacher.

    Parameters
    ----------
    alpha : float
        Sample ratio in ``(0, 1e100]``.

    Returns
    -------
    float
        ``arccos(m/sqrt(Q))/pi`` at the fixed point of :func:`max_margin_state_evolution`.

    Raises
    ------
    ValueError
        For ``alpha`` outside its domain.

    Notes
    -----
    ``alpha eps -> 0.5005`` as ``alpha -> inf`` (:func:`max_margin_tail_constant`).

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'; Aubin et al., NeurIPS 2020, arXiv:2006.06560.

    Examples
    --------
    >>> from solvable import erm
    >>> print([round(erm.max_margin_gen_error(a), 4) for a in (1.0, 5.0, 20.0)])
    [0.2657, 0.0938, 0.0249]
    """
    return max_margin_state_evolution(alpha).error


@record
class OptimalLambda:
    r"""Result of :func:`optimal_lambda`.

    Parameters
    ----------
    lam : float
        The penalty that minimises the asymptotic test error.
    result : ERMResult
        The ERM fixed point at ``lam``.

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'.
    """

    lam: float
    result: ERMResult

    def __post_init__(self):
        """Freeze the record (its arrays become read-only)."""

    @property
    def error(self) -> float:
        """The test error at ``lam``, ``result.error``."""
        return self.result.error

    @property
    def gen_error(self) -> float:
        """``error`` under the library's stable name."""
        return self.result.error


@declare(
    alpha=SAMPLE_ALPHA, loss=LOSS, bounds=BOUNDS, n_scan=integer(3, MAX_SCAN), xatol=real(0.0, low_open=True)
)
def optimal_lambda(
    alpha: float,
    loss: str,
    *,
    bounds: tuple[float, float] = (1e-3, 10.0),
    n_scan: int = 9,
    xatol: float = 1e-3,
    **se_kwargs,
) -> OptimalLambda:
    r"""Penalty ``lam_opt(alpha)`` minimising the asymptotic ERM test error, and the error there.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n/d > 0``.
    loss : {"ridge", "logistic", "hinge"}
        Training loss.
    bounds : tuple of float, optional
        ``(low, high)``, ``0 < low < high``: the interval of ``lam`` searched.
    n_scan : int, optional
        Points of the initial log-spaced scan, in ``[3, MAX_SCAN]`` (each solves one state evolution).
    xatol : float, optional
        Tolerance of the bounded Brent search in ``log10 lam``.
    **se_kwargs
        Passed to :func:`erm_state_evolution` (defaults here: ``tol=1e-9``, ``damping=0.3``, ``n_hermite=41``,
        ``n_half=40``, ``max_iter=20000``).

    Returns
    -------
    OptimalLambda
        ``lam`` and the fixed point there (``error``, ``gen_error``); a bound if the minimum sits at it.

    Raises
    ------
    ValueError
        For an argument outside its domain (named).

    Notes
    -----
    ``eps(lam) = arccos(m/sqrt(Q))/pi`` is first evaluated on ``n_scan`` log-spaced points across ``bounds`` (from large
    to small ``lam``, each warm-started from the previous fixed point), then refined by bounded Brent search between the
    neighbours of the best point. The scan matters for the hinge loss, whose error is exactly flat (equal to max margin)
    for every ``lam`` below the point where no sample lies inside the margin. For ridge the answer is the closed form
    :func:`optimal_ridge_lambda`. The error is flat at its minimum, so ``xatol = 1e-3`` fixes the error far better than
    ``lam``. Optimally regularised logistic regression comes close to Bayes: at ``alpha = 2``, ``lam_opt = 0.0163`` and
    ``eps = 0.174587`` (Bayes 0.174534).

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'; Aubin et al., NeurIPS 2020, arXiv:2006.06560.

    Examples
    --------
    >>> from solvable import erm, glm
    >>> opt = erm.optimal_lambda(2.0, "hinge")
    >>> print(f"lam_opt {opt.lam:.2f}, hinge {opt.error:.3f}, Bayes {glm.bayes_gen_error(2.0):.3f}")
    lam_opt 0.14, hinge 0.185, Bayes 0.175
    >>> print(f"{erm.optimal_lambda(2.0, 'ridge').lam:.4f}")  # the closed form pi/2 - 1
    0.5708
    """
    lo, hi = bounds
    if loss == "ridge":
        lam = optimal_ridge_lambda()
        return OptimalLambda(lam=lam, result=erm_state_evolution(alpha, "ridge", lam=lam))
    se_kwargs = {"tol": 1e-9, "damping": 0.3, "n_hermite": 41, "n_half": 40, "max_iter": 20000, **se_kwargs}
    cache: dict[float, ERMResult] = {}
    last = [(0.5, 1.0, 1.0)]

    def error(log_lam):
        if log_lam not in cache:
            res = erm_state_evolution(alpha, loss, lam=10.0**log_lam, init=last[0], **se_kwargs)
            if res.Q > res.m**2:
                last[0] = (res.m, res.Q, res.V)
            cache[log_lam] = res
        return cache[log_lam].error

    grid = np.linspace(math.log10(lo), math.log10(hi), n_scan)
    # scan from large to small lam: the fixed point moves smoothly and warm starts stay good
    errors = {x: error(x) for x in grid[::-1]}
    i = int(np.argmin([errors[x] for x in grid]))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, n_scan - 1)]
    last[0] = (cache[grid[i]].m, cache[grid[i]].Q, cache[grid[i]].V)
    minimize_scalar(error, bounds=(a, b), method="bounded", options={"xatol": xatol})
    best = min(cache, key=lambda k: cache[k].error)
    return OptimalLambda(lam=float(10.0**best), result=cache[best])


# ---------------------------------------------------------------------------------------------------
# Finite size
# ---------------------------------------------------------------------------------------------------


@declare(X=INPUTS, y=LABELS, lam=LAM, tol=OPEN_TOL, w0=optional(array(1), "zeros"))
def fit_logistic(X, y, lam: float, *, tol: float = 1e-6, max_iter: int = 10_000, w0=None) -> np.ndarray:
    r"""Logistic estimator ``argmin_w sum_mu log(1 + exp(-y_mu x_mu . w/sqrt(d))) + (lam/2) |w|^2``.

    Parameters
    ----------
    X : array_like
        Inputs ``(n, d)``.
    y : array_like
        Labels ``(n,)`` in {-1, +1}.
    lam : float
        Penalty ``> 0``.
    tol : float, optional
        Convergence when the largest gradient component is below ``tol`` (L-BFGS-B's ``gtol``; ``ftol = 0``), in (0, 1).
        ``|w - w_exact| <= sqrt(d) tol / lam``, so the default 1e-6 is far below the ``O(1/sqrt(d))`` sampling
        fluctuations; values below about 1e-8 are not reachable in double precision for ``n ~ 10^3``, as the line search
        compares objective values of size ``~ n``.
    max_iter : int, optional
        Iteration cap; if the final gradient is still above ``tol`` a :class:`~solvable.errors.ConvergenceWarning` is
        emitted and the last iterate returned.
    w0 : array_like, optional
        Starting point ``(d,)`` (default 0).

    Returns
    -------
    numpy.ndarray
        The weights ``(d,)``.

    Raises
    ------
    ValueError
        For malformed data or controls (named).
    DivergenceError
        If the fit produces non-finite weights.

    Notes
    -----
    L-BFGS-B with the analytic gradient ``-F^T (y sigma(-y F w)) + lam w``, ``F = X/sqrt(d)``; ``log(1 + e^{-t})`` is
    ``np.logaddexp(0, -t)``. The objective is ``lam``-strongly convex: the minimiser is unique (eq. ``eq-erm``).

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'.

    Examples
    --------
    >>> from solvable import erm, glm
    >>> from solvable.metrics import angle_error
    >>> data = glm.sample(400, 2.0, rng=0)
    >>> w_hat = erm.fit_logistic(data.X, data.y, 0.1)
    >>> theory = erm.erm_gen_error(2.0, "logistic", lam=0.1)
    >>> print(f"logistic {angle_error(w_hat, data.w_star):.2f}, theory {theory:.2f}")
    logistic 0.18, theory 0.18
    """
    X, y = check_design(X, y, binary=True)
    n, d = X.shape
    F = X / math.sqrt(d)
    w0 = np.zeros(d) if w0 is None else w0.copy()
    if w0.shape != (d,):
        raise InvalidParameterError(
            f"w0 must be an array of shape ({d},) (one weight per column of X), got shape {w0.shape}"
        )

    def objective(w):
        margins = y * (F @ w)
        value = np.sum(np.logaddexp(0.0, -margins)) + 0.5 * lam * np.dot(w, w)
        grad = lam * w - F.T @ (y * expit(-margins))
        return value, grad

    res = minimize(
        objective,
        w0,
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "gtol": tol, "ftol": 0.0, "maxcor": 20},
    )
    grad_max = float(np.max(np.abs(objective(res.x)[1])))
    if not np.all(np.isfinite(res.x)):
        raise DivergenceError(f"logistic fit produced non-finite weights after {res.nit} iterations")
    if grad_max > tol:
        warn_user(
            f"fit_logistic did not converge in {res.nit} iterations: max |gradient| = {grad_max:.2e} "
            f"> tol = {tol:.1e} ({res.message})",
            ConvergenceWarning,
        )
    return res.x


@declare(X=array(3), y=array(2), lam=LAM)
def fit_ridge_batch(X, y, lam: float) -> np.ndarray:
    r""":func:`~solvable.regression.fit_ridge` for a stack of data sets at once.

    Parameters
    ----------
    X : array_like
        Inputs ``(S, n, d)``.
    y : array_like
        Targets ``(S, n)``.
    lam : float
        Penalty ``> 0``.

    Returns
    -------
    numpy.ndarray
        The weights ``(S, d)``.

    Raises
    ------
    ValueError
        For malformed data or penalty (named).

    Notes
    -----
    One batched solve of the stacked ``d x d`` or ``n x n`` normal equations ``(F^T F + lam I) w = F^T y``; data sets at
    extreme scales or with a numerically singular system fall back to :func:`~solvable.regression.fit_ridge` one by one.

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import erm, regression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((3, 200, 50))
    >>> y = np.sign(rng.standard_normal((3, 200)))
    >>> W = erm.fit_ridge_batch(X, y, 0.5)
    >>> print(W.shape, bool(np.allclose(W[1], regression.fit_ridge(X[1], y[1], 0.5))))
    (3, 50) True
    """
    if y.shape != X.shape[:2]:
        raise InvalidParameterError(f"X must have shape (S, n, d) and y (S, n); got {X.shape} and {y.shape}")
    S, n, d = X.shape
    F = X / math.sqrt(d)
    Ft = np.swapaxes(F, 1, 2)
    try:
        with np.errstate(all="ignore"):
            if d <= n:
                w = np.linalg.solve(Ft @ F + lam * np.eye(d), (Ft @ y[..., None]))[..., 0]
            else:
                w = (Ft @ np.linalg.solve(F @ Ft + lam * np.eye(n), y[..., None]))[..., 0]
        if np.all(np.isfinite(w)):
            return w
    except np.linalg.LinAlgError:
        pass
    # extreme scales or a numerically singular system: the scale-safe solver, one data set at a time
    return np.array([fit_ridge(X[k], y[k], lam) for k in range(S)])


@declare(X=INPUTS, y=LABELS, lam=LAM, tol=OPEN_TOL)
def fit_hinge(X, y, lam: float, *, tol: float = 1e-8, max_iter: int = 10_000) -> np.ndarray:
    r"""Hinge (soft-margin SVM) estimator ``argmin_w sum_mu max(0, 1 - y_mu x_mu . w/sqrt(d)) + (lam/2)|w|^2``.

    Parameters
    ----------
    X : array_like
        Inputs ``(n, d)``.
    y : array_like
        Labels ``(n,)`` in {-1, +1}.
    lam : float
        Penalty ``> 0``.
    tol : float, optional
        Projected-gradient tolerance of the dual solver, in (0, 1).
    max_iter : int, optional
        Iteration cap; reaching it warns (:class:`~solvable.errors.ConvergenceWarning`).

    Returns
    -------
    numpy.ndarray
        The weights ``(d,)``.

    Raises
    ------
    ValueError
        For malformed data or controls (named).

    Notes
    -----
    Solved in the dual: with ``z_mu = y_mu x_mu/sqrt(d)``, ``a = argmin_{0 <= a <= 1} |Z^T a|^2/(2 lam) - sum a`` and
    ``w = Z^T a / lam`` (strong duality of a strongly convex program), a box-constrained quadratic program solved by
    L-BFGS-B.

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'; Boyd and Vandenberghe, *Convex Optimization* (2004), Sec. 5.2.

    Examples
    --------
    >>> from solvable import erm, glm
    >>> from solvable.metrics import angle_error
    >>> data = glm.sample(400, 2.0, rng=0)
    >>> w_hat = erm.fit_hinge(data.X, data.y, 0.1)
    >>> theory = erm.erm_gen_error(2.0, "hinge", lam=0.1)
    >>> print(f"hinge {angle_error(w_hat, data.w_star):.2f}, theory {theory:.2f}")
    hinge 0.18, theory 0.19
    """
    X, y = check_design(X, y, binary=True)
    n, d = X.shape
    Zt = (y[:, None] * X / math.sqrt(d)).T

    def dual(a):
        v = Zt @ a
        return 0.5 * np.dot(v, v) / lam - a.sum(), Zt.T @ v / lam - 1.0

    res = minimize(
        dual,
        np.zeros(n),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, 1.0)] * n,
        options={"maxiter": max_iter, "gtol": tol, "ftol": 0.0, "maxcor": 20},
    )
    if not res.success and res.nit >= max_iter:
        warn_user(f"fit_hinge did not converge in {res.nit} iterations ({res.message})", ConvergenceWarning)
    return Zt @ res.x / lam


@declare(X=INPUTS, y=LABELS)
def fit_max_margin(X, y) -> np.ndarray:
    r"""Max-margin (hard-margin SVM) estimator ``argmin |w|^2`` subject to ``y_mu x_mu . w/sqrt(d) >= 1``.

    Parameters
    ----------
    X : array_like
        Inputs ``(n, d)``.
    y : array_like
        Labels ``(n,)`` in {-1, +1}.

    Returns
    -------
    numpy.ndarray
        The weights ``(d,)``; every constraint holds (a certificate of separability).

    Raises
    ------
    ValueError
        If the data are not linearly separable (never the case for the labels of a sign teacher), or malformed.

    Notes
    -----
    Solved exactly by one non-negative least-squares problem (:func:`solvable.gardner.hard_margin_weights`); the
    ``lam -> 0`` limit of :func:`fit_hinge` (eq. ``eq-erm``).

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'; Lawson and Hanson, *Solving Least Squares Problems* (1974), Ch. 23.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import erm, glm
    >>> from solvable.metrics import angle_error
    >>> data = glm.sample(200, 3.0, rng=0)
    >>> w_hat = erm.fit_max_margin(data.X, data.y)
    >>> print(bool(np.all(data.y * (data.X @ w_hat) > 0)))
    True
    >>> print(f"max-margin {angle_error(w_hat, data.w_star):.2f}, theory {erm.max_margin_gen_error(3.0):.2f}")
    max-margin 0.14, theory 0.14
    """
    w0 = hard_margin_weights(X, y)
    if w0 is None:
        raise InvalidParameterError("the data (X, y) are not linearly separable: no max-margin estimator")
    return w0


def _penalty(loss: str, lam: float | None) -> float | None:
    """The penalty of an estimator: None (ignored) for max margin, a number > 0 (declared) for the others."""
    if loss == "max-margin":
        return None
    if lam is None:
        raise InvalidParameterError(
            f"lam must be a number > 0 for loss {loss!r} (None only for 'max-margin')"
        )
    return lam


_FIT = {
    "ridge": fit_ridge,
    "logistic": fit_logistic,
    "hinge": fit_hinge,
    "max-margin": lambda X, y, lam: fit_max_margin(X, y),
}


@declare(alpha=SAMPLE_ALPHA, loss=ESTIMATOR, lam=optional(LAM, "none: the max-margin estimator's"))
def erm_gen_error_simulation(d: int, alpha: float, loss: str, lam: float | None, *, rng) -> float:
    r"""Test error of ERM at finite size ``d``: one teacher, one training set, one fit.

    Parameters
    ----------
    d : int
        Dimension.
    alpha : float
        Sample ratio ``n/d > 0``; ``n = round(alpha d)``.
    loss : {"ridge", "logistic", "hinge", "max-margin"}
        Estimator.
    lam : float or None
        Penalty ``> 0`` (ignored, may be None, for ``"max-margin"``).
    rng : numpy.random.Generator, int, numpy.random.SeedSequence or numpy.random.BitGenerator
        Source of randomness (keyword-only).

    Returns
    -------
    float
        The angle error ``arccos(cos(w_hat, w*))/pi``, the exact test error of ``sign(x . w_hat)`` on fresh Gaussian
        inputs.

    Raises
    ------
    TypeError, ValueError
        For a malformed argument (named) or a design above the size cap.

    Notes
    -----
    Draw order: ``w* = rng.standard_normal(d)``, ``X = rng.standard_normal((n, d))``, ``y = sign(X w*/sqrt(d))``. It
    fluctuates around :func:`erm_gen_error` by ``O(1/sqrt(d))``.

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'.
    """
    lam = _penalty(loss, lam)
    n = max(1, round(alpha * d))
    check_size("the teacher (d), the design X (n = alpha d, d) and the fit's two copies of it", 3 * n * d + d)
    w_star = rng.standard_normal(d)
    X = rng.standard_normal((n, d))
    y = np.where(X @ w_star >= 0.0, 1.0, -1.0)
    w_hat = _FIT[loss](X, y, lam)
    return angle_error(w_hat, w_star)


@record
class ERMSimulation:
    r"""Finite-size ERM test errors over independent data sets.

    Parameters
    ----------
    d : int
        Dimension.
    alpha : float
        Sample ratio.
    errors : numpy.ndarray
        One test error per data set.

    Attributes
    ----------
    mean, sem : float
        Mean of ``errors`` and its standard error.

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'.
    """

    d: int
    alpha: float
    errors: np.ndarray

    def __post_init__(self):
        """Freeze the record (its arrays become read-only)."""

    @property
    def mean(self) -> float:
        """Mean test error over the data sets."""
        return float(np.mean(self.errors))

    @property
    def sem(self) -> float:
        """Standard error of the mean over data sets (0 for a single one)."""
        k = self.errors.size
        return float(np.std(self.errors, ddof=1) / math.sqrt(k)) if k > 1 else 0.0


@declare(
    alpha=SAMPLE_ALPHA,
    loss=ESTIMATOR,
    lam=optional(LAM, "none: the max-margin estimator's"),
    n_seeds=integer(1, MAX_SEEDS),
)
def erm_simulation(d: int, alpha: float, loss: str, lam: float | None, n_seeds: int, *, rng) -> ERMSimulation:
    r"""Test errors of ERM on ``n_seeds`` independent data sets at size ``d`` (error bars for a figure).

    Parameters
    ----------
    d : int
        Dimension.
    alpha : float
        Sample ratio ``n/d > 0``.
    loss : {"ridge", "logistic", "hinge", "max-margin"}
        Estimator.
    lam : float or None
        Penalty ``> 0`` (ignored for ``"max-margin"``).
    n_seeds : int
        Number of independent data sets, at most ``MAX_SEEDS``.
    rng : numpy.random.Generator, int, numpy.random.SeedSequence or numpy.random.BitGenerator
        Source of randomness (keyword-only); data set ``s`` is drawn from the ``s``-th child of ``rng.spawn(n_seeds)``.

    Returns
    -------
    ERMSimulation
        The errors, their mean and standard error.

    Raises
    ------
    TypeError, ValueError
        For a malformed argument (named) or designs above the size cap.

    Notes
    -----
    Each entry equals :func:`erm_gen_error_simulation` on the same child generator; ridge fits all data sets in one
    batched solve (:func:`fit_ridge_batch`).

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation'.

    Examples
    --------
    >>> from solvable import erm
    >>> lam = erm.optimal_ridge_lambda()
    >>> sim = erm.erm_simulation(200, 2.0, "ridge", lam, 10, rng=0)
    >>> print(f"{sim.mean:.2f} +/- {sim.sem:.3f}, theory {erm.erm_gen_error(2.0, 'ridge', lam=lam):.2f}")
    0.19 +/- 0.004, theory 0.19
    """
    lam = _penalty(loss, lam)
    n = max(1, round(alpha * d))
    check_size("the teacher (d), the design X (n = alpha d, d) and the fit's two copies of it", 3 * n * d + d)
    if loss == "ridge":
        check_size(
            "the stacked designs X (n_seeds, n = alpha d, d) of the batched ridge fit and its two copies of "
            "them",
            3 * n_seeds * n * d,
        )
    children = rng.spawn(n_seeds)
    if loss != "ridge":
        errors = [erm_gen_error_simulation(d, alpha, loss, lam, rng=child) for child in children]
        return ERMSimulation(d=d, alpha=alpha, errors=np.array(errors))
    w_star = np.empty((n_seeds, d))
    X = np.empty((n_seeds, n, d))
    for k, child in enumerate(children):
        w_star[k] = child.standard_normal(d)
        X[k] = child.standard_normal((n, d))
    y = np.where(np.einsum("snd,sd->sn", X, w_star) >= 0.0, 1.0, -1.0)
    w_hat = fit_ridge_batch(X, y, lam)
    errors = np.array([angle_error(w, ws) for w, ws in zip(w_hat, w_star)])
    return ERMSimulation(d=d, alpha=alpha, errors=errors)
