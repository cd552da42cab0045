//! The files open in the page and the requests about them.
//!
//! Opening a profile reads its index only ([`Profile::read_index`]): metadata, region
//! names, and one fixed-size row of statistics per (rank, region). The region table, the
//! overview and the load balance are computed from it at once, as `sp inspect --flat`
//! computes them. When the profile has at most [`TREE_CALLS`] calls the page then asks
//! for the whole read ([`Profile::read`]), which gives the call tree with `(own)` rows and
//! recursion, exactly the rows of `sp inspect`. Larger profiles stay on the index; their
//! percentiles are read per region on demand ([`region_percentiles`]).
//!
//! Requests (`op` and its fields) and answers (inside `{"ok": …}`):
//! - `open {blob, name, size}` → the file's id, kind (`profile`, or `hdf5` for any other
//!   HDF5 file, with a `notice`), schema, layout, ranks, regions, calls, `tree`
//!   (`loaded`, `available` or `too-large`), metadata and `io`.
//! - `tree {file}` → reads the whole profile; `tree` as above.
//! - `table {file, tree, include, exclude, ranks, sort, mode}` → `rows` (see
//!   [`rows_json`]), `source` (`tree` or `index`).
//! - `overview {…same}` → [`overview_json`]; `balance {…same}` → [`balance_json`], with the
//!   heatmap matrix in the binary side buffer; `cell {file, tree, …, region, rank}` → one
//!   heatmap cell in words.
//! - `percentiles {file, region, ranks}` → one region's p50/p95/p99 from its events.
//! - `io {file}` → reads and bytes so far; `close {file}`.
//!
//! Every answer carries `io`, the file's read counters after the request.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{json, Value as Json};
use sp::analysis::balance::{rank_balance, Balance};
use sp::analysis::overview::overview;
use sp::analysis::quantiles::{calls_to_read, region_percentiles};
use sp::analysis::{region_rows, EventReader, Layout, PercentageMode, Profile, Row, SortKey};
use sp::hdf5lite::reader::{File, Value};
use sp::io::ReadAt;

use crate::messages;
use crate::rows::rows_json;
use crate::selection::Options;
use crate::source::{Bytes, Source};
use crate::views::{balance_json, cell_text, metadata_json, overview_json, percentiles_json};

/// The requests this build answers (the page hides what needs another).
pub const OPS: [&str; 9] = [
    "open",
    "close",
    "io",
    "tree",
    "table",
    "overview",
    "balance",
    "cell",
    "percentiles",
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

struct Opened {
    name: String,
    source: Source,
    file: File<Source>,
    /// `None` for an HDF5 file that is not a profile.
    profile: Option<Box<Loaded>>,
    /// The last report rows and load balance, by the options they were computed for: the
    /// overview, the ranks view and every heatmap hover share them.
    report: RefCell<Option<(String, Rc<Report>)>>,
}

/// Rows as the report computes its overview from (start order, own times filled in) and
/// their load balance.
struct Report {
    rows: Vec<Row>,
    balance: Option<Balance>,
}

struct Loaded {
    index: Profile,
    whole: Option<Profile>,
    /// Calls the index points at.
    calls: u64,
}

impl Loaded {
    fn tree_state(&self) -> &'static str {
        if self.whole.is_some() {
            "loaded"
        } else if self.calls <= TREE_CALLS {
            "available"
        } else {
            "too-large"
        }
    }
}

type Answer = Result<Json, String>;

impl Session {
    /// Answers one JSON request; binary results go to `bin`.
    pub fn call(&mut self, request: &str, bin: &mut Vec<u8>) -> String {
        let answer = match serde_json::from_str::<Json>(request) {
            Ok(req) => self.dispatch(&req, bin),
            Err(e) => Err(format!("The page sent a malformed request: {e}.")),
        };
        match answer {
            Ok(v) => json!({ "ok": v }).to_string(),
            Err(sentence) => json!({ "error": sentence }).to_string(),
        }
    }

    fn dispatch(&mut self, req: &Json, bin: &mut Vec<u8>) -> Answer {
        let op = req["op"].as_str().unwrap_or_default();
        if op == "open" {
            return self.open_request(req);
        }
        let id = req["file"].as_u64().unwrap_or(u64::MAX);
        let opened = usize::try_from(id)
            .ok()
            .and_then(|i| self.files.get_mut(i))
            .and_then(Option::as_mut)
            .ok_or_else(|| format!("No file {id} is open."))?;
        let mut answer = match op {
            "close" => {
                self.files[id as usize] = None;
                return Ok(json!({}));
            }
            "io" => Ok(json!({})),
            "tree" => opened.read_tree(),
            "table" => opened.table(req),
            "overview" => opened.overview(req),
            "balance" => opened.balance(req, bin),
            "cell" => opened.cell(req),
            "percentiles" => opened.percentiles(req),
            other => Err(format!(
                "The page asked for {other:?}, which this build does not know."
            )),
        }?;
        answer["io"] = opened.io();
        Ok(answer)
    }

    #[cfg(target_arch = "wasm32")]
    fn open_request(&mut self, req: &Json) -> Answer {
        let name = req["name"].as_str().unwrap_or("the file").to_string();
        let handle = req["blob"]
            .as_u64()
            .and_then(|h| u32::try_from(h).ok())
            .ok_or("The page sent no file to open.")?;
        let len = req["size"].as_u64().unwrap_or(0);
        self.open(name, Bytes::Blob { handle, len })
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn open_request(&mut self, _req: &Json) -> Answer {
        Err("Browser files can only be opened in the browser.".into())
    }

    /// Opens a file: reads its superblock, decides whether it is a profile, and reads a
    /// profile's index. The answer describes it; a file that cannot be read is an error
    /// sentence naming it and is not kept.
    pub fn open(&mut self, name: String, bytes: Bytes) -> Answer {
        let source = Source::new(bytes);
        let size = source.len();
        let mut magic = [0u8; 8];
        if source.read_exact_at(0, &mut magic).is_ok() && magic == sp::trace::MAGIC {
            return Err(messages::native_trace(&name));
        }
        let file = File::open(source.clone()).map_err(|e| messages::hdf5(&name, &e))?;
        let mut answer = json!({ "name": name, "size": size, "ops": OPS });
        let profile = if is_profile(&file).map_err(|e| messages::hdf5(&name, &e))? {
            let loaded = load(&name, &file, size)?;
            let p = &loaded.index;
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
            answer["calls"] = json!(loaded.calls);
            answer["tree"] = json!(loaded.tree_state());
            answer["tree_limit"] = json!(TREE_CALLS);
            answer["label"] = json!(p.label());
            answer["metadata"] = metadata_json(p);
            Some(Box::new(loaded))
        } else {
            answer["kind"] = json!("hdf5");
            answer["notice"] = json!(messages::not_a_profile(&name, OPS.contains(&"raw")));
            None
        };
        let opened = Opened {
            name,
            source,
            file,
            profile,
            report: RefCell::new(None),
        };
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

/// Whether an HDF5 file is a scope-profiler profile: it has the schema attribute (schema
/// 2 and 3), or `rankN` groups (schema 1).
fn is_profile<R: ReadAt>(file: &File<R>) -> sp::hdf5lite::Result<bool> {
    let root = file.root()?;
    if root.attribute("scope_profiler_schema")?.is_some() {
        return Ok(true);
    }
    Ok(root.links()?.iter().any(|l| {
        l.name
            .strip_prefix("rank")
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    }))
}

fn load(name: &str, file: &File<Source>, size: u64) -> Result<Loaded, String> {
    let fail = |e: sp::analysis::Error| messages::profile(name, &e);
    let schema = match file
        .root()
        .and_then(|r| r.attribute("scope_profiler_schema"))
    {
        Ok(Some(a)) => a.value(file).ok(),
        _ => None,
    };
    if schema.is_none() {
        // Schema 1: per-rank groups and no index; the whole file is the index.
        if size > LEGACY_BYTES {
            return Err(format!(
                "{name} is a schema-1 profile of {}, which has no index: the page reads such \
                 files whole, up to {}.",
                sp::analysis::units::bytes_text(size),
                sp::analysis::units::bytes_text(LEGACY_BYTES)
            ));
        }
        let whole = Profile::read(file).map_err(fail)?;
        return Ok(Loaded {
            index: Profile {
                events: false,
                ..whole.clone()
            },
            calls: whole
                .regions
                .iter()
                .flat_map(|r| &r.ranks)
                .map(|r| r.calls())
                .sum(),
            whole: Some(whole),
        });
    }
    if !matches!(schema, Some(Value::Int(_))) {
        return Err(format!(
            "{name} has a scope_profiler_schema attribute that is not a number."
        ));
    }
    let index = Profile::read_index(file).map_err(fail)?;
    let calls = index
        .regions
        .iter()
        .flat_map(|r| &r.ranks)
        .map(|r| r.span.map_or(0, |s| s.count))
        .sum();
    let whole = if index.layout == Layout::Aggregate {
        // Aggregate profiles store no calls: the index is all there is.
        Some(index.clone())
    } else {
        None
    };
    Ok(Loaded {
        index,
        whole,
        calls,
    })
}

impl Opened {
    fn io(&self) -> Json {
        let (reads, bytes) = self.source.stats();
        json!({
            "reads": reads,
            "bytes": bytes,
            "bytes_text": sp::analysis::units::bytes_text(bytes),
            "size": self.source.len(),
        })
    }

    fn loaded(&self) -> Result<&Loaded, String> {
        self.profile
            .as_deref()
            .ok_or_else(|| format!("{} is not a profile.", self.name))
    }

    fn read_tree(&mut self) -> Answer {
        let name = self.name.clone();
        let loaded = self
            .profile
            .as_deref_mut()
            .ok_or_else(|| format!("{name} is not a profile."))?;
        if loaded.whole.is_none() && loaded.calls <= TREE_CALLS {
            let whole = Profile::read(&self.file).map_err(|e| messages::profile(&name, &e))?;
            loaded.whole = Some(whole);
        }
        Ok(json!({ "tree": loaded.tree_state() }))
    }

    /// The profile a request's rows come from: the whole read when asked for and loaded,
    /// else the index.
    fn profile_for(&self, req: &Json) -> Result<(&Profile, &'static str), String> {
        let loaded = self.loaded()?;
        match (&loaded.whole, req["tree"].as_bool().unwrap_or(true)) {
            (Some(whole), true) => Ok((whole, "tree")),
            _ => Ok((&loaded.index, "index")),
        }
    }

    fn rows(
        &self,
        req: &Json,
        sort: Option<SortKey>,
        mode: Option<PercentageMode>,
    ) -> Result<(Vec<Row>, Options, &'static str, &Profile), String> {
        let opts = Options::from_request(req)?;
        let (profile, source) = self.profile_for(req)?;
        let keep = |n: &str| opts.keeps(n);
        let sel = opts.selection(&keep);
        let rows = region_rows(
            profile,
            &sel,
            sort.unwrap_or(opts.sort),
            mode.unwrap_or(opts.mode),
        );
        Ok((rows, opts, source, profile))
    }

    fn table(&self, req: &Json) -> Answer {
        let (rows, opts, source, _) = self.rows(req, None, None)?;
        Ok(json!({
            "source": source,
            "rows": rows_json(&rows, opts.mode),
        }))
    }

    /// The report rows (start order, own times filled in, as the report computes its
    /// overview from) and their load balance, for a request's options; computed once.
    fn report(&self, req: &Json) -> Result<(Rc<Report>, &'static str, &Profile), String> {
        let (profile, source) = self.profile_for(req)?;
        let key = json!([req["include"], req["exclude"], req["ranks"], source]).to_string();
        if let Some((k, report)) = &*self.report.borrow() {
            if *k == key {
                return Ok((report.clone(), source, profile));
            }
        }
        let (rows, opts, _, _) =
            self.rows(req, Some(SortKey::Start), Some(PercentageMode::Exclusive))?;
        let balance = rank_balance(profile, &rows, opts.ranks.as_deref());
        let report = Rc::new(Report { rows, balance });
        *self.report.borrow_mut() = Some((key, report.clone()));
        Ok((report, source, profile))
    }

    fn overview(&self, req: &Json) -> Answer {
        let (report, source, profile) = self.report(req)?;
        let mut answer = overview_json(&overview(profile, &report.rows, report.balance.as_ref()));
        answer["source"] = json!(source);
        Ok(answer)
    }

    fn balance(&self, req: &Json, bin: &mut Vec<u8>) -> Answer {
        let (report, source, _) = self.report(req)?;
        let Some(balance) = &report.balance else {
            bin.clear();
            return Ok(json!({ "source": source, "balance": null }));
        };
        Ok(json!({ "source": source, "balance": balance_json(balance, bin) }))
    }

    /// One heatmap cell in words: `{rank, region, value_text, change_text, …}`.
    fn cell(&self, req: &Json) -> Answer {
        let (report, _, _) = self.report(req)?;
        let balance = report
            .balance
            .as_ref()
            .ok_or("There is no load balance for these ranks.")?;
        let rank = req["rank"].as_u64().and_then(|r| u32::try_from(r).ok());
        let column = balance
            .ranks
            .iter()
            .position(|&r| Some(r) == rank)
            .ok_or("That rank is not selected.")?;
        let (values, mean) = match req["region"].as_str() {
            None => (
                &balance.totals,
                sp::analysis::numeric::mean(&balance.totals).unwrap_or(0.0),
            ),
            Some(name) => {
                let r = balance
                    .regions
                    .iter()
                    .find(|r| r.name == name)
                    .ok_or_else(|| format!("No region {name:?} has time on these ranks."))?;
                (&r.values, r.mean)
            }
        };
        let value = values[column];
        let mut answer = cell_text(value, mean);
        answer["value"] = json!(value);
        answer["mean_text"] = json!(sp::analysis::units::duration_text(Some(mean)));
        Ok(answer)
    }

    fn percentiles(&self, req: &Json) -> Answer {
        let loaded = self.loaded()?;
        let opts = Options::from_request(req)?;
        let name = req["region"].as_str().unwrap_or_default();
        let region = loaded
            .index
            .region(name)
            .ok_or_else(|| format!("{} has no region {name:?}.", self.name))?;
        let reader =
            EventReader::open(&self.file).map_err(|e| messages::profile(&self.name, &e))?;
        let p = region_percentiles(reader.as_ref(), region, opts.ranks.as_deref())
            .map_err(|e| messages::profile(&self.name, &e))?;
        let mut answer = percentiles_json(&p);
        answer["region"] = json!(name);
        answer["calls"] = json!(calls_to_read(region, opts.ranks.as_deref()));
        Ok(answer)
    }
}
