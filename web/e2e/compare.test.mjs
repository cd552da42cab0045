// Compare: two profiles dropped together (or one opened beside another) are compared as
// `sp diff` and `sp check` compare them. The rows the page draws, its Download CSV and its
// PASS/FAIL badge equal the CLI's output and exit status for the same options.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, SP_BIN, download, dropFiles, launch, openPage, screenshot, setFiles, settled, sp } from './harness.mjs';

const GZIP_TRACES = 'tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5';
const MERGE_GZIP = 'tests/golden/merge_gzip/expected/merged.h5';
const C_TRACE = 'tests/golden/c_trace/expected/profiling_data.h5';
const FORTRAN = 'tests/golden/fortran/expected/profiling_data.h5';
const MIXED = 'tests/golden/mixed/expected/merged.h5';
const MIXED_TRACES = 'tests/golden/h5_mixed_with_traces/expected/mixed.h5';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

// Waits until the Compare view shows the answer for its current state.
async function compared(page) {
  await settled(page);
  await page.waitForFunction(() => {
    const fs = SP.current;
    if (!fs || fs.view !== 'compare' || !fs.data.compare) return false;
    const key = JSON.stringify(SP.compare.args(fs, SP.compare.state(fs)));
    return fs.data.compare.key === key && !!document.querySelector('#compare-badge, #compare-body .error');
  }, null, { timeout: 60000 });
}

// Sets a control of the Compare view and waits for the new answer.
async function set(page, selector, value) {
  if (typeof value === 'boolean') {
    if ((await page.isChecked(selector)) !== value) await page.click(selector);
  } else if (await page.$eval(selector, (e) => e.tagName === 'SELECT')) {
    await page.selectOption(selector, value);
  } else {
    await page.fill(selector, value);
    await page.$eval(selector, (e) => e.dispatchEvent(new Event('change')));
  }
  await compared(page);
}

// `sp ARGS…` in the repository root: exit status and stdout.
function run(args) {
  const r = spawnSync(SP_BIN, args, { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`sp ${args.join(' ')}: ${r.stderr}`);
  return { status: r.status, stdout: r.stdout };
}

// The rows drawn in the table, in order, with their raw values.
const domRows = (page) => page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => {
  const v = (k) => { const d = tr.querySelector(`td[data-k="${k}"]`).dataset.v; return d === '' ? null : Number(d); };
  return { name: tr.dataset.name, a: v('a'), b: v('b'), delta: v('delta'), pct: v('pct'), violation: tr.classList.contains('violation') };
}));

// The page's rows, lists, CSV and badge equal `sp diff` and `sp check` for the options.
async function sameAsCli(page, label, a, b, { metric, threshold = null, budget, failOnNew = false, ranks = null, order = 'delta' }) {
  const common = [a, b, '--metric', metric, ...(ranks ? ['--ranks', ranks] : [])];
  const diffArgs = ['diff', ...common, '--sort', order, ...(threshold === null ? [] : ['--threshold', String(threshold)])];
  const want = JSON.parse(sp([...diffArgs, '--format', 'json'], ROOT));
  const rows = await domRows(page);
  assert.deepEqual(rows.map((r) => r.name), want.rows.map((r) => r.name), `${label}: rows`);
  rows.forEach((r, i) => {
    for (const k of ['a', 'b', 'delta', 'pct']) assert.equal(r[k], want.rows[i][k], `${label}: ${r.name} ${k}`);
  });
  const only = (side) => page.$$eval(`#compare-only-${side} a`, (as) => as.map((x) => x.textContent));
  assert.deepEqual(await only('a'), want.only_in_a, `${label}: only in a`);
  assert.deepEqual(await only('b'), want.only_in_b, `${label}: only in b`);
  const csv = await download(page, '#compare-csv');
  assert.equal(csv.bytes.toString('utf8'), sp([...diffArgs, '--format', 'csv'], ROOT), `${label}: Download CSV`);
  // The badge: sp check's exit status (0 pass, 1 fail) and its violations.
  const checkArgs = ['check', ...common, '--max-regression', String(budget), ...(failOnNew ? ['--fail-on-new'] : [])];
  const check = run([...checkArgs, '--format', 'json']);
  const verdict = await page.$eval('#compare-badge', (e) => e.dataset.verdict);
  assert.equal(verdict, check.status === 0 ? 'pass' : 'fail', `${label}: badge against exit ${check.status}`);
  const doc = JSON.parse(check.stdout);
  assert.equal(doc.passed, check.status === 0);
  const marked = rows.filter((r) => r.violation).map((r) => r.name).sort();
  const violating = new Set(doc.violations);
  assert.deepEqual(marked, rows.map((r) => r.name).filter((n) => violating.has(n)).sort(), `${label}: marked rows`);
  const shown = await page.evaluate(() => SP.current.data.compare.check.violations);
  assert.deepEqual(shown, doc.violations, `${label}: violations`);
  return check.status;
}

test('two profiles dropped together compare as sp diff and sp check', async () => {
  const page = await openPage(browser);
  await dropFiles(page, [path.join(ROOT, GZIP_TRACES), path.join(ROOT, MERGE_GZIP)]);
  await compared(page);
  const sides = await page.evaluate(() => { const st = SP.compare.state(SP.current); return [st.a.name, st.b.name]; });
  assert.deepEqual(sides, ['h5_gzip_with_traces.h5', 'merged.h5']);
  const a = GZIP_TRACES;
  const b = MERGE_GZIP;
  // Regions only in b (A, B): they pass unless new regions fail.
  assert.equal(await sameAsCli(page, 'gzip total', a, b, { metric: 'total', budget: 0 }), 0);
  await set(page, '#compare-fail-on-new', true);
  assert.equal(await sameAsCli(page, 'gzip total, new fail', a, b, { metric: 'total', budget: 0, failOnNew: true }), 1);
  await set(page, '#compare-fail-on-new', false);
  // Percentiles read from the calls: only in a gains solve and io (no calls in b).
  await set(page, '#compare-metric', 'p95');
  await sameAsCli(page, 'gzip p95', a, b, { metric: 'p95', budget: 0 });
  const onlyA = await page.$$eval('#compare-only-a a', (as) => as.map((x) => x.textContent));
  assert.deepEqual(onlyA, ['solve', 'io']);
  await set(page, '#compare-metric', 'calls');
  await sameAsCli(page, 'gzip calls', a, b, { metric: 'calls', budget: 0 });
  // The Ranks filter pools the same ranks as --ranks.
  await page.fill('#f-ranks', '0');
  await page.waitForFunction(() => SP.current.opts.ranks === '0');
  await compared(page);
  await sameAsCli(page, 'gzip calls, rank 0', a, b, { metric: 'calls', budget: 0, ranks: '0' });
  assert.deepEqual(page.errors, []);
  assert.deepEqual(page.network, []);
  await page.close();
});

test('a budget that passes and one that fails, a threshold, and sorting', async () => {
  // Both runs are named profiling_data.h5: copies under their own names.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-web-compare-'));
  const [cRun, fortranRun] = [path.join(tmp, 'c_run.h5'), path.join(tmp, 'fortran_run.h5')];
  fs.copyFileSync(path.join(ROOT, C_TRACE), cRun);
  fs.copyFileSync(path.join(ROOT, FORTRAN), fortranRun);
  const page = await openPage(browser, { width: 1100, height: 560 });
  await setFiles(page, [cRun]);
  await settled(page);
  // A second profile while one is open: the page offers to compare it with the first.
  await setFiles(page, [fortranRun]);
  await settled(page);
  assert.match(await page.textContent('#compare-offer'), /fortran_run\.h5 is open beside c_run\.h5/);
  await page.click('#compare-offer-go');
  await compared(page);
  // fib_call is 26 % slower in the Fortran run: a 10 % budget fails, 30 % passes.
  await set(page, '#compare-budget', '10');
  assert.equal(await sameAsCli(page, 'c/fortran 10%', C_TRACE, FORTRAN, { metric: 'total', budget: 10 }), 1);
  assert.match(await page.textContent('#compare-badge'), /^FAIL2 regions are over the budget of \+10% \(total\): fib_call, fibonacci\.$/);
  await screenshot(page, 'compare-fail');
  await set(page, '#compare-budget', '30');
  assert.equal(await sameAsCli(page, 'c/fortran 30%', C_TRACE, FORTRAN, { metric: 'total', budget: 30 }), 0);
  await set(page, '#compare-threshold', '5');
  await sameAsCli(page, 'c/fortran threshold 5', C_TRACE, FORTRAN, { metric: 'total', threshold: 5, budget: 30 });
  assert.match(await page.textContent('#compare-body .toolbar'), /3 regions · 2 under the threshold hidden/);
  await set(page, '#compare-metric', 'p95');
  await sameAsCli(page, 'c/fortran p95', C_TRACE, FORTRAN, { metric: 'p95', threshold: 5, budget: 30 });
  // Sorting: by name (sp diff --sort name), then by b, largest first, then reversed.
  await page.click('#compare-table th[data-sort="name"]');
  await compared(page);
  const byName = JSON.parse(sp(['diff', C_TRACE, FORTRAN, '--metric', 'p95', '--threshold', '5', '--sort', 'name', '--format', 'json'], ROOT));
  assert.deepEqual((await domRows(page)).map((r) => r.name), byName.rows.map((r) => r.name));
  await page.click('#compare-table th[data-sort="b"]');
  await compared(page);
  const byB = (await domRows(page)).map((r) => r.b);
  assert.equal(byB.length, 4);
  assert.deepEqual(byB, byB.slice().sort((x, y) => y - x));
  await page.click('#compare-table th[data-sort="b"]');
  await compared(page);
  assert.deepEqual((await domRows(page)).map((r) => r.b), byB.slice().reverse());
  // A negative budget is refused, in the words of the library.
  await set(page, '#compare-budget', '-1');
  assert.equal(await page.$eval('#compare-badge', (e) => e.dataset.verdict), 'error');
  assert.match(await page.textContent('#compare-badge'), /the maximum regression must be non-negative, not -1%/);
  // A row's b link shows the region in b's region table.
  await set(page, '#compare-budget', '30');
  await page.click('#compare-table tr[data-name="fib_call"] .goto a:last-child');
  await settled(page);
  assert.equal(await page.evaluate(() => SP.current.view), 'regions');
  assert.equal(await page.$eval('#region-table tr.selected', (tr) => tr.dataset.name), 'fib_call');
  assert.deepEqual(page.errors, []);
  await page.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('the compare state is kept in the URL hash; key 7; screenshots light and dark', async () => {
  const page = await openPage(browser);
  await dropFiles(page, [path.join(ROOT, MIXED), path.join(ROOT, MIXED_TRACES)]);
  await compared(page);
  await set(page, '#compare-metric', 'max');
  await set(page, '#compare-budget', '5');
  await set(page, '#compare-threshold', '1');
  await page.click('#compare-table th[data-sort="pct"]');
  await compared(page);
  await sameAsCli(page, 'mixed max', MIXED, MIXED_TRACES, { metric: 'max', threshold: 1, budget: 5, order: 'pct' });
  await page.waitForTimeout(250);
  const hash = Object.fromEntries(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)));
  assert.deepEqual(hash, {
    file: 'mixed.h5', view: 'compare', mode: 'coverage', sort: 'start',
    cmpa: 'merged.h5', cmpb: 'mixed.h5', metric: 'max', threshold: '1', budget: '5', csort: 'pct',
  });
  await screenshot(page, 'compare');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(100);
  await screenshot(page, 'compare-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  // The link, reloaded, with both files dropped again: the same comparison.
  await page.reload();
  await page.waitForFunction(() => typeof SP !== 'undefined' && SP.ready !== null);
  await dropFiles(page, [path.join(ROOT, MIXED), path.join(ROOT, MIXED_TRACES)]);
  await compared(page);
  const st = await page.evaluate(() => { const s = SP.compare.state(SP.current); return [s.a.name, s.b.name, s.metric, s.threshold, s.budget, s.sort]; });
  assert.deepEqual(st, ['merged.h5', 'mixed.h5', 'max', '1', '5', 'pct']);
  await sameAsCli(page, 'mixed max, reloaded', MIXED, MIXED_TRACES, { metric: 'max', threshold: 1, budget: 5, order: 'pct' });
  // 1 leaves for the overview, 7 comes back; ? lists the key.
  await page.keyboard.press('1');
  await settled(page);
  await page.keyboard.press('7');
  await compared(page);
  assert.equal(await page.evaluate(() => SP.current.view), 'compare');
  await page.keyboard.press('?');
  assert.match(await page.textContent('#keymap'), /Timeline, Compare/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
