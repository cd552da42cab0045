//! A recorded `timestamp` as the reference's runs table shows it (`_format_timestamp`):
//! an ISO 8601 time as minutes, in UTC when it carries an offset; anything else as stored.

/// `2026-11-30T20:42:27.46+01:00` → `2026-11-30 19:42 UTC`; no offset → `2026-11-30 20:42`.
pub fn minutes(text: &str) -> String {
    parse(text).unwrap_or_else(|| text.to_string())
}

fn parse(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = text.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let (y, mo, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || !matches!(b.get(10), Some(b'T' | b' '))
    {
        return None;
    }
    let (h, mi) = (digits(11..13)?, digits(14..16)?);
    if b.get(13) != Some(&b':')
        || !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
        || h > 23
        || mi > 59
    {
        return None;
    }
    // Seconds and fractions, then the offset.
    let mut i = 16;
    if b.get(i) == Some(&b':') {
        digits(17..19)?;
        i = 19;
        if b.get(i) == Some(&b'.') {
            i += 1;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
    }
    let rest = &text[i..];
    let offset = match rest {
        "" => return Some(format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}")),
        "Z" => 0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let r = &rest[1..];
            let (oh, om) = match r.len() {
                5 if r.as_bytes()[2] == b':' => {
                    (r[..2].parse::<i64>().ok()?, r[3..].parse::<i64>().ok()?)
                }
                4 => (r[..2].parse::<i64>().ok()?, r[2..].parse::<i64>().ok()?),
                2 => (r.parse::<i64>().ok()?, 0),
                _ => return None,
            };
            sign * (oh * 60 + om)
        }
    };
    let total = (days(y, mo, d) * 24 + h) * 60 + mi - offset;
    let (day, minute) = (total.div_euclid(1440), total.rem_euclid(1440));
    let (y, mo, d) = civil(day);
    Some(format!(
        "{y:04}-{mo:02}-{d:02} {:02}:{:02} UTC",
        minute / 60,
        minute % 60
    ))
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

/// The date of a day since 1970-01-01.
fn civil(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::minutes;

    #[test]
    fn as_the_reference_prints_them() {
        assert_eq!(
            minutes("2026-11-30T20:42:27.467220+00:00"),
            "2026-11-30 20:42 UTC"
        );
        assert_eq!(minutes("2026-01-01T00:30:00+01:00"), "2025-12-31 23:30 UTC");
        assert_eq!(minutes("2026-11-30T20:42:27"), "2026-11-30 20:42");
        assert_eq!(minutes("yesterday"), "yesterday");
    }
}
