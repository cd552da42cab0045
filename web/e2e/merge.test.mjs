// Merging traces in the page: dropped .spt traces (with or without per-rank .h5 profiles)
// run through the library's convert pipeline in the worker; the profile opens at once,
// its table equals `sp inspect --format csv` of what `sp convert` writes, and
// "Download profile (.h5)" saves exactly the bytes `sp convert` writes for the same
// inputs and label.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, dropFiles, inspectCsv, launch, openPage, screenshot, setFiles, settled, sp } from './harness.mjs';

let browser;
let tmp;
before(async () => {
  browser = await launch();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-web-merge-'));
});
after(async () => {
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const golden = (c) => path.join(ROOT, 'tests/golden', c);

// `sp convert ARGS… -o OUT` run in `cwd`; the profile's path.
function cliConvert(cwd, args, out) {
  sp(['convert', ...args, '-o', out, '-q'], cwd);
  return path.join(cwd, out);
}

// Drops `files` (or picks them), fills the merge panel and merges; returns the page.
async function merge(page, files, { label = '', compress = false, how = 'drop' } = {}) {
  if (how === 'drop') await dropFiles(page, files); else await setFiles(page, files);
  await page.waitForSelector('#merge:not([hidden])');
  if (label) await page.fill('#merge-label', label);
  if (compress) await page.check('#merge-compress');
  await page.click('#merge-go');
  await page.waitForFunction(() => SP.current && SP.current.merged, null, { timeout: 60000 });
  await settled(page);
}

async function saved(page) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#download-h5')]);
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(await dl.path()) };
}

test('merged traces download as the bytes sp convert writes, and inspect like its output', async () => {
  const cases = [
    // One C trace, the default label (sp convert's: its default output's stem).
    { dir: 'c_trace/inputs', files: ['profile_rank00000.spt'], label: '', cli: ['profile_rank00000.spt'], out: 'profiling_data.h5' },
    { dir: 'fortran/inputs', files: ['profile_rank00000.spt'], label: 'fortran-run', cli: ['profile_rank00000.spt', '--label', 'fortran-run'], out: 'x.h5' },
    // Two ranks, v1 and v2 traces.
    { dir: 'synthetic/inputs', files: ['g_rank00001.spt', 'g_rank00000.spt'], label: 'golden', cli: ['g_rank00000.spt', 'g_rank00001.spt'], out: 'golden.h5' },
    // Traces with per-rank profiles: aggregate, and lzf-compressed, merged with --compress.
    { dir: 'h5_agg_with_traces/inputs', files: ['zzz.spt', 'agg.h5', 'g_rank00001.spt'], label: 'agg', cli: ['agg.h5', 'zzz.spt', 'g_rank00001.spt', '--label', 'agg'], out: 'y.h5' },
    { dir: 'h5_lzf_with_traces/inputs', files: ['lzf.h5', 'zzz.spt', 'g_rank00001.spt'], label: 'lzf', compress: true, cli: ['lzf.h5', 'zzz.spt', 'g_rank00001.spt', '--label', 'lzf', '--compress'], out: 'z.h5' },
    // A directory as sp convert scans it (*.spt, hidden ones too, and *_rank<N>.h5), the files picked.
    { dir: 'mixed', files: ['inputs/run_rank00000.spt', 'inputs/.hidden.spt', 'inputs/run_rank00001.spt', 'inputs/run_rank00002.h5', 'inputs/zzz.spt'], label: 'merged', cli: ['inputs'], out: 'merged.h5', how: 'input' },
  ];
  for (const c of cases) {
    const at = `${c.dir} ${c.files.join(' ')}`;
    const work = fs.mkdtempSync(path.join(tmp, 'case-'));
    const cwd = path.join(work, path.basename(c.dir));
    fs.cpSync(golden(c.dir), cwd, { recursive: true });
    const want = cliConvert(cwd, c.cli, c.out);
    const page = await openPage(browser);
    await merge(page, c.files.map((f) => path.join(cwd, f)), c);
    // The panel listed the inputs in merge order.
    const label = c.label || 'profiling_data';
    const info = await page.evaluate(() => ({ name: SP.current.name, kind: SP.current.info.kind, merged: SP.current.merged.inputs }));
    assert.equal(info.name, label + '.h5', at);
    assert.equal(info.kind, 'profile', at);
    assert.deepEqual(info.merged, c.files.map((f) => path.basename(f)).sort(), at);
    const file = await saved(page);
    assert.equal(file.name, label + '.h5', at);
    const bytes = fs.readFileSync(want);
    assert.ok(file.bytes.equals(bytes), `${at}: saved ${file.bytes.length} bytes, sp convert wrote ${bytes.length}`);
    // The merged profile is inspected: the table equals sp inspect of sp convert's output
    // under the same name.
    const named = path.join(work, label + '.h5');
    fs.copyFileSync(want, named);
    await page.click('#views [data-view="regions"]');
    await settled(page);
    const rows = await page.evaluate(() => SP.current.data.table.rows.map((r) => [r.name, r.path ? r.path.join(' > ') : '', String(r.calls), r.v.total]));
    const csv = inspectCsv(named);
    assert.deepEqual(rows, csv.rows.map((r) => [r.name, r.call_path, r.calls, r.total === '' ? null : Number(r.total)]), at + ': table');
    assert.match(await page.textContent('#notice'), new RegExp('^' + label + '\\.h5 was merged in this tab from '));
    if (c.dir === 'mixed') await screenshot(page, '9-merged');
    assert.deepEqual(page.errors, [], at);
    assert.deepEqual(page.network, [], at + ': requests that leave the tab');
    await page.close();
  }
});

test('the merge panel, and a merge that breaks the rules gets one sentence', async () => {
  const a = path.join(tmp, 'a.spt');
  const b = path.join(tmp, 'b.spt');
  fs.copyFileSync(golden('c_trace/inputs/profile_rank00000.spt'), a);
  fs.copyFileSync(golden('fortran/inputs/profile_rank00000.spt'), b);
  const page = await openPage(browser);
  await dropFiles(page, [b, a]);
  await page.waitForSelector('#merge:not([hidden])');
  assert.equal(await page.textContent('#merge-title'), 'Merge 2 files into one profile');
  assert.deepEqual(await page.$$eval('#merge-inputs li .mono', (li) => li.map((x) => x.textContent)), ['a.spt', 'b.spt']);
  await screenshot(page, '9-merge-panel');
  // Escape leaves the page as it was.
  await page.keyboard.press('Escape');
  assert.equal(await page.isVisible('#merge'), false);
  assert.equal(await page.isVisible('#welcome'), true);
  await dropFiles(page, [a, b]);
  await page.click('#merge-go');
  await page.waitForSelector('#error:not([hidden])');
  assert.equal(await page.textContent('#error'),
    'Merging the traces failed: b.spt and a.spt both claim rank 0; pass the MPI rank to sp_init() so each rank writes its own.');
  assert.equal(await page.isVisible('#welcome'), true);
  assert.deepEqual(page.errors, []);
  await page.close();
});
