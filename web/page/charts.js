'use strict';
// Charts: one profile's kinds of `sp plot`, drawn in the worker by the library's chart layer
// for the filters' regions and ranks and the page's theme: the bytes `sp plot KIND FILE -o
// OUT.svg --theme T` writes, which Save SVG saves. Save PNG rasterises that SVG in the
// browser (sp plot's PNG is painted by tiny-skia, which the page does not carry).
SP.charts = {
  KINDS: [['durations', 'Durations'], ['histogram', 'Histogram'], ['timeseries', 'Timeseries'],
    ['flame_graph', 'Flame graph'], ['flame_chart', 'Flame chart'], ['gantt', 'Gantt'],
    ['density', 'Density'], ['rank_heatmap', 'Rank heatmap'], ['imbalance', 'Imbalance']],
};

SP.views.charts = {
  name: 'charts',
  kept: true,
  needs: () => [],
  render: (fs, root) => SP.charts.render(fs, root),
};

SP.charts.render = async (fs, root) => {
  const C = SP.charts;
  const kind = fs.chart = fs.chart || 'durations';
  const box = SP.el('div', { class: 'chart' }, SP.el('p', { class: 'hint', text: 'Drawing the chart…' }));
  const saves = SP.el('span', { class: 'saves' });
  root.replaceChildren(SP.el('div', { class: 'toolbar' },
    SP.el('span', { class: 'seg', role: 'group' }, C.KINDS.map(([k, label]) => SP.el('button', {
      'aria-pressed': k === kind ? 'true' : 'false', dataset: { kind: k }, text: label,
      onclick: () => { fs.chart = k; C.render(fs, root); SP.state.save(); },
    }))), saves), box);
  SP.status('Drawing the ' + kind + ' chart of ' + fs.name + '…');
  const reply = await SP.ask(fs, 'chart', { kind, theme: SP.theme() });
  if (fs.chart !== kind || !root.contains(box)) return;
  if (reply.error) { box.replaceChildren(SP.el('p', { class: 'error', text: reply.error })); SP.status(reply.error); return; }
  SP.noteIo(fs, reply);
  const { svg, name } = reply.ok;
  const blob = new Blob([svg], { type: 'image/svg+xml' });
  // An <img>: the SVG is shown as a picture, so nothing in it can run or restyle the page.
  const img = SP.el('img', { src: URL.createObjectURL(blob), alt: kind + ' chart of ' + fs.name });
  box.replaceChildren(img);
  saves.replaceChildren(
    SP.el('button', { class: 'button', text: 'Save SVG', onclick: () => SP.download(blob, name) }),
    SP.el('button', { class: 'button', text: 'Save PNG', onclick: () => C.png(img, name.replace(/svg$/, 'png')) }));
  SP.status('Drew the ' + kind + ' chart in ' + Math.round(reply.ms) + ' ms.');
};

// Encoded at once, inside the click: a download started from `toBlob`'s callback is not the
// user's, and the browser holds every later download of the page behind a prompt.
SP.charts.png = (img, name) => {
  const canvas = SP.el('canvas', { width: img.naturalWidth, height: img.naturalHeight });
  canvas.getContext('2d').drawImage(img, 0, 0);
  const text = atob(canvas.toDataURL('image/png').split(',')[1]);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  SP.download(new Blob([bytes], { type: 'image/png' }), name);
};
