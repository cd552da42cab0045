'use strict';
// Merging native traces in the page: the dropped .spt traces (and per-rank .h5 profiles
// dropped with them) go to the worker, where the library's convert pipeline merges them
// as `sp convert FILES… --label LABEL` does; the profile comes back as a Blob, opens like
// a dropped file, and "Download profile (.h5)" saves it.
SP.merge = { files: null };

// The label `sp convert` uses when given none: its default output's stem.
SP.merge.DEFAULT_LABEL = 'profiling_data';

// Shows the merge panel for `files`: their names in merge order, a label and compression.
SP.merge.ask = (files) => {
  SP.merge.files = files.slice().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const list = SP.$('#merge-inputs');
  list.replaceChildren(...SP.merge.files.map((f) => SP.el('li', {},
    SP.el('span', { class: 'mono', text: f.name }),
    SP.el('span', { class: 'muted', text: (/\.h5$/.test(f.name) ? 'profile' : 'trace') + ' · ' + f.size.toLocaleString('en-US') + ' bytes' }))));
  SP.$('#merge-title').textContent = 'Merge ' + files.length + (files.length === 1 ? ' file' : ' files') + ' into one profile';
  SP.$('#merge').hidden = false;
  SP.$('#merge-label').focus();
  SP.status('Choose a label, then Merge.');
};

SP.merge.cancel = () => {
  SP.$('#merge').hidden = true;
  SP.merge.files = null;
  SP.status('Ready. Nothing leaves this tab.');
};

// Runs the merge in the worker, then opens the profile it wrote.
SP.merge.run = async () => {
  const files = SP.merge.files;
  if (!files) return;
  const label = SP.$('#merge-label').value.trim() || SP.merge.DEFAULT_LABEL;
  const compress = SP.$('#merge-compress').checked ? true : null;
  SP.$('#merge').hidden = true;
  SP.merge.files = null;
  SP.status('Merging ' + files.length + ' files in this tab…');
  const t0 = performance.now();
  const reply = await SP.rpc('merge', { label, compress }, null, files);
  if (reply.error) {
    SP.showError(reply.error);
    SP.status('The merge failed.');
    return;
  }
  const info = reply.ok;
  const blob = reply.blob || new Blob([]);
  const merged = { blob, name: info.name, label: info.label, inputs: info.inputs, compress, ms: performance.now() - t0 };
  await SP.openFile(new File([blob], info.name, { type: 'application/x-hdf5' }), merged);
  SP.status('Merged ' + info.inputs.length + ' files into ' + info.name + ' (' + info.bytes.toLocaleString('en-US') + ' bytes, ' + info.calls.toLocaleString('en-US') + ' calls) in ' + Math.round(merged.ms) + ' ms.');
};

SP.merge.notice = (fs) => {
  const m = fs.merged;
  return fs.name + ' was merged in this tab from ' + m.inputs.join(', ') + ' (label ' + JSON.stringify(m.label) + (m.compress ? ', gzip' : '') + '), as sp convert merges them. Download profile (.h5) saves it.';
};

SP.merge.download = () => {
  const fs = SP.current;
  if (fs && fs.merged) SP.download(fs.merged.blob, fs.merged.name);
};

SP.merge.bind = () => {
  SP.$('#merge-go').addEventListener('click', SP.merge.run);
  SP.$('#merge-cancel').addEventListener('click', SP.merge.cancel);
  SP.$('#merge-form').addEventListener('submit', (e) => { e.preventDefault(); SP.merge.run(); });
  SP.$('#download-h5').addEventListener('click', SP.merge.download);
};
