//! Numbers and text as the reference's table prints them: Python's `format()` specs
//! (`.6g`, `.3g`, `.3e`), counts with k/M/B suffixes, the tree prefix of nested rows, and
//! the cutting and wrapping that fit a table into a terminal.

pub(crate) use crate::analysis::units::python_g;
use crate::text;

pub(crate) fn fmt_dur(v: Option<f64>, decimals: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.decimals$}"))
}

pub(crate) fn fmt_count(v: u64) -> String {
    for (threshold, suffix) in [(1_000_000_000u64, "B"), (1_000_000, "M"), (1_000, "k")] {
        if v >= threshold {
            return format!("{}{suffix}", python_g3(v as f64 / threshold as f64));
        }
    }
    v.to_string()
}

/// Python's `format(x, ".3g")` for 1 <= x < 1e6.
pub(crate) fn python_g3(x: f64) -> String {
    let digits = if x >= 100.0 {
        0
    } else if x >= 10.0 {
        1
    } else {
        2
    };
    let s = format!("{x:.digits$}");
    let rounded: f64 = s.parse().unwrap_or(x);
    if rounded >= 1000.0 {
        return format!("{:.0e}", x).replace("e", "e+0");
    }
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Python's `format(x, ".3e")`.
pub(crate) fn fmt_sci(v: f64) -> String {
    let s = format!("{v:.3e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{m}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// Python's `format(x, ".6g")`.
pub(crate) fn python_g6(x: f64) -> String {
    python_g(x, 6)
}

pub(crate) fn tree_prefix(depth: usize) -> String {
    if depth == 0 {
        String::new()
    } else {
        format!("{}└─ ", "│ ".repeat(depth - 1))
    }
}

/// `text` split into lines of at most `width` terminal cells, at spaces where possible (a
/// word longer than a line is cut by characters).
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let indent: String = text.chars().take_while(|c| *c == ' ').collect();
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word.to_string();
        loop {
            let used = text::width(&line);
            let sep = usize::from(used > 0);
            if used + sep + text::width(&word) <= width {
                if used > 0 {
                    line.push(' ');
                } else {
                    line.push_str(&indent);
                    if indent.len() + text::width(&word) > width {
                        line.clear();
                    }
                }
                line.push_str(&word);
                break;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // A word longer than a line: cut it.
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Python's `str.isupper()`: has a cased character and no lowercase one.
pub(crate) fn clip(v: &str, full: bool) -> String {
    const WIDTH: usize = 96;
    const ELLIPSIS: &str = " […]";
    if full || v.chars().count() <= WIDTH {
        return v.to_string();
    }
    let keep = WIDTH - ELLIPSIS.chars().count();
    format!("{}{ELLIPSIS}", v.chars().take(keep).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outputs of Python's `format(x, spec)` for the same values.
    #[test]
    fn python_format_specs() {
        assert_eq!(python_g6(0.00743954123), "0.00743954");
        assert_eq!(python_g6(123456789.0), "1.23457e+08");
        assert_eq!(python_g6(2.5e-7), "2.5e-07");
        assert_eq!(python_g6(0.0), "0");
        assert_eq!(python_g6(-0.0), "-0");
        assert_eq!(python_g6(999999.5), "1e+06");
        assert_eq!(python_g6(9.999995e-5), "0.0001");
        assert_eq!(python_g6(-3.1045e-05), "-3.1045e-05");
        assert_eq!(python_g6(1e16), "1e+16");
        assert_eq!(python_g(26.1003, 4), "26.1");
        assert_eq!(python_g(-1.62447, 4), "-1.624");
        assert_eq!(python_g(12345.6, 4), "1.235e+04");
        assert_eq!(python_g(f64::INFINITY, 6), "inf");
        assert_eq!(python_g(f64::NAN, 4), "nan");
        assert_eq!(fmt_sci(0.000123456), "1.235e-04");
        assert_eq!(fmt_sci(12345.0), "1.234e+04");
        assert_eq!(fmt_count(999), "999");
        assert_eq!(fmt_count(1500), "1.5k");
        assert_eq!(fmt_count(2_000_000), "2M");
        assert_eq!(fmt_count(123_456_789), "123M");
    }

    #[test]
    fn cutting_and_wrapping() {
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap("  indented words", 10), ["  indented", "  words"]);
        // 日本語 is six cells: two such words do not fit in ten.
        assert_eq!(wrap("日本語 日本語", 10), ["日本語", "日本語"]);
        assert_eq!(tree_prefix(0), "");
        assert_eq!(tree_prefix(2), "│ └─ ");
    }
}
