/* Chapter 5's BisectionExplorer on the static page (issue #25).
 * Every state is precomputed by ccb_helpers/live/bisection_explorer.py from the Python explorer's
 * own bisection_state(): this script only looks the state up and assembles its FigureSpec from the
 * shared parts (the cut drawn on the topology, the family's curves). adjust() mirrors _adjust. */
(function () {
  "use strict";

  function adjust(name, state, controls) {
    if (name !== "family") return;
    // BisectionExplorer._adjust: the size follows the family (range and default); the factor
    // only means something for a fat-tree (greyed out elsewhere).
    var range = controls.data.sizes[state.family];
    controls.setRange("size", range[0], range[1], range[2]);
    controls.set("oversubscription", { disabled: state.family !== "fat_tree" });
  }

  function key(v) { return String(v); } // Python's f"{1.0:g}" is "1", as String(1) is

  function graphPanel(g) {
    return { title: g.title, xlabel: "", ylabel: "", xscale: "linear", yscale: "linear", xlim: g.xlim, ylim: g.ylim,
             xticks: [], yticks: [], legend: false, series: [], texts: [], graph: g.graph,
             weight: 1.2, axis: false, aspect: "equal" };
  }

  function compute(state, data) {
    var family = state.family, factors = data.factors[family];
    var p = data.primitives.indexOf(state.primitive);
    var f = factors.length === 1 ? 0 : factors.indexOf(state.oversubscription);
    var s = state.size - data.low[family];
    var rows = data.applied[family];
    if (p < 0 || f < 0 || s < 0 || s >= rows.length) throw new Error("state " + JSON.stringify(state) + " is not one of the exported states");
    var index = data.first[family] + (s * data.primitives.length + p) * factors.length + f;
    var applied = rows[s][f];
    var g = data.graphs[family + "|" + state.size + "|" + key(applied)];
    var c = data.curves[family + "|" + state.primitive + "|" + key(applied)];
    var ns = data.ns[family + "|" + key(applied)];
    var pts = data.points[index], n = g.n, colors = data.colors;
    var right = {
      title: c.title, xlabel: data.labels.x, ylabel: data.labels.y, xscale: "log", yscale: "log", xlim: c.xlim, ylim: c.ylim,
      xticks: data.xticks, yticks: c.yticks, legend: true, texts: [], graph: null, weight: 1, axis: true,
      series: [
        { kind: "line", x: ns, y: c.bis, color: colors.bisection, label: data.labels.bisection, dash: false, marker: false, width: 2 },
        { kind: "line", x: ns, y: c.node, color: colors.node, label: data.labels.node, dash: false, marker: false, width: 2 },
        { kind: "scatter", x: [n], y: [pts[0]], color: colors.bisection, label: null, dash: false, marker: true, width: 1.5, r: 5 },
        { kind: "scatter", x: [n], y: [pts[1]], color: colors.node, label: null, dash: false, marker: true, width: 1.5, r: 5 }
      ]
    };
    return { readout: CCBLive.expandText(data.readouts, index), figure: { panels: [graphPanel(g), right], height: 340 } };
  }

  CCBLive.register("BisectionExplorer", { adjust: adjust, compute: compute });
})();
