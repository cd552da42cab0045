'use strict';
// The timeline: ranks as lanes in numeric order, nested calls stacked (a flame chart). The
// worker reads a rank's rows when its lanes come into view and answers each view with
// rectangles from the library's streaming timeline summary (web/src/timeline.rs); this file
// draws them on a canvas. W/S or the wheel zoom, A/D or a drag pan, hover shows the call,
// a click selects its region's row.
SP.timeline = { LABEL: 78, LANE: 18, AXIS: 22, MARGIN: 0.02, frames: [] };
const TL = SP.timeline;

SP.views.timeline = {
  name: 'timeline',
  needs: () => [],
  render: (fs, root) => TL.render(fs, root),
  key: (fs, e) => TL.key(fs, e),
};

// The timeline state of a file: its ranks (a spec like the Ranks filter; empty = all), the
// view in ns, the first lane shown and the region to highlight.
TL.state = (fs) => {
  if (!fs.tl) fs.tl = { ranks: fs.opts.ranks || '', t0: null, t1: null, first: 0, region: fs.selection.region || null, align: null };
  return fs.tl;
};

// Opens the timeline of `ranks` (a spec), highlighting `region` (from the heatmap and the
// region table).
SP.openTimeline = (ranks, region) => {
  const fs = SP.current;
  if (!fs) return;
  fs.tl = { ranks: ranks || '', t0: null, t1: null, first: 0, region: region || null, align: null };
  SP.show('timeline');
};

TL.render = (fs, root) => {
  const st = TL.state(fs);
  const ranks = SP.el('input', { id: 'tl-ranks', class: 'mono', value: st.ranks, placeholder: 'all', size: 10, spellcheck: 'false',
    onchange: () => { st.ranks = ranks.value.trim(); st.t0 = st.t1 = null; st.first = 0; TL.request(fs); } });
  // Ranks that ran one after another are drawn from their own first call unless unchecked.
  const align = SP.el('input', { type: 'checkbox', id: 'tl-align',
    onchange: () => { st.align = align.checked; st.t0 = st.t1 = null; TL.request(fs); } });
  const canvas = SP.el('canvas', { id: 'timeline', tabindex: '0' });
  const tip = SP.el('div', { class: 'heat-tip', id: 'tl-tip', hidden: true });
  root.replaceChildren(
    SP.el('div', { class: 'toolbar' },
      SP.el('label', {}, 'ranks ', ranks),
      SP.el('button', { text: 'fit', title: 'Show the whole run (F)', onclick: () => { st.t0 = st.t1 = null; TL.request(fs); } }),
      SP.el('label', { class: 'tl-check', title: 'Draw each rank from its own first call (on by itself when the ranks ran one after another)' }, align, 'align ranks'),
      st.region ? SP.el('span', { class: 'muted' }, 'highlighting ', SP.el('strong', { text: st.region }), ' ', SP.el('a', { class: 'anchor', text: 'clear', onclick: () => { st.region = null; TL.draw(fs); } })) : null,
      SP.el('span', { class: 'muted', id: 'tl-info' }),
      SP.el('span', { class: 'muted', title: 'A click on a merged block (pale, with a band at its foot: many calls) zooms to it', text: 'W/S, wheel: zoom · A/D, drag: pan · ↑↓: lanes · click: select' })),
    SP.el('div', { class: 'tl-wrap' }, canvas, tip),
    SP.el('p', { class: 'hint small', id: 'tl-call' }));
  TL.bind(fs, canvas);
  TL.request(fs);
};

// Canvas size in CSS pixels, fitted to the space left in the view.
TL.size = (canvas) => {
  const w = Math.max(300, canvas.parentNode.clientWidth);
  const h = Math.max(200, window.innerHeight - canvas.getBoundingClientRect().top - 60);
  return { w, h };
};

TL.visibleLanes = (h) => Math.max(1, Math.floor((h - TL.AXIS) / TL.LANE));

// Asks the worker for the current view; one request at a time, the latest view wins. A view
// of ranks not yet read comes in steps, each answer saying how far the reading has got
// (`progress`): the next step is asked for (`more`) until Esc stops it.
TL.request = async (fs, more) => {
  const st = TL.state(fs);
  const canvas = SP.$('#timeline');
  if (!canvas) return;
  if (!more) TL.stopped = false;
  if (TL.busy) { TL.again = true; return; }
  TL.busy = true;
  const asked = performance.now();
  const { w, h } = TL.size(canvas);
  const t0 = st.t0 === null ? 0 : st.t0;
  const t1 = st.t1 === null ? 0 : st.t1;
  const sent = performance.now();
  const reply = await SP.ask(fs, 'timeline', { ranks: st.ranks || null, t0, t1, width: w - TL.LABEL, first: st.first, count: TL.visibleLanes(h) + 1, align: st.align });
  const got = performance.now();
  TL.busy = false;
  if (reply.error) {
    SP.$('#tl-info').textContent = fs.tree === 'omitted' ? SP.omitted(fs) : reply.error;
  } else {
    st.data = reply.ok;
    st.rects = reply.bin ? new Float32Array(reply.bin) : new Float32Array(0);
    st.drawn = { t0, t1, width: w - TL.LABEL };
    const align = SP.$('#tl-align');
    if (align) align.checked = reply.ok.aligned;
    if (st.t0 === null && reply.ok.extent) {
      // The first answer gives the extent of the calls read: fit it with a small margin,
      // then draw for real.
      const [lo, hi] = reply.ok.extent;
      const margin = Math.max(1, (hi - lo) * TL.MARGIN);
      [st.t0, st.t1] = [lo - margin, hi + margin];
      TL.again = true;
    } else {
      const d0 = performance.now();
      TL.draw(fs);
      TL.frames.push({ total: performance.now() - asked, worker: reply.ms, draw: performance.now() - d0, before: sent - asked, wait: got - sent - reply.ms });
    }
    SP.state.save();
  }
  if (TL.again) { TL.again = false; TL.request(fs); }
  else if (reply.ok && reply.ok.progress && !TL.stopped) TL.request(fs, 1);
};

// The colour of region `id` (its index in the profile's region table) in file `fs`: the
// library's one colour function (sp::chart::color, the same colours as `sp plot`), sent
// with the file when it opened: golden-angle hues, so neighbours differ and the same region
// has the same colour in every lane, chart and load; lighter in the light theme. A merged
// block (many calls, `merged`) takes its dominant region's hue, paler and greyer (with a
// band of the full colour at its foot), so it reads apart from one call. The one colour
// function of the page: use it wherever a region needs a colour.
SP.regionColor = (fs, id, dark, merged) => {
  const colors = fs.info.region_colors;
  const list = colors && colors[(dark ? 'dark' : 'light') + (merged ? '_merged' : '')];
  return (list && list[id]) || (dark ? '#555b66' : '#b8bec9');
};

// A count with thousands separators (toLocaleString is slow for a label per shape).
TL.count = (n) => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

// `text` cut to `max` pixels with an ellipsis ('' when fewer than three letters fit).
TL.fit = (ctx, text, max) => {
  const width = (s) => {
    let w = TL.widths.get(s);
    if (w === undefined) { w = ctx.measureText(s).width; if (TL.widths.size > 5000) TL.widths.clear(); TL.widths.set(s, w); }
    return w;
  };
  const full = width(text);
  if (full <= max) return text;
  let n = Math.floor(text.length * (max - width('…')) / full);
  while (n > 2 && width(text.slice(0, n) + '…') > max) n--;
  return n > 2 ? text.slice(0, n) + '…' : '';
};
TL.widths = new Map();

TL.draw = (fs) => {
  const st = TL.state(fs);
  const canvas = SP.$('#timeline');
  if (!canvas || !st.data) return;
  const { w, h } = TL.size(canvas);
  const dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.style.width = w + 'px';
    canvas.style.height = h + 'px';
  }
  // Opaque: the compositor blends nothing under it.
  const ctx = canvas.getContext('2d', { alpha: false, desynchronized: true });
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const css = getComputedStyle(document.documentElement);
  const v = (name) => css.getPropertyValue(name);
  const dark = SP.theme() === 'dark';
  ctx.fillStyle = v('--bg');
  ctx.fillRect(0, 0, w, h);
  const { lanes, regions } = st.data;
  const span = st.t1 - st.t0;
  const width = w - TL.LABEL;
  // Every other rank's lanes on a faint band, so ranks read apart.
  ctx.fillStyle = v('--bg-alt');
  for (let l = st.first; l < lanes.length; l++) {
    const y = TL.AXIS + (l - st.first) * TL.LANE;
    if (y > h) break;
    if (lanes[l][0] % 2 === 1) ctx.fillRect(TL.LABEL, y, width, TL.LANE);
  }
  // Grid lines at the time axis' ticks: round steps from the start of the calls (each
  // rank's own first call when aligned).
  const origin = st.data.extent ? st.data.extent[0] : st.t0;
  const step = TL.step(span / (width / 110));
  const ticks = [];
  for (let t = origin + Math.ceil((st.t0 - origin) / step) * step; t <= st.t1; t += step) ticks.push([t, TL.LABEL + (t - st.t0) / span * width]);
  ctx.fillStyle = v('--border');
  for (const [, x] of ticks) ctx.fillRect(Math.round(x), TL.AXIS, 1, h - TL.AXIS);
  // The shapes, grouped by colour (a call's region, or a merged block's dominant region):
  // one fill style per colour, the others dimmed when a region is highlighted.
  const highlight = st.region === null ? -1 : regions.indexOf(st.region);
  const r = st.rects;
  const groups = new Map();
  const labels = [];
  const group = (key) => {
    let g = groups.get(key);
    if (!g) { g = []; groups.set(key, g); }
    return g;
  };
  for (let k = 0; k < r.length; k += 5) {
    const y = TL.AXIS + (r[k + 2] - st.first) * TL.LANE;
    if (y > h || y < TL.AXIS) continue;
    const x0 = TL.LABEL + Math.max(-1, r[k]);
    const x1 = TL.LABEL + Math.min(width + 1, r[k + 1]);
    if (x1 <= TL.LABEL) continue;
    const region = r[k + 3];
    // A pixel between neighbours once they are wide enough to show one.
    const wide = x1 - x0;
    const w = Math.max(1, wide - (wide > 3 ? 1 : 0));
    if (r[k + 4] > 1) {
      // A merged block: its dominant region's pale colour, with a band of the full
      // colour along its foot.
      group(region * 2 + 1).push(x0, y + 1, w, TL.LANE - 5);
      group(region * 2).push(x0, y + TL.LANE - 4, w, 3);
    } else {
      group(region * 2).push(x0, y + 1, w, TL.LANE - 2);
    }
    if (wide > 36) labels.push(k, x0, y, wide);
  }
  // (fillRect, not one path of rects: the browser paints rectangles faster.)
  for (const [key, list] of groups) {
    const region = key >> 1;
    ctx.globalAlpha = highlight >= 0 && region !== highlight ? 0.25 : 1;
    ctx.fillStyle = SP.regionColor(fs, region, dark, key & 1);
    for (let i = 0; i < list.length; i += 4) ctx.fillRect(list[i], list[i + 1], list[i + 2], list[i + 3]);
  }
  ctx.globalAlpha = 1;
  // Names inside shapes wide enough, cut with an ellipsis; "×N" on merged blocks.
  ctx.font = '11px ' + v('--sans');
  ctx.textBaseline = 'middle';
  ctx.fillStyle = dark ? '#f2f4f8' : '#141922';
  for (let i = 0; i < labels.length; i += 4) {
    const k = labels[i];
    const region = r[k + 3];
    const calls = r[k + 4];
    const name = regions[region] + (calls > 1 ? ' ×' + TL.count(calls) : '');
    const x = Math.max(labels[i + 1], TL.LABEL) + 4;
    const text = TL.fit(ctx, name, labels[i + 1] + labels[i + 3] - x - 4);
    if (!text) continue;
    ctx.globalAlpha = highlight >= 0 && region !== highlight ? 0.4 : 1;
    ctx.fillText(text, x, labels[i + 2] + TL.LANE / 2);
  }
  ctx.globalAlpha = 1;
  // Lane headers: a rank's first lane names it; a line between ranks.
  ctx.fillStyle = v('--bg-bar');
  ctx.fillRect(0, 0, TL.LABEL, h);
  ctx.fillRect(0, 0, w, TL.AXIS);
  ctx.fillStyle = v('--border-strong');
  ctx.fillRect(TL.LABEL - 1, 0, 1, h);
  ctx.fillRect(0, TL.AXIS - 1, w, 1);
  ctx.font = '600 11px ' + v('--sans');
  for (let l = st.first; l < lanes.length; l++) {
    const y = TL.AXIS + (l - st.first) * TL.LANE;
    if (y > h) break;
    if (lanes[l][1] === 0) {
      ctx.fillStyle = v('--border-strong');
      if (l > st.first) ctx.fillRect(0, y, w, 1);
      ctx.fillStyle = v('--fg');
      ctx.fillText('rank ' + lanes[l][0], 8, y + TL.LANE / 2);
    }
  }
  // The time axis, labelled in a unit that suits the step.
  ctx.font = '11px ' + v('--sans');
  ctx.fillStyle = v('--fg-muted');
  ctx.fillText(st.data.aligned ? 'rank time' : 'run time', 8, TL.AXIS / 2);
  for (const [t, x] of ticks) {
    if (x < TL.LABEL) continue;
    ctx.fillStyle = v('--fg-faint');
    ctx.fillRect(Math.round(x), TL.AXIS - 6, 1, 5);
    ctx.fillStyle = v('--fg-muted');
    ctx.fillText(TL.time(t - origin, step), x + 3, TL.AXIS / 2);
  }
  // The counts line, once the view settles (a DOM change each frame costs a layout).
  clearTimeout(TL.infoTimer);
  TL.infoTimer = setTimeout(() => {
    const info = SP.$('#tl-info');
    const p = st.data.progress;
    if (info) info.textContent = p ? (TL.stopped ? 'stopped at ' + p : 'reading ' + p + ' · Esc stops') : lanes.length + ' lanes · ' + (st.rects.length / 5).toLocaleString('en-US') + ' shapes drawn';
  }, 150);
};

// The theme follows the system: redraw when it changes.
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  if (SP.current && SP.current.tl && SP.$('#timeline')) TL.draw(SP.current);
});

// A round tick step (1, 2 or 5 × 10^k ns) near `raw` ns.
TL.step = (raw) => {
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
};

// A tick label: `ns` since the start, in the largest unit the values reach that shows the
// step with at most three decimals (1.5 ms rather than 1500 µs; 3000.12 µs when zoomed in).
TL.time = (ns, step) => {
  const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs'], [1, 'ns']];
  const reach = Math.max(Math.abs(ns), step);
  const [div, unit] = units.find(([d]) => reach >= d && step / d >= 1e-3) || units[3];
  const digits = Math.max(0, Math.ceil(-Math.log10(step / div) - 1e-9));
  const text = (ns / div).toFixed(digits);
  return (Number(text) === 0 ? '0' : text) + ' ' + unit;
};

// View changes: zoom by `factor` about x (canvas pixels), pan by dx pixels, scroll lanes.
TL.zoom = (fs, factor, x) => { if (TL.zoomView(fs, factor, x)) TL.request(fs); };
TL.pan = (fs, dx) => { if (TL.panView(fs, dx)) TL.request(fs); };

// The view changes alone (the benchmark times the redraws itself).
TL.zoomView = (fs, factor, x) => {
  const st = TL.state(fs);
  const canvas = SP.$('#timeline');
  if (st.t0 === null || !canvas) return false;
  const width = TL.size(canvas).w - TL.LABEL;
  const at = st.t0 + (Math.max(0, x - TL.LABEL) / width) * (st.t1 - st.t0);
  const span = Math.max(10, (st.t1 - st.t0) * factor);
  const share = (at - st.t0) / (st.t1 - st.t0);
  st.t0 = at - share * span;
  st.t1 = st.t0 + span;
  return true;
};

TL.panView = (fs, dx) => {
  const st = TL.state(fs);
  const canvas = SP.$('#timeline');
  if (st.t0 === null || !canvas) return false;
  const shift = dx / (TL.size(canvas).w - TL.LABEL) * (st.t1 - st.t0);
  st.t0 += shift;
  st.t1 += shift;
  return true;
};

TL.scroll = (fs, lanes) => {
  const st = TL.state(fs);
  const total = st.data ? st.data.lanes.length : 0;
  st.first = Math.max(0, Math.min(Math.max(0, total - 1), st.first + lanes));
  TL.request(fs);
};

TL.key = (fs, e) => {
  const canvas = SP.$('#timeline');
  const mid = canvas ? TL.size(canvas).w / 2 + TL.LABEL / 2 : 0;
  const k = e.key.toLowerCase();
  if (k === 'w') TL.zoom(fs, 0.8, mid);
  else if (k === 's') TL.zoom(fs, 1.25, mid);
  else if (k === 'a') TL.pan(fs, -120);
  else if (k === 'd') TL.pan(fs, 120);
  else if (k === 'f') { TL.state(fs).t0 = null; TL.request(fs); }
  else if (k === 'escape' && (TL.state(fs).data || {}).progress) { TL.stopped = true; TL.draw(fs); }
  else if (e.key === 'ArrowDown') TL.scroll(fs, 1);
  else if (e.key === 'ArrowUp') TL.scroll(fs, -1);
  else return;
  e.preventDefault();
};

// The lane and time under a mouse event, or null.
TL.hit = (fs, ev) => {
  const st = TL.state(fs);
  const canvas = SP.$('#timeline');
  const box = canvas.getBoundingClientRect();
  const x = ev.clientX - box.left;
  const y = ev.clientY - box.top;
  if (x < TL.LABEL || y < TL.AXIS || st.t0 === null) return null;
  const lane = st.first + Math.floor((y - TL.AXIS) / TL.LANE);
  const t = st.t0 + (x - TL.LABEL) / (box.width - TL.LABEL) * (st.t1 - st.t0);
  return { lane, t, x, y };
};

// The `timeline_at` request for a hit: the lane, the time and the view last drawn, so the
// worker finds the shape drawn there.
TL.at = (fs, hit) => {
  const d = TL.state(fs).drawn || {};
  return { lane: hit.lane, t: hit.t, t0: d.t0, t1: d.t1, width: d.width };
};

// What is drawn at a hit (the worker's `timeline_at`), with its lane's rank and depth.
TL.call = async (fs, hit) => {
  const reply = await SP.ask(fs, 'timeline_at', TL.at(fs, hit));
  const call = reply.ok && reply.ok.call;
  if (call) [call.rank, call.depth] = TL.state(fs).data.lanes[hit.lane];
  return call;
};

// What the pointer is over, in words: a call, or a merged block of calls.
TL.describe = (call) => call.merged
  ? call.calls.toLocaleString('en-US') + ' calls merged · mostly ' + call.name + ' (' + Math.round(call.share * 100) + '% of their ' + call.busy_text +
    ') · rank ' + call.rank + ' · depth ' + call.depth + ' · ' + call.duration_text + ' from ' + call.start_text
  : call.name + ' · rank ' + call.rank + ' · depth ' + call.depth + ' · ' + call.duration_text + ' at ' + call.start_text;

TL.bind = (fs, canvas) => {
  let drag = null;
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    if (ev.shiftKey) { TL.scroll(fs, Math.sign(ev.deltaY) * 3); return; }
    const box = canvas.getBoundingClientRect();
    TL.zoom(fs, ev.deltaY > 0 ? 1.25 : 0.8, ev.clientX - box.left);
  }, { passive: false });
  canvas.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, y: ev.clientY, moved: false, lane: 0 }; });
  window.addEventListener('mouseup', () => { setTimeout(() => { drag = null; }, 0); });
  canvas.addEventListener('mousemove', async (ev) => {
    if (drag && (ev.buttons & 1)) {
      const dx = ev.clientX - drag.x;
      const dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
      drag.x = ev.clientX;
      if (Math.abs(dy) >= TL.LANE) { TL.scroll(fs, -Math.trunc(dy / TL.LANE)); drag.y = ev.clientY; }
      if (dx) TL.pan(fs, -dx);
      return;
    }
    const hit = TL.hit(fs, ev);
    const tip = SP.$('#tl-tip');
    if (!hit) { tip.hidden = true; return; }
    const call = await TL.call(fs, hit);
    if (!call) { tip.hidden = true; return; }
    tip.hidden = false;
    tip.textContent = TL.describe(call);
    tip.style.left = Math.max(0, Math.min(hit.x + 14, canvas.clientWidth - tip.offsetWidth - 4)) + 'px';
    tip.style.top = (hit.y + 16) + 'px';
  });
  canvas.addEventListener('mouseleave', () => { SP.$('#tl-tip').hidden = true; });
  canvas.addEventListener('click', async (ev) => {
    if (drag && drag.moved) return;
    const hit = TL.hit(fs, ev);
    if (!hit) return;
    const call = await TL.call(fs, hit);
    if (!call) return;
    if (call.merged) {
      // A merged block: zoom to the calls it holds.
      const st = TL.state(fs);
      const margin = Math.max(1, (call.view[1] - call.view[0]) * TL.MARGIN);
      [st.t0, st.t1] = [call.view[0] - margin, call.view[1] + margin];
      SP.$('#tl-call').textContent = TL.describe(call);
      TL.request(fs);
      return;
    }
    SP.$('#tl-call').textContent = call.name + ' on rank ' + call.rank + ': ' + call.duration_text + ', started ' + call.start_text + ' into the run.';
    TL.state(fs).region = call.name;
    SP.goToRegion(call.name);
  });
};
