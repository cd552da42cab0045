//! One opened file and the requests about it: the region table, its CSV, the overview, the
//! load balance and its heatmap cells, percentiles on demand, and the raw tree.

use sp::sort::SortSlice;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{json, Value as Json};
use sp::analysis::balance::{rank_balance, Balance};
use sp::analysis::events;
use sp::analysis::export::{Exporter, Format};
use sp::analysis::metadata;
use sp::analysis::overview::overview;
use sp::analysis::plot_data::histogram::{bin_counts, bin_edges, duration_range};
use sp::analysis::quantiles::{
    calls_to_read, region_percentiles, region_percentiles_and_sparkline, Percentiles,
};
use sp::analysis::report::{self, FileReport, ReportWriter};
use sp::analysis::rows::rank_rows;
use sp::analysis::runs::Run;
use sp::analysis::sparkline::{self, Sparkline, COLUMNS};
use sp::analysis::units::{count_text, duration_text};
use sp::analysis::{load, region_rows, PercentageMode, RegionRow, Selection, SortKey};
use sp::chart::color::Theme;
use sp::chart::plot::{self, Input, PlotOptions};
use sp::hdf5lite::reader::File;
use sp::io::ReadAt;
use sp::schema::{EventReader, Profile, RegionTags};

use crate::download::Parts;
use crate::messages;
use crate::rows::rows_json;
use crate::selection::Options;
use crate::session::{Answer, TREE_CALLS};
use crate::source::Source;
use crate::timeline::{Timeline, View};
use crate::views::{balance_json, cell_json, overview_json, percentiles_json};

/// A profile's reads: its index (stored statistics per row, no calls) and, once read, the
/// whole profile.
/// Ranks a region's detail lists (the page draws no more rows than a screen holds).
pub const DETAIL_RANKS: usize = 50;
/// Bins of a region's histogram in its detail.
pub const DETAIL_BINS: usize = 40;

pub struct Loaded {
    /// The index: read at the open, or when first needed for a profile opened for its run
    /// alone ([`Loaded::later`]).
    index: OnceCell<Profile>,
    /// The index is read when a request first needs it.
    index_later: bool,
    whole: Option<Profile>,
    /// Calls the profile holds.
    pub calls: u64,
    /// The file holds the index without the calls (an index-only report's copy).
    pub events_omitted: bool,
}

impl Loaded {
    /// A profile opened from its index; the whole read comes later, if at all.
    pub fn index(index: Profile) -> Loaded {
        Loaded {
            calls: index.call_count(),
            index: OnceCell::from(index),
            index_later: false,
            whole: None,
            events_omitted: false,
        }
    }

    /// A profile of `calls` calls opened for its run alone (a file of a series): its index
    /// is read when a view of it first asks, so a series of 100 profiles does not hold 100
    /// indexes (issue 37).
    pub fn later(calls: u64) -> Loaded {
        Loaded {
            calls,
            index: OnceCell::new(),
            index_later: true,
            whole: None,
            events_omitted: false,
        }
    }

    /// A profile read whole at once, with its index when it has one.
    pub fn whole(whole: Profile, index: Option<Profile>) -> Loaded {
        Loaded {
            calls: whole.call_count(),
            index: index.map(OnceCell::from).unwrap_or_default(),
            index_later: false,
            whole: Some(whole),
            events_omitted: false,
        }
    }

    /// The index, else the whole profile (for the file's description and the rows
    /// percentiles are read for).
    pub fn head(&self) -> Option<&Profile> {
        self.index.get().or(self.whole.as_ref())
    }

    /// `loaded`, `available` (small enough to read whole), `too-large`, or `omitted` (the
    /// file holds no calls to read it from).
    pub fn tree_state(&self) -> &'static str {
        if self.events_omitted {
            "omitted"
        } else if self.whole.is_some() {
            "loaded"
        } else if self.calls <= TREE_CALLS {
            "available"
        } else {
            "too-large"
        }
    }
}

/// An open file.
pub struct Opened {
    name: String,
    source: Source,
    file: File<Source>,
    /// `None` for an HDF5 file that is not a profile.
    profile: Option<Box<Loaded>>,
    /// The last report rows and load balance, by the options they were computed for: the
    /// overview, the ranks view and every heatmap hover share them.
    report: RefCell<Option<(String, Rc<Report>)>>,
    /// The timeline, by the rank spec it was opened for.
    timeline: Option<(String, Timeline)>,
    /// Percentiles read so far, by region and ranks.
    percentiles: RefCell<HashMap<PercentilesKey, Percentiles>>,
    /// Every region's tags, read when a detail first asks.
    tags: RefCell<Option<RegionTags>>,
    /// The profile as one run of the runs table, computed once (or kept from the open).
    run: OnceCell<Kept>,
}

/// A profile's run and its region table (which gives the scaling charts' colours).
struct Kept {
    run: Run,
    region_names: Vec<String>,
}

/// A region's name and the ranks its percentiles pool (`None`: every rank).
type PercentilesKey = (String, Option<Vec<u32>>);

/// Rows as the report computes its overview from (start order, own times filled in) and
/// their load balance.
struct Report {
    rows: Vec<RegionRow>,
    balance: Option<Balance>,
}

/// Which of a profile's reads a request's rows come from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RowsFrom {
    /// The whole profile: the call tree.
    Tree,
    /// The index: one flat row per region.
    Index,
}

impl RowsFrom {
    fn name(self) -> &'static str {
        match self {
            RowsFrom::Tree => "tree",
            RowsFrom::Index => "index",
        }
    }
}

impl Opened {
    pub fn new(
        name: String,
        source: Source,
        file: File<Source>,
        profile: Option<Box<Loaded>>,
    ) -> Opened {
        Opened {
            name,
            source,
            file,
            profile,
            report: RefCell::new(None),
            timeline: None,
            percentiles: RefCell::default(),
            tags: RefCell::default(),
            run: OnceCell::new(),
        }
    }

    /// Keeps `run` and the profile's `region_names`, read at the open, for the runs table.
    pub fn keep_run(&self, run: Run, region_names: Vec<String>) {
        let _ = self.run.set(Kept { run, region_names });
    }

    /// The profile as one run of the runs table and its region table: kept from the open,
    /// else computed from [`head`](Self::head) once, as `sp runs` computes it from the
    /// index (the run of the stored statistics alone is the same).
    pub fn run(&self) -> Result<(&Run, &[String]), String> {
        if self.run.get().is_none() {
            let head = self.head()?;
            let run = Run::of(&self.name, head, &Selection::all());
            self.keep_run(run, head.region_names.clone());
        }
        let kept = self.run.get().ok_or("The run could not be kept.")?;
        Ok((&kept.run, &kept.region_names))
    }

    /// The file's read counters.
    pub fn io(&self) -> Json {
        let (reads, bytes) = self.source.stats();
        json!({
            "reads": reads,
            "bytes": bytes,
            "bytes_text": sp::analysis::units::bytes_text(bytes),
            "size": self.source.len(),
        })
    }

    /// The file as the raw view lists it.
    pub fn raw(&self) -> Answer {
        crate::raw::listing(&self.name, &self.file)
    }

    /// The profile's reads, its index read first if it was left for later.
    fn loaded(&self) -> Result<&Loaded, String> {
        let loaded = self
            .profile
            .as_deref()
            .ok_or_else(|| format!("{} is not a profile.", self.name))?;
        if loaded.index_later && loaded.index.get().is_none() {
            // As at an open: the large reads kept, so the strings' heap is fetched once.
            self.source.opening(true);
            let index = load::read_summary(&self.file);
            self.source.opening(false);
            let index = index.map_err(|e| messages::profile(&self.name, &e))?;
            let _ = loaded.index.set(index);
        }
        Ok(loaded)
    }

    pub fn read_tree(&mut self) -> Answer {
        let name = self.name.clone();
        let loaded = self
            .profile
            .as_deref_mut()
            .ok_or_else(|| format!("{name} is not a profile."))?;
        if loaded.whole.is_none() && loaded.calls <= TREE_CALLS {
            let whole = load::read_full(&self.file).map_err(|e| messages::profile(&name, &e))?;
            loaded.whole = Some(whole);
        }
        Ok(json!({ "tree": loaded.tree_state() }))
    }

    /// The profile a request's rows come from: the whole read when asked for (`tree`,
    /// the default) and loaded, else the index.
    fn profile_for(&self, req: &Json) -> Result<(&Profile, RowsFrom), String> {
        let loaded = self.loaded()?;
        let tree = req["tree"].as_bool().unwrap_or(true);
        match (&loaded.whole, loaded.index.get()) {
            (Some(whole), _) if tree => Ok((whole, RowsFrom::Tree)),
            (_, Some(index)) => Ok((index, RowsFrom::Index)),
            (Some(whole), None) => Ok((whole, RowsFrom::Tree)),
            (None, None) => Err(format!("{} has no rows to show.", self.name)),
        }
    }

    /// The rows of a request, as `sp inspect` computes them for the same options (with
    /// `--flat` for index rows); `sort` and `mode` override the request's.
    fn rows(
        &self,
        req: &Json,
        sort: Option<SortKey>,
        mode: Option<PercentageMode>,
    ) -> Result<(Vec<RegionRow>, Options, RowsFrom, &Profile), String> {
        let mut opts = Options::from_request(req)?;
        opts.sort = sort.unwrap_or(opts.sort);
        opts.mode = mode.unwrap_or(opts.mode);
        let (profile, source) = self.profile_for(req)?;
        let rows = region_rows(
            profile,
            &opts.selection,
            opts.rows(source == RowsFrom::Index),
        );
        Ok((rows, opts, source, profile))
    }

    pub fn table(&self, req: &Json) -> Answer {
        let (rows, opts, source, _) = self.rows(req, None, None)?;
        Ok(json!({
            "source": source.name(),
            "rows": rows_json(&rows, opts.mode),
        }))
    }

    /// The rows as `sp inspect --format csv` writes them for the same options (`--flat`
    /// for index rows, whose percentiles it leaves empty), through the library's report
    /// writer.
    pub fn csv(&self, req: &Json) -> Answer {
        let (rows, opts, source, profile) = self.rows(req, None, None)?;
        let flat = source == RowsFrom::Index;
        let mut report = ReportWriter::new(Vec::new(), report::Format::Csv, opts.report(flat));
        let size = self.source.len();
        report
            .file(&FileReport {
                name: &self.name,
                size,
                profile,
                rows: &rows,
                rows_from_calls: profile.has_events(),
            })
            .and_then(|()| report.finish())
            .map_err(|e| format!("Writing the CSV of {} failed: {e}.", self.name))
            .and_then(|bytes| {
                String::from_utf8(bytes).map_err(|_| "The CSV is not UTF-8.".to_string())
            })
            .map(|csv| json!({ "csv": csv, "source": source.name() }))
    }

    /// The report rows (start order, own times filled in, as the report computes its
    /// overview from) and their load balance, for a request's options; computed once.
    fn report(&self, req: &Json) -> Result<(Rc<Report>, RowsFrom, &Profile), String> {
        let (profile, source) = self.profile_for(req)?;
        let key = json!([req["include"], req["exclude"], req["ranks"], source.name()]).to_string();
        if let Some((k, report)) = &*self.report.borrow() {
            if *k == key {
                return Ok((report.clone(), source, profile));
            }
        }
        let (rows, opts, _, _) =
            self.rows(req, Some(SortKey::Start), Some(PercentageMode::Exclusive))?;
        let balance = rank_balance(profile, &rows, opts.ranks());
        let report = Rc::new(Report { rows, balance });
        *self.report.borrow_mut() = Some((key, report.clone()));
        Ok((report, source, profile))
    }

    pub fn overview(&self, req: &Json) -> Answer {
        let (report, source, profile) = self.report(req)?;
        let mut answer = overview_json(&overview(profile, &report.rows, report.balance.as_ref()));
        answer["source"] = json!(source.name());
        Ok(answer)
    }

    pub fn balance(&self, req: &Json, bin: &mut Vec<u8>) -> Answer {
        let (report, source, _) = self.report(req)?;
        let Some(balance) = &report.balance else {
            bin.clear();
            return Ok(json!({ "source": source.name(), "balance": null }));
        };
        Ok(json!({ "source": source.name(), "balance": balance_json(balance, bin) }))
    }

    /// One heatmap cell in words: `{rank, region, value_text, change_text, …}`.
    pub fn cell(&self, req: &Json) -> Answer {
        let (report, _, _) = self.report(req)?;
        let balance = report
            .balance
            .as_ref()
            .ok_or("There is no load balance for these ranks.")?;
        let rank = req["rank"]
            .as_u64()
            .and_then(|r| u32::try_from(r).ok())
            .ok_or("That rank is not selected.")?;
        cell_json(balance, rank, req["region"].as_str())
    }

    /// A region's detail (`sp tui`'s): its flat row on each rank, as `sp inspect --flat
    /// --ranks R` computes it, the ranks with the most time first and at most
    /// [`DETAIL_RANKS`] of them, its GPU time and where it is in the source.
    pub fn detail(&self, req: &Json) -> Answer {
        let (profile, _) = self.profile_for(&json!({ "tree": false }))?;
        let name = req["region"].as_str().ok_or("Which region?")?;
        let region = (profile.region(name)).ok_or_else(|| format!("{name:?} has no rows."))?;
        let mut rows = rank_rows(profile, region);
        rows.sort_stable_by(|a, b| {
            b.1.total
                .unwrap_or(0.0)
                .total_cmp(&a.1.total.unwrap_or(0.0))
        });
        let plural = if rows.len() == 1 { "" } else { "s" };
        let mut facts = vec![format!("{} rank{plural}", rows.len())];
        let source = (region.ranks.iter())
            .find_map(|r| Some(format!("{}:{}", r.source_file.as_ref()?, r.source_line?)));
        facts.extend(source);
        let gpu = (rows.iter().filter_map(|r| r.1.gpu_total)).reduce(|a, b| a + b);
        facts.extend(gpu.map(|g| format!("GPU {}", duration_text(Some(g)))));
        let fail = |e: sp::schema::Error| messages::profile(&self.name, &e.into());
        if self.tags.borrow().is_none() {
            *self.tags.borrow_mut() = Some(RegionTags::read(&self.file).map_err(fail)?);
        }
        let tags = (self.tags.borrow().as_ref())
            .map_or(Ok(Vec::new()), |t| t.of(name).map(<[String]>::to_vec))
            .map_err(fail)?;
        if !tags.is_empty() {
            facts.push(format!("tags {}", tags.join(", ")));
        }
        if rows.len() > DETAIL_RANKS {
            facts.push(format!("the {DETAIL_RANKS} with the most time"));
        }
        let mut cells = Vec::new();
        for (rank, r) in rows.iter().take(DETAIL_RANKS) {
            cells.push(rank.to_string());
            cells.push(count_text(r.calls));
            cells.extend([r.total, r.avg, r.min, r.max].map(duration_text));
        }
        Ok(json!({ "name": name, "facts": facts, "cells": cells }))
    }

    /// A region's call durations on every rank, counted in [`DETAIL_BINS`] equal bins by
    /// the library's histogram (`sp plot histogram`'s), read from its events: the detail's
    /// histogram.
    pub fn histogram(&self, req: &Json) -> Answer {
        let profile = self.head()?;
        let name = req["region"].as_str().ok_or("Which region?")?;
        let region = (profile.region(name)).ok_or_else(|| format!("{name:?} has no rows."))?;
        let fail = |e: sp::analysis::Error| messages::profile(&self.name, &e);
        let reader = EventReader::open(&self.file).map_err(|e| fail(e.into()))?;
        let source = events::source(reader.as_ref());
        let rows: Vec<_> = region.ranks.iter().collect();
        let range = duration_range(source, &rows).map_err(fail)?;
        let range = range.ok_or_else(|| format!("{name} has no calls."))?;
        let edges = bin_edges(range, DETAIL_BINS);
        let counts = bin_counts(source, &rows, &edges).map_err(fail)?;
        let text = |s: f64| duration_text(Some(s));
        Ok(json!({ "region": name, "counts": counts, "low": text(range.0), "high": text(range.1) }))
    }

    /// The chart `sp plot KIND FILE -o OUT.svg` draws, the same bytes, for one profile's kind
    /// (`kind`), `theme` and the filters' regions and ranks: the Charts view's.
    pub fn chart(&self, req: &Json) -> Answer {
        let kind = (req["kind"].as_str().and_then(plot::Kind::parse))
            .filter(|k| !k.is_scaling())
            .ok_or("There is no such chart of one profile.")?;
        let profile = self.head()?;
        let opts = Options::from_request(req)?;
        let fail = |e: sp::analysis::Error| messages::profile(&self.name, &e);
        let reader = EventReader::open(&self.file).map_err(|e| fail(e.into()))?;
        let stem = stem(&self.name);
        let input = Input {
            profile,
            source: events::source(reader.as_ref()),
            label: metadata::label(profile).unwrap_or_else(|| stem.to_string()),
            file: self.name.clone(),
        };
        let theme = Theme::ALL.iter().find(|(_, n)| req["theme"] == *n);
        let plot_opts = PlotOptions {
            selection: opts.selection,
            theme: theme.map_or(Theme::Light, |t| t.0),
            ..PlotOptions::default()
        };
        let svg = plot::render(kind, &[input], &plot_opts, "chart.svg").map_err(fail)?;
        let svg = String::from_utf8(svg).map_err(|_| "The chart is not UTF-8.")?;
        Ok(json!({ "name": format!("{}.svg", kind.file_stem()), "svg": svg }))
    }

    /// The selected ranks (every rank when none are) as `sp export FORMAT --ranks …`
    /// writes them, handed to `emit` in parts.
    pub fn export(&self, req: &Json, emit: &mut dyn FnMut(&[u8])) -> Answer {
        self.loaded()?;
        let (format, suffix) = match req["format"].as_str() {
            Some("chrome-trace") => (Format::ChromeTrace, "trace.json"),
            Some("speedscope") => (Format::Speedscope, "speedscope.json"),
            Some("json") => (Format::Json, "json"),
            other => {
                return Err(format!(
                    "There is no export format {:?}: the page writes chrome-trace, speedscope \
                     and json.",
                    other.unwrap_or_default()
                ))
            }
        };
        let opts = Options::from_request(req)?;
        let selection = Selection::ranks(opts.ranks().map(<[u32]>::to_vec));
        let stem = stem(&self.name);
        let fail = |e: sp::analysis::Error| messages::profile(&self.name, &e);
        let exporter = Exporter::open(&self.file, stem).map_err(fail)?;
        let mut parts = Parts::new(emit);
        exporter
            .write(format, &selection, &mut parts)
            .map_err(fail)?;
        Ok(json!({ "name": format!("{stem}.{suffix}"), "bytes": parts.finish() }))
    }

    /// The timeline's rectangles for a view (`ranks`, `t0`, `t1`, `width`, `first`,
    /// `count`), into `bin`; see [`Timeline::view`]. The ranks are the request's `ranks`
    /// spec, else every rank, in numeric order.
    pub fn timeline(&mut self, req: &Json, bin: &mut Vec<u8>) -> Answer {
        let spec = req["ranks"].as_str().unwrap_or("").trim().to_string();
        self.loaded()?;
        let name = &self.name;
        let loaded = self
            .profile
            .as_deref()
            .ok_or_else(|| format!("{name} is not a profile."))?;
        let profile = loaded.head().ok_or("The profile has no rows.")?;
        if self.timeline.as_ref().is_none_or(|(s, _)| *s != spec) {
            let opts = Options::from_request(req)?;
            let mut ranks: Vec<u32> = match opts.ranks() {
                Some(r) => r.to_vec(),
                None => profile
                    .regions
                    .iter()
                    .flat_map(|r| r.ranks.iter().map(|x| x.rank))
                    .collect(),
            };
            ranks.sort_ord_unstable();
            ranks.dedup();
            self.timeline = Some((spec, Timeline::new(ranks)));
        }
        let fail = |e: sp::analysis::Error| messages::profile(name, &e);
        let reader = EventReader::open(&self.file).map_err(|e| fail(e.into()))?;
        let source = events::source(reader.as_ref());
        let (_, timeline) = self.timeline.as_mut().ok_or("No timeline is open.")?;
        // A view reads runs of calls of every row in view: in large blocks.
        self.source.bulk(true);
        let answer = timeline.view(profile, source, &View::from_request(req), bin);
        self.source.bulk(false);
        let mut answer = answer?;
        answer["regions"] = json!(profile
            .regions
            .iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>());
        Ok(answer)
    }

    /// What the timeline draws at time `t` of lane `lane`; see [`Timeline::at`].
    pub fn timeline_at(&self, req: &Json) -> Answer {
        let (_, timeline) = self.timeline.as_ref().ok_or("No timeline is open.")?;
        let regions = self.loaded()?.head().map_or(&[][..], |p| &p.regions[..]);
        let call = timeline.at(req, regions);
        Ok(json!({ "call": call }))
    }

    /// One region's percentiles, read from its events; with `sparkline: true`, its
    /// sparkline too, from the same read when the percentiles are not kept yet.
    pub fn percentiles(&self, req: &Json) -> Answer {
        let opts = Options::from_request(req)?;
        let ranks = opts.ranks();
        let name = req["region"].as_str().unwrap_or_default();
        let key = (name.to_string(), ranks.map(<[u32]>::to_vec));
        let wanted = req["sparkline"].as_bool() == Some(true);
        let kept = self.percentiles.borrow().contains_key(&key);
        let mut line = None;
        let head = self.head()?;
        // The run's window (a walk of every row) only when the sparkline is read here.
        let both = (wanted && !kept).then(|| head.region(name).zip(sparkline::window(head, ranks)));
        if let Some(Some((region, window))) = both {
            // One read of the region's calls for both.
            let fail = |e: sp::analysis::Error| messages::profile(&self.name, &e);
            let reader = EventReader::open(&self.file).map_err(|e| fail(e.into()))?;
            let (p, l) =
                region_percentiles_and_sparkline(reader.as_ref(), region, ranks, window, COLUMNS)
                    .map_err(fail)?;
            self.percentiles.borrow_mut().insert(key, p);
            line = Some(sparkline_json(name, &l));
        }
        let (p, calls) = self.region_percentiles(name, ranks)?;
        let mut answer = percentiles_json(&p);
        answer["region"] = json!(name);
        answer["calls"] = json!(calls);
        if wanted {
            answer["sparkline"] = match line {
                Some(line) => line,
                None => self
                    .sparkline_lines(&[name], ranks)?
                    .pop()
                    .unwrap_or(Json::Null),
            };
        }
        Ok(answer)
    }

    /// Sparklines of the regions `req["regions"]` names on the request's ranks, each over
    /// the same window (the run's on those ranks): from the calls of the whole profile
    /// once read, else read from the region's events. The page asks for every row at
    /// once when the calls are loaded; index rows get theirs with their percentiles.
    pub fn sparklines(&self, req: &Json) -> Answer {
        let opts = Options::from_request(req)?;
        let names: Vec<&str> = (req["regions"].as_array().map_or(&[][..], Vec::as_slice))
            .iter()
            .filter_map(Json::as_str)
            .collect();
        Ok(json!({ "lines": self.sparkline_lines(&names, opts.ranks())? }))
    }

    /// The sparklines of regions `names` on `ranks`, as JSON (see [`sparkline_json`]).
    fn sparkline_lines(&self, names: &[&str], ranks: Option<&[u32]>) -> Result<Vec<Json>, String> {
        let head = self.head()?;
        let Some(window) = sparkline::window(head, ranks) else {
            return Ok(Vec::new());
        };
        let fail = |e: sp::analysis::Error| messages::profile(&self.name, &e);
        let mut reader = None;
        let mut lines = Vec::with_capacity(names.len().min(head.regions.len()));
        for &name in names {
            let line = match self.whole().and_then(|w| w.region(name)) {
                Some(region) => sparkline::region_sparkline::<Source>(
                    None, region, ranks, window, COLUMNS, None,
                ),
                None => {
                    let Some(region) = head.region(name) else {
                        continue;
                    };
                    if reader.is_none() {
                        reader = Some(EventReader::open(&self.file).map_err(|e| fail(e.into()))?);
                    }
                    let events = reader.as_ref().and_then(Option::as_ref);
                    sparkline::region_sparkline(events, region, ranks, window, COLUMNS, None)
                }
            }
            .map_err(fail)?;
            lines.push(sparkline_json(name, &line));
        }
        Ok(lines)
    }

    /// The percentiles of region `name`'s calls on `ranks` (all when `None`), read from
    /// its events once and kept, and the number of calls they pool: what the region
    /// table's index rows and a comparison's percentile metrics show.
    pub fn region_percentiles(
        &self,
        name: &str,
        ranks: Option<&[u32]>,
    ) -> Result<(Percentiles, u64), String> {
        let region = self
            .head()?
            .region(name)
            .ok_or_else(|| format!("{} has no region {name:?}.", self.name))?;
        let calls = calls_to_read(region, ranks);
        let key = (name.to_string(), ranks.map(<[u32]>::to_vec));
        if let Some(p) = self.percentiles.borrow().get(&key) {
            return Ok((*p, calls));
        }
        let fail = |e: sp::analysis::Error| messages::profile(&self.name, &e);
        let reader = EventReader::open(&self.file).map_err(|e| fail(e.into()))?;
        let p = region_percentiles(reader.as_ref(), region, ranks).map_err(fail)?;
        self.percentiles.borrow_mut().insert(key, p);
        Ok((p, calls))
    }

    /// The profile's index, else its whole read: one flat row per region.
    pub fn head(&self) -> Result<&Profile, String> {
        self.loaded()?
            .head()
            .ok_or_else(|| format!("{} has no rows to show.", self.name))
    }

    /// The whole profile, once read (small profiles, or after `tree`).
    pub fn whole(&self) -> Option<&Profile> {
        self.profile.as_deref().and_then(|p| p.whole.as_ref())
    }

    /// The file's name, as it was dropped.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A region's sparkline for the page: its columns (mean seconds per call, null where no
/// call starts), their heights as drawn ([`Sparkline::heights`]) and the lowest and
/// highest as text.
fn sparkline_json(name: &str, line: &Sparkline) -> Json {
    let shown = || line.columns.iter().flatten().copied();
    json!({
        "region": name,
        "columns": line.columns,
        "heights": line.heights(),
        "t": {
            "min": duration_text(shown().reduce(f64::min)),
            "max": duration_text(shown().reduce(f64::max)),
        },
    })
}

/// A file name without its extension, as `sp export` labels a run from its path's stem.
fn stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    }
}
