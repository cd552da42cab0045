// Drives web/dist/sp.html over file:// in Debian's chromium (playwright-core, no browser
// download), and runs the sp CLI for the expected outputs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TARGET = process.env.CARGO_TARGET_DIR ? path.resolve(process.env.CARGO_TARGET_DIR) : path.join(ROOT, 'target');
export const PAGE = path.join(ROOT, 'web/dist/sp.html');
export const SHOTS = path.join(TARGET, 'web-screenshots');
export const SP_BIN = process.env.SP_BIN || path.join(TARGET, 'release/sp');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

export async function launch() {
  if (!fs.existsSync(PAGE)) throw new Error(PAGE + ' is missing: run scripts/build-web.sh');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
      '--enable-precise-memory-info'],
  });
}

// A fresh page on sp.html; page errors fail the test that reads `errors`.
export async function openPage(browser, viewport = { width: 1400, height: 900 }) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  const network = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // Nothing leaves the tab: every request must stay inside it.
  page.on('request', (r) => { if (!/^(file|blob|data):/.test(r.url())) network.push(r.url()); });
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(pathToFileURL(PAGE).href);
  await page.waitForFunction(() => typeof SP !== 'undefined' && SP.ready !== null);
  page.errors = errors;
  page.network = network;
  return page;
}

export async function setFiles(page, files) {
  await page.setInputFiles('#file-input', files);
}

// A real drag and drop: the files go into a hidden input, then a DataTransfer holding them
// is dispatched as dragenter, dragover and drop on the page.
export async function dropFiles(page, files) {
  await page.evaluate(() => {
    const input = document.createElement('input');
    input.type = 'file';
    input.multiple = true;
    input.id = 'test-drop-input';
    input.hidden = true;
    document.body.append(input);
  });
  await page.setInputFiles('#test-drop-input', files);
  const dt = await page.evaluateHandle(() => {
    const d = new DataTransfer();
    for (const f of document.getElementById('test-drop-input').files) d.items.add(f);
    return d;
  });
  for (const type of ['dragenter', 'dragover', 'drop']) {
    await page.dispatchEvent('#main', type, { dataTransfer: dt });
  }
  await page.evaluate(() => document.getElementById('test-drop-input').remove());
}

// Waits until no request is in flight and the current file's call tree is settled.
export async function settled(page) {
  await page.waitForFunction(() => SP.pending.size === 0 && (!SP.current || SP.current.tree !== 'available' || SP.current.treeError), null, { timeout: 60000 });
  await page.waitForTimeout(30);
  await page.waitForFunction(() => SP.pending.size === 0, null, { timeout: 60000 });
}

export async function showView(page, view) {
  await page.click(`#views [data-view="${view}"]`);
  await settled(page);
}

export async function screenshot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, name + '.png');
  await page.screenshot({ path: file });
  return file;
}

// `sp ARGS…` run in `cwd`; its stdout.
export function sp(args, cwd) {
  const r = spawnSync(SP_BIN, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`sp ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

// Clicks `selector` and returns the file the page saved: {name, bytes}.
export async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const file = await dl.path();
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(file) };
}

// `sp ARGS…` run in `cwd`; its stdout as bytes.
export function spBytes(args, cwd) {
  const r = spawnSync(SP_BIN, args, { cwd, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`sp ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

// RFC 4180 CSV into rows of cells.
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; }
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; }
    else cell += c;
  }
  if (cell || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

// `sp inspect --format csv` of `file` (run beside it, so its `file` column is the name the
// page knows) as objects keyed by the header.
export function inspectCsv(file, extra = []) {
  const text = sp(['inspect', path.basename(file), '--format', 'csv', ...extra], path.dirname(file));
  const [head, ...body] = parseCsv(text);
  return { text, head, rows: body.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]]))) };
}

// `sp ls FILE --data` (run beside it), the listing the raw view shows.
export function lsText(file) {
  return sp(['ls', path.basename(file), '--data'], path.dirname(file));
}

// Every golden profile: tests/golden/*/expected/*.h5 and inputs/*.h5 (all are profiles).
// A new directory under the system's temp dir holding copies of repository files under
// new names: `files` is a list of [name, path from the repository's root].
export function goldenDir(prefix, files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [name, golden] of files) fs.copyFileSync(path.join(ROOT, golden), path.join(dir, name));
  return dir;
}

export function goldenProfiles() {
  const out = [];
  const base = path.join(ROOT, 'tests/golden');
  for (const dir of fs.readdirSync(base).sort()) {
    for (const sub of ['expected', 'inputs']) {
      const d = path.join(base, dir, sub);
      if (!fs.existsSync(d)) continue;
      for (const f of fs.readdirSync(d).sort()) if (f.endsWith('.h5')) out.push(path.join(d, f));
    }
  }
  return out;
}

// Memory of the tab: the largest renderer process (the page and its worker) of this
// browser, as its proportional set size (shared pages split among the processes using
// them) in MiB; `rss` also counts the shared pages whole.
export function rendererMiB(browserPid) {
  let best = { pss: 0, rss: 0 };
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.includes('--type=renderer')) continue;
      const stat = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const ppid = Number(/PPid:\s+(\d+)/.exec(stat)[1]);
      const rss = Number(/VmRSS:\s+(\d+)/.exec(stat)[1]) / 1024;
      if (browserPid && !descends(ppid, browserPid)) continue;
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const pss = Number(/^Pss:\s+(\d+)/m.exec(rollup)[1]) / 1024;
      if (pss > best.pss) best = { pss, rss };
    } catch { /* gone */ }
  }
  return best;
}

function descends(pid, ancestor) {
  for (let i = 0; i < 8 && pid > 1; i++) {
    if (pid === ancestor) return true;
    try { pid = Number(/PPid:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]); } catch { return false; }
  }
  return pid === ancestor;
}
