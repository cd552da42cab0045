// The timeline: lanes of any ranks in numeric order, nested calls stacked, reached from the
// heatmap and the region table; and its frame-time benchmark: 1 M calls in range, a
// scripted pan and zoom, median time from a view change to the drawn frame (the worker's
// level-of-detail pass, the transfer and the canvas drawing).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, SHOTS, SP_BIN, TARGET, launch, openPage, screenshot, setFiles, settled, showView } from './harness.mjs';

let browser;
let tmp;
before(async () => {
  browser = await launch();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-web-timeline-'));
});
after(async () => {
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

// Waits for the timeline's answer to the latest view and its drawing.
const drawn = (page) => page.waitForFunction(() => !SP.timeline.busy && !SP.timeline.again && SP.current.tl && SP.current.tl.data, null, { timeout: 120000 });

// Screenshots of the view as it stands in the light and the dark theme: NAME-light.png and
// NAME-dark.png.
// A theme change re-renders the view (app.js), which builds the canvas anew: each waits
// for that to finish before drawing.
async function themed(page, name) {
  for (const scheme of ['light', 'dark']) {
    await schemeIs(page, scheme);
    await page.evaluate(() => SP.timeline.draw(SP.current));
    await screenshot(page, `${name}-${scheme}`);
  }
  await schemeIs(page, 'light');
  await page.evaluate(() => SP.timeline.draw(SP.current));
}

async function schemeIs(page, scheme) {
  await page.emulateMedia({ colorScheme: scheme });
  // Two frames, so the change event has run, then the view as rendered anew.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForSelector('#timeline', { state: 'visible' });
  await drawn(page);
}

// Zooms the view `steps` halvings about pixel x of the drawing (past the lane headers).
async function zoomIn(page, steps, x) {
  await page.evaluate(async ([steps, x]) => {
    for (let i = 0; i < steps; i++) SP.timeline.zoomView(SP.current, 0.5, SP.timeline.LABEL + x);
    await SP.timeline.request(SP.current);
  }, [steps, x]);
  await drawn(page);
}

// Every call of `file` per rank, with its nesting depth (how many calls of its rank contain
// it), from `sp export json`.
function callsByRank(file) {
  const out = path.join(tmp, path.basename(file) + '.json');
  run(SP_BIN, ['export', 'json', file, '-o', out]);
  const doc = JSON.parse(fs.readFileSync(out, 'utf8'));
  const ranks = new Map();
  for (const r of doc.regions) {
    if (!r.start_times_ns) continue;
    if (!ranks.has(r.rank)) ranks.set(r.rank, []);
    r.start_times_ns.forEach((s, i) => ranks.get(r.rank).push({ region: r.name, start: s, end: r.end_times_ns[i] }));
  }
  for (const calls of ranks.values()) {
    for (const c of calls) c.depth = calls.filter((o) => o !== c && o.start <= c.start && c.end <= o.end && (o.start < c.start || c.end < o.end)).length;
  }
  return ranks;
}

test('lanes of any ranks, nested calls stacked, from the heatmap and the table', async () => {
  // The shipped C example: 4 ranks, outer > inner, late > descend (recursive).
  const file = path.join(tmp, 'run.h5');
  run(SP_BIN, ['convert', path.join(ROOT, 'examples/c_multirank'), '-o', file, '-q']);
  const page = await openPage(browser);
  await setFiles(page, [file]);
  await settled(page);
  await page.keyboard.press('6');
  await drawn(page);
  const all = await page.evaluate(() => SP.current.tl.data);
  // Every rank in numeric order, a lane per depth (the recursion stacks deeper).
  const ranks = [...new Set(all.lanes.map((l) => l[0]))];
  assert.deepEqual(ranks, [0, 1, 2, 3]);
  for (const r of ranks) {
    const depths = all.lanes.filter((l) => l[0] === r).map((l) => l[1]);
    assert.deepEqual(depths, depths.map((_, i) => i), `rank ${r}`);
    assert.ok(depths.length >= 3, `rank ${r}: ${depths.length} lanes`);
  }
  assert.ok(await page.evaluate(() => SP.current.tl.rects.length) > 0);
  // The ranks ran one after another (2.5 ms apart, 25 µs each): each is drawn from its own
  // first call, and the view fits the longest rank's calls with a 2 % margin.
  const calls = callsByRank(file);
  const spans = [...calls.values()].map((c) => [Math.min(...c.map((x) => x.start)), Math.max(...c.map((x) => x.end))]);
  const lo = Math.min(...spans.map((s) => s[0]));
  const longest = Math.max(...spans.map((s) => s[1] - s[0]));
  const fit = await page.evaluate(() => ({ aligned: SP.current.tl.data.aligned, extent: SP.current.tl.data.extent, view: [SP.current.tl.t0, SP.current.tl.t1], checked: SP.$('#tl-align').checked }));
  assert.deepEqual([fit.aligned, fit.checked], [true, true]);
  assert.deepEqual(fit.extent, [lo, lo + longest]);
  assert.ok(Math.abs(fit.view[0] - (lo - 0.02 * longest)) < 1 && Math.abs(fit.view[1] - (lo + 1.02 * longest)) < 1, JSON.stringify(fit));
  // The calls are wide enough to read: many are named inside their rectangle (over 36 px).
  const wide = await page.evaluate(() => { const r = SP.current.tl.rects; let n = 0; for (let k = 0; k < r.length; k += 5) if (r[k + 1] - r[k] > 36) n++; return n; });
  assert.ok(wide >= 30, `${wide} calls wide enough for a label`);
  // Region colours are the library's (sp::chart::color, as `sp plot` draws them): one per
  // region and theme, golden-angle hues.
  const colors = await page.evaluate(() => ({
    n: SP.current.info.regions, light: SP.current.info.region_colors.light.length,
    c1: SP.regionColor(SP.current, 1, false, false), d2: SP.regionColor(SP.current, 2, true, false), m7: SP.regionColor(SP.current, 7, true, true),
  }));
  assert.deepEqual(colors, { n: colors.n, light: colors.n, c1: 'hsl(137.5,62%,74%)', d2: 'hsl(275.0,52%,34%)', m7: 'hsl(242.6,24%,30%)' });
  await themed(page, '10-timeline-small-fit');
  await zoomIn(page, 2, 100);
  await themed(page, '10-timeline-small-zoomed');
  // Unchecking "align ranks": the shared clock, the whole 7 ms.
  await page.uncheck('#tl-align');
  await drawn(page);
  const shared = await page.evaluate(() => ({ aligned: SP.current.tl.data.aligned, extent: SP.current.tl.data.extent }));
  assert.deepEqual(shared, { aligned: false, extent: [lo, Math.max(...spans.map((s) => s[1]))] });
  // A merged block holds its calls and takes the colour of the region with the most time
  // among them: at 100 px for the 7 ms, each rank's outermost calls are one block.
  const blocks = await page.evaluate(async ([t0, t1]) => {
    const fs = SP.current;
    const view = { t0, t1, width: 100, first: 0, count: 40, align: false };
    const reply = await SP.ask(fs, 'timeline', Object.assign({ ranks: null }, view));
    const r = new Float32Array(reply.bin);
    const out = [];
    for (let k = 0; k < r.length; k += 5) {
      const [rank, depth] = reply.ok.lanes[r[k + 2]];
      if (depth !== 0) continue;
      const t = t0 + (r[k] + 0.5) / 100 * (t1 - t0);
      const at = await SP.ask(fs, 'timeline_at', Object.assign({ lane: r[k + 2], t }, view));
      out.push({ rank, calls: r[k + 4], region: reply.ok.regions[r[k + 3]], at: at.ok.call });
    }
    return out;
  }, [lo, Math.max(...spans.map((s) => s[1]))]);
  assert.deepEqual(blocks.map((b) => b.rank), [0, 1, 2, 3]);
  for (const b of blocks) {
    const top = calls.get(b.rank).filter((c) => c.depth === 0);
    const time = new Map();
    for (const c of top) time.set(c.region, (time.get(c.region) || 0) + c.end - c.start);
    const busy = [...time.values()].reduce((a, x) => a + x, 0);
    const [name, most] = [...time].sort((a, x) => x[1] - a[1])[0];
    assert.equal(b.calls, top.length, `rank ${b.rank}`);
    assert.equal(b.region, name, `rank ${b.rank}`);
    assert.deepEqual([b.at.merged, b.at.calls, b.at.name], [true, top.length, name]);
    // It covers its calls: the pixels they touch.
    const [first, last] = [Math.min(...top.map((c) => c.start)), Math.max(...top.map((c) => c.end))];
    assert.ok(b.at.view[0] <= first && last <= b.at.view[1] && b.at.view[1] - b.at.view[0] < 3 * 70000, JSON.stringify(b.at.view));
    assert.ok(Math.abs(b.at.share - most / busy) < 1e-12, `rank ${b.rank}: ${b.at.share} vs ${most / busy}`);
  }
  await page.check('#tl-align');
  await drawn(page);
  // Hover names the call under the mouse; a click selects its region's row.
  const box = await page.locator('#timeline').boundingBox();
  // Zoom in on a nested call (wheel steps about it) until it is a few pixels wide.
  const target = await page.evaluate(async () => {
    const fs = SP.current;
    for (let step = 0; step < 60; step++) {
      const r = fs.tl.rects;
      let best = -1;
      for (let k = 0; k < r.length; k += 5) {
        if (r[k + 2] >= 1 && r[k + 4] === 1 && (best < 0 || r[k + 1] - r[k] > r[best + 1] - r[best])) best = k;
      }
      if (best < 0) return null;
      if (r[best + 1] - r[best] >= 6) return { x0: r[best], x1: r[best + 1], lane: r[best + 2], region: r[best + 3] };
      SP.timeline.zoomView(fs, 0.5, SP.timeline.LABEL + (r[best] + r[best + 1]) / 2);
      await SP.timeline.request(fs);
    }
    return null;
  });
  assert.ok(target, 'a nested call to hover');
  const lanes = await page.evaluate(() => SP.current.tl.data.lanes);
  const [lane, region] = [target.lane, all.regions[target.region]];
  const x = box.x + 1 + 78 + (target.x0 + target.x1) / 2;
  const y = box.y + 1 + 22 + lane * 18 + 9;
  await page.mouse.move(x, y);
  await page.waitForSelector('#tl-tip:not([hidden])');
  const tip = await page.textContent('#tl-tip');
  assert.ok(tip.startsWith(`${region} · rank ${lanes[lane][0]} · depth ${lanes[lane][1]} · `), tip);
  await page.mouse.click(x, y);
  await settled(page);
  assert.equal(await page.evaluate(() => SP.current.view), 'regions');
  assert.equal(await page.evaluate(() => SP.current.selection.region), region);
  // WASD: w zooms in about the middle, d pans right.
  await page.keyboard.press('6');
  await drawn(page);
  const before = await page.evaluate(() => [SP.current.tl.t0, SP.current.tl.t1]);
  await page.click('#timeline', { position: { x: 5, y: 5 } });
  await page.keyboard.press('w');
  await drawn(page);
  const zoomed = await page.evaluate(() => [SP.current.tl.t0, SP.current.tl.t1]);
  assert.ok(zoomed[1] - zoomed[0] < 0.81 * (before[1] - before[0]), JSON.stringify([before, zoomed]));
  await page.keyboard.press('d');
  await drawn(page);
  const panned = await page.evaluate(() => [SP.current.tl.t0, SP.current.tl.t1]);
  assert.ok(panned[0] > zoomed[0] && Math.abs((panned[1] - panned[0]) - (zoomed[1] - zoomed[0])) < 1);
  // From the region table: T opens the timeline of the Ranks filter's ranks.
  await showView(page, 'regions');
  await page.fill('#f-ranks', '2');
  await page.waitForFunction(() => SP.current.opts.ranks === '2');
  await settled(page);
  await page.click('#region-table tbody tr[data-name="outer"]');
  await page.keyboard.press('t');
  await drawn(page);
  const two = await page.evaluate(() => ({ lanes: SP.current.tl.data.lanes, region: SP.current.tl.region, hash: location.hash }));
  assert.deepEqual([...new Set(two.lanes.map((l) => l[0]))], [2]);
  assert.equal(two.region, 'outer');
  await themed(page, '10-timeline-highlight');
  await page.waitForFunction(() => /view=timeline/.test(location.hash) && /tlranks=2/.test(location.hash));
  // From the heatmap: a cell's "timeline of rank N".
  await showView(page, 'ranks');
  await page.fill('#f-ranks', '');
  await page.waitForFunction(() => SP.current.opts.ranks === '');
  await settled(page);
  await page.click('#heatmap');
  await page.keyboard.press('ArrowRight');
  await settled(page);
  const rank = await page.evaluate(() => SP.current.selection.rank);
  await page.click('#heat-timeline');
  await drawn(page);
  assert.deepEqual([...new Set((await page.evaluate(() => SP.current.tl.data.lanes)).map((l) => l[0]))], [rank]);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('timeline frame time: 1 M calls in range, scripted pan and zoom', async () => {
  // W1 of bench/ at 5/16 scale: 8 ranks x 40 regions, 1,000,000 nested calls; every rank's
  // lanes fit the window, so all of them are in view.
  run('cargo', ['build', '--release', '--quiet', '-p', 'sp-bench', '--bin', 'sp-workload']);
  const traces = path.join(tmp, 'traces');
  run(path.join(TARGET, 'release/sp-workload'), ['W1', traces, '--scale', '0.3125']);
  const file = path.join(tmp, 'w1-1m.h5');
  run(SP_BIN, ['convert', traces, '-o', file, '-q']);
  const page = await openPage(browser);
  await setFiles(page, [file]);
  await settled(page);
  const calls = await page.evaluate(() => SP.current.info.calls);
  assert.equal(calls, 1000000);
  const t0 = Date.now();
  await page.keyboard.press('6');
  await drawn(page);
  const openMs = Date.now() - t0;
  const info = await page.evaluate(() => ({ shapes: SP.current.tl.rects.length / 5, lanes: SP.current.tl.data.lanes.length, read: new Set(SP.current.tl.data.lanes.filter((l) => l[1] > 0).map((l) => l[0])).size, extent: SP.current.tl.data.extent, view: [SP.current.tl.t0, SP.current.tl.t1] }));
  // The whole run is in view (with a 2 % margin), every rank read (its depths in lanes):
  // every call is in range.
  const span = info.extent[1] - info.extent[0];
  assert.ok(Math.abs(info.view[0] - (info.extent[0] - 0.02 * span)) < 1 && Math.abs(info.view[1] - (info.extent[1] + 0.02 * span)) < 1, JSON.stringify(info));
  assert.equal(info.read, 8);
  // The ranks ran side by side: one clock.
  assert.equal(await page.evaluate(() => SP.current.tl.data.aligned), false);
  await themed(page, '10-timeline-1m-fit');
  // Hovering a merged block says what it holds: its calls and dominant region, as drawn.
  const box = await page.locator('#timeline').boundingBox();
  const block = await page.evaluate(() => {
    const r = SP.current.tl.rects;
    for (let k = 0; k < r.length; k += 5) if (r[k + 4] > 1 && r[k + 1] - r[k] > 40) return { x: (r[k] + r[k + 1]) / 2, lane: r[k + 2], calls: r[k + 4], region: SP.current.tl.data.regions[r[k + 3]] };
    return null;
  });
  assert.ok(block, 'a merged block at fit');
  await page.mouse.move(box.x + 1 + 78 + block.x, box.y + 1 + 22 + block.lane * 18 + 9);
  await page.waitForSelector('#tl-tip:not([hidden])');
  const tip = await page.textContent('#tl-tip');
  assert.ok(tip.startsWith(`${block.calls.toLocaleString('en-US')} calls merged · mostly ${block.region} (`), tip);
  await page.mouse.move(box.x + 2, box.y + 2);
  await zoomIn(page, 8, 300);
  await themed(page, '10-timeline-1m-zoomed');
  // The README's picture (web/timeline.png): the first four ranks' lanes of that view.
  await page.screenshot({ path: path.join(SHOTS, 'timeline-readme.png'), clip: { x: box.x, y: box.y, width: box.width, height: 22 + 12 * 18 + 1 } });
  await page.evaluate(async () => { SP.current.tl.t0 = null; await SP.timeline.request(SP.current); });
  await drawn(page);
  // The scripted session: zoom in 20 steps about the middle, pan 20 steps, zoom out 20.
  const frames = await page.evaluate(async () => {
    const fs = SP.current;
    const TL = SP.timeline;
    const step = async (change) => {
      change();
      const asked = performance.now();
      await TL.request(fs);
      // The worker's level-of-detail pass, the transfer and the canvas drawing.
      return performance.now() - asked;
    };
    const out = [];
    const mid = () => { const c = document.querySelector('#timeline'); return c.clientWidth / 2; };
    for (let i = 0; i < 20; i++) out.push(await step(() => TL.zoomView(fs, 0.8, mid())));
    for (let i = 0; i < 20; i++) out.push(await step(() => TL.panView(fs, 60)));
    for (let i = 0; i < 20; i++) out.push(await step(() => TL.zoomView(fs, 1.25, mid())));
    return out;
  });
  const sorted = frames.slice().sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const p95 = sorted[Math.floor(sorted.length * 0.95)];
  console.log(`timeline: ${calls.toLocaleString('en-US')} calls, ${info.lanes} lanes, ${info.read} ranks read, ${info.shapes} shapes at full view; first view ${openMs} ms; ` +
    `${frames.length} pan/zoom frames: median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`);
  // Of each frame: the worker's level-of-detail pass, the drawing, and the wait for the
  // browser between them (its paint of the last frame, aligned to the display's 60 Hz).
  const parts = await page.evaluate(() => SP.timeline.frames.slice(-60));
  const med = (f) => parts.map(f).sort((a, b) => a - b)[30];
  const work = med((f) => f.worker + f.draw);
  console.log(`timeline: median worker ${med((f) => f.worker).toFixed(1)} ms + draw ${med((f) => f.draw).toFixed(1)} ms ` +
    `(work ${work.toFixed(1)} ms); waiting for the browser's paint ${med((f) => f.wait).toFixed(1)} ms`);
  // Each view reads the calls of its window again (the worker keeps a summary per pixel,
  // not the calls), so with all 1 M calls in view a frame costs tens of ms: the check is
  // issue 36's bound for a zoom, 300 ms. The time until it is on screen (printed above)
  // also waits for the browser's paint: a figure, not a check.
  assert.ok(work <= 300, `median frame work ${work.toFixed(1)} ms`);
  assert.deepEqual(page.errors, []);
  await page.close();
});
