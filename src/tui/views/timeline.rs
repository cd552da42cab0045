//! Timeline: one line per (rank, depth) lane, each cell a pixel of the library's streaming
//! timeline summary ([`sp::analysis::timeline`]): in the colour of the region with most time
//! in it (the library's palette, the same in every lane), shaded by how busy it is — `█`
//! full, `▓`, `▒`, `░` less — so a zoomed-out run shows where time goes. `+`/`-` zoom,
//! `←`/`→` pan, `0` fits, `j`/`k` scroll the lanes. Ranks are summarised as they come into
//! view, by a job beside the interface (the status line shows how far it has got, Esc stops
//! it and goes back to the last window drawn whole), and a zoom or pan reads only the calls
//! in the window.

use crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use sp::analysis::timeline::{Pixel, View};
use sp::analysis::units::duration_text;

use super::{list_key, shown};
use crate::tui::app::App;

/// The glyph of a pixel `width` ns wide: blank with no call, else by the share it is busy.
fn glyph(p: &Pixel, width: i64) -> char {
    if p.calls == 0 {
        return ' ';
    }
    let share = p.busy as f64 / width.max(1) as f64;
    match share {
        s if s >= 0.875 => '█',
        s if s >= 0.5 => '▓',
        s if s >= 0.25 => '▒',
        _ => '░',
    }
}

/// The window on screen, absolute ns: the app's (from the first call) or the whole span.
fn window(app: &App, lo: i64, hi: i64) -> (i64, i64) {
    let (t0, t1) = match app.window {
        Some((a, b)) => (lo.saturating_add(a as i64), lo.saturating_add(b as i64)),
        None => (lo, hi.saturating_add(1)),
    };
    (t0, t1.max(t0.saturating_add(1)))
}

pub fn draw(app: &App, f: &mut Frame, area: Rect) {
    let look = app.look;
    let label_w = 10usize;
    let width = (area.width as usize).saturating_sub(label_w).max(1);
    let height = (area.height as usize).saturating_sub(2);
    let c = app.cursor("timeline");
    let (lo, hi) = match app.timeline_span() {
        Ok(Some(span)) => span,
        Ok(None) => {
            f.render_widget(Paragraph::new("No calls to draw on these ranks."), area);
            return;
        }
        Err(e) => {
            let text = format!("The calls could not be read: {}", shown(&e));
            f.render_widget(Paragraph::new(text).style(look.error()), area);
            return;
        }
    };
    let (t0, t1) = window(app, lo, hi);
    let view = View { t0, t1, width };
    let edges = view.edges();
    let from = |t: i64| duration_text(Some(t.saturating_sub(lo) as f64 / 1e9));
    let mut out = vec![Line::styled(
        format!(
            "{:label_w$}{} … {}  ({} shown)",
            "",
            from(t0),
            from(t1),
            duration_text(Some((t1 - t0) as f64 / 1e9)),
        ),
        look.dim(),
    )];
    let regions = app.docs[0].profile().map(|p| &p.regions[..]).unwrap_or(&[]);
    let ranks = app.rank_list();
    let first_rank = c.at.min(ranks.len().saturating_sub(1));
    let mut seen: Vec<u32> = Vec::new();
    // Ranks are summarised (by a job) as their lanes come on screen.
    for &rank in ranks.iter().skip(first_rank) {
        if out.len() > height {
            break;
        }
        if !app.lanes_of(rank, view) {
            let note = if app.stopped {
                "not read: Esc stopped it (+ - 0 ← → j k read again)"
            } else {
                "reading…"
            };
            out.push(Line::from(vec![
                Span::styled(format!("{:<label_w$}", format!("rank {rank}")), look.dim()),
                Span::styled(note, look.dim()),
            ]));
            // Room for the lanes it will have, so only the ranks that fit are read.
            for _ in 1..app.lanes_guess(rank).unwrap_or(1) {
                out.push(Line::raw(""));
            }
            continue;
        }
        let lanes = app.lanes.borrow();
        let Some((_, summary)) = lanes.get(&rank).and_then(|l| l.summary.as_ref()) else {
            continue;
        };
        let rows: Vec<Vec<(char, Style)>> = match summary {
            Ok(s) => s
                .lanes
                .iter()
                .map(|lane| {
                    lane.iter()
                        .enumerate()
                        .map(|(x, p)| {
                            let g = glyph(p, edges[x + 1] - edges[x]);
                            let style = match p.region.filter(|_| g != ' ') {
                                Some(r) => {
                                    if !seen.contains(&r) {
                                        seen.push(r);
                                    }
                                    look.region(r).map_or(Style::new(), |c| Style::new().fg(c))
                                }
                                None => Style::new(),
                            };
                            (g, style)
                        })
                        .collect()
                })
                .collect(),
            Err(e) => vec![format!("cannot read: {}", shown(e))
                .chars()
                .map(|c| (c, look.error()))
                .take(width)
                .collect()],
        };
        for (depth, cells) in rows.into_iter().enumerate() {
            if out.len() > height {
                break;
            }
            let label = if depth == 0 {
                format!("rank {rank}")
            } else {
                String::new()
            };
            let mut spans = vec![Span::styled(format!("{label:<label_w$}"), look.dim())];
            spans.extend(
                cells
                    .into_iter()
                    .map(|(c, s)| Span::styled(c.to_string(), s)),
            );
            out.push(Line::from(spans));
        }
    }
    // The legend: each region drawn, in its colour.
    let mut legend = vec![Span::raw(format!("{:label_w$}", ""))];
    for r in seen.iter().take(8) {
        let name = regions
            .get(*r as usize)
            .map_or(String::new(), |g| shown(&g.name));
        let style = look.region(*r).map_or(Style::new(), |c| Style::new().fg(c));
        legend.push(Span::styled("█ ", style));
        legend.push(Span::raw(format!("{name}  ")));
    }
    while out.len() < (area.height as usize).saturating_sub(1) {
        out.push(Line::raw(""));
    }
    out.push(Line::from(legend));
    f.render_widget(Paragraph::new(out), area);
}

pub fn key(app: &mut App, code: KeyCode) {
    let n = app.rank_list().len();
    if list_key(app, "timeline", code, n) {
        app.stopped = false;
        return;
    }
    let Ok(Some((lo, hi))) = app.timeline_span() else {
        return;
    };
    let full = (hi - lo).max(1) as f64;
    let (a, b) = app.window.unwrap_or((0.0, full));
    let w = b - a;
    let (a, b) = match code {
        KeyCode::Char('+') | KeyCode::Char('=') => (a + w / 4.0, b - w / 4.0),
        KeyCode::Char('-') => (a - w / 2.0, b + w / 2.0),
        KeyCode::Left | KeyCode::Char('h') => (a - w / 8.0, b - w / 8.0),
        KeyCode::Right | KeyCode::Char('l') => (a + w / 8.0, b + w / 8.0),
        KeyCode::Char('0') => (0.0, full),
        _ => return,
    };
    let w = (b - a).clamp(1.0, full);
    let a = a.clamp(0.0, (full - w).max(0.0));
    app.window = Some((a, a + w));
    app.stopped = false;
}
