"""Empirical risk minimisation (ERM) with an l2 penalty on the teacher-student perceptron.

Model (``science/perceptron.md``, Secs. 1 and 6): teacher ``w* ~ N(0, I_d)`` (``rho = 1``), inputs
``x_mu ~ N(0, I_d)``, labels ``y_mu = sign(x_mu . w* / sqrt(d))``, ``mu = 1..n``, ``alpha = n/d``. The
student is

    w_hat = argmin_w  sum_mu l(y_mu, x_mu . w / sqrt(d)) + (lam/2) |w|^2,                         (ERM)

with the square loss ``l = (y - z)^2/2`` (``loss="ridge"``), the logistic loss ``l = log(1 + e^{-y z})``
(``loss="logistic"``) or the hinge loss ``l = max(0, 1 - y z)`` (``loss="hinge"``); the hinge estimator
tends to the max-margin (hard-margin SVM) estimator as ``lam -> 0`` (:func:`max_margin_state_evolution`).
As ``d -> infinity`` the overlaps ``m = w_hat . w*/d``, ``Q = |w_hat|^2/d`` and the prox variance ``V``
concentrate on the fixed point of six scalar equations (Aubin, Krzakala, Lu, Zdeborova, "Generalization
error in high-dimensional perceptrons: approaching Bayes error with convex optimization", NeurIPS 2020,
arXiv:2006.06560, proved there with Gordon's min-max inequality), and the classification test error is
``eps = arccos(m / sqrt(Q)) / pi``.

The finite-size solvers :func:`fit_ridge`, :func:`fit_logistic`, :func:`fit_hinge` and
:func:`fit_max_margin` minimise exactly (ERM), with the same ``1/sqrt(d)`` normalisation and the same
unnormalised sum over samples, so that ``lam`` means the same
thing in theory and in simulation. (Papers that minimise ``(1/n) sum_mu l + (lam'/2)|w|^2`` have
``lam' = lam / alpha``; scikit-learn's ``C`` is ``1/lam`` with inputs ``x/sqrt(d)``.)
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize, minimize_scalar
from scipy.special import expit, ndtr

from .amp import iterate_fixed_point
from .errors import ConvergenceWarning, DivergenceError
from .gardner import hard_margin_weights
from .integration import half_normal_rule, hermite_rule, log_Phi, log_phi_pdf
from .metrics import angle_error, classification_error
from .regression import fit_ridge
from .validation import (
    check_array,
    check_choice,
    check_design,
    check_in_range,
    check_int,
    check_positive,
    check_rng,
    check_size,
)

__all__ = [
    "LOSSES",
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
    "fit_ridge",
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


@dataclass(frozen=True)
class ERMResult:
    """Fixed point of the ERM state evolution (:func:`erm_state_evolution`).

    Attributes
    ----------
    m : float
        Teacher-student overlap ``w_hat . w* / d``.
    Q : float
        Squared norm ``|w_hat|^2 / d``.
    V : float
        Prox variance ``1 / (lam + Vhat)`` (the linear response of the preactivations).
    error : float
        Classification test error ``arccos(m / sqrt(Q)) / pi`` (also :attr:`gen_error`, the name of
        :class:`solvable.amp.SEResult`, whose naming this saddle-point result follows).
    train_loss : float
        Average training loss ``(1/n) sum_mu l(y_mu, x_mu . w_hat / sqrt(d))`` (penalty excluded):
        ``E l(y, h(y, omega, V))``, with ``h`` the prox of the loss at the fixed point (the training
        preactivations are the prox of the leave-one-out fields ``omega``). Checked against finite-size
        fits in ``tests/test_erm.py``.
    converged : bool
        Whether the relative change fell below ``tol`` (always True for the ridge closed form).
    iterations : int
        Fixed-point iterations used (0 for the ridge closed form).
    """

    m: float
    Q: float
    V: float
    error: float
    train_loss: float
    converged: bool
    iterations: int

    def __post_init__(self):
        if not (math.isfinite(self.m) and math.isfinite(self.Q) and math.isfinite(self.error)):
            raise DivergenceError(f"ERM fixed point is not finite: m = {self.m}, Q = {self.Q}, error = {self.error}")

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


_NEWTON_MAX = 100


def _prox_logistic_plus(omega, V):
    """Logistic loss, label +1: solve g(h) = h - omega - V sigma(-h) = 0 by safeguarded Newton.

    g is increasing (g' = 1 + V sigma(h) sigma(-h) >= 1) and its root lies in (omega, omega + V), which
    is kept as a bracket: a Newton step that leaves the bracket, or does not halve the previous move, is
    replaced by bisection (as in Numerical Recipes' ``rtsafe``). Vectorised over all entries of ``omega``.
    """
    lo = omega
    hi = omega + V
    s = expit(-omega)
    h = omega + V * s / (1.0 + V * s * (1.0 - s))  # first Newton step from h = omega
    tiny = 1e-14 * (1.0 + np.abs(omega) + V)
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
    """Hinge loss, label +1 (``science/perceptron.md``, Sec. 6): ``h = omega + V`` if ``omega < 1 - V``,
    ``h = 1`` if ``1 - V <= omega <= 1`` (there ``df = -1/V``), ``h = omega`` if ``omega > 1``."""
    below = omega < 1.0 - V
    middle = ~below & (omega <= 1.0)
    f = np.where(below, 1.0, np.where(middle, (1.0 - omega) / V, 0.0))
    df = np.where(middle, -1.0 / V, 0.0)
    loss = np.where(below, 1.0 - omega - V, 0.0)
    return f, df, loss


_PROX = {"ridge": _prox_ridge_plus, "logistic": _prox_logistic_plus, "hinge": _prox_hinge_plus}


def _phi(x):
    return np.exp(log_phi_pdf(x))


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
    z, w_z = half_normal_rule(n_half)
    s = math.sqrt(max(Q - m * m, 1e-300))
    Ef0 = _hinge_moments(np.zeros(1), s, V)[0][0]
    _, Ef2, Edf, Eloss = _hinge_moments(m * z, s, V)
    return (alpha * _SQRT_2_OVER_PI * Ef0, alpha * np.dot(w_z, Ef2), alpha * np.dot(w_z, Edf),
            np.dot(w_z, Eloss))


def _conjugates_teacher(m, Q, V, alpha, prox, n_hermite, n_half):
    """(mhat, Qhat, Vhat, train_loss) integrating over the teacher preactivation z (default form).

    Equivalent to the equations of Sec. 6 of the notes (derivation in :func:`erm_state_evolution`),
    but every integrand is smooth: with z ~ N(0, 1), omega | z ~ N(m z, Q - m^2) and the symmetry
    l(-y, -z) = l(y, z),
        mhat = alpha sqrt(2/pi) E_eta f(+1, s eta),              s = sqrt(Q - m^2),
        Qhat = alpha E_{|z|, eta} f(+1, m |z| + s eta)^2,
        Vhat = -alpha E_{|z|, eta} df(+1, m |z| + s eta).
    """
    eta, w_eta = hermite_rule(n_hermite)
    z, w_z = half_normal_rule(n_half)
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
    xi, w = hermite_rule(n_hermite)
    v = max(1.0 - m * m / Q, 1e-300)
    b = (m / math.sqrt(Q)) * xi / math.sqrt(v)
    omega = math.sqrt(Q) * xi
    f, df, loss = prox(np.concatenate([omega, -omega]), V)  # labels +1 and -1 (via the symmetry)
    n = xi.size
    f_p, f_m = f[:n], -f[n:]
    df_p, df_m = df[:n], df[n:]
    z_p = np.exp(log_Phi(b))
    z_m = np.exp(log_Phi(-b))
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
    train = (1.0 - 2.0 * m * _SQRT_2_OVER_PI + Q) / (2.0 * (1.0 + V) ** 2)
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
    r"""Asymptotic overlaps of l2-penalised ERM on the sign teacher (Aubin et al. 2020, arXiv:2006.06560).

    With the prox ``h(y, omega, V) = argmin_z [(z - omega)^2/(2V) + l(y, z)]``, ``f = (h - omega)/V`` and
    ``df/domega = -l''(h)/(1 + V l''(h))``, the fixed point (``science/perceptron.md``, Sec. 6) is

    .. math::

        \hat m = \alpha E_\xi \sum_y \partial_\mu Z^* f,\quad
        \hat Q = \alpha E_\xi \sum_y Z^* f^2,\quad
        \hat V = -\alpha E_\xi \sum_y Z^* \partial_\omega f,

        m = \hat m/(\lambda + \hat V),\quad Q = (\hat m^2 + \hat Q)/(\lambda + \hat V)^2,\quad
        V = 1/(\lambda + \hat V),

    with ``omega = sqrt(Q) xi``, ``Z*(y) = Phi(y mu/sqrt(v))``, ``mu = (m/sqrt(Q)) xi``, ``v = 1 - m^2/Q``,
    and ``eps = arccos(m/sqrt(Q))/pi``.

    **Integration** (``form``). ``"student"`` evaluates these expectations literally (Gauss-Hermite over
    ``xi``, 201 nodes, both labels at once). ``"teacher"`` (default) uses the equivalent form obtained by
    integrating over the teacher's preactivation ``z ~ N(0,1)`` first, with ``omega | z ~ N(m z, Q - m^2)``:
    ``dZ*/dmu = y p(z = 0 | xi)`` turns ``mhat`` into ``alpha sqrt(2/pi) E_eta f(+1, sqrt(Q - m^2) eta)``, and
    the symmetry ``l(-y, -z) = l(y, z)`` reduces ``Qhat``, ``Vhat`` to integrals over ``|z|`` (half-normal
    Gauss-Legendre rule, :func:`~solvable.integration.half_normal_rule`) and ``eta`` (Gauss-Hermite, 61
    nodes). Both agree to ~1e-13 at alpha = 2; the teacher form stays accurate when ``m^2/Q -> 1``
    (large alpha), where ``Phi(y mu/sqrt(v))`` becomes a step and the student form fails (at alpha = 20,
    lam = 0.1 it no longer converges).

    **Ridge** (``l = (y - z)^2/2``; ``method="auto"`` uses the closed form): ``Vhat = alpha/(1 + V)``, so
    ``lam V^2 + (lam + alpha - 1) V - 1 = 0``; ``mhat = alpha sqrt(2/pi)/(1 + V)``, ``m = mhat V`` and, with
    ``c = alpha V^2/(1+V)^2``, ``Q = [V^2 mhat^2 + c (1 - 2 m sqrt(2/pi))]/(1 - c)``. ``method="iterate"``
    runs the generic iteration with the ridge prox instead (a check of both).

    **Logistic** (``l = log(1 + e^{-y z})``): damped iteration (``damping`` on ``(m, Q, V)``) from ``init``,
    with the prox solved by safeguarded Newton on ``h - omega - V y sigma(-y h) = 0`` at all quadrature
    nodes at once. Sign-teacher data are separable for ``alpha < 2``, and as ``lam -> 0`` the norm grows
    like the max-margin solution: the iteration slows down for ``lam <~ 0.01``.

    **Hinge** (``l = max(0, 1 - y z)``): same damped iteration. Its prox is piecewise linear
    (``science/perceptron.md``, Sec. 6), so in the teacher form the ``eta`` averages are done exactly with
    ``Phi`` and ``phi`` and only the ``|z|`` average uses quadrature (the student form, with Gauss-Hermite
    across the kinks, would be inaccurate and is refused). As ``lam -> 0`` the fixed point tends to
    :func:`max_margin_state_evolution` (checked to 1e-11 in ``tests/test_erm.py``).

    Parameters
    ----------
    alpha : float
        Sample ratio ``n/d > 0``.
    loss : {"ridge", "logistic", "hinge"}
        Training loss.
    lam : float
        l2 penalty ``> 0`` (keyword-only; normalisation of (ERM) in the module docstring).
    method : {"auto", "iterate"}
        ``"auto"``: closed form for ridge, iteration for logistic. ``"iterate"``: always iterate.
    form : {"teacher", "student"}
        Quadrature form of the conjugate equations (see above).
    damping : float in [0, 1)
        ``x <- damping * x + (1 - damping) * x_new`` for ``x`` in ``(m, Q, V)``.
    tol : float in (0, 1)
        Stop when ``max |x_new - x| / max(1, |x_new|) < tol`` over ``(m, Q, V)`` (the engine's driver,
        :func:`solvable.amp.iterate_fixed_point` with ``relative=True``).
    max_iter : int >= 1
        Iteration cap; reaching it warns with :class:`~solvable.errors.ConvergenceWarning`.
    init : (m, Q, V)
        Starting point, ``Q > m^2`` and ``V > 0``.
    n_hermite, n_half : int
        Quadrature sizes (``n_hermite`` defaults to 61 for the teacher form, 201 for the student form).

    Returns
    -------
    ERMResult

    Raises
    ------
    ValueError
        For ``alpha`` or ``lam`` not finite and positive, or an unknown ``loss`` / ``method`` / ``form``.
    DivergenceError
        If the iteration produces non-finite values.
    """
    alpha = check_positive("alpha", alpha)
    loss = check_choice("loss", loss, LOSSES)
    lam = check_positive("lam", lam)
    method = check_choice("method", method, ("auto", "iterate"))
    form = check_choice("form", form, _FORMS)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    tol = check_in_range("tol", tol, 0.0, 1.0, low_open=True, high_open=True)
    max_iter = check_int("max_iter", max_iter)
    if n_hermite is None:
        n_hermite = 61 if form == "teacher" else 201
    n_hermite = check_int("n_hermite", n_hermite, minimum=2)
    if n_hermite > 300:
        raise ValueError(f"n_hermite must be an integer in [2, 300], got {n_hermite!r}")
    n_half = check_int("n_half", n_half, minimum=2)
    try:
        m, Q, V = (float(x) for x in init)
    except (TypeError, ValueError):
        raise ValueError(f"init must be (m, Q, V) with Q > m^2 and V > 0 finite, got {init!r}") from None
    if not (math.isfinite(m) and math.isfinite(Q) and V > 0 and math.isfinite(V) and Q > m * m):
        raise ValueError(f"init must be (m, Q, V) with Q > m^2 and V > 0 finite, got {init!r}")

    if loss == "ridge" and method == "auto":
        return _ridge_closed_form(alpha, lam)
    if loss == "hinge" and form == "student":
        raise ValueError("form must be 'teacher' for the hinge loss "
                         "(Gauss-Hermite across its kinks is inaccurate)")

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

    fp = iterate_fixed_point(update, [m, Q, V], damping=damping, tol=tol, max_iter=max_iter, relative=True,
                             what=f"ERM state evolution ({loss}, alpha={alpha}, lam={lam})", stacklevel=3)
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
    )


def erm_gen_error(alpha: float, loss: str = "ridge", *, lam: float) -> float:
    """Asymptotic classification test error of l2-penalised ERM on the sign teacher.

    ``eps = arccos(m / sqrt(Q)) / pi`` at the fixed point of :func:`erm_state_evolution` (Aubin, Krzakala,
    Lu, Zdeborova, NeurIPS 2020, arXiv:2006.06560; ``science/perceptron.md``, Sec. 6). Gaussian teacher
    ``w* ~ N(0, I)``, labels ``sign(x . w*/sqrt(d))``. Example: ``erm_gen_error(2.0, "ridge",
    lam=optimal_ridge_lambda())`` is 0.186028.
    """
    return erm_state_evolution(alpha, loss, lam=lam).error


def optimal_ridge_lambda() -> float:
    """Penalty minimising the ridge test error on the sign teacher: ``lam* = pi/2 - 1 ~ 0.5708``.

    Independent of ``alpha`` (Aubin et al. 2020, arXiv:2006.06560; ``science/perceptron.md``, Sec. 6).
    Reason: the square loss fits the labels ``y = sign(z)`` as a linear channel ``y = mu z + noise`` with
    ``mu = E|z| = sqrt(2/pi)`` and noise variance ``1 - 2/pi``; the Bayes-optimal ridge penalty for a
    ``N(0, 1)`` signal seen through ``mu z`` is ``noise / mu^2 = (1 - 2/pi)/(2/pi) = pi/2 - 1``.
    """
    return math.pi / 2.0 - 1.0


def _max_margin_G(u):
    """``G(u) = E (u - eta)_+ = u Phi(u) + phi(u)``."""
    return u * ndtr(u) + _phi(u)


def _max_margin_g(t):
    """``g(t) = E (-t - eta)_+^2 = (t^2 + 1) Phi(-t) - t phi(t)``."""
    return (t * t + 1.0) * ndtr(-t) - t * _phi(t)


_MM_T_MAX = 12.0  # g(t) < 1e-33 beyond
#: Largest sample ratio of :func:`max_margin_state_evolution`: the norm grows like ``Q ~ alpha^2`` and would overflow.
_MM_ALPHA_MAX = 1e100
_MM_NODES = np.polynomial.legendre.leggauss(200)


def _max_margin_residual(u: float, alpha: float) -> float:
    """Left side minus right side of the ``Q`` equation of :func:`max_margin_state_evolution` at ``u``."""
    r = 1.0 / (alpha * _SQRT_2_OVER_PI * _max_margin_G(u))
    t_nodes, t_w = _MM_NODES
    half = 0.5 * (_MM_T_MAX + u)
    t = -u + half * (t_nodes + 1.0)
    integral = half * np.dot(t_w, 2.0 * _phi(r * (u + t)) * _max_margin_g(t))
    return alpha * r * integral - 1.0


def max_margin_state_evolution(alpha: float, *, xtol: float = 1e-13) -> ERMResult:
    r"""Asymptotic overlaps of the max-margin (hard-margin SVM) estimator on the sign teacher.

    ``w_hat = argmin |w|^2`` subject to ``y_mu x_mu . w/sqrt(d) >= 1`` for all ``mu`` (the data of a sign
    teacher are always separable); its margin in the units of :func:`solvable.gardner.max_margin` is
    ``kappa = 1/sqrt(Q)``. It is the ``lam -> 0`` limit of the hinge fixed point of
    :func:`erm_state_evolution` (Aubin, Krzakala, Lu, Zdeborova 2020, arXiv:2006.06560): with
    ``V = v/lam``, ``f -> lam (1 - y omega)_+ y / v`` and ``v = 1 - alpha p`` (``p`` the fraction of
    support vectors), ``v`` drops out and the six equations reduce to two (teacher form, ``s^2 = Q - m^2``,
    ``z, eta ~ N(0, 1)``):

    .. math::

        m = \alpha \sqrt{2/\pi}\; E_\eta (1 - s\eta)_+ ,\qquad
        Q - m^2 = \alpha\, E_{z, \eta} (1 - m|z| - s\eta)_+^2 ,

    Gardner's equations for the perceptron of maximal stability. In the variables ``r = s/m`` (so that
    ``eps = arctan(r)/pi``) and ``u = 1/s``, the first is ``r = 1/(alpha sqrt(2/pi) G(u))`` with
    ``G(u) = u Phi(u) + phi(u)``, and the second, after ``|z| = (u + t) r``, is the single equation
    ``alpha r int_{-u}^inf 2 phi(r (u + t)) g(t) dt = 1`` with ``g(t) = (t^2 + 1) Phi(-t) - t phi(t)``,
    solved for ``u`` by Brent's method (Gauss-Legendre in ``t``). This form has no cancellation at large
    ``alpha``, where ``alpha eps -> 1/(sqrt(2 pi) G(u_inf)) = 0.5005`` (:func:`max_margin_tail_constant`;
    Aubin et al. 2020), against 0.4417 for the Bayes-optimal error.

    Returns an :class:`ERMResult` with ``V = inf``, ``train_loss = 0`` (every margin is at least 1),
    ``converged = True`` and ``iterations = 0`` (a root, not an iteration). ``alpha`` must lie in
    ``(0, 1e100]`` (beyond, the norm ``Q ~ alpha^2`` overflows).
    """
    alpha = check_in_range("alpha", alpha, 0.0, _MM_ALPHA_MAX, low_open=True)
    xtol = check_in_range("xtol", xtol, 0.0, 1.0, low_open=True, high_open=True)
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
    return ERMResult(m=float(m), Q=float(Q), V=math.inf, error=float(math.atan(r) / math.pi),
                     train_loss=0.0, converged=True, iterations=0)


def max_margin_tail_constant() -> float:
    """``lim alpha eps_max-margin = 1/(sqrt(2 pi) G(u))`` with ``G(u) = u Phi(u) + phi(u)`` and ``u`` the root
    of ``G(u) = int_{-u}^inf g(t) dt`` (the ``r -> 0`` limit of :func:`max_margin_state_evolution`):
    0.5005 (Aubin et al. 2020, arXiv:2006.06560)."""
    t_nodes, t_w = _MM_NODES

    def residual(u):
        half = 0.5 * (_MM_T_MAX + u)
        return half * np.dot(t_w, _max_margin_g(-u + half * (t_nodes + 1.0))) - _max_margin_G(u)

    u = brentq(residual, 1e-3, 10.0, xtol=1e-14)
    return float(1.0 / (math.sqrt(2.0 * math.pi) * _max_margin_G(u)))


def max_margin_gen_error(alpha: float) -> float:
    """Asymptotic test error of the max-margin estimator, ``arccos(m/sqrt(Q))/pi`` at the fixed point of
    :func:`max_margin_state_evolution` (Aubin et al. 2020, arXiv:2006.06560)."""
    return max_margin_state_evolution(alpha).error


@dataclass(frozen=True)
class OptimalLambda:
    """Result of :func:`optimal_lambda`: the penalty ``lam`` and the ERM fixed point ``result`` there."""

    lam: float
    result: ERMResult

    @property
    def error(self) -> float:
        """The test error at ``lam``, ``result.error``."""
        return self.result.error

    @property
    def gen_error(self) -> float:
        """``error`` under the library's stable name."""
        return self.result.error


def optimal_lambda(
    alpha: float,
    loss: str,
    *,
    bounds: tuple[float, float] = (1e-3, 10.0),
    n_scan: int = 9,
    xatol: float = 1e-3,
    **se_kwargs,
) -> OptimalLambda:
    """Penalty ``lam_opt(alpha)`` minimising the asymptotic ERM test error, and the error there.

    ``eps(lam) = arccos(m/sqrt(Q))/pi`` at the fixed point of :func:`erm_state_evolution` is first evaluated
    on ``n_scan`` points log-spaced across ``bounds``; then bounded Brent search
    (``scipy.optimize.minimize_scalar``, in ``log10 lam`` to tolerance ``xatol``) refines the best point
    between its two neighbours. Each evaluation is warm-started from the previous fixed point. The scan
    matters for the hinge loss, whose error is exactly flat (equal to max margin) for every ``lam`` below
    the point where no training sample is inside the margin, so Brent alone can stall on that plateau.
    For ridge the answer is the closed form :func:`optimal_ridge_lambda` (``pi/2 - 1`` for the loss
    ``(y - z)^2/2``). The error is flat at its minimum, so ``xatol = 1e-3`` fixes the error to ~1e-9 but
    ``lam`` only to ~0.5 %. If the minimum sits at a bound, the bound is returned.

    ``se_kwargs`` go to :func:`erm_state_evolution`; the defaults here (``tol=1e-9``, ``damping=0.3``,
    ``n_hermite=41``, ``n_half=40``) are about 4 times faster than its own and change the error by
    less than 1e-9 (measured for logistic at alpha = 0.5, 2, 5 near lam_opt).

    Examples (Aubin et al. 2020: optimally regularised logistic regression comes close to Bayes): at
    ``alpha = 2`` logistic gives ``lam_opt = 0.0163``, ``eps = 0.174587`` (Bayes 0.174534); at ``alpha = 5``,
    ``lam_opt = 0.0040``, ``eps = 0.083980`` (Bayes 0.083935).
    """
    alpha = check_positive("alpha", alpha)
    loss = check_choice("loss", loss, LOSSES)
    try:
        lo, hi = bounds
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be a pair (low, high) of numbers > 0, got {bounds!r}") from None
    lo, hi = check_positive("bounds", lo), check_positive("bounds", hi)
    if not lo < hi:
        raise ValueError(f"bounds must satisfy low < high, got {bounds!r}")
    n_scan = check_int("n_scan", n_scan, minimum=3)
    xatol = check_positive("xatol", xatol)
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


def fit_logistic(X, y, lam: float, *, tol: float = 1e-6, max_iter: int = 10_000, w0=None) -> np.ndarray:
    """Logistic estimator ``argmin_w sum_mu log(1 + exp(-y_mu x_mu . w/sqrt(d))) + (lam/2) |w|^2``.

    L-BFGS-B (``scipy.optimize.minimize``) with the analytic gradient
    ``-F^T (y sigma(-y F w)) + lam w`` (``F = X/sqrt(d)``); ``log(1 + e^{-t})`` is evaluated as
    ``np.logaddexp(0, -t)``, which neither overflows nor loses precision. The objective is
    ``lam``-strongly convex, so the minimiser is unique.

    Parameters
    ----------
    X : array (n, d)
        Inputs.
    y : array (n,)
        Labels in {-1, +1}.
    lam : float
        Penalty ``> 0``.
    tol : float
        Convergence is declared when the largest gradient component is below ``tol`` (L-BFGS-B's
        ``gtol``; ``ftol = 0`` lets it run until the objective stops decreasing). The gradient at
        ``w = 0`` is of order one, and ``|w - w_exact| <= sqrt(d) tol / lam``, so the default 1e-6 is
        far below the ``O(1/sqrt(d))`` sampling fluctuations. Much smaller values (<~ 1e-8 for
        ``n ~ 10^3``) are not reachable in double precision, because the line search compares
        objective values of size ``~ n``.
    max_iter : int
        Iteration cap. If the final gradient is still above ``tol``, a
        :class:`~solvable.errors.ConvergenceWarning` with the iteration count is emitted and the last
        iterate is returned.
    w0 : array (d,), optional
        Starting point (default 0).
    """
    X, y = check_design(X, y, binary=True)
    lam = check_positive("lam", lam)
    tol = check_in_range("tol", tol, 0.0, 1.0, low_open=True, high_open=True)
    max_iter = check_int("max_iter", max_iter)
    n, d = X.shape
    F = X / math.sqrt(d)
    try:
        w0 = np.zeros(d) if w0 is None else np.asarray(w0, dtype=float).copy()
    except (TypeError, ValueError):
        raise ValueError(f"w0 must be an array of shape ({d},) of finite numbers, got {w0!r}") from None
    if w0.shape != (d,) or not np.all(np.isfinite(w0)):
        raise ValueError(f"w0 must be an array of shape ({d},) of finite numbers, got shape {w0.shape}")

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
        warnings.warn(
            f"fit_logistic did not converge in {res.nit} iterations: max |gradient| = {grad_max:.2e} "
            f"> tol = {tol:.1e} ({res.message})",
            ConvergenceWarning,
            stacklevel=2,
        )
    return res.x


def fit_ridge_batch(X, y, lam: float) -> np.ndarray:
    """:func:`fit_ridge` for a stack of data sets at once: ``X`` (S, n, d), ``y`` (S, n) -> ``w`` (S, d).

    One batched Cholesky solve (``numpy.linalg.solve`` on the stacked ``d x d`` or ``n x n`` systems),
    so that error bars over many independent data sets cost one call.
    """
    X = check_array("X", X, finite=False, nonempty=False)
    y = check_array("y", y, finite=False, nonempty=False)
    if X.ndim != 3 or y.shape != X.shape[:2]:
        raise ValueError(f"X must have shape (S, n, d) and y (S, n); got {X.shape} and {y.shape}")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise ValueError("X and y must be finite")
    lam = check_positive("lam", lam)
    _, n, d = X.shape
    F = X / math.sqrt(d)
    Ft = np.swapaxes(F, 1, 2)
    if d <= n:
        return np.linalg.solve(Ft @ F + lam * np.eye(d), (Ft @ y[..., None]))[..., 0]
    return (Ft @ np.linalg.solve(F @ Ft + lam * np.eye(n), y[..., None]))[..., 0]


def fit_hinge(X, y, lam: float, *, tol: float = 1e-8, max_iter: int = 10_000) -> np.ndarray:
    """Hinge (soft-margin SVM) estimator ``argmin_w sum_mu max(0, 1 - y_mu x_mu . w/sqrt(d)) + (lam/2)|w|^2``.

    Solved in the dual: with ``z_mu = y_mu x_mu/sqrt(d)``,
    ``a = argmin_{0 <= a <= 1} |Z^T a|^2/(2 lam) - sum a`` and ``w = Z^T a / lam`` (strong duality of a
    strongly convex program; Boyd and Vandenberghe 2004, Sec. 5.2), a smooth box-constrained quadratic
    program solved by L-BFGS-B with projected-gradient tolerance ``tol``. Warns
    (:class:`~solvable.errors.ConvergenceWarning`) if it is not reached.
    """
    X, y = check_design(X, y, binary=True)
    lam = check_positive("lam", lam)
    tol = check_in_range("tol", tol, 0.0, 1.0, low_open=True, high_open=True)
    max_iter = check_int("max_iter", max_iter)
    n, d = X.shape
    Zt = (y[:, None] * X / math.sqrt(d)).T

    def dual(a):
        v = Zt @ a
        return 0.5 * np.dot(v, v) / lam - a.sum(), Zt.T @ v / lam - 1.0

    res = minimize(dual, np.zeros(n), jac=True, method="L-BFGS-B", bounds=[(0.0, 1.0)] * n,
                   options={"maxiter": max_iter, "gtol": tol, "ftol": 0.0, "maxcor": 20})
    if not res.success and res.nit >= max_iter:
        warnings.warn(f"fit_hinge did not converge in {res.nit} iterations ({res.message})",
                      ConvergenceWarning, stacklevel=2)
    return Zt @ res.x / lam


def fit_max_margin(X, y) -> np.ndarray:
    """Max-margin (hard-margin SVM) estimator ``argmin |w|^2`` subject to ``y_mu x_mu . w/sqrt(d) >= 1``.

    Solved exactly by one non-negative least-squares problem (:func:`solvable.gardner.hard_margin_weights`).
    Raises ValueError if the data are not linearly separable (never the case for labels of a sign teacher).
    """
    w0 = hard_margin_weights(X, y)
    if w0 is None:
        raise ValueError("the data (X, y) are not linearly separable: no max-margin estimator")
    return w0


_FIT = {"ridge": fit_ridge, "logistic": fit_logistic, "hinge": fit_hinge,
        "max-margin": lambda X, y, lam: fit_max_margin(X, y)}


def erm_gen_error_simulation(d: int, alpha: float, loss: str, lam: float | None, rng) -> float:
    """Test error of ERM at finite size ``d``: one teacher, one training set, one fit.

    Draws, in this order, ``w* = rng.standard_normal(d)``, ``X = rng.standard_normal((n, d))`` with
    ``n = round(alpha d)``, sets ``y = sign(X w*/sqrt(d))``, fits (:func:`fit_ridge` or
    :func:`fit_logistic`) and returns the angle error ``arccos(cos(w_hat, w*))/pi``
    (:func:`~solvable.metrics.angle_error`), the exact test error of ``sign(x . w_hat)`` on fresh
    Gaussian inputs. It fluctuates around :func:`erm_gen_error` by ``O(1/sqrt(d))``.
    """
    d = check_int("d", d)
    alpha = check_positive("alpha", alpha)
    loss = check_choice("loss", loss, ESTIMATORS)
    lam = None if loss == "max-margin" else check_positive("lam", lam)
    rng = check_rng(rng)
    n = max(1, round(alpha * d))
    check_size("the design X (n = alpha d, d)", n, d)
    w_star = rng.standard_normal(d)
    X = rng.standard_normal((n, d))
    y = np.where(X @ w_star >= 0.0, 1.0, -1.0)
    w_hat = _FIT[loss](X, y, lam)
    return angle_error(w_hat, w_star)


@dataclass(frozen=True)
class ERMSimulation:
    """Finite-size ERM test errors: ``errors`` (one per independent data set), their mean and standard
    error."""

    d: int
    alpha: float
    errors: np.ndarray

    @property
    def mean(self) -> float:
        return float(np.mean(self.errors))

    @property
    def sem(self) -> float:
        """Standard error of the mean over data sets (0 for a single one)."""
        k = self.errors.size
        return float(np.std(self.errors, ddof=1) / math.sqrt(k)) if k > 1 else 0.0


def erm_simulation(d: int, alpha: float, loss: str, lam: float | None, n_seeds: int, rng) -> ERMSimulation:
    """Test errors of ERM on ``n_seeds`` independent data sets at size ``d`` (error bars for a figure).

    Data set ``s`` is drawn from the ``s``-th child of ``rng.spawn(n_seeds)`` exactly as in
    :func:`erm_gen_error_simulation` (so each entry equals that function's value on the same child).
    Ridge fits all data sets in one batched solve (:func:`fit_ridge_batch`); the other estimators
    (``"logistic"``, ``"hinge"``, ``"max-margin"``) are fitted one by one.
    """
    d = check_int("d", d)
    alpha = check_positive("alpha", alpha)
    loss = check_choice("loss", loss, ESTIMATORS)
    n_seeds = check_int("n_seeds", n_seeds)
    rng = check_rng(rng)
    n = max(1, round(alpha * d))
    check_size("the design X (n = alpha d, d)", n, d)
    if loss == "ridge":
        check_size("the stacked designs X (n_seeds, n = alpha d, d) of the batched ridge fit", n_seeds, n, d)
    children = rng.spawn(n_seeds)
    if loss != "ridge":
        errors = [erm_gen_error_simulation(d, alpha, loss, lam, child) for child in children]
        return ERMSimulation(d=d, alpha=alpha, errors=np.array(errors))
    lam = check_positive("lam", lam)
    w_star = np.empty((n_seeds, d))
    X = np.empty((n_seeds, n, d))
    for k, child in enumerate(children):
        w_star[k] = child.standard_normal(d)
        X[k] = child.standard_normal((n, d))
    y = np.where(np.einsum("snd,sd->sn", X, w_star) >= 0.0, 1.0, -1.0)
    w_hat = fit_ridge_batch(X, y, lam)
    errors = np.array([angle_error(w, ws) for w, ws in zip(w_hat, w_star)])
    return ERMSimulation(d=d, alpha=alpha, errors=errors)
