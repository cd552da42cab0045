// `sp report`: the page with profiles embedded opens offline, on the Overview, and shows the
// numbers `sp inspect` prints; two profiles open compared.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { PAGE, ROOT, SP_BIN, dropFiles, inspectCsv, launch, screenshot, settled, showView } from './harness.mjs';

let browser;
let tmp;
before(async () => {
  browser = await launch();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-report-'));
});
after(async () => {
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function report(files, name, extra = []) {
  const out = path.join(tmp, name);
  const r = spawnSync(SP_BIN, ['report', ...files, '-o', out, '--page', PAGE, ...extra], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return out;
}

async function openReport(file) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  const network = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('request', (r) => { if (!/^(file|blob|data):/.test(r.url())) network.push(r.url()); });
  const started = Date.now();
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => typeof SP !== 'undefined' && SP.current && !SP.current.starting, null, { timeout: 60000 });
  await settled(page);
  return { page, errors, network, ms: Date.now() - started };
}

test('a report opens offline on the Overview, with the rows of sp inspect', async () => {
  const profile = path.join(ROOT, 'tests/golden/synthetic/expected/golden.h5');
  const { page, errors, network, ms } = await openReport(report([profile], 'one.html'));
  assert.equal(await page.evaluate(() => SP.current.view), 'overview');
  assert.equal(await page.evaluate(() => SP.current.name), 'golden.h5');
  assert.ok(await page.isVisible('#view-overview'), 'the Overview is shown');
  await screenshot(page, 'report-overview');
  await showView(page, 'regions');
  const rows = await page.evaluate(() => SP.current.data.table.rows.map((r) => [r.name, r.calls, r.v.total]));
  const csv = inspectCsv(profile);
  assert.deepEqual(rows, csv.rows.map((c) => [c.name, Number(c.calls), c.total === '' ? null : Number(c.total)]));
  assert.ok(ms < 10000, `opened in ${ms} ms`);
  assert.deepEqual(errors, []);
  assert.deepEqual(network, [], 'requests that leave the tab');
  await page.close();
});

test("a report opens with sp inspect's filters, ranks and sort", async () => {
  const profile = path.join(ROOT, 'tests/golden/mixed/expected/merged.h5');
  const args = ['--include', 'A', 'B', 'E', '--ranks', '0', '1', '--sort', 'total'];
  const { page, errors } = await openReport(report([profile], 'filtered.html', args));
  assert.deepEqual(await page.evaluate(() => SP.current.opts),
    { include: 'A B E', exclude: '', ranks: '0 1', sort: 'total', mode: 'coverage' });
  await showView(page, 'regions');
  const rows = await page.evaluate(() => SP.current.data.table.rows.map((r) => [r.name, r.calls]));
  const csv = inspectCsv(profile, args);
  assert.ok(csv.rows.length > 0 && csv.rows.length < inspectCsv(profile).rows.length, 'the filter leaves some rows out');
  assert.deepEqual(rows, csv.rows.map((c) => [c.name, Number(c.calls)]));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a report of two profiles opens compared', async () => {
  const a = path.join(ROOT, 'tests/golden/synthetic/expected/golden.h5');
  const b = path.join(ROOT, 'tests/golden/c_trace/expected/profiling_data.h5');
  const { page, errors } = await openReport(report([a, b], 'two.html'));
  await page.waitForFunction(() => SP.files.length === 2, null, { timeout: 30000 });
  await settled(page);
  assert.equal(await page.evaluate(() => SP.files.length), 2);
  assert.equal(await page.evaluate(() => SP.current.view), 'compare');
  await screenshot(page, 'report-compare');
  assert.deepEqual(errors, []);
  await page.close();
});

test('an index-only report opens on its index, and the dropped .h5 adds the calls', async () => {
  const profile = path.join(ROOT, 'tests/golden/mixed/expected/merged.h5');
  const out = report([profile], 'index-only.html', ['--events', 'never']);
  assert.ok(fs.statSync(out).size < fs.statSync(PAGE).size + fs.statSync(profile).size * 4 / 3);
  const { page, errors } = await openReport(out);
  assert.equal(await page.evaluate(() => SP.current.tree), 'omitted');
  await showView(page, 'regions');
  const rows = await page.evaluate(() => SP.current.data.table.rows.map((r) => [r.name, r.calls]));
  const flat = inspectCsv(profile, ['--flat']);
  assert.deepEqual(rows, flat.rows.map((c) => [c.name, Number(c.calls)]));
  assert.match(await page.textContent('#view-regions'), /holds the index of merged\.h5 only/);
  await screenshot(page, 'report-index-only-regions');
  await showView(page, 'timeline');
  await page.waitForFunction(() => /Drop merged\.h5 onto the page/.test(document.querySelector('#tl-info').textContent), null, { timeout: 30000 });
  await screenshot(page, 'report-index-only-timeline');
  await dropFiles(page, [profile]);
  await page.waitForFunction(() => SP.files.length === 1 && SP.current.tree !== 'omitted' && !SP.current.starting, null, { timeout: 30000 });
  await settled(page);
  assert.equal(await page.evaluate(() => SP.current.name), 'merged.h5');
  assert.notEqual(await page.evaluate(() => SP.current.tree), 'omitted');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a lone release binary writes a report with the page it carries', async () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'lone-'));
  const bin = path.join(dir, 'sp');
  fs.copyFileSync(SP_BIN, bin);
  fs.chmodSync(bin, 0o755);
  const profile = path.join(ROOT, 'tests/golden/synthetic/expected/golden.h5');
  const out = path.join(dir, 'lone.html');
  const env = { ...process.env };
  delete env.SP_PAGE;
  const r = spawnSync(bin, ['report', profile, '-o', out], { encoding: 'utf8', env, cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  const { page, errors } = await openReport(out);
  assert.equal(await page.evaluate(() => SP.current.name), 'golden.h5');
  assert.equal(await page.evaluate(() => SP.current.view), 'overview');
  await screenshot(page, 'report-lone-binary');
  assert.deepEqual(errors, []);
  await page.close();
});
