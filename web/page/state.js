'use strict';
// Where the page is, in the URL hash, so a reload or a shared link comes back to the same
// place once the same file is opened again (a page cannot reopen a file by itself):
//   #file=run.h5&view=ranks&include=solve&exclude=&ranks=0-3&mode=coverage&sort=total
//    &region=solve&rank=2&range=0-64&order=rank&tl=1000_5000&tlranks=0-3
//    &cmpa=before.h5&cmpb=run.h5&metric=p95&threshold=5&budget=10&failnew=1&csort=pct
// `region` and `rank` are the selection (table row, heatmap cell), `range` the heatmap's
// visible ranks (positions in its rank order) and `order` that order, `tl` the timeline's
// time range (ns) and `tlranks` its ranks; `cmp…`, `metric`, `threshold`, `budget`,
// `failnew` and `csort` are the Compare view's (compare.js), `r…` the Runs view's and `s…`
// its scaling study's (runs.js).
SP.state = {
  pending: null,   // the hash read at start, waiting for its file
  KEYS: ['file', 'view', 'include', 'exclude', 'ranks', 'mode', 'sort', 'region', 'rank', 'range', 'order', 'tl', 'tlranks',
    'cmpa', 'cmpb', 'metric', 'threshold', 'budget', 'failnew', 'csort', 'rmetric', 'rregion', 'rgroup', 'rchanges', 'rorder',
    'smode', 'sx', 'smodel', 'spredict', 'skind'],
};

// The hash for the current file (empty when none is open).
SP.state.hash = (fs) => {
  if (!fs) return '';
  const p = new URLSearchParams();
  p.set('file', fs.name);
  p.set('view', fs.view);
  if (fs.info.kind === 'profile') {
    for (const k of ['include', 'exclude', 'ranks', 'mode', 'sort']) if (fs.opts[k]) p.set(k, fs.opts[k]);
    if (fs.selection.region !== undefined) p.set('region', fs.selection.region);
    if (fs.selection.rank !== undefined) p.set('rank', String(fs.selection.rank));
    if (fs.heatView) {
      p.set('range', fs.heatView.from + '-' + fs.heatView.to);
      p.set('order', fs.heatView.order);
    }
    if (fs.tl && fs.tl.t0 !== null) {
      p.set('tl', Math.round(fs.tl.t0) + '_' + Math.round(fs.tl.t1));
      if (fs.tl.ranks) p.set('tlranks', fs.tl.ranks);
    }
    SP.compare.hash(fs, p);
    SP.runs.hash(fs, p);
  }
  return '#' + p.toString();
};

// Writes the current place into the URL (replacing, so Back leaves the page as before),
// once things settle: panning the heatmap asks on every frame, and browsers throttle
// history updates.
SP.state.save = () => {
  clearTimeout(SP.state.timer);
  SP.state.timer = setTimeout(SP.state.write, 100);
};

SP.state.write = () => {
  if (SP.state.pending) return;   // a shared link waits for its file: keep it as it is
  const hash = SP.state.hash(SP.current);
  if (hash !== location.hash && (hash || location.hash)) {
    history.replaceState(null, '', hash || location.pathname + location.search);
  }
};

// The hash as an object of the known keys.
SP.state.parse = (hash) => {
  const p = new URLSearchParams((hash || '').replace(/^#/, ''));
  const s = {};
  for (const k of SP.state.KEYS) if (p.has(k)) s[k] = p.get(k);
  return s.file ? s : null;
};

// Puts a parsed state on a file just opened (the views then draw from it).
SP.state.apply = (fs, s) => {
  const views = ['overview', 'regions', 'ranks', 'metadata', 'raw', 'timeline', 'compare', 'runs', 'charts'];
  if (views.includes(s.view) && (fs.info.kind === 'profile' || s.view === 'raw')) fs.view = s.view;
  if (fs.info.kind !== 'profile') return;
  for (const k of ['include', 'exclude', 'ranks']) if (s[k] !== undefined) fs.opts[k] = s[k];
  if (s.mode === 'coverage' || s.mode === 'exclusive') fs.opts.mode = s.mode;
  if (s.sort) fs.opts.sort = s.sort;
  if (s.region !== undefined) fs.selection.region = s.region;
  if (s.rank !== undefined && /^\d+$/.test(s.rank)) fs.selection.rank = Number(s.rank);
  const tl = /^(-?\d+)_(-?\d+)$/.exec(s.tl || '');
  if (tl && Number(tl[2]) > Number(tl[1])) {
    fs.tl = { ranks: s.tlranks || '', t0: Number(tl[1]), t1: Number(tl[2]), first: 0, region: s.region || null };
  }
  const range = /^(\d+)-(\d+)$/.exec(s.range || '');
  if (range && Number(range[2]) > Number(range[1])) {
    fs.heatView = { from: Number(range[1]), to: Number(range[2]), order: ['rank', 'total', 'region'].includes(s.order) ? s.order : 'rank' };
  }
  SP.compare.apply(fs, s);
  SP.runs.apply(fs, s);
};

// At start: remember the link's place, and say which file it waits for.
SP.state.start = () => {
  SP.state.pending = SP.state.parse(location.hash);
  SP.state.showPending();
  window.addEventListener('hashchange', () => {
    const s = SP.state.parse(location.hash);
    const fs = SP.current;
    if (!s || !fs || s.file !== fs.name || location.hash === SP.state.hash(fs)) return;
    SP.state.apply(fs, s);
    SP.select(fs);
    SP.invalidate(fs);
  });
};

SP.state.showPending = () => {
  const note = SP.$('#link-note');
  const s = SP.state.pending;
  note.hidden = !s;
  if (s) note.textContent = 'This link shows ' + s.file + (s.view ? ' (' + s.view + ')' : '') + ': open that file to come back to the same place.';
};

// A file was opened: if the link waits for it, take its place.
SP.state.take = (fs) => {
  const s = SP.state.pending;
  if (!s) return;
  // Files opened together: the link's file may be a later one of them.
  if (s.file !== fs.name && (SP.opening || []).includes(s.file)) return;
  SP.state.pending = null;   // another file was chosen: the link's place is dropped
  SP.state.showPending();
  if (s.file !== fs.name) return;
  SP.state.apply(fs, s);
};
