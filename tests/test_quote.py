"""solvable.quote: bounds quoted in prose round outward ("at most" up, "at least" down)."""

import decimal
import fractions
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvable.errors import InvalidParameterError
from solvable.quote import lower_bound, quote, upper_bound


@pytest.mark.parametrize(
    ("value", "digits", "bound"),
    [
        (6.1e-6, 2, 6.1e-6),
        (6.1e-6, 1, 7e-6),  # "at most 6e-6" for 6.1e-6 was wrong
        (1.01e-12, 1, 2e-12),
        (1.01e-12, 3, 1.01e-12),  # "at most 1e-12" for 1.01e-12 was wrong
        (0.0024, 1, 0.003),
        (0.0184, 2, 0.019),
        (1.84, 2, 1.9),  # "at most 0.002", "below 1.8 %" were wrong
        (0.3, 1, 0.3),
        (-16.7, 2, -16.0),
        (0.0, 2, 0.0),
        (99.1, 2, 100.0),
    ],
)
def test_upper_bounds_round_up(value, digits, bound):
    assert upper_bound(value, digits) == bound


@pytest.mark.parametrize(
    ("value", "digits", "bound"),
    [
        (16.7, 2, 16.0),
        (16.7, 1, 10.0),  # "at least 17" for 16.7 was wrong
        (0.1 + 0.2, 1, 0.3),
        (-0.0024, 1, -0.003),
        (2.0, 3, 2.0),
    ],
)
def test_lower_bounds_round_down(value, digits, bound):
    assert lower_bound(value, digits) == bound


@settings(max_examples=300, deadline=None)
@given(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
    st.integers(min_value=1, max_value=6),
)
def test_a_bound_holds_and_is_tight(value, digits):
    up, down = upper_bound(value, digits), lower_bound(value, digits)
    assert down <= value <= up
    if value != 0:  # within one unit of the last quoted digit
        unit = 10.0 ** (math.floor(math.log10(abs(value))) - digits + 1)
        assert up - value <= unit * (1 + 1e-9) and value - down <= unit * (1 + 1e-9)


@pytest.mark.parametrize("bad", [np.nan, np.inf, "0.1", None, True])
def test_bad_values_are_refused(bad):
    with pytest.raises(ValueError, match="value"):
        upper_bound(bad)
    with pytest.raises(ValueError, match="digits"):
        lower_bound(1.0, digits=0)


def test_digits_beyond_a_float_are_refused():
    """A float has 17 significant digits; beyond 28 Python's decimal rounding raised InvalidOperation."""
    assert upper_bound(0.1, 17) == 0.1
    for digits in (18, 29, 40):
        with pytest.raises(InvalidParameterError, match="digits"):
            upper_bound(0.1, digits)


def test_a_bound_beyond_the_float_range_is_refused_not_inf():
    with pytest.raises(InvalidParameterError, match="beyond the float range"):
        upper_bound(1.7e308, 1)  # 2e308 is not a float: the bound was inf
    with pytest.raises(InvalidParameterError, match="beyond the float range"):
        lower_bound(-1.7e308, 1)
    assert upper_bound(-1.7e308, 1) == -1e308 and lower_bound(1.7e308, 1) == 1e308


@pytest.mark.parametrize(
    "bad",
    [
        math.nan,
        math.inf,
        -math.inf,
        np.float64("nan"),
        True,
        np.True_,
        None,
        [1.0],
        fractions.Fraction(1, 3),  # printed "1/3" or "Fraction(1, 3)", not a number
        decimal.Decimal("0.5"),
        np.timedelta64(1, "s"),  # NumPy registers it as an integer
        1j,
    ],
)
def test_quote_refuses_what_the_prose_could_not_print(bad):
    with pytest.raises(InvalidParameterError, match="students"):
        quote(students=bad)
    with pytest.raises(InvalidParameterError, match="at least one"):
        quote()
    quote(students=16, ratio=np.float64(0.25), preset="lecture")  # numbers and strings pass
    quote(large=10**400)  # an int is finite, however long (math.isfinite would overflow)
