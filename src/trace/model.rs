//! The owned form of a trace, for building traces in code and for callers that outlive the
//! input buffer.

use super::region::RegionView;
use super::TraceView;

/// One rank's trace, owning its data.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trace {
    pub rank: i32,
    pub regions: Vec<Region>,
}

/// One region: its name, optional source location and its calls as parallel arrays.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Region {
    pub name: String,
    pub source_file: Option<String>,
    pub source_line: Option<i32>,
    pub starts: Vec<i64>,
    pub ends: Vec<i64>,
}

impl RegionView<'_> {
    /// Copies the region out of the file.
    pub fn to_region(&self) -> Region {
        Region {
            name: self.name.to_owned(),
            source_file: self.source_file.map(str::to_owned),
            source_line: self.source_line,
            starts: self.starts.to_vec(),
            ends: self.ends.to_vec(),
        }
    }
}

impl TraceView<'_> {
    /// Copies the whole trace out of the file.
    pub fn to_trace(&self) -> Trace {
        Trace {
            rank: self.rank,
            regions: self.regions.iter().map(RegionView::to_region).collect(),
        }
    }
}
