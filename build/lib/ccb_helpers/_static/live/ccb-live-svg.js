/* ccb-live-svg.js: a FigureSpec (ccb_helpers.live.figure) drawn as inline SVG by ccb-live.js.
 *
 * Panels in a row at >= 600 px, stacked below. What every explorer gets from here (issue #43):
 * titles and annotations that wrap or move to stay inside the figure at 390 px, a legend placed
 * where it covers no data (else under the plot), tick labels of one format per axis, dash styles
 * a reader tells apart without colour (dashed, dotted, dash-dot), hollow markers, an accessible
 * name for the <svg role="img">, colours that read in the theme's light and dark modes
 * (ccb-live.css), and the geometry of each panel (CCBLive.layoutOf) for the crosshair of
 * ccb-live-hover.js. CCBLive.render(container, figure, width) -> the <svg> element.
 */
(function () {
  "use strict";

  var SVGNS = "http://www.w3.org/2000/svg";
  var uid = 0;
  var fmt = CCBLive.fmt;
  var FONT = 12, SMALL = 11, LINE = 16;

  // The SVG is built as a light tree of VNodes and written with one innerHTML: creating thousands
  // of DOM nodes one by one (a hypercube: 128 nodes, 448 links) cost 3-5x more, and measuring a
  // text in the live DOM forced a layout of the whole chapter page per legend entry.
  function escapeXml(v) {
    return String(v).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  function VNode(tag, attrs) { this.tag = tag; this.attrs = attrs; this.children = []; this.text = null; }
  VNode.prototype.setAttribute = function (k, v) { this.attrs[k] = v; };
  VNode.prototype.appendChild = function (child) { this.children.push(child); return child; };
  Object.defineProperty(VNode.prototype, "textContent", {
    get: function () { return this.text === null ? this.children.map(function (c) { return c.textContent; }).join("") : this.text; },
    set: function (v) { this.text = String(v); this.children = []; }
  });
  VNode.prototype.toString = function () {
    var out = "<" + this.tag;
    for (var k in this.attrs) {
      var v = this.attrs[k];
      if (v !== undefined && v !== null) out += " " + k + '="' + escapeXml(v) + '"';
    }
    out += ">";
    if (this.text !== null) out += escapeXml(this.text);
    for (var i = 0; i < this.children.length; i++) out += this.children[i].toString();
    return out + "</" + this.tag + ">";
  };

  function el(tag, attrs, parent) {
    var node = new VNode(tag, Object.assign({}, attrs));
    if (parent) parent.appendChild(node);
    return node;
  }

  function addText(parent, x, y, value, attrs, downward) {
    // Several lines ("\n") are centred on y, or hang below it when downward (tick labels, titles).
    var lines = String(value).split("\n");
    var t = el("text", Object.assign({ x: x, y: y }, attrs), parent);
    if (lines.length === 1) { t.textContent = value; return t; }
    var shift = downward ? 0 : -(lines.length - 1) * 0.6;
    lines.forEach(function (line, i) {
      var span = el("tspan", { x: x, dy: (i === 0 ? shift : 1.2) + "em" }, t);
      span.textContent = line;
    });
    return t;
  }

  // ---------------------------------------------------------------------------------------------
  // Text measurement (a canvas with the page's font: no layout of the page) and wrapping.

  var measurer = null, fontFamily = null;

  function measure(text, size) {
    try {
      if (!measurer) measurer = document.createElement("canvas").getContext("2d");
      if (fontFamily === null) fontFamily = getComputedStyle(document.body).fontFamily || "sans-serif";
      measurer.font = size + "px " + fontFamily;
      var widest = 0;
      String(text).split("\n").forEach(function (line) { widest = Math.max(widest, measurer.measureText(line).width); });
      if (widest > 0) return widest;
    } catch (e) { /* no canvas: estimate below */ }
    var n = 0, s = String(text);
    for (var i = 0; i < s.length; i++) n += s.charCodeAt(i) > 0x2e80 ? size : size * 0.6;
    return n;
  }

  function textWidth(node, text) {
    return measure(text, parseFloat((node && node.attrs && node.attrs["font-size"]) || SMALL));
  }

  // Break a text into lines no wider than `width`: after Chinese punctuation, before "（", at blanks,
  // else between any two characters (a long formula); the text's own "\n" stay.
  function wrap(text, size, width) {
    var out = [];
    String(text).split("\n").forEach(function (line) {
      if (measure(line, size) <= width) { out.push(line); return; }
      var pieces = line.match(/[^，。；：、）\s（]*[，。；：、）]+\s*|[^，。；：、）\s（]+\s+|（[^（]*|[^，。；：、）\s（]+|\s+/g) || [line];
      var current = "";
      pieces.forEach(function (piece) {
        if (!current || measure(current + piece, size) <= width) { current += piece; return; }
        out.push(current.replace(/\s+$/, ""));
        current = piece.replace(/^\s+/, "");
      });
      while (measure(current, size) > width && current.length > 1) { // a single piece wider than the line
        var cut = current.length - 1;
        while (cut > 1 && measure(current.slice(0, cut), size) > width) cut--;
        out.push(current.slice(0, cut));
        current = current.slice(cut);
      }
      if (current) out.push(current);
    });
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Axes: extents, scales, ticks.

  function niceStep(span, count) {
    var step = Math.pow(10, Math.floor(Math.log10(span / count)));
    var err = span / count / step;
    if (err >= 7.5) step *= 10; else if (err >= 3.5) step *= 5; else if (err >= 1.5) step *= 2;
    return step;
  }

  function niceTicks(lo, hi, count) {
    var span = hi - lo;
    if (!(span > 0)) return [lo];
    var step = niceStep(span, count);
    var out = [];
    for (var v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    return out;
  }

  // One format for every label of an axis, as matplotlib's ScalarFormatter: as many decimals as the
  // step needs ("1.0, 1.5, 2.0", not "1, 1.5, 2"); integers of 6 digits and more grouped by
  // thousands ("1 000 000", not "1e+06" next to "100000").
  function tickLabels(values) {
    if (values.length < 2) return values.map(function (v) { return [v, fmt.g(v)]; });
    var step = Infinity;
    for (var i = 1; i < values.length; i++) step = Math.min(step, Math.abs(values[i] - values[i - 1]));
    var decimals = Math.max(0, Math.min(10, -Math.floor(Math.log10(step) + 1e-9)));
    var biggest = Math.max.apply(null, values.map(Math.abs));
    return values.map(function (v) {
      var text = fmt.fixed(v, decimals);
      if (text === "-0" || /^-0\.0*$/.test(text)) text = text.slice(1);
      if (decimals === 0 && biggest >= 1e5) text = text.replace(/\B(?=(\d{3})+(?!\d))/g, "\u2009");
      return [v, text];
    });
  }

  function dataExtent(panel, axis) {
    var lo = Infinity, hi = -Infinity;
    function take(v) { if (typeof v === "number" && isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; } }
    (panel.series || []).forEach(function (s) {
      if (axis === "x" && s.kind !== "hline") (s.x || []).forEach(take);
      if (axis === "y" && s.kind !== "vline") { (s.y || []).forEach(take); (s.y2 || []).forEach(take); }
      if (axis === "y" && s.kind === "bar") take(0);
    });
    if (panel.graph) panel.graph.nodes.forEach(function (n) { take(axis === "x" ? n.x : n.y); });
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    if (lo === hi) { lo -= 0.5; hi += 0.5; }
    var pad = (hi - lo) * 0.05;
    return [lo - pad, hi + pad];
  }

  function scale(kind, lim, a, b) {
    var f, inverse;
    if (kind === "log") {
      var l0 = Math.log10(lim[0]), l1 = Math.log10(lim[1]);
      f = function (v) { return a + (Math.log10(v) - l0) / (l1 - l0) * (b - a); };
      inverse = function (px) { return Math.pow(10, l0 + (px - a) / (b - a) * (l1 - l0)); };
    } else {
      f = function (v) { return a + (v - lim[0]) / (lim[1] - lim[0]) * (b - a); };
      inverse = function (px) { return lim[0] + (px - a) / (b - a) * (lim[1] - lim[0]); };
    }
    f.inverse = inverse;
    return f;
  }

  // Dash patterns a reader tells apart without colour (matplotlib's "--", ":", "-."): a series'
  // "dash" is true (dashed) or one of these names.
  var DASHES = { dashed: "5,3", dotted: "1.5,2.5", dashdot: "7,3,1.5,3", longdash: "10,4" };

  function dashArray(dash) {
    if (!dash) return null;
    return DASHES[dash === true ? "dashed" : dash] || DASHES.dashed;
  }

  // ---------------------------------------------------------------------------------------------
  // Geometry of a panel in its box: margins, wrapped title, plot rectangle, limits and scales.

  function hasAxis(p) { return p.axis !== false; }

  function geometry(p, box) {
    var axis = hasAxis(p);
    var titleLines = p.title ? wrap(p.title, FONT, Math.max(60, box.w - 8)) : [];
    var m = { left: axis ? (p.ylabel ? 58 : 40) : 6, right: 10, top: 8 + titleLines.length * LINE, bottom: axis ? (p.xlabel ? 40 : 24) : 6 };
    if (axis && p.xticks && p.xticks.length === 0 && !p.xlabel) m.bottom = 10;
    var tickLines = Math.max.apply(null, [1].concat((p.xticks || []).map(function (t) { return String(t[1]).split("\n").length; })));
    if (axis && tickLines > 1) m.bottom += (tickLines - 1) * 13;
    // Y tick labels wider than the default margin (pair names such as "Binomial\nBroadcast") get the room they need.
    if (axis && p.yticks) {
      var widest = 0;
      p.yticks.forEach(function (t) { widest = Math.max(widest, measure(String(t[1]), SMALL)); });
      m.left = Math.max(m.left, widest + 10 + (p.ylabel ? 18 : 0));
    }
    var x0 = box.x + m.left, x1 = box.x + box.w - m.right, y0 = box.y + m.top, y1 = box.y + box.h - m.bottom - (box.legendBelow || 0);
    var xlim = p.xlim || dataExtent(p, "x"), ylim = p.ylim || dataExtent(p, "y");
    if (p.aspect === "equal") {
      var ux = (x1 - x0) / (xlim[1] - xlim[0]), uy = (y1 - y0) / (ylim[1] - ylim[0]), u = Math.min(ux, uy);
      var cx = (xlim[0] + xlim[1]) / 2, cy = (ylim[0] + ylim[1]) / 2;
      var hx = (x1 - x0) / u / 2, hy = (y1 - y0) / u / 2;
      xlim = [cx - hx, cx + hx]; ylim = [cy - hy, cy + hy];
    }
    return { m: m, titleLines: titleLines, tickLines: tickLines, x0: x0, x1: x1, y0: y0, y1: y1, xlim: xlim, ylim: ylim,
             sx: scale(p.xscale, xlim, x0, x1), sy: scale(p.yscale, ylim, y1, y0), box: box, panel: p };
  }

  // ---------------------------------------------------------------------------------------------
  // The legend: in the plot's corner that covers the fewest data, or under the plot when every
  // corner would cover some (AlgorithmExplorer's efficiency curves at 1280 px) or the figure is narrow.

  function legendEntries(p) { return (p.series || []).filter(function (s) { return s.label; }); }

  function legendGrid(p, width) {
    var entries = legendEntries(p), widest = 0;
    entries.forEach(function (s) { widest = Math.max(widest, measure(s.label, SMALL)); });
    var column = 32 + widest, cols = width > 0 ? Math.max(1, Math.min(entries.length, Math.floor(width / column))) : 1;
    return { entries: entries, column: column, cols: cols, rows: Math.ceil(entries.length / cols) };
  }

  function legendHeight(p, width) { return legendGrid(p, width).rows * 15 + 6; }

  // Points of the panel's data in px (lines sampled along their segments) that a box would cover.
  function covered(geo, rect) {
    var p = geo.panel, n = 0;
    function inside(x, y) { return x >= rect.x - 2 && x <= rect.x + rect.w + 2 && y >= rect.y - 2 && y <= rect.y + rect.h + 2; }
    (p.series || []).forEach(function (s) {
      var xs = s.x || [], ys = s.y || [];
      if (s.kind === "line" || s.kind === "step" || s.kind === "scatter") {
        var last = null;
        for (var i = 0; i < xs.length; i++) {
          if (xs[i] === null || ys[i] === null) { last = null; continue; }
          var px = geo.sx(xs[i]), py = geo.sy(ys[i]);
          if (!isFinite(px) || !isFinite(py)) { last = null; continue; }
          if (inside(px, py)) n++;
          if (last && s.kind !== "scatter") {
            var steps = Math.min(40, Math.ceil(Math.hypot(px - last[0], py - last[1]) / 4));
            for (var k = 1; k < steps; k++) if (inside(last[0] + (px - last[0]) * k / steps, last[1] + (py - last[1]) * k / steps)) n++;
          }
          last = [px, py];
        }
      } else if (s.kind === "bar") {
        xs.forEach(function (x, i) { if (inside(geo.sx(x), geo.sy(ys[i]))) n += 3; });
      } else if (s.kind === "hline" || s.kind === "vline") {
        (s.kind === "hline" ? ys : xs).forEach(function (v) {
          var c = s.kind === "hline" ? geo.sy(v) : geo.sx(v);
          if (s.kind === "hline" ? (c >= rect.y && c <= rect.y + rect.h) : (c >= rect.x && c <= rect.x + rect.w)) n += 5;
        });
      }
    });
    return n;
  }

  function legendSpot(geo) {
    var p = geo.panel, grid = legendGrid(p, 0);
    var w = grid.column, h = grid.rows * 15 + 6;
    if (w > geo.x1 - geo.x0 - 12 || h > geo.y1 - geo.y0 - 12) return null;
    var spots = [[geo.x0 + 6, geo.y0 + 6], [geo.x1 - 6 - w, geo.y0 + 6], [geo.x0 + 6, geo.y1 - 6 - h], [geo.x1 - 6 - w, geo.y1 - 6 - h]];
    var best = null;
    spots.forEach(function (s) {
      var n = covered(geo, { x: s[0], y: s[1], w: w, h: h });
      if (!best || n < best.n) best = { x: s[0], y: s[1], n: n };
    });
    return best;
  }

  function drawLegend(g, p, at) {
    var grid = legendGrid(p, at.w), lx = at.x, ly = at.y;
    var lg = el("g", { "class": "ccb-live-legend" + (at.w > 0 ? " ccb-live-legend-below" : "") }, g);
    var bg = el("rect", { x: lx, y: ly, width: 10, height: 10, "class": "ccb-live-paper", "fill-opacity": 0.85, stroke: "#dddddd" }, lg);
    grid.entries.forEach(function (s, i) {
      var ex = lx + (i % grid.cols) * grid.column, cy3 = ly + 10 + Math.floor(i / grid.cols) * 15;
      // One group per entry, its look in data-* (what tells it from the others: colour, dash, marker).
      var entry = el("g", { "class": "ccb-live-legend-entry", "data-color": s.color, "data-dash": dashArray(s.dash) || "",
                            "data-marker": s.marker || s.kind === "scatter" ? (s.shape || "circle") + (s.hollow ? "-open" : "") : "",
                            "data-kind": s.kind }, lg);
      if (s.kind === "bar" || s.kind === "band") el("rect", { x: ex + 5, y: cy3 - 5, width: 14, height: 9, fill: s.color, "fill-opacity": s.alpha === undefined ? 1 : s.alpha }, entry);
      else if (s.kind !== "scatter") el("line", { x1: ex + 4, x2: ex + 20, y1: cy3, y2: cy3, stroke: s.color, "stroke-width": s.width || 1.5, "stroke-dasharray": dashArray(s.dash) }, entry);
      if (s.marker || s.kind === "scatter") marker(entry, s, ex + 12, cy3, Math.min(s.r || 3.5, 4.5));
      addText(entry, ex + 25, cy3 + 4, s.label, { "font-size": SMALL });
    });
    bg.setAttribute("width", grid.cols * grid.column);
    bg.setAttribute("height", grid.rows * 15 + 6);
  }

  function marker(parent, s, px, py, r) {
    var color = s.color || "#222222";
    if (s.shape === "square") {
      var h = r * 0.9;
      el("rect", s.hollow ? { x: px - h, y: py - h, width: 2 * h, height: 2 * h, fill: "none", stroke: color, "stroke-width": 2 }
                          : { x: px - h, y: py - h, width: 2 * h, height: 2 * h, fill: color }, parent);
    } else {
      el("circle", s.hollow ? { cx: px, cy: py, r: r, fill: "none", stroke: color, "stroke-width": 2 } : { cx: px, cy: py, r: r, fill: color }, parent);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // A panel.

  function drawPanel(svg, p, box) {
    var geo = geometry(p, box), m = geo.m;
    var x0 = geo.x0, x1 = geo.x1, y0 = geo.y0, y1 = geo.y1, xlim = geo.xlim, ylim = geo.ylim, sx = geo.sx, sy = geo.sy;
    var g = el("g", { "class": "ccb-live-panel" }, svg);
    if (geo.titleLines.length) {
      // Centred over the plot, but inside the figure: a line as wide as the panel is centred on it.
      var tx = (x0 + x1) / 2, widest = Math.max.apply(null, geo.titleLines.map(function (l) { return measure(l, FONT); }));
      tx = Math.min(Math.max(tx, box.x + 4 + widest / 2), box.x + box.w - 4 - widest / 2);
      addText(g, tx, box.y + 4 + FONT, geo.titleLines.join("\n"), { "text-anchor": "middle", "font-size": FONT, "class": "ccb-live-title" }, true);
    }
    var clip = "ccb-clip-" + (++uid);
    var defs = el("defs", {}, g);
    el("rect", { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) }, el("clipPath", { id: clip }, defs));
    if (hasAxis(p)) {
      el("rect", { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0), fill: "none", stroke: "#bbbbbb" }, g);
      var xt = p.xticks || (p.xscale === "log" ? null : tickLabels(niceTicks(xlim[0], xlim[1], Math.max(2, Math.floor((x1 - x0) / 70)))));
      var yt = p.yticks || tickLabels(niceTicks(ylim[0], ylim[1], Math.max(2, Math.floor((y1 - y0) / 45))));
      (xt || []).forEach(function (t) {
        var x = sx(t[0]);
        if (x < x0 - 0.5 || x > x1 + 0.5) return;
        el("line", { x1: x, x2: x, y1: y1, y2: y1 + 4, stroke: "#555" }, g);
        addText(g, x, y1 + 16, t[1], { "text-anchor": "middle", "font-size": SMALL }, true);
      });
      yt.forEach(function (t) {
        var y = sy(t[0]);
        if (y < y0 - 0.5 || y > y1 + 0.5) return;
        el("line", { x1: x0 - 4, x2: x0, y1: y, y2: y, stroke: "#555" }, g);
        el("line", { x1: x0, x2: x1, y1: y, y2: y, "class": "ccb-live-grid" }, g);
        addText(g, x0 - 6, y + 4, t[1], { "text-anchor": "end", "font-size": SMALL });
      });
      if (p.xlabel) addText(g, (x0 + x1) / 2, y1 + 33 + (geo.tickLines > 1 ? (geo.tickLines - 1) * 13 : 0), p.xlabel, { "text-anchor": "middle", "font-size": FONT });
      if (p.ylabel) {
        var t = addText(g, 0, 0, p.ylabel, { "text-anchor": "middle", "font-size": FONT });
        t.setAttribute("transform", "translate(" + (box.x + 13) + "," + (y0 + y1) / 2 + ") rotate(-90)");
      }
    }
    var plot = el("g", { "clip-path": "url(#" + clip + ")" }, g);
    var base = p.yscale === "log" ? ylim[0] : Math.max(ylim[0], Math.min(0, ylim[1]));
    (p.series || []).forEach(function (s) {
      var color = s.color || "#222222", width = s.width || 1.5, dash = dashArray(s.dash);
      var xs = s.x || [], ys = s.y || [];
      if (s.kind === "bar") {
        var bw = s.bar_width !== undefined ? Math.abs(sx(s.bar_width) - sx(0)) // bar_width: in data units
          : xs.length > 1 ? Math.abs(sx(xs[1]) - sx(xs[0])) * 0.8 : (x1 - x0) * 0.1;
        xs.forEach(function (x, i) {
          var top = sy(ys[i]), bottom = sy(base);
          el("rect", { x: sx(x) - bw / 2, y: Math.min(top, bottom), width: bw, height: Math.abs(bottom - top), fill: color,
                       "fill-opacity": s.alpha === undefined ? 1 : s.alpha }, plot);
        });
      } else if (s.kind === "hline" || s.kind === "vline") {
        (s.kind === "hline" ? ys : xs).forEach(function (v) {
          var a = s.kind === "hline" ? { x1: x0, x2: x1, y1: sy(v), y2: sy(v) } : { x1: sx(v), x2: sx(v), y1: y0, y2: y1 };
          el("line", Object.assign(a, { stroke: color, "stroke-width": width, "stroke-dasharray": dash }), plot);
        });
      } else if (s.kind === "band") {
        var pts = xs.map(function (x, i) { return sx(x) + "," + sy(ys[i]); });
        var back = xs.map(function (x, i) { return sx(x) + "," + sy(s.y2[i]); }).reverse();
        el("polygon", { points: pts.concat(back).join(" "), fill: color, "fill-opacity": s.alpha === undefined ? 0.2 : s.alpha, stroke: "none" }, plot);
      } else {
        if (s.kind === "line" || s.kind === "step") {
          var d = "";
          xs.forEach(function (x, i) {
            if (x === null || ys[i] === null) return;
            var px = sx(x), py = sy(ys[i]);
            if (!isFinite(px) || !isFinite(py)) return;
            if (!d) d = "M" + px + "," + py;
            else d += s.kind === "step" ? "H" + px + "V" + py : "L" + px + "," + py;
          });
          if (d) el("path", { d: d, fill: "none", stroke: color, "stroke-width": width, "stroke-dasharray": dash, "stroke-opacity": s.alpha,
                              "stroke-linecap": s.dash === "dotted" ? "round" : null }, plot);
        }
        if (s.kind === "scatter" || s.marker) {
          xs.forEach(function (x, i) {
            if (x === null || ys[i] === null) return;
            var px = sx(x), py = sy(ys[i]);
            if (!isFinite(px) || !isFinite(py)) return;
            marker(plot, s, px, py, s.shape === "square" ? 3.55 : (s.r || 3.5));
          });
        }
      }
    });
    if (p.graph) drawGraph(g, plot, p.graph, sx, sy);
    (p.texts || []).forEach(function (t) {
      var x = t.coords === "axes" ? x0 + t.x * (x1 - x0) : sx(t.x), y = t.coords === "axes" ? y1 - t.y * (y1 - y0) : sy(t.y);
      var size = t.size || FONT;
      if (t.valign === "bottom") y -= 3; else if (t.valign === "top") y += size; else y += size * 0.35;
      // An annotation stays inside the panel (NcclExplorer's pick label ran off a phone's figure).
      var w = measure(t.text, size), anchor = t.anchor || "middle";
      var left = anchor === "start" ? x : anchor === "end" ? x - w : x - w / 2;
      var shift = Math.min(0, box.x + box.w - 2 - (left + w)) + Math.max(0, box.x + 2 - left);
      var lines = String(t.text).split("\n").length;
      var top = y - size * (0.85 + 0.6 * 1.2 * (lines - 1)), bottom = y + size * 0.25 + size * 0.6 * 1.2 * (lines - 1);
      var lift = Math.min(0, y1 - 1 - bottom) + Math.max(0, y0 + 1 - top);
      addText(g, x + shift, y + lift, t.text, { "text-anchor": anchor, "font-size": size, fill: t.color || "#222222", "class": "ccb-live-note" });
    });
    if (p.legend && legendEntries(p).length) {
      var at = box.legendBelow ? { x: box.x + 6, y: y1 + m.bottom + 2, w: box.w - 12 } : (box.legendAt || { x: x0 + 6, y: y0 + 6, w: 0 });
      drawLegend(g, p, at);
    }
    return geo;
  }

  function drawGraph(g, plot, graph, sx, sy) {
    var nodes = graph.nodes;
    (graph.edges || []).forEach(function (e) {
      var a = nodes[e.a], b = nodes[e.b];
      var attrs = { fill: "none", stroke: e.color || "#999999", "stroke-width": e.width || 1, "stroke-dasharray": e.dash ? "4,3" : null };
      if (e.arrow || e.shrink) { // arrows (FancyArrowPatch: shrunk clear of the nodes, head at b)
        drawArrow(plot, e, a, b, sx, sy, attrs);
      } else if (e.curve) { // matplotlib's arc3: quadratic Bezier, control = mid + rad * (dy, -dx) in data units
        var mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2, cx2 = mx + e.curve * (b.y - a.y), cy2 = my - e.curve * (b.x - a.x);
        attrs.d = "M" + sx(a.x) + "," + sy(a.y) + "Q" + sx(cx2) + "," + sy(cy2) + " " + sx(b.x) + "," + sy(b.y);
        el("path", attrs, plot);
      } else {
        el("line", Object.assign(attrs, { x1: sx(a.x), y1: sy(a.y), x2: sx(b.x), y2: sy(b.y) }), plot);
      }
    });
    (graph.edges || []).forEach(function (e) { // an edge's label at labelAt (data), on a box of the figure's paper
      if (!e.label || !e.labelAt) return;
      var lx = sx(e.labelAt[0]), ly = sy(e.labelAt[1]), size = e.labelSize || SMALL;
      var box = el("rect", { "class": "ccb-live-paper", "fill-opacity": 0.9 }, g);
      var t = addText(g, lx, ly + size * 0.35, e.label, { "text-anchor": "middle", "font-size": size, fill: e.labelColor || "#222222",
                                                        "class": "ccb-live-edge-label" });
      var w = textWidth(t, e.label);
      box.setAttribute("x", lx - w / 2 - 2); box.setAttribute("y", ly - size * 0.65);
      box.setAttribute("width", w + 4); box.setAttribute("height", size * 1.3);
    });
    nodes.forEach(function (n) {
      var r = n.r || 4.5;
      el(n.shape === "square" ? "rect" : "circle", n.shape === "square" ?
        { x: sx(n.x) - r, y: sy(n.y) - r, width: 2 * r, height: 2 * r, fill: n.color || "#1f77b4" } :
        { cx: sx(n.x), cy: sy(n.y), r: r, fill: n.color || "#1f77b4", stroke: n.stroke || "#ffffff", "stroke-width": n.strokeWidth || 0.6 }, plot);
      if (n.ring) el("circle", { cx: sx(n.x), cy: sy(n.y), r: r * 1.5, fill: "none", stroke: n.ring, "stroke-width": 1.5 }, plot);
    });
    nodes.forEach(function (n) {
      if (!n.label) return;
      var inside = n.labelInside;
      addText(g, sx(n.x), inside ? sy(n.y) + 3.5 : sy(n.y) - (n.r || 4.5) - 3, n.label,
              { "text-anchor": "middle", "font-size": 10, fill: n.labelColor || "#222222", "class": inside ? "ccb-live-node-label" : null });
    });
  }

  function drawArrow(parent, e, a, b, sx, sy, attrs) {
    // A (curved) edge from a to b as matplotlib's FancyArrowPatch draws it: the arc3 Bezier in
    // screen space, cut e.shrink px from both ends (clear of the node discs), head "-|>" at b.
    var p0 = [sx(a.x), sy(a.y)], p2 = [sx(b.x), sy(b.y)], rad = e.curve || 0;
    var mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
    var c = [sx(mx + rad * (b.y - a.y)), sy(my - rad * (b.x - a.x))];
    function at(t) {
      var u = 1 - t;
      return [u * u * p0[0] + 2 * u * t * c[0] + t * t * p2[0], u * u * p0[1] + 2 * u * t * c[1] + t * t * p2[1]];
    }
    var shrink = e.shrink || 0, t0 = 0, t1 = 1, N = 64;
    for (var i = 0; i <= N && Math.hypot(at(i / N)[0] - p0[0], at(i / N)[1] - p0[1]) < shrink; i++) t0 = i / N;
    for (var j = N; j >= 0 && Math.hypot(at(j / N)[0] - p2[0], at(j / N)[1] - p2[1]) < shrink; j--) t1 = j / N;
    if (t1 <= t0) return;
    var s = at(t0), q = at(t1);
    // control point of the sub-curve [t0, t1] (the blossom of the quadratic at t0, t1)
    var k = [(1 - t0) * (1 - t1), (1 - t0) * t1 + t0 * (1 - t1), t0 * t1];
    var cc = [k[0] * p0[0] + k[1] * c[0] + k[2] * p2[0], k[0] * p0[1] + k[1] * c[1] + k[2] * p2[1]];
    var width = e.width || 1, head = e.arrow ? 5 + 1.6 * width : 0;
    var dx = q[0] - cc[0], dy = q[1] - cc[1], len = Math.hypot(dx, dy) || 1;
    dx /= len; dy /= len;
    var end = [q[0] - dx * head * 0.8, q[1] - dy * head * 0.8]; // the line stops inside the head
    attrs.d = "M" + s[0] + "," + s[1] + "Q" + cc[0] + "," + cc[1] + " " + end[0] + "," + end[1];
    el("path", attrs, parent);
    if (e.arrow) {
      var base = [q[0] - dx * head, q[1] - dy * head], half = head * 0.45;
      el("polygon", { points: q[0] + "," + q[1] + " " + (base[0] - dy * half) + "," + (base[1] + dx * half) + " " +
                              (base[0] + dy * half) + "," + (base[1] - dx * half), fill: e.color || "#999999" }, parent);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The figure.

  var STACK_BELOW = 600;

  // What a screen reader announces for the figure: its panels' titles (the readout, next to the
  // figure, gives the numbers; the crosshair reads single points).
  function figureName(figure) {
    var titles = (figure.panels || []).map(function (p) { return String(p.title || "").replace(/\s*\n\s*/g, " ").trim(); })
      .filter(Boolean);
    return figure.label || ("图：" + (titles.length ? titles.join("；") : "探索器的当前状态"));
  }

  function layoutBoxes(panels, width, rowHeight) {
    var stacked = width < STACK_BELOW && panels.length > 1;
    var boxes = [], height;
    if (stacked) {
      var y = 0;
      panels.forEach(function (p) {
        var h = Math.round(Math.min(rowHeight, Math.max(220, width * (p.graph && p.aspect === "equal" ? 0.8 : 0.68))));
        // A panel may ask for its stacked height as a share of the width plus its title
        // (a drawing whose labels were placed for a square panel of the page's width).
        if (p.stackedHeight) h = Math.round(width * p.stackedHeight + (p.title ? wrap(p.title, FONT, width - 8).length * LINE + 8 : 0));
        var below = p.legend && legendEntries(p).length ? legendHeight(p, width - 12) + 4 : 0;  // the legend goes under the plot
        boxes.push({ x: 0, y: y, w: width, h: h + below, legendBelow: below }); y += h + below + 8;
      });
      height = y - 8;
    } else if (width < STACK_BELOW && panels.length === 1 && panels[0].legend && legendEntries(panels[0]).length) {
      var under = legendHeight(panels[0], width - 12) + 4;  // one panel on a phone: its legend under it
      boxes.push({ x: 0, y: 0, w: width, h: rowHeight + under, legendBelow: under });
      height = rowHeight + under;
    } else {
      var total = panels.reduce(function (a, p) { return a + (p.weight || 1); }, 0) || 1, x = 0;
      panels.forEach(function (p) {
        var w = width * (p.weight || 1) / total;
        boxes.push({ x: x, y: 0, w: w, h: rowHeight }); x += w;
      });
      height = rowHeight;
      // A legend inside the plot goes to the corner that covers the fewest data; if every corner
      // covers some, under the plot (the row grows by the tallest such legend).
      var extra = 0;
      panels.forEach(function (p, i) {
        if (!p.legend || !legendEntries(p).length) return;
        var spot = legendSpot(geometry(p, boxes[i]));
        if (spot && spot.n === 0) { boxes[i].legendAt = { x: spot.x, y: spot.y, w: 0 }; return; }
        boxes[i].legendBelow = legendHeight(p, boxes[i].w - 12) + 4;
        extra = Math.max(extra, boxes[i].legendBelow);
      });
      if (extra) {
        // Every plot of the row keeps the same height: a legend's space is the tallest one's.
        boxes.forEach(function (b) { b.h += extra; if (b.legendBelow) b.legendBelow = extra; else b.bottomSpace = extra; });
        height += extra;
      }
    }
    return { boxes: boxes, height: height, stacked: stacked };
  }

  function render(container, figure, widthPx) {
    var width = Math.max(200, Math.floor(widthPx || container.clientWidth || 640));
    var panels = figure.panels || [];
    var laid = layoutBoxes(panels, width, figure.height || 320);
    var svg = el("svg", { xmlns: SVGNS, width: width, height: laid.height, viewBox: "0 0 " + width + " " + laid.height, role: "img",
                          "aria-label": figureName(figure), "class": "ccb-live-svg" + (laid.stacked ? " ccb-live-stacked" : ""),
                          style: "font-family: inherit" });
    var geos = panels.map(function (p, i) {
      var box = laid.boxes[i];
      if (box.bottomSpace) box = Object.assign({}, box, { h: box.h - box.bottomSpace });
      return drawPanel(svg, p, box);
    });
    // Only the figure's <svg> is replaced: what else the container holds (the crosshair's box) stays.
    var holder = document.createElement("div");
    holder.innerHTML = svg.toString();
    var node = holder.firstElementChild, old = null;
    for (var c = container.firstElementChild; c; c = c.nextElementSibling) if (c.classList.contains("ccb-live-svg")) { old = c; break; }
    if (old) container.replaceChild(node, old); else container.insertBefore(node, container.firstChild);
    layouts.set(container, { svg: node, panels: geos, width: width, height: laid.height, figure: figure });
    return node;
  }

  var layouts = new WeakMap();

  // The geometry of the figure last drawn in `container`: per panel its plot rectangle (x0..x1,
  // y0..y1 in SVG px), limits, scales (sx, sy with .inverse) and spec.
  function layoutOf(container) { return layouts.get(container) || null; }

  Object.assign(CCBLive, { render: render, layoutOf: layoutOf, STACK_BELOW: STACK_BELOW, wrapText: wrap, measureText: measure,
                           tickLabels: tickLabels, dashArray: dashArray, figureName: figureName });
})();
