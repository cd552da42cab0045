// The page's LZMA decoder (web/page/lzma.js), which unpacks its module: every byte equal to
// what xz packed, with the options scripts/build-web.sh uses and xz's defaults, and a clear
// error, not a hang or a wrong output, on a damaged stream.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './harness.mjs';

const lzmaDecode = new Function(fs.readFileSync(path.join(ROOT, 'web/page/lzma.js'), 'utf8') + '\nreturn lzmaDecode;')();

const pack = (bytes, options) => {
  const r = spawnSync('xz', ['--format=lzma', `--lzma1=${options}`, '-c'], { input: bytes, maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, String(r.stderr));
  return new Uint8Array(r.stdout);
};

// Inputs that reach every kind of packet: literals with and without a match byte, short
// and long repeats of each of the four distances, and distances of every slot.
const rust = fs.readdirSync(path.join(ROOT, 'src/analysis')).filter((f) => f.endsWith('.rs'))
  .map((f) => fs.readFileSync(path.join(ROOT, 'src/analysis', f))).reduce((a, b) => Buffer.concat([a, b]));
const random = crypto.createHash('sha256');
const noise = Buffer.alloc(200000);
for (let i = 0; i < noise.length; i += 32) random.copy().update(String(i)).digest().copy(noise, i);
const inputs = {
  empty: Buffer.alloc(0),
  'one byte': Buffer.from('a'),
  zeros: Buffer.alloc(100000),
  'the analysis sources': rust,
  'random bytes': noise,
  'sources and noise, interleaved': Buffer.concat([rust.subarray(0, 50000), noise.subarray(0, 30000), rust.subarray(0, 90000), noise]),
};

for (const options of ['preset=9e,lc=4,pb=0', 'preset=6', 'preset=1,lc=0,lp=2,pb=4']) {
  test(`lzmaDecode gives back what xz packed with ${options}`, () => {
    for (const [name, bytes] of Object.entries(inputs)) {
      const out = lzmaDecode(pack(bytes, options), bytes.length);
      assert.ok(Buffer.from(out).equals(bytes), name);
    }
  });
}

test('lzmaDecode takes the size from the header when it is there, as the build writes it', () => {
  const bytes = inputs['sources and noise, interleaved'];
  const packed = pack(bytes, 'preset=9e,lc=4,pb=0');
  assert.throws(() => lzmaDecode(packed), /damaged \(size\)/, 'xz writes the size as unknown');
  new DataView(packed.buffer).setBigUint64(5, BigInt(bytes.length), true);
  assert.ok(Buffer.from(lzmaDecode(packed)).equals(bytes));
});

test('lzmaDecode refuses a damaged stream with an error that says so', () => {
  const bytes = inputs['the analysis sources'];
  const packed = pack(bytes, 'preset=6');
  const damaged = (input, size = bytes.length) => assert.throws(() => lzmaDecode(input, size), /the page's module is damaged \(/);
  damaged(packed.subarray(0, packed.length >> 1));        // truncated
  damaged(Uint8Array.of(225, ...packed.subarray(1)));      // properties out of range
  const flipped = packed.slice();
  flipped[13] = 1;                                        // the range coder's first byte
  damaged(flipped);
  damaged(packed, bytes.length + 10);                     // fewer bytes than said
  damaged(packed.subarray(0, 12));                        // no header
  // Bytes flipped anywhere in the data: an error or some output, never a hang.
  for (let i = 14; i < packed.length; i += 997) {
    const bad = packed.slice();
    bad[i] ^= 0x5a;
    try { lzmaDecode(bad, bytes.length); } catch (e) { assert.match(e.message, /damaged/); }
  }
});
