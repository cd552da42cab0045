//! The table report, as the reference's `scope-profiler inspect` prints it
//! (`summary.print_region_table` and the metadata sections), fitted to a terminal width:
//! the region column gives up width first (names end in `…`), then columns are dropped from
//! the right and named in the Info box, which wraps.

use std::io::{self, Write};

use crate::analysis::metadata::{label, meta_seconds, PyValue, Sections};
use crate::analysis::rows::{percent_of, session_total, PercentageMode, RegionRow};
use crate::schema::Profile;
use crate::text::{self, Show};

use super::format::{clip, fmt_count, fmt_dur, fmt_sci, python_g6, tree_prefix, wrap};
use super::grid::{column_widths, draw};
use super::{
    gpu_timing_warning, has_own_line, parent_paths, Column, FileReport, OwnLine, ReportOptions,
};

/// A percentage with two decimals, `-` when there is none.
fn pct(percent: Option<f64>) -> String {
    percent.map_or("-".into(), |p| format!("{p:.2}%"))
}

/// The table report of one profile: a headline, the metadata by section, and the region
/// table fitted to `options.width`, with the text from the file shown as `show` says.
pub(super) fn write(
    out: &mut impl Write,
    file: &FileReport<'_>,
    options: &ReportOptions,
    show: Show,
) -> io::Result<()> {
    let FileReport {
        name,
        size,
        profile,
        rows,
        rows_from_calls,
    } = *file;
    let mut s = String::new();
    let regions = profile.regions.len();
    let mut headline = format!(
        "{} rank(s), {} region(s), {:.2} MiB",
        profile.num_ranks,
        regions,
        size as f64 / (1024.0 * 1024.0)
    );
    let timed = profile.regions.iter().any(|r| r.has_timing());
    if timed && rows_from_calls {
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
        meta_seconds(profile, "start_time_ns"),
        meta_seconds(profile, "finalize_time_ns"),
    ) {
        headline.push_str(&format!(
            ", {} s total (setup to finalize)",
            python_g6(b - a)
        ));
    }
    s.push_str(&"=".repeat(78));
    s.push('\n');
    let shown_name = show.text(name);
    match label(profile) {
        Some(label) => s.push_str(&format!("{} - {shown_name}\n", show.text(&label))),
        None => s.push_str(&format!("{shown_name}\n")),
    }
    s.push_str(&headline);
    s.push('\n');
    s.push_str(&"=".repeat(78));
    s.push_str("\n\n");
    if !options.regions_only {
        s.push_str(&metadata_text(profile, options.full, show));
    }
    if !options.metadata_only {
        s.push_str(&region_table(rows, options, &shown_name, show));
    }
    out.write_all(s.as_bytes())
}

/// The metadata by section, as the reference prints it: keys padded by characters (Python's
/// `:<`) as they are, by terminal cells when escaped for a terminal.
fn metadata_text(profile: &Profile, full: bool, show: Show) -> String {
    let measure = |key: &str| match show {
        Show::AsIs => key.chars().count(),
        Show::Escaped => text::width(key),
    };
    let md = &profile.metadata;
    if md.is_empty() {
        return "Metadata\n  (none recorded)\n\n".into();
    }
    let width = md.keys().map(|k| measure(&show.text(k))).max().unwrap_or(0);
    let Sections { sections, modules } = Sections::of(md);
    let mut s = String::from("Metadata\n");
    for (title, entries) in sections {
        if entries.is_empty() {
            continue;
        }
        s.push_str(&format!("  {title}\n"));
        for (k, v) in entries {
            let key = show.text(k);
            s.push_str(&format!(
                "    {key}{} : {}\n",
                " ".repeat(width - measure(&key)),
                show.text(&clip(&PyValue::of(v).text(), full))
            ));
        }
    }
    if let Some(m) = modules {
        let items: Vec<String> = match PyValue::of(m) {
            PyValue::List(items) => items.iter().map(PyValue::text).collect(),
            other => vec![other.text()],
        };
        s.push_str(&format!("  Modules ({})\n", items.len()));
        for i in &items {
            s.push_str(&format!("    {}\n", show.text(i)));
        }
        if items.is_empty() {
            s.push_str("    (none loaded)\n");
        }
    }
    s.push('\n');
    s
}

/// The region table fitted to `options.width` (in terminal cells), and its Info box.
fn region_table(rows: &[RegionRow], options: &ReportOptions, name: &str, show: Show) -> String {
    let (columns, mode, width_limit) = (options.columns.as_deref(), options.mode, options.width);
    let mut s = String::new();
    let title = format!("Regions ({})", rows.len());
    if rows.is_empty() {
        s.push_str(&format!("{title}\n  (no regions recorded)\n"));
        return s;
    }
    let session = session_total(rows);
    let mut keys: Vec<Column> = match columns {
        Some(c) => c.to_vec(),
        None if session.is_none() => vec![Column::Region, Column::Total],
        None => vec![Column::Region, Column::Percent, Column::Total],
    };
    if columns.is_none() && rows.iter().any(|r| r.gpu_total.is_some()) {
        keys.push(Column::GpuTotal);
        keys.push(Column::GpuAvg);
    }
    let inline_counts = !keys.contains(&Column::Calls);
    let parents = parent_paths(rows);
    let mut table: Vec<Vec<String>> = Vec::new();
    for row in rows {
        let indent = " ".repeat(tree_prefix(row.depth).chars().count());
        let cell = |key: Column| -> String {
            match key {
                Column::Region => {
                    let mut n = format!(
                        "{}{}{}",
                        tree_prefix(row.depth),
                        show.text(&row.name),
                        if row.recursive { " ↻" } else { "" }
                    );
                    if inline_counts && row.calls != 1 {
                        n.push_str(&format!(" ({}x)", fmt_count(row.calls)));
                    }
                    n
                }
                Column::Ranks => row.num_ranks.to_string(),
                Column::Calls => fmt_count(row.calls),
                Column::Total => format!("{indent}{}", fmt_dur(row.total, 6)),
                Column::Percent => format!("{indent}{}", pct(row.percent(mode, session))),
                Column::ParentPercent => {
                    format!(
                        "{indent}{}",
                        pct(percent_of(row.coverage, row.parent_coverage))
                    )
                }
                Column::Avg => format!("{indent}{}", row.avg.map_or("-".into(), fmt_sci)),
                Column::GpuTotal => fmt_dur(row.gpu_total, 6),
                Column::GpuAvg => fmt_dur(row.gpu_avg, 3),
                Column::Min => fmt_dur(row.min, 3),
                Column::Max => fmt_dur(row.max, 3),
                Column::First => fmt_dur(row.first, 3),
                Column::Last => fmt_dur(row.last, 3),
                Column::Std => fmt_dur(row.std, 3),
                Column::P50 => fmt_dur(row.p50, 3),
                Column::P95 => fmt_dur(row.p95, 3),
                Column::P99 => fmt_dur(row.p99, 3),
                Column::Imbalance => row.imbalance.map_or("-".into(), |v| format!("{v:.2}")),
            }
        };
        table.push(keys.iter().map(|&k| cell(k)).collect());
        if has_own_line(row, &parents) {
            let line = OwnLine::of(row, session);
            let own_indent = " ".repeat(tree_prefix(row.depth + 1).chars().count());
            let own: Vec<String> = keys
                .iter()
                .map(|&k| match k {
                    Column::Region => format!("{}(own)", tree_prefix(row.depth + 1)),
                    Column::Total => format!("{own_indent}{}", fmt_dur(line.total, 6)),
                    Column::Avg => {
                        format!("{own_indent}{}", line.avg.map_or("-".into(), fmt_sci))
                    }
                    Column::Percent => format!("{own_indent}{}", pct(line.percent)),
                    Column::ParentPercent => format!("{own_indent}{}", pct(line.parent_percent)),
                    _ => String::new(),
                })
                .collect();
            table.push(own);
        }
    }
    let headers: Vec<&str> = keys.iter().map(|k| k.header()).collect();
    let mut widths = column_widths(&headers, &table);
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
                *cell = text::truncate(cell, narrower).into_owned();
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
    s.push_str(&draw(&headers, &table, &widths));
    let mut notes: Vec<String> = Vec::new();
    notes.extend(gpu_timing_warning(rows).map(|w| show.text(&w).into_owned()));
    if !hidden.is_empty() {
        notes.push(format!(
            "Hidden to fit the terminal: {} (widen it, choose --columns, or use --format csv).",
            hidden.join(", ")
        ));
    }
    notes.push(format!("Summary: {title}"));
    notes.push(String::new());
    notes.push("Explore:".into());
    notes.push(format!("  Inspect: sp inspect {name}"));
    notes.push(format!(
        "  Export:  sp export chrome-trace {name} -o trace.json"
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
            if text::width(n) <= inner {
                vec![n.clone()]
            } else {
                wrap(n, inner)
            }
        })
        .collect();
    let width = notes.iter().map(|n| text::width(n)).max().unwrap_or(0);
    s.push('\n');
    s.push_str(&format!(
        "  ╭─ Info {}╮\n",
        "─".repeat(width.saturating_sub(5).max(1))
    ));
    for n in &notes {
        s.push_str(&format!("  │ {} │\n", text::pad(n, width)));
    }
    s.push_str(&format!("  ╰{}╯\n", "─".repeat(width + 2)));
    s.push('\n');
    s
}
