//! The reference's boxed table (`tabulate` with scope-profiler's rounded outline): every
//! cell left-aligned, each column as wide as its widest cell or its header plus two,
//! one space of padding and two between columns, indented by two.
//!
//! Cells are measured as tabulate measures them, so the text equals the reference's: in
//! terminal cells ([`crate::text::width`], as `wcwidth.wcswidth` counts them), with ANSI
//! colour codes and hyperlinks left out when the table holds any, and a cell holding
//! another control character counted as -1 cells wide, as `wcswidth` reports it. Text
//! shown escaped for a terminal holds no control characters, so there the width is the
//! escaped text's.

use crate::text;

/// Whether any cell or header holds what tabulate strips before measuring (an ANSI CSI
/// sequence or an OSC 8 hyperlink): then every cell is measured without them.
pub(crate) fn has_invisible(headers: &[&str], rows: &[Vec<String>]) -> bool {
    let cells = rows.iter().flatten().map(String::as_str);
    headers
        .iter()
        .copied()
        .chain(cells)
        .any(|c| c.contains('\x1b') && strip_ansi(c).len() != c.len())
}

/// `cell` without ANSI CSI sequences (`ESC [`, parameter bytes 0x30–0x3f, intermediate
/// bytes 0x20–0x2f, a final byte 0x40–0x7e) and with each OSC 8 hyperlink replaced by its
/// text, as tabulate's `_strip_ansi` does.
fn strip_ansi(cell: &str) -> String {
    let bytes = cell.as_bytes();
    let mut out = String::with_capacity(cell.len());
    let mut at = 0;
    let mut kept = 0;
    while let Some(esc) = cell[at..].find('\x1b').map(|i| at + i) {
        let end = csi_end(bytes, esc)
            .map(|e| (e, esc..esc))
            .or_else(|| hyperlink(cell, esc));
        match end {
            Some((end, text)) => {
                out.push_str(&cell[kept..esc]);
                out.push_str(&cell[text]);
                kept = end;
                at = end;
            }
            None => at = esc + 1,
        }
    }
    out.push_str(&cell[kept..]);
    out
}

/// The end of a CSI sequence starting at `esc`, if one does.
fn csi_end(bytes: &[u8], esc: usize) -> Option<usize> {
    if bytes.get(esc + 1) != Some(&b'[') {
        return None;
    }
    let mut i = esc + 2;
    while bytes.get(i).is_some_and(|b| (0x30..=0x3f).contains(b)) {
        i += 1;
    }
    while bytes.get(i).is_some_and(|b| (0x20..=0x2f).contains(b)) {
        i += 1;
    }
    bytes.get(i).filter(|b| (0x40..=0x7e).contains(*b))?;
    Some(i + 1)
}

/// An OSC 8 hyperlink starting at `esc` (`ESC ]8;PARAMS;URI ESC \ TEXT ESC ]8;; ESC \`,
/// PARAMS of `key=value` pairs, URI and TEXT without ESC): its end and where its text is.
fn hyperlink(cell: &str, esc: usize) -> Option<(usize, std::ops::Range<usize>)> {
    let rest = cell[esc..].strip_prefix("\x1b]8;")?;
    let params_end = rest.find(';')?;
    let params_ok = rest[..params_end]
        .split(':')
        .filter(|p| !p.is_empty())
        .all(|p| {
            let word =
                |w: &str| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_');
            p.split_once('=').is_some_and(|(k, v)| word(k) && word(v))
        });
    if !params_ok {
        return None;
    }
    let uri = &rest[params_end + 1..];
    let uri_end = uri.find('\x1b')?;
    let after_uri = uri[uri_end..].strip_prefix("\x1b\\")?;
    let text_end = after_uri.find('\x1b')?;
    if uri_end == 0 || text_end == 0 {
        return None;
    }
    let closing = after_uri[text_end..].strip_prefix("\x1b]8;;\x1b\\")?;
    let text_start = cell.len() - after_uri.len();
    Some((
        cell.len() - closing.len(),
        text_start..text_start + text_end,
    ))
}

/// A cell's width as tabulate measures it: `wcswidth` of the cell (without ANSI codes
/// when `invisible`), which is -1 when a control character remains.
pub(crate) fn cell_width(cell: &str, invisible: bool) -> isize {
    let stripped;
    let cell = if invisible {
        stripped = strip_ansi(cell);
        stripped.as_str()
    } else {
        cell
    };
    // wcwidth gives NUL no width and every other C0 or C1 control, and DEL, -1.
    if cell.contains(|c| matches!(c, '\x01'..='\x1f' | '\x7f'..='\u{9f}')) {
        return -1;
    }
    isize::try_from(text::width(cell)).unwrap_or(isize::MAX)
}

/// The width of each column of `rows` under `headers`, in terminal cells.
pub(crate) fn column_widths(headers: &[&str], rows: &[Vec<String>]) -> Vec<usize> {
    let invisible = has_invisible(headers, rows);
    headers
        .iter()
        .enumerate()
        .map(|(i, header)| {
            let header = cell_width(header, invisible).max(0) as usize + 2;
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|cell| cell_width(cell, invisible).max(0) as usize)
                .chain([header])
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// The table of `rows` under `headers` in columns `widths` wide (no cell wider), one line
/// each, every line ending in a newline.
pub(crate) fn draw(headers: &[&str], rows: &[Vec<String>], widths: &[usize]) -> String {
    let line = |l: &str, r: &str| {
        let parts: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
        format!("  {l}{}{r}\n", parts.join("──"))
    };
    let invisible = has_invisible(headers, rows);
    let data = |cells: &mut dyn Iterator<Item = &str>| {
        let parts: Vec<String> = cells
            .zip(widths)
            .map(|(c, &w)| {
                // A cell tabulate measures as -1 gets one space more than its column.
                let w = isize::try_from(w).unwrap_or(isize::MAX);
                let pad = usize::try_from(w - cell_width(c, invisible)).unwrap_or(0);
                format!(" {c}{} ", " ".repeat(pad))
            })
            .collect();
        format!("  │{}│\n", parts.join("  "))
    };
    let mut s = line("╭", "╮");
    s.push_str(&data(&mut headers.iter().copied()));
    s.push_str(&line("├", "┤"));
    for r in rows {
        s.push_str(&data(&mut r.iter().map(String::as_str)));
    }
    s.push_str(&line("╰", "╯"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout `summary._print_table` prints for the same cells.
    #[test]
    fn boxed_like_tabulate() {
        let rows = vec![
            vec!["fib_call".to_string(), "0.000210203".to_string()],
            vec!["checkpoint".to_string(), "-".to_string()],
        ];
        let headers = ["region", "total [s] (a)"];
        let widths = column_widths(&headers, &rows);
        assert_eq!(widths, [10, 15]);
        assert_eq!(
            draw(&headers, &rows, &widths),
            "  ╭───────────────────────────────╮\n\
             \x20 │ region        total [s] (a)   │\n\
             \x20 ├───────────────────────────────┤\n\
             \x20 │ fib_call      0.000210203     │\n\
             \x20 │ checkpoint    -               │\n\
             \x20 ╰───────────────────────────────╯\n"
        );
    }

    /// Wide characters, ANSI codes and other controls measured as tabulate measures them:
    /// the expected text is `summary._print_table`'s for the same cells (tabulate 0.10,
    /// wcwidth 0.9).
    #[test]
    fn measured_like_tabulate() {
        let table = |cells: &[&str]| {
            let rows: Vec<Vec<String>> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| vec![c.to_string(), (i + 1).to_string()])
                .collect();
            let headers = ["region", "n"];
            draw(&headers, &rows, &column_widths(&headers, &rows))
        };
        // 日本語 (e6 97 a5 e6 9c ac e8 aa 9e) is six cells; U+1F680 (f0 9f 9a 80) two.
        assert_eq!(
            table(&["日本語", "io 🚀"]),
            "  ╭─────────────────╮\n  │ region      n   │\n  ├─────────────────┤\n  \
             │ 日本語      1   │\n  │ io 🚀       2   │\n  ╰─────────────────╯\n"
        );
        // A CSI sequence (1b 5b 32 4a) makes the table strip them: `clearx` is six cells;
        // OSC 0 is not stripped and its BEL (07) makes the cell -1 wide; an OSC 8
        // hyperlink counts as its text.
        assert_eq!(
            table(&[
                "clear\x1b[2Jx",
                "evil\x1b]0;T\x07t",
                "\x1b]8;;http://a\x1b\\link\x1b]8;;\x1b\\"
            ]),
            "  ╭─────────────────╮\n  │ region      n   │\n  ├─────────────────┤\n  \
             │ clear\x1b[2Jx      1   │\n  │ evil\x1b]0;T\x07t             2   │\n  \
             │ \x1b]8;;http://a\x1b\\link\x1b]8;;\x1b\\        3   │\n  ╰─────────────────╯\n"
        );
        // Without any CSI, a control makes its cell -1 wide: nine spaces to its column of 8.
        assert_eq!(
            table(&["bell\x07", "ok"]),
            "  ╭─────────────────╮\n  │ region      n   │\n  ├─────────────────┤\n  \
             │ bell\x07             1   │\n  │ ok          2   │\n  ╰─────────────────╯\n"
        );
    }
}
