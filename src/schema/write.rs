//! Encodes a [`Profile`] as a schema-3 columnar file (SCHEMA.md §2.2): the groups, datasets,
//! datatypes and attributes `import-native` writes, through the [`FileWriter`] of the HDF5
//! layer.

use crate::hdf5lite::{
    ByteOrder, CompoundMember, Data, Datatype, FileWriter, Layout, ObjectId, Shape,
};

use super::error::Error;
use super::profile::Profile;
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

/// Builds the HDF5 file tree of `profile`; call [`FileWriter::finish`] to emit it.
pub fn to_hdf5(profile: &Profile) -> Result<FileWriter, Error> {
    let mut w = FileWriter::new();
    let root = FileWriter::ROOT;
    w.set_attribute(
        root,
        "scope_profiler_schema",
        Datatype::I64,
        Shape::Scalar,
        Data::i64s(&[SCHEMA_VERSION]),
    )?;
    w.set_attribute(
        root,
        "storage_layout",
        Datatype::VLEN_UTF8,
        Shape::Scalar,
        Data::strings(&["columnar"]),
    )?;

    let metadata = w.create_group(root, "metadata")?;
    for (name, value) in &profile.metadata {
        let (datatype, shape, data) = value.to_attribute();
        w.set_attribute(metadata, name, datatype, shape, data)?;
    }

    let region_table = w.create_group(root, "region_table")?;
    dataset(
        &mut w,
        region_table,
        "names",
        Datatype::VLEN_UTF8,
        Data::strings(&profile.region_names),
    )?;

    let rows = &profile.rows;
    let index = w.create_group(root, "rank_region_index")?;
    let column = |f: &dyn Fn(&super::profile::Row) -> i64| rows.iter().map(f).collect::<Vec<_>>();
    dataset(
        &mut w,
        index,
        "region_ids",
        Datatype::U32,
        Data::u32s(&rows.iter().map(|r| r.region_id).collect::<Vec<_>>()),
    )?;
    dataset(
        &mut w,
        index,
        "ranks",
        Datatype::U32,
        Data::u32s(&rows.iter().map(|r| r.rank).collect::<Vec<_>>()),
    )?;
    let counts: Vec<u64> = rows.iter().map(|r| r.call_count() as u64).collect();
    let offsets: Vec<u64> = counts
        .iter()
        .scan(0u64, |next, &c| {
            let offset = *next;
            *next += c;
            Some(offset)
        })
        .collect();
    dataset(
        &mut w,
        index,
        "event_offsets",
        Datatype::U64,
        Data::u64s(&offsets),
    )?;
    dataset(
        &mut w,
        index,
        "event_counts",
        Datatype::U64,
        Data::u64s(&counts),
    )?;
    dataset(
        &mut w,
        index,
        "source_lines",
        Datatype::I64,
        Data::i64s(&column(&|r| r.source_line)),
    )?;
    dataset(
        &mut w,
        index,
        "exclusive_totals",
        Datatype::I64,
        Data::i64s(&column(&|_| -1)),
    )?;
    let summaries: Vec<u8> = rows
        .iter()
        .flat_map(|r| Summary::of(&r.starts, &r.ends).encode())
        .collect();
    dataset(
        &mut w,
        index,
        "summary_statistics",
        summary_datatype(),
        Data::Fixed(summaries),
    )?;
    let strings = |f: &dyn Fn(&super::profile::Row) -> String| {
        Data::VlenStrings(rows.iter().map(f).collect())
    };
    dataset(
        &mut w,
        index,
        "source_files",
        Datatype::VLEN_UTF8,
        strings(&|r| r.source_file.clone()),
    )?;
    dataset(
        &mut w,
        index,
        "source_texts",
        Datatype::VLEN_UTF8,
        strings(&|r| r.source_text.clone()),
    )?;
    dataset(
        &mut w,
        index,
        "tags",
        Datatype::VLEN_UTF8,
        strings(&|_| "[]".into()),
    )?;
    dataset(
        &mut w,
        index,
        "event_metadata",
        Datatype::VLEN_UTF8,
        strings(&|_| "[]".into()),
    )?;

    let events = w.create_group(root, "events")?;
    let mut deltas = Vec::with_capacity(profile.event_count() as usize * 8);
    let mut durations = Vec::with_capacity(profile.event_count() as usize * 8);
    for row in rows {
        let mut previous = 0i64;
        for (&start, &end) in row.starts.iter().zip(&row.ends) {
            deltas.extend_from_slice(&start.wrapping_sub(previous).to_le_bytes());
            durations.extend_from_slice(&end.wrapping_sub(start).to_le_bytes());
            previous = start;
        }
    }
    dataset(
        &mut w,
        events,
        "start_deltas",
        Datatype::I64,
        Data::Fixed(deltas),
    )?;
    dataset(
        &mut w,
        events,
        "durations",
        Datatype::I64,
        Data::Fixed(durations),
    )?;
    Ok(w)
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
        Layout::Contiguous,
    )?)
}
