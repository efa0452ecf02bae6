/* ccb-live.js: the explorers of the book, live on the static site (issues #25, #43).
 *
 * No framework, no network: each live explorer's data is exported by the book's build step from
 * the Python code (ccb_helpers.live) and embedded in the page; this runtime builds the controls
 * (the Python explorer's names, ranges, steps and defaults, a number field beside each numeric
 * slider), asks the explorer's script (CCBLive.register) for the readout and FigureSpec of the
 * current state and has ccb-live-svg.js draw the figure as inline SVG, ccb-live-hover.js read it
 * under the pointer; ccb-live-inflate.js inflates the data where the browser cannot. DOM
 * contract: [data-explorer] (with data-args) > [data-control] inputs (the Python value in
 * data-value if present, else value), one [data-readout].
 */
(function () {
  "use strict";

  var registry = {};
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

  function bytesOf(base64) {
    var bin = atob(base64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }

  // The explorer's data: inline JSON, or gzip + base64 inflated by the browser's DecompressionStream
  // or, where there is none (iOS Safari < 16.4, Firefox < 113) or it fails, by ccb-live-inflate.js.
  function inflate(body) {
    if (body.encoding === "json") return Promise.resolve(body.payload);
    if (body.encoding !== "gzip+base64") return Promise.reject(new Error("unknown encoding " + body.encoding));
    var bytes;
    try { bytes = bytesOf(body.payload); } catch (err) { return Promise.reject(err); }
    function inScript() {
      if (!window.CCBLiveInflate) throw new Error("this browser cannot inflate the explorer's data (no DecompressionStream, no ccb-live-inflate.js)");
      return JSON.parse(CCBLiveInflate.utf8(CCBLiveInflate.gunzip(bytes)));
    }
    if (typeof DecompressionStream === "undefined" || typeof Blob === "undefined" || !Blob.prototype.stream) {
      return new Promise(function (resolve) { resolve(inScript()); });
    }
    try {
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      return new Response(stream).text().then(JSON.parse).catch(inScript);
    } catch (err) {
      return new Promise(function (resolve) { resolve(inScript()); });
    }
  }

  function optionIndex(spec, value) {
    return spec.options.findIndex(function (o) { return sameValue(o[1], value); });
  }

  // The value as the reader reads it (and a screen reader announces it: aria-valuetext).
  function valueText(spec, value) {
    if (spec.kind === "range" && spec.log_base) return fmt.g(value, 3);
    if (spec.kind === "select") { var i = optionIndex(spec, value); return i >= 0 ? spec.options[i][0] : ""; }
    if (spec.kind === "checkbox") return value ? "是" : "否";
    return String(value);
  }

  // The Python value in data-value (the DOM contract): floats as Python writes them ("2.0").
  function pythonText(spec, value) {
    if (typeof value !== "number") return JSON.stringify(value);
    var isFloat = spec.log_base || spec.widget === "FloatSlider" || spec.widget === "FloatLogSlider" || spec.floats;
    return isFloat ? pyFloatRepr(value) : pyRepr(value);
  }

  // The slider position (the <input type=range>'s value) nearest to a number a reader typed.
  function positionOf(spec, number) {
    if (spec.log_base) {
      var exponent = Math.log(number) / Math.log(spec.log_base);
      var pos = Math.round((exponent - spec.min) / spec.step);
      pos = Math.max(0, Math.min(spec.values.length - 1, pos));
      if (pos > 0 && Math.abs(spec.values[pos - 1] - number) < Math.abs(spec.values[pos] - number)) pos -= 1;
      if (pos + 1 < spec.values.length && Math.abs(spec.values[pos + 1] - number) < Math.abs(spec.values[pos] - number)) pos += 1;
      return spec.min + pos * spec.step;
    }
    var k = Math.round((Math.min(Math.max(number, spec.min), spec.max) - spec.min) / spec.step);
    return spec.min + k * spec.step;
  }

  function parseNumber(text) {
    var t = String(text).trim().replace(/[，,\s\u2009]/g, "").replace(/[．。]/g, ".").replace(/[×x]10\^?/i, "e");
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return NaN;
    return parseFloat(t);
  }

  function Live(root, exported, initial) {
    var self = this;
    var impl = registry[exported.explorer];
    if (!impl) throw new Error("no live explorer registered as " + exported.explorer);
    this.root = root; this.impl = impl; this.exported = exported; this.data = exported.data;
    this.name = exported.explorer; this.id = "ccb-live-" + (++uid);
    this.specs = {}; this.order = []; this.inputs = {}; this.outputs = {}; this.fields = {}; this.state = {};
    this.updates = 0; // figures drawn for a change of state (one per reader's action)
    exported.controls.forEach(function (c) {
      var spec = Object.assign({}, c);
      spec.value = c.default;
      self.specs[c.name] = spec; self.order.push(c.name); self.state[c.name] = c.default;
    });
    this.api = {
      data: exported.data, // adjust() may read the export (e.g. the sizes a family allows)
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
    this.readout.id = this.id + "-readout";
    this.readout.setAttribute("data-readout", "");
    this.readout.setAttribute("aria-live", "polite");
    this.figure = document.createElement("div");
    this.figure.className = "ccb-live-figure";
    root.appendChild(controls); root.appendChild(this.readout); root.appendChild(this.figure);
    this.initial = initial || {};
    this.applyInitial();
    // The figure's width is read once here and then followed with a ResizeObserver: reading
    // clientWidth on every update would force a layout of the whole page after each change.
    this.width = this.figure.clientWidth;
    if (CCBLive.hover) this.hover = CCBLive.hover(this);
    this.update();
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(function (entries) {
        var w = Math.floor(entries[entries.length - 1].contentRect.width);
        if (w > 0 && w !== self.width) { self.width = w; self.draw(); }
      }).observe(this.figure);
    }
  }

  // The notebook's call (ccb.X(n=64, k=1)): set in order with adjustments, then set again (Explorer.update).
  Live.prototype.applyInitial = function () {
    var self = this, initial = this.initial, names = Object.keys(initial);
    names.forEach(function (name) { self.setProps(name, { value: initial[name] }); self.adjust(name); });
    names.forEach(function (name) { self.setProps(name, { value: initial[name] }); });
  };

  // Back to the state the page opened with (every control's exported range, options and default,
  // then the notebook's call), redrawn: what a reader sees after reloading the page.
  Live.prototype.reset = function () {
    var self = this;
    this.exported.controls.forEach(function (c) {
      var props = { value: c.default };
      ["min", "max", "step", "disabled", "options", "values"].forEach(function (k) { if (k in c) props[k] = c[k]; });
      self.setProps(c.name, props);
    });
    this.applyInitial();
    if (this.hover) this.hover.hide();
    this.update();
  };

  Live.prototype.buildControl = function (spec) {
    var self = this;
    var wrap = document.createElement("div");
    wrap.className = "ccb-live-control ccb-live-" + spec.kind;
    var id = this.id + "-" + spec.name;
    var label = document.createElement("label");
    label.htmlFor = id;
    label.id = id + "-label";
    label.textContent = spec.label;
    var input, slider = spec.kind === "range" || spec.widget === "SelectionSlider";
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
    this.inputs[spec.name] = input;
    if (spec.kind === "checkbox") { wrap.appendChild(input); wrap.appendChild(label); }
    else { wrap.appendChild(label); wrap.appendChild(input); }
    if (spec.kind === "range") {
      // A number field beside every numeric slider: on a phone a 270 px slider over 1023 values
      // reached 764 of them (N = 16, 256, 512 not at all) and has no arrow keys; typed values
      // go to the nearest position of the slider (the Python explorer's grid).
      var field = document.createElement("input");
      field.type = "text";
      field.className = "ccb-live-number";
      field.setAttribute("inputmode", "decimal");
      field.setAttribute("enterkeyhint", "done");
      field.setAttribute("autocomplete", "off");
      field.setAttribute("spellcheck", "false");
      field.setAttribute("data-control-field", spec.name);
      field.setAttribute("aria-label", spec.label + "（输入数值）");
      wrap.appendChild(field);
      this.fields[spec.name] = field;
      field.addEventListener("change", function () { self.onField(spec.name); });
      field.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); self.onField(spec.name); } });
    } else if (slider) {
      var out = document.createElement("output");
      out.htmlFor = id;
      out.className = "ccb-live-value";
      wrap.appendChild(out);
      this.outputs[spec.name] = out;
    }
    this.syncControl(spec.name);
    var handler = function () { self.onInput(spec.name); };
    input.addEventListener(slider ? "input" : "change", handler);
    if (slider) input.addEventListener("change", handler);
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
    if (this.fields[name]) this.fields[name].disabled = !!spec.disabled;
    if (spec.kind === "checkbox") {
      input.checked = !!value;
      input.setAttribute("data-value", value ? "true" : "false");
      return;
    }
    if (spec.kind === "select") {
      var idx = optionIndex(spec, value);
      if (spec.widget === "SelectionSlider") {
        input.max = spec.options.length - 1; input.value = String(Math.max(0, idx));
        this.outputs[name].textContent = valueText(spec, value);
        input.setAttribute("aria-valuetext", valueText(spec, value));
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
      if (typeof value === "string" && spec.widget !== "SelectionSlider") input.removeAttribute("data-value");
      else input.setAttribute("data-value", typeof value === "string" ? value : pythonText(spec, value));
      return;
    }
    if (spec.log_base) {
      input.min = spec.min; input.max = spec.max; input.step = spec.step;
      var pos = spec.values.findIndex(function (v) { return v === value; });
      if (pos < 0) pos = Math.round((Math.log(value) / Math.log(spec.log_base) - spec.min) / spec.step);
      input.value = String(spec.min + pos * spec.step);
    } else {
      input.min = spec.min; input.max = spec.max; input.step = spec.step; input.value = String(value);
    }
    if (spec.log_base || spec.widget === "FloatSlider") input.setAttribute("data-value", pythonText(spec, value));
    input.setAttribute("aria-valuetext", valueText(spec, value));
    var field = this.fields[name];
    if (field) { field.value = valueText(spec, value); field.removeAttribute("aria-invalid"); }
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
    // One redraw per action: a key press or a drag's last step fires "input" and then "change"
    // with the same value (each redrew the figure before, #43).
    if (sameValue(value, this.state[name])) return;
    this.setProps(name, { value: value });
    this.adjust(name);
    this.update();
  };

  // A number typed in a slider's field: the slider moves to the nearest position, as if dragged there.
  Live.prototype.onField = function (name) {
    var spec = this.specs[name], field = this.fields[name];
    // The shown value left as it was: nothing to do (re-reading "1.64" would move a log slider to the
    // grid position nearest 1.64, not necessarily the one shown as 1.64).
    if (field.value.trim() === valueText(spec, spec.value)) { field.removeAttribute("aria-invalid"); return; }
    var number = parseNumber(field.value);
    if (!isFinite(number) || (spec.log_base && !(number > 0))) {
      field.setAttribute("aria-invalid", "true");
      field.value = valueText(spec, spec.value);
      return;
    }
    this.inputs[name].value = String(positionOf(spec, number));
    var before = this.state[name];
    this.onInput(name);
    if (sameValue(before, this.state[name])) this.syncControl(name); // the same position: show its value again
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
    this.updates += 1;
    this.root.dispatchEvent(new CustomEvent("ccb-live-update", { detail: { state: this.state } }));
  };

  Live.prototype.draw = function () {
    if (!this.result) return;
    var svg = CCBLive.render(this.figure, this.result.figure, this.width);
    svg.setAttribute("aria-describedby", this.readout.id);
    if (this.hover) this.hover.redraw();
  };

  var instances = [];

  // Said where the explorer would be when it cannot go live: the PNG of the default state stays.
  var FAILED = "本页的交互探索器没能在这个浏览器里启动（{reason}）。下面是默认参数下的静态图；" +
               "换用较新的浏览器，或在 JupyterLab / Colab 中运行本章，即可操作它。";

  function mount(root) {
    if (root.ccbLive || root.getAttribute("data-ccb-mounting")) return Promise.resolve(root.ccbLive);
    root.setAttribute("data-ccb-mounting", "1");
    var body;
    return new Promise(function (resolve) {
      body = JSON.parse(root.querySelector("script.ccb-live-data").textContent);
      resolve(inflate(body));
    }).then(function (exported) {
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
      var note = document.createElement("p");
      note.className = "ccb-live-failure";
      note.setAttribute("role", "status");
      note.textContent = FAILED.replace("{reason}", (err && err.message) || String(err));
      root.appendChild(note);
      console.warn("ccb-live: " + (err && err.message)); // the PNG stays
    });
  }

  var readyResolve;
  var ready = new Promise(function (resolve) { readyResolve = resolve; });

  function mountAll() {
    var roots = Array.prototype.slice.call(document.querySelectorAll("[data-explorer].ccb-live"));
    Promise.all(roots.map(mount)).then(function () { readyResolve(instances.slice()); });
  }

  window.CCBLive = { register: register, evaluate: evaluate, fmt: fmt, lookup: lookup, expandText: expandText, inflate: inflate,
                     mount: mount, instances: instances, ready: ready, registry: registry, valueText: valueText,
                     parseNumber: parseNumber, positionOf: positionOf };

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else setTimeout(mountAll, 0);
})();
