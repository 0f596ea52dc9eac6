"""Rotationally invariant estimators (RIE) of a matrix seen through Gaussian noise, their MMSE and their GAMP
denoisers, and the one-draw experiments that compare them with the baselines.

Two denoising problems recur in the matrix chapters (Chapter 2, Secs. "Denoising a symmetric matrix" and
"Denoising a rectangular matrix"):

- **symmetric**: ``Y = S + sqrt(noise) Z`` (``d x d``), ``Z`` GOE of variance 1 (off-diagonal N(0, 1/d),
  diagonal N(0, 2/d)), ``S`` rotationally invariant with a known spectral law. The optimal
  rotation-equivariant estimator keeps the eigenvectors of ``Y`` and maps each eigenvalue
  ``lambda -> lambda - 2 noise Re G_Y(lambda)`` (Bun, Allez, Bouchaud, Potters, IEEE Trans. Inf. Theory 62:7475
  (2016), arXiv:1502.06736). Its asymptotic error per entry is
  ``mmse(noise) = (1/d) E||S_hat - S||_F^2 = noise - (4 pi^2/3) noise^2 int rho_Y^3`` (Maillard, Troiani, Martin,
  Krzakala, Zdeborova, arXiv:2408.03733). The quadratic-network and attention chapters use a Wishart ``S``
  in the paper normalisation ``S* = W^T W/sqrt(m d)`` of rank ratio ``kappa = m/d``.
- **rectangular**: ``Y = S + sqrt(noise) Z`` (``d x L``), ``S = U V^T/sqrt(r)``, ``Z`` i.i.d. N(0, 1), ALL
  divided by ``(dL)^{1/4}`` so that singular values are O(1). Its shape is said in the symbols of bilinear
  sequence regression: ``beta = L/d`` and ``rho = r/min(d, L)`` (``= r/d`` for ``d <= L``; for ``d > L`` the
  problem is the transposed one, so ``beta < 1`` is read as ``1/beta``). The RIE keeps the singular vectors and
  shrinks the singular values (Troiani, Erba, Krzakala, Maillard, Zdeborova, arXiv:2203.07752); the error is
  measured as ``||S_hat - S||_F^2/sqrt(dL)`` on the scaled matrices, i.e. ``(1/(dL))||.||_F^2`` on the unit
  scale. Used by the bilinear-sequence-regression chapter.

This module is the one owner of the RIE numerics: :func:`symmetric_rie_mmse` and :func:`rectangular_rie_mmse`
are defined for every noise in ``[0, inf]`` (``inf``: no information, the signal's variance) and every shape,
and :class:`WishartRIEDenoiser` / :class:`RectangularRIEDenoiser` are the RIE as the denoiser of GAMP
(:func:`solvable.amp.run_gamp`) and, through ``se_overlap`` / ``se_error``, as the "prior" of its state
evolution. The one-draw experiments :func:`symmetric_denoising_experiment` and
:func:`rectangular_denoising_experiment` compare the RIE with the baselines of :mod:`solvable.denoising` (the
samplers of the signals and noises, the error metrics and the non-RIE estimators), which own those names
(``denoising.sample_goe``, ``denoising.symmetric_error``, ...).

The variance of the Gaussian noise of the denoising problem is called ``noise`` everywhere in this module and
in :mod:`solvable.spectra` (``delta`` is the label noise of the models). A function that acts on an observation
takes it first and the noise right after it, then the signal's parameters: ``symmetric_rie(Y, noise, kappa)``,
``rectangular_rie(Y, noise, rho)``. A function of the noise alone takes it first:
``symmetric_rie_mmse(noise, kappa)``, ``rectangular_rie_mmse(noise, beta, rho)``. Every MMSE is checked against
its mathematical range ``[0, min(noise, spectral variance of S)]``: a value outside it (beyond rounding) raises
``ArithmeticError`` rather than being clipped silently.
"""

from __future__ import annotations

import math

import numpy as np

from .domains import Domain, choice, declare, function, integer, optional, real, unchecked
from .errors import InvalidParameterError
from .denoising import (
    MATRIX,
    STRENGTHS,
    SYMMETRIC,
    DenoisingErrors,
    _finite_array,
    _real_array,
    optimal_shrinkage_singular_values,
    sample_goe,
    sample_rectangular_noise,
    sample_rectangular_signal,
    sample_wishart,
)
from .results import record
from .spectra import (
    DEFAULT_NODES,
    MAX_ABS_ARGUMENT,
    MAX_ASPECT_RATIO,
    MAX_NODES,
    NOISE_RANGE,
    NORMALISATIONS,
    bulk_quadrature,
    rectangular_plus_noise,
    wishart_plus_goe,
)
from .validation import (
    all_finite,
    check_positive,
    check_size,
)

__all__ = [
    "RECTANGULAR_BRACKET_TOL",
    "RECTANGULAR_MMSE_TOL",
    "RECTANGULAR_SMALL_NOISE",
    "RECTANGULAR_TINY_NOISE",
    "RECTANGULAR_WIDE",
    "SYMMETRIC_TINY_NOISE",
    "SYMMETRIC_LARGE_NOISE",
    "SYMMETRIC_SMALL_NOISE",
    "EMPIRICAL_BLOCK",
    "RectangularRIEDenoiser",
    "WishartRIEDenoiser",
    "empirical_rectangular_rie",
    "empirical_rectangular_rie_singular_values",
    "empirical_symmetric_rie",
    "empirical_symmetric_rie_eigenvalues",
    "ledoit_peche_overlap",
    "rectangular_denoising_experiment",
    "rectangular_parameter_fraction",
    "rectangular_rie",
    "rectangular_rie_mmse",
    "rectangular_rie_singular_values",
    "semicircle_rie_mmse",
    "spiked_top_overlap",
    "symmetric_denoising_experiment",
    "symmetric_rie",
    "symmetric_rie_eigenvalues",
    "symmetric_rie_mmse",
    "symmetric_rie_mmse_from_density",
    "wishart_parameter_fraction",
]

#: Above ``SYMMETRIC_LARGE_NOISE * max(10, 1/kappa)`` (paper normalisation) the symmetric MMSE is its
#: large-noise expansion to ``O(noise^-3)`` (see :func:`symmetric_rie_mmse`), where the quadrature's
#: ``noise - (...)`` would lose ``log10(noise)`` digits to cancellation.
SYMMETRIC_LARGE_NOISE = 100.0
#: A rectangular MMSE from the quadrature whose estimated error (see :func:`rectangular_rie_mmse`) exceeds this
#: times ``min(noise, 1)`` is not returned as such (the bracket of the function stands in for it).
RECTANGULAR_MMSE_TOL = 1e-5
#: Largest half-width of the bracket of :func:`rectangular_rie_mmse` whose middle is returned where the
#: quadrature is not resolved (it is then the bound on the error); a wider bracket raises ``ArithmeticError``.
RECTANGULAR_BRACKET_TOL = 1e-3
#: From this aspect ratio ``beta`` on, :func:`rectangular_rie_mmse` does not evaluate the finite-``beta``
#: quadrature, which is no longer resolved there, but its bracket.
RECTANGULAR_WIDE = 1e7
#: How far from 1 the integral of a density over its support may be (:func:`symmetric_rie_mmse_from_density`):
#: the quadrature of a density with square-root edges is exact to about 1e-12 at the default nodes.
DENSITY_MASS_TOL = 1e-6
#: Below this noise the symmetric MMSE is its small-noise limit ``noise (2 kappa - kappa^2)`` (or ``noise``).
SYMMETRIC_SMALL_NOISE = 1e-5
#: Below this noise the rectangular MMSE is its small-noise limit ``noise r(d + L - r)/(dL)``.
RECTANGULAR_SMALL_NOISE = 1e-4
#: Below this noise :func:`rectangular_rie` returns its ``noise -> 0`` limit, the best rank-``r`` approximation
#: of ``Y`` (``Y`` itself for ``rho >= 1``): the corrections are ``O(noise)``, and the spectral law of
#: :class:`~solvable.spectra.RectangularPlusNoise` can no longer be resolved in double precision (below ~1e-15).
RECTANGULAR_TINY_NOISE = 1e-12
#: Below this noise :func:`symmetric_rie` returns its ``noise -> 0`` limit (see :func:`symmetric_rie_eigenvalues`).
SYMMETRIC_TINY_NOISE = 1e-12

_FOUR_PI2_OVER_3 = 4.0 * math.pi**2 / 3.0
_ROUNDING = 64.0 * float(np.finfo(float).eps)  # the rounding allowed in noise - (...), relative to the noise


#: The domains of the RIE toolbox, declared once (with :data:`solvable.denoising.SYMMETRIC`, ``MATRIX`` and
#: ``STRENGTHS`` for observations and singular values).
EIGENVALUES = Domain(
    "a number or a non-empty 1-d array of finite real numbers",
    lambda name, value: _finite_array(name, value, vector=True),
    "array",
    (None,),
)


def _check_points(name, value) -> np.ndarray:
    """Finite real points where a spectral law is evaluated (``|x| <= spectra.MAX_ABS_ARGUMENT``)."""
    arr = _finite_array(name, value)
    if np.any(np.abs(arr) > MAX_ABS_ARGUMENT):
        raise InvalidParameterError(
            f"{name} must have entries of modulus at most {MAX_ABS_ARGUMENT:g} (where the "
            "spectral laws are evaluated)"
        )
    return arr


POINTS = Domain(
    f"a number or an array of finite real numbers of modulus <= {MAX_ABS_ARGUMENT:g}",
    _check_points,
    "array",
    (None,),
)
POSITIVE = real(0.0, low_open=True)
NOISE_OR_INF = real(0.0, allow_inf=True)  # inf: the observation carries no information
NOISE_IN_RANGE = real(0.0, NOISE_RANGE[1])  # where the spectral laws are resolved
EXPERIMENT_NOISE = real(0.0, NOISE_RANGE[1], low_open=True)
ASPECT = real(0.0, low_open=True)  # beta = L/d, finite
WISHART_KAPPA = optional(POSITIVE, "the law of Y is given instead (law)")
WIDTH = optional(POSITIVE, "d**-0.5, d the number of eigenvalues")
NORMALISATION = choice(*NORMALISATIONS)
NODES = integer(2, MAX_NODES)
LAW = unchecked(
    "a spectral law (an object with stieltjes_real, e.g. spectra.wishart_plus_goe(noise, kappa=kappa)) or "
    "a callable x -> Re G_Y(x): checked where it is evaluated"
)


# --------------------------------------------------------------------------- symmetric


def _check_spectrum_scale(name: str, arr: np.ndarray) -> None:
    """The spectral laws are evaluated at ``|x| <= spectra.MAX_ABS_ARGUMENT``: refuse larger entries by name
    (``sum x^2`` bounds every eigenvalue or singular value)."""
    if not np.vdot(arr, arr) <= MAX_ABS_ARGUMENT**2:
        raise InvalidParameterError(
            f"{name} is too large for the spectral law: its Frobenius norm must be at most "
            f"{MAX_ABS_ARGUMENT:g}"
        )


def _re_stieltjes(noise, kappa, normalisation, law):
    """The function ``x -> Re G_Y(x)`` from exactly one of ``kappa`` (Wishart signal) or ``law``."""
    if (kappa is None) == (law is None):
        raise InvalidParameterError("give exactly one of kappa (Wishart signal) or law (the law of Y)")
    if law is None:
        return wishart_plus_goe(noise, kappa=kappa, normalisation=normalisation).stieltjes_real
    if hasattr(law, "stieltjes_real"):
        return law.stieltjes_real
    if callable(law):
        return law
    raise InvalidParameterError("law must have a stieltjes_real method or be a callable x -> Re G_Y(x)")


@declare(eigenvalues=EIGENVALUES, kappa=WISHART_KAPPA, normalisation=NORMALISATION, law=LAW)
def symmetric_rie_eigenvalues(
    eigenvalues, noise: float, kappa: float | None = None, *, normalisation: str = "paper", law=None
) -> np.ndarray:
    """Map eigenvalues of ``Y`` to those of the symmetric RIE, ``lambda -> lambda - 2 noise Re G_Y(lambda)``.

    Parameters
    ----------
    eigenvalues : float or array_like (k,)
        Eigenvalues of the symmetric observation ``Y = S + sqrt(noise) Z`` (finite).
    noise : float
        Noise variance ``>= 0`` (``0`` returns a copy of the eigenvalues).
    kappa : float, optional
        Rank ratio ``m/d > 0`` of a Wishart signal (in ``normalisation``). Give exactly one of ``kappa`` and
        ``law``.
    normalisation : {"paper", "mean_one"}, optional
        Normalisation of the Wishart signal: ``W^T W/sqrt(m d)`` (default) or ``W^T W/m``.
    law : object or callable, optional
        The law of ``Y`` instead of ``kappa``: an object with a ``stieltjes_real`` method (such as
        ``spectra.Semicircle(varsigma + noise)`` for a semicircle signal of variance ``varsigma``) or a callable
        ``x -> Re G_Y(x)``.

    Returns
    -------
    numpy.ndarray
        The new eigenvalues, same shape.

    Raises
    ------
    ValueError
        For a malformed argument (named), or a law that returns a non-finite ``Re G_Y``.

    Notes
    -----
    The map is [2]_

    ``xi(lambda) = lambda - 2 noise Re G_Y(lambda)``.

    Eigenvalues outside the bulk (outliers, finite-size edges) use the branch of ``G_Y`` that continues to
    ``~ 1/x``. Below :data:`SYMMETRIC_TINY_NOISE` (under the range where the spectral law can be resolved) the
    ``noise -> 0`` limit is returned: the eigenvalues themselves, or for a Wishart signal of rank
    ``m = kappa d < d`` the ``m`` largest (clipped at 0) with the others sent to 0.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator" (``eq-rmt-rie-map``, ``eq-rmt-mmse``).
    .. [2] J. Bun, R. Allez, J.-P. Bouchaud, M. Potters, IEEE Trans. Inf. Theory 62:7475 (2016),
       arXiv:1502.06736.

    Examples
    --------
    >>> from solvable import rie, spectra
    >>> print(rie.symmetric_rie_eigenvalues([0.5, 2.0], 0.6, 0.5).round(3))  # Wishart signal, kappa = 0.5
    [0.284 1.463]
    >>> # a semicircle signal of variance 1 (Y semicircle of variance 2): the linear map lambda/(1 + noise)
    >>> print(rie.symmetric_rie_eigenvalues([1.0, 2.0], 1.0, law=spectra.Semicircle(2.0)))
    [0.5 1. ]
    """
    lam = eigenvalues
    _check_spectrum_scale("eigenvalues", lam)
    if noise == 0.0:
        return lam.copy()
    if noise < SYMMETRIC_TINY_NOISE:
        if (kappa is None) == (law is None):
            raise InvalidParameterError("give exactly one of kappa (Wishart signal) or law (the law of Y)")
        if kappa is None or kappa >= 1.0:
            return lam.copy()
        rank = min(lam.size, max(1, round(kappa * lam.size)))
        keep = np.zeros(lam.size, dtype=bool)
        keep[np.argsort(lam)[lam.size - rank :]] = True
        return np.where(keep, np.maximum(lam, 0.0), 0.0)
    re_g = np.asarray(_re_stieltjes(noise, kappa, normalisation, law)(lam), dtype=float)
    if re_g.shape != lam.shape or not all_finite(re_g):
        raise InvalidParameterError(
            "law must return a finite Re G_Y of the shape of its argument at every eigenvalue"
        )
    return lam - 2.0 * noise * re_g


@declare(Y=SYMMETRIC, kappa=WISHART_KAPPA, normalisation=NORMALISATION, law=LAW)
def symmetric_rie(
    Y, noise: float, kappa: float | None = None, *, normalisation: str = "paper", law=None
) -> np.ndarray:
    """Rotationally invariant estimate of ``S`` from ``Y = S + sqrt(noise) Z`` (``Z`` GOE of variance 1).

    Parameters
    ----------
    Y : array_like (d, d)
        Symmetric observation (symmetric to 1e-8 relative; it is symmetrised exactly).
    noise : float
        Noise variance ``>= 0`` (``noise = 0`` returns a copy of ``Y``).
    kappa : float, optional
        Rank ratio ``m/d`` of a Wishart signal (in ``normalisation``). Give exactly one of ``kappa`` and ``law``.
    normalisation : {"paper", "mean_one"}, optional
        Normalisation of the Wishart signal (default the paper one, ``W^T W/sqrt(m d)``).
    law : object or callable, optional
        Instead of ``kappa``: the law of ``Y`` (see :func:`symmetric_rie_eigenvalues`).

    Returns
    -------
    numpy.ndarray (d, d)
        The estimate ``S_hat``.

    Raises
    ------
    ValueError
        For a malformed argument (named): ``Y`` not square, not symmetric or not finite, a negative noise.

    Notes
    -----
    ``Y = O diag(lambda) O^T  ->  S_hat = O diag(lambda_k - 2 noise Re G_Y(lambda_k)) O^T``: the Bayes-optimal
    estimator among rotation-equivariant ones, asymptotically Bayes-optimal when ``S`` is rotationally
    invariant [2]_.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator" (``eq-rmt-rie-map``, ``eq-rmt-mmse``).
    .. [2] J. Bun, R. Allez, J.-P. Bouchaud, M. Potters, IEEE Trans. Inf. Theory 62:7475 (2016),
       arXiv:1502.06736.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising, rie
    >>> d, kappa, noise = 200, 0.5, 1.0
    >>> S = denoising.sample_wishart(d, kappa, rng=0)
    >>> Y = S + np.sqrt(noise) * denoising.sample_goe(d, rng=1)
    >>> S_hat = rie.symmetric_rie(Y, noise, kappa)
    >>> print(f"RIE {denoising.symmetric_error(S_hat, S):.2f}, theory {rie.symmetric_rie_mmse(noise, kappa):.2f}, "
    ...       f"no denoising {denoising.symmetric_error(Y, S):.2f}")
    RIE 0.39, theory 0.40, no denoising 0.98
    """
    if noise == 0.0:
        return Y.copy()
    _check_spectrum_scale("Y", Y)
    lam, O = np.linalg.eigh(Y)
    new = symmetric_rie_eigenvalues(lam, noise, kappa, normalisation=normalisation, law=law)
    return (O * new) @ O.T


#: Most eigenvalues :func:`empirical_symmetric_rie_eigenvalues` evaluates in one block of ``block x d`` complex
#: numbers (the Stieltjes transform at every eigenvalue is a ``d x d`` sum, done in row blocks).
EMPIRICAL_BLOCK = 512


@declare(eigenvalues=EIGENVALUES, width=WIDTH)
def empirical_symmetric_rie_eigenvalues(
    eigenvalues, noise: float, *, width: float | None = None
) -> np.ndarray:
    """Data-driven RIE map: ``lambda_k -> lambda_k - 2 noise Re G_d(lambda_k - i width)`` from the sample itself.

    Parameters
    ----------
    eigenvalues : array_like (d,)
        All ``d >= 2`` eigenvalues of the symmetric observation ``Y = S + sqrt(noise) Z`` (finite).
    noise : float
        Noise variance ``>= 0`` (``0`` returns a copy of the eigenvalues).
    width : float, optional
        Distance ``epsilon > 0`` below the real axis at which the empirical Stieltjes transform is evaluated
        (default ``d**-0.5``).

    Returns
    -------
    numpy.ndarray (d,)
        The new eigenvalues, in the order of ``eigenvalues``.

    Raises
    ------
    ValueError
        For a malformed argument (named): fewer than two eigenvalues, non-finite entries, a negative noise or a
        non-positive width.

    Notes
    -----
    The map of :func:`symmetric_rie_eigenvalues` with the limiting ``G_Y`` replaced by the Stieltjes transform of
    the sample's own spectrum, smoothed by a Cauchy kernel of width ``epsilon``:

    ``G_d(z) = (1/d) sum_j 1/(z - lambda_j)``,  ``theta_hat_k = lambda_k - 2 noise Re G_d(lambda_k - i epsilon)``.

    It knows the noise variance only, not the law of the signal. The smoothing must be wide compared with the
    eigenvalue spacing ``1/d`` and narrow compared with the scale of the spectrum: with ``epsilon = d^-1/2`` the
    bias (``O(epsilon)``) and the fluctuation (``O(1/(d epsilon))``) of ``Re G_d`` both vanish as ``d -> inf``,
    so the map tends to the RIE of the limiting law. Without smoothing (``epsilon -> 0``, the sum over
    ``j != k`` of the heuristic derivation) the nearest neighbours dominate and the map does not converge.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator" (``eq-rmt-rie-map``, ``eq-rmt-rie-empirical``).
    .. [2] J. Bun, J.-P. Bouchaud, M. Potters, Phys. Rep. 666:1 (2017), arXiv:1610.08104, Sec. 5.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising, rie
    >>> S = denoising.sample_wishart(200, 0.5, rng=0)  # d = 200, kappa = 0.5
    >>> lam = np.linalg.eigvalsh(S + denoising.sample_goe(200, rng=1))  # noise 1
    >>> data = rie.empirical_symmetric_rie_eigenvalues(lam, 1.0)  # knows the noise only
    >>> limit = rie.symmetric_rie_eigenvalues(lam, 1.0, 0.5)  # knows kappa too
    >>> print(f"{np.linalg.norm(data - limit) / np.linalg.norm(lam - limit):.2f}")  # gap / shrinkage
    0.10
    """
    lam = eigenvalues
    if lam.size < 2:
        raise InvalidParameterError(f"eigenvalues must hold at least two eigenvalues, got {lam.size}")
    _check_spectrum_scale("eigenvalues", lam)
    width = lam.size**-0.5 if width is None else width
    if noise == 0.0:
        return lam.copy()
    re_g = np.empty(lam.size)
    for start in range(0, lam.size, EMPIRICAL_BLOCK):
        z = lam[start : start + EMPIRICAL_BLOCK, None] - 1j * width
        re_g[start : start + EMPIRICAL_BLOCK] = np.mean(1.0 / (z - lam[None, :]), axis=1).real
    return lam - 2.0 * noise * re_g


@declare(Y=SYMMETRIC, width=WIDTH)
def empirical_symmetric_rie(Y, noise: float, *, width: float | None = None) -> np.ndarray:
    """Data-driven rotationally invariant estimate of ``S`` from ``Y = S + sqrt(noise) Z``, knowing only the noise.

    Parameters
    ----------
    Y : array_like (d, d)
        Symmetric observation, ``d >= 2`` (symmetric to 1e-8 relative; it is symmetrised exactly).
    noise : float
        Noise variance ``>= 0`` (``noise = 0`` returns a copy of ``Y``).
    width : float, optional
        Smoothing width ``epsilon > 0`` of the empirical Stieltjes transform (default ``d**-0.5``).

    Returns
    -------
    numpy.ndarray (d, d)
        The estimate ``S_hat``.

    Raises
    ------
    ValueError
        For a malformed argument (named): ``Y`` not square, not symmetric or not finite, a negative noise, a
        non-positive width.

    Notes
    -----
    ``Y = U diag(lambda) U^T  ->  S_hat = U diag(theta_hat_k) U^T`` with ``theta_hat_k`` from
    :func:`empirical_symmetric_rie_eigenvalues`. Unlike :func:`symmetric_rie`, which evaluates ``G_Y`` from the
    limiting law of ``Y`` (built from the signal's law, e.g. its ``kappa``), it uses nothing but ``Y`` and the
    noise variance; the two agree as ``d -> inf``.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator" (``eq-rmt-rie-empirical``).
    .. [2] J. Bun, J.-P. Bouchaud, M. Potters, Phys. Rep. 666:1 (2017), arXiv:1610.08104, Sec. 5.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising, rie
    >>> d, kappa, noise = 200, 0.5, 1.0
    >>> S = denoising.sample_wishart(d, kappa, rng=0)
    >>> Y = S + np.sqrt(noise) * denoising.sample_goe(d, rng=1)
    >>> S_hat = rie.empirical_symmetric_rie(Y, noise)
    >>> theory = rie.symmetric_rie_mmse(noise, kappa)
    >>> print(f"empirical RIE {denoising.symmetric_error(S_hat, S):.2f}, theory {theory:.2f}")
    empirical RIE 0.40, theory 0.40
    """
    if Y.shape[0] < 2:
        raise InvalidParameterError(f"Y must be at least 2 x 2, got shape {Y.shape}")
    if noise == 0.0:
        return Y.copy()
    _check_spectrum_scale("Y", Y)
    lam, U = np.linalg.eigh(Y)
    new = empirical_symmetric_rie_eigenvalues(lam, noise, width=width)
    return (U * new) @ U.T


@declare(eigenvalue=POINTS, signal_eigenvalue=POINTS, noise=POSITIVE, law=LAW)
def ledoit_peche_overlap(eigenvalue, signal_eigenvalue, noise: float, law) -> np.ndarray:
    """Mean squared overlap ``d E<u, v>^2`` of an eigenvector of ``Y`` with one of ``S`` (Ledoit-Peche).

    Parameters
    ----------
    eigenvalue : float or array_like
        Eigenvalue ``lambda`` of ``Y = S + sqrt(noise) Z`` (finite), inside the bulk of ``law``.
    signal_eigenvalue : float or array_like
        Eigenvalue ``theta`` of ``S`` (finite); broadcast against ``eigenvalue``.
    noise : float
        Noise variance ``> 0``.
    law : object
        The limiting law of ``Y``, with ``density`` and ``stieltjes_real`` methods (e.g.
        ``spectra.wishart_plus_goe(noise, kappa=kappa)``).

    Returns
    -------
    numpy.ndarray
        ``Omega(lambda, theta)``, of the broadcast shape.

    Raises
    ------
    ValueError
        For a malformed argument (named), or a non-finite overlap (``theta = lambda`` where ``law`` has no density,
        e.g. a ``noise`` far from the one ``law`` was built with).
    TypeError
        If ``law`` lacks ``density`` or ``stieltjes_real``.

    Notes
    -----
    For GOE noise, with ``u`` the eigenvector of ``Y`` of eigenvalue ``lambda`` and ``v`` that of ``S`` of
    eigenvalue ``theta``, at large ``d``

    ``d E<u, v>^2 -> Omega(lambda, theta) = noise / [(theta - lambda + noise Re G_Y(lambda))^2
    + (pi noise nu_Y(lambda))^2]``,

    a Lorentzian in ``theta``; averaged against ``theta nu_S(theta)`` it gives the RIE map
    ``lambda - 2 noise Re G_Y(lambda)``.

    References
    ----------
    .. [1] Chapter 2, Sec. "Eigenvector overlaps: the Ledoit-Peche formula" (``eq-rmt-overlap``).
    .. [2] O. Ledoit, S. Peche, Probab. Theory Relat. Fields 151:233 (2011).
    .. [3] J. Bun, J.-P. Bouchaud, M. Potters, Phys. Rep. 666:1 (2017), arXiv:1610.08104.

    Examples
    --------
    >>> from solvable import rie, spectra
    >>> noise, kappa, lam = 0.6, 0.5, 2.0
    >>> law = spectra.wishart_plus_goe(noise, kappa=kappa)
    >>> centre = float(lam - noise * law.stieltjes_real(lam))  # the Lorentzian in theta peaks below lambda
    >>> omega = rie.ledoit_peche_overlap(lam, [centre - 0.5, centre, centre + 0.5], noise, law)
    >>> print(f"{centre:.2f}", omega.round(2))
    1.73 [1.92 9.56 1.92]
    """
    lam, theta = eigenvalue, signal_eigenvalue
    for method in ("density", "stieltjes_real"):
        if not callable(getattr(law, method, None)):
            raise InvalidParameterError(
                f"law must have a {method} method (e.g. spectra.wishart_plus_goe(noise, kappa=kappa))"
            )
    shift = theta - lam + noise * np.asarray(law.stieltjes_real(lam), dtype=float)
    width = np.pi * noise * np.asarray(law.density(lam), dtype=float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        omega = noise / (shift**2 + width**2)
    if not np.all(np.isfinite(omega)):
        raise ValueError(
            f"the overlap is not finite at noise = {noise!r}: theta = lambda outside the support of law, "
            "or a noise that does not match the one law was built with"
        )
    return omega


@declare(d=integer(2, size=True), theta=real(0.0), noise=POSITIVE)
def spiked_top_overlap(d: int, theta: float, noise: float, *, rng) -> float:
    """One draw of ``<u_1, v>^2``, the top eigenvector of ``Y = theta v v^T + sqrt(noise) Z`` against the spike.

    Parameters
    ----------
    d : int
        Dimension ``>= 2`` (first, as in every function that draws).
    theta : float
        Spike strength ``>= 0``.
    noise : float
        Noise variance ``> 0``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of randomness (keyword-only, required).

    Returns
    -------
    float
        The squared overlap, in ``[0, 1]``.

    Raises
    ------
    ValueError
        For a malformed argument (named).
    TypeError
        For a wrong type (e.g. ``rng``).

    Notes
    -----
    ``Z`` GOE and ``v`` a unit vector: by rotation invariance ``v = e_1``, and the Householder reflections that
    tridiagonalise ``Z`` fix ``e_1``. The tridiagonal form has independent entries (Dumitriu-Edelman):
    diagonal ``N(0, 2/d)``, off-diagonal ``chi_{d-j}/sqrt(d)`` for ``j = 1, ..., d-1``. So
    ``Y ~ T = theta e_1 e_1^T + sqrt(noise) T_Z`` and ``<u_1, v>^2`` is the squared first component of the top
    eigenvector of ``T``: ``O(d)`` work per draw instead of ``O(d^3)``, with the law of the dense experiment
    exactly. As ``d -> inf`` it tends to ``max(0, 1 - noise/theta^2)`` (BBP).

    References
    ----------
    .. [1] Chapter 2, Sec. "Eigenvector overlaps: the Ledoit-Peche formula" (``eq-rmt-bbp``).
    .. [2] I. Dumitriu, A. Edelman, J. Math. Phys. 43:5830 (2002), arXiv:math-ph/0206043.
    .. [3] F. Benaych-Georges, R. R. Nadakuditi, Adv. Math. 227:494 (2011), arXiv:0910.2120.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import experiments, rie
    >>> def mean_overlap(theta):  # over 20 draws at d = 1000, noise 1
    ...     one = lambda rng: rie.spiked_top_overlap(1000, theta, 1.0, rng=rng)
    ...     return np.mean(experiments.repeat(one, 20, rng=0))
    >>> # BBP: 1 - noise/theta^2 = 0.75 above the threshold theta = 1, 0 below it
    >>> print(f"{mean_overlap(2.0):.2f} {mean_overlap(0.5):.2f}")
    0.75 0.00
    """
    from scipy.linalg import eigh_tridiagonal

    check_size("the tridiagonal matrix (d,)", 2, d)
    diagonal = math.sqrt(2.0 * noise / d) * rng.standard_normal(d)
    diagonal[0] += theta
    off = np.sqrt(noise * rng.chisquare(np.arange(d - 1, 0, -1)) / d)
    vector = eigh_tridiagonal(diagonal, off, select="i", select_range=(d - 1, d - 1))[1][:, 0]
    return float(min(1.0, vector[0] ** 2))


@declare()
def wishart_parameter_fraction(kappa: float) -> float:
    """Fraction of free parameters of a rank-``m`` positive semi-definite ``d x d`` matrix.

    Parameters
    ----------
    kappa : float
        Rank ratio ``m/d > 0``.

    Returns
    -------
    float
        ``2 kappa - kappa^2`` for ``kappa < 1``, else 1 (0.75 at ``kappa = 0.5``).

    Raises
    ------
    ValueError
        If ``kappa`` is not a finite number > 0.

    Notes
    -----
    It is the slope ``mmse(noise)/noise`` of the Wishart RIE as ``noise -> 0`` [1]_, and twice the
    perfect-recovery threshold of Wishart sensing [2]_.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator" (``eq-rmt-rie-map``, ``eq-rmt-mmse``).
    .. [2] A. Maillard et al., arXiv:2408.03733 (2024), Sec. 3.

    Examples
    --------
    >>> from solvable import rie
    >>> print([round(rie.wishart_parameter_fraction(kappa), 4) for kappa in (0.2, 0.5, 1.0, 2.0)])
    [0.36, 0.75, 1.0, 1.0]
    >>> print(round(rie.symmetric_rie_mmse(1e-3, 0.5) / 1e-3, 3))  # the MMSE's slope at small noise
    0.749
    """
    return 2.0 * kappa - kappa * kappa if kappa < 1.0 else 1.0


@declare(noise=NOISE_OR_INF, normalisation=NORMALISATION, n_nodes=NODES)
def symmetric_rie_mmse(
    noise: float, kappa: float, normalisation: str = "paper", n_nodes: int = DEFAULT_NODES
) -> float:
    """Asymptotic MMSE per entry of the symmetric RIE for a Wishart signal, for every noise in ``[0, inf]``.

    Parameters
    ----------
    noise : float
        Noise variance in ``[0, inf]`` (``inf``: no information; the signal's spectral variance is returned).
    kappa : float
        Rank ratio ``m/d > 0`` (finite).
    normalisation : {"paper", "mean_one"}, optional
        ``S = W^T W/sqrt(m d)`` (default; spectral variance 1) or ``W^T W/m`` (spectral variance ``1/kappa``).
    n_nodes : int, optional
        Gauss-Legendre nodes per piece of the support, in ``[2, spectra.MAX_NODES]`` (64 give about 1e-12
        relative).

    Returns
    -------
    float
        ``(1/d) E||S_hat - S||_F^2`` in ``[0, min(noise, variance)]``.

    Raises
    ------
    ValueError
        For a malformed argument (named).
    ArithmeticError
        If the quadrature leaves ``[0, min(noise, variance)]`` by more than rounding, or the law of ``Y`` is not
        resolved in double precision.

    Notes
    -----
    With ``rho_Y`` the law of Wishart + GOE(``noise``) [2]_,

    ``mmse(noise) = noise - (4 pi^2/3) noise^2 int rho_Y(x)^3 dx``,

    integrated by Gauss-Legendre over the bulks. Below :data:`SYMMETRIC_SMALL_NOISE` the small-noise limit
    ``noise * wishart_parameter_fraction(kappa)`` is returned. Above
    ``noise = SYMMETRIC_LARGE_NOISE * max(10, 1/kappa)`` (paper normalisation), where ``noise - (...)`` would
    cancel, the large-noise expansion with ``x = 1/kappa`` is returned:

    ``mmse = 1 - 1/noise + (1 - x)/noise^2 + (-1 + 4x - x^2)/noise^3 + O(noise^-4)``,

    i.e. ``k2 - k2^2/noise + (k2^3 - k3^2)/noise^2 + (-k2^4 + 4 k2 k3^2 - k4^2)/noise^3`` with the free cumulants
    ``k2 = 1``, ``k3^2 = k4 = 1/kappa`` of the signal (free Poisson); it is exact for ``x = 0`` (the GOE
    limit ``noise/(1 + noise)``). In the mean-one normalisation ``mmse_W(noise) = mmse_paper(kappa noise)/kappa``.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator" (``eq-rmt-mmse``); Chapter 4 (quadratic networks).
    .. [2] A. Maillard, E. Troiani, S. Martin, F. Krzakala, L. Zdeborova, "Bayes-optimal learning of an
       extensive-width neural network from quadratically many samples", arXiv:2408.03733 (2024).

    Examples
    --------
    >>> from solvable import denoising, rie
    >>> print([round(rie.symmetric_rie_mmse(noise, 0.5), 4) for noise in (0.1, 1.0, 10.0)])
    [0.0665, 0.3969, 0.8939]
    """
    # computed in the paper normalisation: mmse_W(noise) = mmse_paper(kappa noise)/kappa
    scale = 1.0 if normalisation == "paper" else 1.0 / kappa
    if math.isinf(noise):
        return scale
    if noise < SYMMETRIC_SMALL_NOISE:
        return noise * wishart_parameter_fraction(kappa)
    t = noise / scale
    if t >= SYMMETRIC_LARGE_NOISE * max(10.0, 1.0 / kappa):
        u, x = 1.0 / t, 1.0 / kappa
        value = 1.0 - u * (1.0 - u * ((1.0 - x) + u * (-1.0 + 4.0 * x - x * x)))
    else:
        law = wishart_plus_goe(t, kappa=kappa)
        x, w = law.quadrature(n_nodes)
        rho = law.density(x)
        mass = float(np.dot(w, rho))
        if abs(mass - 1.0) * t > 1e-6 * min(t, 1.0):  # the law is not resolved (see RATIO_RANGE)
            raise ArithmeticError(
                f"symmetric_rie_mmse: the law of Y at kappa={kappa!r}, noise={noise!r} is not "
                f"resolved in double precision (mass {mass!r} instead of 1)"
            )
        value = t - _FOUR_PI2_OVER_3 * t * t * float(np.dot(w, rho**3))
    return scale * _in_mmse_range(value, t, "symmetric_rie_mmse")


@declare(
    noise=NOISE_IN_RANGE,
    density=function(),
    n_nodes=NODES,
    support=unchecked("a list of intervals (lo, hi): checked by spectra.bulk_quadrature"),
)
def symmetric_rie_mmse_from_density(noise: float, density, support, n_nodes: int = 128) -> float:
    """MMSE of the symmetric RIE for any law of ``Y`` given by its density on a known support.

    Parameters
    ----------
    noise : float
        Noise variance in ``[0, spectra.NOISE_RANGE[1]]``.
    density : callable
        Vectorised ``x -> rho_Y(x) >= 0``, e.g. ``lambda x: -G(x + 1e-10j).imag/pi`` with
        ``G = lambda z: spectra.free_convolution_semicircle(G_S, noise, z)``.
    support : sequence of (float, float)
        Intervals ``[(lo, hi), ...]`` holding the density (split them where it nearly vanishes).
    n_nodes : int, optional
        Gauss-Legendre nodes per interval, in ``[2, spectra.MAX_NODES]``.

    Returns
    -------
    float
        ``noise - (4 pi^2/3) noise^2 int rho_Y^3`` in ``[0, noise]``.

    Raises
    ------
    TypeError
        If ``density`` is not callable.
    ValueError
        For a malformed argument, a density that is negative, non-finite or of the wrong shape, or whose integral
        over ``support`` is not 1 within ``DENSITY_MASS_TOL`` (1e-6; a support that misses part of the density or
        lists an interval twice, a density that is not normalised).
    ArithmeticError
        If the result leaves ``[0, noise]`` beyond rounding.

    Notes
    -----
    The formula of :func:`symmetric_rie_mmse`, ``mmse = noise - (4 pi^2/3) noise^2 int rho_Y^3``, integrated with
    :func:`~solvable.spectra.bulk_quadrature`.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator" (``eq-rmt-rie-map``, ``eq-rmt-mmse``).
    .. [2] A. Maillard et al., arXiv:2408.03733 (2024).

    Examples
    --------
    >>> from solvable import denoising, rie, spectra
    >>> density = lambda x: spectra.semicircle_density(x, 2.0)
    >>> edge = 2 * 2.0 ** 0.5
    >>> mmse = rie.symmetric_rie_mmse_from_density(1.0, density, [(-edge, edge)])
    >>> print(f"{mmse:.4f} {rie.semicircle_rie_mmse(1.0):.4f}")
    0.5000 0.5000
    """
    x, w = bulk_quadrature(support, n_nodes, name="support")
    if noise == 0.0:
        return 0.0
    rho = _real_array("density(x)", density(x))
    if rho.shape != x.shape or not np.all(np.isfinite(rho)) or np.any(rho < 0):
        raise InvalidParameterError("density must return finite values >= 0 of the shape of its argument")
    mass = float(np.dot(w, rho))
    if not abs(mass - 1.0) <= DENSITY_MASS_TOL:
        raise InvalidParameterError(
            f"density must integrate to 1 over support, got {mass:.6g}: a support that misses part of the density "
            f"(or lists an interval twice), or a density that is not normalised (tolerance {DENSITY_MASS_TOL:g})"
        )
    value = noise - _FOUR_PI2_OVER_3 * noise * noise * float(np.dot(w, rho**3))
    return _in_mmse_range(value, noise, "symmetric_rie_mmse_from_density", math.inf)


@declare(variance=POSITIVE)
def semicircle_rie_mmse(noise: float, variance: float = 1.0) -> float:
    """MMSE of a semicircle (GOE) signal of variance ``varsigma`` seen through GOE noise of variance ``noise``.

    Parameters
    ----------
    noise : float
        Noise variance ``>= 0``.
    variance : float, optional
        Spectral variance ``varsigma > 0`` of the signal.

    Returns
    -------
    float
        ``noise varsigma/(noise + varsigma)``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    ``Y`` is then a semicircle of variance ``noise + v``, and the RIE is the linear map
    ``lambda -> lambda varsigma/(varsigma + noise)``: ``mmse = noise varsigma/(noise + varsigma)``.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator" (``eq-rmt-rie-map``, ``eq-rmt-mmse``).

    Examples
    --------
    >>> from solvable import denoising, rie
    >>> print(f"{rie.semicircle_rie_mmse(1.0):.4f}")
    0.5000
    """
    return noise * variance / (noise + variance)


# --------------------------------------------------------------------------- rectangular


def _check_beta(beta, *, allow_inf: bool = False) -> float:
    """``beta = L/d > 0`` folded to ``max(beta, 1/beta)`` (the transposed problem)."""
    beta = check_positive("beta", beta, allow_inf=allow_inf)
    return max(beta, 1.0 / beta)


@declare(beta=ASPECT, rho=POSITIVE)
def rectangular_parameter_fraction(beta: float, rho: float) -> float:
    """Fraction of free parameters ``r(d + L - r)/(dL)`` of a rank-``r`` ``d x L`` matrix.

    Parameters
    ----------
    beta : float
        Aspect ratio ``L/d > 0`` (``beta < 1`` is read as ``1/beta``, the transposed problem).
    rho : float
        Rank ratio ``r/min(d, L) > 0`` (``rho >= 1``: full rank).

    Returns
    -------
    float
        ``rho' (1 + beta - rho')/beta`` with ``rho' = min(rho, 1)`` (0.36 at ``beta = 1``, ``rho = 0.2``).

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    It is the slope of the rectangular MMSE as ``noise -> 0``, and the perfect-recovery threshold
    ``alpha_PR = rho (1 + beta - rho)/beta`` of bilinear sequence regression [2]_.

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values"; Chapter 3, Sec. "Perfect recovery, and the
       price of convex relaxation" (``eq-bsr-alpha-pr``).
    .. [2] V. Erba, E. Troiani, L. Biggio, A. Maillard, L. Zdeborova, "Bilinear sequence regression: a model for
       learning from long sequences of high-dimensional tokens", arXiv:2410.18858 (2024).

    Examples
    --------
    >>> from solvable import rie
    >>> fraction = rie.rectangular_parameter_fraction(1.0, 0.2)
    >>> slope = rie.rectangular_rie_mmse(1e-3, 1.0, 0.2) / 1e-3  # the MMSE's slope at small noise
    >>> print(round(fraction, 4), round(slope, 3))
    0.36 0.36
    """
    beta = max(beta, 1.0 / beta)  # the transposed problem
    rho = min(rho, 1.0)
    if math.isinf(beta):  # beta = inf (or 1/beta overflowing for a subnormal beta): the limit rho
        return rho
    return rho * (1.0 + beta - rho) / beta


@declare(noise=NOISE_OR_INF, rho=POSITIVE, n_nodes=NODES)
def rectangular_rie_mmse(noise: float, beta: float, rho: float, n_nodes: int = DEFAULT_NODES) -> float:
    """Asymptotic MMSE of the rectangular RIE, for every noise in ``[0, inf]`` and every shape.

    Parameters
    ----------
    noise : float
        Noise variance per entry on the unit scale, in ``[0, inf]`` (``inf``: no information, the MMSE is 1).
    beta : float
        Aspect ratio ``L/d > 0`` or ``math.inf`` (``L >> d``). The theory is written for ``d <= L``; ``beta < 1``
        is read as ``1/beta`` (the error is symmetric under transposition).
    rho : float
        Rank ratio ``r/min(d, L) > 0``; ``rho >= 1`` is a full-rank signal (covered by the same quartic).
    n_nodes : int, optional
        Gauss-Legendre nodes per piece of the support, in ``[2, spectra.MAX_NODES]``.

    Returns
    -------
    float
        ``||S_hat - S||_F^2/(dL)`` on the unit scale, in ``[0, min(noise, 1)]``.

    Raises
    ------
    ValueError
        For a malformed argument (named).
    ArithmeticError
        Where neither the quadrature nor the bracket resolves the value (see Notes), naming the point.

    Notes
    -----
    With ``mu`` the symmetrised singular-value density of :class:`~solvable.spectra.RectangularPlusNoise` [2]_,

    ``mmse = noise - (noise^2/beta^{3/2}) [(beta - 1)^2 I1 + (4 pi^2/3) I3]``,
    ``I1 = 2 int mu(x)/x^2 dx``, ``I3 = 2 int mu(x)^3 dx``.

    ``beta = inf`` is the closed form, written without cancellation (``a = rho noise + rho - 1``):
    ``mmse = noise - (noise/2)[sqrt(a^2 + 4 rho noise) - a] = 2 rho noise/(2 + a + sqrt(a^2 + 4 rho noise))``.
    Below :data:`RECTANGULAR_SMALL_NOISE` the small-noise limit ``noise * rectangular_parameter_fraction`` is
    returned (at most ``noise/(1 + noise)``).

    Accuracy. The cancellation in ``noise - (...)`` multiplies the quadrature's relative error by ``noise``;
    that error is estimated by the defect of the sum rule ``2 int mu = 1`` on the same nodes,
    ``err = (|2 int mu - 1| + 1e-14) noise``. Where ``err <= RECTANGULAR_MMSE_TOL min(noise, 1)`` the quadrature
    is returned (clipped to the rigorous upper bound ``noise/(1 + noise)``, the error of the linear
    shrinkage). Elsewhere (and for ``beta >= RECTANGULAR_WIDE``, or ``beta`` beyond
    ``spectra.MAX_ASPECT_RATIO``, or a noise beyond ``spectra.NOISE_RANGE``, where the quartic is not
    evaluated) the value comes from the bracket ``mmse(noise, inf, rho) <= mmse <= min(noise/(1 + noise),
    mmse(noise, inf, rho) + 2 max(noise, 5)/beta)`` (the MMSE decreases towards its ``beta = inf`` limit, with a
    gap below ``2 max(noise, 5)/beta``; both are checked in the tests), intersected with ``quadrature +- err``:
    its lower end once ``10 noise (1 + noise)/beta <= RECTANGULAR_MMSE_TOL min(noise, 1)``, else its middle
    when its half-width is at most :data:`RECTANGULAR_BRACKET_TOL` (then the error bound), else
    ``ArithmeticError``.

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values" (``eq-rmt-rectangular-mmse``); Chapter 3,
       Sec. "The Bayes-optimal error" (``eq-bsr-mmse-wide``).
    .. [2] E. Troiani, V. Erba, F. Krzakala, A. Maillard, L. Zdeborova, "Optimal denoising of rotationally
       invariant rectangular matrices", arXiv:2203.07752 (2022).

    Examples
    --------
    >>> from solvable import denoising, rie
    >>> print([round(rie.rectangular_rie_mmse(noise, 1.5, 0.5), 4) for noise in (0.1, 1.0, 10.0)])
    [0.0638, 0.4199, 0.9054]
    """
    beta = max(beta, 1.0 / beta)  # the transposed problem
    if math.isinf(noise):
        return 1.0
    if math.isinf(beta) or noise == 0.0:
        return _rectangular_mmse_wide(noise, rho)
    if noise < RECTANGULAR_SMALL_NOISE:  # (a full-rank signal, fraction 1, meets the linear-shrinkage bound)
        return min(noise * rectangular_parameter_fraction(beta, rho), noise / (1.0 + noise))
    scale = min(noise, 1.0)
    value, error = math.nan, math.inf
    if beta < min(RECTANGULAR_WIDE, MAX_ASPECT_RATIO) and noise <= NOISE_RANGE[1]:
        try:
            law = rectangular_plus_noise(noise, beta=beta, rho=rho)
            x, w = law.quadrature(n_nodes)
            mu = law.density(x)
            mass = 2.0 * float(np.dot(w, mu))
            i3 = 2.0 * float(np.dot(w, mu**3))
            i1 = 2.0 * float(np.dot(w, mu / (x * x))) if beta > 1.0 else 0.0
            value = noise - noise**2 / beta**1.5 * ((beta - 1.0) ** 2 * i1 + _FOUR_PI2_OVER_3 * i3)
            error = (abs(mass - 1.0) + 1e-14) * noise
        except ArithmeticError:  # no support found: the quartic is not resolved at all
            pass
    low, high = _rectangular_mmse_wide(noise, rho), noise / (1.0 + noise)
    if math.isfinite(error) and error <= RECTANGULAR_MMSE_TOL * scale:
        value = _in_mmse_range(value, noise, "rectangular_rie_mmse", slack=error)
        # within its error the value may cross the bracket (at large noise): bring it back inside
        return min(max(value, low) if value >= low - error else value, high)
    if 10.0 * noise * (1.0 + noise) / beta <= RECTANGULAR_MMSE_TOL * scale:
        return low
    high = max(low, min(high, low + 2.0 * max(noise, 5.0) / beta))
    if (
        math.isfinite(error) and value - error <= high and value + error >= low
    ):  # what the quadrature still says
        low, high = max(low, value - error), min(high, value + error)  # (unless it contradicts the bracket)
    if 0.0 <= high - low <= 2.0 * RECTANGULAR_BRACKET_TOL:
        return 0.5 * (low + high)
    raise ArithmeticError(
        f"rectangular_rie_mmse: the spectral law at noise={noise!r}, beta={beta!r}, rho={rho!r} is not resolved in "
        f"double precision (estimated error {error:.1e}; the quadrature gave {value!r}), and the bracket "
        f"[{low!r}, {high!r}] is too wide to stand in for it; for L >> d use beta = math.inf"
    )


def _in_mmse_range(value: float, noise: float, what: str, variance: float = 1.0, slack: float = 0.0) -> float:
    """Clip an MMSE to ``[0, min(noise, variance)]`` (it cannot exceed the noise, nor the signal's spectral
    variance) when it leaves that range by rounding only (``1e-9`` relative, plus ``64 eps noise`` for the
    cancellation in ``noise - (...)``, plus a known ``slack``); raise ``ArithmeticError`` when it leaves it by
    more."""
    top = min(noise, variance)
    slack = slack + 1e-9 * top + _ROUNDING * noise
    if not math.isfinite(value) or value < -slack or value > top + slack:
        raise ArithmeticError(
            f"{what}: the quadrature gave {value!r}, outside [0, {top!r}] (noise {noise!r}); "
            f"the spectral law was not resolved at this noise"
        )
    return min(max(value, 0.0), top)


def _rectangular_mmse_wide(noise: float, rho: float) -> float:
    """``beta -> inf`` limit of :func:`rectangular_rie_mmse` (closed form, cancellation-free)."""
    if noise == 0.0:
        return 0.0
    a = rho * noise + rho - 1.0
    root = math.hypot(a, 2.0 * math.sqrt(rho * noise))
    # noise - (noise/2)(root - a) = 2 rho noise/(2 + a + root), since (2 + a)^2 - root^2 = 4 rho (a + root >= 0)
    return min(2.0 * rho * noise / (2.0 + a + root), noise, 1.0)


@declare(singular_values=STRENGTHS, beta=ASPECT, rho=POSITIVE)
def rectangular_rie_singular_values(singular_values, noise: float, beta: float, rho: float) -> np.ndarray:
    """The rectangular RIE's shrinkage of the singular values of the ``(dL)^{1/4}``-scaled ``Y``.

    Parameters
    ----------
    singular_values : float or array_like (k,)
        Singular values ``sigma >= 0`` of the scaled observation (finite).
    noise : float
        Noise variance ``>= 0`` per entry on the unit scale (``0`` returns a copy).
    beta : float
        Aspect ratio ``L/d > 0`` (``beta < 1`` is read as ``1/beta``).
    rho : float
        Rank ratio ``r/min(d, L) > 0``.

    Returns
    -------
    numpy.ndarray
        The shrunk singular values, ``>= 0``.

    Raises
    ------
    ValueError
        For a malformed argument (named), e.g. a negative singular value.

    Notes
    -----
    With ``h = Re G`` of :class:`~solvable.spectra.RectangularPlusNoise` [2]_,

    ``sigma -> max(0, sigma - (2 noise/sqrt(beta)) [(beta - 1)/(2 sigma) + h(sigma)])``.

    The map is clipped at 0: a negative result (and a zero singular value) is sent to 0, since a singular value
    cannot be negative. On the support of the limiting law the map stays positive in the cases of the course,
    so the clip acts only on finite-size singular values outside the support, if at all.

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values".
    .. [2] E. Troiani et al., arXiv:2203.07752 (2022).

    Examples
    --------
    >>> from solvable import rie
    >>> # beta = 1.5, rho = 0.5, noise 1: every singular value moves down, the small ones almost to 0
    >>> print(rie.rectangular_rie_singular_values([0.5, 1.0, 2.0, 2.5], 1.0, 1.5, 0.5).round(3))
    [0.06  0.159 0.986 1.558]
    """
    beta = max(beta, 1.0 / beta)  # the transposed problem
    sv = singular_values
    _check_spectrum_scale("singular_values", sv)
    if noise == 0.0:
        return sv.copy()
    law = rectangular_plus_noise(noise, beta=beta, rho=rho)
    safe = np.where(sv > 0, sv, 1.0)
    v = np.asarray(law.stieltjes_real(safe))
    new = sv - (2.0 * noise / math.sqrt(beta)) * ((beta - 1.0) / (2.0 * safe) + v)
    return np.where(sv > 0, np.maximum(new, 0.0), 0.0)


@declare(Y=MATRIX, rho=POSITIVE)
def rectangular_rie(Y, noise: float, rho: float) -> np.ndarray:
    """Rotationally invariant estimate of ``S`` from the scaled ``Y = S + sqrt(noise) Z`` (``d x L``).

    Parameters
    ----------
    Y : array_like (d, L)
        Observation, divided by ``(dL)^{1/4}`` (see :func:`~solvable.denoising.sample_rectangular_signal`,
        :func:`~solvable.denoising.sample_rectangular_noise`).
    noise : float
        Noise variance ``>= 0`` per entry on the unit scale (``0`` returns a copy of ``Y``).
    rho : float
        Rank ratio ``r/min(d, L) > 0`` (the aspect ratio ``beta`` is read from the shape of ``Y``).

    Returns
    -------
    numpy.ndarray (d, L)
        The estimate ``S_hat`` (scaled like ``Y``).

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    ``Y = U diag(sigma) V^T  ->  S_hat = U diag(sigma_new) V^T`` with the shrinkage of
    :func:`rectangular_rie_singular_values`, clipped at 0 [2]_. If ``d > L`` the problem is solved for ``Y^T`` and
    the estimate transposed back. Below :data:`RECTANGULAR_TINY_NOISE` the ``noise -> 0`` limit is used: the best
    rank-``r`` approximation of ``Y``.

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values".
    .. [2] E. Troiani et al., arXiv:2203.07752 (2022).

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising, rie
    >>> d, L, r, noise = 100, 150, 50, 1.0
    >>> S = denoising.sample_rectangular_signal(d, L, r, rng=0)
    >>> Y = S + np.sqrt(noise) * denoising.sample_rectangular_noise(d, L, rng=1)
    >>> S_hat = rie.rectangular_rie(Y, noise, r / d)
    >>> theory = rie.rectangular_rie_mmse(noise, L / d, r / d)
    >>> print(f"RIE {denoising.rectangular_error(S_hat, S):.2f}, theory {theory:.2f}")
    RIE 0.42, theory 0.42
    """
    transpose = Y.shape[0] > Y.shape[1]
    X = Y.T if transpose else Y
    d, L = X.shape
    if noise == 0.0:
        return Y.copy()
    _check_spectrum_scale("Y", Y)
    U, sv, Vt = np.linalg.svd(X, full_matrices=False)
    if noise < RECTANGULAR_TINY_NOISE:
        rank = min(d, max(1, round(rho * d)))
        new = np.where(np.arange(d) < rank, sv, 0.0)  # singular values come sorted, largest first
    else:
        new = rectangular_rie_singular_values(sv, noise, L / d, rho)
    est = (U * new) @ Vt
    return est.T if transpose else est


@declare(singular_values=STRENGTHS, beta=ASPECT, width=WIDTH)
def empirical_rectangular_rie_singular_values(
    singular_values, noise: float, beta: float, *, width: float | None = None
) -> np.ndarray:
    """Data-driven rectangular RIE shrinkage: ``h(sigma)`` of the singular-value law estimated from the sample.

    Parameters
    ----------
    singular_values : array_like (d,)
        All ``d = min(d, L) >= 2`` singular values ``sigma >= 0`` of the ``(dL)^{1/4}``-scaled observation
        (finite), in any order.
    noise : float
        Noise variance ``>= 0`` per entry on the unit scale (``0`` returns a copy).
    beta : float
        Aspect ratio ``L/d > 0`` (``beta < 1`` is read as ``1/beta``).
    width : float, optional
        Distance ``epsilon > 0`` below the real axis at which the empirical transform is evaluated (default
        ``d**-0.5``, ``d`` the number of singular values).

    Returns
    -------
    numpy.ndarray (d,)
        The shrunk singular values, ``>= 0``, in the order of ``singular_values``.

    Raises
    ------
    ValueError
        For a malformed argument (named): fewer than two singular values, a negative or non-finite one, a
        negative noise, a non-positive width or beta.

    Notes
    -----
    The map of :func:`rectangular_rie_singular_values`,

    ``sigma -> max(0, sigma - (2 noise/sqrt(beta)) [(beta - 1)/(2 sigma) + h(sigma)])``,

    with ``h = Re G`` of the symmetrised singular-value law (the normalisation of
    :meth:`~solvable.spectra.RectangularPlusNoise.stieltjes_real`, ``h(x) = 2 int nu_sv(t) x/(x^2 - t^2) dt``)
    replaced by its estimate from the sample's own singular values, smoothed by a Cauchy kernel of width
    ``epsilon``:

    ``G_d(z) = (1/(2d)) sum_j [1/(z - sigma_j) + 1/(z + sigma_j)]``,  ``h_d(sigma_k) = Re G_d(sigma_k - i epsilon)``.

    It knows the noise variance and the shape only, not the rank ratio ``rho`` nor the law of the signal. As
    for :func:`empirical_symmetric_rie_eigenvalues`, with ``epsilon = d^-1/2`` the bias ``O(epsilon)`` and the
    fluctuation ``O(1/(d epsilon))`` of ``h_d`` both vanish as ``d -> inf``, so the map tends to the RIE of the
    limiting law. A zero singular value is sent to 0.

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values" (the data-driven rectangular RIE).
    .. [2] E. Troiani et al., arXiv:2203.07752 (2022).
    .. [3] J. Bun, J.-P. Bouchaud, M. Potters, Phys. Rep. 666:1 (2017), arXiv:1610.08104, Sec. 5.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising, rie
    >>> d, L, r = 100, 150, 50  # noise 1
    >>> S = denoising.sample_rectangular_signal(d, L, r, rng=0)
    >>> sv = np.linalg.svd(S + denoising.sample_rectangular_noise(d, L, rng=1), compute_uv=False)
    >>> data = rie.empirical_rectangular_rie_singular_values(sv, 1.0, L / d)  # knows the noise only
    >>> limit = rie.rectangular_rie_singular_values(sv, 1.0, L / d, r / d)  # knows rho too
    >>> print(f"{np.linalg.norm(data - limit) / np.linalg.norm(sv - limit):.2f}")  # gap / shrinkage
    0.08
    """
    beta = max(beta, 1.0 / beta)  # the transposed problem
    sv = singular_values
    if sv.size < 2:
        raise InvalidParameterError(f"singular_values must hold at least two singular values, got {sv.size}")
    _check_spectrum_scale("singular_values", sv)
    width = sv.size**-0.5 if width is None else width
    if noise == 0.0:
        return sv.copy()
    v = np.empty(sv.size)
    for start in range(0, sv.size, EMPIRICAL_BLOCK):
        z = sv[start : start + EMPIRICAL_BLOCK, None] - 1j * width
        v[start : start + EMPIRICAL_BLOCK] = 0.5 * np.mean(1.0 / (z - sv) + 1.0 / (z + sv), axis=1).real
    safe = np.where(sv > 0, sv, 1.0)
    new = sv - (2.0 * noise / math.sqrt(beta)) * ((beta - 1.0) / (2.0 * safe) + v)
    return np.where(sv > 0, np.maximum(new, 0.0), 0.0)


@declare(Y=MATRIX, width=WIDTH)
def empirical_rectangular_rie(Y, noise: float, *, width: float | None = None) -> np.ndarray:
    """Data-driven rectangular RIE of ``S`` from the scaled ``Y = S + sqrt(noise) Z``, knowing only the noise.

    Parameters
    ----------
    Y : array_like (d, L)
        Observation, divided by ``(dL)^{1/4}``, with ``min(d, L) >= 2``.
    noise : float
        Noise variance ``>= 0`` per entry on the unit scale (``0`` returns a copy of ``Y``).
    width : float, optional
        Smoothing width ``epsilon > 0`` of the empirical transform (default ``min(d, L)**-0.5``).

    Returns
    -------
    numpy.ndarray (d, L)
        The estimate ``S_hat`` (scaled like ``Y``).

    Raises
    ------
    ValueError
        For a malformed argument (named): ``Y`` not a finite 2-d array or with ``min(d, L) < 2``, a negative
        noise, a non-positive width.

    Notes
    -----
    ``Y = U diag(sigma) V^T  ->  S_hat = U diag(sigma_new) V^T`` with the shrinkage of
    :func:`empirical_rectangular_rie_singular_values` (``beta = L/d`` read from the shape). Unlike
    :func:`rectangular_rie`, which evaluates ``h`` from the limiting law (built from the rank ratio ``rho``),
    it uses nothing but ``Y`` and the noise variance; the two agree as ``d -> inf``. If ``d > L`` the problem
    is solved for ``Y^T`` and the estimate transposed back.

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values" (the data-driven rectangular RIE).
    .. [2] E. Troiani et al., arXiv:2203.07752 (2022).

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising, rie
    >>> d, L, r, noise = 100, 150, 50, 1.0
    >>> S = denoising.sample_rectangular_signal(d, L, r, rng=0)
    >>> Y = S + np.sqrt(noise) * denoising.sample_rectangular_noise(d, L, rng=1)
    >>> S_hat = rie.empirical_rectangular_rie(Y, noise)
    >>> theory = rie.rectangular_rie_mmse(noise, L / d, r / d)
    >>> print(f"empirical RIE {denoising.rectangular_error(S_hat, S):.2f}, theory {theory:.2f}")
    empirical RIE 0.42, theory 0.42
    """
    if min(Y.shape) < 2:
        raise InvalidParameterError(f"Y must have at least two rows and two columns, got shape {Y.shape}")
    if noise == 0.0:
        return Y.copy()
    _check_spectrum_scale("Y", Y)
    transpose = Y.shape[0] > Y.shape[1]
    X = Y.T if transpose else Y
    d, L = X.shape
    U, sv, Vt = np.linalg.svd(X, full_matrices=False)
    new = empirical_rectangular_rie_singular_values(sv, noise, L / d, width=width)
    est = (U * new) @ Vt
    return est.T if transpose else est


# --------------------------------------------------------------------------- denoisers for GAMP


@declare()
@record
class WishartRIEDenoiser:
    """Symmetric RIE for a Wishart signal, as the denoiser of :func:`solvable.amp.run_gamp`.

    The :class:`~solvable.amp.Denoiser` interface of quadratic networks and of the attention-indexed model.

    Parameters
    ----------
    kappa : float
        Rank ratio ``m/d > 0`` of the Wishart signal (paper normalisation).

    Raises
    ------
    ValueError
        If ``kappa`` is not a finite number > 0.

    Notes
    -----
    ``denoise(A, B)``: ``R = B/A`` is ``S* + sqrt(noise) Z_GOE`` with ``noise = d/(2 A)``; it returns the RIE of
    ``R`` (symmetrised) and its asymptotic error ``mmse_RIE(noise)`` (:func:`symmetric_rie_mmse`). The state
    evolution of GAMP-RIE iterates the same MMSE (:meth:`se_error`).

    References
    ----------
    .. [1] Chapter 4 (quadratic networks), GAMP-RIE.
    .. [2] A. Maillard et al., arXiv:2408.03733 (2024).

    Examples
    --------
    >>> from solvable import denoising, rie
    >>> S = denoising.sample_wishart(200, 0.5, rng=0)
    >>> Y = S + denoising.sample_goe(200, rng=1)  # noise 1
    >>> A = 200 / 2  # the precision of noise d/(2A) = 1
    >>> S_hat, mmse = rie.WishartRIEDenoiser(0.5).denoise(A, A * Y)  # the field B = A Y
    >>> print(f"error {denoising.symmetric_error(S_hat, S):.2f}, predicted {mmse:.2f}")
    error 0.39, predicted 0.40
    """

    kappa: float

    def denoise(self, A, B):
        """Denoise the field ``B`` of precision ``A``.

        Parameters
        ----------
        A : float
            Scalar precision of the field (``> 0``).
        B : numpy.ndarray (d, d)
            The field; ``B/A`` is the observation.

        Returns
        -------
        tuple of (numpy.ndarray, float)
            The estimate and its asymptotic per-entry error; NaN (a divergence for
            :func:`~solvable.amp.run_gamp`) for a non-positive or non-finite ``A``, a noise ``d/(2A)`` above
            ``spectra.NOISE_RANGE[1]`` or an overflow in ``B/A``.
        """
        A = float(A)
        B = np.asarray(B, dtype=float)
        if not (math.isfinite(A) and A > 0.0) or not np.all(np.isfinite(B)):
            return np.full(B.shape, np.nan), math.nan
        noise = B.shape[0] / (2.0 * A)
        R = B / A
        if noise > NOISE_RANGE[1] or not all_finite(R):  # no information left, or an overflow: a divergence
            return np.full(B.shape, np.nan), math.nan
        return symmetric_rie(0.5 * (R + R.T), noise, self.kappa), symmetric_rie_mmse(noise, self.kappa)

    def se_error(self, noise):
        """State-evolution map: the asymptotic error ``mmse_RIE(noise)`` at a noise in ``[0, inf]``.

        Parameters
        ----------
        noise : float
            Effective noise variance of the denoising problem (``inf``: no information).

        Returns
        -------
        float
            :func:`symmetric_rie_mmse` ``(noise, kappa)``, in ``[0, 1]``.
        """
        return symmetric_rie_mmse(noise, self.kappa)


@declare(rho=POSITIVE)
@record
class RectangularRIEDenoiser:
    """The rectangular RIE as the denoiser of :func:`solvable.amp.run_gamp` and the "prior" of its state evolution.

    Bilinear sequence regression's denoiser, on the unit scale.

    Parameters
    ----------
    beta : float
        Aspect ratio ``L/d`` (folded to ``max(beta, 1/beta)``; ``math.inf`` allowed for the variance).
    rho : float
        Rank ratio ``r/min(d, L) > 0``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    ``denoise(A, B)``: the field ``B`` (``d x L``) and scalar precision ``A`` describe the observation
    ``Y = B/A = S + noise`` with per-entry noise variance ``1/A``. The estimate is the RIE of ``Y``
    (:func:`rectangular_rie` on ``Y/(dL)^{1/4}``, scaled back) and the variance is
    :func:`rectangular_rie_mmse` ``(1/A, beta, rho)``. :meth:`se_overlap` is the state-evolution map
    ``q = 1 - mmse(1/mhat)`` [2]_.

    References
    ----------
    .. [1] Chapter 3, Sec. "GAMP-RIE: an algorithm that reaches the Bayes-optimal error" (``eq-bsr-gamp``,
       ``eq-bsr-se``).
    .. [2] V. Erba et al., arXiv:2410.18858 (2024); E. Troiani et al., arXiv:2203.07752 (2022).

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising, rie
    >>> d, L, r = 100, 150, 50
    >>> S = denoising.sample_rectangular_signal(d, L, r, rng=0) * (d * L) ** 0.25  # unit scale
    >>> Y = S + denoising.sample_rectangular_noise(d, L, rng=1) * (d * L) ** 0.25  # noise 1/A with A = 1
    >>> denoiser = rie.RectangularRIEDenoiser(L / d, r / d)
    >>> S_hat, mmse = denoiser.denoise(1.0, Y)  # precision A = 1, field B = A Y = Y
    >>> q = denoiser.se_overlap(1.0)  # 1 - mmse(1/mhat) at mhat = 1
    >>> print(f"error {np.mean((S_hat - S) ** 2):.2f}, predicted {mmse:.2f}, SE overlap {q:.2f}")
    error 0.42, predicted 0.42, SE overlap 0.58
    """

    beta: float
    rho: float

    def __post_init__(self):
        object.__setattr__(self, "beta", max(self.beta, 1.0 / self.beta))  # the transposed problem

    def denoise(self, A, B):
        """Denoise the field ``B`` of precision ``A``.

        Parameters
        ----------
        A : float
            Scalar precision (``> 0``); the noise per entry is ``1/A``.
        B : numpy.ndarray (d, L)
            The field; ``B/A`` is the observation on the unit scale.

        Returns
        -------
        tuple of (numpy.ndarray, float)
            The estimate (unit scale) and its asymptotic per-entry error; NaN (a divergence for
            :func:`~solvable.amp.run_gamp`) for a non-positive or non-finite ``A``, a noise above
            ``spectra.NOISE_RANGE[1]`` or an overflow in ``B/A``.
        """
        A = float(A)
        B = np.asarray(B, dtype=float)
        if not (math.isfinite(A) and A > 0.0) or not np.all(np.isfinite(B)):
            return np.full(B.shape, np.nan), math.nan
        noise = 1.0 / A
        scale = (B.shape[0] * B.shape[1]) ** 0.25
        Y = B * (noise / scale)
        if noise > NOISE_RANGE[1] or not all_finite(Y):  # no information left, or an overflow: a divergence
            return np.full(B.shape, np.nan), math.nan
        est = rectangular_rie(Y, noise, self.rho) * scale
        return est, rectangular_rie_mmse(noise, self.beta, self.rho)

    def se_overlap(self, mhat):
        """State-evolution map ``q = 1 - mmse(1/mhat)``: the RIE as the "prior" of the state evolution.

        Parameters
        ----------
        mhat : float
            Conjugate order parameter (the precision of the effective denoising problem); ``mhat <= 0`` carries
            no information.

        Returns
        -------
        float
            The overlap ``q`` in ``[0, 1]`` (0 for ``mhat <= 0``).
        """
        mhat = float(mhat)
        if not mhat > 0.0:
            return 0.0
        return 1.0 - rectangular_rie_mmse(1.0 / mhat, self.beta, self.rho)


# --------------------------------------------------------------------------- one-draw experiments


def _spectral_error(new, projections, signal_norm2, scale):
    """``||sum_k new_k a_k b_k^T - S||_F^2/scale`` for orthonormal systems ``(a_k)``, ``(b_k)``, from the
    projections ``a_k^T S b_k`` and ``||S||_F^2`` (no matrix is rebuilt)."""
    return float((new @ new - 2.0 * new @ projections + signal_norm2) / scale)


@declare(noise=EXPERIMENT_NOISE)
def symmetric_denoising_experiment(d: int, kappa: float, noise: float, *, rng) -> DenoisingErrors:
    """Errors of the RIE and the baselines on one draw of the Wishart denoising problem.

    Parameters
    ----------
    d : int
        Dimension (``>= 1``).
    kappa : float
        Rank ratio ``m/d > 0`` (``m = round(kappa d) >= 1``).
    noise : float
        Noise variance in ``(0, spectra.NOISE_RANGE[1]]``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of randomness (keyword-only, required).

    Returns
    -------
    DenoisingErrors
        Errors of :func:`symmetric_rie`, of ``S_hat = Y``, of :func:`~solvable.denoising.scalar_shrinkage`
        (centred at the mean ``sqrt(kappa)``) and of :func:`~solvable.denoising.eigenvalue_truncation` at rank
        ``m``.

    Raises
    ------
    ValueError
        For a malformed argument (named), or matrices beyond the size limit.
    TypeError
        For a wrong type (e.g. ``rng``).

    Notes
    -----
    Draws ``S`` Wishart (paper normalisation) and ``Y = S + sqrt(noise) Z``. Every estimator keeps the
    eigenvectors ``u_k`` of ``Y`` and changes only the eigenvalues, so its error is
    ``(1/d) [sum_k theta_hat_k^2 - 2 sum_k theta_hat_k u_k^T S u_k + ||S||_F^2]``: one eigendecomposition serves
    all four.
    Asymptotic values: :func:`symmetric_rie_mmse`, :func:`~solvable.denoising.identity_mse`,
    :func:`~solvable.denoising.scalar_shrinkage_mse`.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator".

    Examples
    --------
    >>> from solvable import rie
    >>> e = rie.symmetric_denoising_experiment(200, 0.5, 1.0, rng=0)  # d, kappa, noise
    >>> print(f"RIE {e.rie:.2f} (theory {rie.symmetric_rie_mmse(1.0, 0.5):.2f}), identity {e.identity:.2f}, "
    ...       f"scalar {e.scalar_shrinkage:.2f}, truncation {e.truncation:.2f}")
    RIE 0.39 (theory 0.40), identity 1.01, scalar 0.49, truncation 0.67
    """
    m = round(kappa * d)
    if m < 1:
        raise InvalidParameterError(
            f"kappa * d must round to at least 1 (m = kappa d), got kappa={kappa!r}, d={d}"
        )
    # W (m, d), S, Y, Z and the eigenvectors O, S @ O: all alive at the peak
    check_size("the matrices of symmetric_denoising_experiment (m = kappa d, d)", m + 5 * d, d)
    S = sample_wishart(d, kappa, rng=rng)
    Y = S + math.sqrt(noise) * sample_goe(d, rng=rng)
    lam, O = np.linalg.eigh(Y)
    projections = np.einsum("ij,ij->j", O, S @ O)  # u_i^T S u_i
    norm2 = float(np.sum(S * S))
    mean = math.sqrt(kappa)

    def error(new):
        return _spectral_error(new, projections, norm2, d)

    return DenoisingErrors(
        rie=error(symmetric_rie_eigenvalues(lam, noise, kappa)),
        identity=error(lam),
        scalar_shrinkage=error(mean + (lam - mean) / (1.0 + noise)),
        truncation=error(np.where(np.arange(d) >= d - m, lam, 0.0)),
    )


@declare(L=integer(1, size=True), r=integer(1), noise=EXPERIMENT_NOISE)
def rectangular_denoising_experiment(d: int, L: int, r: int, noise: float, *, rng) -> DenoisingErrors:
    """Errors of the RIE and the baselines on one draw of the rectangular denoising problem.

    Parameters
    ----------
    d, L : int
        Dimensions, ``1 <= d <= L`` (transpose the problem otherwise).
    r : int
        Rank of the signal (``>= 1``).
    noise : float
        Noise variance in ``(0, spectra.NOISE_RANGE[1]]``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of randomness (keyword-only, required).

    Returns
    -------
    DenoisingErrors
        Errors of :func:`rectangular_rie`, of ``S_hat = Y``, of :func:`~solvable.denoising.scalar_shrinkage`
        (second moment 1), of :func:`~solvable.denoising.truncated_svd` at rank ``r`` and of
        :func:`~solvable.denoising.optimal_singular_value_shrinkage`.

    Raises
    ------
    ValueError
        For a malformed argument (named), ``d > L``, or matrices beyond the size limit.
    TypeError
        For a wrong type (e.g. ``rng``).

    Notes
    -----
    Draws the scaled ``S = U V^T/(sqrt(r) (dL)^{1/4})`` and ``Y = S + sqrt(noise) Z/(dL)^{1/4}``. All five
    estimators keep the singular vectors of ``Y``, so each error is
    ``[sum_k y_k'^2 - 2 sum_k y_k' u_k^T S v_k + ||S||_F^2]/sqrt(dL)``: one SVD serves all. Asymptotic values:
    :func:`rectangular_rie_mmse` ``(noise, L/d, r/d)``, :func:`~solvable.denoising.identity_mse`,
    :func:`~solvable.denoising.scalar_shrinkage_mse` ``(noise, 1)``.

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values".

    Examples
    --------
    >>> from solvable import rie
    >>> e = rie.rectangular_denoising_experiment(100, 150, 50, 1.0, rng=0)  # d, L, r, noise
    >>> mmse = rie.rectangular_rie_mmse(1.0, 150 / 100, 50 / 100)
    >>> print(f"RIE {e.rie:.2f} (theory {mmse:.2f}), identity {e.identity:.2f}, "
    ...       f"scalar {e.scalar_shrinkage:.2f}, truncation {e.truncation:.2f}, "
    ...       f"Gavish-Donoho {e.optimal_shrinkage:.2f}")
    RIE 0.42 (theory 0.42), identity 0.99, scalar 0.49, truncation 0.83, Gavish-Donoho 0.50
    """
    if d > L:
        raise InvalidParameterError(f"d must be <= L (transpose the problem), got d={d}, L={L}")
    # U (d, r), V (L, r), S, Z, Y, the singular vectors (d, d) + (d, L) and S @ V: alive at the peak
    check_size("the matrices of rectangular_denoising_experiment (d, L, r)", (d + L) * r + 5 * d * L + d * d)
    S = sample_rectangular_signal(d, L, r, rng=rng)
    Y = S + math.sqrt(noise) * sample_rectangular_noise(d, L, rng=rng)
    U, sv, Vt = np.linalg.svd(Y, full_matrices=False)
    projections = np.einsum("ij,ij->j", U, S @ Vt.T)  # u_i^T S v_i
    norm2 = float(np.sum(S * S))
    scale = math.sqrt(d * L)

    def error(new):
        return _spectral_error(new, projections, norm2, scale)

    return DenoisingErrors(
        rie=error(rectangular_rie_singular_values(sv, noise, L / d, r / d)),
        identity=error(sv),
        scalar_shrinkage=error(sv / (1.0 + noise)),
        truncation=error(np.where(np.arange(sv.size) < r, sv, 0.0)),
        optimal_shrinkage=error(optimal_shrinkage_singular_values(sv, noise, L / d)),
    )
