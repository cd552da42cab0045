// Runs: three or more profiles opened together are one table, as `sp runs` tabulates them.
// The cells the page draws come from the library, and its downloads are the bytes
// `sp runs FILES… --format csv|json` prints for the same options, run where the files lie.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { download, goldenDir, launch, openPage, screenshot, setFiles, settled, sp } from './harness.mjs';

const FILES = [
  ['c.h5', 'tests/golden/c_trace/expected/profiling_data.h5'],
  ['f.h5', 'tests/golden/fortran/expected/profiling_data.h5'],
  ['m.h5', 'tests/golden/mixed/expected/merged.h5'],
];

let browser;
let dir;
before(async () => {
  browser = await launch();
  dir = goldenDir('sp-runs-', FILES);
});
after(async () => {
  await browser.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// The six-run series of tests/golden/scaling/models (1 to 32 ranks), copied to a new
// directory: its file names and the directory.
function modelSeries(prefix) {
  const names = [1, 2, 4, 8, 16, 32].map((p) => `ranks${p}.h5`);
  return { names, series: goldenDir(prefix, names.map((n) => [n, `tests/golden/scaling/models/${n}`])) };
}

// Waits until the Runs view shows the answer for its current state.
// What the page hands the browser to save when `selector` is clicked (SP.lastDownload): the
// scaling study saves a dozen files in a row, and Chromium at times raises no download for
// the later ones (seen after ten: the page's anchor clicked, no download event; we take it
// for its limit on a page's many downloads), so its checks read the bytes handed over; the
// first save goes through the browser's download as every other test's do.
async function handed(page, selector) {
  await page.evaluate(() => { SP.lastDownload = null; });
  await page.click(selector);
  await page.waitForFunction(() => SP.lastDownload);
  const { name, bytes } = await page.evaluate(async () => ({
    name: SP.lastDownload.name,
    bytes: Array.from(new Uint8Array(await SP.lastDownload.blob.arrayBuffer())),
  }));
  return { name, bytes: Buffer.from(bytes) };
}

async function tabulated(page) {
  await settled(page);
  await page.waitForFunction(() => SP.runs.data && SP.runs.data.key === JSON.stringify(SP.runs.args())
    && !!document.querySelector('#runs-table, #runs-body .error'), null, { timeout: 60000 });
}

async function set(page, selector, value) {
  if (typeof value === 'boolean') {
    if ((await page.isChecked(selector)) !== value) await page.click(selector);
  } else if (await page.$eval(selector, (e) => e.tagName === 'SELECT')) {
    await page.selectOption(selector, value);
  } else {
    await page.fill(selector, value);
    await page.$eval(selector, (e) => e.dispatchEvent(new Event('change')));
  }
  await tabulated(page);
}

// The downloads equal `sp runs` with `args`; the table has one row per run (or group).
async function sameAsCli(page, label, args) {
  const names = FILES.map(([n]) => n);
  const csv = await download(page, '#runs-csv');
  assert.equal(csv.bytes.toString('utf8'), sp(['runs', ...names, ...args, '--format', 'csv'], dir), `${label}: CSV`);
  const json = await download(page, '#runs-json');
  const want = sp(['runs', ...names, ...args, '--format', 'json'], dir);
  assert.equal(json.bytes.toString('utf8'), want, `${label}: JSON`);
  const doc = JSON.parse(want);
  const rows = await page.$$eval('#runs-table tbody tr', (trs) => trs.map((tr) => tr.firstChild.textContent));
  const records = doc.groups || doc.runs;
  const first = doc.group_by || 'file';   // the first column (JSON's keys are sorted)
  assert.deepEqual(rows, records.map((r) => String(r[first] ?? '-')), `${label}: rows`);
}

test('three profiles open into Runs, whose downloads are sp runs\' bytes for each option', async () => {
  const page = await openPage(browser);
  await setFiles(page, FILES.map(([n]) => path.join(dir, n)));
  await tabulated(page);
  assert.equal(await page.evaluate(() => SP.current.view), 'runs');
  await page.waitForFunction(() => location.hash.includes('view=runs'), null, { timeout: 5000 });
  await sameAsCli(page, 'defaults', ['--changes', '5']);
  const changed = await page.$eval('#runs-changed', (e) => e.textContent);
  assert.match(changed, /^What changed \(own time, against /);
  // The regions across the runs: sp diff of the three files against the baseline.
  const diffCsv = await download(page, '#runs-diff-csv');
  assert.equal(diffCsv.bytes.toString('utf8'), sp(['diff', ...FILES.map(([n]) => n), '--baseline', 'c.h5', '--format', 'csv'], dir), 'diff CSV');
  await set(page, '#runs-order', 'name');
  const diffJson = await download(page, '#runs-diff-json');
  assert.equal(diffJson.bytes.toString('utf8'), sp(['diff', ...FILES.map(([n]) => n), '--baseline', 'c.h5', '--sort', 'name', '--format', 'json'], dir), 'diff JSON');
  const names = await page.$$eval('#runs-diff tbody tr', (trs) => trs.map((tr) => tr.firstChild.textContent));
  assert.deepEqual(names, JSON.parse(diffJson.bytes.toString('utf8')).rows.map((r) => r.name), 'diff rows');
  await screenshot(page, 'runs-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'runs-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  await set(page, '#runs-changes', false);
  await set(page, '#runs-baseline', await page.$eval('#runs-baseline option:nth-child(2)', (o) => o.value));
  await set(page, '#runs-metric', 'avg');
  await set(page, '#runs-region', 'main comp.*');
  await sameAsCli(page, 'baseline f.h5, avg, regions', ['--baseline', 'f.h5', '--metric', 'avg', '--region', 'main', 'comp.*']);
  assert.ok(await page.$('#runs-table tr.baseline'), 'the baseline row is marked');

  await set(page, '#runs-region', '');
  // The metadata keys every run records are offered to group by.
  const key = await page.$eval('#runs-group option:nth-child(2)', (o) => o.value);
  await set(page, '#runs-group', key);
  await sameAsCli(page, 'group by ' + key, ['--baseline', 'f.h5', '--metric', 'avg', '--group-by', key]);
  await screenshot(page, 'runs-grouped');

  // The key 8 goes to Runs from another view.
  await page.click('#views [data-view="overview"]');
  await page.keyboard.press('8');
  await tabulated(page);
  assert.equal(await page.evaluate(() => SP.current.view), 'runs');
  await page.close();
});

test('a bad region pattern is a sentence, not a table', async () => {
  const page = await openPage(browser);
  await setFiles(page, FILES.map(([n]) => path.join(dir, n)));
  await tabulated(page);
  await set(page, '#runs-region', '(');
  const error = await page.$eval('#runs-body .error', (e) => e.textContent);
  assert.match(error, /^The regions cannot be matched: /);
  await page.close();
});

test('a scaling series opens into Runs with sp scaling\'s table and downloads and sp plot\'s chart', async () => {
  const names = ['ranks1.h5', 'ranks2.h5', 'ranks4.h5'];
  const series = goldenDir('sp-scaling-', names.map((n) => [n, `tests/golden/scaling/strong/${n}`]));
  const page = await openPage(browser);
  await setFiles(page, names.map((n) => path.join(series, n)));
  await tabulated(page);
  const ready = async () => page.waitForSelector('#runs-scaling #scaling-csv');
  await ready();
  const same = async (label, args, kind) => {
    const csv = await (label === 'both' ? download : handed)(page, '#scaling-csv');
    assert.equal(csv.bytes.toString('utf8'), sp(['scaling', ...names, ...args, '--format', 'csv'], series), `${label}: CSV`);
    const json = await handed(page, '#scaling-json');
    assert.equal(json.bytes.toString('utf8'), sp(['scaling', ...names, ...args, '--format', 'json'], series), `${label}: JSON`);
    assert.equal(await page.$eval('#scaling-text', (e) => e.textContent), sp(['scaling', ...names, ...args], series), `${label}: table`);
    const svg = await handed(page, '#scaling-svg');
    sp(['plot', kind, ...names, '-o', 'chart.svg'], series);
    assert.ok(svg.bytes.equals(fs.readFileSync(path.join(series, 'chart.svg'))), `${label}: ${kind} chart`);
    // Save PNG: the same picture at the SVG's size, rasterised by the browser.
    const png = await handed(page, '#scaling-png');
    assert.equal(png.name, svg.name.replace(/svg$/, 'png'), `${label}: PNG name`);
    assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${label}: PNG signature`);
    const size = svg.bytes.toString('utf8').match(/<svg[^>]* width="([\d.]+)" height="([\d.]+)"/).slice(1).map(Number);
    const pixels = [png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)];
    assert.ok(pixels.every((n, i) => Math.abs(n - size[i]) < 1), `${label}: PNG of ${pixels} pixels for an SVG of ${size}`);
  };
  await same('both', [], 'speedup');
  await page.selectOption('#scaling-mode', 'strong');
  await ready();
  await page.click('#scaling-model');
  await ready();
  await page.selectOption('#scaling-kind', 'scaling_efficiency');
  await ready();
  await same('strong, models', ['--mode', 'strong', '--model'], 'scaling_efficiency');
  await page.fill('#scaling-predict', '1024');
  await page.$eval('#scaling-predict', (e) => e.dispatchEvent(new Event('change')));
  await ready();
  await same('a prediction', ['--mode', 'strong', '--model', '--predict', '1024'], 'scaling_efficiency');
  await page.$eval('#runs-scaling', (e) => e.scrollIntoView());
  await screenshot(page, 'runs-scaling-light');
  await page.close();
  fs.rmSync(series, { recursive: true, force: true });
});

test('a series of six runs draws the fitted models, as sp scaling --model and sp plot scaling_model', async () => {
  const { names, series } = modelSeries('sp-models-');
  const page = await openPage(browser);
  await setFiles(page, names.map((n) => path.join(series, n)));
  await tabulated(page);
  const ready = async () => page.waitForSelector('#runs-scaling #scaling-csv');
  await ready();
  await page.selectOption('#scaling-mode', 'strong');
  await ready();
  await page.click('#scaling-model');
  await ready();
  await page.selectOption('#scaling-kind', 'scaling_model');
  await ready();
  const args = ['--mode', 'strong', '--model'];
  const table = await page.$eval('#scaling-text', (e) => e.textContent);
  assert.equal(table, sp(['scaling', ...names, ...args], series));
  assert.match(table, /exchange +4\.0e-3 \+ 2\.0e-2 \* log2\(p\)/);
  const csv = await download(page, '#scaling-csv');
  assert.equal(csv.bytes.toString('utf8'), sp(['scaling', ...names, ...args, '--format', 'csv'], series));
  const svg = await download(page, '#scaling-svg');
  assert.equal(svg.name, 'scaling_model_plot.svg');
  sp(['plot', 'scaling_model', ...names, '-o', 'chart.svg'], series);
  assert.ok(svg.bytes.equals(fs.readFileSync(path.join(series, 'chart.svg'))), 'the models chart');
  // A prediction draws each model on to its scale, as sp plot scaling_model --predict X.
  await page.fill('#scaling-predict', '1024');
  await page.$eval('#scaling-predict', (e) => e.dispatchEvent(new Event('change')));
  await ready();
  const predicted = await download(page, '#scaling-svg');
  sp(['plot', 'scaling_model', ...names, '-o', 'predicted.svg', '--predict', '1024'], series);
  assert.ok(predicted.bytes.equals(fs.readFileSync(path.join(series, 'predicted.svg'))), 'the models chart with a prediction');
  assert.match(predicted.bytes.toString('utf8'), /allreduce stops scaling first/);
  await page.$eval('#runs-scaling', (e) => e.scrollIntoView());
  await screenshot(page, 'runs-models-light');
  await page.fill('#scaling-predict', '');
  await page.$eval('#scaling-predict', (e) => e.dispatchEvent(new Event('change')));
  await ready();
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.selectOption('#scaling-kind', 'speedup');
  await ready();
  await page.selectOption('#scaling-kind', 'scaling_model');
  await ready();
  const dark = await download(page, '#scaling-svg');
  sp(['plot', 'scaling_model', ...names, '-o', 'dark.svg', '--theme', 'dark'], series);
  assert.ok(dark.bytes.equals(fs.readFileSync(path.join(series, 'dark.svg'))), 'the models chart, dark');
  await page.$eval('#runs-scaling', (e) => e.scrollIntoView());
  await screenshot(page, 'runs-models-dark');
  // A metadata key the runs vary in is an axis too, as sp scaling --x KEY takes it.
  const axes = await page.$$eval('#scaling-x option', (o) => o.map((e) => e.value));
  assert.deepEqual(axes, ['auto', 'ranks', 'nodes', 'threads', 'cores', 'cells_per_rank']);
  await page.selectOption('#scaling-x', 'cells_per_rank');
  await ready();
  const byKey = ['--mode', 'strong', '--x', 'cells_per_rank', '--model'];
  assert.equal(await page.$eval('#scaling-text', (e) => e.textContent), sp(['scaling', ...names, ...byKey], series));
  await page.close();
  fs.rmSync(series, { recursive: true, force: true });
});

test('the scaling study\'s options are in the URL hash, and a reload with the runs dropped again comes back to them', async () => {
  const { names, series } = modelSeries('sp-models-hash-');
  const page = await openPage(browser);
  const ready = async () => page.waitForSelector('#runs-scaling #scaling-csv');
  const opened = async () => { await setFiles(page, names.map((n) => path.join(series, n))); await tabulated(page); await ready(); };
  await opened();
  await page.selectOption('#scaling-mode', 'strong');
  await ready();
  await page.click('#scaling-model');
  await ready();
  await page.fill('#scaling-predict', '512');
  await page.$eval('#scaling-predict', (e) => e.dispatchEvent(new Event('change')));
  await ready();
  await page.selectOption('#scaling-kind', 'scaling_model');
  await ready();
  await page.waitForTimeout(250);
  const hash = Object.fromEntries(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)));
  assert.deepEqual([hash.view, hash.smode, hash.smodel, hash.spredict, hash.skind, hash.sx], ['runs', 'strong', '1', '512', 'scaling_model', undefined]);
  await page.reload();
  await page.waitForFunction(() => typeof SP !== 'undefined' && SP.ready !== null);
  await opened();
  const controls = await page.evaluate(() => [SP.current.view, ...['#scaling-mode', '#scaling-x', '#scaling-predict', '#scaling-kind'].map((s) => document.querySelector(s).value), document.querySelector('#scaling-model').checked]);
  assert.deepEqual(controls, ['runs', 'strong', 'auto', '512', 'scaling_model', true]);
  const args = ['--mode', 'strong', '--model', '--predict', '512'];
  assert.equal(await page.$eval('#scaling-text', (e) => e.textContent), sp(['scaling', ...names, ...args], series));
  const svg = await download(page, '#scaling-svg');
  sp(['plot', 'scaling_model', ...names, '-o', 'reloaded.svg', '--predict', '512'], series);
  assert.ok(svg.bytes.equals(fs.readFileSync(path.join(series, 'reloaded.svg'))), 'the chart after the reload');
  await page.close();
  fs.rmSync(series, { recursive: true, force: true });
});
