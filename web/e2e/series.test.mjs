// A series dropped at once (three or more profiles, a folder) opens into Runs with each file
// read for its run alone, as `sp runs` reads it (issue 37: 100 profiles of W3's size into
// Runs): a run picked from the tabs then reads its own table, the regions `sp inspect` lists
// for it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { dropFiles, goldenDir, inspectCsv, launch, openPage, settled } from './harness.mjs';

const FILES = [
  ['c.h5', 'tests/golden/c_trace/expected/profiling_data.h5'],
  ['f.h5', 'tests/golden/fortran/expected/profiling_data.h5'],
  ['m.h5', 'tests/golden/mixed/expected/merged.h5'],
  // Stores its statistics: opened for its run alone, its index read when its tab asks.
  ['s.h5', 'tests/golden/scaling/strong/ranks4.h5'],
];

let browser;
let dir;
before(async () => {
  browser = await launch();
  dir = goldenDir('sp-series-', FILES);
});
after(async () => {
  await browser.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a dropped series opens into Runs, and each run picked from the tabs shows its own regions', async () => {
  const page = await openPage(browser);
  await dropFiles(page, FILES.map(([n]) => path.join(dir, n)));
  await page.waitForSelector('#runs-table tbody tr');
  await settled(page);
  assert.equal(await page.evaluate(() => SP.current.view), 'runs');
  assert.equal(await page.$$eval('#runs-table tbody tr', (trs) => trs.length), FILES.length);
  for (const [name] of FILES) {
    await page.click(`#files button:nth-child(${FILES.findIndex(([n]) => n === name) + 1})`);
    await page.click('#views [data-view="regions"]');
    await settled(page);
    await page.waitForSelector('#region-table tbody td.name');
    assert.equal(await page.evaluate(() => SP.current.name), name);
    const shown = await page.$$eval('#region-table tbody td.name', (tds) => tds.map((td) => td.textContent));
    const listed = inspectCsv(path.join(dir, name)).rows.map((r) => r.name);
    assert.ok(listed.length > 0 && listed.every((n) => shown.some((s) => s.includes(n))), `${name}: regions ${listed} in ${shown}`);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
