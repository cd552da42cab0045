//! `sp`: merge scope-profiler native traces into HDF5 profiles, and read them, without
//! libhdf5. The library is the product: the `sp` command line and the browser page are
//! thin shells over it that choose options, supply bytes, run threads and print.
//!
//! # Layers
//!
//! Bottom up, each independent of the ones above it:
//!
//! - [`io`]: positional reads and writes ([`io::ReadAt`], [`io::WriteAt`]) over a slice, a
//!   file, or a browser `Blob`: nothing forces a whole file into memory.
//! - [`trace`]: the `.spt` binary trace format written by the C and Fortran APIs.
//! - [`hdf5lite`]: the HDF5 file format (writer and reader), with no knowledge of profiles.
//! - [`schema`]: the scope-profiler profile — its one model ([`schema::Profile`]), its one
//!   reader of schema 1, 2 and 3 ([`schema::read()`], to the depth a caller needs), the
//!   dataset names ([`schema::names`]) — and the rules of `import-native`: merging ranks
//!   ([`schema::Merger`]), numpy-exact statistics, the schema-3 writer.
//! - [`analysis`]: the questions asked of a stored profile: the region statistics of
//!   `scope-profiler inspect` to the same bits, their report as a table, CSV or JSON
//!   ([`analysis::report`]), and streaming exports for trace viewers
//!   ([`analysis::export`]).
//! - [`convert`]: the conversion pipeline (traces to a profile), as jobs a front end runs on
//!   threads or in order.
//!
//! Nothing here touches the file system, threads or the terminal, so the library builds
//! for WebAssembly; work that can use threads (statistics recomputed from every event) is
//! planned as independent jobs the caller runs on threads or in order.
//!
//! # The front ends, through the library
//!
//! `sp convert`, in memory: traces in, a schema-3 profile out.
//!
//! ```
//! use sp::schema::{write, Merger, RegionCalls};
//!
//! let traces: [&[u8]; 2] = [
//!     include_bytes!("../tests/golden/synthetic/inputs/g_rank00000.spt"),
//!     include_bytes!("../tests/golden/synthetic/inputs/g_rank00001.spt"),
//! ];
//! let mut merger = Merger::new();
//! for (n, bytes) in traces.iter().enumerate() {
//!     let trace = sp::trace::parse(bytes)?;
//!     let regions = trace.regions.iter().map(RegionCalls::from).collect();
//!     merger.add_rank(&format!("trace {n}"), i64::from(trace.rank), regions, None)?;
//! }
//! let profile = merger.finish(Some("golden"));
//! let mut file = Vec::new();
//! write::to_hdf5(&profile)?.finish(&mut file)?;
//! assert_eq!(profile.region_names, ["idle", "assemble", "solve", "io"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `sp inspect`: the region rows, and the report in any format.
//!
//! ```
//! use sp::analysis::report::{FileReport, Format, ReportOptions, ReportWriter};
//! use sp::analysis::{region_rows, RowOptions, Selection};
//! use sp::hdf5lite::reader::File;
//!
//! let bytes = include_bytes!("../tests/golden/synthetic/expected/golden.h5");
//! let file = File::open(&bytes[..])?;
//! let options = ReportOptions::default();
//! let profile = options.reading().read(&file)?; // every call: the call tree
//! let rows = region_rows(&profile, &Selection::all(), RowOptions::default());
//! let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
//! assert_eq!(names, ["io", "assemble", "solve", "idle"]); // by first call; idle has none
//! assert_eq!(rows.iter().map(|r| r.calls).sum::<u64>(), 9);
//!
//! let mut report = ReportWriter::new(Vec::new(), Format::Csv, options);
//! report.file(&FileReport { name: "golden.h5", size: bytes.len() as u64, profile: &profile, rows: &rows,
//!     rows_from_calls: profile.has_events() })?;
//! let csv = String::from_utf8(report.finish()?)?;
//! assert!(csv.starts_with("file,name,call_path,"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `sp export`: the index is read, then each row's calls as they are written.
//!
//! ```
//! use sp::analysis::export::{Exporter, Format};
//! use sp::analysis::Selection;
//! use sp::hdf5lite::reader::File;
//!
//! let bytes = include_bytes!("../tests/golden/synthetic/expected/golden.h5");
//! let file = File::open(&bytes[..])?;
//! let exporter = Exporter::open(&file, "golden")?;
//! let mut trace = Vec::new();
//! exporter.write(Format::ChromeTrace, &Selection::all(), &mut trace)?;
//! assert!(trace.starts_with(br#"{"displayTimeUnit":"ms""#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `sp ls`: the tree of any HDF5 file, walked one object at a time (an object that cannot be
//! read is a node saying why, never the end of the listing), written as text or JSON.
//!
//! ```
//! use sp::hdf5lite::{reader::File, tree};
//!
//! let bytes = include_bytes!("../tests/golden/synthetic/expected/golden.h5");
//! let file = File::open(&bytes[..])?;
//! let options = tree::Options { values: true, max_elements: Some(8) };
//! let mut listing = Vec::new();
//! tree::write_text(&mut listing, tree::Walk::new(&file, "/rank_region_index", options)?)?;
//! let listing = String::from_utf8(listing)?;
//! assert!(listing.contains("ranks"), "{listing}");
//! let ranks = file.dataset(sp::schema::names::index::RANKS.path)?;
//! assert_eq!(ranks.read_u64s()?, [0, 0, 0, 1, 1]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod analysis;
pub mod chart;
pub mod convert;
pub mod hdf5lite;
pub mod io;
pub mod mcp;
pub mod page;
pub mod paths;
pub mod samples;
pub mod schema;
pub mod sort;
pub mod symbolize;
pub mod text;
pub mod trace;
