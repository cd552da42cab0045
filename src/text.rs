//! Text that reaches a terminal: names and strings from a file, made safe and measured.
//!
//! A region name is whatever the instrumented program passed to `sp_region()`, and a
//! metadata value whatever the run recorded: untrusted text. Written raw to a terminal, a
//! name holding `ESC ] 0 ; … BEL` sets the window title and one holding `ESC [ 2 J` clears
//! the screen. Every front end that writes text for a terminal shows such text through
//! [`escape`] (or [`Show::text`], which escapes only for a terminal), so control characters
//! appear as visible escapes: `\x1b`, `\a`, `\n`. To a pipe or a file the text stays as
//! it is, byte for byte, so scripts and comparisons with the reference keep working.
//!
//! Columns are lined up by [`width`], the number of terminal cells a text takes (East Asian
//! wide characters 2, combining marks and zero-width joiners 0), measured on the text as
//! it is shown, so on the escaped text. [`pad`], [`pad_left`] and [`truncate`] lay text
//! out by that width.
//!
//! ```
//! use sp::text::{escape, pad, width, Show};
//!
//! let name = "clear\x1b[2Jscreen";
//! assert_eq!(escape(name), r"clear\x1b[2Jscreen");
//! assert_eq!(Show::for_terminal(false).text(name), name); // a pipe: as it is
//! assert_eq!(width("日本語"), 6);
//! assert_eq!(pad("日本語", 8), "日本語  ");
//! ```
//!
//! Nothing here touches a terminal: the front end says whether its stream is one.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::time::Duration;

use unicode_width::UnicodeWidthStr;

/// How a front end shows text from a file: as it is (to a pipe or a file, where the bytes
/// must stay the reference's) or escaped (to a terminal).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Show {
    /// The text unchanged.
    #[default]
    AsIs,
    /// Control characters as visible escapes ([`escape`]).
    Escaped,
}

impl Show {
    /// [`Show::Escaped`] when the stream the text goes to is a terminal, else
    /// [`Show::AsIs`].
    pub fn for_terminal(is_terminal: bool) -> Show {
        if is_terminal {
            Show::Escaped
        } else {
            Show::AsIs
        }
    }

    /// `text` as this way of showing it says: borrowed unless something was escaped.
    pub fn text(self, text: &str) -> Cow<'_, str> {
        match self {
            Show::AsIs => Cow::Borrowed(text),
            Show::Escaped => escape(text),
        }
    }
}

/// Whether `c` is escaped by [`escape`]: the C0 controls (U+0000–U+001F), DEL (U+007F),
/// the C1 controls (U+0080–U+009F), the bidirectional embeddings, overrides, isolates and
/// marks (which reorder what follows them on screen: U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069) and the line and paragraph separators (U+2028, U+2029).
pub fn needs_escape(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x1f'
            | '\x7f'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// `text` with every character [`needs_escape`] names shown as a visible escape: `\a`,
/// `\b`, `\t`, `\n`, `\v`, `\f`, `\r` for those C0 controls, `\xNN` (two lower-case hex
/// digits) for the other controls below U+0100 (`\x1b` for ESC, `\x7f` for DEL, `\x9b`
/// for CSI), `\u{NNNN}` for the rest. Every other character, the backslash included, is
/// kept, so text with nothing to escape comes back borrowed and unchanged.
pub fn escape(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(needs_escape) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// `text` in double quotes, with `"` and `\` escaped by a backslash and the rest as
/// [`escape`] shows it: how `sp ls` shows a string value (`"a\"b\x1b"`).
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c => push_escaped(&mut out, c),
        }
    }
    out.push('"');
    out
}

/// Appends `c`, escaped if [`needs_escape`] says so.
fn push_escaped(out: &mut String, c: char) {
    if !needs_escape(c) {
        out.push(c);
        return;
    }
    let named = match c {
        '\x07' => "\\a",
        '\x08' => "\\b",
        '\t' => "\\t",
        '\n' => "\\n",
        '\x0b' => "\\v",
        '\x0c' => "\\f",
        '\r' => "\\r",
        _ => "",
    };
    if !named.is_empty() {
        out.push_str(named);
    } else if u32::from(c) < 0x100 {
        let _ = write!(out, "\\x{:02x}", u32::from(c));
    } else {
        let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
    }
}

/// The terminal cells `text` takes (Unicode's East Asian Width, as the `unicode-width`
/// crate reads it): East Asian wide and fullwidth characters count 2, combining marks,
/// zero-width joiners and other default-ignorable characters 0, an emoji ZWJ sequence 2.
/// Control characters count 0 here: show text through [`escape`] before measuring it.
pub fn width(text: &str) -> usize {
    if text.is_ascii() && !text.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return text.len();
    }
    // unicode-width gives controls a width of 1 in a string; a terminal gives them none.
    if text.contains(needs_control_width) {
        return text
            .split(needs_control_width)
            .map(UnicodeWidthStr::width)
            .sum();
    }
    text.width()
}

/// The C0 and C1 controls and DEL, which take no cell on a terminal (they act instead).
fn needs_control_width(c: char) -> bool {
    matches!(c, '\0'..='\x1f' | '\x7f'..='\u{9f}')
}

/// `text` followed by spaces up to `cells` terminal cells (by [`width`]): left-aligned in a
/// column that wide. Text as wide or wider comes back unchanged.
pub fn pad(text: &str, cells: usize) -> Cow<'_, str> {
    match cells.checked_sub(width(text)) {
        Some(n) if n > 0 => Cow::Owned(format!("{text}{}", " ".repeat(n))),
        _ => Cow::Borrowed(text),
    }
}

/// Spaces then `text`, up to `cells` terminal cells: right-aligned in a column that wide.
pub fn pad_left(text: &str, cells: usize) -> Cow<'_, str> {
    match cells.checked_sub(width(text)) {
        Some(n) if n > 0 => Cow::Owned(format!("{}{text}", " ".repeat(n))),
        _ => Cow::Borrowed(text),
    }
}

/// `text` cut to at most `cells` terminal cells, its last cell `…` when anything was cut.
/// A wide character that would straddle the edge is left out whole.
pub fn truncate(text: &str, cells: usize) -> Cow<'_, str> {
    if width(text) <= cells {
        return Cow::Borrowed(text);
    }
    let room = cells.saturating_sub(1);
    let mut end = 0;
    for (at, _) in text.char_indices().skip(1).chain([(text.len(), ' ')]) {
        if width(&text[..at]) > room {
            break;
        }
        end = at;
    }
    if cells == 0 {
        return Cow::Borrowed("");
    }
    Cow::Owned(format!("{}…", &text[..end]))
}

/// A progress bar in one line, for a front end to redraw: `[=====>    ]  45%  3.1 s`, the
/// work `done` of `total` and the time taken so far.
pub fn progress_bar(done: u64, total: u64, elapsed: Duration) -> String {
    const WIDTH: u64 = 30;
    let total = total.max(1);
    let done = done.min(total);
    let filled = done * WIDTH / total;
    let mut s = String::with_capacity(64);
    s.push('[');
    for i in 0..WIDTH {
        s.push(match i.cmp(&filled) {
            std::cmp::Ordering::Less => '=',
            std::cmp::Ordering::Equal => '>',
            std::cmp::Ordering::Greater => ' ',
        });
    }
    s.push_str(&format!(
        "] {:3}%  {:.1} s",
        done * 100 / total,
        elapsed.as_secs_f64()
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_become_visible_escapes() {
        // OSC 0 (set the window title), terminated by BEL.
        assert_eq!(
            escape("evil\x1b]0;PWNED\x07title"),
            r"evil\x1b]0;PWNED\atitle"
        );
        // CSI 2 J (clear the screen).
        assert_eq!(escape("clear\x1b[2Jscreen"), r"clear\x1b[2Jscreen");
        // SGR colour codes, backspace, and the named C0 escapes.
        assert_eq!(escape("\x1b[31mred\x1b[0m"), r"\x1b[31mred\x1b[0m");
        assert_eq!(escape("a\x08\t\n\x0b\x0c\rb"), r"a\b\t\n\v\f\rb");
        // NUL, the unit separator, DEL.
        assert_eq!(escape("\0\x1f\x7f"), r"\x00\x1f\x7f");
        // C1: NEL (U+0085, bytes c2 85) and CSI (U+009B, bytes c2 9b).
        assert_eq!(escape("x\u{85}y\u{9b}2J"), r"x\x85y\x9b2J");
        // A right-to-left override (U+202E, bytes e2 80 ae) and a line separator.
        assert_eq!(escape("ab\u{202e}cd\u{2028}"), r"ab\u{202e}cd\u{2028}");
    }

    #[test]
    fn plain_text_comes_back_borrowed() {
        for text in [
            "solve",
            "日本語の領域",
            "io 🚀 checkpoint",
            r"back\slash",
            "",
        ] {
            assert!(
                matches!(escape(text), Cow::Borrowed(t) if t == text),
                "{text}"
            );
        }
        // U+00A0 (c2 a0) is just past C1, U+009F (c2 9f) its last.
        assert!(matches!(escape("\u{a0}"), Cow::Borrowed(_)));
        assert_eq!(escape("\u{9f}"), r"\x9f");
        assert!(matches!(Show::AsIs.text("a\x1b"), Cow::Borrowed("a\x1b")));
        assert_eq!(Show::Escaped.text("a\x1b"), r"a\x1b");
        assert_eq!(Show::for_terminal(true), Show::Escaped);
    }

    #[test]
    fn quoted_strings_escape_quotes_and_backslashes_too() {
        assert_eq!(quoted("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(quoted("bell\x07"), r#""bell\a""#);
        assert_eq!(quoted(""), r#""""#);
    }

    #[test]
    fn widths_are_terminal_cells() {
        assert_eq!(width("solve"), 5);
        // Six CJK ideographs and kana (3 bytes each), two cells each.
        assert_eq!(width("日本語の領域"), 12);
        // U+1F680 ROCKET (f0 9f 9a 80) is an emoji: two cells.
        assert_eq!(width("io 🚀 checkpoint"), 16);
        // A ZWJ sequence (woman U+1F469, ZWJ U+200D, laptop U+1F4BB) is one emoji.
        assert_eq!(width("👩\u{200d}💻"), 2);
        // e + U+0301 COMBINING ACUTE ACCENT (cc 81): one cell.
        assert_eq!(width("e\u{301}"), 1);
        // Controls take no cell; escaped they are their letters.
        assert_eq!(width("a\x1bb"), 2);
        assert_eq!(width(&escape("a\x1bb")), 6);
    }

    #[test]
    fn padding_and_cutting_by_cells() {
        assert_eq!(pad("日本", 6), "日本  ");
        assert_eq!(pad("solve", 3), "solve");
        assert_eq!(pad_left("日本", 6), "  日本");
        assert_eq!(truncate("solve", 5), "solve");
        assert_eq!(truncate("solver_x", 5), "solv…");
        // 日本語 is six cells: in five, 日 and 本 (four) then the ellipsis.
        assert_eq!(truncate("日本語", 5), "日本…");
        // In four, only 日 fits before the ellipsis: 本 would straddle the edge.
        assert_eq!(truncate("日本語", 4), "日…");
        assert_eq!(truncate("abc", 1), "…");
        assert_eq!(truncate("abc", 0), "");
    }

    #[test]
    fn progress_bar_shows_the_fraction_and_the_time() {
        let line = progress_bar(1 << 29, 1 << 30, Duration::from_millis(1500));
        assert_eq!(line, "[===============>              ]  50%  1.5 s");
        assert!(progress_bar(5, 0, Duration::ZERO).contains("100%"));
    }
}
