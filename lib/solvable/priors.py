"""Separable priors on a vector signal, as denoisers and through their state-evolution integrals.

A prior ``P_w`` enters message passing only through the scalar denoising problem
``w ~ P_w``, observed as ``B = A w + sqrt(A) xi`` (precision ``A``, field ``B``):

- ``denoise(A, B)`` returns the posterior mean ``f_w = d_B log Z_w`` and variance ``c_w = d_B f_w`` with
  ``Z_w(A, B) = int dP_w(w) exp(B w - A w^2/2)``;
- ``se_overlap(mhat)`` is the state-evolution map ``q = E[f_w(mhat, mhat w* + sqrt(mhat) xi)^2]``;
- ``psi(mhat)`` is the prior part of the replica free entropy,
  ``psi_w(mhat) = E log Z_w(mhat, mhat w* + sqrt(mhat) xi)``, whose derivative is ``q/2``;
  ``psi_reduced(mhat) = psi_w(mhat) - rho mhat/2`` is the same without its linear growth, computed without the
  cancellation that ``psi(mhat) - mhat q/2`` suffers at large ``mhat`` (``<= 0``, ``-H`` as ``mhat -> inf`` for a
  discrete prior of entropy ``H``);
- ``entropy`` is the prior's Shannon entropy per variable (``log 2`` for Rademacher), the largest possible mutual
  information ``I(w*; y | X)/d``; ``+inf`` for a continuous prior (no such bound).

The state-evolution maps take a conjugate overlap ``mhat``: a finite number ``>= 0`` (or an array of them);
anything else raises ``ValueError`` naming ``mhat``. ``denoise`` is GAMP's inner loop and does not validate
(the engine checks what it returns).

Equations: Chapter 1, Sec. 'The building blocks' (eqs. ``eq-priors``, ``eq-fw-cw``, ``eq-state-evolution``,
``eq-free-entropy``); Barbier et al., PNAS 116:5451 (2019), arXiv:1708.03395.
The matrix models of later chapters plug a rotationally invariant denoiser into the same slots.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit

from .domains import Domain, choice, declare, real
from .errors import InvalidParameterError
from .integration import DEFAULT_HERMITE_NODES, _hermite_rule
from .results import record
from .validation import check_choice, check_in_range

__all__ = ["GaussianPrior", "RademacherPrior", "PRIORS", "get_prior"]

#: Below this ``mhat`` the Rademacher free entropy uses its small-``mhat`` series (no cancellation).
_SERIES_MHAT = 1e-4


def _check_mhat(mhat) -> np.ndarray:
    """``mhat`` as a float array of finite numbers ``>= 0`` (ValueError naming ``mhat`` otherwise).

    Called at every state-evolution step: one ``min`` and one ``max`` (NaN fails both comparisons).
    """
    try:
        m = np.asarray(mhat, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"mhat must be a finite number >= 0 (or an array of them), got {mhat!r}"
        ) from None
    if m.ndim == 0:
        ok = 0.0 <= float(m) < math.inf
    else:
        ok = m.size == 0 or (0.0 <= m.min() and m.max() < math.inf)
    if not ok:
        raise InvalidParameterError(f"mhat must be a finite number >= 0 (or an array of them), got {mhat!r}")
    return m


@record
class GaussianPrior:
    r"""Gaussian prior ``w_i ~ N(0, rho)``.

    Parameters
    ----------
    rho : float, optional
        Variance ``> 0`` (finite).
    name : str, optional
        The prior's name, ``"gaussian"`` (the name :func:`get_prior` knows it by).

    Raises
    ------
    ValueError
        For a ``rho`` that is not a finite number ``> 0``.

    Notes
    -----
    Denoiser ``f_w = B / (1/rho + A)``, ``c_w = 1 / (1/rho + A)``; state evolution ``q = rho^2 mhat / (1 + rho mhat)``;
    free entropy ``psi_w = rho mhat/2 - log(1 + rho mhat)/2`` (Chapter 1, eqs. ``eq-priors``, ``eq-fw-cw``).

    References
    ----------
    Chapter 1, Sec. 'The building blocks'.

    Examples
    --------
    >>> from solvable.priors import GaussianPrior
    >>> P = GaussianPrior()
    >>> f, c = P.denoise(1.0, 3.0)  # A = 1, B = 3: f_w = B / (1/rho + A), c_w = 1 / (1/rho + A)
    >>> print(f"f_w = {f:.4f}, c_w = {c:.4f}, q(mhat = 1) = {P.se_overlap(1.0):.4f}")
    f_w = 1.5000, c_w = 0.5000, q(mhat = 1) = 0.5000
    """

    rho: float = 1.0
    name: str = "gaussian"

    @property
    def entropy(self) -> float:
        """Shannon entropy per variable: ``+inf``: a continuous signal has no finite Shannon entropy (the mutual information is unbounded)."""
        return math.inf

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        r"""Draw i.i.d. entries ``N(0, rho)``.

        Parameters
        ----------
        size : int or tuple of int
            Shape of the draw.
        rng : numpy.random.Generator
            Source of randomness.

        Returns
        -------
        numpy.ndarray
            The entries.
        """
        return np.sqrt(self.rho) * rng.standard_normal(size)

    def denoise(self, A, B):
        r"""Posterior mean and variance of ``w`` given the field ``B`` and precision ``A``.

        Parameters
        ----------
        A : float or numpy.ndarray
            Precision ``>= 0``.
        B : float or numpy.ndarray
            Field.

        Returns
        -------
        tuple
            ``(f_w, c_w) = (B / (1/rho + A), 1 / (1/rho + A))``.

        Notes
        -----
        Chapter 1, eq. ``eq-fw-cw``; not validated (GAMP's inner loop).
        """
        var = 1.0 / (1.0 / self.rho + A)
        return B * var, var

    def se_overlap(self, mhat):
        r"""State-evolution overlap ``q(mhat) = rho^2 mhat / (1 + rho mhat)``.

        Parameters
        ----------
        mhat : float or array_like
            Conjugate overlap(s), finite and >= 0.

        Returns
        -------
        float or numpy.ndarray
            ``q`` in ``[0, rho)``.

        Raises
        ------
        ValueError
            If ``mhat`` is negative or not finite.

        Notes
        -----
        ``q = E f_w(mhat, mhat w* + sqrt(mhat) xi)^2`` (Chapter 1, eq. ``eq-state-evolution``).

        References
        ----------
        Chapter 1, Sec. 'The building blocks'; Barbier et al., arXiv:1708.03395.
        """
        mhat = _check_mhat(mhat)
        return self.rho**2 * mhat / (1.0 + self.rho * mhat)

    def se_mse(self, mhat):
        r"""``rho - q(mhat) = rho / (1 + rho mhat)``, without cancellation.

        Parameters
        ----------
        mhat : float or array_like
            Conjugate overlap(s), finite and >= 0.

        Returns
        -------
        float or numpy.ndarray
            The MSE in ``(0, rho]``.

        Raises
        ------
        ValueError
            If ``mhat`` is negative or not finite.

        Notes
        -----
        The state-evolution MSE (Chapter 1, eq. ``eq-state-evolution``).

        References
        ----------
        Chapter 1, Sec. 'The building blocks'; Barbier et al., arXiv:1708.03395.
        """
        return self.rho / (1.0 + self.rho * _check_mhat(mhat))

    def psi(self, mhat):
        r"""Prior part of the free entropy, ``psi_w(mhat) = rho mhat/2 - log(1 + rho mhat)/2``.

        Parameters
        ----------
        mhat : float or array_like
            Conjugate overlap(s), finite and >= 0.

        Returns
        -------
        float or numpy.ndarray
            ``psi_w``.

        Raises
        ------
        ValueError
            If ``mhat`` is negative or not finite.

        Notes
        -----
        ``psi_w = E log Z_w(mhat, mhat w* + sqrt(mhat) xi)``; ``d psi_w / d mhat = q/2`` (Chapter 1, eq. ``eq-free-entropy``).

        References
        ----------
        Chapter 1, Sec. 'The building blocks'; Barbier et al., arXiv:1708.03395.
        """
        x = self.rho * _check_mhat(mhat)
        return 0.5 * x - 0.5 * np.log1p(x)

    def psi_reduced(self, mhat):
        r"""``psi_w(mhat) - rho mhat/2 = -log(1 + rho mhat)/2``.

        Parameters
        ----------
        mhat : float or array_like
            Conjugate overlap(s), finite and >= 0.

        Returns
        -------
        float or numpy.ndarray
            A value ``<= 0``.

        Raises
        ------
        ValueError
            If ``mhat`` is negative or not finite.

        Notes
        -----
        ``psi_w`` without its linear growth (no cancellation at large ``mhat``).

        References
        ----------
        Chapter 1, Sec. 'The building blocks'; Barbier et al., arXiv:1708.03395.
        """
        return -0.5 * np.log1p(self.rho * _check_mhat(mhat))

    def mhat_of_overlap(self, q: float) -> float:
        r"""Inverse of :meth:`se_overlap`: ``mhat = q / (rho (rho - q))``.

        Parameters
        ----------
        q : float
            Overlap in ``[0, rho)``.

        Returns
        -------
        float
            The conjugate overlap.

        Raises
        ------
        ValueError
            For ``q`` outside ``[0, rho)``.
        """
        q = check_in_range("q", q, 0.0, self.rho, high_open=True)
        return q / (self.rho * (self.rho - q))


#: The variance of a Gaussian prior (a finite number > 0).
VARIANCE = real(0.0, low_open=True)
GaussianPrior.__init__ = declare(rho=VARIANCE, name=choice("gaussian"))(GaussianPrior.__init__)


@record
class RademacherPrior:
    r"""Binary prior ``w_i = +-1`` with equal probability (``rho = 1``).

    Parameters
    ----------
    rho : float, optional
        Must be 1.
    name : str, optional
        The prior's name, ``"rademacher"``.

    Raises
    ------
    ValueError
        For ``rho != 1``.

    Notes
    -----
    Denoiser ``f_w = tanh(B)``, ``c_w = 1 - tanh(B)^2``; state evolution ``q = E tanh(mhat + sqrt(mhat) xi)``; free
    entropy ``psi_w = -mhat/2 + E log cosh(mhat + sqrt(mhat) xi)`` (no ``log 2``: perfect recovery has ``f_RS = -log 2``).
    ``1 - q`` is computed as ``E[2 expit(-2 h)]``, ``h = mhat + sqrt(mhat) xi`` (no cancellation as ``q -> 1``), and
    ``psi_w`` as ``mhat/2 + E log(1 + e^{-2h}) - log 2``.

    References
    ----------
    Chapter 1, Secs. 'The building blocks' and 'The binary perceptron'.

    Examples
    --------
    >>> from solvable.priors import RademacherPrior
    >>> P = RademacherPrior()
    >>> f, c = P.denoise(1.0, 0.5)  # f_w = tanh(B), c_w = 1 - tanh(B)^2
    >>> print(f"f_w = {f:.4f}, c_w = {c:.4f}, entropy {P.entropy:.4f} (log 2)")
    f_w = 0.4621, c_w = 0.7864, entropy 0.6931 (log 2)
    >>> print([round(float(P.se_overlap(mhat)), 4) for mhat in (0.5, 2.0, 8.0)])
    [0.3501, 0.769, 0.9928]
    """

    rho: float = 1.0
    name: str = "rademacher"

    @property
    def entropy(self) -> float:
        """``log 2``: the Shannon entropy of a sign, the largest mutual information per variable."""
        return math.log(2.0)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        r"""Draw i.i.d. signs.

        Parameters
        ----------
        size : int or tuple of int
            Shape of the draw.
        rng : numpy.random.Generator
            Source of randomness.

        Returns
        -------
        numpy.ndarray
            Entries in {-1, +1}.
        """
        return rng.choice(np.array([-1.0, 1.0]), size=size)

    def denoise(self, A, B):
        r"""Posterior mean ``tanh(B)`` and variance ``1 - tanh(B)^2``.

        Parameters
        ----------
        A : float or numpy.ndarray
            Precision (unused: a sign has no Gaussian part).
        B : float or numpy.ndarray
            Field.

        Returns
        -------
        tuple
            ``(tanh(B), 1/cosh(B)^2)``, the variance without cancellation.

        Notes
        -----
        Chapter 1, eq. ``eq-fw-cw``; not validated (GAMP's inner loop).
        """
        # 1 - tanh(B)^2 = 1/cosh(B)^2 = 4 e^{-2|B|} / (1 + e^{-2|B|})^2, without cancellation.
        e = np.exp(-2.0 * np.abs(B))
        return np.tanh(B), 4.0 * e / (1.0 + e) ** 2

    @staticmethod
    def _fields(mhat):
        x, w = _hermite_rule(DEFAULT_HERMITE_NODES)
        mhat = _check_mhat(mhat)
        h = mhat[..., None] + np.sqrt(mhat)[..., None] * x
        return h, w

    def se_mse(self, mhat):
        r"""``1 - q(mhat) = E[2 expit(-2 (mhat + sqrt(mhat) xi))]``.

        Parameters
        ----------
        mhat : float or array_like
            Conjugate overlap(s), finite and >= 0.

        Returns
        -------
        float or numpy.ndarray
            The MSE in ``[0, 1]``.

        Raises
        ------
        ValueError
            If ``mhat`` is negative or not finite.

        Notes
        -----
        Gauss-Hermite quadrature; no cancellation as ``q -> 1`` (Chapter 1, eq. ``eq-state-evolution``).

        References
        ----------
        Chapter 1, Sec. 'The building blocks'; Barbier et al., arXiv:1708.03395.
        """
        h, w = self._fields(mhat)
        return (2.0 * expit(-2.0 * h)) @ w

    def se_overlap(self, mhat):
        r"""``q(mhat) = E tanh(mhat + sqrt(mhat) xi) = 1 - se_mse(mhat)``.

        Parameters
        ----------
        mhat : float or array_like
            Conjugate overlap(s), finite and >= 0.

        Returns
        -------
        float or numpy.ndarray
            ``q`` in ``[0, 1]``.

        Raises
        ------
        ValueError
            If ``mhat`` is negative or not finite.

        Notes
        -----
        Chapter 1, eq. ``eq-state-evolution``.

        References
        ----------
        Chapter 1, Sec. 'The building blocks'; Barbier et al., arXiv:1708.03395.
        """
        return 1.0 - self.se_mse(mhat)

    def psi(self, mhat):
        r"""``psi_w(mhat) = -mhat/2 + E log cosh(mhat + sqrt(mhat) xi) = mhat/2 + psi_reduced(mhat)``.

        Parameters
        ----------
        mhat : float or array_like
            Conjugate overlap(s), finite and >= 0.

        Returns
        -------
        float or numpy.ndarray
            ``psi_w``.

        Raises
        ------
        ValueError
            If ``mhat`` is negative or not finite.

        Notes
        -----
        Chapter 1, eq. ``eq-free-entropy``.

        References
        ----------
        Chapter 1, Sec. 'The building blocks'; Barbier et al., arXiv:1708.03395.
        """
        return 0.5 * _check_mhat(mhat) + self.psi_reduced(mhat)

    def psi_reduced(self, mhat):
        """``psi_w(mhat) - mhat/2 = E log(1 + e^{-2h}) - log 2``, ``h = mhat + sqrt(mhat) xi``.

        Parameters
        ----------
        mhat : float or array_like
            Conjugate overlap(s), finite and >= 0.

        Returns
        -------
        float or numpy.ndarray
            A value in ``[-log 2, 0]``: 0 at ``mhat = 0`` and ``-log 2`` (minus the entropy) as ``mhat -> inf``.

        Notes
        -----
        Below ``mhat = 1e-4`` the series ``-mhat/2 + mhat^2/4 - mhat^3/6 + O(mhat^4)`` is used: the quadrature
        of ``log(1 + e^{-2h}) - log 2`` loses its relative precision there.
        """
        m = _check_mhat(mhat)
        h, w = self._fields(m)
        quad = np.logaddexp(0.0, -2.0 * h) @ w - math.log(2.0)
        series = -0.5 * m + 0.25 * m * m - m * m * m / 6.0
        return (
            np.where(m < _SERIES_MHAT, series, quad)
            if np.ndim(quad)
            else (float(series) if float(m) < _SERIES_MHAT else float(quad))
        )

    def mhat_of_overlap(self, q: float) -> float:
        r"""Inverse of :meth:`se_overlap` (bracketed root in ``log mhat``).

        Parameters
        ----------
        q : float
            Overlap in ``[0, 1)``.

        Returns
        -------
        float
            The conjugate overlap.

        Raises
        ------
        ValueError
            For ``q`` outside ``[0, 1)`` or too close to 1 to invert.
        """
        q = check_in_range("q", q, 0.0, 1.0, high_open=True)
        if q == 0.0:
            return 0.0
        target = 1.0 - q

        def gap(log_m):
            return float(self.se_mse(np.exp(log_m))) - target

        lo, hi = -40.0, 1.0
        while gap(hi) > 0:
            hi += 2.0
            if hi > 12.0:
                raise InvalidParameterError(
                    f"q = {q!r} is too close to 1 to invert the Rademacher overlap map"
                )
        return float(np.exp(brentq(gap, lo, hi, xtol=1e-14, rtol=1e-14)))


RademacherPrior.__init__ = declare(rho=real(1.0, 1.0), name=choice("rademacher"))(RademacherPrior.__init__)


#: Names accepted by :func:`get_prior`, with their classes.
PRIORS = {"gaussian": GaussianPrior, "rademacher": RademacherPrior}


def _check_prior(name, value):
    if isinstance(value, (GaussianPrior, RademacherPrior)):
        return value
    return check_choice(name, value, PRIORS)


#: The domain of a prior argument: a name in :data:`PRIORS` (case-insensitive) or a prior object.
PRIOR = Domain(
    "one of " + ", ".join(map(repr, PRIORS)) + ", or a prior object",
    _check_prior,
    "choice",
    options=tuple(PRIORS),
)


@declare(prior=PRIOR)
def get_prior(prior) -> GaussianPrior | RademacherPrior:
    r"""The prior object for a name in ``PRIORS`` (or the object itself).

    Parameters
    ----------
    prior : str or GaussianPrior or RademacherPrior
        ``"gaussian"`` or ``"rademacher"``, or a prior object.

    Returns
    -------
    GaussianPrior or RademacherPrior
        The prior (default parameters for a name).

    Raises
    ------
    ValueError
        For an unknown name (the message names ``prior``).

    References
    ----------
    Chapter 1, Sec. 'The building blocks'.
    """
    return prior if isinstance(prior, (GaussianPrior, RademacherPrior)) else PRIORS[prior]()
