// The page's Overview after the drop of one profile (bench/ranks.py runs it on W6's shape at
// each rank count): the time from the drop to the Overview drawn from the index, the bytes
// read by then, and the tab's wasm memory; then the Ranks view's switch. Prints one line of
// figures; exits non-zero only if the page does not open the file.
//
//   node web/bench/ranks.mjs PROFILE.h5 [--shot FILE.png]
//
// Needs web/dist/sp.html (scripts/build-web.sh). Not a test: it checks nothing else.
import { dropFiles, launch, openPage, settled } from '../e2e/harness.mjs';

const args = process.argv.slice(2);
const profile = args.find((a) => !a.startsWith('--'));
const shotAt = args.indexOf('--shot');
const shot = shotAt >= 0 ? args[shotAt + 1] : null;
if (!profile) {
  console.error('usage: node web/bench/ranks.mjs PROFILE.h5 [--shot FILE.png]');
  process.exit(2);
}

const MiB = 1024 * 1024;
const browser = await launch();
try {
  const page = await openPage(browser);
  await page.evaluate(() => { SP.firstView = 'overview'; });
  await page.waitForFunction(() => SP.ready);
  await dropFiles(page, [profile]);
  await page.waitForFunction(() => SP.timing.firstPaint !== undefined, null, { timeout: 600000 });
  const first = await page.evaluate(() => ({
    paint: SP.timing.firstPaint - SP.timing.start,
    io: SP.timing.firstTableIo,
    heap: SP.timing.firstTableHeap,
  }));
  await settled(page);
  const t0 = Date.now();
  await page.click('#views [data-view="ranks"]');
  await settled(page);
  const ranksMs = Date.now() - t0;
  if (shot) await page.screenshot({ path: shot, fullPage: false });
  const io = first.io ? `${(first.io.bytes / MiB).toFixed(1)} MiB read` : 'io unknown';
  console.log(`page: overview ${first.paint.toFixed(0)} ms after the drop (${io}, wasm ${(first.heap / MiB).toFixed(0)} MiB); ranks view ${ranksMs} ms`);
} finally {
  await browser.close();
}
