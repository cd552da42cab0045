//! The names of a profile's groups, datasets and attributes (SCHEMA.md §2), in one place for
//! the reader, the writer and the analysis. A [`Group`] or [`Dataset`] carries both its
//! name (what a writer creates under its parent) and its absolute path (what a reader
//! opens).

/// A group of the profile tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// The link name under the root.
    pub name: &'static str,
    /// The absolute path.
    pub path: &'static str,
}

/// A dataset of the profile tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dataset {
    /// The group it lies in.
    pub group: Group,
    /// The link name within that group.
    pub name: &'static str,
    /// The absolute path.
    pub path: &'static str,
}

macro_rules! group {
    ($name:literal) => {
        Group {
            name: $name,
            path: concat!("/", $name),
        }
    };
}

macro_rules! dataset {
    ($group:literal, $name:literal) => {
        Dataset {
            group: group!($group),
            name: $name,
            path: concat!("/", $group, "/", $name),
        }
    };
}

/// Root attribute: the schema version (absent ⇒ schema 1).
pub const SCHEMA_VERSION: &str = "scope_profiler_schema";
/// Root attribute: `"columnar"` or `"aggregate"` (schema 2 and 3).
pub const STORAGE_LAYOUT: &str = "storage_layout";
/// The `storage_layout` value of the shared event columns.
pub const COLUMNAR: &str = "columnar";
/// The `storage_layout` value of aggregate-only rows.
pub const AGGREGATE: &str = "aggregate";

/// The run metadata, as the attributes of this group.
pub const METADATA: Group = group!("metadata");
/// The region names (schema 2 and 3).
pub const REGION_TABLE: Group = group!("region_table");
/// One row per (rank, region) (schema 2 and 3).
pub const INDEX: Group = group!("rank_region_index");
/// The shared event columns (schema 2 and 3).
pub const EVENTS: Group = group!("events");
/// The threads a run tracked.
pub const THREAD_TABLE: Group = group!("thread_table");
/// The asyncio tasks a run tracked.
pub const TASK_TABLE: Group = group!("task_table");

/// `/region_table/names`: the name of each region id.
pub const REGION_NAMES: Dataset = dataset!("region_table", "names");

/// The columns of `/rank_region_index` (SCHEMA.md §2.5, §2.12.4).
pub mod index {
    use super::{Dataset, Group};

    pub const REGION_IDS: Dataset = dataset!("rank_region_index", "region_ids");
    pub const RANKS: Dataset = dataset!("rank_region_index", "ranks");
    pub const EVENT_OFFSETS: Dataset = dataset!("rank_region_index", "event_offsets");
    pub const EVENT_COUNTS: Dataset = dataset!("rank_region_index", "event_counts");
    pub const SOURCE_LINES: Dataset = dataset!("rank_region_index", "source_lines");
    pub const EXCLUSIVE_TOTALS: Dataset = dataset!("rank_region_index", "exclusive_totals");
    pub const SUMMARY_STATISTICS: Dataset = dataset!("rank_region_index", "summary_statistics");
    pub const SOURCE_FILES: Dataset = dataset!("rank_region_index", "source_files");
    pub const SOURCE_TEXTS: Dataset = dataset!("rank_region_index", "source_texts");
    pub const TAGS: Dataset = dataset!("rank_region_index", "tags");
    pub const EVENT_METADATA: Dataset = dataset!("rank_region_index", "event_metadata");
    pub const AGGREGATE_COUNTS: Dataset = dataset!("rank_region_index", "aggregate_counts");
    pub const AGGREGATE_TOTALS: Dataset = dataset!("rank_region_index", "aggregate_totals");
    pub const AGGREGATE_MINIMUMS: Dataset = dataset!("rank_region_index", "aggregate_minimums");
    pub const AGGREGATE_MAXIMUMS: Dataset = dataset!("rank_region_index", "aggregate_maximums");
    pub const AGGREGATE_EXCLUSIVES: Dataset = dataset!("rank_region_index", "aggregate_exclusives");
}

/// The columns of `/events` (SCHEMA.md §2.7, §2.12.1).
pub mod events {
    use super::{Dataset, Group};

    /// Schema 3: the first start of a row, then start-to-start gaps.
    pub const START_DELTAS: Dataset = dataset!("events", "start_deltas");
    /// Schema 3: `end − start` of each call.
    pub const DURATIONS: Dataset = dataset!("events", "durations");
    /// Schema 2: absolute starts.
    pub const START_TIMES: Dataset = dataset!("events", "start_times");
    /// Schema 2: absolute ends.
    pub const END_TIMES: Dataset = dataset!("events", "end_times");
    pub const GPU_DURATIONS: Dataset = dataset!("events", "gpu_durations");
    pub const THREAD_IDS: Dataset = dataset!("events", "thread_ids");
    pub const TASK_IDS: Dataset = dataset!("events", "task_ids");
    /// Python runs: each call's id, unique per rank (−1 = none).
    pub const CALL_IDS: Dataset = dataset!("events", "call_ids");
    /// Python runs: the id of each call's caller (−1 = a root).
    pub const PARENT_IDS: Dataset = dataset!("events", "parent_ids");
}

/// Schema 1 and the per-rank groups of every schema: `rank<N>` holding `regions/<name>`
/// (schema 1) and `likwid` (SCHEMA.md §2.11, §2.12.3).
pub mod rank {
    /// The prefix of a rank group's name (`rank<N>`, N in decimal).
    pub const PREFIX: &str = "rank";
    /// Schema 1: the group of a rank's regions.
    pub const REGIONS: &str = "regions";
    /// Schema 1: a region's absolute starts.
    pub const START_TIMES: &str = "start_times";
    /// Schema 1: a region's absolute ends.
    pub const END_TIMES: &str = "end_times";
    /// Schema 1: a region's GPU durations.
    pub const GPU_DURATIONS: &str = "gpu_durations";
    /// Schema 1 region attributes.
    pub const SOURCE_FILE: &str = "source_file";
    pub const SOURCE_LINENO: &str = "source_lineno";
    pub const SOURCE_TEXT: &str = "source_text";
    /// LIKWID results of a rank.
    pub const LIKWID: &str = "likwid";

    /// The name of rank `rank`'s group.
    pub fn group_name(rank: u32) -> String {
        format!("{PREFIX}{rank}")
    }

    /// The rank of a group named `rank<N>` (N decimal digits), if it is one.
    pub fn number(name: &str) -> Option<u32> {
        let digits = name.strip_prefix(PREFIX)?;
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse().ok())
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_group_and_name() {
        assert_eq!(index::REGION_IDS.path, "/rank_region_index/region_ids");
        assert_eq!(index::REGION_IDS.group, INDEX);
        assert_eq!(events::START_DELTAS.group.path, "/events");
        assert_eq!(REGION_NAMES.path, "/region_table/names");
        assert_eq!(METADATA.path, "/metadata");
    }

    #[test]
    fn rank_group_names() {
        assert_eq!(rank::number("rank0"), Some(0));
        assert_eq!(rank::number("rank12"), Some(12));
        assert_eq!(rank::number("rank"), None);
        assert_eq!(rank::number("rankx"), None);
        assert_eq!(rank::number("ranks"), None);
        assert_eq!(rank::group_name(7), "rank7");
    }
}
