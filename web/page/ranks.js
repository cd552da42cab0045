'use strict';
// Ranks: the load-balance table and the rank × region heatmap, drawn on a canvas so that
// it stays usable at 10,000 ranks: each pixel column shows the most deviant of the ranks
// it covers, the wheel zooms, dragging pans, a click selects a rank and a region.
SP.ranks = { ROW: 18, LABEL: 190, AXIS: 22 };

SP.views.ranks = {
  name: 'ranks',
  kept: true,
  needs: () => ['balance'],
  render: (fs, root) => SP.ranks.render(fs, root),
  key: (fs, e) => SP.ranks.key(fs, e),
};

SP.ranks.render = (fs, root) => {
  const data = fs.data.balance;
  if (data.error) { root.replaceChildren(SP.el('p', { class: 'error', text: data.error })); return; }
  const b = data.balance;
  if (!b) {
    root.replaceChildren(SP.el('p', { class: 'hint', text: 'Load balance needs at least two ranks with time in the selected regions; this selection has ' + (fs.info.num_ranks === 1 ? 'one rank.' : 'fewer.') }));
    return;
  }
  const R = SP.ranks;
  const n = b.ranks.length;
  const lines = b.lines.length + 1;
  const all = new Float64Array(data.bin);
  const heat = {
    b, n, lines,
    values: all.subarray(0, lines * n),
    shades: all.subarray(lines * n, 2 * lines * n),
    labels: b.lines.map((l) => l.name).concat(['all regions']),
  };
  fs.heat = heat;
  fs.heatView = fs.heatView || { from: 0, to: n, order: 'rank' };
  if (fs.heatView.to > n) Object.assign(fs.heatView, { from: 0, to: n });
  R.order(fs);

  const intro = SP.el('p', { class: 'hint' },
    'Each region\'s ' + b.metric + ' per rank, ' + (b.own ? 'from the call tree' : 'from ' + (data.source === 'index' ? 'the index' : 'the rows')) + '; regions ordered by excess, the time the slowest rank spends above the mean. ',
    b.slowest_rank !== null ? SP.el('strong', { text: 'Rank ' + b.slowest_rank + ' spends the most time in regions overall.' })
      : 'Every rank spends about the same time in regions overall, so the differences are ranks waiting for each other.');
  const table = R.table(fs, b);
  const tools = SP.el('div', { class: 'toolbar' },
    SP.el('span', { text: n.toLocaleString('en-US') + ' ranks × ' + b.lines.length + ' regions' }),
    SP.el('label', {}, 'order ranks by ', SP.el('select', { id: 'heat-order', onchange: (e) => { fs.heatView.order = e.target.value; R.order(fs); R.draw(fs); } },
      SP.el('option', { value: 'rank', text: 'rank number', selected: fs.heatView.order === 'rank' }),
      SP.el('option', { value: 'total', text: 'time in regions, slowest first', selected: fs.heatView.order === 'total' }),
      SP.el('option', { value: 'region', text: 'selected region, slowest first', selected: fs.heatView.order === 'region' }))),
    SP.el('button', { text: 'show all ranks', onclick: () => { Object.assign(fs.heatView, { from: 0, to: n }); R.draw(fs); } }),
    SP.el('span', { class: 'muted', text: 'wheel: zoom · drag: pan · click: select · arrows: move' }));
  const canvas = SP.el('canvas', { id: 'heatmap', tabindex: 0, 'aria-label': 'Rank by region heatmap' });
  const tip = SP.el('div', { class: 'heat-tip', hidden: true });
  const wrap = SP.el('div', { class: 'heat-wrap' }, canvas, tip);
  const legend = SP.el('div', { class: 'heat-legend' },
    SP.el('span', {}, SP.el('span', { class: 'swatch', style: 'background: linear-gradient(90deg, rgba(var(--cold), .55), rgba(var(--cold), .08))' }), 'below the region\'s mean'),
    SP.el('span', {}, SP.el('span', { class: 'swatch', style: 'background: var(--cell-neutral)' }), 'within 2%'),
    SP.el('span', {}, SP.el('span', { class: 'swatch', style: 'background: linear-gradient(90deg, rgba(var(--hot), .08), rgba(var(--hot), .55))' }), 'above (full colour at +50%)'),
    SP.el('span', { class: 'muted', text: 'A pixel column covering several ranks shows the most deviant of them.' }));
  const detail = SP.el('div', { class: 'selection', id: 'heat-selection', hidden: true });
  root.replaceChildren(SP.el('h2', { id: 'balance', text: 'Load balance' }), intro, table,
    SP.el('h2', { text: 'Rank × region heatmap' }), tools, wrap, legend, detail);
  R.bind(fs, canvas, tip);
  R.draw(fs);
  if (fs.selection.rank !== undefined) R.showSelection(fs);
};

// The report's limit: the lines with the largest excess, the rest behind "show all".
SP.ranks.LINES = 12;

SP.ranks.table = (fs, b) => {
  // Past 256 ranks the library adds each line's distribution: quartiles and outlier ranks.
  const spread = b.spread;
  const head = ['region', 'mean', 'min', 'max', 'slowest rank', 'imbalance', 'excess', 'min · mean · max'];
  if (spread) head.splice(4, 0, 'quartiles', 'outlier ranks');
  const tbody = SP.el('tbody');
  const shown = fs.allLines ? b.lines : b.lines.slice(0, SP.ranks.LINES);
  const outliers = (s, name) => {
    if (!s) return SP.el('td', { text: '-' });
    const td = SP.el('td', { class: 'left outliers', title: s.outlier_count + ' ranks beyond 1.5 × the interquartile range' },
      s.outlier_count.toLocaleString('en-US') + (s.outliers.length ? ': ' : ''));
    s.outliers.slice(0, 3).forEach((o, i) => {
      if (i) td.append(', ');
      td.append(SP.el('a', { class: 'region', text: 'rank ' + o.rank, title: o.text + ' · select this rank', onclick: () => SP.ranks.select(fs, o.rank, name) }));
    });
    return td;
  };
  for (const l of shown) {
    const s = spread ? spread[b.lines.indexOf(l)] : null;
    const extra = spread ? [SP.el('td', { text: s ? s.quartiles_text : '-', title: 'first quartile · median · third quartile' }), outliers(s, l.name)] : [];
    tbody.append(SP.el('tr', { dataset: { name: l.name }, class: fs.selection.region === l.name ? 'selected' : null },
      SP.el('td', { class: 'name left' }, SP.el('a', { class: 'region', text: l.name, onclick: () => SP.goToRegion(l.name) })),
      SP.el('td', { text: l.mean_text, title: l.mean + ' s' }),
      SP.el('td', { text: l.min_text, title: l.min + ' s' }),
      SP.el('td', { text: l.max_text, title: l.max + ' s' }),
      ...extra,
      SP.el('td', {}, SP.el('a', { class: 'region', text: String(l.slowest), title: 'Select this rank', onclick: () => SP.ranks.select(fs, l.slowest, l.name) })),
      SP.el('td', { class: l.flag ? 'flag' : null, text: l.imbalance_text, title: l.imbalance + ' %' }),
      SP.el('td', { text: l.excess_text, title: l.excess + ' s' }),
      SP.el('td', { class: 'left' }, SP.el('span', { class: 'bar' },
        SP.el('span', { class: 'range', style: 'left:' + l.low + '%;width:' + Math.max(0.5, l.high - l.low) + '%' }),
        SP.el('span', { class: 'mean', style: 'left:' + l.mean_pos + '%' })))));
  }
  const table = SP.el('table', { class: 'grid balance', id: 'balance-table' },
    SP.el('thead', {}, SP.el('tr', {}, head.map((h, i) => SP.el('th', { class: i === 0 || h === 'min · mean · max' || h === 'outlier ranks' ? 'left' : null, text: h })))), tbody);
  if (b.lines.length <= SP.ranks.LINES) return table;
  const more = SP.el('div', { class: 'toolbar' }, SP.el('button', {
    text: fs.allLines ? 'show the first ' + SP.ranks.LINES : 'show all ' + b.lines.length + ' regions',
    onclick: () => { fs.allLines = !fs.allLines; SP.ranks.render(fs, SP.$('#view-ranks')); },
  }));
  return SP.el('div', {}, table, more);
};

// The order ranks are drawn in: numeric, or by a line's values, largest first.
SP.ranks.order = (fs) => {
  const h = fs.heat;
  const order = new Uint32Array(h.n).map((_, i) => i);
  let line = -1;
  if (fs.heatView.order === 'total') line = h.lines - 1;
  if (fs.heatView.order === 'region') line = Math.max(0, h.labels.indexOf(fs.selection.region));
  if (line >= 0) {
    const v = h.values.subarray(line * h.n, (line + 1) * h.n);
    order.sort((a, c) => v[c] - v[a] || a - c);
  }
  h.order = order;
};

// The cell colours come from the theme's variables: --hot and --cold ("r, g, b") blended
// over --bg by the shade's alpha, --cell-neutral within the noise.
SP.ranks.palette = () => {
  const css = getComputedStyle(document.documentElement);
  const rgb = (name) => {
    const v = css.getPropertyValue(name).trim();
    if (v.startsWith('#')) return [1, 3, 5].map((i) => parseInt(v.slice(i, i + 2), 16));
    return v.split(',').map(Number);
  };
  return { hot: rgb('--hot'), cold: rgb('--cold'), bg: rgb('--bg'), neutral: rgb('--cell-neutral') };
};

SP.ranks.color = (shade, p) => {
  if (!shade) return p.neutral;
  const c = shade > 0 ? p.hot : p.cold;
  const a = Math.abs(shade);
  return [0, 1, 2].map((i) => Math.round(p.bg[i] + (c[i] - p.bg[i]) * a));
};

SP.ranks.geometry = (fs, canvas) => {
  const R = SP.ranks;
  const h = fs.heat;
  const width = canvas.parentNode.clientWidth;
  const plotW = Math.max(50, width - R.LABEL - 8);
  const height = R.AXIS + h.lines * R.ROW + 6;
  return { width, height, plotW, x0: R.LABEL, y0: R.AXIS };
};

SP.ranks.draw = (fs) => {
  SP.state.save();
  const R = SP.ranks;
  const canvas = SP.$('#heatmap');
  if (!canvas || !fs.heat) return;
  const h = fs.heat;
  const v = fs.heatView;
  const g = R.geometry(fs, canvas);
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(g.width * dpr);
  canvas.height = Math.round(g.height * dpr);
  canvas.style.height = g.height + 'px';
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const css = getComputedStyle(document.body);
  ctx.fillStyle = css.getPropertyValue('--bg');
  ctx.fillRect(0, 0, g.width, g.height);
  // Cells, one device pixel column at a time.
  const span = v.to - v.from;
  const pw = Math.round(g.plotW * dpr);
  const rowPx = Math.round(R.ROW * dpr);
  const img = ctx.createImageData(pw, rowPx * h.lines);
  // Whole pixels through a 32-bit view, one row of a line computed and then copied down the
  // line: per-byte writes through img.data made the first visit cost 40 ms on W2.
  const pixels = new Uint32Array(img.data.buffer);
  const rgba = new Uint8ClampedArray(4);
  const packed = new Uint32Array(rgba.buffer);
  const row = new Uint32Array(pw);
  const palette = R.palette();
  // One colour per distinct shade run: zoomed in, a rank spans many columns.
  const pack = (shade) => {
    const c = R.color(shade, palette);
    rgba[0] = c[0]; rgba[1] = c[1]; rgba[2] = c[2]; rgba[3] = 255;
    return packed[0];
  };
  for (let line = 0; line < h.lines; line++) {
    const shades = h.shades.subarray(line * h.n, (line + 1) * h.n);
    let shown = NaN;
    let color = 0;
    const colorOf = (shade) => {
      if (shade !== shown) { shown = shade; color = pack(shade); }
      return color;
    };
    if (span <= pw) {
      // Each rank covers whole columns (px with floor(px * span / pw) = j).
      for (let j = 0; j < span; j++) {
        const s = shades[h.order[v.from + j]];
        row.fill(colorOf(Math.abs(s) > 0 ? s : 0), Math.ceil(j * pw / span), Math.ceil((j + 1) * pw / span));
      }
    } else {
      for (let px = 0; px < pw; px++) {
        const a = v.from + Math.floor(px * span / pw);
        const z = Math.max(a + 1, v.from + Math.floor((px + 1) * span / pw));
        let best = 0;
        for (let k = a; k < z; k++) {
          const s = shades[h.order[k]];
          if (Math.abs(s) > Math.abs(best)) best = s;
        }
        row[px] = colorOf(best);
      }
    }
    const last = line === h.lines - 1;
    for (let y = line * rowPx + (last ? 2 : 0); y < (line + 1) * rowPx - (last ? 0 : 1); y++) pixels.set(row, y * pw);
  }
  ctx.putImageData(img, Math.round(g.x0 * dpr), Math.round(g.y0 * dpr));
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  // Labels.
  ctx.font = '12px ' + css.getPropertyValue('--sans');
  ctx.textBaseline = 'middle';
  for (let line = 0; line < h.lines; line++) {
    const name = h.labels[line];
    ctx.fillStyle = name === fs.selection.region ? css.getPropertyValue('--accent') : (line === h.lines - 1 ? css.getPropertyValue('--fg-muted') : css.getPropertyValue('--fg'));
    let text = name;
    while (ctx.measureText(text).width > R.LABEL - 12 && text.length > 2) text = text.slice(0, -2) + '…';
    ctx.fillText(text, 4, g.y0 + line * R.ROW + R.ROW / 2);
  }
  // Rank axis: ticks at round rank positions.
  ctx.fillStyle = css.getPropertyValue('--fg-muted');
  ctx.font = '11px ' + css.getPropertyValue('--sans');
  const cellW = g.plotW / span;
  const every = Math.max(1, Math.ceil(70 / cellW));
  const step = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000].find((s) => s >= every) || every;
  for (let k = Math.ceil(v.from / step) * step; k < v.to; k += step) {
    const x = g.x0 + (k - v.from + 0.5) * cellW;
    const label = fs.heatView.order === 'rank' ? String(h.b.ranks[h.order[k]]) : '#' + k;
    ctx.fillText(label, Math.min(g.width - ctx.measureText(label).width - 2, x - ctx.measureText(label).width / 2), 10);
    ctx.fillRect(x, 17, 1, 4);
  }
  // The selection.
  const sel = fs.selection;
  if (sel.rank !== undefined) {
    const col = h.b.ranks.indexOf(sel.rank);
    const pos = Array.prototype.indexOf.call(h.order, col);
    const line = sel.region ? h.labels.indexOf(sel.region) : h.lines - 1;
    if (pos >= v.from && pos < v.to && line >= 0) {
      ctx.strokeStyle = css.getPropertyValue('--fg');
      ctx.lineWidth = 2;
      ctx.strokeRect(g.x0 + (pos - v.from) * cellW - 1, g.y0 + line * R.ROW - 1, Math.max(3, cellW) + 2, R.ROW + 1);
    }
  }
};

// The (rank index in draw order, line) under a point of the canvas, or null.
SP.ranks.hit = (fs, canvas, ev) => {
  const R = SP.ranks;
  const g = R.geometry(fs, canvas);
  const rect = canvas.getBoundingClientRect();
  const x = ev.clientX - rect.left - g.x0;
  const y = ev.clientY - rect.top - g.y0;
  const v = fs.heatView;
  if (x < 0 || x >= g.plotW || y < 0) return null;
  const line = Math.floor(y / R.ROW);
  if (line >= fs.heat.lines) return null;
  const pos = Math.min(v.to - 1, v.from + Math.floor(x * (v.to - v.from) / g.plotW));
  return { pos, line, x, g };
};

SP.ranks.bind = (fs, canvas, tip) => {
  const R = SP.ranks;
  let drag = null;
  let asking = false;
  canvas.addEventListener('wheel', (ev) => {
    const hit = R.hit(fs, canvas, ev);
    if (!hit) return;
    ev.preventDefault();
    const v = fs.heatView;
    const span = v.to - v.from;
    const next = Math.max(Math.min(8, fs.heat.n), Math.min(fs.heat.n, Math.round(span * (ev.deltaY > 0 ? 1.25 : 0.8))));
    const anchor = v.from + hit.x / hit.g.plotW * span;
    let from = Math.round(anchor - (anchor - v.from) * next / span);
    from = Math.max(0, Math.min(fs.heat.n - next, from));
    Object.assign(v, { from, to: from + next });
    R.draw(fs);
  }, { passive: false });
  canvas.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, from: fs.heatView.from, moved: false }; });
  window.addEventListener('mouseup', () => { setTimeout(() => { drag = null; }, 0); });
  canvas.addEventListener('mousemove', async (ev) => {
    const v = fs.heatView;
    if (drag && ev.buttons) {
      const g = R.geometry(fs, canvas);
      const shift = Math.round((drag.x - ev.clientX) * (v.to - v.from) / g.plotW);
      if (shift) drag.moved = true;
      const span = v.to - v.from;
      const from = Math.max(0, Math.min(fs.heat.n - span, drag.from + shift));
      if (from !== v.from) { Object.assign(v, { from, to: from + span }); R.draw(fs); }
      return;
    }
    const hit = R.hit(fs, canvas, ev);
    if (!hit) { tip.hidden = true; return; }
    const rank = fs.heat.b.ranks[fs.heat.order[hit.pos]];
    const region = hit.line < fs.heat.lines - 1 ? fs.heat.labels[hit.line] : null;
    tip.style.left = Math.min(ev.offsetX + 14, canvas.clientWidth - 260) + 'px';
    tip.style.top = (ev.offsetY + 14) + 'px';
    tip.hidden = false;
    tip.textContent = 'rank ' + rank + ' · ' + (region || 'all regions');
    if (asking) return;
    asking = true;
    const reply = await SP.ask(fs, 'cell', { rank, region });
    asking = false;
    if (reply.ok && !tip.hidden && tip.textContent.startsWith('rank ' + rank + ' · ' + (region || 'all regions'))) {
      tip.textContent = 'rank ' + rank + ' · ' + (region || 'all regions') + ' · ' + reply.ok.value_text + ' (' + reply.ok.change_text + ' vs mean)';
    }
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
  canvas.addEventListener('click', (ev) => {
    if (drag && drag.moved) return;
    const hit = R.hit(fs, canvas, ev);
    if (!hit) return;
    const rank = fs.heat.b.ranks[fs.heat.order[hit.pos]];
    const region = hit.line < fs.heat.lines - 1 ? fs.heat.labels[hit.line] : null;
    R.select(fs, rank, region);
    canvas.focus();
  });
  canvas.addEventListener('dblclick', () => { Object.assign(fs.heatView, { from: 0, to: fs.heat.n }); R.draw(fs); });
};

// Selects a rank and a region (null: all regions): outlines the cell, marks the table
// row and says what the cell holds.
SP.ranks.select = (fs, rank, region) => {
  fs.selection.rank = rank;
  if (region) fs.selection.region = region;
  else delete fs.selection.region;
  for (const tr of document.querySelectorAll('#balance-table tbody tr')) tr.classList.toggle('selected', tr.dataset.name === region);
  if (fs.heatView.order === 'region') SP.ranks.order(fs);
  SP.ranks.draw(fs);
  SP.ranks.showSelection(fs);
  SP.state.save();
};

SP.ranks.showSelection = async (fs) => {
  const box = SP.$('#heat-selection');
  if (!box) return;
  const { rank, region } = fs.selection;
  const reply = await SP.ask(fs, 'cell', { rank, region: region || null });
  if (reply.error) { box.hidden = false; box.textContent = reply.error; return; }
  const c = reply.ok;
  box.hidden = false;
  box.dataset.rank = rank;
  box.dataset.region = region || '';
  box.replaceChildren(
    SP.el('strong', { text: 'Rank ' + rank }), ' in ', SP.el('strong', { text: region || 'all regions' }),
    ': ' + c.value_text + ', ' + c.change_text + ' against the mean of ' + c.mean_text + '. ',
    SP.el('button', { class: 'button', text: 'pool only rank ' + rank + ' in the table', onclick: () => {
      fs.opts.ranks = String(rank);
      SP.$('#f-ranks').value = String(rank);
      SP.invalidate(fs);
      SP.goToRegion(region || fs.selection.region);
    } }),
    ' ',
    SP.el('button', { class: 'button', id: 'heat-timeline', text: 'timeline of rank ' + rank, onclick: () => SP.openTimeline(String(rank), region) }));
};

SP.ranks.key = (fs, e) => {
  if (!fs.heat) return;
  const h = fs.heat;
  const sel = fs.selection;
  let pos = sel.rank === undefined ? 0 : Array.prototype.indexOf.call(h.order, h.b.ranks.indexOf(sel.rank));
  let line = sel.region ? h.labels.indexOf(sel.region) : h.lines - 1;
  if (sel.rank === undefined) { pos = fs.heatView.from; line = 0; }
  else if (e.key === 'ArrowRight') pos = Math.min(h.n - 1, pos + 1);
  else if (e.key === 'ArrowLeft') pos = Math.max(0, pos - 1);
  else if (e.key === 'ArrowDown') line = Math.min(h.lines - 1, line + 1);
  else if (e.key === 'ArrowUp') line = Math.max(0, line - 1);
  else return;
  e.preventDefault();
  const tip = SP.$('.heat-tip');
  if (tip) tip.hidden = true;
  const v = fs.heatView;
  const span = v.to - v.from;
  if (pos < v.from) Object.assign(v, { from: pos, to: pos + span });
  if (pos >= v.to) Object.assign(v, { from: pos - span + 1, to: pos + 1 });
  SP.ranks.select(fs, h.b.ranks[h.order[pos]], line < h.lines - 1 ? h.labels[line] : null);
};

window.addEventListener('resize', () => { if (SP.current && SP.current.view === 'ranks') SP.ranks.draw(SP.current); });
