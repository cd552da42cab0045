//! The lines report as text: the reference's tables (`tabulate`'s "simple" layout, as
//! `native_samples.format_line_profile` prints them) one per rank, the same merged over
//! ranks with a column of ranks, and CSV and JSON of either.
//!
//! A table's cells are measured as tabulate measures them ([`grid::cell_width`]): a
//! column whose cells are all integers is right-aligned, others left; cells are stripped;
//! each column is as wide as its widest cell or its header plus two; lines lose their
//! trailing spaces.

use crate::sort::SortSlice;
use std::borrow::Cow;

use serde_json::{json, Value};

use super::{Rank, Region, Report, Row};
use crate::analysis::report::{csv, grid};
use crate::symbolize::Frame;
use crate::text::Show;

/// What the tables show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Lines per region (`--top`, 10 by default as in the reference).
    pub top: usize,
    /// The source text column (`--no-source` turns it off).
    pub source: bool,
    /// The column of frames each line was inlined into (`--inlines`).
    pub inlines: bool,
    /// How names from the files are shown (escaped on a terminal).
    pub show: Show,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            top: 10,
            source: true,
            inlines: false,
            show: Show::AsIs,
        }
    }
}

/// The text of `file`'s line `line`, when it can be read (`linecache.getline`, stripped).
pub type SourceText<'a> = dyn FnMut(&str, u32) -> Option<String> + 'a;

/// The whole report in `format`: merged over ranks, or per rank (`--per-rank`).
pub fn text(
    report: &Report,
    per_rank: bool,
    format: crate::analysis::report::Format,
    options: &Options,
    source: &mut SourceText<'_>,
) -> String {
    use crate::analysis::report::Format;
    let merged = (!per_rank).then(|| super::merge(&report.ranks));
    match (format, &merged) {
        (Format::Table, Some(m)) => merged_table(report, m, options, source),
        (Format::Table, None) => per_rank_table(report, options, source),
        (Format::Json, m) => json(report, m.as_deref(), options, source),
        (Format::Csv, m) => csv(report, m.as_deref(), options, source),
    }
}

/// `file:line` as the table shows it: the file's last path component.
pub fn short_place(frame: &Frame) -> String {
    let name = frame.file.rsplit('/').next().unwrap_or(&frame.file);
    format!("{name}:{}", frame.line)
}

/// A share of a region as the reference prints it (`f"{x:5.1f}%"`, then stripped).
pub fn percent(samples: u64, total: u64) -> String {
    format!("{:.1}%", 100.0 * samples as f64 / total.max(1) as f64)
}

/// The callers a line was inlined into: `caller (file:line) ← …`.
fn inlined_into(frames: &[Frame]) -> String {
    frames
        .iter()
        .skip(1)
        .map(|f| format!("{} ({})", f.function, short_place(f)))
        .collect::<Vec<_>>()
        .join(" ← ")
}

static UNKNOWN: Frame = Frame {
    function: String::new(),
    file: String::new(),
    line: 0,
};

fn frames<'r>(report: &'r Report, row: &Row) -> &'r [Frame] {
    report
        .lines
        .get(row.line as usize)
        .map_or(&[][..], Vec::as_slice)
}

fn first(frames: &[Frame]) -> &Frame {
    frames.first().unwrap_or(&UNKNOWN)
}

/// One region's table, as `format_line_profile` draws it; `ranks` adds the column of
/// ranks a line was sampled on.
fn region_table(
    report: &Report,
    region: &Region,
    options: &Options,
    ranks: bool,
    source: &mut SourceText<'_>,
) -> String {
    let show = |s: &str| options.show.text(s).into_owned();
    let mut headers = vec!["line", "function"];
    if options.inlines {
        headers.push("inlined into");
    }
    headers.extend(["samples", "% region"]);
    if ranks {
        headers.push("ranks");
    }
    if options.source {
        headers.push("source");
    }
    let rows: Vec<Vec<String>> = region
        .rows
        .iter()
        .take(options.top)
        .map(|row| {
            let frames = frames(report, row);
            let frame = first(frames);
            let mut cells = vec![show(&short_place(frame)), show(&frame.function)];
            if options.inlines {
                cells.push(show(&inlined_into(frames)));
            }
            cells.push(row.samples.to_string());
            cells.push(percent(row.samples, region.samples));
            if ranks {
                cells.push(row.ranks.to_string());
            }
            if options.source {
                let text = (frame.line > 0)
                    .then(|| source(&frame.file, frame.line))
                    .flatten()
                    .unwrap_or_default();
                cells.push(show(&text));
            }
            cells
        })
        .collect();
    simple(&headers, rows)
}

/// `tabulate(rows, headers, tablefmt="simple")` of text cells (a column of integers is
/// right-aligned and kept as written, as tabulate keeps `"007"`).
pub fn simple(headers: &[&str], rows: Vec<Vec<String>>) -> String {
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|r| r.into_iter().map(|c| python_strip(&c).to_owned()).collect())
        .collect();
    let numeric: Vec<bool> = (0..headers.len())
        .map(|i| {
            let mut cells = rows
                .iter()
                .filter_map(|r| r.get(i))
                .filter(|c| !c.is_empty());
            let any = cells.clone().next().is_some();
            any && cells.all(|c| is_int(c))
        })
        .collect();
    let widths = grid::column_widths(headers, &rows);
    let invisible = grid::has_invisible(headers, &rows);
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let parts: Vec<String> = cells
            .zip(&widths)
            .zip(&numeric)
            .map(|((c, &w), &right)| {
                let w = isize::try_from(w).unwrap_or(isize::MAX);
                let pad =
                    " ".repeat(usize::try_from(w - grid::cell_width(c, invisible)).unwrap_or(0));
                if right {
                    format!("{pad}{c}")
                } else {
                    format!("{c}{pad}")
                }
            })
            .collect();
        parts.join("  ").trim_end().to_owned()
    };
    let mut out = vec![line(&mut headers.iter().copied())];
    out.push(
        widths
            .iter()
            .map(|&w| "-".repeat(w))
            .collect::<Vec<_>>()
            .join("  "),
    );
    for r in &rows {
        out.push(line(&mut r.iter().map(String::as_str)));
    }
    out.join("\n")
}

/// Python's `int()` of a stripped cell: digits, a sign, underscores between digits.
fn is_int(cell: &str) -> bool {
    let digits = cell.strip_prefix(['+', '-']).unwrap_or(cell);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

/// Python's `str.strip()`: Unicode white space, and the four separators `\x1c`–`\x1f`.
pub fn python_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c))
}

/// The reference's layout: per file, `path  (rank R, HZ Hz)`, then each region's table.
pub fn per_rank_table(report: &Report, options: &Options, source: &mut SourceText<'_>) -> String {
    let mut out = String::new();
    for rank in &report.ranks {
        out.push_str(&format!(
            "{}  (rank {}, {} Hz)\n\n",
            options.show.text(&rank.path),
            rank.rank,
            rank.hz
        ));
        let blocks: Vec<String> = rank
            .regions
            .iter()
            .map(|region| block(report, region, options, false, source))
            .collect();
        out.push_str(&blocks.join("\n\n"));
        out.push_str("\n\n");
    }
    out
}

fn block(
    report: &Report,
    region: &Region,
    options: &Options,
    ranks: bool,
    source: &mut SourceText<'_>,
) -> String {
    let name = options.show.text(&region.name);
    let on = if ranks {
        let n = region.ranks;
        format!(", on {n} rank{}", if n == 1 { "" } else { "s" })
    } else {
        String::new()
    };
    format!(
        "{name}  ({} samples{on})\n{}",
        region.samples,
        region_table(report, region, options, ranks, source)
    )
}

/// The ranks of `ranks` as a short list: `0-3, 7`.
fn rank_list(ranks: &[Rank]) -> String {
    let mut numbers: Vec<i32> = ranks.iter().map(|r| r.rank).collect();
    numbers.sort_ord_unstable();
    numbers.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let mut j = i;
        while j + 1 < numbers.len() && numbers[j + 1] == numbers[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}-{}", numbers[i], numbers[j])
        } else {
            numbers[i].to_string()
        });
        i = j + 1;
    }
    parts.join(", ")
}

fn rates(ranks: &[Rank]) -> String {
    let mut hz: Vec<i32> = ranks.iter().map(|r| r.hz).collect();
    hz.sort_ord_unstable();
    hz.dedup();
    hz.iter()
        .map(|h| format!("{h} Hz"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The merged layout: one table per region over every file, with the ranks column.
pub fn merged_table(
    report: &Report,
    merged: &[Region],
    options: &Options,
    source: &mut SourceText<'_>,
) -> String {
    let n = report.ranks.len();
    let files = if n == 1 { "file" } else { "files" };
    let mut out = format!(
        "{n} {files} (rank {}, {})\n\n",
        rank_list(&report.ranks),
        rates(&report.ranks)
    );
    let blocks: Vec<String> = merged
        .iter()
        .map(|region| block(report, region, options, true, source))
        .collect();
    out.push_str(&blocks.join("\n\n"));
    out.push_str("\n\n");
    out
}

fn frame_json(f: &Frame) -> Value {
    json!({"function": f.function, "file": f.file, "line": f.line})
}

fn regions_json(
    report: &Report,
    regions: &[Region],
    options: &Options,
    source: &mut SourceText<'_>,
) -> Value {
    Value::Array(
        regions
            .iter()
            .map(|region| {
                let lines: Vec<Value> = region
                    .rows
                    .iter()
                    .take(options.top)
                    .map(|row| {
                        let frames = frames(report, row);
                        let f = first(frames);
                        let mut v = json!({
                            "file": f.file, "line": f.line, "function": f.function,
                            "samples": row.samples,
                            "share": row.samples as f64 / region.samples.max(1) as f64,
                            "ranks": row.ranks,
                        });
                        if options.source {
                            let text = (f.line > 0).then(|| source(&f.file, f.line)).flatten();
                            v["source"] = json!(text);
                        }
                        if options.inlines {
                            v["inlined_into"] = frames.iter().skip(1).map(frame_json).collect();
                        }
                        v
                    })
                    .collect();
                json!({"region": region.name, "samples": region.samples, "ranks": region.ranks, "lines": lines})
            })
            .collect(),
    )
}

fn rank_json(rank: &Rank) -> Value {
    json!({"path": rank.path, "rank": rank.rank, "hz": rank.hz})
}

/// JSON: `{"files": [...], "regions": [...]}` merged, or `{"ranks": [{..., "regions"}]}`.
pub fn json(
    report: &Report,
    merged: Option<&[Region]>,
    options: &Options,
    source: &mut SourceText<'_>,
) -> String {
    let value = match merged {
        Some(merged) => json!({
            "files": report.ranks.iter().map(rank_json).collect::<Vec<_>>(),
            "regions": regions_json(report, merged, options, source),
        }),
        None => json!({
            "ranks": report.ranks.iter().map(|r| {
                let mut v = rank_json(r);
                v["regions"] = regions_json(report, &r.regions, options, source);
                v
            }).collect::<Vec<_>>(),
        }),
    };
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// CSV, one row per line of a region (per file first: `path,rank,…`).
pub fn csv(
    report: &Report,
    merged: Option<&[Region]>,
    options: &Options,
    source: &mut SourceText<'_>,
) -> String {
    let mut out = String::new();
    let mut head = if merged.is_some() {
        vec![]
    } else {
        vec!["path", "rank"]
    };
    head.extend([
        "region", "file", "line", "function", "samples", "share", "ranks",
    ]);
    if options.inlines {
        head.push("inlined_into");
    }
    if options.source {
        head.push("source");
    }
    out.push_str(&head.join(","));
    out.push('\n');
    let mut write = |prefix: &[String], region: &Region, out: &mut String| {
        for row in region.rows.iter().take(options.top) {
            let frames = frames(report, row);
            let f = first(frames);
            let mut cells: Vec<Cow<'_, str>> =
                prefix.iter().map(|p| Cow::Owned(csv::cell(p))).collect();
            cells.push(csv::cell(&region.name).into());
            cells.push(csv::cell(&f.file).into());
            cells.push(f.line.to_string().into());
            cells.push(csv::cell(&f.function).into());
            cells.push(row.samples.to_string().into());
            cells.push(format!("{}", row.samples as f64 / region.samples.max(1) as f64).into());
            cells.push(row.ranks.to_string().into());
            if options.inlines {
                cells.push(csv::cell(&inlined_into(frames)).into());
            }
            if options.source {
                let text = (f.line > 0)
                    .then(|| source(&f.file, f.line))
                    .flatten()
                    .unwrap_or_default();
                cells.push(csv::cell(&text).into());
            }
            out.push_str(&cells.join(","));
            out.push('\n');
        }
    };
    match merged {
        Some(merged) => merged.iter().for_each(|r| write(&[], r, &mut out)),
        None => {
            for rank in &report.ranks {
                let prefix = [rank.path.clone(), rank.rank.to_string()];
                for region in &rank.regions {
                    write(&prefix, region, &mut out);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `tabulate(rows, headers, tablefmt="simple")` prints for these cells (0.10):
    /// the integer column right-aligned, a blank source cell, trailing spaces gone.
    #[test]
    fn tabulates_like_simple() {
        let rows = vec![
            vec![
                "a.c:18".into(),
                "f".into(),
                "51".into(),
                " 46.4%".into(),
                "x = 1;".into(),
            ],
            vec![
                "b.c:7".into(),
                "main".into(),
                "5".into(),
                "  4.5%".into(),
                "".into(),
            ],
        ];
        let text = simple(&["line", "function", "samples", "% region", "source"], rows);
        assert_eq!(
            text,
            "line    function      samples  % region    source\n\
             ------  ----------  ---------  ----------  --------\n\
             a.c:18  f                  51  46.4%       x = 1;\n\
             b.c:7   main                5  4.5%"
        );
    }

    #[test]
    fn shares_round_as_python_does() {
        assert_eq!(percent(1, 8), "12.5%");
        assert_eq!(percent(9, 11), "81.8%");
        assert_eq!(percent(0, 0), "0.0%");
    }

    #[test]
    fn rank_lists_are_short() {
        let rank = |r| Rank {
            path: String::new(),
            rank: r,
            hz: 1000,
            regions: vec![],
        };
        assert_eq!(
            rank_list(&[rank(3), rank(0), rank(1), rank(2), rank(7)]),
            "0-3, 7"
        );
    }
}
