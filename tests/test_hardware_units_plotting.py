"""Presets, formatting helpers and the figure style."""

import matplotlib.pyplot as plt
import pytest

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
