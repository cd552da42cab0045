//! The flat rows of a profile read to its index, region by region: each job reads one
//! region's calls through its rows' spans and computes its row exactly as [`region_rows`](super::region_rows)
//! does over a fully read profile (`--flat` with percentiles), so memory stays bounded by
//! the largest region and the jobs run on as many threads as the caller has.

use super::{finish_rows, flat_row, RegionRow, RowOptions};
use crate::analysis::error::Result;
use crate::analysis::{PercentageMode, Selection};
use crate::io::ReadAt;
use crate::schema::{EventReader, Profile, Region};

/// The flat rows of [`region_rows`](super::region_rows) (with `flat` set) for a profile read to
/// [`Depth::Index`](crate::schema::Depth::Index), planned as one independent job per
/// selected region: [`run`](FlatJobs::run) on any thread, in any order, then
/// [`finish`](FlatJobs::finish) with the results in job order.
#[derive(Debug, Clone)]
pub struct FlatJobs {
    /// Index in `profile.regions` of each job's region.
    regions: Vec<usize>,
    ranks: Option<Vec<u32>>,
    options: RowOptions,
}

/// One region's flat row and the key [`selected_regions`] orders regions by, from its calls.
#[derive(Debug, Clone)]
pub struct FlatRow {
    row: RegionRow,
    sort_key: f64,
}

impl FlatJobs {
    /// Plans one job per region `sel` keeps.
    pub fn plan(profile: &Profile, sel: &Selection, options: RowOptions) -> FlatJobs {
        let regions = (0..profile.regions.len())
            .filter(|&i| sel.keeps(&profile.regions[i].name))
            .collect();
        FlatJobs {
            regions,
            ranks: sel.ranks.clone(),
            options,
        }
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.regions.len()
    }

    /// Whether there is nothing to compute.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// Job `job`: its region's row, from the region's calls (every row of the region is
    /// read: the imbalance and the start order look at all of them).
    pub fn run<R: ReadAt>(
        &self,
        profile: &Profile,
        job: usize,
        reader: Option<&EventReader<'_, R>>,
    ) -> Result<FlatRow> {
        let Some(region) = self.regions.get(job).and_then(|&i| profile.regions.get(i)) else {
            return Err(crate::analysis::Error::Corrupt(format!(
                "no flat job {job}"
            )));
        };
        let loaded = load_region(region, reader)?;
        let exclusive = match self.options.mode {
            PercentageMode::Exclusive => Some(Ok(Default::default())),
            PercentageMode::Coverage => None,
        };
        Ok(FlatRow {
            row: flat_row(&loaded, self.ranks.as_deref(), exclusive.as_ref()),
            sort_key: loaded.sort_key(),
        })
    }

    /// The table from every job's result, in job order.
    pub fn finish(&self, results: Vec<FlatRow>) -> Vec<RegionRow> {
        // `selected_regions`' order: by earliest start, ties in file order.
        let mut order: Vec<usize> = (0..results.len()).collect();
        order.sort_by(|&a, &b| results[a].sort_key.total_cmp(&results[b].sort_key));
        let names: Vec<&str> = order
            .iter()
            .map(|&i| results[i].row.name.as_str())
            .collect();
        finish_rows(Vec::new(), &names, self.options.sort, |i| {
            results[order[i]].row.clone()
        })
    }
}

/// `region` (read to its index) with every row's calls, as a full read gives it.
pub(super) fn load_region<R: ReadAt>(
    region: &Region,
    reader: Option<&EventReader<'_, R>>,
) -> Result<Region> {
    let mut loaded = Region {
        name: region.name.clone(),
        ranks: Vec::with_capacity(region.ranks.len()),
    };
    for row in &region.ranks {
        let Some(span) = row.span else {
            loaded.ranks.push(row.clone());
            continue;
        };
        let Some(reader) = reader else {
            return Err(crate::analysis::Error::Corrupt(
                "the index points at events but the file has no /events".into(),
            ));
        };
        let mut full = reader.read(span)?.into_calls(row);
        full.span = None;
        loaded.ranks.push(full);
    }
    Ok(loaded)
}

/// The flat rows the jobs give, computed in order on this thread.
pub fn flat_rows<R: ReadAt>(
    profile: &Profile,
    sel: &Selection,
    options: RowOptions,
    reader: Option<&EventReader<'_, R>>,
) -> Result<Vec<RegionRow>> {
    let jobs = FlatJobs::plan(profile, sel, options);
    let results = (0..jobs.len())
        .map(|job| jobs.run(profile, job, reader))
        .collect::<Result<Vec<_>>>()?;
    Ok(jobs.finish(results))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::rows::region_rows;
    use crate::analysis::{load, SortKey};
    use crate::hdf5lite::reader::File;

    /// Every profile under `tests/` and `examples/` (up to 3 MB) that reads whole.
    pub(crate) fn shipped_profiles() -> Vec<Vec<u8>> {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|x| x == "h5")
                    && entry.metadata().is_ok_and(|m| m.len() <= 3 << 20)
                {
                    out.push(path);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut paths = Vec::new();
        walk(&root.join("tests"), &mut paths);
        walk(&root.join("examples"), &mut paths);
        paths.sort();
        let profiles: Vec<Vec<u8>> = paths
            .iter()
            .filter_map(|p| std::fs::read(p).ok())
            .filter(|bytes| {
                File::open(&bytes[..])
                    .ok()
                    .is_some_and(|f| load::read_full(&f).is_ok())
            })
            .collect();
        assert!(profiles.len() >= 30, "{}", profiles.len());
        profiles
    }

    /// Every shipped profile read whole and read for the jobs, under every sort, mode and
    /// rank set the tests compare: `check(full, index, reader, selection, options)`.
    pub(crate) fn each_case(
        flat: bool,
        mut check: impl FnMut(
            &Profile,
            &Profile,
            Option<&EventReader<'_, &[u8]>>,
            &Selection,
            RowOptions,
        ),
    ) {
        for bytes in shipped_profiles() {
            let file = File::open(&bytes[..]).unwrap();
            let full = load::read_full(&file).unwrap();
            let index = load::read_for_jobs(&file).unwrap();
            let reader = EventReader::open(&file).unwrap();
            for sort in [SortKey::Start, SortKey::P95, SortKey::Name] {
                for mode in [PercentageMode::Coverage, PercentageMode::Exclusive] {
                    for ranks in [None, Some(vec![0]), Some(vec![1, 3])] {
                        let options = RowOptions { sort, mode, flat };
                        check(
                            &full,
                            &index,
                            reader.as_ref(),
                            &Selection::ranks(ranks),
                            options,
                        );
                    }
                }
            }
        }
    }

    /// Every shipped profile: the jobs over the index give the rows of the full read.
    #[test]
    fn jobs_equal_the_full_read() {
        each_case(true, |full, index, reader, sel, options| {
            let want = region_rows(full, sel, options);
            assert_eq!(
                flat_rows(index, sel, options, reader).unwrap(),
                want,
                "{options:?}"
            );
        });
    }
}
