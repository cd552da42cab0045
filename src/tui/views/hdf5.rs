//! HDF5: the tree of any HDF5 file (groups, datasets with datatype, shape and storage,
//! attributes with their first values), as `sp ls` lists it (the library's
//! [`tree`](sp::hdf5lite::tree)); what cannot be read is listed with the reason. A file
//! that is not a profile opens here.

use crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use sp::hdf5lite::tree::{self, Options, Walk};

use super::{list_key, shown, top};
use crate::tui::app::App;

/// Values of each dataset shown, as `sp ls --data` shows them.
const VALUES: u64 = 8;

/// The listing's lines, read once per app (the tree is cached after the first draw).
pub fn lines(app: &App) -> Vec<String> {
    if let Some(cached) = app.hdf5_lines.get() {
        return cached.clone();
    }
    let doc = &app.docs[0];
    let options = Options {
        values: true,
        max_elements: Some(VALUES),
    };
    let Some(file) = &doc.file else {
        return vec!["a JSON profile: no HDF5 tree".to_owned()];
    };
    let out = match Walk::new(&**file, "/", options) {
        Ok(walk) => {
            let mut bytes = Vec::new();
            match tree::write_text(&mut bytes, walk) {
                Ok(()) => String::from_utf8_lossy(&bytes).lines().map(shown).collect(),
                Err(e) => vec![format!("the tree could not be listed: {e}")],
            }
        }
        Err(e) => vec![format!("the tree could not be read: {e}")],
    };
    let _ = app.hdf5_lines.set(out.clone());
    out
}

pub fn draw(app: &App, f: &mut Frame, area: Rect) {
    let all = lines(app);
    let c = app.cursor("hdf5");
    let first = top(c, area.height as usize);
    let mut out: Vec<Line> = Vec::new();
    if app.docs[0].head.is_none() && first == 0 {
        out.push(Line::styled(
            format!(
                "{} is not a scope-profiler profile: its HDF5 tree",
                shown(&app.docs[0].name)
            ),
            app.look.warn(),
        ));
    }
    let room = (area.height as usize).saturating_sub(out.len());
    for (i, l) in all.iter().enumerate().skip(first).take(room) {
        out.push(if i == c.at {
            Line::styled(l.clone(), app.look.selected())
        } else {
            Line::raw(l.clone())
        });
    }
    f.render_widget(Paragraph::new(out), area);
}

pub fn key(app: &mut App, code: KeyCode) {
    let n = lines(app).len();
    list_key(app, "hdf5", code, n);
}
