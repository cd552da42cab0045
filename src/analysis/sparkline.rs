//! A region's call durations over the run in a few columns: the sparkline beside each row
//! of the page's region table (issue 37). Column `i` of `n` covers the `i`-th `n`-th of a
//! time window shared by every row (the run's, from [`window`]), and holds the mean
//! duration of the region's calls that start in it, or `None` where none starts. The calls
//! are streamed a block at a time, so memory is the columns' whatever the region's size;
//! rows whose calls are loaded are used as they are.

use super::error::Result;
use super::progress::Progress;
use super::quantiles::{selected_rows, CallBlocks};
use crate::io::ReadAt;
use crate::schema::read::events::SUMMARY_BLOCK;
use crate::schema::{EventReader, Profile, RankCalls, Region};

/// The columns the page draws: about two pixels each at its sparkline's width.
pub const COLUMNS: usize = 40;

/// A region's mean call duration (seconds) per column of a time window.
#[derive(Debug, Clone, PartialEq)]
pub struct Sparkline {
    /// The window, ns: first start and last end of the calls it covers.
    pub window: (i64, i64),
    /// Mean duration of the calls starting in each column, in seconds.
    pub columns: Vec<Option<f64>>,
}

impl Sparkline {
    /// Each column's height, 0 at the bottom to 1 at the top (`None` where no call starts):
    /// scaled to the row's own range, but never to less than a tenth of its peak, so that
    /// noise of a fraction of a percent stays a flat line in the middle. What the page's
    /// region table and `sp tui`'s draw.
    pub fn heights(&self) -> Vec<Option<f64>> {
        let shown = || self.columns.iter().flatten().copied();
        let (mut lo, mut hi) = (
            shown().fold(f64::INFINITY, f64::min),
            shown().fold(f64::NEG_INFINITY, f64::max),
        );
        let pad = (hi * 0.1 - (hi - lo)).max(0.0) / 2.0;
        lo -= pad;
        hi += pad;
        (self.columns.iter())
            .map(|c| c.map(|v| if hi > lo { (v - lo) / (hi - lo) } else { 0.5 }))
            .collect()
    }

    /// The line in block characters, one a column (`▁` to `█`, a space where no call
    /// starts): the sparkline of a terminal.
    pub fn blocks(&self) -> String {
        const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
        (self.heights().into_iter())
            .map(|h| match h {
                Some(h) => BLOCKS[((h * 7.0).round().clamp(0.0, 7.0)) as usize],
                None => ' ',
            })
            .collect()
    }
}

/// The first start and the last end (ns) of the calls of `profile` on `ranks` (all when
/// `None`), from each row's stored statistics or loaded calls: the window every row's
/// sparkline shares, so that the rows line up in time. `None` without calls.
pub fn window(profile: &Profile, ranks: Option<&[u32]>) -> Option<(i64, i64)> {
    let (mut start, mut end) = (i64::MAX, i64::MIN);
    for region in &profile.regions {
        for row in selected_rows(region, ranks) {
            if let Some((s, e)) = row_window(row) {
                start = start.min(s);
                end = end.max(e);
            }
        }
    }
    (start <= end).then_some((start, end))
}

/// A row's first start and last end, ns.
fn row_window(row: &RankCalls) -> Option<(i64, i64)> {
    if row.calls() == 0 {
        return None;
    }
    match &row.statistics {
        Some(s) => Some((s.start_minimum()?, s.end_maximum()?)),
        None => Some((*row.starts.iter().min()?, *row.ends.iter().max()?)),
    }
}

/// Sums (ns, exact whatever the order calls come in) and counts of durations per column:
/// a sparkline being read.
pub(crate) struct Columns {
    window: (i64, i64),
    sums: Vec<i128>,
    counts: Vec<u64>,
}

impl Columns {
    pub(crate) fn new(window: (i64, i64), n: usize) -> Columns {
        let n = n.max(1);
        Columns {
            window,
            sums: vec![0; n],
            counts: vec![0; n],
        }
    }

    /// Adds calls by start and end (ns); starts outside the window go to its edge columns.
    pub(crate) fn add(&mut self, starts: &[i64], ends: &[i64]) {
        let (t0, t1) = self.window;
        let width = (i128::from(t1) - i128::from(t0)).max(0) + 1;
        let n = self.sums.len();
        for (&s, &e) in starts.iter().zip(ends) {
            let at = (i128::from(s) - i128::from(t0)).clamp(0, width - 1);
            let column = (at * n as i128 / width) as usize;
            self.sums[column] += i128::from(e.wrapping_sub(s));
            self.counts[column] += 1;
        }
    }

    pub(crate) fn finish(self) -> Sparkline {
        let columns = (self.sums.iter().zip(&self.counts))
            .map(|(&sum, &n)| (n > 0).then(|| sum as f64 / n as f64 / 1e9))
            .collect();
        Sparkline {
            window: self.window,
            columns,
        }
    }
}

/// The sparkline of `region`'s calls on `ranks` (all when `None`) in `columns` columns of
/// `window`. Rows whose calls are loaded are used as they are; the others are read
/// through `reader` a block of calls at a time, counting their bytes into `progress` and
/// stopping with [`Error::Cancelled`] within a block of its cancel.
pub fn region_sparkline<R: ReadAt>(
    reader: Option<&EventReader<'_, R>>,
    region: &Region,
    ranks: Option<&[u32]>,
    window: (i64, i64),
    columns: usize,
    progress: Option<&Progress>,
) -> Result<Sparkline> {
    sparkline_in(
        reader,
        region,
        ranks,
        window,
        columns,
        SUMMARY_BLOCK,
        progress,
    )
}

/// [`region_sparkline`] reading `block` calls at a time.
fn sparkline_in<R: ReadAt>(
    reader: Option<&EventReader<'_, R>>,
    region: &Region,
    ranks: Option<&[u32]>,
    window: (i64, i64),
    columns: usize,
    block: u64,
    progress: Option<&Progress>,
) -> Result<Sparkline> {
    let mut acc = Columns::new(window, columns);
    CallBlocks::new(reader, region, ranks, block, progress)
        .each_block(|starts, ends| acc.add(starts, ends))?;
    Ok(acc.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::load;
    use crate::analysis::Error;
    use crate::hdf5lite::reader::File;
    use crate::schema::{Depth, ProfileLayout};

    fn row(rank: u32, calls: &[(i64, i64)]) -> RankCalls {
        RankCalls {
            calls: crate::schema::Calls {
                starts: calls.iter().map(|c| c.0).collect(),
                ends: calls.iter().map(|c| c.1).collect(),
                ..Default::default()
            }
            .into(),
            rank,
            ..RankCalls::default()
        }
    }

    #[test]
    fn each_column_holds_the_mean_duration_of_the_calls_starting_in_it() {
        let region = Region {
            name: "solve".into(),
            ranks: vec![row(0, &[(0, 10), (50, 80)]), row(1, &[(10, 30), (99, 100)])],
        };
        let s = region_sparkline::<&[u8]>(None, &region, None, (0, 99), 4, None).unwrap();
        // Columns of 25 ns: starts 0, 10 | - | 50 | 99.
        assert_eq!(s.columns, vec![Some(15e-9), None, Some(30e-9), Some(1e-9)]);
        let one = region_sparkline::<&[u8]>(None, &region, Some(&[1]), (0, 99), 4, None).unwrap();
        assert_eq!(one.columns, vec![Some(20e-9), None, None, Some(1e-9)]);
    }

    #[test]
    fn heights_span_the_row_and_noise_stays_flat() {
        let line = |columns: Vec<Option<f64>>| Sparkline {
            window: (0, 1),
            columns,
        };
        // Its own range: the lowest at 0, the highest at 1.
        let steps = line(vec![Some(1.0), None, Some(2.0), Some(3.0)]);
        assert_eq!(steps.heights(), vec![Some(0.0), None, Some(0.5), Some(1.0)]);
        assert_eq!(steps.blocks(), "▁ ▅█");
        // 1 % of noise on a 100 ms call: the range widened to a tenth of the peak (10.1 ms),
        // so it stays near the middle.
        let noise = line(vec![Some(0.100), Some(0.101)]);
        let h: Vec<f64> = noise.heights().into_iter().flatten().collect();
        let pad = (0.0101 - 0.001) / 2.0;
        assert!((h[0] - pad / 0.0101).abs() < 1e-9, "{h:?}");
        assert!((h[1] - (pad + 0.001) / 0.0101).abs() < 1e-9, "{h:?}");
        assert_eq!(noise.blocks(), "▄▅");
        // One value: the middle; none at all: no line.
        assert_eq!(line(vec![Some(0.0), None]).heights(), vec![Some(0.5), None]);
        assert_eq!(line(vec![None, None]).blocks(), "  ");
    }

    #[test]
    fn the_window_spans_every_selected_row() {
        let profile = Profile {
            schema: 3,
            layout: ProfileLayout::Columnar,
            metadata: Default::default(),
            num_ranks: 4,
            region_names: vec!["a".into()],
            regions: vec![Region {
                name: "a".into(),
                ranks: vec![row(0, &[(5, 9)]), row(3, &[(2, 4), (20, 40)])],
            }],
            depth: Depth::Events,
            summary_statistics: false,
        };
        assert_eq!(window(&profile, None), Some((2, 40)));
        assert_eq!(window(&profile, Some(&[0])), Some((5, 9)));
        assert_eq!(window(&profile, Some(&[7])), None);
    }

    /// Streamed from the event columns in blocks (of start deltas, across chunk
    /// boundaries), or from the calls loaded whole, the sparklines are the same.
    #[test]
    fn streamed_and_loaded_calls_give_the_same_sparkline() {
        let bytes = include_bytes!("../../tests/corpus/golden/chunked_big.h5");
        let file = File::open(&bytes[..]).unwrap();
        let index = load::read_index(&file).unwrap();
        let whole = load::read_full(&file).unwrap();
        let reader = EventReader::open(&file).unwrap();
        let w = window(&index, None).unwrap();
        assert_eq!(window(&whole, None), Some(w));
        for region in &index.regions {
            let loaded = whole.region(&region.name).unwrap();
            let direct = region_sparkline::<&[u8]>(None, loaded, None, w, COLUMNS, None).unwrap();
            assert!(direct.columns.iter().any(Option::is_some));
            for block in [1000, SUMMARY_BLOCK] {
                let streamed =
                    sparkline_in(reader.as_ref(), region, None, w, COLUMNS, block, None).unwrap();
                assert_eq!(streamed, direct, "{} in blocks of {block}", region.name);
            }
        }
    }

    #[test]
    fn a_cancelled_read_stops_with_cancelled() {
        let bytes = include_bytes!("../../tests/corpus/golden/chunked_big.h5");
        let file = File::open(&bytes[..]).unwrap();
        let index = load::read_index(&file).unwrap();
        let reader = EventReader::open(&file).unwrap();
        let w = window(&index, None).unwrap();
        let progress = Progress::default();
        progress.cancel();
        let region = &index.regions[0];
        let got = sparkline_in(
            reader.as_ref(),
            region,
            None,
            w,
            COLUMNS,
            1000,
            Some(&progress),
        );
        assert!(matches!(got, Err(Error::Cancelled)));
    }
}
