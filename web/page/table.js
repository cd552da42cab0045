'use strict';
// The region table: the rows of `sp inspect` (call tree with (own) rows and recursion, or
// one flat row per region from the index), every column, sortable, foldable, with
// percentiles read on demand for index rows.
SP.table = {
  COLUMNS: [
    { key: 'name', label: 'region', sort: 'name', left: true },
    { key: 'ranks', label: 'ranks', title: 'Ranks with calls' },
    { key: 'calls', label: 'calls', sort: 'calls' },
    { key: 'total', label: 'total', sort: 'total', title: 'Total time over the pooled ranks' },
    { key: 'percent', label: '% session', title: 'Share of the scope_profiler.session total' },
    { key: 'parent_percent', label: '% parent', title: 'Share of the enclosing row\'s wall-clock coverage' },
    { key: 'avg', label: 'avg', sort: 'avg', title: 'Mean time per call' },
    { key: 'spark', label: 'over time', title: 'Mean time per call over the run, every row on the same time axis and scaled to its own peak' },
    { key: 'min', label: 'min', sort: 'min' },
    { key: 'max', label: 'max', sort: 'max' },
    { key: 'std', label: 'std', sort: 'std', title: 'Standard deviation of the call times' },
    { key: 'p50', label: 'p50', sort: 'p50', pct: true },
    { key: 'p95', label: 'p95', sort: 'p95', pct: true },
    { key: 'p99', label: 'p99', sort: 'p99', pct: true },
    { key: 'first', label: 'first', sort: 'first', title: 'Duration of the earliest call' },
    { key: 'last', label: 'last', sort: 'last', title: 'Duration of the latest call' },
    { key: 'imbalance', label: 'imbalance', sort: 'imbalance', title: 'Slowest rank\'s total over the mean rank total, minus one' },
    { key: 'gpu_total', label: 'gpu total', gpu: true },
    { key: 'gpu_avg', label: 'gpu avg', gpu: true },
  ],
  hidden: new Set(),
};

SP.views.regions = {
  name: 'regions',
  kept: true,
  needs: () => ['table'],
  render: (fs, root) => SP.table.render(fs, root),
  key: (fs, e) => SP.table.key(fs, e),
};

SP.table.pathKey = (row) => (row.path ? row.path.join('\u0001') : '\u0002' + row.name);

SP.table.render = (fs, root) => {
  const T = SP.table;
  const data = fs.data.table;
  if (data.error) { root.replaceChildren(SP.el('p', { class: 'error', text: data.error })); return; }
  fs.pct = fs.pct || {};
  fs.spark = fs.spark || {};
  fs.collapsed = fs.collapsed || new Set();
  const rows = data.rows;
  // Columns no row has a value in are left out: GPU times without GPU timing, % session
  // without a scope_profiler.session row.
  const anyGpu = rows.some((r) => r.v.gpu_total !== null);
  const anyPercent = rows.some((r) => r.v.percent !== null);
  const cols = T.COLUMNS.filter((c) => !T.hidden.has(c.key) && (!c.gpu || anyGpu) && (c.key !== 'percent' || anyPercent));
  const tree = fs.opts.sort === 'start' && rows.some((r) => r.path);
  const parents = new Set();
  for (const r of rows) if (r.path && r.path.length > 1) parents.add(r.path.slice(0, -1).join('\u0001'));
  const lazy = data.source === 'index' && fs.info.layout !== 'aggregate';

  const thead = SP.el('thead', {}, SP.el('tr', {}, cols.map((c) => SP.el('th', {
    class: [c.left ? 'left' : '', c.sort ? 'sortable' : '', fs.opts.sort === c.sort ? 'sorted' : ''].join(' ').trim() || null,
    title: (c.title || '') + (c.sort ? (c.title ? ' · ' : '') + 'click to sort' : ''),
    onclick: c.sort ? () => { fs.opts.sort = fs.opts.sort === c.sort ? 'start' : c.sort; SP.invalidate(fs); } : null,
    text: c.label,
  }))));
  const tbody = SP.el('tbody');
  let hiddenBelow = null;
  for (const row of rows) {
    const key = T.pathKey(row);
    if (hiddenBelow !== null) {
      if (row.path && row.path.slice(0, hiddenBelow.length).join('\u0001') === hiddenBelow.join('\u0001') && row.path.length > hiddenBelow.length) continue;
      hiddenBelow = null;
    }
    const isParent = tree && row.path && parents.has(row.path.join('\u0001'));
    const folded = isParent && fs.collapsed.has(key);
    const tr = SP.el('tr', { tabindex: -1, dataset: { name: row.name, path: row.path ? row.path.join(' > ') : '', depth: row.depth, key } });
    if (fs.selection.region === row.name && !tbody.querySelector('tr.selected')) tr.classList.add('selected');
    for (const c of cols) tr.append(T.cell(fs, row, c, { tree, isParent, folded, lazy }));
    tr.addEventListener('click', (e) => {
      if (e.target.classList.contains('tree') && isParent) { T.fold(fs, key); return; }
      const td = e.target.closest('td');
      if (td && td.classList.contains('pending')) { T.percentiles(fs, [row.name]); return; }
      T.selectRow(fs, tr);
    });
    tbody.append(tr);
    if (row.own && !folded) tbody.append(T.ownRow(row, cols, tree));
    if (folded) hiddenBelow = row.path;
  }
  const table = SP.el('table', { class: 'grid regions', id: 'region-table' }, thead, tbody);
  root.replaceChildren(T.toolbar(fs, data, lazy), table, T.legend(fs, data, rows), SP.el('section', { id: 'region-detail', class: 'region-detail', hidden: true }));
  if (fs.selection.region) T.detail(fs, fs.selection.region);
  if (!lazy && !T.hidden.has('spark')) T.sparklines(fs, rows.filter((r) => r.calls > 0 && !fs.spark[r.name]).map((r) => r.name));
  const sel = tbody.querySelector('tr.selected');
  if (sel) sel.scrollIntoView({ block: 'nearest' });
};

SP.table.cell = (fs, row, c, ctx) => {
  if (c.key === 'name') {
    const indent = ctx.tree ? SP.el('span', { class: 'indent', style: 'width:' + (row.depth * 14) + 'px' }) : null;
    const toggle = ctx.tree ? SP.el('span', { class: 'tree' + (ctx.isParent ? '' : ' leaf'), text: ctx.isParent ? (ctx.folded ? '▸' : '▾') : '' }) : null;
    const calls = SP.table.hidden.has('calls') ? SP.el('span', { class: 'calls', text: '×' + row.t.calls }) : null;
    return SP.el('td', { class: 'name left', title: row.path ? row.path.join(' › ') : row.name }, indent, toggle,
      SP.el('span', { text: row.name }), row.recursive ? SP.el('span', { class: 'rec', title: 'Recursive: pools every level of the recursion', text: '↻' }) : null, calls);
  }
  if (c.key === 'ranks') return SP.el('td', { dataset: { k: 'ranks', v: row.ranks }, text: String(row.ranks) });
  if (c.key === 'calls') return SP.el('td', { dataset: { k: 'calls', v: row.calls }, text: row.t.calls });
  if (c.key === 'spark') return SP.table.sparkCell(fs, row, ctx);
  let v = row.v[c.key];
  let t = row.t[c.key];
  if (c.pct && v === null && ctx.lazy && row.calls > 0) {
    const got = fs.pct[row.name];
    if (!got) return SP.el('td', { class: 'pending', dataset: { k: c.key, v: '' }, title: 'Click to read this region\'s calls and compute its percentiles', text: '…' });
    v = got.v[c.key];
    t = got.t[c.key];
  }
  const td = SP.el('td', { dataset: { k: c.key, v: v === null ? '' : String(v) }, title: v === null ? null : String(v) + (c.key.includes('percent') || c.key === 'imbalance' ? ' %' : ' s') });
  if (v === null) { td.classList.add('na'); td.textContent = '–'; return td; }
  td.textContent = t;
  if (c.key === 'percent' && v > 0) td.append(SP.el('span', { class: 'pctbar' }, SP.el('span', { style: 'width:' + Math.min(100, v) + '%' })));
  return td;
};

SP.table.ownRow = (row, cols, tree) => {
  const tr = SP.el('tr', { class: 'own', dataset: { own: row.path.join(' > ') } });
  for (const c of cols) {
    if (c.key === 'name') {
      tr.append(SP.el('td', { class: 'name left', title: 'Time in ' + row.name + ' outside its nested regions' },
        tree ? SP.el('span', { class: 'indent', style: 'width:' + ((row.depth + 1) * 14 + 14) + 'px' }) : null, '(own)'));
      continue;
    }
    const v = row.own.v[c.key];
    tr.append(v === undefined ? SP.el('td') : SP.el('td', { dataset: { k: c.key, v: v === null ? '' : String(v) }, text: v === null ? '–' : row.own.t[c.key] }));
  }
  return tr;
};

SP.table.toolbar = (fs, data, lazy) => {
  const T = SP.table;
  const bar = SP.el('div', { class: 'toolbar' });
  const n = data.rows.length;
  bar.append(SP.el('span', { text: n + (n === 1 ? ' row' : ' rows') }));
  if (fs.tree === 'loaded' && fs.info.layout !== 'aggregate') {
    const seg = SP.el('span', { class: 'seg', title: 'Call tree: the rows of sp inspect. Index: one row per region from the stored statistics, as sp inspect --flat.' });
    for (const [label, tree] of [['call tree', true], ['index', false]]) {
      seg.append(SP.el('button', { 'aria-pressed': fs.useTree === tree, text: label, onclick: () => { if (fs.useTree !== tree) { fs.useTree = tree; SP.invalidate(fs); } } }));
    }
    bar.append(seg);
  } else {
    bar.append(SP.el('span', { class: 'tag', text: data.source === 'tree' ? 'call tree' : 'index: one row per region' }));
  }
  if (lazy) {
    const missing = data.rows.filter((r) => r.calls > 0 && !fs.pct[r.name]).map((r) => r.name);
    bar.append(SP.el('button', {
      disabled: !missing.length || fs.pctBusy,
      title: 'Read the calls of every region in the table and compute p50, p95 and p99',
      text: fs.pctBusy ? 'computing percentiles…' : missing.length ? 'compute percentiles' : 'percentiles computed',
      onclick: () => T.percentiles(fs, missing),
    }));
  }
  const menu = SP.el('span', { class: 'columns-menu' });
  const button = SP.el('button', { text: 'columns ▾', onclick: () => { list.hidden = !list.hidden; } });
  const list = SP.el('div', { class: 'menu', hidden: true }, T.COLUMNS.filter((c) => c.key !== 'name').map((c) => SP.el('label', {},
    SP.el('input', { type: 'checkbox', checked: !T.hidden.has(c.key), onchange: (e) => { if (e.target.checked) T.hidden.delete(c.key); else T.hidden.add(c.key); SP.refreshView(fs); } }),
    ' ' + c.label)));
  menu.append(button, list);
  bar.append(menu);
  bar.append(SP.el('button', { id: 'table-timeline', title: 'The selected region in the timeline of these ranks (T)', text: 'timeline ▸', onclick: () => SP.openTimeline(fs.opts.ranks, fs.selection.region) }));
  bar.append(SP.el('button', { id: 'download-csv', title: 'These rows as sp inspect --format csv writes them for the same options' + (data.source === 'index' ? ' (with --flat: no percentiles)' : ''), text: 'Download CSV', onclick: () => T.downloadCsv(fs) }));
  if (fs.treeError) bar.append(SP.el('span', { class: 'muted', text: fs.treeError }));
  else if (fs.tree === 'too-large') bar.append(SP.el('span', { class: 'muted', text: 'The call tree of ' + fs.info.calls.toLocaleString('en-US') + ' calls is not built in the browser; rows come from the index.' }));
  else if (fs.tree === 'omitted') bar.append(SP.el('span', { class: 'muted', text: SP.omitted(fs) }));
  else if (fs.tree === 'available') bar.append(SP.el('span', { class: 'muted', text: 'reading the call tree…' }));
  return bar;
};

SP.table.legend = (fs, data, rows) => {
  const parts = ['Times in the unit shown; hover a cell for the exact value in seconds.'];
  if (rows.some((r) => r.recursive)) parts.push('↻ marks a recursive row: it pools every level of the recursion; its call count includes nested calls, its total only the outermost ones.');
  if (rows.some((r) => r.own)) parts.push('(own) is the time in a region outside the regions nested in it.');
  if (data.source === 'index') parts.push('Rows from the index give each region as a whole, from its stored statistics; percentiles need the region\'s calls and are read on demand.');
  return SP.el('p', { class: 'legend', text: parts.join(' ') });
};

SP.table.fold = (fs, key) => {
  if (fs.collapsed.has(key)) fs.collapsed.delete(key); else fs.collapsed.add(key);
  SP.table.render(fs, SP.$('#view-regions'));
};

SP.table.selectRow = (fs, tr) => {
  for (const s of tr.parentNode.querySelectorAll('tr.selected')) s.classList.remove('selected');
  tr.classList.add('selected');
  fs.selection.region = tr.dataset.name;
  SP.state.save();
  SP.table.detail(fs, tr.dataset.name);
  tr.focus({ preventScroll: true });
  tr.scrollIntoView({ block: 'nearest' });
};

SP.table.key = (fs, e) => {
  const tbody = SP.$('#region-table tbody');
  if (!tbody) return;
  const rows = Array.from(tbody.querySelectorAll('tr:not(.own)'));
  const cur = tbody.querySelector('tr.selected');
  const i = rows.indexOf(cur);
  if (e.key === 't' && cur) { SP.openTimeline(fs.opts.ranks, cur.dataset.name); e.preventDefault(); return; }
  if (e.key === 'ArrowDown' || e.key === 'j') { SP.table.selectRow(fs, rows[Math.min(rows.length - 1, i + 1)] || rows[0]); e.preventDefault(); }
  else if (e.key === 'ArrowUp' || e.key === 'k') { SP.table.selectRow(fs, rows[Math.max(0, i - 1)] || rows[0]); e.preventDefault(); }
  else if ((e.key === 'ArrowLeft' || e.key === 'ArrowRight') && cur) {
    const key = cur.dataset.key;
    const folded = fs.collapsed.has(key);
    if ((e.key === 'ArrowLeft') !== folded) SP.table.fold(fs, key);
    e.preventDefault();
  }
};

// A row's sparkline (the library's columns, drawn as a line with gaps where no call
// started), or '…' while an index row's calls are not read yet.
SP.table.sparkCell = (fs, row, ctx) => {
  const line = fs.spark[row.name];
  if (!line) {
    if (ctx.lazy && row.calls > 0) return SP.el('td', { class: 'pending spark', dataset: { k: 'spark', v: '' }, title: 'Click to read this region\'s calls for its percentiles and its sparkline', text: '…' });
    return SP.el('td', { class: 'spark na', dataset: { k: 'spark', v: '' } });
  }
  const W = 80, H = 16;
  const cols = line.columns;
  // Each column's height, 0 to 1, from the library (sp::analysis::sparkline), as sp tui's.
  const heights = line.heights;
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('width', W); svg.setAttribute('height', H);
  svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
  svg.setAttribute('class', 'sparkline');
  svg.setAttribute('aria-hidden', 'true');
  // Runs of columns with calls; a lone column is a dot.
  let points = [];
  const flush = () => {
    if (points.length === 1) {
      const c = document.createElementNS(ns, 'circle');
      c.setAttribute('cx', points[0][0]); c.setAttribute('cy', points[0][1]); c.setAttribute('r', 1.5);
      svg.append(c);
    } else if (points.length > 1) {
      const p = document.createElementNS(ns, 'polyline');
      p.setAttribute('points', points.map((q) => q.join(',')).join(' '));
      svg.append(p);
    }
    points = [];
  };
  cols.forEach((v, i) => {
    if (v === null) { flush(); return; }
    const x = ((i + 0.5) / cols.length * W).toFixed(1);
    const y = (H - 2 - heights[i] * (H - 4)).toFixed(1);
    points.push([x, y]);
  });
  flush();
  return SP.el('td', { class: 'spark', dataset: { k: 'spark', v: cols.join(' ') }, title: 'Mean time per call over the run: ' + line.t.min + ' to ' + line.t.max }, svg);
};

// Sparklines of rows whose calls are loaded, all in one request.
SP.table.sparklines = async (fs, names) => {
  if (!names.length || fs.sparkBusy) return;
  fs.sparkBusy = true;
  const gen = fs.gen;
  try {
    const reply = await SP.ask(fs, 'sparklines', { regions: names });
    if (gen !== fs.gen || reply.error) return;
    for (const line of reply.ok.lines) fs.spark[line.region] = line;
    if (fs.view === 'regions' && fs === SP.current) SP.table.render(fs, SP.$('#view-regions'));
  } finally {
    fs.sparkBusy = false;
  }
};

// Percentiles of index rows, one region per request so that other requests interleave.
SP.table.percentiles = async (fs, names) => {
  if (fs.pctBusy) return;
  fs.pctBusy = true;
  const gen = fs.gen;
  let done = 0;
  try {
    for (const name of names) {
      if (gen !== fs.gen) return;
      if (fs.pct[name]) continue;
      SP.status('Computing percentiles of ' + name + ' (' + (++done) + ' of ' + names.length + ')…');
      const reply = await SP.ask(fs, 'percentiles', { region: name, sparkline: !SP.table.hidden.has('spark') });
      if (gen !== fs.gen) return;
      if (reply.error) { SP.showError(reply.error); return; }
      fs.pct[name] = reply.ok;
      SP.noteIo(fs, reply);
      if (reply.ok.sparkline) fs.spark[name] = reply.ok.sparkline;
      if (fs.view === 'regions' && fs === SP.current) SP.table.render(fs, SP.$('#view-regions'));
    }
    SP.status('Percentiles computed for ' + names.length + (names.length === 1 ? ' region.' : ' regions.'));
  } finally {
    fs.pctBusy = false;
    if (fs.view === 'regions' && fs === SP.current && fs.data.table) SP.table.render(fs, SP.$('#view-regions'));
  }
};

// The rows as `sp inspect --format csv` writes them, from the library's CSV writer.
SP.table.downloadCsv = async (fs) => {
  const reply = await SP.ask(fs, 'csv');
  if (reply.error) { SP.showError(reply.error); return; }
  SP.download(new Blob([reply.ok.csv], { type: 'text/csv' }), SP.stem(fs.name) + '.csv');
};

// The selected region's detail, under the table (sp tui's Detail, from the same library
// code): its flat row on each rank, the ranks with the most time first, its source and GPU
// time. Asked for after the selection is drawn, so moving through the table stays quick.
SP.table.detail = async (fs, name) => {
  const panel = SP.$('#region-detail');
  if (!panel) return;
  panel.dataset.region = name;
  const d = (await SP.ask(fs, 'detail', { region: name })).ok;
  if (panel.dataset.region !== name) return;
  if (!d) { panel.hidden = true; return; }
  const head = SP.el('tr', null, ...['rank', 'calls', 'total', 'avg', 'min', 'max'].map((h) => SP.el('th', { text: h })));
  const body = [];
  for (let i = 0; i < d.cells.length; i += 6) body.push(SP.el('tr', null, ...d.cells.slice(i, i + 6).map((v) => SP.el('td', { text: v }))));
  panel.replaceChildren(
    SP.el('header', null, SP.el('b', { text: d.name }), SP.el('span', { class: 'muted', text: ' · ' + d.facts.join(' · ') }),
      SP.el('button', { class: 'x', title: 'Close', text: '×', onclick: () => { panel.hidden = true; } })),
    SP.el('table', { class: 'grid' }, SP.el('thead', null, head), SP.el('tbody', null, ...body)), SP.table.histogram(fs, name));
  panel.hidden = false;
};

// The region's call durations in equal bins (the library's histogram), read from its calls:
// at once when they are in memory, else on a click.
SP.table.histogram = (fs, name) => {
  const box = SP.el('div', { class: 'hist' });
  const draw = async () => {
    box.replaceChildren(SP.el('span', { class: 'muted', text: 'Reading the calls of ' + name + '…' }));
    const reply = await SP.ask(fs, 'histogram', { region: name });
    if (reply.error) { box.replaceChildren(SP.el('span', { class: 'error', text: reply.error })); return; }
    SP.noteIo(fs, reply);
    const h = reply.ok;
    const top = Math.max(...h.counts);
    const calls = h.counts.reduce((a, b) => a + b, 0);
    box.replaceChildren(
      SP.el('div', { class: 'bars' }, ...h.counts.map((c) => SP.el('span', { title: c.toLocaleString('en-US') + ' calls', style: 'height:' + (100 * c / top) + '%' }))),
      SP.el('div', { class: 'axis muted' }, SP.el('span', { text: h.low }), SP.el('span', { text: calls.toLocaleString('en-US') + ' calls in ' + h.counts.length + ' bins of duration' }), SP.el('span', { text: h.high })));
  };
  if (fs.tree === 'loaded') draw();
  else box.append(SP.el('button', { class: 'button', text: 'histogram of the calls', onclick: draw }));
  return box;
};
