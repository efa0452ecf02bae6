"""Explorers: drive every control (extremes included) through the update path and check the result."""

import base64

import pytest

import ccb_helpers as ccb


def test_propagation_explorer_controls_and_readout():
    e = ccb.PropagationExplorer()
    assert (e.n, e.k, e.steps) == (64, 1, 6)
    first_png = bytes(e.image.value)
    assert first_png.startswith(b"\x89PNG")
    e.update(k=2)
    assert e.steps == 4 and "<b>4</b>" in e.readout.value
    assert bytes(e.image.value) != first_png
    e.update(n=27)
    assert e.steps == 3 and e.informed == [1, 3, 9, 27]
    e.update(n=28)
    assert e.steps == 4 and e.informed[-1] == 28
    e.update(all_port=True)
    assert e.k == 27 and e.steps == 1


@pytest.mark.parametrize("n", [2, 64, 65, 1024])
@pytest.mark.parametrize("k", [1, 8])
def test_propagation_explorer_extremes(n, k):
    e = ccb.PropagationExplorer(n=n, k=k)
    assert e.steps == ccb.info_steps(n, k)
    assert e.informed[-1] == n
    assert len(e.figure.axes) == 2


def test_moving_a_slider_redraws_once():
    e = ccb.PropagationExplorer()
    before = e.redraws
    e.controls["n"].value = 100  # what a reader's slider does
    assert e.redraws == before + 1 and e.n == 100
    e.update(n=200, k=3)  # several controls at once: one redraw
    assert e.redraws == before + 2 and (e.n, e.k) == (200, 3)


def test_mimebundle_has_widget_and_png():
    e = ccb.PropagationExplorer()
    bundle = e._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG")


def test_unknown_control():
    with pytest.raises(TypeError, match="unknown control"):
        ccb.PropagationExplorer(size=3)
    e = ccb.PropagationExplorer()
    with pytest.raises(TypeError):
        e.update(size=3)


def test_topology_explorer_every_family_and_extreme():
    e = ccb.TopologyExplorer()
    for family, (lo, hi, default) in ccb.TopologyExplorer.SIZES.items():
        e.update(family=family)
        assert e.values["size"] == default  # the size slider follows the family
        assert (e.controls["size"].min, e.controls["size"].max) == (lo, hi)
        for size, k in ((lo, 6), (hi, 1)):  # both ends of the size slider, both ends of k
            e.update(size=size, k=k)
            topo = ccb.family_instance(family, size)
            assert e.topology.n == topo.n and e.diameter == topo.step_diameter
            assert e.info == ccb.info_steps(topo.n, max(1, min(k, topo.degree)))
            assert str(e.diameter) in e.readout.value


def test_topology_explorer_dropdown_like_a_reader():
    e = ccb.TopologyExplorer()
    e.controls["family"].value = "torus2d"  # the reader picks another family
    assert e.topology.name == "torus 4x4" and e.binding == "tie"  # D = 4 = ceil(log2 16)
    e.controls["size"].value = 8
    assert e.binding == "diameter"


def test_bandwidth_explorer_every_primitive_and_extreme():
    e = ccb.BandwidthExplorer()
    settings = [{"primitive": p} for p in ccb.PRIMITIVES]
    settings += [{"n": 2}, {"n": 256}, {"k": 8}, {"k": 1}, {"m": 2.0**10}, {"m": 2.0**34}, {"beta_gbps": 1.0}, {"beta_gbps": 1000.0}]
    for change in settings:  # one control at a time, each to its extremes
        e.update(**change)
        v = e.values
        want = ccb.bandwidth_lower_bound(v["primitive"], v["n"], v["m"], v["beta_gbps"] * 1e9, ports=v["k"])
        assert e.bound == pytest.approx(want)
        assert ccb.format_time(want) in e.readout.value


def test_bandwidth_explorer_readout_changes_with_ports():
    e = ccb.BandwidthExplorer(primitive="all_gather", n=8, m=2**30, beta_gbps=100)
    one = e.bound
    e.controls["k"].value = 2
    assert e.bound == pytest.approx(one / 2)


def test_algorithm_explorer_controls():
    e = ccb.AlgorithmExplorer()
    e.controls["preset"].value = "ib_ndr"  # a reader picks a preset: alpha and beta follow
    p = ccb.preset("ib_ndr")
    assert e.values["alpha_us"] == pytest.approx(p.alpha * 1e6) and e.values["beta_gbps"] == pytest.approx(p.beta / 1e9)
    e.controls["alpha_us"].value = 20.0  # moving alpha makes it custom
    assert e.values["preset"] == "custom"
    for change in ({"n": 2}, {"n": 1024}, {"k": 2}, {"k": 1}, {"efficiency": True}, {"alpha_us": 0.1}, {"alpha_us": 100.0},
                   {"beta_gbps": 1.0}, {"beta_gbps": 1000.0}):
        e.update(**change)
        v = e.values
        m_star = ccb.crossover_size("all_reduce", v["n"], v["alpha_us"] * 1e-6, v["beta_gbps"] * 1e9, ports=v["k"])
        assert e.m_star == pytest.approx(m_star)
        assert ccb.format_bytes(m_star) in e.readout.value
        assert e.bands[0][0] == 64.0


def test_bisection_explorer_controls():
    e = ccb.BisectionExplorer()
    assert e.controls["oversubscription"].disabled  # torus: the factor does not apply
    e.controls["family"].value = "fat_tree"
    assert not e.controls["oversubscription"].disabled and e.topology.family == "fat_tree"
    e.controls["oversubscription"].value = 4.0
    assert e.topology.oversubscription == 4.0 and e.tighter == "bisection"  # AllToAll, 4:1
    e.controls["primitive"].value = "all_reduce"
    assert e.tighter == "node"
    for change in ({"size": 4}, {"size": 64}, {"family": "ring"}, {"size": 3}, {"size": 48}, {"family": "fully_connected"}):
        e.update(**change)
        topo = e.topology
        assert e.bisection == pytest.approx(ccb.bisection_lower_bound(e.values["primitive"], topo, 2**30, 50e9))
        assert str(topo.bisection_links) in e.readout.value
