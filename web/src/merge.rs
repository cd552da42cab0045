//! Merging traces in the page: the library's convert pipeline ([`sp::convert::convert`]),
//! its jobs run one after another in the worker, over the dropped `.spt` traces and
//! per-rank `.h5` profiles read where they lie. The profile is written in memory, handed to
//! the page in parts (it becomes a `Blob` the page opens like a dropped file and can save),
//! and freed: the same bytes as `sp convert FILES… --label LABEL`.

use sp::sort::SortSlice;
use std::io;

use serde_json::{json, Value as Json};
use sp::convert::{convert, Deflate, Input, Options, Sources};

use crate::download::PART;
use crate::session::Answer;
use crate::source::{Bytes, Source};

/// The inputs of one merge, at most this many bytes in all: the profile is built in the
/// module's memory, and is about as large as its inputs.
pub const MAX_INPUT_BYTES: u64 = 512 << 20;

/// The label `sp convert` gives a run when it is asked for none: the stem of its default
/// output, `profiling_data.h5`.
pub const DEFAULT_LABEL: &str = "profiling_data";

/// A dropped file to merge.
pub struct Dropped {
    pub name: String,
    pub bytes: Bytes,
}

/// The dropped files, by input number, behind the page's block cache.
struct DroppedSources(Vec<Source>);

impl Sources for DroppedSources {
    type Source = Source;

    fn open(&self, input: usize) -> io::Result<Source> {
        self.0
            .get(input)
            .cloned()
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }
}

/// Merges `files` as `sp convert` merges the same files given by name (sorted by name; a
/// `.h5` name is a profile, anything else a trace) with `--label` (the default label when
/// `None` or empty) and `--compress` as `compress` says; the profile goes to `emit` in parts. The answer
/// says what was merged: `name` (`LABEL.h5`), `bytes`, `inputs` (the names in merge order),
/// `regions` and `calls`.
pub fn merge(
    mut files: Vec<Dropped>,
    label: Option<&str>,
    compress: Option<Deflate>,
    emit: &mut dyn FnMut(&[u8]),
) -> Answer {
    if files.is_empty() {
        return Err("There are no traces to merge.".into());
    }
    files.sort_stable_by(|a, b| a.name.cmp(&b.name));
    if let Some(w) = files.windows(2).find(|w| w[0].name == w[1].name) {
        return Err(format!(
            "Two of the dropped files are named {}: merge files with distinct names.",
            w[0].name
        ));
    }
    let total: u64 = files.iter().map(|f| sp::io::ReadAt::len(&f.bytes)).sum();
    if total > MAX_INPUT_BYTES {
        return Err(format!(
            "These {} files hold {}: the page merges up to {} (the profile is built in \
             memory); use sp convert for larger runs.",
            files.len(),
            sp::analysis::units::bytes_text(total),
            sp::analysis::units::bytes_text(MAX_INPUT_BYTES)
        ));
    }
    let label = label.filter(|l| !l.is_empty()).unwrap_or(DEFAULT_LABEL);
    let inputs: Vec<Input> = files.iter().map(|f| Input::new(f.name.as_str())).collect();
    let sources = DroppedSources(files.into_iter().map(|f| Source::new(f.bytes)).collect());
    let options = Options {
        label: Some(label.to_owned()),
        compress,
        ..Options::default()
    };
    let mut profile = Vec::new();
    let converted = convert(&inputs, &sources, &options, &mut profile)
        .map_err(|e| format!("Merging the traces failed: {e}."))?;
    for part in profile.chunks(PART) {
        emit(part);
    }
    Ok(json!({
        "name": format!("{label}.h5"),
        "label": label,
        "bytes": profile.len(),
        "inputs": inputs.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(),
        "regions": converted.region_names.len(),
        "calls": converted.rows.iter().map(|r| r.calls).sum::<u64>(),
    }))
}

/// The request's `label` and `compress`: `true` for `--compress` alone, a level for
/// `--compress=LEVEL`, or absent; a level past 9 is an error.
pub fn options(req: &Json) -> Result<(Option<&str>, Option<Deflate>), String> {
    let compress = match &req["compress"] {
        Json::Bool(true) => Some(Deflate::Runs),
        level => match level.as_u64() {
            Some(l) => Some(
                Deflate::level(l).ok_or("The compression level goes from 0 to 9.".to_owned())?,
            ),
            None => None,
        },
    };
    Ok((req["label"].as_str(), compress))
}
