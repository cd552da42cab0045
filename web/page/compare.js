'use strict';
// Compare: two open profiles region by region, as `sp diff` and `sp check` compare them.
// The worker answers every number (web/src/compare.rs, the library's analysis::compare),
// this file lays them out: a (the baseline) and b, the metric, a threshold, the budget and
// its PASS/FAIL badge, the rows, the regions only one side has, and the CLI's texts.
SP.compare = {};
const CMP = SP.compare;

SP.views.compare = {
  name: 'compare',
  needs: () => [],
  render: (fs, root) => CMP.render(fs, root),
};

// Columns: the worker orders by delta, pct and name (as `sp diff --sort`); a and b are
// ordered here, by the values it sent.
CMP.COLUMNS = [
  { key: 'name', label: 'region', left: true },
  { key: 'a', label: 'a' },
  { key: 'b', label: 'b' },
  { key: 'delta', label: 'delta' },
  { key: 'pct', label: 'delta %' },
];

CMP.profiles = () => SP.files.filter((f) => f.info.kind === 'profile');

// A file's name, with its tab's number when another open file has the same name.
CMP.label = (fs) => {
  const same = SP.files.filter((f) => f.name === fs.name);
  return same.length > 1 ? fs.name + ' (tab ' + (SP.files.indexOf(fs) + 1) + ')' : fs.name;
};

// The comparison state of a file: a and b (open files), the metric, the order, the
// threshold and the budget. A link's state names the files; they are matched when open.
CMP.state = (fs) => {
  if (!fs.cmp) fs.cmp = { a: null, b: null, metric: 'total', sort: 'delta', threshold: '', budget: '0', failOnNew: false };
  const st = fs.cmp;
  const open = CMP.profiles();
  const find = (name) => open.find((f) => f.name === name) || null;
  for (const side of ['a', 'b']) {
    const named = st[side + 'Name'] ? find(st[side + 'Name']) : null;
    if (named) { st[side] = named; delete st[side + 'Name']; }
  }
  if (!open.includes(st.a)) st.a = null;
  if (!open.includes(st.b)) st.b = null;
  if (!st.b) st.b = fs;
  if (!st.a) st.a = open.filter((f) => f !== st.b).pop() || null;
  return st;
};

// Opens the Compare view of `b` against the baseline `a`.
CMP.open = (a, b) => {
  const st = CMP.state(b);
  st.a = a;
  st.b = b;
  b.offer = null;
  SP.select(b);
  SP.show('compare');
};

// After files were opened: two profiles dropped together open compared; a profile opened
// while another is open offers to compare with it.
CMP.afterOpen = (opened) => {
  const profiles = opened.filter((f) => f && f.info.kind === 'profile');
  // A link's comparison, its files opened together: its own a and b.
  const linked = profiles.find((f) => f.cmp && f.view === 'compare');
  if (linked) { SP.select(linked); return; }
  if (profiles.length === 2) { CMP.open(profiles[0], profiles[1]); return; }
  // Three or more at once (a series, a folder): the runs table.
  // Selected on Runs, so no view of the last file asks for what Runs does not show: its
  // index is read when one of its own views first asks.
  if (profiles.length > 2) {
    const last = profiles[profiles.length - 1];
    last.view = 'runs';
    SP.select(last);
    return;
  }
  if (profiles.length !== 1) return;
  const fs = profiles[0];
  fs.offer = CMP.profiles().filter((f) => f !== fs).pop() || null;
  CMP.showOffer(fs);
};

// The banner offering to compare the current file with the one opened before it.
CMP.showOffer = (fs) => {
  let bar = SP.$('#compare-offer');
  if (!bar) {
    bar = SP.el('div', { class: 'notice info', id: 'compare-offer', hidden: true });
    SP.$('#notice').after(bar);
  }
  const other = fs && fs.offer && CMP.profiles().includes(fs.offer) ? fs.offer : null;
  bar.hidden = !other || fs !== SP.current || fs.view === 'compare';
  if (bar.hidden) return;
  bar.replaceChildren(
    fs.name + ' is open beside ' + other.name + '. ',
    SP.el('button', { class: 'button primary', id: 'compare-offer-go', text: 'Compare with ' + other.name, title: 'a = ' + other.name + ' (baseline), b = ' + fs.name, onclick: () => CMP.open(other, fs) }),
    ' ',
    SP.el('button', { class: 'button', text: 'Dismiss', onclick: () => { fs.offer = null; bar.hidden = true; } }));
};

// The request for the current state; its key says whether a stored answer still holds.
CMP.args = (fs, st) => {
  const o = SP.optionArgs(fs);
  const num = (text) => (text.trim() === '' || !Number.isFinite(Number(text)) ? null : Number(text));
  return {
    file: st.a.id, other: st.b.id, metric: st.metric,
    order: ['delta', 'pct', 'name'].includes(st.sort.replace(/^-/, '')) ? st.sort.replace(/^-/, '') : 'delta',
    threshold: num(st.threshold), max_regression: num(st.budget) === null ? 0 : num(st.budget), fail_on_new: st.failOnNew,
    include: o.include, exclude: o.exclude, ranks: o.ranks,
  };
};

CMP.render = (fs, root) => {
  const st = CMP.state(fs);
  CMP.showOffer(fs);
  if (!st.a || !st.b) {
    root.replaceChildren(SP.el('div', { class: 'compare-empty' },
      SP.el('h2', { text: 'Compare two profiles' }),
      SP.el('p', { class: 'hint', text: 'Open a second profile to compare ' + fs.name + ' with: drop two profiles at once, or one more now.' }),
      SP.el('label', { class: 'button primary' }, 'Open a profile to compare…',
        SP.el('input', { type: 'file', id: 'compare-input', accept: '.h5,.hdf5,.he5,application/x-hdf5', onchange: async (e) => {
          const file = e.target.files[0];
          if (!file) return;
          const other = await SP.openFile(file);
          if (other && other.info.kind === 'profile') CMP.open(fs, other);
        } }))));
    return;
  }
  const args = CMP.args(fs, st);
  const key = JSON.stringify(args);
  const data = fs.data.compare && fs.data.compare.key === key ? fs.data.compare : null;
  root.replaceChildren(CMP.controls(fs, st, data), SP.el('div', { id: 'compare-body' }, data ? CMP.body(fs, st, data) : SP.el('p', { class: 'hint', text: 'Comparing…' })));
  if (!data) CMP.request(fs, args, key);
};

CMP.request = async (fs, args, key) => {
  if (CMP.busy === key) return;
  CMP.busy = key;
  const pct = /^p\d\d$/.test(args.metric);
  SP.status('Comparing ' + CMP.state(fs).b.name + ' with ' + CMP.state(fs).a.name + (pct ? ': reading each region\'s calls for its percentiles…' : '…'));
  const reply = await SP.rpc('compare', args);
  if (CMP.busy === key) CMP.busy = null;
  const st = CMP.state(fs);
  if (reply.ok) {
    st.a.io = reply.ok.io_a;
    st.b.io = reply.ok.io_b;
    if (reply.heap) fs.heap = reply.heap;
    SP.showIo(fs);
  }
  fs.data.compare = reply.error ? { key, error: reply.error } : Object.assign(reply.ok, { key });
  SP.status(reply.error ? reply.error : 'Compared in ' + Math.round(reply.ms) + ' ms.');
  if (fs === SP.current && fs.view === 'compare') CMP.render(fs, SP.$('#view-compare'));
};

CMP.controls = (fs, st, data) => {
  const redraw = () => { SP.state.save(); CMP.render(fs, SP.$('#view-compare')); };
  const pick = (side) => SP.el('select', { id: 'compare-' + side, onchange: (e) => { st[side] = SP.files.find((f) => String(f.id) === e.target.value); redraw(); } },
    CMP.profiles().map((f) => SP.el('option', { value: f.id, selected: st[side] === f, text: CMP.label(f) })));
  const metrics = data && data.metrics ? data.metrics : [[st.metric, st.metric]];
  const metric = SP.el('select', { id: 'compare-metric', title: 'The statistic compared (sp diff --metric)', onchange: (e) => { st.metric = e.target.value; redraw(); } },
    metrics.map(([name, label]) => SP.el('option', { value: name, selected: name === st.metric, text: name, title: label })));
  const field = (id, value, title, set) => SP.el('input', { id, value, class: 'mono', size: 5, spellcheck: 'false', title,
    onchange: (e) => { set(e.target.value); redraw(); } });
  return SP.el('div', { class: 'compare-controls' },
    SP.el('div', { class: 'toolbar' },
      SP.el('label', { title: 'The baseline' }, 'a ', pick('a')),
      SP.el('button', { id: 'compare-swap', title: 'Swap a and b', text: '⇄', onclick: () => { [st.a, st.b] = [st.b, st.a]; redraw(); } }),
      SP.el('label', { title: 'The profile compared with a' }, 'b ', pick('b')),
      SP.el('label', {}, 'metric ', metric),
      SP.el('label', { title: 'Hide regions whose |delta %| is under this (sp diff --threshold)' }, 'threshold ', field('compare-threshold', st.threshold, 'percent; empty: show every region', (v) => { st.threshold = v; }), ' %'),
      SP.el('label', { title: 'The largest increase a region may have (sp check --max-regression)' }, 'max regression ', field('compare-budget', st.budget, 'percent', (v) => { st.budget = v; }), ' %'),
      SP.el('label', { title: 'Regions the baseline lacks fail the check (sp check --fail-on-new)' },
        SP.el('input', { type: 'checkbox', id: 'compare-fail-on-new', checked: st.failOnNew, onchange: (e) => { st.failOnNew = e.target.checked; redraw(); } }), ' fail on new regions')));
};

CMP.body = (fs, st, d) => {
  if (d.error) return SP.el('p', { class: 'error', text: d.error });
  const parts = [CMP.badge(d)];
  parts.push(SP.el('p', { class: 'hint small compare-sides' },
    SP.el('span', { class: 'side' }, SP.el('b', { text: 'a' }), ' ' + d.a.title + (st.a.name === st.b.name ? ', tab ' + (SP.files.indexOf(st.a) + 1) : '')),
    SP.el('span', { class: 'side' }, SP.el('b', { text: 'b' }), ' ' + d.b.title + (st.a.name === st.b.name ? ', tab ' + (SP.files.indexOf(st.b) + 1) : ''))));
  for (const w of d.warnings) parts.push(SP.el('p', { class: 'notice', text: w }));
  const bar = SP.el('div', { class: 'toolbar' },
    SP.el('span', { text: d.rows.length + (d.rows.length === 1 ? ' region' : ' regions') + (d.hidden ? ' · ' + d.hidden + ' under the threshold hidden' : '') }),
    SP.el('button', { id: 'compare-csv', title: 'These rows as sp diff --format csv writes them', text: 'Download CSV', onclick: () => CMP.save(d.downloads.diff_csv, 'diff.csv', 'text/csv') }),
    SP.el('button', { id: 'compare-json', title: 'These rows as sp diff --format json writes them', text: 'Download JSON', onclick: () => CMP.save(d.downloads.diff_json, 'diff.json', 'application/json') }),
    d.downloads.check_json ? SP.el('button', { id: 'compare-check-json', title: 'The check as sp check --format json writes it', text: 'Download check JSON', onclick: () => CMP.save(d.downloads.check_json, 'check.json', 'application/json') }) : null);
  parts.push(bar, CMP.table(fs, st, d));
  const only = (label, names, side) => (names.length ? SP.el('p', { class: 'only', id: 'compare-only-' + side },
    SP.el('b', { text: label + ' (' + names.length + '): ' }),
    names.flatMap((n, i) => [i ? ', ' : '', SP.el('a', { class: 'region', text: n, title: 'Show in the region table of ' + st[side].name, onclick: () => CMP.goTo(st[side], n) })])) : null);
  parts.push(only('Only in a', d.only_in_a, 'a'), only('Only in b', d.only_in_b, 'b'));
  parts.push(SP.el('p', { class: 'legend', text: 'Regions are matched by name; each is one flat row pooled over the ranks (Ranks filter), as sp diff compares them: a is the baseline, delta = b − a, delta % = 100 · delta / a. '
    + 'A region over the budget is marked; hover a cell for its exact value. Percentiles are read from each region\'s calls.' }));
  return parts;
};

// The verdict of `sp check` for the budget: PASS or FAIL and why.
CMP.badge = (d) => {
  const c = d.check;
  if (c.error) return SP.el('div', { class: 'badge error', id: 'compare-badge', dataset: { verdict: 'error' } }, SP.el('strong', { text: 'NO CHECK' }), ' ' + c.error);
  const budget = '+' + (c.max_regression === null ? 'nan' : c.max_regression) + '% (' + d.metric + ')' + (c.fail_on_new ? ', new regions fail' : '');
  const why = c.passed
    ? 'No region is over the budget of ' + budget + '.'
    : c.violations.length + (c.violations.length === 1 ? ' region is' : ' regions are') + ' over the budget of ' + budget + ': ' + c.violations.join(', ') + '.';
  return SP.el('div', { class: 'badge ' + (c.passed ? 'pass' : 'fail'), id: 'compare-badge', dataset: { verdict: c.passed ? 'pass' : 'fail' } },
    SP.el('strong', { text: c.passed ? 'PASS' : 'FAIL' }), SP.el('span', { text: why }));
};

CMP.table = (fs, st, d) => {
  const desc = !st.sort.startsWith('-');
  const col = st.sort.replace(/^-/, '');
  let rows = d.rows.slice();
  if (col === 'a' || col === 'b') {
    rows.sort((x, y) => (x[col] === null) - (y[col] === null) || (y[col] || 0) - (x[col] || 0));
  }
  if (!desc) rows.reverse();
  const thead = SP.el('thead', {}, SP.el('tr', {}, CMP.COLUMNS.map((c) => SP.el('th', {
    class: [c.left ? 'left' : '', 'sortable', col === c.key ? (desc ? 'sorted' : 'sorted up') : ''].join(' ').trim(),
    dataset: { sort: c.key },
    title: 'Sort by ' + c.label + (c.key === 'name' ? '' : ' (largest magnitude first)') + '; click again to reverse',
    onclick: () => { st.sort = col === c.key && desc ? '-' + c.key : c.key; SP.state.save(); CMP.render(fs, SP.$('#view-compare')); },
    text: c.key === 'a' || c.key === 'b' ? d.label.replace(/ \[s\]$/, '') + ' (' + c.key + ')' : c.label,
  }))));
  const max = Math.max(1e-9, ...rows.map((r) => (r.pct === null ? 0 : Math.min(100, Math.abs(r.pct)))));
  const tbody = SP.el('tbody', {}, rows.map((r) => {
    const cell = (k, extra) => SP.el('td', Object.assign({ dataset: { k, v: r[k] === null ? '' : String(r[k]) }, title: r[k] === null ? null : String(r[k]), text: r[k + '_text'] }, extra || {}));
    const dir = r.delta > 0 ? 'up' : r.delta < 0 ? 'down' : '';
    const pct = cell('pct', { class: dir || null });
    if (r.pct !== null) pct.prepend(SP.el('span', { class: 'dbar ' + dir }, SP.el('span', { style: 'width:' + (100 * Math.min(100, Math.abs(r.pct)) / max) + '%' })));
    return SP.el('tr', { class: r.violation ? 'violation' : null, dataset: { name: r.name } },
      SP.el('td', { class: 'name left', title: r.name },
        r.violation ? SP.el('span', { class: 'flag', title: 'Over the budget', text: '✗ ' }) : null,
        SP.el('span', { text: r.name }),
        SP.el('span', { class: 'goto' },
          r.a !== null ? SP.el('a', { class: 'anchor', text: 'a', title: 'Show in the region table of ' + st.a.name, onclick: () => CMP.goTo(st.a, r.name) }) : null,
          r.b !== null ? SP.el('a', { class: 'anchor', text: 'b', title: 'Show in the region table of ' + st.b.name, onclick: () => CMP.goTo(st.b, r.name) }) : null)),
      cell('a', { class: r.a === null ? 'na' : null }), cell('b', { class: r.b === null ? 'na' : null }), cell('delta', { class: dir || null }), pct);
  }));
  return SP.el('table', { class: 'grid compare', id: 'compare-table' }, thead, tbody);
};

// A region's row in the region table of `fs`.
CMP.goTo = (fs, name) => {
  SP.select(fs);
  SP.goToRegion(name);
};

CMP.save = (text, suffix, type) => {
  const st = CMP.state(SP.current);
  SP.download(new Blob([text], { type }), SP.stem(st.a.name) + '_vs_' + SP.stem(st.b.name) + '.' + suffix);
};

// The hash keys of the comparison (see state.js): cmpa, cmpb, metric, threshold, budget,
// failnew, csort.
CMP.hash = (fs, p) => {
  const st = fs.cmp;
  if (!st || fs.view !== 'compare' || !st.a || !st.b) return;
  p.set('cmpa', st.a.name);
  p.set('cmpb', st.b.name);
  p.set('metric', st.metric);
  if (st.threshold) p.set('threshold', st.threshold);
  p.set('budget', st.budget);
  if (st.failOnNew) p.set('failnew', '1');
  if (st.sort !== 'delta') p.set('csort', st.sort);
};

CMP.apply = (fs, s) => {
  if (s.view !== 'compare') return;
  const st = CMP.state(fs);
  if (s.cmpa) st.aName = s.cmpa;
  if (s.cmpb) st.bName = s.cmpb;
  if (s.metric) st.metric = s.metric;
  if (s.threshold !== undefined) st.threshold = s.threshold;
  if (s.budget !== undefined) st.budget = s.budget;
  st.failOnNew = s.failnew === '1';
  if (/^-?(name|a|b|delta|pct)$/.test(s.csort || '')) st.sort = s.csort;
};
