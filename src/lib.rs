//! `sp`: merge scope-profiler native traces into HDF5 profiles, and read them, without
//! libhdf5.
//!
//! Layers, bottom up, each independent of the ones above it:
//!
//! - [`trace`]: the `.spt` binary trace format written by the C and Fortran APIs.
//! - [`hdf5lite`]: the HDF5 file format (writer and reader), with no knowledge of profiles.
//! - [`schema`]: the scope-profiler profile model and the rules of `import-native`, on top
//!   of the two above.
//! - [`convert`]: the conversion pipeline (traces to a profile), as jobs a front end runs on
//!   threads or in order.
//!
//! The `sp` binary (the `cli` feature) is a thin shell over these. Nothing below it touches
//! the file system, threads or the terminal, so the library builds for WebAssembly.

pub mod analysis;
pub mod convert;
pub mod hdf5lite;
pub mod io;
pub mod schema;
pub mod trace;
