// Opens a W2-size profile (bench/: 32 ranks x 50 regions x 40,000 calls, 64 M events,
// about 1 GB) in the page, as a user would by dropping it, and prints what the issue's
// targets are about: the time from the drop to the first region table, the bytes read by
// then, and the tab's memory; then the same after the other views, and after computing
// every region's percentiles (which reads every event). Beside them, the CLI's figures on
// the same file.
//
//   node web/bench/open.mjs [--scale F] [--workdir DIR] [--keep] [--profile W2.h5]
//
// Builds sp, sp-workload and the page if needed. The profile is generated under --workdir
// (default: a new directory under the system's temp dir) and deleted afterwards unless
// --keep, or is --profile's, made before. Not a test: it prints figures and checks nothing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, TARGET, dropFiles, launch, openPage, rendererMiB, settled } from '../e2e/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const scale = opt('--scale', '1');
const keep = args.includes('--keep');
const work = opt('--workdir', null) || fs.mkdtempSync(path.join(os.tmpdir(), 'sp-web-bench-'));
const MiB = 1024 * 1024;

function run(cmd, argv, options = {}) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28, ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')}: ${r.stderr}`);
  return { out: r.stdout, err: r.stderr, ms: Number(process.hrtime.bigint() - t) / 1e6 };
}

// Wall time and peak RSS of a command, through /usr/bin/time.
function measured(cmd, argv) {
  const r = run('/usr/bin/time', ['-f', '%e %M', cmd, ...argv]);
  const [secs, kib] = r.err.trim().split('\n').pop().split(' ').map(Number);
  return { s: secs, rssMiB: kib / 1024 };
}

const sp = path.join(TARGET, 'release/sp');
const workload = path.join(TARGET, 'release/sp-workload');
console.log(`bench: building sp, sp-workload and the page`);
run('cargo', ['build', '--release', '--quiet', '--bin', 'sp']);
run('cargo', ['build', '--release', '--quiet', '-p', 'sp-bench', '--bin', 'sp-workload']);
run(path.join(ROOT, 'scripts/build-web.sh'), []);

const traces = path.join(work, 'traces');
const given = opt('--profile', null);
const profile = given || path.join(work, 'w2.h5');
try {
  if (!given) {
    console.log(`bench: generating W2 (scale ${scale}) in ${work}`);
    run(workload, ['W2', traces, '--scale', scale]);
    const convert = run(sp, ['convert', traces, '-o', profile, '-q']);
    fs.rmSync(traces, { recursive: true, force: true });
    console.log(`bench: ${path.basename(profile)}: ${(fs.statSync(profile).size / MiB).toFixed(0)} MiB (sp convert ${(convert.ms / 1000).toFixed(1)} s)`);
  }
  const size = fs.statSync(profile).size;

  const cliIndex = measured(sp, ['inspect', profile, '--flat', '--format', 'csv']);
  const cliEvents = measured(sp, ['inspect', profile, '--flat', '--columns', 'p50', 'p95', 'p99', '--format', 'csv']);

  const browser = await launch();
  const browserPid = browser.process ? browser.process().pid : null;
  const page = await openPage(browser);
  await page.evaluate(() => { SP.firstView = 'regions'; });
  await page.waitForFunction(() => SP.ready);
  await page.evaluate(() => SP.ready);
  const idle = rendererMiB(browserPid);
  await dropFiles(page, [profile]);
  await page.waitForFunction(() => SP.timing.firstPaint !== undefined, null, { timeout: 120000 });
  const first = await page.evaluate(() => ({
    table: SP.timing.firstTable - SP.timing.start,
    paint: SP.timing.firstPaint - SP.timing.start,
    io: SP.timing.firstTableIo,
    heap: SP.timing.firstTableHeap,
    rows: document.querySelectorAll('#region-table tbody tr').length,
  }));
  const atFirst = rendererMiB(browserPid);
  await settled(page);
  // Each view switch, from the call to the frame after the view is drawn: the first visit
  // (its data asked of the worker) and a later one.
  const switchMs = {};
  for (const round of [0, 1]) {
    for (const view of ['overview', 'ranks', 'metadata', 'raw', 'regions']) {
      const ms = await page.evaluate(async (v) => {
        const t = performance.now();
        await SP.show(v);
        await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        return performance.now() - t;
      }, view);
      (switchMs[view] = switchMs[view] || []).push(ms);
      await settled(page);
    }
  }
  const views = await page.evaluate(() => ({ io: SP.current.io, heap: SP.current.heap }));
  const atViews = rendererMiB(browserPid);
  // Index rows get their percentiles from the events on demand (a call tree has them).
  const lazy = await page.evaluate(() => SP.current.data.table.source === 'index');
  const t0 = Date.now();
  if (lazy) {
    await page.click('text=compute percentiles');
    await page.waitForFunction(() => !SP.current.pctBusy && !document.querySelector('td.pending'), null, { timeout: 3600000, polling: 500 });
  }
  const pctMs = Date.now() - t0;
  const pct = await page.evaluate(() => ({ io: SP.current.io, heap: SP.current.heap, tree: SP.current.tree }));
  const atPct = rendererMiB(browserPid);
  await browser.close();

  const mib = (b) => (b / MiB).toFixed(2) + ' MiB';
  console.log('');
  console.log(`W2 profile: ${(size / MiB).toFixed(0)} MiB, ${(64 * Number(scale)).toFixed(1)} M events${scale === '1' ? '' : ` (scale ${scale})`}`);
  console.log(`page, drop -> first region table data: ${first.table.toFixed(0)} ms; drawn: ${first.paint.toFixed(0)} ms (${first.rows} rows)`);
  console.log(`page, read by then: ${mib(first.io.bytes)} in ${first.io.reads} reads; wasm memory ${mib(first.heap)}`);
  const mem = (m) => `${m.pss.toFixed(0)} MiB (RSS ${m.rss.toFixed(0)})`;
  console.log(`page, tab memory (renderer PSS): ${mem(idle)} before the drop, ${mem(atFirst)} at the first table, ${mem(atViews)} after every view (${mib(views.io.bytes)} read)`);
  if (lazy) console.log(`page, percentiles of every region: ${(pctMs / 1000).toFixed(1)} s, ${mib(pct.io.bytes)} read in ${pct.io.reads} reads, wasm memory ${mib(pct.heap)}, tab ${mem(atPct)}`);
  else console.log(`page, call tree read (${pct.tree}): ${mib(pct.io.bytes)} read, wasm memory ${mib(pct.heap)}, tab ${mem(atPct)}`);
  const worst = Math.max(...Object.values(switchMs).flat());
  console.log(`page, view switch (first visit / again): ${Object.entries(switchMs).map(([v, [a, b]]) => `${v} ${a.toFixed(0)} / ${b.toFixed(0)} ms`).join(', ')}`);
  console.log(`CLI, sp inspect --flat (index only): ${cliIndex.s.toFixed(2)} s, peak RSS ${cliIndex.rssMiB.toFixed(0)} MiB`);
  console.log(`CLI, sp inspect --flat --columns p50 p95 p99 (every event): ${cliEvents.s.toFixed(2)} s, peak RSS ${cliEvents.rssMiB.toFixed(0)} MiB`);
  console.log(`targets: first table <= 300 ms: ${first.paint <= 300 ? 'met' : 'MISSED'}; < 1 MiB read: ${first.io.bytes < MiB ? 'met' : 'MISSED'}; tab < 300 MB: ${Math.max(atFirst.pss, atViews.pss, atPct.pss) * MiB < 300e6 ? 'met' : 'MISSED'}; every view switch <= 50 ms: ${worst <= 50 ? 'met' : 'MISSED'}`);
} finally {
  if (!keep) fs.rmSync(work, { recursive: true, force: true });
  else console.log(`bench: kept ${work}`);
}
