//! The reference's JSON profile (`scope-profiler export json`, `profile.json` or
//! `profile.json.gz`): the same run as an HDF5 profile, one document, read into the one
//! [`Profile`] model so every command takes it as it takes the `.h5` it came from.
//!
//! The document (format `scope-profiler-profile`, version 1) holds `num_ranks`, `metadata`
//! (name → JSON value) and `regions`: one row per (region, rank), in the run's region order,
//! each with either its calls (`start_times_ns`, `end_times_ns`, and optionally
//! `gpu_durations_ns`, `thread_ids`, `task_ids`, `exclusive_total_ns`) or, for an aggregate
//! run, its `aggregate` statistics. A document is parsed whole, as the reference parses it,
//! so a profile read from JSON always has every call loaded ([`Depth::Events`]).
//!
//! ```
//! use sp::schema::{json, Depth};
//! let doc = br#"{"format": "scope-profiler-profile", "format_version": 1, "num_ranks": 1,
//!   "metadata": {"mpi_size": 1}, "regions": [{"name": "main", "rank": 0,
//!   "start_times_ns": [10], "end_times_ns": [25]}]}"#;
//! assert!(json::is_json(doc));
//! let profile = json::read(doc, Depth::Events).unwrap();
//! assert_eq!(profile.regions[0].ranks[0].durations_ns().next(), Some(15));
//! ```

use std::io::Read;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::error::Error;
use super::metadata::{MetaValue, Metadata};
use super::profile::{Depth, Profile, ProfileLayout, RankCalls, Region, RowStatistics};
use super::read::events::lanes;
use super::read::MAX_RANKS;
use crate::hdf5lite::{Data, Datatype, Shape};

/// The `format` every document carries.
pub const FORMAT_NAME: &str = "scope-profiler-profile";

/// The newest `format_version` this reader knows.
pub const FORMAT_VERSION: i64 = 1;

/// The most a `.json.gz` may inflate to (4 GiB): past it the input is refused, not read on.
pub const MAX_INFLATED: u64 = 1 << 32;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Whether `head` (the first bytes of a file, a few are enough) starts a JSON profile: a
/// `{` after any white space, or a gzip member (the only gzipped profile the reference
/// writes is a JSON one), as the reference's `sniff_profile_format` decides.
pub fn is_json(head: &[u8]) -> bool {
    if head.starts_with(&GZIP_MAGIC) {
        return true;
    }
    head.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{')
}

/// Reads the profile in `bytes` (the document, or its gzip), to `depth`: at
/// [`Depth::Metadata`] without regions, at any other depth with every call.
pub fn read(bytes: &[u8], depth: Depth) -> Result<Profile, Error> {
    let document: Value = if bytes.starts_with(&GZIP_MAGIC) {
        let text = inflate(bytes)?;
        parse(&text)?
    } else {
        parse(bytes)?
    };
    from_document(&document, depth)
}

fn parse(bytes: &[u8]) -> Result<Value, Error> {
    serde_json::from_slice(bytes).map_err(|e| corrupt(format!("invalid JSON: {e}")))
}

/// The gzip's content, refused past [`MAX_INFLATED`] bytes.
fn inflate(bytes: &[u8]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    let mut decoder = flate2::read::MultiGzDecoder::new(bytes).take(MAX_INFLATED + 1);
    let mut block = [0u8; 64 * 1024];
    loop {
        let n = decoder
            .read(&mut block)
            .map_err(|e| corrupt(format!("invalid gzip: {e}")))?;
        if n == 0 {
            break;
        }
        out.extend_from_slice(&block[..n]);
        if out.len() as u64 > MAX_INFLATED {
            return Err(Error::Unsupported(format!(
                "the JSON profile inflates to more than {MAX_INFLATED} bytes"
            )));
        }
    }
    Ok(out)
}

fn corrupt(why: String) -> Error {
    Error::Corrupt(why)
}

fn from_document(document: &Value, depth: Depth) -> Result<Profile, Error> {
    let Some(doc) = document.as_object() else {
        return Err(not_ours());
    };
    if doc.get("format").and_then(Value::as_str) != Some(FORMAT_NAME) {
        return Err(not_ours());
    }
    let version = match doc.get("format_version") {
        None => 0,
        Some(v) => v
            .as_i64()
            .ok_or_else(|| corrupt("format_version is not an integer".into()))?,
    };
    if version > FORMAT_VERSION {
        return Err(Error::Schema(format!(
            "JSON profile format version {version}; sp reads versions through {FORMAT_VERSION}"
        )));
    }
    let num_ranks = match doc.get("num_ranks") {
        None => 0,
        Some(v) => v
            .as_u64()
            .filter(|&n| n <= MAX_RANKS)
            .ok_or_else(|| corrupt(format!("num_ranks {v} is not a count up to {MAX_RANKS}")))?,
    };
    let metadata = match doc.get("metadata") {
        None | Some(Value::Null) => Metadata::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| (k.clone(), meta_value(v)))
            .collect(),
        Some(_) => return Err(corrupt("metadata is not an object".into())),
    };
    let mut profile = Profile {
        schema: super::read::NEWEST_SCHEMA,
        layout: ProfileLayout::Columnar,
        metadata,
        num_ranks,
        region_names: Vec::new(),
        regions: Vec::new(),
        depth,
        summary_statistics: false,
    };
    let rows = match doc.get("regions") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(rows)) => rows.as_slice(),
        Some(_) => return Err(corrupt("regions is not an array".into())),
    };
    let mut aggregate = false;
    for (i, row) in rows.iter().enumerate() {
        let row = row
            .as_object()
            .ok_or_else(|| corrupt(format!("regions[{i}] is not an object")))?;
        let name = row
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| corrupt(format!("regions[{i}] has no name")))?;
        if depth == Depth::Metadata {
            continue;
        }
        let (calls, is_aggregate) =
            rank_calls(row).map_err(|e| corrupt(format!("regions[{i}] ({name}): {e}")))?;
        aggregate |= is_aggregate;
        let region = match profile.regions.iter().position(|r| r.name == name) {
            Some(at) => &mut profile.regions[at],
            None => {
                profile.region_names.push(name.to_owned());
                profile.regions.push(Region {
                    name: name.to_owned(),
                    ranks: Vec::new(),
                });
                let last = profile.regions.len() - 1;
                &mut profile.regions[last]
            }
        };
        // The later of two rows of one (rank, region) wins, in the earlier's place.
        match region.ranks.iter_mut().find(|r| r.rank == calls.rank) {
            Some(earlier) => *earlier = calls,
            None => region.ranks.push(calls),
        }
    }
    if aggregate {
        profile.layout = ProfileLayout::Aggregate;
    }
    Ok(profile)
}

fn not_ours() -> Error {
    Error::NotAProfile(format!(
        "not a scope-profiler JSON profile (no \"format\": \"{FORMAT_NAME}\")"
    ))
}

/// One row; whether it is an aggregate (statistics, no calls).
fn rank_calls(row: &Map<String, Value>) -> Result<(RankCalls, bool), String> {
    let rank = row
        .get("rank")
        .and_then(Value::as_u64)
        .filter(|&r| r < MAX_RANKS)
        .and_then(|r| u32::try_from(r).ok())
        .ok_or_else(|| format!("rank is not an integer in 0..{MAX_RANKS}"))?;
    let string = |key: &str| -> Result<Option<String>, String> {
        match row.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone()).filter(|s| !s.is_empty())),
            Some(_) => Err(format!("{key} is not a string")),
        }
    };
    let int = |key: &str| -> Result<Option<i64>, String> {
        match row.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| format!("{key} is not an integer")),
        }
    };
    let mut calls = RankCalls {
        rank,
        source_file: string("source_file")?.map(Arc::from),
        source_line: int("source_lineno")?.filter(|&l| l >= 0),
        source_text: string("source_text")?.map(Arc::from),
        exclusive_total: int("exclusive_total_ns")?.filter(|&x| x >= 0),
        ..RankCalls::default()
    };
    if let Some(aggregate) = row.get("aggregate").filter(|a| !a.is_null()) {
        let aggregate = aggregate.as_object().ok_or("aggregate is not an object")?;
        calls.statistics = Some(statistics(aggregate)?);
        return Ok((calls, true));
    }
    calls.starts = ints(row, "start_times_ns")?.unwrap_or_default();
    calls.ends = ints(row, "end_times_ns")?.unwrap_or_default();
    let n = calls.starts.len();
    if calls.ends.len() != n {
        return Err(format!(
            "{n} start time(s) but {} end time(s)",
            calls.ends.len()
        ));
    }
    let column = |key: &str| -> Result<Option<Vec<i64>>, String> {
        match ints(row, key)? {
            Some(v) if v.len() != n => Err(format!("{key} has {} values for {n} calls", v.len())),
            other => Ok(other),
        }
    };
    calls.gpu = column("gpu_durations_ns")?.filter(|g| g.iter().any(|&v| v >= 0));
    let threads = column("thread_ids")?;
    let tasks = column("task_ids")?;
    calls.lanes = threads.map(|t| lanes(&t, tasks.as_deref()));
    Ok((calls, false))
}

/// An integer column; `None` when absent or null.
fn ints(row: &Map<String, Value>, key: &str) -> Result<Option<Vec<i64>>, String> {
    match row.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(values)) => values
            .iter()
            .map(|v| {
                v.as_i64()
                    .ok_or_else(|| format!("{key} holds {v}, not an integer"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(format!("{key} is not an array")),
    }
}

/// The statistics of an aggregate row (the reference's `stored_summary`).
fn statistics(aggregate: &Map<String, Value>) -> Result<RowStatistics, String> {
    let int = |key: &str| -> Result<Option<i64>, String> {
        match aggregate.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_i64()
                .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                .map(Some)
                .ok_or_else(|| format!("aggregate {key} is not an integer")),
        }
    };
    let float = |key: &str| -> Result<Option<f64>, String> {
        match aggregate.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| format!("aggregate {key} is not a number")),
        }
    };
    let count = int("count")?.unwrap_or(0);
    let count = u64::try_from(count).map_err(|_| format!("aggregate count {count} is negative"))?;
    let total = int("total")?.unwrap_or(0);
    let gpu_count = int("gpu_count")?.unwrap_or(0);
    Ok(RowStatistics {
        count,
        total,
        minimum: int("minimum")?.unwrap_or(0),
        maximum: int("maximum")?.unwrap_or(0),
        gpu_count: u64::try_from(gpu_count).unwrap_or(0),
        gpu_total: int("gpu_total")?.unwrap_or(0),
        exclusive: int("exclusive")?.unwrap_or(total),
        optional: Default::default(),
    }
    .with_first(int("first")?)
    .with_last(int("last")?)
    .with_start_minimum(int("start_minimum")?)
    .with_end_maximum(int("end_maximum")?)
    .with_mean(float("mean")?)
    .with_m2(float("m2")?))
}

/// A metadata value as the reference's HDF5 writer would store the same Python value.
fn meta_value(value: &Value) -> MetaValue {
    match value {
        Value::String(s) => MetaValue::Str(s.clone()),
        Value::Bool(b) => MetaValue::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => MetaValue::Int(i),
            None => MetaValue::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        // The writer's stand-in for a non-finite float.
        Value::Null => MetaValue::Float(f64::NAN),
        Value::Array(items) => {
            if items.iter().all(Value::is_string) {
                MetaValue::StrList(
                    items
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect(),
                )
            } else if let Some(ints) = items.iter().map(Value::as_i64).collect::<Option<Vec<_>>>() {
                MetaValue::Typed(
                    Datatype::I64,
                    Shape::vector(ints.len() as u64),
                    Data::i64s(&ints),
                )
            } else if let Some(floats) = items
                .iter()
                .map(|v| {
                    if v.is_null() {
                        Some(f64::NAN)
                    } else {
                        v.as_f64()
                    }
                })
                .collect::<Option<Vec<_>>>()
            {
                MetaValue::Typed(
                    Datatype::F64,
                    Shape::vector(floats.len() as u64),
                    Data::f64s(&floats),
                )
            } else {
                MetaValue::Str(value.to_string())
            }
        }
        Value::Object(_) => MetaValue::Str(value.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{"format": "scope-profiler-profile", "format_version": 1,
        "num_ranks": 2, "metadata": {"mpi_size": 2, "host": "n0", "mods": ["a", "b"]},
        "regions": [
          {"name": "solve", "rank": 0, "source_file": "s.py", "source_lineno": 7,
           "start_times_ns": [10, 20], "end_times_ns": [15, 33],
           "gpu_durations_ns": [5, -1], "thread_ids": [0, 0], "task_ids": [-1, 3],
           "exclusive_total_ns": 18},
          {"name": "io", "rank": 1, "start_times_ns": [1], "end_times_ns": [2]},
          {"name": "agg", "rank": 1, "aggregate": {"count": 3, "total": 9, "minimum": 2,
           "maximum": 4, "exclusive": 7}}]}"#;

    #[test]
    fn reads_rows_calls_lanes_and_aggregates() {
        let p = read(DOC.as_bytes(), Depth::Events).expect("read");
        assert_eq!(p.num_ranks, 2);
        assert_eq!(p.region_names, ["solve", "io", "agg"]);
        assert_eq!(p.layout, ProfileLayout::Aggregate);
        let solve = &p.regions[0].ranks[0];
        assert_eq!(solve.starts, [10, 20]);
        assert_eq!(solve.gpu, Some(vec![5, -1]));
        assert_eq!(solve.lanes, Some(vec![-2, 3]));
        assert_eq!(solve.exclusive_total, Some(18));
        assert_eq!(solve.source_line, Some(7));
        let agg = p.regions[2].ranks[0].statistics.as_ref().expect("stats");
        assert_eq!((agg.count, agg.total, agg.exclusive), (3, 9, 7));
        assert_eq!(p.meta("host"), Some(&MetaValue::Str("n0".into())));
        assert_eq!(
            p.meta("mods"),
            Some(&MetaValue::StrList(vec!["a".into(), "b".into()]))
        );
        let head = read(DOC.as_bytes(), Depth::Metadata).expect("metadata");
        assert!(head.regions.is_empty());
    }

    #[test]
    fn gzip_reads_the_same() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(DOC.as_bytes()).expect("gzip");
        let gz = gz.finish().expect("gzip");
        assert!(is_json(&gz));
        assert_eq!(
            read(&gz, Depth::Events).expect("gz"),
            read(DOC.as_bytes(), Depth::Events).expect("plain")
        );
    }

    #[test]
    fn sniffs_only_objects_and_gzip() {
        assert!(is_json(b"  \n{\"a\": 1}"));
        assert!(!is_json(b"\x89HDF\r\n\x1a\n"));
        assert!(!is_json(b"[1]"));
        assert!(!is_json(b""));
    }

    #[test]
    fn damaged_documents_are_errors_not_panics() {
        let bad: &[&[u8]] = &[
            b"{",
            b"{}",
            b"{\"format\": \"scope-profiler-profile\", \"format_version\": 9}",
            b"{\"format\": \"scope-profiler-profile\", \"regions\": [{\"name\": \"a\", \"rank\": -1}]}",
            b"{\"format\": \"scope-profiler-profile\", \"regions\": [{\"name\": \"a\", \"rank\": 0, \"start_times_ns\": [1], \"end_times_ns\": []}]}",
            b"{\"format\": \"scope-profiler-profile\", \"num_ranks\": 1e300}",
            b"\x1f\x8b\x08\x00garbage",
        ];
        for doc in bad {
            assert!(
                read(doc, Depth::Events).is_err(),
                "{:?}",
                String::from_utf8_lossy(doc)
            );
        }
        for cut in 0..DOC.len() {
            let _ = read(&DOC.as_bytes()[..cut], Depth::Events);
        }
    }
}
