//! The scope-profiler profile: the one model of a stored profile, its one reader, and the
//! rules `import-native` follows (SCHEMA.md §2, §4, §5).
//!
//! - Reading: [`read()`] reads a schema 1, 2 or 3 file (columnar or aggregate) into a
//!   [`Profile`] to the [`Depth`] asked for — metadata only, the index only (never the event
//!   columns), or every call — and [`EventReader`] reads the calls of one row on demand. The
//!   dataset and attribute names are in [`names`]; [`Lanes`] reads the thread and task
//!   tables that name a run's lanes.
//! - Importing: [`read_profile`] gives an `.h5` input as the merge rules consume it
//!   ([`ProfileInput`]); [`Merger`] collects ranks from traces and such inputs and yields a
//!   [`MergedProfile`] with the reference's row order, region ids and metadata;
//!   [`write::to_hdf5`] encodes it as a schema-3 file, with [`stats`]' numpy-exact summary
//!   statistics.
//!
//! Nothing here knows byte offsets: that is `hdf5lite`'s and `trace`'s business.

pub mod error;
pub mod import;
pub mod json;
pub mod lanes;
pub mod likwid;
pub mod merged;
pub mod metadata;
pub mod names;
pub mod native;
pub mod profile;
pub mod read;
pub mod stats;
pub mod write;

pub use error::Error;
pub use import::{read_profile, ProfileInput};
pub use lanes::Lanes;
pub use merged::{MergedProfile, ProfileRow};
pub use metadata::{MetaValue, Metadata};
pub use native::{Merged, MergedRow, Merger, RegionCalls, RegionRecord};
pub use profile::{
    Calls, Depth, LoadedCalls, Optional, Profile, ProfileLayout, RankCalls, Region, RowStatistics,
    Span,
};
pub use read::events::{CallIds, EventReader, RowEvents};
pub use read::{read, RegionTags, MAX_RANKS, NEWEST_SCHEMA};
pub use stats::Summary;
