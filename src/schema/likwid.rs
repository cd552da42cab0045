//! LIKWID hardware-counter results (`rank<N>/likwid`, SCHEMA.md §2.12.3): the one auxiliary
//! part of a Python profile that `import-native --merge` carries into its output, rewritten
//! as the reference's `write_likwid_results` does (without the LIKWID environment
//! attributes).

use std::collections::BTreeMap;

use crate::hdf5lite::reader::{File, Group, Value};
use crate::hdf5lite::{Data, Datatype, FileWriter, ObjectId, Shape, StorageLayout};
use crate::io::ReadAt;

use super::error::Error;

/// A dataset carried over as stored: its datatype, shape and raw element bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredArray {
    pub datatype: Datatype,
    pub shape: Shape,
    pub raw: Vec<u8>,
}

/// One LIKWID region of one rank.
#[derive(Debug, Clone, PartialEq)]
pub struct LikwidRegion {
    pub tag: String,
    pub group_id: i64,
    pub group_name: String,
    pub source: String,
    pub event_names: Vec<String>,
    pub counter_names: Vec<String>,
    pub metric_names: Vec<String>,
    pub cpus: Vec<i64>,
    pub times: StoredArray,
    pub call_counts: StoredArray,
    pub events: StoredArray,
    pub metrics: StoredArray,
}

/// The LIKWID regions of each rank that has any, keyed by rank; within a rank by tag (a
/// repeated tag keeps the later region, as the reference's dict does).
pub type LikwidByRank = BTreeMap<u32, BTreeMap<String, LikwidRegion>>;

/// Reads `rank<N>/likwid/regions/*` for every rank group in `rank_groups`.
pub fn read<R: ReadAt>(
    file: &File<R>,
    rank_groups: &[(u32, String)],
) -> Result<LikwidByRank, Error> {
    let mut out = LikwidByRank::new();
    for (rank, name) in rank_groups {
        let group = file.group(&format!("/{name}"))?;
        if !has_link(&group, "likwid")? {
            continue;
        }
        let likwid = file.group(&format!("/{name}/likwid"))?;
        let mut regions = BTreeMap::new();
        if has_link(&likwid, "regions")? {
            let base = format!("/{name}/likwid/regions");
            for link in file.group(&base)?.links()? {
                let region = read_region(file, &format!("{base}/{}", link.name))?;
                regions.insert(region.tag.clone(), region);
            }
        }
        out.insert(*rank, regions);
    }
    Ok(out)
}

fn has_link<R: ReadAt>(group: &Group<'_, R>, name: &str) -> Result<bool, Error> {
    Ok(group.links()?.iter().any(|l| l.name == name))
}

fn read_region<R: ReadAt>(file: &File<R>, path: &str) -> Result<LikwidRegion, Error> {
    let group = file.group(path)?;
    let attr = |name: &str| -> Result<Option<Value>, Error> {
        Ok(match group.attribute(name)? {
            Some(a) => Some(a.value(file)?),
            None => None,
        })
    };
    let text = |name: &str| -> Result<String, Error> {
        Ok(match attr(name)? {
            Some(Value::String(s)) => s,
            Some(Value::Bytes(b)) => String::from_utf8_lossy(&b).into_owned(),
            _ => String::new(),
        })
    };
    let list = |name: &str| -> Result<Vec<String>, Error> {
        Ok(match attr(name)? {
            Some(Value::Array(items)) => items
                .into_iter()
                .filter_map(|v| match v {
                    Value::String(s) => Some(s),
                    Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        })
    };
    let group_id = match attr("group_id")? {
        Some(Value::Int(v)) => i64::try_from(v)
            .map_err(|_| Error::Corrupt(format!("{path}: group_id {v} is out of range")))?,
        _ => -1,
    };
    let stored = |name: &str| -> Result<StoredArray, Error> {
        let ds = file.dataset(&format!("{path}/{name}"))?;
        Ok(StoredArray {
            datatype: ds.datatype().clone(),
            shape: ds.shape().unwrap_or(Shape::Scalar),
            raw: ds.read_raw()?,
        })
    };
    Ok(LikwidRegion {
        tag: text("tag")?,
        group_id,
        group_name: text("group_name")?,
        source: text("source")?,
        event_names: list("event_names")?,
        counter_names: list("counter_names")?,
        metric_names: list("metric_names")?,
        cpus: file.dataset(&format!("{path}/cpus"))?.read_i64s()?,
        times: stored("times")?,
        call_counts: stored("call_counts")?,
        events: stored("events")?,
        metrics: stored("metrics")?,
    })
}

/// Writes `rank<N>/likwid` for each rank of `likwid`, as `write_likwid_results` does.
pub fn write(w: &mut FileWriter, likwid: &LikwidByRank) -> Result<(), Error> {
    for (rank, regions) in likwid {
        let rank_group = w.create_group(FileWriter::ROOT, &format!("rank{rank}"))?;
        let group = w.create_group(rank_group, "likwid")?;
        w.set_attribute(
            group,
            "num_regions",
            Datatype::I64,
            Shape::Scalar,
            Data::i64s(&[regions.len() as i64]),
        )?;
        let regions_group = w.create_group(group, "regions")?;
        for region in regions.values() {
            write_region(w, regions_group, region)?;
        }
    }
    Ok(())
}

fn write_region(w: &mut FileWriter, parent: ObjectId, r: &LikwidRegion) -> Result<(), Error> {
    let g = w.create_group(parent, &r.tag.replace('/', "|"))?;
    let text = |w: &mut FileWriter, name: &str, value: &str| {
        w.set_attribute(
            g,
            name,
            Datatype::VLEN_UTF8,
            Shape::Scalar,
            Data::strings(&[value]),
        )
    };
    text(w, "tag", &r.tag)?;
    w.set_attribute(
        g,
        "group_id",
        Datatype::I64,
        Shape::Scalar,
        Data::i64s(&[r.group_id]),
    )?;
    text(w, "group_name", &r.group_name)?;
    text(w, "source", &r.source)?;
    for (name, list) in [
        ("event_names", &r.event_names),
        ("counter_names", &r.counter_names),
        ("metric_names", &r.metric_names),
    ] {
        w.set_attribute(
            g,
            name,
            Datatype::VLEN_UTF8,
            Shape::vector(list.len() as u64),
            Data::strings(list),
        )?;
    }
    w.create_dataset(
        g,
        "cpus",
        Datatype::I64,
        Shape::vector(r.cpus.len() as u64),
        Data::i64s(&r.cpus),
        StorageLayout::Contiguous,
    )?;
    for (name, array) in [
        ("times", &r.times),
        ("call_counts", &r.call_counts),
        ("events", &r.events),
        ("metrics", &r.metrics),
    ] {
        w.create_dataset(
            g,
            name,
            array.datatype.clone(),
            array.shape.clone(),
            Data::Fixed(array.raw.clone()),
            StorageLayout::Contiguous,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(values: &[f64], shape: Vec<u64>) -> StoredArray {
        StoredArray {
            datatype: Datatype::F64,
            shape: Shape::Simple(shape),
            raw: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    }

    #[test]
    fn write_then_read_round_trips() {
        let region = LikwidRegion {
            tag: "solve/x".into(),
            group_id: 0,
            group_name: "CLOCK".into(),
            source: "full_api".into(),
            event_names: vec!["E1".into(), "E2".into()],
            counter_names: vec!["FIXC0".into(), "PMC0".into()],
            metric_names: vec![],
            cpus: vec![0, 1],
            times: array(&[1.0, 2.0], vec![2]),
            call_counts: StoredArray {
                datatype: Datatype::I64,
                shape: Shape::vector(2),
                raw: Data::i64s(&[3, 3]).into_fixed(),
            },
            events: array(&[1.0, 1.0, 1.0, 1.0], vec![2, 2]),
            metrics: array(&[0.0, 0.0], vec![1, 2]),
        };
        let likwid: LikwidByRank = [(0, [(region.tag.clone(), region.clone())].into())].into();
        let mut w = FileWriter::new();
        write(&mut w, &likwid).unwrap();
        let mut bytes = Vec::new();
        w.finish(&mut bytes).unwrap();
        let file = File::open(bytes).unwrap();
        assert_eq!(
            file.root().unwrap().links().unwrap()[0].name,
            "rank0",
            "one rank group"
        );
        let back = read(&file, &[(0, "rank0".into())]).unwrap();
        assert_eq!(back, likwid);
        assert!(file.group("/rank0/likwid/regions/solve|x").is_ok());
    }
}
