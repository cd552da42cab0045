//! Numbers as a person reads them, in the words of the reference's HTML report: a duration
//! in the unit that keeps it short (`51.2 ms`, not `0.0512 s`), signed percentages, plural
//! nouns and byte sizes. The overview's sentences and the browser page's cells use these,
//! so no front end formats a number on its own.

/// A duration in seconds in the unit that keeps it short (the report's `_duration_text`):
/// three significant digits below a second, four up to 1000 s, then whole seconds with
/// thousands separators. `-` for `None`.
pub fn duration_text(seconds: Option<f64>) -> String {
    let Some(s) = seconds else {
        return "-".into();
    };
    let m = s.abs();
    if m == 0.0 {
        "0 s".into()
    } else if m < 1e-6 {
        format!("{} ns", python_g(s * 1e9, 3))
    } else if m < 1e-3 {
        format!("{} µs", python_g(s * 1e6, 3))
    } else if m < 1.0 {
        format!("{} ms", python_g(s * 1e3, 3))
    } else if m < 1000.0 {
        format!("{} s", python_g(s, 4))
    } else {
        format!("{} s", grouped(&format!("{s:.0}")))
    }
}

/// A percent change with a real minus sign, so columns of them line up (`_signed_pct`).
pub fn signed_pct(value: f64) -> String {
    format!(
        "{}{:.1}%",
        if value.is_sign_negative() { '−' } else { '+' },
        value.abs()
    )
}

/// A percentage with one decimal (`12.5%`); `-` for `None` or a value that is not finite.
pub fn pct_text(percent: Option<f64>) -> String {
    match percent.filter(|p| p.is_finite()) {
        Some(p) => format!("{p:.1}%"),
        None => "-".into(),
    }
}

/// `1 call`, `2 calls` (the report's `_plural`).
pub fn plural(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("{count} {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// A call count with thousands separators (`1,234,567`).
pub fn count_text(count: u64) -> String {
    grouped(&count.to_string())
}

/// A byte count in binary units (`512 B`, `64.0 KiB`, `1.25 GiB`).
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let decimals = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.decimals$} {}", UNITS[unit])
}

/// Python's `format(x, f".{precision}g")`: `precision` significant digits, fixed notation
/// for exponents in `-4 .. precision`, else `d.ddde±XX`, trailing zeros removed.
pub fn python_g(x: f64, precision: usize) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let p = precision.max(1);
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent after rounding to `p` digits, as Python decides the notation.
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let mantissa = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    let decimals = (p as i32 - 1 - exp).max(0) as usize;
    strip_zeros(&format!("{x:.decimals$}")).to_string()
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Digits of a formatted integer (optionally signed) grouped by thousands with commas.
fn grouped(digits: &str) -> String {
    let (sign, digits) = match digits.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", digits),
    };
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_the_short_unit() {
        // Each expected text is what the reference's `_duration_text` printed.
        let cases = [
            (None, "-"),
            (Some(0.0), "0 s"),
            (Some(1.8e-8), "18 ns"),
            (Some(1.5666666666666667e-8), "15.7 ns"),
            (Some(6.666666666666668e-7), "667 ns"),
            (Some(1.75e-6), "1.75 µs"),
            (Some(0.002731275000030564), "2.73 ms"),
            (Some(0.0085), "8.5 ms"),
            (Some(454.171306023), "454.2 s"),
            (Some(1234.5), "1,234 s"),
            (Some(-0.0015), "-1.5 ms"),
            (Some(1e-6), "1 µs"),
            (Some(0.0009999), "1e+03 µs"),
        ];
        for (value, want) in cases {
            assert_eq!(duration_text(value), want, "{value:?}");
        }
    }

    #[test]
    fn general_format_follows_python() {
        // format(x, ".3g") / ".4g" in CPython.
        let cases = [
            (0.0001234, 3, "0.000123"),
            (0.00001234, 3, "1.23e-05"),
            (123456.0, 3, "1.23e+05"),
            (999.5, 3, "1e+03"),
            (100.0, 3, "100"),
            (2.5, 4, "2.5"),
            (12.345, 4, "12.35"),
        ];
        for (x, p, want) in cases {
            assert_eq!(python_g(x, p), want, "{x} .{p}g");
        }
    }

    #[test]
    fn percents_plurals_counts_and_bytes() {
        assert_eq!(signed_pct(12.34), "+12.3%");
        assert_eq!(signed_pct(-0.04), "−0.0%");
        assert_eq!(pct_text(Some(12.345)), "12.3%");
        assert_eq!(pct_text(Some(f64::NAN)), "-");
        assert_eq!(pct_text(None), "-");
        assert_eq!(plural(1, "call"), "1 call");
        assert_eq!(plural(70000, "call"), "70000 calls");
        assert_eq!(count_text(1234567), "1,234,567");
        assert_eq!(count_text(12), "12");
        assert_eq!(bytes_text(512), "512 B");
        assert_eq!(bytes_text(65 * 1024), "65.0 KiB");
        assert_eq!(bytes_text(1_048_576_000), "1000 MiB");
        assert_eq!(bytes_text(3 << 30), "3.00 GiB");
    }
}
