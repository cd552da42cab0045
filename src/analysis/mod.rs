//! Reading a stored profile back and answering the everyday questions about it: the region
//! statistics of `scope-profiler inspect` (computed to the same bits), and streaming
//! exports to the formats of trace viewers. Independent of the file system and the
//! terminal: it reads through [`ReadAt`](crate::io::ReadAt) and writes to any
//! [`std::io::Write`], so it runs in WebAssembly too.
//!
//! ```
//! use sp::analysis::{region_rows, PercentageMode, Profile, Selection, SortKey};
//! use sp::hdf5lite::reader::File;
//! # fn demo(bytes: &[u8]) -> Result<(), sp::analysis::Error> {
//! let file = File::open(bytes)?;
//! let profile = Profile::read(&file)?;
//! for row in region_rows(&profile, &Selection::all(), SortKey::Start, PercentageMode::Coverage) {
//!     println!("{} {:?}", row.name, row.total);
//! }
//! # Ok(()) }
//! ```

pub mod balance;
pub mod calltree;
pub mod error;
pub mod events;
pub mod export;
pub mod lanes;
pub mod numeric;
pub mod overview;
pub mod pattern;
pub mod profile;
pub mod quantiles;
pub mod rows;
pub mod units;

pub use error::{Error, Result};
pub use events::{EventReader, Loaded, RowEvents, RowSource, Span};
pub use lanes::Lanes;
pub use profile::{Layout, Meta, Profile, RankCalls, Region, Stored};
pub use rows::{region_rows, PercentageMode, Row, Selection, SortKey};
