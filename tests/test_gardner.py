"""Gardner capacity: spherical (closed form) and binary (Krauth-Mezard) weights, and finite-size storage."""

import math
import re

import numpy as np
import pytest
from _reference import reference, reference_rows
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.special import log_ndtr

from solvable import gardner
from solvable.errors import ConvergenceWarning, DivergenceError

REF = "perceptron.csv"


def test_spherical_capacity_matches_reference():
    value, tol = reference(REF, "gardner_capacity", prior="spherical", param="kappa=0")
    assert gardner.gardner_capacity("spherical") == pytest.approx(value, abs=tol)
    assert gardner.gardner_capacity() == 2.0  # 1 / int_0^inf Dt t^2 = 1 / (1/2)


def test_binary_capacity_matches_reference():
    value, tol = reference(REF, "gardner_capacity", prior="binary", param="kappa=0")
    alpha_c = gardner.gardner_capacity("binary")
    assert alpha_c == pytest.approx(value, abs=tol)
    # the table also records the value computed from the formula of the notes, to 6 decimals
    (row,) = [
        r for r in reference_rows(REF) if r["quantity"] == "gardner_capacity" and r["prior"] == "binary"
    ]
    computed = float(re.search(r"perceptron\.md: ([0-9.]+)", row["source"]).group(1))
    assert alpha_c == pytest.approx(computed, abs=1e-6)
    # zero entropy there, with the overlaps quoted in science/perceptron.md, Sec. 7
    res = gardner.binary_storage_entropy(alpha_c)
    assert res.converged and abs(res.entropy) < 1e-9
    assert res.q == pytest.approx(0.5639, abs=1e-4)
    assert res.qhat == pytest.approx(2.576, abs=1e-3)


@pytest.mark.parametrize("kappa", [0.0, 0.3, 1.0, 2.5])
def test_spherical_capacity_equals_the_gaussian_integral(kappa):
    def integrand(t):
        return math.exp(-t * t / 2) / math.sqrt(2 * math.pi) * (t + kappa) ** 2

    integral = quad(integrand, -kappa, np.inf, epsabs=1e-13, epsrel=1e-13)[0]
    assert gardner.spherical_capacity(kappa) == pytest.approx(1.0 / integral, rel=1e-10)


def test_capacities_decrease_with_margin_and_binary_is_below_spherical():
    kappas = [0.0, 0.25, 0.5, 1.0, 2.0]
    sph = [gardner.gardner_capacity("spherical", k) for k in kappas]
    binary = [gardner.gardner_capacity("binary", k) for k in kappas]
    assert all(a > b for a, b in zip(sph, sph[1:]))
    assert all(a > b for a, b in zip(binary, binary[1:]))
    assert all(0 < b < s for b, s in zip(binary, sph))
    # large margin: int_{-k}^inf Dt (t + k)^2 ~ k^2 + 1
    assert gardner.spherical_capacity(50.0) == pytest.approx(1 / (50.0**2 + 1), rel=1e-12)


@pytest.mark.parametrize("alpha, kappa", [(0.8, 0.0), (0.4, 0.5), (0.1, 2.0)])
def test_binary_entropy_is_stationary_in_q_and_qhat(alpha, kappa):
    """The fixed point of the two stationarity equations is a critical point of the RS functional."""
    res = gardner.binary_storage_entropy(alpha, kappa)
    assert res.converged
    h = 1e-5  # central differences: truncation ~ h^2 * third derivative ~ 1e-10

    def phi(q, qhat):
        return gardner.binary_entropy_potential(q, qhat, alpha, kappa)

    d_q = (phi(res.q + h, res.qhat) - phi(res.q - h, res.qhat)) / (2 * h)
    d_qhat = (phi(res.q, res.qhat + h) - phi(res.q, res.qhat - h)) / (2 * h)
    assert abs(d_q) < 1e-7 and abs(d_qhat) < 1e-7
    assert res.entropy == pytest.approx(phi(res.q, res.qhat), abs=1e-14)
    # and it is not stationary elsewhere (the check has power)
    assert abs((phi(res.q * 1.1 + h, res.qhat) - phi(res.q * 1.1 - h, res.qhat)) / (2 * h)) > 1e-3


@pytest.mark.parametrize("kappa", [0.0, 0.5, 1.5])
def test_binary_entropy_at_small_alpha(kappa):
    """s(alpha) = log 2 + alpha log Phi(-kappa) + O(alpha^2): checks the margin term independently."""
    alpha = 1e-3
    s = gardner.binary_storage_entropy(alpha, kappa).entropy
    assert (s - math.log(2)) / alpha == pytest.approx(float(log_ndtr(-kappa)), rel=2e-3)


def test_binary_entropy_warns_beyond_the_rs_fixed_point():
    # above 4/pi (kappa = 0) the RS overlap runs to q -> 1: no fixed point, a warning, converged=False
    with pytest.warns(ConvergenceWarning, match="q -> 1"):
        res = gardner.binary_storage_entropy(1.5)
    assert not res.converged


# ----------------------------------------------------------------------------------------------- finite size


def test_cover_formula():
    assert gardner.cover_probability(40, 80) == pytest.approx(0.5, abs=1e-14)
    assert gardner.cover_probability(10, 10) == 1.0 and gardner.cover_probability(10, 3) == 1.0
    for d, n in [(3, 7), (5, 12), (20, 33)]:
        direct = 2.0 ** (1 - n) * sum(math.comb(n - 1, k) for k in range(d))
        assert gardner.cover_probability(d, n) == pytest.approx(direct, rel=1e-12)
    assert gardner.cover_probability(1000, 4000) < 1e-100  # no overflow or underflow to garbage


def test_storage_probability_matches_cover():
    """Monte Carlo at d = 40 against Cover's exact formula (Gaussian inputs are in general position).

    Tolerance: 4 binomial standard errors sqrt(P (1 - P) / n_seeds) plus 1/n_seeds.
    """
    d = 40
    for alpha, n_seeds, method in [(2.0, 300, "lp"), (1.5, 300, "nnls"), (2.5, 300, "nnls")]:
        p_exact = gardner.cover_probability(d, round(alpha * d))
        p_mc = gardner.storage_probability(d, alpha, n_seeds, method=method, rng=np.random.default_rng(7))
        tol = 4 * math.sqrt(p_exact * (1 - p_exact) / n_seeds) + 1 / n_seeds
        assert abs(p_mc - p_exact) <= tol, (alpha, p_mc, p_exact)


def test_lp_and_least_distance_program_agree():
    rng = np.random.default_rng(3)
    d = 40
    decisions = []
    for alpha in (1.8, 2.0, 2.2):
        for _ in range(15):
            n = round(alpha * d)
            X = rng.standard_normal((n, d))
            y = rng.choice([-1.0, 1.0], n)
            lp = gardner.is_linearly_separable(X, y)
            assert lp == gardner.is_linearly_separable(X, y, method="nnls") == (gardner.max_margin(X, y) > 0)
            decisions.append(lp)
    assert 0 < sum(decisions) < len(decisions)  # both outcomes occurred


def test_max_margin_on_small_examples():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1.0, 1.0])
    # w = (1, 1) has |w|^2 = d = 2 and stabilities x . w / sqrt(2) = 1/sqrt(2) for both points
    assert gardner.max_margin(X, y) == pytest.approx(1 / math.sqrt(2), rel=1e-12)
    assert gardner.is_linearly_separable(X, y, margin=0.70)
    assert not gardner.is_linearly_separable(X, y, margin=0.71)
    X_bad = np.array([[1.0, 0.0], [-1.0, 0.0]])  # x and -x with the same label
    assert not gardner.is_linearly_separable(X_bad, y)
    assert gardner.max_margin(X_bad, y) == 0.0
    assert not gardner.is_linearly_separable(X_bad, y, margin=0.1)


def test_margin_storage_probability_is_below_the_margin_zero_one():
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    p0 = gardner.storage_probability(30, 1.2, 40, method="nnls", rng=rng_a)
    p1 = gardner.storage_probability(30, 1.2, 40, margin=0.3, rng=rng_b)
    assert p1 <= p0  # same draws: a margin can only remove solutions


# -------------------------------------------------------------------------------------------- validation


@pytest.mark.parametrize("margin", [-0.1, float("nan"), float("inf"), "wide"])
def test_bad_margin_raises(margin):
    for weights in ("spherical", "binary"):
        with pytest.raises(ValueError, match="margin must be a number"):
            gardner.gardner_capacity(weights, margin)
    with pytest.raises(ValueError, match="margin"):
        gardner.binary_storage_entropy(0.5, margin)
    with pytest.raises(ValueError, match="margin"):
        gardner.is_linearly_separable(np.ones((2, 2)), np.ones(2), margin)


def test_unknown_weights_raises():
    with pytest.raises(ValueError, match=r"weights must be one of 'spherical', 'binary'"):
        gardner.gardner_capacity("ternary")


@pytest.mark.parametrize("alpha", [-1.0, 0.0, float("nan")])
def test_bad_alpha_raises(alpha):
    with pytest.raises(ValueError, match="alpha"):
        gardner.binary_storage_entropy(alpha)
    with pytest.raises(ValueError, match="alpha"):
        gardner.storage_probability(10, alpha, 5, rng=0)


def test_bad_finite_size_arguments_raise():
    with pytest.raises(ValueError, match="y must be a 1-d array"):
        gardner.is_linearly_separable(np.ones((4, 3)), np.ones(5))
    with pytest.raises(ValueError, match="labels"):
        gardner.max_margin(np.ones((4, 3)), np.zeros(4))
    with pytest.raises(ValueError, match="X must be"):
        gardner.is_linearly_separable(np.ones(4), np.ones(4))
    with pytest.raises(ValueError, match="method"):
        gardner.is_linearly_separable(np.ones((2, 2)), np.ones(2), method="simplex")
    with pytest.raises(ValueError, match="rng"):
        gardner.storage_probability(10, 1.0, 5, rng=None)
    with pytest.raises(ValueError, match="n_seeds"):
        gardner.storage_probability(10, 1.0, 0, rng=0)
    with pytest.raises(ValueError, match="d must be an integer"):
        gardner.cover_probability(0, 5)
    with pytest.raises(ValueError, match="n must be an integer"):
        gardner.cover_probability(5, 2.5)
    with pytest.raises(ValueError, match="q must be a number in"):
        gardner.binary_entropy_potential(1.0, 1.0, 0.5)


# -------------------------------------------------------------------------------------------- hard edges


def test_binary_entropy_far_beyond_capacity_is_minus_infinity():
    # issue 11: margin = 1e8 returned NaN with only a warning. No binary w stores anything with that margin:
    # the RS overlap runs to q -> 1, along which the RS entropy diverges to -inf (no solutions).
    with pytest.warns(ConvergenceWarning, match="q -> 1"):
        res = gardner.binary_storage_entropy(0.5, margin=1e8)
    assert res.entropy == -math.inf and res.q == 1.0 and not res.converged
    with pytest.warns(ConvergenceWarning, match="-inf"):
        assert gardner.binary_storage_entropy(1.5).entropy == -math.inf


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"tol": math.inf}, "tol"),
        ({"tol": 0.0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"damping": 1.0}, "damping"),
        ({"start": 1.0}, "start"),
        ({"start": math.nan}, "start"),
    ],
)
def test_binary_entropy_validates_its_controls(kwargs, name):
    with pytest.raises(ValueError, match=name):
        gardner.binary_storage_entropy(0.5, **kwargs)


def test_binary_entropy_reports_its_iteration_cap():
    with pytest.warns(ConvergenceWarning, match="did not converge in 2 iterations"):
        res = gardner.binary_storage_entropy(0.5, max_iter=2)
    assert not res.converged and res.iterations == 2 and math.isfinite(res.entropy)
    with pytest.raises(ValueError, match="xtol"):
        gardner.binary_capacity(xtol=math.inf)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(a=st.floats(0.0, 1e3), b=st.floats(0.0, 1e3))
def test_spherical_capacity_is_positive_decreasing_and_below_one_over_kappa_squared(a, b):
    lo, hi = sorted((a, b))
    c_lo, c_hi = gardner.spherical_capacity(lo), gardner.spherical_capacity(hi)
    assert 0.0 < c_hi <= c_lo <= 2.0
    assert c_lo <= 1.0 / (lo * lo * 0.5 + 0.5)  # int_{-k}^inf Dt (t + k)^2 >= (k^2 + 1)/2


@settings(max_examples=8, deadline=None, derandomize=True)
@given(a=st.floats(0.01, 0.4), b=st.floats(0.01, 0.4), kappa=st.floats(0.0, 0.5))
def test_binary_entropy_is_below_log2_and_decreasing_below_capacity(a, b, kappa):
    # below the capacity: alpha_c = 0.8331 at kappa = 0, 0.4557 at kappa = 0.5
    lo, hi = sorted((a, b))
    s_lo, s_hi = (gardner.binary_storage_entropy(x, kappa) for x in (lo, hi))
    assert s_lo.converged and s_hi.converged
    assert s_hi.entropy <= s_lo.entropy + 1e-12 <= math.log(2) + 1e-12
    # annealed bound: s <= log 2 + alpha log Phi(-kappa)
    assert s_lo.entropy <= math.log(2) + lo * float(log_ndtr(-kappa)) + 1e-9


def test_huge_margins_do_not_overflow_silently():
    assert gardner.spherical_capacity(1e300) == 0.0  # 1/kappa^2 rounds to 0; was an OverflowError
    assert gardner.spherical_capacity(1e10) == pytest.approx(1e-20, rel=1e-12)
    with pytest.raises(DivergenceError, match="overflows"):
        gardner.binary_entropy_potential(0.3, 1.0, 0.5, margin=1e300)


# -------------------------------------------------------------------------------------------- issue 20: hard edges


def _separable_and_not(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((30, 10))
    y_sep = np.sign(X[:, 0] + 1e-3)
    X_bad = rng.standard_normal((100, 5))
    y_bad = np.sign(rng.standard_normal(100))  # 100 random labels in d = 5: far above capacity
    return X, y_sep, X_bad, y_bad


def test_hard_margin_weights_refuse_data_that_are_not_separable():
    # the least-distance program used to return garbage weights (r_{d+1} ~ 1e-17 instead of 0) for 2/3 of such sets
    _, _, X_bad, y_bad = _separable_and_not()
    assert cover_probability_is_tiny(5, 100)
    for seed in range(20):
        rng = np.random.default_rng(seed)
        X, y = rng.standard_normal((100, 5)), np.sign(rng.standard_normal(100))
        assert not gardner.is_linearly_separable(X, y)  # the LP's certificate agrees
        with pytest.raises(ValueError, match="not linearly separable"):
            gardner.hard_margin_weights(X, y)
        assert gardner.max_margin(X, y) == 0.0
    with pytest.raises(ValueError, match="not linearly separable"):
        gardner.hard_margin_weights(np.zeros((4, 3)), np.ones(4))


def cover_probability_is_tiny(d, n):
    return gardner.cover_probability(d, n) < 1e-20


@pytest.mark.parametrize("scale", [1e-8, 1e-150, 1e8, 1e200])
def test_separability_and_margins_are_scale_invariant(scale):
    # at 1e-8 and 1e200 times the data the nnls test said False, max_margin 0 and linprog raised on inf
    X, y, X_bad, y_bad = _separable_and_not()
    kappa = gardner.max_margin(X, y)
    w = gardner.hard_margin_weights(X, y)
    assert kappa > 0 and np.min(y * (X @ w)) / math.sqrt(10) == pytest.approx(1.0, rel=1e-9)
    for method in ("lp", "nnls"):
        assert gardner.is_linearly_separable(scale * X, y, method=method)
        assert not gardner.is_linearly_separable(scale * X_bad, y_bad, method=method)
    assert gardner.max_margin(scale * X, y) / scale == pytest.approx(kappa, rel=1e-9)
    w_scaled = gardner.hard_margin_weights(scale * X, y)
    assert np.all(np.isfinite(w_scaled)) and np.any(w_scaled != 0)
    np.testing.assert_allclose(w_scaled * scale, w, rtol=1e-8, atol=1e-10 * np.max(np.abs(w)))
    assert gardner.max_margin(scale * X_bad, y_bad) == 0.0


def test_all_zero_inputs_are_not_separable():
    # linprog raised "A_ub must not contain values inf, nan" (0/0 in the normalisation)
    for method in ("lp", "nnls"):
        assert not gardner.is_linearly_separable(np.zeros((4, 3)), np.ones(4), method=method)
    assert gardner.max_margin(np.zeros((4, 3)), np.ones(4)) == 0.0


def test_binary_capacity_at_large_margins_is_refused_with_the_reason():
    # margin 10 took 28 s and ended in a DivergenceError, 1e3 in a "math domain error"
    assert gardner.binary_capacity(gardner.BINARY_MARGIN_MAX) < gardner.spherical_capacity(
        gardner.BINARY_MARGIN_MAX
    )
    for margin in (4.5, 10.0, 1e3, 1e300):
        with pytest.raises(ValueError, match=r"margin must be a number in \[0.0, 4.0\].* runs to q -> 1"):
            gardner.binary_capacity(margin)
        with pytest.raises(ValueError, match="margin"):
            gardner.gardner_capacity("binary", margin)


def test_storage_probability_takes_rng_by_keyword():
    with pytest.raises(TypeError):
        gardner.storage_probability(10, 1.0, 5, 0)
    with pytest.raises(TypeError, match="rng"):
        gardner.storage_probability(10, 1.0, 5, rng="0")
    res = gardner.binary_storage_entropy(0.5)
    assert res == gardner.binary_storage_entropy(0.5)  # a record: value equality


def test_nnls_and_lp_decide_separability_alike_near_the_capacity():
    """Near alpha_c = 2 the max-margin weights have a huge norm and round-off leaves some stabilities just below 1;
    the nnls decision must still be the LP's (a strict separator in floating point), trial by trial. The two sweeps
    below hold such an instance each (chapter 1's storage figure: seed 1, d = 25, 50, 100, 13 alphas)."""
    rng = np.random.default_rng(1)
    children = {d: rng.spawn(13) for d in (25, 50, 100)}
    alphas = np.linspace(0.5, 3.5, 13)
    for d, k in ((25, 7), (100, 6)):
        seq = children[d][k].bit_generator.seed_seq
        by_nnls = gardner.storage_probability(
            d, alphas[k], 100, method="nnls", rng=np.random.default_rng(seq)
        )
        by_lp = gardner.storage_probability(d, alphas[k], 100, method="lp", rng=np.random.default_rng(seq))
        assert by_nnls == by_lp, (d, alphas[k], by_nnls, by_lp)


def test_binary_storage_entropy_edges_of_start_and_margin():
    """Below the capacity (alpha = 0.5 < 0.83) the entropy is finite and positive from any allowed start; a start
    closer to 1 than 1e-6 (which returned entropy = -inf, 'no solutions') is refused, and a margin of 1e30 runs
    to the documented q -> 1 limit instead of a 'math domain error'."""
    import warnings

    from solvable.errors import ConvergenceWarning

    ref = gardner.binary_storage_entropy(0.5, start=0.3)
    assert ref.entropy > 0
    near = gardner.binary_storage_entropy(0.5, start=1 - 1e-6)
    assert near.entropy == pytest.approx(ref.entropy, abs=1e-9)
    for start in (1 - 1e-9, 1 - 1e-16):
        with pytest.raises(ValueError, match="start"):
            gardner.binary_storage_entropy(0.5, start=start)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        huge = gardner.binary_storage_entropy(0.5, margin=10**30)
    assert huge.entropy == -math.inf and huge.q == 1.0 and not huge.converged


@pytest.mark.parametrize("scale", [1e-310, 1e-320])
def test_hard_margin_weights_refuse_subnormal_data_whose_weights_overflow(scale):
    """The weights have size ~ 1/max|X|: for subnormal X they are beyond the float range, an error, not inf."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 5))
    y = np.sign(X @ rng.standard_normal(5))
    with pytest.raises(ValueError, match="X is too small"):
        gardner.hard_margin_weights(scale * X, y)
    w = gardner.hard_margin_weights(1e-300 * X, y)  # still representable: a separating, finite w
    assert np.all(np.isfinite(w)) and np.all(np.sign(X @ w) == y)


def test_storage_probability_counts_the_copies_of_its_separability_test(monkeypatch):
    """One trial at d = 10**9 and n = 1 passed the size check of X alone; the test copies X four times."""
    from solvable import validation

    monkeypatch.setattr(validation, "MAX_ELEMENTS", 1000)
    with pytest.raises(ValueError, match="MAX_ELEMENTS"):
        gardner.storage_probability(300, 1e-300, 1, rng=0)  # n d = 300, 5 n d = 1500
    assert gardner.storage_probability(10, 2.0, 2, rng=0) in (0.0, 0.5, 1.0)  # 5 n d = 1000
