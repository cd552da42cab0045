//! `sp lines`: the hottest source lines of each region, from the C API's `.sps` samples
//! (`scope-profiler native-lines`, and a view merged over ranks the reference lacks).
//!
//! - here: the model and the counting, from a parsed file and a function giving each
//!   sample's line (so it is the same on bytes in the page as on files);
//! - [`render`]: the reference's tables (`tabulate`'s "simple" layout), merged or per
//!   rank, and CSV and JSON;
//! - native hosts only: [`source`] (the text of a line, as Python's `linecache` reads it)
//!   and [`run`] (files read, symbolized once per module over all ranks, counted).
//!
//! Counting follows `native_samples.line_profile`: a sample whose region index is out of
//! range is skipped; regions of the same name are one; a line is a (function, file, line)
//! triple (with `--inlines`, the whole inlined chain); lines are sorted by samples, ties
//! in the order their first sample came, and regions in the order of their first sample.

pub mod render;
#[cfg(not(target_arch = "wasm32"))]
pub mod run;
#[cfg(not(target_arch = "wasm32"))]
pub mod source;

use crate::sort::SortSlice;
use std::collections::HashMap;

use crate::samples::SampleView;
use crate::symbolize::Frame;

/// A line's id in [`Report::lines`].
pub type LineId = u32;

/// One line of one region: its samples, and on how many ranks it was sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub line: LineId,
    pub samples: u64,
    /// Ranks (files) with at least one sample on this line in this region: 1 per rank.
    pub ranks: u32,
}

/// One region's lines, hottest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub name: String,
    /// Samples of the region in total (every line, not only those shown).
    pub samples: u64,
    /// Ranks (files) with samples in the region: 1 per rank.
    pub ranks: u32,
    pub rows: Vec<Row>,
}

/// One `.sps` file's tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rank {
    /// The file as named on the command line (or found in a directory).
    pub path: String,
    pub rank: i32,
    pub hz: i32,
    pub regions: Vec<Region>,
}

/// Every file's tables and the lines they count.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    /// Each line: its innermost frame (file:line and function), then under `--inlines`
    /// the frames it was inlined into.
    pub lines: Vec<Vec<Frame>>,
    pub ranks: Vec<Rank>,
}

/// Counts that keep the order things were first seen in.
#[derive(Default)]
struct Ordered<K> {
    index: HashMap<K, usize>,
    items: Vec<(K, u64)>,
}

impl<K: std::hash::Hash + Eq + Clone> Ordered<K> {
    fn slot(&mut self, key: &K) -> usize {
        if let Some(&i) = self.index.get(key) {
            return i;
        }
        self.items.push((key.clone(), 0));
        self.index.insert(key.clone(), self.items.len() - 1);
        self.items.len() - 1
    }

    fn add(&mut self, key: &K, n: u64) {
        let i = self.slot(key);
        self.items[i].1 += n;
    }
}

/// The regions of one file: each sample whose region `keep` takes counted on the line
/// `line_of(module index, address)` gives it.
pub fn count_rank(
    view: &SampleView<'_>,
    keep: impl Fn(&str) -> bool,
    mut line_of: impl FnMut(i32, u64) -> LineId,
) -> Vec<Region> {
    let kept: Vec<bool> = view.regions.iter().map(|r| keep(r)).collect();
    let mut regions: Ordered<&str> = Ordered::default();
    let mut lines: Vec<Ordered<LineId>> = Vec::new();
    for sample in view.samples.iter() {
        let Some(r) = usize::try_from(sample.region)
            .ok()
            .filter(|&r| r < kept.len())
        else {
            continue;
        };
        if !kept[r] {
            continue;
        }
        let slot = regions.slot(&&*view.regions[r]);
        if slot == lines.len() {
            lines.push(Ordered::default());
        }
        regions.items[slot].1 += 1;
        lines[slot].add(&line_of(sample.module, sample.address), 1);
    }
    regions
        .items
        .into_iter()
        .zip(lines)
        .map(|((name, samples), lines)| Region {
            name: name.to_owned(),
            samples,
            ranks: 1,
            rows: sorted(lines.items.into_iter().map(|(line, samples)| Row {
                line,
                samples,
                ranks: 1,
            })),
        })
        .collect()
}

/// Hottest first; a stable sort keeps ties in the order they were first seen, as
/// `Counter.most_common` does.
fn sorted(rows: impl Iterator<Item = Row>) -> Vec<Row> {
    let mut rows: Vec<Row> = rows.collect();
    rows.sort_stable_by_key(|r| std::cmp::Reverse(r.samples));
    rows
}

/// One table per region over all ranks: samples summed, and the ranks each line was
/// sampled on counted; regions and ties in the order the files first show them.
pub fn merge(ranks: &[Rank]) -> Vec<Region> {
    let mut regions: Ordered<&str> = Ordered::default();
    let mut lines: Vec<(Ordered<LineId>, HashMap<LineId, u32>)> = Vec::new();
    let mut on_ranks: Vec<u32> = Vec::new();
    for rank in ranks {
        for region in &rank.regions {
            let slot = regions.slot(&region.name.as_str());
            if slot == lines.len() {
                lines.push(Default::default());
                on_ranks.push(0);
            }
            on_ranks[slot] += region.ranks;
            regions.items[slot].1 += region.samples;
            let (counts, on) = &mut lines[slot];
            for row in &region.rows {
                counts.add(&row.line, row.samples);
                *on.entry(row.line).or_default() += row.ranks;
            }
        }
    }
    regions
        .items
        .into_iter()
        .zip(lines)
        .zip(on_ranks)
        .map(|(((name, samples), (counts, on)), ranks)| Region {
            name: name.to_owned(),
            samples,
            ranks,
            rows: sorted(counts.items.into_iter().map(|(line, samples)| Row {
                line,
                samples,
                ranks: on.get(&line).copied().unwrap_or(0),
            })),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::{encode, parse, Module, Sample, SampleFile};
    use crate::trace::Endian;

    fn file(rank: i32, samples: &[(i32, u64)]) -> Vec<u8> {
        encode(
            &SampleFile {
                rank,
                hz: 1000,
                ticks: samples.len() as i64,
                regions: vec!["solve".into(), "io".into(), "solve".into()],
                modules: vec![Module {
                    path: "./app".into(),
                    base: 0,
                }],
                samples: samples
                    .iter()
                    .map(|&(region, address)| Sample {
                        region,
                        module: 0,
                        address,
                    })
                    .collect(),
            },
            Endian::Little,
        )
    }

    /// Each address is its own line here.
    fn count(bytes: &[u8], rank: i32) -> Rank {
        let view = parse(bytes).unwrap();
        Rank {
            path: format!("r{rank}.sps"),
            rank,
            hz: 1000,
            regions: count_rank(&view, |_| true, |_, a| a as LineId),
        }
    }

    #[test]
    fn counts_like_the_reference() {
        // Region 7 is out of range and -1 unknown: skipped. Regions 0 and 2 share a name.
        let bytes = file(
            0,
            &[
                (1, 5),
                (0, 1),
                (2, 2),
                (0, 2),
                (7, 1),
                (-1, 1),
                (0, 1),
                (2, 3),
            ],
        );
        let rank = count(&bytes, 0);
        assert_eq!(rank.regions.len(), 2);
        assert_eq!(rank.regions[0].name, "io");
        let solve = &rank.regions[1];
        assert_eq!((solve.name.as_str(), solve.samples), ("solve", 5));
        let rows: Vec<(LineId, u64)> = solve.rows.iter().map(|r| (r.line, r.samples)).collect();
        // 1 and 2 tie at 2 samples: 1 was seen first.
        assert_eq!(rows, [(1, 2), (2, 2), (3, 1)]);
    }

    #[test]
    fn only_the_kept_regions_count() {
        let view_bytes = file(0, &[(1, 5), (0, 1)]);
        let view = parse(&view_bytes).unwrap();
        let regions = count_rank(&view, |r| r == "io", |_, a| a as LineId);
        assert_eq!(regions.len(), 1);
        assert_eq!(regions[0].name, "io");
    }

    #[test]
    fn merging_sums_samples_and_counts_ranks() {
        let a = count(&file(0, &[(0, 1), (0, 1), (0, 2)]), 0);
        let b = count(&file(1, &[(0, 2), (0, 2), (1, 9)]), 1);
        let merged = merge(&[a, b]);
        assert_eq!(merged[0].name, "solve");
        assert_eq!((merged[0].samples, merged[0].ranks), (5, 2));
        let rows: Vec<(LineId, u64, u32)> = merged[0]
            .rows
            .iter()
            .map(|r| (r.line, r.samples, r.ranks))
            .collect();
        assert_eq!(rows, [(2, 3, 2), (1, 2, 1)]);
        assert_eq!(
            (merged[1].name.as_str(), merged[1].samples, merged[1].ranks),
            ("io", 1, 1)
        );
    }
}
