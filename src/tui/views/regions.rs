//! Regions: the call tree of `sp inspect` (the index's flat rows until the tree is
//! built), with the `(own)` line under every row that has rows nested in it and `↻` on
//! recursive rows. Rows expand and collapse; `s` sorts by any column (its header is
//! marked); percentiles the rows lack are read on demand (`p`) in the background. With the
//! calls in memory, a last column draws each region's mean time per call over the run in
//! block characters, as the page's sparklines do (`sp::analysis::sparkline`).

use crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line as TextLine, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use sp::analysis::report::OwnLine;
use sp::analysis::rows::session_total;
use sp::analysis::units::{count_text, duration_text, pct_text};
use sp::analysis::{RegionRow, SortKey};
use sp::text;

use super::{list_key, shown, top};
use crate::tui::app::{App, Line, Pct, TreeWork};

/// A column: header, width, the sort key it shows, and its text for a row.
pub struct Column {
    pub header: &'static str,
    pub width: usize,
    pub key: Option<SortKey>,
    pub text: fn(&App, &RegionRow) -> String,
}

fn pick(
    app: &App,
    row: &RegionRow,
    f: fn(&sp::analysis::quantiles::Percentiles) -> Option<f64>,
    own: Option<f64>,
) -> String {
    if own.is_some() {
        return duration_text(own);
    }
    match app.percentiles_of(&row.name) {
        Some(Pct::Computing) => "…".into(),
        Some(Pct::Done(p)) => duration_text(f(p)),
        Some(Pct::Failed(_)) => "?".into(),
        None => "-".into(),
    }
}

/// Cells of the sparkline column: a library column each.
pub const SPARK_CELLS: usize = 20;

/// The columns, in the order they are dropped from the right to fit; the last, the
/// sparkline, only where the calls are in memory.
pub const COLUMNS: [Column; 11] = [
    Column {
        header: "calls",
        width: 9,
        key: Some(SortKey::Calls),
        text: |_, r| count_text(r.calls),
    },
    Column {
        header: "total",
        width: 9,
        key: Some(SortKey::Total),
        text: |_, r| duration_text(r.total),
    },
    Column {
        header: "% session",
        width: 9,
        key: None,
        text: |app, r| {
            let rows = app.report.as_ref().map(|x| &x.rows[..]).unwrap_or(&[]);
            pct_text(r.percent(app.options.mode, session_total(rows)))
        },
    },
    Column {
        header: "avg",
        width: 9,
        key: Some(SortKey::Avg),
        text: |_, r| duration_text(r.avg),
    },
    Column {
        header: "p95",
        width: 9,
        key: Some(SortKey::P95),
        text: |a, r| pick(a, r, |p| p.p95, r.p95),
    },
    Column {
        header: "imbal",
        width: 7,
        key: Some(SortKey::Imbalance),
        text: |_, r| pct_text(r.imbalance),
    },
    Column {
        header: "min",
        width: 9,
        key: Some(SortKey::Min),
        text: |_, r| duration_text(r.min),
    },
    Column {
        header: "max",
        width: 9,
        key: Some(SortKey::Max),
        text: |_, r| duration_text(r.max),
    },
    Column {
        header: "p50",
        width: 9,
        key: Some(SortKey::P50),
        text: |a, r| pick(a, r, |p| p.p50, r.p50),
    },
    Column {
        header: "p99",
        width: 9,
        key: Some(SortKey::P99),
        text: |a, r| pick(a, r, |p| p.p99, r.p99),
    },
    Column {
        header: "over the run",
        width: SPARK_CELLS,
        key: None,
        text: |a, r| a.sparklines.get(&r.name).cloned().unwrap_or_default(),
    },
];

/// How many of the first `most` columns fit `width` with a region column of at least 24
/// cells, and the region column's width.
pub fn fit(width: usize, most: usize) -> (usize, usize) {
    let mut n = most.min(COLUMNS.len());
    let used = |n: usize| COLUMNS[..n].iter().map(|c| c.width + 1).sum::<usize>();
    while n > 2 && used(n) + 24 > width {
        n -= 1;
    }
    (n, width.saturating_sub(used(n)).max(12))
}

pub fn draw(app: &App, f: &mut Frame, area: Rect) {
    let look = app.look;
    let report = match &app.report {
        Ok(r) => r,
        Err(e) => {
            f.render_widget(Paragraph::new(Span::styled(shown(e), look.error())), area);
            return;
        }
    };
    let most = COLUMNS.len() - usize::from(app.sparklines.is_empty());
    let (n, name_width) = fit(area.width as usize, most);
    let rows = match (report.tree, app.tree_work(0), app.recomputing(0)) {
        // The rows of the options before the last change, until the job computing the
        // new ones lands.
        (_, _, Some(p)) => format!("old options; new {p} %"),
        (true, _, None) => "call tree".to_string(),
        (false, None, None) => "index, flat".to_string(),
        (false, Some(TreeWork::Reading), None) => "index; tree: reading".to_string(),
        (false, Some(TreeWork::Building(p)), None) => format!("index; tree: {p} %"),
    };
    let title = text::truncate(&format!("region ({rows})"), name_width).into_owned();
    let mut header = vec![Span::styled(
        text::pad(&title, name_width).into_owned(),
        look.header(),
    )];
    for c in &COLUMNS[..n] {
        let sorted = c.key == Some(app.options.sort);
        let h = format!("{}{}", if sorted { "▼" } else { "" }, c.header);
        header.push(Span::styled(
            format!(" {:>w$}", h, w = c.width),
            look.header(),
        ));
    }
    let lines = app.lines();
    let height = area.height.saturating_sub(1) as usize;
    let cursor = app.cursor("regions");
    let first = top(cursor, height);
    let parents = sp::analysis::report::parent_paths(&report.rows);
    let session = session_total(&report.rows);
    let mut out = vec![TextLine::from(header)];
    for (i, line) in lines.iter().enumerate().skip(first).take(height) {
        let (Line::Row(r) | Line::Own(r)) = *line;
        let row = &report.rows[r];
        let style = if i == cursor.at {
            look.selected()
        } else {
            Style::new()
        };
        let mut spans = Vec::new();
        match line {
            Line::Row(_) => {
                let has_children = row.call_path.as_ref().is_some_and(|p| parents.contains(p));
                let mark = match (
                    has_children,
                    row.call_path
                        .as_ref()
                        .is_some_and(|p| app.collapsed.contains(p)),
                ) {
                    (true, true) => "▸ ",
                    (true, false) => "▾ ",
                    _ => "  ",
                };
                let name = format!(
                    "{}{mark}{}{}",
                    "  ".repeat(row.depth),
                    shown(&row.name),
                    if row.recursive { " ↻" } else { "" }
                );
                spans.push(Span::styled(
                    text::pad(&text::truncate(&name, name_width), name_width).into_owned(),
                    style,
                ));
                for c in &COLUMNS[..n] {
                    spans.push(Span::styled(
                        format!(" {:>w$}", (c.text)(app, row), w = c.width),
                        style,
                    ));
                }
            }
            Line::Own(_) => {
                let own = OwnLine::of(row, session);
                let name = format!("{}  (own)", "  ".repeat(row.depth + 1));
                let dim = style.patch(look.dim());
                spans.push(Span::styled(
                    text::pad(&text::truncate(&name, name_width), name_width).into_owned(),
                    dim,
                ));
                for c in &COLUMNS[..n] {
                    let t = match c.header {
                        "total" => duration_text(own.total),
                        "avg" => duration_text(own.avg),
                        "% session" => pct_text(own.percent),
                        _ => String::new(),
                    };
                    spans.push(Span::styled(format!(" {:>w$}", t, w = c.width), dim));
                }
            }
        }
        out.push(TextLine::from(spans));
    }
    if lines.is_empty() {
        out.push(TextLine::styled(
            "  (no rows: change the filter, i/x or r)",
            look.dim(),
        ));
    }
    f.render_widget(Paragraph::new(out), area);
}

pub fn key(app: &mut App, code: KeyCode) {
    let lines = app.lines();
    if list_key(app, "regions", code, lines.len()) {
        return;
    }
    let Some(path) = app.selected_row().and_then(|r| r.call_path.clone()) else {
        return;
    };
    match code {
        KeyCode::Left | KeyCode::Char('h')
            if !app.collapsed.insert(path.clone()) && path.len() > 1 =>
        {
            {
                // Already collapsed: go to the parent row.
                let parent = &path[..path.len() - 1];
                let rows = app.report.as_ref().map(|r| &r.rows[..]).unwrap_or(&[]);
                if let Some(at) = lines.iter().position(
                    |l| matches!(l, Line::Row(i) if rows[*i].call_path.as_deref() == Some(parent)),
                ) {
                    app.cursors
                        .insert("regions", crate::tui::app::Cursor { at, top: 0 });
                }
            }
        }
        KeyCode::Right | KeyCode::Char('l') => {
            app.collapsed.remove(&path);
        }
        KeyCode::Char(' ') if !app.collapsed.remove(&path) => {
            app.collapsed.insert(path);
        }
        _ => {}
    }
}
