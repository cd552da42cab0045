'use strict';
// The sp worker: the library (WebAssembly, inlined below) and the dropped files, read in
// place through FileReaderSync on File.slice. Messages in: {id, op, args, file?, files?}; out:
// {id, ok} or {id, error}, with `bin` (an ArrayBuffer, transferred) for binary answers,
// `blob` for a file to save (built from the parts the library hands over as it writes),
// `ms` (time spent in the library) and `readMs` (the part of it spent reading files). The wasm protocol is documented in web/src/ffi.rs.
const WASM_BASE64 = "@WASM_BASE64@";

let wasm = null;
const blobs = [];        // registered File objects, by handle
const reader = new FileReaderSync();
const encoder = new TextEncoder();
const decoder = new TextDecoder();

let readMs = 0;
function blobRead(handle, offset, len, dst) {
  const t0 = performance.now();
  try {
    const blob = blobs[handle];
    const buf = reader.readAsArrayBuffer(blob.slice(offset, offset + len));
    if (buf.byteLength !== len) return 1;
    new Uint8Array(wasm.memory.buffer, dst, len).set(new Uint8Array(buf));
    return 0;
  } catch (e) {
    return 1;
  } finally {
    readMs += performance.now() - t0;
  }
}

// The parts of the file the current request saves (an export), copied out of the
// module's memory as the library writes them.
let parts = [];
function savePart(src, len) {
  parts.push(new Uint8Array(wasm.memory.buffer, src, len).slice());
}

// The module is inlined as an .lzma stream (base64), which lzmaDecode (web/page/lzma.js,
// put before this script by scripts/build-web.sh) unpacks.
let module = null;
async function compile() {
  const text = atob(WASM_BASE64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  module = await WebAssembly.compile(lzmaDecode(bytes));
}

function instantiate() {
  wasm = new WebAssembly.Instance(module, { sp: { blob_read: blobRead, save_part: savePart } }).exports;
}

function call(request) {
  const bytes = encoder.encode(JSON.stringify(request));
  const ptr = wasm.sp_alloc(bytes.length);
  new Uint8Array(wasm.memory.buffer, ptr, bytes.length).set(bytes);
  parts = [];
  const n = wasm.sp_call(ptr, bytes.length);
  const answer = JSON.parse(decoder.decode(new Uint8Array(wasm.memory.buffer, wasm.sp_out_ptr(), n)));
  const binLen = wasm.sp_bin_len();
  const bin = binLen ? wasm.memory.buffer.slice(wasm.sp_bin_ptr(), wasm.sp_bin_ptr() + binLen) : null;
  return { answer, bin };
}

const started = performance.now();
let ready = null;
compile().then(instantiate).then(
  () => { ready = { ms: performance.now() - started }; },
  (e) => { ready = { error: 'This browser could not start the page\'s WebAssembly module: ' + e.message + '.' }; },
).then(() => postMessage({ id: 0, ready }));

onmessage = (event) => {
  const { id, op, args, file } = event.data;
  const t0 = performance.now();
  readMs = 0;
  const request = Object.assign({ op }, args || {});
  const register = (f) => {
    blobs.push(f);
    return { blob: blobs.length - 1, name: f.name, size: f.size };
  };
  if (op === 'open') Object.assign(request, register(file));
  if (op === 'merge') request.inputs = event.data.files.map(register);
  let reply;
  try {
    if (!wasm) throw new Error(ready.error || 'not started');
    const { answer, bin } = call(request);
    reply = answer.error !== undefined ? { id, error: answer.error } : { id, ok: answer.ok };
    if (bin) reply.bin = bin;
    // A merge's inputs are read during the call only.
    for (const input of request.inputs || []) blobs[input.blob] = null;
    if (parts.length && answer.ok) {
      reply.blob = new Blob(parts, { type: 'application/json' });
      reply.parts = parts.length;
    }
    parts = [];
  } catch (e) {
    // A trap leaves the module's state undefined: start afresh (open files are lost).
    const name = file ? file.name : 'the file';
    reply = { id, error: 'The page failed on ' + name + ' (' + e.message + '); reopen the file, and please report this.', reset: true };
    try { instantiate(); } catch (ignored) { wasm = null; }
  }
  reply.ms = performance.now() - t0;
  reply.readMs = readMs;
  reply.heap = wasm ? wasm.memory.buffer.byteLength : 0;
  postMessage(reply, reply.bin ? [reply.bin] : []);
};
