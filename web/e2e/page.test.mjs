// The page in a real browser over file://: what it shows for every golden profile equals
// the CLI's `sp inspect --format csv`, the views work, and every bad file gets a sentence.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  ROOT, download, dropFiles, goldenProfiles, inspectCsv, launch, lsText, openPage, screenshot, setFiles, settled, showView, sp,
} from './harness.mjs';
import { manyRanksProfile, schema1Profile, unsupportedFilterProfile } from './fixtures.mjs';

const NUMBERS = ['total', 'coverage', 'exclusive', 'avg', 'min', 'max', 'first', 'last', 'std',
  'p50', 'p95', 'p99', 'imbalance', 'gpu_total', 'gpu_avg', 'start', 'parent_coverage', 'percent'];

let browser;
let tmp;
before(async () => {
  browser = await launch();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-web-'));
});
after(async () => {
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function open(file, how = 'input') {
  const page = await openPage(browser);
  if (how === 'drop') await dropFiles(page, [file]); else await setFiles(page, [file]);
  await settled(page);
  return page;
}

const tableRows = (page) => page.evaluate(() => SP.current.data.table.rows);

// The page's rows equal the CLI's CSV rows, value for value (numbers compared exactly).
function sameRows(label, rows, csv, { percent = true } = {}) {
  assert.equal(rows.length, csv.rows.length, `${label}: row count`);
  rows.forEach((r, i) => {
    const c = csv.rows[i];
    const at = `${label}: row ${i} (${c.name})`;
    assert.equal(r.name, c.name, at);
    assert.equal(r.path ? r.path.join(' > ') : '', c.call_path, at + ' call_path');
    assert.equal(String(r.depth), c.depth, at + ' depth');
    assert.equal(String(r.recursive), c.recursive, at + ' recursive');
    assert.equal(String(r.ranks), c.num_ranks, at + ' num_ranks');
    assert.equal(String(r.calls), c.calls, at + ' calls');
    for (const k of NUMBERS) {
      if (k === 'percent' && !percent) continue;
      assert.equal(r.v[k], c[k] === '' ? null : Number(c[k]), `${at} ${k}`);
    }
  });
}

// The table drawn in the DOM shows the same rows, in order, with the same raw values.
async function sameDom(page, label, rows) {
  const dom = await page.$$eval('#region-table tbody tr:not(.own)', (trs) => trs.map((tr) => ({
    name: tr.dataset.name,
    path: tr.dataset.path,
    total: tr.querySelector('td[data-k="total"]')?.dataset.v,
    calls: tr.querySelector('td[data-k="calls"]')?.dataset.v,
  })));
  assert.deepEqual(dom.map((d) => d.name), rows.map((r) => r.name), label + ': DOM rows');
  dom.forEach((d, i) => {
    assert.equal(d.total === '' ? null : Number(d.total), rows[i].v.total, `${label}: DOM total of ${d.name}`);
    assert.equal(Number(d.calls), rows[i].calls, `${label}: DOM calls of ${d.name}`);
  });
}

// Download CSV saves exactly what `sp inspect --format csv` prints for the same options.
async function sameCsv(page, label, want) {
  const saved = await download(page, '#download-csv');
  assert.equal(saved.bytes.toString('utf8'), want, label + ': Download CSV');
  assert.match(saved.name, /\.csv$/);
}

// The raw view's listing, line by line, as `sp ls --data` prints it; and the DOM shows
// one row per object.
async function sameListing(page, label, file) {
  const entries = await page.evaluate(() => SP.current.data.raw.entries);
  const text = entries.map((e) => [e.path + '  ' + e.head, ...e.lines].join('\n') + '\n').join('');
  assert.equal(text, lsText(file), label + ': raw view = sp ls --data');
  const dom = await page.$$eval('#raw-table tbody tr', (trs) => trs.map((tr) => tr.dataset.path));
  assert.deepEqual(dom, entries.map((e) => e.path), label + ': raw rows');
}

test('the first screen says nothing leaves the tab', async () => {
  const page = await openPage(browser);
  const text = await page.textContent('#welcome');
  assert.match(text, /Nothing leaves this tab\./);
  assert.match(text, /no server, no upload, no network/);
  assert.equal(await page.getAttribute('#file-input', 'multiple'), '');
  await screenshot(page, '0-welcome');
  assert.deepEqual(page.errors, []);
  // The page's policy forbids any connection, so a stray fetch would fail, not leave.
  const blocked = await page.evaluate(() => fetch('http://127.0.0.1:9/').then(() => 'sent', (e) => 'blocked: ' + e.message));
  assert.match(blocked, /^blocked/);
  assert.deepEqual(page.network, []);
  await page.close();
});

test('every golden profile: the region table equals sp inspect --format csv', async () => {
  const files = goldenProfiles();
  assert.ok(files.length >= 25, `${files.length} golden profiles`);
  for (const file of files) {
    const label = path.relative(ROOT, file);
    const page = await open(file);
    await showView(page, 'regions');
    const info = await page.evaluate(() => ({ tree: SP.current.tree, source: SP.current.data.table.source }));
    assert.equal(info.tree, 'loaded', label);
    const rows = await tableRows(page);
    const csv = inspectCsv(file);
    sameRows(label, rows, csv);
    await sameDom(page, label, rows);
    await sameCsv(page, label, csv.text);
    assert.deepEqual(page.errors, [], label);
    assert.deepEqual(page.network, [], label + ': requests that leave the tab');
    await page.close();
  }
});

test('a schema-1 profile and a 10,000-rank profile: tables equal sp inspect --format csv', async () => {
  for (const file of [schema1Profile(), manyRanksProfile(tmp, 10000)]) {
    const label = path.basename(file);
    const page = await open(file);
    await showView(page, 'regions');
    assert.equal(await page.evaluate(() => SP.current.tree), 'loaded', label);
    sameRows(label, await tableRows(page), inspectCsv(file));
    assert.deepEqual(page.errors, [], label);
    await page.close();
  }
});

test('options: ranks, include/exclude, sort and percentage mode as sp inspect takes them', async () => {
  const file = path.join(ROOT, 'tests/golden/mixed/expected/merged.h5');
  const page = await open(file);
  await showView(page, 'regions');
  const cases = [
    { ranks: '0-3', args: ['--ranks', '0-3'] },
    { include: 'A B', args: ['--include', 'A', 'B'] },
    { exclude: 'A', args: ['--exclude', 'A'] },
    { mode: 'exclusive', args: ['--percentage-mode', 'exclusive'], percent: false },
    { sort: 'total', args: ['--sort', 'total'] },
    { sort: 'p95', ranks: '1,2', args: ['--sort', 'p95', '--ranks', '1', '2'] },
  ];
  for (const c of cases) {
    await page.evaluate((c) => {
      const fs = SP.current;
      Object.assign(fs.opts, { include: '', exclude: '', ranks: '', sort: 'start', mode: 'coverage' }, c);
      SP.select(fs);
      SP.invalidate(fs);
    }, { include: c.include || '', exclude: c.exclude || '', ranks: c.ranks || '', sort: c.sort || 'start', mode: c.mode || 'coverage' });
    await settled(page);
    const csv = inspectCsv(file, c.args);
    sameRows(c.args.join(' '), await tableRows(page), csv, { percent: c.percent !== false });
    await sameCsv(page, c.args.join(' '), csv.text);
  }
  // Typing in the filter bar does the same.
  await page.evaluate(() => { Object.assign(SP.current.opts, { sort: 'start', mode: 'coverage' }); SP.select(SP.current); });
  await page.fill('#f-include', '');
  await page.fill('#f-ranks', '4-7');
  await page.waitForTimeout(400);
  await settled(page);
  sameRows('typed --ranks 4-7', await tableRows(page), inspectCsv(file, ['--ranks', '4-7']));
  await page.fill('#f-include', '(');
  await page.waitForTimeout(400);
  await settled(page);
  assert.match(await page.textContent('#view-regions'), /The pattern "\(" is not valid/);
  await page.close();
});

test('index rows equal sp inspect --flat; percentiles are read on demand', async () => {
  const file = path.join(ROOT, 'tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5');
  const page = await open(file, 'drop');
  await showView(page, 'regions');
  await page.click('.seg button:nth-child(2)');
  await settled(page);
  const rows = await tableRows(page);
  assert.equal(await page.evaluate(() => SP.current.data.table.source), 'index');
  const flat = inspectCsv(file, ['--flat']);
  sameRows('--flat', rows, flat);
  await sameCsv(page, '--flat', flat.text);
  assert.ok(await page.$('td.pending'), 'percentile cells wait for a click');
  await screenshot(page, '2-regions-index');
  const opened = await page.evaluate(() => SP.current.io);
  await page.click('text=compute percentiles');
  await page.waitForFunction(() => !SP.current.pctBusy && !document.querySelector('td.pending'));
  const pct = await page.evaluate(() => SP.current.pct);
  const withPct = inspectCsv(file, ['--flat', '--columns', 'p50', 'p95', 'p99']);
  for (const c of withPct.rows) {
    for (const k of ['p50', 'p95', 'p99']) {
      const want = c[k] === '' ? null : Number(c[k]);
      const got = pct[c.name] ? pct[c.name].v[k] : null;
      assert.equal(got, want, `${c.name} ${k}`);
    }
  }
  // The pass over every region's events reads each byte of the file at most once.
  const io = await page.evaluate(() => SP.current.io);
  assert.ok(io.reads > 0 && io.bytes - opened.bytes <= io.size, JSON.stringify([opened, io]));
  await page.close();
});

// Each region's sparkline as its definition gives it, from the calls `sp export json`
// writes: the window from the first start to the last end of every call, 40 columns of
// it, and in each the mean duration (s) of the calls starting there, null where none does.
function sparklinesOf(file) {
  const out = path.join(tmp, 'calls.json');
  sp(['export', 'json', file, '-o', out]);
  const rows = JSON.parse(fs.readFileSync(out, 'utf8')).regions;
  let t0 = Infinity, t1 = -Infinity;
  for (const r of rows) {
    for (const s of r.start_times_ns) t0 = Math.min(t0, s);
    for (const e of r.end_times_ns) t1 = Math.max(t1, e);
  }
  const width = t1 - t0 + 1;
  const lines = {};
  for (const r of rows) {
    const acc = lines[r.name] || (lines[r.name] = { sums: new Array(40).fill(0), counts: new Array(40).fill(0) });
    r.start_times_ns.forEach((s, i) => {
      const c = Math.floor((s - t0) * 40 / width);
      acc.sums[c] += r.end_times_ns[i] - s;
      acc.counts[c] += 1;
    });
  }
  return Object.fromEntries(Object.entries(lines).map(([name, a]) => [name, a.sums.map((sum, i) => (a.counts[i] ? sum / a.counts[i] / 1e9 : null))]));
}

test('each region row has a sparkline of its calls over the run, from the calls or with its percentiles', async () => {
  const file = path.join(ROOT, 'tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5');
  const want = sparklinesOf(file);
  const page = await open(file, 'drop');
  await showView(page, 'regions');
  // The calls are loaded: every row's sparkline comes at once.
  await page.waitForFunction(() => document.querySelectorAll('#region-table td.spark svg').length > 0);
  await settled(page);
  let got = await page.evaluate(() => Object.fromEntries(Object.entries(SP.current.spark).map(([k, v]) => [k, v.columns])));
  assert.deepEqual(got, want);
  const drawn = await page.$$eval('#region-table tbody tr:not(.own)', (trs) => trs.map((tr) => !!tr.querySelector('td.spark svg polyline, td.spark svg circle')));
  assert.ok(drawn.every(Boolean), 'every row draws its sparkline');
  await screenshot(page, '2-regions-sparklines');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, '2-regions-sparklines-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  // Index rows: the sparkline waits, and comes with the region's percentiles, from one read.
  await page.click('.seg button:nth-child(2)');
  await settled(page);
  assert.ok(await page.$('td.spark.pending'), 'index rows wait for their calls');
  const before = await page.evaluate(() => SP.current.io);
  await page.click('text=compute percentiles');
  await page.waitForFunction(() => !SP.current.pctBusy && !document.querySelector('td.pending'));
  got = await page.evaluate(() => Object.fromEntries(Object.entries(SP.current.spark).map(([k, v]) => [k, v.columns])));
  assert.deepEqual(got, want);
  const io = await page.evaluate(() => SP.current.io);
  assert.ok(io.bytes - before.bytes <= io.size, JSON.stringify([before, io]));
  await page.close();
});

test('overview, ranks, metadata: the views read well and a heatmap click selects rank and region', async () => {
  const file = path.join(ROOT, 'tests/golden/mixed/expected/merged.h5');
  const page = await open(file, 'drop');
  const overview = await page.textContent('#view-overview');
  assert.match(overview, /Wall time/);
  assert.match(overview, /B is unevenly distributed across ranks: rank 0 spends 700% more time/);
  await screenshot(page, '1-overview');
  await showView(page, 'regions');
  await screenshot(page, '2-regions');
  await showView(page, 'ranks');
  const lines = await page.$$eval('#balance-table tbody tr', (trs) => trs.map((t) => t.dataset.name));
  assert.deepEqual(lines, ['B', 'E', 'A', 'C', 'H', 'D']);
  // Click the cell of rank 2, region E (second line).
  const box = await page.locator('#heatmap').boundingBox();
  const geo = await page.evaluate(() => ({ label: SP.ranks.LABEL, axis: SP.ranks.AXIS, row: SP.ranks.ROW, n: SP.current.heat.n, w: document.querySelector('#heatmap').clientWidth }));
  const plotW = geo.w - geo.label - 8;
  await page.mouse.click(box.x + geo.label + (2.5 / geo.n) * plotW, box.y + geo.axis + 1.5 * geo.row);
  await page.waitForFunction(() => !document.querySelector('#heat-selection').hidden && document.querySelector('#heat-selection').dataset.rank === '2');
  const sel = await page.textContent('#heat-selection');
  assert.match(sel, /^Rank 2 in E: 70 ns, \+700\.0% against the mean of 8\.75 ns\./);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('#heat-selection').dataset.rank === '3');
  await screenshot(page, '3-ranks');
  await page.click('#heat-selection button');
  await settled(page);
  assert.equal(await page.inputValue('#f-ranks'), '3');
  assert.equal(await page.evaluate(() => SP.current.view), 'regions');
  await showView(page, 'metadata');
  assert.match(await page.textContent('#view-metadata'), /hostnamevm/);
  await screenshot(page, '4-metadata');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a heatmap of 10,000 ranks draws and selects', async () => {
  const file = manyRanksProfile(tmp, 10000);
  const page = await open(file);
  await showView(page, 'ranks');
  const n = await page.evaluate(() => SP.current.heat.n);
  assert.equal(n, 10000);
  const ms = await page.evaluate(() => { const t = performance.now(); SP.ranks.draw(SP.current); return performance.now() - t; });
  assert.ok(ms < 1000, `a redraw took ${ms} ms`);
  // Past 256 ranks the table adds each region's quartiles and names its outlier ranks: in
  // solve, the stragglers (rank % 997 == 13) farthest from the median.
  const heads = await page.$$eval('#balance-table thead th', (ths) => ths.map((t) => t.textContent));
  assert.ok(heads.includes('quartiles') && heads.includes('outlier ranks'), heads.join());
  const outliers = await page.textContent('#balance-table tr[data-name="solve"] td.outliers');
  const first = Number(/rank (\d+)/.exec(outliers)[1]);
  assert.equal(first % 997, 13, outliers);
  const box = await page.locator('#heatmap').boundingBox();
  const geo = await page.evaluate(() => ({ label: SP.ranks.LABEL, axis: SP.ranks.AXIS, row: SP.ranks.ROW }));
  // Zoom in around the middle, then click.
  for (let i = 0; i < 20; i++) await page.mouse.wheel(0, -100).catch(() => {});
  await page.mouse.move(box.x + geo.label + 300, box.y + geo.axis + 5);
  for (let i = 0; i < 20; i++) await page.mouse.wheel(0, -100);
  const view = await page.evaluate(() => SP.current.heatView);
  assert.ok(view.to - view.from < 10000, JSON.stringify(view));
  await page.mouse.click(box.x + geo.label + 300, box.y + geo.axis + 0.5 * geo.row);
  await page.waitForFunction(() => document.querySelector('#heat-selection') && !document.querySelector('#heat-selection').hidden);
  assert.match(await page.textContent('#heat-selection'), /^Rank \d+ in /);
  await screenshot(page, '3-ranks-10000');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('bad files get one sentence naming them, never a blank page', async () => {
  const text = path.join(tmp, 'notes.txt');
  fs.writeFileSync(text, 'these are notes, not a profile\n');
  const cut = path.join(tmp, 'cut.h5');
  fs.writeFileSync(cut, fs.readFileSync(path.join(ROOT, 'tests/golden/h5_python_rich/inputs/rich.h5')).subarray(0, 20000));
  const renamed = path.join(tmp, 'trace.bin');
  fs.copyFileSync(path.join(ROOT, 'tests/golden/c_trace/inputs/profile_rank00000.spt'), renamed);
  const cases = [
    [text, /^notes\.txt is not an HDF5 file: it has no HDF5 signature\.$/],
    [cut, /^cut\.h5 is truncated: .*passes the end of the file \(20000 bytes\).*\.$/],
    [renamed, /^trace\.bin is a scope-profiler native trace, not a profile: give it a \.spt name and drop it/],
    [unsupportedFilterProfile(), /^unsupported_filter\.h5 uses an HDF5 feature this page cannot read: \/rank_region_index\/ranks: filter 32001 \(blosc\) is not supported\.$/],
  ];
  for (const [file, want] of cases) {
    const page = await open(file);
    assert.equal(await page.isVisible('#error'), true, file);
    assert.match(await page.textContent('#error'), want);
    assert.equal(await page.isVisible('#welcome'), true, 'the first screen stays');
    if (file === cut) await screenshot(page, '6-error');
    await page.close();
  }
});

test('any other HDF5 file opens its raw view, as sp ls --data lists it', async () => {
  const files = ['groups_latest.h5', 'types_latest.h5', 'netcdf4.h5', 'references_latest.h5', 'unsupported.h5', 'filters_latest.h5']
    .map((f) => path.join(ROOT, 'tests/corpus', f));
  for (const file of files) {
    const label = path.basename(file);
    const page = await open(file, file.endsWith('netcdf4.h5') ? 'drop' : 'input');
    assert.match(await page.textContent('#notice'), new RegExp('^' + label.replace('.', '\\.') + ' is an HDF5 file but not a scope-profiler profile'));
    assert.equal(await page.evaluate(() => SP.current.view), 'raw');
    await sameListing(page, label, file);
    // Only the raw view applies.
    assert.equal(await page.isDisabled('#views [data-view="regions"]'), true);
    if (label === 'unsupported.h5') {
      assert.match(await page.textContent('#view-raw'), /could not be read/);
      await screenshot(page, '5-raw-unsupported');
    }
    if (label === 'types_latest.h5') await screenshot(page, '5-raw');
    assert.deepEqual(page.errors, [], label);
    await page.close();
  }
});

test('a profile has its HDF5 tree as a tab', async () => {
  const file = path.join(ROOT, 'tests/golden/mixed/expected/merged.h5');
  const page = await open(file);
  await showView(page, 'raw');
  await sameListing(page, 'merged.h5', file);
  assert.match(await page.textContent('#raw-table'), /summary_statistics/);
  await screenshot(page, '5-raw-profile');
  // Folding a group hides what is under it.
  await page.click('#raw-table tr[data-path="/rank_region_index"] .tree');
  assert.equal(await page.$('#raw-table tr[data-path="/rank_region_index/ranks"]'), null);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('lzf and zstd profiles: tables, percentiles from compressed events, and the filters listed', async () => {
  for (const [file, filter] of [
    ['tests/golden/h5_python_lzf/inputs/lzf.h5', 'lzf(32000)'],
    ['tests/golden/h5_python_zstd/inputs/zstd.h5', 'zstd(32015)'],
  ].map(([f, x]) => [path.join(ROOT, f), x])) {
    const label = path.basename(file);
    const page = await open(file, 'drop');
    await showView(page, 'regions');
    const csv = inspectCsv(file);
    sameRows(label, await tableRows(page), csv);
    await sameCsv(page, label, csv.text);
    // The index rows' percentiles decode the compressed event chunks in the worker.
    await page.click('.seg button:nth-child(2)');
    await settled(page);
    await page.click('text=compute percentiles');
    await page.waitForFunction(() => !SP.current.pctBusy && !document.querySelector('td.pending'));
    const pct = await page.evaluate(() => SP.current.pct);
    const want = inspectCsv(file, ['--flat', '--columns', 'p50', 'p95', 'p99']);
    for (const c of want.rows) {
      for (const k of ['p50', 'p95', 'p99']) {
        assert.equal(pct[c.name] ? pct[c.name].v[k] : null, c[k] === '' ? null : Number(c[k]), `${label}: ${c.name} ${k}`);
      }
    }
    await showView(page, 'raw');
    assert.match(await page.textContent('#raw-table tr[data-path="/events/durations"]'), new RegExp('shuffle\\+' + filter.replace(/[()]/g, '\\$&')));
    assert.deepEqual(page.errors, [], label);
    await page.close();
  }
});

test('the shipped C example, as the README shows it', async () => {
  const file = path.join(tmp, 'run.h5');
  sp(['convert', path.join(ROOT, 'examples/c_multirank'), '-o', file, '-q'], ROOT);
  const page = await open(file);
  await showView(page, 'regions');
  sameRows('examples/c_multirank', await tableRows(page), inspectCsv(file));
  await page.click('#region-table tbody tr[data-name="descend"]');
  await page.setViewportSize({ width: 1180, height: 430 });
  await screenshot(page, 'readme');
  await page.close();
});

// "350 ns", "1.2 ms" … as seconds.
const seconds = (text) => {
  const m = /^([\d.,]+) (ns|µs|ms|s)$/.exec(text);
  assert.ok(m, `not a duration: ${text}`);
  return Number(m[1].replace(/,/g, '')) * { ns: 1e-9, µs: 1e-6, ms: 1e-3, s: 1 }[m[2]];
};

test('a selected region shows its detail: each rank as sp inspect --flat --ranks R, most time first', async () => {
  const file = path.join(tmp, 'detail.h5');
  sp(['convert', path.join(ROOT, 'examples/c_multirank'), '-o', file, '-q'], ROOT);
  const page = await open(file);
  await showView(page, 'regions');
  await page.click('#region-table tbody tr[data-name="descend"]');
  await page.waitForSelector('#region-detail:not([hidden]) tbody tr');
  const detail = await page.$eval('#region-detail', (p) => ({
    head: p.querySelector('header').textContent,
    rows: Array.from(p.querySelectorAll('tbody tr'), (tr) => Array.from(tr.cells, (td) => td.textContent)),
  }));
  assert.match(detail.head, /^descend · \d+ ranks/);
  assert.ok(detail.rows.length > 1, 'the ranks of descend');
  const totals = detail.rows.map((r) => seconds(r[2]));
  assert.deepEqual(totals, [...totals].sort((a, b) => b - a), 'the ranks with the most time first');
  for (const [rank, calls, total, avg, min, max] of detail.rows) {
    const cli = inspectCsv(file, ['--flat', '--ranks', rank]).rows.find((r) => r.name === 'descend');
    assert.equal(calls.replace(/,/g, ''), cli.calls, `rank ${rank}: calls`);
    for (const [text, key] of [[total, 'total'], [avg, 'avg'], [min, 'min'], [max, 'max']]) {
      const want = Number(cli[key]);
      assert.ok(Math.abs(seconds(text) - want) <= want * 0.01, `rank ${rank} ${key}: ${text} against ${want}`);
    }
  }
  // Its histogram: the counts `sp export plot-data --plots histogram --bins 40` writes for
  // this region alone.
  await page.waitForSelector('#region-detail .hist .bars span');
  const bars = await page.$$eval('#region-detail .hist .bars span', (s) => s.map((e) => e.title));
  const dir = path.join(tmp, 'detail-histogram');
  sp(['export', 'plot-data', file, '-o', dir, '--plots', 'histogram', '--bins', '40', '--include', 'descend$'], ROOT);
  const lines = fs.readFileSync(path.join(dir, 'histogram_data.csv'), 'utf8').trim().split('\n').slice(1);
  assert.deepEqual(bars, lines.map((l) => Number(l.split(',').pop()).toLocaleString('en-US') + ' calls'));
  await screenshot(page, 'region-detail-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'region-detail-dark');
  await page.click('#region-detail .x');
  assert.equal(await page.$eval('#region-detail', (p) => p.hidden), true);
  await page.close();
});

test('a region\'s detail names its tags, as the profile stores them', async () => {
  const page = await open(path.join(ROOT, 'tests/corpus/golden/python_rich_rich.h5'));
  await showView(page, 'regions');
  const head = async (name) => {
    await page.click(`#region-table tbody tr[data-name="${name}"]`);
    await page.waitForFunction((n) => { const p = document.querySelector('#region-detail'); return !p.hidden && p.querySelector('header').textContent.startsWith(n + ' ·'); }, name);
    return page.$eval('#region-detail header', (h) => h.textContent);
  };
  assert.match(await head('solve'), / · tags a, b\b/);
  assert.doesNotMatch(await head('io'), /tags/);
  await page.close();
});
