//! Metadata: the file's headline and its metadata by section (Run, System, Parallelism,
//! Slurm, Environment, Other, Modules), exactly as `sp inspect --metadata-only --full`
//! prints them (the library's report, escaped for the terminal), scrolled.

use crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use sp::analysis::report::{FileReport, Format, ReportOptions, ReportWriter};
use sp::text::Show;

use super::{list_key, top};
use crate::tui::app::App;

/// The metadata report's lines.
pub fn lines(app: &App) -> Vec<String> {
    let doc = &app.docs[0];
    let Some(profile) = doc.profile() else {
        return vec![format!("{} is not a profile.", super::shown(&doc.name))];
    };
    let options = ReportOptions {
        metadata_only: true,
        full: true,
        ..ReportOptions::default()
    };
    let mut report = ReportWriter::new(Vec::new(), Format::Table, options).show(Show::Escaped);
    let written = report
        .file(&FileReport {
            name: &doc.name,
            size: doc.size,
            profile,
            rows: &[],
            rows_from_calls: doc.whole.is_some(),
        })
        .and_then(|()| report.finish());
    match written {
        Ok(bytes) => String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_string)
            .collect(),
        Err(e) => vec![format!("the metadata could not be written: {e}")],
    }
}

pub fn draw(app: &App, f: &mut Frame, area: Rect) {
    let all = lines(app);
    let c = app.cursor("meta");
    let first = top(c, area.height as usize);
    let shown: Vec<Line> = all
        .iter()
        .enumerate()
        .skip(first)
        .take(area.height as usize)
        .map(|(i, l)| {
            if i == c.at {
                Line::styled(l.clone(), app.look.selected())
            } else {
                Line::raw(l.clone())
            }
        })
        .collect();
    f.render_widget(Paragraph::new(shown), area);
}

pub fn key(app: &mut App, code: KeyCode) {
    let n = lines(app).len();
    list_key(app, "meta", code, n);
}
