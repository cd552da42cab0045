//! The scope-profiler profile model and the rules `import-native` follows (SCHEMA.md §2, §5).
//!
//! [`native::Merger`] collects ranks from traces (and later from `.h5` inputs) and yields a
//! [`MergedProfile`] with the reference's row order, region ids and metadata; [`write::to_hdf5`]
//! encodes it as a schema-3 file. Nothing here knows byte offsets: that is `hdf5lite`'s and
//! `trace`'s business.

pub mod error;
pub mod likwid;
pub mod merged;
pub mod metadata;
pub mod names;
pub mod native;
pub mod read;
pub mod stats;
pub mod write;

pub use error::Error;
pub use merged::{MergedProfile, ProfileRow};
pub use metadata::{MetaValue, Metadata};
pub use native::{Merged, MergedRow, Merger, RegionCalls, RegionRecord};
pub use read::{read_profile, StoredProfile};
pub use stats::Summary;
