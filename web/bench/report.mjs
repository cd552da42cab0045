// `sp report` on W1 (8 ranks x 40 regions x 10,000 calls, a 49 MiB profile: the issue's
// "48 MB class"), with every event embedded, and the report opened from disk in headless
// Chromium: the time to write it, its size, and the time from navigation to the Overview
// drawn with its data. Targets (issue 20): written in <= 2 s, <= 80 MB, open in <= 2 s.
// With --profile FILE, that profile instead of W1; --events never gives the index-only report
// (issue 36: W2's <= 2 MB, open in <= 2 s).
//
//   node web/bench/report.mjs [--workdir DIR] [--keep] [--profile FILE] [--events MODE]
//
// Needs target/release/sp (or $SP_BIN), sp-workload and web/dist/sp.html. Not a test: it
// prints figures and checks nothing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PAGE, ROOT, SP_BIN, TARGET, launch } from '../e2e/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const keep = args.includes('--keep');
const work = opt('--workdir', null) || fs.mkdtempSync(path.join(os.tmpdir(), 'sp-report-bench-'));
const MiB = 1024 * 1024;

function run(cmd, argv) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const workload = path.join(TARGET, 'release/sp-workload');
const traces = path.join(work, 'w1');
const profile = opt('--profile', null) || path.join(work, 'w1.h5');
const events = opt('--events', 'always');
const report = path.join(work, 'w1-report.html');
if (!fs.existsSync(profile)) {
  run(workload, ['W1', traces]);
  run(SP_BIN, ['convert', traces, '-o', profile, '-q']);
}
const writes = [1, 2, 3].map(() => run(SP_BIN, ['report', profile, '-o', report, '--page', PAGE, '--events', events]));
const browser = await launch();
const opens = [];
for (let i = 0; i < 3; i++) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const t = Date.now();
  await page.goto(pathToFileURL(report).href);
  await page.waitForFunction(() => typeof SP !== 'undefined' && SP.current && !SP.current.starting
    && document.querySelector('#view-overview .kpi'), null, { timeout: 120000 });
  opens.push(Date.now() - t);
  await page.close();
}
await browser.close();
const median = (xs) => [...xs].sort((a, b) => a - b)[1];
console.log(`profile ${(fs.statSync(profile).size / MiB).toFixed(1)} MiB; report ${(fs.statSync(report).size / MiB).toFixed(1)} MiB`);
console.log(`sp report: median ${median(writes).toFixed(0)} ms (${writes.map((x) => x.toFixed(0)).join(', ')})`);
console.log(`open to the Overview: median ${median(opens)} ms (${opens.join(', ')})`);
if (!keep) fs.rmSync(work, { recursive: true, force: true });
