'use strict';
// The page's shell: the worker, the open files, the view switcher, the shared filters, the
// status bar and the keys. Views live in table.js, ranks.js and views.js; every number and
// text they show comes from the worker (the sp library), this file only lays them out.
const SP = {
  files: [],          // open files, each {id, name, info, view, opts, data: {}, gen}
  current: null,
  worker: null,
  pending: new Map(),
  nextId: 1,
  ready: null,
  timing: {},         // for tests and the benchmark: drop → first table, etc.
  firstView: 'overview',  // the view a profile opens on
  views: {},          // view name → {render(fs), needs(fs)}
};

SP.$ = (sel, root) => (root || document).querySelector(sel);
SP.el = (tag, attrs, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
};

// ---- worker ---------------------------------------------------------------------------

SP.startWorker = () => {
  const source = SP.$('#sp-worker-source').textContent;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  SP.worker = new Worker(url);
  SP.ready = new Promise((resolve) => {
    SP.pending.set(0, (msg) => resolve(msg.ready));
  });
  SP.worker.onmessage = (e) => {
    const msg = e.data;
    const done = SP.pending.get(msg.id);
    SP.pending.delete(msg.id);
    if (done) done(msg);
  };
  SP.worker.onerror = (e) => SP.showError('The page\'s worker failed: ' + (e.message || 'unknown error') + '.');
};

// One request to the library; resolves to the worker's reply ({ok, bin, ms, heap} or
// {error}).
SP.rpc = async (op, args, file, files) => {
  const ready = await SP.ready;
  if (ready.error) return { error: ready.error };
  const id = SP.nextId++;
  return new Promise((resolve) => {
    SP.pending.set(id, resolve);
    SP.worker.postMessage({ id, op, args, file, files });
  });
};

// A request about an open file, with the file's current filters.
SP.ask = (fs, op, extra) => SP.rpc(op, Object.assign({ file: fs.id }, SP.optionArgs(fs), extra || {}));

SP.optionArgs = (fs) => ({
  include: fs.opts.include.split(/\s+/).filter(Boolean),
  exclude: fs.opts.exclude.split(/\s+/).filter(Boolean),
  ranks: fs.opts.ranks.trim() || null,
  sort: fs.opts.sort,
  mode: fs.opts.mode,
  tree: fs.useTree,
});

// ---- files ----------------------------------------------------------------------------

SP.openFiles = async (list, how) => {
  const files = Array.from(list || []);
  if (!files.length) return;
  SP.timing = { start: performance.now(), how };
  SP.hideError();
  // Native traces are merged into a profile, with any per-rank profiles dropped with them.
  if (files.some((f) => /\.spt$/.test(f.name))) { SP.merge.ask(files); return; }
  // A report that holds a profile's index only takes its calls from the same file dropped
  // onto it: the file replaces its index-only copy.
  for (const file of files) {
    const copy = SP.files.find((f) => f.tree === 'omitted' && f.name === file.name);
    if (copy) SP.close(copy);
  }
  SP.opening = files.map((f) => f.name);
  // Three or more at once (a series, a folder) open on Runs: each file is read for its run
  // alone, as `sp runs` reads it, without its first table and overview, which a view of it
  // asks for when it needs them (issue 37: 100 profiles of W3's size into Runs).
  const batch = files.length > 2;
  const opened = [];
  for (const file of files) opened.push(await SP.openFile(file, null, batch));
  SP.opening = [];
  if (batch) {
    const profiles = opened.filter((f) => f && f.info.kind === 'profile');
    // Fewer profiles than a series (the rest not profiles): each opens as it would alone.
    if (profiles.length <= 2) {
      for (const fs of opened.filter(Boolean)) { SP.select(fs); if (profiles.includes(fs)) await SP.firstTable(fs); }
    }
  }
  SP.compare.afterOpen(opened);
};

SP.openFile = async (file, merged, batch) => {
  SP.status('Opening ' + file.name + '…');
  // A series' file is read for its run alone; its index when a view of it first asks.
  const reply = await SP.rpc('open', batch ? { runs: true } : {}, file);
  if (reply.error) {
    SP.showError(reply.error);
    SP.status('Could not open ' + file.name + '.');
    return null;
  }
  const info = reply.ok;
  SP.timing.opened = performance.now();
  const fs = {
    id: info.file, name: info.name, info, io: info.io, heap: reply.heap,
    view: info.kind === 'profile' ? SP.firstView : 'raw',
    opts: { include: '', exclude: '', ranks: '', sort: 'start', mode: 'coverage' },
    useTree: info.tree === 'loaded', tree: info.tree,
    data: {}, gen: 0, selection: {}, merged: merged || null,
    starting: info.kind === 'profile',  // the first table is on its way: views wait for it
  };
  SP.state.take(fs);
  SP.files.push(fs);
  if (batch) {
    fs.starting = false;
    SP.status('Opened ' + fs.name + ' for its run.');
    if (info.tree === 'available') SP.loadTree(fs);
    return fs;
  }
  SP.select(fs);
  if (info.kind === 'profile') {
    await SP.firstTable(fs);
    if (info.tree === 'available') SP.loadTree(fs);
  } else {
    SP.status('Opened ' + fs.name + ', an HDF5 file that is not a profile: its tree.');
  }
  return fs;
};

// The index's table and overview, as soon as the file is open: the time the benchmark
// measures.
SP.firstTable = async (fs) => {
  const table = await SP.ask(fs, 'table');
  if (SP.timing.firstTable === undefined) {
    SP.timing.firstTable = performance.now();
    SP.timing.firstTableIo = table.ok ? table.ok.io : null;
    SP.timing.firstTableHeap = table.heap;
  }
  SP.take(fs, 'table', table);
  fs.starting = false;
  if (table.ok) SP.status('Opened ' + fs.name + ' in ' + Math.round(performance.now() - SP.timing.start) + ' ms, from its index' + (fs.tree === 'available' ? '; reading its call tree…' : '.'));
  await SP.refreshView(fs);
  if (SP.timing.firstPaint === undefined) {
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    SP.timing.firstPaint = performance.now();
  }
};

SP.loadTree = async (fs) => {
  SP.status('Reading the call tree of ' + fs.name + ' (' + fs.info.calls.toLocaleString('en-US') + ' calls)…');
  const reply = await SP.ask(fs, 'tree');
  if (reply.error) {
    fs.treeError = reply.error;
    SP.status(reply.error);
    SP.refreshView(fs);
    return;
  }
  fs.tree = reply.ok.tree;
  fs.useTree = fs.tree === 'loaded';
  SP.noteIo(fs, reply);
  SP.timing.tree = performance.now();
  SP.invalidate(fs);
  SP.status('Call tree read in ' + Math.round(reply.ms) + ' ms.');
};

SP.close = (fs) => {
  SP.rpc('close', { file: fs.id });
  SP.files = SP.files.filter((f) => f !== fs);
  SP.select(SP.files[SP.files.length - 1] || null);
};

// What a view that needs calls says of a report's index-only profile.
SP.omitted = (fs) => 'This report holds the index of ' + fs.name + ' only (sp report --events never, or a profile over 64 MiB). Drop ' + fs.name + ' onto the page to add its calls.';

// Stores a reply's data (or error) for a view, and its read counters.
SP.take = (fs, key, reply) => {
  if (reply.error) {
    fs.data[key] = { error: reply.error };
  } else {
    fs.data[key] = reply.ok;
    if (reply.bin) fs.data[key].bin = reply.bin;
  }
  SP.noteIo(fs, reply);
};

SP.noteIo = (fs, reply) => {
  if (reply.ok && reply.ok.io) fs.io = reply.ok.io;
  if (reply.heap) fs.heap = reply.heap;
  if (fs === SP.current) SP.showIo(fs);
};

// Forget computed views after a change of filters or of the tree; redraw the current one.
SP.invalidate = (fs) => {
  fs.gen++;
  fs.data = {};
  fs.pct = {};
  fs.spark = {};
  SP.refreshView(fs);
};

// ---- views ----------------------------------------------------------------------------

SP.select = (fs) => {
  SP.current = fs;
  SP.renderTabs();
  SP.$('#welcome').hidden = !!fs;
  SP.$('#inspector').hidden = !fs;
  if (!fs) { SP.status('Ready. Nothing leaves this tab.'); SP.$('#status-io').textContent = ''; SP.state.save(); return; }
  const f = SP.$('#filters');
  f.include.value = fs.opts.include;
  f.exclude.value = fs.opts.exclude;
  f.ranks.value = fs.opts.ranks;
  f.mode.value = fs.opts.mode;
  const profile = fs.info.kind === 'profile';
  f.hidden = !profile;
  SP.$('#export').hidden = !profile;
  // Any HDF5 file has its raw tree; the other views need a profile.
  for (const b of SP.$('#views').querySelectorAll('button')) b.disabled = b.dataset.view !== 'raw' && !profile;
  const notice = SP.$('#notice');
  const note = fs.merged ? SP.merge.notice(fs) : fs.info.notice;
  notice.hidden = !note;
  notice.classList.toggle('info', !!fs.merged);
  notice.textContent = note || '';
  SP.$('#download-h5').hidden = !fs.merged;
  SP.showIo(fs);
  SP.show(fs.view);
};

SP.show = (view) => {
  const fs = SP.current;
  if (!fs) return;
  fs.view = view;
  for (const b of SP.$('#views').querySelectorAll('button')) b.setAttribute('aria-selected', b.dataset.view === view);
  for (const v of document.querySelectorAll('.view')) v.classList.toggle('active', v.dataset.view === view);
  // The filters shape the overview, the table and the ranks; not the metadata or the tree.
  SP.$('#filters').hidden = fs.info.kind !== 'profile' || view === 'metadata' || view === 'raw' || view === 'timeline' || view === 'runs';
  SP.$('#f-mode').parentNode.hidden = view === 'compare' || view === 'charts';   // no % columns there
  SP.compare.showOffer(fs);
  return SP.refreshView(fs);
};

// Fetches what the view needs (once per generation) and draws it.
SP.refreshView = async (fs, force) => {
  if (fs !== SP.current || fs.starting) return;
  const view = SP.views[fs.view];
  const root = SP.$('#view-' + fs.view);
  if (!view) return;
  const gen = fs.gen;
  for (const key of view.needs(fs)) {
    if (fs.data[key]) continue;
    if (!root.firstChild) root.append(SP.el('p', { class: 'hint', text: 'Reading…' }));
    const reply = await SP.ask(fs, key);
    if (gen !== fs.gen) return;
    SP.take(fs, key, reply);
  }
  if (fs !== SP.current || fs.view !== view.name) return;
  // A view drawn from the same state is still on its root: showing it again is a class
  // toggle, not a redraw (issue 37: every switch on W2 within 50 ms).
  const stamp = view.kept ? SP.viewStamp(fs) : null;
  if (!force && stamp && root.dataset.stamp === stamp) { SP.state.save(); return; }
  view.render(fs, root);
  if (stamp) root.dataset.stamp = stamp; else delete root.dataset.stamp;
  SP.state.save();
};

// What a kept view's drawing depends on besides its own in-place redraws: the file and its
// generation of data, the call tree's state, the percentiles read, the selection and the
// window's size.
SP.viewStamp = (fs) => [fs.id, fs.gen, fs.tree, fs.treeError, fs.pctBusy, Object.keys(fs.pct || {}).length, Object.keys(fs.spark || {}).length,
  fs.selection.region, fs.selection.rank, innerWidth, innerHeight].join('|');

SP.renderTabs = () => {
  const nav = SP.$('#files');
  nav.replaceChildren(...SP.files.map((fs) => SP.el('button', {
    'aria-selected': fs === SP.current, title: fs.name + ' (' + fs.info.size.toLocaleString('en-US') + ' bytes)',
    onclick: (e) => { if (e.target.classList.contains('x')) SP.close(fs); else SP.select(fs); },
  }, fs.name, SP.el('span', { class: 'x', title: 'Close', text: '×' }))));
};

// ---- messages -------------------------------------------------------------------------

SP.status = (text) => { SP.$('#status-text').textContent = text; };

// The page's theme, which follows the system's: what the charts the worker draws take.
SP.theme = () => (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');

SP.showIo = (fs) => {
  const io = fs.io;
  if (!io) return;
  const share = io.size ? (100 * io.bytes / io.size) : 0;
  const shareText = share > 100 ? 'some of it more than once' : (share < 0.01 ? '<0.01%' : share.toFixed(share < 10 ? 2 : 0) + '%') + ' of the file';
  let text = 'read ' + io.bytes_text + ' in ' + io.reads.toLocaleString('en-US') + (io.reads === 1 ? ' read' : ' reads') + ' (' + shareText + ')';
  if (fs.heap) text += ' · memory ' + Math.round(fs.heap / 1048576) + ' MiB';
  SP.$('#status-io').textContent = text;
};

SP.showError = (sentence) => {
  const e = SP.$('#error');
  e.textContent = sentence;
  e.hidden = false;
};

SP.hideError = () => { SP.$('#error').hidden = true; };

// ---- downloads ------------------------------------------------------------------------

// A file name without its extension.
SP.stem = (name) => name.replace(/\.[^.]*$/, '');

// Saves a Blob under `name` (the browser's download; nothing leaves the machine). The
// last one is kept in SP.lastDownload for the tests.
SP.download = (blob, name) => {
  SP.lastDownload = { blob, name };
  const a = SP.el('a', { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60000);
};

// Saves the selected ranks (the Ranks filter; every rank when it is empty) in `format`,
// written by the library's exporter in the worker and handed over as Blob parts.
SP.exportFile = async (fs, format) => {
  SP.$('#export-list').hidden = true;
  const ranks = fs.opts.ranks.trim();
  SP.status('Exporting ' + fs.name + (ranks ? ' (ranks ' + ranks + ')' : '') + ' as ' + format + '…');
  const reply = await SP.ask(fs, 'export', { format });
  if (reply.error) {
    SP.showError(reply.error);
    SP.status('The export of ' + fs.name + ' failed.');
    return;
  }
  SP.noteIo(fs, reply);
  SP.download(reply.blob || new Blob([]), reply.ok.name);
  SP.lastDownload.parts = reply.parts || 0;
  SP.status('Saved ' + reply.ok.name + ': ' + reply.ok.bytes.toLocaleString('en-US') + ' bytes in ' + Math.round(reply.ms) + ' ms.');
};

SP.toggleExport = (open) => {
  const fs = SP.current;
  const list = SP.$('#export-list');
  list.hidden = open === undefined ? !list.hidden : !open;
  if (!list.hidden && fs) {
    const ranks = fs.opts.ranks.trim();
    SP.$('#export-ranks').textContent = ranks
      ? 'Ranks ' + ranks + ' (the Ranks filter), every region.'
      : 'All ' + fs.info.num_ranks.toLocaleString('en-US') + ' ranks, every region; set Ranks to export fewer.';
    list.querySelector('button').focus();
  }
};

// ---- input ----------------------------------------------------------------------------

SP.bindInput = () => {
  for (const sel of ['#file-input', '#file-input-2']) {
    SP.$(sel).addEventListener('change', (e) => { SP.openFiles(e.target.files, 'input'); e.target.value = ''; });
  }
  let depth = 0;
  const overlay = SP.$('#dropping');
  const hasFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');
  window.addEventListener('dragenter', (e) => { if (!hasFiles(e)) return; e.preventDefault(); depth++; overlay.hidden = false; });
  window.addEventListener('dragover', (e) => { if (hasFiles(e)) e.preventDefault(); });
  window.addEventListener('dragleave', () => { depth = Math.max(0, depth - 1); if (!depth) overlay.hidden = true; });
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    if (e.dataTransfer && e.dataTransfer.files.length) SP.openFiles(e.dataTransfer.files, 'drop');
  });
  SP.$('#views').addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (b && !b.disabled) SP.show(b.dataset.view);
  });
  SP.$('#export-button').addEventListener('click', () => SP.toggleExport());
  SP.$('#help-button').addEventListener('click', () => SP.keymap(true));
  SP.$('#keymap').addEventListener('click', (e) => { if (e.target.id === 'keymap') SP.keymap(false); });
  SP.$('#export-list').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-format]');
    if (b && SP.current) SP.exportFile(SP.current, b.dataset.format);
  });
  document.addEventListener('click', (e) => {
    if (!e.target.closest('#export')) SP.$('#export-list').hidden = true;
  });
  const form = SP.$('#filters');
  form.addEventListener('submit', (e) => e.preventDefault());
  let timer = null;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const fs = SP.current;
      if (!fs) return;
      fs.opts.include = form.include.value;
      fs.opts.exclude = form.exclude.value;
      fs.opts.ranks = form.ranks.value;
      fs.opts.mode = form.mode.value;
      SP.invalidate(fs);
    }, 250);
  };
  form.addEventListener('input', changed);
  form.addEventListener('change', changed);
  document.addEventListener('keydown', SP.onKey);
  // The theme follows the system; canvases read its colours when they draw.
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { if (SP.current) SP.refreshView(SP.current, true); });
};

SP.onKey = (e) => {
  if (!SP.$('#merge').hidden) {
    if (e.key === 'Escape') { SP.merge.cancel(); e.preventDefault(); }
    return;
  }
  const typing = e.target.closest('input, select, textarea');
  if (e.key === 'Escape' && typing) { e.target.blur(); return; }
  if (!SP.$('#keymap').hidden) {
    if (e.key === 'Escape' || e.key === '?') { SP.keymap(false); e.preventDefault(); }
    return;
  }
  if (e.key === 'Escape' && !SP.$('#export-list').hidden) { SP.toggleExport(false); return; }
  if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
  const fs = SP.current;
  if (e.key === 'o' || e.key === 'O') { SP.$('#file-input').click(); e.preventDefault(); return; }
  if (e.key === '?') { SP.keymap(true); e.preventDefault(); return; }
  if (!fs) return;
  if ((e.key === 'e' || e.key === 'E') && !SP.$('#export').hidden) { SP.toggleExport(); e.preventDefault(); return; }
  const views = ['overview', 'regions', 'ranks', 'metadata', 'raw', 'timeline', 'compare', 'runs', 'charts'];
  const n = Number(e.key);
  if (n >= 1 && n <= views.length) {
    const b = SP.$('#views').querySelector('[data-view="' + views[n - 1] + '"]');
    if (!b.disabled) SP.show(views[n - 1]);
    e.preventDefault();
  } else if (e.key === '/') {
    SP.$('#f-include').focus();
    e.preventDefault();
  } else if (SP.views[fs.view] && SP.views[fs.view].key) {
    SP.views[fs.view].key(fs, e);
  }
};

// Shows or hides the keyboard map.
SP.keymap = (open) => { SP.$('#keymap').hidden = !open; };

// Jump to a region's row in the table (from the overview and the heatmap).
SP.goToRegion = (name) => {
  const fs = SP.current;
  if (!fs) return;
  fs.selection.region = name;
  SP.show('regions');
};

// A report (`sp report`) carries its profiles in the page, as base64 in script elements
// (sp::page): open them as if they had been dropped.
SP.openEmbedded = () => {
  const parts = Array.from(document.querySelectorAll('script[type="application/x-sp-profile"]'));
  if (!parts.length) return;
  // Where the report opens (its filters, ranks and sort), unless the URL already says.
  const place = document.querySelector('script[type="application/x-sp-place"]');
  if (place && !location.hash) SP.state.pending = SP.state.parse('#' + place.textContent.trim());
  const files = parts.map((el) => {
    const text = atob(el.textContent.trim());
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    el.textContent = '';  // the base64 is not needed twice
    return new File([bytes], el.dataset.name || 'profile.h5');
  });
  SP.openFiles(files, 'embedded');
};

SP.start = () => {
  SP.state.start();
  SP.merge.bind();
  SP.startWorker();
  SP.bindInput();
  SP.openEmbedded();
};
