// The Charts view: each kind's Save SVG gives the bytes `sp plot KIND FILE -o OUT.svg` writes
// for the same filters and theme, Save PNG a picture of it, and both themes are screenshotted.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, download, launch, openPage, screenshot, setFiles, settled, showView, sp } from './harness.mjs';

let browser;
let tmp;
before(async () => {
  browser = await launch();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-web-charts-'));
});
after(async () => {
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

// The chart of `kind` drawn, and what Save SVG saves.
async function saved(page, kind) {
  await page.click(`#view-charts [data-kind="${kind}"]`);
  await page.waitForSelector(`#view-charts .chart img[alt^="${kind} "]`);
  return download(page, '#view-charts .saves button:first-child');
}

test('each chart saves the SVG sp plot writes, for the filters and both themes', async () => {
  const file = path.join(tmp, 'multirank.h5');
  sp(['convert', path.join(ROOT, 'examples/c_multirank'), '-o', file, '-q'], ROOT);
  const page = await openPage(browser);
  await setFiles(page, [file]);
  await settled(page);
  await showView(page, 'charts');
  for (const kind of ['durations', 'histogram', 'timeseries', 'flame_graph', 'flame_chart', 'gantt', 'density', 'rank_heatmap', 'imbalance']) {
    const svg = await saved(page, kind);
    const out = path.join(tmp, kind + '.svg');
    sp(['plot', kind, file, '-o', out], ROOT);
    assert.ok(svg.bytes.equals(fs.readFileSync(out)), `${kind}: the page's SVG differs from sp plot's`);
  }
  await page.click('#view-charts [data-kind="flame_graph"]');
  await page.waitForSelector('#view-charts .chart img[alt^="flame_graph "]');
  await screenshot(page, 'charts-flame-graph-light');

  // The filters reach the chart as sp plot's --include and --ranks.
  await page.fill('#filters [name="include"]', 'outer inner');
  await page.fill('#filters [name="ranks"]', '0-1');
  await page.waitForTimeout(400);
  await settled(page);
  const filtered = await saved(page, 'durations');
  const out = path.join(tmp, 'filtered.svg');
  sp(['plot', 'durations', file, '-o', out, '--include', 'outer', 'inner', '--ranks', '0-1'], ROOT);
  assert.ok(filtered.bytes.equals(fs.readFileSync(out)), 'durations with --include and --ranks');
  assert.equal(filtered.name, 'durations_plot.svg');

  // Save PNG: the same picture, rasterised by the browser.
  const png = await download(page, '#view-charts .saves button:last-child');
  assert.equal(png.name, 'durations_plot.png');
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  await screenshot(page, 'charts-durations-light');

  // The dark theme draws sp plot --theme dark.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(300);
  await settled(page);
  const dark = await saved(page, 'histogram');
  sp(['plot', 'histogram', file, '-o', out, '--include', 'outer', 'inner', '--ranks', '0-1', '--theme', 'dark'], ROOT);
  assert.ok(dark.bytes.equals(fs.readFileSync(out)), 'histogram, dark');
  await screenshot(page, 'charts-histogram-dark');
  await page.close();
});
