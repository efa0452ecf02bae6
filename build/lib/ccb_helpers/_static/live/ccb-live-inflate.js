/* ccb-live-inflate.js: gzip (RFC 1952) and DEFLATE (RFC 1951) decoded in plain JavaScript.
 *
 * The explorers' data are embedded gzip-compressed (ccb_helpers.live.build); browsers inflate
 * them with DecompressionStream, which iOS Safari before 16.4 and Firefox before 113 do not
 * have: there, no explorer went live and the reader was not told (issue #43). This decoder is
 * what ccb-live.js uses when DecompressionStream is missing (or fails), so the explorers are live
 * on those browsers too. It checks the gzip trailer's CRC-32 and length.
 * tests/test_live_core.py compares it with Python's zlib on random data. No dependencies.
 */
(function () {
  "use strict";

  // Lengths and distances of the DEFLATE codes (RFC 1951, 3.2.5).
  var LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
  var LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
  var DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
                   4097, 6145, 8193, 12289, 16385, 24577];
  var DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
  var CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

  // A canonical Huffman code from code lengths: counts per length and symbols sorted by code.
  function huffman(lengths) {
    var counts = new Uint16Array(16), offsets = new Uint16Array(16), symbols = new Uint16Array(lengths.length);
    for (var i = 0; i < lengths.length; i++) counts[lengths[i]]++;
    counts[0] = 0;
    for (var len = 1; len < 16; len++) offsets[len] = offsets[len - 1] + counts[len - 1];
    for (var s = 0; s < lengths.length; s++) if (lengths[s]) symbols[offsets[lengths[s]]++] = s;
    return { counts: counts, symbols: symbols };
  }

  var FIXED_LIT = (function () {
    var l = new Uint8Array(288);
    for (var i = 0; i < 288; i++) l[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    return huffman(l);
  })();
  var FIXED_DIST = huffman(new Uint8Array(30).fill(5));

  function Reader(bytes, pos) { this.bytes = bytes; this.pos = pos; this.bit = 0; this.bits = 0; }
  Reader.prototype.need = function (n) {
    while (this.bits < n) {
      if (this.pos >= this.bytes.length) throw new Error("the explorer's data end too early");
      this.bit |= this.bytes[this.pos++] << this.bits;
      this.bits += 8;
    }
  };
  Reader.prototype.read = function (n) {
    if (n === 0) return 0;
    this.need(n);
    var v = this.bit & ((1 << n) - 1);
    this.bit >>>= n; this.bits -= n;
    return v;
  };
  Reader.prototype.decode = function (h) {
    // One symbol, bit by bit (codes are read MSB first): first code of each length and its index.
    var code = 0, first = 0, index = 0;
    for (var len = 1; len < 16; len++) {
      code |= this.read(1);
      var count = h.counts[len];
      if (code - first < count) return h.symbols[index + code - first];
      index += count; first += count; first <<= 1; code <<= 1;
    }
    throw new Error("the explorer's data hold an invalid Huffman code");
  };

  function Output(size) { this.buf = new Uint8Array(Math.max(size, 1024)); this.len = 0; }
  Output.prototype.grow = function (extra) {
    if (this.len + extra <= this.buf.length) return;
    var bigger = new Uint8Array(Math.max(this.buf.length * 2, this.len + extra));
    bigger.set(this.buf.subarray(0, this.len));
    this.buf = bigger;
  };

  function dynamicTables(r) {
    var nlen = r.read(5) + 257, ndist = r.read(5) + 1, ncode = r.read(4) + 4;
    var codeLengths = new Uint8Array(19);
    for (var i = 0; i < ncode; i++) codeLengths[CODE_LENGTH_ORDER[i]] = r.read(3);
    var codes = huffman(codeLengths), lengths = new Uint8Array(nlen + ndist), n = 0;
    while (n < nlen + ndist) {
      var sym = r.decode(codes);
      if (sym < 16) { lengths[n++] = sym; continue; }
      var repeat, value = 0;
      if (sym === 16) { if (n === 0) throw new Error("bad code lengths"); value = lengths[n - 1]; repeat = 3 + r.read(2); }
      else if (sym === 17) repeat = 3 + r.read(3);
      else repeat = 11 + r.read(7);
      if (n + repeat > nlen + ndist) throw new Error("bad code lengths");
      while (repeat--) lengths[n++] = value;
    }
    return [huffman(lengths.subarray(0, nlen)), huffman(lengths.subarray(nlen))];
  }

  function inflateRaw(bytes, start, sizeHint) {
    var r = new Reader(bytes, start), out = new Output(sizeHint || bytes.length * 4), last = 0;
    while (!last) {
      last = r.read(1);
      var type = r.read(2);
      if (type === 0) { // stored
        r.bit = 0; r.bits = 0;
        var len = bytes[r.pos] | (bytes[r.pos + 1] << 8), nlen = bytes[r.pos + 2] | (bytes[r.pos + 3] << 8);
        if ((len ^ 0xffff) !== nlen) throw new Error("the explorer's data hold a bad stored block");
        r.pos += 4;
        if (r.pos + len > bytes.length) throw new Error("the explorer's data end too early");
        out.grow(len);
        out.buf.set(bytes.subarray(r.pos, r.pos + len), out.len);
        out.len += len; r.pos += len;
        continue;
      }
      if (type === 3) throw new Error("the explorer's data hold an invalid block type");
      var tables = type === 1 ? [FIXED_LIT, FIXED_DIST] : dynamicTables(r), lit = tables[0], dist = tables[1];
      for (;;) {
        var sym = r.decode(lit);
        if (sym < 256) { out.grow(1); out.buf[out.len++] = sym; continue; }
        if (sym === 256) break;
        sym -= 257;
        if (sym >= 29) throw new Error("the explorer's data hold an invalid length");
        var length = LENGTH_BASE[sym] + r.read(LENGTH_EXTRA[sym]);
        var dsym = r.decode(dist);
        if (dsym >= 30) throw new Error("the explorer's data hold an invalid distance");
        var distance = DIST_BASE[dsym] + r.read(DIST_EXTRA[dsym]);
        if (distance > out.len) throw new Error("the explorer's data refer before their start");
        out.grow(length);
        var buf = out.buf, from = out.len - distance;
        for (var k = 0; k < length; k++) buf[out.len++] = buf[from + k];
      }
    }
    return { data: out.buf.subarray(0, out.len), end: r.pos };
  }

  var CRC_TABLE = (function () {
    var t = new Uint32Array(256);
    for (var n = 0; n < 256; n++) {
      var c = n;
      for (var k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      t[n] = c >>> 0;
    }
    return t;
  })();

  function crc32(bytes) {
    var c = 0xffffffff;
    for (var i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  }

  function gunzip(bytes) {
    // One gzip member (RFC 1952): header, DEFLATE data, CRC-32 and length of the result.
    if (bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8) throw new Error("the explorer's data are not gzip");
    var flags = bytes[3], pos = 10;
    if (flags & 4) pos += 2 + (bytes[pos] | (bytes[pos + 1] << 8)); // FEXTRA
    if (flags & 8) { while (bytes[pos++] !== 0) { /* FNAME */ } }
    if (flags & 16) { while (bytes[pos++] !== 0) { /* FCOMMENT */ } }
    if (flags & 2) pos += 2; // FHCRC
    var n = bytes.length;
    var size = (bytes[n - 4] | (bytes[n - 3] << 8) | (bytes[n - 2] << 16) | (bytes[n - 1] << 24)) >>> 0;
    var result = inflateRaw(bytes, pos, size);
    var t = result.end, crc = (bytes[t] | (bytes[t + 1] << 8) | (bytes[t + 2] << 16) | (bytes[t + 3] << 24)) >>> 0;
    if (crc !== crc32(result.data) || (result.data.length >>> 0) !== size) throw new Error("the explorer's data are damaged (CRC)");
    return result.data;
  }

  function utf8(bytes) {
    if (typeof TextDecoder !== "undefined") return new TextDecoder("utf-8").decode(bytes);
    var s = "";
    for (var i = 0; i < bytes.length; i += 8192) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
    return decodeURIComponent(escape(s));
  }

  window.CCBLiveInflate = { gunzip: gunzip, inflateRaw: inflateRaw, crc32: crc32, utf8: utf8 };
})();
