//! Reading a stored profile (schema 1, 2 or 3; columnar or aggregate) into the per-rank
//! region calls the import rules consume, with the checks `read_h5` makes (SCHEMA.md §4) and
//! its view of regions: names-table order stably sorted by earliest start, sources as stored.

use std::collections::{BTreeMap, HashMap};

use crate::hdf5lite::reader::{File, Group, LinkKind, Value};
use crate::hdf5lite::{ByteOrder, Data, Datatype, Shape, StringLength};
use crate::io::ReadAt;

use super::error::Error;
use super::likwid::{self, LikwidByRank};
use super::metadata::{MetaValue, Metadata};
use super::native::{sort_regions, RegionCalls, RegionRanks};

/// The newest schema this crate reads.
pub const NEWEST_SCHEMA: i64 = 3;

/// The content of a stored profile that an import carries over.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StoredProfile {
    /// `scope_profiler_schema` (1 when absent).
    pub schema: i64,
    /// The attributes of `/metadata`.
    pub metadata: Metadata,
    /// Every name of the region table (with or without rows).
    pub region_names: Vec<String>,
    /// Regions that have rows, in the reference's order: names order, stably sorted by the
    /// earliest start over the region's ranks.
    pub regions: Vec<RegionRanks>,
    /// LIKWID results of the ranks that have them (kept only by `--merge`).
    pub likwid: LikwidByRank,
}

impl StoredProfile {
    /// The file's ranks ascending, each with its regions in the file's region order, as
    /// `import-native` iterates an `.h5` input.
    pub fn into_ranks(self) -> Vec<(u32, Vec<RegionCalls>)> {
        let mut out: BTreeMap<u32, Vec<RegionCalls>> = BTreeMap::new();
        for region in self.regions {
            for (rank, calls) in region.ranks {
                out.entry(rank).or_default().push(calls);
            }
        }
        out.into_iter().collect()
    }
}

/// Reads the profile in `file`.
pub fn read_profile<R: ReadAt>(file: &File<R>) -> Result<StoredProfile, Error> {
    let root = file.root()?;
    let schema = schema_version(file, &root)?;
    let links = root.links()?;
    let has = |name: &str| links.iter().any(|l| l.name == name);
    let metadata = if has("metadata") {
        read_metadata(file, &file.group("/metadata")?)?
    } else {
        Metadata::new()
    };

    let rank_groups: Vec<(u32, String)> = links
        .iter()
        .filter(|l| matches!(l.kind, LinkKind::Hard(_)))
        .filter_map(|l| rank_number(&l.name).map(|r| (r, l.name.clone())))
        .collect();
    let likwid = likwid::read(file, &rank_groups)?;
    let per_region = if schema >= 2 {
        if !has("region_table") || !has("rank_region_index") {
            return Err(not_a_profile(
                "it has a schema attribute but no region_table or rank_region_index",
            ));
        }
        if is_aggregate(file, &root)? {
            read_aggregate(file)?
        } else {
            read_columnar(file)?
        }
    } else {
        if rank_groups.is_empty() && !has("metadata") {
            return Err(not_a_profile(
                "it has no scope_profiler_schema attribute, no metadata and no rank groups",
            ));
        }
        read_schema1(file, rank_groups)?
    };
    let region_names = per_region.iter().map(|(name, _)| name.clone()).collect();
    // Regions without rows are dropped: the reference cannot order them and fails.
    let mut regions: Vec<RegionRanks> = per_region
        .into_iter()
        .filter(|(_, ranks)| !ranks.is_empty())
        .map(|(name, ranks)| RegionRanks { name, ranks })
        .collect();
    sort_regions(&mut regions);
    Ok(StoredProfile {
        schema,
        metadata,
        region_names,
        regions,
        likwid,
    })
}

fn not_a_profile(why: &str) -> Error {
    Error::NotAProfile(format!("not a scope-profiler profile: {why}"))
}

/// The regions of a file in names order, each with its calls per rank.
type PerRegion = Vec<(String, BTreeMap<u32, RegionCalls>)>;

/// `scope_profiler_schema`: an integer scalar from 1 to 3, or absent (schema 1).
fn schema_version<R: ReadAt>(file: &File<R>, root: &Group<'_, R>) -> Result<i64, Error> {
    let Some(attr) = root.attribute("scope_profiler_schema")? else {
        return Ok(1);
    };
    let value = attr.value(file)?;
    let version = match (attr.datatype(), attr.shape(), &value) {
        (Datatype::Integer { .. }, Some(Shape::Scalar), Value::Int(v)) => *v,
        _ => {
            return Err(Error::Schema(format!(
                "HDF5 schema version attribute 'scope_profiler_schema' must be an integer \
                 scalar, got {}",
                describe(attr.datatype())
            )))
        }
    };
    if version < 1 {
        return Err(Error::Schema(format!(
            "unsupported scope-profiler HDF5 schema version {version}; versions must be positive"
        )));
    }
    if version > i128::from(NEWEST_SCHEMA) {
        return Err(Error::Schema(format!(
            "unsupported scope-profiler HDF5 schema version {version}; sp reads versions \
             through {NEWEST_SCHEMA}"
        )));
    }
    Ok(version as i64)
}

fn describe(datatype: &Datatype) -> &'static str {
    match datatype {
        Datatype::Integer { .. } => "an integer array",
        Datatype::Float { .. } => "a float",
        Datatype::String { .. } => "a string",
        Datatype::Enum { .. } => "an enum (bool)",
        Datatype::Compound { .. } => "a compound",
        Datatype::Array { .. } => "an array",
    }
}

/// Whether `storage_layout` is the variable-length string "aggregate" (a fixed-length one
/// reads as columnar in the reference, which sees bytes, not str).
fn is_aggregate<R: ReadAt>(file: &File<R>, root: &Group<'_, R>) -> Result<bool, Error> {
    let Some(attr) = root.attribute("storage_layout")? else {
        return Ok(false);
    };
    let variable = matches!(
        attr.datatype(),
        Datatype::String {
            length: StringLength::Variable,
            ..
        }
    );
    Ok(variable
        && attr.shape() == Some(Shape::Scalar)
        && attr.value(file)? == Value::String("aggregate".into()))
}

/// `rank<N>` with N decimal digits.
fn rank_number(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("rank")?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

fn read_columnar<R: ReadAt>(file: &File<R>) -> Result<PerRegion, Error> {
    let names = file.dataset("/region_table/names")?.read_strings()?;
    let int_column = |name: &str| -> Result<Vec<i64>, Error> {
        Ok(file
            .dataset(&format!("/rank_region_index/{name}"))?
            .read_i64s()?)
    };
    let str_column = |name: &str| -> Result<Vec<String>, Error> {
        Ok(file
            .dataset(&format!("/rank_region_index/{name}"))?
            .read_strings()?)
    };
    let region_ids = int_column("region_ids")?;
    let ranks = int_column("ranks")?;
    let offsets = int_column("event_offsets")?;
    let counts = int_column("event_counts")?;
    let source_lines = int_column("source_lines")?;
    let source_files = str_column("source_files")?;
    let source_texts = str_column("source_texts")?;
    let rows = region_ids.len();
    for (column, len) in [
        ("ranks", ranks.len()),
        ("event_offsets", offsets.len()),
        ("event_counts", counts.len()),
        ("source_lines", source_lines.len()),
        ("source_files", source_files.len()),
        ("source_texts", source_texts.len()),
    ] {
        if len < rows {
            return Err(Error::Corrupt(format!(
                "/rank_region_index/{column} has {len} rows, region_ids has {rows}"
            )));
        }
    }

    let events = file.group("/events")?;
    let event_links = events.links()?;
    let delta_encoded = event_links.iter().any(|l| l.name == "start_deltas");
    let (first, second) = if delta_encoded {
        ("/events/start_deltas", "/events/durations")
    } else {
        ("/events/start_times", "/events/end_times")
    };
    let first_column = file.dataset(first)?.read_i64s()?;
    let second_column = file.dataset(second)?.read_i64s()?;
    let event_count = first_column.len().min(second_column.len()) as i128;
    check_event_index(&offsets[..rows], &counts[..rows], event_count)?;

    let mut per_region: PerRegion = names.iter().map(|n| (n.clone(), BTreeMap::new())).collect();
    for row in 0..rows {
        let id = usize::try_from(region_ids[row])
            .ok()
            .filter(|&i| i < names.len())
            .ok_or_else(|| {
                Error::Corrupt(format!(
                    "row {row} has region id {} but the region table holds {} names",
                    region_ids[row],
                    names.len()
                ))
            })?;
        let rank = rank_of(ranks[row])?;
        // Checked above: offset ≥ 0 and offset + count ≤ event count.
        let start = offsets[row] as usize;
        let end = start + counts[row] as usize;
        let (starts, ends) = if delta_encoded {
            let mut acc = 0i64;
            let starts: Vec<i64> = first_column[start..end]
                .iter()
                .map(|d| {
                    acc = acc.wrapping_add(*d);
                    acc
                })
                .collect();
            let ends = starts
                .iter()
                .zip(&second_column[start..end])
                .map(|(s, d)| s.wrapping_add(*d))
                .collect();
            (starts, ends)
        } else {
            (
                first_column[start..end].to_vec(),
                second_column[start..end].to_vec(),
            )
        };
        let calls = RegionCalls {
            name: names[id].clone(),
            source_file: Some(source_files[row].clone()).filter(|s| !s.is_empty()),
            source_line: Some(source_lines[row]).filter(|l| *l >= 0),
            source_text: Some(source_texts[row].clone()).filter(|s| !s.is_empty()),
            starts,
            ends,
        };
        // A repeated (rank, region) row replaces the earlier one, as in the reference.
        per_region[id].1.insert(rank, calls);
    }
    Ok(per_region)
}

fn rank_of(value: i64) -> Result<u32, Error> {
    u32::try_from(value).map_err(|_| Error::Corrupt(format!("rank {value} is out of range")))
}

/// Rows must lie within the event columns and not overlap (SCHEMA.md §4 step 6).
fn check_event_index(offsets: &[i64], counts: &[i64], event_count: i128) -> Result<(), Error> {
    let mut spans: Vec<(i128, i128)> = Vec::with_capacity(offsets.len());
    for (&offset, &count) in offsets.iter().zip(counts) {
        if offset < 0 || count < 0 {
            return Err(Error::Corrupt(format!(
                "negative event offset or count ({offset}, {count}) in the event index"
            )));
        }
        spans.push((i128::from(offset), i128::from(offset) + i128::from(count)));
    }
    if let Some(max_end) = spans.iter().map(|s| s.1).max() {
        if max_end > event_count {
            return Err(Error::Corrupt(format!(
                "claims {max_end} recorded events but its event columns hold {event_count}; \
                 the file is truncated or damaged"
            )));
        }
    }
    spans.sort_by_key(|s| s.0);
    if spans.windows(2).any(|w| w[1].0 < w[0].1) {
        return Err(Error::Corrupt(
            "overlapping region rows in its event index; the file is damaged".into(),
        ));
    }
    Ok(())
}

/// Aggregate layout: every row becomes a region without calls.
fn read_aggregate<R: ReadAt>(file: &File<R>) -> Result<PerRegion, Error> {
    let names = file.dataset("/region_table/names")?.read_strings()?;
    let region_ids = file.dataset("/rank_region_index/region_ids")?.read_i64s()?;
    let ranks = file.dataset("/rank_region_index/ranks")?.read_i64s()?;
    for column in [
        "aggregate_counts",
        "aggregate_totals",
        "aggregate_minimums",
        "aggregate_maximums",
        "aggregate_exclusives",
    ] {
        file.dataset(&format!("/rank_region_index/{column}"))?;
    }
    let mut per_region: PerRegion = names.iter().map(|n| (n.clone(), BTreeMap::new())).collect();
    for (row, (&id, &rank)) in region_ids.iter().zip(&ranks).enumerate() {
        let id = usize::try_from(id)
            .ok()
            .filter(|&i| i < names.len())
            .ok_or_else(|| Error::Corrupt(format!("row {row} has region id {id} out of range")))?;
        let rank = rank_of(rank)?;
        per_region[id].1.insert(
            rank,
            RegionCalls {
                name: names[id].clone(),
                ..RegionCalls::default()
            },
        );
    }
    Ok(per_region)
}

/// Schema 1: `rank<N>/regions/<name>/{start_times,end_times}` with source attributes.
fn read_schema1<R: ReadAt>(
    file: &File<R>,
    mut rank_groups: Vec<(u32, String)>,
) -> Result<PerRegion, Error> {
    rank_groups.sort();
    let mut per_region: PerRegion = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (rank, group_name) in rank_groups {
        let group = file.group(&format!("/{group_name}"))?;
        if !group.links()?.iter().any(|l| l.name == "regions") {
            continue;
        }
        let regions = file.group(&format!("/{group_name}/regions"))?;
        for link in regions.links()? {
            let path = format!("/{group_name}/regions/{}", link.name);
            let region = file.group(&path)?;
            let starts = file.dataset(&format!("{path}/start_times"))?.read_i64s()?;
            let ends = file.dataset(&format!("{path}/end_times"))?.read_i64s()?;
            if starts.len() != ends.len() {
                return Err(Error::Corrupt(format!(
                    "{path} has {} start times but {} end times",
                    starts.len(),
                    ends.len()
                )));
            }
            let string_attr = |name: &str| -> Result<Option<String>, Error> {
                Ok(match region.attribute(name)? {
                    Some(a) => match a.value(file)? {
                        Value::String(s) => Some(s),
                        Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                        _ => None,
                    },
                    None => None,
                })
            };
            let source_line = match region.attribute("source_lineno")? {
                Some(a) => match a.value(file)? {
                    Value::Int(v) => i64::try_from(v).ok(),
                    _ => None,
                },
                None => None,
            };
            let calls = RegionCalls {
                name: link.name.clone(),
                source_file: string_attr("source_file")?,
                source_line,
                source_text: string_attr("source_text")?,
                starts,
                ends,
            };
            let slot = *index.entry(link.name.clone()).or_insert_with(|| {
                per_region.push((link.name.clone(), BTreeMap::new()));
                per_region.len() - 1
            });
            per_region[slot].1.insert(rank, calls);
        }
    }
    Ok(per_region)
}

/// The attributes of `/metadata` as the reference decodes and re-encodes them.
fn read_metadata<R: ReadAt>(file: &File<R>, group: &Group<'_, R>) -> Result<Metadata, Error> {
    let mut metadata = Metadata::new();
    for attr in group.attributes()? {
        let value = attr.value(file)?;
        let shape = attr.shape().unwrap_or(Shape::Scalar);
        let converted = meta_value(attr.datatype(), &shape, value).ok_or_else(|| {
            Error::Unsupported(format!(
                "/metadata attribute {:?} has a type sp cannot carry over ({})",
                attr.name(),
                describe(attr.datatype())
            ))
        })?;
        metadata.insert(attr.name().to_owned(), converted);
    }
    Ok(metadata)
}

fn meta_value(datatype: &Datatype, shape: &Shape, value: Value) -> Option<MetaValue> {
    let text = |v: Value| match v {
        Value::String(s) => Some(s),
        Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        _ => None,
    };
    match (shape, datatype) {
        (Shape::Scalar, Datatype::String { .. }) => text(value).map(MetaValue::Str),
        (
            Shape::Scalar,
            Datatype::Integer {
                size: 8,
                signed: true,
                ..
            },
        ) => match value {
            Value::Int(v) => i64::try_from(v).ok().map(MetaValue::Int),
            _ => None,
        },
        (Shape::Scalar, Datatype::Float { size: 8, .. }) => match value {
            Value::Float(v) => Some(MetaValue::Float(v)),
            _ => None,
        },
        (Shape::Scalar, Datatype::Enum { .. }) if *datatype == Datatype::bool_enum() => match value
        {
            Value::Enum { value, .. } => Some(MetaValue::Bool(value != 0)),
            _ => None,
        },
        (Shape::Simple(dims), Datatype::String { .. }) if dims.len() == 1 => match value {
            Value::Array(items) => items
                .into_iter()
                .map(text)
                .collect::<Option<Vec<_>>>()
                .map(MetaValue::StrList),
            _ => None,
        },
        // Other numbers keep their class, size and sign, in native (little-endian) order,
        // as a numpy scalar read by h5py and stored again does.
        (_, Datatype::Integer { size, signed, .. }) => {
            let items = flatten(value);
            let mut bytes = Vec::new();
            for item in items {
                let Value::Int(v) = item else { return None };
                bytes.extend_from_slice(&v.to_le_bytes()[..*size as usize]);
            }
            Some(MetaValue::Typed(
                Datatype::Integer {
                    size: *size,
                    signed: *signed,
                    order: ByteOrder::Little,
                },
                shape.clone(),
                Data::Fixed(bytes),
            ))
        }
        (_, Datatype::Float { size, .. }) if *size == 4 || *size == 8 => {
            let mut bytes = Vec::new();
            for item in flatten(value) {
                let Value::Float(v) = item else { return None };
                if *size == 4 {
                    bytes.extend_from_slice(&(v as f32).to_le_bytes());
                } else {
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
            }
            Some(MetaValue::Typed(
                Datatype::Float {
                    size: *size,
                    order: ByteOrder::Little,
                },
                shape.clone(),
                Data::Fixed(bytes),
            ))
        }
        _ => None,
    }
}

fn flatten(value: Value) -> Vec<Value> {
    match value {
        Value::Array(items) => items.into_iter().flat_map(flatten).collect(),
        other => vec![other],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_group_names() {
        assert_eq!(rank_number("rank0"), Some(0));
        assert_eq!(rank_number("rank12"), Some(12));
        assert_eq!(rank_number("rank"), None);
        assert_eq!(rank_number("rankx"), None);
        assert_eq!(rank_number("ranks"), None);
    }

    #[test]
    fn event_index_checks() {
        assert!(check_event_index(&[0, 3], &[3, 2], 5).is_ok());
        assert!(
            check_event_index(&[0, 0], &[0, 3], 3).is_ok(),
            "zero-count row sharing offset"
        );
        let err = check_event_index(&[0, 3], &[3, 3], 5).unwrap_err();
        assert!(
            err.to_string().contains("claims 6 recorded events"),
            "{err}"
        );
        let err = check_event_index(&[0, 2], &[3, 1], 5).unwrap_err();
        assert!(err.to_string().contains("overlapping"), "{err}");
    }

    #[test]
    fn regions_sorted_by_earliest_start_across_ranks() {
        let calls = |name: &str, starts: Vec<i64>| RegionCalls {
            name: name.into(),
            ends: starts.clone(),
            starts,
            ..RegionCalls::default()
        };
        let region = |name: &str, ranks: Vec<(u32, Vec<i64>)>| RegionRanks {
            name: name.into(),
            ranks: ranks
                .into_iter()
                .map(|(r, s)| (r, calls(name, s)))
                .collect(),
        };
        let mut regions = vec![
            region("late", vec![(0, vec![500])]),
            region("early", vec![(1, vec![100])]),
            region("idle", vec![(0, vec![])]),
        ];
        sort_regions(&mut regions);
        let stored = StoredProfile {
            regions,
            ..StoredProfile::default()
        };
        let ranks = stored.into_ranks();
        let names: Vec<Vec<&str>> = ranks
            .iter()
            .map(|(_, r)| r.iter().map(|c| c.name.as_str()).collect())
            .collect();
        assert_eq!(ranks.iter().map(|r| r.0).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(names, [vec!["idle", "late"], vec!["early"]]);
    }

    use crate::hdf5lite::{FileWriter, ObjectId, StorageLayout};

    /// A file built with our writer, opened with our reader.
    fn open(build: impl FnOnce(&mut FileWriter)) -> File<Vec<u8>> {
        let mut w = FileWriter::new();
        build(&mut w);
        let mut bytes = Vec::new();
        w.finish(&mut bytes).unwrap();
        File::open(bytes).unwrap()
    }

    fn attr_i64(w: &mut FileWriter, obj: ObjectId, name: &str, v: i64) {
        w.set_attribute(obj, name, Datatype::I64, Shape::Scalar, Data::i64s(&[v]))
            .unwrap();
    }

    fn column(
        w: &mut FileWriter,
        parent: ObjectId,
        name: &str,
        datatype: Datatype,
        data: Data,
        n: u64,
    ) {
        w.create_dataset(
            parent,
            name,
            datatype,
            Shape::vector(n),
            data,
            StorageLayout::Contiguous,
        )
        .unwrap();
    }

    /// A schema-2 columnar profile with absolute columns: two rows of `names`.
    fn schema2(
        w: &mut FileWriter,
        schema: i64,
        region_ids: &[u32],
        offsets: &[u64],
        counts: &[u64],
    ) {
        let root = FileWriter::ROOT;
        attr_i64(w, root, "scope_profiler_schema", schema);
        let meta = w.create_group(root, "metadata").unwrap();
        attr_i64(w, meta, "mpi_rank", 3);
        let table = w.create_group(root, "region_table").unwrap();
        column(
            w,
            table,
            "names",
            Datatype::VLEN_UTF8,
            Data::strings(&["late", "early"]),
            2,
        );
        let index = w.create_group(root, "rank_region_index").unwrap();
        let n = region_ids.len() as u64;
        column(
            w,
            index,
            "region_ids",
            Datatype::U32,
            Data::u32s(region_ids),
            n,
        );
        column(
            w,
            index,
            "ranks",
            Datatype::U32,
            Data::u32s(&vec![4; n as usize]),
            n,
        );
        column(
            w,
            index,
            "event_offsets",
            Datatype::U64,
            Data::u64s(offsets),
            n,
        );
        column(
            w,
            index,
            "event_counts",
            Datatype::U64,
            Data::u64s(counts),
            n,
        );
        column(
            w,
            index,
            "source_lines",
            Datatype::I64,
            Data::i64s(&vec![7; n as usize]),
            n,
        );
        let files: Vec<&str> = (0..n).map(|i| if i == 0 { "a.c" } else { "" }).collect();
        column(
            w,
            index,
            "source_files",
            Datatype::VLEN_UTF8,
            Data::strings(&files),
            n,
        );
        let texts = vec!["text"; n as usize];
        column(
            w,
            index,
            "source_texts",
            Datatype::VLEN_UTF8,
            Data::strings(&texts),
            n,
        );
        column(
            w,
            index,
            "tags",
            Datatype::VLEN_UTF8,
            Data::strings(&vec!["[]"; n as usize]),
            n,
        );
        let events = w.create_group(root, "events").unwrap();
        column(
            w,
            events,
            "start_times",
            Datatype::I64,
            Data::i64s(&[500, 600, 100]),
            3,
        );
        column(
            w,
            events,
            "end_times",
            Datatype::I64,
            Data::i64s(&[550, 690, 101]),
            3,
        );
    }

    #[test]
    fn schema2_absolute_columns_and_sources_as_read_h5_sees_them() {
        let file = open(|w| schema2(w, 2, &[0, 1], &[0, 2], &[2, 1]));
        let p = read_profile(&file).unwrap();
        assert_eq!(p.schema, 2);
        assert_eq!(p.metadata["mpi_rank"], MetaValue::Int(3));
        assert_eq!(p.region_names, ["late", "early"]);
        let names: Vec<&str> = p.regions.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["early", "late"], "sorted by earliest start");
        let late = &p.regions[1].ranks[&4];
        assert_eq!(
            (late.starts.as_slice(), late.ends.as_slice()),
            (&[500, 600][..], &[550, 690][..])
        );
        assert_eq!(late.source_file.as_deref(), Some("a.c"));
        assert_eq!(
            (late.source_line, late.source_text.as_deref()),
            (Some(7), Some("text"))
        );
        let early = &p.regions[0].ranks[&4];
        assert_eq!(early.source_file, None);
    }

    #[test]
    fn schema_attribute_must_be_an_integer_from_1_to_3() {
        let file = open(|w| schema2(w, 4, &[0], &[0], &[1]));
        let err = read_profile(&file).unwrap_err();
        assert!(matches!(err, Error::Schema(_)), "{err}");
        assert!(err.to_string().contains("version 4"), "{err}");
        let file = open(|w| schema2(w, 0, &[0], &[0], &[1]));
        assert!(matches!(read_profile(&file), Err(Error::Schema(_))));
        let file = open(|w| {
            w.set_attribute(
                FileWriter::ROOT,
                "scope_profiler_schema",
                Datatype::F64,
                Shape::Scalar,
                Data::f64s(&[3.0]),
            )
            .unwrap();
        });
        let err = read_profile(&file).unwrap_err();
        assert!(
            err.to_string()
                .contains("must be an integer scalar, got a float"),
            "{err}"
        );
    }

    #[test]
    fn damaged_event_index_and_region_ids_are_corrupt() {
        let file = open(|w| schema2(w, 2, &[0, 1], &[0, 1], &[2, 1]));
        assert!(matches!(read_profile(&file), Err(Error::Corrupt(m)) if m.contains("overlapping")));
        let file = open(|w| schema2(w, 2, &[0, 1], &[0, 2], &[2, 2]));
        assert!(matches!(read_profile(&file), Err(Error::Corrupt(m)) if m.contains("claims 4")));
        let file = open(|w| schema2(w, 2, &[0, 9], &[0, 2], &[2, 1]));
        assert!(matches!(read_profile(&file), Err(Error::Corrupt(m)) if m.contains("region id 9")));
    }

    #[test]
    fn schema1_rank_groups() {
        let file = open(|w| {
            let meta = w.create_group(FileWriter::ROOT, "metadata").unwrap();
            attr_i64(w, meta, "mpi_size", 2);
            for (rank, start) in [(10u32, 50i64), (2, 70)] {
                let g = w
                    .create_group(FileWriter::ROOT, &format!("rank{rank}"))
                    .unwrap();
                let regions = w.create_group(g, "regions").unwrap();
                let solve = w.create_group(regions, "solve").unwrap();
                column(
                    w,
                    solve,
                    "start_times",
                    Datatype::I64,
                    Data::i64s(&[start]),
                    1,
                );
                column(
                    w,
                    solve,
                    "end_times",
                    Datatype::I64,
                    Data::i64s(&[start + 5]),
                    1,
                );
                w.set_attribute(
                    solve,
                    "source_file",
                    Datatype::VLEN_UTF8,
                    Shape::Scalar,
                    Data::strings(&["s.py"]),
                )
                .unwrap();
                attr_i64(w, solve, "source_lineno", 9);
            }
        });
        let p = read_profile(&file).unwrap();
        assert_eq!(p.schema, 1);
        let ranks = p.into_ranks();
        assert_eq!(ranks.iter().map(|r| r.0).collect::<Vec<_>>(), [2, 10]);
        assert_eq!(ranks[1].1[0].starts, [50]);
        assert_eq!(ranks[0].1[0].source_file.as_deref(), Some("s.py"));
        assert_eq!(ranks[0].1[0].source_line, Some(9));
    }

    #[test]
    fn an_empty_hdf5_file_is_not_a_profile() {
        let file = open(|_| {});
        assert!(matches!(read_profile(&file), Err(Error::NotAProfile(_))));
    }
}
