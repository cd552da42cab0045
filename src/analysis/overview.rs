//! The first thing to know about a run, as the reference's HTML report leads with it
//! (`report_model.summary_model`, `report_data._hotspot_entries`, `hotspots_model`):
//! headline numbers (wall time, ranks, regions, the share of the session inside regions,
//! the top hotspot, the worst load imbalance with its slowest rank) and a few sentences on
//! what stands out (the largest hotspots, uneven ranks, time outside every region, regions
//! with many very short calls, regions with no calls).
//!
//! It is computed from region rows, with the reference's rules for either kind: call-tree
//! rows (a whole read) rank the leaves of the tree and each region's own time, and know the
//! session's time outside every region; the flat rows of an index read
//! ([`load::read_index`](super::load::read_index), the reference's
//! `read_h5_summary`) rank regions by their totals. The browser page shows the index's
//! overview at once and the call tree's when it has read the events.

use super::balance::{Balance, IMBALANCE_FLAG_PCT, SESSION};
use super::rows::RegionRow;
use super::units::{duration_text, plural};
use crate::schema::Profile;
use crate::sort::SortSlice;

/// Share of the session outside every region from which it is flagged, percent.
pub const UNCOVERED_FLAG_PCT: f64 = 25.0;
/// A region called at least this often ...
pub const HOT_CALL_THRESHOLD: u64 = 1000;
/// ... at less than this many seconds a call on average is flagged as chatty.
pub const HOT_CALL_AVG_SECONDS: f64 = 1e-5;
/// Hotspots listed.
pub const HOTSPOT_COUNT: usize = 8;

/// A piece of a sentence: plain text, a region to link to, or a link to a view.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Region(String),
    /// A link to a part of the page (`balance`), with its text.
    Anchor {
        anchor: String,
        text: String,
    },
}

impl Part {
    fn text(s: impl Into<String>) -> Part {
        Part::Text(s.into())
    }
}

/// How a number or sentence should catch the eye.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Info,
    Warn,
}

impl Tone {
    /// The report's name for the tone (`""`, `"info"`, `"warn"`).
    pub fn name(self) -> &'static str {
        match self {
            Tone::Plain => "",
            Tone::Info => "info",
            Tone::Warn => "warn",
        }
    }
}

/// One headline number.
#[derive(Debug, Clone, PartialEq)]
pub struct Kpi {
    pub label: &'static str,
    pub value: Vec<Part>,
    pub detail: String,
    pub tone: Tone,
}

/// One sentence on what stands out.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub tone: Tone,
    pub parts: Vec<Part>,
}

/// Where a hotspot's time is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HotspotKind {
    /// A region without nested regions: all its time.
    Leaf,
    /// A region's own time, outside the regions nested in it.
    Own,
    /// The session's time outside every region.
    Outside,
}

impl HotspotKind {
    /// The report's name for the kind.
    pub fn name(self) -> &'static str {
        match self {
            HotspotKind::Leaf => "leaf",
            HotspotKind::Own => "own",
            HotspotKind::Outside => "outside",
        }
    }
}

/// A leaf of the call tree, or a region's own time, ranked by time.
#[derive(Debug, Clone, PartialEq)]
pub struct Hotspot {
    pub name: String,
    /// Enclosing regions, outermost first, the session left out (empty for flat rows).
    pub context: Vec<String>,
    pub kind: HotspotKind,
    /// Own seconds.
    pub time: f64,
    pub calls: u64,
    /// The row's imbalance, for leaves only.
    pub imbalance: Option<f64>,
}

/// One entry of the hotspot list, with its share and its numbers in words.
#[derive(Debug, Clone, PartialEq)]
pub struct HotspotItem {
    pub hotspot: Hotspot,
    /// Percent of [`Overview::base`].
    pub share: f64,
    /// Time, calls and time per call, in words.
    pub details: Vec<String>,
    /// `slowest rank +N%` for a leaf whose imbalance is flagged.
    pub flag: Option<String>,
}

/// The overview of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Overview {
    /// Seconds from the first region entry to the last exit (0 without timing).
    pub wall: f64,
    pub ranks: u64,
    /// Distinct region names in the rows.
    pub regions: usize,
    /// What hotspot shares are shares of: the session's total, else the hotspots' sum.
    pub base: f64,
    /// Whether no row has timing (nothing else is filled in then).
    pub empty: bool,
    pub kpis: Vec<Kpi>,
    pub findings: Vec<Finding>,
    /// The largest hotspots (none with fewer than two).
    pub hotspots: Vec<HotspotItem>,
}

/// Seconds from the earliest region entry to the latest exit (`time_span`).
pub fn time_span(profile: &Profile) -> f64 {
    // One walk of the rows with calls for both ends (`minimum_start_s` and each region's
    // `last_end_s` would be two): at 100,000 ranks each walk of the million rows is a
    // twentieth of sp tui's first screen. The same minimum and maximum, so the same value.
    let (mut start, mut end) = (f64::INFINITY, f64::NEG_INFINITY);
    for row in (profile.regions.iter())
        .flat_map(|r| &r.ranks)
        .filter(|r| r.calls() > 0)
    {
        start = start.min(row.first_start_s());
        end = end.max(row.last_end_s());
    }
    if end == f64::NEG_INFINITY {
        return 0.0;
    }
    end - start
}

/// The hotspots of the rows, largest first (`_hotspot_entries`).
pub fn hotspots(rows: &[RegionRow]) -> Vec<Hotspot> {
    let timed: Vec<&RegionRow> = rows.iter().filter(|r| r.total.is_some()).collect();
    let parents: std::collections::HashSet<&[String]> = timed
        .iter()
        .filter_map(|r| r.call_path.as_deref())
        .filter(|p| p.len() > 1)
        .map(|p| &p[..p.len() - 1])
        .collect();
    let mut entries = Vec::new();
    for row in timed {
        let total = row.total.unwrap_or(0.0);
        let own = row.exclusive.unwrap_or(total);
        let (kind, context) = match &row.call_path {
            Some(path) => {
                let kind = if row.name == SESSION {
                    HotspotKind::Outside
                } else if parents.contains(path.as_slice()) {
                    HotspotKind::Own
                } else {
                    HotspotKind::Leaf
                };
                let context = path[..path.len().saturating_sub(1)]
                    .iter()
                    .filter(|p| *p != SESSION)
                    .cloned()
                    .collect();
                (kind, context)
            }
            // Without a call tree the session's time outside every region is unknown.
            None if row.name == SESSION => continue,
            None => (HotspotKind::Leaf, Vec::new()),
        };
        if own.is_nan() || own <= 0.0 {
            continue;
        }
        entries.push(Hotspot {
            name: row.name.clone(),
            context,
            kind,
            time: own,
            calls: row.calls,
            imbalance: if kind == HotspotKind::Leaf {
                row.imbalance
            } else {
                None
            },
        });
    }
    entries.sort_stable_by(|a, b| b.time.total_cmp(&a.time));
    entries
}

/// What a hotspot's share is a share of (`_hotspot_base`).
fn hotspot_base(rows: &[RegionRow], entries: &[Hotspot]) -> f64 {
    let session = rows
        .iter()
        .find(|r| r.name == SESSION)
        .and_then(|r| r.total);
    let tree = rows.iter().any(|r| r.call_path.is_some());
    match session {
        Some(s) if s != 0.0 && tree => s,
        _ => entries.iter().map(|e| e.time).sum(),
    }
}

/// The hotspot list (`hotspots_model`).
fn hotspot_items(entries: &[Hotspot], base: f64) -> Vec<HotspotItem> {
    if entries.len() < 2 {
        return Vec::new();
    }
    entries
        .iter()
        .take(HOTSPOT_COUNT)
        .map(|e| {
            let share = if base != 0.0 {
                100.0 * e.time / base
            } else {
                0.0
            };
            let mut details = vec![duration_text(Some(e.time))];
            if e.kind != HotspotKind::Outside {
                details.push(plural(e.calls, "call"));
                if e.calls > 0 {
                    details.push(format!(
                        "{}/call",
                        duration_text(Some(e.time / e.calls as f64))
                    ));
                }
            }
            let flag = e
                .imbalance
                .filter(|&i| i >= IMBALANCE_FLAG_PCT)
                .map(|i| format!("slowest rank +{i:.0}%"));
            HotspotItem {
                hotspot: e.clone(),
                share,
                details,
                flag,
            }
        })
        .collect()
}

/// The overview of `rows` (computed with
/// [`PercentageMode::Exclusive`](super::PercentageMode::Exclusive), so every row has its
/// own time), with the load
/// balance of the same rows and ranks (`summary_model`).
pub fn overview(profile: &Profile, rows: &[RegionRow], balance: Option<&Balance>) -> Overview {
    let timed: Vec<&RegionRow> = rows.iter().filter(|r| r.total.is_some()).collect();
    let mut names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    names.sort_ord_unstable();
    names.dedup();
    let entries = hotspots(rows);
    let base = hotspot_base(rows, &entries);
    let wall = time_span(profile);
    let mut out = Overview {
        wall,
        ranks: profile.num_ranks,
        regions: names.len(),
        base,
        empty: timed.is_empty(),
        kpis: Vec::new(),
        findings: Vec::new(),
        hotspots: hotspot_items(&entries, base),
    };
    if out.empty {
        return out;
    }
    let kpi = |label, value, detail: &str, tone| Kpi {
        label,
        value,
        detail: detail.to_string(),
        tone,
    };
    if wall != 0.0 {
        out.kpis.push(kpi(
            "Wall time",
            vec![Part::text(duration_text(Some(wall)))],
            "setup to finalize",
            Tone::Plain,
        ));
    }
    out.kpis.push(kpi(
        "Ranks",
        vec![Part::text(profile.num_ranks.to_string())],
        "",
        Tone::Plain,
    ));
    out.kpis.push(kpi(
        "Regions",
        vec![Part::text(names.len().to_string())],
        "",
        Tone::Plain,
    ));
    let regions_only: Vec<&Hotspot> = entries
        .iter()
        .filter(|e| e.kind != HotspotKind::Outside)
        .collect();
    let outside = entries.iter().find(|e| e.kind == HotspotKind::Outside);
    let mut findings: Vec<Finding> = Vec::new();
    if let (Some(outside), true, false) = (outside, base != 0.0, regions_only.is_empty()) {
        let uncovered = 100.0 * outside.time / base;
        let flagged = uncovered >= UNCOVERED_FLAG_PCT;
        out.kpis.push(kpi(
            "In regions",
            vec![Part::text(format!("{:.0}%", 100.0 - uncovered))],
            "of the session",
            if flagged { Tone::Warn } else { Tone::Plain },
        ));
        if flagged {
            findings.push(Finding {
                tone: Tone::Warn,
                parts: vec![Part::text(format!(
                    "{uncovered:.0}% of the session ({}) is outside every region; adding \
                     regions there would show where that time goes.",
                    duration_text(Some(outside.time))
                ))],
            });
        }
    }
    if let Some(top) = regions_only.first() {
        let share = (base != 0.0).then(|| format!("{:.1}%", 100.0 * top.time / base));
        out.kpis.push(kpi(
            "Top hotspot",
            vec![Part::Region(top.name.clone())],
            &share
                .as_ref()
                .map_or(String::new(), |s| format!("{s} of the session")),
            Tone::Plain,
        ));
        let place = if top.context.is_empty() {
            String::new()
        } else {
            format!(" (in {})", top.context.join(" › "))
        };
        let mut parts = if top.kind == HotspotKind::Own {
            vec![
                Part::text("Time spent directly in "),
                Part::Region(top.name.clone()),
                Part::text(place),
                Part::text(", outside its nested regions,"),
            ]
        } else {
            vec![Part::Region(top.name.clone()), Part::text(place)]
        };
        parts.push(Part::text(format!(
            " is the largest hotspot: {} over {}{}",
            duration_text(Some(top.time)),
            plural(top.calls, "call"),
            share.map_or(".".into(), |s| format!(", {s} of the session."))
        )));
        findings.insert(
            0,
            Finding {
                tone: Tone::Info,
                parts,
            },
        );
        if regions_only.len() >= 3 && base != 0.0 {
            let top_three: f64 = regions_only[..3].iter().map(|e| e.time).sum();
            findings.insert(
                1,
                Finding {
                    tone: Tone::Info,
                    parts: vec![Part::text(format!(
                        "The three largest hotspots account for {:.0}% of the session.",
                        100.0 * top_three / base
                    ))],
                },
            );
        }
    }
    if let Some(worst) = balance.and_then(|b| b.regions.first()) {
        let flagged = worst.imbalance >= IMBALANCE_FLAG_PCT;
        out.kpis.push(kpi(
            "Load imbalance",
            vec![Part::text(format!("+{:.0}%", worst.imbalance))],
            &format!("{}, slowest on rank {}", worst.name, worst.slowest),
            if flagged { Tone::Warn } else { Tone::Plain },
        ));
        if flagged {
            findings.push(Finding {
                tone: Tone::Warn,
                parts: vec![
                    Part::Region(worst.name.clone()),
                    Part::text(format!(
                        " is unevenly distributed across ranks: rank {} spends {:.0}% more \
                         time in it than the per-rank average ({} more). See ",
                        worst.slowest,
                        worst.imbalance,
                        duration_text(Some(worst.excess))
                    )),
                    Part::Anchor {
                        anchor: "balance".into(),
                        text: "load balance".into(),
                    },
                    Part::text("."),
                ],
            });
        }
    }
    if let Some(b) = balance {
        if let Some((rank, slowest_in)) = b.most_often_slowest() {
            if slowest_in >= 2 && slowest_in * 2 >= b.regions.len() {
                findings.push(Finding {
                    tone: Tone::Info,
                    parts: vec![Part::text(format!(
                        "Rank {rank} is the slowest rank in {slowest_in} of {} regions.",
                        b.regions.len()
                    ))],
                });
            }
        }
    }
    let chatty = timed
        .iter()
        .filter(|r| {
            r.calls >= HOT_CALL_THRESHOLD && r.avg.is_some_and(|a| a < HOT_CALL_AVG_SECONDS)
        })
        .copied()
        .reduce(|a, b| if b.calls > a.calls { b } else { a });
    if let Some(row) = chatty {
        findings.push(Finding {
            tone: Tone::Warn,
            parts: vec![
                Part::Region(row.name.clone()),
                Part::text(format!(
                    " was called {} times at ~{:.1} µs on average; frequent short calls like \
                     this can make timer overhead itself measurable.",
                    row.calls,
                    row.avg.unwrap_or(0.0) * 1e6
                )),
            ],
        });
    }
    let untimed = rows.len() - timed.len();
    if untimed > 0 {
        findings.push(Finding {
            tone: Tone::Info,
            parts: vec![Part::text(format!(
                "{untimed} region(s) recorded no calls on the selected ranks."
            ))],
        });
    }
    out.findings = findings;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Depth, ProfileLayout, RankCalls, Region, RowStatistics};

    fn row(rank: u32, count: u64, start_ns: i64, end_ns: i64) -> RankCalls {
        RankCalls {
            rank,
            statistics: Some(
                RowStatistics {
                    count,
                    ..RowStatistics::default()
                }
                .with_start_minimum(Some(start_ns))
                .with_end_maximum(Some(end_ns)),
            ),
            ..RankCalls::default()
        }
    }

    fn profile(regions: Vec<Vec<RankCalls>>) -> Profile {
        Profile {
            schema: 3,
            layout: ProfileLayout::Columnar,
            metadata: Default::default(),
            num_ranks: 2,
            region_names: Vec::new(),
            regions: (regions.into_iter().enumerate())
                .map(|(i, ranks)| Region {
                    name: format!("r{i}"),
                    ranks,
                })
                .collect(),
            depth: Depth::Index,
            summary_statistics: true,
        }
    }

    #[test]
    fn the_time_span_runs_from_the_first_entry_to_the_last_exit_of_rows_with_calls() {
        let p = profile(vec![
            vec![
                row(0, 3, 2_000_000_000, 5_000_000_000),
                row(1, 0, 0, 9e9 as i64),
            ],
            vec![row(0, 1, 3_000_000_000, 7_500_000_000)],
            // A region without calls counts neither end.
            vec![row(1, 0, 1, 99_000_000_000)],
        ]);
        assert_eq!(time_span(&p), 5.5);
        assert_eq!(time_span(&profile(vec![vec![row(0, 0, 1, 2)]])), 0.0);
        assert_eq!(time_span(&profile(Vec::new())), 0.0);
    }
}
