// Exports from the page: the selected ranks as chrome-trace, speedscope and the JSON
// profile, saved by the browser, byte for byte what `sp export` writes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, launch, openPage, screenshot, setFiles, settled, sp } from './harness.mjs';

let browser;
let tmp;
before(async () => {
  browser = await launch();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-web-export-'));
});
after(async () => {
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

// `sp export FORMAT NAME -o OUT [--ranks …]`, run on a copy of `file` under its own name
// (the run's label falls back to the file's stem, as in the page).
function cliExport(file, format, ranks) {
  const dir = fs.mkdtempSync(path.join(tmp, 'cli-'));
  fs.copyFileSync(file, path.join(dir, path.basename(file)));
  const args = ['export', format, path.basename(file), '-o', 'out.json'];
  if (ranks) args.push('--ranks', ...ranks.split(/[\s]+/));
  sp(args, dir);
  return fs.readFileSync(path.join(dir, 'out.json'));
}

// Opens the export menu, clicks `format`, and returns the saved file.
async function pageExport(page, format) {
  await page.click('#export-button');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#export-${format}`)]);
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(await dl.path()) };
}

async function setRanks(page, ranks) {
  await page.fill('#f-ranks', ranks);
  await page.waitForFunction((r) => SP.current.opts.ranks === r, ranks);
  await settled(page);
}

test('exports of the selected ranks equal sp export, byte for byte', async () => {
  const cases = [
    // 8 ranks; all of them, then a subset as the Ranks filter takes it.
    ['tests/golden/mixed/expected/merged.h5', ['', '0-2,5']],
    // Threads and tasks (lanes), source locations, GPU times.
    ['tests/golden/h5_python_rich/inputs/rich.h5', ['']],
    // Aggregate layout; zstd-compressed events.
    ['tests/golden/h5_agg_with_traces/expected/h5_agg_with_traces.h5', ['']],
    ['tests/golden/h5_python_zstd/inputs/zstd.h5', ['']],
  ];
  const suffix = { 'chrome-trace': 'trace.json', speedscope: 'speedscope.json', json: 'json' };
  for (const [rel, rankSets] of cases) {
    const file = path.join(ROOT, rel);
    const label = path.basename(file);
    const page = await openPage(browser);
    await setFiles(page, [file]);
    await settled(page);
    for (const ranks of rankSets) {
      if (ranks) await setRanks(page, ranks);
      for (const format of ['chrome-trace', 'speedscope', 'json']) {
        const saved = await pageExport(page, format);
        const want = cliExport(file, format, ranks);
        const at = `${label} ${format} ranks=${ranks || 'all'}`;
        assert.equal(saved.name, label.replace(/\.h5$/, '.' + suffix[format]), at);
        assert.ok(want.length > 0, at);
        assert.ok(saved.bytes.equals(want), `${at}: ${saved.bytes.length} bytes saved, sp export wrote ${want.length}`);
      }
    }
    if (label === 'merged.h5') {
      await page.click('#export-button');
      await screenshot(page, '7-export-menu');
      await page.keyboard.press('Escape');
    }
    assert.deepEqual(page.errors, [], label);
    assert.deepEqual(page.network, [], label + ': requests that leave the tab');
    await page.close();
  }
});

test('a large export arrives in parts and still equals sp export', async () => {
  // The golden gzip profile (70,000 calls): its chrome trace is several MiB, so the worker
  // hands the page more than one part.
  const file = path.join(ROOT, 'tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5');
  const page = await openPage(browser);
  await setFiles(page, [file]);
  await settled(page);
  const saved = await pageExport(page, 'chrome-trace');
  const want = cliExport(file, 'chrome-trace', '');
  assert.ok(want.length > 2 << 20, `${want.length} bytes`);
  assert.ok(saved.bytes.equals(want), `${saved.bytes.length} bytes saved, sp export wrote ${want.length}`);
  const parts = await page.evaluate(() => SP.lastDownload.parts);
  // Each part is a little over 1 MiB (a part is handed over once it reaches 1 MiB).
  assert.ok(parts >= 2 && parts <= Math.ceil(want.length / (1 << 20)), `${parts} parts`);
  assert.match(await page.textContent('#status-text'), /^Saved h5_gzip_with_traces\.trace\.json: [\d,]+ bytes/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
