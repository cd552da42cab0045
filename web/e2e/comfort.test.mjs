// State in the URL hash (a reload of the same file comes back to the same place), the
// keyboard map, and the dark theme that follows the system.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, launch, openPage, screenshot, setFiles, settled, showView } from './harness.mjs';

const FILE = path.join(ROOT, 'tests/golden/mixed/expected/merged.h5');

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser.close(); });

// What the page shows as its place: view, filters, selection, heatmap range.
const place = (page) => page.evaluate(() => {
  const fs = SP.current;
  return {
    view: fs.view, opts: fs.opts, selection: fs.selection,
    heatView: fs.heatView || null,
    fields: ['#f-include', '#f-exclude', '#f-ranks', '#f-mode'].map((s) => document.querySelector(s).value),
  };
});

const hashParams = async (page) => Object.fromEntries(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)));

test('the URL hash keeps view, regions, ranks and range across a reload of the same file', async () => {
  const page = await openPage(browser);
  await setFiles(page, [FILE]);
  await settled(page);
  // Regions: an include pattern, percentages of own time, a selected row.
  await showView(page, 'regions');
  await page.fill('#f-include', 'B E');
  await page.selectOption('#f-mode', 'exclusive');
  await page.waitForFunction(() => SP.current.opts.include === 'B E' && SP.current.opts.mode === 'exclusive');
  await settled(page);
  await page.click('#region-table tbody tr[data-name="E"]');
  // Ranks: a rank filter, a zoomed heatmap, a selected cell.
  await page.fill('#f-ranks', '0-5');
  await page.waitForFunction(() => SP.current.opts.ranks === '0-5');
  await settled(page);
  await showView(page, 'ranks');
  await page.evaluate(() => { Object.assign(SP.current.heatView, { from: 1, to: 5 }); SP.ranks.draw(SP.current); });
  await page.click('#heatmap');
  await page.keyboard.press('ArrowRight');
  await settled(page);
  await page.waitForTimeout(250);
  const before = await place(page);
  assert.equal(before.view, 'ranks');
  assert.equal(typeof before.selection.rank, 'number');
  const hash = await hashParams(page);
  assert.deepEqual(hash, {
    file: 'merged.h5', view: 'ranks', include: 'B E', ranks: '0-5', mode: 'exclusive', sort: 'start',
    ...(before.selection.region !== undefined ? { region: before.selection.region } : {}),
    rank: String(before.selection.rank),
    range: before.heatView.from + '-' + before.heatView.to, order: 'rank',
  });
  const selectionText = await page.textContent('#heat-selection');

  await page.reload();
  await page.waitForFunction(() => typeof SP !== 'undefined' && SP.ready !== null);
  assert.equal(await page.isVisible('#link-note'), true);
  assert.match(await page.textContent('#link-note'), /^This link shows merged\.h5 \(ranks\): open that file/);
  await setFiles(page, [FILE]);
  await settled(page);
  await page.waitForTimeout(250);
  const after = await place(page);
  assert.deepEqual(after, before);
  assert.equal(await page.textContent('#heat-selection'), selectionText);
  assert.deepEqual(await hashParams(page), hash, 'the hash is unchanged by coming back');
  await showView(page, 'regions');
  assert.equal(await page.getAttribute('#region-table tbody tr.selected', 'data-name'), before.selection.region);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('another file opened instead drops the link\'s place', async () => {
  const page = await openPage(browser);
  await page.goto(page.url() + '#file=other.h5&view=ranks&ranks=1');
  await page.reload();
  await page.waitForFunction(() => typeof SP !== 'undefined' && SP.ready !== null);
  assert.equal(await page.isVisible('#link-note'), true);
  await setFiles(page, [FILE]);
  await settled(page);
  await page.waitForTimeout(250);
  const p = await place(page);
  assert.equal(p.view, 'overview');
  assert.equal(p.opts.ranks, '');
  assert.equal((await hashParams(page)).file, 'merged.h5');
  assert.equal(await page.isVisible('#link-note'), false);
  await page.close();
});

test('? shows the keyboard map; e opens the export menu; Escape closes both', async () => {
  const page = await openPage(browser);
  await setFiles(page, [FILE]);
  await settled(page);
  await page.keyboard.press('?');
  assert.equal(await page.isVisible('#keymap'), true);
  const text = await page.textContent('#keymap');
  for (const k of ['open files', 'filter regions', 'export the selected ranks', 'previous / next row', 'move the selected cell']) {
    assert.ok(text.includes(k), k);
  }
  await screenshot(page, '8-keymap');
  // Keys do nothing else while the map is up.
  await page.keyboard.press('3');
  assert.equal(await page.evaluate(() => SP.current.view), 'overview');
  await page.keyboard.press('Escape');
  assert.equal(await page.isVisible('#keymap'), false);
  await page.keyboard.press('3');
  assert.equal(await page.evaluate(() => SP.current.view), 'ranks');
  await page.keyboard.press('e');
  assert.equal(await page.isVisible('#export-list'), true);
  await page.keyboard.press('Escape');
  assert.equal(await page.isVisible('#export-list'), false);
  await page.click('#help-button');
  assert.equal(await page.isVisible('#keymap'), true);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the dark theme follows the system, canvas included', async () => {
  const page = await openPage(browser);
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(await bg(), 'rgb(255, 255, 255)');
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await bg(), 'rgb(22, 24, 29)');
  await screenshot(page, '0-welcome-dark');
  await setFiles(page, [FILE]);
  await settled(page);
  await screenshot(page, '1-overview-dark');
  await showView(page, 'regions');
  await screenshot(page, '2-regions-dark');
  await showView(page, 'ranks');
  await screenshot(page, '3-ranks-dark');
  // The heatmap's background is the theme's.
  const corner = () => page.evaluate(() => Array.from(document.querySelector('#heatmap').getContext('2d').getImageData(1, 1, 1, 1).data.slice(0, 3)));
  assert.deepEqual(await corner(), [22, 24, 29]);
  // Switching back redraws it light.
  await page.emulateMedia({ colorScheme: 'light' });
  await settled(page);
  assert.deepEqual(await corner(), [255, 255, 255]);
  assert.deepEqual(page.errors, []);
  await page.close();
});
