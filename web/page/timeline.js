'use strict';
// The timeline: ranks as lanes in numeric order, nested calls stacked (a flame chart). The
// worker reads a rank's rows when its lanes come into view and answers each view with
// level-of-detail rectangles (the library's call tree, web/src/timeline.rs); this file
// draws them on a canvas. W/S or the wheel zoom, A/D or a drag pan, hover shows the call,
// a click selects its region's row.
SP.timeline = { LABEL: 78, LANE: 18, AXIS: 22, frames: [] };
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
  if (!fs.tl) fs.tl = { ranks: fs.opts.ranks || '', t0: null, t1: null, first: 0, region: fs.selection.region || null };
  return fs.tl;
};

// Opens the timeline of `ranks` (a spec), highlighting `region` (from the heatmap and the
// region table).
SP.openTimeline = (ranks, region) => {
  const fs = SP.current;
  if (!fs) return;
  fs.tl = { ranks: ranks || '', t0: null, t1: null, first: 0, region: region || null };
  SP.show('timeline');
};

TL.render = (fs, root) => {
  const st = TL.state(fs);
  const ranks = SP.el('input', { id: 'tl-ranks', class: 'mono', value: st.ranks, placeholder: 'all', size: 10, spellcheck: 'false',
    onchange: () => { st.ranks = ranks.value.trim(); st.t0 = st.t1 = null; st.first = 0; TL.request(fs); } });
  const canvas = SP.el('canvas', { id: 'timeline', tabindex: '0' });
  const tip = SP.el('div', { class: 'heat-tip', id: 'tl-tip', hidden: true });
  root.replaceChildren(
    SP.el('div', { class: 'toolbar' },
      SP.el('label', {}, 'ranks ', ranks),
      SP.el('button', { text: 'fit', title: 'Show the whole run (F)', onclick: () => { st.t0 = st.t1 = null; TL.request(fs); } }),
      st.region ? SP.el('span', { class: 'muted' }, 'highlighting ', SP.el('strong', { text: st.region }), ' ', SP.el('a', { class: 'anchor', text: 'clear', onclick: () => { st.region = null; TL.draw(fs); } })) : null,
      SP.el('span', { class: 'muted', id: 'tl-info' }),
      SP.el('span', { class: 'muted', text: 'W/S or wheel: zoom · A/D or drag: pan · ↑↓: lanes · click: select the region' })),
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

// Asks the worker for the current view; one request at a time, the latest view wins.
TL.request = async (fs) => {
  const st = TL.state(fs);
  const canvas = SP.$('#timeline');
  if (!canvas) return;
  if (TL.busy) { TL.again = true; return; }
  TL.busy = true;
  const asked = performance.now();
  const { w, h } = TL.size(canvas);
  const t0 = st.t0 === null ? 0 : st.t0;
  const t1 = st.t1 === null ? 0 : st.t1;
  const sent = performance.now();
  const reply = await SP.ask(fs, 'timeline', { ranks: st.ranks || null, t0, t1, width: w - TL.LABEL, first: st.first, count: TL.visibleLanes(h) + 1 });
  const got = performance.now();
  TL.busy = false;
  if (reply.error) {
    SP.$('#tl-info').textContent = reply.error;
  } else {
    st.data = reply.ok;
    st.rects = reply.bin ? new Float32Array(reply.bin) : new Float32Array(0);
    st.drawn = { t0, t1, w };
    if (st.t0 === null && reply.ok.extent) {
      // The first answer gives the run's extent: fit it, then draw for real.
      [st.t0, st.t1] = reply.ok.extent;
      TL.again = true;
    } else {
      const d0 = performance.now();
      TL.draw(fs);
      TL.frames.push({ total: performance.now() - asked, worker: reply.ms, draw: performance.now() - d0, before: sent - asked, wait: got - sent - reply.ms });
    }
    SP.state.save();
  }
  if (TL.again) { TL.again = false; TL.request(fs); }
};

// A colour per region id (golden-angle hues), lighter in the light theme; made once.
TL.colors = { dark: [], light: [] };
TL.color = (id, dark) => {
  const cache = dark ? TL.colors.dark : TL.colors.light;
  if (!cache[id]) cache[id] = 'hsl(' + ((id * 137.508) % 360).toFixed(1) + ',55%,' + (dark ? '42%' : '66%') + ')';
  return cache[id];
};

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
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  ctx.fillStyle = css.getPropertyValue('--bg');
  ctx.fillRect(0, 0, w, h);
  const { lanes, regions } = st.data;
  const highlight = st.region === null ? -1 : regions.indexOf(st.region);
  const r = st.rects;
  const merged = css.getPropertyValue('--fg-faint');
  ctx.font = '11px ' + css.getPropertyValue('--sans');
  ctx.textBaseline = 'middle';
  let last = null;
  const labels = [];
  for (let k = 0; k < r.length; k += 5) {
    const lane = r[k + 2] - st.first;
    const y = TL.AXIS + lane * TL.LANE;
    if (y > h) continue;
    const x0 = TL.LABEL + Math.max(0, r[k]);
    const x1 = TL.LABEL + Math.min(w - TL.LABEL, r[k + 1]);
    if (x1 <= TL.LABEL) continue;
    const region = r[k + 3];
    if (region !== last) {
      ctx.globalAlpha = highlight >= 0 && region !== highlight ? 0.3 : 1;
      ctx.fillStyle = region < 0 ? merged : TL.color(region, dark);
      last = region;
    }
    ctx.fillRect(x0, y + 1, Math.max(1, x1 - x0 - (x1 - x0 > 3 ? 1 : 0)), TL.LANE - 2);
    if (region >= 0 && x1 - x0 > 40) labels.push(x0, y, x1 - x0, region);
  }
  ctx.globalAlpha = 1;
  ctx.fillStyle = css.getPropertyValue('--fg');
  for (let k = 0; k < labels.length; k += 4) {
    ctx.fillText(regions[labels[k + 3]], labels[k] + 3, labels[k + 1] + TL.LANE / 2, labels[k + 2] - 6);
  }
  // Lane labels: a rank's first lane names it; a line between ranks.
  ctx.fillStyle = css.getPropertyValue('--bg-bar');
  ctx.fillRect(0, 0, TL.LABEL, h);
  ctx.fillRect(0, 0, w, TL.AXIS);
  ctx.strokeStyle = css.getPropertyValue('--border');
  ctx.fillStyle = css.getPropertyValue('--fg');
  for (let l = st.first; l < lanes.length; l++) {
    const y = TL.AXIS + (l - st.first) * TL.LANE;
    if (y > h) break;
    if (lanes[l][1] === 0) {
      ctx.fillText('rank ' + lanes[l][0], 6, y + TL.LANE / 2);
      ctx.beginPath(); ctx.moveTo(0, y + 0.5); ctx.lineTo(w, y + 0.5); ctx.stroke();
    }
  }
  // Time axis: ticks at a round step, relative to the view's start.
  const span = st.t1 - st.t0;
  const step = TL.step(span / ((w - TL.LABEL) / 110));
  ctx.fillStyle = css.getPropertyValue('--fg-muted');
  for (let t = Math.ceil(st.t0 / step) * step; t <= st.t1; t += step) {
    const x = TL.LABEL + (t - st.t0) / span * (w - TL.LABEL);
    ctx.fillRect(x, TL.AXIS - 5, 1, 5);
    ctx.fillText(TL.time(t - st.data.extent[0], step), x + 3, TL.AXIS / 2);
  }
  // The counts line, once the view settles (a DOM change each frame costs a layout).
  clearTimeout(TL.infoTimer);
  TL.infoTimer = setTimeout(() => {
    const info = SP.$('#tl-info');
    if (info) info.textContent = lanes.length + ' lanes · ' + (st.rects.length / 5).toLocaleString('en-US') + ' shapes drawn';
  }, 150);
};

// A round tick step (1, 2 or 5 × 10^k ns) near `raw` ns.
TL.step = (raw) => {
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
};

// A tick label: time since the run's start, in the step's unit.
TL.time = (ns, step) => {
  const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs'], [1, 'ns']];
  const [div, unit] = units.find(([d]) => step >= d) || units[3];
  return '+' + (ns / div).toFixed(Math.max(0, Math.ceil(-Math.log10(step / div)))) + ' ' + unit;
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
    const reply = await SP.ask(fs, 'timeline_at', { lane: hit.lane, t: hit.t });
    const call = reply.ok && reply.ok.call;
    if (!call) { tip.hidden = true; return; }
    tip.hidden = false;
    tip.textContent = call.name + ' · rank ' + call.rank + ' · depth ' + call.depth + ' · ' + call.duration_text + ' at ' + call.start_text;
    tip.style.left = Math.min(hit.x + 14, canvas.clientWidth - 260) + 'px';
    tip.style.top = (hit.y + 16) + 'px';
  });
  canvas.addEventListener('mouseleave', () => { SP.$('#tl-tip').hidden = true; });
  canvas.addEventListener('click', async (ev) => {
    if (drag && drag.moved) return;
    const hit = TL.hit(fs, ev);
    if (!hit) return;
    const reply = await SP.ask(fs, 'timeline_at', { lane: hit.lane, t: hit.t });
    const call = reply.ok && reply.ok.call;
    if (!call) return;
    SP.$('#tl-call').textContent = call.name + ' on rank ' + call.rank + ': ' + call.duration_text + ', started ' + call.start_text + ' into the run.';
    TL.state(fs).region = call.name;
    SP.goToRegion(call.name);
  });
};
