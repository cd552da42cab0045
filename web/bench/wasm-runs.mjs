// The page's library alone on a series' open: the worker's WebAssembly module run by node,
// its file reads served by fs.readSync, so the figures are the wasm's decoding and runs
// without the browser's reads or the tab's other threads (issue 37: 100 profiles into Runs;
// web/bench/runs.mjs times the whole page). Opens DIR's profiles as the page opens a
// dropped series (`open {…, runs: true}`), tabulates them (`runs`), closes them, and prints
// each round's times.
//
//   node web/bench/wasm-runs.mjs WASM DIR [--rounds N] [--count N]
//
// WASM is the page's module, target/page/wasm32-unknown-unknown/wasm-release/sp_web.wasm
// after `CARGO_TARGET_DIR=target/page scripts/build-web.sh`; built with
// CARGO_PROFILE_WASM_RELEASE_STRIP=false it keeps its function names for `node --cpu-prof`.
// Not a test: it prints figures.
import fs from 'node:fs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const [wasmPath, dir] = args.filter((a, i) => !a.startsWith('--') && !['--rounds', '--count'].includes(args[i - 1]));
if (!wasmPath || !dir) {
  console.error('usage: node web/bench/wasm-runs.mjs WASM DIR [--rounds N] [--count N]');
  process.exit(2);
}
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.h5')).sort()
  .slice(0, option('--count', Infinity)).map((f) => `${dir}/${f}`);

const fds = [];
let wasm;
let readMs = 0;
let reads = 0;
const imports = {
  sp: {
    blob_read: (handle, offset, len, dst) => {
      const t0 = performance.now();
      const n = fs.readSync(fds[handle], new Uint8Array(wasm.memory.buffer, dst, len), 0, len, offset);
      readMs += performance.now() - t0;
      reads++;
      return n === len ? 0 : 1;
    },
    save_part: () => {},
  },
};
wasm = new WebAssembly.Instance(await WebAssembly.compile(fs.readFileSync(wasmPath)), imports).exports;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
function call(request) {
  const bytes = encoder.encode(JSON.stringify(request));
  const ptr = wasm.sp_alloc(bytes.length);
  new Uint8Array(wasm.memory.buffer, ptr, bytes.length).set(bytes);
  const n = wasm.sp_call(ptr, bytes.length);
  const answer = JSON.parse(decoder.decode(new Uint8Array(wasm.memory.buffer, wasm.sp_out_ptr(), n)));
  if (answer.error !== undefined) throw new Error(answer.error);
  return answer.ok;
}

for (let round = 0; round < option('--rounds', 3); round++) {
  readMs = 0;
  reads = 0;
  const t0 = performance.now();
  const ids = files.map((file) => {
    fds.push(fs.openSync(file, 'r'));
    const name = file.split('/').pop();
    return call({ op: 'open', blob: fds.length - 1, name, size: fs.statSync(file).size, runs: true }).file;
  });
  const t1 = performance.now();
  call({ op: 'runs', files: ids, metric: 'total', changes: 5 });
  const t2 = performance.now();
  for (const id of ids) call({ op: 'close', file: id });
  for (const fd of fds.splice(0)) fs.closeSync(fd);
  console.log(`round ${round + 1}: ${files.length} opens ${(t1 - t0).toFixed(0)} ms `
    + `(reads ${readMs.toFixed(0)} ms in ${reads}), runs ${(t2 - t1).toFixed(0)} ms; `
    + `wasm memory ${wasm.memory.buffer.byteLength >> 20} MiB`);
}
