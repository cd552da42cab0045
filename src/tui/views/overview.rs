//! Overview: the headline numbers (wall time, ranks, regions, the top hotspot, the worst
//! imbalance and its slowest rank), the findings, and the hotspots as bars; all of it the
//! library's [`Overview`](sp::analysis::overview::Overview), as the page's first view.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;
use sp::analysis::overview::{Part, Tone};
use sp::text;

use super::shown;
use crate::tui::app::{App, TreeWork};
use crate::tui::style::Look;

fn tone(look: Look, t: Tone) -> Style {
    match t {
        Tone::Plain => Style::new(),
        Tone::Info => look.header(),
        Tone::Warn => look.warn(),
    }
}

fn parts(parts: &[Part], style: Style, look: Look) -> Vec<Span<'static>> {
    parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => Span::styled(shown(t), style),
            Part::Region(r) => Span::styled(shown(r), style.patch(look.header())),
            Part::Anchor { text, .. } => Span::styled(shown(text), style),
        })
        .collect()
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
    let ov = &report.overview;
    let doc = &app.docs[0];
    let rows = match (report.tree, app.tree_work(0), app.recomputing(0)) {
        (true, _, Some(p)) => format!("call tree of the old options · new: {p} %"),
        (false, _, Some(p)) => format!("index (flat rows) of the old options · new: {p} %"),
        (true, _, None) => "call tree".to_string(),
        (false, None, None) => "index (flat rows)".to_string(),
        (false, Some(TreeWork::Reading), None) => {
            "index (flat rows) · reading the call tree".into()
        }
        (false, Some(TreeWork::Building(p)), None) => {
            format!("index (flat rows) · building the call tree, {p} %")
        }
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(shown(&doc.name), look.header()),
        Span::styled(
            format!(
                "  {rows} · {} calls · {}",
                sp::analysis::units::count_text(doc.calls),
                sp::analysis::units::bytes_text(doc.size)
            ),
            look.dim(),
        ),
    ])];
    if ov.empty {
        lines.push(Line::raw("No region recorded any call."));
    }
    let label_width = ov.kpis.iter().map(|k| k.label.len()).max().unwrap_or(0);
    for k in &ov.kpis {
        let mut spans = vec![Span::styled(
            format!("{:>label_width$}  ", k.label),
            look.dim(),
        )];
        spans.extend(parts(&k.value, tone(look, k.tone), look));
        if !k.detail.is_empty() {
            spans.push(Span::styled(format!("  {}", shown(&k.detail)), look.dim()));
        }
        lines.push(Line::from(spans));
    }
    if !ov.findings.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("Findings", look.header()));
        for finding in &ov.findings {
            let mut spans = vec![match finding.tone {
                Tone::Warn => Span::styled("  ! ", look.warn()),
                _ => Span::raw("  · "),
            }];
            spans.extend(parts(&finding.parts, Style::new(), look));
            lines.push(Line::from(spans));
        }
    }
    if !ov.hotspots.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("Hotspots", look.header()));
        let width = area.width as usize;
        let name_width = (width / 4).clamp(12, 32);
        let bar_width = (width / 4).clamp(4, 30);
        for h in &ov.hotspots {
            let mut name = shown(&h.hotspot.name);
            if h.hotspot.kind == sp::analysis::overview::HotspotKind::Own {
                name.push_str(" (own)");
            }
            let name = text::pad(&text::truncate(&name, name_width), name_width).into_owned();
            let cells = h.share / 100.0 * bar_width as f64;
            let bar = bar_text(cells, bar_width);
            let mut spans = vec![
                Span::raw(format!("  {name} ")),
                Span::styled(bar, look.accent()),
                Span::raw(format!(" {:>6}", format!("{:.1}%", h.share))),
                Span::styled(format!("  {}", h.details.join(" · ")), look.dim()),
            ];
            if let Some(flag) = &h.flag {
                spans.push(Span::styled(format!("  {flag}"), look.warn()));
            }
            lines.push(Line::from(spans));
        }
    }
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

/// A bar `cells` long (in eighths of a cell) padded to `width`.
pub fn bar_text(cells: f64, width: usize) -> String {
    const EIGHTHS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let cells = if cells.is_finite() {
        cells.clamp(0.0, width as f64)
    } else {
        0.0
    };
    let full = cells.floor() as usize;
    let rest = ((cells - full as f64) * 8.0).floor() as usize;
    let mut s = "█".repeat(full);
    if full < width {
        s.push(EIGHTHS[rest.min(7)]);
        s.push_str(&" ".repeat(width - full - 1));
    }
    s
}
