// Test inputs the golden files do not cover: a profile of many ranks (written as native
// traces, then merged by `sp convert`) and a profile with a filter sp cannot decode.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, TARGET, sp } from './harness.mjs';

// One `.spt` (version 1, little-endian): `regions` is a list of [name, starts, ends].
function trace(rank, regions) {
  const parts = [];
  const head = Buffer.alloc(24);
  head.write('SCOPEPRF', 0, 'ascii');
  head.writeInt32LE(1, 8);
  head.writeInt32LE(rank, 12);
  head.writeBigInt64LE(BigInt(regions.length), 16);
  parts.push(head);
  for (const [name, starts, ends] of regions) {
    const n = Buffer.from(name, 'utf8');
    const rec = Buffer.alloc(4 + n.length + 8 + 16 * starts.length);
    rec.writeInt32LE(n.length, 0);
    n.copy(rec, 4);
    let o = 4 + n.length;
    rec.writeBigInt64LE(BigInt(starts.length), o);
    o += 8;
    for (const s of starts) { rec.writeBigInt64LE(BigInt(s), o); o += 8; }
    for (const e of ends) { rec.writeBigInt64LE(BigInt(e), o); o += 8; }
    parts.push(rec);
  }
  return Buffer.concat(parts);
}

// A profile of `ranks` ranks: each runs `step` twice, holding `solve`, `halo` and `io`;
// solve's time varies smoothly over the ranks, and a few ranks are stragglers. Cached under
// target/ by rank count.
export function manyRanksProfile(_tmp, ranks) {
  const dir = path.join(TARGET, 'web-fixtures', `ranks${ranks}`);
  const out = path.join(TARGET, 'web-fixtures', `ranks${ranks}.h5`);
  if (fs.existsSync(out)) return out;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (let r = 0; r < ranks; r++) {
    const straggler = r % 997 === 13 ? 1.8 : 1;
    const solve = Math.round(40000 * (1 + 0.25 * Math.sin(r / 300)) * straggler);
    const halo = 8000 + (r % 64) * 50;
    const io = r === 0 ? 30000 : 2000;
    const calls = { step: [[], []], solve: [[], []], halo: [[], []], io: [[], []] };
    let t = 1000000;
    for (let i = 0; i < 2; i++) {
      const start = t;
      calls.solve[0].push(t + 100); calls.solve[1].push(t + 100 + solve);
      calls.halo[0].push(t + 200 + solve); calls.halo[1].push(t + 200 + solve + halo);
      calls.io[0].push(t + 300 + solve + halo); calls.io[1].push(t + 300 + solve + halo + io);
      t += 400 + solve + halo + io;
      calls.step[0].push(start); calls.step[1].push(t);
      t += 50;
    }
    const regions = Object.entries(calls).map(([name, [s, e]]) => [name, s, e]);
    fs.writeFileSync(path.join(dir, `many_rank${String(r).padStart(5, '0')}.spt`), trace(r, regions));
  }
  sp(['convert', dir, '-o', out, '-q'], ROOT);
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

// A golden profile whose rank column uses the scale-offset filter (fixtures/make_unsupported.py).
export function unsupportedFilterProfile() {
  return path.join(ROOT, 'web/e2e/fixtures/unsupported_filter.h5');
}

// A schema-1 (legacy, per-rank groups) profile (fixtures/make_schema1.py).
export function schema1Profile() {
  return path.join(ROOT, 'web/e2e/fixtures/schema1.h5');
}
