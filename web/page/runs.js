'use strict';
// Runs: the open profiles as one table, as `sp runs` tabulates them. The worker answers
// every number and cell text (web/src/runs.rs, the library's analysis::runs); this file
// lays them out: the baseline, the metric, the region columns, the group-by key, "what
// changed", and the downloads, which are the bytes `sp runs … --format csv|json` prints.
SP.runs = { st: { baseline: null, metric: 'total', region: '', groupBy: '', changes: true, order: 'delta' } };
const RUNS = SP.runs;

SP.views.runs = {
  name: 'runs',
  needs: () => [],
  render: (fs, root) => RUNS.render(root),
};

// The request for the current state; its key says whether the stored answer still holds.
RUNS.args = () => {
  const st = RUNS.st;
  const files = SP.compare.profiles();
  if (!files.includes(st.baseline)) st.baseline = files[0] || null;
  return {
    files: files.map((f) => f.id), baseline: st.baseline ? st.baseline.id : null, metric: st.metric,
    region: st.region.split(/\s+/).filter(Boolean), group_by: st.groupBy || null, changes: st.changes ? 5 : null, order: st.order,
  };
};

RUNS.render = (root) => {
  const files = SP.compare.profiles();
  if (files.length < 2) {
    root.replaceChildren(SP.el('div', { class: 'compare-empty' },
      SP.el('h2', { text: 'Runs' }),
      SP.el('p', { class: 'hint', text: 'Open two or more profiles (drop them together, or a folder) to see them as one table, as sp runs shows them: wall time, ranks, threads, regions, and what changed against a baseline.' })));
    return;
  }
  const args = RUNS.args();
  const key = JSON.stringify(args);
  const data = RUNS.data && RUNS.data.key === key ? RUNS.data : null;
  root.replaceChildren(RUNS.controls(data), SP.el('div', { id: 'runs-body' }, data ? RUNS.body(data) : SP.el('p', { class: 'hint', text: 'Reading the runs…' })));
  if (!data) RUNS.request(args, key);
};

RUNS.request = async (args, key) => {
  if (RUNS.busy === key) return;
  RUNS.busy = key;
  SP.status('Tabulating ' + args.files.length + ' runs…');
  const reply = await SP.rpc('runs', args);
  if (RUNS.busy === key) RUNS.busy = null;
  RUNS.data = reply.error ? { key, error: reply.error } : Object.assign(reply.ok, { key });
  SP.status(reply.error ? reply.error : 'Tabulated ' + args.files.length + ' runs in ' + Math.round(reply.ms) + ' ms.');
  const fs = SP.current;
  if (fs && fs.view === 'runs') RUNS.render(SP.$('#view-runs'));
};

RUNS.controls = (data) => {
  const st = RUNS.st;
  const redraw = () => { SP.state.save(); RUNS.render(SP.$('#view-runs')); };
  const files = SP.compare.profiles();
  const baseline = SP.el('select', { id: 'runs-baseline', title: 'The run the others are compared with (sp runs --baseline)', onchange: (e) => { st.baseline = files.find((f) => String(f.id) === e.target.value); redraw(); } },
    files.map((f) => SP.el('option', { value: f.id, selected: st.baseline === f, text: SP.compare.label(f) })));
  const metrics = data && data.metrics ? data.metrics : [[st.metric, st.metric]];
  const metric = SP.el('select', { id: 'runs-metric', title: 'The statistic of the region columns (sp runs --metric)', onchange: (e) => { st.metric = e.target.value; redraw(); } },
    metrics.map(([name, label]) => SP.el('option', { value: name, selected: name === st.metric, text: name, title: label })));
  const keys = data && data.keys ? data.keys : [];
  const group = SP.el('select', { id: 'runs-group', title: 'Pool runs that share this metadata field (sp runs --group-by)', onchange: (e) => { st.groupBy = e.target.value; redraw(); } },
    SP.el('option', { value: '', text: '(none)', selected: !st.groupBy }),
    keys.map((k) => SP.el('option', { value: k, text: k, selected: k === st.groupBy })));
  return SP.el('div', { class: 'compare-controls' }, SP.el('div', { class: 'toolbar' },
    SP.el('label', {}, 'baseline ', baseline),
    SP.el('label', {}, 'metric ', metric),
    SP.el('label', { title: 'One column per region matching one of these space-separated regexes (sp runs --region)' }, 'regions ',
      SP.el('input', { id: 'runs-region', class: 'mono', size: 20, spellcheck: 'false', value: st.region, placeholder: 'solve mpi_.*', onchange: (e) => { st.region = e.target.value; redraw(); } })),
    SP.el('label', {}, 'group by ', group),
    SP.el('label', { title: 'Each run\'s largest own-time improvements and regressions (sp runs --changes 5)' },
      SP.el('input', { type: 'checkbox', id: 'runs-changes', checked: st.changes, onchange: (e) => { st.changes = e.target.checked; redraw(); } }), ' what changed')));
};

RUNS.body = (d) => {
  if (d.error) return SP.el('p', { class: 'error', text: d.error });
  const bar = SP.el('div', { class: 'toolbar' },
    SP.el('span', { text: d.rows.length + (RUNS.st.groupBy ? ' groups' : ' runs') }),
    SP.el('button', { id: 'runs-csv', title: 'This table as sp runs --format csv writes it', text: 'Download CSV', onclick: () => RUNS.save(d.downloads.csv, 'csv', 'text/csv') }),
    SP.el('button', { id: 'runs-json', title: 'This table as sp runs --format json writes it', text: 'Download JSON', onclick: () => RUNS.save(d.downloads.json, 'json', 'application/json') }));
  const base = RUNS.st.groupBy ? -1 : SP.compare.profiles().indexOf(RUNS.st.baseline);
  // Text columns read from the left; numbers line up on the right.
  const left = d.header.map((h, i) => (i === 0 || ['label', 'host', 'start'].includes(h) ? 'left' : null));
  const table = SP.el('table', { class: 'grid runs', id: 'runs-table' },
    SP.el('thead', {}, SP.el('tr', {}, d.header.map((h, i) => SP.el('th', { class: left[i], text: h })))),
    SP.el('tbody', {}, d.rows.map((row, r) => SP.el('tr', { class: r === base ? 'baseline' : null, title: r === base ? 'The baseline' : null },
      row.map((cell, i) => SP.el('td', { class: left[i], text: cell }))))));
  const parts = [bar, SP.el('div', { class: 'runs-scroll' }, table)];
  if (d.changed) parts.push(SP.el('pre', { class: 'runs-changed', id: 'runs-changed', text: d.changed.join('\n') }));
  if (d.diff) parts.push(...RUNS.diff(d.diff));
  parts.push(SP.el('p', { class: 'legend', text: 'One row per open profile, read from its index, as sp runs reads it: wall is the time from the first region entry to the last exit, wall_pct its change against the baseline. Region columns give the metric per region; group by pools the runs that share a metadata value (mean, median, min, max, cv).' }));
  parts.push(RUNS.scaling());
  return parts;
};

// Every run's regions against the baseline's, as `sp diff FILES… --baseline B` compares
// them: the metric per run, and each other run's delta and delta %.
RUNS.diff = (d) => {
  const st = RUNS.st;
  const order = SP.el('select', { id: 'runs-order', title: 'Order of the regions (sp diff --sort)', onchange: (e) => { st.order = e.target.value; SP.state.save(); RUNS.render(SP.$('#view-runs')); } },
    ['delta', 'pct', 'name'].map((o) => SP.el('option', { value: o, text: o, selected: o === d.order })));
  const bar = SP.el('div', { class: 'toolbar' },
    SP.el('span', { text: d.rows.length + (d.rows.length === 1 ? ' region' : ' regions') }),
    SP.el('label', {}, 'order ', order),
    SP.el('button', { id: 'runs-diff-csv', title: 'These rows as sp diff FILES… --format csv writes them', text: 'Download CSV', onclick: () => SP.download(new Blob([d.downloads.csv], { type: 'text/csv' }), 'diff.csv') }),
    SP.el('button', { id: 'runs-diff-json', title: 'These rows as sp diff FILES… --format json writes them', text: 'Download JSON', onclick: () => SP.download(new Blob([d.downloads.json], { type: 'application/json' }), 'diff.json') }));
  const table = SP.el('table', { class: 'grid runs', id: 'runs-diff' },
    SP.el('thead', {}, SP.el('tr', {}, d.header.map((h, i) => SP.el('th', { class: i ? null : 'left', text: h })))),
    SP.el('tbody', {}, d.rows.map((row) => SP.el('tr', {}, row.map((cell, i) => SP.el('td', { class: i ? null : 'left', text: cell }))))));
  return [SP.el('h2', { text: 'Regions across the runs' }),
    SP.el('p', { class: 'hint small', text: 'Each run (#0 is the first tab) against the baseline, as sp diff compares them: each column holds the numbers sp diff gives for that pair.' }),
    bar, SP.el('div', { class: 'runs-scroll' }, table)];
};

// The runs as a scaling study, as `sp scaling FILES… --mode M --x X [--model]` tabulates it
// and `sp plot KIND FILES…` draws it (the worker answers both): the table, its downloads and
// the chart with its ideal line.
RUNS.sc = { mode: 'both', x: 'auto', kind: 'speedup', model: false, predict: '' };
const SCALING_KINDS = ['speedup', 'scaling_efficiency', 'weak_scaling', 'weak_scaling_efficiency', 'scaling_model'];
RUNS.axes = [];
RUNS.scaling = () => {
  const sc = RUNS.sc;
  const box = SP.el('section', { id: 'runs-scaling' }, SP.el('h2', { text: 'Scaling' }), SP.el('p', { class: 'hint', text: 'Reading the scaling study…' }));
  const redraw = () => { SP.state.save(); box.replaceWith(RUNS.scaling()); };
  const pick = (id, key, values, title) => SP.el('select', { id, title, onchange: (e) => { sc[key] = e.target.value; redraw(); } },
    values.map((v) => SP.el('option', { value: v, text: v.replace(/_/g, ' '), selected: v === sc[key] })));
  // The study depends on the runs and these options only: a change of the baseline or the
  // metric redraws it from the answer kept (issue 37: 0.8 s of the worker on 100 runs).
  const args = { files: RUNS.args().files, mode: sc.mode, x: sc.x, kind: sc.kind, model: sc.model, predict: sc.predict === '' ? null : Number(sc.predict), theme: SP.theme() };
  const key = JSON.stringify(args);
  const kept = RUNS.scKept && RUNS.scKept.key === key ? RUNS.scKept.reply : null;
  (kept ? Promise.resolve(kept) : SP.rpc('scaling', args)).then((reply) => {
    RUNS.scKept = { key, reply };
    const d = reply.ok;
    if (d) RUNS.axes = d.axes;
    const bar = SP.el('div', { class: 'toolbar' },
      SP.el('label', {}, 'mode ', pick('scaling-mode', 'mode', ['both', 'strong', 'weak'], 'sp scaling --mode')),
      SP.el('label', {}, 'x ', pick('scaling-x', 'x', [...new Set(['auto', 'ranks', 'nodes', 'threads', 'cores', ...RUNS.axes, sc.x])], 'The axis (sp scaling --x): a count, or a metadata key the runs vary in')),
      SP.el('label', {}, SP.el('input', { type: 'checkbox', id: 'scaling-model', checked: sc.model, onchange: (e) => { sc.model = e.target.checked; redraw(); } }), ' model'),
      SP.el('label', { title: 'Rank the regions by their modelled share at this scale (sp scaling --predict X)' }, 'predict at ',
        SP.el('input', { id: 'scaling-predict', type: 'number', min: 1, value: sc.predict, style: 'width: 7em', onchange: (e) => { sc.predict = e.target.value; redraw(); } })),
      SP.el('label', {}, 'chart ', pick('scaling-kind', 'kind', SCALING_KINDS, 'sp plot KIND FILES…')),
      d ? SP.el('button', { id: 'scaling-csv', text: 'Download CSV', title: 'sp scaling FILES… --format csv', onclick: () => SP.download(new Blob([d.downloads.csv], { type: 'text/csv' }), 'scaling.csv') }) : null,
      d ? SP.el('button', { id: 'scaling-json', text: 'Download JSON', title: 'sp scaling FILES… --format json', onclick: () => SP.download(new Blob([d.downloads.json], { type: 'application/json' }), 'scaling.json') }) : null,
      d ? SP.el('button', { id: 'scaling-svg', text: 'Save SVG', title: 'sp plot ' + sc.kind + ' FILES… -o ' + d.name, onclick: () => SP.download(new Blob([d.svg], { type: 'image/svg+xml' }), d.name) }) : null,
      d ? SP.el('button', { id: 'scaling-png', text: 'Save PNG', title: 'The chart as a picture, rasterised by the browser', onclick: () => SP.charts.png(img, d.name.replace(/svg$/, 'png')) }) : null);
    // An <img>: the SVG is shown as a picture, so nothing in it can run or restyle the page.
    const img = d ? SP.el('img', { src: URL.createObjectURL(new Blob([d.svg], { type: 'image/svg+xml' })), alt: sc.kind + ' chart of the runs' }) : null;
    box.replaceChildren(SP.el('h2', { text: 'Scaling' }), bar, reply.error ? SP.el('p', { class: 'error', text: reply.error }) : SP.el('div', { class: 'chart' },
      img, SP.el('pre', { class: 'runs-changed', id: 'scaling-text', text: d.text })));
  });
  return box;
};

RUNS.save = (text, suffix, type) => SP.download(new Blob([text], { type }), 'runs.' + suffix);

// The hash keys of the runs table (see state.js): rmetric, rregion, rgroup, rchanges, rorder;
// and of its scaling study, where not the default: smode, sx, smodel, spredict, skind.
RUNS.hash = (fs, p) => {
  if (fs.view !== 'runs') return;
  const st = RUNS.st;
  p.set('rmetric', st.metric);
  if (st.region) p.set('rregion', st.region);
  if (st.groupBy) p.set('rgroup', st.groupBy);
  if (!st.changes) p.set('rchanges', '0');
  if (st.order !== 'delta') p.set('rorder', st.order);
  const sc = RUNS.sc;
  if (sc.mode !== 'both') p.set('smode', sc.mode);
  if (sc.x !== 'auto') p.set('sx', sc.x);
  if (sc.model) p.set('smodel', '1');
  if (sc.predict !== '') p.set('spredict', sc.predict);
  if (sc.kind !== 'speedup') p.set('skind', sc.kind);
};

RUNS.apply = (fs, s) => {
  if (s.view !== 'runs') return;
  const st = RUNS.st;
  if (s.rmetric) st.metric = s.rmetric;
  if (s.rregion !== undefined) st.region = s.rregion;
  if (s.rgroup !== undefined) st.groupBy = s.rgroup;
  st.changes = s.rchanges !== '0';
  if (['delta', 'pct', 'name'].includes(s.rorder)) st.order = s.rorder;
  const sc = RUNS.sc;
  if (['both', 'strong', 'weak'].includes(s.smode)) sc.mode = s.smode;
  if (s.sx) sc.x = s.sx;
  sc.model = s.smodel === '1';
  if (s.spredict !== undefined && Number(s.spredict) > 0) sc.predict = s.spredict;
  if (SCALING_KINDS.includes(s.skind)) sc.kind = s.skind;
};
