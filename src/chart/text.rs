//! Text from a profile made safe and short: escaped for XML, so a region named `<script>`
//! or `&` stays text (never markup), with control characters replaced; and long names cut
//! in the middle (`phase01_…_kernel02`) to the room a label has, measured with the
//! embedded font.

use std::borrow::Cow;

use super::font;

/// `text` with every character XML 1.0 forbids (controls other than tab and newline, the
/// non-characters U+FFFE and U+FFFF) replaced by U+FFFD, and tabs and newlines by spaces:
/// a label is one line.
pub fn clean(text: &str) -> Cow<'_, str> {
    let bad = |c: char| c.is_control() || c == '\u{fffe}' || c == '\u{ffff}';
    if !text.chars().any(bad) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| match c {
                '\t' | '\n' | '\r' => ' ',
                c if bad(c) => '\u{fffd}',
                c => c,
            })
            .collect(),
    )
}

/// Appends `text` to `out` as XML character data or an attribute value: cleaned
/// ([`clean`]), with `& < > " '` as entities.
pub fn escape_into(out: &mut String, text: &str) {
    for c in clean(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// `text` escaped for XML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

/// `text` cut in the middle with an ellipsis so that it takes at most `room` pixels at
/// `size` (as [`font::room`] measures): the start and the end are kept, which tell
/// `phase01_setup_kernel02` from `phase01_solve_kernel02` better than the start alone.
/// Empty when not even three characters and the ellipsis fit.
pub fn fit_middle(text: &str, size: f32, room: f32) -> Cow<'_, str> {
    if font::room(text, size, false) <= room {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let fits = |keep: usize| {
        let (head, tail) = split(&chars, keep);
        font::room(&format!("{head}…{tail}"), size, false) <= room
    };
    // The most characters kept that fit: fewer always fit if more do.
    let (mut lo, mut hi) = (0usize, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    if lo < 3 {
        return Cow::Borrowed("");
    }
    let (head, tail) = split(&chars, lo);
    Cow::Owned(format!("{head}…{tail}"))
}

/// The first and last characters of `chars` keeping `keep` in all, the start one longer.
fn split(chars: &[char], keep: usize) -> (String, String) {
    let tail = keep / 2;
    let head = keep - tail;
    (
        chars[..head].iter().collect(),
        chars[chars.len() - tail..].iter().collect(),
    )
}

/// `text` cut at the end with an ellipsis to `room` pixels (for a name inside a bar, where
/// the start matters most). Empty when fewer than three characters fit.
pub fn fit_end(text: &str, size: f32, room: f32) -> Cow<'_, str> {
    if font::room(text, size, false) <= room {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut keep = chars.len();
    while keep > 0 {
        keep -= 1;
        let cut: String = chars[..keep].iter().chain(['…'].iter()).collect();
        if font::room(&cut, size, false) <= room {
            return if keep < 3 {
                Cow::Borrowed("")
            } else {
                Cow::Owned(cut)
            };
        }
    }
    Cow::Borrowed("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_controls_stay_text() {
        assert_eq!(escape("<script>&'\""), "&lt;script&gt;&amp;&#39;&quot;");
        assert_eq!(escape("a\u{1b}[31mb\u{0}c"), "a\u{fffd}[31mb\u{fffd}c");
        assert_eq!(escape("two\nlines\ttab"), "two lines tab");
        assert_eq!(escape("résumé σ ↻"), "résumé σ ↻");
        assert!(matches!(clean("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn long_names_lose_their_middle() {
        let name = "phase01_assemble_the_global_stiffness_matrix_kernel02";
        let short = fit_middle(name, 11.0, 120.0);
        assert!(short.starts_with("phase01_"), "{short}");
        assert!(short.ends_with("kernel02"), "{short}");
        assert!(short.contains('…'));
        assert!(font::room(&short, 11.0, false) <= 120.0);
        // One more character would not fit.
        assert!(short.chars().count() < name.chars().count());
        assert_eq!(fit_middle("short", 11.0, 120.0), "short");
        assert_eq!(fit_middle(name, 11.0, 10.0), "");
        let end = fit_end(name, 11.0, 80.0);
        assert!(end.starts_with("phase") && end.ends_with('…'), "{end}");
        assert!(font::room(&end, 11.0, false) <= 80.0);
    }
}
