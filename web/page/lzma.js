'use strict';
// An LZMA decoder for the page's own module: scripts/build-web.sh inlines the wasm as an
// .lzma stream (`xz --format=lzma -9e`), 20 % smaller than the gzip the browser inflates
// natively, and the worker unpacks it with this before compiling it. Written from the
// format's description (Igor Pavlov's LZMA specification): a range decoder over adaptive
// bit probabilities, literals coded with the previous byte as context, and matches of
// rep0..rep3 or a new distance.
//
// lzmaDecode(input: Uint8Array, size?: number) -> Uint8Array of `size` bytes. `input` is
// the .lzma file: 1 byte of lc/lp/pb, 4 of dictionary size, 8 of unpacked size (or all
// ones: unknown), then the range-coded data. Without `size`, the header's is used (the
// build writes it there; xz writes "unknown"). Throws on a damaged stream.
function lzmaDecode(input, size) {
  const bad = (what) => { throw new Error('the page\'s module is damaged (' + what + ')'); };
  if (input.length < 13) bad('header');
  if (size === undefined) {
    size = 0;
    for (let i = 12; i >= 5; i--) size = size * 256 + input[i];
    if (size > 1 << 30) bad('size');
  }
  let d = input[0];
  if (d >= 225) bad('properties');
  const lc = d % 9; d = (d / 9) | 0;
  const lp = d % 5; const pb = (d / 5) | 0;
  const out = new Uint8Array(size);
  let inPos = 13;
  const next = () => (inPos < input.length ? input[inPos++] : bad('truncated'));
  // The range decoder: `range` and `code` are unsigned 32-bit values held in numbers.
  let range = 0xFFFFFFFF;
  let code = 0;
  if (next() !== 0) bad('range coder');
  for (let i = 0; i < 4; i++) code = ((code << 8) | next()) >>> 0;
  const bit = (probs, i) => {
    const p = probs[i];
    const bound = (range >>> 11) * p;
    let b;
    if (code < bound) { range = bound; probs[i] = p + ((2048 - p) >>> 5); b = 0; }
    else { range -= bound; code -= bound; probs[i] = p - (p >>> 5); b = 1; }
    if (range < 0x1000000) { range = (range * 256) >>> 0; code = ((code * 256) + next()) >>> 0; }
    return b;
  };
  const direct = (n) => {
    let v = 0;
    for (; n > 0; n--) {
      range >>>= 1;
      let b = 0;
      if (code >= range) { code -= range; b = 1; }
      v = ((v << 1) | b) >>> 0;
      if (range < 0x1000000) { range = (range * 256) >>> 0; code = ((code * 256) + next()) >>> 0; }
    }
    return v;
  };
  const probs = (n) => new Uint16Array(n).fill(1024);
  const tree = (p, base, bits) => {
    let m = 1;
    for (let i = 0; i < bits; i++) m = (m << 1) | bit(p, base + m);
    return m - (1 << bits);
  };
  const reverse = (p, base, bits) => {
    let m = 1; let v = 0;
    for (let i = 0; i < bits; i++) { const b = bit(p, base + m); m = (m << 1) | b; v |= b << i; }
    return v;
  };
  // A length coder: choice bits, then 8 low or 8 middle lengths per position state, or 256
  // high ones.
  const lengths = () => ({ choice: probs(2), low: probs(16 << 3), mid: probs(16 << 3), high: probs(256) });
  const length = (c, posState) => {
    if (!bit(c.choice, 0)) return tree(c.low, posState << 3, 3);
    if (!bit(c.choice, 1)) return 8 + tree(c.mid, posState << 3, 3);
    return 16 + tree(c.high, 0, 8);
  };
  const literal = probs(0x300 << (lc + lp));
  const isMatch = probs(12 << 4); const isRep0Long = probs(12 << 4);
  const isRep = probs(12); const isRepG0 = probs(12); const isRepG1 = probs(12); const isRepG2 = probs(12);
  const slots = probs(4 << 6); const special = probs(115); const align = probs(16);
  const matchLen = lengths(); const repLen = lengths();
  const pbMask = (1 << pb) - 1; const lpMask = (1 << lp) - 1;
  let state = 0; let rep0 = 0; let rep1 = 0; let rep2 = 0; let rep3 = 0; let pos = 0;
  while (pos < size) {
    const posState = pos & pbMask;
    if (!bit(isMatch, (state << 4) + posState)) {
      const prev = pos ? out[pos - 1] : 0;
      const base = 0x300 * (((pos & lpMask) << lc) + (prev >>> (8 - lc)));
      let s = 1;
      if (state >= 7) {
        let m = out[pos - rep0 - 1];
        while (s < 0x100) {
          const mb = (m >>> 7) & 1; m <<= 1;
          const b = bit(literal, base + ((1 + mb) << 8) + s);
          s = (s << 1) | b;
          if (mb !== b) break;
        }
      }
      while (s < 0x100) s = (s << 1) | bit(literal, base + s);
      out[pos++] = s & 0xFF;
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    let len;
    if (bit(isRep, state)) {
      if (pos === 0) bad('repeat at the start');
      if (!bit(isRepG0, state)) {
        if (!bit(isRep0Long, (state << 4) + posState)) {
          state = state < 7 ? 9 : 11;
          out[pos] = out[pos - rep0 - 1]; pos++;
          continue;
        }
      } else {
        let dist;
        if (!bit(isRepG1, state)) dist = rep1;
        else {
          if (!bit(isRepG2, state)) dist = rep2;
          else { dist = rep3; rep3 = rep2; }
          rep2 = rep1;
        }
        rep1 = rep0; rep0 = dist;
      }
      len = length(repLen, posState);
      state = state < 7 ? 8 : 11;
    } else {
      rep3 = rep2; rep2 = rep1; rep1 = rep0;
      len = length(matchLen, posState);
      state = state < 7 ? 7 : 10;
      const slot = tree(slots, Math.min(len, 3) << 6, 6);
      if (slot < 4) rep0 = slot;
      else {
        const n = (slot >>> 1) - 1;
        rep0 = ((2 | (slot & 1)) << n) >>> 0;
        if (slot < 14) rep0 += reverse(special, rep0 - slot, n);
        else rep0 = (rep0 + direct(n - 4) * 16 + reverse(align, 0, 4)) >>> 0;
      }
      if (rep0 === 0xFFFFFFFF) break;   // the end marker
      if (rep0 >= pos) bad('distance');
    }
    len += 2;
    if (len > size - pos) bad('length');
    for (; len > 0; len--, pos++) out[pos] = out[pos - rep0 - 1];
  }
  if (pos !== size) bad('size');
  return out;
}
