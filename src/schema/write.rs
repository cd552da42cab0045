//! Encodes a [`MergedProfile`] as a schema-3 columnar file (SCHEMA.md §2.2): the groups, datasets,
//! datatypes and attributes `import-native` writes, through the [`FileWriter`] of the HDF5
//! layer.

use crate::hdf5lite::writer::Chunking;
use crate::hdf5lite::{
    ByteOrder, CompoundMember, Data, Datatype, FileWriter, ObjectId, Shape, StorageLayout, Strings,
};

use super::error::Error;
use super::likwid;
use super::merged::{MergedProfile, ProfileRow};
use super::metadata::Metadata;
use super::names;
use super::stats::{Summary, SUMMARY_MEMBERS, SUMMARY_SIZE};

/// The schema version this module writes.
pub const SCHEMA_VERSION: i64 = 3;

/// The compound datatype of `rank_region_index/summary_statistics`.
pub fn summary_datatype() -> Datatype {
    let members = SUMMARY_MEMBERS
        .iter()
        .enumerate()
        .map(|(i, name)| CompoundMember {
            name: (*name).to_owned(),
            offset: 8 * i as u32,
            datatype: match *name {
                "gpu_count" => Datatype::U64,
                "mean" | "m2" => Datatype::Float {
                    size: 8,
                    order: ByteOrder::Little,
                },
                _ => Datatype::I64,
            },
        })
        .collect();
    Datatype::Compound {
        size: SUMMARY_SIZE as u32,
        members,
    }
}

/// One row of `rank_region_index` without its calls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowHead<'a> {
    pub rank: u32,
    pub region_id: u32,
    pub source_file: &'a str,
    pub source_line: i64,
    pub source_text: &'a str,
    pub calls: u64,
}

/// The rows of `rank_region_index` without their calls, one flat buffer per column: what
/// the writer takes of a million rows, about 50 bytes each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexColumns {
    pub region_ids: Vec<u32>,
    pub ranks: Vec<u32>,
    pub counts: Vec<u64>,
    pub source_lines: Vec<i64>,
    pub source_files: Strings,
    pub source_texts: Strings,
}

impl IndexColumns {
    /// Appends one row.
    pub fn push(&mut self, row: RowHead<'_>) {
        self.region_ids.push(row.region_id);
        self.ranks.push(row.rank);
        self.counts.push(row.calls);
        self.source_lines.push(row.source_line);
        self.source_files.push(row.source_file);
        self.source_texts.push(row.source_text);
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
}

impl<'a> FromIterator<RowHead<'a>> for IndexColumns {
    fn from_iter<I: IntoIterator<Item = RowHead<'a>>>(iter: I) -> Self {
        let mut index = IndexColumns::default();
        for row in iter {
            index.push(row);
        }
        index
    }
}

/// The datasets of a [`to_hdf5_deferred`] tree whose data the caller writes after
/// [`FileWriter::finish_at`]: one 88-byte [`Summary`] record per row, and the two event
/// columns (little-endian i64, rows in order; deltas restart from 0 at each row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeferredColumns {
    pub summary_statistics: ObjectId,
    pub start_deltas: ObjectId,
    pub durations: ObjectId,
}

/// Builds the HDF5 file tree of `profile`; call [`FileWriter::finish`] to emit it.
pub fn to_hdf5(profile: &MergedProfile) -> Result<FileWriter, Error> {
    let index: IndexColumns = profile.rows.iter().map(RowHead::from).collect();
    let summaries: Vec<u8> = profile
        .rows
        .iter()
        .flat_map(|r| Summary::of(&r.starts, &r.ends).encode())
        .collect();
    let events = profile.event_count() as usize;
    let mut deltas = Vec::with_capacity(events * 8);
    let mut durations = Vec::with_capacity(events * 8);
    for row in &profile.rows {
        encode_events(0, &row.starts, &row.ends, &mut deltas, &mut durations);
    }
    let (mut w, _) = build(
        &profile.metadata,
        &profile.region_names,
        index,
        Bulk::Given([summaries, deltas, durations]),
    )?;
    likwid::write(&mut w, &profile.likwid)?;
    Ok(w)
}

/// Appends the schema-3 event columns of the calls `(starts[i], ends[i])` (SCHEMA.md
/// §2.7), little-endian: each start as the difference from the one before it (`previous`
/// for the first: 0 at the first call of a row, whose delta is then its absolute start),
/// and each duration `end - start`, both wrapping.
pub fn encode_events(
    mut previous: i64,
    starts: &[i64],
    ends: &[i64],
    deltas: &mut Vec<u8>,
    durations: &mut Vec<u8>,
) {
    for (&start, &end) in starts.iter().zip(ends) {
        deltas.extend_from_slice(&start.wrapping_sub(previous).to_le_bytes());
        durations.extend_from_slice(&end.wrapping_sub(start).to_le_bytes());
        previous = start;
    }
}

/// Events per chunk of compressed event columns: 64 KiB chunks, which compress about 7%
/// better and 15–25% faster than 8 KiB ones.
pub const EVENT_CHUNK: u64 = 8192;

/// The same tree as [`to_hdf5`] gives for these rows (the same bytes, once the caller has
/// written the [`DeferredColumns`]), with the bulk data left to the caller so it can be
/// streamed. With `deflate_level`, non-empty event columns are chunked
/// ([`EVENT_CHUNK`] events) through shuffle + deflate instead.
pub fn to_hdf5_deferred(
    metadata: &Metadata,
    region_names: &[String],
    index: IndexColumns,
    deflate_level: Option<u8>,
) -> Result<(FileWriter, DeferredColumns), Error> {
    let (w, ids) = build(metadata, region_names, index, Bulk::Deferred(deflate_level))?;
    let [summary_statistics, start_deltas, durations] = ids;
    Ok((
        w,
        DeferredColumns {
            summary_statistics,
            start_deltas,
            durations,
        },
    ))
}

impl<'a> From<&'a ProfileRow> for RowHead<'a> {
    /// The index entries of an in-memory row.
    fn from(r: &'a ProfileRow) -> Self {
        RowHead {
            rank: r.rank,
            region_id: r.region_id,
            source_file: &r.source_file,
            source_line: r.source_line,
            source_text: &r.source_text,
            calls: r.call_count() as u64,
        }
    }
}

/// The summaries and the two event columns: given, or deferred (with an optional deflate
/// level for the event columns).
enum Bulk {
    Given([Vec<u8>; 3]),
    Deferred(Option<u8>),
}

/// The schema-3 tree with its `bulk` data. Returns the ids of the summary and event
/// datasets.
fn build(
    metadata: &Metadata,
    region_names: &[String],
    index: IndexColumns,
    bulk: Bulk,
) -> Result<(FileWriter, [ObjectId; 3]), Error> {
    let rows = index.len();
    let IndexColumns {
        region_ids,
        ranks,
        counts,
        source_lines,
        source_files,
        source_texts,
    } = index;
    let mut w = FileWriter::new();
    let root = FileWriter::ROOT;
    w.set_attribute(
        root,
        names::SCHEMA_VERSION,
        Datatype::I64,
        Shape::Scalar,
        Data::i64s(&[SCHEMA_VERSION]),
    )?;
    w.set_attribute(
        root,
        names::STORAGE_LAYOUT,
        Datatype::VLEN_UTF8,
        Shape::Scalar,
        Data::strings(&[names::COLUMNAR]),
    )?;

    // Values that cannot be stored again (references) are left out: metadata::left_out.
    let meta = w.create_group(root, names::METADATA.name)?;
    for (name, value) in metadata {
        if let Some((datatype, shape, data)) = value.to_attribute() {
            w.set_attribute(meta, name, datatype, shape, data)?;
        }
    }

    let region_table = w.create_group(root, names::REGION_TABLE.name)?;
    dataset(
        &mut w,
        region_table,
        names::REGION_NAMES.name,
        Datatype::VLEN_UTF8,
        Data::strings(region_names),
    )?;

    let index = w.create_group(root, names::INDEX.name)?;
    dataset(
        &mut w,
        index,
        names::index::REGION_IDS.name,
        Datatype::U32,
        Data::u32s(&region_ids),
    )?;
    drop(region_ids);
    dataset(
        &mut w,
        index,
        names::index::RANKS.name,
        Datatype::U32,
        Data::u32s(&ranks),
    )?;
    drop(ranks);
    let mut offsets = Vec::with_capacity(counts.len());
    let mut next = 0u64;
    for &c in &counts {
        offsets.push(next);
        next = next
            .checked_add(c)
            .ok_or_else(|| Error::Unsupported("more than 2^64 events".into()))?;
    }
    let events = next;
    dataset(
        &mut w,
        index,
        names::index::EVENT_OFFSETS.name,
        Datatype::U64,
        Data::u64s(&offsets),
    )?;
    dataset(
        &mut w,
        index,
        names::index::EVENT_COUNTS.name,
        Datatype::U64,
        Data::u64s(&counts),
    )?;
    dataset(
        &mut w,
        index,
        names::index::SOURCE_LINES.name,
        Datatype::I64,
        Data::i64s(&source_lines),
    )?;
    drop(source_lines);
    dataset(
        &mut w,
        index,
        names::index::EXCLUSIVE_TOTALS.name,
        Datatype::I64,
        Data::i64s(&vec![-1; rows]),
    )?;
    let ([summaries, deltas, durations], level) = match bulk {
        Bulk::Given([s, d, u]) => ([Some(s), Some(d), Some(u)], None),
        Bulk::Deferred(level) => ([None, None, None], level),
    };
    let summary_id = bulk_dataset(
        &mut w,
        index,
        names::index::SUMMARY_STATISTICS.name,
        summary_datatype(),
        rows as u64,
        summaries,
        StorageLayout::Contiguous,
    )?;
    let empty_lists = || Data::VlenStrings((0..rows).map(|_| "[]").collect());
    dataset(
        &mut w,
        index,
        names::index::SOURCE_FILES.name,
        Datatype::VLEN_UTF8,
        Data::VlenStrings(source_files),
    )?;
    dataset(
        &mut w,
        index,
        names::index::SOURCE_TEXTS.name,
        Datatype::VLEN_UTF8,
        Data::VlenStrings(source_texts),
    )?;
    dataset(
        &mut w,
        index,
        names::index::TAGS.name,
        Datatype::VLEN_UTF8,
        empty_lists(),
    )?;
    dataset(
        &mut w,
        index,
        names::index::EVENT_METADATA.name,
        Datatype::VLEN_UTF8,
        empty_lists(),
    )?;

    let group = w.create_group(root, names::EVENTS.name)?;
    let layout = match level {
        Some(deflate_level) if events > 0 => StorageLayout::Chunked(Chunking {
            elements: events.min(EVENT_CHUNK),
            deflate_level,
        }),
        _ => StorageLayout::Contiguous,
    };
    let deltas_id = bulk_dataset(
        &mut w,
        group,
        names::events::START_DELTAS.name,
        Datatype::I64,
        events,
        deltas,
        layout.clone(),
    )?;
    let durations_id = bulk_dataset(
        &mut w,
        group,
        names::events::DURATIONS.name,
        Datatype::I64,
        events,
        durations,
        layout,
    )?;
    Ok((w, [summary_id, deltas_id, durations_id]))
}

/// A 1-D contiguous dataset of `len` elements holding `data`, or deferred without it (then
/// stored with `layout`).
fn bulk_dataset(
    w: &mut FileWriter,
    parent: ObjectId,
    name: &str,
    datatype: Datatype,
    len: u64,
    data: Option<Vec<u8>>,
    layout: StorageLayout,
) -> Result<ObjectId, Error> {
    match data {
        Some(bytes) => dataset(w, parent, name, datatype, Data::Fixed(bytes)),
        None => {
            Ok(w.create_deferred_dataset(parent, name, datatype, Shape::vector(len), layout)?)
        }
    }
}

/// A 1-D contiguous dataset holding `data`.
fn dataset(
    w: &mut FileWriter,
    parent: ObjectId,
    name: &str,
    datatype: Datatype,
    data: Data,
) -> Result<ObjectId, Error> {
    let len = match &data {
        Data::Fixed(bytes) => datatype
            .element_size()
            .filter(|&s| s > 0)
            .map_or(0, |s| bytes.len() as u64 / s),
        Data::VlenStrings(items) => items.len() as u64,
    };
    Ok(w.create_dataset(
        parent,
        name,
        datatype,
        Shape::vector(len),
        data,
        StorageLayout::Contiguous,
    )?)
}

/// `file`, a schema 2 or 3 profile, without its event columns (`/events`): the index, the
/// metadata and the rank groups, for a report that carries a large profile's index only.
/// Readers then give [`Error::EventsOmitted`] where they need calls. A schema 1 profile
/// keeps its calls in its rank groups and has no index to carry alone.
pub fn index_only<R: crate::io::ReadAt>(
    file: &crate::hdf5lite::reader::File<R>,
) -> Result<Vec<u8>, Error> {
    let head = super::read(file, super::Depth::Metadata)?;
    if head.layout == super::ProfileLayout::Legacy {
        return Err(Error::Unsupported(
            "a schema 1 profile keeps its calls in its rank groups, with no index to carry \
             without them"
                .into(),
        ));
    }
    let events = names::EVENTS.path;
    let writer = crate::hdf5lite::copy::copy(file, &|path| path != events)?;
    let mut bytes = Vec::new();
    writer.finish(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::WriteAt;
    use crate::schema::{Merger, RegionCalls};

    /// The index-only copy reads back as the same index, and refuses what needs calls.
    #[test]
    fn index_only_keeps_the_index_and_leaves_out_the_calls() {
        use crate::hdf5lite::reader::File;
        use crate::schema::{read, Depth, EventReader};
        let profiles: [&[u8]; 3] = [
            include_bytes!("../../tests/golden/c_trace/expected/profiling_data.h5"),
            include_bytes!(
                "../../tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5"
            ),
            include_bytes!("../../tests/golden/h5_python_rich/expected/rich_import.h5"),
        ];
        for bytes in profiles {
            let file = File::open(bytes).unwrap();
            let copy = index_only(&file).unwrap();
            assert!(copy.len() < bytes.len());
            let copied = File::open(copy.as_slice()).unwrap();
            let index = read(&file, Depth::Index).unwrap();
            assert_eq!(read(&copied, Depth::Index).unwrap(), index);
            assert!(index
                .regions
                .iter()
                .flat_map(|r| &r.ranks)
                .any(|r| r.calls() > 0));
            assert!(matches!(
                read(&copied, Depth::Events),
                Err(Error::EventsOmitted)
            ));
            assert!(matches!(
                EventReader::open(&copied),
                Err(Error::EventsOmitted)
            ));
        }
    }

    #[test]
    fn deferred_tree_plus_bulk_is_byte_identical() {
        let mut m = Merger::new();
        let calls = |name: &str, starts: &[i64], ends: &[i64]| RegionCalls {
            name: name.into(),
            source_file: Some("a.c".into()),
            source_line: Some(3),
            starts: starts.to_vec(),
            ends: ends.to_vec(),
            ..RegionCalls::default()
        };
        m.add_rank("r0", 0, vec![calls("x", &[5, 9, 20], &[7, 15, 21])], None)
            .unwrap();
        m.add_rank(
            "r1",
            1,
            vec![calls("y", &[1], &[4]), calls("x", &[], &[])],
            None,
        )
        .unwrap();
        let profile = m.finish(Some("t"));
        let mut whole = Vec::new();
        to_hdf5(&profile).unwrap().finish(&mut whole).unwrap();

        let index: IndexColumns = profile.rows.iter().map(RowHead::from).collect();
        let (w, ids) =
            to_hdf5_deferred(&profile.metadata, &profile.region_names, index, None).unwrap();
        let mut out = Vec::new();
        let placement = w.finish_at(&mut out).unwrap();
        let put = |out: &mut Vec<u8>, id, bytes: Vec<u8>| {
            let place = placement.data(id).unwrap();
            assert_eq!(place.size, bytes.len() as u64);
            out.write_all_at(place.address.unwrap(), &bytes).unwrap();
        };
        let summaries = profile
            .rows
            .iter()
            .flat_map(|r| Summary::of(&r.starts, &r.ends).encode())
            .collect();
        // rank 0: x; rank 1: y then x (empty) → deltas restart per row.
        let deltas = [5i64, 4, 11, 1]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let durations = [2i64, 6, 1, 3]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        put(&mut out, ids.summary_statistics, summaries);
        put(&mut out, ids.start_deltas, deltas);
        put(&mut out, ids.durations, durations);
        assert_eq!(out, whole);
    }
}
