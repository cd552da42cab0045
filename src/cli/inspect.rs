//! `sp inspect`: the metadata and region statistics of profiles, as `scope-profiler
//! inspect` prints them, or as JSON/CSV for scripts.
//!
//! JSON (`--format json`) is one document:
//! `{"files": [{"file", "schema", "layout", "num_ranks", "metadata": {key: value},
//! "regions": [row, …]}]}`. Each row carries `name`, `call_path` (list of names, outermost
//! first; `null` for a flat row), `depth`, `recursive`, `num_ranks`, `calls`, and the
//! statistics in seconds at full precision — `total`, `coverage`, `exclusive`, `avg`,
//! `min`, `max`, `first`, `last`, `std`, `p50`, `p95`, `p99`, `imbalance` (percent),
//! `gpu_total`, `gpu_avg`, `start`, `parent_coverage`, `percent` (of the
//! `scope_profiler.session` row) — `null` where the reference has `None`. CSV
//! (`--format csv`) has one line per row with the same keys as columns (call_path joined
//! with " > ").

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::{Args, ValueEnum};
use serde_json::{json, Map, Value as Json};
use sp::analysis::pattern::Pattern;
use sp::analysis::profile::meta_text;
use sp::analysis::{
    region_rows, EventReader, Meta, PercentageMode, Profile, Row, Selection, SortKey, Span, Stored,
};
use sp::hdf5lite::reader::File;
use sp::schema::stats::Summary;

use super::local_file::LocalFile;
use super::Failure;

/// Print the metadata and region statistics of profiles
///
/// Examples:
///   sp inspect profiling_data.h5
///   sp inspect run.h5 --ranks 0-3 --sort total --columns region calls total p95 imbalance
///   sp inspect run.h5 --flat --format json    # index-only fast path, no event columns
///   sp inspect run.h5 --flat --from-events    # the same rows, every event decoded
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct Opts {
    /// Profiles to inspect.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Only report regions whose name matches one of these regexes (anchored at the start).
    #[arg(long, num_args = 1..)]
    include: Option<Vec<String>>,
    /// Skip regions whose name matches one of these regexes.
    #[arg(long, num_args = 1..)]
    exclude: Option<Vec<String>>,
    /// Restrict statistics to these ranks, e.g. `0 2` or `0-3`.
    #[arg(long, num_args = 1..)]
    ranks: Option<Vec<String>>,
    /// Order regions by this column.
    #[arg(long, default_value = "start", value_parser = sort_names())]
    sort: String,
    /// Table columns to print (default: region percent total).
    #[arg(long, num_args = 1.., value_parser = column_names())]
    columns: Option<Vec<String>>,
    /// How % session is computed.
    #[arg(long, value_enum, default_value_t = Mode::Coverage)]
    percentage_mode: Mode,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// One flat row per region from the stored summary statistics only: reads the index,
    /// never the event columns (no nesting; percentiles need --columns p50/p95/p99, which
    /// read the events).
    #[arg(long)]
    flat: bool,
    /// With --flat: compute each row's statistics from its calls (every event decoded, in
    /// parallel over rows) instead of reading the stored summary statistics.
    #[arg(long, requires = "flat")]
    from_events: bool,
    /// Print only the metadata.
    #[arg(long, conflicts_with = "regions_only")]
    metadata_only: bool,
    /// Print only the region statistics.
    #[arg(long)]
    regions_only: bool,
    /// Print long metadata values in full.
    #[arg(long)]
    full: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    Coverage,
    Exclusive,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Table,
    Json,
    Csv,
}

const COLUMNS: [(&str, &str); 18] = [
    ("name", "region"),
    ("ranks", "ranks"),
    ("calls", "n"),
    ("total", "total [s]"),
    ("percent", "% session"),
    ("parent_percent", "% parent"),
    ("avg", "avg/call [s]"),
    ("gpu_total", "gpu total [s]"),
    ("gpu_avg", "gpu avg [s]"),
    ("min", "min [s]"),
    ("max", "max [s]"),
    ("first", "first [s]"),
    ("last", "last [s]"),
    ("std", "std [s]"),
    ("p50", "p50 [s]"),
    ("p95", "p95 [s]"),
    ("p99", "p99 [s]"),
    ("imbalance", "imbalance [%]"),
];

fn sort_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(SortKey::ALL.map(|(_, n)| n))
}

fn column_names() -> clap::builder::PossibleValuesParser {
    let mut names: Vec<&str> = vec!["region"];
    names.extend(COLUMNS[1..].iter().map(|c| c.0));
    clap::builder::PossibleValuesParser::new(names)
}

/// Parses `0 2` / `0-3` rank specs into a sorted, unique list.
pub fn parse_ranks(specs: &[String]) -> Result<Vec<u32>, Failure> {
    let mut out = Vec::new();
    for spec in specs {
        for part in spec.split(',').filter(|p| !p.is_empty()) {
            let bad = || {
                Failure::new(format!(
                    "--ranks: {part:?} is not a rank or a range like 0-3"
                ))
            };
            match part.split_once('-') {
                Some((a, b)) => {
                    let a: u32 = a.trim().parse().map_err(|_| bad())?;
                    let b: u32 = b.trim().parse().map_err(|_| bad())?;
                    if b < a || b - a > 1_000_000 {
                        return Err(bad());
                    }
                    out.extend(a..=b);
                }
                None => out.push(part.trim().parse().map_err(|_| bad())?),
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

fn compile(patterns: &Option<Vec<String>>) -> Result<Option<Vec<Pattern>>, Failure> {
    patterns
        .as_ref()
        .map(|list| {
            list.iter()
                .map(|p| Pattern::new(p).map_err(|e| Failure::new(format!("pattern {p:?}: {e}"))))
                .collect()
        })
        .transpose()
}

pub fn run(opts: Opts) -> Result<(), Failure> {
    let include = compile(&opts.include)?;
    let exclude = compile(&opts.exclude)?;
    let keep = |name: &str| {
        include
            .as_ref()
            .is_none_or(|ps| ps.iter().any(|p| p.matches(name)))
            && !exclude
                .as_ref()
                .is_some_and(|ps| ps.iter().any(|p| p.matches(name)))
    };
    let ranks = opts.ranks.as_deref().map(parse_ranks).transpose()?;
    let sel = Selection {
        keep: &keep,
        filtered: include.is_some() || exclude.is_some(),
        ranks,
    };
    let sort = SortKey::ALL
        .iter()
        .find(|(_, n)| *n == opts.sort)
        .map_or(SortKey::Start, |(k, _)| *k);
    let mode = match opts.percentage_mode {
        Mode::Coverage => PercentageMode::Coverage,
        Mode::Exclusive => PercentageMode::Exclusive,
    };
    let wants_percentiles = opts.columns.as_ref().is_some_and(|c| {
        c.iter()
            .any(|c| matches!(c.as_str(), "p50" | "p95" | "p99"))
    });
    let mut docs = Vec::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (n, path) in opts.files.iter().enumerate() {
        let source = LocalFile::open(path)
            .map_err(|e| Failure::in_file(path.display(), format!("cannot open: {e}")))?;
        let size = source_len(&source);
        let file = File::open(source).map_err(|e| {
            Failure::in_file(path.display(), format!("not a readable HDF5 file: {e}"))
        })?;
        let profile = if opts.metadata_only {
            Profile::read_metadata(&file)
        } else if opts.flat && opts.from_events && !wants_percentiles {
            read_from_events(&file)
        } else if opts.flat && !wants_percentiles {
            Profile::read_summary(&file)
        } else {
            Profile::read(&file)
        }
        .map_err(|e| Failure::in_file(path.display(), e))?;
        let rows = if opts.metadata_only {
            Vec::new()
        } else if opts.flat {
            let flat_profile = Profile {
                events: false,
                ..profile.clone()
            };
            region_rows(&flat_profile, &sel, sort, mode)
        } else {
            region_rows(&profile, &sel, sort, mode)
        };
        match opts.format {
            Format::Json => docs.push(file_json(path, &profile, &rows, &opts)),
            Format::Csv => write_csv(&mut out, path, &rows, n == 0).map_err(write_failure)?,
            Format::Table => {
                if n > 0 {
                    writeln!(out).map_err(write_failure)?;
                }
                let text = table_text(path, size, &profile, &rows, &opts, mode, terminal_width());
                out.write_all(text.as_bytes()).map_err(write_failure)?;
            }
        }
    }
    if opts.format == Format::Json {
        let doc = json!({ "files": docs });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| Failure::new(e.to_string()))?;
        writeln!(out, "{text}").map_err(write_failure)?;
    }
    out.flush().map_err(write_failure)
}

/// The profile's index with every row's statistics computed from its calls: rows are
/// summarised in parallel (largest first), each streamed in blocks by its own positional
/// reads, so memory stays bounded by a few blocks per thread.
fn read_from_events(file: &File<LocalFile>) -> sp::analysis::Result<Profile> {
    let mut profile = Profile::read_index(file)?;
    let reader = EventReader::open(file)?;
    let mut jobs: Vec<(usize, usize, Span)> = Vec::new();
    for (i, region) in profile.regions.iter_mut().enumerate() {
        for (j, row) in region.ranks.iter_mut().enumerate() {
            match row.span {
                Some(span) => jobs.push((i, j, span)),
                // Schema 1 rows come with their calls loaded.
                None if row.stored.is_none() => {
                    let mut summary = Summary::of(&row.starts, &row.ends);
                    for &g in row.gpu.iter().flatten().filter(|&&g| g >= 0) {
                        summary.gpu_count += 1;
                        summary.gpu_total = summary.gpu_total.wrapping_add(g);
                    }
                    row.stored = Some(Stored::computed(row.calls(), &summary, row.exclusive_total));
                }
                None => {}
            }
        }
    }
    let Some(reader) = reader else {
        if jobs.iter().any(|j| j.2.count > 0) {
            return Err(sp::analysis::Error::Corrupt(
                "the index points at events but the file has no /events".into(),
            ));
        }
        return Ok(profile);
    };
    jobs.sort_by_key(|j| std::cmp::Reverse(j.2.count));
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len())
        .max(1);
    let work = || -> sp::analysis::Result<Vec<(usize, Summary)>> {
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(&(_, _, span)) = jobs.get(k) else {
                return Ok(done);
            };
            done.push((k, reader.summary(span)?));
        }
    };
    let results: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..workers).map(|_| scope.spawn(work)).collect();
        let mut results = vec![work()];
        for h in handles {
            results.push(h.join().unwrap_or_else(|_| {
                Err(sp::analysis::Error::Corrupt(
                    "a worker thread panicked".into(),
                ))
            }));
        }
        results
    });
    for result in results {
        for (k, summary) in result? {
            let Some(&(i, j, span)) = jobs.get(k) else {
                continue;
            };
            if let Some(row) = profile.regions.get_mut(i).and_then(|r| r.ranks.get_mut(j)) {
                row.stored = Some(Stored::computed(span.count, &summary, row.exclusive_total));
            }
        }
    }
    Ok(profile)
}

fn source_len(f: &LocalFile) -> u64 {
    sp::io::ReadAt::len(f)
}

fn write_failure(e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        // Quiet on a closed pipe.
        std::process::exit(0);
    }
    Failure::new(format!("cannot write output: {e}"))
}

fn meta_json(v: &Meta) -> Json {
    match v {
        Meta::Int(i) => json!(i),
        Meta::Float(f) => json!(f),
        Meta::Bool(b) => json!(b),
        Meta::Str(s) => json!(s),
        Meta::List(items) => Json::Array(items.iter().map(meta_json).collect()),
    }
}

fn session_total(rows: &[Row]) -> Option<f64> {
    rows.iter()
        .find(|r| r.name == "scope_profiler.session")
        .and_then(|r| r.total)
}

fn percent_value(row: &Row, mode: PercentageMode, session: Option<f64>) -> Option<f64> {
    let value = if mode == PercentageMode::Exclusive && row.name == "scope_profiler.session" {
        row.total
    } else if mode == PercentageMode::Exclusive {
        row.exclusive
    } else {
        row.coverage
    };
    let d = session.filter(|&d| d > 0.0)?;
    Some(100.0 * value? / d)
}

fn row_json(row: &Row, mode: PercentageMode, session: Option<f64>) -> Json {
    let f = |v: Option<f64>| v.filter(|x| x.is_finite()).map_or(Json::Null, |x| json!(x));
    json!({
        "name": row.name,
        "call_path": row.call_path,
        "depth": row.depth,
        "recursive": row.recursive,
        "num_ranks": row.num_ranks,
        "calls": row.calls,
        "total": f(row.total),
        "coverage": f(row.coverage),
        "exclusive": f(row.exclusive),
        "avg": f(row.avg),
        "min": f(row.min),
        "max": f(row.max),
        "first": f(row.first),
        "last": f(row.last),
        "std": f(row.std),
        "p50": f(row.p50),
        "p95": f(row.p95),
        "p99": f(row.p99),
        "imbalance": f(row.imbalance),
        "gpu_total": f(row.gpu_total),
        "gpu_avg": f(row.gpu_avg),
        "start": f(Some(row.start)),
        "parent_coverage": f(row.parent_coverage),
        "percent": f(percent_value(row, mode, session)),
    })
}

fn file_json(path: &Path, profile: &Profile, rows: &[Row], opts: &Opts) -> Json {
    let mode = match opts.percentage_mode {
        Mode::Coverage => PercentageMode::Coverage,
        Mode::Exclusive => PercentageMode::Exclusive,
    };
    let session = session_total(rows);
    let mut metadata = Map::new();
    for (k, v) in &profile.metadata {
        metadata.insert(k.clone(), meta_json(v));
    }
    let mut doc = Map::new();
    doc.insert("file".into(), json!(path.display().to_string()));
    doc.insert("schema".into(), json!(profile.schema));
    doc.insert("layout".into(), json!(profile.layout.name()));
    doc.insert("num_ranks".into(), json!(profile.num_ranks));
    if !opts.regions_only {
        doc.insert("metadata".into(), Json::Object(metadata));
    }
    if !opts.metadata_only {
        doc.insert(
            "regions".into(),
            Json::Array(rows.iter().map(|r| row_json(r, mode, session)).collect()),
        );
    }
    Json::Object(doc)
}

fn write_csv(out: &mut impl Write, path: &Path, rows: &[Row], header: bool) -> std::io::Result<()> {
    const KEYS: [&str; 24] = [
        "name",
        "call_path",
        "depth",
        "recursive",
        "num_ranks",
        "calls",
        "total",
        "coverage",
        "exclusive",
        "avg",
        "min",
        "max",
        "first",
        "last",
        "std",
        "p50",
        "p95",
        "p99",
        "imbalance",
        "gpu_total",
        "gpu_avg",
        "start",
        "parent_coverage",
        "percent",
    ];
    if header {
        writeln!(out, "file,{}", KEYS.join(","))?;
    }
    let session = session_total(rows);
    for row in rows {
        let j = row_json(row, PercentageMode::Coverage, session);
        let mut cells = vec![csv_cell(&path.display().to_string())];
        for key in KEYS {
            let cell = match (&j[key], key) {
                (Json::Null, _) => String::new(),
                (Json::Array(parts), "call_path") => csv_cell(
                    &parts
                        .iter()
                        .filter_map(Json::as_str)
                        .collect::<Vec<_>>()
                        .join(" > "),
                ),
                (Json::String(s), _) => csv_cell(s),
                (v, _) => v.to_string(),
            };
            cells.push(cell);
        }
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

// ---- the table, as the reference's summary.print_region_table draws it ----

fn fmt_dur(v: Option<f64>, decimals: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.decimals$}"))
}

fn fmt_count(v: u64) -> String {
    for (threshold, suffix) in [(1_000_000_000u64, "B"), (1_000_000, "M"), (1_000, "k")] {
        if v >= threshold {
            return format!("{}{suffix}", python_g3(v as f64 / threshold as f64));
        }
    }
    v.to_string()
}

/// Python's `format(x, ".3g")` for 1 <= x < 1e6.
fn python_g3(x: f64) -> String {
    let digits = if x >= 100.0 {
        0
    } else if x >= 10.0 {
        1
    } else {
        2
    };
    let s = format!("{x:.digits$}");
    let rounded: f64 = s.parse().unwrap_or(x);
    if rounded >= 1000.0 {
        return format!("{:.0e}", x).replace("e", "e+0");
    }
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn fmt_pct(v: Option<f64>, d: Option<f64>) -> String {
    match (v, d) {
        (Some(v), Some(d)) if d > 0.0 => format!("{:.2}%", 100.0 * v / d),
        _ => "-".into(),
    }
}

/// Python's `format(x, ".3e")`.
fn fmt_sci(v: f64) -> String {
    let s = format!("{v:.3e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{m}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

fn tree_prefix(depth: usize) -> String {
    if depth == 0 {
        String::new()
    } else {
        format!("{}└─ ", "│ ".repeat(depth - 1))
    }
}

/// The width the table must fit: `COLUMNS` when set, else the width of the terminal on
/// stdout, else 100 (output to a file or a pipe).
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .or_else(|| {
            terminal_size::terminal_size_of(std::io::stdout())
                .map(|(terminal_size::Width(w), _)| usize::from(w))
        })
        .filter(|&w| w >= 40)
        .unwrap_or(100)
}

/// `text` cut to `width` characters, the last one `…` when anything was cut.
fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` split into lines of at most `width` characters, at spaces where possible.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let indent: String = text.chars().take_while(|c| *c == ' ').collect();
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word.to_string();
        loop {
            let used = line.chars().count();
            let sep = usize::from(used > 0);
            if used + sep + word.chars().count() <= width {
                if used > 0 {
                    line.push(' ');
                } else {
                    line.push_str(&indent);
                    if indent.chars().count() + word.chars().count() > width {
                        line.clear();
                    }
                }
                line.push_str(&word);
                break;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // A word longer than a line: cut it.
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

fn table_text(
    path: &Path,
    size: u64,
    profile: &Profile,
    rows: &[Row],
    opts: &Opts,
    mode: PercentageMode,
    width_limit: usize,
) -> String {
    let mut s = String::new();
    let regions = profile.regions.len();
    let mut headline = format!(
        "{} rank(s), {} region(s), {:.2} MiB",
        profile.num_ranks,
        regions,
        size as f64 / (1024.0 * 1024.0)
    );
    let timed = profile.regions.iter().any(|r| r.has_timing());
    if timed && profile.events {
        let start = profile.minimum_start_s();
        let end = profile
            .regions
            .iter()
            .filter(|r| r.has_timing())
            .map(|r| r.last_end_s())
            .fold(0.0, f64::max);
        headline.push_str(&format!(", {} s wall clock", python_g6(end - start)));
    }
    if let (Some(a), Some(b)) = (
        profile.meta_seconds("start_time_ns"),
        profile.meta_seconds("finalize_time_ns"),
    ) {
        headline.push_str(&format!(
            ", {} s total (setup to finalize)",
            python_g6(b - a)
        ));
    }
    s.push_str(&"=".repeat(78));
    s.push('\n');
    match profile.label() {
        Some(label) => s.push_str(&format!("{label} - {}\n", path.display())),
        None => s.push_str(&format!("{}\n", path.display())),
    }
    s.push_str(&headline);
    s.push('\n');
    s.push_str(&"=".repeat(78));
    s.push_str("\n\n");
    if !opts.regions_only {
        s.push_str(&metadata_text(profile, opts.full));
    }
    if !opts.metadata_only {
        s.push_str(&region_table(
            rows,
            opts.columns.as_deref(),
            mode,
            path,
            width_limit,
        ));
    }
    s
}

/// Python's `format(x, ".6g")`.
fn python_g6(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let exp = x.abs().log10().floor() as i32;
    if !(-5..6).contains(&exp) {
        let m = format!("{x:.5e}");
        let (mant, e) = m.split_once('e').unwrap_or((&m, "0"));
        let mant = mant.trim_end_matches('0').trim_end_matches('.');
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let decimals = (5 - exp).max(0) as usize;
    let t = format!("{x:.decimals$}");
    if t.contains('.') {
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        t
    }
}

fn metadata_text(profile: &Profile, full: bool) -> String {
    const RUN: [&str; 8] = [
        "timestamp",
        "start_time_ns",
        "finalize_time_ns",
        "user",
        "hostname",
        "working_directory",
        "scope_profiler_version",
        "python_version",
    ];
    const SYSTEM: [&str; 3] = ["platform", "uname", "chip_information"];
    const PARALLEL: [&str; 4] = ["mpi_size", "num_nodes", "omp_num_threads", "total_cores"];
    let md = &profile.metadata;
    if md.is_empty() {
        return "Metadata\n  (none recorded)\n\n".into();
    }
    let width = md.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
    let mut taken: Vec<&str> = Vec::new();
    let mut sections: Vec<(&str, Vec<(&str, &Meta)>)> = Vec::new();
    for (title, keys) in [
        ("Run", &RUN[..]),
        ("System", &SYSTEM[..]),
        ("Parallelism", &PARALLEL[..]),
    ] {
        let entries: Vec<(&str, &Meta)> = keys
            .iter()
            .filter_map(|k| {
                md.iter()
                    .find(|(n, _)| n == k)
                    .map(|(n, v)| (n.as_str(), v))
            })
            .collect();
        taken.extend(entries.iter().map(|e| e.0));
        sections.push((title, entries));
    }
    let modules = md.iter().find(|(k, _)| k == "modules").map(|(_, v)| v);
    taken.push("modules");
    let rest: Vec<(&str, &Meta)> = md
        .iter()
        .filter(|(k, _)| !taken.contains(&k.as_str()))
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    let slurm: Vec<_> = rest
        .iter()
        .filter(|(k, _)| k.starts_with("SLURM_") || k.starts_with("SLURMD_"))
        .copied()
        .collect();
    let env: Vec<_> = rest
        .iter()
        .filter(|(k, _)| !(k.starts_with("SLURM_") || k.starts_with("SLURMD_")) && is_upper(k))
        .copied()
        .collect();
    let other: Vec<_> = rest
        .iter()
        .filter(|(k, _)| !(k.starts_with("SLURM_") || k.starts_with("SLURMD_") || is_upper(k)))
        .copied()
        .collect();
    sections.push(("Slurm", slurm));
    sections.push(("Environment", env));
    sections.push(("Other", other));
    let mut s = String::from("Metadata\n");
    for (title, entries) in sections {
        if entries.is_empty() {
            continue;
        }
        s.push_str(&format!("  {title}\n"));
        for (k, v) in entries {
            s.push_str(&format!(
                "    {k:<width$} : {}\n",
                clip(&meta_text(v), full)
            ));
        }
    }
    if let Some(m) = modules {
        let items: Vec<String> = match m {
            Meta::List(items) => items.iter().map(meta_text).collect(),
            other => vec![meta_text(other)],
        };
        s.push_str(&format!("  Modules ({})\n", items.len()));
        for i in &items {
            s.push_str(&format!("    {i}\n"));
        }
        if items.is_empty() {
            s.push_str("    (none loaded)\n");
        }
    }
    s.push('\n');
    s
}

/// Python's `str.isupper()`: has a cased character and no lowercase one.
fn is_upper(k: &str) -> bool {
    k.chars().any(char::is_uppercase) && !k.chars().any(char::is_lowercase)
}

fn clip(v: &str, full: bool) -> String {
    const WIDTH: usize = 96;
    const ELLIPSIS: &str = " […]";
    if full || v.chars().count() <= WIDTH {
        return v.to_string();
    }
    let keep = WIDTH - ELLIPSIS.chars().count();
    format!("{}{ELLIPSIS}", v.chars().take(keep).collect::<String>())
}

fn region_table(
    rows: &[Row],
    columns: Option<&[String]>,
    mode: PercentageMode,
    path: &Path,
    width_limit: usize,
) -> String {
    let mut s = String::new();
    let title = format!("Regions ({})", rows.len());
    if rows.is_empty() {
        s.push_str(&format!("{title}\n  (no regions recorded)\n"));
        return s;
    }
    let session = session_total(rows);
    let mut cols: Vec<String> = match columns {
        Some(c) => c.to_vec(),
        None if session.is_none() => vec!["region".into(), "total".into()],
        None => vec!["region".into(), "percent".into(), "total".into()],
    };
    if columns.is_none() && rows.iter().any(|r| r.gpu_total.is_some()) {
        cols.push("gpu_total".into());
        cols.push("gpu_avg".into());
    }
    let keys: Vec<&str> = cols
        .iter()
        .map(|c| if c == "region" { "name" } else { c.as_str() })
        .collect();
    let inline_counts = !keys.contains(&"calls");
    let parent_paths: std::collections::HashSet<Vec<String>> = rows
        .iter()
        .filter_map(|r| r.call_path.as_ref())
        .flat_map(|p| (1..p.len()).map(move |i| p[..i].to_vec()))
        .collect();
    let mut table: Vec<Vec<String>> = Vec::new();
    for row in rows {
        let indent = " ".repeat(tree_prefix(row.depth).chars().count());
        let cell = |key: &str| -> String {
            match key {
                "name" => {
                    let mut n = format!(
                        "{}{}{}",
                        tree_prefix(row.depth),
                        row.name,
                        if row.recursive { " ↻" } else { "" }
                    );
                    if inline_counts && row.calls != 1 {
                        n.push_str(&format!(" ({}x)", fmt_count(row.calls)));
                    }
                    n
                }
                "ranks" => row.num_ranks.to_string(),
                "calls" => fmt_count(row.calls),
                "total" => format!("{indent}{}", fmt_dur(row.total, 6)),
                "percent" => {
                    let v = if mode == PercentageMode::Exclusive
                        && row.name == "scope_profiler.session"
                    {
                        row.total
                    } else if mode == PercentageMode::Exclusive {
                        row.exclusive
                    } else {
                        row.coverage
                    };
                    format!("{indent}{}", fmt_pct(v, session))
                }
                "parent_percent" => {
                    format!("{indent}{}", fmt_pct(row.coverage, row.parent_coverage))
                }
                "avg" => format!("{indent}{}", row.avg.map_or("-".into(), fmt_sci)),
                "gpu_total" => fmt_dur(row.gpu_total, 6),
                "gpu_avg" => fmt_dur(row.gpu_avg, 3),
                "min" => fmt_dur(row.min, 3),
                "max" => fmt_dur(row.max, 3),
                "first" => fmt_dur(row.first, 3),
                "last" => fmt_dur(row.last, 3),
                "std" => fmt_dur(row.std, 3),
                "p50" => fmt_dur(row.p50, 3),
                "p95" => fmt_dur(row.p95, 3),
                "p99" => fmt_dur(row.p99, 3),
                "imbalance" => row.imbalance.map_or("-".into(), |v| format!("{v:.2}")),
                _ => String::new(),
            }
        };
        table.push(keys.iter().map(|k| cell(k)).collect());
        if row
            .call_path
            .as_ref()
            .is_some_and(|p| parent_paths.contains(p))
        {
            let own_indent = " ".repeat(tree_prefix(row.depth + 1).chars().count());
            let own: Vec<String> = keys
                .iter()
                .map(|&k| match k {
                    "name" => format!("{}(own)", tree_prefix(row.depth + 1)),
                    "total" => format!("{own_indent}{}", fmt_dur(row.exclusive, 6)),
                    "avg" => format!(
                        "{own_indent}{}",
                        match row.exclusive {
                            Some(e) if row.calls > 0 => fmt_sci(e / row.calls as f64),
                            _ => "-".into(),
                        }
                    ),
                    "percent" => format!("{own_indent}{}", fmt_pct(row.exclusive, session)),
                    "parent_percent" => {
                        format!("{own_indent}{}", fmt_pct(row.exclusive, row.coverage))
                    }
                    _ => String::new(),
                })
                .collect();
            table.push(own);
        }
    }
    let headers: Vec<&str> = keys
        .iter()
        .filter_map(|k| COLUMNS.iter().find(|c| c.0 == *k).map(|c| c.1))
        .collect();
    let mut widths: Vec<usize> = (0..keys.len())
        .map(|i| {
            table
                .iter()
                .map(|r| r[i].chars().count())
                .chain([headers[i].chars().count() + 2])
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Fit the terminal: the region column gives up width (names end in `…`), down to 12;
    // then columns are dropped from the right (the region column always stays).
    let table_width = |widths: &[usize]| 4 + widths.iter().map(|w| w + 4).sum::<usize>() - 2;
    let total = table_width(&widths);
    if let (Some(first), true) = (widths.first_mut(), total > width_limit) {
        let over = total - width_limit;
        let narrower = first.saturating_sub(over).max(12).min(*first);
        *first = narrower;
        for r in &mut table {
            if let Some(cell) = r.first_mut() {
                *cell = truncate(cell, narrower);
            }
        }
    }
    let mut hidden: Vec<&str> = Vec::new();
    let mut headers = headers;
    while widths.len() > 2 && table_width(&widths) > width_limit {
        widths.pop();
        hidden.push(headers.pop().unwrap_or_default());
        for r in &mut table {
            r.pop();
        }
    }
    hidden.reverse();
    let line = |l: &str, r: &str| {
        let parts: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
        format!("  {l}{}{r}\n", parts.join("──"))
    };
    let data = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!(" {}{} ", c, " ".repeat(w - c.chars().count())))
            .collect();
        format!("  │{}│\n", parts.join("  "))
    };
    s.push_str(&line("╭", "╮"));
    let header_cells: Vec<String> = headers.iter().map(|h| h.to_string()).collect();
    s.push_str(&data(&header_cells));
    s.push_str(&line("├", "┤"));
    for r in &table {
        s.push_str(&data(r));
    }
    s.push_str(&line("╰", "╯"));
    let mut notes: Vec<String> = Vec::new();
    let heavy: Vec<&str> = {
        let mut v: Vec<&str> = rows
            .iter()
            .filter(|r| matches!((r.gpu_total, r.total), (Some(g), Some(t)) if g > 2.0 * t))
            .map(|r| r.name.as_str())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    if !heavy.is_empty() {
        notes.push(format!(
            "Warning: GPU time exceeds CPU time by more than 2x for {}. This may indicate \
             asynchronous GPU work; CPU time can measure enqueue time rather than device \
             execution. Use GPU metrics or opt in to gpu_sync_on_exit=True (disables CPU/GPU \
             overlap).",
            heavy.join(", ")
        ));
    }
    if !hidden.is_empty() {
        notes.push(format!(
            "Hidden to fit the terminal: {} (widen it, choose --columns, or use --format csv).",
            hidden.join(", ")
        ));
    }
    notes.push(format!("Summary: {title}"));
    notes.push(String::new());
    notes.push("Explore:".into());
    notes.push(format!("  Inspect: sp inspect {}", path.display()));
    notes.push(format!(
        "  Export:  sp export chrome-trace {} -o trace.json",
        path.display()
    ));
    notes.push(String::new());
    notes.push("Durations are in seconds.".into());
    if rows.len() > 1 {
        notes.push("Regions may nest, so the summed total can exceed the wall-clock time.".into());
    }
    if rows.iter().any(|r| r.recursive) {
        notes.push(
            "↻ Recursive rows pool every level of the recursion: the call count includes nested \
             calls, the total only the outermost ones."
                .into(),
        );
    }
    if session.is_some() {
        notes.push(if mode == PercentageMode::Coverage {
            "% session uses wall-clock coverage; overlapping recursive calls count once.".into()
        } else {
            "% session uses exclusive time for each region.".into()
        });
    }
    if rows.iter().any(|r| r.total.is_none()) {
        notes.push("Regions shown without timing recorded no calls on the selected ranks.".into());
    }
    // The Info box wraps to the terminal: two margin, two borders, two padding.
    let inner = width_limit.saturating_sub(6).max(20);
    let notes: Vec<String> = notes
        .iter()
        .flat_map(|n| {
            if n.chars().count() <= inner {
                vec![n.clone()]
            } else {
                wrap(n, inner)
            }
        })
        .collect();
    let width = notes.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    s.push('\n');
    s.push_str(&format!(
        "  ╭─ Info {}╮\n",
        "─".repeat(width.saturating_sub(5).max(1))
    ));
    for n in &notes {
        s.push_str(&format!(
            "  │ {n}{} │\n",
            " ".repeat(width - n.chars().count())
        ));
    }
    s.push_str(&format!("  ╰{}╯\n", "─".repeat(width + 2)));
    s.push('\n');
    s
}
