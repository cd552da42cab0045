'use strict';
// The overview (the report's headline numbers, findings and hotspots), the metadata and the
// raw HDF5 tree.
SP.views.overview = {
  name: 'overview',
  kept: true,
  needs: () => ['overview'],
  render: (fs, root) => SP.overview.render(fs, root),
};

SP.overview = {};

// Text parts: strings, {region} links to the table, {anchor, text} links to a view.
SP.overview.parts = (parts) => parts.map((p) => {
  if (typeof p === 'string') return p;
  if (p.region !== undefined) return SP.el('a', { class: 'region', text: p.region, title: 'Show in the region table', onclick: () => SP.goToRegion(p.region) });
  return SP.el('a', { class: 'anchor', text: p.text, onclick: () => SP.show(p.anchor === 'balance' ? 'ranks' : p.anchor) });
});

SP.overview.render = (fs, root) => {
  const o = fs.data.overview;
  if (o.error) { root.replaceChildren(SP.el('p', { class: 'error', text: o.error })); return; }
  if (o.empty) {
    root.replaceChildren(SP.el('p', { class: 'hint', text: 'No region recorded a call on the selected ranks.' }));
    return;
  }
  const P = SP.overview.parts;
  const kpis = SP.el('div', { class: 'kpis' }, o.kpis.map((k) => SP.el('div', { class: 'kpi ' + k.tone },
    SP.el('div', { class: 'label', text: k.label }),
    SP.el('div', { class: 'value' }, P(k.value)),
    SP.el('div', { class: 'detail', text: k.detail || '\u00a0', title: k.detail || null }))));
  const findings = SP.el('ul', { class: 'findings' }, o.findings.map((f) => SP.el('li', { class: f.tone }, P(f.parts))));
  const parts = [kpis, findings];
  if (o.hotspots.length) {
    const max = Math.max(...o.hotspots.map((h) => h.share), 1e-9);
    const list = SP.el('div', { class: 'hotspots' });
    for (const h of o.hotspots) {
      const label = h.kind === 'outside' ? 'outside every region' : h.kind === 'own' ? h.name + ' (own)' : h.name;
      list.append(
        SP.el('div', { class: 'name', title: h.context.concat([h.name]).join(' › ') },
          h.kind === 'outside' ? SP.el('span', { class: 'muted', text: label }) : SP.el('a', { class: 'region', text: label, onclick: () => SP.goToRegion(h.name) }),
          h.context.length ? SP.el('span', { class: 'ctx', text: ' in ' + h.context.join(' › ') }) : null),
        SP.el('div', { class: 'share', title: h.share + ' %' }, SP.el('span', { style: 'width:' + (100 * h.share / max) + '%' }), SP.el('em', { text: h.share_text })),
        SP.el('div', { class: 'det' }, h.details.join(' · '), h.flag ? SP.el('span', { class: 'flag', text: '⚠ ' + h.flag }) : null));
    }
    parts.push(SP.el('h2', { text: 'Hotspots' }), SP.el('p', { class: 'hint small', text: o.source === 'tree' ? 'Leaves of the call tree and each region\'s own time, largest first, as a share of the session.' : 'Regions by total time, largest first (the index has no call tree, so nested regions are counted inside their parents too).' }), list);
  }
  parts.push(SP.el('p', { class: 'source-note', text: o.source === 'tree'
    ? 'Computed from the call tree, with the rules of scope-profiler\'s HTML report.'
    : 'Computed from the profile\'s index only, with the rules of scope-profiler\'s HTML report over a summary read' + (fs.tree === 'available' ? '; the call tree is being read.' : fs.tree === 'omitted' ? '. ' + SP.omitted(fs) : '.') }));
  root.replaceChildren(...parts);
};

SP.views.metadata = {
  name: 'metadata',
  kept: true,
  needs: () => [],
  render: (fs, root) => {
    const rows = fs.info.metadata || [];
    const info = fs.info;
    const facts = [
      ['file', info.name], ['size', info.size.toLocaleString('en-US') + ' bytes'], ['schema', String(info.schema)],
      ['layout', info.layout], ['ranks', String(info.num_ranks)], ['regions', String(info.regions)],
      ['calls', info.calls.toLocaleString('en-US')],
    ];
    const filter = SP.el('input', { placeholder: 'filter…', class: 'mono', spellcheck: 'false', oninput: () => draw() });
    const body = SP.el('tbody');
    const draw = () => {
      const q = filter.value.toLowerCase();
      body.replaceChildren(...rows.filter(([k, v]) => !q || k.toLowerCase().includes(q) || v.toLowerCase().includes(q))
        .map(([k, v]) => SP.el('tr', {}, SP.el('td', { class: 'key', text: k }), SP.el('td', { class: 'val', text: v }))));
    };
    draw();
    root.replaceChildren(
      SP.el('h2', { text: 'Profile' }),
      SP.el('table', { class: 'grid kv' }, SP.el('tbody', {}, facts.map(([k, v]) => SP.el('tr', {}, SP.el('td', { class: 'key', text: k }), SP.el('td', { class: 'val', text: v }))))),
      SP.el('h2', { text: 'Metadata (' + rows.length + ')' }),
      rows.length ? SP.el('div', { class: 'toolbar' }, filter) : SP.el('p', { class: 'hint', text: 'The profile records no metadata.' }),
      rows.length ? SP.el('table', { class: 'grid kv', id: 'metadata-table' }, body) : null);
  },
};

// The raw view: the HDF5 tree as `sp ls FILE --data` lists it, one object per row: its
// name indented by depth (groups fold), what it is (type, shape, storage), and under it
// its attributes and first values; parts that cannot be read are marked.
SP.views.raw = {
  name: 'raw',
  kept: true,
  needs: () => ['raw'],
  render: (fs, root) => {
    const raw = fs.data.raw;
    if (!raw) { root.replaceChildren(); return; }
    if (raw.error) { root.replaceChildren(SP.el('p', { class: 'error', text: raw.error })); return; }
    fs.rawFolded = fs.rawFolded || new Set();
    const filter = SP.el('input', { placeholder: 'filter paths…', class: 'mono', spellcheck: 'false', value: fs.rawFilter || '', oninput: () => { fs.rawFilter = filter.value; draw(); } });
    const body = SP.el('tbody');
    const draw = () => {
      const q = (fs.rawFilter || '').toLowerCase();
      const rows = [];
      let hidden = null;
      for (const e of raw.entries) {
        if (hidden && e.path.startsWith(hidden)) continue;
        hidden = null;
        if (q && !e.path.toLowerCase().includes(q)) continue;
        const folded = e.kind === 'group' && fs.rawFolded.has(e.path);
        if (folded) hidden = e.path === '/' ? '/' : e.path + '/';
        const toggle = e.kind === 'group'
          ? SP.el('span', { class: 'tree', text: folded ? '▸' : '▾', onclick: () => { if (fs.rawFolded.has(e.path)) fs.rawFolded.delete(e.path); else fs.rawFolded.add(e.path); draw(); } })
          : SP.el('span', { class: 'tree leaf' });
        rows.push(SP.el('tr', { dataset: { path: e.path, kind: e.kind }, class: e.problems ? 'problem' : null },
          SP.el('td', { class: 'path', title: e.path }, SP.el('span', { class: 'indent', style: 'width:' + (q ? 0 : 14 * e.depth) + 'px' }), toggle, SP.el('span', { text: q ? e.path : e.name })),
          SP.el('td', { class: 'val' },
            SP.el('div', { class: 'head', text: e.head }),
            e.lines.length ? SP.el('div', { class: 'lines', text: e.lines.map((l) => l.replace(/^ {4}/, '')).join('\n') }) : null)));
      }
      body.replaceChildren(...rows);
    };
    draw();
    root.replaceChildren(
      SP.el('p', { class: 'hint' }, raw.summary, ' ', SP.el('span', { class: 'muted', text: 'As sp ls --data lists it: the first ' + 8 + ' values of each dataset, every attribute.' })),
      SP.el('div', { class: 'toolbar' }, filter),
      SP.el('table', { class: 'grid raw', id: 'raw-table' },
        SP.el('thead', {}, SP.el('tr', {}, ['object', 'type · shape · storage, then @attributes and = values'].map((h) => SP.el('th', { class: 'left', text: h })))), body));
  },
};
