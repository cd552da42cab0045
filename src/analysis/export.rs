//! Exports, written call by call to any [`Write`] while each (rank, region) row's calls are
//! read on demand through a [`RowSource`] — a profile of any size exports in the memory of
//! its largest row (speedscope: of its largest rank, whose nesting it must reconstruct).
//!
//! - [`chrome_trace`]: Chrome Trace Event JSON (Perfetto, chrome://tracing), laid out as the
//!   reference's `build_chrome_trace_document`: one process per rank, one `tid` per thread
//!   or task lane, one complete ("X") slice per call, microseconds from the run's time
//!   origin, source locations in `args`.
//! - [`speedscope`]: a speedscope file (`https://www.speedscope.app/file-format-schema.json`)
//!   as the reference's `build_speedscope_document`: one "evented" profile per rank and
//!   lane, open/close events from the nesting recovered by [`calltree`],
//!   seconds from the earliest exported call; the shared frames also carry `file`/`line`.
//! - [`json`]: the whole profile as one document, in the reference's `scope-profiler-profile`
//!   layout (format version 1):
//!
//! ```text
//! { "format": "scope-profiler-profile", "format_version": 1, "exporter": "sp@<version>",
//!   "time_unit": "nanoseconds",            // every *_ns value is integer ns, run clock
//!   "num_ranks": 4, "event_data_available": true,
//!   "metadata": { "<key>": int | float | bool | string | [..] },   // non-finite → null
//!   "regions": [                           // region-table order, then rank order
//!     { "name": "solve", "rank": 0, "source_file": "a.py", "source_lineno": 12,
//!       "start_times_ns": [..], "end_times_ns": [..],               // one per call
//!       "gpu_durations_ns": [..],          // when any call has GPU time (−1 = none)
//!       "thread_ids": [..], "task_ids": [..],  // when stored
//!       "exclusive_total_ns": 123 },                                  // when stored
//!     { "name": "io", "rank": 1, "aggregate": { "count": 3, "total": 9, "minimum": 2,
//!       "maximum": 4, "exclusive": 9 } } ],  // aggregate-only profiles: no calls
//!   "threads": { "<rank>": [ { "index": 0, "name": "Main", "ident": 1, "native_id": 2 } ] },
//!   "tasks":   { "<rank>": [ { "index": 0, "name": "Task-1", "coro_name": "m.f",
//!                              "thread_index": 0 } ] } }
//! ```

use crate::sort::SortSlice;
use std::collections::HashMap;
use std::io::Write;

use crate::hdf5lite::reader::File;
use crate::io::ReadAt;
use crate::schema::EventReader;

use super::calltree;
use super::error::{Error, Result};
use super::events::RowSource;
use super::load;
use super::metadata::label;
use super::metadata::PyValue;
use super::rows::selected_regions;
use super::selection::Selection;
use crate::schema::Lanes;
use crate::schema::{Profile, RankCalls, Region};

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// [`chrome_trace`].
    ChromeTrace,
    /// [`speedscope`].
    Speedscope,
    /// [`json`].
    Json,
}

/// A profile opened for export: its index (no calls), its event columns read row by row,
/// and its lane tables.
pub struct Exporter<'f, R: ReadAt> {
    profile: Profile,
    reader: Option<EventReader<'f, R>>,
    lanes: Lanes,
    label: String,
}

impl<'f, R: ReadAt> Exporter<'f, R> {
    /// Reads what an export needs of `file`; the run is labelled by its `label` metadata,
    /// else `fallback_label` (the file's stem, say).
    /// The export of a profile already read whole (a JSON profile): its calls are loaded,
    /// and it has no lane table to name threads and tasks by.
    pub fn of_profile(profile: Profile, fallback_label: &str) -> Self {
        let label = label(&profile).unwrap_or_else(|| fallback_label.to_owned());
        Exporter {
            profile,
            reader: None,
            lanes: Lanes::default(),
            label,
        }
    }

    pub fn open(file: &'f File<R>, fallback_label: &str) -> Result<Self> {
        let profile = load::read_index(file)?;
        let reader = EventReader::open(file)?;
        let lanes = Lanes::read(file)?;
        let label = label(&profile).unwrap_or_else(|| fallback_label.to_owned());
        Ok(Exporter {
            profile,
            reader,
            lanes,
            label,
        })
    }

    /// The run's label in the exports.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Writes the selected regions and ranks in `format`, streaming each row's calls.
    pub fn write<W: Write>(
        &self,
        format: Format,
        selection: &Selection,
        out: &mut W,
    ) -> Result<()> {
        let source = super::events::source(self.reader.as_ref());
        let (profile, lanes, label) = (&self.profile, &self.lanes, self.label.as_str());
        match format {
            Format::ChromeTrace => chrome_trace(profile, source, lanes, selection, label, out),
            Format::Speedscope => speedscope(profile, source, lanes, selection, label, out),
            Format::Json => json(profile, source, lanes, selection, out),
        }
    }
}

/// Who wrote the file, for the `exporter` fields.
const EXPORTER: &str = concat!("sp@", env!("CARGO_PKG_VERSION"));

/// A JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number with enough digits to round-trip (`null` if not finite).
fn json_f64(v: f64) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "null".into()
    }
}

/// The ranks to export: the selection's, else every rank of the run.
fn export_ranks(profile: &Profile, sel: &Selection) -> Vec<u32> {
    match &sel.ranks {
        Some(r) => r.clone(),
        None => (0..profile.num_ranks)
            .filter_map(|r| u32::try_from(r).ok())
            .collect(),
    }
}

/// A source file and line.
type Source = (String, Option<i64>);

/// The source location of a region: the first row that has one.
fn source_of(region: &Region) -> Option<Source> {
    region.ranks.iter().find_map(|r| {
        r.source_file
            .as_ref()
            .map(|f| (f.to_string(), r.source_line))
    })
}

/// A Chrome trace lane: rank (no thread), task, thread — ordered as the reference's
/// `("rank"|"task"|"thread", index)` keys sort.
type LaneKey = (u8, i64);

fn lane_key(thread: Option<i64>, task: Option<i64>) -> LaneKey {
    match (task, thread) {
        (Some(t), _) if t >= 0 => (1, t),
        (_, Some(t)) if t >= 0 => (2, t),
        _ => (0, 0),
    }
}

/// Writes a Chrome Trace Event document for the selected ranks (every rank when `None`).
pub fn chrome_trace<W: Write>(
    profile: &Profile,
    source: &dyn RowSource,
    lanes: &Lanes,
    sel: &Selection,
    label: &str,
    out: &mut W,
) -> Result<()> {
    let regions = selected_regions(profile, sel);
    let origin = profile.time_origin();
    write!(
        out,
        "{{\"displayTimeUnit\":\"ms\",\"metadata\":{{\"name\":{},\"exporter\":{}}},\"traceEvents\":[",
        json_str(label),
        json_str(EXPORTER)
    )?;
    let mut first = true;
    let mut sep = |out: &mut W| -> std::io::Result<()> {
        if !std::mem::take(&mut first) {
            out.write_all(b",")?;
        }
        Ok(())
    };
    for rank in export_ranks(profile, sel) {
        // First pass, thread and task columns only: the lanes, numbered in sorted order.
        let mut keys: Vec<LaneKey> = Vec::new();
        for region in &regions {
            let Some(row) = region.rank(rank) else {
                continue;
            };
            let cols = source.lane_columns(row)?;
            let len = |c: &Option<Vec<i64>>| c.as_ref().map_or(0, Vec::len);
            let n = len(&cols.threads).max(len(&cols.tasks));
            if n == 0 && row.calls() > 0 {
                keys.push((0, 0));
            }
            for i in 0..n {
                keys.push(lane_key(
                    cols.threads.as_ref().and_then(|t| t.get(i).copied()),
                    cols.tasks.as_ref().and_then(|t| t.get(i).copied()),
                ));
            }
            keys.sort_ord_unstable();
            keys.dedup();
        }
        sep(out)?;
        write!(
            out,
            "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{rank},\"tid\":0,\"args\":{{\"name\":\"rank {rank}\"}}}}"
        )?;
        for (tid, &(kind, index)) in keys.iter().enumerate() {
            sep(out)?;
            let args = match kind {
                1 => format!(
                    "{{\"name\":{},\"lane\":\"async task\",\"task_index\":{index}}}",
                    json_str(&lanes.label(index, rank))
                ),
                2 => {
                    let mut a = format!(
                        "{{\"name\":{},\"lane\":\"thread\",\"thread_index\":{index}",
                        json_str(&lanes.label((-2i64).saturating_sub(index), rank))
                    );
                    if let Some(t) = lanes.thread(rank, index) {
                        if let Some(n) = t.native_id {
                            a.push_str(&format!(",\"native_id\":{n}"));
                        }
                        if let Some(n) = t.ident {
                            a.push_str(&format!(",\"ident\":{n}"));
                        }
                    }
                    a.push('}');
                    a
                }
                _ => format!("{{\"name\":\"rank {rank}\",\"lane\":\"rank\"}}"),
            };
            write!(
                out,
                "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{rank},\"tid\":{tid},\"args\":{args}}}"
            )?;
        }
        for region in &regions {
            let Some(row) = region.rank(rank) else {
                continue;
            };
            let events = source.events(row)?;
            let src = source_of(region);
            let name = json_str(&region.name);
            for (i, (&s, &e)) in events.starts.iter().zip(&events.ends).enumerate() {
                // As the reference's Region.events: relative start and end, then their
                // difference (not the nanosecond difference) as the duration.
                let start = s as f64 / 1e9 - origin;
                let end = e as f64 / 1e9 - origin;
                let duration = end - start;
                let key = lane_key(
                    events.threads.as_ref().and_then(|t| t.get(i).copied()),
                    events.tasks.as_ref().and_then(|t| t.get(i).copied()),
                );
                let tid = keys.binary_search(&key).unwrap_or(0);
                sep(out)?;
                write!(
                    out,
                    "{{\"name\":{name},\"cat\":\"scope-profiler\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":{rank},\"tid\":{tid},\"args\":{{\"rank\":{rank},\"call_index\":{i},\"duration_s\":{}",
                    json_f64(start * 1_000_000.0),
                    json_f64(duration * 1_000_000.0),
                    json_f64(duration)
                )?;
                if let Some(g) = events.gpu.as_ref().and_then(|g| g.get(i)) {
                    if *g >= 0 {
                        write!(out, ",\"gpu_duration\":{}", json_f64(*g as f64 / 1e9))?;
                    }
                }
                if let Some((file, line)) = &src {
                    write!(out, ",\"source_file\":{}", json_str(file))?;
                    if let Some(line) = line {
                        write!(out, ",\"source_line\":{line}")?;
                    }
                }
                out.write_all(b"}}")?;
            }
        }
    }
    out.write_all(b"]}\n")?;
    Ok(())
}

/// A speedscope document's shared frames: each region's name and source, in the order
/// the events first meet it, and its index by name.
#[derive(Default)]
struct Frames {
    list: Vec<(String, Option<Source>)>,
    index: HashMap<String, usize>,
}

impl Frames {
    /// The frame of `region`, added (with its source, from the selected `regions`) when
    /// first met.
    fn of(&mut self, region: &Region, regions: &[&Region]) -> usize {
        if let Some(&f) = self.index.get(&region.name) {
            return f;
        }
        let f = self.list.len();
        self.index.insert(region.name.clone(), f);
        let src = (regions.iter())
            .find(|r| r.name == region.name)
            .and_then(|r| source_of(r));
        self.list.push((region.name.clone(), src));
        f
    }
}

/// A lane's calls depth-first, siblings in start order, each as (call, false) when it
/// opens and (call, true) when it closes: balanced by construction.
struct DepthFirst<'a> {
    children: &'a [Vec<usize>],
    stack: Vec<(usize, bool)>,
}

impl<'a> DepthFirst<'a> {
    fn new(roots: &[usize], children: &'a [Vec<usize>]) -> DepthFirst<'a> {
        let stack = roots.iter().rev().map(|&i| (i, false)).collect();
        DepthFirst { children, stack }
    }
}

impl Iterator for DepthFirst<'_> {
    type Item = (usize, bool);

    fn next(&mut self) -> Option<(usize, bool)> {
        let (i, closing) = self.stack.pop()?;
        if !closing {
            self.stack.push((i, true));
            if let Some(kids) = self.children.get(i) {
                self.stack.extend(kids.iter().rev().map(|&k| (k, false)));
            }
        }
        Some((i, closing))
    }
}

fn unknown_region() -> Error {
    Error::Corrupt("call of an unknown region".into())
}

/// Writes a speedscope document: one evented profile per selected rank (every rank when
/// `None`) and lane, frames shared across them. The frames come before the profiles, as
/// the reference writes them, so the calls are walked twice: once to meet the frames in
/// the events' order, once to write the events.
pub fn speedscope<W: Write>(
    profile: &Profile,
    source: &dyn RowSource,
    lanes: &Lanes,
    sel: &Selection,
    label: &str,
    out: &mut W,
) -> Result<()> {
    let regions = selected_regions(profile, sel);
    let ranks = export_ranks(profile, sel);
    // The earliest exported call, from the index, so events stream out already rebased.
    let origin = regions
        .iter()
        .flat_map(|r| ranks.iter().filter_map(|&k| r.rank(k)))
        .filter(|row| row.calls() > 0)
        .map(RankCalls::first_start_s)
        .fold(f64::INFINITY, f64::min);
    let origin = if origin.is_finite() { origin } else { 0.0 };
    let mut frames = Frames::default();
    let walk = Walk {
        source,
        lanes,
        regions: &regions,
        ranks: &ranks,
        origin,
    };
    walk.profiles(None, &mut frames)?;
    write!(
        out,
        "{{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":{},\"name\":{},\"activeProfileIndex\":0,\"shared\":{{\"frames\":[",
        json_str(EXPORTER),
        json_str(label)
    )?;
    for (i, (name, src)) in frames.list.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write!(out, "{{\"name\":{}", json_str(name))?;
        if let Some((file, line)) = src {
            write!(out, ",\"file\":{}", json_str(file))?;
            if let Some(line) = line {
                write!(out, ",\"line\":{line}")?;
            }
        }
        out.write_all(b"}")?;
    }
    out.write_all(b"]},\"profiles\":[")?;
    walk.profiles(Some(out), &mut frames)?;
    out.write_all(b"]}\n")?;
    Ok(())
}

/// What a speedscope document holds: its regions and ranks, and the time origin.
struct Walk<'a> {
    source: &'a dyn RowSource,
    lanes: &'a Lanes,
    regions: &'a [&'a Region],
    ranks: &'a [u32],
    origin: f64,
}

impl Walk<'_> {
    /// Writes the profiles, one per rank and lane, adding each region to `frames` when
    /// its first event is met. With no `out`, only meets the frames, and stops once every
    /// region has one (on the first rank, usually).
    fn profiles(&self, mut out: Option<&mut dyn Write>, frames: &mut Frames) -> Result<()> {
        let distinct = {
            let mut names: Vec<&str> = self.regions.iter().map(|r| r.name.as_str()).collect();
            names.sort_ord_unstable();
            names.dedup();
            names.len()
        };
        let Walk {
            source,
            lanes,
            regions,
            ranks,
            origin,
        } = *self;
        let mut first_profile = true;
        for &rank in ranks {
            if out.is_none() && frames.list.len() == distinct {
                return Ok(());
            }
            // One rank's calls in memory: its nesting is reconstructed from all of them.
            let mut owned: Vec<Region> = Vec::new();
            for region in regions {
                if let Some(row) = region.rank(rank) {
                    let events = source.events(row)?.into_owned();
                    owned.push(Region {
                        name: region.name.clone(),
                        ranks: vec![events.into_calls(row)],
                    });
                }
            }
            let refs: Vec<&Region> = owned.iter().collect();
            let calls = calltree::build(&refs, rank)
                .map_err(|_| Error::Corrupt(format!("the calls of rank {rank} do not nest")))?;
            if calls.is_empty() {
                continue;
            }
            let any_lane = owned
                .iter()
                .any(|r| r.ranks.iter().any(|c| c.lanes.is_some()));
            let mut lane_values: Vec<i64> = calls.iter().map(|c| c.lane).collect();
            lane_values.sort_ord_unstable();
            lane_values.dedup();
            if !any_lane {
                lane_values = vec![-1];
            }
            let mut children: Vec<Vec<usize>> = vec![Vec::new(); calls.len()];
            for (i, c) in calls.iter().enumerate() {
                if let Some(p) = c.parent.and_then(|p| children.get_mut(p)) {
                    p.push(i);
                }
            }
            for lane in lane_values {
                let roots: Vec<usize> = (0..calls.len())
                    .filter(|&i| calls[i].parent.is_none() && (!any_lane || calls[i].lane == lane))
                    .collect();
                let (Some(&first), Some(&last)) = (roots.first(), roots.last()) else {
                    continue;
                };
                let at = |ns: i64| ns as f64 / 1e9 - origin;
                let mut name = format!("rank {rank}");
                if any_lane && lane != -1 {
                    name = format!("{name} - {}", lanes.label(lane, rank));
                }
                let Some(out) = out.as_deref_mut() else {
                    // Meeting the frames: the opening events in the order written.
                    for (i, _) in DepthFirst::new(&roots, &children).filter(|e| !e.1) {
                        let region = refs.get(calls[i].region).ok_or_else(unknown_region)?;
                        frames.of(region, regions);
                    }
                    continue;
                };
                if !std::mem::take(&mut first_profile) {
                    out.write_all(b",")?;
                }
                write!(
                out,
                "{{\"type\":\"evented\",\"name\":{},\"unit\":\"seconds\",\"startValue\":{},\"endValue\":{},\"events\":[",
                json_str(&name),
                json_f64(at(calls[first].start_ns)),
                json_f64(at(calls[last].end_ns))
            )?;
                let mut first_event = true;
                for (i, closing) in DepthFirst::new(&roots, &children) {
                    let call = &calls[i];
                    let region = refs.get(call.region).ok_or_else(unknown_region)?;
                    let frame = frames.of(region, regions);
                    if !std::mem::take(&mut first_event) {
                        out.write_all(b",")?;
                    }
                    if closing {
                        write!(
                            out,
                            "{{\"type\":\"C\",\"frame\":{frame},\"at\":{}}}",
                            json_f64(at(call.end_ns))
                        )?;
                        continue;
                    }
                    write!(
                        out,
                        "{{\"type\":\"O\",\"frame\":{frame},\"at\":{}}}",
                        json_f64(at(call.start_ns))
                    )?;
                }
                out.write_all(b"]}")?;
            }
        }
        Ok(())
    }
}

fn json_meta(v: &PyValue) -> String {
    match v {
        PyValue::Int(i) => i.to_string(),
        PyValue::Float(f) => json_f64(*f),
        PyValue::Bool(b) => b.to_string(),
        PyValue::Str(s) => json_str(s),
        PyValue::List(items) => {
            let inner: Vec<String> = items.iter().map(json_meta).collect();
            format!("[{}]", inner.join(","))
        }
    }
}

fn json_ints<W: Write>(out: &mut W, key: &str, values: &[i64]) -> std::io::Result<()> {
    write!(out, ",\"{key}\":[")?;
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write!(out, "{v}")?;
    }
    out.write_all(b"]")
}

/// Writes the whole profile as one JSON document (layout in the module docs): the
/// selected regions, in region-table order, on the selected ranks (every rank when `None`).
pub fn json<W: Write>(
    profile: &Profile,
    source: &dyn RowSource,
    lanes: &Lanes,
    sel: &Selection,
    out: &mut W,
) -> Result<()> {
    write!(
        out,
        "{{\"format\":\"scope-profiler-profile\",\"format_version\":1,\"exporter\":{},\"time_unit\":\"nanoseconds\",\"num_ranks\":{},\"event_data_available\":true,\"metadata\":{{",
        json_str(EXPORTER),
        profile.num_ranks,
    )?;
    for (i, (k, v)) in profile.metadata.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write!(out, "{}:{}", json_str(k), json_meta(&PyValue::of(v)))?;
    }
    out.write_all(b"},\"regions\":[")?;
    let wanted = |rank: u32| sel.ranks.as_ref().is_none_or(|r| r.contains(&rank));
    let mut first = true;
    for region in profile.regions.iter().filter(|r| sel.keeps(&r.name)) {
        let mut rows: Vec<&RankCalls> = region.ranks.iter().filter(|r| wanted(r.rank)).collect();
        rows.sort_stable_by_key(|r| r.rank);
        for row in rows {
            if !std::mem::take(&mut first) {
                out.write_all(b",")?;
            }
            write!(
                out,
                "{{\"name\":{},\"rank\":{}",
                json_str(&region.name),
                row.rank
            )?;
            if let Some(file) = &row.source_file {
                write!(out, ",\"source_file\":{}", json_str(file))?;
            }
            if let Some(line) = row.source_line {
                write!(out, ",\"source_lineno\":{line}")?;
            }
            match (&row.statistics, row.span) {
                (Some(s), None) => {
                    write!(
                        out,
                        ",\"aggregate\":{{\"count\":{},\"total\":{},\"minimum\":{},\"maximum\":{},\"exclusive\":{}}}",
                        s.count, s.total, s.minimum, s.maximum, s.exclusive
                    )?;
                }
                _ => {
                    let events = source.events(row)?;
                    json_ints(out, "start_times_ns", &events.starts)?;
                    json_ints(out, "end_times_ns", &events.ends)?;
                    // Rows without any GPU timing carry no GPU column, as in the reference.
                    if let Some(g) = events.gpu.as_ref().filter(|g| g.iter().any(|&v| v >= 0)) {
                        json_ints(out, "gpu_durations_ns", g)?;
                    }
                    if let Some(t) = &events.threads {
                        json_ints(out, "thread_ids", t)?;
                    }
                    if let Some(t) = &events.tasks {
                        json_ints(out, "task_ids", t)?;
                    }
                    if let Some(x) = row.exclusive_total {
                        write!(out, ",\"exclusive_total_ns\":{x}")?;
                    }
                }
            }
            out.write_all(b"}")?;
        }
    }
    out.write_all(b"]")?;
    write_lanes_by_rank(
        out,
        "threads",
        &lanes.threads,
        |t| t.rank,
        &wanted,
        |out, t| {
            write!(
                out,
                "{{\"index\":{},\"name\":{}",
                t.index,
                json_str(&t.name)
            )?;
            if let Some(v) = t.ident {
                write!(out, ",\"ident\":{v}")?;
            }
            if let Some(v) = t.native_id {
                write!(out, ",\"native_id\":{v}")?;
            }
            out.write_all(b"}")
        },
    )?;
    write_lanes_by_rank(
        out,
        "tasks",
        &lanes.tasks,
        |t| t.rank,
        &wanted,
        |out, t| {
            write!(
                out,
                "{{\"index\":{},\"name\":{},\"coro_name\":{},\"thread_index\":{}}}",
                t.index,
                json_str(&t.name),
                json_str(&t.coro_name),
                t.thread_index
            )
        },
    )?;
    out.write_all(b"}\n")?;
    Ok(())
}

/// `,"KEY":{"<rank>":[item,…],…}` for the wanted ranks that have lanes; nothing when none do.
fn write_lanes_by_rank<T, W: Write + ?Sized>(
    out: &mut W,
    key: &str,
    items: &[T],
    rank_of: impl Fn(&T) -> u32,
    wanted: &dyn Fn(u32) -> bool,
    mut write_item: impl FnMut(&mut W, &T) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut ranks: Vec<u32> = items.iter().map(&rank_of).filter(|&r| wanted(r)).collect();
    ranks.sort_ord_unstable();
    ranks.dedup();
    if ranks.is_empty() {
        return Ok(());
    }
    write!(out, ",\"{key}\":{{")?;
    for (i, rank) in ranks.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write!(out, "\"{rank}\":[")?;
        for (j, item) in items.iter().filter(|t| rank_of(t) == *rank).enumerate() {
            if j > 0 {
                out.write_all(b",")?;
            }
            write_item(out, item)?;
        }
        out.write_all(b"]")?;
    }
    out.write_all(b"}")
}
