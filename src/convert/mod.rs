//! The conversion pipeline of `sp convert`: per-rank traces and stored profiles in (and a
//! profile to merge into), one schema-3 profile out, with `import-native`'s content, in
//! bounded memory whatever the size of the run. Runs can be sharded ([`shard`]).
//!
//! The work is a sequence of phases, each a set of independent jobs; a front end runs the
//! jobs of a phase in any order or in parallel (the CLI on a thread pool, a single-threaded
//! WebAssembly caller one after another, as [`convert`] does) and hands their results to the
//! next phase in job order. The output is the same bytes either way.
//!
//! 1. **Pass 1** ([`scan`]): [`scan_input`] per input ([`scan_trace`], [`scan_profile`]),
//!    then [`Scan::summarise`] per [`SegmentJob`] (rows over one [`BLOCK`]), joined by
//!    [`Scan::join`].
//! 2. **Plan** ([`plan`]): [`Plan::new`] applies the merge rules (row order, region ids,
//!    metadata) and lays the file out; [`Plan::write_head`] writes its structure.
//! 3. **Pass 2** ([`pass2`]): [`Conversion::run_units`] per job of [`Conversion::jobs`]
//!    reads its units' calls again and writes their event columns at their offsets, or,
//!    with compression, packs them into chunks that a [`ChunkAppender`] appends in unit
//!    order.
//! 4. [`Conversion::finish`] writes the summaries (gathered in a [`Tally`]) and returns the
//!    rows' totals.
//!
//! Inputs are read through [`Sources`] (any [`ReadAt`]), the output is any [`WriteAt`];
//! nothing here touches files, threads or a terminal.
//!
//! ```
//! use sp::convert::{convert, Input, Options};
//! use sp::trace::{encode, Endian, Region, Trace, Version};
//!
//! let trace = |rank, start| Trace {
//!     rank,
//!     regions: vec![Region {
//!         name: "solve".into(),
//!         starts: vec![start, start + 100],
//!         ends: vec![start + 40, start + 150],
//!         ..Region::default()
//!     }],
//! };
//! let inputs = [
//!     encode(&trace(0, 1000), Version::V2, Endian::Little),
//!     encode(&trace(1, 900), Version::V1, Endian::Big),
//! ];
//! let names = [Input::new("run_rank00000.spt"), Input::new("run_rank00001.spt")];
//! let options = Options { label: Some("run".into()), ..Options::default() };
//! let mut profile = Vec::new();
//! let converted = convert(&names, &&inputs[..], &options, &mut profile)?;
//! assert_eq!(converted.region_names, ["solve"]);
//! assert_eq!(converted.rows.iter().map(|r| r.total_ns).sum::<i128>(), 180);
//! assert_eq!(&profile[..8], b"\x89HDF\r\n\x1a\n");
//! # Ok::<(), sp::convert::Error>(())
//! ```

mod calls;
mod error;
mod pack;
#[cfg(any(unix, windows))]
pub mod parallel;
pub mod pass2;
pub mod plan;
mod profile;
pub mod scan;
pub mod shard;
pub mod summary;

use std::io;

pub use crate::hdf5lite::filters::Deflate;
pub use calls::Worker;
pub use error::Error;
pub use pack::{ChunkAppender, PackedUnit};
pub use pass2::{Conversion, Converted, RowTotal, Tally, UnitDone, UnitStats};
pub use plan::{Options, Plan};
pub use profile::scan_profile;
pub use scan::{scan_trace, Scan, ScannedInput, Segment, SegmentJob};
pub use shard::{Shard, ShardError};

use crate::io::{ReadAt, WriteAt};
use crate::schema::stats::CAST_BUFFER;

/// Calls handled at once: 512 Ki calls, 4 MiB per timestamp array. Pass-1 segments and
/// pass-2 units are about this size. A multiple of numpy's 8192-element cast buffer, so
/// block-wise means keep numpy's bits.
pub const BLOCK: u64 = 1 << 19;
const _: () = assert!(BLOCK % CAST_BUFFER as u64 == 0);

/// The inputs' bytes by input number, for the jobs that read an input again after pass 1.
pub trait Sources {
    type Source: ReadAt;

    /// The bytes of input `input`.
    fn open(&self, input: usize) -> io::Result<Self::Source>;
}

/// Inputs held in memory.
impl<'a, T: AsRef<[u8]>> Sources for &'a [T] {
    type Source = &'a [u8];

    fn open(&self, input: usize) -> io::Result<&'a [u8]> {
        self.get(input)
            .map(AsRef::as_ref)
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }
}

/// How the pipeline reads an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A `.spt` trace.
    Trace,
    /// An HDF5 profile: per-rank, merged or Python-written, schema 1, 2 or 3.
    Profile,
}

impl InputKind {
    /// `import-native`'s rule, by the input's path: a profile when the file name's suffix
    /// is exactly `.h5`, else a trace.
    pub fn of(path: &str) -> InputKind {
        let file_name = path.rsplit('/').next().unwrap_or(path);
        match file_name.rfind('.') {
            Some(dot) if dot > 0 && &file_name[dot..] == ".h5" => InputKind::Profile,
            _ => InputKind::Trace,
        }
    }
}

/// One input: its name (in errors and the merge's messages) and how it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub name: String,
    pub kind: InputKind,
}

impl Input {
    /// An input named by its path, its kind by [`InputKind::of`].
    pub fn new(path: impl Into<String>) -> Input {
        let name = path.into();
        Input {
            kind: InputKind::of(&name),
            name,
        }
    }
}

/// Pass 1 of input number `input`, read from `src`.
pub fn scan_input<R: ReadAt, W: ReadAt>(
    input: usize,
    about: &Input,
    src: R,
    worker: &mut Worker<W>,
) -> Result<ScannedInput, Error> {
    match about.kind {
        InputKind::Trace => scan_trace(input, &about.name, &src, worker),
        InputKind::Profile => scan_profile(input, &about.name, src, worker),
    }
}

#[cfg(test)]
mod kind_tests {
    use super::InputKind;

    #[test]
    fn profiles_by_the_exact_h5_suffix() {
        assert_eq!(InputKind::of("d/run_rank00002.h5"), InputKind::Profile);
        assert_eq!(InputKind::of("x.h5"), InputKind::Profile);
        assert_eq!(InputKind::of("x.h5.spt"), InputKind::Trace);
        assert_eq!(InputKind::of("x.hdf5"), InputKind::Trace);
        assert_eq!(InputKind::of("x.H5"), InputKind::Trace);
        // A dot file has no suffix, as in Python's pathlib.
        assert_eq!(InputKind::of("d/.h5"), InputKind::Trace);
        assert_eq!(InputKind::of("a.h5/x"), InputKind::Trace);
    }
}

/// The whole pipeline on the calling thread, job after job: `inputs` (in the order the
/// merge rules take them; with [`Options::merge`], the profile to merge into last), read
/// through `sources` by their position, to a profile in `out`.
pub fn convert<S: Sources, W: WriteAt + ?Sized>(
    inputs: &[Input],
    sources: &S,
    options: &Options,
    out: &mut W,
) -> Result<Converted, Error> {
    let mut worker = Worker::new();
    let results = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let src = sources.open(i).map_err(|e| Error::read(&input.name, e))?;
            scan_input(i, input, src, &mut worker)
        })
        .collect();
    let names = inputs.iter().map(|i| i.name.clone()).collect();
    let mut scan = Scan::new(names, results);
    let done = scan
        .segments()
        .into_iter()
        .map(|job| (job, scan.summarise(&job, sources, &mut worker)))
        .collect();
    scan.join(done);
    let conversion = Plan::new(scan, options)?.write_head(out)?;
    let mut appender = conversion.appender();
    let mut tally = conversion.tally();
    for job in conversion.jobs() {
        conversion.run_units(job, sources, &mut worker, out, |_, done, out| {
            if let (Some(packed), Some(appender)) = (done.packed, appender.as_mut()) {
                appender.append(packed, out)?;
            }
            tally.add(done.stats);
            Ok(())
        })?;
    }
    conversion.finish(tally, appender, out)
}

#[cfg(test)]
mod tests;
