// Drops a folder of profiles on the page at once, as a user drops a series of runs, and
// prints what issue 37's Runs target is about: the time from the drop to the runs table
// drawn (100 profiles of W3's size: 2,048 ranks x 20 regions x 50 calls, in <= 2 s), the
// worker's time for the table, the tab's memory, and the time of one option change (the
// baseline), each over --rounds fresh pages.
//
//   node web/bench/runs.mjs DIR [--rounds N] [--count N]
//
// DIR holds the profiles (*.h5; the first --count of them, default all, in name order).
// 100 hard links of one W3 profile under different names are enough: the page reads each
// as its own File. Make W3 with sp-workload and sp convert (docs/benchmarks.md). Needs
// web/dist/sp.html (scripts/build-web.sh). Not a test: it prints figures and checks only
// that the table holds one row per profile.
import fs from 'node:fs';
import path from 'node:path';
import { dropFiles, launch, openPage, rendererMiB, settled } from '../e2e/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const dir = args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
if (!dir) {
  console.error('usage: node web/bench/runs.mjs DIR [--rounds N] [--count N]');
  process.exit(2);
}
const rounds = Number(opt('--rounds', '3'));
let files = fs.readdirSync(dir).filter((f) => f.endsWith('.h5')).sort().map((f) => path.join(dir, f));
files = files.slice(0, Number(opt('--count', String(files.length))));
const MiB = 1024 * 1024;

// The runs table's rows drawn and no request in flight.
const drawn = (page, n) => page.waitForFunction((rows) => SP.pending.size === 0
  && document.querySelectorAll('#runs-table tbody tr').length === rows
  && !document.querySelector('#runs-scaling .hint'), n, { timeout: 600000, polling: 20 });

const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`runs bench: ${files.length} profiles of ${(fs.statSync(files[0]).size / MiB).toFixed(0)} MiB; load average ${load()}`);
for (let round = 0; round < rounds; round++) {
  const browser = await launch();
  const browserPid = browser.process ? browser.process().pid : null;
  try {
    const page = await openPage(browser);
    await page.waitForFunction(() => SP.ready);
    await page.evaluate(() => SP.ready);
    // Each request's worker time, by op.
    await page.evaluate(() => {
      const rpc = SP.rpc;
      SP.benchMs = {};
      SP.rpc = async (op, ...rest) => {
        const reply = await rpc(op, ...rest);
        const m = SP.benchMs[op] || (SP.benchMs[op] = { n: 0, ms: 0, readMs: 0 });
        m.n++;
        m.ms += reply.ms || 0;
        m.readMs += reply.readMs || 0;
        return reply;
      };
    });
    const idle = rendererMiB(browserPid);
    const t0 = Date.now();
    await dropFiles(page, files);
    await drawn(page, files.length);
    const openMs = Date.now() - t0;
    const opened = await page.evaluate(() => ({
      opened: SP.timing.opened - SP.timing.start,
      heap: SP.current.heap,
      ms: SP.benchMs,
      io: SP.files.reduce((s, f) => s + (f.io ? f.io.bytes : 0), 0),
      reads: SP.files.reduce((s, f) => s + (f.io ? f.io.reads : 0), 0),
    }));
    await settled(page);
    const atTable = rendererMiB(browserPid);
    // One option change: the baseline moves to the second run.
    await page.evaluate(() => { SP.benchMs = {}; });
    const t1 = Date.now();
    await page.selectOption('#runs-baseline', { index: 1 });
    await page.waitForFunction(() => document.querySelector('#runs-table tbody tr.baseline')
      === document.querySelectorAll('#runs-table tbody tr')[1] && SP.pending.size === 0
      && !document.querySelector('#runs-scaling .hint'), null, { timeout: 600000, polling: 20 });
    const baselineMs = Date.now() - t1;
    const change = await page.evaluate(() => SP.benchMs);
    const ops = (m) => Object.entries(m).map(([op, { n, ms, readMs }]) => `${op} ${n}x ${ms.toFixed(0)} ms (reads ${readMs.toFixed(0)} ms)`).join(', ');
    console.log(`round ${round + 1}: drop -> runs table drawn ${openMs} ms (last file open at ${opened.opened.toFixed(0)} ms; `
      + `${(opened.io / MiB).toFixed(1)} MiB read in ${opened.reads} reads); worker: ${ops(opened.ms)}`);
    console.log(`  tab (renderer PSS) ${idle.pss.toFixed(0)} MiB idle, ${atTable.pss.toFixed(0)} MiB with the table (RSS ${atTable.rss.toFixed(0)}); wasm memory ${(opened.heap / MiB).toFixed(0)} MiB`);
    console.log(`  baseline change: ${baselineMs} ms; worker: ${ops(change)}`);
  } finally {
    await browser.close();
  }
}
