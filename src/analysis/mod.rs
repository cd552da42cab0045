//! Reading a stored profile back and answering the everyday questions about it: the region
//! statistics of `scope-profiler inspect` (computed to the same bits) and its report as a
//! table, CSV or JSON ([`report`]), two profiles compared region by region as
//! `scope-profiler diff` and `check` compare them ([`compare`]), and streaming exports to
//! the formats of trace viewers ([`export`]). It works on the one profile model of
//! [`schema`](crate::schema), read to the depth each question needs ([`load`]).
//! Independent of the file system and the terminal: it reads through
//! [`ReadAt`](crate::io::ReadAt) and writes to any [`std::io::Write`], so it runs in
//! WebAssembly too.
//!
//! ```
//! use sp::analysis::{load, region_rows, RowOptions, Selection};
//! use sp::hdf5lite::reader::File;
//! # fn demo(bytes: &[u8]) -> Result<(), sp::analysis::Error> {
//! let file = File::open(bytes)?;
//! let profile = load::read_full(&file)?;
//! for row in region_rows(&profile, &Selection::all(), RowOptions::default()) {
//!     println!("{} {:?}", row.name, row.total);
//! }
//! # Ok(()) }
//! ```

pub mod balance;
pub mod calltree;
pub mod compare;
pub mod error;
pub mod events;
pub mod export;
pub mod lanes;
pub mod lines;
pub mod load;
pub mod lod;
pub mod metadata;
pub mod numeric;
pub mod overview;
pub mod pattern;
pub mod plot_data;
pub mod progress;
pub mod pstats;
pub mod quantiles;
pub mod rank_distribution;
pub mod report;
pub mod rows;
pub mod runs;
pub mod scaling;
pub mod selection;
pub mod sparkline;
pub mod stacks;
pub mod stored;
pub mod timeline;
pub mod units;
mod view;

pub use error::{Error, Result};
pub use events::{Loaded, RowSource};
pub use load::FromEvents;
pub use metadata::PyValue;
pub use rows::{
    region_rows, region_rows_with, rows_to_compute, sort_rows, unsorted_rows_with, PercentageMode,
    RegionRow, RowOptions, SortKey,
};
pub use selection::{parse_ranks, Selection, SelectionError};
