/* Chapter 7's SynthesisExplorer on the static page (issue #25).
 * Every state is precomputed by ccb_helpers/live/synthesis_explorer.py from the Python explorer's
 * synthesis_state() (stored schedules, each checked in the simulator); this script looks the state
 * up and assembles the FigureSpec: one step of the schedule drawn on the topology (full links grey
 * and unlabelled, links with room left orange and labelled chunks/capacity) and the (S, R/C) plane.
 * adjust() mirrors SynthesisExplorer._adjust. */
(function () {
  "use strict";

  function adjust(name, state, controls) {
    if (name === "topology") {
      var low = controls.data.topologies[state.topology].low;
      controls.set("steps", { min: low, max: low + 2, value: low });
    }
    if (name === "topology" || name === "steps") {
      var s = controls.get("steps").value;
      controls.set("step", { max: s, value: Math.min(controls.get("step").value, s) });
    }
  }

  function stepPanel(topo, d, st) {
    var px = 4 / 3, nodes = [], edges = [];
    for (var v = 0; v < topo.pos.length / 2; v++) {
      nodes.push({ x: topo.pos[2 * v], y: topo.pos[2 * v + 1], label: String(v), labelInside: true, color: "#f2f2f2",
                   stroke: "#444444", strokeWidth: 1.0, r: st.node_px });
    }
    topo.links.forEach(function (l) {
      edges.push({ a: l[0], b: l[1], color: st.link, width: 1.2 * l[2] * px, arrow: false, label: "" });
    });
    d.arrows.forEach(function (a, i) {
      var full = a[2] >= a[3];
      edges.push({ a: a[0], b: a[1], color: full ? st.full : st.spare, width: (0.8 + 2.2 * a[2] / d.biggest) * px,
                   arrow: true, curve: st.bend, shrink: st.node_px + 1,
                   label: full ? "" : a[2] + "/" + a[3], labelColor: st.label, chunks: a[2], capacity: a[3] });
    });
    // Label spots (computed in Python so that no label covers a node or another label), in order
    // of the labelled arrows; a label with no free spot (null) is listed under the title instead.
    var k = 0;
    edges.forEach(function (e) {
      if (!e.label) return;
      var spot = d.spots[k++];
      if (spot) e.labelAt = spot; else e.label = "";
    });
    return { title: d.title + "\n" + d.note, xlabel: "", ylabel: "", xscale: "linear", yscale: "linear",
             xlim: d.xlim, ylim: d.ylim, xticks: [], yticks: [], legend: false, series: [], texts: [],
             graph: { nodes: nodes, edges: edges }, weight: 1, axis: false, aspect: "equal",
             stackedHeight: 0.95 }; // on a phone the drawing is as wide as the screen (its labels were placed for that)
  }

  function planePanel(p, st, labels) {
    var xl = p.xlim, yl = p.ylim, series = [], texts = [];
    series.push({ kind: "band", x: [xl[0], xl[1]], y: [0, 0], y2: [p.ratio_bound, p.ratio_bound], color: st.bandwidth,
                  alpha: 0.07, label: null });
    series.push({ kind: "band", x: [0, p.steps_bound], y: [0, 0], y2: [yl[1], yl[1]], color: st.latency, alpha: 0.07, label: null });
    series.push({ kind: "hline", x: [], y: [p.ratio_bound], color: st.bandwidth, dash: true, width: 1.6,
                  label: labels.r_bound + p.ratio_text });
    series.push({ kind: "vline", x: [p.steps_bound], y: [], color: st.latency, dash: true, width: 1.6,
                  label: labels.s_bound + p.steps_bound });
    if (p.others.length) {
      series.push({ kind: "scatter", x: p.others.map(function (q) { return q[0]; }), y: p.others.map(function (q) { return q[1]; }),
                    color: st.other, r: 3.5, marker: true, label: labels.others });
    }
    if (p.frontier.length) {
      var xs = p.frontier.map(function (q) { return q[0]; }), ys = p.frontier.map(function (q) { return q[1]; });
      series.push({ kind: "step", x: xs.concat([xl[1]]), y: ys.concat([ys[ys.length - 1]]), color: st.bound, width: 1.9, label: null });
      series.push({ kind: "scatter", x: xs, y: ys, color: st.bound, r: 5.5, marker: true, label: labels.frontier });
      p.frontier.forEach(function (q) {
        texts.push({ x: q[0] + 0.08, y: q[1] + (yl[1] - yl[0]) * 0.03, text: q[2], coords: "data", anchor: "start", color: "#222222", size: 11 });
      });
    }
    // the current instance: an open ring around its point (matplotlib: hollow marker, s = 190)
    series.push({ kind: "scatter", x: [p.current[0]], y: [p.current[1]], color: st.current, r: 9, marker: true, hollow: true,
                  label: null, tip: p.current_text });
    return { title: p.current_text, xlabel: labels.x, ylabel: labels.y, xscale: "linear", yscale: "linear", xlim: xl, ylim: yl,
             xticks: p.xticks.map(function (s) { return [s, String(s)]; }), yticks: null, legend: true, series: series, texts: texts,
             graph: null, weight: 1.1, axis: true };
  }

  function compute(state, data) {
    var instance = state.topology + "|" + state.steps + "|" + state.chunks;
    var index = data.instances[instance];
    if (index === undefined) throw new Error("state " + JSON.stringify(state) + " is not one of the exported states");
    var step = Math.min(state.step, state.steps);
    var d = data.steps[instance + "|" + step];
    return { readout: CCBLive.expandText(data.readouts, index),
             figure: { panels: [stepPanel(data.topologies[state.topology], d, data.style),
                                planePanel(data.planes[instance], data.style, data.labels)], height: 430 } };
  }

  CCBLive.register("SynthesisExplorer", { adjust: adjust, compute: compute });
})();
