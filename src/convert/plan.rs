//! Between the passes: the merge rules order the scanned records into rows, the HDF5 writer
//! lays the file out with the bulk data deferred, and the rows' calls are cut into pass-2
//! units of about one [`BLOCK`] each.

use crate::sort::SortSlice;
use std::collections::BTreeMap;

use crate::hdf5lite::filters::Deflate;
use crate::hdf5lite::FileWriter;
use crate::schema::likwid::{self, LikwidByRank};
use crate::schema::metadata::Metadata;
use crate::schema::native::{into_ranks, sort_regions, RegionRanks};
use crate::schema::stats::PairwisePlan;
use crate::schema::write::{to_hdf5_deferred, DeferredColumns, IndexColumns, RowHead};
use crate::schema::Merger;

use super::error::Error;
use super::scan::{Content, Record, RowCalls, Scan, ScannedInput};
use super::shard::{Part, Shard};
use super::BLOCK;

/// What the conversion writes besides the inputs' content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The run label stored in `/metadata` (`None`: no label).
    pub label: Option<String>,
    /// Store the event columns chunked with shuffle + deflate, deflated this way.
    pub compress: Option<Deflate>,
    /// The inputs are this part of a sharded run: store what the merge of the parts needs
    /// (see [`shard`](super::shard)).
    pub shard: Option<Shard>,
    /// The last input is a profile the others merge into, as `import-native --merge` does:
    /// its metadata wins, its region names must not occur in the others, its LIKWID results
    /// are kept.
    pub merge: bool,
}

impl Options {
    /// The label `import-native` stores for a `--label` of `label` (if given) writing to
    /// `output`: with `merge`, only what `--label` says (even `""`); otherwise a non-empty
    /// `--label`, else the output file's stem (`Path(output).stem`).
    pub fn label_for(label: Option<&str>, merge: bool, output: &str) -> Option<String> {
        if merge {
            return label.map(str::to_owned);
        }
        Some(match label.filter(|l| !l.is_empty()) {
            Some(l) => l.to_owned(),
            None => {
                let trimmed = output.trim_end_matches('/');
                let name = trimmed.rsplit('/').next().unwrap_or(trimmed);
                match name.rfind('.') {
                    Some(dot) if dot > 0 => name[..dot].to_owned(),
                    _ => name.to_owned(),
                }
            }
        })
    }
}

#[cfg(test)]
mod label_tests {
    use super::Options;

    #[test]
    fn labels_as_import_native_gives_them() {
        assert_eq!(
            Options::label_for(None, false, "out/run.h5").as_deref(),
            Some("run")
        );
        assert_eq!(
            Options::label_for(Some(""), false, "a.b.h5").as_deref(),
            Some("a.b")
        );
        assert_eq!(
            Options::label_for(Some("x"), false, "run.h5").as_deref(),
            Some("x")
        );
        assert_eq!(
            Options::label_for(None, false, ".h5").as_deref(),
            Some(".h5")
        );
        assert_eq!(
            Options::label_for(Some(""), true, "run.h5").as_deref(),
            Some("")
        );
        assert_eq!(Options::label_for(None, true, "run.h5"), None);
    }
}

/// One contiguous range of a row's calls handled by a pass-2 unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    pub row: usize,
    pub lo: u64,
    pub hi: u64,
    /// Where the piece's pairwise sum of squared deviations goes (rows over one block).
    pub m2_slot: Option<usize>,
}

/// A run of pieces whose events are contiguous in the output columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    pub first_event: u64,
    pub pieces: Vec<Piece>,
}

impl Unit {
    /// Calls in the unit.
    pub fn calls(&self) -> u64 {
        self.pieces.iter().map(|p| p.hi - p.lo).sum()
    }
}

/// The units of pass 2 and, for each row over one block (by row, ascending), the pairwise
/// plan of its `m2` and the first of its m2 slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Units {
    pub units: Vec<Unit>,
    pub m2_plans: Vec<(usize, PairwisePlan, usize)>,
    pub slots: usize,
}

/// A row as pass 2 needs it: its region and where its calls are (the index's source
/// location stays in the index).
#[derive(Debug)]
pub(crate) struct PlannedRow {
    pub region_id: u32,
    pub record: RowCalls,
}

/// The conversion planned: rows in file order, the file's layout, the pass-2 units.
pub struct Plan {
    pub(crate) names: Vec<String>,
    pub(crate) metadata: Metadata,
    pub(crate) region_names: Vec<String>,
    pub(crate) rows: Vec<PlannedRow>,
    pub(crate) writer: FileWriter,
    pub(crate) deferred: DeferredColumns,
    pub(crate) compress: Option<Deflate>,
    pub(crate) units: Units,
}

impl Plan {
    /// The attributes of the new file's `/metadata` that cannot be carried over (object and
    /// region references, which would point into an input), left out, with the reason:
    /// a front end shows them as warnings.
    pub fn left_out(&self) -> Vec<crate::schema::metadata::LeftOut> {
        crate::schema::metadata::left_out(&self.metadata)
    }

    /// Applies the merge rules to pass 1's results, input by input in order: the first
    /// failed input, or the first input that breaks a rule, is the error.
    pub fn new(scan: Scan, options: &Options) -> Result<Plan, Error> {
        let Scan { names, mut results } = scan;
        let base = if options.merge { results.pop() } else { None };
        let mut merger: Merger<Record> = Merger::default();
        // Parts of a sharded run first show their regions in the order the whole run would.
        let mut parts: Vec<&Part> = results
            .iter()
            .filter_map(|r| match &r.as_ref().ok()?.content {
                Content::Profile(p) => p.part.as_ref(),
                Content::Trace { .. } => None,
            })
            .collect();
        parts.sort_stable_by_key(|p| p.shard);
        for part in parts {
            merger.register_regions(part.region_order.iter().map(String::as_str));
        }
        for (i, result) in results.into_iter().enumerate() {
            let ScannedInput {
                records, content, ..
            } = result?;
            match content {
                Content::Trace { rank } => merger
                    .add_rank(&names[i], rank, records, None)
                    .map_err(Error::Merge)?,
                Content::Profile(profile) => {
                    // A part's metadata is what it inherited, from one rank.
                    let from = profile.part.as_ref().map(|p| p.metadata_rank);
                    let metadata = &profile.metadata;
                    for (rank, regions) in into_ranks(sorted_regions(profile.regions, records)?) {
                        let inherited = match from {
                            Some(from) if from != Some(rank) => None,
                            _ => Some(metadata),
                        };
                        merger
                            .add_rank(&names[i], i64::from(rank), regions, inherited)
                            .map_err(Error::Merge)?;
                    }
                }
            }
        }
        let part = options.shard.map(|shard| Part {
            shard,
            region_order: merger.region_order().map(str::to_owned).collect(),
            metadata_rank: merger.inherited_rank(),
        });
        let label = options.label.as_deref();
        let (mut metadata, mut merged, likwid) = match base {
            None => {
                let (metadata, rows) = merger.finish_streamed(label);
                (metadata, rows, LikwidByRank::default())
            }
            Some(base) => {
                let ScannedInput {
                    records, content, ..
                } = base?;
                let Content::Profile(profile) = content else {
                    return Err(Error::Internal("a trace to merge into"));
                };
                let regions = sorted_regions(profile.regions, records)?;
                let (metadata, rows) = merger
                    .merge_streamed(&profile.region_names, regions, profile.metadata, label)
                    .map_err(Error::Merge)?;
                (metadata, rows, profile.likwid)
            }
        };
        if let Some(part) = part {
            part.store(&mut metadata);
        }
        // Each merged row leaves its index entries and, for pass 2, where its calls are.
        let mut index = IndexColumns::default();
        let mut rows = Vec::with_capacity(merged.remaining());
        for row in merged.by_ref() {
            index.push(RowHead {
                rank: row.rank,
                region_id: row.region_id,
                source_file: &row.source_file,
                source_line: row.source_line,
                source_text: &row.source_text,
                calls: row.record.row.calls,
            });
            rows.push(PlannedRow {
                region_id: row.region_id,
                record: row.record.row,
            });
        }
        let region_names = merged.into_region_names();
        let units = plan_units(&index.counts);
        let (mut writer, deferred) = to_hdf5_deferred(
            &metadata,
            &region_names,
            index,
            options.compress.map(Deflate::recorded_level),
        )
        .map_err(Error::Layout)?;
        likwid::write(&mut writer, &likwid).map_err(Error::Layout)?;
        Ok(Plan {
            names,
            units,
            metadata,
            region_names,
            rows,
            writer,
            deferred,
            compress: options.compress,
        })
    }

    /// Region names by id.
    pub fn region_names(&self) -> &[String] {
        &self.region_names
    }
}

/// A profile's regions (in region-table order, rows by record index) with their records,
/// stably sorted by earliest start, as the import takes them.
fn sorted_regions(
    regions: Vec<(String, Vec<(u32, usize)>)>,
    records: Vec<Record>,
) -> Result<Vec<RegionRanks<Record>>, Error> {
    let mut records: Vec<Option<Record>> = records.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(regions.len());
    for (name, rows) in regions {
        let mut ranks = BTreeMap::new();
        for (rank, index) in rows {
            let record = records
                .get_mut(index)
                .and_then(Option::take)
                .ok_or(Error::Internal("a row without its record"))?;
            ranks.insert(rank, record);
        }
        out.push(RegionRanks { name, ranks });
    }
    sort_regions(&mut out);
    Ok(out)
}

/// Splits rows of `calls` calls into units of about [`BLOCK`] calls: small rows are
/// gathered whole, a row over one block gets units of its own, cut where numpy's pairwise
/// recursion splits its `m2` sum.
pub(crate) fn plan_units(calls: &[u64]) -> Units {
    let mut units = Vec::new();
    let mut m2_plans = Vec::new();
    let mut slots = 0usize;
    let mut event = 0u64;
    let mut current = Unit {
        first_event: 0,
        pieces: Vec::new(),
    };
    let mut current_calls = 0u64;
    let flush = |units: &mut Vec<Unit>, current: &mut Unit, event: u64| {
        units.push(std::mem::replace(
            current,
            Unit {
                first_event: event,
                pieces: Vec::new(),
            },
        ));
    };
    for (i, &n) in calls.iter().enumerate() {
        if n <= BLOCK {
            if n > 0 {
                current.pieces.push(Piece {
                    row: i,
                    lo: 0,
                    hi: n,
                    m2_slot: None,
                });
                current_calls += n;
            }
            event += n;
            if current_calls >= BLOCK {
                flush(&mut units, &mut current, event);
                current_calls = 0;
            }
            continue;
        }
        if !current.pieces.is_empty() {
            flush(&mut units, &mut current, event);
            current_calls = 0;
        }
        let plan = PairwisePlan::new(n, BLOCK);
        let first_slot = slots;
        for &(lo, hi) in &plan.ranges {
            units.push(Unit {
                first_event: event + lo,
                pieces: vec![Piece {
                    row: i,
                    lo,
                    hi,
                    m2_slot: Some(slots),
                }],
            });
            slots += 1;
        }
        m2_plans.push((i, plan, first_slot));
        event += n;
        current.first_event = event;
    }
    if !current.pieces.is_empty() {
        units.push(current);
    }
    Units {
        units,
        m2_plans,
        slots,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (row, lo, hi, m2 slot) of a piece.
    type PieceShape = (usize, u64, u64, Option<usize>);

    #[test]
    fn small_rows_are_gathered_and_large_rows_cut_where_the_pairwise_sum_splits() {
        let b = BLOCK;
        let plan = plan_units(&[3, 0, b - 3, 5, 2 * b + 1, 7]);
        let shape: Vec<(u64, Vec<PieceShape>)> = plan
            .units
            .iter()
            .map(|u| {
                let pieces = u.pieces.iter().map(|p| (p.row, p.lo, p.hi, p.m2_slot));
                (u.first_event, pieces.collect())
            })
            .collect();
        // numpy splits 2b+1 at half rounded down to a multiple of 8: b, then b+1 at b/2.
        let split = PairwisePlan::new(2 * b + 1, b).ranges;
        assert_eq!(split, [(0, b), (b, b + b / 2), (b + b / 2, 2 * b + 1)]);
        assert_eq!(
            shape,
            [
                (0, vec![(0, 0, 3, None), (2, 0, b - 3, None)]),
                (b, vec![(3, 0, 5, None)]),
                (b + 5, vec![(4, 0, b, Some(0))]),
                (2 * b + 5, vec![(4, b, b + b / 2, Some(1))]),
                (2 * b + 5 + b / 2, vec![(4, b + b / 2, 2 * b + 1, Some(2))]),
                (3 * b + 6, vec![(5, 0, 7, None)]),
            ]
        );
        assert_eq!(plan.slots, 3);
        let large: Vec<_> = plan
            .m2_plans
            .iter()
            .map(|(row, _, first)| (*row, *first))
            .collect();
        assert_eq!(large, [(4, 0)]);
        assert_eq!(plan.units.iter().map(Unit::calls).sum::<u64>(), 3 * b + 13);
    }
}
