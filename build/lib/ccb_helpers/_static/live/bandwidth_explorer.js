/* Chapter 3: BandwidthExplorer, live. The data (ccb_helpers.live.bandwidth_explorer) hold, per
 * primitive and N, the bytes per byte of M that the busiest node and each role must move (and the
 * busiest node's exact bytes where whole-byte blocks make them a step function of M); this file
 * scales them by M and k·β exactly as ccb_helpers.explorers.bandwidth.bandwidth_frame does (same
 * operations in the same order, so the same doubles; tests/test_live_bandwidth.py). */
(function () {
  "use strict";
  var fmt = CCBLive.fmt;

  function series(kind, x, y, o) {
    var s = { kind: kind, x: x, y: y, color: o.color || "#222222", label: o.label === undefined ? null : o.label,
              dash: !!o.dash, marker: !!o.marker, width: o.width === undefined ? 1.5 : o.width };
    if (o.barWidth !== undefined) s.bar_width = o.barWidth;
    return s;
  }

  function panel(o) {
    return { title: o.title || "", xlabel: o.xlabel || "", ylabel: o.ylabel || "", xscale: o.xscale || "linear",
             yscale: o.yscale || "linear", xlim: o.xlim || null, ylim: o.ylim || null, xticks: o.xticks || null,
             yticks: o.yticks || null, legend: !!o.legend, series: o.series || [], texts: [], graph: null, weight: 1.0,
             axis: true };
  }

  function compute(state, data) {
    var p = data.primitives[state.primitive];
    var i = state.n - data.n_min, m = state.m, k = state.k, n = state.n;
    var beta = state.beta_gbps * 1e9;
    var exact = p.exact[String(n)] && p.exact[String(n)][String(data.m_values.indexOf(m))];
    var send = exact ? exact[0] : p.send[i] * m, recv = exact ? exact[1] : p.recv[i] * m;
    var bound = Math.max(send, recv) / (k * beta);
    var sends = p.roles.map(function (r) { return r[0][i] * m; }).concat([send]);
    var recvs = p.roles.map(function (r) { return r[1][i] * m; }).concat([recv]);
    var top = Math.max(Math.max.apply(null, sends), Math.max.apply(null, recvs), 1.0);
    var unit = data.units.find(function (u) { return top >= u[1]; });
    var scale = unit[1], groups = sends.length;
    var labels = p.role_labels.map(function (r) { return r + "\n（单节点必传）"; }).concat(["最忙节点\n（守恒 / 计数）"]);
    var idx = sends.map(function (_, g) { return g; });
    var left = panel({
      title: p.label + "，N = " + n + "，M = " + fmt.formatBytes(m), ylabel: "字节（" + unit[0] + "）",
      xlim: [-0.6, groups - 0.4], ylim: [0, top / scale * 1.35], legend: true,
      xticks: labels.map(function (l, g) { return [g, l]; }),
      series: [
        series("bar", idx.map(function (g) { return g - 0.2; }), sends.map(function (v) { return v / scale; }),
               { color: data.colors.send, label: "发送 S", width: 0.4, barWidth: 0.4 }),
        series("bar", idx.map(function (g) { return g + 0.2; }), recvs.map(function (v) { return v / scale; }),
               { color: data.colors.recv, label: "接收 R", width: 0.4, barWidth: 0.4 })
      ]
    });
    var curve = data.n_curve;
    var right = panel({
      title: p.limit_title, xlabel: "节点数 N", ylabel: "max(S, R) / M", xscale: "log",
      xlim: [curve[0] / 1.2, curve[curve.length - 1] * 1.2], ylim: [0, 2.3], xticks: data.n_ticks,
      series: [
        series("line", curve, p.curve, { color: data.colors.curve }),
        series("scatter", [n], [Math.max(p.send[i], p.recv[i])], { color: data.colors.point, marker: true }),
        series("hline", [], [p.limit], { color: data.colors.limit, dash: true, width: 0.8 })
      ]
    });
    var readout = "<b>" + p.label + "，N = " + n + "，M = " + fmt.formatBytes(m) + "</b>：最忙节点至少发送 " +
      fmt.formatBytes(send) + "、接收 " + fmt.formatBytes(recv) + "。<br>" +
      "k = " + k + " 条链路同时收发，每条 β = " + fmt.formatBandwidth(beta) + " ⇒ 带宽下界 " +
      "T<sub>β</sub> ≥ max(S, R) / (k·β) = <b>" + fmt.formatTime(bound) + "</b>。";
    return { readout: readout, figure: { panels: [left, right] } };
  }

  CCBLive.register("BandwidthExplorer", { compute: compute });
})();
