/* Chapter 6: MPIResultExplorer, live. The data (ccb_helpers.live.mpi_result_explorer) hold, per
 * run of the result, its measured times, the cost model's rounds and bytes, the bound's rounds
 * and the busiest node's bytes; this file combines them with α and β as
 * ccb_helpers.mpi.explorer.mpi_frame does (same operations in the same order, so the same doubles;
 * tests/test_live_mpi.py compares the two on random states). */
(function () {
  "use strict";
  var fmt = CCBLive.fmt;

  function series(kind, x, y, o) {
    var s = { kind: kind, x: x, y: y, color: o.color || "#222222", label: o.label === undefined ? null : o.label,
              dash: o.dash || false, marker: !!o.marker, width: o.width === undefined ? 1.5 : o.width };
    if (o.alpha !== undefined && o.alpha !== 1.0) s.alpha = o.alpha;
    if (kind === "band") s.y2 = o.y2 || [];
    if (o.shape) s.shape = o.shape;
    return s;
  }

  function panel(o) {
    return { title: o.title || "", xlabel: o.xlabel || "", ylabel: o.ylabel || "", xscale: o.xscale || "linear",
             yscale: o.yscale || "linear", xlim: o.xlim || null, ylim: o.ylim || null, xticks: o.xticks || null,
             yticks: o.yticks || null, legend: !!o.legend, series: o.series || [], texts: [], graph: null, weight: 1.0,
             axis: true };
  }

  // ccb_helpers.mpi.plots.model_and_bound: the α-β model and the combined lower bound of one run.
  function model(run, alpha, beta) { return run.steps * alpha + run.bytes / beta; }
  function bound(run, alpha, beta) { return Math.max(run.bound_steps * alpha, run.max_sr / (run.ports * beta)); }

  function finitePositive(values) { return values.filter(function (v) { return typeof v === "number" && isFinite(v) && v > 0; }); }

  function decades(lo, hi, label) {
    var out = [];
    for (var j = Math.ceil(Math.log10(lo)); j <= Math.floor(Math.log10(hi)); j++) { var v = Number("1e" + j); out.push([v, label(v)]); }
    return out;
  }

  function g(v) { return fmt.g(v, 6); }

  // MPIResultExplorer._adjust: a new pair gets its own sizes, the nearest one to the old size selected.
  function adjust(name, state, controls, data) {
    if (name !== "pair") return;
    var pair = data.pairs[state.pair];
    controls.set("m", { options: pair.options, value: data.next_m[state.pair][String(state.m)] });
  }

  function compute(state, data) {
    var alpha = state.alpha_us * 1e-6, beta = state.beta_gbps * 1e9, m = state.m, ratio = state.ratio;
    var pair = data.pairs[state.pair], runs = pair.runs, color = pair.color;
    var sizes = runs.map(function (r) { return r.m; });
    var models = runs.map(function (r) { return model(r, alpha, beta); });
    var bounds = runs.map(function (r) { return bound(r, alpha, beta); });
    var scale = runs.map(function (_, i) { return ratio ? bounds[i] : 1.0; });
    function scaled(values) { return values.map(function (v, i) { return v / scale[i]; }); }
    var low = scaled(runs.map(function (r) { return r.min; })), high = scaled(runs.map(function (r) { return r.max; }));
    var library = runs.map(function (r) { return r.library === null || r.library === undefined ? NaN : r.library; });
    var hasLibrary = library.some(function (v) { return isFinite(v); });
    var lines = [scaled(runs.map(function (r) { return r.median; })), scaled(models), scaled(bounds)];
    if (hasLibrary) lines.push(scaled(library));
    var ys = finitePositive([].concat.apply(low.concat(high), lines));
    var ylim = [Math.min.apply(null, ys) / 1.5, Math.max.apply(null, ys) * 1.5];
    var left = [series("band", sizes, low, { y2: high, color: color, alpha: 0.15 }),
                series("line", sizes, lines[0], { color: color, marker: true, label: "实测" }),
                series("line", sizes, lines[1], { color: color, dash: "dashed", label: "模型" }),
                series("line", sizes, lines[2], { color: data.bound_color, dash: "dashdot", label: "下界" })];
    if (hasLibrary) {
      left.push(series("line", sizes, lines[3].map(function (v) { return isFinite(v) ? v : null; }),
                       { color: data.library_color, dash: "dotted", marker: true, label: "MPI 库", shape: "square" }));
    }
    left.push(series("vline", [m], [], { color: data.bound_color, width: 0.8 }));
    var leftPanel = panel({
      title: pair.label + "，N = " + data.n, xlabel: "消息大小 M（字节）", ylabel: ratio ? "时间 / 下界" : "时间",
      xscale: "log", yscale: "log", xlim: [Math.min.apply(null, sizes) / 1.5, Math.max.apply(null, sizes) * 1.5], ylim: ylim,
      xticks: runs.filter(function (_, i) { return i % 2 === 0; }).map(function (r) { return [r.m, r.m_label]; }),
      yticks: decades(ylim[0], ylim[1], ratio ? g : fmt.formatTime), legend: true, series: left
    });
    // Right: every pair measured at this size, as a multiple of its own bound.
    var names = [], measuredRatio = [], libraryRatio = [], colors = [];
    Object.keys(data.pairs).forEach(function (key) {
      var p = data.pairs[key], run = p.runs.find(function (r) { return r.m === m; });
      if (!run) return;
      var b = bound(run, alpha, beta);
      names.push(p.tick);
      measuredRatio.push(run.median / b);
      libraryRatio.push((run.library === null || run.library === undefined ? NaN : run.library) / b);
      colors.push(p.color);
    });
    var xs = finitePositive([1.0].concat(measuredRatio, libraryRatio));
    var xlim = [Math.min.apply(null, xs) / 2, Math.max.apply(null, xs) * 2];
    var right = measuredRatio.map(function (r, i) {
      return series("band", [xlim[0], r], [i - 0.4, i - 0.4], { y2: [i + 0.4, i + 0.4], color: colors[i], alpha: 0.8 });
    });
    var marks = libraryRatio.map(function (r, i) { return [i, r]; }).filter(function (p) { return isFinite(p[1]); });
    right.push(series("scatter", marks.map(function (p) { return p[1]; }), marks.map(function (p) { return p[0]; }),
                      { color: data.library_color, marker: true, shape: "square" }));
    right.push(series("vline", [1.0], [], { color: data.bound_color, width: 1 }));
    var run = runs.find(function (r) { return r.m === m; });
    var rightPanel = panel({
      title: "M = " + fmt.formatBytes(m) + "：离下界多远", xlabel: "时间 / 下界（条：实测；■：库）", xscale: "log",
      xlim: xlim, ylim: [names.length - 0.5, -0.5], xticks: decades(xlim[0], xlim[1], g),
      yticks: names.map(function (t, i) { return [i, t]; }), series: right
    });
    var tModel = model(run, alpha, beta), tBound = bound(run, alpha, beta);
    var lib = run.library;
    var libText = lib !== null && lib !== undefined
      ? "，MPI 库 " + run.library_call + " " + fmt.formatTime(lib) + "（" + fmt.fixed(lib / tBound, 2) + " × 下界）" : "";
    // Which term of the bound binds at this size: the other slider moves only the model here.
    var alphaBinds = bound(run, alpha * 1.01, beta) > tBound, betaBinds = bound(run, alpha, beta * 1.01) < tBound;
    var binds = alphaBinds && !betaBinds ? "此 M 上下界由延迟项（α）决定：β 只改变模型和别的大小处的下界"
      : betaBinds && !alphaBinds ? "此 M 上下界由带宽项（β）决定：α 只改变模型和别的大小处的下界" : "此 M 上下界的两项相等";
    var readout = "<b>" + pair.label + "，M = " + fmt.formatBytes(m) + "</b>：实测 " + fmt.formatTime(run.median) + "，" +
      "模型 " + fmt.formatTime(tModel) + "，下界 " + fmt.formatTime(tBound) + "；实测 / 下界 = <b>" +
      fmt.fixed(run.median / tBound, 2) + "</b>，实测 / 模型 = " + fmt.fixed(run.median / tModel, 2) + libText + "。" + binds + "。";
    return { readout: readout, figure: { panels: [leftPanel, rightPanel] } };
  }

  CCBLive.register("MPIResultExplorer", { adjust: adjust, compute: compute });
})();
