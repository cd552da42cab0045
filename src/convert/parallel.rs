//! The conversion pipeline on all cores, for native hosts: each phase's jobs run on a pool
//! of threads, with files for inputs and output, `pwrite` at planned offsets, a progress
//! count and periodic flushing of the output. Small inputs are read whole in pass 1 and,
//! within a budget, kept in memory for pass 2.

use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use super::{
    ChunkAppender, Converted, Error, Input, InputKind, Options, PackedUnit, Plan, Scan,
    ScannedInput, Shard, Sources, Worker,
};
use crate::io::file::{FileSink, LocalFile};
use crate::io::inputs::InputsError;
use crate::io::ReadAt;
use crate::paths::InputPath;
use crate::schema::metadata::LeftOut;

/// Inputs up to this size are read whole in pass 1 and, budget permitting, kept for pass 2.
const SMALL_FILE: u64 = 4 << 20;
/// Bytes of small inputs kept between the passes: within what 100,000 ranks' rows leave
/// of a 512 MiB run; the others are opened again.
const RETAIN_BUDGET: u64 = 32 << 20;
/// How often the output is flushed to disk while pass 2 writes it.
const FLUSH_EVERY_MS: u64 = 100;
/// Packed units a thread may hold ahead of the oldest unwritten one before it waits.
const MAX_AHEAD: usize = 16;

/// An input's bytes: kept in memory, or read from its file.
#[derive(Clone)]
pub enum Source {
    Bytes(Arc<Vec<u8>>),
    File(Arc<LocalFile>),
}

impl ReadAt for Source {
    fn len(&self) -> u64 {
        match self {
            Source::Bytes(b) => ReadAt::len(b.as_slice()),
            Source::File(f) => f.len(),
        }
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        match self {
            Source::Bytes(b) => b.as_slice().read_exact_at(offset, buf),
            Source::File(f) => f.read_exact_at(offset, buf),
        }
    }
}

/// The input files, with the small ones pass 1 kept.
struct Inputs {
    paths: Vec<PathBuf>,
    kept: Vec<Option<Arc<Vec<u8>>>>,
}

impl Sources for Inputs {
    type Source = Source;

    fn open(&self, input: usize) -> io::Result<Source> {
        match self.kept.get(input).cloned().flatten() {
            Some(bytes) => Ok(Source::Bytes(bytes)),
            None => Ok(Source::File(Arc::new(LocalFile::open(&self.paths[input])?))),
        }
    }
}

/// The threads to use.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `job(worker, i)` for `i` in `0..jobs` on up to `threads` threads (one worker each),
/// returning the results in job order.
fn run_jobs<T: Send>(jobs: usize, job: impl Fn(&mut Worker<Source>, usize) -> T + Sync) -> Vec<T> {
    let slots: Vec<Mutex<Option<T>>> = (0..jobs).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads().min(jobs).max(1) {
            scope.spawn(|| {
                let mut worker = Worker::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= jobs {
                        break;
                    }
                    let result = job(&mut worker, i);
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(result);
                    }
                }
            });
        }
    });
    slots
        .into_iter()
        .filter_map(|slot| slot.into_inner().ok().flatten())
        .collect()
}

/// Pass 1 of one input: small files are read whole (and kept if the budget allows).
fn scan_input(
    worker: &mut Worker<Source>,
    i: usize,
    input: &Input,
    retained: &AtomicU64,
) -> (Result<ScannedInput, Error>, Option<Arc<Vec<u8>>>) {
    let name = input.name.clone();
    let failed = |source| match input.kind {
        InputKind::Trace => Error::Read {
            input: name,
            source,
        },
        InputKind::Profile => Error::Open {
            input: name,
            source,
        },
    };
    let file = match LocalFile::open(Path::new(&input.name)) {
        Ok(file) => file,
        Err(e) => return (Err(failed(e)), None),
    };
    if file.len() > SMALL_FILE {
        let source = Source::File(Arc::new(file));
        return (super::scan_input(i, input, source, worker), None);
    }
    let mut bytes = vec![0u8; file.len() as usize];
    if let Err(e) = file.read_exact_at(0, &mut bytes) {
        return (Err(failed(e)), None);
    }
    let bytes = Arc::new(bytes);
    let scanned = super::scan_input(i, input, Source::Bytes(bytes.clone()), worker);
    let len = bytes.len() as u64;
    let before = retained.fetch_add(len, Ordering::Relaxed);
    if scanned.is_ok() && before + len <= RETAIN_BUDGET {
        (scanned, Some(bytes))
    } else {
        retained.fetch_sub(len, Ordering::Relaxed);
        (scanned, None)
    }
}

/// The inputs of one `sp convert ARGS… [--shard I/N] [--merge PROFILE]`: the traces and
/// per-rank profiles `args` name, directories scanned and in sorted path order
/// ([`discover`](crate::io::inputs::discover)), cut to `shard`'s part, then the profile
/// `merge` that they are merged into.
pub fn inputs_of(
    args: &[String],
    shard: Option<Shard>,
    merge: Option<&str>,
) -> Result<Vec<Input>, InputsError> {
    let mut paths = crate::io::inputs::discover(args)?;
    if let Some(shard) = shard {
        paths = paths[shard.inputs(paths.len())].to_vec();
    }
    let mut inputs: Vec<Input> = paths.iter().map(|p| Input::new(p.as_str())).collect();
    if let Some(merge) = merge {
        inputs.push(Input {
            name: InputPath::new(merge).as_str().to_owned(),
            kind: InputKind::Profile,
        });
    }
    Ok(inputs)
}

/// The work [`convert_files`] reports to its `progress` in all: both passes read every
/// input's timestamps once (an input that cannot be read counts nothing).
pub fn progress_total(inputs: &[Input]) -> u64 {
    let size = |i: &Input| std::fs::metadata(&i.name).map_or(0, |m| m.len());
    inputs.iter().map(size).sum::<u64>().saturating_mul(2)
}

/// Pass 2's shared state for compressed columns: units packed ahead of their turn, and the
/// appender that writes them in order.
struct Appending {
    appender: ChunkAppender,
    ready: BTreeMap<usize, PackedUnit>,
}

/// Converts `inputs` (in the order the merge rules take them) into the empty file `output`
/// (which the caller publishes, or removes on failure). `progress` is told of each piece of
/// work as it is done (each pass counts every input's timestamps once), `left_out` of each
/// `/metadata` attribute that cannot be carried into the new file.
pub fn convert_files(
    inputs: &[Input],
    options: &Options,
    file: &File,
    progress: &(dyn Fn(u64) + Sync),
    left_out: &mut dyn FnMut(LeftOut),
) -> Result<Converted, Error> {
    // Pass 1, inputs in parallel.
    let retained = AtomicU64::new(0);
    let scanned = run_jobs(inputs.len(), |worker, i| {
        let (result, kept) = scan_input(worker, i, &inputs[i], &retained);
        if let Ok(scanned) = &result {
            progress(scanned.work());
        }
        (result, kept)
    });
    let (results, kept): (Vec<_>, Vec<_>) = scanned.into_iter().unzip();
    let names: Vec<String> = inputs.iter().map(|i| i.name.clone()).collect();
    let sources = Inputs {
        paths: names.iter().map(PathBuf::from).collect(),
        kept,
    };
    let mut scan = Scan::new(names, results);
    let jobs = scan.segments();
    let segments = run_jobs(jobs.len(), |worker, j| {
        let result = scan.summarise(&jobs[j], &sources, worker);
        progress(jobs[j].work());
        result
    });
    scan.join(jobs.into_iter().zip(segments).collect());
    let plan = Plan::new(scan, options)?;
    plan.left_out().into_iter().for_each(left_out);
    let conversion = plan.write_head(&mut FileSink(file))?;

    // Pass 2.
    let appending = conversion.appender().map(|appender| {
        Mutex::new(Appending {
            appender,
            ready: BTreeMap::new(),
        })
    });
    let turn = Condvar::new();
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    let fail_with = |e: Error| {
        stop.store(true, Ordering::Relaxed);
        if let Ok(mut first) = failed.lock() {
            first.get_or_insert(e);
        }
        turn.notify_all();
    };
    // Appends a packed unit once its turn has come (with any packed ahead of it); a unit
    // too far ahead waits, so the backlog stays small.
    let append = |packed: PackedUnit| -> Result<(), Error> {
        let Some(appending) = &appending else {
            return Err(Error::Internal("packed units without an appender"));
        };
        let poisoned = |_| Error::Internal("the appender is poisoned");
        let mut state = appending.lock().map_err(poisoned)?;
        while packed.unit() > state.appender.next_unit() + MAX_AHEAD {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            state = turn.wait(state).map_err(poisoned)?;
        }
        state.ready.insert(packed.unit(), packed);
        let mut sink = FileSink(file);
        let Appending { appender, ready } = &mut *state;
        while let Some(next) = ready.remove(&appender.next_unit()) {
            appender.append(next, &mut sink)?;
        }
        drop(state);
        turn.notify_all();
        Ok(())
    };
    let writing = AtomicBool::new(true);
    let tally = Mutex::new(conversion.tally());
    std::thread::scope(|scope| {
        // Flush to disk while writing, so the final sync of the commit has little left.
        let flusher = scope.spawn(|| {
            while writing.load(Ordering::Relaxed) {
                std::thread::park_timeout(std::time::Duration::from_millis(FLUSH_EVERY_MS));
                if writing.load(Ordering::Relaxed) {
                    let _ = file.sync_data();
                }
            }
        });
        let jobs = conversion.jobs();
        run_jobs(jobs.len(), |worker, j| {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let mut sink = FileSink(file);
            let result = conversion.run_units(
                jobs[j].clone(),
                &sources,
                worker,
                &mut sink,
                |u, done, _| {
                    progress(conversion.unit_work(u));
                    if let Some(packed) = done.packed {
                        append(packed)?;
                    }
                    let poisoned = |_| Error::Internal("the tally is poisoned");
                    tally.lock().map_err(poisoned)?.add(done.stats);
                    Ok(())
                },
            );
            if let Err(e) = result {
                fail_with(e);
            }
        });
        writing.store(false, Ordering::Relaxed);
        flusher.thread().unpark();
    });
    if let Some(e) = failed.into_inner().ok().flatten() {
        return Err(e);
    }
    let appender = match appending {
        Some(state) => Some(
            state
                .into_inner()
                .map_err(|_| Error::Internal("the appender is poisoned"))?
                .appender,
        ),
        None => None,
    };
    let tally = tally
        .into_inner()
        .map_err(|_| Error::Internal("the tally is poisoned"))?;
    conversion.finish(tally, appender, &mut FileSink(file))
}
