"""Presets, formatting helpers and the figure style."""

import re

import matplotlib.pyplot as plt
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import ccb_helpers as ccb


def test_presets_are_documented_and_sane():
    assert {"sg2260", "a100_nvlink", "h100_nvswitch", "ib_ndr", "tpu_torus"} <= set(ccb.PRESETS)
    for p in ccb.PRESETS.values():
        assert 0 < p.alpha < 1e-3
        assert 1e9 <= p.beta <= 1e12
        assert p.ports is None or p.ports >= 1
        assert len(p.source) > 40
    assert ccb.preset("sg2260").ports == 2
    # One rule for every NVLink preset: a port is one link. A100: 12 NVLink3 links of 25 GB/s
    # (600 GB/s bidirectional in total); H100: 18 NVLink4 links of 25 GB/s (900 GB/s).
    assert (ccb.preset("a100_nvlink").ports, ccb.preset("a100_nvlink").links, ccb.preset("a100_nvlink").beta) == (
        12,
        12,
        25e9,
    )
    assert (ccb.preset("h100_nvswitch").links, ccb.preset("h100_nvswitch").beta) == (18, 25e9)
    assert ccb.preset("ib_ndr").effective_ports(32) == 1  # one NIC
    assert ccb.preset("ib_ndr").ports_for(32) == 31
    with pytest.raises(ValueError):
        ccb.preset("b200")


def test_format_bytes():
    assert ccb.format_bytes(4096) == "4 KiB"
    assert ccb.format_bytes(2**20 * 1.5) == "1.5 MiB"
    assert ccb.format_bytes(512) == "512 B"


def test_format_time():
    assert ccb.format_time(1.5e-6) == "1.5 µs"
    assert ccb.format_time(2e-9) == "2 ns"


def test_cjk_font_renders_chinese_without_glyph_warnings(recwarn):
    from ccb_helpers.plotting import cjk_font_name, use_book_style

    use_book_style()
    assert cjk_font_name() is not None
    fig, ax = plt.subplots()
    ax.set_title("带宽下界与拓扑直径")
    fig.canvas.draw()
    plt.close(fig)
    assert not [w for w in recwarn if "Glyph" in str(w.message)]


def test_figures_use_the_simplified_chinese_face():
    """The book is Simplified Chinese: its figures use Noto Sans SC, not the TC face of the
    ``cvttf-notosanscjk-regular`` wheel used before (它的 这/递/骨/直 are drawn the Traditional way)."""
    from matplotlib import font_manager

    from ccb_helpers.plotting import cjk_font_name, use_book_style

    use_book_style()
    assert cjk_font_name() == "Noto Sans SC"
    assert plt.rcParams["font.family"][0] == "Noto Sans SC"
    path = font_manager.findfont(font_manager.FontProperties(family="Noto Sans SC"), fallback_to_default=False)
    from fontTools.ttLib import TTFont

    names = TTFont(path, lazy=True)["name"]
    assert names.getDebugName(1) == "Noto Sans SC" and "SC" in names.getDebugName(6)


# -- unit formatting at the boundaries (#42) -------------------------------------------------


# Expected strings worked by hand: 0.99995 s rounds to 1000 ms at three digits, which is 1 s;
# 1023.96 B rounds to 1024 B = 1 KiB; 1048575.9 B = 1023.9999 KiB rounds to 1024 KiB = 1 MiB;
# 1.5288e13 B / 2**40 = 13.904 TiB; 1234.6e9 B/s = 1234.6 GB/s, whole GB/s at the top unit.
@pytest.mark.parametrize(
    "function, value, expected",
    [
        ("format_time", 0.99995, "1 s"),
        ("format_time", 999.9999, "1000 s"),
        ("format_time", 0.00099996, "1 ms"),
        ("format_time", 9.9996e-7, "1 µs"),
        ("format_time", 1e-15, "0.000001 ns"),
        ("format_time", 12345.4, "12345 s"),
        ("format_bytes", 1023.96, "1 KiB"),
        ("format_bytes", 1048575.9, "1 MiB"),
        ("format_bytes", 0.04, "0.04 B"),
        ("format_bytes", 1.5288e13, "13.9 TiB"),
        ("format_bytes", 2**96, "65536 YiB"),
        ("format_bandwidth", 1234.6e9, "1235 GB/s"),
        ("format_bandwidth", 1.0, "0.000000001 GB/s"),
        ("format_bandwidth", 999.96e9, "1000 GB/s"),
    ],
)
def test_units_round_into_the_next_unit_and_never_print_an_exponent(function, value, expected):
    assert getattr(ccb, function)(value) == expected


_UNIT_SCALES = {
    "format_time": ({"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}, 1000, "s", "ns"),
    "format_bytes": ({u: 1024**k for k, u in enumerate("B KiB MiB GiB TiB PiB EiB ZiB YiB".split())}, 1024, "YiB", "B"),
    "format_bandwidth": ({"GB/s": 1e9}, None, "GB/s", "GB/s"),
}


def _check_unit_text(function, value, text):
    """The general rule: a plain decimal (no exponent), under one step of its unit unless the unit
    is the largest, at least 1 unless it is the smallest, never 0 for a value that is not, and
    equal to the value rounded at its last printed digit."""
    from decimal import Decimal

    scales, step, top, bottom = _UNIT_SCALES[function]
    number, unit = text.split(" ")
    assert re.fullmatch(r"\d+(\.\d+)?", number), text
    assert unit in scales, text
    shown = Decimal(number)
    if unit != top:
        assert shown < step, text
    if unit != bottom and value != 0:  # zero is '0 s' (no prefix for nothing)
        assert shown >= 1, text
    assert (shown == 0) == (value == 0), text
    exact = Decimal(value) / Decimal(scales[unit])
    last_digit = Decimal(1).scaleb(shown.as_tuple().exponent)
    # Rounded at its last digit (or to 15 significant digits, beyond a float's precision).
    assert abs(shown - exact) <= last_digit / 2 + abs(exact) * Decimal("1e-14"), (value, text)


@pytest.mark.parametrize("function", list(_UNIT_SCALES))
@given(value=st.floats(min_value=0, max_value=1e300, allow_nan=False, allow_infinity=False, allow_subnormal=True))
@example(value=5e-324)
@example(value=0.99995)
@example(value=999.9999)
@example(value=1023.96)
@example(value=1048575.9)
@example(value=0.04)
@example(value=1.5288e13)
@example(value=1234.5e9)
def test_unit_formatting_follows_the_general_rule(function, value):
    _check_unit_text(function, value, getattr(ccb, function)(value))


@pytest.mark.parametrize("function", list(_UNIT_SCALES))
def test_unit_formatting_rule_at_every_rounding_boundary(function):
    """Just below and at each carry point of every unit (x.5 of the last digit, 999.95…, 1023.95…)."""
    scales, _, _, _ = _UNIT_SCALES[function]
    for scale in scales.values():
        for mantissa in (0.05, 0.0995, 0.9995, 0.99995, 1, 9.995, 99.95, 999.5, 999.95, 1023.5, 1023.95, 1023.9999):
            for nudge in (-1e-9, 0, 1e-9):
                value = mantissa * scale * (1 + nudge)
                _check_unit_text(function, value, getattr(ccb, function)(value))
