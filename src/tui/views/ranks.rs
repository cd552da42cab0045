//! Ranks: the load-balance table (each region's mean, min and max over the ranks, the
//! slowest rank, its imbalance and excess; flagged lines marked) and the rank × region
//! heatmap in half-block cells (two regions a line: the upper and the lower half), shaded
//! against each line's mean by the library's [`deviation`] (red above, blue below; `+`/`−`
//! in monochrome), with a legend.
//! One column per rank up to the screen's width, so 10,000 ranks scroll (`←`/`→`).

use crossterm::event::KeyCode;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use sp::analysis::balance::{balance_lines, deviation};
use sp::analysis::units::pct_text;
use sp::chart::color::{diverging, Theme};
use sp::text;

use super::{list_key, shown, top};
use crate::tui::app::App;

fn shade(app: &App, value: f64, mean: f64) -> (Option<Color>, char) {
    match deviation(value, mean) {
        None => (None, ' '),
        Some((sign, alpha)) => {
            let theme = if app.look.light {
                Theme::Light
            } else {
                Theme::Dark
            };
            let c = diverging(f64::from(sign) * alpha, theme);
            let mark = if sign > 0 { '+' } else { '−' };
            (app.look.color.then_some(Color::Rgb(c.0, c.1, c.2)), mark)
        }
    }
}

pub fn draw(app: &App, f: &mut Frame, area: Rect) {
    let look = app.look;
    let Some(balance) = app.report.as_ref().ok().and_then(|r| r.balance.as_ref()) else {
        f.render_widget(
            Paragraph::new("No load balance: it needs two ranks or more with time in regions."),
            area,
        );
        return;
    };
    let lines = balance_lines(balance);
    let table_h = (lines.len() as u16 + 2).min(area.height / 2).max(3);
    let [table, heat] =
        Layout::vertical([Constraint::Length(table_h), Constraint::Min(1)]).areas(area);
    let w = table.width as usize;
    let name_w = w.saturating_sub(6 * 10).max(12);
    let mut out = vec![Line::styled(
        format!(
            "{} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            text::pad(&format!("region ({})", balance.metric()), name_w),
            "mean",
            "min",
            "max",
            "slowest",
            "imbal",
            "excess"
        ),
        look.header(),
    )];
    let c = app.cursor("ranks");
    let rows_h = table_h as usize - 1;
    let first = top(c, rows_h);
    for (i, l) in lines.iter().enumerate().skip(first).take(rows_h) {
        let style = if i == c.at {
            look.selected()
        } else {
            Style::new()
        };
        let flag = if l.flag { look.warn() } else { Style::new() };
        out.push(Line::from(vec![
            Span::styled(
                format!(
                    "{} {:>9} {:>9} {:>9} {:>9} ",
                    text::pad(&text::truncate(&shown(&l.name), name_w), name_w),
                    l.mean_text,
                    l.min_text,
                    l.max_text,
                    l.slowest
                ),
                style,
            ),
            Span::styled(
                format!("{:>9}", pct_text(Some(l.imbalance))),
                style.patch(flag),
            ),
            Span::styled(format!(" {:>9}", l.excess_text), style),
        ]));
    }
    f.render_widget(Paragraph::new(out), table);

    // The heatmap: a line per region (then all regions), a cell per rank.
    let label_w = name_w.min(24);
    let cols = (heat.width as usize).saturating_sub(label_w + 1).max(1);
    // A few cells a rank when the ranks are few, one when they are many.
    let cell_w = (cols / balance.ranks.len().max(1)).clamp(1, 6);
    let first_rank = app.rank_offset.min(balance.ranks.len().saturating_sub(1));
    let ranks: Vec<u32> = balance
        .ranks
        .iter()
        .skip(first_rank)
        .take(cols / cell_w)
        .copied()
        .collect();
    let mut out = vec![Line::styled(
        format!(
            "{:label_w$} ranks {}–{} of {} (←/→ scroll)",
            "▀ upper / ▄ lower",
            ranks.first().copied().unwrap_or(0),
            ranks.last().copied().unwrap_or(0),
            balance.ranks.len()
        ),
        look.dim(),
    )];
    let mut names: Vec<Option<&str>> = balance
        .regions
        .iter()
        .map(|r| Some(r.name.as_str()))
        .collect();
    names.push(None);
    // Two region lines per text line: the upper half-block is the first, the lower the second.
    let room = (heat.height as usize).saturating_sub(3);
    for pair in names.chunks(2).take(room) {
        let label = pair
            .iter()
            .map(|n| n.map_or("all regions".to_string(), shown))
            .collect::<Vec<_>>()
            .join(" / ");
        let mut spans = vec![Span::styled(
            format!("{} ", text::pad(&text::truncate(&label, label_w), label_w)),
            look.dim(),
        )];
        for &rank in &ranks {
            let cell = |n: Option<&str>| balance.cell(rank, n).map(|c| shade(app, c.value, c.mean));
            let upper = cell(pair[0]).unwrap_or((None, ' '));
            let lower = pair.get(1).and_then(|n| cell(*n)).unwrap_or((None, ' '));
            let span = if look.color {
                let mut s = Style::new();
                if let Some(c) = upper.0 {
                    s = s.fg(c);
                }
                if let Some(c) = lower.0 {
                    s = s.bg(c);
                }
                Span::styled("▀".repeat(cell_w), s)
            } else {
                let mark = if upper.1 != ' ' { upper.1 } else { lower.1 };
                Span::raw(mark.to_string().repeat(cell_w))
            };
            spans.push(span);
        }
        out.push(Line::from(spans));
    }
    // The legend.
    let theme = if look.light {
        Theme::Light
    } else {
        Theme::Dark
    };
    let swatch = |shade: f64, mark: &str| {
        let c = diverging(shade, theme);
        if look.color {
            Span::styled("██", Style::new().fg(Color::Rgb(c.0, c.1, c.2)))
        } else {
            Span::raw(format!("{mark} "))
        }
    };
    out.push(Line::from(vec![
        Span::styled(format!("{:label_w$} ", ""), look.dim()),
        swatch(0.55, "+"),
        Span::raw(" above the line's mean (+50% or more)  "),
        swatch(0.2, "+"),
        Span::raw(" a little above  "),
        swatch(-0.55, "−"),
        Span::raw(" below  · blank: within 2%"),
    ]));
    f.render_widget(Paragraph::new(out), heat);
}

pub fn key(app: &mut App, code: KeyCode) {
    let (n, ranks) = app
        .report
        .as_ref()
        .ok()
        .and_then(|r| r.balance.as_ref())
        .map_or((0, 0), |b| (b.regions.len(), b.ranks.len()));
    if list_key(app, "ranks", code, n) {
        return;
    }
    let step = 40;
    match code {
        KeyCode::Right | KeyCode::Char('l') => {
            app.rank_offset = (app.rank_offset + step).min(ranks.saturating_sub(1))
        }
        KeyCode::Left | KeyCode::Char('h') => {
            app.rank_offset = app.rank_offset.saturating_sub(step)
        }
        _ => {}
    }
}
