// The page's Timeline on a large profile (issue 36's targets on W2: lanes drawn within 5 s
// of the key, the tab within 512 MiB, a zoom to a 10 ms window within 300 ms): drops the
// profile, waits for the region table, presses `6` and times it until the lanes are drawn,
// then the tab's memory; then jumps to a window of about 1 s and of 10 ms in the middle of
// the run (and back to the whole run), and from the whole run straight to a 10 ms window
// at a quarter of it, timing each. Prints one line of figures per step; with --shots DIR,
// a screenshot of each view (whole.png, 1s.png, 10ms.png).
//
//   node web/bench/timeline.mjs PROFILE.h5 [--shots DIR]
//
// Needs web/dist/sp.html (scripts/build-web.sh). Not a test: it checks nothing.
import path from 'node:path';
import { dropFiles, launch, openPage, rendererMiB, settled } from '../e2e/harness.mjs';

const args = process.argv.slice(2);
const profile = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--shots');
const shotsAt = args.indexOf('--shots');
const shots = shotsAt >= 0 ? args[shotsAt + 1] : null;
if (!profile) {
  console.error('usage: node web/bench/timeline.mjs PROFILE.h5 [--shots DIR]');
  process.exit(2);
}

const drawn = (page) => page.waitForFunction(() => !SP.timeline.busy && !SP.timeline.again && SP.current.tl && SP.current.tl.data && SP.current.tl.t0 !== null, null, { timeout: 600000, polling: 20 });
const browser = await launch();
try {
  const browserPid = browser.process ? browser.process().pid : null;
  const page = await openPage(browser);
  await page.evaluate(() => { SP.firstView = 'regions'; });
  await page.waitForFunction(() => SP.ready);
  await dropFiles(page, [profile]);
  await page.waitForFunction(() => SP.timing.firstPaint !== undefined, null, { timeout: 600000 });
  await settled(page);
  const before = rendererMiB(browserPid);
  let t = Date.now();
  await page.keyboard.press('6');
  await drawn(page);
  const open = Date.now() - t;
  const info = await page.evaluate(() => ({ rects: SP.current.tl.rects.length / 5, lanes: SP.current.tl.data.lanes.length, read: new Set(SP.current.tl.data.lanes.filter((l) => l[1] > 0).map((l) => l[0])).size, extent: SP.current.tl.data.extent }));
  const mem = rendererMiB(browserPid);
  const mib = (m) => `${m.pss.toFixed(0)} MiB PSS (${m.rss.toFixed(0)} RSS)`;
  console.log(`timeline: key to lanes drawn ${(open / 1000).toFixed(2)} s; ${info.read} ranks read, ${info.lanes} lanes, ${info.rects} rectangles; tab ${mib(before)} before, ${mib(mem)} after`);
  if (shots) await page.screenshot({ path: path.join(shots, 'whole.png') });
  const [lo, hi] = info.extent;
  const mid = (lo + hi) / 2;
  const quarter = lo + (hi - lo) / 4;
  const steps = [['a 1s window', mid, 1e9], ['a 10ms window', mid, 1e7], ['the whole run', null],
    ['a 10ms window straight from the whole run', quarter, 1e7], ['the whole run', null]];
  for (const [name, at, span] of steps) {
    t = Date.now();
    await page.evaluate(async ([a, b]) => {
      const st = SP.current.tl;
      [st.t0, st.t1] = a === null ? [null, null] : [a, b];
      await SP.timeline.request(SP.current);
    }, at === null ? [null, null] : [at - span / 2, at + span / 2]);
    await drawn(page);
    const ms = Date.now() - t;
    const n = await page.evaluate(() => SP.current.tl.rects.length / 5);
    console.log(`timeline: to ${name} ${ms} ms, ${n} rectangles; tab ${mib(rendererMiB(browserPid))}`);
    if (shots && at !== null && !name.includes('straight')) await page.screenshot({ path: path.join(shots, `${span === 1e9 ? '1s' : '10ms'}.png`) });
  }
} finally {
  await browser.close();
}
