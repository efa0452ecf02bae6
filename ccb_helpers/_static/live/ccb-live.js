/* ccb-live.js: the explorers of the book, live on the static site (issue #25).
 *
 * No framework, no network: each live explorer's data is exported by the book's build step from
 * the Python code (ccb_helpers.live) and embedded in the page; this runtime builds the controls
 * (the Python explorer's names, ranges, steps and defaults), asks the explorer's script
 * (CCBLive.register) for the readout and FigureSpec of the current state and draws the figure as
 * inline SVG. DOM contract: [data-explorer] > [data-control] inputs, [data-readout].
 */
(function () {
  "use strict";

  var registry = {};
  var SVGNS = "http://www.w3.org/2000/svg";
  var uid = 0;

  // ---------------------------------------------------------------------------------------------
  // fmt: Python's number formatting, exactly (round half to even on the double's exact decimal
  // value, as CPython does); pinned against Python by tests/test_live_core.py.

  function decompose(x) {
    // x > 0 finite -> {sig: "digits", e: exponent of the first digit}; exact. A double is m * 2**k,
    // which is m * 5**-k * 10**k for k < 0 (toFixed(100) lost every digit below 1e-100: 5e-324).
    var view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    var hi = view.getUint32(0), lo = view.getUint32(4), bits = (hi >>> 20) & 0x7ff;
    var m = (BigInt(hi & 0xfffff) << BigInt(32)) | BigInt(lo), k = -1074;
    if (bits !== 0) { m |= BigInt(1) << BigInt(52); k = bits - 1075; }
    var digits = k >= 0 ? (m << BigInt(k)).toString() : (m * BigInt(5) ** BigInt(-k)).toString();
    var sig = digits.replace(/0+$/, "") || "0";
    return { sig: sig, e: digits.length - 1 + Math.min(k, 0) };
  }

  function increment(digits) {
    var out = digits.split("");
    for (var i = out.length - 1; i >= 0; i--) {
      if (out[i] === "9") { out[i] = "0"; } else { out[i] = String.fromCharCode(out[i].charCodeAt(0) + 1); return out.join(""); }
    }
    return "1" + out.join("");
  }

  function roundSig(d, p) {
    // Round {sig, e} to p >= 1 significant digits, half to even -> {sig (length p), e}.
    var sig = d.sig, e = d.e;
    if (sig.length <= p) return { sig: sig + "0".repeat(p - sig.length), e: e };
    var head = sig.slice(0, p), rest = sig.slice(p);
    var up;
    if (rest[0] > "5") up = true;
    else if (rest[0] < "5") up = false;
    else if (/[1-9]/.test(rest.slice(1))) up = true;
    else up = (parseInt(head[head.length - 1], 10) % 2) === 1;
    if (up) {
      head = increment(head);
      if (head.length > p) { head = head.slice(0, p); e += 1; }
    }
    return { sig: head, e: e };
  }

  function pyFixed(x, f) {
    // f"{x:.{f}f}"
    if (!isFinite(x)) return isNaN(x) ? "nan" : (x < 0 ? "-inf" : "inf");
    var neg = x < 0 || (x === 0 && 1 / x < 0);
    var a = Math.abs(x);
    var digits;
    if (a === 0) {
      digits = "0".repeat(f + 1);
    } else {
      var d = decompose(a);
      var p = d.e + 1 + f; // significant digits to keep
      if (p < 0) {
        digits = "0".repeat(f + 1);
      } else {
        var r = roundSig({ sig: "0" + d.sig, e: d.e + 1 }, p + 1); // a leading 0 makes p == 0 work
        // r.sig has its first digit at 10^r.e; write it out with f decimals.
        var intDigits = r.e + 1;
        var s = r.sig;
        if (intDigits <= 0) s = "0".repeat(1 - intDigits) + s;
        digits = s.replace(/^0+(?=\d)/, "");
        var need = f + 1;
        if (digits.length < need) digits = "0".repeat(need - digits.length) + digits;
      }
    }
    var intPart = digits.slice(0, digits.length - f) || "0";
    var text = f > 0 ? intPart + "." + digits.slice(digits.length - f) : intPart;
    return (neg ? "-" : "") + text; // Python keeps the sign of a value rounded to zero: "-0.0"
  }

  function stripZeros(s) {
    return s.indexOf(".") < 0 ? s : s.replace(/0+$/, "").replace(/\.$/, "");
  }

  function pyG(x, p) {
    // f"{x:.{p}g}" (p defaults to 6, as "{:g}")
    if (p === undefined) p = 6;
    if (p === 0) p = 1;
    if (!isFinite(x)) return isNaN(x) ? "nan" : (x < 0 ? "-inf" : "inf");
    if (x === 0) return 1 / x < 0 ? "-0" : "0";
    var sign = x < 0 ? "-" : "";
    var r = roundSig(decompose(Math.abs(x)), p);
    if (r.e >= -4 && r.e < p) {
      return sign + stripZeros(pyFixed(Math.abs(x), p - 1 - r.e));
    }
    var mant = stripZeros(r.sig[0] + "." + r.sig.slice(1));
    var exp = Math.abs(r.e);
    return sign + mant + "e" + (r.e < 0 ? "-" : "+") + (exp < 10 ? "0" : "") + exp;
  }

  function pyRepr(x) {
    // repr(float) / str(int): the shortest digits that round-trip, in Python's layout.
    if (Number.isInteger(x) && Math.abs(x) < 1e16 && !Object.is(x, -0)) return String(x);
    if (!isFinite(x)) return isNaN(x) ? "nan" : (x < 0 ? "-inf" : "inf");
    var sign = x < 0 || Object.is(x, -0) ? "-" : "";
    var t = Math.abs(x).toExponential(); // shortest round-trip digits
    var m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(t);
    var digits = m[1] + (m[2] || ""), e = parseInt(m[3], 10);
    if (e >= -4 && e < 16) {
      var s;
      if (e >= digits.length - 1) s = digits + "0".repeat(e - digits.length + 1) + ".0";
      else if (e >= 0) s = digits.slice(0, e + 1) + "." + digits.slice(e + 1);
      else s = "0." + "0".repeat(-e - 1) + digits;
      return sign + s;
    }
    var mant = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    return sign + mant + "e" + (e < 0 ? "-" : "+") + (Math.abs(e) < 10 ? "0" : "") + Math.abs(e);
  }

  function pyFloatRepr(x) {
    // repr(float(x)): like pyRepr but integral values keep ".0"
    if (Number.isInteger(x) && Math.abs(x) < 1e16) return (Object.is(x, -0) ? "-" : "") + String(Math.abs(x) === 0 ? 0 : x) + ".0";
    return pyRepr(x);
  }

  // ccb_helpers/units.py, step for step: round first, then pick the unit (a rounding that reaches
  // the next unit carries into it), never an exponent, whole numbers of any length in the largest unit.
  var BINARY_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"];
  var TIME_UNITS = [["ns", 1e-9, -9], ["µs", 1e-6, -6], ["ms", 1e-3, -3], ["s", 1.0, 0]];
  var MAX_DIGITS = 15, MIN_NORMAL = 2.2250738585072014e-308;

  function inUnit(value, scale, powerOfTen) {
    // value / scale: the double q and its exact decimal digits {sig, e}; where q underflows, the
    // exact quotient (value's digits shifted by the power of ten scale is).
    var q = value / scale;
    if (q >= MIN_NORMAL || value === 0) return { q: q, d: q === 0 ? { sig: "0", e: 0 } : decompose(q) };
    var d = decompose(value);
    return { q: q, d: { sig: d.sig, e: d.e - powerOfTen } };
  }

  function positional(d, p) {
    // d rounded to p significant digits (half to even), without an exponent, trailing zeros dropped.
    if (d.sig === "0") return "0";
    var r = roundSig(d, p), s = r.sig, e = r.e, out;
    if (e >= s.length - 1) out = s + "0".repeat(e - s.length + 1);
    else if (e >= 0) out = s.slice(0, e + 1) + "." + s.slice(e + 1);
    else out = "0." + "0".repeat(-e - 1) + s;
    return stripZeros(out);
  }

  function whole(d) {
    return positional(d, Math.max(1, Math.min(MAX_DIGITS, d.e + 1)));
  }

  var ONE = { q: 1, d: { sig: "1", e: 0 } };

  function formatBytes(value) {
    var index = 0;
    while (index + 1 < BINARY_UNITS.length && value >= Math.pow(1024, index + 1)) index++;
    var carried = false;
    for (;;) {
      var u = inUnit(value, Math.pow(1024, index), 0), text;
      if (carried && u.q < 1) u = ONE;
      if (index === 0) {
        if (u.q === Math.trunc(u.q)) text = pyFixed(u.q, 0);
        else text = u.q >= 0.05 ? pyFixed(u.q, 1) : positional(u.d, 3);
      } else if (u.q < 999.95) {
        text = pyFixed(u.q, 1);
        if (text.slice(-2) === ".0") text = text.slice(0, -2);
      } else {
        text = whole(u.d);
      }
      if (index === BINARY_UNITS.length - 1 || parseFloat(text) < 1024) return text + " " + BINARY_UNITS[index];
      index++;
      carried = true;
    }
  }

  function formatTime(seconds) {
    if (seconds === 0) return "0 s";
    var index = 0;
    for (var i = 0; i < TIME_UNITS.length; i++) if (seconds >= TIME_UNITS[i][1]) index = i;
    var carried = false;
    for (;;) {
      var unit = TIME_UNITS[index];
      var u = inUnit(seconds, unit[1], unit[2]);
      if (carried && u.q < 1) u = ONE;
      if (index === TIME_UNITS.length - 1) return (u.q < 999.5 ? positional(u.d, 3) : whole(u.d)) + " " + unit[0];
      var text = positional(u.d, 3);
      if (parseFloat(text) < 1000) return text + " " + unit[0];
      index++;
      carried = true;
    }
  }

  function formatBandwidth(value) {
    if (value === 0) return "0 GB/s";
    var u = inUnit(value, 1e9, 9);
    return (u.q < 999.5 ? positional(u.d, 3) : whole(u.d)) + " GB/s";
  }

  var fmt = { g: pyG, fixed: pyFixed, repr: pyRepr, floatRepr: pyFloatRepr, formatBytes: formatBytes,
              formatTime: formatTime, formatBandwidth: formatBandwidth };

  // ---------------------------------------------------------------------------------------------
  // Precomputed tables (ccb_helpers.live.compress): templates, packed figures, mixed-radix states.

  function expandText(packed, i) {
    var row = packed.rows[i], pieces = packed.templates[row[0]];
    var out = pieces[0];
    for (var j = 1; j < pieces.length; j++) out += String(row[j]) + pieces[j];
    return out;
  }

  var caches = new WeakMap();

  function unpacker(packed) {
    var cache = caches.get(packed);
    if (cache) return cache;
    var decoded = new Map();
    function decode(v) {
      if (typeof v === "string") {
        if (v.charCodeAt(0) !== 126) return v; // "~"
        if (v.charCodeAt(1) === 126) return v.slice(1);
        var id = +v.slice(1);
        if (!decoded.has(id)) decoded.set(id, decode(packed.pool[id]));
        return decoded.get(id);
      }
      if (Array.isArray(v)) {
        if (v.length && typeof v[0] === "string" && v[0].charCodeAt(0) === 126 && v[0][1] === "o") {
          var keys = packed.shapes[+v[0].slice(2)], obj = {};
          for (var k = 0; k < keys.length; k++) obj[keys[k]] = decode(v[k + 1]);
          return obj;
        }
        return v.map(decode);
      }
      return v;
    }
    var items = new Map();
    cache = function (i) {
      if (!items.has(i)) items.set(i, decode(packed.items[i]));
      return items.get(i);
    };
    caches.set(packed, cache);
    return cache;
  }

  function sameValue(a, b) {
    return a === b || (typeof a === "number" && typeof b === "number" && a === b);
  }

  function lookup(table, state) {
    var position = 0;
    for (var a = 0; a < table.axes.length; a++) {
      var name = table.axes[a][0], values = table.axes[a][1], value = state[name], found = -1;
      for (var i = 0; i < values.length; i++) if (sameValue(values[i], value)) { found = i; break; }
      if (found < 0) throw new Error(name + " = " + JSON.stringify(value) + " is not one of the tabulated values");
      position = position * values.length + found;
    }
    var id = table.index[position];
    if (id < 0) throw new Error("state " + JSON.stringify(state) + " is not reachable");
    return { readout: expandText(table.readouts, id), figure: unpacker(table.figures)(id) };
  }

  // ---------------------------------------------------------------------------------------------
  // render: a FigureSpec as inline SVG. Panels in a row at >= 600 px, stacked below.

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
    // Several lines ("\n") are centred on y, or hang below it when downward (tick labels).
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

  function niceTicks(lo, hi, count) {
    var span = hi - lo;
    if (!(span > 0)) return [lo];
    var step = Math.pow(10, Math.floor(Math.log10(span / count)));
    var err = span / count / step;
    if (err >= 7.5) step *= 10; else if (err >= 3.5) step *= 5; else if (err >= 1.5) step *= 2;
    var out = [];
    for (var v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    return out;
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
    if (kind === "log") {
      var l0 = Math.log10(lim[0]), l1 = Math.log10(lim[1]);
      return function (v) { return a + (Math.log10(v) - l0) / (l1 - l0) * (b - a); };
    }
    return function (v) { return a + (v - lim[0]) / (lim[1] - lim[0]) * (b - a); };
  }

  var FONT = 12, SMALL = 11;

  function drawPanel(svg, p, box) {
    var hasAxis = p.axis !== false;
    var titleLines = p.title ? String(p.title).split("\n").length : 0;
    var m = { left: hasAxis ? (p.ylabel ? 58 : 40) : 6, right: 10, top: 8 + titleLines * 16, bottom: hasAxis ? (p.xlabel ? 40 : 24) : 6 };
    if (hasAxis && p.xticks && p.xticks.length === 0 && !p.xlabel) m.bottom = 10;
    var tickLines = Math.max.apply(null, [1].concat((p.xticks || []).map(function (t) { return String(t[1]).split("\n").length; })));
    if (hasAxis && tickLines > 1) m.bottom += (tickLines - 1) * 13;
    // Y tick labels wider than the default margin (pair names such as "Binomial\nBroadcast") get the room they need (live-b).
    if (hasAxis && p.yticks) {
      var widest = 0;
      p.yticks.forEach(function (t) {
        String(t[1]).split("\n").forEach(function (line) {
          var w = 0;
          for (var c = 0; c < line.length; c++) w += line.charCodeAt(c) > 0x2e80 ? SMALL : SMALL * 0.62;
          widest = Math.max(widest, w);
        });
      });
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
    var sx = scale(p.xscale, xlim, x0, x1), sy = scale(p.yscale, ylim, y1, y0);
    var g = el("g", { "class": "ccb-live-panel" }, svg);
    if (p.title) addText(g, (x0 + x1) / 2, box.y + 4 + titleLines * 16 - 4, p.title, { "text-anchor": "middle", "font-size": FONT, "class": "ccb-live-title" });
    var clip = "ccb-clip-" + (++uid);
    var defs = el("defs", {}, g);
    el("rect", { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) }, el("clipPath", { id: clip }, defs));
    if (hasAxis) {
      el("rect", { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0), fill: "none", stroke: "#bbbbbb" }, g);
      var xt = p.xticks || (p.xscale === "log" ? null : niceTicks(xlim[0], xlim[1], Math.max(2, Math.floor((x1 - x0) / 70))).map(function (v) { return [v, pyG(v)]; }));
      var yt = p.yticks || niceTicks(ylim[0], ylim[1], Math.max(2, Math.floor((y1 - y0) / 45))).map(function (v) { return [v, pyG(v)]; });
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
        el("line", { x1: x0, x2: x1, y1: y, y2: y, stroke: "#eeeeee" }, g);
        addText(g, x0 - 6, y + 4, t[1], { "text-anchor": "end", "font-size": SMALL });
      });
      if (p.xlabel) addText(g, (x0 + x1) / 2, y1 + 33 + (tickLines > 1 ? (tickLines - 1) * 13 : 0), p.xlabel, { "text-anchor": "middle", "font-size": FONT });
      if (p.ylabel) {
        var t = addText(g, 0, 0, p.ylabel, { "text-anchor": "middle", "font-size": FONT });
        t.setAttribute("transform", "translate(" + (box.x + 13) + "," + (y0 + y1) / 2 + ") rotate(-90)");
      }
    }
    var plot = el("g", { "clip-path": "url(#" + clip + ")" }, g);
    var base = p.yscale === "log" ? ylim[0] : Math.max(ylim[0], Math.min(0, ylim[1]));
    (p.series || []).forEach(function (s) {
      var color = s.color || "#222222", width = s.width || 1.5, dash = s.dash ? "5,3" : null;
      var xs = s.x || [], ys = s.y || [];
      if (s.kind === "bar") {
        var bw = s.bar_width !== undefined ? Math.abs(sx(s.bar_width) - sx(0)) // bar_width: in data units (live-b)
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
            var px = sx(x), py = sy(ys[i]);
            if (!isFinite(px) || !isFinite(py)) return;
            if (!d) d = "M" + px + "," + py;
            else d += s.kind === "step" ? "H" + px + "V" + py : "L" + px + "," + py;
          });
          if (d) el("path", { d: d, fill: "none", stroke: color, "stroke-width": width, "stroke-dasharray": dash, "stroke-opacity": s.alpha }, plot);
        }
        if (s.kind === "scatter" || s.marker) {
          xs.forEach(function (x, i) {
            var px = sx(x), py = sy(ys[i]);
            if (!isFinite(px) || !isFinite(py)) return;
            if (s.shape === "square") el("rect", { x: px - 3.2, y: py - 3.2, width: 6.4, height: 6.4, fill: color }, plot); // optional Series key (live-b)
            else el("circle", { cx: px, cy: py, r: s.r || 3.5, fill: color }, plot);
          });
        }
      }
    });
    if (p.graph) {
      var nodes = p.graph.nodes;
      (p.graph.edges || []).forEach(function (e) {
        var a = nodes[e.a], b = nodes[e.b];
        var attrs = { fill: "none", stroke: e.color || "#999999", "stroke-width": e.width || 1, "stroke-dasharray": e.dash ? "4,3" : null };
        if (e.arrow || e.shrink) { // live-c: arrows (FancyArrowPatch: shrunk clear of the nodes, head at b)
          drawArrow(plot, e, a, b, sx, sy, attrs);
        } else if (e.curve) { // matplotlib's arc3: quadratic Bezier, control = mid + rad * (dy, -dx) in data units
          var mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2, cx2 = mx + e.curve * (b.y - a.y), cy2 = my - e.curve * (b.x - a.x);
          attrs.d = "M" + sx(a.x) + "," + sy(a.y) + "Q" + sx(cx2) + "," + sy(cy2) + " " + sx(b.x) + "," + sy(b.y);
          el("path", attrs, plot);
        } else {
          el("line", Object.assign(attrs, { x1: sx(a.x), y1: sy(a.y), x2: sx(b.x), y2: sy(b.y) }), plot);
        }
      });
      (p.graph.edges || []).forEach(function (e) { // live-c: an edge's label at labelAt (data), on a white box
        if (!e.label || !e.labelAt) return;
        var lx = sx(e.labelAt[0]), ly = sy(e.labelAt[1]), size = e.labelSize || SMALL;
        var box = el("rect", { fill: "#ffffff", "fill-opacity": 0.9 }, g);
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
                { "text-anchor": "middle", "font-size": inside ? 10 : 10, fill: n.labelColor || "#222222" });
      });
    }
    (p.texts || []).forEach(function (t) {
      var x = t.coords === "axes" ? x0 + t.x * (x1 - x0) : sx(t.x), y = t.coords === "axes" ? y1 - t.y * (y1 - y0) : sy(t.y);
      var size = t.size || FONT;
      if (t.valign === "bottom") y -= 3; else if (t.valign === "top") y += size; else y += size * 0.35;
      addText(g, x, y, t.text, { "text-anchor": t.anchor || "middle", "font-size": size, fill: t.color || "#222222" });
    });
    if (p.legend) drawLegend(g, p, box.legendBelow ? { x: box.x + 6, y: y1 + m.bottom + 2, w: box.w - 12 } : { x: x0 + 6, y: y0 + 6, w: 0 });
  }

  // A panel's legend: in the top left corner of the plot, or, on a narrow figure (box.legendBelow,
  // set by render), under the x label in as many columns as the width holds — on a phone a
  // legend inside the plot covered a third of its data (AlgorithmExplorer).
  function legendEntries(p) { return (p.series || []).filter(function (s) { return s.label; }); }

  function legendGrid(p, width) {
    var entries = legendEntries(p), widest = 0;
    entries.forEach(function (s) { widest = Math.max(widest, textWidth({ attrs: { "font-size": SMALL } }, s.label)); });
    var column = 32 + widest, cols = width > 0 ? Math.max(1, Math.min(entries.length, Math.floor(width / column))) : 1;
    return { entries: entries, column: column, cols: cols, rows: Math.ceil(entries.length / cols) };
  }

  function legendHeight(p, width) {
    return legendGrid(p, width).rows * 15 + 6;
  }

  function drawLegend(g, p, at) {
    var grid = legendGrid(p, at.w), lx = at.x, ly = at.y;
    var lg = el("g", { "class": "ccb-live-legend" + (at.w > 0 ? " ccb-live-legend-below" : "") }, g);
    var bg = el("rect", { x: lx, y: ly, width: 10, height: 10, fill: "#ffffff", "fill-opacity": 0.85, stroke: "#dddddd" }, lg);
    grid.entries.forEach(function (s, i) {
      var ex = lx + (i % grid.cols) * grid.column, cy3 = ly + 10 + Math.floor(i / grid.cols) * 15;
      if (s.kind === "bar" || s.kind === "band") el("rect", { x: ex + 5, y: cy3 - 5, width: 14, height: 9, fill: s.color, "fill-opacity": s.alpha === undefined ? 1 : s.alpha }, lg);
      else el("line", { x1: ex + 4, x2: ex + 20, y1: cy3, y2: cy3, stroke: s.color, "stroke-width": s.width || 1.5, "stroke-dasharray": s.dash ? "5,3" : null }, lg);
      if (s.marker && s.shape === "square") el("rect", { x: ex + 9, y: cy3 - 3, width: 6, height: 6, fill: s.color }, lg);
      else if (s.marker) el("circle", { cx: ex + 12, cy: cy3, r: 3, fill: s.color }, lg);
      addText(lg, ex + 25, cy3 + 4, s.label, { "font-size": SMALL });
    });
    bg.setAttribute("width", grid.cols * grid.column);
    bg.setAttribute("height", grid.rows * 15 + 6);
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

  var measurer = null, fontFamily = null;

  function textWidth(node, text) {
    // Width of a text in CSS px, from a canvas with the page's font (no layout of the page).
    var size = parseFloat((node && node.attrs && node.attrs["font-size"]) || SMALL);
    try {
      if (!measurer) measurer = document.createElement("canvas").getContext("2d");
      if (fontFamily === null) fontFamily = getComputedStyle(document.body).fontFamily || "sans-serif";
      measurer.font = size + "px " + fontFamily;
      var widest = 0;
      String(text).split("\n").forEach(function (line) { widest = Math.max(widest, measurer.measureText(line).width); });
      if (widest > 0) return widest;
    } catch (e) { /* no canvas: estimate below */ }
    var n = 0;
    for (var i = 0; i < text.length; i++) n += text.charCodeAt(i) > 0x2e80 ? size : size * 0.6;
    return n;
  }

  var STACK_BELOW = 600;

  function render(container, figure, widthPx) {
    var width = Math.max(200, Math.floor(widthPx || container.clientWidth || 640));
    var panels = figure.panels || [];
    var stacked = width < STACK_BELOW && panels.length > 1;
    var rowHeight = figure.height || 320;
    var boxes = [], height;
    if (stacked) {
      var y = 0;
      panels.forEach(function (p) {
        var h = Math.round(Math.min(rowHeight, Math.max(220, width * (p.graph && p.aspect === "equal" ? 0.8 : 0.68))));
        // live-c: a panel may ask for its stacked height as a share of the width plus its title
        // (a drawing whose labels were placed for a square panel of the page's width).
        if (p.stackedHeight) h = Math.round(width * p.stackedHeight + (p.title ? String(p.title).split("\n").length * 16 + 8 : 0));
        var below = p.legend ? legendHeight(p, width - 12) + 4 : 0;  // the legend goes under the plot
        boxes.push({ x: 0, y: y, w: width, h: h + below, legendBelow: below }); y += h + below + 8;
      });
      height = y - 8;
    } else if (width < STACK_BELOW && panels.length === 1 && panels[0].legend) {
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
    }
    var svg = el("svg", { xmlns: SVGNS, width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img",
                          "class": "ccb-live-svg" + (stacked ? " ccb-live-stacked" : ""), style: "font-family: inherit" });
    panels.forEach(function (p, i) { drawPanel(svg, p, boxes[i]); });
    container.innerHTML = svg.toString();
    return container.firstElementChild;
  }

  // ---------------------------------------------------------------------------------------------
  // The live element: controls <-> state <-> explorer impl <-> readout and figure.

  function register(name, impl) {
    if (typeof name !== "string" || !impl || typeof impl.compute !== "function") throw new TypeError("register(name, {adjust?, compute})");
    registry[name] = impl;
  }

  function evaluate(name, data, state) {
    var impl = registry[name];
    if (!impl) throw new Error("no live explorer registered as " + name);
    return impl.compute(state, data);
  }

  function inflate(body) {
    if (body.encoding === "json") return Promise.resolve(body.payload);
    if (body.encoding !== "gzip+base64") return Promise.reject(new Error("unknown encoding " + body.encoding));
    if (typeof DecompressionStream === "undefined") return Promise.reject(new Error("this browser cannot inflate the explorer's data"));
    var bin = atob(body.payload), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  function valueText(spec, value) {
    if (spec.kind === "range" && spec.log_base) return fmt.g(value, 3);
    return String(value);
  }

  function Live(root, exported, initial) {
    var self = this;
    var impl = registry[exported.explorer];
    if (!impl) throw new Error("no live explorer registered as " + exported.explorer);
    this.root = root; this.impl = impl; this.exported = exported; this.data = exported.data;
    this.name = exported.explorer;
    this.specs = {}; this.order = []; this.inputs = {}; this.outputs = {}; this.state = {};
    exported.controls.forEach(function (c) {
      var spec = Object.assign({}, c);
      spec.value = c.default;
      self.specs[c.name] = spec; self.order.push(c.name); self.state[c.name] = c.default;
    });
    this.api = {
      data: exported.data, // live-c: adjust() may read the export (e.g. the sizes a family allows)
      get: function (name) { return self.specs[name]; },
      set: function (name, props) { self.setProps(name, props); },
      setRange: function (name, lo, hi, value) {
        var s = self.specs[name];
        var v = value === undefined || value === null ? Math.min(Math.max(s.value, lo), hi) : value;
        self.setProps(name, { min: lo, max: hi, value: v });
      }
    };
    var controls = document.createElement("div");
    controls.className = "ccb-live-controls";
    this.order.forEach(function (name) { controls.appendChild(self.buildControl(self.specs[name])); });
    this.readout = document.createElement("div");
    this.readout.className = "ccb-live-readout";
    this.readout.setAttribute("data-readout", "");
    this.readout.setAttribute("aria-live", "polite");
    this.figure = document.createElement("div");
    this.figure.className = "ccb-live-figure";
    root.appendChild(controls); root.appendChild(this.readout); root.appendChild(this.figure);
    // The notebook's call (ccb.X(n=64, k=1)): set in order with adjustments, then set again (Explorer.update).
    var names = Object.keys(initial || {});
    names.forEach(function (name) { self.setProps(name, { value: initial[name] }); self.adjust(name); });
    names.forEach(function (name) { self.setProps(name, { value: initial[name] }); });
    // The figure's width is read once here and then followed with a ResizeObserver: reading
    // clientWidth on every update would force a layout of the whole page after each change.
    this.width = this.figure.clientWidth;
    this.update();
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(function (entries) {
        var w = Math.floor(entries[entries.length - 1].contentRect.width);
        if (w > 0 && w !== self.width) { self.width = w; self.draw(); }
      }).observe(this.figure);
    }
  }

  Live.prototype.buildControl = function (spec) {
    var self = this;
    var wrap = document.createElement("div");
    wrap.className = "ccb-live-control ccb-live-" + spec.kind;
    var id = "ccb-live-" + (++uid) + "-" + spec.name;
    var label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = spec.label;
    var input;
    if (spec.kind === "select" && spec.widget === "SelectionSlider") {
      input = document.createElement("input");
      input.type = "range"; input.min = 0; input.max = spec.options.length - 1; input.step = 1;
    } else if (spec.kind === "select") {
      input = document.createElement("select");
      spec.options.forEach(function (o, i) {
        var opt = document.createElement("option");
        opt.textContent = o[0];
        opt.value = typeof o[1] === "string" ? o[1] : String(i);
        input.appendChild(opt);
      });
    } else if (spec.kind === "checkbox") {
      input = document.createElement("input");
      input.type = "checkbox";
    } else {
      input = document.createElement("input");
      input.type = "range";
    }
    input.id = id;
    input.setAttribute("data-control", spec.name);
    var out = document.createElement("output");
    out.htmlFor = id;
    out.className = "ccb-live-value";
    if (spec.kind === "checkbox") { wrap.appendChild(input); wrap.appendChild(label); }
    else { wrap.appendChild(label); wrap.appendChild(input); if (spec.kind === "range" || spec.widget === "SelectionSlider") wrap.appendChild(out); }
    this.inputs[spec.name] = input; this.outputs[spec.name] = out;
    this.syncControl(spec.name);
    var handler = function () { self.onInput(spec.name); };
    input.addEventListener(spec.kind === "range" || spec.widget === "SelectionSlider" ? "input" : "change", handler);
    if (spec.kind === "range") input.addEventListener("change", handler);
    return wrap;
  };

  Live.prototype.readControl = function (name) {
    var spec = this.specs[name], input = this.inputs[name];
    if (spec.kind === "checkbox") return input.checked;
    if (spec.kind === "select") {
      var i = spec.widget === "SelectionSlider" ? +input.value : input.selectedIndex;
      return spec.options[Math.max(0, i)][1];
    }
    if (spec.log_base) {
      var pos = Math.round((+input.value - spec.min) / spec.step);
      return spec.values[Math.max(0, Math.min(spec.values.length - 1, pos))];
    }
    var v = +input.value;
    return spec.widget === "IntSlider" ? Math.round(v) : v;
  };

  Live.prototype.syncControl = function (name) {
    var spec = this.specs[name], input = this.inputs[name], value = spec.value;
    input.disabled = !!spec.disabled;
    if (spec.kind === "checkbox") {
      input.checked = !!value;
      input.setAttribute("data-value", value ? "true" : "false");
    } else if (spec.kind === "select") {
      var idx = spec.options.findIndex(function (o) { return sameValue(o[1], value); });
      if (spec.widget === "SelectionSlider") {
        input.max = spec.options.length - 1; input.value = String(Math.max(0, idx));
        this.outputs[name].textContent = idx >= 0 ? spec.options[idx][0] : "";
      } else {
        if (input.options.length !== spec.options.length || spec._rebuilt) {
          input.replaceChildren();
          spec.options.forEach(function (o, i) {
            var opt = document.createElement("option");
            opt.textContent = o[0]; opt.value = typeof o[1] === "string" ? o[1] : String(i);
            input.appendChild(opt);
          });
          spec._rebuilt = false;
        }
        input.selectedIndex = idx;
      }
      if (typeof value === "string") input.removeAttribute("data-value");
      else input.setAttribute("data-value", typeof value === "number" ? pyRepr(value) : JSON.stringify(value));
      if (typeof value === "string" && spec.widget === "SelectionSlider") input.setAttribute("data-value", value);
    } else {
      if (spec.log_base) {
        input.min = spec.min; input.max = spec.max; input.step = spec.step;
        var pos = spec.values.findIndex(function (v) { return v === value; });
        if (pos < 0) pos = Math.round((Math.log(value) / Math.log(spec.log_base) - spec.min) / spec.step);
        input.value = String(spec.min + pos * spec.step);
        input.setAttribute("data-value", pyRepr(value));
      } else {
        input.min = spec.min; input.max = spec.max; input.step = spec.step; input.value = String(value);
      }
      this.outputs[name].textContent = valueText(spec, value);
    }
  };

  Live.prototype.setProps = function (name, props) {
    var spec = this.specs[name];
    if (!spec) throw new Error("unknown control " + name);
    ["min", "max", "step", "disabled", "options", "values"].forEach(function (k) { if (k in props) spec[k] = props[k]; });
    if ("options" in props) spec._rebuilt = true;
    if ("value" in props) { spec.value = props.value; this.state[name] = props.value; }
    if (spec.kind === "range" && !spec.log_base) { // ipywidgets clamps a value into a new range
      var v = Math.min(Math.max(spec.value, spec.min), spec.max);
      if (v !== spec.value) { spec.value = v; this.state[name] = v; }
    }
    this.syncControl(name);
  };

  Live.prototype.adjust = function (name) {
    if (this.impl.adjust) this.impl.adjust(name, this.state, this.api, this.data);
  };

  Live.prototype.onInput = function (name) {
    var value = this.readControl(name);
    this.setProps(name, { value: value });
    this.adjust(name);
    this.update();
  };

  Live.prototype.update = function () {
    var result;
    try {
      result = this.impl.compute(Object.assign({}, this.state), this.data);
    } catch (err) {
      this.readout.innerHTML = "";
      this.readout.textContent = "⚠ " + err.message;
      console.error(err);
      return;
    }
    this.result = result;
    this.readout.innerHTML = result.readout;
    this.draw();
    this.root.dispatchEvent(new CustomEvent("ccb-live-update", { detail: { state: this.state } }));
  };

  Live.prototype.draw = function () {
    if (this.result) render(this.figure, this.result.figure, this.width);
  };

  var instances = [];

  function mount(root) {
    if (root.ccbLive || root.getAttribute("data-ccb-mounting")) return Promise.resolve(root.ccbLive);
    root.setAttribute("data-ccb-mounting", "1");
    var script = root.querySelector("script.ccb-live-data");
    var body = JSON.parse(script.textContent);
    return inflate(body).then(function (exported) {
      var live = new Live(root, exported, body.initial);
      root.ccbLive = live;
      instances.push(live);
      root.classList.add("ccb-live-ready");
      var output = root.closest(".cell_output") || root.parentElement;
      if (output) output.querySelectorAll("img").forEach(function (img) { if (!root.contains(img)) img.classList.add("ccb-live-fallback"); });
      return live;
    }).catch(function (err) {
      root.removeAttribute("data-ccb-mounting");
      root.classList.add("ccb-live-failed");
      console.warn("ccb-live: " + (err && err.message)); // the PNG stays
    });
  }

  var readyResolve;
  var ready = new Promise(function (resolve) { readyResolve = resolve; });

  function mountAll() {
    var roots = Array.prototype.slice.call(document.querySelectorAll("[data-explorer].ccb-live"));
    Promise.all(roots.map(mount)).then(function () { readyResolve(instances.slice()); });
  }

  window.CCBLive = { register: register, evaluate: evaluate, render: render, fmt: fmt, lookup: lookup,
                     expandText: expandText, inflate: inflate, mount: mount, instances: instances, ready: ready,
                     registry: registry, STACK_BELOW: STACK_BELOW };

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else setTimeout(mountAll, 0);
})();
