"""Number tokens of printed output (ccb_helpers._tokens.read_number): read once, refused where a double cannot hold them.

Expected values are worked by hand: half a unit in the last printed place of "12.34" is 0.005, of
"1.2e+03" is 0.5e2 = 50; the smallest normal double is 2**-1022 = 2.2250738585072014e-308 and the
largest (2 - 2**-52) * 2**1023 = 1.7976931348623157e308 (IEEE 754 binary64).
"""

import math
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccb_helpers._tokens import MAX_TOKEN_CHARS, read_number


@pytest.mark.parametrize(
    "token, value, half_ulp",
    [
        ("12.34", 12.34, 0.005),
        ("1.2e+03", 1200.0, 50.0),
        ("0.00", 0.0, 0.005),
        ("-1", -1.0, 0.5),
        ("4e-07", 4e-07, 0.5e-7),
        (".5", 0.5, 0.05),
        ("7.", 7.0, 0.5),
        ("0e-400", 0.0, 0.0),  # zero, to within a place finer than any double: the rounding underflows
        ("1.7976931348623157e308", sys.float_info.max, 0.5e292),
        ("2.2250738585072014e-308", sys.float_info.min, 0.0),
    ],
)
def test_values_and_their_printed_rounding(token, value, half_ulp):
    number = read_number(token, "line 1: column 'x'")
    assert number.value == value and number.text == token
    assert number.half_ulp == pytest.approx(half_ulp, rel=1e-12, abs=1e-320)


@pytest.mark.parametrize(
    "token, message",
    [
        ("1e400", "'1e400' is beyond the largest double (1.8e308): it would read as infinity"),
        ("1.8e308", "'1.8e308' is beyond the largest double"),
        ("99e307", "'99e307' is beyond the largest double"),
        ("0e400", "'0e400' is printed to a place of 1e400, beyond the largest double"),
        ("1e-320", "'1e-320' is below the smallest normal double (2.2e-308): a subnormal"),
        ("2e-308", "'2e-308' is below the smallest normal double"),
        ("1e-400", "'1e-400' is below the smallest normal double"),
        ("nan", "needs a finite number, got 'nan'"),
        ("-inf", "needs a finite number, got '-inf'"),
        ("Infinity", "needs a finite number, got 'Infinity'"),
        ("0x10", "needs a number, got '0x10'"),
        ("1,000", "needs a number, got '1,000'"),
        ("", "needs a number, got ''"),
        ("1" * (MAX_TOKEN_CHARS + 1), f"has a {MAX_TOKEN_CHARS + 1}-character token"),
    ],
)
def test_refusals_name_the_place(token, message):
    with pytest.raises(ValueError) as error:
        read_number(token, "line 12: column 'busbw'", context="'the line'")
    text = str(error.value)
    assert text.startswith("line 12: column 'busbw'") and message in text and text.endswith(": 'the line'")


def test_the_last_printed_place_may_reach_1e308_and_no_further():
    # "0.0e309": one decimal, so the last place is 10**(309 - 1) = 1e308: still representable.
    assert read_number("0.0e309", "x").half_ulp == 0.5e308
    with pytest.raises(ValueError, match="place of 1e309"):
        read_number("0e309", "x")


def test_integers():
    assert read_number("-1", "x", integer=True).value == -1
    assert read_number("12345678901234567890", "x", integer=True).value == 12345678901234567890
    with pytest.raises(ValueError, match="needs an integer, got '1.0'"):
        read_number("1.0", "line 3: root", integer=True)
    with pytest.raises(TypeError, match="must be a string"):
        read_number(3, "x")


@given(st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x == 0 or abs(x) >= sys.float_info.min))
def test_every_normal_double_printed_by_repr_reads_back_exactly(x):
    number = read_number(repr(x), "x")
    assert number.value == x and math.isfinite(number.half_ulp) and number.half_ulp >= 0


@given(st.floats(min_value=5e-324, max_value=sys.float_info.min, exclude_max=True))
def test_every_subnormal_is_refused(x):
    with pytest.raises(ValueError, match="below the smallest normal double"):
        read_number(repr(x), "x")
