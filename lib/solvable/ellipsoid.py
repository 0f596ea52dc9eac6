"""Ellipsoid fitting: is there an origin-centred ellipsoid through n random Gaussian points in R^d?

Problem (Saunderson, Parrilo, Willsky, CDC 2013, pp. 6031-6036; Maillard and Kunisky, arXiv:2310.01169, eq. (1);
Maillard and Bandeira, arXiv:2310.05787, Sec. 1.1): given ``x_1, ..., x_n ~ N(0, I_d)`` i.i.d., find a symmetric
``S`` with

    S PSD   and   x_i^T S x_i = 1   for every i = 1..n,

i.e. the points lie on the boundary of the ellipsoid ``{x : x^T S x <= 1}`` (semi-axes ``1/sqrt(eigenvalues)``).
As ``n, d -> infinity`` with ``n/d^2 -> alpha``, the problem is feasible with high probability for ``alpha < 1/4`` and
infeasible for ``alpha > 1/4``: conjectured by Saunderson et al. from numerical evidence, predicted by the replica
method (Maillard and Kunisky, arXiv:2310.01169), and proved for approximate fits with bounded axes (Maillard and
Bandeira, arXiv:2310.05787) through a Gaussian-equivalent problem. Counting parameters (``d(d+1)/2`` entries of S,
one equation per point) only gives the trivial bound ``alpha <= 1/2``; the PSD constraint halves it
(:func:`threshold`, :func:`finite_size_threshold`).

Link with the quadratic network (``solvable.quadratic``): a PSD ``S`` is ``W^T W`` for a network of width ``m >= d``,
and ``x^T S x = 1`` says that the network with quadratic activation outputs the constant 1 on every input: ellipsoid
fitting is noiseless interpolation of constant labels by an over-parameterised quadratic network, i.e. the
feasibility problem behind the interpolating (``lambda -> 0+``) limit of the nuclear-norm ERM of
``quadratic.nuclear_norm_erm``.

Why a solver of our own: the course has no semidefinite-programming solver among its requirements (no cvxpy), and
this feasibility problem at ``d <= 40`` needs only a few dozen lines: alternating projections between the affine set
of the constraints (one Cholesky factorisation of the n x n Gram matrix) and the PSD cone (eigenvalue clipping),
with exact certificates of both answers (:func:`fit`).
"""

from __future__ import annotations

import math
import time
from dataclasses import field

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.special import log_ndtr as _log_ndtr

from .domains import array, declare, integer, real
from .errors import ConvergenceWarning, InvalidParameterError
from .errors import warn as warn_user
from .results import record
from .validation import check_array, check_size

__all__ = [
    "THRESHOLD",
    "EllipsoidResult",
    "FeasibilitySweep",
    "TransitionResult",
    "constraint_values",
    "feasibility_sweep",
    "finite_size_threshold",
    "fit",
    "project_affine",
    "sample_points",
    "threshold",
]

#: The largest number of point sets per ratio that :func:`feasibility_sweep` accepts (one fit each).
MAX_INSTANCES = 10_000

#: The SAT/UNSAT threshold of n/d^2: 1/4 (conjecture of Saunderson, Parrilo, Willsky; replica prediction of
#: Maillard and Kunisky, arXiv:2310.01169; rigorous for bounded approximate fits, Maillard and Bandeira,
#: arXiv:2310.05787).
THRESHOLD = 0.25

#: The domains of the module's parameters (solvable.domains): the points (rows of an (n, d) array), a matrix.
POINTS = array(2)
MATRIX = array(2)


@declare()
def threshold() -> float:
    """The limit ``alpha_c = lim n/d^2`` of the feasibility transition of ellipsoid fitting: ``1/4``.

    Feasible w.h.p. below, infeasible above (conjectured by Saunderson, Parrilo, Willsky from numerics; derived with
    the replica method by Maillard and Kunisky, arXiv:2310.01169; proved for approximate fits with bounded axes by
    Maillard and Bandeira, arXiv:2310.05787). Half of the parameter count ``d(d+1)/2 ~ d^2/2``.

    Returns
    -------
    float
        ``alpha_c = 1/4`` (:data:`THRESHOLD`).

    Notes
    -----
    With ``n = alpha d^2`` Gaussian points (eq-qn-ellipsoid-threshold)::

        P(an ellipsoid fits) -> 1 for alpha < 1/4,      -> 0 for alpha > 1/4.

    References
    ----------
    Chapter 4, Sec. 'Ellipsoid fitting: the noiseless interpolation threshold', eq-qn-ellipsoid-threshold;
    Maillard and Kunisky 2023, arXiv:2310.01169; Maillard and Bandeira 2023, arXiv:2310.05787.

    Examples
    --------
    >>> from solvable import ellipsoid
    >>> print(ellipsoid.threshold())
    0.25
    """
    return THRESHOLD


@declare(d=integer(1))
def finite_size_threshold(d: int) -> float:
    """Heuristic finite-size location of the transition, ``n/d^2 = d(d+1)/(4 d^2) = (1 + 1/d)/4``.

    The statistical dimension of the cone of d x d PSD matrices is ``d(d+1)/4``, half the dimension of the space
    of symmetric matrices (Amelunxen, Lotz, McCoy, Tropp, "Living on the edge", 2014, arXiv:1303.6672; in one line,
    ``E sum_j lambda_j(Xi)_+^2 = E |Xi|_F^2 / 2`` by the symmetry ``Xi -> -Xi`` of a Gaussian symmetric Xi).
    By the conic kinematic formula, a *uniformly random* affine subspace of codimension n meets the cone with high probability
    iff ``n`` is below that statistical dimension, with a window of width ``O(d)`` in ``n``. The constraints
    ``<x_i x_i^T, S> = 1`` are not uniformly random, so this is a heuristic (in the spirit of the Gaussian-equivalent
    problem of Maillard and Bandeira, arXiv:2310.05787), not a theorem; its limit is :func:`threshold`. The
    chapter compares it with the measured transition at d = 20-40.

    Parameters
    ----------
    d : int
        Dimension of the points, ``>= 1``.

    Returns
    -------
    float
        ``(1 + 1/d) / 4`` (eq-qn-ellipsoid-finite-d).

    Raises
    ------
    ValueError
        If ``d < 1`` (TypeError for a non-integer).

    Notes
    -----
    ``n_c = d (d + 1) / 4``, the statistical dimension of the PSD cone, so ``n_c / d^2 = (1 + 1/d) / 4``.

    References
    ----------
    Chapter 4, Sec. 'Ellipsoid fitting: the noiseless interpolation threshold', eq-qn-ellipsoid-finite-d;
    Amelunxen et al. 2014, arXiv:1303.6672; Maillard and Bandeira 2023, arXiv:2310.05787.

    Examples
    --------
    >>> from solvable import ellipsoid
    >>> print([round(ellipsoid.finite_size_threshold(d), 4) for d in (10, 100, 1000)])
    [0.275, 0.2525, 0.2502]
    """
    return (1.0 + 1.0 / d) / 4.0


@declare(n=integer(1, size=True))
def sample_points(d: int, *, n: int, rng) -> np.ndarray:
    """Draw ``n`` i.i.d. standard Gaussian points of ``R^d``, as the rows of an ``(n, d)`` array.

    Parameters
    ----------
    d : int
        Dimension, ``>= 1`` (first, as the ``d`` of every sampler).
    n : int
        Number of points, ``>= 1`` (keyword-only, so that a call cannot swap it with ``d``).
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the draws (SPEC 7; ``None`` is refused).

    Returns
    -------
    numpy.ndarray
        The points ``x_i ~ N(0, I_d)``, shape ``(n, d)``.

    Raises
    ------
    TypeError
        If ``n`` or ``d`` is not an integer or ``rng`` is not a random source.
    ValueError
        If ``n`` or ``d`` is below 1 or the array would exceed :data:`solvable.validation.MAX_ELEMENTS` numbers.

    Notes
    -----
    The random instance of ellipsoid fitting: ``n = alpha d^2`` points, feasible w.h.p. for ``alpha < 1/4``
    (eq-qn-ellipsoid-threshold).

    References
    ----------
    Chapter 4, Sec. 'Ellipsoid fitting: the noiseless interpolation threshold'; Maillard and Kunisky 2023,
    arXiv:2310.01169.

    Examples
    --------
    >>> from solvable import ellipsoid
    >>> X = ellipsoid.sample_points(4, n=10, rng=0)
    >>> print(X.shape)
    (10, 4)
    """
    check_size("the points (n, d)", n, d)
    return rng.standard_normal((n, d))


@declare(points=POINTS, S=MATRIX)
def constraint_values(points, S) -> np.ndarray:
    """The constraint values ``(x_i^T S x_i)_i`` of every point at once.

    Parameters
    ----------
    points : array_like
        The points, shape ``(n, d)``, finite.
    S : array_like
        A symmetric ``(d, d)`` matrix.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` values; ``S`` fits the points when they are all 1 (eq-qn-ellipsoid).

    Raises
    ------
    ValueError
        If an array has the wrong shape, is not finite, ``S`` is not symmetric, or the values overflow.

    Notes
    -----
    One matrix product and a row-wise sum (nothing of size ``n d^2``)::

        A(S)_i = x_i^T S x_i = sum_j (X S)_ij X_ij.

    References
    ----------
    Chapter 4, Sec. 'Ellipsoid fitting: the noiseless interpolation threshold', eq-qn-ellipsoid.
    """
    X = _check_points(points)
    S = _check_symmetric(S, X.shape[1])
    with np.errstate(all="ignore"):
        values = np.einsum("ij,ij->i", X @ S, X)
    if not np.all(np.isfinite(values)):
        raise InvalidParameterError("S and points are too large: x_i^T S x_i overflows")
    return values


@declare(S=MATRIX, points=POINTS)
def project_affine(S, points) -> np.ndarray:
    """Orthogonal (Frobenius) projection of a symmetric ``S`` onto ``{S' symmetric : x_i^T S' x_i = 1 for all i}``.

    With ``A(S) = (x_i^T S x_i)_i`` and its adjoint ``A*(gamma) = sum_i gamma_i x_i x_i^T``, the projection is
    ``S + A*(gamma)`` with ``Gram gamma = 1 - A(S)``, where ``Gram = A A*`` is the n x n Gram matrix
    ``Gram_ij = (x_i . x_j)^2`` (the normal equations of the least-norm correction, ``gamma`` the Lagrange
    multipliers). ``Gram`` is positive definite for ``n <= d(d+1)/2`` generic
    points; otherwise the affine set is (generically) empty and ``ValueError`` is raised.

    Parameters
    ----------
    S : array_like
        A symmetric ``(d, d)`` matrix.
    points : array_like
        The points, shape ``(n, d)``, finite.

    Returns
    -------
    numpy.ndarray
        The projection, a symmetric ``(d, d)`` matrix with ``x_i^T S' x_i = 1`` for every point.

    Raises
    ------
    ValueError
        If an array is malformed, ``S`` is not symmetric, the constraints are linearly dependent, the Gram matrix
        would exceed :data:`solvable.validation.MAX_ELEMENTS` numbers, or the projection overflows.

    Notes
    -----
    The least-norm correction (eq-qn-affine-projection)::

        S' = S + sum_i gamma_i x_i x_i^T,      Gram gamma = 1 - A(S),      Gram_ij = (x_i . x_j)^2.

    References
    ----------
    Chapter 4, Sec. 'Ellipsoid fitting: the noiseless interpolation threshold', eq-qn-affine-projection.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import ellipsoid
    >>> X = ellipsoid.sample_points(5, n=8, rng=0)
    >>> S = ellipsoid.project_affine(np.zeros((5, 5)), X)  # the least-norm solution of the constraints
    >>> print(S.shape, np.allclose(ellipsoid.constraint_values(X, S), 1.0))
    (5, 5) True
    >>> print(np.allclose(ellipsoid.project_affine(S, X), S))  # a projection: S is already in the set
    True
    """
    X = _check_points(points)
    S = _check_symmetric(S, X.shape[1])
    _check_gram_size(*X.shape)
    factor = _gram_factor(X)
    if factor is None:
        raise InvalidParameterError(
            "points: the constraints are linearly dependent (n > d(d+1)/2 or "
            "degenerate points); the affine set is empty or not of codimension n"
        )
    with np.errstate(all="ignore"):
        y = cho_solve(factor, 1.0 - np.einsum("ij,ij->i", X @ S, X))
        out = S + (X.T * y) @ X
    if not np.all(np.isfinite(out)):
        raise InvalidParameterError("S and points are too large: the projection overflows")
    return out


@record
class EllipsoidResult:
    """Result of :func:`fit`: the answer, its certificate and the last matrix.

    Parameters
    ----------
    estimate : numpy.ndarray
        The fitted ``(d, d)`` matrix ``S`` (``"feasible"``) or the last PSD iterate.
    status : {"feasible", "infeasible", "undecided"}
        ``"feasible"``: ``S`` is PSD, certified, and fits every point to ``tol``; ``"infeasible"``: a Farkas
        certificate proves that no PSD ``S`` fits; ``"undecided"``: the iteration cap came first (neither answer
        is claimed).
    residual : float
        ``max_i |x_i^T S x_i - 1|``.
    min_eigenvalue : float
        The smallest eigenvalue of ``S``.
    iterations : int
        Alternating-projection iterations run.
    message : str
        Why the fit stopped, with its numbers (the residual against ``tol``, the certificate's iteration, or the
        cap: then the warning's text).
    certificate : numpy.ndarray or None, optional
        The Farkas vector ``zeta`` (``"infeasible"``): ``sum_i zeta_i x_i x_i^T`` PSD and ``sum_i zeta_i < 0``.

    Attributes
    ----------
    feasible : bool
        True only for a certified fit.
    converged : bool
        True when either certificate was found before the cap.

    Notes
    -----
    For a feasible ``S`` and a certificate ``zeta``: ``0 <= <sum_i zeta_i x_i x_i^T, S> = sum_i zeta_i < 0``, a
    contradiction (eq-qn-farkas).

    References
    ----------
    Chapter 4, Sec. 'Ellipsoid fitting: the noiseless interpolation threshold', eq-qn-farkas.
    """

    estimate: np.ndarray = field(repr=False)
    status: str
    residual: float
    min_eigenvalue: float
    iterations: int
    message: str
    certificate: np.ndarray | None = field(default=None, repr=False)

    @property
    def feasible(self) -> bool:
        """True only for a certified fit."""
        return self.status == "feasible"

    @property
    def converged(self) -> bool:
        """True when either certificate was found before the iteration cap."""
        return self.status != "undecided"


@declare(points=POINTS, margin=real(0.0, 1.0, high_open=True), check_every=integer(1))
def fit(
    points,
    *,
    tol: float = 1e-8,
    max_iter: int = 10_000,
    margin: float = 1e-3,
    check_every: int = 5,
    warn: bool = True,
) -> EllipsoidResult:
    """Decide whether an origin-centred ellipsoid passes through all ``points`` (rows of an ``(n, d)`` array).

    Alternating projections (von Neumann; Bauschke and Borwein 1993) between the affine set
    ``L = {S : x_i^T S x_i = 1}`` (:func:`project_affine`, with the Gram matrix ``(x_i . x_j)^2`` factorised
    once) and the shrunk PSD cone ``K = {S : S >= (margin/d) I}`` (eigenvalue clipping). The first projection, from
    ``S = 0``, is the least-squares (minimum Frobenius norm) solution of the constraints, the construction of
    Saunderson et al., analysed by Potechin, Turner, Venkat and Wein (COLT 2023).

    Both answers are certified, never guessed:

    * **feasible** when the projection ``S_L`` of the current PSD iterate onto ``L`` is itself PSD: then ``S_L``
      solves the problem, with a residual ``max_i |x_i^T S_L x_i - 1|`` at the rounding level of the Cholesky solve
      (required ``<= tol``) and a smallest eigenvalue required to exceed ``1e-12 |S_L|_2`` (so that rounding cannot
      flip its sign). The ``margin`` makes this robust: the PSD iterates stay ``margin/d`` inside the cone (the
      typical eigenvalue of a fit is ``1/d``, since ``|x|^2 ~ d``), so ``S_L``, a small correction of such an
      iterate, is PSD as soon as the iteration is close to the intersection. The cost is negligible: fitting
      ``S >= (margin/d) I`` is fitting ``S' >= 0`` to the labels ``1 - margin |x_i|^2/d = 1 - margin (1 + O(d^-1/2))``.
    * **infeasible** when a Farkas certificate is found: ``zeta`` with ``A*(zeta) = sum_i zeta_i x_i x_i^T`` PSD
      and ``sum_i zeta_i < 0`` (for a feasible ``S``, ``0 <= <A*(zeta), S> = sum_i zeta_i``, a contradiction). The
      candidate is the difference of the two projections, ``A*(zeta) = S_K - S_L`` (with ``zeta = -gamma``, the
      multipliers of the affine step), which tends
      to the gap between ``L`` and ``K`` when they do not meet; it is made exactly PSD by adding ``c sum_i x_i x_i^T``
      with ``c`` = (its most negative eigenvalue plus a rounding allowance) / ``lambda_min(X^T X)``, and accepted if
      ``sum_i zeta_i + c n < -1e-9 sum_i |zeta_i|``. Checked every ``check_every`` iterations. With
      ``n > d(d+1)/2`` the affine set itself is generically empty and the certificate comes from the null space of
      Gram matrix (``A*(zeta) = 0``).
    * **undecided** at the cap ``max_iter`` (close to the threshold the sets meet at a small angle and alternating
      projections converge slowly): a :class:`~solvable.errors.ConvergenceWarning` says so (unless ``warn=False``);
      the last PSD iterate is returned.

    Cost per iteration: two ``(n, d) x (d, d)``-sized products, one Cholesky solve of size n, one d x d eigh:
    a fraction of a millisecond at ``d = 30``, ``n = d^2/4``.

    Parameters
    ----------
    points : array_like
        The points, shape ``(n, d)``, finite.
    tol : float, optional
        In ``[0, 1)``: the largest residual ``max_i |x_i^T S x_i - 1|`` accepted for a feasible answer.
    max_iter : int, optional
        Iteration cap, ``>= 1``.
    margin : float, optional
        In ``[0, 1)``: the PSD iterates are kept at ``S >= (margin/d) I``.
    check_every : int, optional
        Look for a Farkas certificate every ``check_every`` iterations, ``>= 1``.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` for an undecided answer.

    Returns
    -------
    EllipsoidResult
        The certified answer (``status``), the matrix, its residual and smallest eigenvalue, the certificate.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is malformed, or the Gram matrix and the products would exceed
        :data:`solvable.validation.MAX_ELEMENTS` numbers at once, or the points are so large or small (root-mean-square
        entry beyond about ``1e+-150``) that ``S``, of size ``1/|x|^2``, is not representable. The answer does not
        depend on the points' scale: they are divided by a power of two first when their root-mean-square entry
        lies outside ``[2^-10, 2^10]``.
    ArithmeticError
        If an iterate becomes non-finite.

    Notes
    -----
    The problem (eq-qn-ellipsoid)::

        find S  with  S PSD  and  x_i^T S x_i = 1  for i = 1..n.

    References
    ----------
    Chapter 4, Sec. 'Ellipsoid fitting: the noiseless interpolation threshold'; Saunderson, Parrilo, Willsky
    2013; Potechin, Turner, Venkat, Wein 2023; Maillard and Kunisky 2023, arXiv:2310.01169.

    Examples
    --------
    >>> from solvable import ellipsoid
    >>> d = 20
    >>> for ratio in (0.15, 0.35):
    ...     points = ellipsoid.sample_points(d, n=int(ratio * d * d), rng=0)
    ...     print(ratio, ellipsoid.fit(points).status)
    ...
    0.15 feasible
    0.35 infeasible
    """
    X0 = points
    X, c = _unit_scale(X0)  # the problem is scale covariant: solve it for X / c, return S / c^2
    X = _check_points(X)
    n, d = X.shape
    _check_gram_size(n, d)
    floor = margin / d

    norms = np.einsum("ij,ij->i", X, X)
    if np.any(norms == 0.0):
        # a point at the origin: x^T S x = 0 != 1 for every S. Certificate z = -e_i: A*(z) = 0, sum z = -1.
        z = -(norms == 0.0).astype(float)
        return _scaled_result(
            X0,
            c,
            np.zeros((d, d)),
            "infeasible",
            0,
            z,
            f"infeasible: {int((norms == 0.0).sum())} point(s) at the origin, where x^T S x = 0 "
            "for every S (no iteration)",
        )

    xtx_min = float(np.linalg.eigvalsh(X.T @ X)[0]) if n >= d else 0.0
    factor = _gram_factor(X)
    if factor is None:
        z = _null_space_certificate(X, xtx_min)
        if z is not None:
            return _scaled_result(
                X0,
                c,
                np.zeros((d, d)),
                "infeasible",
                0,
                z,
                "infeasible: a Farkas certificate in the null space of the constraints' Gram "
                "matrix (no iteration)",
            )
        raise InvalidParameterError(
            "points: the constraint Gram matrix (x_i . x_j)^2 is singular but no "
            "certificate of infeasibility was found (degenerate points)"
        )

    S_K = np.zeros((d, d))
    it = 0
    for it in range(1, max_iter + 1):
        y = cho_solve(factor, 1.0 - np.einsum("ij,ij->i", X @ S_K, X))
        S_L = S_K + (X.T * y) @ X
        S_L = 0.5 * (S_L + S_L.T)
        w, V = np.linalg.eigh(S_L)
        if w[0] > 1e-12 * max(abs(w[-1]), 1e-300):
            res = float(np.max(np.abs(np.einsum("ij,ij->i", X @ S_L, X) - 1.0)))
            if res <= tol:
                return _scaled_result(
                    X0,
                    c,
                    S_L,
                    "feasible",
                    it,
                    None,
                    f"feasible: a PSD fit with residual {res:.1e} <= tol {tol:.1e} after {it} iterations",
                )
        if xtx_min > 0.0 and (it % check_every == 0 or it == 1):
            certificate = _is_farkas_certificate(X, -y, xtx_min)
            if certificate is not None:
                return _scaled_result(
                    X0,
                    c,
                    S_K,
                    "infeasible",
                    it,
                    certificate,
                    f"infeasible: a Farkas certificate found at iteration {it}",
                )
        S_K = (V * np.maximum(w, floor)) @ V.T
        if not np.all(np.isfinite(S_K)):
            raise ArithmeticError(f"ellipsoid.fit: non-finite iterate at iteration {it}")
    message = (
        f"ellipsoid.fit: no certificate of either answer in {it} iterations (n = {n}, d = {d}, "
        f"n/d^2 = {n / d**2:.3f}): reported as undecided"
    )
    if warn:
        warn_user(message, ConvergenceWarning)
    return _scaled_result(X0, c, S_K, "undecided", it, None, message)


@record
class FeasibilitySweep:
    """Result of :func:`feasibility_sweep`: the certified answers at each ratio ``alpha = n/d^2``.

    Parameters
    ----------
    d : int
        Dimension of the points.
    ratios : numpy.ndarray
        The ratios ``alpha = n/d^2``.
    n : numpy.ndarray
        The numbers of points ``round(alpha d^2)``.
    feasible : numpy.ndarray
        Certified feasible instances at each ratio.
    infeasible : numpy.ndarray
        Certified infeasible instances at each ratio.
    undecided : numpy.ndarray
        Undecided instances at each ratio (counted, not guessed).
    n_seeds : int
        Point sets per ratio.
    iterations : numpy.ndarray
        Iterations of each fit, ``(len(ratios), n_seeds)``.
    seconds : float
        Wall-clock time of the sweep (not compared by ``==``: two equal sweeps may take different times).

    Attributes
    ----------
    fraction : numpy.ndarray
        Fraction of certified feasible instances at each ratio.
    sem : numpy.ndarray
        Its binomial standard error.

    Notes
    -----
    The fraction falls from 1 to 0 around ``alpha = (1 + 1/d)/4`` (:func:`finite_size_threshold`);
    :meth:`transition` fits its location and width.

    References
    ----------
    Chapter 4, Sec. 'Ellipsoid fitting: the noiseless interpolation threshold', eq-qn-ellipsoid-threshold.
    """

    d: int
    ratios: np.ndarray
    n: np.ndarray
    feasible: np.ndarray
    infeasible: np.ndarray
    undecided: np.ndarray
    n_seeds: int
    iterations: np.ndarray = field(repr=False)
    seconds: float = field(compare=False)

    @property
    def fraction(self) -> np.ndarray:
        """Fraction of certified feasible instances at each ratio."""
        return self.feasible / self.n_seeds

    @property
    def sem(self) -> np.ndarray:
        """Binomial standard error ``sqrt(p (1 - p)/N)`` of :attr:`fraction`, with ``p`` shrunk to
        ``(k + 1/2)/(N + 1)`` so that a fraction of 0 or 1 still shows its uncertainty (about ``1/(2 N)``)."""
        p = (self.feasible + 0.5) / (self.n_seeds + 1.0)
        return np.sqrt(p * (1.0 - p) / self.n_seeds)

    def transition(self) -> TransitionResult:
        """Location and width of the transition: maximum-likelihood probit fit of the decided instances.

        Model: an instance at ratio ``r`` is fitted with probability ``Phi((center - r)/width)``; the likelihood is
        binomial over the certified answers (undecided instances are left out: they carry no answer). The standard
        error of ``center`` comes from the observed Fisher information (numerical Hessian of the negative
        log-likelihood in ``(center, log width)``). The width is kept in ``[1e-3, 1]``; when the data jump from all
        fitted to none fitted between two neighbouring ratios, the likelihood cannot locate the centre better than
        the grid, and the standard error reported is half that grid step.
        """
        r = self.ratios
        k = self.feasible.astype(float)
        m = (self.feasible + self.infeasible).astype(float)

        def nll(theta):
            c, logw = theta
            z = (c - r) / np.exp(logw)
            return -float(np.sum(k * _log_ndtr(z) + (m - k) * _log_ndtr(-z)))

        frac = np.where(m > 0, k / np.maximum(m, 1), 0.5)
        c0 = float(r[np.argmin(np.abs(frac - 0.5))])
        bounds = [(float(r.min()), float(r.max())), (np.log(1e-3), 0.0)]
        opt = minimize(nll, x0=[c0, np.log(0.02)], method="L-BFGS-B", bounds=bounds)
        c, logw = (float(v) for v in opt.x)
        step = float(np.min(np.diff(np.sort(r)))) if r.size > 1 else float(r[0])
        h = np.array([1e-4, 1e-3])
        H = np.empty((2, 2))
        x = np.array([c, logw])
        for i in range(2):
            for j in range(2):
                ei, ej = np.eye(2)[i] * h[i], np.eye(2)[j] * h[j]
                H[i, j] = (nll(x + ei + ej) - nll(x + ei - ej) - nll(x - ei + ej) + nll(x - ei - ej)) / (
                    4 * h[i] * h[j]
                )
        try:
            cov = np.linalg.inv(H)
            se = (
                float(np.sqrt(cov[0, 0])) if np.all(np.linalg.eigvalsh(H) > 0) and cov[0, 0] > 0 else math.inf
            )
        except np.linalg.LinAlgError:
            se = math.inf
        if not math.isfinite(se) or se > step:
            se = step / 2
        return TransitionResult(center=c, width=float(np.exp(logw)), center_sem=se)


@record
class TransitionResult:
    """Probit fit of a :class:`FeasibilitySweep` (:meth:`FeasibilitySweep.transition`).

    Parameters
    ----------
    center : float
        The ratio ``n/d^2`` where half the instances fit.
    width : float
        The width of the transition, in units of ``n/d^2``.
    center_sem : float
        The standard error of ``center``.

    Notes
    -----
    An instance at ratio ``r`` fits with probability ``Phi((center - r)/width)``.

    References
    ----------
    Chapter 4, Sec. 'Ellipsoid fitting: the noiseless interpolation threshold'.
    """

    center: float
    width: float
    center_sem: float


@declare(ratios=array(1), n_seeds=integer(1, MAX_INSTANCES))
def feasibility_sweep(d: int, ratios, n_seeds: int, *, rng, max_iter: int = 10_000) -> FeasibilitySweep:
    """Fit ellipsoids to ``n_seeds`` sets of Gaussian points at each ratio, and count the certified answers.

    Parameters
    ----------
    d : int
        Dimension of the points, ``>= 1``.
    ratios : array_like
        Ratios ``alpha = n/d^2`` in ``(0, 1]`` (``n = round(alpha d^2)`` points per set).
    n_seeds : int
        Point sets per ratio, in ``[1, MAX_INSTANCES]``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the points.
    max_iter : int, optional
        Iteration cap of each :func:`fit`, ``>= 1``.

    Returns
    -------
    FeasibilitySweep
        The numbers of certified feasible, infeasible and undecided instances at each ratio.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is out of its domain or a fit's arrays would exceed
        :data:`solvable.validation.MAX_ELEMENTS` numbers.

    Notes
    -----
    As ``d -> inf`` the fraction of feasible instances jumps from 1 to 0 at ``alpha = 1/4``
    (eq-qn-ellipsoid-threshold).

    References
    ----------
    Chapter 4, Sec. 'Ellipsoid fitting: the noiseless interpolation threshold'; Maillard and Kunisky 2023,
    arXiv:2310.01169; Maillard and Bandeira 2023, arXiv:2310.05787.

    Examples
    --------
    >>> from solvable import ellipsoid
    >>> sweep = ellipsoid.feasibility_sweep(10, [0.1, 0.4], 3, rng=0)  # 3 point sets at n = 10 and n = 40
    >>> print(sweep.n, sweep.feasible, sweep.infeasible, sweep.undecided)
    [10 40] [3 0] [0 3] [0 0]
    """
    if np.any(ratios <= 0) or np.any(ratios > 1):
        raise InvalidParameterError(
            f"ratios must lie in (0, 1] (n/d^2; no point set beyond d(d+1)/2 fits), got {ratios.tolist()}"
        )
    ns = np.maximum(1, np.round(ratios * d * d)).astype(int)
    check_size("the points (max n, d)", int(ns.max()), d)
    _check_gram_size(int(ns.max()), d)
    counts = np.zeros((3, ratios.size), dtype=int)
    iters = np.zeros((ratios.size, n_seeds), dtype=int)
    start = time.perf_counter()
    index = {"feasible": 0, "infeasible": 1, "undecided": 2}
    for j, n in enumerate(ns):
        for k in range(n_seeds):
            r = fit(sample_points(d, n=int(n), rng=rng), max_iter=max_iter, warn=False)
            counts[index[r.status], j] += 1
            iters[j, k] = r.iterations
    return FeasibilitySweep(
        d=d,
        ratios=ratios,
        n=ns,
        feasible=counts[0],
        infeasible=counts[1],
        undecided=counts[2],
        n_seeds=n_seeds,
        iterations=iters,
        seconds=time.perf_counter() - start,
    )


# --------------------------------------------------------------------------- helpers


def _check_points(points) -> np.ndarray:
    X = check_array("points", points, ndim=2)
    if X.shape[1] < 1:
        raise InvalidParameterError(f"points must have shape (n, d) with d >= 1, got {X.shape}")
    if not np.all(np.isfinite(np.einsum("ij,ij->i", X, X) ** 2)):
        raise InvalidParameterError("points are too large: the squared norms (x_i . x_i)^2 overflow")
    return X


def _check_gram_size(n: int, d: int) -> None:
    """Refuse point sets whose fit would hold more than ``MAX_ELEMENTS`` numbers at once: the Gram matrix ``G``,
    its Cholesky factor and the eigendecomposition's workspace (about 4 arrays (n, n)), the products ``X S``
    (about 3 arrays (n, d)) and the iterates (about 4 arrays (d, d))."""
    check_size(
        "the constraint Gram matrix and its factorisation (n, n) x 4, the products (n, d) x 3 and the "
        "iterates (d, d) x 4 together",
        4 * n * n + 3 * n * d + 4 * d * d,
    )


def _check_symmetric(S, d: int) -> np.ndarray:
    S = check_array("S", S, ndim=2)
    if S.shape != (d, d):
        raise InvalidParameterError(f"S must have shape ({d}, {d}) to match the points, got {S.shape}")
    if not np.allclose(S, S.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.max(np.abs(S))))):
        raise InvalidParameterError("S must be symmetric")
    return 0.5 * (S + S.T)


def _gram_factor(X: np.ndarray):
    """Cholesky factor of ``G_ij = (x_i . x_j)^2``, or None if G is not (numerically) positive definite."""
    n, d = X.shape
    if n > d * (d + 1) // 2:
        return None
    G = (X @ X.T) ** 2
    try:
        factor = cho_factor(G, lower=True)
    except np.linalg.LinAlgError:
        return None
    diag = np.abs(np.diag(factor[0]))
    if diag.min() <= 1e-10 * diag.max():  # numerically singular: projections would amplify rounding
        return None
    return factor


def _is_farkas_certificate(X: np.ndarray, z: np.ndarray, xtx_min: float):
    """``z + c 1`` if it proves infeasibility (``A*(z + c 1)`` PSD, ``sum < 0``), else None."""
    M = (X.T * z) @ X
    w = np.linalg.eigvalsh(0.5 * (M + M.T))
    c = (max(0.0, -float(w[0])) + 1e-12 * max(abs(float(w[-1])), abs(float(w[0])))) / xtx_min
    z_c = z + c
    if float(np.sum(z_c)) < -1e-9 * float(np.sum(np.abs(z_c))):
        return z_c
    return None


def _null_space_certificate(X: np.ndarray, xtx_min: float):
    """For ``n > d(d+1)/2``: ``z = -(projection of 1 on the null space of G)`` has ``A*(z) = 0`` and ``sum z < 0``."""
    if xtx_min <= 0.0:
        return None
    n = X.shape[0]
    check_size("the constraint Gram matrix (n, n)", n, n)
    G = (X @ X.T) ** 2
    w, V = np.linalg.eigh(G)
    null = V[:, w <= 1e-10 * w[-1]]
    if null.shape[1] == 0:
        return None
    z = -(null @ (null.T @ np.ones(n)))
    return _is_farkas_certificate(X, z, xtx_min)


def _unit_scale(X):
    """``(X / c, c)`` with ``c`` a power of two that brings the root-mean-square entry of ``X`` near 1, or ``c = 1``
    when it is already within ``[2^-10, 2^10]`` (dividing by a power of two is exact, so a fit is the same
    computation at every scale: the eigenvalue floor ``margin / d`` and the tolerances are absolute)."""
    largest = float(np.max(np.abs(X))) if X.size else 0.0
    if largest == 0.0 or not math.isfinite(largest):
        return X, 1.0
    rms = largest * math.sqrt(float(np.mean((X / largest) ** 2)))
    if 2.0**-10 <= rms <= 2.0**10:
        return X, 1.0
    k = round(math.log2(rms))
    if abs(k) > 500:  # S ~ 1/(c^2 d) would lie beyond the float range
        raise InvalidParameterError(
            f"points are too {'large' if k > 0 else 'small'} (root-mean-square "
            f"entry {rms:.1e}): the ellipsoid matrix, of size 1/|x|^2, is not "
            "representable"
        )
    c = 2.0**k
    return X / c, c


def _scaled_result(X0, c, S, status, iterations, certificate, message) -> EllipsoidResult:
    """The result for the original points ``X0`` from the matrix ``S`` found for ``X0 / c``."""
    return _result(X0, S / (c * c) if c != 1.0 else S, status, iterations, certificate, message)


def _result(X, S, status, iterations, certificate, message) -> EllipsoidResult:
    residual = float(np.max(np.abs(np.einsum("ij,ij->i", X @ S, X) - 1.0)))
    return EllipsoidResult(
        estimate=S,
        status=status,
        residual=residual,
        min_eigenvalue=float(np.linalg.eigvalsh(S)[0]),
        iterations=iterations,
        message=message,
        certificate=certificate,
    )
