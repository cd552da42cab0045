//! Numbers and text as the reference's table prints them: Python's `format()` specs
//! (`.6g`, `.3g`, `.3e`), counts with k/M/B suffixes, the tree prefix of nested rows, and
//! the cutting and wrapping that fit a table into a terminal.

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
    if x == 0.0 {
        return "0".into();
    }
    let exp = x.abs().log10().floor() as i32;
    if !(-5..6).contains(&exp) {
        let m = format!("{x:.5e}");
        let (mant, e) = m.split_once('e').unwrap_or((&m, "0"));
        let mant = mant.trim_end_matches('0').trim_end_matches('.');
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let decimals = (5 - exp).max(0) as usize;
    let t = format!("{x:.decimals$}");
    if t.contains('.') {
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        t
    }
}

pub(crate) fn tree_prefix(depth: usize) -> String {
    if depth == 0 {
        String::new()
    } else {
        format!("{}└─ ", "│ ".repeat(depth - 1))
    }
}

/// `text` cut to `width` characters, the last one `…` when anything was cut.
pub(crate) fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` split into lines of at most `width` characters, at spaces where possible.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let indent: String = text.chars().take_while(|c| *c == ' ').collect();
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word.to_string();
        loop {
            let used = line.chars().count();
            let sep = usize::from(used > 0);
            if used + sep + word.chars().count() <= width {
                if used > 0 {
                    line.push(' ');
                } else {
                    line.push_str(&indent);
                    if indent.chars().count() + word.chars().count() > width {
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
pub(crate) fn is_upper(k: &str) -> bool {
    k.chars().any(char::is_uppercase) && !k.chars().any(char::is_lowercase)
}

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
        assert_eq!(fmt_sci(0.000123456), "1.235e-04");
        assert_eq!(fmt_sci(12345.0), "1.234e+04");
        assert_eq!(fmt_count(999), "999");
        assert_eq!(fmt_count(1500), "1.5k");
        assert_eq!(fmt_count(2_000_000), "2M");
        assert_eq!(fmt_count(123_456_789), "123M");
    }

    #[test]
    fn cutting_and_wrapping() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap("  indented words", 10), ["  indented", "  words"]);
        assert_eq!(tree_prefix(0), "");
        assert_eq!(tree_prefix(2), "│ └─ ");
    }
}
