//! The conversion pipeline of `sp convert`: per-rank traces in, one schema-3 profile out,
//! with `import-native`'s content, in bounded memory whatever the size of the run.
//!
//! The work is a sequence of phases, each a set of independent jobs; a front end runs the
//! jobs of a phase in any order or in parallel (the CLI on a thread pool, a single-threaded
//! WebAssembly caller one after another, as [`convert`] does) and hands their results to the
//! next phase in job order. The output is the same bytes either way.
//!
//! 1. **Pass 1** ([`scan`]): [`scan_trace`] per input, then [`Scan::summarise`] per
//!    [`SegmentJob`] (regions over one [`BLOCK`]), joined by [`Scan::join`].
//! 2. **Plan** ([`plan`]): [`Plan::new`] applies the merge rules (row order, region ids,
//!    metadata) and lays the file out; [`Plan::write_head`] writes its structure.
//! 3. **Pass 2** ([`pass2`]): [`Conversion::run_unit`] per unit reads the unit's calls again
//!    and writes their event columns at their offsets, or, with compression, packs them
//!    into chunks that a [`ChunkAppender`] appends in unit order.
//! 4. [`Conversion::finish`] writes the summaries and returns the rows' totals.
//!
//! Inputs are read through [`Sources`] (any [`ReadAt`]), the output is any [`WriteAt`];
//! nothing here touches files, threads or a terminal.
//!
//! ```
//! use sp::convert::{convert, Options};
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
//! let names = vec!["run_rank00000.spt".into(), "run_rank00001.spt".into()];
//! let options = Options { label: Some("run".into()), compress: None };
//! let mut profile = Vec::new();
//! let converted = convert(names, &&inputs[..], &options, &mut profile)?;
//! assert_eq!(converted.region_names, ["solve"]);
//! assert_eq!(converted.rows.iter().map(|r| r.total_ns).sum::<i128>(), 180);
//! assert_eq!(&profile[..8], b"\x89HDF\r\n\x1a\n");
//! # Ok::<(), sp::convert::Error>(())
//! ```

mod calls;
mod error;
mod memory;
mod pack;
pub mod pass2;
pub mod plan;
pub mod scan;

use std::io;

pub use calls::Worker;
pub use error::Error;
pub use memory::write_compressed;
pub use pack::{ChunkAppender, PackedUnit};
pub use pass2::{Conversion, Converted, RowTotal, UnitDone, UnitStats};
pub use plan::{Options, Plan};
pub use scan::{scan_trace, Scan, ScannedInput, Segment, SegmentJob};

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

/// The whole pipeline on the calling thread, job after job: traces `sources` (named
/// `names` in errors, in the order the merge rules take them) to a profile in `out`.
pub fn convert<S: Sources, W: WriteAt + ?Sized>(
    names: Vec<String>,
    sources: &S,
    options: &Options,
    out: &mut W,
) -> Result<Converted, Error> {
    let mut worker = Worker::new();
    let results = (0..names.len())
        .map(|i| {
            let src = sources.open(i).map_err(|e| Error::read(&names[i], e))?;
            scan_trace(i, &names[i], &src, &mut worker)
        })
        .collect();
    let mut scan = Scan::new(names, results);
    let done = scan
        .segments()
        .into_iter()
        .map(|job| (job, scan.summarise(&job, sources, &mut worker)))
        .collect();
    scan.join(done);
    let conversion = Plan::new(scan, options)?.write_head(out)?;
    let mut appender = conversion.appender();
    let mut stats = Vec::with_capacity(conversion.units());
    for u in 0..conversion.units() {
        let done = conversion.run_unit(u, sources, &mut worker, out)?;
        if let (Some(packed), Some(appender)) = (done.packed, appender.as_mut()) {
            appender.append(packed, out)?;
        }
        stats.push(done.stats);
    }
    conversion.finish(stats, appender, out)
}

#[cfg(test)]
mod tests;
