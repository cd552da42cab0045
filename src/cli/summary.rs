//! The region summary `sp convert` prints: one line per region, in region-id order, with
//! calls, total and average time over all ranks.

use std::io::{self, Write};

use sp::convert::{Converted, RowTotal};

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

/// Prints the summary table of a conversion to `out`.
pub fn print(converted: &Converted, out: &mut dyn Write) -> io::Result<()> {
    print_totals(
        region_totals(&converted.region_names, converted.rows.iter()),
        out,
    )
}

fn print_totals(rows: Vec<RegionTotals>, out: &mut dyn Write) -> io::Result<()> {
    let width = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0)
        .max("region".len());
    writeln!(
        out,
        "{:<width$}  {:>5}  {:>12}  {:>12}  {:>12}",
        "region", "ranks", "calls", "total", "average"
    )?;
    for r in &rows {
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
            "{:<width$}  {:>5}  {:>12}  {:>12}  {:>12}",
            r.name, r.ranks, r.calls, total, average
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

    #[test]
    fn table_lists_regions_in_id_order() {
        // Rank 0: idle (no calls), solve (10..15, 20..33); rank 1: solve (40..55).
        let row = |region_id, calls, total_ns| RowTotal {
            region_id,
            calls,
            total_ns,
        };
        let converted = Converted {
            region_names: vec!["idle".into(), "solve".into()],
            rows: vec![row(0, 0, 0), row(1, 2, 18), row(1, 1, 15)],
        };
        let mut out = Vec::new();
        print(&converted, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "region  ranks         calls         total       average"
        );
        assert_eq!(
            lines[1],
            "idle        1             0             -             -"
        );
        assert_eq!(
            lines[2],
            "solve       2             3         33 ns         11 ns"
        );
    }
}
