//! Timeline: one line per (rank, depth) lane, each cell a column of time, drawn from the
//! page's level of detail ([`shapes`]): a call at least a cell wide fills its cells in its
//! region's colour (the library's palette, the same in every lane); a run of narrower
//! calls is one block in the colour of its dominant region, shaded `▒`. `+`/`-` zoom,
//! `←`/`→` pan, `0` fits, `j`/`k` scroll the lanes. Ranks are read as they come into view.

use crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use sp::analysis::lod::shapes;
use sp::analysis::units::duration_text;

use super::{list_key, shown};
use crate::tui::app::App;

pub fn draw(app: &App, f: &mut Frame, area: Rect) {
    let look = app.look;
    let label_w = 10usize;
    let width = (area.width as usize).saturating_sub(label_w).max(1);
    let height = (area.height as usize).saturating_sub(2);
    let c = app.cursor("timeline");
    // Read the ranks that come into view.
    let ranks = app.rank_list();
    let first_rank = c.at.min(ranks.len().saturating_sub(1));
    for &rank in ranks.iter().skip(first_rank).take(height) {
        app.read_lanes(rank);
    }
    let lanes = app.lanes.borrow();
    let extent = lanes
        .values()
        .filter_map(|l| l.as_ref().ok()?.span)
        .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
    let Some((lo, hi)) = extent else {
        f.render_widget(Paragraph::new("No calls to draw on these ranks."), area);
        return;
    };
    let (t0, t1) = app
        .window
        .map(|(a, b)| (lo as f64 + a, lo as f64 + b))
        .unwrap_or((lo as f64, hi.max(lo + 1) as f64));
    let scale = width as f64 / (t1 - t0).max(1.0);
    let mut out = vec![Line::styled(
        format!(
            "{:label_w$}{} … {}  ({} shown)",
            "",
            duration_text(Some((t0 - lo as f64) / 1e9)),
            duration_text(Some((t1 - lo as f64) / 1e9)),
            duration_text(Some((t1 - t0) / 1e9)),
        ),
        look.dim(),
    )];
    let regions = app.docs[0].profile().map(|p| &p.regions[..]).unwrap_or(&[]);
    let mut seen: Vec<u32> = Vec::new();
    let list: Vec<(u32, usize)> = ranks
        .iter()
        .skip(first_rank)
        .flat_map(|&rank| match lanes.get(&rank) {
            Some(Ok(l)) => (0..l.lanes.len().max(1))
                .map(|d| (rank, d))
                .collect::<Vec<_>>(),
            _ => vec![(rank, 0)],
        })
        .take(height)
        .collect();
    for (rank, depth) in list {
        let label = if depth == 0 {
            format!("rank {rank}")
        } else {
            String::new()
        };
        let mut spans = vec![Span::styled(format!("{label:<label_w$}"), look.dim())];
        let mut cells: Vec<(char, Style)> = vec![(' ', Style::new()); width];
        match lanes.get(&rank) {
            Some(Ok(l)) => {
                if let Some(lane) = l.lanes.get(depth) {
                    let mut cursors = Vec::new();
                    shapes(lane, t0, t1, scale, |s| {
                        let merged = s.end - s.first > 1;
                        let region = if merged {
                            lane.dominant(s.first, s.end, &mut cursors).0
                        } else {
                            lane.regions[s.first]
                        };
                        if !seen.contains(&region) {
                            seen.push(region);
                        }
                        let x0 = s.x0.max(0.0) as usize;
                        let x1 = (s.x1.ceil().max(s.x0 + 1.0) as usize).min(width);
                        let style = match look.region(region) {
                            Some(c) => Style::new().fg(c),
                            None => Style::new(),
                        };
                        let glyph = if merged { '▒' } else { '█' };
                        for cell in cells.iter_mut().take(x1).skip(x0) {
                            *cell = (glyph, style);
                        }
                        true
                    });
                }
            }
            Some(Err(e)) => {
                cells = format!("cannot read: {}", shown(e))
                    .chars()
                    .map(|c| (c, look.error()))
                    .take(width)
                    .collect()
            }
            None => {}
        }
        spans.extend(
            cells
                .into_iter()
                .map(|(c, s)| Span::styled(c.to_string(), s)),
        );
        out.push(Line::from(spans));
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
    while out.len() < area.height as usize - 1 {
        out.push(Line::raw(""));
    }
    out.push(Line::from(legend));
    f.render_widget(Paragraph::new(out), area);
}

pub fn key(app: &mut App, code: KeyCode) {
    let n = app.rank_list().len();
    if list_key(app, "timeline", code, n) {
        return;
    }
    let extent = app
        .lanes
        .borrow()
        .values()
        .filter_map(|l| l.as_ref().ok()?.span)
        .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
    let Some((lo, hi)) = extent else { return };
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
}
