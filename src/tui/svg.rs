//! A screen as SVG, for the screenshots in docs/img: each cell's symbol in a monospace
//! grid, its colours and weight as the terminal would show them (tests only).

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

/// The palette the picture is drawn with: background, foreground and the named colours.
pub struct Palette {
    pub bg: &'static str,
    pub fg: &'static str,
    pub named: [&'static str; 8],
}

/// A dark terminal (named colours as xterm's on black).
pub const DARK: Palette = Palette {
    bg: "#1e1e1e",
    fg: "#d4d4d4",
    named: [
        "#000000", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#e5e5e5",
    ],
};

/// A light terminal.
pub const LIGHT: Palette = Palette {
    bg: "#ffffff",
    fg: "#1f1f1f",
    named: [
        "#000000", "#cd3131", "#00bc00", "#949800", "#0451a5", "#bc05bc", "#0598bc", "#555555",
    ],
};

fn color(c: Color, default: &str, p: &Palette) -> String {
    match c {
        Color::Reset => default.to_string(),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Black => p.named[0].into(),
        Color::Red | Color::LightRed => p.named[1].into(),
        Color::Green | Color::LightGreen => p.named[2].into(),
        Color::Yellow | Color::LightYellow => p.named[3].into(),
        Color::Blue | Color::LightBlue => p.named[4].into(),
        Color::Magenta | Color::LightMagenta => p.named[5].into(),
        Color::Cyan | Color::LightCyan => p.named[6].into(),
        _ => p.named[7].into(),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The buffer as an SVG picture, 8 × 17 pixels a cell.
pub fn svg(buf: &Buffer, p: &Palette) -> String {
    let (cw, ch) = (8.0, 17.0);
    let area = buf.area;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" \
         font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"14\">\
         <rect width=\"100%\" height=\"100%\" fill=\"{}\"/>",
        f64::from(area.width) * cw,
        f64::from(area.height) * ch,
        p.bg
    );
    for y in 0..area.height {
        for x in 0..area.width {
            let cell = &buf[(x, y)];
            let reversed = cell.modifier.contains(Modifier::REVERSED);
            let (mut fg, mut bg) = (color(cell.fg, p.fg, p), color(cell.bg, p.bg, p));
            if reversed {
                std::mem::swap(&mut fg, &mut bg);
            }
            let (px, py) = (f64::from(x) * cw, f64::from(y) * ch);
            if bg != p.bg {
                out.push_str(&format!(
                    "<rect x=\"{px}\" y=\"{py}\" width=\"{cw}\" height=\"{ch}\" fill=\"{bg}\"/>"
                ));
            }
            let sym = cell.symbol();
            match sym {
                " " | "" => {}
                "█" | "▀" => {
                    let h = if sym == "█" { ch } else { ch / 2.0 };
                    out.push_str(&format!(
                        "<rect x=\"{px}\" y=\"{py}\" width=\"{cw}\" height=\"{h}\" fill=\"{fg}\"/>"
                    ));
                }
                _ => {
                    let weight = if cell.modifier.contains(Modifier::BOLD) {
                        " font-weight=\"bold\""
                    } else {
                        ""
                    };
                    let opacity = if cell.modifier.contains(Modifier::DIM) {
                        " opacity=\"0.7\""
                    } else {
                        ""
                    };
                    out.push_str(&format!(
                        "<text x=\"{px}\" y=\"{}\" fill=\"{fg}\"{weight}{opacity}>{}</text>",
                        py + ch - 4.0,
                        escape(sym)
                    ));
                }
            }
        }
    }
    out.push_str("</svg>\n");
    out
}
