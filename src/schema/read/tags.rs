//! A region's tags (`rank_region_index/tags`: a JSON array of strings per row, SCHEMA.md
//! §2.6), read when a view asks for them. The index read leaves this column out: every
//! profile `import-native` writes holds `"[]"` in it, and at 100,000 ranks it is a million
//! strings that no table shows.

use std::collections::HashSet;

use crate::hdf5lite::reader::File;
use crate::io::ReadAt;
use crate::schema::error::Error;
use crate::schema::names::{self, index};

use super::{check_length, has_link, int_column};

/// The tags of `region`'s rows, each once, in the order the rows first give them; none
/// for a region the file does not have or a layout without the column.
pub fn region_tags<R: ReadAt>(file: &File<R>, region: &str) -> Result<Vec<String>, Error> {
    if !has_link(file, index::TAGS)? {
        return Ok(Vec::new());
    }
    let names = file.dataset(names::REGION_NAMES.path)?.read_strings()?;
    let Some(id) = names.iter().position(|n| n == region) else {
        return Ok(Vec::new());
    };
    let region_ids = int_column(file, index::REGION_IDS)?;
    let tags = file.dataset(index::TAGS.path)?.read_strings()?;
    check_length(index::TAGS, tags.len(), region_ids.len())?;
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, text) in tags.iter().enumerate().take(region_ids.len()) {
        // The reference reads an empty string as `[]`.
        if i64::try_from(id).ok() != Some(region_ids[i]) || text.trim().is_empty() {
            continue;
        }
        // Parsed as a JSON value (the page's requests are parsed so too, so the page's
        // module holds one JSON parser).
        let bad = || {
            Error::Corrupt(format!(
                "{} row {i} is not a JSON array of strings",
                index::TAGS.path
            ))
        };
        let value: serde_json::Value = serde_json::from_str(text).map_err(|_| bad())?;
        for tag in value.as_array().ok_or_else(bad)? {
            let tag = tag.as_str().ok_or_else(bad)?;
            if seen.insert(tag.to_string()) {
                out.push(tag.to_string());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regions_tags_are_its_rows_json_arrays() {
        let rich = include_bytes!("../../../tests/corpus/golden/python_rich_rich.h5");
        let file = File::open(&rich[..]).unwrap();
        assert_eq!(region_tags(&file, "solve").unwrap(), ["a", "b"]);
        assert!(region_tags(&file, "io").unwrap().is_empty());
        assert!(region_tags(&file, "not there").unwrap().is_empty());
        // import-native writes "[]" on every row.
        let merged = include_bytes!("../../../tests/golden/c_trace/expected/profiling_data.h5");
        let file = File::open(&merged[..]).unwrap();
        let names = crate::schema::read(&file, crate::schema::Depth::Index).unwrap();
        for region in &names.regions {
            assert!(region_tags(&file, &region.name).unwrap().is_empty());
        }
    }
}
