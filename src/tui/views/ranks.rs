//! Ranks: the load-balance table (each region's mean, min and max over the ranks, the
//! slowest rank, its imbalance and excess; flagged lines marked) and the rank × region
//! heatmap in half-block cells (two regions a line: the upper and the lower half), shaded
//! against each line's mean by the library's [`deviation`] (red above, blue below; `+`/`−`
//! in monochrome), with a legend.
//! One column per rank up to the screen's width, so 10,000 ranks scroll (`←`/`→`).
//! Past [`MANY_RANKS`] ranks the view shows each region's distribution over the ranks
//! instead (min, quartiles, max, the slowest and the outlier ranks, a box plot on a scale
//! shared by the regions); Enter lists a region's ranks by value, building only the rows
//! on screen.

use crossterm::event::KeyCode;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use sp::analysis::balance::{balance_lines, deviation, Balance};
use sp::analysis::rank_distribution::{by_value, Distribution, MANY_RANKS};
use sp::analysis::units::{count_text, duration_text, pct_text, signed_pct};
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
    if balance.ranks.len() > MANY_RANKS {
        let spread = app.report.as_ref().map_or(&[][..], |r| r.spread());
        match &app.rank_drill {
            Some((name, list)) => draw_drill(app, f, area, balance, name, list),
            None => draw_many(app, f, area, balance, spread),
        }
        return;
    }
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
    let many = (app.report.as_ref().ok())
        .and_then(|r| r.balance.as_ref())
        .filter(|b| b.ranks.len() > MANY_RANKS);
    if let Some(b) = many {
        if let Some((_, list)) = &app.rank_drill {
            let n = list.len();
            if code == KeyCode::Esc || code == KeyCode::Backspace {
                app.rank_drill = None;
            } else {
                list_key(app, "rank-list", code, n);
            }
            return;
        }
        if code == KeyCode::Enter {
            let at = app.cursor("ranks").at;
            if let Some(r) = b.regions.get(at) {
                let list = by_value(&b.ranks, &r.values);
                app.rank_drill = Some((r.name.clone(), list));
                app.cursors.remove("rank-list");
            }
            return;
        }
    }
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

/// A box plot in `width` cells on a scale from 0 to `scale`: whiskers `─`, the box `█`
/// from the first to the third quartile, the median `┃`, outliers beyond the whiskers `·`
/// (at the min and max when they lie outside).
fn box_plot(d: &Distribution, whiskers: (f64, f64), scale: f64, width: usize) -> String {
    let width = width.max(3);
    let at = |v: f64| {
        if scale > 0.0 && v.is_finite() {
            ((v / scale) * (width - 1) as f64)
                .round()
                .clamp(0.0, (width - 1) as f64) as usize
        } else {
            0
        }
    };
    let mut cells = vec![' '; width];
    for c in &mut cells[at(whiskers.0)..=at(whiskers.1).max(at(whiskers.0))] {
        *c = '─';
    }
    for c in &mut cells[at(d.q1)..=at(d.q3).max(at(d.q1))] {
        *c = '█';
    }
    cells[at(d.median)] = '┃';
    if d.min < whiskers.0 {
        cells[at(d.min)] = '·';
    }
    if d.max > whiskers.1 {
        cells[at(d.max)] = '·';
    }
    cells.into_iter().collect()
}

/// The regions' distributions over many ranks: a line per region, then the selected
/// region's outlier ranks.
fn draw_many(
    app: &App,
    f: &mut Frame,
    area: Rect,
    balance: &Balance,
    spread: &[(Distribution, (f64, f64))],
) {
    let look = app.look;
    let w = area.width as usize;
    let num = 9;
    let fixed = 5 * (num + 1) + 13 + 10;
    let name_w = (w.saturating_sub(fixed) / 2).clamp(12, 40);
    let bar_w = w.saturating_sub(fixed + name_w + 1).max(3);
    let scale = spread.iter().map(|(d, _)| d.max).fold(0.0, f64::max);
    let mut out = vec![
        Line::styled(
            format!(
                "{} ranks: each region's {} over them · box: quartiles, ┃ median, ─ within 1.5 IQR, · outliers · Enter: a region's ranks by value",
                count_text(balance.ranks.len() as u64),
                balance.metric()
            ),
            look.dim(),
        ),
        Line::styled(
            format!(
                "{} {:>num$} {:>num$} {:>num$} {:>num$} {:>num$} {:>12} {:>9} {}",
                text::pad("region", name_w),
                "min",
                "q1",
                "median",
                "q3",
                "max",
                "slowest",
                "outliers",
                text::pad(&format!("0 … {}", duration_text(Some(scale))), bar_w),
            ),
            look.header(),
        ),
    ];
    let c = app.cursor("ranks");
    let detail_h = 4;
    let rows_h = (area.height as usize).saturating_sub(2 + detail_h).max(1);
    let first = top(c, rows_h);
    for (i, (region, (d, wh))) in balance
        .regions
        .iter()
        .zip(spread)
        .enumerate()
        .skip(first)
        .take(rows_h)
    {
        let style = if i == c.at {
            look.selected()
        } else {
            Style::new()
        };
        let t = |v: f64| duration_text(Some(v));
        out.push(Line::from(vec![
            Span::styled(
                format!(
                    "{} {:>num$} {:>num$} {:>num$} {:>num$} {:>num$} {:>12} {:>9} ",
                    text::pad(&text::truncate(&shown(&region.name), name_w), name_w),
                    t(d.min),
                    t(d.q1),
                    t(d.median),
                    t(d.q3),
                    t(d.max),
                    format!("rank {}", d.max_rank),
                    count_text(d.outlier_count as u64),
                ),
                style,
            ),
            Span::styled(box_plot(d, *wh, scale, bar_w), style.patch(look.dim())),
        ]));
    }
    // The selected region's outliers, farthest from the median first.
    if let Some((region, (d, _))) = balance.regions.iter().zip(spread).nth(c.at) {
        out.push(Line::raw(""));
        out.push(Line::styled(
            format!(
                "{}: mean {} · slowest rank {} ({} against the mean) · {} of {} ranks outliers (beyond {} … {})",
                shown(&region.name),
                duration_text(Some(d.mean)),
                d.max_rank,
                if d.mean > 0.0 {
                    signed_pct(100.0 * (d.max - d.mean) / d.mean)
                } else {
                    "-".into()
                },
                count_text(d.outlier_count as u64),
                count_text(d.count as u64),
                duration_text(Some(d.low_fence.max(0.0))),
                duration_text(Some(d.high_fence)),
            ),
            look.header(),
        ));
        // As many as fit the line.
        let mut line = String::from("outliers:");
        for (k, o) in d.outliers.iter().enumerate() {
            let item = format!(
                "{}{} {}",
                if k == 0 { " " } else { " · " },
                o.name(),
                duration_text(Some(o.value))
            );
            if text::width(&line) + text::width(&item) > w {
                break;
            }
            line.push_str(&item);
        }
        out.push(Line::raw(if d.outliers.is_empty() {
            "no outlier ranks".to_string()
        } else {
            line
        }));
    }
    f.render_widget(Paragraph::new(out), area);
}

/// One region's ranks by value, largest first; only the lines on screen are built.
fn draw_drill(
    app: &App,
    f: &mut Frame,
    area: Rect,
    balance: &Balance,
    name: &str,
    list: &[sp::analysis::rank_distribution::RankValue],
) {
    let look = app.look;
    let mean = balance
        .regions
        .iter()
        .find(|r| r.name == name)
        .map_or(0.0, |r| r.mean);
    let mut out = vec![
        Line::styled(
            format!(
                "{}: its {} ranks by {}, largest first · mean {} · Esc: back",
                shown(name),
                count_text(list.len() as u64),
                balance.metric(),
                duration_text(Some(mean))
            ),
            look.dim(),
        ),
        Line::styled(
            format!(
                "{:>9}  {:<12} {:>10} {:>9}",
                "#", "rank", "value", "vs mean"
            ),
            look.header(),
        ),
    ];
    let c = app.cursor("rank-list");
    let rows_h = (area.height as usize).saturating_sub(2).max(1);
    let first = top(c, rows_h);
    for (i, r) in list.iter().enumerate().skip(first).take(rows_h) {
        let style = if i == c.at {
            look.selected()
        } else {
            Style::new()
        };
        let vs = if mean > 0.0 {
            signed_pct(100.0 * (r.value - mean) / mean)
        } else {
            "-".into()
        };
        out.push(Line::styled(
            format!(
                "{:>9}  {:<12} {:>10} {:>9}",
                count_text(i as u64 + 1),
                r.name(),
                duration_text(Some(r.value)),
                vs
            ),
            style,
        ));
    }
    f.render_widget(Paragraph::new(out), area);
}
