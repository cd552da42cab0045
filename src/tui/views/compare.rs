//! Compare (two files given): the rows of `sp diff` — each region's metric in the first
//! file (a) and the second (b), the change and the change in percent — from the library's
//! [`diff`](sp::analysis::compare::diff). `M` switches the metric, `t` the threshold
//! (rows whose |change %| is below it are left out), `o` the order.

use crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use sp::analysis::compare::{diff, DiffOrder, Metric};
use sp::analysis::units::{count_text, duration_text, pct_text, signed_pct};
use sp::text;

use super::{list_key, shown, top};
use crate::tui::app::App;

/// Thresholds `t` cycles through, percent.
pub const THRESHOLDS: [Option<f64>; 4] = [None, Some(1.0), Some(5.0), Some(10.0)];

fn value(metric: Metric, v: Option<f64>) -> String {
    match (metric.is_count(), metric == Metric::Imbalance, v) {
        (_, _, None) => "-".into(),
        (true, _, Some(v)) => count_text(v as u64),
        (_, true, v) => pct_text(v),
        (false, false, v) => duration_text(v),
    }
}

fn comparison(app: &App) -> Option<sp::analysis::compare::Comparison> {
    let a = app.docs.first()?.profile()?;
    let b = app.docs.get(1)?.profile()?;
    let sel = app.options.selection().ok()?;
    Some(diff(a, b, &sel, &app.diff))
}

pub fn draw(app: &App, f: &mut Frame, area: Rect) {
    let look = app.look;
    let Some(cmp) = comparison(app) else {
        f.render_widget(
            Paragraph::new("Compare needs two profiles: sp tui A.h5 B.h5"),
            area,
        );
        return;
    };
    let o = app.diff;
    let w = area.width as usize;
    let name_w = w.saturating_sub(4 * 11).max(12);
    let mut lines = vec![
        Line::from(vec![Span::styled(
            format!(
                "a {}  b {}",
                shown(&app.docs[0].name),
                shown(&app.docs[1].name)
            ),
            look.dim(),
        )]),
        Line::from(vec![Span::styled(
            format!(
                "metric {} (M) · threshold {} (t) · order {} (o)",
                o.metric.name(),
                o.threshold.map_or("none".into(), |t| format!("{t}%")),
                o.order.name()
            ),
            look.dim(),
        )]),
        Line::styled(
            format!(
                "{} {:>10} {:>10} {:>10} {:>10}",
                text::pad("region", name_w),
                "a",
                "b",
                "change",
                "change %"
            ),
            look.header(),
        ),
    ];
    let c = app.cursor("compare");
    let height = (area.height as usize).saturating_sub(lines.len());
    let first = top(c, height);
    for (i, row) in cmp.rows.iter().enumerate().skip(first).take(height) {
        let style = if i == c.at {
            look.selected()
        } else {
            Style::new()
        };
        let change = if o.metric.is_count() {
            format!("{:+}", row.delta as i64)
        } else if o.metric == Metric::Imbalance {
            signed_pct(row.delta)
        } else {
            duration_text(Some(row.delta))
        };
        let pct = row.pct.map_or("new".into(), signed_pct);
        let tone = match row.pct {
            Some(p) if p > 0.0 => look.warn(),
            _ => Style::new(),
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!(
                    "{} {:>10} {:>10} {:>10} ",
                    text::pad(&text::truncate(&shown(&row.name), name_w), name_w),
                    value(o.metric, row.a),
                    value(o.metric, row.b),
                    change
                ),
                style,
            ),
            Span::styled(format!("{pct:>10}"), style.patch(tone)),
        ]));
    }
    for warning in &cmp.warnings {
        lines.push(Line::styled(shown(warning), look.warn()));
    }
    f.render_widget(Paragraph::new(lines), area);
}

pub fn key(app: &mut App, code: KeyCode) {
    let n = comparison(app).map_or(0, |c| c.rows.len());
    if list_key(app, "compare", code, n) {
        return;
    }
    let o = &mut app.diff;
    match code {
        KeyCode::Char('M') => {
            let at = Metric::ALL
                .iter()
                .position(|m| m.0 == o.metric)
                .unwrap_or(0);
            o.metric = Metric::ALL[(at + 1) % Metric::ALL.len()].0;
        }
        KeyCode::Char('t') => {
            let at = THRESHOLDS
                .iter()
                .position(|t| *t == o.threshold)
                .unwrap_or(0);
            o.threshold = THRESHOLDS[(at + 1) % THRESHOLDS.len()];
        }
        KeyCode::Char('o') => {
            let at = DiffOrder::ALL
                .iter()
                .position(|d| d.0 == o.order)
                .unwrap_or(0);
            o.order = DiffOrder::ALL[(at + 1) % DiffOrder::ALL.len()].0;
        }
        _ => {}
    }
}
