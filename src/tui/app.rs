//! The state of `sp tui`: the open files, the view shown, the region table's options and
//! cursor, the prompt being typed, and the report computed for the options (recomputed by
//! the library when they change, never in a view).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use sp::analysis::quantiles::Percentiles;
use sp::analysis::RegionRow;

use super::data::Doc;
use super::jobs::{Done, Jobs, Kind, Stop};
use super::report::{Options, Report};
use super::style::Look;
use super::views::regions::SPARK_CELLS;

/// The views, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Overview,
    Regions,
    Detail,
    Ranks,
    Timeline,
    Metadata,
    Hdf5,
    Compare,
}

impl View {
    /// Every view with its tab title.
    pub const ALL: [(View, &'static str); 8] = [
        (View::Overview, "Overview"),
        (View::Regions, "Regions"),
        (View::Detail, "Detail"),
        (View::Ranks, "Ranks"),
        (View::Timeline, "Timeline"),
        (View::Metadata, "Metadata"),
        (View::Hdf5, "HDF5"),
        (View::Compare, "Compare"),
    ];

    pub fn title(self) -> &'static str {
        View::ALL.iter().find(|v| v.0 == self).map_or("", |v| v.1)
    }
}

/// What a prompt being typed will set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prompt {
    /// `/`: show only rows whose name contains the text.
    Filter,
    /// `i`: include regexes (space separated).
    Include,
    /// `x`: exclude regexes.
    Exclude,
    /// `r`: ranks (`0-3 7`).
    Ranks,
}

impl Prompt {
    pub fn label(self) -> &'static str {
        match self {
            Prompt::Filter => "filter",
            Prompt::Include => "include regexes",
            Prompt::Exclude => "exclude regexes",
            Prompt::Ranks => "ranks",
        }
    }
}

/// One line of the region table: a row, or the `(own)` line under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    Row(usize),
    Own(usize),
}

/// A scrolling list's cursor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pub at: usize,
    pub top: usize,
}

impl Cursor {
    /// Moves by `by` within `len` lines.
    pub fn step(&mut self, by: isize, len: usize) {
        let last = len.saturating_sub(1) as isize;
        self.at = (self.at as isize + by).clamp(0, last.max(0)) as usize;
    }

    /// Keeps the cursor on one of `height` visible lines; the first visible line.
    pub fn scroll(&mut self, height: usize) -> usize {
        let height = height.max(1);
        if self.at < self.top {
            self.top = self.at;
        } else if self.at >= self.top + height {
            self.top = self.at + 1 - height;
        }
        self.top
    }
}

/// A region's percentiles on some ranks: being read, read, or why they could not be.
#[derive(Debug, Clone, PartialEq)]
pub enum Pct {
    Computing,
    Done(Percentiles),
    Failed(String),
}

/// What is being done for a call tree while the index's rows are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeWork {
    /// The profile's calls are being read.
    Reading,
    /// The tree is being built from them, this percentage done.
    Building(u64),
}

/// The index rows a report may compute on the UI thread when the options change, in the
/// units of [`Report::work`] (a call's 16 bytes per index row walked, twice): about 65,000
/// index rows, some 15 ms here (W6's million take 0.19–0.21 s). Above it the rows are
/// recomputed on a job while the views keep the old ones; below it a job would cost more
/// than it saves, and the golden profiles' snapshots stay as they are.
pub const SYNC_WORK: u64 = 2 * 16 * (1 << 16);

/// The timeline's window, seconds from the first call (`None`: fit).
pub type Window = Option<(f64, f64)>;

/// A region's name and the ranks its percentiles pool (`None`: every rank).
pub type PctKey = (String, Option<Vec<u32>>);

/// The whole state.
pub struct App {
    pub docs: Vec<Doc>,
    pub look: Look,
    pub view: View,
    pub help: bool,
    pub quit: bool,
    pub options: Options,
    /// The report of the first file for [`options`](Self::options), or why there is none.
    pub report: Result<Report, String>,
    /// The second file's report, for Compare.
    pub other: Option<Result<Report, String>>,
    /// Call paths whose children are hidden.
    pub collapsed: HashSet<Vec<String>>,
    /// The `/` filter.
    pub filter: String,
    /// The prompt being typed, and its text.
    pub prompt: Option<(Prompt, String)>,
    /// A cursor per view.
    pub cursors: HashMap<&'static str, Cursor>,
    /// Percentiles read on demand, by region and ranks.
    pub percentiles: HashMap<PctKey, Pct>,
    pub jobs: Jobs,
    /// Frames drawn (the spinner's phase).
    pub tick: usize,
    /// A message for the status line.
    pub message: Option<String>,
    /// The region Detail shows.
    pub detail: Option<String>,
    /// Its tags, from `region_tags`.
    pub detail_tags: Vec<String>,
    /// Every region's tags, read from the file when Detail first shows a region.
    region_tags: Option<sp::schema::RegionTags>,
    /// Each region's sparkline (block characters) on the selected ranks, once the first
    /// file's calls are in memory.
    pub sparklines: HashMap<String, String>,
    /// The rank selection the sparklines were drawn for (`None`: not drawn yet): a sort or
    /// mode change leaves them as they are.
    sparklines_ranks: Option<String>,
    /// Lines of the last view drawn, for paging and scrolling.
    pub height: std::cell::Cell<usize>,
    /// The HDF5 listing, read on first view.
    pub hdf5_lines: std::cell::OnceCell<Vec<String>>,
    /// Compare's metric, threshold and order.
    pub diff: sp::analysis::compare::DiffOptions,
    /// The timeline's window, in seconds from the time origin (`None`: fit).
    pub window: Option<(f64, f64)>,
    /// The timeline's ranks, summarised as they come into view.
    pub lanes: std::cell::RefCell<HashMap<u32, super::lanes::RankLanes>>,
    /// The span of the profile's calls (ns), found when the timeline is first drawn.
    pub timeline_span: std::cell::OnceCell<Result<Option<(i64, i64)>, String>>,
    /// The first rank the heatmap shows.
    pub rank_offset: usize,
    /// Ranks: the region whose ranks are listed by value (Enter on a region of many ranks).
    pub rank_drill: Option<(String, Vec<sp::analysis::rank_distribution::RankValue>)>,
    /// Every rank with rows, ascending, found once per report (a sort of 1,000,000 rows'
    /// ranks at 100,000 ranks, which each timeline frame asked for twice).
    pub ranks_with_rows: std::cell::OnceCell<Vec<u32>>,
    /// The timeline's ranks on screen without a summary of the view drawn, and that view:
    /// a job summarises them after the frame ([`App::start_wanted`]).
    pub wanted: std::cell::RefCell<(Vec<u32>, Option<sp::analysis::timeline::View>)>,
    /// Esc stopped the timeline's reads: none start until a key of the timeline.
    pub stopped: bool,
    /// The window of the last timeline job that finished, which Esc goes back to.
    pub shown_window: Option<Window>,
    /// The view shown before the timeline, which Esc goes back to when the timeline has
    /// never been drawn whole.
    pub came_from: View,
    /// Recomputes and stops so far: a report built for older options, or stopped, is
    /// dropped when it lands (a change of the sort alone is no recompute:
    /// [`resort`](App::resort)).
    pub generation: u64,
    /// The most work ([`Report::work`]) the index's rows may take on the UI thread when
    /// the options change ([`SYNC_WORK`]; the tests lower it).
    pub sync_work: u64,
}

impl App {
    /// The app over the opened files; the whole read of a small profile starts at once.
    pub fn new(docs: Vec<Doc>, look: Look) -> App {
        let view = if docs[0].head.is_some() {
            View::Overview
        } else {
            View::Hdf5
        };
        let mut app = App {
            docs,
            look,
            view,
            help: false,
            quit: false,
            options: Options::default(),
            report: Err(String::new()),
            other: None,
            collapsed: HashSet::new(),
            filter: String::new(),
            prompt: None,
            cursors: HashMap::new(),
            percentiles: HashMap::new(),
            jobs: Jobs::default(),
            tick: 0,
            message: None,
            detail: None,
            detail_tags: Vec::new(),
            region_tags: None,
            sparklines: HashMap::new(),
            sparklines_ranks: None,
            height: std::cell::Cell::new(20),
            hdf5_lines: std::cell::OnceCell::new(),
            diff: Default::default(),
            window: None,
            lanes: Default::default(),
            timeline_span: Default::default(),
            rank_offset: 0,
            rank_drill: None,
            ranks_with_rows: Default::default(),
            wanted: Default::default(),
            stopped: false,
            shown_window: None,
            came_from: view,
            generation: 0,
            sync_work: SYNC_WORK,
        };
        for i in 0..app.docs.len() {
            if let Some(file) = app.docs[i]
                .file
                .clone()
                .filter(|_| app.docs[i].wants_tree())
            {
                app.jobs.read_whole(i, file);
            }
        }
        app.recompute();
        app
    }

    /// Shows region `name` in Detail with its tags (which the index leaves out), reading
    /// every region's tags the first time.
    pub fn show_detail(&mut self, name: String) {
        let doc = &self.docs[0];
        if let (None, Some(file)) = (&self.region_tags, doc.file.as_deref()) {
            match sp::schema::RegionTags::read(file) {
                Ok(tags) => self.region_tags = Some(tags),
                Err(e) => self.message = Some(format!("{}: tags not read: {e}", doc.name)),
            }
        }
        self.detail_tags = match self.region_tags.as_ref().map(|t| t.of(&name)) {
            Some(Ok(tags)) => tags.to_vec(),
            Some(Err(e)) => {
                self.message = Some(format!("{}: tags not read: {e}", doc.name));
                Vec::new()
            }
            None => Vec::new(),
        };
        self.detail = Some(name);
        self.view = View::Detail;
    }

    /// The views this run has (Compare with two files, the profile views for a profile).
    pub fn views(&self) -> Vec<View> {
        let profile = self.docs[0].head.is_some();
        View::ALL
            .iter()
            .map(|v| v.0)
            .filter(|v| match v {
                View::Hdf5 => self.docs[0].file.is_some(),
                View::Compare => profile && self.docs.len() > 1,
                View::Detail => profile && self.detail.is_some(),
                _ => profile,
            })
            .collect()
    }

    /// Recomputes the reports for the options: the index's rows at once, and the call
    /// tree of a profile whose calls are loaded on a job (a report still being built for
    /// other options is stopped). When the index's rows are more work than
    /// [`sync_work`](Self::sync_work) (100,000 ranks' million rows) and rows are shown, the
    /// views keep those, for the old options, until the job computing the new ones lands:
    /// the call tree's when the calls are loaded, else the index's rows'.
    pub fn recompute(&mut self) {
        self.generation += 1;
        (self.jobs).cancel_where(|k| matches!(k, Kind::Report { .. } | Kind::Rows { .. }));
        if let Some(r) = self.report_of(0) {
            self.report = r;
        }
        if self.docs.len() > 1 {
            if let Some(r) = self.report_of(1) {
                self.other = Some(r);
            }
        }
        self.rank_drill = None;
        self.ranks_with_rows = Default::default();
        self.draw_sparklines();
    }

    /// Draws the sparklines again when the rank selection of the rows shown has changed.
    fn draw_sparklines(&mut self) {
        let Ok(report) = &self.report else { return };
        let ranks = report.options.ranks.clone();
        let drawn = self.docs[0].whole.as_ref().map(|_| ranks);
        if drawn.is_some() && drawn != self.sparklines_ranks {
            self.sparklines = self.sparklines_of();
            self.sparklines_ranks = drawn;
        }
    }

    /// Shows the reports' rows in the order of `options.sort`, sorted again where they are:
    /// a sort changes no row, so it starts no job and walks no call (a call tree still
    /// being built is sorted when it lands).
    pub fn resort(&mut self) {
        let key = self.options.sort;
        if let Ok(r) = &mut self.report {
            r.sort(key);
        }
        if let Some(Ok(r)) = &mut self.other {
            r.sort(key);
        }
    }

    /// Every region's sparkline over the ranks of the rows shown, from the first file's
    /// calls in memory (none before they are): one pass over them, as the page draws its
    /// own.
    fn sparklines_of(&self) -> HashMap<String, String> {
        use sp::analysis::sparkline::{region_sparkline, window};
        let Ok(report) = &self.report else {
            return HashMap::new();
        };
        let (Some(whole), Ok(ranks)) = (&self.docs[0].whole, report.options.rank_list()) else {
            return HashMap::new();
        };
        let ranks = ranks.as_deref();
        let Some(span) = window(whole, ranks) else {
            return HashMap::new();
        };
        let reader: Option<&sp::schema::EventReader<'_, sp::io::file::LocalFile>> = None;
        (whole.regions.iter())
            .filter_map(|r| {
                let line = region_sparkline(reader, r, ranks, span, SPARK_CELLS, None).ok()?;
                Some((r.name.clone(), line.blocks()))
            })
            .collect()
    }

    /// The report of file `doc` from its index, starting the job that builds its call
    /// tree when its calls are loaded; `None` when the rows shown stay until a job lands
    /// (see [`recompute`](Self::recompute)).
    fn report_of(&mut self, doc: usize) -> Option<Result<Report, String>> {
        let d = &self.docs[doc];
        let Some(head) = d.head.clone() else {
            return Some(Err(format!("{} is not a profile", d.name)));
        };
        let shown = match doc {
            0 => self.report.is_ok(),
            _ => matches!(self.other, Some(Ok(_))),
        };
        let name = |what: &str| match doc {
            0 => what.to_string(),
            _ => format!("{what} of {}", d.name),
        };
        let options = self.options.clone();
        let large = Report::work(&head, false, &options) > self.sync_work;
        let index = match (shown && large, &d.whole) {
            (true, Some(_)) => None,
            (true, None) => {
                let what = name("recomputing for the new options");
                (self.jobs).report(doc, self.generation, (head, false), options.clone(), what);
                None
            }
            (false, _) => Some(Report::of(&head, false, &options)),
        };
        if let (Some(whole), None | Some(Ok(_))) = (&d.whole, &index) {
            let what = name("building the call tree");
            (self.jobs).report(doc, self.generation, (whole.clone(), true), options, what);
        }
        index
    }

    /// How far the job computing the rows of file `doc` for the options has got, while
    /// the rows shown are for other ones (else `None`).
    pub fn recomputing(&self, doc: usize) -> Option<u64> {
        let report = match doc {
            0 => self.report.as_ref().ok(),
            _ => self.other.as_ref().and_then(|r| r.as_ref().ok()),
        }?;
        if report.options.same_rows(&self.options) {
            return None;
        }
        (self.jobs.tasks.iter())
            .filter(|t| !t.progress.is_cancelled())
            .find(|t| matches!(t.kind, Kind::Report { doc: d } | Kind::Rows { doc: d } if d == doc))
            .map(|t| percent(t.progress.done(), t.progress.total()))
    }

    /// What is being done for file `doc`'s call tree, for the views: its read, or its
    /// build and the percentage done; `None` when nothing is.
    pub fn tree_work(&self, doc: usize) -> Option<TreeWork> {
        let running = |t: &&super::jobs::Task| !t.progress.is_cancelled();
        (self.jobs.tasks.iter().filter(running)).find_map(|t| match t.kind {
            Kind::Whole { doc: d } if d == doc => Some(TreeWork::Reading),
            Kind::Report { doc: d } if d == doc => Some(TreeWork::Building(percent(
                t.progress.done(),
                t.progress.total(),
            ))),
            _ => None,
        })
    }

    /// Takes the results of finished jobs.
    pub fn collect(&mut self) {
        let mut changed = false;
        let before: Vec<(u64, Option<Window>)> = (self.jobs.tasks.iter())
            .map(|t| match &t.kind {
                Kind::Timeline { window, .. } if !t.progress.is_cancelled() => {
                    (t.id, Some(*window))
                }
                _ => (t.id, None),
            })
            .collect();
        for done in self.jobs.collect() {
            if let Done::End { id } = &done {
                // A timeline job that ran to its end: its window is one to go back to.
                if let Some((_, Some(w))) = before.iter().find(|b| b.0 == *id) {
                    self.shown_window = Some(*w);
                }
            }
            match done {
                Done::Whole { doc, profile } => match profile {
                    Ok(p) => {
                        self.docs[doc].whole = Some(Arc::new(p));
                        changed = true;
                    }
                    Err(e) => {
                        self.message =
                            Some(format!("{}: call tree not read: {e}", self.docs[doc].name))
                    }
                },
                // A tree for older options, or stopped: the index's rows stay.
                Done::Report { generation, .. } if generation != self.generation => {}
                Done::Report { doc, report, .. } => {
                    let report = match report {
                        // Built before a change of the sort, maybe.
                        Ok(mut r) => {
                            r.sort(self.options.sort);
                            Ok(*r)
                        }
                        Err(Stop::Cancelled) => continue,
                        Err(Stop::Failed(e)) => Err(e),
                    };
                    match doc {
                        0 => self.report = report,
                        _ => self.other = Some(report),
                    }
                    self.rank_drill = None;
                    self.ranks_with_rows = Default::default();
                    self.draw_sparklines();
                }
                Done::Percentiles {
                    name,
                    ranks,
                    result,
                } => {
                    let state = match result {
                        Ok(p) => Pct::Done(p),
                        Err(Stop::Failed(e)) => Pct::Failed(e),
                        // Not read: `p` asks again.
                        Err(Stop::Cancelled) => {
                            self.percentiles.remove(&(name, ranks));
                            continue;
                        }
                    };
                    self.percentiles.insert((name, ranks), state);
                }
                Done::Lanes {
                    index,
                    view,
                    summary,
                } => {
                    let mut lanes = self.lanes.borrow_mut();
                    // Ranks are kept once made; a missing one is not drawn.
                    let Some(l) = lanes.get_mut(&index.rank()) else {
                        continue;
                    };
                    l.index = Some(index);
                    match summary {
                        Ok(s) => l.summary = Some((view, Ok(s))),
                        Err(Stop::Failed(e)) => l.summary = Some((view, Err(e))),
                        Err(Stop::Cancelled) => {}
                    }
                }
                Done::End { .. } => {}
            }
        }
        if changed {
            self.recompute();
        }
    }

    /// The cursor of `view`.
    pub fn cursor(&self, view: &'static str) -> Cursor {
        self.cursors.get(view).copied().unwrap_or_default()
    }

    /// The lines of the region table: rows under a collapsed row are hidden, and with a
    /// filter only rows whose name contains it (any case) are shown.
    pub fn lines(&self) -> Vec<Line> {
        let Ok(report) = &self.report else {
            return Vec::new();
        };
        let parents = sp::analysis::report::parent_paths(&report.rows);
        let needle = self.filter.to_lowercase();
        let mut out = Vec::new();
        for (i, row) in report.rows.iter().enumerate() {
            if let Some(path) = &row.call_path {
                if (1..path.len()).any(|n| self.collapsed.contains(&path[..n])) {
                    continue;
                }
            }
            if !needle.is_empty() && !row.name.to_lowercase().contains(&needle) {
                continue;
            }
            out.push(Line::Row(i));
            let shut = row
                .call_path
                .as_ref()
                .is_some_and(|p| self.collapsed.contains(p));
            if !shut && sp::analysis::report::has_own_line(row, &parents) {
                out.push(Line::Own(i));
            }
        }
        out
    }

    /// The row under the region table's cursor.
    pub fn selected_row(&self) -> Option<&RegionRow> {
        let lines = self.lines();
        let line = lines.get(self.cursor("regions").at)?;
        let (Line::Row(i) | Line::Own(i)) = *line;
        self.report.as_ref().ok()?.rows.get(i)
    }

    /// The percentiles of region `name` on the selected ranks, if read.
    pub fn percentiles_of(&self, name: &str) -> Option<&Pct> {
        let ranks = self.options.rank_list().ok().flatten();
        self.percentiles.get(&(name.to_string(), ranks))
    }

    /// Starts reading the percentiles of region `name` (unless read or being read).
    pub fn want_percentiles(&mut self, name: &str) {
        let ranks = self.options.rank_list().ok().flatten();
        let key = (name.to_string(), ranks.clone());
        if self.percentiles.contains_key(&key) {
            return;
        }
        let doc = &self.docs[0];
        let Some(region) = doc.profile().and_then(|p| p.region(name)).cloned() else {
            return;
        };
        self.percentiles.insert(key, Pct::Computing);
        let file = doc.file.clone();
        self.jobs.percentiles(file, region, ranks);
    }

    /// The selected ranks (every rank with rows when none are), ascending.
    pub fn rank_list(&self) -> Vec<u32> {
        if let Ok(Some(r)) = self.options.rank_list() {
            return r;
        }
        let doc = &self.docs[0];
        let ranks = self.ranks_with_rows.get_or_init(|| {
            let mut ranks: Vec<u32> = doc
                .profile()
                .map(|p| {
                    p.regions
                        .iter()
                        .flat_map(|r| r.ranks.iter().map(|x| x.rank))
                        .collect()
                })
                .unwrap_or_default();
            ranks.sort_unstable();
            ranks.dedup();
            ranks
        });
        ranks.clone()
    }

    /// The span of the profile's calls (ns), for the timeline.
    pub fn timeline_span(&self) -> Result<Option<(i64, i64)>, String> {
        let doc = &self.docs[0];
        // Not kept until the profile is there.
        let Some(profile) = doc.profile() else {
            return Ok(None);
        };
        self.timeline_span
            .get_or_init(|| super::lanes::span(profile, doc.file.as_ref()))
            .clone()
    }

    /// The timeline's rank `rank` for `view`: its summary when kept, else `None`, and the
    /// rank is wanted for the job after this frame (unless a job has it).
    pub fn lanes_of(&self, rank: u32, view: sp::analysis::timeline::View) -> bool {
        let doc = &self.docs[0];
        let Some(profile) = doc.profile() else {
            return false;
        };
        let mut lanes = self.lanes.borrow_mut();
        let lanes = lanes
            .entry(rank)
            .or_insert_with(|| super::lanes::rank(profile, rank));
        if lanes.summary.as_ref().is_some_and(|(v, _)| *v == view) {
            return true;
        }
        let mut wanted = self.wanted.borrow_mut();
        if wanted.1 != Some(view) {
            *wanted = (Vec::new(), Some(view));
        }
        if lanes.index.is_some() {
            wanted.0.push(rank);
        }
        false
    }

    /// The lanes rank `rank` will have: its own once read, else the most of the ranks
    /// read; `None` before any rank is.
    pub fn lanes_guess(&self, rank: u32) -> Option<usize> {
        let lanes = self.lanes.borrow();
        let own = lanes.get(&rank).and_then(|l| l.index.as_ref());
        if let Some(index) = own.filter(|i| i.is_read()) {
            return Some(index.depths().max(1));
        }
        (lanes.values())
            .filter_map(|l| l.summary.as_ref().and_then(|(_, s)| s.as_ref().ok()))
            .map(|s| s.lanes.len().max(1))
            .max()
    }

    /// Starts the job summarising the ranks the last frame wanted, unless Esc stopped the
    /// timeline; a job of another view is cancelled first (its ranks come back, and the
    /// next frame asks again). Whether one started.
    pub fn start_wanted(&mut self) -> bool {
        let (ranks, view) = std::mem::take(&mut *self.wanted.borrow_mut());
        let Some(view) = view.filter(|_| self.view == View::Timeline && !self.stopped) else {
            return false;
        };
        let mut busy = false;
        for t in &self.jobs.tasks {
            if let Kind::Timeline { view: v, .. } = t.kind {
                if v != view {
                    t.progress.cancel();
                }
                busy = true;
            }
        }
        if busy || ranks.is_empty() {
            return false;
        }
        // Before any rank is read, how many fit the screen is not known: read the first.
        let mut ranks = ranks;
        if ranks.first().and_then(|&r| self.lanes_guess(r)).is_none() {
            ranks.truncate(1);
        }
        let doc = &self.docs[0];
        let Some(profile) = doc.profile() else {
            return false;
        };
        let mut lanes = self.lanes.borrow_mut();
        let indexes: Vec<_> = (ranks.iter())
            .filter_map(|r| lanes.get_mut(r).and_then(|l| l.index.take()))
            .collect();
        let mut sorted = ranks.clone();
        sorted.sort_unstable();
        let part = super::lanes::part(profile, &sorted);
        let what = match (sorted.first(), sorted.last()) {
            (Some(a), Some(b)) if a != b => format!("timeline of ranks {a}–{b}"),
            _ => format!("timeline of rank {}", sorted[0]),
        };
        let file = doc.file.clone();
        drop(lanes);
        (self.jobs).timeline(file, part, indexes, view, self.window, what);
        true
    }

    /// After a stop, the options of the rows shown (the sort kept), so that what the views
    /// show and the options in force agree: the first file's rows, and the second's
    /// recomputed for them when they are for others (its job had landed, or had not).
    fn keep_shown(&mut self) {
        let shown = self.report.as_ref().ok();
        if let Some(report) = shown.filter(|r| !r.options.same_rows(&self.options)) {
            let sort = self.options.sort;
            self.options = Options {
                sort,
                ..report.options.clone()
            };
            self.rank_drill = None;
        }
        let stale = |r: &Report| !r.options.same_rows(&self.options);
        if let (Some(Ok(other)), Some(head)) =
            (&self.other, self.docs.get(1).and_then(|d| d.head.clone()))
        {
            if stale(other) {
                self.other = Some(Report::of(&head, false, &self.options));
            }
        }
        self.draw_sparklines();
    }

    /// Esc while jobs read: stops them. A stopped timeline goes back to the last window it
    /// drew whole (or to the view before it), and reads nothing until a key of its own.
    pub fn stop(&mut self) -> bool {
        let timeline = (self.jobs.tasks.iter())
            .find(|t| matches!(t.kind, Kind::Timeline { .. }) && !t.progress.is_cancelled())
            .map(|t| (t.what.clone(), t.progress.done(), t.progress.total()));
        let tree = (self.jobs.tasks.iter())
            .find(|t| matches!(t.kind, Kind::Report { .. }) && !t.progress.is_cancelled())
            .map(|t| percent(t.progress.done(), t.progress.total()));
        let rows = (self.jobs.tasks.iter())
            .any(|t| matches!(t.kind, Kind::Rows { .. }) && !t.progress.is_cancelled());
        let old = self.recomputing(0);
        if !self.jobs.cancel() {
            return false;
        }
        self.message = Some("stopped".into());
        if tree.is_some() || rows {
            // A report sent just before the cancel is dropped too.
            self.generation += 1;
        }
        if let Some(at) = tree {
            self.message = Some(format!(
                "stopped the call tree at {at} %: the index's rows stay"
            ));
        }
        if let Some(at) = old {
            self.message = Some(format!(
                "stopped at {at} %: the rows shown and their options stay"
            ));
        }
        if tree.is_some() || rows {
            self.keep_shown();
        }
        if let Some((what, done, total)) = timeline {
            self.stopped = true;
            match self.shown_window {
                Some(w) => self.window = w,
                None => self.view = self.came_from,
            }
            self.message = Some(format!(
                "stopped the {what} at {} of {}",
                sp::analysis::units::bytes_text(done),
                sp::analysis::units::bytes_text(total)
            ));
        }
        true
    }
}

/// `done` of `total` in whole percent (0 of nothing).
pub fn percent(done: u64, total: u64) -> u64 {
    (u128::from(done.min(total)) * 100 / u128::from(total.max(1))) as u64
}
