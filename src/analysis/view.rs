//! The reference's analysis view of the profile model: the accessors of its `Region`,
//! `MPIRegion` and `ProfilingResults` (seconds as float64, the orders its numbers start
//! from), on the schema's [`Profile`], [`Region`] and [`RankCalls`]. A row's calls come from
//! the loaded events, or from its [`RowStatistics`](crate::schema::RowStatistics) when they
//! were not loaded.

use crate::schema::{Profile, RankCalls, Region};

use super::metadata::meta_seconds;
use super::numeric;

impl RankCalls {
    /// Total duration in seconds (`Region.total_duration`).
    pub fn total_s(&self) -> f64 {
        match &self.statistics {
            Some(s) => s.total as f64 / 1e9,
            None if self.starts.is_empty() => 0.0,
            None => {
                let d: Vec<f64> = self.durations_ns().map(|d| d as f64).collect();
                numeric::sum(&d) / 1e9
            }
        }
    }

    /// Earliest start in seconds (`Region.first_start_time`).
    pub fn first_start_s(&self) -> f64 {
        match &self.statistics {
            Some(s) => s.start_minimum().unwrap_or(0) as f64 / 1e9,
            None => self.starts.iter().min().map_or(0.0, |&v| v as f64 / 1e9),
        }
    }

    /// Latest end in seconds (`Region.last_end_time`).
    pub fn last_end_s(&self) -> f64 {
        match &self.statistics {
            Some(s) => s.end_maximum().unwrap_or(0) as f64 / 1e9,
            None => self.ends.iter().max().map_or(0.0, |&v| v as f64 / 1e9),
        }
    }

    /// Whether GPU timing exists for the row.
    pub fn has_gpu(&self) -> bool {
        match &self.statistics {
            Some(s) => s.gpu_count > 0,
            None => self.gpu.as_ref().is_some_and(|g| !g.is_empty()),
        }
    }
}

impl Region {
    /// `MPIRegion.first_start_time` as `get_regions` sorts by: min over rows, where a row
    /// without calls counts 0.0 (the reference's `min` over every row).
    pub fn sort_key(&self) -> f64 {
        self.ranks
            .iter()
            .map(RankCalls::first_start_s)
            .fold(f64::INFINITY, f64::min)
    }

    /// Whether any row has calls.
    pub fn has_timing(&self) -> bool {
        self.ranks.iter().any(|r| r.calls() > 0)
    }

    /// Earliest start over rows with calls, 0.0 if none (`MPIRegion.first_start_time`).
    pub fn first_start_s(&self) -> f64 {
        finite_or_zero(
            self.ranks
                .iter()
                .filter(|r| r.calls() > 0)
                .map(RankCalls::first_start_s)
                .fold(f64::INFINITY, f64::min),
        )
    }

    /// Latest end over rows with calls, 0.0 if none.
    pub fn last_end_s(&self) -> f64 {
        finite_or_zero(
            self.ranks
                .iter()
                .filter(|r| r.calls() > 0)
                .map(RankCalls::last_end_s)
                .fold(f64::NEG_INFINITY, f64::max),
        )
    }
}

impl Profile {
    /// Zero of the relative timeline: `start_time_ns`, else the first region entry.
    pub fn time_origin(&self) -> f64 {
        meta_seconds(self, "start_time_ns").unwrap_or_else(|| self.minimum_start_s())
    }

    /// Earliest start over regions with calls, 0.0 if none.
    pub fn minimum_start_s(&self) -> f64 {
        finite_or_zero(
            self.regions
                .iter()
                .filter(|r| r.has_timing())
                .map(Region::first_start_s)
                .fold(f64::INFINITY, f64::min),
        )
    }
}

fn finite_or_zero(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}
