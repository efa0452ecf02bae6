"""The live-explorer core (issue #25): controls as data, exact compression, the build step's parsing,
and ccb-live.js's Python formatters and SVG renderer, compared with Python in one page."""

from __future__ import annotations

import math
import random

import ipywidgets as widgets
import pytest

from ccb_helpers.explorers import Explorer
from ccb_helpers.live.build import explorer_call, live_html, module_name
from ccb_helpers.live.compress import compress_texts, expand_text, lookup, pack, tabulate, unpack
from ccb_helpers.live.controls import controls_spec
from ccb_helpers.units import format_bandwidth, format_bytes, format_time


class _AllKinds(Explorer):
    """Every kind of control the live page supports."""

    figsize = (3, 2)

    def _controls(self):
        return {
            "n": widgets.IntSlider(value=4, min=2, max=10, step=2, description="N"),
            "x": widgets.FloatSlider(value=0.5, min=0, max=1, step=0.25, description="x"),
            "m": widgets.FloatLogSlider(value=1e3, base=10, min=0, max=6, step=0.5, description="M"),
            "algo": widgets.Dropdown(options=[("Ring", "ring"), ("Tree", "tree")], value="tree", description="算法"),
            "p": widgets.SelectionSlider(options=[("one", 1), ("two", 2), ("four", 4)], value=2, description="p"),
            "on": widgets.Checkbox(value=True, description="on"),
        }

    def draw(self, figure, **values):
        figure.subplots().plot([0, 1])
        return str(values)


def test_controls_spec_reads_every_kind_of_widget():
    e = _AllKinds()
    try:
        spec = {c["name"]: c for c in controls_spec(e)}
    finally:
        e.close()
    assert [c for c in spec] == ["n", "x", "m", "algo", "p", "on"]
    assert spec["n"] | {} == {
        "name": "n",
        "widget": "IntSlider",
        "label": "N",
        "default": 4,
        "disabled": False,
        "kind": "range",
        "min": 2,
        "max": 10,
        "step": 2,
    }
    assert (spec["x"]["kind"], spec["x"]["min"], spec["x"]["max"], spec["x"]["step"]) == ("range", 0.0, 1.0, 0.25)
    # A log slider moves the exponent 0..6 by 0.5: 13 positions, values 10**e computed by hand.
    assert spec["m"]["log_base"] == 10 and spec["m"]["min"] == 0 and spec["m"]["max"] == 6 and spec["m"]["step"] == 0.5
    assert len(spec["m"]["values"]) == 13 and spec["m"]["values"][0] == 1 and spec["m"]["values"][-1] == 1_000_000
    assert math.isclose(spec["m"]["values"][1], math.sqrt(10), rel_tol=1e-15)
    assert spec["algo"]["options"] == [["Ring", "ring"], ["Tree", "tree"]] and spec["algo"]["default"] == "tree"
    assert spec["p"]["kind"] == "select" and spec["p"]["options"] == [["one", 1], ["two", 2], ["four", 4]]
    assert spec["on"] == {
        "name": "on",
        "widget": "Checkbox",
        "label": "on",
        "default": True,
        "disabled": False,
        "kind": "checkbox",
    }


def test_controls_spec_refuses_what_it_cannot_export():
    with pytest.raises(TypeError, match="explorer must be an Explorer"):
        controls_spec(object())

    class Text(_AllKinds):
        def _controls(self):
            return {"t": widgets.Text(value="a")}

    e = Text()
    try:
        with pytest.raises(TypeError, match="Text has no live counterpart"):
            controls_spec(e)
    finally:
        e.close()


def test_compression_is_exact_on_random_values():
    rng = random.Random(25)
    texts = [
        f"N = {rng.randint(0, 10**6)}，t = {rng.random() * 10 ** rng.randint(-9, 9):.4g} s；~{rng.choice('ab')}"
        for _ in range(300)
    ]
    packed = compress_texts(texts)
    assert [expand_text(packed, i) for i in range(len(texts))] == texts
    assert len(packed["templates"]) < 40  # the words are stored once, not per text
    figures = [
        {
            "panels": [
                {
                    "y": [rng.random(), 1, 2, 3],
                    "label": rng.choice(["~tilde", "ring", "~~two", "环"]),
                    "fixed": [0.5, 1.5, 2.5, "same"],
                }
            ]
        }
        for _ in range(200)
    ]
    assert unpack(pack(figures)) == figures
    table = tabulate(
        [("a", [1, 2, 3]), ("b", [True, False])],
        lambda s: None if s["a"] == 2 and s["b"] else (f"a = {s['a']}", {"v": [s["a"], s["b"]]}),
    )
    assert table["index"][2] == -1
    assert lookup(table, {"a": 3, "b": False}) == ("a = 3", {"v": [3, False]})
    with pytest.raises(ValueError, match="not reachable"):
        lookup(table, {"a": 2, "b": True})


def test_build_step_names_and_cell_parsing():
    assert module_name("TopologyExplorer") == "topology_explorer"
    assert module_name("NcclExplorer") == "nccl_explorer"
    assert explorer_call('ccb.MPIResultExplorer("data/mpi_sweep_example.json")') == (
        "MPIResultExplorer",
        ["data/mpi_sweep_example.json"],
        {},
    )
    assert explorer_call("ccb.SynthesisExplorer()") == ("SynthesisExplorer", [], {})
    for source in [
        "import os; ccb.X()",
        "ccb.PropagationExplorer(n=f(3))",
        "print(1)",
        "ccb.PropagationExplorer(**kw)",
        "ccb.PropagationExplorer(n=2**1000)",
    ]:
        assert explorer_call(source) is None, source
    with pytest.raises(ValueError, match="class_name"):
        module_name("not a class")


def test_live_html_escapes_its_script_and_compresses_large_data():
    small = live_html("X", ["a/b.json"], {"n": 3}, {"explorer": "X", "data": {"s": "</script><!--"}})
    assert small.count("</script>") == 1 and "<!--" not in small
    assert 'data-args="[&quot;a/b.json&quot;]"' in small
    big = live_html("X", [], {}, {"explorer": "X", "data": list(range(20_000))})
    assert '"encoding":"gzip+base64"' in big and len(big) < 60_000


# -- ccb-live.js against Python (one page.evaluate per comparison) ---------------------------------


def _floats(rng: random.Random, count: int) -> list[float]:
    values = [
        0.0,
        0.5,
        1.5,
        2.5,
        0.125,
        0.375,
        999.95,
        9.9995,
        1e-5,
        123456789.0,
        1e16,
        1e21,
        2.0**70,
        1 / 3,
        0.000123456,
        99999.95,
        1023.5,
        1024.0,
        1536.0,
        1e-9,
        2.5e-6,
        0.0183,
        450e9,
        2.5e7,
        # The unit formatters' boundaries (#42): a carry into the next unit, never an exponent.
        0.99995,
        999.9999,
        1023.96,
        1048575.9,
        0.04,
        1.5288e13,
        1234.5e9,
        5e-324,
        1e-15,
        2.0**96,
        1e300,
    ]
    while len(values) < count:
        mode = rng.random()
        if mode < 0.3:  # exact ties of the decimal rounding: k / 2**j
            values.append(rng.randint(1, 10**6) / 2 ** rng.randint(1, 12))
        elif mode < 0.5:
            values.append(float(rng.randint(0, 2**40)))
        else:
            values.append(rng.random() * 10 ** rng.randint(-12, 15))
    return [v if rng.random() < 0.9 else -v for v in values[:count]]


@pytest.mark.browser
def test_js_formatters_equal_python_on_random_numbers(live_harness):
    rng = random.Random(2025)
    xs = _floats(rng, 1500)
    got = live_harness.evaluate(
        """xs => xs.map(x => [
        CCBLive.fmt.g(x), CCBLive.fmt.g(x, 3), CCBLive.fmt.g(x, 4), CCBLive.fmt.fixed(x, 0), CCBLive.fmt.fixed(x, 1),
        CCBLive.fmt.fixed(x, 3), CCBLive.fmt.floatRepr(x),
        x >= 0 ? CCBLive.fmt.formatBytes(x) : null, x >= 0 ? CCBLive.fmt.formatTime(x) : null,
        x >= 0 ? CCBLive.fmt.formatBandwidth(x) : null])""",
        xs,
    )
    for x, row in zip(xs, got):
        expected = [
            f"{x:g}",
            f"{x:.3g}",
            f"{x:.4g}",
            f"{x:.0f}",
            f"{x:.1f}",
            f"{x:.3f}",
            repr(x),
            format_bytes(x) if x >= 0 else None,
            format_time(x) if x >= 0 else None,
            format_bandwidth(x) if x >= 0 else None,
        ]
        assert row == expected, f"x = {x!r}"


@pytest.mark.browser
def test_results_sent_as_json_equal_playwrights_own_transfer(live_harness):
    """live_compare.evaluate_all returns the page's results as JSON text: the same values, the
    ones JSON cannot hold included (NaN, ±Infinity, -0, undefined), nested as in a figure."""
    import json

    from live_compare import TO_JSON_JS, from_page_json

    make = """() => { const xs = [0, -0, 1.5e-300, 2 ** 53 + 2, -7.25, NaN, Infinity, -Infinity, undefined, null, 'a', true];
      return {xs, nested: [{x: -0, y: [NaN, {z: undefined, w: 'NaN'}]}], '$n': {k: Infinity}, empty: []}; }"""
    direct = live_harness.evaluate(make)
    via_json = from_page_json(live_harness.evaluate(f"() => ({TO_JSON_JS})(({make})())"))
    # json.dumps spells NaN and ±Infinity and keeps -0.0's sign: equal text means equal values.
    assert json.dumps(via_json, sort_keys=True) == json.dumps(direct, sort_keys=True)
    assert math.copysign(1, via_json["xs"][1]) == -1 and math.isnan(via_json["nested"][0]["y"][0])
    assert via_json["xs"][8] is None and via_json["nested"][0]["y"][1] == {"z": None, "w": "NaN"}


@pytest.mark.browser
def test_render_stacks_panels_on_a_phone_and_keeps_text_readable(live_harness):
    figure = {
        "panels": [
            {
                "title": "左",
                "xlabel": "t",
                "ylabel": "节点",
                "xscale": "linear",
                "yscale": "log",
                "xlim": None,
                "ylim": None,
                "xticks": None,
                "yticks": None,
                "legend": True,
                "texts": [
                    {"x": 0.5, "y": 0.5, "text": "a\nb", "coords": "axes", "anchor": "middle", "color": "#222222"}
                ],
                "graph": None,
                "series": [
                    {"kind": "bar", "x": [0, 1, 2], "y": [1, 3, 9], "color": "#1f77b4", "label": "bars"},
                    {
                        "kind": "line",
                        "x": [0, 1, 2],
                        "y": [1, 3, 9],
                        "color": "#d62728",
                        "label": "line",
                        "dash": True,
                        "marker": True,
                    },
                ],
            },
            {
                "title": "右",
                "xlabel": "",
                "ylabel": "",
                "xscale": "linear",
                "yscale": "linear",
                "xlim": None,
                "ylim": None,
                "xticks": [],
                "yticks": [],
                "legend": False,
                "texts": [],
                "series": [],
                "graph": {
                    "nodes": [
                        {"x": 0, "y": 0, "label": "0", "color": "#440154"},
                        {"x": 1, "y": -1, "label": "1", "color": "#fde725"},
                    ],
                    "edges": [{"a": 0, "b": 1, "color": "#999999", "width": 1, "arrow": False, "label": ""}],
                },
            },
        ]
    }
    boxes = live_harness.evaluate(
        """f => [688, 390].map(w => {
        const box = document.getElementById('box'); box.style.width = w + 'px';
        const svg = CCBLive.render(box, f, w);
        const panels = Array.from(svg.querySelectorAll('.ccb-live-panel')).map(g => g.getBBox());
        const sizes = Array.from(svg.querySelectorAll('text')).map(t => parseFloat(getComputedStyle(t).fontSize));
        return {width: svg.getBoundingClientRect().width, panels: panels.map(b => [b.x, b.y, b.width, b.height]),
                minFont: Math.min(...sizes), texts: svg.querySelectorAll('text').length};
    })""",
        figure,
    )
    desktop, phone = boxes
    assert desktop["panels"][1][0] > desktop["panels"][0][0] + 200, "desktop: panels side by side"
    assert phone["panels"][1][1] > phone["panels"][0][1] + 150, "phone: the second panel below the first"
    assert phone["width"] <= 390 and desktop["width"] <= 688
    assert phone["minFont"] >= 9 and desktop["minFont"] >= 9


def test_both_editions_carry_the_live_explorers(reader_site, student_site):
    """The build step runs in both editions: chapters 1 and 2 have their live element and scripts."""
    for site in (reader_site, student_site):
        for page, name, script in [
            ("01_information_propagation", "PropagationExplorer", "propagation_explorer.js"),
            ("02_topology_diameter", "TopologyExplorer", "topology_explorer.js"),
        ]:
            html = (site / "notebooks" / f"{page}.html").read_text(encoding="utf-8")
            assert html.count(f'data-explorer="{name}"') == 1, (site, page)
            assert "_static/live/ccb-live.js" in html and f"_static/live/{script}" in html, (site, page)
            assert (site / "_static" / "live" / script).is_file()
            assert "<img" in html.split(f'data-explorer="{name}"')[1][:400_000], "the PNG fallback stays"


def test_live_functions_refuse_bad_arguments():
    from ccb_helpers.live.figure import topology_graph
    from ccb_helpers.live.propagation_explorer import frame as propagation_frame
    from ccb_helpers.live.topology_explorer import frame as topology_frame
    from ccb_helpers.topology import ring

    with pytest.raises(TypeError, match="keys n, k, all_port"):
        propagation_frame({"n": 4})
    with pytest.raises(ValueError, match="n must be"):
        propagation_frame({"n": 1, "k": 1, "all_port": False})
    with pytest.raises(ValueError, match="family must be one of"):
        topology_frame({"family": "moebius", "size": 4, "k": 1})
    assert topology_frame({"family": "hypercube", "size": 30, "k": 1}) is None  # out of the family's range: unreachable
    with pytest.raises(TypeError, match="topology must be a Topology"):
        topology_graph("ring")
    with pytest.raises(ValueError, match="root"):
        topology_graph(ring(4), root=4)
    with pytest.raises(TypeError, match="items must be a list"):
        pack("x")
    with pytest.raises(ValueError, match="MAX_STATES"):
        tabulate([("a", list(range(1000))), ("b", list(range(1000)))], lambda s: None)


def test_explorer_png_keeps_no_fixed_width_on_the_site():
    """The explorer's PNG carries its CSS width (688 px) for JupyterLab without a kernel; on the
    site that width would fix the <img> and make Sphinx wrap it in a link: it is dropped."""
    import types

    from docutils import nodes

    from ccb_helpers.live import build

    source = nodes.container(nb_element="cell_code_source")
    source += nodes.literal_block("", "ccb.NoLiveVersionExplorer(n=8)")
    output = nodes.container(nb_element="cell_code_output")
    output += nodes.image(uri="x.png", width="688px")
    cell = nodes.container(nb_element="cell_code")
    cell += source
    cell += output
    other = nodes.container(nb_element="cell_code")
    other += nodes.container(nb_element="cell_code_source")
    other[0] += nodes.literal_block("", "plot()")
    other += nodes.container(nb_element="cell_code_output")
    other[1] += nodes.image(uri="y.png", width="599px")
    doctree = nodes.document(None, None)
    doctree += cell
    doctree += other
    env = types.SimpleNamespace(docname="notebooks/x", ccb_live_pages=set())
    app = types.SimpleNamespace(env=env, srcdir=".")
    build._make_live(app, doctree)
    assert "width" not in output[0].attributes  # the explorer's
    assert other[1][0]["width"] == "599px"  # a figure's stays (its <picture>)
