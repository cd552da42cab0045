//! A region's tags (`rank_region_index/tags`: a JSON array of strings per row, SCHEMA.md
//! §2.6), read when a view asks for them. The index read leaves this column out: every
//! profile `import-native` writes holds `"[]"` in it, and at 100,000 ranks it is a million
//! strings that no table shows.

use std::collections::HashMap;

use crate::hdf5lite::reader::File;
use crate::io::ReadAt;
use crate::schema::error::Error;
use crate::schema::names::{self, index};

use super::{check_length, has_link, int_column};

/// Every region's tags from one read of the column, for a front end to keep, so that
/// opening a region's detail again reads nothing (at 100,000 ranks the column is a million
/// strings, 0.2 s to read). A row that is not a JSON array of strings spoils only its own
/// region's tags.
#[derive(Debug, Default)]
pub struct RegionTags {
    /// Each region's tags, each once, in the order its rows first give them; or why its
    /// rows could not be read.
    by_region: HashMap<String, Result<Vec<String>, String>>,
}

impl RegionTags {
    /// Reads the tags column once; empty for a layout without it.
    pub fn read<R: ReadAt>(file: &File<R>) -> Result<RegionTags, Error> {
        let mut by_region: HashMap<String, Result<Vec<String>, String>> = HashMap::new();
        if !has_link(file, index::TAGS)? {
            return Ok(RegionTags { by_region });
        }
        let names = file.dataset(names::REGION_NAMES.path)?.read_strings()?;
        let region_ids = int_column(file, index::REGION_IDS)?;
        let tags = file.dataset(index::TAGS.path)?.read_strings()?;
        check_length(index::TAGS, tags.len(), region_ids.len())?;
        for (i, (text, &id)) in tags.iter().zip(&region_ids).enumerate() {
            let Some(name) = usize::try_from(id).ok().and_then(|id| names.get(id)) else {
                continue;
            };
            // The reference reads an empty string as `[]`.
            if text.trim().is_empty() {
                continue;
            }
            let entry = by_region.entry(name.clone()).or_insert(Ok(Vec::new()));
            let Ok(list) = entry else { continue };
            match row_tags(text) {
                Some(row) => {
                    for tag in row {
                        if !list.contains(&tag) {
                            list.push(tag);
                        }
                    }
                }
                None => {
                    *entry = Err(format!(
                        "{} row {i} is not a JSON array of strings",
                        index::TAGS.path
                    ))
                }
            }
        }
        Ok(RegionTags { by_region })
    }

    /// The tags of `region`: none for a region the file does not have or that has none.
    pub fn of(&self, region: &str) -> Result<&[String], Error> {
        match self.by_region.get(region) {
            None => Ok(&[]),
            Some(Ok(tags)) => Ok(tags),
            Some(Err(why)) => Err(Error::Corrupt(why.clone())),
        }
    }
}

/// One row's tags: a JSON array of strings, parsed as a JSON value (the page's requests are
/// parsed so too, so the page's module holds one JSON parser).
fn row_tags(text: &str) -> Option<Vec<String>> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let list = value.as_array()?;
    list.iter()
        .map(|t| t.as_str().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regions_tags_are_its_rows_json_arrays() {
        let rich = include_bytes!("../../../tests/corpus/golden/python_rich_rich.h5");
        let file = File::open(&rich[..]).unwrap();
        let tags = RegionTags::read(&file).unwrap();
        assert_eq!(tags.of("solve").unwrap(), ["a", "b"]);
        assert!(tags.of("io").unwrap().is_empty());
        assert!(tags.of("not there").unwrap().is_empty());
        // import-native writes "[]" on every row.
        let merged = include_bytes!("../../../tests/golden/c_trace/expected/profiling_data.h5");
        let file = File::open(&merged[..]).unwrap();
        let names = crate::schema::read(&file, crate::schema::Depth::Index).unwrap();
        let tags = RegionTags::read(&file).unwrap();
        for region in &names.regions {
            assert!(tags.of(&region.name).unwrap().is_empty());
        }
    }

    #[test]
    fn one_read_gives_every_regions_tags_and_a_bad_row_spoils_only_its_region() {
        let rich = include_bytes!("../../../tests/corpus/golden/python_rich_rich.h5");
        let file = File::open(&rich[..]).unwrap();
        let tags = RegionTags::read(&file).unwrap();
        assert_eq!(tags.of("solve").unwrap(), ["a", "b"]);
        assert!(tags.of("io").unwrap().is_empty());
        assert!(tags.of("not there").unwrap().is_empty());
        assert_eq!(
            row_tags(r#"["x", "y"]"#),
            Some(vec!["x".into(), "y".into()])
        );
        for bad in ["[1]", "{}", "not json", r#""x""#] {
            assert_eq!(row_tags(bad), None, "{bad}");
        }
        let mut by_region = HashMap::new();
        by_region.insert(
            "bad".to_string(),
            Err("tags row 3 is not a JSON array".to_string()),
        );
        by_region.insert("good".to_string(), Ok(vec!["t".to_string()]));
        let tags = RegionTags { by_region };
        assert!(matches!(tags.of("bad"), Err(Error::Corrupt(_))));
        assert_eq!(tags.of("good").unwrap(), ["t"]);
    }
}
