//! What the views show of a profile for the chosen options, all of it from
//! `sp::analysis`: the region rows of `sp inspect` (the call tree once the whole profile is
//! read, else the index's flat rows, as `sp inspect --flat`), the overview and the load
//! balance (from the rows in start order with own times, as the page computes them), and
//! one region's rows per rank.

use sp::analysis::balance::{rank_balance, Balance};
use sp::analysis::overview::{overview, Overview};
use sp::analysis::rank_distribution::{distribution, Distribution, OUTLIERS_SHOWN};
use sp::analysis::{
    parse_ranks, region_rows, PercentageMode, RegionRow, RowOptions, Selection, SortKey,
};
use sp::schema::Profile;

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

/// `None` for an empty list (every region).
fn list(v: &[String]) -> Option<&[String]> {
    (!v.is_empty()).then_some(v)
}

/// The rows and the views computed from them.
pub struct Report {
    /// The region table's rows, in the chosen order.
    pub rows: Vec<RegionRow>,
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
        let selection = options.selection()?;
        let flat = !tree;
        let shown = RowOptions {
            sort: options.sort,
            mode: options.mode,
            flat,
            distribution: true,
        };
        let exclusive = RowOptions {
            sort: SortKey::Start,
            mode: PercentageMode::Exclusive,
            flat,
            distribution: false,
        };
        // Flat rows in start order are the own-time rows less their own times: one walk of
        // every row instead of two, which at 100,000 ranks was most of the first screen
        // after the index read.
        if flat && options.sort == SortKey::Start {
            let own = region_rows(profile, &selection, exclusive);
            let mut rows = own.clone();
            if options.mode != PercentageMode::Exclusive {
                rows.iter_mut().for_each(|r| r.exclusive = None);
            }
            return Report::from_rows(profile, rows, own, options);
        }
        // The two tables on two threads: each walks every row, which at 100,000 ranks is
        // a third of the first screen.
        let (rows, own) = std::thread::scope(|s| {
            let own = s.spawn(|| region_rows(profile, &selection, exclusive));
            let rows = region_rows(profile, &selection, shown);
            let own = own
                .join()
                .unwrap_or_else(|_| region_rows(profile, &selection, exclusive));
            (rows, own)
        });
        Report::from_rows(profile, rows, own, options)
    }

    /// The report from the table's `rows` and the own-time rows in start order.
    fn from_rows(
        profile: &Profile,
        rows: Vec<RegionRow>,
        own: Vec<RegionRow>,
        options: &Options,
    ) -> Result<Report, String> {
        let ranks = options.rank_list()?;
        let balance = rank_balance(profile, &own, ranks.as_deref());
        let overview = overview(profile, &own, balance.as_ref());
        let tree = rows.iter().any(|r| r.call_path.is_some());
        Ok(Report {
            rows,
            tree,
            overview,
            balance,
            spread: Default::default(),
        })
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
