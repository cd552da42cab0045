//! Schema 1 profiles (SCHEMA.md §2.11): `rank<N>/regions/<name>/{start_times,end_times}`,
//! with optional GPU durations and source attributes on each region group.

use std::sync::Arc;

use crate::hdf5lite::reader::{File, Value};
use crate::io::ReadAt;
use crate::schema::error::Error;
use crate::schema::names::rank as names;
use crate::schema::profile::{RankCalls, Region};

use super::text;

/// Every region, in order of first appearance over the ranks ascending, with the calls of
/// each rank; and the region names in that order.
pub(super) fn read<R: ReadAt>(
    file: &File<R>,
    groups: &[(u32, String)],
) -> Result<(Vec<String>, Vec<Region>), Error> {
    let mut regions: Vec<Region> = Vec::new();
    for (rank, group_name) in groups {
        let group = file.group(&format!("/{group_name}"))?;
        if !group.links()?.iter().any(|l| l.name == names::REGIONS) {
            continue;
        }
        let base = format!("/{group_name}/{}", names::REGIONS);
        for link in file.group(&base)?.links()? {
            let path = format!("{base}/{}", link.name);
            let calls = read_region(file, &path, *rank)?;
            match regions.iter_mut().find(|r| r.name == link.name) {
                // A later group of the same rank cannot exist: names are unique in a group.
                Some(region) => region.ranks.push(calls),
                None => regions.push(Region {
                    name: link.name.clone(),
                    ranks: vec![calls],
                }),
            }
        }
    }
    let names = regions.iter().map(|r| r.name.clone()).collect();
    Ok((names, regions))
}

fn read_region<R: ReadAt>(file: &File<R>, path: &str, rank: u32) -> Result<RankCalls, Error> {
    let region = file.group(path)?;
    let starts = file
        .dataset(&format!("{path}/{}", names::START_TIMES))?
        .read_i64s()?;
    let ends = file
        .dataset(&format!("{path}/{}", names::END_TIMES))?
        .read_i64s()?;
    if starts.len() != ends.len() {
        return Err(Error::Corrupt(format!(
            "{path} has {} start times but {} end times",
            starts.len(),
            ends.len()
        )));
    }
    let gpu = if region
        .links()?
        .iter()
        .any(|l| l.name == names::GPU_DURATIONS)
    {
        Some(
            file.dataset(&format!("{path}/{}", names::GPU_DURATIONS))?
                .read_i64s()?,
        )
        .filter(|g| !g.is_empty())
    } else {
        None
    };
    let string_attr = |name: &str| -> Result<Option<String>, Error> {
        Ok(match region.attribute(name)? {
            Some(a) => text(a.value(file)?),
            None => None,
        })
    };
    let source_line = match region.attribute(names::SOURCE_LINENO)? {
        Some(a) => match a.value(file)? {
            Value::Int(v) => i64::try_from(v).ok(),
            _ => None,
        },
        None => None,
    };
    Ok(RankCalls {
        calls: crate::schema::Calls {
            starts,
            ends,
            gpu,
            ..Default::default()
        }
        .into(),
        rank,
        source_file: string_attr(names::SOURCE_FILE)?.map(Arc::from),
        source_line,
        source_text: string_attr(names::SOURCE_TEXT)?.map(Arc::from),
        ..RankCalls::default()
    })
}
