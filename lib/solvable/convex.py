"""Convex geometry of exact recovery: the statistical dimension of descent cones.

A convex program ``min f(S)`` subject to ``n`` generic linear measurements of ``S*`` recovers ``S*`` exactly when
``n`` exceeds the **statistical dimension** ``delta(D(f, S*))`` of the descent cone of ``f`` at ``S*``, and fails
below it; the transition is sharp (Amelunxen, Lotz, McCoy, Tropp, arXiv:1303.6672, Theorem II). The statistical
dimension is computed from the subdifferential (ibid., Proposition 4.1; Chandrasekaran, Recht, Parrilo, Willsky,
arXiv:1012.0621, for the Gaussian width)::

    delta(D(f, S*)) = inf_{tau >= 0} E dist^2(Xi, tau df(S*)),     Xi a standard Gaussian of the ambient space,

which is tight up to O(1/sqrt(dimension)) of the ambient dimension. The two regularisers of the course:

- the nuclear norm at a rank-``r`` ``d x L`` matrix (Chapter 3's minimum-nuclear-norm estimator);
- the trace on the PSD cone (``Tr S`` plus the indicator of ``S >= 0``) at a rank-``m`` PSD ``d x d`` matrix
  (Chapter 4's nuclear-norm ERM in its interpolating limit ``lambda -> 0+``).

In both the subdifferential is a fixed part on the tangent space plus a unit ball (an operator-norm ball, a
half-space of eigenvalues) on the orthogonal block, whose Gaussian is a Marchenko-Pastur (a semicircle) random
matrix as the dimensions grow: the limits below are one-dimensional minimisations of an integral over that law.

To check the thresholds at finite size, :func:`psd_trace_minimization` and :func:`nuclear_norm_minimization` solve
the programs themselves (minimum trace over PSD matrices, minimum nuclear norm over all matrices, that fit the
measurements) by ADMM, on NumPy and SciPy only.
"""

from __future__ import annotations

import math
from dataclasses import field

import numpy as np
from scipy import integrate, linalg, optimize

from .errors import ConvergenceWarning, DivergenceError, InvalidParameterError
from .errors import warn as warn_user
from .domains import array, declare, real
from .results import record
from .validation import check_array

__all__ = [
    "NuclearNormMinimizationResult",
    "TraceMinimizationResult",
    "nuclear_norm_minimization",
    "nuclear_norm_statistical_dimension",
    "psd_trace_minimization",
    "psd_trace_statistical_dimension",
]

_QUAD = dict(epsabs=1e-13, epsrel=1e-12, limit=200)


def _minimise(objective, upper: float) -> float:
    """min over t in [0, upper] of a convex function of t (bounded Brent, to 1e-12 in t)."""
    res = optimize.minimize_scalar(objective, bounds=(0.0, upper), method="bounded", options={"xatol": 1e-12})
    return float(min(res.fun, objective(0.0), objective(upper)))


@declare(rho=real(0.0, 1.0))
def nuclear_norm_statistical_dimension(beta: float, rho: float) -> float:
    """Statistical dimension of the descent cone of the nuclear norm at a rank-``r`` ``d x L`` matrix, over ``dL``.

    Parameters
    ----------
    beta : float
        Aspect ratio ``L/d > 0`` or ``math.inf`` (``beta < 1`` is read as ``1/beta``: the value is symmetric under
        transposition).
    rho : float
        Rank ratio ``r/min(d, L)`` in ``[0, 1]``.

    Returns
    -------
    float
        ``lim delta(D(||.||_*, S*))/(dL)`` as ``d, L, r -> inf`` at fixed ratios, in ``[0, 1]``: the number of
        generic linear measurements per entry above which minimising the nuclear norm recovers ``S*`` exactly.

    Raises
    ------
    ValueError
        If ``beta`` is not ``> 0`` or ``rho`` is not in ``[0, 1]``.

    Notes
    -----
    Take ``d <= L``, ``b = d/L``. At ``S* = U Sigma V^T``, ``d||S*||_* = {U V^T + W : U^T W = 0, W V = 0,
    ||W||_op <= 1}``; the squared distance of a Gaussian ``G`` to ``tau`` times this set is the tangent part,
    ``r(d + L - r) + tau^2 r`` on average, plus ``sum_i (sigma_i - tau)_+^2`` over the singular values of the
    ``(d - r) x (L - r)`` Gaussian block. With ``tau = t sqrt(L - r)`` the squared singular values over ``L - r``
    follow Marchenko-Pastur of ratio ``g = b(1 - rho)/(1 - b rho)``, and (as eq-qn-statdim-psd)::

        delta/(dL) = min_t  rho + b rho - b rho^2 + (1 - b rho) [rho t^2 + (1 - rho) E_MP (sqrt(x) - t)_+^2].

    It equals the minimum-nuclear-norm threshold of Donoho, Gavish and Montanari (arXiv:1302.2331), computed by
    :func:`solvable.bsr.nuclear_norm_threshold` from the stationarity condition in ``t``; here ``t`` is found by
    direct minimisation.

    References
    ----------
    Amelunxen, Lotz, McCoy, Tropp, Information and Inference 3:224 (2014), arXiv:1303.6672, Sec. 4.3;
    Chapter 4, Sec. 'Exact recovery by convex programs'.

    Examples
    --------
    >>> from solvable import bsr, convex
    >>> print(round(convex.nuclear_norm_statistical_dimension(1.0, 0.2), 4))  # square, rank d/5
    0.5717
    >>> print(round(bsr.nuclear_norm_threshold(1.0, 0.2), 4))  # Donoho-Gavish-Montanari
    0.5717
    >>> print([convex.nuclear_norm_statistical_dimension(2.0, rho) for rho in (0.0, 1.0)])  # rank 0, full
    [0.0, 1.0]
    """
    b = min(beta, 1.0 / beta)
    if rho == 1.0:
        return 1.0
    if b == 0.0:  # L/d -> inf: the block is a point mass at x = 1, the minimum at t = 1 - rho
        return rho * (2.0 - rho)
    g = b * (1.0 - rho) / (1.0 - b * rho)
    lo, hi = (1.0 - math.sqrt(g)) ** 2, (1.0 + math.sqrt(g)) ** 2

    def mp(x):  # Marchenko-Pastur density of ratio g <= 1
        return math.sqrt(max((hi - x) * (x - lo), 0.0)) / (2.0 * math.pi * g * x)

    def excess(t):  # E (sqrt(x) - t)_+^2, over sigma = sqrt(x) in [sqrt(lo), sqrt(hi)]
        start = max(t, math.sqrt(lo))
        if start >= math.sqrt(hi):
            return 0.0
        return integrate.quad(lambda s: (s - t) ** 2 * mp(s * s) * 2.0 * s, start, math.sqrt(hi), **_QUAD)[0]

    tangent = rho + b * rho - b * rho**2
    return _minimise(
        lambda t: tangent + (1.0 - b * rho) * (rho * t * t + (1.0 - rho) * excess(t)), math.sqrt(hi)
    )


@declare(kappa=real(0.0, 1.0))
def psd_trace_statistical_dimension(kappa: float) -> float:
    """Statistical dimension of the descent cone of ``Tr S`` on PSD matrices at a rank-``m`` PSD ``d x d`` matrix.

    Parameters
    ----------
    kappa : float
        Rank ratio ``k/d`` in ``[0, 1]`` (a quadratic network of width ``m = kappa d``, ``kappa <= 1``).

    Returns
    -------
    float
        ``lim delta(D(f, S*))/d^2`` for ``f(S) = Tr S + indicator(S PSD)``, in ``[0, 1/2]`` (the space of symmetric
        matrices has dimension ``d(d+1)/2``): the measurements per ``d^2`` above which the minimum-trace PSD
        interpolator is ``S*``.

    Raises
    ------
    ValueError
        If ``kappa`` is not in ``[0, 1]``.

    Notes
    -----
    With ``U`` the ``d x m`` eigenvectors of ``S*`` of non-zero eigenvalue (``m = kappa d``),
    ``df(S*) = {U U^T + Gamma : Gamma supported on U-perp, Gamma <= I}`` (the PSD constraint's normal cone turns
    the operator-norm ball of the nuclear norm into a half-space of eigenvalues). With the subdifferential scaled
    by ``tau sqrt(d)``, the tangent part has dimension ``m d - m(m - 1)/2`` and adds ``tau^2 d m``; the orthogonal
    ``(d - m) x (d - m)`` block of a standard Gaussian ``Xi`` of the symmetric matrices (GOE, off-diagonal variance
    1/2) has, over ``sqrt(d)``, the semicircle law ``sc_kappa`` of radius ``sqrt(2(1 - kappa))``, and only its
    eigenvalues above ``tau`` cost (eq-qn-statdim-psd)::

        delta/d^2 = min_tau  kappa - kappa^2/2 + kappa tau^2 + (1 - kappa) E_{u ~ sc_kappa} (u - tau)_+^2.

    ``kappa = 1``: ``1/2`` (every symmetric matrix is reachable); ``kappa -> 0``: 0.

    References
    ----------
    Amelunxen, Lotz, McCoy, Tropp, arXiv:1303.6672, Proposition 4.1; Chandrasekaran, Recht, Parrilo, Willsky,
    arXiv:1012.0621; Chapter 4, Sec. 'Exact recovery by convex programs'.

    Examples
    --------
    >>> from solvable import convex
    >>> print([round(convex.psd_trace_statistical_dimension(kappa), 4) for kappa in (0.0, 0.1, 0.5, 1.0)])
    [0.0, 0.1576, 0.4222, 0.5]
    """
    if kappa == 1.0:
        return 0.5
    if kappa == 0.0:
        return 0.0
    R = math.sqrt(2.0 * (1.0 - kappa))

    def semicircle(x):
        return 2.0 / (math.pi * R * R) * math.sqrt(max(R * R - x * x, 0.0))

    def excess(t):  # E (x - t)_+^2 under the semicircle of radius R
        if t >= R:
            return 0.0
        return integrate.quad(lambda x: (x - t) ** 2 * semicircle(x), max(t, -R), R, **_QUAD)[0]

    tangent = kappa - kappa**2 / 2.0
    return _minimise(lambda t: tangent + kappa * t * t + (1.0 - kappa) * excess(t), R)


# --------------------------------------------------------------------------- the program itself, at finite size


@record
class TraceMinimizationResult:
    """Solution of :func:`psd_trace_minimization`.

    Parameters
    ----------
    estimate : numpy.ndarray
        The PSD minimiser ``S_hat`` (d, d) (the ADMM's PSD iterate).
    certificate : numpy.ndarray
        The dual slack ``M = I - sum_mu gamma_mu Z_mu`` (d, d), ``gamma_mu`` the multipliers; at an optimum it is
        PSD and ``M S_hat = 0``.
    trace : float
        ``Tr S_hat``, the objective.
    feasibility : float
        ``||A(S_hat) - y|| / ||y||`` (0 when ``y = 0``), the relative violation of the measurements, each
        measurement divided by the Frobenius norm of its sensing matrix.
    primal_residual : float
        ``||S - Z||_F / max(||Z||_F, tiny)`` between the affine and the PSD iterates at the last step.
    dual_residual : float
        ``rho ||Z - Z_prev||_F / sqrt(d)`` at the last step (the problem normalised as in the Notes of
        :func:`psd_trace_minimization`).
    iterations : int
        Iterations run.
    converged : bool
        Whether both residuals fell below ``tol`` before ``max_iter``.
    message : str
        Why the ADMM stopped, with its residuals and ``tol`` (at the cap, the warning's text).

    Notes
    -----
    KKT conditions of ``min Tr S`` s.t. ``S >= 0``, ``A(S) = y`` (eq-qn-trace-program): ``A(S) = y``, ``S >= 0``,
    ``M = I - A^*(gamma) >= 0`` and ``Tr(M S) = 0``.

    References
    ----------
    Chapter 4, Sec. 'Exact recovery by convex programs', eq-qn-trace-program.
    """

    estimate: np.ndarray = field(repr=False)
    certificate: np.ndarray = field(repr=False)
    trace: float
    feasibility: float
    primal_residual: float
    dual_residual: float
    iterations: int
    converged: bool
    message: str


def _check_sensing(sensing, y, *, symmetric: bool = True):
    """``(A (n, d*L), y2 (n,), (d, L), E)`` from sensing matrices (n, d, L), symmetric if asked, and labels (n,).

    The constraints are rescaled without changing the feasible set: each row of ``A`` to unit norm (by an exact
    power of two, then by its norm), each label with its row, and the labels by the power of two ``2**E`` that
    brings the largest to about 1, so that ``A(S) = y`` exactly when ``A_unit(S) = y2 * 2**E``. No product of
    the user's scales is formed: labels or rows of any magnitude inside the float range give the same program.
    ``y2`` is all zero when ``y`` is.
    """
    Z = check_array("sensing", sensing, ndim=3)
    y = check_array("y", y, ndim=1)
    n, d, L = Z.shape
    if symmetric and d != L:
        raise InvalidParameterError(f"sensing must hold n square matrices (n, d, d), got shape {Z.shape}")
    if y.shape[0] != n:
        raise InvalidParameterError(
            f"y must hold one label per sensing matrix: {y.shape[0]} labels for n = {n} matrices"
        )
    dim = d * (d + 1) // 2 if symmetric else d * L
    if n > dim:
        raise InvalidParameterError(
            f"sensing: n = {n} matrices exceed the {dim} dimensions of the "
            f"{'symmetric ' if symmetric else ''}matrices; they cannot be linearly independent"
        )
    A0 = Z.reshape(n, d * L)
    row_max = np.max(np.abs(A0), axis=1)
    if np.any(row_max == 0.0):
        raise InvalidParameterError(
            f"sensing: matrix {int(np.argmin(row_max))} is zero (the matrices Z_mu are linearly dependent)"
        )
    _, e = np.frexp(row_max)  # row_max = f 2^e, f in [0.5, 1): an exact rescaling by 2^-e
    A = np.ldexp(A0, -e[:, None])
    if symmetric:
        sq = A.reshape(n, d, d)
        if np.max(np.abs(sq - np.swapaxes(sq, 1, 2))) > 1e-10:  # relative to each matrix's largest entry
            raise InvalidParameterError("sensing must hold symmetric matrices (Z_mu = Z_mu^T)")
    norms = np.linalg.norm(A, axis=1)  # in [0.5, sqrt(dL)]
    A = A / norms[:, None]
    mant, ky = np.frexp(y)  # y = mant 2^ky
    shift = ky - e
    nonzero = y != 0.0
    E = int(np.max(shift[nonzero])) if nonzero.any() else 0
    y2 = np.ldexp(mant / norms, shift - E)  # |y2| <= 2: the labels of the unit rows, over 2^E
    return A, y2, (d, L), E


def _admm(A, y, shape, prox, rho, tol, max_iter, warn, name):
    """Scaled ADMM for ``min f(S)`` s.t. ``A(S) = y``, ``f`` given by its ``prox(V, t)``; ``y`` of norm 1.

    Returns ``(Z, U, rho, r, s, it, converged, message)``: the last ``f``-side iterate, the scaled dual, the final penalty,
    the residuals, the iterations and whether both residuals fell below ``tol``.
    """
    d, L = shape
    try:
        chol = linalg.cho_factor(A @ A.T, lower=True)
    except linalg.LinAlgError:
        raise InvalidParameterError(
            "sensing: the matrices Z_mu are linearly dependent (singular Gram matrix)"
        ) from None
    if np.min(np.abs(np.diag(chol[0]))) < 1e-10 * np.max(np.abs(np.diag(chol[0]))):
        raise InvalidParameterError("sensing: the matrices Z_mu are (numerically) linearly dependent")
    if d * L <= 1600:  # the projector A^* (A A^*)^{-1} A as one (dL, dL) matrix: one product a step
        B = linalg.solve_triangular(chol[0], A, lower=True)
        P, q = B.T @ B, B.T @ linalg.solve_triangular(chol[0], y, lower=True)

        def project(V):  # onto {A(S) = y}
            return V - (P @ V.ravel() - q).reshape(d, L)
    else:

        def project(V):
            return V - (A.T @ linalg.cho_solve(chol, A @ V.ravel() - y)).reshape(d, L)

    Z, U = np.zeros((d, L)), np.zeros((d, L))
    converged, it, r, s = False, 0, math.inf, math.inf
    for it in range(1, max_iter + 1):
        S = project(Z - U)
        Z_new = prox(S + U, 1.0 / rho)
        U = U + S - Z_new
        r = float(np.linalg.norm(S - Z_new)) / max(float(np.linalg.norm(Z_new)), 1e-300)
        s = rho * float(np.linalg.norm(Z_new - Z)) / math.sqrt(min(d, L))
        Z = Z_new
        if r < tol and s < tol:
            converged = True
            break
        if it % 20 == 0 and r > 10.0 * s and rho < 1e12:  # residual balancing, every 20 steps: U is the
            # scaled dual, rescaled with rho
            rho, U = 2.0 * rho, U / 2.0
        elif it % 20 == 0 and s > 10.0 * r and rho > 1e-12:
            rho, U = rho / 2.0, 2.0 * U
    if not (np.all(np.isfinite(Z)) and np.all(np.isfinite(U))):
        raise DivergenceError(f"{name} produced non-finite iterates at iteration {it}")
    if converged:
        message = (
            f"{name} converged: primal residual {r:.1e} and dual residual {s:.1e} < tol {tol:.1e} after "
            f"{it} iterations"
        )
    else:
        message = (
            f"{name} did not converge in {it} iterations (primal residual {r:.1e}, dual residual {s:.1e}, "
            f"tol {tol:.1e})"
        )
        if warn:
            warn_user(message, ConvergenceWarning)
    return Z, U, rho, r, s, it, converged, message


def _scaled_back(norm_y, E, Z, objective):
    """The solution of the normalised program scaled back to the user's labels: ``2^E norm_y (Z, objective)``."""
    with np.errstate(over="ignore", under="ignore"):
        estimate = np.ldexp(norm_y * Z, E)
        value = float(np.ldexp(norm_y * objective, E))
    if not (math.isfinite(value) and np.all(np.isfinite(estimate))):
        raise InvalidParameterError(
            f"y: labels of scale 2^{E} (over the sensing matrices' scale) give a minimiser beyond the "
            "float range"
        )
    if objective > 0.0 and value == 0.0:
        raise InvalidParameterError(
            f"y: labels of scale 2^{E} (over the sensing matrices' scale) give a minimiser below the "
            "float range (it would round to zero)"
        )
    return estimate, value


#: The domains of the programs' arguments: the sensing matrices (checked with the labels, their shapes and scale,
#: by _check_sensing) and the ADMM penalty.
SENSING = array(3)
LABELS = array(1)
PENALTY = real(1e-12, 1e12)


def _psd_prox(V, t):  # prox of t (Tr + PSD indicator): eigenvalues shifted down by t, clipped at 0
    lam, O = np.linalg.eigh(0.5 * (V + V.T))
    return (O * np.maximum(lam - t, 0.0)) @ O.T


def _nuclear_prox(V, t):  # prox of t ||.||_*: singular values shifted down by t, clipped at 0
    Uv, sv, Vt = np.linalg.svd(V, full_matrices=False)
    return (Uv * np.maximum(sv - t, 0.0)) @ Vt


@declare(sensing=SENSING, y=LABELS, rho_admm=PENALTY)
def psd_trace_minimization(
    sensing, y, *, rho_admm: float = 100.0, tol: float = 1e-5, max_iter: int = 5000, warn: bool = True
) -> TraceMinimizationResult:
    """The PSD matrix of smallest trace that fits linear measurements, by ADMM.

    Solves (eq-qn-trace-program)::

        min_S  Tr S    subject to  S >= 0 (PSD),   Tr(Z_mu S) = y_mu,  mu = 1..n,

    the program whose exact-recovery threshold is :func:`psd_trace_statistical_dimension`: the noiseless quadratic
    network's ERM with vanishing weight decay (``Tr S`` is the nuclear norm on the PSD cone, and
    ``||W||_F^2 = sqrt(m' d) Tr S``). Our own dozen-line ADMM on NumPy only, so that the course needs no
    convex-optimisation package (and its solver choices) for a check at ``d`` of a few tens.

    Parameters
    ----------
    sensing : array_like
        The ``n`` symmetric sensing matrices ``Z_mu``, shape ``(n, d, d)``, linearly independent (so
        ``n <= d(d+1)/2``), finite, none zero; of any scale, each its own.
    y : array_like
        The measurements, shape ``(n,)``, finite.
    rho_admm : float, optional
        Initial ADMM penalty, in ``[1e-12, 1e12]``, on the problem normalised as in the Notes; adapted by residual
        balancing. The default converged fastest on the chapter's quadratic-network problems at ``d = 20``.
    tol : float, optional
        In ``[0, 1)``: stop when the primal residual ``||S - Z||_F / ||Z||_F`` and the dual residual
        ``rho ||Z - Z_prev||_F / sqrt(d)`` both fall below ``tol``.
    max_iter : int, optional
        Iteration cap, ``>= 1``.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when ``max_iter`` is reached before ``tol`` (the last
        PSD iterate is returned, ``converged`` False).

    Returns
    -------
    TraceMinimizationResult
        The minimiser, its dual certificate, trace, feasibility, last residuals, iterations and ``converged``.

    Raises
    ------
    TypeError
        If ``sensing`` or ``y`` is not an array of real numbers.
    ValueError
        If the shapes disagree, a matrix is not symmetric, the matrices are linearly dependent (a singular Gram
        matrix of the unit-norm matrices), an entry is not finite, a control is out of its domain, or the
        minimiser is beyond the float range.

    Notes
    -----
    The program is invariant under ``(Z_mu, y_mu) -> c_mu (Z_mu, y_mu)``, one ``c_mu > 0`` per measurement, and
    positively homogeneous in ``y``: it is solved with each ``Z_mu`` of unit Frobenius norm (its label scaled with
    it) and labels of unit norm, the solution scaled back by exact powers of two; so labels and sensing matrices
    of any magnitude within the float range give the same solution, scaled accordingly. With ``A(S) = (Tr(Z_mu S))_mu``,
    scaled ADMM on the split ``S = Z`` (``S`` in the affine set, ``Z`` PSD) iterates (Boyd et al. 2011, Sec. 5)::

        S <- (Z - U) - A^*( (A A^*)^{-1} (A(Z - U) - y) )        (Frobenius projection onto A(S) = y)
        Z <- prox_{1/rho}(S + U)   (prox of Tr + PSD indicator: lambda_i -> max(lambda_i - 1/rho, 0))
        U <- U + S - Z,

    with a Cholesky factor of the ``n x n`` Gram matrix ``A A^*`` computed once. At a fixed point ``S = Z`` and
    the multipliers ``gamma`` with ``A^*(gamma) = rho U`` satisfy the KKT conditions: the certificate
    ``M = I - rho U`` is PSD and orthogonal to ``Z``. Every 20 steps the penalty is doubled (halved) when the primal residual exceeds ten times
    the dual one (or the reverse), the usual residual balancing.

    References
    ----------
    Boyd, Parikh, Chu, Peleato, Eckstein, Found. Trends Mach. Learn. 3:1 (2011), Secs. 3.1, 3.4.1, 5;
    Chapter 4, Sec. 'Exact recovery by convex programs', eq-qn-trace-program.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import convex, denoising, quadratic
    >>> data = quadratic.sample(10, 0.3, kappa=0.1, rng=0)  # n = 30 above 0.158 d^2: exact recovery
    >>> Z = (data.X[:, :, None] * data.X[:, None, :] - np.eye(10)) / np.sqrt(10)
    >>> r = convex.psd_trace_minimization(Z, data.y)
    >>> print(r.converged, f"{r.trace:.4f} {np.trace(data.S_star):.4f}")
    True 1.7601 1.7601
    >>> print(denoising.symmetric_error(r.estimate, data.S_star) < 1e-8)
    True
    """
    A, y, (d, _), E = _check_sensing(sensing, y)
    rho = rho_admm
    norm_y = float(np.linalg.norm(y))
    if norm_y == 0.0:  # S = 0 is feasible and has the smallest trace on the PSD cone
        return TraceMinimizationResult(
            estimate=np.zeros((d, d)),
            certificate=np.eye(d),
            trace=0.0,
            feasibility=0.0,
            primal_residual=0.0,
            dual_residual=0.0,
            iterations=0,
            converged=True,
            message="y = 0: S = 0 is the solution (no iteration)",
        )
    y = y / norm_y
    Z, U, rho, r, s, it, converged, message = _admm(
        A, y, (d, d), _psd_prox, rho, tol, max_iter, warn, "psd_trace_minimization"
    )
    feasibility = float(np.linalg.norm(A @ Z.ravel() - y))
    estimate, trace = _scaled_back(norm_y, E, Z, float(np.trace(Z)))
    return TraceMinimizationResult(
        estimate=estimate,
        certificate=np.eye(d) - rho * U,
        trace=trace,
        feasibility=feasibility,
        primal_residual=r,
        dual_residual=s,
        iterations=it,
        converged=converged,
        message=message,
    )


@record
class NuclearNormMinimizationResult:
    """Solution of :func:`nuclear_norm_minimization`.

    Parameters
    ----------
    estimate : numpy.ndarray
        The minimiser ``X_hat`` (d, L).
    certificate : numpy.ndarray
        The dual matrix ``Y = sum_mu nu_mu Z_mu`` (d, L); at an optimum ``||Y||_op <= 1`` and
        ``<Y, X_hat> = ||X_hat||_*``.
    nuclear_norm : float
        ``||X_hat||_*``, the objective.
    feasibility : float
        ``||A(X_hat) - y|| / ||y||`` (0 when ``y = 0``), each measurement divided by the Frobenius norm of its
        sensing matrix.
    primal_residual : float
        ``||S - Z||_F / max(||Z||_F, tiny)`` between the affine and the proximal iterates at the last step.
    dual_residual : float
        ``rho ||Z - Z_prev||_F / sqrt(min(d, L))`` at the last step (normalised problem).
    iterations : int
        Iterations run.
    converged : bool
        Whether both residuals fell below ``tol`` before ``max_iter``.
    message : str
        Why the ADMM stopped, with its residuals and ``tol`` (at the cap, the warning's text).

    Notes
    -----
    KKT conditions of ``min ||X||_*`` s.t. ``A(X) = y``: ``A(X) = y`` and ``Y = A^*(nu)`` in the subdifferential,
    ``||Y||_op <= 1``, ``<Y, X> = ||X||_*``.

    References
    ----------
    Chapter 4, Sec. 'Exact recovery by convex programs' (the nuclear-norm threshold of Chapter 3).
    """

    estimate: np.ndarray = field(repr=False)
    certificate: np.ndarray = field(repr=False)
    nuclear_norm: float
    feasibility: float
    primal_residual: float
    dual_residual: float
    iterations: int
    converged: bool
    message: str


@declare(sensing=SENSING, y=LABELS, rho_admm=PENALTY)
def nuclear_norm_minimization(
    sensing, y, *, rho_admm: float = 100.0, tol: float = 1e-5, max_iter: int = 5000, warn: bool = True
) -> NuclearNormMinimizationResult:
    """The matrix of smallest nuclear norm that fits linear measurements, by ADMM.

    Solves ``min ||X||_*`` subject to ``<Z_mu, X> = y_mu``, ``mu = 1..n``, for a general ``d x L`` matrix: the
    minimum-nuclear-norm estimator whose exact-recovery threshold is :func:`nuclear_norm_statistical_dimension`.
    The same ADMM as :func:`psd_trace_minimization`, with the singular-value soft-threshold in place of the
    eigenvalue one.

    Parameters
    ----------
    sensing : array_like
        The ``n`` sensing matrices ``Z_mu``, shape ``(n, d, L)``, linearly independent (so ``n <= dL``), finite,
        none zero; of any scale, each its own.
    y : array_like
        The measurements, shape ``(n,)``, finite.
    rho_admm : float, optional
        Initial ADMM penalty, in ``[1e-12, 1e12]``, on the normalised problem; adapted by residual balancing.
    tol : float, optional
        In ``[0, 1)``: stop when the primal residual ``||S - Z||_F / ||Z||_F`` and the dual residual
        ``rho ||Z - Z_prev||_F / sqrt(min(d, L))`` both fall below ``tol``.
    max_iter : int, optional
        Iteration cap, ``>= 1``.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when ``max_iter`` is reached before ``tol``.

    Returns
    -------
    NuclearNormMinimizationResult
        The minimiser, its dual certificate, nuclear norm, feasibility, last residuals, iterations and
        ``converged``.

    Raises
    ------
    TypeError
        If ``sensing`` or ``y`` is not an array of real numbers.
    ValueError
        If the shapes disagree, the matrices are linearly dependent, an entry is not finite, a control is out of
        its domain, or the minimiser is beyond the float range.

    Notes
    -----
    Each ``Z_mu`` is scaled to unit Frobenius norm with its label, and the labels to unit norm, the solution scaled
    back (as in :func:`psd_trace_minimization`: the program is scale-equivariant). Scaled ADMM on the split
    ``S = Z`` (``S`` in the affine set, ``Z`` free)::

        S <- (Z - U) - A^*( (A A^*)^{-1} (A(Z - U) - y) ),
        Z <- P max(Sigma - 1/rho, 0) Q^T,   P Sigma Q^T = S + U   (prox of the nuclear norm),
        U <- U + S - Z;

    at a fixed point ``Y = rho U`` is the dual certificate.

    References
    ----------
    Boyd, Parikh, Chu, Peleato, Eckstein, Found. Trends Mach. Learn. 3:1 (2011), Secs. 3.1, 3.4.1, 5;
    Chapter 4, Sec. 'Exact recovery by convex programs'.
    """
    A, y, (d, L), E = _check_sensing(sensing, y, symmetric=False)
    rho = rho_admm
    norm_y = float(np.linalg.norm(y))
    if norm_y == 0.0:
        return NuclearNormMinimizationResult(
            estimate=np.zeros((d, L)),
            certificate=np.zeros((d, L)),
            nuclear_norm=0.0,
            feasibility=0.0,
            primal_residual=0.0,
            dual_residual=0.0,
            iterations=0,
            converged=True,
            message="y = 0: S = 0 is the solution (no iteration)",
        )
    y = y / norm_y
    Z, U, rho, r, s, it, converged, message = _admm(
        A, y, (d, L), _nuclear_prox, rho, tol, max_iter, warn, "nuclear_norm_minimization"
    )
    feasibility = float(np.linalg.norm(A @ Z.ravel() - y))
    estimate, value = _scaled_back(norm_y, E, Z, float(np.sum(np.linalg.svd(Z, compute_uv=False))))
    return NuclearNormMinimizationResult(
        estimate=estimate,
        certificate=rho * U,
        nuclear_norm=value,
        feasibility=feasibility,
        primal_residual=r,
        dual_residual=s,
        iterations=it,
        converged=converged,
        message=message,
    )
