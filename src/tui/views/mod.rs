//! The screen: a line of tabs, the view, and a status line (keys, options, bytes read, the
//! spinner of background work); `?` lays the keys over it. One module per view.

mod compare;
mod detail;
mod hdf5;
mod metadata;
mod overview;
mod ranks;
pub(super) mod regions;
mod timeline;

use crossterm::event::KeyCode;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;
use sp::analysis::units::bytes_text;
use sp::text;

use super::app::{percent, App, Cursor, View};
use super::input::HELP;
use super::jobs::{Kind, Task};

const SPINNER: [&str; 4] = ["⠋", "⠙", "⠸", "⠴"];

/// Draws the whole screen.
pub fn draw(app: &App, f: &mut Frame) {
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(f.area());
    draw_tabs(app, f, tabs);
    app.height.set(body.height as usize);
    match app.view {
        View::Overview => overview::draw(app, f, body),
        View::Regions => regions::draw(app, f, body),
        View::Detail => detail::draw(app, f, body),
        View::Ranks => ranks::draw(app, f, body),
        View::Timeline => timeline::draw(app, f, body),
        View::Metadata => metadata::draw(app, f, body),
        View::Hdf5 => hdf5::draw(app, f, body),
        View::Compare => compare::draw(app, f, body),
    }
    draw_status(app, f, status);
    if app.help {
        draw_help(app, f, body);
    }
}

/// Keys the current view handles itself (moving, expanding, zooming).
pub fn key(app: &mut App, code: KeyCode, ctrl: bool) {
    match app.view {
        View::Regions => regions::key(app, code),
        View::Detail => detail::key(app, code),
        View::Ranks => ranks::key(app, code),
        View::Timeline => timeline::key(app, code),
        View::Metadata => metadata::key(app, code),
        View::Hdf5 => hdf5::key(app, code),
        View::Compare => compare::key(app, code),
        View::Overview => {}
    }
    let _ = ctrl;
}

/// Moves the cursor `name` over `len` lines for a list key; whether the key was one.
pub fn list_key(app: &mut App, name: &'static str, code: KeyCode, len: usize) -> bool {
    let height = app.height.get().saturating_sub(1).max(1);
    let page = height.saturating_sub(1).max(1) as isize;
    let mut c = app.cursor(name);
    match code {
        KeyCode::Down | KeyCode::Char('j') => c.step(1, len),
        KeyCode::Up | KeyCode::Char('k') => c.step(-1, len),
        KeyCode::PageDown | KeyCode::Char(' ') if name != "regions" => c.step(page, len),
        KeyCode::PageDown => c.step(page, len),
        KeyCode::PageUp => c.step(-page, len),
        KeyCode::Home | KeyCode::Char('g') => c.at = 0,
        KeyCode::End | KeyCode::Char('G') => c.at = len.saturating_sub(1),
        _ => return false,
    }
    c.scroll(height);
    app.cursors.insert(name, c);
    true
}

/// The first visible line of cursor `c` in a list `height` lines high.
pub fn top(c: Cursor, height: usize) -> usize {
    let mut c = c;
    c.scroll(height)
}

/// Text from a file, escaped for the terminal.
pub fn shown(s: &str) -> String {
    text::escape(s).into_owned()
}

fn draw_tabs(app: &App, f: &mut Frame, area: Rect) {
    let mut spans = Vec::new();
    for (i, view) in app.views().iter().enumerate() {
        let number = View::ALL.iter().position(|v| v.0 == *view).unwrap_or(i) + 1;
        let label = format!(" {number} {} ", view.title());
        spans.push(if *view == app.view {
            Span::styled(label, app.look.selected())
        } else {
            Span::raw(label)
        });
    }
    let used: usize = spans.iter().map(|s| s.width()).sum();
    let name = shown(&app.docs[0].name);
    let room = (area.width as usize).saturating_sub(used + 1);
    if room > 4 {
        let name = text::truncate(&name, room).into_owned();
        let pad = room.saturating_sub(text::width(&name));
        spans.push(Span::raw(" ".repeat(pad + 1)));
        spans.push(Span::styled(name, app.look.dim()));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_status(app: &App, f: &mut Frame, area: Rect) {
    let look = app.look;
    let mut spans = Vec::new();
    if let Some((prompt, text)) = &app.prompt {
        spans.push(Span::styled(format!("{}: ", prompt.label()), look.header()));
        spans.push(Span::raw(format!("{}▏", shown(text))));
        spans.push(Span::styled("  Enter sets, Esc cancels", look.dim()));
        f.render_widget(Paragraph::new(Line::from(spans)), area);
        return;
    }
    if let Some(p) = progress(app) {
        spans.push(Span::styled(
            format!("{} {p} ", SPINNER[app.tick % SPINNER.len()]),
            look.warn(),
        ));
        // The call tree's read cannot be stopped.
        let stops = (app.jobs.tasks.iter()).any(|t| !matches!(t.kind, Kind::Whole { .. }));
        let hint = if stops { "· Esc stops · " } else { "· " };
        spans.push(Span::styled(hint, look.dim()));
    }
    if let Some(m) = &app.message {
        spans.push(Span::styled(format!("{} ", shown(m)), look.warn()));
    }
    let o = &app.options;
    let sort = sp::analysis::SortKey::ALL
        .iter()
        .find(|k| k.0 == o.sort)
        .map_or("", |k| k.1);
    let mut state = format!("sort {sort}");
    if o.mode == sp::analysis::PercentageMode::Exclusive {
        state.push_str(" · exclusive %");
    }
    if !o.include.is_empty() {
        state.push_str(&format!(" · include {}", o.include.join(" ")));
    }
    if !o.exclude.is_empty() {
        state.push_str(&format!(" · exclude {}", o.exclude.join(" ")));
    }
    if !o.ranks.is_empty() {
        state.push_str(&format!(" · ranks {}", o.ranks));
    }
    if !app.filter.is_empty() {
        state.push_str(&format!(" · /{}", app.filter));
    }
    spans.push(Span::raw(shown(&state)));
    let read = format!(" · read {}", bytes_text(app.docs[0].bytes_read()));
    spans.push(Span::styled(read, look.dim()));
    spans.push(Span::styled("  ? keys  q quit", look.dim()));
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The running jobs on the status line: what the first does (and how many others run),
/// and a bar of the jobs that count as it does: the bytes read of the total for reads, the
/// percentage done for a call tree being built.
fn progress(app: &App) -> Option<String> {
    let tasks = &app.jobs.tasks;
    let first = tasks.first()?;
    let mut out = first.what.clone();
    if tasks.len() > 1 {
        out.push_str(&format!(" (+{} more)", tasks.len() - 1));
    }
    let building = |t: &Task| matches!(t.kind, Kind::Report { .. } | Kind::Rows { .. });
    let (done, total) = (tasks.iter())
        .filter(|t| building(t) == building(first))
        .map(|t| (t.progress.done(), t.progress.total()))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    if total > 0 && building(first) {
        out.push_str(&format!(
            " {} {} %",
            bar(done, total, 10),
            percent(done, total)
        ));
    } else if total > 0 {
        out.push_str(&format!(
            " {} {} of {}",
            bar(done, total, 10),
            bytes_text(done),
            bytes_text(total)
        ));
    }
    Some(out)
}

/// `done` of `total` as a bar of `width` cells, in eighths.
pub fn bar(done: u64, total: u64, width: usize) -> String {
    const EIGHTHS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let eighths =
        (u128::from(done.min(total)) * (width as u128 * 8) / u128::from(total.max(1))) as usize;
    let mut s = "█".repeat(eighths / 8);
    s.push_str(EIGHTHS[eighths % 8]);
    let used = eighths / 8 + usize::from(eighths % 8 > 0);
    s.push_str(&" ".repeat(width - used));
    format!("▕{s}▏")
}

fn draw_help(app: &App, f: &mut Frame, body: Rect) {
    let width = body.width.min(64);
    let height = body.height.min(HELP.len() as u16 + 2);
    let area = Rect {
        x: body.x + (body.width - width) / 2,
        y: body.y + (body.height - height) / 2,
        width,
        height,
    };
    let lines: Vec<Line> = HELP
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!("{k:>24}  "), app.look.header()),
                Span::raw(*what),
            ])
        })
        .collect();
    f.render_widget(Clear, area);
    f.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(" keys ")),
        area,
    );
}
