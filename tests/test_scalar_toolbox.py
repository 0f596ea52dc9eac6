"""Gaussian integration, priors and channels: the scalar building blocks of state evolution."""

import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import expit, log_ndtr

from solvable import metrics
from solvable.channels import SignChannel, get_channel
from solvable.integration import (
    gaussian_expectation,
    half_normal_rule,
    hermite_rule,
    legendre_rule,
    mills_ratio,
    phi_log_phi_expectation,
    sign_channel_fisher,
)
from solvable.priors import GaussianPrior, RademacherPrior, get_prior

PRIORS = [GaussianPrior(), RademacherPrior()]
CHANNELS = [
    get_channel("sign"),
    get_channel("probit", 0.3),
    get_channel("linear", 0.1),
    get_channel("linear", 0.0),
]


def test_hermite_rule_moments():
    x, w = hermite_rule()
    assert w.sum() == pytest.approx(1.0, abs=1e-14)
    # E xi^2 = 1, E xi^4 = 3, E xi^6 = 15
    for k, m in [(2, 1.0), (4, 3.0), (6, 15.0)]:
        assert np.dot(w, x**k) == pytest.approx(m, rel=1e-12)
    assert gaussian_expectation(np.cos) == pytest.approx(np.exp(-0.5), abs=1e-14)


def test_mills_ratio_is_stable_in_both_tails():
    u = np.array([-1e4, -50.0, 0.0, 50.0])
    r = mills_ratio(u)
    assert np.all(np.isfinite(r))
    assert r[0] == pytest.approx(1e4, rel=1e-6)  # phi(u)/Phi(u) ~ -u for u -> -inf
    assert r[2] == pytest.approx(np.sqrt(2 / np.pi), rel=1e-14)
    assert r[3] < 1e-300


@pytest.mark.parametrize("k", [0.0, 0.2, 0.9, 1.0, 2.5, 20.0])
def test_sign_fisher_integral_matches_adaptive_quadrature(k):
    def integrand(x):
        return np.exp(
            2 * (-((k * x) ** 2) / 2)
            - np.log(2 * np.pi)
            - log_ndtr(k * x)
            - log_ndtr(-k * x)
            - x * x / 2
            - 0.5 * np.log(2 * np.pi)
        )

    ref = quad(integrand, -12, 12, points=[0.0], limit=400, epsabs=1e-14, epsrel=1e-12)[0]
    assert sign_channel_fisher(k)[0] == pytest.approx(ref, rel=1e-9, abs=1e-14)


def test_sign_fisher_integral_at_zero_and_asymptote():
    assert sign_channel_fisher(0.0)[0] == pytest.approx(2 / np.pi, rel=1e-12)
    # For k -> inf, I(k) ~ (1/k) phi(0) int phi^2/(Phi Phi(-)) du (the u-integral is a constant).
    c = quad(lambda u: np.exp(-u * u - np.log(2 * np.pi) - log_ndtr(u) - log_ndtr(-u)), -15, 15, limit=200)[0]
    k = 1e4
    assert k * sign_channel_fisher(k)[0] == pytest.approx(c / np.sqrt(2 * np.pi), rel=1e-6)


@pytest.mark.parametrize("prior", PRIORS, ids=lambda p: p.name)
@pytest.mark.parametrize("mhat", [0.05, 0.7, 3.0, 9.0])
def test_prior_free_entropy_derivative_is_half_the_overlap(prior, mhat):
    """science/perceptron.md Sec. 3: q = 2 psi_w'(mhat); central differences, h = 1e-5."""
    h = 1e-5
    derivative = (prior.psi(mhat + h) - prior.psi(mhat - h)) / (2 * h)
    assert 2 * derivative == pytest.approx(float(prior.se_overlap(mhat)), abs=2e-8)


@pytest.mark.parametrize("channel", CHANNELS, ids=lambda c: f"{c.name}-{c.delta}")
@pytest.mark.parametrize("q", [0.02, 0.3, 0.7, 0.95])
def test_channel_free_entropy_derivative_gives_mhat(channel, q):
    """science/perceptron.md Sec. 3: mhat / alpha = 2 psi_out'(q)."""
    h = 1e-6
    derivative = (channel.psi_out(q + h) - channel.psi_out(q - h)) / (2 * h)
    assert 2 * derivative == pytest.approx(float(channel.se_mhat_factor(q)), rel=2e-7)


def test_sign_channel_limits_of_psi_out():
    c = get_channel("sign")
    assert float(c.psi_out(1e-14)) == pytest.approx(-np.log(2), abs=1e-9)
    assert abs(float(c.psi_out(1 - 1e-12))) < 1e-5


def test_rademacher_overlap_map_against_adaptive_quadrature():
    p = RademacherPrior()
    for mhat in [0.3, 2.0, 8.0]:
        ref = quad(
            lambda x: np.exp(-x * x / 2) / np.sqrt(2 * np.pi) * 2 * expit(-2 * (mhat + np.sqrt(mhat) * x)),
            -30,
            30,
            points=[-np.sqrt(mhat)],
            limit=200,
            epsabs=1e-15,
        )[0]
        assert float(p.se_mse(mhat)) == pytest.approx(ref, rel=1e-7)


@pytest.mark.parametrize("prior", PRIORS, ids=lambda p: p.name)
def test_prior_inverse_overlap(prior):
    for q in [0.01, 0.4, 0.9, 0.999]:
        assert float(prior.se_overlap(prior.mhat_of_overlap(q))) == pytest.approx(q, abs=1e-12)


def test_denoisers_are_posterior_mean_and_variance():
    """Check f_w = d_B log Z_w and c_w = d_B f_w by finite differences of log Z_w."""
    A, B, h = 1.7, 0.4, 1e-5
    for prior, log_z in [
        (GaussianPrior(), lambda b: b * b / (2 * (1 + A)) - 0.5 * np.log(1 + A)),
        (RademacherPrior(), lambda b: np.log(np.cosh(b)) - A / 2),
    ]:
        f, c = prior.denoise(A, B)
        assert f == pytest.approx((log_z(B + h) - log_z(B - h)) / (2 * h), rel=1e-8)
        assert c == pytest.approx((log_z(B + h) - 2 * log_z(B) + log_z(B - h)) / h**2, rel=1e-4)


@pytest.mark.parametrize("channel", CHANNELS[:3], ids=lambda c: f"{c.name}-{c.delta}")
def test_g_out_is_derivative_of_log_z_out(channel):
    omega, V, h = 0.3, 0.6, 1e-5
    for y in [-1.0, 1.0] if isinstance(channel, SignChannel) else [-0.7, 1.2]:
        if isinstance(channel, SignChannel):

            def log_z(o):
                return log_ndtr(y * o / np.sqrt(V + channel.delta))
        else:

            def log_z(o):
                return -((y - o) ** 2) / (2 * (V + channel.delta))

        g, dg = channel.g_out(np.array([y]), np.array([omega]), V)
        assert g[0] == pytest.approx((log_z(omega + h) - log_z(omega - h)) / (2 * h), rel=1e-7)
        assert dg[0] == pytest.approx(
            (log_z(omega + h) - 2 * log_z(omega) + log_z(omega - h)) / h**2, rel=1e-4
        )


def test_unknown_names_and_inconsistent_noise_raise():
    with pytest.raises(ValueError, match="prior"):
        get_prior("laplace")
    with pytest.raises(ValueError, match="channel"):
        get_channel("relu")
    with pytest.raises(ValueError, match="delta"):
        get_channel("sign", 0.1)
    with pytest.raises(ValueError, match="delta"):
        get_channel("probit", 0.0)
    with pytest.raises(ValueError, match="delta"):
        get_channel("linear", -0.1)
    with pytest.raises(ValueError, match="delta"):
        get_channel("linear", float("nan"))


# ------------------------------------------------------------------------------ hard edges (issue 11)


def test_metrics_validate_their_overlaps():
    with pytest.raises(ValueError, match="rho"):
        metrics.bayes_classification_error(0.3, rho=0)  # issue 11: ZeroDivisionError
    for f in (metrics.bayes_classification_error, metrics.gibbs_classification_error):
        for q, rho, name in [
            (0.3, -1.0, "rho"),
            (0.3, math.inf, "rho"),
            (-0.1, 1.0, "q"),
            (1.5, 1.0, "q"),
            (math.nan, 1.0, "q"),
            ("x", 1.0, "q"),
        ]:
            with pytest.raises(ValueError, match=name):
                f(q, rho)
        assert f(0.0) == 0.5 and f(1.0) == 0.0
    for m, Q, rho, name in [
        (2.0, 1.0, 1.0, "m"),
        (math.nan, 1.0, 1.0, "m"),
        (0.5, 0.0, 1.0, "Q"),
        (0.5, 1.0, 0.0, "rho"),
    ]:
        with pytest.raises(ValueError, match=name):
            metrics.classification_error(m, Q, rho)
    assert metrics.classification_error(1.0 + 1e-12, 1.0) == 0.0  # round-off on Cauchy-Schwarz is clipped


def test_angle_error_refuses_what_has_no_angle():
    with pytest.raises(ValueError, match="w_star must be non-zero"):
        metrics.angle_error(np.ones(3), np.zeros(3))
    with pytest.raises(ValueError, match="same shape"):
        metrics.angle_error(np.ones(3), np.ones((3, 1)))
    with pytest.raises(ValueError, match="finite"):
        metrics.angle_error(np.array([1.0, np.nan]), np.ones(2))
    with pytest.raises(ValueError, match="non-empty"):
        metrics.angle_error(np.ones(0), np.ones(0))
    assert metrics.angle_error(np.zeros(3), np.ones(3)) == 0.5  # a zero estimator is a random guess


def test_priors_validate_and_reduce_their_free_entropy():
    with pytest.raises(ValueError, match="rho"):
        GaussianPrior(rho=-1.0)
    with pytest.raises(ValueError, match="rho"):
        GaussianPrior(rho=math.nan)
    for p in PRIORS:
        for bad in (-1.0, math.nan, math.inf, "x"):
            for f in (p.se_overlap, p.se_mse, p.psi, p.psi_reduced):
                with pytest.raises(ValueError, match="mhat"):
                    f(bad)
        m = np.array([0.0, 0.3, 4.0, 50.0])
        np.testing.assert_allclose(p.psi_reduced(m), p.psi(m) - 0.5 * p.rho * m, atol=1e-12)
        assert p.psi_reduced(0.0) == pytest.approx(0.0, abs=1e-15)
    assert GaussianPrior().entropy == math.inf and RademacherPrior().entropy == math.log(2)
    # -H as mhat -> inf, without cancellation
    assert float(RademacherPrior().psi_reduced(1e12)) == -math.log(2)
    with pytest.raises(ValueError, match="prior"):
        get_prior(3)


def test_quadrature_rules_validate_their_sizes():
    for bad in (0, -1, 2.5, True, 301):
        with pytest.raises(ValueError, match="n must be an integer"):
            hermite_rule(bad)
    with pytest.raises(ValueError, match="half_width"):
        legendre_rule(10, math.inf)
    with pytest.raises(ValueError, match="upper"):
        half_normal_rule(10, -1.0)
    with pytest.raises(ValueError, match="n must be an integer"):
        legendre_rule(0)
    with pytest.raises(TypeError, match="f must be a function"):
        gaussian_expectation(3.0)
    with pytest.raises(ValueError, match="one value per node"):
        gaussian_expectation(lambda x: 1.0)
    with pytest.raises(ValueError, match="NaN"):
        gaussian_expectation(lambda x: x * np.nan)
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="k must"):
            sign_channel_fisher(bad)
    with pytest.raises(ValueError, match="k must"):
        phi_log_phi_expectation(-0.5)
    # elementwise helpers behave like ufuncs: limits at +-inf, NaN stays where it was (GAMP reports divergence)
    r = mills_ratio(np.array([-np.inf, np.nan, np.inf]))
    assert r[0] == np.inf and np.isnan(r[1]) and r[2] == 0.0


@pytest.mark.parametrize("k", [0.0, 0.4, 1.0, 3.0, 1e3])
def test_phi_log_phi_expectation_matches_adaptive_quadrature(k):
    def integrand(u):  # in u = k xi (for k = 0 the integrand is constant in xi)
        lp = log_ndtr(u)
        return np.exp(lp) * lp * (np.exp(-((u / k) ** 2) / 2) / (k * np.sqrt(2 * np.pi)) if k > 0 else 1.0)

    ref = (
        integrand(0.0)
        if k == 0
        else quad(integrand, -40, 40, points=[0.0], limit=400, epsabs=1e-15, epsrel=1e-12)[0]
    )
    assert float(phi_log_phi_expectation(k)[0]) == pytest.approx(ref, rel=1e-8, abs=1e-14)
    assert phi_log_phi_expectation(np.inf)[0] == 0.0
    # the channel's own psi_out uses the same integral
    q = 0.6
    C = get_channel("probit", 0.3)
    assert float(C.psi_out(q)) == pytest.approx(
        2 * float(phi_log_phi_expectation(np.sqrt(q / 0.7))[0]), rel=1e-13
    )


@pytest.mark.parametrize("scale", [1e-200, 1e-8, 1e8, 1e200])
def test_angle_error_is_scale_invariant(scale):
    # at 1e200 times a vector the norms overflowed and the angle came out as 0.5 (a random guess)
    from solvable.metrics import angle_error

    rng = np.random.default_rng(2)
    a, b = rng.standard_normal(50), rng.standard_normal(50)
    expected = math.acos(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))) / math.pi
    assert angle_error(scale * a, b) == pytest.approx(expected, rel=1e-12)
    assert angle_error(a, scale * b) == pytest.approx(expected, rel=1e-12)
    assert angle_error(scale * a, scale * a) == pytest.approx(0.0, abs=1e-7)


@pytest.mark.parametrize("bad", [True, np.complex64(1.0), 1 + 0j, "1"])
def test_fixed_parameter_layers_refuse_values_that_are_not_real_numbers(bad):
    """RademacherPrior(rho) and HardmaxChannel(T) accept only their one value, as a real number / an integer: a bool,
    a complex or a string equal to it is a wrong type (they were stored as given)."""
    from solvable import channels, priors

    with pytest.raises(TypeError, match="rho"):
        priors.RademacherPrior(rho=bad)
    with pytest.raises(TypeError, match="T"):
        channels.HardmaxChannel(T=bad if not isinstance(bad, complex) else 2 + 0j)


def test_fixed_parameter_layers_store_plain_numbers():
    from fractions import Fraction

    from solvable import channels, priors

    assert priors.RademacherPrior(rho=Fraction(1)) == priors.RademacherPrior(rho=1.0)
    assert type(priors.RademacherPrior(rho=np.float32(1)).rho) is float
    with pytest.raises(TypeError, match="T"):
        channels.HardmaxChannel(T=np.float32(2))
    assert type(channels.HardmaxChannel(T=np.int8(2)).T) is int


@pytest.mark.parametrize("rule", ["legendre_rule", "half_normal_rule"])
def test_gauss_legendre_rules_count_their_n_squared_peak_against_the_size_cap(monkeypatch, rule):
    """leggauss solves an n x n eigenproblem: with the cap at 2^16 numbers, n = 1024 nodes (a 2^20 matrix, 8 MiB)
    must be refused instead of allocated; n = 200 (4e4 numbers) stays within twice the cap."""
    import tracemalloc

    from solvable import integration, validation

    monkeypatch.setattr(validation, "MAX_ELEMENTS", 2**16)
    f = getattr(integration, rule)
    with pytest.raises(ValueError, match="MAX_ELEMENTS"):
        f(1024, 3.0)
    tracemalloc.start()
    try:
        f(200, 3.1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 2 * 8 * 2**16
    assert f(np.array(20), 3.0)[0].shape == (20,)  # a 0-d integer array is its integer


@pytest.mark.parametrize(
    "name", ["log_phi_pdf", "log_Phi", "mills_ratio", "sign_channel_fisher", "phi_log_phi_expectation"]
)
def test_elementwise_helpers_refuse_bytes_and_non_numeric_arrays(name):
    """bytearray(b"12") was read as the numbers 49 and 50, and an object array reached SciPy's ufuncs (a raw
    'ufunc not supported' TypeError): both are wrong types, named."""
    from solvable import integration

    f = getattr(integration, name)
    arg = (
        "k"
        if name in ("sign_channel_fisher", "phi_log_phi_expectation")
        else "u"
        if name == "mills_ratio"
        else "x"
    )
    with pytest.raises((TypeError, ValueError), match=rf"\b{arg}\b"):
        f(bytearray(b"12"))
    if arg != "k":
        with pytest.raises(TypeError, match=rf"\b{arg}\b"):
            f(np.array(["a", "b"], dtype=object))
        with pytest.raises(TypeError, match=rf"\b{arg}\b"):  # as validation.check_array: no object arrays
            f(np.array([0.5, 1.0], dtype=object))


@pytest.mark.parametrize("u", [-2e6, -1e8, -1e12, -3e150, -2e154, -1e300])
def test_mills_ratio_follows_its_asymptote_far_in_the_negative_tail(u):
    """phi(u)/Phi(u) = |u| (1 + 1/u^2 - 2/u^4 + ...) as u -> -inf (exact to 2/u^4 here). exp(log phi - log Phi)
    cancelled: 78% off at -1e8, 1.0 instead of 3e150 at -3e150, inf beyond -1.4e154."""
    from solvable.integration import mills_ratio

    expected = -u * (1.0 + 1.0 / (u * u))
    assert mills_ratio(u) == pytest.approx(expected, rel=1e-14)
    assert mills_ratio(np.array([u, -2.0]))[0] == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize(
    "f",
    [
        lambda x: x + 1j,
        lambda x: np.ma.masked_array(x, mask=x > 0),
        lambda x: np.where(x > 0, np.inf, 0.0),
        lambda x: np.where(x > 0, np.nan, 0.0),
        lambda x: ["a"] * x.size,
        lambda x: np.ones(x.size + 1),
    ],
)
def test_gaussian_expectation_refuses_what_is_not_one_finite_real_value_per_node(f):
    """A complex integrand lost its imaginary part (E[xi + i] came out as 0), a masked one its mask, and an infinite
    value gave inf or NaN: each is refused, naming f."""
    with pytest.raises(ValueError, match=r"\bf\b"):
        gaussian_expectation(f)


def test_gaussian_expectation_of_a_known_integrand():
    assert gaussian_expectation(np.cos) == pytest.approx(math.exp(-0.5), rel=1e-13)  # E cos(xi) = e^{-1/2}


def test_half_normal_rule_refuses_an_upper_end_where_the_density_underflows():
    """At upper = 1e300 every weight underflowed to 0 (a rule of mass 0, no error); up to 40 the rule keeps its
    mass E 1 = 1 and second moment E xi^2 = 1."""
    for upper in (40.5, 1e3, 1e300):
        with pytest.raises(ValueError, match="upper"):
            half_normal_rule(64, upper)
    z, w = half_normal_rule(64, 40.0)
    assert w.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.dot(w, z * z) == pytest.approx(1.0, abs=1e-12)


def test_constructors_declare_their_names_and_convert_their_numbers():
    """A prior or channel named otherwise than get_prior / get_channel know it was stored as given (and a data set
    built from it failed later, on the unknown name); numbers are stored as Python floats and ints."""
    from solvable.channels import HardmaxChannel, LinearChannel, SoftmaxChannel

    for make, param in (
        (lambda: GaussianPrior(name="normal"), "name"),
        (lambda: SignChannel(name="linear"), "name"),
        (lambda: LinearChannel(name="sign"), "name"),
        (lambda: LinearChannel(residual_floor=1), "residual_floor"),
        (lambda: SoftmaxChannel(T=1), "T"),
        (lambda: get_prior(GaussianPrior), "prior"),
    ):
        with pytest.raises(ValueError, match=param):
            make()
    assert get_prior("Rademacher") == RademacherPrior() and get_prior(GaussianPrior(2.0)).rho == 2.0
    assert (
        type(GaussianPrior(rho=np.float32(2.0)).rho) is float and type(SoftmaxChannel(T=np.int16(3)).T) is int
    )
    assert get_channel("PROBIT", np.float64(0.5)) == SignChannel(delta=0.5, name="probit")
    assert isinstance(HardmaxChannel(), HardmaxChannel)
