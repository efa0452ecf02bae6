/* Python's number formatting in JavaScript, digit for digit: ``f"{x:.3g}"``, ``f"{x:.1f}"`` and
 * ccb_helpers.units' format_time / format_bytes / format_bandwidth.
 *
 * Why not toPrecision / toFixed alone: both round an exact tie (1.25 to one decimal) up, Python
 * rounds it to even ("1.2"). Both work on the exact binary value otherwise, as Python does, so
 * only exact ties need care: a tie shows as the digit 5 followed by zeros when the value is
 * printed with 40 more digits (a double's distance from a short decimal that is not a tie shows
 * up well within that). tests/test_live_pyformat.py compares every function with Python.
 */
(function (root) {
  "use strict";

  function special(x) {
    if (Number.isNaN(x)) return "nan";
    if (x === Infinity) return "inf";
    if (x === -Infinity) return "-inf";
    return null;
  }

  function isEvenTie(digits, keep) {
    // digits: decimal digits of |x| (no point); keep: how many are kept. Half-even keeps the
    // truncation when the first dropped digit is a 5 followed by zeros and the last kept is even.
    if (digits[keep] !== "5" || !/^0*$/.test(digits.slice(keep + 1))) return false;
    const last = keep > 0 ? Number(digits[keep - 1]) : 0;
    return last % 2 === 0;
  }

  // |x| rounded to p significant digits, half to even: [digit string of length p, exponent].
  function significant(x, p) {
    const long = x.toExponential(Math.min(100, p + 39));
    const [lm, le] = long.split("e");
    const ld = lm.replace(".", "");
    if (isEvenTie(ld, p)) return [ld.slice(0, p), Number(le)];
    const [m, e] = x.toExponential(p - 1).split("e");
    return [m.replace(".", ""), Number(e)];
  }

  function stripZeros(text) {
    return text.indexOf(".") < 0 ? text : text.replace(/0+$/, "").replace(/\.$/, "");
  }

  /** Python's f"{x:.{p}g}". */
  function g(x, p) {
    if (p === undefined) p = 6;
    if (p === 0) p = 1;
    const s = special(x);
    if (s !== null) return s;
    if (x === 0) return Object.is(x, -0) ? "-0" : "0";
    const sign = x < 0 ? "-" : "";
    const [d, e] = significant(Math.abs(x), p);
    if (e >= -4 && e < p) {
      const text = e >= 0 ? d.slice(0, e + 1) + "." + d.slice(e + 1) : "0." + "0".repeat(-e - 1) + d;
      return sign + stripZeros(text);
    }
    const mantissa = stripZeros(d[0] + "." + d.slice(1));
    return sign + mantissa + "e" + (e < 0 ? "-" : "+") + String(Math.abs(e)).padStart(2, "0");
  }

  /** Python's f"{x:.{f}f}" (|x| < 1e21). */
  function f(x, digits) {
    const s = special(x);
    if (s !== null) return s;
    const negative = x < 0 || Object.is(x, -0);
    const a = Math.abs(x);
    if (a >= 1e21) throw new RangeError("pyformat.f: |x| >= 1e21 is not supported");
    const long = a.toFixed(Math.min(100, digits + 40));
    const [ip, fp] = long.split(".");
    const all = ip + fp;
    let text;
    if (isEvenTie(all, ip.length + digits)) {
      text = ip + (digits > 0 ? "." + fp.slice(0, digits) : "");
    } else {
      text = a.toFixed(digits);
    }
    return (negative ? "-" : "") + text;
  }

  const UNITS = [["GiB", 1073741824], ["MiB", 1048576], ["KiB", 1024]];

  /** ccb_helpers.units.format_bytes. */
  function format_bytes(value) {
    for (const [unit, scale] of UNITS) {
      if (value >= scale) {
        const v = value / scale;
        return v >= 1000 ? g(v, 4) + " " + unit : (f(v, 1) + " " + unit).replace(".0 ", " ");
      }
    }
    return value === Math.trunc(value) ? f(value, 0) + " B" : f(value, 1) + " B";
  }

  /** ccb_helpers.units.format_time. */
  function format_time(seconds) {
    if (seconds === 0) return "0 s";
    const scales = [["s", 1.0], ["ms", 1e-3], ["µs", 1e-6], ["ns", 1e-9]];
    for (const [unit, scale] of scales) {
      if (seconds >= scale || unit === "ns") return g(seconds / scale, 3) + " " + unit;
    }
    throw new Error("unreachable");
  }

  /** ccb_helpers.units.format_bandwidth (math.isclose(value, 0) holds only for 0). */
  function format_bandwidth(bytesPerSecond) {
    return bytesPerSecond !== 0 ? g(bytesPerSecond / 1e9, 3) + " GB/s" : "0 GB/s";
  }

  root.CCBPyFormat = { g: g, f: f, format_bytes: format_bytes, format_time: format_time, format_bandwidth: format_bandwidth };
})(typeof window !== "undefined" ? window : globalThis);
