"""Spectral laws of random matrices and free additive convolution with a semicircle.

The matrix denoisers of the course (:mod:`solvable.rie`) need the eigenvalue (or singular-value) law of a
noisy matrix ``Y = S + noise``: its density, the real part of its Stieltjes transform on the real axis, and a
quadrature rule over its support. This module provides them (Chapter 2, Secs. "Three spectral laws" and
"Rectangular matrices: singular values"):

- :class:`Semicircle` (GOE of variance ``varsigma``) and :class:`MarchenkoPastur` (Wishart ``W^T W``), closed forms;
- :class:`WishartPlusNoise`: Wishart + GOE of variance ``noise``, through the cubic of the subordination relation;
- :class:`RectangularPlusNoise`: singular values of a rank-``r`` product ``U V^T`` plus i.i.d. Gaussian noise,
  through the quartic of Troiani et al. (arXiv:2203.07752);
- :func:`free_convolution_semicircle`: the same relation solved numerically for any signal law.

Conventions
-----------
Stieltjes transform ``G(z) = int nu(x)/(z - x) dx`` (``G ~ 1/z`` at infinity), so that
``nu(x) = -Im G(x + i0)/pi``. A REAL argument ``x`` of a ``stieltjes`` method is read as ``x - i0``: the
returned boundary value is ``Re G(x) + i pi nu(x)``. ``Re G(x)`` (``stieltjes_real``) is ``pi`` times the
Hilbert transform of ``rho``; outside the support it is the ordinary integral ``int rho(t)/(x - t) dt``.

Normalisations of the Wishart matrix (``kappa = m/d``, ``W`` in ``R^{m x d}`` with i.i.d. N(0, 1) entries):
``"paper"`` (the default everywhere in the course) is ``S* = W^T W/sqrt(m d)`` (mean ``sqrt(kappa)``,
spectral variance 1, second moment ``1 + kappa``), used by the quadratic-network and attention chapters;
``"mean_one"`` is ``S_W = W^T W/m`` (mean 1, variance ``1/kappa``). ``S* = sqrt(kappa) S_W``; a noise variance
``noise`` in the paper normalisation is ``noise/kappa`` in the mean-one normalisation.

The noise variance is called ``noise`` everywhere (as in :mod:`solvable.rie`) and comes first, as in the MMSE
functions of :mod:`solvable.rie`; the signal's parameters are keyword-only, so that no call can swap two ratios
(``wishart_plus_goe(noise, kappa=...)``, ``rectangular_plus_noise(noise, beta=..., rho=...)``; the classes
``WishartPlusNoise(noise=..., kappa=...)`` and ``RectangularPlusNoise(noise=..., beta=..., rho=...)`` take every
field by name).

Numerics: roots of the cubic in closed form (vectorised, no Python loop over points), roots of the quartic by
batched companion-matrix eigenvalues; support edges from the discriminant (a quartic in ``x``, resp. a
quintic in ``x^2``); integrals over the support by Gauss-Legendre after ``x = mid - half cos(theta)`` on each
bulk, which removes the square-root edge behaviour (64 nodes per piece give about 1e-13).
"""

from __future__ import annotations

import math
from functools import cached_property, lru_cache
from itertools import pairwise

import numpy as np

from .domains import Domain, choice, declare, explained, function, integer, real, unchecked
from .errors import ConvergenceWarning, InvalidParameterError
from .errors import warn as warn_user
from .integration import legendre_rule
from .results import record
from . import validation
from .validation import check_int

__all__ = [
    "DEFAULT_NODES",
    "MAX_ABS_ARGUMENT",
    "MAX_ASPECT_RATIO",
    "MAX_NODES",
    "NOISE_RANGE",
    "NORMALISATIONS",
    "RATIO_RANGE",
    "MarchenkoPastur",
    "RectangularPlusNoise",
    "Semicircle",
    "WishartPlusNoise",
    "bulk_quadrature",
    "free_convolution_semicircle",
    "kolmogorov_distance",
    "marchenko_pastur_density",
    "marchenko_pastur_stieltjes",
    "rectangular_plus_noise",
    "semicircle_density",
    "semicircle_stieltjes",
    "semicircle_stieltjes_iterates",
    "wishart_plus_goe",
]

#: The two normalisations of the Wishart matrix (see the module docstring).
NORMALISATIONS = ("paper", "mean_one")
#: Gauss-Legendre nodes per piece of the support (64 are within about 1e-13 of a 400-node rule).
DEFAULT_NODES = 64
#: Number of nodes of the coarse rule used to estimate ``Re G`` outside the support (root selection only).
_HILBERT_NODES = 48
#: Largest number of Gauss-Legendre nodes per piece (400 are already exact to rounding; a 2,000-node rule is
#: built in about a second, its cost grows like the cube of the number).
MAX_NODES = 2_000
#: Accepted range of the ratios ``kappa = m/d`` (Marchenko-Pastur, Wishart + noise) and ``rho = r/d``
#: (rectangular + noise). Beyond it the polynomial coefficients span too many orders of magnitude for
#: double precision; a ratio outside raises ``ValueError``.
RATIO_RANGE = (1e-4, 1e6)
#: Largest aspect ratio ``beta = L/d`` of :class:`RectangularPlusNoise` (at ``beta >= 1e5`` and large noise
#: the quartic is no longer resolved: :func:`solvable.rie.rectangular_rie_mmse` detects it).
MAX_ASPECT_RATIO = 1e8
#: Accepted range of the noise variance of :class:`WishartPlusNoise` and :class:`RectangularPlusNoise`
#: (below it use the noiseless law, above it the semicircle of variance ``noise`` dominates).
NOISE_RANGE = (1e-12, 1e12)
#: Largest ``|x|`` (or ``|z|``) at which a density or a Stieltjes transform is evaluated (``G ~ 1/x`` far
#: out; beyond it the polynomial coefficients overflow). NaN and infinite arguments raise ``ValueError``.
MAX_ABS_ARGUMENT = 1e50


# --------------------------------------------------------------------------- helpers


def _points(x, name: str = "x"):
    """``x`` as a float array, plus a function that returns a scalar for scalar input.

    Raises ``TypeError`` for complex or non-numeric input and ``ValueError`` for NaN, infinite or
    ``|x| > MAX_ABS_ARGUMENT``.
    """
    try:
        if isinstance(x, (str, bytes, bytearray, memoryview, bool, np.bool_)):  # not numbers (b"1" -> 49.0)
            raise TypeError
        raw = np.asarray(x)
        if raw.dtype.kind not in "iuf":  # complex, bool, object (anything), dates and times, strings
            raise TypeError
        arr = raw.astype(float, copy=False)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} must be real numbers, got {type(x).__name__} {str(x)[:60]}"
        ) from None
    # fast test (one BLAS call; NaN fails it): sum x^2 <= MAX^2 implies every |x| <= MAX; the exact test decides
    # only when it fails
    if not np.vdot(arr, arr) <= MAX_ABS_ARGUMENT**2 and not np.all(np.abs(arr) <= MAX_ABS_ARGUMENT):
        raise InvalidParameterError(
            f"{name} must be finite real numbers with |{name}| <= {MAX_ABS_ARGUMENT:g} (no NaN)"
        )
    return arr, (lambda out: out[()] if arr.ndim == 0 else out)


def _complex_points(z, name: str = "z") -> np.ndarray:
    """``z`` as a complex array: finite, ``|z| <= MAX_ABS_ARGUMENT`` (``TypeError``/``ValueError`` otherwise)."""
    try:
        if isinstance(z, (str, bytes, bytearray, memoryview, bool, np.bool_)):  # not numbers (b"1" -> 49)
            raise TypeError
        if np.asarray(z).dtype.kind not in "iufc":  # bool, object (anything), dates and times, strings
            raise TypeError
        arr = np.asarray(z, dtype=complex)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} must be complex numbers, got {type(z).__name__} {str(z)[:60]}"
        ) from None
    if not np.all(np.abs(arr) <= MAX_ABS_ARGUMENT):
        raise InvalidParameterError(
            f"{name} must be finite complex numbers with |{name}| <= {MAX_ABS_ARGUMENT:g} (no NaN)"
        )
    return arr


def _check_nodes(name: str, n, minimum: int = 1, maximum: int = MAX_NODES) -> int:
    """``n`` as an int in ``[minimum, maximum]`` (``ValueError`` naming ``name`` otherwise)."""
    if type(n) is int and minimum <= n <= maximum:  # the common case
        return n
    n = check_int(name, n, minimum=minimum)
    if n > maximum:
        raise InvalidParameterError(f"{name} must be an integer in [{minimum}, {maximum}], got {n!r}")
    return n


def _check_real_points(name, value):
    """Real points (:func:`_points`), passed on unconverted: a number stays a number in the laws' methods."""
    _points(value, name)
    return value


def _check_complex_points(name, value):
    """Complex points (:func:`_complex_points`), passed on unconverted."""
    _complex_points(value, name)
    return value


def _check_samples(name, value) -> np.ndarray:
    x, _ = _points(value, name)
    if x.ndim != 1 or x.size == 0:
        raise InvalidParameterError(
            f"{name} must be a non-empty 1-d array of finite numbers, got shape {x.shape}"
        )
    return x


#: The domains of the spectral toolbox, declared once: real and complex points, samples, the ratios and noises
#: where the laws are resolved, quadrature nodes and intervals.
REAL_POINTS = Domain(
    f"a real number or array of finite real numbers with |x| <= {MAX_ABS_ARGUMENT:g}",
    _check_real_points,
    "array",
    (None,),
)
COMPLEX_POINTS = Domain(
    f"a complex number or array (real z read as x - i0) with |z| <= {MAX_ABS_ARGUMENT:g}",
    _check_complex_points,
    "any",
)
SAMPLES = Domain("a non-empty 1-d array of finite real numbers", _check_samples, "array", (1,))
RATIO = real(*RATIO_RANGE)
ASPECT_RATIO = explained(real(1.0, MAX_ASPECT_RATIO), "beta = L/d; transpose Y when d > L")
NOISE = real(*NOISE_RANGE)
VARIANCE = real(0.0, low_open=True)
NORMALISATION = choice(*NORMALISATIONS)
INTERVALS = unchecked(
    "a sequence of pairs (lo, hi) of finite numbers, lo < hi, sorted and disjoint: checked as "
    "the quadrature is built (the message names the parameter)"
)


@lru_cache(maxsize=32)
def _theta_rule(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(cos theta_j, w_j sin theta_j)`` for Gauss-Legendre in ``theta`` on ``(0, pi)`` (read-only)."""
    t, w = legendre_rule(n, math.pi / 2)
    theta = t + math.pi / 2
    c, ws = np.cos(theta), w * np.sin(theta)
    c.setflags(write=False)
    ws.setflags(write=False)
    return c, ws


@declare(intervals=INTERVALS, n=integer(1, MAX_NODES), name=unchecked("the name the messages give intervals"))
def bulk_quadrature(
    intervals, n: int = DEFAULT_NODES, *, name: str = "intervals"
) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``x`` and weights ``w`` with ``sum(w f(x)) ~ int f`` over a union of intervals.

    On each interval ``[a, b]``: ``x = (a+b)/2 - (b-a)/2 cos(theta)`` and ``n``-point Gauss-Legendre in
    ``theta`` on ``(0, pi)``. A density with square-root (or inverse-square-root) edges becomes a smooth
    function of ``theta``, so the rule converges spectrally.

    Parameters
    ----------
    intervals : sequence of (float, float)
        A non-empty sequence of finite pairs ``(lo, hi)`` with ``lo <= hi``.
    n : int, optional
        Gauss-Legendre nodes per interval, in ``[1, MAX_NODES]``.
    name : str, optional
        The name of ``intervals`` in the error messages.

    Returns
    -------
    x, w : numpy.ndarray
        Nodes and weights, ``n`` per interval.

    Raises
    ------
    TypeError
        If ``intervals`` is not a sequence of pairs of numbers.
    ValueError
        For an empty sequence, a non-finite or reversed pair, or ``n`` out of range.

    Notes
    -----
    ``int_a^b f(x) dx = int_0^pi f(mid - half cos theta) half sin theta dtheta``, with ``mid = (a + b)/2``,
    ``half = (b - a)/2``.

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws".
    """
    c, ws = _theta_rule(n)
    xs, wts = [], []
    try:
        pairs = list(intervals)
    except TypeError:
        raise InvalidParameterError(
            f"{name} must be a sequence of pairs (lo, hi) of numbers, got {intervals!r}"
        ) from None
    for pair in pairs:
        try:
            lo, hi = pair
            lo, hi = float(lo), float(hi)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"{name} must be a sequence of pairs (lo, hi) of numbers, got {intervals!r}"
            ) from None
        if not (lo <= hi and math.isfinite(lo) and math.isfinite(hi)):
            raise InvalidParameterError(
                f"{name} must be finite pairs (lo, hi) with lo <= hi, got {intervals!r}"
            )
        mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
        xs.append(mid - half * c)
        wts.append(half * ws)
    if not xs:
        raise InvalidParameterError(f"{name} must hold at least one pair (lo, hi), got {intervals!r}")
    return np.concatenate(xs), np.concatenate(wts)


#: How far from 1 the integral of the density over its support may be in :func:`kolmogorov_distance` (its
#: trapezoidal CDF on 2001 points is exact to about 1e-7 for a density with square-root edges).
KOLMOGOROV_MASS_TOL = 1e-3


@declare(samples=SAMPLES, density=function(), support=INTERVALS, n=integer(3, 10**6))
def kolmogorov_distance(samples, density, support, n: int = 2001) -> float:
    """Kolmogorov distance ``sup_x |F_emp(x) - F(x)|`` between samples and a law given by its density.

    Used by the chapters to check a histogram of eigenvalues (or singular values) against its limiting law
    with one number: by eigenvalue rigidity it is ``O(log d/d)`` for a matrix of size ``d``, against
    ``O(1/sqrt(n))`` for ``n`` independent samples. ``F(x) = int_{-inf}^x density`` is integrated on each
    interval ``[a, b]`` of ``support`` (sorted, disjoint) with ``x = (a+b)/2 - (b-a)/2 cos(theta)`` and the
    trapezoid rule on ``n`` points in ``theta``, which keeps square-root edges accurate (error ``O(n^-2)``).
    ``density`` should integrate to 1: for a law with an atom, pass the samples of the continuous part and
    the density divided by its mass.

    Parameters
    ----------
    samples : array_like (N,)
        Finite samples (eigenvalues or singular values).
    density : callable
        Vectorised ``x -> rho(x) >= 0``, integrating to 1 over ``support``.
    support : sequence of (float, float)
        Sorted, disjoint, finite intervals ``(lo, hi)`` with ``lo < hi``.
    n : int, optional
        Points of the trapezoid rule per interval, in ``[3, 10^6]`` (10^6 run in about half a second).

    Returns
    -------
    float
        The distance, in ``[0, 1]``.

    Raises
    ------
    TypeError
        If ``density`` is not callable or ``support`` not a sequence of pairs.
    ValueError
        For malformed samples, support or density values, or a density whose integral over ``support`` is not 1
        within ``KOLMOGOROV_MASS_TOL`` (1e-3).

    Notes
    -----
    The supremum is attained at the sorted samples: ``max_i max(i/N - F(x_(i)), F(x_(i)) - (i-1)/N)``.

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws".

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising, spectra
    >>> eigenvalues = np.linalg.eigvalsh(denoising.sample_goe(200, rng=0))
    >>> law, wrong = spectra.Semicircle(1.0), spectra.Semicircle(2.0)
    >>> print(round(spectra.kolmogorov_distance(eigenvalues, law.density, law.bulks), 2))
    0.01
    >>> print(round(spectra.kolmogorov_distance(eigenvalues, wrong.density, wrong.bulks), 2))
    0.12
    """
    x = np.sort(samples)
    try:
        support = [(float(lo), float(hi)) for lo, hi in support]
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"support must be a sequence of pairs (lo, hi) of numbers, got {support!r}"
        ) from None
    if (
        not support
        or any(not (hi > lo and math.isfinite(lo) and math.isfinite(hi)) for lo, hi in support)
        or any(b[0] < a[1] for a, b in pairwise(support))
    ):
        raise InvalidParameterError(
            f"support must be sorted, disjoint, finite intervals (lo, hi) with lo < hi, got {support!r}"
        )
    # peak: theta, t, rho, f, the steps and the cumulated grid and CDF (kept for every interval): about 8 n numbers
    # per interval
    validation.check_size(
        f"the n = {n}-point grids of the {len(support)} support intervals", 8 * len(support), n
    )
    theta = np.linspace(0.0, math.pi, n)
    grid, cdf, total = [], [], 0.0
    for lo, hi in support:
        mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
        t = mid - half * np.cos(theta)
        rho = np.asarray(density(t), dtype=float)
        if rho.shape != t.shape or not np.all(np.isfinite(rho)) or np.any(rho < 0):
            raise ValueError("density must return finite values >= 0 of the shape of its argument")
        f = rho * half * np.sin(theta)
        steps = 0.5 * (f[1:] + f[:-1]) * np.diff(theta)
        grid.append(t)
        cdf.append(total + np.concatenate([[0.0], np.cumsum(steps)]))
        total = cdf[-1][-1]
    if not abs(total - 1.0) <= KOLMOGOROV_MASS_TOL:
        raise InvalidParameterError(
            f"density must integrate to 1 over support, got {total:.6g} on n = {n} points per interval: a support "
            f"that misses part of the density (or lists an interval twice), a density that is not normalised, or too "
            f"few points n (tolerance {KOLMOGOROV_MASS_TOL:g}; the distance would not be one between laws)"
        )
    F = np.interp(x, np.concatenate(grid), np.concatenate(cdf), left=0.0, right=total)
    i = np.arange(1, x.size + 1)
    return float(max(np.max(i / x.size - F), np.max(F - (i - 1) / x.size)))


def _wishart_scale(kappa: float, normalisation: str) -> float:
    """``a`` in the Wishart equation ``z G^2 - (1 - kappa + a z) G + a = 0`` (``S = (kappa/a) S_W``)."""
    return math.sqrt(kappa) if normalisation == "paper" else kappa


def _sqrt_product(z, lo, hi):
    """``sqrt(z - hi) sqrt(z - lo)``, principal branches: analytic off ``[lo, hi]``, ``~ z`` at infinity."""
    return np.sqrt(z - hi) * np.sqrt(z - lo)


def _real_sqrt_product(x, lo, hi):
    """Boundary value at ``x - i0`` of :func:`_sqrt_product` for real ``x`` (``lo < hi``).

    Inside ``(lo, hi)`` it is ``-i sqrt((hi - x)(x - lo))``; outside, ``sign(x - hi) sqrt((x - hi)(x - lo))``.
    """
    prod = (x - hi) * (x - lo)
    inside = prod < 0
    r = np.sqrt(np.abs(prod))
    return np.where(inside, -1j * r, np.where(x > hi, r, -r) + 0j)


def _cubic_roots(a, b, c, d):
    """All roots of ``a t^3 + b t^2 + c t + d`` for real coefficient arrays (``a != 0``), shape ``(..., 3)``.

    Closed form: Cardano with the cancellation-free choice of the cube root when there is one real root
    (column 0 real, columns 1 and 2 the conjugate pair, column 1 with ``Im >= 0``); the trigonometric form
    when all three are real. Also returns the mask of points with a complex pair.
    """
    B, C, D = b / a, c / a, d / a
    p = C - B * B / 3.0
    q = 2.0 * B**3 / 27.0 - B * C / 3.0 + D
    delta = (0.5 * q) ** 2 + (p / 3.0) ** 3
    pair = delta > 0
    sq = np.sqrt(np.where(pair, delta, 0.0))
    u = np.cbrt(-0.5 * q - np.where(q >= 0, sq, -sq))
    safe_u = np.where(u != 0, u, 1.0)
    v = np.where(u != 0, -p / (3.0 * safe_u), 0.0)
    # three real roots: t_k = 2 sqrt(-p/3) cos(phi/3 - 2 pi k/3)
    pn = np.where(pair, -1.0, np.minimum(p, 0.0))
    r = np.sqrt(-pn / 3.0)
    safe_pn = np.where(pn != 0, pn, -1.0)
    arg = np.where(r > 0, 1.5 * q / safe_pn * np.sqrt(-3.0 / safe_pn), 0.0)
    phi = np.arccos(np.clip(arg, -1.0, 1.0)) / 3.0
    shift = B / 3.0
    out = np.empty(np.shape(B) + (3,), dtype=complex)
    re = -0.5 * (u + v)
    im = (math.sqrt(3.0) / 2.0) * np.abs(u - v)
    out[..., 0] = np.where(pair, u + v, 2.0 * r * np.cos(phi)) - shift
    out[..., 1] = np.where(pair, re + 1j * im, 2.0 * r * np.cos(phi - 2.0 * math.pi / 3.0)) - shift
    out[..., 2] = np.where(pair, re - 1j * im, 2.0 * r * np.cos(phi + 2.0 * math.pi / 3.0)) - shift
    return out, pair


def _polish(coefs, roots, steps=2):
    """Guarded Newton steps on ``sum_k coefs[k] t^k`` (``coefs`` broadcast against ``roots``).

    A step is accepted only where it decreases ``|f|`` (near an edge an unguarded step can jump to
    another root).
    """

    def f_and_df(t):
        f = np.zeros_like(t)
        df = np.zeros_like(t)
        for ck in coefs[::-1]:
            df = df * t + f
            f = f * t + ck
        return f, df

    f, df = f_and_df(roots)
    for _ in range(steps):
        with np.errstate(divide="ignore", invalid="ignore"):
            new = roots - f / df
        fn, dfn = f_and_df(new)
        ok = np.isfinite(new) & (np.abs(fn) < np.abs(f))
        roots = np.where(ok, new, roots)
        f, df = np.where(ok, fn, f), np.where(ok, dfn, df)
    return roots


def _select_outside(candidates, slope, estimate):
    """Pick, for each point, the real candidate root closest to ``estimate`` among those with ``slope < 0``.

    Outside the support ``G'(x) = -int rho/(x - t)^2 < 0``: near an edge this discards the non-physical
    member of the pair of roots that meet there. ``estimate`` is ``Re G`` from a quadrature of the density.
    """
    dist = np.abs(candidates - estimate[..., None])
    dist = np.where(np.isfinite(dist), dist, np.inf)
    penalised = np.where(slope < 0, dist, dist + 1e300)
    idx = np.argmin(penalised, axis=-1)
    return np.take_along_axis(candidates, idx[..., None], axis=-1)[..., 0]


def _merge_intervals(edges, inside):
    """Maximal unions of consecutive intervals ``[edges[i], edges[i+1]]`` with ``inside[i]``."""
    bulks = []
    for i in np.flatnonzero(inside):
        lo, hi = float(edges[i]), float(edges[i + 1])
        if bulks and bulks[-1][1] == lo:
            bulks[-1] = (bulks[-1][0], hi)
        else:
            bulks.append((lo, hi))
    return tuple(bulks)


def _split(bulks, cuts):
    """Split each bulk at the points of ``cuts`` that lie strictly inside it."""
    pieces = []
    for lo, hi in bulks:
        inner = sorted(float(c) for c in cuts if lo < c < hi)
        pts = [lo, *inner, hi]
        pieces.extend(pairwise(pts))
    return tuple(pieces)


def _in_bulks(x, bulks):
    inside = np.zeros(np.shape(x), dtype=bool)
    for lo, hi in bulks:
        inside |= (x > lo) & (x < hi)
    return inside


# --------------------------------------------------------------------------- semicircle


@declare(x=REAL_POINTS, variance=VARIANCE)
def semicircle_density(x, variance: float = 1.0):
    """Wigner semicircle of variance ``varsigma``: ``nu(x) = sqrt(4 varsigma - x^2)/(2 pi varsigma)``.

    It is supported on ``|x| <= 2 sqrt(varsigma)`` (0 outside).

    Parameters
    ----------
    x : float or array_like
        Real points.
    variance : float, optional
        Variance ``v > 0``.

    Returns
    -------
    float or numpy.ndarray
        The density at ``x``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    Law of a GOE matrix whose off-diagonal entries are N(0, varsigma/d) and diagonal entries N(0, 2 varsigma/d)
    (``eq-rmt-semicircle``).

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws".

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import spectra
    >>> print(np.round(spectra.semicircle_density(np.array([0.0, 1.0, 2.0, 3.0])), 4))
    [0.3183 0.2757 0.     0.    ]
    >>> print(f"{1 / np.pi:.4f}")
    0.3183
    """
    return Semicircle(variance).density(x)


@declare(z=COMPLEX_POINTS, variance=VARIANCE)
def semicircle_stieltjes(z, variance: float = 1.0):
    """Stieltjes transform ``G(z)`` of the semicircle of variance ``varsigma``.

    Parameters
    ----------
    z : complex or array_like
        Points; real ``z`` is read as ``x - i0``.
    variance : float, optional
        Variance ``v > 0``.

    Returns
    -------
    complex or numpy.ndarray
        ``G(z)``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    The root of ``v G^2 - z G + 1 = 0`` with ``G ~ 1/z`` (``eq-rmt-semicircle-stieltjes``).

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws".

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import spectra
    >>> G = spectra.semicircle_stieltjes(1.0)  # x - i0 inside the bulk: x/(2 v) + i pi nu(x)
    >>> print(round(G.real, 4), round(G.imag / np.pi, 4), round(spectra.semicircle_density(1.0), 4))
    0.5 0.2757 0.2757
    >>> print(round(spectra.semicircle_stieltjes(3.0).real, 4), round((3 - np.sqrt(5)) / 2, 4))
    0.382 0.382
    """
    return Semicircle(variance).stieltjes(z)


@declare(
    z=COMPLEX_POINTS,
    variance=VARIANCE,
    iterations=integer(0),
    start=unchecked("a complex number or array broadcast against z"),
)
def semicircle_stieltjes_iterates(z, variance: float = 1.0, iterations: int = 50, start=0.0) -> np.ndarray:
    """The fixed-point iteration ``G <- 1/(z - varsigma G)`` of the semicircle's self-consistent equation.

    Parameters
    ----------
    z : complex or array_like
        Points off the real axis (``Im z != 0``); on the real axis the iteration does not converge inside the
        support.
    variance : float, optional
        Variance ``v > 0``.
    iterations : int, optional
        Number ``T >= 0`` of iterations.
    start : complex or array_like, optional
        Start ``G^0`` (broadcast against ``z``; ``0`` gives ``G^1 = 1/z``).

    Returns
    -------
    numpy.ndarray, complex
        ``G^0, G^1, ..., G^T``, of shape ``(T + 1,) + z.shape``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    The Schur-complement (cavity) equation of a GOE matrix of variance ``varsigma``, ``G = 1/(z - varsigma G)``
    (``eq-rmt-semicircle-cavity``), iterated. For ``Im z > 0`` the map sends the lower half-plane into itself
    and contracts there, so the iterates converge to the root of :func:`semicircle_stieltjes` (the one with
    ``G ~ 1/z``), geometrically, the slower the closer ``z`` is to the support.

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws", exercise "Build it: the semicircle by its fixed point".

    Examples
    --------
    >>> from solvable import spectra
    >>> iterates = spectra.semicircle_stieltjes_iterates(0.5 + 0.5j, iterations=100)
    >>> print(iterates.shape)
    (101,)
    >>> print(abs(iterates[-1] - spectra.semicircle_stieltjes(0.5 + 0.5j)) < 1e-10)
    True
    """
    v = variance
    z = _complex_points(z)
    validation.check_size("the iterates (iterations + 1, *z.shape)", iterations + 1, *z.shape)
    G = np.broadcast_to(np.asarray(start, dtype=complex), z.shape).copy()
    out = [G]
    for _ in range(iterations):
        G = 1.0 / (z - v * G)
        out.append(G)
    return np.stack(out)


@declare(variance=VARIANCE)
@record
class Semicircle:
    """Semicircle law of variance ``variance`` (GOE normalised so that off-diagonal entries are N(0, varsigma/d)).

    Parameters
    ----------
    variance : float, optional
        Variance ``varsigma > 0``.

    Raises
    ------
    ValueError
        If ``variance`` is not a finite number > 0.

    Notes
    -----
    ``nu(x) = sqrt(4 varsigma - x^2)/(2 pi varsigma)``; ``G(z) = (z - sqrt(z^2 - 4 varsigma))/(2 varsigma)``;
    inside the bulk ``Re G(x) = x/(2 varsigma)``.

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws".

    Examples
    --------
    >>> from solvable import spectra
    >>> law = spectra.Semicircle(2.0)
    >>> print(round(law.edge, 4))  # 2 sqrt(2)
    2.8284
    >>> x, w = law.quadrature()
    >>> print(round(float(w @ law.density(x)), 4), round(float(w @ (x**2 * law.density(x))), 4))
    1.0 2.0
    """

    variance: float = 1.0

    @property
    def edge(self) -> float:
        """Right edge ``2 sqrt(varsigma)``."""
        return 2.0 * math.sqrt(self.variance)

    @property
    def bulks(self) -> tuple[tuple[float, float], ...]:
        """The support ``((-2 sqrt(varsigma), 2 sqrt(varsigma)),)``."""
        return ((-self.edge, self.edge),)

    @property
    def mean(self) -> float:
        """Mean 0."""
        return 0.0

    @property
    def second_moment(self) -> float:
        """Second moment ``varsigma``."""
        return self.variance

    def density(self, x):
        """The density ``sqrt(4 varsigma - x^2)/(2 pi varsigma)``.

        Parameters
        ----------
        x : float or array_like
            Real points.

        Returns
        -------
        float or numpy.ndarray
            The density at ``x``.
        """
        x, ret = _points(x)
        v = self.variance
        return ret(np.sqrt(np.maximum(4.0 * v - x * x, 0.0)) / (2.0 * math.pi * v))

    def stieltjes(self, z):
        """``G(z)``; real ``z`` is read as ``x - i0`` (boundary value ``Re G + i pi rho``).

        Parameters
        ----------
        z : complex or array_like
            Points; real ``z`` is read as ``x - i0``.

        Returns
        -------
        complex or numpy.ndarray
            ``G(z)``.
        """
        z = _complex_points(z)
        v, e = self.variance, self.edge
        on_axis = z.imag == 0
        q = np.where(on_axis, _real_sqrt_product(z.real, -e, e), _sqrt_product(z, -e, e))
        # stable form of the quadratic formula: never subtract nearly equal numbers
        add = (z.real * q.real + z.imag * q.imag) >= 0
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(add, 2.0 / (z + q), (z - q) / (2.0 * v))
        return g[()] if g.ndim == 0 else g

    def stieltjes_real(self, x):
        """``Re G(x)`` on the real axis: ``x/(2 varsigma)`` inside the bulk.

        Outside the bulk it is ``(x - sign(x) sqrt(x^2 - 4 varsigma))/(2 varsigma)``.

        Parameters
        ----------
        x : float or array_like
            Real points.

        Returns
        -------
        float or numpy.ndarray
            ``Re G(x)``.
        """
        x, ret = _points(x)
        return ret(np.real(self.stieltjes(x)))

    def quadrature(self, n: int = DEFAULT_NODES) -> tuple[np.ndarray, np.ndarray]:
        """Nodes and weights over the support (see :func:`bulk_quadrature`).

        Parameters
        ----------
        n : int, optional
            Gauss-Legendre nodes per piece, in ``[1, MAX_NODES]``.

        Returns
        -------
        x, w : numpy.ndarray
            Nodes and weights.
        """
        return bulk_quadrature(self.bulks, n)


# --------------------------------------------------------------------------- Marchenko-Pastur


@declare(x=REAL_POINTS, kappa=RATIO, normalisation=NORMALISATION)
def marchenko_pastur_density(x, kappa: float, normalisation: str = "paper"):
    """Continuous part of the Marchenko-Pastur law of ``W^T W`` (``W`` in ``R^{m x d}``, ``kappa = m/d``).

    Mean-one normalisation (``S_W = W^T W/m``, ``c = 1/kappa``):
    ``rho(x) = sqrt((c+ - x)(x - c-))/(2 pi c x)`` on ``[c-, c+]``, ``c+- = (1 +- sqrt(c))^2``; for
    ``kappa < 1`` it carries mass ``kappa`` and an atom of mass ``1 - kappa`` sits at 0 (see
    :attr:`MarchenkoPastur.atom`). The paper normalisation ``S* = sqrt(kappa) S_W`` rescales ``x``.

    Parameters
    ----------
    x : float or array_like
        Real points.
    kappa : float
        Ratio ``m/d`` in ``RATIO_RANGE``.
    normalisation : {"paper", "mean_one"}, optional
        ``W^T W/sqrt(m d)`` (default) or ``W^T W/m``.

    Returns
    -------
    float or numpy.ndarray
        The density of the continuous part at ``x``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    ``eq-rmt-marchenko-pastur``; V. A. Marchenko, L. A. Pastur, Math. USSR Sb. 1:457 (1967).

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws".

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.integrate import quad
    >>> from solvable import spectra
    >>> edges = (1 - 2 ** -0.5) ** 2, (1 + 2 ** -0.5) ** 2
    >>> print(np.round(edges, 4))
    [0.0858 2.9142]
    >>> mass = quad(lambda x: spectra.marchenko_pastur_density(x, 2.0, "mean_one"), *edges)[0]
    >>> print(f"{mass:.4f}")
    1.0000
    """
    return MarchenkoPastur(kappa, normalisation).density(x)


@declare(z=COMPLEX_POINTS, kappa=RATIO, normalisation=NORMALISATION)
def marchenko_pastur_stieltjes(z, kappa: float, normalisation: str = "paper"):
    """Stieltjes transform of the full Marchenko-Pastur law (atom included).

    Parameters
    ----------
    z : complex or array_like
        Points; real ``z`` is read as ``x - i0``.
    kappa : float
        Ratio ``m/d`` in ``RATIO_RANGE``.
    normalisation : {"paper", "mean_one"}, optional
        The normalisation of the Wishart matrix.

    Returns
    -------
    complex or numpy.ndarray
        ``G(z)``.

    Raises
    ------
    ValueError
        For a malformed argument (named), or ``z = 0`` with ``kappa < 1`` (the atom, a pole).

    Notes
    -----
    The root of ``z G^2 - (1 - kappa + a z) G + a = 0`` with ``G ~ 1/z``, ``a = sqrt(kappa)`` (paper) or
    ``kappa`` (mean-one).

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws".

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import spectra
    >>> G = spectra.marchenko_pastur_stieltjes(2.0, 2.0)  # x - i0: Re G + i pi rho(x)
    >>> print(round(G.imag / np.pi, 4), round(spectra.marchenko_pastur_density(2.0, 2.0), 4))
    0.2247 0.2247
    >>> print(round((1e6 * spectra.marchenko_pastur_stieltjes(1e6, 2.0)).real, 4))  # G ~ 1/z
    1.0
    """
    return MarchenkoPastur(kappa, normalisation).stieltjes(z)


@declare(kappa=RATIO, normalisation=NORMALISATION)
@record
class MarchenkoPastur:
    """Marchenko-Pastur law of ``W^T W`` in the paper (``/sqrt(m d)``) or mean-one (``/m``) normalisation.

    ``G`` solves ``z G^2 - (1 - kappa + a z) G + a = 0`` with ``a = sqrt(kappa)`` (paper) or ``kappa``
    (mean-one); edges ``(1 +- sqrt(kappa))^2/a``; atom ``max(0, 1 - kappa)`` at 0. :meth:`density` and
    :meth:`quadrature` cover the continuous part.

    Parameters
    ----------
    kappa : float
        Ratio ``m/d`` in ``RATIO_RANGE``.
    normalisation : {"paper", "mean_one"}, optional
        The normalisation.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    ``eq-rmt-marchenko-pastur``.

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws".

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import spectra
    >>> law = spectra.MarchenkoPastur(0.5)
    >>> print(np.round(law.bulks, 4))
    [[0.1213 4.1213]]
    >>> x, w = law.quadrature()
    >>> print(law.atom, round(float(w @ law.density(x)), 4))  # the atom at 0 and the continuous part
    0.5 0.5
    """

    kappa: float
    normalisation: str = "paper"

    @property
    def _a(self) -> float:
        return _wishart_scale(self.kappa, self.normalisation)

    @property
    def bulks(self) -> tuple[tuple[float, float], ...]:
        """Support of the continuous part, ``((1 - sqrt(kappa))^2/a, (1 + sqrt(kappa))^2/a)``."""
        rk = math.sqrt(self.kappa)
        return (((1.0 - rk) ** 2 / self._a, (1.0 + rk) ** 2 / self._a),)

    @property
    def atom(self) -> float:
        """Mass at 0: ``1 - kappa`` for ``kappa < 1``, else 0."""
        return max(0.0, 1.0 - self.kappa)

    @property
    def mean(self) -> float:
        """``sqrt(kappa)`` (paper) or 1 (mean-one)."""
        return self.kappa / self._a

    @property
    def second_moment(self) -> float:
        """``1 + kappa`` (paper) or ``1 + 1/kappa`` (mean-one)."""
        return self.mean**2 * (1.0 + 1.0 / self.kappa)

    def density(self, x):
        """Density of the continuous part.

        Parameters
        ----------
        x : float or array_like
            Real points.

        Returns
        -------
        float or numpy.ndarray
            The density at ``x``.
        """
        x, ret = _points(x)
        ((lo, hi),) = self.bulks
        a = self._a
        with np.errstate(divide="ignore", invalid="ignore"):
            rho = a * np.sqrt(np.maximum((hi - x) * (x - lo), 0.0)) / (2.0 * math.pi * np.abs(x))
        return ret(np.where((x > lo) & (x < hi), rho, 0.0))

    def stieltjes(self, z):
        """``G(z)`` of the full law; ``z = 0`` is a pole when ``kappa < 1`` (the atom at 0) and raises ``ValueError``.

        Parameters
        ----------
        z : complex or array_like
            Points; real ``z`` is read as ``x - i0``.

        Returns
        -------
        complex or numpy.ndarray
            ``G(z)``.
        """
        z = _complex_points(z)
        if self.kappa < 1.0 and np.any(z == 0):
            raise InvalidParameterError(
                "z = 0 is the atom of the Marchenko-Pastur law (kappa < 1), a pole of G"
            )
        ((lo, hi),) = self.bulks
        k, a = self.kappa, self._a
        on_axis = z.imag == 0
        q = a * np.where(on_axis, _real_sqrt_product(z.real, lo, hi), _sqrt_product(z, lo, hi))
        b = 1.0 - k + a * z
        add = (b.real * q.real + b.imag * q.imag) >= 0
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(add, 2.0 * a / (b + q), (b - q) / (2.0 * z))
        return g[()] if g.ndim == 0 else g

    def stieltjes_real(self, x):
        """``Re G(x)`` on the real axis (infinite at 0 when ``kappa < 1``, the atom).

        Parameters
        ----------
        x : float or array_like
            Real points.

        Returns
        -------
        float or numpy.ndarray
            ``Re G(x)``.
        """
        x, ret = _points(x)
        return ret(np.real(self.stieltjes(x)))

    def quadrature(self, n: int = DEFAULT_NODES) -> tuple[np.ndarray, np.ndarray]:
        """Nodes and weights over the continuous part (the weights integrate ``f``, not ``f rho``).

        For ``kappa`` near 1 the density rises like ``1/sqrt(x - lo)`` and then falls like ``1/x`` on the scale
        of a tiny left edge ``lo``: the bulk is then split at ``lo 10^k`` (geometric grading), as for
        :class:`WishartPlusNoise`, which keeps the mass within ~1e-13 with 64 nodes per piece.

        Parameters
        ----------
        n : int, optional
            Gauss-Legendre nodes per piece, in ``[1, MAX_NODES]``.

        Returns
        -------
        x, w : numpy.ndarray
            Nodes and weights.
        """
        ((lo, hi),) = self.bulks
        decades = math.ceil(math.log10(0.5 * hi / lo)) if 0 < lo < 1e-2 * hi else 0
        grading = lo * 10.0 ** np.arange(1, decades)
        return bulk_quadrature(_split(self.bulks, grading[grading < 0.5 * hi]), n)


# --------------------------------------------------------------------------- Wishart + GOE


class _BulkSupport:
    """Accessors shared by the laws whose support is computed once as ``_support = (bulks, pieces)``.

    ``bulks`` are the connected components ``((lo, hi), ...)`` of the support (for the rectangular law, on
    ``x >= 0``; a bulk may start at 0 when ``beta = 1``); ``pieces`` are the bulks split at necks (and graded
    towards a hard edge), the intervals used by :meth:`quadrature`.
    """

    @property
    def bulks(self) -> tuple[tuple[float, float], ...]:
        return self._support[0]

    @property
    def pieces(self) -> tuple[tuple[float, float], ...]:
        return self._support[1]

    @property
    def edges(self) -> np.ndarray:
        """All bulk edges, sorted."""
        return np.array([e for b in self.bulks for e in b])

    def quadrature(self, n: int = DEFAULT_NODES) -> tuple[np.ndarray, np.ndarray]:
        """Nodes and weights over the support: ``int f ~ sum(w f(x))`` (see :func:`bulk_quadrature`).

        Parameters
        ----------
        n : int, optional
            Gauss-Legendre nodes per piece, in ``[1, MAX_NODES]``.

        Returns
        -------
        x, w : numpy.ndarray
            Nodes and weights.
        """
        return bulk_quadrature(self.pieces, n)


@declare(noise=NOISE, kappa=RATIO, normalisation=NORMALISATION)
@record(kw_only=True)
class WishartPlusNoise(_BulkSupport):
    """Eigenvalue law of ``Y = S + sqrt(noise) Z``: ``S`` Wishart (``kappa = m/d``), ``Z`` GOE of variance 1.

    Free additive convolution of Marchenko-Pastur with a semicircle of variance ``noise``. Subordination
    ``G_Y(z) = G_S(z - noise G_Y(z))`` turns the Wishart quadratic into the cubic (``s = noise``)
    ``s G^3 - (z + a s) G^2 + (1 - kappa + a z) G - a = 0``, with ``a = sqrt(kappa)`` in the paper
    normalisation (``S* = W^T W/sqrt(m d)``) and ``a = kappa`` in the mean-one normalisation
    (``S_W = W^T W/m``) (P. Biane, Indiana Univ. Math. J. 46:705 (1997); ``eq-rmt-subordination``).

    Numerics: the cubic is solved for ``H = 1/G``, whose leading coefficient ``-a`` does not vanish as
    ``s -> 0`` (the cubic in ``G`` has leading coefficient ``s``, which makes its roots ill-conditioned).
    The support is ``{disc(x) < 0}``, ``disc`` the discriminant of the cubic (a quartic in ``x``); each bulk
    is split at the real part of any complex root of ``disc`` inside it (a neck), and graded geometrically
    near its left edge when that edge is a softened hard edge (``kappa`` near 1, small ``s``). Inside the
    support the physical root is the member of the complex pair (``x - i0``: ``Im G = pi rho > 0``);
    outside, it is the real root with ``G'(x) < 0`` closest to ``int rho(t)/(x - t) dt`` computed by
    quadrature.

    Parameters
    ----------
    noise : float
        Noise variance ``s = noise`` in ``NOISE_RANGE = [1e-12, 1e12]`` (for ``noise = 0`` use
        :class:`MarchenkoPastur`).
    kappa : float
        ``m/d`` in ``RATIO_RANGE = [1e-4, 1e6]``. For ``kappa < 1`` the atom ``1 - kappa`` at 0 of the Wishart
        law becomes a bulk.
    normalisation : {"paper", "mean_one"}, optional
        The normalisation of the Wishart signal.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws" (``eq-rmt-subordination``).
    """

    noise: float
    kappa: float
    normalisation: str = "paper"

    @property
    def _a(self) -> float:
        return _wishart_scale(self.kappa, self.normalisation)

    @property
    def mean(self) -> float:
        """Mean eigenvalue: ``sqrt(kappa)`` (paper) or 1 (mean-one)."""
        return self.kappa / self._a

    @property
    def second_moment(self) -> float:
        """``(1/d) Tr Y^2``: ``1 + kappa + noise`` (paper) or ``1 + 1/kappa + noise`` (mean-one)."""
        return self.mean**2 * (1.0 + 1.0 / self.kappa) + self.noise

    # -- support -------------------------------------------------------------------------------------

    @cached_property
    def _discriminant(self) -> np.ndarray:
        """Coefficients (ascending powers of ``x``) of the discriminant of the cubic, a quartic in ``x``."""
        k, s, a = self.kappa, self.noise, self._a  # s = noise in the cubic
        a2 = a * a
        return np.array(
            [
                -s * (4 * a2 * a2 * s * s - a2 * k * k * s + 20 * a2 * k * s + 8 * a2 * s + 4 * (1 - k) ** 3),
                -2 * a * s * (a2 * k * s - 4 * a2 * s + 5 * k * k - k - 4),
                a2 * a2 * s * s + 8 * a2 * k * s - 2 * a2 * s + (k - 1) ** 2,
                -2 * a * (a2 * s + k + 1),
                a2,
            ]
        )

    @cached_property
    def _support(self):
        c = self._discriminant
        r = np.roots(c[::-1]).astype(complex)
        r = _polish(list(c), r, steps=3)
        tol = 1e-9 * (1.0 + np.abs(r))
        real = np.sort(r[np.abs(r.imag) <= tol].real)
        necks = r[np.abs(r.imag) > tol].real
        mids = 0.5 * (real[:-1] + real[1:])
        inside = np.polynomial.polynomial.polyval(mids, c) < 0
        bulks = _merge_intervals(real, inside)
        if not bulks:  # pragma: no cover - the support is never empty
            raise ArithmeticError(f"no support found for {self}")
        # For kappa close to 1 and small noise, the smoothed hard edge of Marchenko-Pastur at 0 gives the first
        # bulk a steep rise on the scale |lo| << its width: grade the pieces geometrically there.
        lo, hi = bulks[0]
        width = hi - lo
        grading = lo + abs(lo) * 10.0 ** np.arange(0, 20) if abs(lo) < 1e-2 * width else np.empty(0)
        return bulks, _split(bulks, np.concatenate([necks, grading[grading < lo + 0.5 * width]]))

    # -- roots ---------------------------------------------------------------------------------------

    def roots(self, x) -> tuple[np.ndarray, np.ndarray]:
        """The three roots ``G`` of the cubic at real ``x``.

        Parameters
        ----------
        x : numpy.ndarray
            Real points.

        Returns
        -------
        G : numpy.ndarray
            Shape ``x.shape + (3,)``.
        pair : numpy.ndarray of bool
            The points where two roots form a complex pair (column 1 then has ``Im G > 0``).
        """
        x = np.asarray(x, dtype=float)
        k, s, a = self.kappa, self.noise, self._a  # s = noise in the cubic
        # cubic in H = 1/G:  -a H^3 + (1 - k + a x) H^2 - (x + a s) H + s = 0
        c0 = np.full_like(x, s)
        c1 = -(x + a * s)
        c2 = (1.0 - k) + a * x
        c3 = np.full_like(x, -a)
        h, pair = _cubic_roots(c3, c2, c1, c0)
        h = _polish([c0[..., None], c1[..., None], c2[..., None], c3[..., None]], h)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = 1.0 / h
        # column 1 of h has Im H >= 0, i.e. Im G <= 0: conjugate so that column 1 is G(x - i0)
        g[..., 1:] = np.conj(g[..., 1:])
        return g, pair

    @cached_property
    def _coarse(self):
        x, w = self.quadrature(_HILBERT_NODES)
        g, _ = self.roots(x)
        return x, w * np.abs(g[..., 1].imag) / math.pi

    def _hilbert_estimate(self, x):
        t, wr = self._coarse
        with np.errstate(divide="ignore", invalid="ignore"):
            return (wr[None, :] / (x.reshape(-1, 1) - t[None, :])).sum(axis=1).reshape(x.shape)

    def _boundary(self, x):
        """``G(x - i0) = Re G + i pi rho`` at real points ``x`` (flat array)."""
        g, pair = self.roots(x)
        inside = pair & _in_bulks(x, self.bulks)
        out = np.where(inside, g[..., 1], np.nan + 0j)
        outside = ~inside
        if np.any(outside):
            xo = x[outside]
            go = g[outside].real
            k, s, a = self.kappa, self.noise, self._a  # s = noise in the cubic
            dF = 3 * s * go**2 - 2 * (xo[:, None] + a * s) * go + (1 - k + a * xo[:, None])
            with np.errstate(divide="ignore", invalid="ignore"):
                slope = (go**2 - a * go) / dF
            out[outside] = _select_outside(go, slope, self._hilbert_estimate(xo))
        return out

    def density(self, x):
        """``rho_Y(x) = |Im G(x - i0)|/pi`` inside the support, exactly 0 outside.

        Parameters
        ----------
        x : float or array_like
            Real points.

        Returns
        -------
        float or numpy.ndarray
            The density at ``x``.
        """
        x, ret = _points(x)
        g, pair = self.roots(x)
        inside = pair & _in_bulks(x, self.bulks)
        return ret(np.where(inside, np.abs(g[..., 1].imag) / math.pi, 0.0))

    def stieltjes_real(self, x):
        """``Re G_Y(x)`` on the real axis, inside and outside the support (``~ 1/x`` far out).

        Parameters
        ----------
        x : float or array_like
            Real points.

        Returns
        -------
        float or numpy.ndarray
            ``Re G_Y(x)``.
        """
        x, ret = _points(x)
        flat = x.reshape(-1)
        return ret(self._boundary(flat).real.reshape(x.shape))

    def stieltjes(self, x):
        """Boundary value ``G_Y(x - i0) = Re G + i pi rho`` at real ``x``.

        Parameters
        ----------
        x : float or array_like
            Real points.

        Returns
        -------
        complex or numpy.ndarray
            ``G_Y(x - i0)``.
        """
        x, ret = _points(x)
        flat = x.reshape(-1)
        return ret(self._boundary(flat).reshape(x.shape))


@lru_cache(maxsize=256)
def _wishart_plus_goe(noise: float, kappa: float, normalisation: str) -> WishartPlusNoise:
    return WishartPlusNoise(noise=noise, kappa=kappa, normalisation=normalisation)


@declare(noise=NOISE, kappa=RATIO, normalisation=NORMALISATION)
def wishart_plus_goe(noise: float, *, kappa: float, normalisation: str = "paper") -> WishartPlusNoise:
    """The law of Wishart + GOE(``noise``) (:class:`WishartPlusNoise`), cached.

    Parameters
    ----------
    noise : float
        Noise variance in ``NOISE_RANGE``.
    kappa : float
        Ratio ``m/d`` in ``RATIO_RANGE`` (keyword-only, so that a call cannot swap it with ``noise``).
    normalisation : {"paper", "mean_one"}, optional
        The normalisation of the Wishart signal.

    Returns
    -------
    WishartPlusNoise
        The law; its support is computed once per ``(noise, kappa, normalisation)``, which the denoiser and its
        MMSE then share.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws".

    Examples
    --------
    >>> from solvable import spectra
    >>> law = spectra.wishart_plus_goe(0.5, kappa=2.0)
    >>> x, w = law.quadrature()
    >>> rho = law.density(x)
    >>> print(round(float(w @ rho), 4), round(float(w @ (x**2 * rho)), 4), round(law.second_moment, 4))
    1.0 3.5 3.5
    >>> print(len(spectra.wishart_plus_goe(0.01, kappa=0.5).bulks))  # the atom at 0 becomes a bulk
    2
    """
    return _wishart_plus_goe(noise, kappa, normalisation)


# --------------------------------------------------------------------------- rectangular


def _polymul(*factors):
    out = np.array([1.0])
    for f in factors:
        out = np.convolve(out, f)
    return out


def _quartic_discriminant(e, d, c, b, a):
    """Discriminant of ``a g^4 + b g^3 + c g^2 + d g + e`` whose coefficients are polynomials
    (ascending coefficient arrays) in one variable; returns the coefficient array of the discriminant."""
    terms = [
        (256, (a, a, a, e, e, e)),
        (-192, (a, a, b, d, e, e)),
        (-128, (a, a, c, c, e, e)),
        (144, (a, a, c, d, d, e)),
        (-27, (a, a, d, d, d, d)),
        (144, (a, b, b, c, e, e)),
        (-6, (a, b, b, d, d, e)),
        (-80, (a, b, c, c, d, e)),
        (18, (a, b, c, d, d, d)),
        (16, (a, c, c, c, c, e)),
        (-4, (a, c, c, c, d, d)),
        (-27, (b, b, b, b, e, e)),
        (18, (b, b, b, c, d, e)),
        (-4, (b, b, b, d, d, d)),
        (-4, (b, b, c, c, c, e)),
        (1, (b, b, c, c, d, d)),
    ]
    prods = [k * _polymul(*fs) for k, fs in terms]
    out = np.zeros(max(len(p) for p in prods))
    for p in prods:
        out[: len(p)] += p
    return out


@declare(noise=NOISE, beta=ASPECT_RATIO, rho=RATIO)
@record(kw_only=True)
class RectangularPlusNoise(_BulkSupport):
    """Singular-value law of ``Y = S + sqrt(noise) Z`` (``d x L``, ``d <= L``), all divided by ``(dL)^{1/4}``.

    ``S = U V^T/sqrt(r)`` with ``U`` in ``R^{d x r}``, ``V`` in ``R^{L x r}`` and ``Z`` i.i.d. N(0, 1);
    ``beta = L/d`` in ``[1, MAX_ASPECT_RATIO]``, ``rho = r/d`` in ``RATIO_RANGE`` (``rho >= 1`` is a full-rank
    signal), ``noise`` in ``NOISE_RANGE``. With
    ``phi = rho/beta``, ``psi = rho``, ``eta = (1 + noise) sqrt(beta)``, ``zeta = sqrt(beta)`` and ``w = x^2``, the
    transform ``G(x) = x g`` of the symmetrised singular-value density ``nu_sv`` solves the quartic
    ``a4 g^4 + a3 g^3 + a2 g^2 + a1 g + a0 = 0`` (``eq-rmt-rect-subordination``; Troiani, Erba, Krzakala,
    Maillard, Zdeborova, arXiv:2203.07752). ``nu_sv(x) = |Im G|/pi``, ``2 int_0^inf nu_sv = 1``, and
    ``2 nu_sv`` is the density of the ``d`` singular values on ``x > 0``; ``h(x) = Re G(x)``.

    Numerics: the quartic is solved for ``h = 1/g`` (leading coefficient ``-psi^3``; the leading coefficient
    of the quartic in ``g`` vanishes as ``noise -> 0``) by batched companion-matrix eigenvalues. Its
    discriminant is ``w^4`` times a quintic in ``w``: the positive real roots of the quintic are the squared
    edges, its complex roots mark necks. Each interval between consecutive edges is classified by the
    density at its midpoint. Outside the support ``h`` is the real root with ``G'(x) < 0`` closest to
    ``2 int nu_sv(t) x/(x^2 - t^2) dt`` computed by quadrature.

    Parameters
    ----------
    noise : float
        Noise variance in ``NOISE_RANGE``.
    beta : float
        Aspect ratio ``L/d`` in ``[1, MAX_ASPECT_RATIO]``.
    rho : float
        Rank ratio ``r/d`` in ``RATIO_RANGE``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values" (``eq-rmt-rect-subordination``).
    .. [2] E. Troiani et al., arXiv:2203.07752 (2022).
    """

    noise: float
    beta: float
    rho: float

    @property
    def mean_square(self) -> float:
        """``2 int x^2 mu = sqrt(beta)(1 + noise)``, the mean squared singular value of the scaled ``Y``."""
        return math.sqrt(self.beta) * (1.0 + self.noise)

    @cached_property
    def _coefficients(self):
        """``a0..a4`` as ascending coefficient arrays in ``w = x^2`` (Sec. 4 of the notes)."""
        phi, psi = self.rho / self.beta, self.rho
        zeta = math.sqrt(self.beta)
        eta = (1.0 + self.noise) * zeta
        return (
            np.array([-(psi**3), 0.0, 0.0]),
            np.array([psi * (zeta * (psi - phi) + psi * eta * (phi - psi)), psi**3, 0.0]),
            np.array(
                [
                    (eta - zeta) * zeta * (phi - psi) ** 2,
                    zeta * psi * (2 * phi - psi) - eta * psi**2 * phi,
                    0.0,
                ]
            ),
            np.array([0.0, -2.0 * zeta * phi * (zeta - eta) * (psi - phi), -zeta * phi * psi]),
            np.array([0.0, 0.0, zeta * phi**2 * (eta - zeta)]),
        )

    def roots(self, x) -> np.ndarray:
        """The four roots ``G = x g`` of the quartic at real ``x > 0``.

        Parameters
        ----------
        x : numpy.ndarray
            Real points ``> 0``.

        Returns
        -------
        numpy.ndarray
            Shape ``x.shape + (4,)``, complex.
        """
        x = np.asarray(x, dtype=float)
        w = x * x
        A = [(c[2] * w + c[1]) * w + c[0] for c in self._coefficients]
        comp = np.zeros(x.shape + (4, 4))
        lead = A[0]
        comp[..., 0, 0] = -A[1] / lead
        comp[..., 0, 1] = -A[2] / lead
        comp[..., 0, 2] = -A[3] / lead
        comp[..., 0, 3] = -A[4] / lead
        comp[..., 1, 0] = comp[..., 2, 1] = comp[..., 3, 2] = 1.0
        h = np.linalg.eigvals(comp) if x.size else np.zeros(x.shape + (4,), complex)
        # in h = 1/g:  a0 h^4 + a1 h^3 + a2 h^2 + a3 h + a4 = 0
        h = _polish([A[4][..., None], A[3][..., None], A[2][..., None], A[1][..., None], A[0][..., None]], h)
        with np.errstate(divide="ignore", invalid="ignore"):
            return x[..., None] / h

    @staticmethod
    def _largest_imaginary(G):
        im = np.abs(G.imag)
        idx = np.argmax(im, axis=-1)
        g = np.take_along_axis(G, idx[..., None], axis=-1)[..., 0]
        return g.real + 1j * np.abs(g.imag)

    @cached_property
    def _support(self):
        # disc = zeta phi^2 psi^6 w^4 quintic(w); the constant term of the quintic carries (phi - psi)^4 and
        # is lost to cancellation when beta is close to 1: use its factored form (derived with a CAS).
        phi, psi = self.rho / self.beta, self.rho
        zeta = math.sqrt(self.beta)
        eta = (1.0 + self.noise) * zeta
        quintic = _quartic_discriminant(*self._coefficients)[4:10] / (zeta * phi**2 * psi**6)
        quintic[0] = (
            zeta
            * (eta - zeta) ** 2
            * (phi - psi) ** 4
            * (eta**2 * phi**2 + 2 * eta * phi * zeta - 4 * phi * zeta**2 + zeta**2)
            * (eta**2 * psi**2 + 2 * eta * psi * zeta - 4 * psi * zeta**2 + zeta**2)
        )
        r = np.roots(quintic[::-1]).astype(complex)
        r = _polish(list(quintic), r, steps=3)
        tol = 1e-9 * (1.0 + np.abs(r))
        real = r[np.abs(r.imag) <= tol].real
        necks = np.sqrt(r[np.abs(r.imag) > tol]).real
        edges = np.unique(np.concatenate([[0.0], np.sqrt(real[real > 0])]))
        mids = 0.5 * (edges[:-1] + edges[1:])
        G = self._largest_imaginary(self.roots(mids))
        inside = np.abs(G.imag) > 1e-10 * (1.0 + np.abs(G))
        bulks = _merge_intervals(edges, inside)
        if not bulks:  # pragma: no cover
            raise ArithmeticError(f"no support found for {self}")
        # For beta close to 1 the first bulk starts at a tiny lo > 0 and the density rises from 0 to O(1) on
        # the scale lo (a softened hard edge): grade the pieces geometrically there.
        lo, hi = bulks[0]
        grading = lo * 10.0 ** np.arange(1, 20) if 0 < lo < 1e-2 * hi else np.empty(0)
        return bulks, _split(bulks, np.concatenate([necks, grading[grading < 0.5 * hi]]))

    @cached_property
    def _coarse(self):
        x, w = self.quadrature(_HILBERT_NODES)
        G = self._largest_imaginary(self.roots(x))
        return x, 2.0 * w * np.abs(G.imag) / math.pi

    def _boundary(self, x):
        """``G(x - i0)`` at points ``x > 0`` (flat array)."""
        G = self.roots(x)
        Gi = self._largest_imaginary(G)
        inside = _in_bulks(x, self.bulks) & (np.abs(Gi.imag) > 0)
        out = np.where(inside, Gi, np.nan + 0j)
        outside = ~inside
        if np.any(outside):
            xo = x[outside]
            Go = G[outside].real
            t, wr = self._coarse
            with np.errstate(divide="ignore", invalid="ignore"):
                est = (wr[None, :] * xo[:, None] / (xo[:, None] ** 2 - t[None, :] ** 2)).sum(axis=1)
                # dG/dx = g + 2 w dg/dw with dg/dw = -P_w/P_g (implicit differentiation of the quartic)
                g = Go / xo[:, None]
                w = (xo * xo)[:, None]
                coefs = self._coefficients
                P_g = sum(k * ((c[2] * w + c[1]) * w + c[0]) * g ** (k - 1) for k, c in enumerate(coefs) if k)
                P_w = sum((2 * c[2] * w + c[1]) * g**k for k, c in enumerate(coefs))
                slope = g - 2 * w * P_w / P_g
            out[outside] = _select_outside(Go, slope, est)
        return out

    def _prepare(self, x):
        x, ret = _points(x)
        sign = np.where(x < 0, -1.0, 1.0)
        ax = np.abs(x).reshape(-1)
        # G(x) = x g(x^2) is regular at 0 but the quartic degenerates there: evaluate just beside it
        tiny = 1e-9 * (self.edges[-1] if self.bulks else 1.0)
        ax = np.where(ax < tiny, tiny, ax)
        return x, ret, sign, ax

    def density(self, x):
        """``mu(x) = |Im G(x)|/pi`` (even in ``x``; ``2 mu`` is the singular-value density on ``x > 0``).

        Parameters
        ----------
        x : float or array_like
            Real points.

        Returns
        -------
        float or numpy.ndarray
            ``mu(x)``.
        """
        x, ret, _, ax = self._prepare(x)
        Gi = self._largest_imaginary(self.roots(ax))
        inside = _in_bulks(ax, self.bulks)
        return ret(np.where(inside, np.abs(Gi.imag) / math.pi, 0.0).reshape(x.shape))

    def stieltjes_real(self, x):
        """``v(x) = Re G(x) = 2 int mu(t) x/(x^2 - t^2) dt`` (principal value inside), odd in ``x``.

        Parameters
        ----------
        x : float or array_like
            Real points.

        Returns
        -------
        float or numpy.ndarray
            ``v(x)``.
        """
        x, ret, sign, ax = self._prepare(x)
        return ret(sign * self._boundary(ax).real.reshape(x.shape))


@lru_cache(maxsize=256)
def _rectangular_plus_noise(noise: float, beta: float, rho: float) -> RectangularPlusNoise:
    return RectangularPlusNoise(noise=noise, beta=beta, rho=rho)


@declare(noise=NOISE, beta=ASPECT_RATIO, rho=RATIO)
def rectangular_plus_noise(noise: float, *, beta: float, rho: float) -> RectangularPlusNoise:
    """The singular-value law of rectangular signal + noise (:class:`RectangularPlusNoise`), cached.

    Parameters
    ----------
    noise : float
        Noise variance in ``NOISE_RANGE``.
    beta : float
        Aspect ratio ``L/d`` in ``[1, MAX_ASPECT_RATIO]`` (keyword-only, as ``rho``).
    rho : float
        Rank ratio ``r/d`` in ``RATIO_RANGE``.

    Returns
    -------
    RectangularPlusNoise
        The law (one object per parameter set).

    Raises
    ------
    ValueError
        For a malformed argument (named).

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values".

    Examples
    --------
    >>> from solvable import spectra
    >>> law = spectra.rectangular_plus_noise(0.5, beta=2.0, rho=0.2)
    >>> print(len(law.bulks), len(spectra.rectangular_plus_noise(2.0, beta=2.0, rho=0.2).bulks))
    2 1
    >>> x, w = law.quadrature()
    >>> mu = law.density(x)
    >>> print(round(2 * float(w @ mu), 4), round(2 * float(w @ (x**2 * mu)), 4), round(law.mean_square, 4))
    1.0 2.1213 2.1213
    """
    return _rectangular_plus_noise(noise, beta, rho)


# --------------------------------------------------------------------------- generic subordination


def _call_stieltjes(stieltjes_S, w: np.ndarray) -> np.ndarray:
    """``G_S(w)`` from the user's callable: finite complex values of the shape of ``w``, or an error naming it."""
    g = np.asarray(stieltjes_S(w))
    if g.shape != w.shape or not np.issubdtype(g.dtype, np.number) or not np.all(np.isfinite(g)):
        raise InvalidParameterError(
            f"stieltjes_S must return finite complex values of the shape of its argument "
            f"{w.shape}, got {'shape ' + str(g.shape) if g.shape != w.shape else 'NaN or inf'}"
            f" (dtype {g.dtype})"
        )
    return g.astype(complex, copy=False)


#: Below this noise free_convolution_semicircle reads G = G_S(omega) instead of (z - omega)/noise (which cancels).
_DIRECT_NOISE = 1e-8


@declare(
    stieltjes_S=function(),
    noise=real(0.0, NOISE_RANGE[1]),
    z=COMPLEX_POINTS,
    tol=real(0.0, 1.0, low_open=True, high_open=True),
)
def free_convolution_semicircle(stieltjes_S, noise: float, z, *, tol: float = 1e-12, max_iter: int = 60):
    """Stieltjes transform of ``Y = S + sqrt(noise) Z`` (``Z`` GOE, variance 1) for ANY law of ``S``.

    Solves the subordination relation ``G_Y(z) = G_S(z - noise G_Y(z))`` (``eq-rmt-subordination-general``;
    P. Biane 1997) for the subordination function ``omega = z - noise G_Y``, i.e.
    ``F(omega) = omega + noise G_S(omega) - z = 0``, vectorised over ``z``. ``omega`` stays in the half-plane of
    ``z``, where ``G_S`` is analytic. The solution is followed from far above the real axis (where the
    fixed-point map is a contraction) down to ``Im z`` by factors of 10, with guarded Newton steps (the
    derivative of ``G_S`` by a one-sided difference into the half-plane) and a damped fixed-point step
    wherever Newton does not decrease ``|F|``.

    Parameters
    ----------
    stieltjes_S : callable
        ``G_S``, vectorised, valid for ``Im z > 0`` (e.g. ``MarchenkoPastur(kappa).stieltjes``).
    noise : float
        Noise variance in ``[0, 1e12]``.
    z : complex array_like
        Points off the real axis. For the density use ``x + 1e-10j``: ``rho_Y = -Im G_Y/pi``.

    tol : float
        Tolerance on ``|F|`` relative to ``1 + |z|``, in ``(0, 1)``.
    max_iter : int
        Newton/fixed-point steps per height, ``>= 1``.

    Returns
    -------
    complex or numpy.ndarray
        ``G_Y(z)``, the shape of ``z``. Points that did not converge raise a
        :class:`~solvable.errors.ConvergenceWarning`.

    Raises
    ------
    TypeError
        If ``stieltjes_S`` is not callable.
    ValueError
        For a malformed argument (named), or a point on the real axis.

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws" (``eq-rmt-subordination-general``).

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import spectra
    >>> G = spectra.free_convolution_semicircle(spectra.MarchenkoPastur(2.0).stieltjes, 0.5, 1.0 + 1e-10j)
    >>> print(round(-G.imag / np.pi, 4), round(spectra.wishart_plus_goe(0.5, kappa=2.0).density(1.0), 4))
    0.2897 0.2897
    >>> G = spectra.free_convolution_semicircle(spectra.Semicircle(1.0).stieltjes, 0.5, 1e-10j)
    >>> print(round(-G.imag / np.pi, 4), round(spectra.semicircle_density(0.0, 1.5), 4))  # variance 1 + 0.5
    0.2599 0.2599
    """
    z = _complex_points(z)
    if z.ndim > 1 or z.size == 0:
        raise InvalidParameterError(f"z must be a number or a non-empty 1-d array, got shape {z.shape}")
    if np.any(z.imag == 0):
        raise InvalidParameterError("z must have a nonzero imaginary part (use x + 1e-10j for the real axis)")
    flip = z.imag < 0
    zu = np.where(flip, np.conj(z), z).reshape(-1)
    if noise == 0.0:
        g = _call_stieltjes(stieltjes_S, zu)
    else:
        y_target = zu.imag
        y0 = 2.0 * math.sqrt(noise) + 1.0
        heights = [y0]
        while heights[-1] > y_target.min():
            heights.append(heights[-1] / 10.0)
        omega = zu.real + 1j * np.maximum(y_target, y0) + 0j
        converged = np.zeros(zu.shape, dtype=bool)
        for h in heights:
            zk = zu.real + 1j * np.maximum(y_target, h)
            gk = _call_stieltjes(stieltjes_S, omega)
            F = omega + noise * gk - zk
            for _ in range(max_iter):
                scale = tol * (1.0 + np.abs(zk))
                converged = np.abs(F) <= scale
                if converged.all():
                    break
                dstep = 1e-7 * (1.0 + np.abs(omega))
                dG = (_call_stieltjes(stieltjes_S, omega + 1j * dstep) - gk) / (1j * dstep)
                newton = omega - F / (1.0 + noise * dG)
                newton = np.where(newton.imag > 0, newton, omega.real + 0.5j * omega.imag)
                gn = _call_stieltjes(stieltjes_S, newton)
                Fn = newton + noise * gn - zk
                ok = np.abs(Fn) < np.abs(F)
                fixed = 0.5 * omega + 0.5 * (zk - noise * gk)
                omega = np.where(ok, newton, fixed)
                gk = np.where(ok, gn, _call_stieltjes(stieltjes_S, omega))
                F = omega + noise * gk - zk
        if not converged.all():
            warn_user(
                f"free_convolution_semicircle: {int((~converged).sum())} of {zu.size} points did not reach "
                f"tol={tol} in {max_iter} iterations",
                ConvergenceWarning,
            )
        if noise >= _DIRECT_NOISE:
            g = (zu - omega) / noise
        else:
            # omega + noise G_S(omega) = z: (z - omega)/noise cancels catastrophically (1e-320 gave NaN + inf j),
            # while G_S(omega) at the fixed point is the same number without the division
            g = _call_stieltjes(stieltjes_S, omega)
    g = g.reshape(z.shape)
    g = np.where(flip, np.conj(g), g)
    return g[()] if g.ndim == 0 else g
