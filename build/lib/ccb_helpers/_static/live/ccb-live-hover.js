/* ccb-live-hover.js: read the figure under the pointer (or a finger) on every live explorer (#43).
 *
 * A reader who points at a curve gets a crosshair at the nearest plotted size and a box with each
 * curve's value there; over a bar, its value; over a node of a drawing, the node and its label.
 * The numbers are the figure's own (the exported data the explorer's script drew), formatted
 * as the readout formats them (CCBLive.fmt: formatTime, formatBytes ...), with the unit of the
 * panel's axis ("xunit" / "yunit" of the FigureSpec, else read off its label and tick labels).
 * On a phone: touch the figure and slide sideways (vertical swipes still scroll the page); the box
 * stays until the next touch outside the figure. The box follows the controls: moving a slider
 * with the pointer resting on the figure shows the new values at the same place.
 */
(function () {
  "use strict";

  var fmt = CCBLive.fmt;
  var TIME = /\d(?:\.\d+)? ?(?:ns|µs|ms|s)$/, BYTES = /\d(?:\.\d+)? ?(?:B|KiB|MiB|GiB|TiB)$/;

  function unitOf(p, axis) {
    if (p[axis + "unit"] !== undefined) return p[axis + "unit"];
    var label = String(p[axis + "label"] || "");
    if (/[（(]µs[）)]/.test(label)) return "µs";
    if (/[（(]ms[）)]/.test(label)) return "ms";
    if (/[（(]s[）)]/.test(label)) return "s";
    if (/GB\/s/.test(label)) return "GB/s";
    var ticks = (p[axis + "ticks"] || []).map(function (t) { return String(t[1]); }).filter(Boolean);
    if (ticks.length && ticks.every(function (t) { return TIME.test(t); })) return "s";
    if (ticks.length && ticks.every(function (t) { return BYTES.test(t); })) return "bytes";
    if (/字节|消息大小/.test(label)) return "bytes";
    return "";
  }

  function format(v, unit) {
    if (typeof v !== "number" || !isFinite(v)) return "—";
    switch (unit) {
      case "s": return fmt.formatTime(v);
      case "ms": return fmt.formatTime(v * 1e-3);
      case "µs": return fmt.formatTime(v * 1e-6);
      case "bytes": return fmt.formatBytes(v);
      case "GB/s": return fmt.g(v, 3) + " GB/s";
      case "B/s": return fmt.formatBandwidth(v);
      default: return Number.isInteger(v) ? String(v) : fmt.g(v, 4);
    }
  }

  // "消息大小 M（字节）" -> "消息大小 M": the axis named without its unit.
  function axisName(label) { return String(label || "").replace(/[（(][^（()）]*[）)]\s*$/, "").replace(/\s*\n\s*/g, " ").trim(); }

  function tickAt(ticks, v) {
    var t = (ticks || []).find(function (t) { return Math.abs(t[0] - v) < 1e-9 * Math.max(1, Math.abs(v)); });
    return t ? String(t[1]).replace(/\s*\n\s*/g, " ") : null;
  }

  function finite(v) { return typeof v === "number" && isFinite(v); }

  // What lies under the point (px, py) of the SVG: {panel geometry, header, rows: [{label, value,
  // color, px, py}], x (crosshair), ring (node)} or null.
  function read(layout, px, py) {
    var geo = null;
    layout.panels.forEach(function (g) {
      if (px >= g.x0 - 6 && px <= g.x1 + 6 && py >= g.y0 - 6 && py <= g.y1 + 6) geo = g;
    });
    if (!geo) return null;
    var p = geo.panel, sx = geo.sx, sy = geo.sy, xu = unitOf(p, "x"), yu = unitOf(p, "y");
    var plotted = (p.series || []).length ? readSeries(geo, px, py, xu, yu) : null;
    if (plotted || !p.graph) return plotted;
    return readNodes(geo, px, py);
  }

  // The node of a drawing under the point: its tip ("节点 5：离节点 0 2 跳") or its label.
  function readNodes(geo, px, py) {
    var p = geo.panel, sx = geo.sx, sy = geo.sy;
    {
      var best = null;
      p.graph.nodes.forEach(function (n, i) {
        var d = Math.hypot(sx(n.x) - px, sy(n.y) - py), reach = Math.max(14, (n.r || 4.5) + 8);
        if (d <= reach && (!best || d < best.d)) best = { d: d, n: n, i: i };
      });
      if (!best) return null;
      var n = best.n, text = n.tip || ("节点 " + (n.label || best.i));
      return { geo: geo, header: text, rows: [], ring: { px: sx(n.x), py: sy(n.y), r: (n.r || 4.5) + 3 } };
    }
  }

  // The plotted values under the point: the bar there, or every curve at the plotted x nearest it.
  function readSeries(geo, px, py, xu, yu) {
    var p = geo.panel, sx = geo.sx, sy = geo.sy;
    var rows = [], series = p.series || [];
    // Bars (vertical) and horizontal bars (bands with a constant y range): the one under the point.
    series.forEach(function (s) {
      var xs = s.x || [], ys = s.y || [];
      if (s.kind === "bar") {
        var bw = s.bar_width !== undefined ? Math.abs(sx(s.bar_width) - sx(0)) : xs.length > 1 ? Math.abs(sx(xs[1]) - sx(xs[0])) * 0.8 : (geo.x1 - geo.x0) * 0.1;
        xs.forEach(function (x, i) {
          if (Math.abs(sx(x) - px) <= bw / 2 + 1 && finite(ys[i])) {
            rows.push({ label: tickAt(p.xticks, x) || s.label || "", value: format(ys[i], yu), color: s.color, px: sx(x), py: sy(ys[i]) });
          }
        });
      } else if (s.kind === "band" && xs.length === 2 && ys[0] === ys[1] && s.y2 && s.y2[0] === s.y2[1]) {
        var top = Math.min(sy(ys[0]), sy(s.y2[0])), bottom = Math.max(sy(ys[0]), sy(s.y2[0]));
        var name = tickAt(p.yticks, (ys[0] + s.y2[0]) / 2);
        if (name !== null && py >= top - 1 && py <= bottom + 1 && px <= Math.max(sx(xs[0]), sx(xs[1])) + 6) {
          rows.push({ label: name, value: format(xs[1], xu), color: s.color, px: sx(xs[1]), py: (top + bottom) / 2 });
        }
      }
    });
    if (rows.length) return { geo: geo, header: "", rows: rows };
    // Curves: the plotted x nearest the pointer, and every curve's value there.
    var target = null;
    series.forEach(function (s) {
      if (s.kind !== "line" && s.kind !== "step" && s.kind !== "scatter") return;
      (s.x || []).forEach(function (x, i) {
        var y = (s.y || [])[i];
        if (!finite(x) || !finite(y)) return;
        var d = Math.abs(sx(x) - px);
        if (!target || d < target.d) target = { d: d, x: x };
      });
    });
    if (!target || target.d > Math.max(40, (geo.x1 - geo.x0) / 8)) return null;
    var at = sx(target.x);
    series.forEach(function (s) {
      if (s.kind === "vline" && s.label) {
        (s.x || []).forEach(function (v) { if (Math.abs(sx(v) - px) <= 8) rows.push({ label: s.label, value: format(v, xu), color: s.color }); });
        return;
      }
      if (s.kind !== "line" && s.kind !== "step" && s.kind !== "scatter") return;
      var xs = s.x || [], ys = s.y || [], hit = -1, gap = Infinity;
      xs.forEach(function (x, i) {
        if (!finite(x) || !finite(ys[i])) return;
        // the plotted x nearest the crosshair; of points on it (a scatter's column), the one nearest the pointer
        var d = Math.abs(sx(x) - at) + (s.kind === "scatter" ? Math.abs(sy(ys[i]) - py) * 1e-3 : 0);
        if (d < gap) { gap = d; hit = i; }
      });
      if (hit < 0 || gap > 1.5) return;
      // "tip": a series' name in the crosshair only (no legend entry); else the axis's name
      var label = s.label || s.tip || axisName(p.ylabel) || "值";
      var py2 = sy(ys[hit]);
      if (py2 < geo.y0 - 1 || py2 > geo.y1 + 1) return; // clipped out of the plot
      rows.push({ label: label, value: format(ys[hit], yu), color: s.color, px: at, py: py2, dash: s.dash });
    });
    if (!rows.length) return null;
    var xname = axisName(p.xlabel);
    return { geo: geo, header: (xname ? xname + " = " : "") + (tickAt(p.xticks, target.x) && xu === "" ? tickAt(p.xticks, target.x) : format(target.x, xu)),
             rows: rows, x: at };
  }

  function Hover(live) {
    var self = this;
    this.live = live; this.fig = live.figure; this.point = null; this.touch = false; this.frame = 0;
    this.tip = document.createElement("div");
    this.tip.className = "ccb-live-tip";
    this.tip.setAttribute("aria-hidden", "true"); // the readout, next to the figure, says the same in words
    this.tip.hidden = true;
    this.fig.appendChild(this.tip);
    this.fig.classList.add("ccb-live-hoverable");
    function at(e) {
      var layout = CCBLive.layoutOf(self.fig);
      if (!layout || !layout.svg.isConnected) return null;
      var r = layout.svg.getBoundingClientRect(), k = layout.width / (r.width || layout.width);
      return [(e.clientX - r.left) * k, (e.clientY - r.top) * k];
    }
    function move(e) {
      var point = at(e);
      if (!point) return;
      self.point = point; self.touch = e.pointerType === "touch" || e.pointerType === "pen";
      if (!self.frame) self.frame = requestAnimationFrame(function () { self.frame = 0; self.redraw(); });
    }
    this.fig.addEventListener("pointermove", function (e) { if (e.pointerType === "mouse" || e.buttons || self.down) move(e); });
    this.fig.addEventListener("pointerdown", function (e) { self.down = true; move(e); });
    this.fig.addEventListener("pointerup", function () { self.down = false; });
    this.fig.addEventListener("pointercancel", function () { self.down = false; }); // the page scrolled: keep what is shown
    this.fig.addEventListener("pointerleave", function (e) { if (e.pointerType === "mouse") self.hide(); });
    document.addEventListener("pointerdown", function (e) { if (!self.fig.contains(e.target)) self.hide(); }, true);
  }

  Hover.prototype.hide = function () {
    this.point = null;
    this.tip.hidden = true;
    var layout = CCBLive.layoutOf(this.fig), old = layout && layout.svg.querySelector(".ccb-live-cursor");
    if (old) old.remove();
  };

  // Show what lies under the last point, on the figure as it is now (called after every redraw).
  Hover.prototype.redraw = function () {
    var layout = CCBLive.layoutOf(this.fig);
    if (!layout) return;
    var old = layout.svg.querySelector(".ccb-live-cursor");
    if (old) old.remove();
    var found = this.point ? read(layout, this.point[0], this.point[1]) : null;
    this.found = found;
    if (!found) { this.tip.hidden = true; return; }
    var NS = "http://www.w3.org/2000/svg", g = document.createElementNS(NS, "g");
    g.setAttribute("class", "ccb-live-cursor");
    g.setAttribute("aria-hidden", "true");
    function add(tag, attrs) {
      var node = document.createElementNS(NS, tag);
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
      g.appendChild(node);
    }
    if (found.x !== undefined) add("line", { x1: found.x, x2: found.x, y1: found.geo.y0, y2: found.geo.y1, "class": "ccb-live-crosshair" });
    found.rows.forEach(function (r) {
      if (r.px !== undefined && r.py !== undefined) add("circle", { cx: r.px, cy: r.py, r: 4, fill: "none", stroke: r.color || "#222222", "stroke-width": 2 });
    });
    if (found.ring) add("circle", { cx: found.ring.px, cy: found.ring.py, r: found.ring.r, fill: "none", "class": "ccb-live-crosshair" });
    layout.svg.appendChild(g);
    var tip = this.tip;
    tip.replaceChildren();
    if (found.header) {
      var head = document.createElement("div");
      head.className = "ccb-live-tip-head";
      head.textContent = found.header;
      tip.appendChild(head);
    }
    found.rows.forEach(function (r) {
      var row = document.createElement("div");
      row.className = "ccb-live-tip-row";
      var swatch = document.createElement("span");
      swatch.className = "ccb-live-tip-swatch";
      swatch.style.background = r.color || "#222222";
      var label = document.createElement("span");
      label.textContent = r.label + "：";
      var value = document.createElement("b");
      value.textContent = r.value;
      row.appendChild(swatch); row.appendChild(label); row.appendChild(value);
      tip.appendChild(row);
    });
    tip.hidden = false;
    // Beside the pointer, inside the figure; above a finger, which would hide it.
    var scale = (layout.svg.getBoundingClientRect().width || layout.width) / layout.width;
    var x = this.point[0] * scale, y = this.point[1] * scale;
    var w = tip.offsetWidth, h = tip.offsetHeight, width = this.fig.clientWidth, height = this.fig.clientHeight;
    var left = x + 14 + w > width ? x - 14 - w : x + 14;
    var top = this.touch ? y - h - 28 : y + 14;
    if (top < 0) top = y + 28;
    if (top + h > height) top = y - h - 14; // no room below the pointer: above it
    tip.style.left = Math.max(0, Math.min(width - w, left)) + "px";
    tip.style.top = Math.max(0, Math.min(height - h, top)) + "px";
  };

  // For tests and tools: what the crosshair shows at SVG point (px, py) of the explorer's figure.
  Hover.prototype.readAt = function (px, py) {
    var layout = CCBLive.layoutOf(this.fig);
    var found = layout ? read(layout, px, py) : null;
    return found && { header: found.header, rows: found.rows.map(function (r) { return [r.label, r.value]; }) };
  };

  CCBLive.hover = function (live) { return new Hover(live); };
  CCBLive.hoverUnit = unitOf;
  CCBLive.hoverFormat = format;
})();
