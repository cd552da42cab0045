//! The region summary a conversion prints: one line per region, in region-id order, with
//! the ranks that have it, its calls, and its total and average time over all ranks,
//! columns lined up by terminal cells.

use std::io::{self, Write};

use super::{Converted, RowTotal};
use crate::text::{self, Show};

/// Per-region totals of a profile, in region-id order.
struct RegionTotals {
    name: String,
    ranks: usize,
    calls: u64,
    total_ns: i128,
}

fn region_totals<'r>(
    names: &[String],
    rows: impl Iterator<Item = &'r RowTotal>,
) -> Vec<RegionTotals> {
    let mut out: Vec<RegionTotals> = names
        .iter()
        .map(|name| RegionTotals {
            name: name.clone(),
            ranks: 0,
            calls: 0,
            total_ns: 0,
        })
        .collect();
    for row in rows {
        if let Some(t) = out.get_mut(row.region_id as usize) {
            t.ranks += 1;
            t.calls += row.calls;
            t.total_ns += row.total_ns;
        }
    }
    out
}

/// A duration in the largest unit that keeps it ≥ 1, to four significant figures.
pub fn human_duration(ns: f64) -> String {
    let (value, unit) = match ns.abs() {
        a if a >= 1e9 => (ns / 1e9, "s"),
        a if a >= 1e6 => (ns / 1e6, "ms"),
        a if a >= 1e3 => (ns / 1e3, "µs"),
        _ => (ns, "ns"),
    };
    let decimals = match value.abs() {
        a if a >= 100.0 => 1,
        a if a >= 10.0 => 2,
        _ => 3,
    };
    if unit == "ns" {
        format!("{value:.0} {unit}")
    } else {
        format!("{value:.decimals$} {unit}")
    }
}

/// Writes the summary table of `converted` to `out`, its region names shown as `show`
/// says ([`Show::Escaped`] for a terminal).
pub fn write(out: &mut dyn Write, converted: &Converted, show: Show) -> io::Result<()> {
    let rows = region_totals(&converted.region_names, converted.rows.iter());
    let names: Vec<_> = rows.iter().map(|r| show.text(&r.name)).collect();
    let width = names
        .iter()
        .map(|n| text::width(n))
        .max()
        .unwrap_or(0)
        .max("region".len());
    writeln!(
        out,
        "{}  {:>5}  {:>12}  {:>12}  {:>12}",
        text::pad("region", width),
        "ranks",
        "calls",
        "total",
        "average"
    )?;
    for (r, name) in rows.iter().zip(&names) {
        let (total, average) = if r.calls == 0 {
            ("-".to_owned(), "-".to_owned())
        } else {
            (
                human_duration(r.total_ns as f64),
                human_duration(r.total_ns as f64 / r.calls as f64),
            )
        };
        writeln!(
            out,
            "{}  {:>5}  {:>12}  {:>12}  {:>12}",
            text::pad(name, width),
            r.ranks,
            r.calls,
            total,
            average
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_a_readable_unit() {
        assert_eq!(human_duration(250.0), "250 ns");
        assert_eq!(human_duration(38_237.55), "38.24 µs");
        assert_eq!(human_duration(1_911_000.0), "1.911 ms");
        assert_eq!(human_duration(123_456_789_000.0), "123.5 s");
    }

    fn row(region_id: u32, calls: u64, total_ns: i128) -> RowTotal {
        RowTotal {
            region_id,
            calls,
            total_ns,
        }
    }

    fn lines(converted: &Converted, show: Show) -> Vec<String> {
        let mut out = Vec::new();
        write(&mut out, converted, show).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn table_lists_regions_in_id_order() {
        // Rank 0: idle (no calls), solve (10..15, 20..33); rank 1: solve (40..55).
        let converted = Converted {
            region_names: vec!["idle".into(), "solve".into()],
            rows: vec![row(0, 0, 0), row(1, 2, 18), row(1, 1, 15)],
        };
        assert_eq!(
            lines(&converted, Show::AsIs),
            [
                "region  ranks         calls         total       average",
                "idle        1             0             -             -",
                "solve       2             3         33 ns         11 ns",
            ]
        );
    }

    #[test]
    fn names_are_padded_by_cells_and_escaped_for_a_terminal() {
        // 日本語 is six cells (three characters); the ESC of a CSI is escaped as \x1b.
        let converted = Converted {
            region_names: vec!["日本語".into(), "cls\x1b[2J".into()],
            rows: vec![row(0, 1, 5), row(1, 1, 7)],
        };
        assert_eq!(
            lines(&converted, Show::Escaped),
            [
                "region      ranks         calls         total       average",
                "日本語          1             1          5 ns          5 ns",
                r"cls\x1b[2J      1             1          7 ns          7 ns",
            ]
        );
        // As it is (to a pipe), the control takes no cell: both names are six wide.
        assert_eq!(
            lines(&converted, Show::AsIs)[2],
            "cls\x1b[2J      1             1          7 ns          7 ns"
        );
    }
}
