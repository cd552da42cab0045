//! How `sp tui` looks: colours that read on dark and on light terminals (the terminal's own
//! foreground and background, the named ANSI colours it maps to its palette, the selection
//! in reverse video), or none at all under `NO_COLOR`, where weight and reverse video carry
//! what colour would. Region colours are the library's ([`sp::chart::color`]), so a region
//! has the page's colour in every lane.

use ratatui::style::{Color, Modifier, Style};
use sp::chart::color::{self, Theme};

/// The look of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Look {
    /// Colours on (off under `NO_COLOR`).
    pub color: bool,
    /// The terminal's background is light (`COLORFGBG`), for region colours.
    pub light: bool,
}

impl Look {
    /// The look the environment asks for: `NO_COLOR` set and not empty turns colour off;
    /// `COLORFGBG` with a light background picks the light palette.
    pub fn from_env() -> Look {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let light = std::env::var("COLORFGBG")
            .ok()
            .and_then(|v| v.rsplit(';').next().and_then(|b| b.parse::<u8>().ok()))
            .is_some_and(|bg| bg == 7 || bg >= 9);
        Look {
            color: !no_color,
            light,
        }
    }

    /// The monochrome look (the snapshot tests).
    #[cfg(test)]
    pub fn mono() -> Look {
        Look {
            color: false,
            light: false,
        }
    }

    fn fg(self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    /// Titles and column headers.
    pub fn header(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// The selected row or tab.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }

    /// Secondary text: units, hints, `(own)` rows.
    pub fn dim(self) -> Style {
        if self.color {
            Style::new().add_modifier(Modifier::DIM)
        } else {
            Style::new()
        }
    }

    /// Something to look at: a flagged imbalance, a warning.
    pub fn warn(self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }

    /// Something that went wrong.
    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// Bars and other marks.
    pub fn accent(self) -> Style {
        self.fg(Color::Blue)
    }

    fn theme(self) -> Theme {
        if self.light {
            Theme::Light
        } else {
            Theme::Dark
        }
    }

    /// The colour of region `id` (the page's), or none in monochrome.
    pub fn region(self, id: u32) -> Option<Color> {
        self.color.then(|| {
            let c = color::region(id, self.theme(), false);
            Color::Rgb(c.0, c.1, c.2)
        })
    }
}
