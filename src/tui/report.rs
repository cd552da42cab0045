//! What the views show of a profile for the chosen options, all of it from
//! `sp::analysis`: the region rows of `sp inspect` (the call tree once the whole profile is
//! read, else the index's flat rows, as `sp inspect --flat`), the overview and the load
//! balance (from the rows in start order with own times, as the page computes them), and
//! one region's rows per rank.

use sp::analysis::balance::{rank_balance, Balance};
use sp::analysis::overview::{overview, Overview};
use sp::analysis::progress::Progress;
use sp::analysis::rank_distribution::{distribution, Distribution, OUTLIERS_SHOWN};
use sp::analysis::{
    parse_ranks, rows_to_compute, sort_rows, unsorted_rows_with, PercentageMode, RegionRow,
    RowOptions, Selection, SortKey,
};
use sp::schema::Profile;

use super::jobs::Stop;

/// The options of the region table, as the page's and `sp inspect`'s.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub sort: SortKey,
    pub mode: PercentageMode,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// The rank selection as typed (`0-3 7`), empty for every rank.
    pub ranks: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            sort: SortKey::Start,
            mode: PercentageMode::Coverage,
            include: Vec::new(),
            exclude: Vec::new(),
            ranks: String::new(),
        }
    }
}

impl Options {
    /// Whether `other` gives the same rows, perhaps in another order (the sort aside).
    pub fn same_rows(&self, other: &Options) -> bool {
        let sorted = Options {
            sort: other.sort,
            ..self.clone()
        };
        sorted == *other
    }

    /// The library's selection; a bad pattern or rank list is a sentence to show.
    pub fn selection(&self) -> Result<Selection, String> {
        let ranks = self.rank_list()?;
        Selection::new(list(&self.include), list(&self.exclude), ranks).map_err(|e| e.to_string())
    }

    /// The selected ranks, `None` for all.
    pub fn rank_list(&self) -> Result<Option<Vec<u32>>, String> {
        let specs: Vec<String> = self.ranks.split_whitespace().map(str::to_string).collect();
        if specs.is_empty() {
            return Ok(None);
        }
        parse_ranks(&specs).map(Some).map_err(|e| e.to_string())
    }
}

/// The options of the table's rows and of the own-time rows in start order.
fn row_options(tree: bool, options: &Options) -> (RowOptions, RowOptions) {
    let flat = !tree;
    let shown = RowOptions {
        sort: options.sort,
        mode: options.mode,
        flat,
        distribution: true,
    };
    let own = RowOptions {
        sort: SortKey::Start,
        mode: PercentageMode::Exclusive,
        flat,
        distribution: false,
    };
    (shown, own)
}

/// `None` for an empty list (every region).
fn list(v: &[String]) -> Option<&[String]> {
    (!v.is_empty()).then_some(v)
}

/// The rows and the views computed from them.
pub struct Report {
    /// The region table's rows, in the chosen order.
    pub rows: Vec<RegionRow>,
    /// The same rows before their sort, in the library's order that [`sort_rows`] starts
    /// from, so that another order is a sort of them ([`sort`](Self::sort)), not a build.
    unsorted: Vec<RegionRow>,
    /// The options the rows are for, with the order of [`rows`](Self::rows): while new
    /// ones are computed on a job, the views show these, for the old options.
    pub options: Options,
    /// Whether the rows form the call tree (else one flat row per region).
    pub tree: bool,
    pub overview: Overview,
    pub balance: Option<Balance>,
    /// Each balance region's distribution over the ranks, with its whiskers, computed when
    /// first shown ([`spread`](Self::spread)).
    spread: std::cell::OnceCell<Vec<(Distribution, (f64, f64))>>,
}

impl Report {
    /// The report of `profile` (`tree`: its calls are loaded) for `options`.
    pub fn of(profile: &Profile, tree: bool, options: &Options) -> Result<Report, String> {
        // A progress of its own is never cancelled.
        Report::build(profile, tree, options, &Progress::default()).map_err(|e| match e {
            Stop::Failed(e) => e,
            Stop::Cancelled => "stopped".into(),
        })
    }

    /// The work [`build`](Self::build) counts into its progress: the library's walks of
    /// the calls for the table and for the own times; for flat rows, its one walk of the
    /// index's rows and as much again for the overview and balance computed from them
    /// (walks of the rows too), counted when they are done.
    pub fn work(profile: &Profile, tree: bool, options: &Options) -> u64 {
        let Ok(selection) = options.selection() else {
            return 0;
        };
        let (shown, own) = row_options(tree, options);
        let own = rows_to_compute(profile, &selection, own);
        match tree {
            true => rows_to_compute(profile, &selection, shown).saturating_add(own),
            false => own.saturating_mul(2),
        }
    }

    /// [`of`](Self::of), counting into `progress` the [`work`](Self::work) it announced
    /// and stopping on its cancel (on a job of `sp tui`: the call tree of a whole profile,
    /// and the index's rows of a large one).
    pub fn build(
        profile: &Profile,
        tree: bool,
        options: &Options,
        progress: &Progress,
    ) -> Result<Report, Stop> {
        let selection = options.selection().map_err(Stop::Failed)?;
        let (shown, exclusive) = row_options(tree, options);
        let rows = |o| unsorted_rows_with(profile, &selection, o, progress).map_err(Stop::from);
        // Flat rows are the own-time rows less their own times: one walk of every row
        // instead of two, which at 100,000 ranks was most of the first screen after the
        // index read.
        if !tree {
            let own = rows(exclusive)?;
            let mut shown = own.clone();
            if options.mode != PercentageMode::Exclusive {
                shown.iter_mut().for_each(|r| r.exclusive = None);
            }
            let report = Report::from_rows(profile, shown, own, options).map_err(Stop::Failed);
            // Stopped meanwhile: no report for options given up.
            progress.check().map_err(|_| Stop::Cancelled)?;
            progress.advance(rows_to_compute(profile, &selection, exclusive));
            return report;
        }
        // The two tables on two threads: each walks every row, which at 100,000 ranks is
        // a third of the first screen.
        let (shown, own) = std::thread::scope(|s| {
            let own = s.spawn(|| rows(exclusive));
            let shown = rows(shown);
            let own = own.join().unwrap_or_else(|_| rows(exclusive));
            (shown, own)
        });
        Report::from_rows(profile, shown?, own?, options).map_err(Stop::Failed)
    }

    /// The report from the table's rows and the own-time rows, both unsorted.
    fn from_rows(
        profile: &Profile,
        unsorted: Vec<RegionRow>,
        own: Vec<RegionRow>,
        options: &Options,
    ) -> Result<Report, String> {
        let ranks = options.rank_list()?;
        let own = sort_rows(own, SortKey::Start);
        let balance = rank_balance(profile, &own, ranks.as_deref());
        let overview = overview(profile, &own, balance.as_ref());
        let tree = unsorted.iter().any(|r| r.call_path.is_some());
        Ok(Report {
            rows: sort_rows(unsorted.clone(), options.sort),
            unsorted,
            options: options.clone(),
            tree,
            overview,
            balance,
            spread: Default::default(),
        })
    }

    /// The rows in `key` order, as [`of`](Self::of) gives them for that key: the rows kept
    /// sorted again on the spot, since the sort changes nothing else (neither the rows nor
    /// the overview and balance, which come from the rows in start order).
    pub fn sort(&mut self, key: SortKey) {
        if key != self.options.sort {
            self.rows = sort_rows(self.unsorted.clone(), key);
            self.options.sort = key;
        }
    }

    /// Each balance region's distribution over the ranks, with its whiskers (the smallest
    /// and largest values within the outlier fences), in the balance's order.
    pub fn spread(&self) -> &[(Distribution, (f64, f64))] {
        self.spread.get_or_init(|| {
            self.balance.as_ref().map_or(Vec::new(), |b| {
                (b.regions.iter())
                    .filter_map(|r| {
                        let d = distribution(&b.ranks, &r.values, OUTLIERS_SHOWN)?;
                        let w = d.whiskers(&r.values);
                        Some((d, w))
                    })
                    .collect()
            })
        })
    }
}
