//! Region detail (Enter on a row): the region's rows per rank (calls, total, avg, min, max,
//! as `sp inspect --flat --ranks R`), its percentiles (read in the background), where it is
//! in the source (`file:line`, and the line's text when the file is readable here), its
//! tags, and the
//! first calls of the chosen rank with their start, end and duration.

use crossterm::event::KeyCode;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use sp::analysis::events::{Loaded, RowSource};
use sp::analysis::units::{count_text, duration_text};
use sp::schema::EventReader;

use super::{list_key, shown, top};
use crate::tui::app::{App, Pct};
use sp::analysis::rows::rank_rows;

/// Calls of the chosen rank listed.
const FIRST_CALLS: usize = 12;

pub fn draw(app: &App, f: &mut Frame, area: Rect) {
    let look = app.look;
    let doc = &app.docs[0];
    let (Some(name), Some(profile)) = (&app.detail, doc.profile()) else {
        f.render_widget(Paragraph::new("Choose a region in Regions (Enter)."), area);
        return;
    };
    let Some(region) = profile.region(name) else {
        f.render_widget(
            Paragraph::new(format!("{} has no rows.", shown(name))),
            area,
        );
        return;
    };
    let rows = rank_rows(profile, region);
    let c = app.cursor("detail");
    let chosen = rows.get(c.at).map(|r| r.0);
    let [head, body] = Layout::vertical([Constraint::Length(4), Constraint::Min(1)]).areas(area);
    let [per_rank, calls] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body);

    // Name, percentiles, source.
    let mut title = vec![Span::styled(shown(name), look.header())];
    if !app.detail_tags.is_empty() {
        let tags = app.detail_tags.iter().map(|t| shown(t)).collect::<Vec<_>>();
        title.push(Span::styled(
            format!("  tags {}", tags.join(", ")),
            look.dim(),
        ));
    }
    let mut lines = vec![Line::from(title)];
    let pct = match app.percentiles_of(name) {
        Some(Pct::Computing) => "p50/p95/p99: computing…".to_string(),
        Some(Pct::Done(p)) => format!(
            "p50 {} · p95 {} · p99 {}",
            duration_text(p.p50),
            duration_text(p.p95),
            duration_text(p.p99)
        ),
        Some(Pct::Failed(e)) => format!("percentiles: {}", shown(e)),
        None => "percentiles: p".into(),
    };
    lines.push(Line::styled(pct, look.dim()));
    let source = region.ranks.iter().find(|r| r.source_file.is_some());
    match source {
        Some(r) => {
            let file = r.source_file.as_deref().unwrap_or_default();
            let line = r.source_line.unwrap_or(0);
            let text = r
                .source_text
                .as_deref()
                .map(str::to_owned)
                .or_else(|| source_line(file, line))
                .unwrap_or_default();
            lines.push(Line::from(vec![
                Span::styled(format!("{}:{line}", shown(file)), look.accent()),
                Span::raw(format!("  {}", shown(text.trim()))),
            ]));
        }
        None => lines.push(Line::styled("no source location recorded", look.dim())),
    }
    f.render_widget(Paragraph::new(lines), head);

    // Per rank.
    let mut out = vec![Line::styled(
        format!(
            "{:>6} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "rank", "calls", "total", "avg", "min", "max"
        ),
        look.header(),
    )];
    let h = (per_rank.height as usize).saturating_sub(1);
    let first = top(c, h);
    for (i, (rank, row)) in rows.iter().enumerate().skip(first).take(h) {
        let style = if i == c.at {
            look.selected()
        } else {
            Style::new()
        };
        out.push(Line::styled(
            format!(
                "{rank:>6} {:>9} {:>9} {:>9} {:>9} {:>9}",
                count_text(row.calls),
                duration_text(row.total),
                duration_text(row.avg),
                duration_text(row.min),
                duration_text(row.max)
            ),
            style,
        ));
    }
    f.render_widget(Paragraph::new(out), per_rank);

    // First calls of the chosen rank.
    let mut out = vec![Line::styled(
        format!(
            "first calls on rank {}",
            chosen.map_or("-".into(), |r| r.to_string())
        ),
        look.header(),
    )];
    if let Some(row) = chosen.and_then(|r| region.rank(r)) {
        let origin = profile.time_origin();
        let reader = (doc.file.as_ref()).and_then(|f| EventReader::open(&**f).ok().flatten());
        let source: &dyn RowSource = match &reader {
            Some(r) => r,
            None => &Loaded,
        };
        match source.events(row) {
            Ok(ev) => {
                out.push(Line::styled(
                    format!("{:>10} {:>10} {:>10}", "start", "end", "duration"),
                    look.dim(),
                ));
                for (s, e) in ev.starts.iter().zip(&ev.ends).take(FIRST_CALLS) {
                    let (s, e) = (*s as f64 / 1e9 - origin, *e as f64 / 1e9 - origin);
                    out.push(Line::raw(format!(
                        "{:>10} {:>10} {:>10}",
                        duration_text(Some(s)),
                        duration_text(Some(e)),
                        duration_text(Some(e - s))
                    )));
                }
            }
            Err(e) => out.push(Line::styled(
                format!("cannot read: {}", shown(&e.to_string())),
                look.error(),
            )),
        }
    }
    f.render_widget(Paragraph::new(out), calls);
}

/// Line `line` (1-based) of `file`, when it is readable from here.
fn source_line(file: &str, line: i64) -> Option<String> {
    let n = usize::try_from(line).ok()?.checked_sub(1)?;
    let text = std::fs::read_to_string(file).ok()?;
    text.lines().nth(n).map(str::to_string)
}

pub fn key(app: &mut App, code: KeyCode) {
    let n = app
        .detail
        .as_ref()
        .and_then(|name| app.docs[0].profile()?.region(name))
        .map_or(0, |r| r.ranks.len());
    if list_key(app, "detail", code, n) {
        return;
    }
    if code == KeyCode::Char('p') {
        if let Some(name) = app.detail.clone() {
            app.want_percentiles(&name);
        }
    }
}
