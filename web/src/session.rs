//! The files open in the page and the requests about them.
//!
//! Opening a profile reads its index only ([`load::read_summary`]): metadata, region
//! names, and one fixed-size row of statistics per (rank, region). The region table, the
//! overview and the load balance are computed from it at once, as `sp inspect --flat`
//! computes them. When the profile has at most [`TREE_CALLS`] calls the page then asks
//! for the whole read ([`load::read_full`]), which gives the call tree with `(own)` rows
//! and recursion, exactly the rows of `sp inspect`. Larger profiles stay on the index;
//! their percentiles are read per region on demand. Any other HDF5 file opens for its raw
//! view only. A file of a series (`open {…, runs: true}`) that stores its statistics is
//! read for its run alone, as `sp runs` reads it; its index when a view of it first asks.
//!
//! Requests (`op` and its fields) and answers (inside `{"ok": …}`):
//! - `open {blob, name, size, runs}` → the file's id, kind (`profile`, or `hdf5` for any other
//!   HDF5 file, with a `notice`), schema, layout, ranks, regions, calls, `tree`
//!   (`loaded`, `available` or `too-large`), metadata, `ops`, `io` and `region_colors`
//!   (each region's colour per theme, from [`sp::chart::color`]).
//! - `tree {file}` → reads the whole profile; `tree` as above.
//! - `table {file, tree, include, exclude, ranks, sort, mode}` → `rows` (see
//!   [`rows_json`](crate::rows::rows_json)), `source` (`tree` or `index`).
//! - `csv {…same}` → `csv`: the text `sp inspect --format csv` (`--flat` for index rows)
//!   writes for the same options.
//! - `overview {…same}`, `balance {…same}` (heatmap matrix in the binary side buffer),
//!   `cell {…, region, rank}` → see [`crate::report`].
//! - `percentiles {file, region, ranks, sparkline}` → one region's p50/p95/p99 from its
//!   events, and with `sparkline` its sparkline from the same read.
//! - `sparklines {file, regions, ranks}` → `lines`: each named region's mean call
//!   duration over the run in [`sp::analysis::sparkline::COLUMNS`] columns.
//! - `raw {file}` → the HDF5 tree, as `sp ls --data` lists it (see [`crate::raw`]).
//! - `merge {inputs: [{blob, name, size}], label, compress}` → the traces (and per-rank
//!   profiles) merged by the library's convert pipeline, as `sp convert` merges them (see
//!   [`crate::merge`]); the profile is handed to the page in parts.
//! - `export {file, format, ranks}` → `name` (a file name) and `bytes`: the selected
//!   ranks as `sp export FORMAT --ranks …` writes them (`chrome-trace`, `speedscope` or
//!   `json`), handed to the page in parts (see [`crate::download`]).
//! - `timeline {file, ranks, t0, t1, width, first, count, align}` → the lanes (rank,
//!   depth), the extent and, in the binary side buffer, the view's rectangles (see
//!   [`crate::timeline`]); `timeline_at {file, lane, t, …the view}` → the call or merged
//!   block drawn there.
//! - `compare {file, other, metric, order, threshold, max_regression, fail_on_new, …}` →
//!   the baseline `file` and the candidate `other` compared as `sp diff` and `sp check`
//!   compare them (see [`crate::compare`]).
//! - `runs {files, baseline, region, metric, group_by, changes}` → the runs table of the
//!   open `files`, as `sp runs` makes it (see [`crate::runs`]).
//! - `io {file}` → reads and bytes so far; `close {file}`.
//!
//! Every answer about a file carries `io`, the file's read counters after the request.

use serde_json::{json, Value as Json};
use sp::analysis::load;
use sp::analysis::metadata::label;
use sp::analysis::runs::Run;
use sp::analysis::Selection;
use sp::hdf5lite::reader::{File, Group};
use sp::io::ReadAt;
use sp::schema::{self, Profile, ProfileLayout};

use crate::messages;
use crate::profile::{Loaded, Opened};
use crate::source::{Bytes, Source};
use crate::views::metadata_json;

/// The requests this build answers (the page hides what needs another).
pub const OPS: [&str; 22] = [
    "open",
    "merge",
    "close",
    "io",
    "tree",
    "table",
    "csv",
    "overview",
    "balance",
    "cell",
    "percentiles",
    "sparklines",
    "detail",
    "histogram",
    "chart",
    "raw",
    "export",
    "timeline",
    "timeline_at",
    "compare",
    "runs",
    "scaling",
];

/// Profiles with at most this many calls are read whole for their call tree. Building it
/// holds about 150 bytes per call, so the tab stays well under 300 MB.
pub const TREE_CALLS: u64 = 1 << 20;

/// Schema 1 profiles have no index: they are read whole, up to this size.
pub const LEGACY_BYTES: u64 = 256 << 20;

/// The open files, by id.
#[derive(Default)]
pub struct Session {
    files: Vec<Option<Opened>>,
}

/// An answer, or the sentence the page shows instead.
pub type Answer = Result<Json, String>;

impl Session {
    /// Answers one JSON request; binary results go to `bin`, and a file to save (an
    /// export) too.
    pub fn call(&mut self, request: &str, bin: &mut Vec<u8>) -> String {
        let mut saved = Vec::new();
        let answer = self.call_with_parts(request, bin, &mut |part| saved.extend_from_slice(part));
        bin.extend_from_slice(&saved);
        answer
    }

    /// Answers one JSON request; binary results go to `bin`, and a file to save is handed
    /// to `emit` in parts as it is written.
    pub fn call_with_parts(
        &mut self,
        request: &str,
        bin: &mut Vec<u8>,
        emit: &mut dyn FnMut(&[u8]),
    ) -> String {
        let answer = match serde_json::from_str::<Json>(request) {
            Ok(req) => self.dispatch(&req, bin, emit),
            Err(e) => Err(format!("The page sent a malformed request: {e}.")),
        };
        match answer {
            Ok(v) => json!({ "ok": v }).to_string(),
            Err(sentence) => json!({ "error": sentence }).to_string(),
        }
    }

    fn dispatch(&mut self, req: &Json, bin: &mut Vec<u8>, emit: &mut dyn FnMut(&[u8])) -> Answer {
        let op = req["op"].as_str().unwrap_or_default();
        if op == "open" {
            return self.open_request(req);
        }
        if op == "merge" {
            let (label, compress) = crate::merge::options(req)?;
            return crate::merge::merge(dropped(req)?, label, compress, emit);
        }
        if op == "compare" {
            return crate::compare::compare(
                self.opened(&req["file"])?,
                self.opened(&req["other"])?,
                req,
            );
        }
        if op == "runs" || op == "scaling" {
            let ids = req["files"].as_array().map_or(&[][..], Vec::as_slice);
            let files = ids
                .iter()
                .map(|id| Ok((id.as_u64().unwrap_or(u64::MAX), self.opened(id)?)))
                .collect::<Result<Vec<_>, String>>()?;
            if files.is_empty() {
                return Err("The runs table needs at least one open profile.".into());
            }
            return match op {
                "runs" => crate::runs::runs(&files, req),
                _ => crate::runs::scaling(&files, req),
            };
        }
        let id = req["file"].as_u64().unwrap_or(u64::MAX);
        let slot = usize::try_from(id)
            .ok()
            .filter(|&i| self.files.get(i).is_some_and(Option::is_some))
            .ok_or_else(|| format!("No file {id} is open."))?;
        if op == "close" {
            self.files[slot] = None;
            return Ok(json!({}));
        }
        let opened = self.files[slot]
            .as_mut()
            .ok_or_else(|| format!("No file {id} is open."))?;
        let mut answer = match op {
            "io" => Ok(json!({})),
            "tree" => opened.read_tree(),
            "table" => opened.table(req),
            "csv" => opened.csv(req),
            "overview" => opened.overview(req),
            "balance" => opened.balance(req, bin),
            "cell" => opened.cell(req),
            "detail" => opened.detail(req),
            "histogram" => opened.histogram(req),
            "chart" => opened.chart(req),
            "percentiles" => opened.percentiles(req),
            "sparklines" => opened.sparklines(req),
            "raw" => opened.raw(),
            "export" => opened.export(req, emit),
            "timeline" => opened.timeline(req, bin),
            "timeline_at" => opened.timeline_at(req),
            other => Err(format!(
                "The page asked for {other:?}, which this build does not know."
            )),
        }?;
        answer["io"] = opened.io();
        Ok(answer)
    }

    /// The open file a request names by id.
    fn opened(&self, id: &Json) -> Result<&Opened, String> {
        id.as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.files.get(i))
            .and_then(Option::as_ref)
            .ok_or_else(|| format!("No file {id} is open."))
    }

    #[cfg(target_arch = "wasm32")]
    fn open_request(&mut self, req: &Json) -> Answer {
        let file = dropped_file(req).ok_or("The page sent no file to open.")?;
        self.open(file.name, file.bytes, req["runs"].as_bool() == Some(true))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn open_request(&mut self, _req: &Json) -> Answer {
        Err("Browser files can only be opened in the browser.".into())
    }

    /// Opens a file: reads its superblock, decides whether it is a profile, and reads a
    /// profile's index. The answer describes it; a file that cannot be read is an error
    /// sentence naming it and is not kept. With `runs` (a file of a series) a profile that
    /// stores its statistics is read for its run alone, as `sp runs` reads it, and its index
    /// when a view first needs it.
    pub fn open(&mut self, name: String, bytes: Bytes, runs: bool) -> Answer {
        let source = Source::new(bytes);
        source.opening(true);
        let answer = self.open_source(name, source.clone(), runs);
        source.opening(false);
        answer
    }

    fn open_source(&mut self, name: String, source: Source, runs: bool) -> Answer {
        let size = source.len();
        let mut magic = [0u8; 8];
        if source.read_exact_at(0, &mut magic).is_ok() && magic == sp::trace::MAGIC {
            return Err(messages::native_trace(&name));
        }
        let file = File::open(source.clone()).map_err(|e| messages::hdf5(&name, &e))?;
        let mut answer = json!({ "name": name, "size": size, "ops": OPS });
        let root = file.root().map_err(|e| messages::hdf5(&name, &e))?;
        let mut run = None;
        let profile = if is_profile(&root).map_err(|e| messages::hdf5(&name, &e))? {
            let (loaded, lean) = load_profile(&name, &file, size, runs)?;
            let p = (lean.as_ref().or(loaded.head()))
                .ok_or_else(|| format!("{name} has no rows to show."))?;
            answer["kind"] = json!("profile");
            answer["schema"] = json!(p.schema);
            answer["layout"] = json!(p.layout.name());
            answer["num_ranks"] = json!(p.num_ranks);
            answer["regions"] = json!(p.regions.len());
            answer["region_names"] = json!(p
                .regions
                .iter()
                .map(|r| r.name.as_str())
                .collect::<Vec<_>>());
            answer["region_colors"] = region_colors(p.regions.len());
            answer["calls"] = json!(loaded.calls);
            answer["tree"] = json!(loaded.tree_state());
            answer["tree_limit"] = json!(TREE_CALLS);
            answer["label"] = json!(label(p));
            answer["metadata"] = metadata_json(p);
            run = lean.map(|p| (Run::of(&name, &p, &Selection::all()), p.region_names));
            Some(Box::new(loaded))
        } else {
            answer["kind"] = json!("hdf5");
            answer["notice"] = json!(messages::not_a_profile(&name, true));
            None
        };
        let opened = Opened::new(name, source, file, profile);
        if let Some((run, region_names)) = run {
            opened.keep_run(run, region_names);
        }
        answer["io"] = opened.io();
        let id = match self.files.iter().position(Option::is_none) {
            Some(free) => {
                self.files[free] = Some(opened);
                free
            }
            None => {
                self.files.push(Some(opened));
                self.files.len() - 1
            }
        };
        answer["file"] = json!(id);
        Ok(answer)
    }
}

/// A file the page registered: `{blob, name, size}`.
#[cfg(target_arch = "wasm32")]
fn dropped_file(req: &Json) -> Option<crate::merge::Dropped> {
    let handle = req["blob"].as_u64().and_then(|h| u32::try_from(h).ok())?;
    Some(crate::merge::Dropped {
        name: req["name"].as_str().unwrap_or("the file").to_string(),
        bytes: Bytes::Blob {
            handle,
            len: req["size"].as_u64().unwrap_or(0),
        },
    })
}

/// The files of a merge request: `inputs`, each as [`dropped_file`] reads it, in the
/// browser; natively (tests), `memory`, each `{name, bytes}` with the bytes as an array.
fn dropped(req: &Json) -> Result<Vec<crate::merge::Dropped>, String> {
    #[cfg(target_arch = "wasm32")]
    let files: Option<Vec<_>> = req["inputs"]
        .as_array()
        .map(|list| list.iter().filter_map(dropped_file).collect());
    #[cfg(not(target_arch = "wasm32"))]
    let files: Option<Vec<_>> = req["memory"].as_array().map(|list| {
        list.iter()
            .map(|f| crate::merge::Dropped {
                name: f["name"].as_str().unwrap_or_default().to_string(),
                bytes: Bytes::Memory(
                    f["bytes"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|b| b.as_u64().unwrap_or(0) as u8)
                        .collect(),
                ),
            })
            .collect()
    });
    files.ok_or_else(|| "The page sent no files to merge.".to_string())
}

/// Whether an HDF5 file is a scope-profiler profile: it has the schema attribute (schema
/// 2 and 3), or rank groups (schema 1), as the library's reader recognizes them.
fn is_profile<R: ReadAt>(root: &Group<'_, R>) -> sp::hdf5lite::Result<bool> {
    if root.attribute(schema::names::SCHEMA_VERSION)?.is_some() {
        return Ok(true);
    }
    Ok(!schema::read::rank_groups(&root.links()?).is_empty())
}

/// Reads what opening a profile needs: the index (its stored statistics), or the whole
/// profile when the file has no index (schema 1, aggregate) or no stored statistics. With
/// `runs`, a columnar profile's stored statistics alone ([`schema::read::read_statistics`], what
/// `sp runs` reads), returned beside a [`Loaded`] that reads the index later.
fn load_profile(
    name: &str,
    file: &File<Source>,
    size: u64,
    runs: bool,
) -> Result<(Loaded, Option<Profile>), String> {
    let fail = |e: sp::analysis::Error| messages::profile(name, &e);
    if runs {
        let lean = schema::read::read_statistics(file).map_err(|e| fail(e.into()))?;
        if let Some(lean) = lean {
            let mut loaded = Loaded::later(lean.call_count());
            loaded.events_omitted = events_omitted(file);
            return Ok((loaded, Some(lean)));
        }
    }
    load_index(name, file, size).map(|loaded| (loaded, None))
}

/// Whether the file holds the index without the calls (an index-only report's copy).
fn events_omitted(file: &File<Source>) -> bool {
    matches!(
        schema::EventReader::open(file),
        Err(schema::Error::EventsOmitted)
    )
}

/// [`load_profile`] without `runs`.
fn load_index(name: &str, file: &File<Source>, size: u64) -> Result<Loaded, String> {
    let fail = |e: sp::analysis::Error| messages::profile(name, &e);
    let head = load::read_metadata(file).map_err(fail)?;
    match head.layout {
        ProfileLayout::Legacy => {
            if size > LEGACY_BYTES {
                return Err(messages::legacy_too_large(name, size, LEGACY_BYTES));
            }
            Ok(Loaded::whole(load::read_full(file).map_err(fail)?, None))
        }
        ProfileLayout::Aggregate => {
            // No calls: the whole profile is its index.
            let whole = load::read_full(file).map_err(fail)?;
            let index = load::read_summary(file).ok();
            Ok(Loaded::whole(whole, index))
        }
        ProfileLayout::Columnar if head.summary_statistics => {
            let mut loaded = Loaded::index(load::read_summary(file).map_err(fail)?);
            loaded.events_omitted = events_omitted(file);
            Ok(loaded)
        }
        ProfileLayout::Columnar => {
            // No stored statistics: the call tree when it is small enough, else every
            // row's statistics from its calls (`sp inspect --flat --from-events`).
            let spans = schema::read(file, schema::Depth::Index).map_err(|e| fail(e.into()))?;
            if spans.call_count() <= TREE_CALLS {
                Ok(Loaded::whole(load::read_full(file).map_err(fail)?, None))
            } else {
                Ok(Loaded::index(load::read_from_events(file).map_err(fail)?))
            }
        }
    }
}

/// The colours of regions `0..n` (the library's one colour function), for the page to draw
/// with: `light`, `dark`, and the paler `light_merged` and `dark_merged` of merged blocks.
fn region_colors(n: usize) -> Json {
    use sp::chart::color::{palette_css, Theme};
    json!({
        "light": palette_css(n, Theme::Light, false),
        "dark": palette_css(n, Theme::Dark, false),
        "light_merged": palette_css(n, Theme::Light, true),
        "dark_merged": palette_css(n, Theme::Dark, true),
    })
}
