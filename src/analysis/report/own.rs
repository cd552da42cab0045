//! The `(own)` line the region table shows under each call-tree row that has rows nested
//! in it: the time spent in the region outside them. The terminal table and the browser
//! page both draw it from here.

use std::collections::HashSet;

use crate::analysis::rows::{percent_of, RegionRow};

/// The numbers of one `(own)` line, in seconds and percent.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct OwnLine {
    /// Exclusive time of the row.
    pub total: Option<f64>,
    /// Exclusive time per call.
    pub avg: Option<f64>,
    /// Exclusive time over the session total.
    pub percent: Option<f64>,
    /// Exclusive time over the row's own coverage.
    pub parent_percent: Option<f64>,
}

impl OwnLine {
    /// The `(own)` line of `row`, against the session total `session`.
    pub fn of(row: &RegionRow, session: Option<f64>) -> OwnLine {
        OwnLine {
            total: row.exclusive,
            avg: row
                .exclusive
                .filter(|_| row.calls > 0)
                .map(|e| e / row.calls as f64),
            percent: percent_of(row.exclusive, session),
            parent_percent: percent_of(row.exclusive, row.coverage),
        }
    }
}

/// The call paths that have other rows nested under them: the rows that get an `(own)`
/// line.
pub fn parent_paths(rows: &[RegionRow]) -> HashSet<Vec<String>> {
    rows.iter()
        .filter_map(|r| r.call_path.as_ref())
        .flat_map(|p| (1..p.len()).map(move |i| p[..i].to_vec()))
        .collect()
}

/// Whether `row` gets an `(own)` line among rows whose parent paths are `parents`.
pub fn has_own_line(row: &RegionRow, parents: &HashSet<Vec<String>>) -> bool {
    row.call_path.as_ref().is_some_and(|p| parents.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(path: &[&str], calls: u64, exclusive: f64, coverage: f64) -> RegionRow {
        RegionRow {
            name: path.last().unwrap().to_string(),
            call_path: Some(path.iter().map(|s| s.to_string()).collect()),
            calls,
            exclusive: Some(exclusive),
            coverage: Some(coverage),
            ..RegionRow::default()
        }
    }

    #[test]
    fn own_lines_of_rows_with_nested_rows() {
        let rows = [
            row(&["a"], 2, 3.0, 10.0),
            row(&["a", "b", "c"], 1, 1.0, 1.0),
            row(&["d"], 0, 0.0, 0.0),
        ];
        let parents = parent_paths(&rows);
        let with: Vec<bool> = rows.iter().map(|r| has_own_line(r, &parents)).collect();
        assert_eq!(with, [true, false, false]);
        assert_eq!(
            OwnLine::of(&rows[0], Some(20.0)),
            OwnLine {
                total: Some(3.0),
                avg: Some(1.5),
                percent: Some(15.0),
                parent_percent: Some(30.0),
            }
        );
        assert_eq!(OwnLine::of(&rows[2], None).avg, None);
    }
}
