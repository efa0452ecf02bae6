"""Explorers: every control through the update path, the thread race, in-place = fresh, close().

Expected numbers come from the library's formulas evaluated independently of the explorer (or by
hand, in comments); figures are compared pixel for pixel with a freshly built explorer, which
is what "no stale figure" means.
"""

from __future__ import annotations

import base64
import gc
import io
import logging
import math
import pathlib
import random
import re
import sys
import threading
import weakref

import ipywidgets as widgets
import numpy as np
import pytest
import traitlets
from PIL import Image

import ccb_helpers as ccb
from ccb_helpers.explorers import Explorer
from ccb_helpers.plotting import BOOK_WIDTH

EXPLORERS = [
    ccb.PropagationExplorer,
    ccb.TopologyExplorer,
    ccb.BandwidthExplorer,
    ccb.AlgorithmExplorer,
    ccb.BisectionExplorer,
    ccb.TwoLevelExplorer,
]
#: Chapters 6-8's explorers; the MPI one browses the chapter's stored sweep.
MPI_SWEEP = str(pathlib.Path(__file__).resolve().parents[1] / "ccb_helpers" / "data" / "mpi" / "mpi_sweep_example.json")
NEW_EXPLORERS = {
    "MPIResultExplorer": lambda **values: ccb.MPIResultExplorer(MPI_SWEEP, **values),
    "SynthesisExplorer": lambda **values: ccb.SynthesisExplorer(**values),
    "NcclExplorer": lambda **values: ccb.NcclExplorer(**values),
}


def open_widgets() -> dict:
    """The kernel-side registry of open widgets (ipywidgets 8 and 7)."""
    try:
        from ipywidgets.widgets.widget import _instances  # ipywidgets 8
    except ImportError:
        return widgets.Widget.widgets  # ipywidgets 7
    return _instances


def pixels(png: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(png))
    return np.asarray(image if image.mode == "RGB" else image.convert("RGB"))


def is_blank(png: bytes) -> bool:
    """A figure with (almost) nothing on it: fewer than 1 % non-white pixels."""
    dark = pixels(png) < 240
    # A pixel is non-white if any channel is dark (np.any(axis=-1) did the same, 7x slower).
    return np.count_nonzero(dark[..., 0] | dark[..., 1] | dark[..., 2]) / (dark.shape[0] * dark.shape[1]) < 0.01


def texts_inside(fig) -> None:
    """Nothing drawn is cut off at the figure's edges (the layout is fixed, not tight)."""
    drawn = fig.get_tightbbox(fig.canvas.get_renderer())  # inches, everything that is drawn
    width, height = fig.get_size_inches()
    assert drawn.x0 >= -0.01 and drawn.y0 >= -0.01 and drawn.x1 <= width + 0.01 and drawn.y1 <= height + 0.01, drawn


def same_as_fresh(e: Explorer) -> None:
    """The explorer shows exactly what a new explorer built with its current values shows."""
    fresh = type(e)(*e._init_args, **e.values)
    try:
        assert e.readout.value == fresh.readout.value
        # Equal PNG bytes are equal pixels (the encoder is deterministic); decode only otherwise.
        assert e.png() == fresh.png() or np.array_equal(pixels(e.png()), pixels(fresh.png()))
        assert bytes(e.image.value) == e.png()
    finally:
        fresh.close()


@pytest.fixture
def fast_switching():
    """Switch threads every microsecond, so two threads interleave inside the update machinery."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


# --------------------------------------------------------------------------- a small explorer


RANGES = {"a": (0, 10, 5), "b": (20, 30, 25), "c": (3, 4, 3)}


class Toy(Explorer):
    """A cheap explorer with the same kind of coupling as the topology explorer (family -> size range)."""

    figsize = (1.6, 1.0)

    def _controls(self):
        return {
            "family": widgets.Dropdown(options=list(RANGES), value="a"),
            "size": widgets.IntSlider(value=5, min=0, max=10),
        }

    def _adjust(self, name):
        if name == "family":
            lo, hi, default = RANGES[self.controls["family"].value]
            self._set_range("size", lo, hi, default)

    def setup(self, figure):
        ax = figure.add_axes((0, 0, 1, 1))
        (self.bar,) = ax.bar([0], [1])
        self.label = ax.text(0, 35, "", ha="center", va="top")
        ax.set_xlim(-1, 1)
        ax.set_ylim(0, 36)
        ax.set_axis_off()  # cheap to draw: the race test redraws it a thousand times

    def refresh(self, family, size):
        self.bar.set_height(size + 3)  # never an empty picture: "blank" means the redraw failed
        self.label.set_text(family)
        return f"{family}:{size}"


class SimpleToy(Explorer):
    """The simple API (draw on a cleared figure), as the new chapters' explorers use it."""

    figsize = (1.6, 1.0)
    delay = 0.0

    def _controls(self):
        return {"x": widgets.IntSlider(value=3, min=0, max=20), "y": widgets.IntSlider(value=1, min=0, max=20)}

    def draw(self, figure, x, y):
        if self.delay:
            threading.Event().wait(self.delay)
        if x == 13:
            raise RuntimeError("unlucky x")
        ax = figure.add_axes((0, 0, 1, 1))
        ax.bar([0, 1], [x, y])
        ax.set_ylim(0, 21)
        return f"x={x} y={y}"


def test_race_two_threads_hundreds_of_interleavings(fast_switching):
    e = Toy()
    published = []
    e.image.observe(lambda change: published.append(bytes(change["new"])), names="value")
    fresh_png = {}
    rng = random.Random(1)
    for _ in range(150):
        plan_a = [rng.choice(list(RANGES)) for _ in range(4)]
        plan_b = [rng.randrange(0, 31) for _ in range(6)]

        def families(plan_a=plan_a):
            for family in plan_a:
                e.controls["family"].value = family

        def sizes(plan_b=plan_b):
            for size in plan_b:
                e.controls["size"].value = size  # plain assignment, as a widget message does

        threads = [threading.Thread(target=families), threading.Thread(target=sizes)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Once the changing threads have returned, the figure shows the final values: no event loop.
        v = e.values
        lo, hi, _ = RANGES[v["family"]]
        assert lo <= v["size"] <= hi
        assert e.readout.value == f"{v['family']}:{v['size']}"
        key = (v["family"], v["size"])
        if key not in fresh_png:
            with Toy(**v) as fresh:
                fresh_png[key] = fresh.png()
        assert e.png() == fresh_png[key] or np.array_equal(pixels(e.png()), pixels(fresh_png[key]))
    assert e.error is None
    assert published and not any(is_blank(png) for png in published)
    e.close()


def test_redraws_coalesce_while_one_is_in_flight():
    e = SimpleToy()
    e.delay = 0.05  # a slow redraw: changes arrive while it runs
    before = e.redraws
    threads = [
        threading.Thread(target=lambda c=c: [setattr(e.controls[c], "value", v) for v in range(0, 12)])
        for c in ("x", "y")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert e.values == {"x": 11, "y": 11}
    assert e.readout.value == "x=11 y=11"
    assert e.redraws - before < 24  # 24 changes, merged into fewer redraws
    e.close()


def test_exceptions_surface_in_readout_and_log(caplog):
    e = SimpleToy()
    good_png = e.png()
    with caplog.at_level(logging.ERROR, logger="ccb_helpers.explorers"):
        e.controls["x"].value = 13  # a reader's change that makes draw() fail
    assert isinstance(e.error, RuntimeError)
    assert "unlucky x" in e.readout.value and "RuntimeError" in e.readout.value
    assert any("unlucky x" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)
    assert e.png() == good_png  # the last good figure stays
    with pytest.raises(RuntimeError, match="unlucky"):
        e.update(x=13)  # programmatic updates raise
    e.update(x=4)  # and the explorer recovers
    assert e.error is None and e.readout.value == "x=4 y=1"
    e.close()


def test_simple_api_still_works_and_redraws_once_per_change():
    e = SimpleToy(x=2)
    assert e.readout.value == "x=2 y=1"
    before = e.redraws
    e.controls["x"].value = 5
    assert e.redraws == before + 1 and e.readout.value == "x=5 y=1"
    e.update(x=6, y=7)  # several controls at once: one redraw
    assert e.redraws == before + 2 and e.readout.value == "x=6 y=7"
    e.close()


def test_subclass_without_draw_is_rejected():
    class Nothing(Explorer):
        def _controls(self):
            return {"x": widgets.IntSlider()}

    with pytest.raises(TypeError, match="draw"):
        Nothing()


# --------------------------------------------------------------------------- validation and close


def test_constructor_keywords_take_the_update_path():
    e = ccb.TopologyExplorer(family="hypercube")  # the size range follows the family
    assert e.values["size"] == 4 and e.topology.n == 16
    e.close()
    e = ccb.AlgorithmExplorer(preset="ib_ndr")  # the preset's alpha and beta are applied
    p = ccb.preset("ib_ndr")
    # on the sliders' grid (0.001 in log10): within 0.12 % of the preset
    assert e.values["alpha_us"] == pytest.approx(p.alpha * 1e6, rel=1.2e-3)
    assert e.values["beta_gbps"] == pytest.approx(p.beta / 1e9, rel=1.2e-3)
    assert ccb.format_time(p.alpha) in e.figure.axes[0].get_title()
    e.close()
    with pytest.raises(ValueError, match="size must be between 3 and 48"):
        ccb.BisectionExplorer(family="ring", size=2)


def test_size_is_capped_before_anything_is_built(monkeypatch):
    import ccb_helpers.explorers.topology as module

    built = []
    real = module.family_instance
    monkeypatch.setattr(
        module, "family_instance", lambda family, size: built.append((family, size)) or real(family, size)
    )
    with pytest.raises(ValueError, match="between 1 and 7"):
        ccb.TopologyExplorer(family="hypercube", size=30)
    assert ("hypercube", 30) not in built


@pytest.mark.parametrize(
    "cls, bad, error",
    [
        (ccb.PropagationExplorer, {"n": 0}, ValueError),
        (ccb.PropagationExplorer, {"n": 8.0}, TypeError),
        (ccb.PropagationExplorer, {"all_port": "yes"}, TypeError),
        (ccb.TopologyExplorer, {"family": "dragonfly"}, ValueError),
        (ccb.BandwidthExplorer, {"m": 1000.0}, ValueError),  # not a power of two on the size slider
        (ccb.BandwidthExplorer, {"beta_gbps": 5000}, ValueError),
        (ccb.AlgorithmExplorer, {"preset": "ib_ndr", "alpha_us": 20.0}, ValueError),  # contradicts the preset
        (ccb.BisectionExplorer, {"oversubscription": 3.0}, ValueError),
    ],
)
def test_bad_values_raise_value_or_type_error_and_change_nothing(cls, bad, error):
    e = cls()
    before, png = e.values, e.png()
    with pytest.raises(error) as info:
        e.update(**bad)
    assert not isinstance(info.value, traitlets.TraitError)
    assert any(name in str(info.value) for name in bad)
    assert e.values == before and e.png() == png
    e.close()


def test_unknown_control():
    with pytest.raises(TypeError, match="unknown control"):
        ccb.PropagationExplorer(size=3)
    e = ccb.PropagationExplorer()
    with pytest.raises(TypeError, match="unknown control"):
        e.update(size=3)
    e.close()


def test_close_releases_widgets_and_figures():
    from matplotlib.figure import Figure

    def live_figures():
        gc.collect()
        return sum(isinstance(o, Figure) for o in gc.get_objects())

    for _ in range(2):  # warm caches (fonts, lru caches of the explorers)
        ccb.TopologyExplorer().close()
    figures_before = live_figures()
    blocks_before = sys.getallocatedblocks()
    refs = []
    for _ in range(20):
        e = ccb.TopologyExplorer()
        refs.append(weakref.ref(e.figure))
        model_id = e.widget.model_id
        e.close()
        assert e.widget.comm is None and all(c.comm is None for c in e.controls.values())
        assert model_id not in open_widgets()
    del e
    gc.collect()
    assert all(ref() is None for ref in refs)
    assert live_figures() <= figures_before
    # One explorer that is not released holds ~12,000 Python memory blocks (+71 MiB for 20 before
    # close() existed); what remains after 20 closed ones is matplotlib's glyph caches.
    assert sys.getallocatedblocks() - blocks_before < 2500
    closed = ccb.PropagationExplorer()
    closed.close()
    with pytest.raises(ValueError, match="closed"):
        closed.update(n=5)


def test_mimebundle_has_widget_view_and_2x_png():
    e = ccb.PropagationExplorer()
    data, metadata = e._repr_mimebundle_()
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == e.widget.model_id
    png = base64.b64decode(data["image/png"])
    assert Image.open(io.BytesIO(png)).size[0] == 2 * round(BOOK_WIDTH * 100)  # 2x the column's 688 CSS px
    # shown at its CSS width without a kernel too (JupyterLab showed the stored PNG 968 px wide)
    assert metadata["image/png"]["width"] == 688 and set(metadata) == {"image/png"}
    # and described in words for the site's <img alt> (#43): the explorer and its figure's titles
    assert metadata["image/png"]["ccb_alt"].startswith("PropagationExplorer（默认参数下的静态图）：")
    e.close()


@pytest.mark.parametrize("cls", EXPLORERS + list(NEW_EXPLORERS.values()), ids=lambda c: getattr(c, "__name__", "?"))
def test_figures_are_readable(cls):
    e = cls()
    fig = e.figure
    assert fig.get_size_inches()[0] <= BOOK_WIDTH + 1e-9  # shown at its natural size: nothing shrunk
    texts = [
        t
        for t in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "get_text"))
        if t.get_visible() and t.get_text()
    ]
    assert min(t.get_fontsize() for t in texts) >= 7.5  # 7.5 pt = 10.4 CSS px
    assert len([ax for ax in fig.axes if ax.get_visible()]) <= 2
    assert not is_blank(e.png())
    e.close()


# --------------------------------------------------------------------------- every explorer, every control


SWEEPS = {
    ccb.PropagationExplorer: [
        {"n": 2},
        {"n": 65},
        {"k": 8},
        {"n": 1024},
        {"all_port": True},
        {"n": 40},
        {"all_port": False},
        {"k": 1},
        {"n": 64},
    ],
    ccb.TopologyExplorer: [{"family": f} for f in ccb.TopologyExplorer.SIZES]
    + [{"family": "torus3d", "size": 5, "k": 6}, {"family": "ring", "size": 3}, {"k": 1}],
    ccb.BandwidthExplorer: [{"primitive": p} for p in ccb.PRIMITIVES]
    + [{"n": 2}, {"k": 8}, {"m": 2.0**10}, {"beta_gbps": 1.0}, {"primitive": "scatter", "n": 256, "m": 2.0**34}],
    ccb.AlgorithmExplorer: [
        {"n": 2},
        {"n": 1024},
        {"k": 2},
        {"efficiency": True},
        {"preset": "ib_ndr"},
        {"alpha_us": 100.0},
        {"efficiency": False},
        {"n": 48},
        {"preset": "h100_nvswitch", "k": 1},
        {"primitive": "broadcast"},
        {"primitive": "reduce", "with_gamma": True, "k": 2},
        {"gamma_ps": 500.0},
        {"primitive": "reduce_scatter", "n": 12},
        {"primitive": "all_reduce", "with_gamma": False},
    ],
    ccb.BisectionExplorer: [
        {"family": "fat_tree"},
        {"oversubscription": 4.0},
        {"size": 4},
        {"primitive": "all_reduce"},
        {"family": "hypercube"},
        {"family": "fully_connected", "size": 16},
        {"size": 2},
        {"family": "mesh2d"},
    ],
    ccb.TwoLevelExplorer: [
        {"nodes": 1},
        {"nodes": 16},
        {"m": 2.0**10},
        {"m": 2.0**32},
        {"nic": "node"},
        {"ports": 2},
        {"nodes": 3, "m": 2.0**20},
        {"nic": "gpu", "ports": 1},
    ],
}


@pytest.mark.parametrize("cls", EXPLORERS)
def test_in_place_updates_equal_a_fresh_explorer(cls):
    e = cls()
    for change in SWEEPS[cls]:
        e.update(**change)
        assert not is_blank(e.png())
        texts_inside(e.figure)
    same_as_fresh(e)
    e.close()


@pytest.mark.parametrize(
    "cls, first, second",
    [
        (ccb.TopologyExplorer, ("family", ["torus3d", "ring", "hypercube", "fat_tree"]), ("size", [3, 4, 5, 6])),
        (ccb.AlgorithmExplorer, ("preset", list(ccb.PRESETS) + ["custom"]), ("alpha_us", [0.5, 2.0, 20.0])),
        (ccb.BisectionExplorer, ("family", ["fat_tree", "ring", "torus2d"]), ("oversubscription", [2.0, 4.0, 1.0])),
        (ccb.PropagationExplorer, ("all_port", [True, False, True]), ("n", [10, 70, 33])),
        (ccb.BandwidthExplorer, ("primitive", ["scatter", "all_to_all", "reduce"]), ("m", [2.0**12, 2.0**20, 2.0**33])),
    ],
)
def test_real_explorers_race_two_threads(cls, first, second, fast_switching):
    e = cls()
    rng = random.Random(7)
    for _ in range(2):

        def move(name, options):
            for value in rng.sample(options, len(options)):
                e.controls[name].value = value

        threads = [threading.Thread(target=move, args=first), threading.Thread(target=move, args=second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert e.error is None
        same_as_fresh(e)
    e.close()


# Chapters 6-8: two threads move a dropdown (or the coupled slider) and a slider at once; the
# figure and readout end equal to a fresh explorer's, and no PNG ever published is blank.
NEW_RACES = {
    "MPIResultExplorer": (
        ("pair", ["ring:all_reduce", "bruck:all_gather", "binomial_tree:broadcast", "recursive_doubling:all_reduce"]),
        ("alpha_us", [0.05, 3.0, 400.0]),
        ("beta_gbps", [0.01, 2.0, 300.0]),
    ),
    "SynthesisExplorer": (
        ("topology", ["ring 6", "torus 3x3", "hypercube 3-d", "DGX-1 (V100)"]),
        ("chunks", [1, 2, 6, 3]),
        ("step", [1, 2, 3]),
    ),
    "NcclExplorer": (
        ("preset", ["ib_h100", "dgx_h100", "ib_h100"]),
        ("log2_m", [3, 20, 34, 11]),
        ("efficiency", [True, False]),
    ),
}


@pytest.mark.parametrize("name", list(NEW_RACES))
def test_chapter_6_to_8_explorers_race_two_threads(name, fast_switching):
    e = NEW_EXPLORERS[name]()
    published = []
    e.image.observe(lambda change: published.append(bytes(change["new"])), names="value")
    rng = random.Random(11)
    first, *others = NEW_RACES[name]
    for round_ in range(3):
        second = others[round_ % len(others)]

        def move(control, options):
            for value in rng.sample(options, len(options)):
                if control == "step":  # the step slider's range follows the steps slider
                    value = min(value, e.controls["step"].max)
                e.controls[control].value = value

        threads = [threading.Thread(target=move, args=first), threading.Thread(target=move, args=second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert e.error is None
        same_as_fresh(e)
    assert published and not any(is_blank(png) for png in published)
    e.close()


@pytest.mark.parametrize(
    "name, changes",
    [
        (
            "MPIResultExplorer",
            [
                {"pair": "bruck:all_gather"},
                {"ratio": True},
                {"m": 2**26},
                {"alpha_us": 1000.0},
                {"beta_gbps": 0.001},
                {"ratio": False},
                {"pair": "ring:all_reduce"},
            ],
        ),
        (
            "SynthesisExplorer",
            [
                {"topology": "ring 6"},
                {"steps": 5},
                {"chunks": 1},
                {"step": 5},
                {"topology": "hypercube 3-d"},
                {"chunks": 6, "step": 2},
            ],
        ),
        (
            "NcclExplorer",
            [
                {"log2_m": 3},
                {"n": 2},
                {"efficiency": True},
                {"preset": "ib_h100"},
                {"n": 2048, "log2_m": 34},
                {"efficiency": False},
                {"preset": "dgx_h100"},
            ],
        ),
    ],
)
def test_chapter_6_to_8_in_place_updates_equal_a_fresh_explorer(name, changes):
    e = NEW_EXPLORERS[name]()
    for change in changes:
        e.update(**change)
        assert not is_blank(e.png())
        texts_inside(e.figure)
    same_as_fresh(e)
    assert all(getattr(c, "continuous_update", True) for c in e.controls.values())  # sliders follow the drag
    e.close()


# Changes that redraw only what moved over the kept pixels of the rest (Explorer._keep_background,
# #43/#44), between changes that do not: after every one the PNG equals a fresh explorer's.
BACKGROUND_CHANGES = {
    "NcclExplorer": [{"log2_m": 10}, {"log2_m": 30}, {"efficiency": True}, {"log2_m": 5}, {"n": 4}, {"log2_m": 33}],
    "MPIResultExplorer": [{"m": 2**26}, {"m": 2**10}, {"alpha_us": 50.0}, {"m": 2**20}, {"ratio": True}, {"m": 2**26}],
    "SynthesisExplorer": [{"step": 2}, {"step": 3}, {"chunks": 2}, {"step": 1}, {"topology": "ring 6"}, {"step": 2}],
}


@pytest.mark.parametrize("name", list(BACKGROUND_CHANGES))
def test_redrawing_only_what_moved_gives_a_fresh_explorers_pixels(name):
    e = NEW_EXPLORERS[name]()
    try:
        for change in BACKGROUND_CHANGES[name]:
            e.update(**change)
            same_as_fresh(e)
        assert e._background is not None  # the last change did redraw only what moved
    finally:
        e.close()


def test_mpi_explorer_readout_says_which_term_binds():
    e = NEW_EXPLORERS["MPIResultExplorer"](pair="ring:all_reduce", m=2**26)
    assert "带宽项（β）决定：α 只改变" in e.readout.value  # 64 MiB: 1.5 M / beta >> 2 alpha
    e.update(alpha_us=10**4, beta_gbps=10**3)  # 2 x 10 ms against 1.5 x 64 MiB / 1 TB/s = 0.1 ms
    assert "延迟项（α）决定：β 只改变" in e.readout.value
    e.close()


def test_propagation_explorer_numbers():
    e = ccb.PropagationExplorer()
    assert (e.n, e.k, e.steps) == (64, 1, 6)  # 2^6 = 64
    e.update(k=2)
    assert e.steps == 4 and "<b>4</b>" in e.readout.value  # 3^3 = 27 < 64 <= 81 = 3^4
    e.update(n=27)
    assert e.steps == 3 and e.informed == [1, 3, 9, 27]
    e.update(n=28)
    assert e.steps == 4 and e.informed[-1] == 28
    e.update(all_port=True)
    assert e.k == 27 and e.steps == 1
    assert e.controls["k"].disabled and "k 滑块此时不起作用" in e.readout.value
    e.update(all_port=False, k=8, n=9)
    assert "k 再大也不会更快" in e.readout.value  # k = 8 = N - 1: one round
    e.close()


def test_topology_explorer_every_family_and_extreme():
    e = ccb.TopologyExplorer()
    for family, (lo, hi, default) in ccb.TopologyExplorer.SIZES.items():
        e.update(family=family)
        assert e.values["size"] == default  # the size slider follows the family
        assert (e.controls["size"].min, e.controls["size"].max) == (lo, hi)
        for size, k in ((lo, 6), (hi, 1)):
            e.update(size=size, k=k)
            topo = ccb.family_instance(family, size)
            assert e.topology.n == topo.n and e.diameter == topo.step_diameter
            assert e.info == ccb.info_steps(topo.n, max(1, min(k, topo.degree)))
            assert f"直径 D = <b>{topo.step_diameter}</b>" in e.readout.value
            if k > topo.degree:  # k cannot help: the readout says why
                assert f"p = min(k, d) = {max(1, min(k, topo.degree))}：端口数受度数限制" in e.readout.value
    e.close()


def test_topology_explorer_fat_tree_title_matches_readout():
    e = ccb.TopologyExplorer(family="fat_tree", size=16)
    title = e.figure.axes[0].get_title()
    assert "D = 1 轮" in title and "直径 D = <b>1</b>" in e.readout.value  # one round through the switches
    assert "4 跳" in title  # host - leaf - spine - leaf - host
    e.close()


def test_topology_explorer_dropdown_like_a_reader():
    e = ccb.TopologyExplorer()
    e.controls["family"].value = "torus2d"
    assert e.topology.name == "torus 4x4" and e.binding == "tie"  # D = 4 = ceil(log2 16)
    e.controls["size"].value = 8
    assert e.binding == "diameter"  # D = 8 > ceil(log2 64) = 6
    e.close()


def test_bandwidth_explorer_every_primitive_and_extreme():
    e = ccb.BandwidthExplorer()
    for change in SWEEPS[ccb.BandwidthExplorer]:
        e.update(**change)
        v = e.values
        want = ccb.bandwidth_lower_bound(v["primitive"], v["n"], v["m"], v["beta_gbps"] * 1e9, ports=v["k"])
        assert e.bound == pytest.approx(want)
        assert ccb.format_time(want) in e.readout.value and ccb.format_bytes(v["m"]) in e.readout.value
    e.close()


def test_bandwidth_explorer_title_legend_and_size_readout():
    e = ccb.BandwidthExplorer(primitive="all_reduce", n=8, m=2**34)
    left, right = e.figure.axes
    assert right.get_title().endswith("趋于 2")  # 2(N-1)/N -> 2 for AllReduce
    assert e.controls["m"].label == "16 GiB"  # the slider shows a size, not "1.72e+10"
    renderer = e.canvas.get_renderer()
    legend = left.get_legend().get_window_extent(renderer)
    for bar in left.patches:
        if bar.get_visible():
            assert not legend.overlaps(bar.get_window_extent(renderer))
    e.update(primitive="all_gather")
    assert right.get_title().endswith("趋于 1")  # (N-1)/N -> 1
    e.close()


def test_bandwidth_explorer_readout_changes_with_ports():
    e = ccb.BandwidthExplorer(primitive="all_gather", n=8, m=2**30, beta_gbps=100)
    one = e.bound
    e.controls["k"].value = 2
    assert e.bound == pytest.approx(one / 2)
    e.close()


def test_algorithm_explorer_controls():
    e = ccb.AlgorithmExplorer()
    e.controls["preset"].value = "ib_ndr"  # a reader picks a preset: alpha and beta follow
    p = ccb.preset("ib_ndr")
    # on the sliders' grid (0.001 in log10): within 0.12 % of the preset
    assert e.values["alpha_us"] == pytest.approx(p.alpha * 1e6, rel=1.2e-3)
    assert e.values["beta_gbps"] == pytest.approx(p.beta / 1e9, rel=1.2e-3)
    e.controls["alpha_us"].value = 20.0  # moving alpha makes it custom
    assert e.values["preset"] == "custom" and "自定义" in e.readout.value
    for change in SWEEPS[ccb.AlgorithmExplorer]:
        e.update(**change)
        v = e.values
        if v["preset"] == "custom":
            alpha, beta = v["alpha_us"] * 1e-6, v["beta_gbps"] * 1e9
        else:  # a preset's exact numbers, whatever the sliders snapped to
            alpha, beta = ccb.preset(v["preset"]).alpha, ccb.preset(v["preset"]).beta
        m_star = ccb.crossover_size(v["primitive"], v["n"], alpha, beta, ports=v["k"])
        assert e.m_star_value == pytest.approx(m_star)
        assert ccb.format_bytes(m_star) in e.readout.value
        assert e.bands[0][0] == 64.0
    e.close()


def test_algorithm_explorer_title_uses_format_helpers():
    e = ccb.AlgorithmExplorer(preset="custom", alpha_us=10**0.2)  # 1.58489... us
    title = e.figure.axes[0].get_title()
    assert "α = 1.58 µs" in title and "1.58489" not in title
    assert e.readout.layout.min_height  # reserved height: the figure does not jump
    e.close()


def _lines_needed(html_text: str, width_px: float = BOOK_WIDTH * 100) -> int:
    """Lines a readout takes in JupyterLab's HTML widget (as wide as the figure), counted pessimistically:
    a CJK character 1 em, any other 0.6 em, 14 px text and 12 px ``<small>`` (the widget's 13 px and 0.83 em)."""
    lines = 0
    for paragraph in html_text.split("<br>"):
        size = 12 if "<small>" in paragraph else 14
        text = re.sub(r"<[^>]+>", "", paragraph)
        ems = sum(1.0 if ord(c) > 0x2E80 else 0.6 for c in text)
        lines += max(1, math.ceil(ems * size / width_px))
    return lines


def test_algorithm_explorer_reserves_lines_for_its_longest_readout():
    # The reader saw the figure jump 28 px at N = 95-931: five lines of text, four reserved.
    from ccb_helpers.explorers.algorithm import algorithm_frame

    # (N = 95 took five lines then; with Bruck in the catalogue it takes four, and the longest
    # readouts are 2-port AllReduce at N = 1024 with a long preset label.)
    assert _lines_needed(algorithm_frame("a100_nvlink", 1.5, 50.0, 95, 1, False).readout) <= 5
    assert _lines_needed(algorithm_frame("mi355x_xgmi", 1.5, 50.0, 1024, 2, False).readout) == 5
    worst = max(
        _lines_needed(algorithm_frame(preset, 1.5, 50.0, n, k, efficiency, primitive, 1.0, with_gamma).readout)
        for preset in [*ccb.PRESETS, "custom"]
        for n in (2, 3, 16, 95, 96, 500, 931, 1000, 1003, 1024)
        for k in (1, 2)
        for efficiency in (False,)
        for primitive in ("all_reduce", "reduce_scatter", "broadcast", "reduce")
        for with_gamma in (False, True)
    )
    assert worst <= ccb.AlgorithmExplorer.readout_lines, worst


def test_algorithm_explorer_presets_set_gamma_and_the_checkbox_counts_it():
    e = ccb.AlgorithmExplorer(primitive="reduce", n=64)
    e.controls["preset"].value = "h100_nvswitch"  # a preset with a gamma sets the slider to it
    assert e.values["gamma_ps"] == pytest.approx(ccb.preset("h100_nvswitch").gamma * 1e12, rel=1.2e-3)
    e.controls["preset"].value = "ib_ndr"  # no processor named: the slider stays
    assert e.values["gamma_ps"] == pytest.approx(ccb.preset("h100_nvswitch").gamma * 1e12, rel=1.2e-3)
    before = dict(e.times)
    assert "γ = 0" in e.readout.value
    e.update(with_gamma=True, gamma_ps=1000.0)  # 1 ns a byte added: every reduction slower
    assert "计入 γ = 1e+03 ps/B" in e.readout.value
    assert all(np.all(e.times[name] > before[name]) for name in before)
    e.update(primitive="broadcast")  # nothing to add: gamma changes nothing
    assert "γ" not in re.sub(r"<[^>]+>", "", e.readout.value).split("；")[-1]
    e.close()


def test_algorithm_explorer_choosing_custom_says_what_to_do():
    e = ccb.AlgorithmExplorer()
    e.controls["preset"].value = "custom"
    assert "用 α、β 滑块调节" in e.readout.value
    assert e.controls["preset"].layout.width == "auto"  # long preset labels are not cut off
    e.close()


def test_bisection_explorer_controls():
    e = ccb.BisectionExplorer()
    assert e.controls["oversubscription"].disabled  # torus: the factor does not apply
    e.controls["family"].value = "fat_tree"
    assert not e.controls["oversubscription"].disabled and e.topology.family == "fat_tree"
    e.controls["oversubscription"].value = 4.0
    assert e.topology.oversubscription == 4.0 and e.tighter == "bisection"  # AllToAll, 4:1
    e.controls["primitive"].value = "all_reduce"
    assert e.tighter == "node"
    e.update(size=4)  # 2 hosts per leaf: 4:1 cannot be built, and the readout says so
    assert e.topology.oversubscription == 1.0 and "造不出来" in e.readout.value
    for change in ({"size": 64}, {"family": "ring"}, {"size": 3}, {"size": 48}, {"family": "fully_connected"}):
        e.update(**change)
        topo = e.topology
        assert e.bisection == pytest.approx(ccb.bisection_lower_bound(e.values["primitive"], topo, 2**30, 50e9))
        assert str(topo.bisection_links) in e.readout.value
    e.close()


def test_bisection_explorer_tie_is_called_a_tie():
    # Fully connected, N = 8, AllToAll: bisection (N/2)^2 M/N over N^2/4 links = M/(N beta); node-level
    # (N-1)M/N over (N-1) links = M/(N beta). Equal.
    e = ccb.BisectionExplorer(family="fully_connected", size=8, primitive="all_to_all")
    assert e.tighter == "tie" and "两个下界相等" in e.readout.value and "更紧" not in e.readout.value
    e.close()
