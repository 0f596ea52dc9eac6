"""Rotationally invariant estimators (RIE) of a matrix seen through Gaussian noise, and their MMSE.

Two denoising problems recur in the matrix chapters (``science/random_matrices.md``, Secs. 3-4):

- **symmetric**: ``Y = S + sqrt(noise) Z`` (``d x d``), ``Z`` GOE of variance 1 (off-diagonal N(0, 1/d),
  diagonal N(0, 2/d)), ``S`` rotationally invariant with a known spectral law. The optimal
  rotation-equivariant estimator keeps the eigenvectors of ``Y`` and maps each eigenvalue
  ``lambda -> lambda - 2 noise Re G_Y(lambda)`` (Bun, Allez, Bouchaud, Potters, IEEE Trans. Inf. Theory 62:7475
  (2016), arXiv:1502.06736). Its asymptotic error per entry is
  ``mmse(noise) = (1/d) E||S_hat - S||_F^2 = noise - (4 pi^2/3) noise^2 int rho_Y^3`` (Maillard, Troiani, Martin,
  Krzakala, Zdeborova, arXiv:2408.03733). The quadratic-network and attention chapters use a Wishart ``S``
  in the paper normalisation ``S* = W^T W/sqrt(m d)``.
- **rectangular**: ``Y = S + sqrt(noise) Z`` (``d x L``), ``S = U V^T/sqrt(r)``, ``Z`` i.i.d. N(0, 1), ALL
  divided by ``(dL)^{1/4}`` so that singular values are O(1). The RIE keeps the singular vectors and shrinks
  the singular values (Troiani, Erba, Krzakala, Maillard, Zdeborova, arXiv:2203.07752); the error is
  measured as ``||S_hat - S||_F^2/sqrt(dL)`` on the scaled matrices, i.e. ``(1/(dL))||.||_F^2`` on the unit
  scale. Used by the bilinear-sequence-regression chapter.

The MMSE functions are called at every step of GAMP-RIE and of its state evolution: they cost about a
millisecond (symmetric) and a few milliseconds (rectangular); the spectral laws are cached per parameter set.
Baselines for the chapters (identity, optimal scalar shrinkage, rank truncation, and the optimal
singular-value shrinkage of Gavish and Donoho for spikes of fixed rank) and the samplers of the signals and of
the noise are at the end of the module. Every random draw takes an explicit generator.

Names and argument order
------------------------
The variance of the Gaussian noise of the denoising problem is called ``noise`` everywhere in this module and
in :mod:`solvable.spectra` (``delta`` is kept for the label noise of the models, ``s`` is not used). A function
that acts on an observation takes it first and the noise right after it, then the signal's parameters:
``symmetric_rie(Y, noise, kappa)``, ``rectangular_rie(Y, noise, R2)``,
``symmetric_rie_eigenvalues(eigenvalues, noise, kappa)``, ``rectangular_rie_singular_values(sv, noise, R1, R2)``,
``scalar_shrinkage(Y, noise, ...)``, ``optimal_shrinkage_singular_values(sv, noise, R1)``. A function of the
noise alone takes it first: ``symmetric_rie_mmse(noise, kappa)``, ``rectangular_rie_mmse(noise, R1, R2)``,
``scalar_shrinkage_mse(noise, ...)``, ``identity_mse(noise)``. Laws and experiments read "signal plus noise":
the signal's sizes and parameters first, then the noise (``spectra.wishart_plus_goe(kappa, noise)``,
``spectra.rectangular_plus_noise(R1, R2, noise)``, ``symmetric_denoising_experiment(d, kappa, noise, rng)``,
``rectangular_denoising_experiment(d, L, r, noise, rng)``).

Every public function checks its arguments (``ValueError`` or ``TypeError`` naming the parameter) and every
MMSE is checked against its mathematical range ``[0, min(noise, spectral variance of S)]``: a value outside it
(beyond rounding) raises ``ArithmeticError`` rather than being clipped silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

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
    check_array,
    check_choice,
    check_finite,
    check_in_range,
    check_int,
    check_nonnegative,
    check_positive,
    check_rng,
    check_size,
)

__all__ = [
    "RECTANGULAR_MMSE_TOL",
    "RECTANGULAR_SMALL_NOISE",
    "RECTANGULAR_TINY_NOISE",
    "SYMMETRIC_TINY_NOISE",
    "SYMMETRIC_LARGE_NOISE",
    "SYMMETRIC_SMALL_NOISE",
    "DenoisingErrors",
    "RectangularRIEDenoiser",
    "WishartRIEDenoiser",
    "eigenvalue_truncation",
    "identity_mse",
    "optimal_shrinkage_singular_values",
    "optimal_shrinkage_spike_error",
    "optimal_singular_value_shrinkage",
    "rectangular_denoising_experiment",
    "rectangular_error",
    "rectangular_parameter_fraction",
    "rectangular_rie",
    "rectangular_rie_mmse",
    "rectangular_rie_singular_values",
    "sample_goe",
    "sample_rectangular_noise",
    "sample_rectangular_signal",
    "sample_wishart",
    "scalar_shrinkage",
    "scalar_shrinkage_mse",
    "semicircle_rie_mmse",
    "symmetric_denoising_experiment",
    "symmetric_error",
    "symmetric_rie",
    "symmetric_rie_eigenvalues",
    "symmetric_rie_mmse",
    "symmetric_rie_mmse_from_density",
    "truncated_svd",
    "wishart_parameter_fraction",
]

#: Above ``SYMMETRIC_LARGE_NOISE * max(10, 1/kappa)`` (paper normalisation) the symmetric MMSE is its
#: large-noise expansion to ``O(noise^-3)`` (see :func:`symmetric_rie_mmse`), where the quadrature's
#: ``noise - (...)`` would lose ``log10(noise)`` digits to cancellation.
SYMMETRIC_LARGE_NOISE = 100.0
#: A rectangular MMSE whose estimated error (see :func:`rectangular_rie_mmse`) exceeds this is not returned.
RECTANGULAR_MMSE_TOL = 1e-5
#: Below this noise the symmetric MMSE is its small-noise limit ``noise (2 kappa - kappa^2)`` (or ``noise``).
SYMMETRIC_SMALL_NOISE = 1e-5
#: Below this noise the rectangular MMSE is its small-noise limit ``noise r(d + L - r)/(dL)``.
RECTANGULAR_SMALL_NOISE = 1e-4
#: Below this noise :func:`rectangular_rie` returns its ``noise -> 0`` limit, the best rank-``r`` approximation
#: of ``Y`` (``Y`` itself for ``R2 >= 1``): the corrections are ``O(noise)``, and the spectral law of
#: :class:`~solvable.spectra.RectangularPlusNoise` can no longer be resolved in double precision (below ~1e-15).
RECTANGULAR_TINY_NOISE = 1e-12
#: Below this noise :func:`symmetric_rie` returns its ``noise -> 0`` limit (see :func:`symmetric_rie_eigenvalues`).
SYMMETRIC_TINY_NOISE = 1e-12

_FOUR_PI2_OVER_3 = 4.0 * math.pi**2 / 3.0
_ROUNDING = 64.0 * float(np.finfo(float).eps)  # the rounding allowed in noise - (...), relative to the noise


# --------------------------------------------------------------------------- symmetric


def _real_array(name: str, value) -> np.ndarray:
    """``value`` as a float array (``ArgumentTypeError``, a ``TypeError``, naming ``name`` for complex, ragged or
    non-numeric input)."""
    return check_array(name, value, finite=False, nonempty=False)


def _finite_array(name: str, value, *, vector: bool = False) -> np.ndarray:
    """``value`` as a float array with finite entries (``TypeError``/``ValueError`` naming ``name``); with
    ``vector=True`` a number or a non-empty 1-d array."""
    arr = check_array(name, value, finite=False, nonempty=False)
    if vector and (arr.ndim > 1 or arr.size == 0):
        raise ValueError(f"{name} must be a number or a non-empty 1-d array, got shape {arr.shape}")
    if not all_finite(arr):
        raise ValueError(f"{name} must have finite entries (no NaN or inf)")
    return arr


def _check_spectrum_scale(name: str, arr: np.ndarray) -> None:
    """The spectral laws are evaluated at ``|x| <= spectra.MAX_ABS_ARGUMENT``: refuse larger entries by name
    (``sum x^2`` bounds every eigenvalue or singular value)."""
    if not np.vdot(arr, arr) <= MAX_ABS_ARGUMENT**2:
        raise ValueError(f"{name} is too large for the spectral law: its Frobenius norm must be at most "
                         f"{MAX_ABS_ARGUMENT:g}")


def _check_n_nodes(n_nodes) -> int:
    if type(n_nodes) is int and 2 <= n_nodes <= MAX_NODES:  # the common case
        return n_nodes
    n_nodes = check_int("n_nodes", n_nodes, minimum=2)
    if n_nodes > MAX_NODES:
        raise ValueError(f"n_nodes must be an integer in [2, {MAX_NODES}], got {n_nodes!r}")
    return n_nodes


def _check_symmetric(Y, name: str = "Y") -> np.ndarray:
    Y = _real_array(name, Y)
    if Y.ndim != 2 or Y.shape[0] != Y.shape[1] or Y.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {Y.shape}")
    if not all_finite(Y):
        raise ValueError(f"{name} must have finite entries (no NaN or inf)")
    scale = max(1.0, float(np.max(np.abs(Y))))
    if np.max(np.abs(Y - Y.T)) > 1e-8 * scale:
        raise ValueError(f"{name} must be symmetric (max |Y - Y^T| exceeds 1e-8 max(1, max |Y|))")
    return 0.5 * (Y + Y.T)


def _re_stieltjes(noise, kappa, normalisation, law):
    """The function ``x -> Re G_Y(x)`` from exactly one of ``kappa`` (Wishart signal) or ``law``."""
    if (kappa is None) == (law is None):
        raise ValueError("give exactly one of kappa (Wishart signal) or law (the law of Y)")
    if law is None:
        return wishart_plus_goe(kappa, noise, normalisation).stieltjes_real
    if hasattr(law, "stieltjes_real"):
        return law.stieltjes_real
    if callable(law):
        return law
    raise ValueError("law must have a stieltjes_real method or be a callable x -> Re G_Y(x)")


def symmetric_rie_eigenvalues(eigenvalues, noise: float, kappa: float | None = None, *,
                              normalisation: str = "paper", law=None) -> np.ndarray:
    """The RIE eigenvalue map ``lambda -> lambda - 2 noise Re G_Y(lambda)`` (Bun et al. 2016, arXiv:1502.06736).

    ``Re G_Y`` is that of the law of ``Y = S + sqrt(noise) Z``: a Wishart ``S`` (give ``kappa`` and the
    ``normalisation``; :class:`~solvable.spectra.WishartPlusNoise`), or any law (give ``law``: an object
    with a ``stieltjes_real`` method, such as ``Semicircle(v + noise)`` for a semicircle signal of variance ``v``,
    or a callable ``x -> Re G_Y(x)``, e.g. built from :func:`~solvable.spectra.free_convolution_semicircle`).
    Eigenvalues outside the bulk (outliers, finite-size edges) use the branch of ``G_Y`` that continues to
    ``~ 1/x`` (``science/random_matrices.md``, Sec. 2). Below ``SYMMETRIC_TINY_NOISE`` (1e-12, under the range
    where the spectral law can be resolved, ``spectra.NOISE_RANGE``) the ``noise -> 0`` limit is returned: the
    eigenvalues themselves, or for a Wishart signal of rank ``m = kappa d < d`` the ``m`` largest (clipped at 0)
    with the others sent to 0 (the corrections are ``O(noise)``; GAMP-RIE reaches this regime next to exact
    recovery).
    """
    noise = check_nonnegative("noise", noise)
    lam = _finite_array("eigenvalues", eigenvalues, vector=True)
    _check_spectrum_scale("eigenvalues", lam)
    if kappa is not None:
        kappa = check_positive("kappa", kappa)
    if noise == 0.0:
        return lam.copy()
    if noise < SYMMETRIC_TINY_NOISE:
        if (kappa is None) == (law is None):
            raise ValueError("give exactly one of kappa (Wishart signal) or law (the law of Y)")
        if kappa is None or kappa >= 1.0:
            return lam.copy()
        rank = min(lam.size, max(1, round(kappa * lam.size)))
        keep = np.zeros(lam.size, dtype=bool)
        keep[np.argsort(lam)[lam.size - rank:]] = True
        return np.where(keep, np.maximum(lam, 0.0), 0.0)
    re_g = np.asarray(_re_stieltjes(noise, kappa, normalisation, law)(lam), dtype=float)
    if re_g.shape != lam.shape or not all_finite(re_g):
        raise ValueError("law must return a finite Re G_Y of the shape of its argument at every eigenvalue")
    return lam - 2.0 * noise * re_g


def symmetric_rie(Y, noise: float, kappa: float | None = None, *, normalisation: str = "paper",
                  law=None) -> np.ndarray:
    """Rotationally invariant estimate of ``S`` from ``Y = S + sqrt(noise) Z`` (``Z`` GOE of variance 1).

    ``Y = O diag(lambda) O^T  ->  S_hat = O diag(lambda_i - 2 noise Re G_Y(lambda_i)) O^T``: the Bayes-optimal
    estimator among rotation-equivariant ones, asymptotically Bayes-optimal when ``S`` is rotationally
    invariant (Bun, Allez, Bouchaud, Potters 2016, arXiv:1502.06736; ``science/random_matrices.md``, Sec. 3).

    Parameters
    ----------
    Y : (d, d) array_like
        Symmetric observation (symmetric to 1e-8 relative; it is symmetrised exactly).
    noise : float
        Noise variance ``>= 0`` (``noise = 0`` returns a copy of ``Y``).
    kappa : float, optional
        Wishart signal ``m/d`` (in the given ``normalisation``, default the paper one ``W^T W/sqrt(m d)``).
    law : optional
        Instead of ``kappa``: the law of ``Y`` (see :func:`symmetric_rie_eigenvalues`).

    Returns
    -------
    ndarray (d, d), the estimate ``S_hat``.
    """
    Y = _check_symmetric(Y)
    noise = check_nonnegative("noise", noise)
    if kappa is not None:
        kappa = check_positive("kappa", kappa)
    if noise == 0.0:
        return Y.copy()
    _check_spectrum_scale("Y", Y)
    lam, O = np.linalg.eigh(Y)
    new = symmetric_rie_eigenvalues(lam, noise, kappa, normalisation=normalisation, law=law)
    return (O * new) @ O.T


def wishart_parameter_fraction(kappa: float) -> float:
    """Fraction of free parameters of a rank-``m`` PSD ``d x d`` matrix: ``2 kappa - kappa^2`` for
    ``kappa < 1``, else 1. It is the slope ``mmse(noise)/noise`` of the Wishart RIE as ``noise -> 0``
    (``science/random_matrices.md``, Sec. 3; 0.75 at ``kappa = 0.5``)."""
    kappa = check_positive("kappa", kappa)
    return 2.0 * kappa - kappa * kappa if kappa < 1.0 else 1.0


def symmetric_rie_mmse(noise: float, kappa: float, normalisation: str = "paper",
                       n_nodes: int = DEFAULT_NODES) -> float:
    """Asymptotic MMSE per entry of the symmetric RIE for a Wishart signal.

    ``mmse(noise) = (1/d) E||S_hat - S||_F^2 = noise - (4 pi^2/3) noise^2 int rho_Y(x)^3 dx`` with ``rho_Y`` the law of
    Wishart + GOE(``noise``) (Maillard et al. 2024, arXiv:2408.03733; ``science/random_matrices.md``, Sec. 3),
    integrated by Gauss-Legendre over the bulks (``n_nodes`` per piece; 64 give about 1e-12 relative).
    Below ``noise = SYMMETRIC_SMALL_NOISE`` it returns the small-noise limit ``noise * wishart_parameter_fraction``.
    (The computed value is accurate well below that threshold, because the cubic is solved for ``1/G``;
    the limit is kept so that the small-noise end is exactly linear. The switch moves the value by a relative
    ``2e-5`` at ``kappa = 0.5`` and ``1e-3`` at ``kappa = 1``.)

    Large noise: in the paper normalisation the MMSE tends to 1 (the spectral variance of ``S*``) as
    ``noise -> inf``, and ``noise - (...)`` loses a relative ``~6e-15 noise`` to cancellation. Above
    ``noise = SYMMETRIC_LARGE_NOISE * max(10, 1/kappa)`` it returns the expansion

    ``mmse = 1 - 1/noise + (1 - x)/noise^2 + (-1 + 4x - x^2)/noise^3 + O(noise^-4)``, ``x = 1/kappa``,

    i.e. ``v - v^2/noise + (v^3 - k3^2)/noise^2 + (-v^4 + 4 v k3^2 - k4^2)/noise^3`` with the free cumulants
    ``v = k2 = 1``, ``k3^2 = k4 = 1/kappa`` of ``S*`` (free Poisson). It is exact for ``x = 0`` (the GOE limit,
    ``noise/(1 + noise)``); the coefficients were obtained by matching the quadrature, and the two agree to
    ``1e-11`` at the switch for ``kappa >= 0.01`` (``6e-9`` at ``kappa = 1e-4``; the tests check it).

    Normalisations: in the mean-one normalisation ``mmse_W(noise) = mmse_paper(kappa noise)/kappa``, which tends
    to ``1/kappa`` (the spectral variance of ``S_W``). The result lies in ``[0, min(noise, variance)]``
    (``variance`` = 1 paper, ``1/kappa`` mean-one); a quadrature that leaves it by more than rounding raises.

    Parameters
    ----------
    noise : float
        Noise variance ``>= 0`` (finite).
    kappa : float
        ``m/d > 0`` (finite).
    normalisation : {"paper", "mean_one"}
    n_nodes : int
        Gauss-Legendre nodes per piece of the support (``>= 2``).

    Raises
    ------
    ArithmeticError
        If the quadrature leaves ``[0, min(noise, variance)]`` by more than rounding.
    """
    noise = check_nonnegative("noise", noise)
    kappa = check_positive("kappa", kappa)
    normalisation = check_choice("normalisation", normalisation, NORMALISATIONS)
    n_nodes = _check_n_nodes(n_nodes)
    if noise < SYMMETRIC_SMALL_NOISE:
        return noise * wishart_parameter_fraction(kappa)
    # computed in the paper normalisation: mmse_W(noise) = mmse_paper(kappa noise)/kappa
    scale = 1.0 if normalisation == "paper" else 1.0 / kappa
    t = noise / scale
    if t >= SYMMETRIC_LARGE_NOISE * max(10.0, 1.0 / kappa):
        u, x = 1.0 / t, 1.0 / kappa
        value = 1.0 - u * (1.0 - u * ((1.0 - x) + u * (-1.0 + 4.0 * x - x * x)))
    else:
        law = wishart_plus_goe(kappa, t)
        x, w = law.quadrature(n_nodes)
        rho = law.density(x)
        mass = float(np.dot(w, rho))
        if abs(mass - 1.0) * t > 1e-6 * min(t, 1.0):  # the law is not resolved (see RATIO_RANGE)
            raise ArithmeticError(f"symmetric_rie_mmse: the law of Y at kappa={kappa!r}, noise={noise!r} is not "
                                  f"resolved in double precision (mass {mass!r} instead of 1)")
        value = t - _FOUR_PI2_OVER_3 * t * t * float(np.dot(w, rho**3))
    return scale * _in_mmse_range(value, t, "symmetric_rie_mmse")


def symmetric_rie_mmse_from_density(noise: float, density, support, n_nodes: int = 128) -> float:
    """``noise - (4 pi^2/3) noise^2 int rho_Y^3`` for any law of ``Y`` given by its density on a known support.

    The result must lie in ``[0, noise]`` (beyond rounding, ``ArithmeticError``: the density is not normalised
    or the support misses part of it).

    ``density`` is a vectorised callable ``x -> rho_Y(x)``; ``support`` a sequence of intervals
    ``[(lo, hi), ...]`` (split them where the density nearly vanishes). The integral uses
    :func:`~solvable.spectra.bulk_quadrature`. For example, with
    ``G = lambda z: free_convolution_semicircle(G_S, noise, z)``, pass
    ``density = lambda x: -G(x + 1e-10j).imag/pi``.
    """
    noise = check_in_range("noise", noise, 0.0, NOISE_RANGE[1])
    n_nodes = _check_n_nodes(n_nodes)
    if not callable(density):
        raise TypeError(f"density must be a callable x -> rho_Y(x), got {type(density).__name__}")
    x, w = bulk_quadrature(support, n_nodes, name="support")
    if noise == 0.0:
        return 0.0
    rho = _real_array("density(x)", density(x))
    if rho.shape != x.shape or not np.all(np.isfinite(rho)) or np.any(rho < 0):
        raise ValueError("density must return finite values >= 0 of the shape of its argument")
    value = noise - _FOUR_PI2_OVER_3 * noise * noise * float(np.dot(w, rho**3))
    return _in_mmse_range(value, noise, "symmetric_rie_mmse_from_density", math.inf)


def semicircle_rie_mmse(noise: float, variance: float = 1.0) -> float:
    """MMSE of a semicircle (GOE) signal of variance ``v`` seen through GOE noise ``noise``: ``noise v/(noise + v)``.

    ``Y`` is then a semicircle of variance ``noise + v``, and the RIE is the linear map
    ``lambda -> lambda v/(v + noise)`` (``science/random_matrices.md``, Sec. 5, check 3).
    """
    noise = check_nonnegative("noise", noise)
    v = check_positive("variance", variance)
    return noise * v / (noise + v)


# --------------------------------------------------------------------------- rectangular


def _rectangular_ratios(R1, R2):
    R1 = check_positive("R1", R1)
    R2 = check_positive("R2", R2)
    return max(R1, 1.0 / R1), R2


def rectangular_parameter_fraction(R1: float, R2: float) -> float:
    """``r(d + L - r)/(dL)`` with ``r = min(R2, 1) d``: the fraction of free parameters of a rank-``r``
    ``d x L`` matrix, the slope of the rectangular MMSE as ``noise -> 0`` (0.36 at ``R1 = 1, R2 = 0.2``;
    equal to ``alpha_PR`` of ``science/bsr.md``)."""
    R1, R2 = _rectangular_ratios(R1, R2)
    rho = min(R2, 1.0)
    return rho * (1.0 + R1 - rho) / R1


def rectangular_rie_mmse(noise: float, R1: float, R2: float, n_nodes: int = DEFAULT_NODES) -> float:
    """Asymptotic MMSE of the rectangular RIE (Troiani et al. 2022, arXiv:2203.07752).

    ``mmse = noise - (noise^2/R1^{3/2}) [ (R1 - 1)^2 I1 + (4 pi^2/3) I3 ]`` with ``I1 = 2 int mu(x)/x^2 dx``
    and ``I3 = 2 int mu(x)^3 dx`` over the bulks of the symmetrised singular-value density ``mu`` of
    :class:`~solvable.spectra.RectangularPlusNoise` (``science/random_matrices.md``, Sec. 4). It is the error
    ``||S_hat - S||_F^2/sqrt(dL)`` on the ``(dL)^{1/4}``-scaled matrices (``(1/(dL))||.||^2`` on the unit
    scale): ``noise/(1 + noise)``-like at large noise (-> 1), 0 at ``noise = 0``. Below
    ``RECTANGULAR_SMALL_NOISE`` it returns ``noise * rectangular_parameter_fraction(R1, R2)`` (at most
    ``noise/(1 + noise)``, the error of the linear shrinkage, which a full-rank signal would otherwise exceed).

    ``R1 = math.inf`` (``L >> d``) uses the closed form of the limit (``science/bsr.md``, Sec. 2), written
    without cancellation: with ``a = R2 noise + R2 - 1``,
    ``mmse = noise - (noise/2) [sqrt(a^2 + 4 R2 noise) - a]`` (the notes'
    ``sqrt(1 + rho((D + 2) rho D + 2D + rho - 2))`` is ``sqrt(a^2 + 4 rho D)``), evaluated as
    ``2 R2 noise/(2 + a + sqrt(a^2 + 4 R2 noise))`` (equal, since ``(2 + a)^2 - a^2 - 4 R2 noise = 4 R2``;
    no cancellation at small or large noise).

    Accuracy and range: the result lies in ``[0, min(noise, 1)]``. The cancellation in ``noise - (...)``
    multiplies the quadrature's relative error by ``noise``; that error is estimated by the defect of the sum
    rule ``2 int mu = 1`` on the same nodes (plus ``1e-14`` of rounding): ``err = (|2 int mu - 1| + 1e-14) noise``.
    It stays near ``1e-14 noise`` for the usual ratios, but the quartic cannot be resolved in double precision
    when ``R1`` is very large (e.g. ``R1 = 1e6`` at ``noise >= 1e4``, where the quadrature gave 1.23).
    Where ``err > RECTANGULAR_MMSE_TOL min(noise, 1)`` the value is taken from the bracket
    ``mmse(noise, inf, R2) <= mmse <= noise/(1 + noise)``, intersected with ``quadrature +- err``, instead (the RIE beats the linear shrinkage, and the
    MMSE decreases towards its ``R1 = inf`` limit as ``R1`` grows; both checked in the tests; a resolved value
    that crosses the bracket by less than ``err`` is brought back inside it). The lower end
    is returned when ``10 noise (1 + noise)/R1 <= RECTANGULAR_MMSE_TOL min(noise, 1)`` (which implies
    ``R1 >= 1e7 max(1, noise^2)``; measured: once ``R1 >> noise^2`` the gap ``mmse(R1) - mmse(inf)`` is ``c/R1``
    with ``c`` at most about ``noise`` for ``R2`` in ``[1e-3, 100]``), the midpoint
    when the bracket is narrower than ``2 RECTANGULAR_MMSE_TOL min(noise, 1)`` (at large noise both ends are
    ``1 - O(1/noise)``), and ``ArithmeticError`` is raised otherwise (e.g. ``noise = 1e4, R1 = 1e6,
    R2 = 0.1``, where the bracket is ``[0.9989, 0.9999]``). ``R1`` above ``spectra.MAX_ASPECT_RATIO`` and
    ``noise`` above ``spectra.NOISE_RANGE`` go to these two forms directly.

    Parameters
    ----------
    noise : float
        Noise variance ``>= 0`` per entry (unit scale).
    R1 : float
        ``L/d``. The theory is written for ``d <= L``; ``R1 < 1`` is read as ``1/R1`` (the error is symmetric
        under transposition), with ``R2`` always ``r/min(d, L)`` as in ``science/bsr.md``. ``math.inf``
        allowed.
    R2 : float
        ``r/min(d, L) > 0``; ``R2 >= 1`` is a full-rank signal (covered by the same quartic).
    n_nodes : int
        Gauss-Legendre nodes per piece of the support.

    Raises
    ------
    ArithmeticError
        If the spectral law is not resolved (see above) and the bracket is too wide, or if the quadrature
        leaves the mathematical range ``[0, min(noise, 1)]`` by more than rounding.
    """
    noise = check_nonnegative("noise", noise)
    R1 = check_positive("R1", R1, allow_inf=True)
    R1 = max(R1, 1.0 / R1)
    R2 = check_positive("R2", R2)
    n_nodes = _check_n_nodes(n_nodes)
    if math.isinf(R1):
        return _rectangular_mmse_wide(noise, R2)
    if noise < RECTANGULAR_SMALL_NOISE:  # (a full-rank signal, fraction 1, meets the linear-shrinkage bound)
        return min(noise * rectangular_parameter_fraction(R1, R2), noise / (1.0 + noise))
    scale = min(noise, 1.0)
    value, error = math.nan, math.inf
    if R1 <= MAX_ASPECT_RATIO and noise <= NOISE_RANGE[1]:  # else the quartic is out of reach: bracket below
        try:
            law = rectangular_plus_noise(R1, R2, noise)
            x, w = law.quadrature(n_nodes)
            mu = law.density(x)
            mass = 2.0 * float(np.dot(w, mu))
            i3 = 2.0 * float(np.dot(w, mu**3))
            i1 = 2.0 * float(np.dot(w, mu / (x * x))) if R1 > 1.0 else 0.0
            value = noise - noise**2 / R1**1.5 * ((R1 - 1.0) ** 2 * i1 + _FOUR_PI2_OVER_3 * i3)
            error = (abs(mass - 1.0) + 1e-14) * noise
        except ArithmeticError:  # no support found: the quartic is not resolved at all
            pass
    low, high = _rectangular_mmse_wide(noise, R2), noise / (1.0 + noise)
    if math.isfinite(error) and error <= RECTANGULAR_MMSE_TOL * scale:
        value = _in_mmse_range(value, noise, "rectangular_rie_mmse", slack=error)
        # within its error the value may cross the bracket (at large noise): bring it back inside
        return min(max(value, low) if value >= low - error else value, high)
    if 10.0 * noise * (1.0 + noise) / R1 <= RECTANGULAR_MMSE_TOL * scale:
        return low
    if math.isfinite(error) and value - error <= high and value + error >= low:  # what the quadrature still says
        low, high = max(low, value - error), min(high, value + error)  # (unless it contradicts the bracket)
    if 0.0 <= high - low <= 2.0 * RECTANGULAR_MMSE_TOL * scale:
        return 0.5 * (low + high)
    raise ArithmeticError(
        f"rectangular_rie_mmse: the spectral law at noise={noise!r}, R1={R1!r}, R2={R2!r} is not resolved in "
        f"double precision (estimated error {error:.1e}; the quadrature gave {value!r}), and the bracket "
        f"[{low!r}, {high!r}] is too wide to stand in for it; for L >> d use R1 = math.inf")


def _in_mmse_range(value: float, noise: float, what: str, variance: float = 1.0, slack: float = 0.0) -> float:
    """Clip an MMSE to ``[0, min(noise, variance)]`` (it cannot exceed the noise, nor the signal's spectral
    variance) when it leaves that range by rounding only (``1e-9`` relative, plus ``64 eps noise`` for the
    cancellation in ``noise - (...)``, plus a known ``slack``); raise ``ArithmeticError`` when it leaves it by
    more."""
    top = min(noise, variance)
    slack = slack + 1e-9 * top + _ROUNDING * noise
    if not math.isfinite(value) or value < -slack or value > top + slack:
        raise ArithmeticError(f"{what}: the quadrature gave {value!r}, outside [0, {top!r}] (noise {noise!r}); "
                              f"the spectral law was not resolved at this noise")
    return min(max(value, 0.0), top)


def _rectangular_mmse_wide(noise: float, R2: float) -> float:
    """``R1 -> inf`` limit of :func:`rectangular_rie_mmse` (closed form, cancellation-free)."""
    if noise == 0.0:
        return 0.0
    a = R2 * noise + R2 - 1.0
    root = math.hypot(a, 2.0 * math.sqrt(R2 * noise))
    # noise - (noise/2)(root - a) = 2 R2 noise/(2 + a + root), since (2 + a)^2 - root^2 = 4 R2 (a + root >= 0)
    return min(2.0 * R2 * noise / (2.0 + a + root), noise, 1.0)


def rectangular_rie_singular_values(singular_values, noise: float, R1: float, R2: float) -> np.ndarray:
    """The rectangular RIE shrinkage of the singular values of the ``(dL)^{1/4}``-scaled ``Y``:

    ``sigma -> max(0, sigma - (2 noise/sqrt(R1)) [ (R1 - 1)/(2 sigma) + v(sigma) ])``, ``v = Re G`` of
    :class:`~solvable.spectra.RectangularPlusNoise` (Troiani et al. 2022, arXiv:2203.07752;
    ``science/random_matrices.md``, Sec. 4). The map is **clipped at 0**: a negative result (and a zero
    singular value) is sent to 0, since a singular value cannot be negative. On the support of the limiting
    law the map stays positive in the cases of the course (e.g. its minimum is 3e-3 at ``R1 = 2, R2 = 0.2,
    noise = 0.5``), so the clip acts only on finite-size singular values outside the support, if at all.
    """
    R1, R2 = _rectangular_ratios(R1, R2)
    noise = check_nonnegative("noise", noise)
    sv = _finite_array("singular_values", singular_values, vector=True)
    _check_spectrum_scale("singular_values", sv)
    if np.any(sv < 0):
        raise ValueError("singular_values must be >= 0")
    if noise == 0.0:
        return sv.copy()
    law = rectangular_plus_noise(R1, R2, noise)
    safe = np.where(sv > 0, sv, 1.0)
    v = np.asarray(law.stieltjes_real(safe))
    new = sv - (2.0 * noise / math.sqrt(R1)) * ((R1 - 1.0) / (2.0 * safe) + v)
    return np.where(sv > 0, np.maximum(new, 0.0), 0.0)


def _check_rectangular(Y, name: str = "Y") -> np.ndarray:
    """``Y`` as a float array, checked: a non-empty 2-d array with finite entries (ValueError otherwise;
    TypeError for complex or non-numeric input)."""
    Y = _real_array(name, Y)
    if Y.ndim != 2 or min(Y.shape) == 0:
        raise ValueError(f"{name} must be a non-empty 2-d array, got shape {Y.shape}")
    if not all_finite(Y):
        raise ValueError(f"{name} must have finite entries (no NaN or inf)")
    return Y


def rectangular_rie(Y, noise: float, R2: float) -> np.ndarray:
    """Rotationally invariant estimate of ``S`` from the scaled ``Y = S + sqrt(noise) Z`` (``d x L``).

    Convention of ``science/random_matrices.md``, Sec. 4: ``S = U V^T/sqrt(r)``, ``Z`` i.i.d. N(0, 1), and
    ``Y``, ``S``, ``Z`` all divided by ``(dL)^{1/4}`` (see :func:`sample_rectangular_signal` and
    :func:`sample_rectangular_noise`). ``Y = U diag(sigma) V^T  ->  S_hat = U diag(sigma_new) V^T`` with the
    shrinkage of :func:`rectangular_rie_singular_values`, clipped at 0 (Troiani et al. 2022,
    arXiv:2203.07752). If
    ``d > L`` the problem is solved for ``Y^T`` and the estimate transposed back. Below
    ``RECTANGULAR_TINY_NOISE`` the ``noise -> 0`` limit is used: the best rank-``r`` approximation of ``Y``.

    Parameters
    ----------
    Y : (d, L) array_like
        Scaled observation.
    noise : float
        Noise variance ``>= 0`` per entry on the unit scale.
    R2 : float
        Rank ratio ``r/min(d, L) > 0``.
    """
    Y = _check_rectangular(Y)
    noise = check_nonnegative("noise", noise)
    R2 = check_positive("R2", R2)
    transpose = Y.shape[0] > Y.shape[1]
    X = Y.T if transpose else Y
    d, L = X.shape
    if noise == 0.0:
        return Y.copy()
    _check_spectrum_scale("Y", Y)
    U, sv, Vt = np.linalg.svd(X, full_matrices=False)
    if noise < RECTANGULAR_TINY_NOISE:
        rank = min(d, max(1, round(R2 * d)))
        new = np.where(np.arange(d) < rank, sv, 0.0)  # singular values come sorted, largest first
    else:
        new = rectangular_rie_singular_values(sv, noise, L / d, R2)
    est = (U * new) @ Vt
    return est.T if transpose else est


# --------------------------------------------------------------------------- denoisers for GAMP


@dataclass(frozen=True)
class WishartRIEDenoiser:
    """Symmetric RIE for a Wishart signal of width ratio ``kappa``, as the denoiser of
    :func:`solvable.amp.run_gamp` (the :class:`~solvable.amp.Denoiser` interface; quadratic networks and the
    attention-indexed model).

    ``denoise(A, B)``: ``R = B/A`` is ``S* + sqrt(noise) Z_GOE`` with ``noise = d/(2 A)``; returns the RIE of
    ``R`` (symmetrised) and its asymptotic error ``mmse_RIE(noise)`` (``science/quadratic.md``, Sec. 3, step 6).
    A non-positive or non-finite ``A``, a noise above ``spectra.NOISE_RANGE[1]`` (1e12: the field carries no
    information, which in GAMP only happens on the way to a divergence) or an overflow in ``B/A`` returns NaN,
    which :func:`~solvable.amp.run_gamp` reports as a divergence.
    """

    kappa: float

    def __post_init__(self):
        object.__setattr__(self, "kappa", check_positive("kappa", self.kappa))

    def denoise(self, A, B):
        A = float(A)
        B = np.asarray(B, dtype=float)
        if not (math.isfinite(A) and A > 0.0) or not np.all(np.isfinite(B)):
            return np.full(B.shape, np.nan), math.nan
        noise = B.shape[0] / (2.0 * A)
        R = B / A
        if noise > NOISE_RANGE[1] or not all_finite(R):  # no information left, or an overflow: a divergence
            return np.full(B.shape, np.nan), math.nan
        return symmetric_rie(0.5 * (R + R.T), noise, self.kappa), symmetric_rie_mmse(noise, self.kappa)


@dataclass(frozen=True)
class RectangularRIEDenoiser:
    """The rectangular RIE as the denoiser of :func:`solvable.amp.run_gamp`, on the unit scale (bilinear
    sequence regression).

    ``denoise(A, B)``: the field ``B`` (``d x L``) and scalar precision ``A`` describe the observation
    ``Y = B/A = S + noise`` with per-entry noise variance ``1/A``. The estimate is the RIE of ``Y``
    (:func:`rectangular_rie` on ``Y/(dL)^{1/4}``, scaled back; singular values whose shrinkage is negative set
    to 0) and the variance is the asymptotic :func:`rectangular_rie_mmse` at ``(1/A, R1, R2)``, a per-entry
    variance on the unit scale (``science/bsr.md``, Sec. 3, steps 4-6; Troiani et al., arXiv:2203.07752).
    A non-positive or non-finite ``A`` returns NaN, which :func:`~solvable.amp.run_gamp` reports as a
    divergence, and so does a noise ``1/A`` above ``spectra.NOISE_RANGE[1]`` (1e12) or an overflow in ``B/A``.

    Parameters
    ----------
    R1 : float
        Aspect ratio ``L/d`` (folded to ``max(R1, 1/R1)``; ``math.inf`` allowed for the variance).
    R2 : float
        Rank ratio ``r/min(d, L)``.
    """

    R1: float
    R2: float

    def __post_init__(self):
        R1 = check_positive("R1", self.R1, allow_inf=True)
        object.__setattr__(self, "R1", max(R1, 1.0 / R1))
        object.__setattr__(self, "R2", check_positive("R2", self.R2))

    def denoise(self, A, B):
        A = float(A)
        B = np.asarray(B, dtype=float)
        if not (math.isfinite(A) and A > 0.0) or not np.all(np.isfinite(B)):
            return np.full(B.shape, np.nan), math.nan
        noise = 1.0 / A
        scale = (B.shape[0] * B.shape[1]) ** 0.25
        Y = B * (noise / scale)
        if noise > NOISE_RANGE[1] or not all_finite(Y):  # no information left, or an overflow: a divergence
            return np.full(B.shape, np.nan), math.nan
        est = rectangular_rie(Y, noise, self.R2) * scale
        return est, rectangular_rie_mmse(noise, self.R1, self.R2)

    def se_overlap(self, mhat):
        """State-evolution map ``q = 1 - mmse(1/mhat)`` (``0`` for ``mhat <= 0``): the RIE seen as the "prior" of
        :func:`solvable.amp.iterate_state_evolution`."""
        mhat = float(mhat)
        if mhat <= 0.0:
            return 0.0
        return 1.0 - rectangular_rie_mmse(1.0 / mhat, self.R1, self.R2)


# --------------------------------------------------------------------------- baselines


def identity_mse(noise: float) -> float:
    """Error of the estimator ``S_hat = Y``: the noise variance ``noise`` (per entry ``(1/d)||.||^2`` for the
    symmetric problem; per entry ``||.||^2/sqrt(dL)`` on the scaled
    matrices)."""
    return check_nonnegative("noise", noise)


def scalar_shrinkage(Y, noise: float, second_moment: float, mean: float = 0.0) -> np.ndarray:
    """Best estimator of the form ``S_hat = mean I + c (Y - mean I)`` (``mean = 0``: ``S_hat = c Y``).

    With ``v = second_moment - mean^2`` the spectral variance of ``S`` (second moment ``(1/d) Tr S^2``, or
    ``1`` for the rectangular signal per entry), ``c = v/(v + noise)`` minimises
    ``(1 - c)^2 v + c^2 noise``; the error is :func:`scalar_shrinkage_mse`. For the Wishart signal in the
    paper normalisation ``second_moment = 1 + kappa``, ``mean = sqrt(kappa)``. ``mean != 0`` needs a square
    ``Y``. This linear estimator is optimal for a semicircle signal only; the RIE beats it otherwise.
    """
    Y = _check_rectangular(Y)
    noise = check_nonnegative("noise", noise)
    m2 = check_positive("second_moment", second_moment)
    mean = check_finite("mean", mean)
    v = m2 - mean * mean
    if v <= 0:
        raise ValueError(f"second_moment must exceed mean^2, got {second_moment!r} and mean {mean!r}")
    c = v / (v + noise) if noise > 0 else 1.0
    if mean == 0.0:
        return c * Y
    if Y.ndim != 2 or Y.shape[0] != Y.shape[1]:
        raise ValueError(f"mean != 0 needs a square Y, got shape {Y.shape}")
    eye = np.eye(Y.shape[0])
    return mean * eye + c * (Y - mean * eye)


def scalar_shrinkage_mse(noise: float, second_moment: float, mean: float = 0.0) -> float:
    """Asymptotic error of :func:`scalar_shrinkage`: ``noise v/(noise + v)``, ``v = second_moment - mean^2``.

    Wishart (paper normalisation, centred at ``sqrt(kappa)``): ``noise/(1 + noise)``; rectangular:
    ``noise/(1 + noise)``.
    """
    noise = check_nonnegative("noise", noise)
    mean = check_finite("mean", mean)
    v = check_positive("second_moment", second_moment) - mean * mean
    if v <= 0:
        raise ValueError(f"second_moment must exceed mean^2, got {second_moment!r} and mean {mean!r}")
    return noise * v / (noise + v)


def eigenvalue_truncation(Y, rank: int) -> np.ndarray:
    """Keep the ``rank`` largest eigenvalues of the symmetric ``Y`` (and their eigenvectors), drop the rest.

    A natural baseline for a PSD signal of known rank (Wishart: ``rank = m``). Its error has no simple
    closed form at extensive rank: measure it with :func:`symmetric_error`.
    """
    Y = _check_symmetric(Y)
    rank = check_int("rank", rank, minimum=0)
    lam, O = np.linalg.eigh(Y)
    keep = np.zeros_like(lam)
    if rank > 0:
        keep[-rank:] = lam[-rank:]
    return (O * keep) @ O.T


def truncated_svd(Y, rank: int) -> np.ndarray:
    """Best rank-``rank`` approximation of ``Y`` (keep the top singular values; Eckart-Young).

    Baseline for the rectangular problem (``rank = r``); measure its error with :func:`rectangular_error`.
    """
    Y = _check_rectangular(Y)  # finite first: LAPACK's SVD may never return on an inf
    rank = check_int("rank", rank, minimum=0)
    U, sv, Vt = np.linalg.svd(Y, full_matrices=False)
    sv = sv.copy()
    sv[rank:] = 0.0
    return (U * sv) @ Vt


def _gavish_donoho_scale(noise: float, R1: float) -> tuple[float, float]:
    """Noise level ``sigma`` and aspect ratio ``beta <= 1`` of Gavish and Donoho for our scaled problem."""
    R1 = check_in_range("R1", R1, 1.0 / MAX_ASPECT_RATIO, MAX_ASPECT_RATIO)
    R1 = max(R1, 1.0 / R1)
    return math.sqrt(noise) * R1**0.25, 1.0 / R1


def optimal_shrinkage_singular_values(singular_values, noise: float, R1: float) -> np.ndarray:
    """Frobenius-optimal singular-value shrinker of Gavish and Donoho (2017), with known noise level.

    For a ``d x L`` observation ``Y = S + sqrt(noise) Z/(dL)^{1/4}`` (the scaling of
    :func:`sample_rectangular_noise`) and ``S`` of **fixed** rank as ``d, L -> inf``, the singular-value
    shrinker that minimises the asymptotic ``||S_hat - S||_F^2`` among all estimators
    ``S_hat = sum_i eta(y_i) u_i v_i^T`` is (Gavish and Donoho, IEEE Trans. Inf. Theory 63:2137 (2017),
    arXiv:1405.7511, Frobenius loss, noise level known)

    ``eta(y) = (sigma^2/y) sqrt( (y^2/sigma^2 - beta - 1)^2 - 4 beta )`` for ``y >= sigma (1 + sqrt(beta))``,
    and ``eta(y) = 0`` below that edge of the noise bulk,

    with ``beta = min(d, L)/max(d, L)`` and ``sigma`` the noise level per entry times ``sqrt(max(d, L))``:
    here ``sigma = sqrt(noise) max(R1, 1/R1)^{1/4}``. It inverts the fixed-rank (BBP-type) relation between
    the singular value ``x`` of a spike and the outlier ``y(x) = sigma sqrt((1 + x'^2)(beta + x'^2))/x'``
    (``x' = x/sigma``), then multiplies by the cosines of the left and right singular vectors:
    ``eta = x c c~`` (see :func:`optimal_shrinkage_spike_error`). At extensive rank these formulas no longer
    describe the spectrum, and the RIE (:func:`rectangular_rie_singular_values`) does better.

    Parameters
    ----------
    singular_values : array_like
        Singular values ``y >= 0`` of the scaled ``Y``.
    noise : float
        Noise variance ``>= 0`` per entry on the unit scale (``noise = 0`` returns the input).
    R1 : float
        Aspect ratio ``L/d`` (``R1 < 1`` is read as ``1/R1``).
    """
    noise = check_nonnegative("noise", noise)
    y = _finite_array("singular_values", singular_values, vector=True)
    if np.any(y < 0):
        raise ValueError("singular_values must be finite and >= 0")
    sigma, beta = _gavish_donoho_scale(noise, R1)
    if noise == 0.0:
        return y.copy()
    with np.errstate(over="ignore"):
        t = y / sigma
    above = t >= 1.0 + math.sqrt(beta)
    huge = t > 1e50  # (t^2 - beta - 1)^2 would overflow: use the factored form y sqrt((1 - a^2/t^2)(1 - b^2/t^2))
    safe = np.where(above & ~huge, t, 2.0 + math.sqrt(beta))
    eta = np.sqrt(np.maximum((safe * safe - beta - 1.0) ** 2 - 4.0 * beta, 0.0)) / safe
    inv = np.where(huge, 1.0 / np.where(huge, t, 1.0), 0.0)
    far = y * np.sqrt((1.0 - ((1.0 + math.sqrt(beta)) * inv) ** 2) * (1.0 - ((1.0 - math.sqrt(beta)) * inv) ** 2))
    return np.where(huge, far, np.where(above, sigma * eta, 0.0))


def optimal_singular_value_shrinkage(Y, noise: float) -> np.ndarray:
    """Apply :func:`optimal_shrinkage_singular_values` (Gavish and Donoho 2017, arXiv:1405.7511) to the scaled
    ``d x L`` observation ``Y`` of noise variance ``noise``: ``Y = U diag(y) V^T -> U diag(eta(y)) V^T``.

    It needs the noise level but not the rank. Optimal among singular-value shrinkers for a signal of fixed
    rank; at extensive rank the RIE beats it. Measure its error with :func:`rectangular_error`.
    """
    Y = _check_rectangular(Y)
    noise = check_nonnegative("noise", noise)
    U, sv, Vt = np.linalg.svd(Y, full_matrices=False)
    return (U * optimal_shrinkage_singular_values(sv, noise, Y.shape[1] / Y.shape[0])) @ Vt


def optimal_shrinkage_spike_error(theta, noise: float, R1: float) -> np.ndarray:
    """Asymptotic ``||S_hat - S||_F^2`` that one spike of singular value ``theta`` contributes under
    :func:`optimal_singular_value_shrinkage` (signal of fixed rank, scaled matrices).

    With ``x = theta/sigma`` (``sigma``, ``beta`` as in :func:`optimal_shrinkage_singular_values`): above
    the detection threshold ``x > beta^{1/4}`` the cosines of the left (shorter side) and right singular
    vectors obey ``c^2 = (x^4 - beta)/(x^4 + beta x^2)``, ``c~^2 = (x^4 - beta)/(x^4 + x^2)`` (Benaych-Georges
    and Nadakuditi 2012; Gavish and Donoho 2017, arXiv:1405.7511), the shrinker outputs ``sigma x c c~`` and
    the error is ``sigma^2 x^2 (1 - c^2 c~^2)``, evaluated as
    ``sigma^2 [(1 + beta) + 3 beta u - beta^2 u^3]/((1 + beta u)(1 + u))`` with ``u = 1/x^2`` (no cancellation as
    ``x -> inf``, where it tends to ``sigma^2 (1 + beta)``); below it the spike is lost and the error is
    ``theta^2``.
    """
    noise = check_positive("noise", noise)
    theta = _finite_array("theta", theta, vector=True)
    if np.any(theta < 0):
        raise ValueError("theta must be finite and >= 0")
    sigma, beta = _gavish_donoho_scale(noise, R1)
    with np.errstate(over="ignore"):
        x = theta / sigma
        x2 = x * x
    detected = x2 > math.sqrt(beta)
    # sigma^2 x^2 (1 - c^2 c~^2) with u = 1/x^2, written without cancellation or overflow:
    # 1 - c^2 c~^2 = u [(1 + beta) + 3 beta u - beta^2 u^3]/((1 + beta u)(1 + u))
    u = 1.0 / np.where(detected, x2, 1.0)
    kept = sigma**2 * ((1.0 + beta) + 3.0 * beta * u - beta**2 * u**3) / ((1.0 + beta * u) * (1.0 + u))
    lost = np.where(detected, 0.0, theta)
    return np.where(detected, kept, lost * lost)


def _pair(estimate, signal, *, square: bool) -> np.ndarray:
    """``estimate - signal`` after checking two finite, non-empty 2-d arrays of the same shape (no
    broadcasting: a vector against a matrix is an error, not a number)."""
    est = _check_rectangular(estimate, "estimate")
    sig = _check_rectangular(signal, "signal")
    if est.shape != sig.shape:
        raise ValueError(f"estimate and signal must have the same shape, got {est.shape} and {sig.shape}")
    if square and est.shape[0] != est.shape[1]:
        raise ValueError(f"estimate and signal must be square (d x d), got shape {est.shape}")
    return est - sig


def _finite_error(value: float) -> float:
    if not math.isfinite(value):
        raise OverflowError("the squared error overflows (entries of estimate - signal above ~1e154)")
    return value


def symmetric_error(estimate, signal) -> float:
    """``(1/d)||S_hat - S||_F^2``, the per-entry error of the symmetric problem (two ``d x d`` arrays)."""
    diff = _pair(estimate, signal, square=True)
    return _finite_error(float(np.sum(diff * diff) / diff.shape[0]))


def rectangular_error(estimate, signal) -> float:
    """``||S_hat - S||_F^2/sqrt(dL)`` on the ``(dL)^{1/4}``-scaled matrices (``(1/(dL))||.||^2`` unscaled);
    two ``d x L`` arrays."""
    diff = _pair(estimate, signal, square=False)
    return _finite_error(float(np.sum(diff * diff) / math.sqrt(diff.shape[0] * diff.shape[1])))


@dataclass(frozen=True)
class DenoisingErrors:
    """Errors of the RIE and of the baselines on ONE draw of a denoising problem (per entry, in the
    normalisation of :func:`symmetric_error` or :func:`rectangular_error`). ``optimal_shrinkage`` (the
    Gavish-Donoho shrinker, :func:`optimal_singular_value_shrinkage`) is measured on the rectangular problem
    only (``nan`` for the symmetric one)."""

    rie: float
    identity: float
    scalar_shrinkage: float
    truncation: float
    optimal_shrinkage: float = math.nan


def _spectral_error(new, projections, signal_norm2, scale):
    """``||sum_i new_i a_i b_i^T - S||_F^2/scale`` for orthonormal systems ``(a_i)``, ``(b_i)``, from the
    projections ``a_i^T S b_i`` and ``||S||_F^2`` (no matrix is rebuilt)."""
    return float((new @ new - 2.0 * new @ projections + signal_norm2) / scale)


def symmetric_denoising_experiment(d: int, kappa: float, noise: float, rng) -> DenoisingErrors:
    """Draw ``S`` Wishart (paper normalisation, ``m = round(kappa d)``) and ``Y = S + sqrt(noise) Z``; return the
    errors of :func:`symmetric_rie`, of ``S_hat = Y``, of :func:`scalar_shrinkage` (centred at the mean
    ``sqrt(kappa)``) and of :func:`eigenvalue_truncation` at rank ``m``, all from one eigendecomposition.

    Every estimator keeps the eigenvectors ``u_i`` of ``Y`` and changes only the eigenvalues, so its error is
    ``(1/d) [ sum_i xi_i^2 - 2 sum_i xi_i u_i^T S u_i + ||S||_F^2 ]``: one product ``S O`` serves all four
    (no estimate is rebuilt). Same numbers as calling those functions one by one on the same draw; their
    asymptotic values are :func:`symmetric_rie_mmse`, :func:`identity_mse` and :func:`scalar_shrinkage_mse`
    (truncation has no closed form at extensive rank).
    """
    d = check_int("d", d)
    kappa = check_positive("kappa", kappa)
    noise = check_in_range("noise", noise, 0.0, NOISE_RANGE[1], low_open=True)
    rng = check_rng(rng)
    check_size("the d x d matrices of symmetric_denoising_experiment (d)", 4, d, d)
    S = sample_wishart(d, kappa, rng)
    Y = S + math.sqrt(noise) * sample_goe(d, rng)
    lam, O = np.linalg.eigh(Y)
    projections = np.einsum("ij,ij->j", O, S @ O)  # u_i^T S u_i
    norm2 = float(np.sum(S * S))
    m = round(kappa * d)
    mean = math.sqrt(kappa)

    def error(new):
        return _spectral_error(new, projections, norm2, d)

    return DenoisingErrors(
        rie=error(symmetric_rie_eigenvalues(lam, noise, kappa)),
        identity=error(lam),
        scalar_shrinkage=error(mean + (lam - mean) / (1.0 + noise)),
        truncation=error(np.where(np.arange(d) >= d - m, lam, 0.0)),
    )


def rectangular_denoising_experiment(d: int, L: int, r: int, noise: float, rng) -> DenoisingErrors:
    """Draw the scaled ``S = U V^T/(sqrt(r) (dL)^{1/4})`` (``d x L``, ``d <= L``) and
    ``Y = S + sqrt(noise) Z/(dL)^{1/4}``; return the errors of :func:`rectangular_rie`, of ``S_hat = Y``, of
    :func:`scalar_shrinkage` (second moment 1), of :func:`truncated_svd` at rank ``r`` and of
    :func:`optimal_singular_value_shrinkage` (Gavish-Donoho), all from one SVD.

    All five keep the singular vectors ``(u_i, v_i)`` of ``Y``, so each error is
    ``[ sum_i y_i'^2 - 2 sum_i y_i' u_i^T S v_i + ||S||_F^2 ]/sqrt(dL)``: one product ``S V`` serves all.
    Asymptotic values: :func:`rectangular_rie_mmse` ``(noise, L/d, r/d)``, :func:`identity_mse`,
    :func:`scalar_shrinkage_mse` ``(noise, 1)``.
    """
    d, L, r = check_int("d", d), check_int("L", L), check_int("r", r)
    if d > L:
        raise ValueError(f"d must be <= L (transpose the problem), got d={d}, L={L}")
    noise = check_in_range("noise", noise, 0.0, NOISE_RANGE[1], low_open=True)
    rng = check_rng(rng)
    check_size("the d x L matrices of rectangular_denoising_experiment (d, L)", 4, d, L)
    S = sample_rectangular_signal(d, L, r, rng)
    Y = S + math.sqrt(noise) * sample_rectangular_noise(d, L, rng)
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


# --------------------------------------------------------------------------- samplers


def sample_goe(d: int, rng, variance: float = 1.0) -> np.ndarray:
    """GOE matrix of variance ``v``: symmetric, off-diagonal entries N(0, v/d), diagonal N(0, 2v/d).

    Its spectrum tends to the semicircle of variance ``v`` (``science/random_matrices.md``, Sec. 1).
    """
    d = check_int("d", d)
    v = check_positive("variance", variance)
    rng = check_rng(rng)
    check_size("the GOE matrix (d, d)", 2, d, d)
    A = rng.standard_normal((d, d))
    return math.sqrt(v / (2.0 * d)) * (A + A.T)


def sample_wishart(d: int, kappa: float, rng, normalisation: str = "paper") -> np.ndarray:
    """Wishart matrix ``W^T W/sqrt(m d)`` (paper) or ``W^T W/m`` (mean-one), ``W`` in ``R^{m x d}`` i.i.d.
    N(0, 1) with ``m = round(kappa d) >= 1`` (``science/quadratic.md``, Sec. 1)."""
    d = check_int("d", d)
    kappa = check_positive("kappa", kappa)
    normalisation = check_choice("normalisation", normalisation, NORMALISATIONS)
    rng = check_rng(rng)
    m = round(kappa * d)
    if m < 1:
        raise ValueError(f"kappa * d must round to at least 1 (m = kappa d), got kappa={kappa!r}, d={d}")
    check_size("the Wishart factor W and the matrix (m = kappa d, d)", m + d, d)
    W = rng.standard_normal((m, d))
    return W.T @ W / (math.sqrt(m * d) if normalisation == "paper" else m)


def sample_rectangular_signal(d: int, L: int, r: int, rng) -> np.ndarray:
    """``S = U V^T/(sqrt(r) (dL)^{1/4})`` with ``U`` in ``R^{d x r}``, ``V`` in ``R^{L x r}`` i.i.d. N(0, 1).

    The ``(dL)^{1/4}`` scaling of ``science/random_matrices.md``, Sec. 4 (singular values O(1));
    multiply by ``(dL)^{1/4}`` for unit-variance entries (``science/bsr.md``).
    """
    d, L, r = check_int("d", d), check_int("L", L), check_int("r", r)
    rng = check_rng(rng)
    check_size("the factors U, V and the signal (d, L, r)", d * r + L * r + d * L)
    U = rng.standard_normal((d, r))
    V = rng.standard_normal((L, r))
    return U @ V.T / (math.sqrt(r) * (d * L) ** 0.25)


def sample_rectangular_noise(d: int, L: int, rng) -> np.ndarray:
    """``Z/(dL)^{1/4}``, ``Z`` i.i.d. N(0, 1) (``d x L``): the scaled noise of the rectangular problem,
    so that ``Y = S + sqrt(noise) * sample_rectangular_noise(d, L, rng)``."""
    d, L = check_int("d", d), check_int("L", L)
    rng = check_rng(rng)
    check_size("the noise (d, L)", d, L)
    return rng.standard_normal((d, L)) / (d * L) ** 0.25
