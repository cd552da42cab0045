//! `sp tui`: the profile in a terminal, over SSH on a login node. A front end like
//! [`crate::cli`]: every number it shows comes from `sp::analysis` (the code `sp inspect`
//! and the browser page use); this module reads the files, keeps the state ([`app`]),
//! turns keys into changes of it ([`input`]), draws it ([`views`], one module per view)
//! and owns the terminal while it runs ([`term`]).
//!
//! Files are opened before the screen is taken, so a file that cannot be opened is one
//! line on stderr and exit status 1; a stdout that is not a terminal is a usage error
//! (exit 2) pointing at `sp inspect`.

mod app;
mod data;
mod input;
mod jobs;
mod lanes;
mod report;
mod style;
mod term;
mod views;

#[cfg(test)]
mod svg;
#[cfg(test)]
mod tests;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};

use crate::failure::Failure;
use app::App;
use data::Doc;
use style::Look;

/// Opens `files` (one profile, or two to compare) and runs the interface until `q`.
pub fn run(files: &[PathBuf]) -> Result<(), Failure> {
    if !std::io::stdout().is_terminal() {
        return Err(Failure::usage(
            "stdout is not a terminal, and sp tui draws on one: use `sp inspect FILE` for text, \
             CSV or JSON",
        ));
    }
    let docs = files
        .iter()
        .map(|f| Doc::open(f))
        .collect::<Result<Vec<_>, _>>()?;
    let mut app = App::new(docs, Look::from_env());
    let mut screen =
        term::Screen::take().map_err(|e| Failure::new(format!("cannot take the terminal: {e}")))?;
    let failed = |e: std::io::Error| Failure::new(format!("the terminal failed: {e}"));
    loop {
        {
            let _drawing = term::DRAWING.lock();
            screen
                .terminal
                .draw(|f| views::draw(&app, f))
                .map_err(failed)?;
        }
        if app.quit {
            return Ok(());
        }
        app.start_wanted();
        if wait_for_event(&mut app).map_err(failed)? {
            match event::read().map_err(failed)? {
                Event::Key(k) if k.kind != KeyEventKind::Release => {
                    if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
                        // Raw mode turns Ctrl-C into a key: end as SIGINT would.
                        drop(screen);
                        std::process::exit(130);
                    }
                    input::key(&mut app, k);
                }
                Event::Mouse(m) => input::mouse(&mut app, m),
                _ => {}
            }
        }
        app.collect();
        app.tick += 1;
    }
}

/// Waits for a key or the mouse (whether one came): up to a second when nothing runs;
/// while jobs run, until the spinner's next frame (50 ms) or a job's result, whichever
/// comes first, so that rows computed on a job are shown within a few milliseconds of
/// landing rather than up to a frame later.
fn wait_for_event(app: &mut App) -> std::io::Result<bool> {
    if app.jobs.running() == 0 {
        return event::poll(Duration::from_secs(1));
    }
    let until = std::time::Instant::now() + Duration::from_millis(50);
    loop {
        let left = until.saturating_duration_since(std::time::Instant::now());
        if event::poll(left.min(Duration::from_millis(5)))? {
            return Ok(true);
        }
        if left.is_zero() || app.jobs.landed() {
            return Ok(false);
        }
    }
}
