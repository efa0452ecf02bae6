/* Chapter 4: AlgorithmExplorer, live. The data (ccb_helpers.live.algorithm_explorer) hold, per
 * primitive, port count and N, each algorithm's rounds, bytes and added bytes per byte of M, the
 * bound's rounds and volume coefficient, the double binary tree's counts per chunk count and the
 * pipelined chain's and tree's rounds per segment count; this file combines them with α, β, γ and
 * M as ccb_helpers.explorers.algorithm.algorithm_frame does (the same operations in the same order
 * where the readout depends on them: M*, the fastest algorithm per size band, the best chunk
 * count; tests/test_live_algorithm.py compares the two on random states). */
(function () {
  "use strict";
  var fmt = CCBLive.fmt;
  var DBT = "double_binary_tree";

  function series(kind, x, y, o) {
    var s = { kind: kind, x: x, y: y, color: o.color || "#222222", label: o.label === undefined ? null : o.label,
              dash: !!o.dash, marker: !!o.marker, width: o.width === undefined ? 1.5 : o.width };
    if (o.alpha !== undefined && o.alpha !== 1.0) s.alpha = o.alpha;
    if (kind === "band") s.y2 = o.y2 || [];
    return s;
  }

  function panel(o) {
    return { title: o.title || "", xlabel: o.xlabel || "", ylabel: o.ylabel || "", xscale: o.xscale || "linear",
             yscale: o.yscale || "linear", xlim: o.xlim || null, ylim: o.ylim || null, xticks: o.xticks || null,
             yticks: o.yticks || null, legend: !!o.legend, series: o.series || [], texts: [], graph: null, weight: 1.0,
             axis: true };
  }

  // ccb_helpers.algorithms.double_tree._optimal_chunks for one size.
  function optimalChunks(height, m, alpha, beta, cap0) {
    var cap = Math.max(1.0, Math.min(Math.floor(m / 2), cap0));
    var best = Math.sqrt((height - 1) * m / (2 * alpha * beta));
    if (!isFinite(best)) best = cap;
    var low = Math.min(Math.max(Math.floor(best), 1.0), cap), high = Math.min(Math.max(Math.ceil(best), 1.0), cap);
    function cost(c) { return 2 * (height + c - 1) * (alpha + m / (2 * c * beta)); }
    var chunks = cost(high) < cost(low) ? high : low;
    return (height <= 1 || m === 0) ? 1 : chunks;
  }

  // ccb_helpers.algorithms.pipelined._segments for one size.
  function optimalSegments(fill, per, m, alpha, beta, gamma, added, cap0) {
    var cap = Math.max(1.0, Math.min(Math.floor(m), cap0));
    var slope = fill / beta + added * gamma;
    var best = Math.sqrt(m * slope / (per * alpha));
    if (!isFinite(best)) best = cap;
    var low = Math.min(Math.max(Math.floor(best), 1.0), cap), high = Math.min(Math.max(Math.ceil(best), 1.0), cap);
    function cost(s) { return (fill + per * s) * (alpha + m / (s * beta)) + added * m * gamma / s; }
    var segments = cost(high) < cost(low) ? high : low;
    return (slope <= 0 || m === 0) ? 1 : segments;
  }

  function form(a, b, gaps, c) {
    var value = a * c + b;
    for (var g = 0; g < gaps.length; g++) value += Math.min(c, gaps[g]);
    return value;
  }

  // The model of one algorithm at one N and port count: time(m) as the Python model evaluates it
  // (band: as _best_algorithm orders the operations; curve: as algorithm_cost does).
  function model(data, K, name, i, n, k, alpha, beta, gamma, reducing) {
    var withGamma = reducing && gamma !== 0;
    if (name === DBT) {
      var d = K.dbt, height = data.height[i];
      var f = function (m) {
        // _dbt_optimal_chunks: gamma folded into beta (all of it with 2 ports, half with 1).
        var share = k >= 2 ? gamma : gamma * 0.5;
        var betaEff = share === 0 ? beta : 1.0 / (1.0 / beta + share);
        var c = optimalChunks(height, m, alpha, betaEff, data.max_chunks);
        var rounds = form(d.a[i], d.b[i], d.gaps[i], c);
        var t = rounds * alpha + rounds * m / (2 * c) / beta;
        return withGamma ? t + form(d.ra[i], d.rb[i], d.rgaps[i], c) * m / (2 * c) * gamma : t;
      };
      return f;
    }
    if (K.pipelined[name]) {
      var P = K.pipelined[name], fill = P.fill[i], per = P.per[i];
      var added = withGamma ? P.added[i] : 0, gammaSeg = withGamma ? gamma : 0.0;
      var g = function (m) {
        var s = optimalSegments(fill, per, m, alpha, beta, gammaSeg, added, data.max_chunks);
        var rounds = fill + per * s, t = rounds * alpha + rounds * (m / s) / beta;
        return withGamma ? t + (P.mul[i] * rounds - P.sub[i]) * (m / s) * gamma : t;
      };
      return g;
    }
    var L = K.linear[name], steps = L.steps[i], perByte = L.per_byte[i];
    var red = withGamma && L.reduced ? L.reduced[i] : 0;
    var band = function (m) {
      var t = perByte * (m / beta) + steps * alpha; // _best_algorithm's order
      return red ? t + red * (m * gamma) : t;
    };
    band.curve = function (m) {
      var t = steps * alpha + perByte * m / beta;
      return red ? t + red * m * gamma : t;
    };
    return band;
  }

  function onPreset(data, preset, alphaUs, betaGbps) {
    var p = data.presets[preset], close = 0.51 * data.step + 1e-12;
    return Math.abs(Math.log10(alphaUs / (p.alpha * 1e6))) <= close && Math.abs(Math.log10(betaGbps / (p.beta / 1e9))) <= close;
  }

  // AlgorithmExplorer._adjust: a preset sets the sliders; moving a slider off the preset makes it custom.
  function adjust(name, state, controls, data) {
    var preset = state.preset;
    if (name === "preset" && preset !== "custom") {
      controls.set("alpha_us", { value: data.presets[preset].alpha_us });
      controls.set("beta_gbps", { value: data.presets[preset].beta_gbps });
      if (data.presets[preset].gamma_ps !== null) controls.set("gamma_ps", { value: data.presets[preset].gamma_ps });
    } else if ((name === "alpha_us" || name === "beta_gbps") && preset !== "custom") {
      if (!onPreset(data, preset, state.alpha_us, state.beta_gbps)) controls.set("preset", { value: "custom" });
    }
  }

  function compute(state, data) {
    var n = state.n, k = state.k, efficiency = state.efficiency, i = n - data.n_min, primitive = state.primitive;
    var alpha, beta;
    if (state.preset === "custom") { alpha = state.alpha_us * 1e-6; beta = state.beta_gbps * 1e9; }
    else { alpha = data.presets[state.preset].alpha; beta = data.presets[state.preset].beta; }
    var gamma = state.with_gamma ? state.gamma_ps * 1e-12 : 0.0;
    var reducing = data.reducing.indexOf(primitive) >= 0;
    var Pr = data.primitives[primitive], K = Pr.ports[String(k)];
    var steps = data.latency_steps[String(k)][i], coef = Pr.coefficient[i];
    var names = K.names.filter(function (_, j) { return K.applicable[i] & (1 << j); });
    var models = {};
    names.forEach(function (name) { models[name] = model(data, K, name, i, n, k, alpha, beta, gamma, reducing); });
    var M = data.m_grid;
    var computes = reducing && gamma !== 0;
    var bound = M.map(function (m) {
      var tb = coef * m / (k * beta);
      if (computes) tb = Math.max(tb, (n - 1) / n * m * gamma);
      return Math.max(steps * alpha, tb);
    });
    var times = {};
    names.forEach(function (name) {
      var f = models[name].curve || models[name];
      times[name] = M.map(f);
    });
    var mStar = steps * alpha * k * beta / coef;
    // best_algorithm_bands: the fastest applicable algorithm (first on ties) at each grid size.
    var grid = data.band_grid, winners = grid.map(function (m) {
      var best = -1, bestTime = Infinity;
      K.names.forEach(function (name, j) {
        var t = (K.applicable[i] & (1 << j)) ? models[name](m) : Infinity;
        if (best < 0 || t < bestTime) { best = j; bestTime = t; }
      });
      return K.names[best];
    });
    var bands = [], start = 0;
    for (var g = 1; g <= grid.length; g++) {
      if (g === grid.length || winners[g] !== winners[start]) { bands.push([start, g - 1, winners[start]]); start = g; }
    }
    var ylim, yscale, ylabel, yticks;
    if (efficiency) {
      ylim = [0, 1.05]; yscale = "linear"; ylabel = "效率 = 下界 / 时间"; yticks = data.efficiency_ticks;
    } else {
      var lo = Infinity, hi = -Infinity;
      [bound].concat(names.map(function (name) { return times[name]; })).forEach(function (arr) {
        arr.forEach(function (v) { if (v < lo) lo = v; if (v > hi) hi = v; });
      });
      ylim = [lo / 1.6, hi * 1.6]; yscale = "log"; ylabel = "时间"; yticks = [];
      for (var j = Math.ceil(Math.log10(ylim[0])); j <= Math.floor(Math.log10(ylim[1])); j++) {
        var v = Number("1e" + j);
        yticks.push([v, fmt.formatTime(v)]);
      }
    }
    var boundLabel = computes ? "下界 max(Tα, Tβ, Tγ)" : "下界 max(Tα, Tβ)";
    var lines = efficiency ? [] : [series("line", M, bound, { color: data.bound_color, width: 2.5, label: boundLabel })];
    names.forEach(function (name) {
      var y = efficiency ? bound.map(function (b, q) { return b / times[name][q]; }) : times[name];
      lines.push(series("line", M, y, { color: data.colors[name] || data.no_color, label: data.labels[name] }));
    });
    lines.push(series("vline", [mStar], [], { color: data.m_star_color, dash: true, width: 1, label: "M*" }));
    var low = ylim[0], top = efficiency ? low + 0.035 * (ylim[1] - low) : low * Math.pow(ylim[1] / low, 0.035);
    var edges = bands.map(function (b) { return grid[b[0]]; }).concat([M[M.length - 1]]);
    bands.forEach(function (b, q) {
      lines.push(series("band", [edges[q], edges[q + 1]], [low, low], { y2: [top, top], color: data.colors[b[2]] || data.no_color, alpha: data.band_alpha }));
    });
    var figure = { panels: [panel({
      title: data.primitive_labels[primitive] + "，N = " + n + "，α = " + fmt.formatTime(alpha) + "，β = " + fmt.formatBandwidth(beta) + "，" + k + "-port",
      xlabel: "消息大小 M", ylabel: ylabel, xscale: "log", yscale: yscale, xlim: [M[0], M[M.length - 1]], ylim: ylim,
      xticks: data.m_ticks, yticks: yticks, legend: true, series: lines
    })] };
    var texts = bands.map(function (b) {
      return data.band_labels[b[0]] + "–" + data.band_labels[b[1]] + "：" + data.labels[b[2]];
    });
    if (texts.length > data.bands_listed) {
      texts = texts.slice(0, data.bands_listed - 1).concat(
        ["…（另有 " + (texts.length - data.bands_listed) + " 段交替）", texts[texts.length - 1]]);
    }
    var bandText = texts.join("；");
    var source = state.preset === "custom"
      ? "自定义：α = " + fmt.formatTime(alpha) + "、β = " + fmt.formatBandwidth(beta) + "，用 α、β 滑块调节"
      : data.presets[state.preset].label + "：α = " + fmt.formatTime(alpha) + "、β = " + fmt.formatBandwidth(beta) + " 取自预设（端口数用 k 滑块）";
    var missing = K.names.filter(function (name) { return names.indexOf(name) < 0; }).map(function (name) { return data.labels[name]; });
    var notes = [source];
    if (missing.length) notes.push("N = " + n + " 不是 2 的幂：" + missing.join("、") + " 不参与");
    var one = Pr.ports["1"].names.map(function (name) { return data.labels[name]; });
    var joined = Pr.ports["2"].names.map(function (name) { return data.labels[name]; })
      .filter(function (label) { return one.indexOf(label) < 0; });
    if (k === 1) notes.push(joined.length ? "k = 2 加入" + joined.join("、") : "k = 2 时树与 Bruck 用上第二个端口");
    else notes.push(joined.length ? "2-port：" + joined.join("、") + " 参与比较" : "2-port：树与 Bruck 用上第二个端口");
    if (reducing) notes.push(gamma ? "计入 γ = " + fmt.g(gamma * 1e12, 3) + " ps/B" : "γ = 0");
    var readout = "<b>" + data.primitive_labels[primitive] + "，N = " + n + "，" + k + "-port</b>：下界的交叉点 M* = <b>" + fmt.formatBytes(mStar) + "</b>。" +
      "最快的算法（图底色带）：" + bandText + "。<br><small>" + notes.join("；") + "。</small>";
    return { readout: readout, figure: figure };
  }

  CCBLive.register("AlgorithmExplorer", { adjust: adjust, compute: compute });
})();
