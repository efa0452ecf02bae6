/* Chapter 8's NcclExplorer on the static page (issue #25).
 * Readouts are precomputed by ccb_helpers/live/nccl_explorer.py from the Python explorer's
 * nccl_state(). The curves are evaluated here from the exported coefficients of each communicator,
 * with the floating-point operations of the Python code in the same order, so every number equals
 * Python's (tests/test_live_nccl.py compares >= 1000 random states):
 *   NCCL 2.21.5's ncclTopoGetAlgoTime  = ccb_helpers.nccl_model._algo_time_us
 *   the two-level bound / in-network    = ccb_helpers.nccl_bound._two_level_bound / _in_network_bound
 * adjust() mirrors NcclExplorer._adjust. */
(function () {
  "use strict";

  function adjust(name, state, controls) {
    if (name !== "preset") return;
    if (state.preset === "dgx_h100") controls.set("n", { min: 2, max: 8, step: 1, value: 8 });
    else controls.set("n", { min: 8, max: 2048, step: 8, value: 16 });
  }

  function log2i(n) { // _log2i: max(0, n.bit_length() - 1), exact for integers
    var b = 0;
    while (n >= 2) { n = Math.floor(n / 2); b += 1; }
    return b;
  }

  function algoTimeUs(m, pair, comm, n, tree) {
    // _algo_time_us(primitive="all_reduce", n_ranks=n, n_nodes, m, topo, a, p, lat, bw)
    var a = pair[1], p = pair[2], lat = pair[3], bw = pair[4];
    var logSize = log2i(Math.floor(m / 64));
    if (a === "tree" && logSize < 23) bw *= tree[p][logSize];
    if (a === "ring" && p === "Simple" && comm.nodes > 1 && Math.floor(m / (comm.channels * n)) >= 64) lat *= comm.plateau;
    return bw > 0 ? lat + m / (1000.0 * bw) : Infinity;
  }

  function bound(m, c) { // _two_level_bound("all_reduce", n, nodes, m, alpha, beta, node_beta); c.beta = _egress(...)
    var tNode = c.nodes > 1 ? c.c_k * m / c.node_beta : 0.0;
    return Math.max(c.t_alpha, c.c_n * m / c.beta, tNode);
  }

  function inNetworkBound(m, c) { // _in_network_bound("all_reduce", ...)
    var tNode = c.nodes > 1 ? c.c_k * m / c.node_beta : 0.0;
    return Math.max(c.alpha, m / c.beta, tNode);
  }

  // The protocols' line styles of the PNG (nccl_figures._LINESTYLE: LL ":", LL128 "--", Simple "-"):
  // pairs of one algorithm differ by more than their shade.
  var PROTOCOL_DASH = { LL: "dotted", LL128: "dashed" };

  function isNvls(pair) { return pair[1] === "nvls" || pair[1] === "nvls_tree"; }

  // Decade ticks, all written alike (figure.log_ticks): plainly within 1e-4 .. 1e5, else as 10ⁿ.
  var SUPERSCRIPT = { "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹", "-": "⁻" };
  function decades(lo, hi) {
    var out = [], first = Math.ceil(Math.log10(lo) - 1e-12), last = Math.floor(Math.log10(hi) + 1e-12);
    var plain = first >= -4 && last <= 5;
    for (var e = first; e <= last; e++) {
      var v = Math.pow(10, e);
      out.push([v, plain ? CCBLive.fmt.g(v) : "10" + String(e).replace(/./g, function (c) { return SUPERSCRIPT[c]; })]);
    }
    return out;
  }

  // The curves of one communicator and mode do not depend on M: computed once, then only the
  // mark moves while a reader drags the size slider (memo per exported data object).
  var memo = new WeakMap();

  function curvesOf(data, preset, n, eff, comm) {
    var byData = memo.get(data);
    if (!byData) { byData = new Map(); memo.set(data, byData); }
    var key = preset + "|" + n + "|" + eff;
    if (byData.has(key)) return byData.get(key);
    var sizes = data.sizes, tree = data.tree_correction, colors = data.colors;
    var boundUs = [], inNetUs = [], bounds = [], inNets = [];
    sizes.forEach(function (m) {
      var b = bound(m, comm), i = inNetworkBound(m, comm);
      bounds.push(b); inNets.push(i); boundUs.push(b * 1e6); inNetUs.push(i * 1e6);
    });
    var series = [], ys = [];
    comm.pairs.forEach(function (pair) {
      var label = pair[0], refs = isNvls(pair) ? inNets : bounds;
      var y = sizes.map(function (m, j) {
        var t = algoTimeUs(m, pair, comm, n, tree) * 1e-6; // NcclPrediction.times: seconds
        return eff ? refs[j] / t : t * 1e6;
      });
      ys = ys.concat(y);
      series.push({ kind: "line", x: sizes, y: y, color: colors[label], label: label, width: 1.6,
                    dash: PROTOCOL_DASH[pair[2]] || false, marker: false });
    });
    // NCCL's order of the legend: NCCL_PICK_COLORS (Ring/LL ... NVLSTree/Simple)
    var order = Object.keys(colors);
    series.sort(function (a, b) { return order.indexOf(a.label) - order.indexOf(b.label); });
    var ylim;
    if (!eff) {
      series.push({ kind: "line", x: sizes, y: boundUs, color: colors.bound, label: data.labels.bound, width: 2.2, dash: false, marker: false });
      series.push({ kind: "line", x: sizes, y: inNetUs, color: colors.bound, label: data.labels.in_network, width: 1.2, dash: "dashdot", marker: false });
      var all = ys.concat(boundUs, inNetUs).filter(function (v) { return isFinite(v) && v > 0; });
      ylim = [Math.min.apply(null, all) / 1.6, Math.max.apply(null, all) * 1.6];
    } else {
      ylim = [0, 1.05];
    }
    var result = { series: series, ylim: ylim };
    byData.set(key, result);
    return result;
  }

  function compute(state, data) {
    var comm = (data.communicators[state.preset] || {})[state.n];
    var first = (data.states[state.preset] || {})[state.n];
    var log2m = state.log2_m, eff = !!state.efficiency;
    if (!comm || first === undefined || log2m < 3 || log2m > 34) throw new Error("state " + JSON.stringify(state) + " is not one of the exported states");
    var n = state.n, tree = data.tree_correction, colors = data.colors;
    var curves = curvesOf(data, state.preset, n, eff, comm);
    var series = curves.series.slice(), ylim = curves.ylim;
    // NCCL's pick at M = 2^log2_m (_predict: the first pair with the strictly smallest time)
    var m = Math.pow(2, log2m), best = null, bestT = Infinity;
    comm.pairs.forEach(function (pair) {
      var t = algoTimeUs(m, pair, comm, n, tree);
      if (t < bestT) { best = pair; bestT = t; }
    });
    var time = bestT * 1e-6, y;
    if (eff) {
      var e = (isNvls(best) ? inNetworkBound(m, comm) : bound(m, comm)) / time;
      y = e > 1.0 + 1e-9 ? 1.0 : e; // NCCL's estimate beats the bound: flagged, drawn at 1
    } else {
      y = time * 1e6;
    }
    // NCCL's pick: an open circle, as in the PNG (the chapter's text says 圆圈).
    series.push({ kind: "scatter", x: [m], y: [y], color: colors.bound, r: 6.5, marker: true, hollow: true, label: null,
                  tip: "NCCL 的选择 " + best[0] });
    var left = log2m > 24; // the label goes on the side of the mark that has room
    var note = { x: left ? m / 2.3 : m * 2.3, y: eff ? y - 0.06 : y / 1.7, text: best[0] + "，" + data.size_labels[String(log2m)],
                 coords: "data", anchor: left ? "end" : "start", color: "#222222", size: 12 };
    var nodes = comm.nodes;
    var panel = {
      title: "NCCL " + data.version + " 的估计：all_reduce，N = " + n + "，" + nodes + " 个节点",
      xlabel: data.labels.x, ylabel: eff ? data.labels.efficiency : data.labels.time, xscale: "log", yscale: eff ? "linear" : "log",
      xlim: [Math.pow(2, 3) / 1.4, Math.pow(2, 34) * 1.4], ylim: ylim, xticks: data.xticks, yticks: eff ? null : decades(ylim[0], ylim[1]),
      legend: true, series: series, texts: [note], graph: null, weight: 1, axis: true
    };
    return { readout: CCBLive.expandText(data.readouts, first + (log2m - 3)), figure: { panels: [panel], height: 420 },
             pick: best[0], mark: [m, y] };
  }

  CCBLive.register("NcclExplorer", { adjust: adjust, compute: compute });
})();
