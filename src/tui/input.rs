//! Keys and the mouse: what each does in each view. `?` lists them all ([`HELP`]).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use sp::analysis::{PercentageMode, SortKey};

use super::app::{App, Line, Prompt, View};

/// Every key, as `?` shows it.
pub const HELP: &[(&str, &str)] = &[
    ("Tab / Shift-Tab", "next / previous view"),
    ("1-8", "go to a view"),
    ("↑↓ j k, PgUp PgDn, g G", "move, page, first, last"),
    ("← → h l, Space", "collapse / expand a row of the call tree"),
    ("Enter", "the selected region's detail"),
    ("/", "filter rows by name (Esc clears)"),
    ("s / S", "sort by the next / previous column"),
    ("i / x", "include / exclude regions by regex"),
    ("r", "select ranks (0-3 7)"),
    ("m", "percentage mode: coverage / exclusive"),
    ("p", "percentiles of the shown rows (background)"),
    ("+ - 0, ← →", "timeline: zoom in, out, fit; pan"),
    ("Esc", "stop the work shown on the status line"),
    ("?", "this help"),
    ("q, Ctrl-C", "quit"),
];

/// Handles one key.
pub fn key(app: &mut App, k: KeyEvent) {
    if let Some((prompt, mut text)) = app.prompt.take() {
        match k.code {
            KeyCode::Enter => apply_prompt(app, prompt, text),
            KeyCode::Esc => {}
            KeyCode::Backspace => {
                text.pop();
                app.prompt = Some((prompt, text));
            }
            KeyCode::Char(c) => {
                text.push(c);
                app.prompt = Some((prompt, text));
            }
            _ => app.prompt = Some((prompt, text)),
        }
        return;
    }
    if app.help {
        app.help = false;
        if matches!(k.code, KeyCode::Char('?') | KeyCode::Esc) {
            return;
        }
    }
    app.message = None;
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let before = app.view;
    if k.code == KeyCode::Esc && app.stop() {
        return;
    }
    act(app, k, ctrl);
    if app.view == View::Timeline && before != View::Timeline {
        app.came_from = before;
        app.stopped = false;
    }
}

/// What a key does when no prompt is open and no job is stopped.
fn act(app: &mut App, k: KeyEvent, ctrl: bool) {
    match k.code {
        KeyCode::Char('q') => app.quit = true,
        KeyCode::Char('?') => app.help = true,
        KeyCode::Tab => switch(app, 1),
        KeyCode::BackTab => switch(app, -1),
        KeyCode::Char(c @ '1'..='8') => {
            let want = View::ALL[c as usize - '1' as usize].0;
            if app.views().contains(&want) {
                app.view = want;
            }
        }
        KeyCode::Esc if !app.filter.is_empty() => {
            app.filter.clear();
            app.cursors.remove("regions");
        }
        KeyCode::Esc if app.view == View::Detail => app.view = View::Regions,
        KeyCode::Char('/') => app.prompt = Some((Prompt::Filter, app.filter.clone())),
        KeyCode::Char('i') => app.prompt = Some((Prompt::Include, app.options.include.join(" "))),
        KeyCode::Char('x') => app.prompt = Some((Prompt::Exclude, app.options.exclude.join(" "))),
        KeyCode::Char('r') => app.prompt = Some((Prompt::Ranks, app.options.ranks.clone())),
        KeyCode::Char('s') => sort(app, 1),
        KeyCode::Char('S') => sort(app, -1),
        KeyCode::Char('m') => {
            app.options.mode = match app.options.mode {
                PercentageMode::Coverage => PercentageMode::Exclusive,
                PercentageMode::Exclusive => PercentageMode::Coverage,
            };
            app.recompute();
        }
        KeyCode::Char('p') if app.view == View::Detail => {
            if let Some(name) = app.detail.clone() {
                app.want_percentiles(&name);
            }
        }
        KeyCode::Char('p') => percentiles(app),
        KeyCode::Enter if app.view == View::Regions => {
            if let Some(name) = app.selected_row().map(|row| row.name.clone()) {
                app.show_detail(name);
            }
        }
        _ => super::views::key(app, k.code, ctrl),
    }
}

/// Moves `by` tabs.
fn switch(app: &mut App, by: isize) {
    let views = app.views();
    let at = views.iter().position(|v| *v == app.view).unwrap_or(0) as isize;
    let n = views.len() as isize;
    app.view = views[(at + by).rem_euclid(n) as usize];
}

/// The next (`by` 1) or previous sort column.
fn sort(app: &mut App, by: isize) {
    let keys = SortKey::ALL;
    let at = keys
        .iter()
        .position(|k| k.0 == app.options.sort)
        .unwrap_or(0) as isize;
    let n = keys.len() as isize;
    let (key, name) = keys[(at + by).rem_euclid(n) as usize];
    app.options.sort = key;
    app.resort();
    app.message = Some(format!("sorted by {name}"));
}

/// Sets what a prompt was for, and recomputes.
fn apply_prompt(app: &mut App, prompt: Prompt, text: String) {
    let words = || text.split_whitespace().map(str::to_string).collect();
    let before = app.options.clone();
    match prompt {
        Prompt::Filter => {
            app.filter = text.clone();
            app.cursors.remove("regions");
            return;
        }
        Prompt::Include => app.options.include = words(),
        Prompt::Exclude => app.options.exclude = words(),
        Prompt::Ranks => app.options.ranks = text.trim().to_string(),
    }
    if let Err(e) = app.options.selection() {
        app.message = Some(e);
        app.options = before;
        return;
    }
    app.cursors.remove("regions");
    app.recompute();
}

/// Starts the percentiles of every row shown that has none (index rows).
fn percentiles(app: &mut App) {
    let Ok(report) = &app.report else { return };
    let names: Vec<String> = app
        .lines()
        .iter()
        .filter_map(|l| match l {
            Line::Row(i) => report.rows.get(*i),
            Line::Own(_) => None,
        })
        .filter(|r| r.p50.is_none() && r.calls > 0)
        .map(|r| r.name.clone())
        .collect();
    if names.is_empty() {
        app.message = Some("the rows have their percentiles".into());
    }
    for name in names {
        app.want_percentiles(&name);
    }
}

/// Handles the mouse: the wheel scrolls, a click on a line selects it.
pub fn mouse(app: &mut App, m: MouseEvent) {
    match m.kind {
        MouseEventKind::ScrollDown => super::views::key(app, KeyCode::Down, false),
        MouseEventKind::ScrollUp => super::views::key(app, KeyCode::Up, false),
        _ => {}
    }
}
