//! A stored profile as the analysis sees it: metadata, and per region the calls of every
//! rank — either the whole event columns ([`Profile::read`]) or only the fixed-size index
//! statistics ([`Profile::read_summary`]), which reads a tiny, size-independent part of the
//! file. Loading follows the reference's reader (`h5reader.load_h5` / `load_h5_summary`),
//! so region order, rank counts and stored statistics are the ones its numbers start from.

use crate::hdf5lite::reader::{File, Value};
use crate::io::ReadAt;

use super::error::{Error, Result};
use super::events::{EventReader, Span};
use crate::schema::stats::Summary;

/// How the profile stores its calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Schema 2/3 shared event columns.
    Columnar,
    /// Schema 2/3 aggregate-only rows (no events).
    Aggregate,
    /// Schema 1 per-rank groups.
    Legacy,
}

impl Layout {
    /// The name used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Columnar => "columnar",
            Layout::Aggregate => "aggregate",
            Layout::Legacy => "legacy",
        }
    }
}

/// One metadata attribute value.
#[derive(Debug, Clone, PartialEq)]
pub enum Meta {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    List(Vec<Meta>),
}

/// Fixed-size statistics of one (rank, region) row, as the reference's summary reader and
/// its aggregate layout hold them. Fields a layout does not store are `None`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stored {
    pub count: u64,
    pub total: i64,
    pub minimum: i64,
    pub maximum: i64,
    pub first: Option<i64>,
    pub last: Option<i64>,
    pub start_minimum: Option<i64>,
    pub end_maximum: Option<i64>,
    pub gpu_count: u64,
    pub gpu_total: i64,
    pub mean: Option<f64>,
    pub m2: Option<f64>,
    /// Stored exclusive total, or the total when none was stored.
    pub exclusive: i64,
}

impl Stored {
    /// Statistics computed from a row's `count` calls (see
    /// [`EventReader::summary`]), with the exclusive total the row stores, if any, as
    /// `summary_statistics` rows get it.
    pub fn computed(count: u64, s: &Summary, exclusive: Option<i64>) -> Stored {
        Stored {
            count,
            total: s.total,
            minimum: s.minimum,
            maximum: s.maximum,
            first: Some(s.first),
            last: Some(s.last),
            start_minimum: Some(s.start_minimum),
            end_maximum: Some(s.end_maximum),
            gpu_count: s.gpu_count,
            gpu_total: s.gpu_total,
            mean: Some(s.mean),
            m2: Some(s.m2),
            exclusive: exclusive.unwrap_or(s.total),
        }
    }
}

/// One region's calls on one rank.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RankCalls {
    pub rank: u32,
    /// Start times, ns, in stored order (empty for summary-only data).
    pub starts: Vec<i64>,
    /// End times, ns, parallel to `starts`.
    pub ends: Vec<i64>,
    /// GPU durations (ns, −1 = none) when the row has any GPU timing.
    pub gpu: Option<Vec<i64>>,
    /// Lane of every call (see the reference's `lane_ids`) when threads were tracked.
    pub lanes: Option<Vec<i64>>,
    pub source_file: Option<String>,
    pub source_line: Option<i64>,
    /// Stored statistics, for rows without events.
    pub stored: Option<Stored>,
    /// Exclusive total (ns) the writer stored for the row, if any.
    pub exclusive_total: Option<i64>,
    /// Where the row's calls lie in `/events`, for rows read by [`Profile::read_index`].
    pub span: Option<Span>,
}

impl RankCalls {
    /// Number of calls.
    pub fn calls(&self) -> u64 {
        match &self.stored {
            Some(s) => s.count,
            None => self.starts.len() as u64,
        }
    }

    /// Durations in ns (`end − start`, wrapping as numpy does).
    pub fn durations_ns(&self) -> impl Iterator<Item = i64> + '_ {
        self.starts
            .iter()
            .zip(&self.ends)
            .map(|(s, e)| e.wrapping_sub(*s))
    }

    /// Total duration in seconds (`Region.total_duration`).
    pub fn total_s(&self) -> f64 {
        match &self.stored {
            Some(s) => s.total as f64 / 1e9,
            None if self.starts.is_empty() => 0.0,
            None => {
                let d: Vec<f64> = self.durations_ns().map(|d| d as f64).collect();
                super::numeric::sum(&d) / 1e9
            }
        }
    }

    /// Earliest start in seconds (`Region.first_start_time`).
    pub fn first_start_s(&self) -> f64 {
        match &self.stored {
            Some(s) => s.start_minimum.unwrap_or(0) as f64 / 1e9,
            None => self.starts.iter().min().map_or(0.0, |&v| v as f64 / 1e9),
        }
    }

    /// Latest end in seconds (`Region.last_end_time`).
    pub fn last_end_s(&self) -> f64 {
        match &self.stored {
            Some(s) => s.end_maximum.unwrap_or(0) as f64 / 1e9,
            None => self.ends.iter().max().map_or(0.0, |&v| v as f64 / 1e9),
        }
    }

    /// Whether GPU timing exists for the row.
    pub fn has_gpu(&self) -> bool {
        match &self.stored {
            Some(s) => s.gpu_count > 0,
            None => self.gpu.as_ref().is_some_and(|g| !g.is_empty()),
        }
    }
}

/// One region: its name and its rows, in rank order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Region {
    pub name: String,
    pub ranks: Vec<RankCalls>,
}

impl Region {
    /// The row of `rank`, if the region has one.
    pub fn rank(&self, rank: u32) -> Option<&RankCalls> {
        self.ranks.iter().find(|r| r.rank == rank)
    }

    /// `MPIRegion.first_start_time` as `get_regions` sorts by: min over rows, where a row
    /// without calls counts 0.0 (the reference's `min` over every row).
    pub fn sort_key(&self) -> f64 {
        self.ranks
            .iter()
            .map(RankCalls::first_start_s)
            .fold(f64::INFINITY, f64::min)
    }

    /// Whether any row has calls.
    pub fn has_timing(&self) -> bool {
        self.ranks.iter().any(|r| r.calls() > 0)
    }

    /// Earliest start over rows with calls, 0.0 if none (`MPIRegion.first_start_time`).
    pub fn first_start_s(&self) -> f64 {
        let v = self
            .ranks
            .iter()
            .filter(|r| r.calls() > 0)
            .map(RankCalls::first_start_s)
            .fold(f64::INFINITY, f64::min);
        if v.is_finite() {
            v
        } else {
            0.0
        }
    }

    /// Latest end over rows with calls, 0.0 if none.
    pub fn last_end_s(&self) -> f64 {
        let v = self
            .ranks
            .iter()
            .filter(|r| r.calls() > 0)
            .map(RankCalls::last_end_s)
            .fold(f64::NEG_INFINITY, f64::max);
        if v.is_finite() {
            v
        } else {
            0.0
        }
    }
}

/// A loaded profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// `scope_profiler_schema` (1 when absent).
    pub schema: i64,
    pub layout: Layout,
    /// `/metadata` attributes, sorted by name.
    pub metadata: Vec<(String, Meta)>,
    /// The reference's `num_ranks`.
    pub num_ranks: u64,
    /// Regions in the reference's dict order (region table order).
    pub regions: Vec<Region>,
    /// Whether per-call events were loaded (false for [`Profile::read_summary`]).
    pub events: bool,
}

/// The most ranks a profile may claim (`mpi_size`, or the largest rank + 1). Exports walk
/// every rank (chrome-trace names each), so a damaged value must not ask for billions; 2^20
/// is above the job sizes scope-profiler runs at, and a 24 KiB file claiming more is damaged.
pub const MAX_RANKS: u64 = 1 << 20;

/// Which parts of a profile to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Depth {
    Metadata,
    Summary,
    Index,
    Events,
}

impl Profile {
    /// Reads the whole profile, event columns included (`read_h5`).
    pub fn read<R: ReadAt>(file: &File<R>) -> Result<Profile> {
        load(file, Depth::Events)
    }

    /// Reads metadata and the index's fixed-size statistics only (`read_h5_summary`). Fails
    /// with [`Error::NoSummary`] when the file stores none (schema 1, older schema 2).
    pub fn read_summary<R: ReadAt>(file: &File<R>) -> Result<Profile> {
        load(file, Depth::Summary)
    }

    /// Reads everything but the event columns: every row gets its [`Span`] and the
    /// statistics the analysis orders regions by (from `summary_statistics` when stored,
    /// else from one pass over the row's calls). Exports then read each row's calls
    /// through an [`EventReader`], so memory stays bounded by the largest row. Schema 1
    /// files have no shared columns and are read whole.
    pub fn read_index<R: ReadAt>(file: &File<R>) -> Result<Profile> {
        load(file, Depth::Index)
    }

    /// Reads metadata and the rank count only.
    pub fn read_metadata<R: ReadAt>(file: &File<R>) -> Result<Profile> {
        load(file, Depth::Metadata)
    }

    /// Metadata value by key.
    pub fn meta(&self, key: &str) -> Option<&Meta> {
        self.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// A `*_time_ns` metadata field in seconds (`_metadata_time`).
    pub fn meta_seconds(&self, key: &str) -> Option<f64> {
        match self.meta(key)? {
            Meta::Int(v) => Some(*v as f64 / 1e9),
            Meta::Float(v) => Some(v / 1e9),
            Meta::Bool(b) => Some(f64::from(u8::from(*b)) / 1e9),
            Meta::Str(s) => s.trim().parse::<f64>().ok().map(|v| v / 1e9),
            Meta::List(_) => None,
        }
    }

    /// Zero of the relative timeline: `start_time_ns`, else the first region entry.
    pub fn time_origin(&self) -> f64 {
        self.meta_seconds("start_time_ns")
            .unwrap_or_else(|| self.minimum_start_s())
    }

    /// Earliest start over regions with calls, 0.0 if none.
    pub fn minimum_start_s(&self) -> f64 {
        let v = self
            .regions
            .iter()
            .filter(|r| r.has_timing())
            .map(Region::first_start_s)
            .fold(f64::INFINITY, f64::min);
        if v.is_finite() {
            v
        } else {
            0.0
        }
    }

    /// Region by name.
    pub fn region(&self, name: &str) -> Option<&Region> {
        self.regions.iter().find(|r| r.name == name)
    }

    /// The run's label, if it has a non-empty one.
    pub fn label(&self) -> Option<String> {
        match self.meta("label")? {
            Meta::Str(s) if !s.is_empty() => Some(s.clone()),
            Meta::Str(_) => None,
            other => Some(meta_text(other)),
        }
    }
}

/// A metadata value as Python's `str()` would print it (close enough for display).
pub fn meta_text(v: &Meta) -> String {
    match v {
        Meta::Int(i) => i.to_string(),
        Meta::Float(f) => python_float(*f),
        Meta::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        Meta::Str(s) => s.clone(),
        Meta::List(items) => {
            let inner: Vec<String> = items
                .iter()
                .map(|i| match i {
                    Meta::Str(s) => format!("'{s}'"),
                    other => meta_text(other),
                })
                .collect();
            format!("[{}]", inner.join(", "))
        }
    }
}

/// Python's `repr` of a float for ordinary magnitudes.
pub fn python_float(f: f64) -> String {
    if f.is_finite() && f == f.trunc() && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

fn has_link<R: ReadAt>(file: &File<R>, group: &str, name: &str) -> Result<bool> {
    Ok(file.group(group)?.links()?.iter().any(|l| l.name == name))
}

fn meta_value(v: Value) -> Meta {
    match v {
        Value::Int(i) => i64::try_from(i).map_or(Meta::Float(i as f64), Meta::Int),
        Value::Float(f) => Meta::Float(f),
        Value::String(s) => Meta::Str(s),
        Value::Bytes(b) => Meta::Str(String::from_utf8_lossy(&b).into_owned()),
        Value::Enum { name, value } => match name.as_deref() {
            Some("TRUE") => Meta::Bool(true),
            Some("FALSE") => Meta::Bool(false),
            _ => Meta::Int(i64::try_from(value).unwrap_or(0)),
        },
        Value::Compound(members) => Meta::Str(format!("{members:?}")),
        Value::Array(items) => Meta::List(items.into_iter().map(meta_value).collect()),
    }
}

fn read_metadata_attrs<R: ReadAt>(file: &File<R>) -> Result<Vec<(String, Meta)>> {
    if !has_link(file, "/", "metadata")? {
        return Ok(Vec::new());
    }
    let group = file.group("/metadata")?;
    let mut out = Vec::new();
    for attr in group.attributes()? {
        let value = attr.value(file)?;
        let is_array = matches!(attr.shape(), Some(crate::hdf5lite::model::Shape::Simple(_)));
        let meta = match (is_array, value) {
            (true, Value::Array(items)) => Meta::List(items.into_iter().map(meta_value).collect()),
            (_, v) => meta_value(v),
        };
        out.push((attr.name().to_string(), meta));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

fn schema_version<R: ReadAt>(file: &File<R>) -> Result<i64> {
    match file.root()?.attribute("scope_profiler_schema")? {
        None => Ok(1),
        Some(a) => match a.value(file)? {
            Value::Int(v) => i64::try_from(v)
                .map_err(|_| Error::NotAProfile(format!("schema attribute {v} is out of range"))),
            other => Err(Error::NotAProfile(format!(
                "schema attribute is not an integer: {other:?}"
            ))),
        },
    }
}

fn storage_layout<R: ReadAt>(file: &File<R>) -> Result<String> {
    match file.root()?.attribute("storage_layout")? {
        None => Ok("columnar".into()),
        Some(a) => match a.value(file)? {
            Value::String(s) => Ok(s),
            other => Err(Error::NotAProfile(format!(
                "storage_layout is not a string: {other:?}"
            ))),
        },
    }
}

fn load<R: ReadAt>(file: &File<R>, depth: Depth) -> Result<Profile> {
    let schema = schema_version(file)?;
    if schema > 3 {
        return Err(Error::NotAProfile(format!(
            "schema {schema} is newer than 3"
        )));
    }
    let metadata = read_metadata_attrs(file)?;
    let mpi_size = metadata
        .iter()
        .find(|(k, _)| k == "mpi_size")
        .and_then(|(_, v)| match v {
            Meta::Int(i) => u64::try_from(*i).ok(),
            Meta::Str(s) => s.parse().ok(),
            _ => None,
        })
        .unwrap_or(1);
    let mut profile = Profile {
        schema,
        layout: Layout::Legacy,
        metadata,
        num_ranks: 0,
        regions: Vec::new(),
        events: depth == Depth::Events,
    };
    if schema >= 2 {
        let layout = storage_layout(file)?;
        profile.layout = if layout == "aggregate" {
            Layout::Aggregate
        } else {
            Layout::Columnar
        };
        let ranks = file.dataset("/rank_region_index/ranks")?.read_u64s()?;
        profile.num_ranks = match ranks.iter().max() {
            Some(&m) => mpi_size.max(m.saturating_add(1)),
            None => 0,
        };
        if profile.num_ranks > MAX_RANKS {
            // Exports walk every rank: a damaged rank or `mpi_size` must not ask for billions.
            return Err(Error::Corrupt(format!(
                "the profile claims {} ranks (more than {MAX_RANKS})",
                profile.num_ranks
            )));
        }
        match depth {
            Depth::Metadata => {}
            Depth::Summary => {
                profile.regions = read_summary_rows(file, profile.layout, &ranks)?;
            }
            Depth::Events => {
                profile.regions = match profile.layout {
                    Layout::Aggregate => read_summary_rows(file, Layout::Aggregate, &ranks)?,
                    _ => read_columnar(file, &ranks)?,
                };
            }
            Depth::Index => {
                profile.regions = match profile.layout {
                    Layout::Aggregate => read_summary_rows(file, Layout::Aggregate, &ranks)?,
                    _ => read_index_rows(file, &ranks)?,
                };
            }
        }
    } else {
        let legacy_depth = if depth == Depth::Index {
            Depth::Events
        } else {
            depth
        };
        let (count, regions) = read_legacy(file, legacy_depth)?;
        profile.num_ranks = count;
        profile.regions = regions;
        if depth == Depth::Summary {
            return Err(Error::NoSummary);
        }
    }
    Ok(profile)
}

fn strings_or_empty<R: ReadAt>(file: &File<R>, path: &str, n: usize) -> Result<Vec<String>> {
    let (group, name) = path.rsplit_once('/').unwrap_or(("/", path));
    if !has_link(file, group, name)? {
        return Ok(vec![String::new(); n]);
    }
    let v = file.dataset(path)?.read_strings()?;
    check_rows(path, v.len(), n)?;
    Ok(v)
}

fn check_rows(path: &str, got: usize, want: usize) -> Result<()> {
    if got != want {
        return Err(Error::Corrupt(format!(
            "{path} has {got} rows, the index has {want}"
        )));
    }
    Ok(())
}

fn region_names<R: ReadAt>(file: &File<R>) -> Result<Vec<String>> {
    Ok(file.dataset("/region_table/names")?.read_strings()?)
}

/// Groups rows into regions in the region table's order, dropping regions with no row.
fn assemble(names: &[String], rows: Vec<(usize, RankCalls)>) -> Vec<Region> {
    let mut regions: Vec<Region> = names
        .iter()
        .map(|n| Region {
            name: n.clone(),
            ranks: Vec::new(),
        })
        .collect();
    for (id, row) in rows {
        if let Some(region) = regions.get_mut(id) {
            // A later row of the same rank replaces the earlier one, as a dict would.
            if let Some(slot) = region.ranks.iter_mut().find(|r| r.rank == row.rank) {
                *slot = row;
            } else {
                region.ranks.push(row);
            }
        }
    }
    regions.retain(|r| !r.ranks.is_empty());
    regions
}

fn region_ids<R: ReadAt>(file: &File<R>, names: usize, rows: usize) -> Result<Vec<usize>> {
    let ids = file.dataset("/rank_region_index/region_ids")?.read_u64s()?;
    check_rows("/rank_region_index/region_ids", ids.len(), rows)?;
    ids.into_iter()
        .map(|id| {
            usize::try_from(id)
                .ok()
                .filter(|&i| i < names)
                .ok_or_else(|| Error::Corrupt(format!("region id {id} has no name")))
        })
        .collect()
}

fn to_rank(r: u64) -> Result<u32> {
    u32::try_from(r).map_err(|_| Error::Corrupt(format!("rank {r} out of range")))
}

fn read_summary_rows<R: ReadAt>(
    file: &File<R>,
    layout: Layout,
    ranks: &[u64],
) -> Result<Vec<Region>> {
    let names = region_names(file)?;
    let n = ranks.len();
    let ids = region_ids(file, names.len(), n)?;
    let idx = "/rank_region_index";
    let mut rows = Vec::new();
    if layout == Layout::Aggregate {
        let col = |name: &str| -> Result<Vec<i64>> {
            let v = file.dataset(&format!("{idx}/{name}"))?.read_i64s()?;
            check_rows(name, v.len(), n)?;
            Ok(v)
        };
        let counts = file
            .dataset(&format!("{idx}/aggregate_counts"))?
            .read_u64s()?;
        check_rows("aggregate_counts", counts.len(), n)?;
        let (totals, mins, maxs, excl) = (
            col("aggregate_totals")?,
            col("aggregate_minimums")?,
            col("aggregate_maximums")?,
            col("aggregate_exclusives")?,
        );
        for i in 0..n {
            let stored = Stored {
                count: counts[i],
                total: totals[i],
                minimum: mins[i],
                maximum: maxs[i],
                exclusive: excl[i],
                ..Stored::default()
            };
            rows.push((
                ids[i],
                RankCalls {
                    rank: to_rank(ranks[i])?,
                    stored: Some(stored),
                    ..RankCalls::default()
                },
            ));
        }
        return Ok(assemble(&names, rows));
    }
    if !has_link(file, idx, "summary_statistics")? {
        return Err(Error::NoSummary);
    }
    let counts = file.dataset(&format!("{idx}/event_counts"))?.read_u64s()?;
    check_rows("event_counts", counts.len(), n)?;
    let lines = file.dataset(&format!("{idx}/source_lines"))?.read_i64s()?;
    check_rows("source_lines", lines.len(), n)?;
    let files = strings_or_empty(file, &format!("{idx}/source_files"), n)?;
    let stats = file
        .dataset(&format!("{idx}/summary_statistics"))?
        .read_values()?;
    check_rows("summary_statistics", stats.len(), n)?;
    let exclusive = if has_link(file, idx, "exclusive_totals")? {
        let v = file
            .dataset(&format!("{idx}/exclusive_totals"))?
            .read_i64s()?;
        check_rows("exclusive_totals", v.len(), n)?;
        Some(v)
    } else {
        None
    };
    for i in 0..n {
        let Value::Compound(members) = &stats[i] else {
            return Err(Error::Corrupt(
                "summary_statistics is not a compound".into(),
            ));
        };
        let int = |name: &str| -> Option<i64> {
            members
                .iter()
                .find(|(k, _)| k == name)
                .and_then(|(_, v)| match v {
                    Value::Int(x) => i64::try_from(*x).ok(),
                    _ => None,
                })
        };
        let float = |name: &str| -> Option<f64> {
            members
                .iter()
                .find(|(k, _)| k == name)
                .and_then(|(_, v)| match v {
                    Value::Float(x) => Some(*x),
                    Value::Int(x) => Some(*x as f64),
                    _ => None,
                })
        };
        let total = int("total").unwrap_or(0);
        let stored = Stored {
            count: counts[i],
            total,
            minimum: int("minimum").unwrap_or(0),
            maximum: int("maximum").unwrap_or(0),
            first: int("first"),
            last: int("last"),
            start_minimum: int("start_minimum"),
            end_maximum: int("end_maximum"),
            gpu_count: int("gpu_count")
                .and_then(|v| u64::try_from(v).ok())
                .unwrap_or(0),
            gpu_total: int("gpu_total").unwrap_or(0),
            mean: float("mean"),
            m2: float("m2"),
            exclusive: exclusive
                .as_ref()
                .map(|e| e[i])
                .filter(|&e| e >= 0)
                .unwrap_or(total),
        };
        rows.push((
            ids[i],
            RankCalls {
                rank: to_rank(ranks[i])?,
                source_file: Some(files[i].clone()).filter(|s| !s.is_empty()),
                source_line: Some(lines[i]).filter(|&l| l >= 0),
                stored: Some(stored),
                ..RankCalls::default()
            },
        ));
    }
    Ok(assemble(&names, rows))
}

fn optional_events<R: ReadAt>(file: &File<R>, name: &str, e: usize) -> Result<Option<Vec<i64>>> {
    if !has_link(file, "/events", name)? {
        return Ok(None);
    }
    let v = file.dataset(&format!("/events/{name}"))?.read_i64s()?;
    check_rows(name, v.len(), e)?;
    Ok(Some(v))
}

/// The `rank_region_index` columns every columnar read needs, checked to hold `n` rows.
struct IndexColumns {
    names: Vec<String>,
    ids: Vec<usize>,
    offsets: Vec<u64>,
    counts: Vec<u64>,
    lines: Vec<i64>,
    files: Vec<String>,
    exclusive: Option<Vec<i64>>,
}

impl IndexColumns {
    fn read<R: ReadAt>(file: &File<R>, n: usize) -> Result<IndexColumns> {
        let idx = "/rank_region_index";
        let names = region_names(file)?;
        let ids = region_ids(file, names.len(), n)?;
        let offsets = file.dataset(&format!("{idx}/event_offsets"))?.read_u64s()?;
        let counts = file.dataset(&format!("{idx}/event_counts"))?.read_u64s()?;
        check_rows("event_offsets", offsets.len(), n)?;
        check_rows("event_counts", counts.len(), n)?;
        let lines = file.dataset(&format!("{idx}/source_lines"))?.read_i64s()?;
        check_rows("source_lines", lines.len(), n)?;
        let files = strings_or_empty(file, &format!("{idx}/source_files"), n)?;
        let exclusive = if has_link(file, idx, "exclusive_totals")? {
            let v = file
                .dataset(&format!("{idx}/exclusive_totals"))?
                .read_i64s()?;
            check_rows("exclusive_totals", v.len(), n)?;
            Some(v)
        } else {
            None
        };
        Ok(IndexColumns {
            names,
            ids,
            offsets,
            counts,
            lines,
            files,
            exclusive,
        })
    }
}

fn read_columnar<R: ReadAt>(file: &File<R>, ranks: &[u64]) -> Result<Vec<Region>> {
    let n = ranks.len();
    let IndexColumns {
        names,
        ids,
        offsets,
        counts,
        lines,
        files,
        exclusive,
    } = IndexColumns::read(file, n)?;
    let delta = has_link(file, "/events", "start_deltas")?;
    let (a, b) = if delta {
        ("start_deltas", "durations")
    } else {
        ("start_times", "end_times")
    };
    let col_a = file.dataset(&format!("/events/{a}"))?.read_i64s()?;
    let col_b = file.dataset(&format!("/events/{b}"))?.read_i64s()?;
    let e = col_a.len();
    check_rows(b, col_b.len(), e)?;
    let gpu = optional_events(file, "gpu_durations", e)?;
    let threads = optional_events(file, "thread_ids", e)?;
    let tasks = optional_events(file, "task_ids", e)?;
    let mut rows = Vec::new();
    for i in 0..n {
        let start = usize::try_from(offsets[i]).ok();
        let range = start
            .zip(usize::try_from(counts[i]).ok())
            .and_then(|(s, c)| Some(s..s.checked_add(c)?))
            .filter(|r| r.end <= e)
            .ok_or_else(|| {
                Error::Corrupt(format!(
                    "index row {i} points at events {}+{} of {e}",
                    offsets[i], counts[i]
                ))
            })?;
        let (starts, ends) = if delta {
            let mut acc = 0i64;
            let mut starts = Vec::with_capacity(range.len());
            let mut ends = Vec::with_capacity(range.len());
            for j in range.clone() {
                acc = acc.wrapping_add(col_a[j]);
                starts.push(acc);
                ends.push(acc.wrapping_add(col_b[j]));
            }
            (starts, ends)
        } else {
            (col_a[range.clone()].to_vec(), col_b[range.clone()].to_vec())
        };
        let gpu = gpu
            .as_ref()
            .map(|g| g[range.clone()].to_vec())
            .filter(|g| g.iter().any(|&v| v >= 0));
        let lanes = threads.as_ref().map(|t| {
            range
                .clone()
                .map(|j| {
                    let thread = t[j];
                    let lane = if thread < 0 {
                        -1
                    } else {
                        (-2i64).wrapping_sub(thread)
                    };
                    match &tasks {
                        Some(k) if k[j] >= 0 => k[j],
                        _ => lane,
                    }
                })
                .collect()
        });
        rows.push((
            ids[i],
            RankCalls {
                rank: to_rank(ranks[i])?,
                starts,
                ends,
                gpu,
                lanes,
                source_file: Some(files[i].clone()).filter(|s| !s.is_empty()),
                source_line: Some(lines[i]).filter(|&l| l >= 0),
                stored: None,
                exclusive_total: exclusive.as_ref().map(|x| x[i]).filter(|&x| x >= 0),
                span: None,
            },
        ));
    }
    Ok(assemble(&names, rows))
}

/// Rows with spans and ordering statistics, no events (see [`Profile::read_index`]).
fn read_index_rows<R: ReadAt>(file: &File<R>, ranks: &[u64]) -> Result<Vec<Region>> {
    let idx = "/rank_region_index";
    let n = ranks.len();
    let summary = if has_link(file, idx, "summary_statistics")? {
        read_summary_rows(file, Layout::Columnar, ranks)?
    } else {
        Vec::new()
    };
    let IndexColumns {
        names,
        ids,
        offsets,
        counts,
        lines,
        files,
        exclusive,
    } = IndexColumns::read(file, n)?;
    let events = EventReader::open(file)?;
    let mut rows = Vec::new();
    for i in 0..n {
        let rank = to_rank(ranks[i])?;
        let span = Span {
            offset: offsets[i],
            count: counts[i],
        };
        let name = names.get(ids[i]).map(String::as_str).unwrap_or_default();
        let from_summary = summary
            .iter()
            .find(|r| r.name == name)
            .and_then(|r| r.rank(rank))
            .and_then(|r| r.stored.clone())
            .filter(|s| s.start_minimum.is_some() && s.end_maximum.is_some());
        let stored = match (from_summary, &events) {
            (Some(s), _) => s,
            (None, Some(reader)) => {
                let row = reader.read(span)?;
                Stored {
                    count: span.count,
                    start_minimum: Some(row.starts.iter().copied().min().unwrap_or(0)),
                    end_maximum: Some(row.ends.iter().copied().max().unwrap_or(0)),
                    ..Stored::default()
                }
            }
            (None, None) if span.count == 0 => Stored::default(),
            (None, None) => {
                return Err(Error::Corrupt(format!(
                    "index row {i} has {} calls but the file has no /events",
                    span.count
                )))
            }
        };
        rows.push((
            ids[i],
            RankCalls {
                rank,
                source_file: Some(files[i].clone()).filter(|s| !s.is_empty()),
                source_line: Some(lines[i]).filter(|&l| l >= 0),
                stored: Some(stored),
                exclusive_total: exclusive.as_ref().map(|x| x[i]).filter(|&x| x >= 0),
                span: Some(span),
                ..RankCalls::default()
            },
        ));
    }
    Ok(assemble(&names, rows))
}

fn read_legacy<R: ReadAt>(file: &File<R>, depth: Depth) -> Result<(u64, Vec<Region>)> {
    let mut groups: Vec<(u32, String)> = file
        .root()?
        .links()?
        .into_iter()
        .filter_map(|l| {
            let digits = l.name.strip_prefix("rank")?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            Some((digits.parse::<u32>().ok()?, l.name))
        })
        .collect();
    groups.sort();
    let count = groups.len() as u64;
    let mut regions: Vec<Region> = Vec::new();
    if depth != Depth::Events {
        return Ok((count, regions));
    }
    for (rank, group) in groups {
        if !has_link(file, &format!("/{group}"), "regions")? {
            continue;
        }
        let base = format!("/{group}/regions");
        for link in file.group(&base)?.links()? {
            let path = format!("{base}/{}", link.name);
            let g = file.group(&path)?;
            let starts = file.dataset(&format!("{path}/start_times"))?.read_i64s()?;
            let ends = file.dataset(&format!("{path}/end_times"))?.read_i64s()?;
            check_rows(&path, ends.len(), starts.len())?;
            let gpu = if has_link(file, &path, "gpu_durations")? {
                Some(
                    file.dataset(&format!("{path}/gpu_durations"))?
                        .read_i64s()?,
                )
                .filter(|g| !g.is_empty())
            } else {
                None
            };
            let source_file = match g.attribute("source_file")? {
                Some(a) => match a.value(file)? {
                    Value::String(s) => Some(s),
                    _ => None,
                },
                None => None,
            };
            let source_line = match g.attribute("source_lineno")? {
                Some(a) => match a.value(file)? {
                    Value::Int(v) => i64::try_from(v).ok(),
                    _ => None,
                },
                None => None,
            };
            let calls = RankCalls {
                rank,
                starts,
                ends,
                gpu,
                lanes: None,
                source_file,
                source_line,
                stored: None,
                exclusive_total: None,
                span: None,
            };
            match regions.iter_mut().find(|r| r.name == link.name) {
                Some(r) => r.ranks.push(calls),
                None => regions.push(Region {
                    name: link.name.clone(),
                    ranks: vec![calls],
                }),
            }
        }
    }
    Ok((count, regions))
}
