"""Number tokens of printed text (tool output people paste), read once and only where a double holds them.

Every reader of printed output — the nccl-tests reader (:mod:`ccb_helpers.nccl_tests`), the
``nvidia-smi`` / ``rocm-smi`` printouts (:mod:`ccb_helpers.smi`) — turns each number token into
a value here, with :func:`read_number`, so that one set of rules holds for all of them:

* the token is a plain decimal of ASCII digits (``12``, ``-1``, ``0.05``, ``1.2e+03``): no ``nan``,
  ``inf``, hex, thousands separators, other scripts' digits (``١٢``, ``１２``) or more than
  :data:`MAX_TOKEN_CHARS` characters;
* its value is exactly zero or a **normal** double: ``1e400`` (overflows to infinity), ``1e-320``
  (a subnormal, with fewer significant bits than the token has) and ``1e-400`` (rounds to 0) are
  refused, since what would be read is not what was printed;
* half a unit in its last printed place (the rounding the printer applied, which bounds what the
  text can say about itself) is below the largest double too: ``0e400`` is zero, but zero to
  within ``5e399``, which no double holds.

A refusal is a :class:`ValueError` whose message starts with the place the caller names
(``"line 12: column 'time'"``), so a log's reader says where the token is.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass

__all__ = ["PrintedNumber", "read_number", "MAX_TOKEN_CHARS"]

#: Longest number token read (characters); a printed table's numbers are far shorter.
MAX_TOKEN_CHARS = 64
# ASCII digits only: C's printf prints no other, and Python's float() and int() would read
# "١٢٣" (Arabic-Indic) or "１２３" (fullwidth) as 123 — text no table printed.
_INTEGER = re.compile(r"^[-+]?\d+$", re.ASCII)
_DECIMAL = re.compile(r"^([-+]?)(\d+\.?\d*|\.\d+)(?:[eE]([-+]?\d+))?$", re.ASCII)
#: Smallest and largest decimal exponents a normal double spans (2.2e-308 .. 1.8e308).
_MIN_NORMAL = sys.float_info.min
#: A plain decimal of at most 15 digits each side: always a normal double (or zero), read at once.
_SIMPLE = re.compile(r"^-?\d{1,15}(?:\.(\d{0,15}))?$", re.ASCII)
_HALF_PLACES = tuple(0.5 * 10.0**-k for k in range(16))
_NON_FINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}


@dataclass(frozen=True, slots=True)
class PrintedNumber:
    """One number token: its value, half a unit in its last printed place, and the text (made only
    by :func:`read_number`, which has checked all three)."""

    value: float | int
    half_ulp: float
    text: str


def _short(token: str) -> str:
    return repr(token) if len(token) <= 40 else repr(token[:20]) + f" … ({len(token)} characters)"


def read_number(token: str, where: str, *, integer: bool = False, context: str = "") -> PrintedNumber:
    """The value of one printed number token, refused where a double cannot hold what was printed.

    Parameters
    ----------
    token : str
        The token as printed (no surrounding blanks).
    where : str
        The place, for messages: ``"line 12: column 'busbw'"``.
    integer : bool, default False
        Accept only an integer (``value`` is then a Python ``int``, ``half_ulp`` 0.5).
    context : str, optional
        Appended to a message after ``": "`` (the quoted line).

    Returns
    -------
    PrintedNumber
        ``value`` (float, or int), ``half_ulp`` (half a unit in the last printed place: ``"12.34"``
        → 0.005, ``"1.2e+03"`` → 50) and ``text`` (the token).

    Raises
    ------
    ValueError
        Not a plain decimal (or not an integer when ``integer``); longer than
        :data:`MAX_TOKEN_CHARS`; not finite; a value or rounding beyond a double's normal range
        (overflow, subnormal, underflow to zero). The message starts with ``where``.

    Examples
    --------
    >>> read_number("1.2e+03", "line 3: column 'time'")
    PrintedNumber(value=1200.0, half_ulp=50.0, text='1.2e+03')
    >>> read_number("-1", "line 3: column 'root'", integer=True).value
    -1
    >>> read_number("1e-320", "line 3: column 'time'")
    Traceback (most recent call last):
    ...
    ValueError: line 3: column 'time': '1e-320' is below the smallest normal double (2.2e-308): a subnormal holds fewer digits than were printed
    """
    if isinstance(token, str) and len(token) <= 33 and (simple := _SIMPLE.match(token)) is not None:
        if integer:
            if simple.group(1) is None and "." not in token:
                return PrintedNumber(int(token), 0.5, token)
        else:  # the common case of a table: "12.34", "0", "-1"
            return PrintedNumber(float(token), _HALF_PLACES[len(simple.group(1) or "")], token)
    tail = f": {context}" if context else ""
    if not isinstance(token, str):
        raise TypeError(f"{where}: a number token must be a string, got {type(token).__name__}")
    if len(token) > MAX_TOKEN_CHARS:
        raise ValueError(
            f"{where} has a {len(token)}-character token, not a number a table prints: {_short(token)}{tail}"
        )
    if token.lower() in _NON_FINITE:
        raise ValueError(f"{where} needs a finite number, got {_short(token)}{tail}")
    if integer:
        if not _INTEGER.match(token):
            raise ValueError(f"{where} needs an integer, got {_short(token)}{tail}")
        return PrintedNumber(int(token), 0.5, token)
    match = _DECIMAL.match(token)
    if match is None:
        raise ValueError(f"{where} needs a number, got {_short(token)}{tail}")
    mantissa, exponent_text = match.group(2), match.group(3)
    exponent = int(exponent_text) if exponent_text else 0  # at most 63 digits: exact and fast
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    digits = mantissa.replace(".", "").lstrip("0")
    # Decimal exponents, computed on integers (no float can overflow here): the last printed
    # place, and (for a non-zero value) the leading digit's place.
    last_place = exponent - decimals
    if digits:
        leading_place = last_place + len(digits) - 1
        if leading_place > 308:
            raise ValueError(
                f"{where}: {_short(token)} is beyond the largest double (1.8e308): it would read as infinity{tail}"
            )
        if leading_place < -308:
            raise ValueError(
                f"{where}: {_short(token)} is below the smallest normal double (2.2e-308): a subnormal holds "
                f"fewer digits than were printed{tail}"
            )
    value = float(token)
    if not math.isfinite(value):
        raise ValueError(
            f"{where}: {_short(token)} is beyond the largest double (1.8e308): it would read as infinity{tail}"
        )
    if value != 0 and abs(value) < _MIN_NORMAL:
        raise ValueError(
            f"{where}: {_short(token)} is below the smallest normal double (2.2e-308): a subnormal holds fewer "
            f"digits than were printed{tail}"
        )
    if last_place > 308:
        raise ValueError(
            f"{where}: {_short(token)} is printed to a place of 1e{last_place}, beyond the largest double "
            f"(1.8e308), so its rounding cannot be represented{tail}"
        )
    # Below 1e-307 the rounding is finer than any double the value can differ by: it may underflow.
    return PrintedNumber(value, 0.5 * 10.0 ** max(last_place, -330), token)
