//! The corruption sweep: every golden profile and trace (tests/golden/*/inputs and expected,
//! examples/), truncated at every structure boundary its parser reads and with bytes flipped
//! at those boundaries and at pseudo-random offsets (fixed seed), goes through convert,
//! inspect and export through the library, and a sample of them through the `sp` binary
//! (convert, inspect, export, ls). Each must give `Ok` or a typed one-line error: no panic,
//! within a time bound, and within a memory bound (the work runs in child processes whose
//! address space `prlimit` caps, so a huge allocation aborts and is reported with its case).
//!
//! Boundaries come from the parsers themselves: the HDF5 files are read completely through
//! a [`ReadAt`] that records every read (superblock, object-header chunks, heaps, B-tree
//! nodes, chunks, data), and the object-header chunks are walked for message boundaries;
//! traces are indexed by `sp::trace::index` for the header and each record's fields.
//!
//! `SP_SWEEP_SCALE=N` (default 1) multiplies the number of damaged versions per file.

mod support;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sp::analysis::export::{Exporter, Format};
use sp::analysis::{load, region_rows, PercentageMode, RowOptions, Selection, SortKey};
use sp::hdf5lite::reader::{File, LinkKind, Object};
use sp::hdf5lite::ErrorKind;
use sp::io::ReadAt;
use sp::schema::{self, Merger, RegionCalls};

use support::TIGHT_LIMITS as TIGHT;

/// The most CPU time one damaged file may take through every library path (unoptimised
/// build): this, or four times what its undamaged original takes, whichever is longer (a
/// 70 000 event profile takes seconds to export in a debug build, damaged or not).
const MAX_CASE_TIME: Duration = Duration::from_secs(3);
/// The most CPU time one `sp` run on a damaged file may take (seconds; `prlimit --cpu`
/// kills it past that).
const MAX_RUN_CPU_SECONDS: u64 = 10;
/// The address space a worker (and each sampled `sp` run) may use: far above what any
/// case needs, far below what an allocation sized by a damaged count asks for.
const ADDRESS_SPACE: u64 = 3 << 30;
/// One case in this many also runs through the binary.
const BINARY_SAMPLE: usize = 25;
/// Worker processes (the machine has two cores).
const SHARDS: usize = 2;

fn scale() -> usize {
    std::env::var("SP_SWEEP_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1)
}

/// Every distinct golden profile and trace, sorted.
fn originals() -> Vec<PathBuf> {
    let repo = support::repo();
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for case in std::fs::read_dir(repo.join("tests/golden")).unwrap() {
        let case = case.unwrap().path();
        dirs.push(case.join("inputs"));
        dirs.push(case.join("expected"));
    }
    for ex in std::fs::read_dir(repo.join("examples")).unwrap() {
        dirs.push(ex.unwrap().path());
    }
    for dir in dirs.into_iter().filter(|d| d.is_dir()) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "h5" || x == "spt") {
                files.push(p);
            }
        }
    }
    files.sort();
    // Many golden files are copies of one another: sweep each content once.
    let mut seen = BTreeSet::new();
    files.retain(|p| seen.insert(std::fs::read(p).unwrap()));
    files
}

// ------------------------------------------------------------------ structure boundaries

/// A source that records the range of every read the parser makes.
struct Recording<'a> {
    bytes: &'a [u8],
    reads: RefCell<Vec<(u64, u64)>>,
}

impl ReadAt for Recording<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.reads.borrow_mut().push((offset, buf.len() as u64));
        self.bytes.read_exact_at(offset, buf)
    }
}

/// The offsets where an HDF5 file's structures (and their messages) begin and end.
fn hdf5_boundaries(bytes: &[u8]) -> BTreeSet<u64> {
    let rec = Recording {
        bytes,
        reads: RefCell::new(Vec::new()),
    };
    let mut headers = Vec::new();
    if let Ok(file) = File::open(&rec) {
        let _ = read_everything(&file, &mut headers);
        let _ = library_paths(&file);
    }
    let mut out = BTreeSet::new();
    for &(at, len) in rec.reads.borrow().iter() {
        out.insert(at);
        out.insert(at + len);
        let chunk = &bytes[at as usize..(at + len) as usize];
        for m in header_messages(chunk) {
            out.insert(at + m);
        }
    }
    // Version-1 object headers have no signature: walk them from their addresses.
    for addr in headers {
        if let Some(chunk) = bytes.get(addr as usize..) {
            if chunk.first() == Some(&1) {
                for m in v1_messages(chunk) {
                    out.insert(addr + m);
                }
            }
        }
    }
    out
}

/// Message offsets inside a version-2 object-header chunk (`OHDR` or `OCHK`).
fn header_messages(chunk: &[u8]) -> Vec<u64> {
    let (mut at, creation_order, end) = if chunk.starts_with(b"OHDR") && chunk.len() > 6 {
        let flags = chunk[5];
        let mut at = 6 + if flags & 0x20 != 0 { 16 } else { 0 };
        at += if flags & 0x10 != 0 { 4 } else { 0 };
        let width = 1usize << (flags & 3);
        let Some(size) = chunk.get(at..at + width) else {
            return Vec::new();
        };
        let size = size
            .iter()
            .rev()
            .fold(0usize, |acc, b| acc << 8 | *b as usize);
        at += width;
        (at, flags & 0x04 != 0, at + size)
    } else if chunk.starts_with(b"OCHK") {
        // Creation-order fields are unknown here; assume none (a boundary guess at worst).
        (4, false, chunk.len().saturating_sub(4))
    } else {
        return Vec::new();
    };
    let head = if creation_order { 6 } else { 4 };
    let mut out = Vec::new();
    while at + head <= end.min(chunk.len()) {
        out.push(at as u64);
        let size = u16::from_le_bytes([chunk[at + 1], chunk[at + 2]]) as usize;
        at += head + size;
    }
    out
}

/// Message offsets in the first chunk of a version-1 object header.
fn v1_messages(header: &[u8]) -> Vec<u64> {
    let Some(size) = header.get(8..12) else {
        return Vec::new();
    };
    let end = 16 + u32::from_le_bytes(size.try_into().unwrap()) as usize;
    let mut at = 16;
    let mut out = Vec::new();
    while at + 8 <= end.min(header.len()) {
        out.push(at as u64);
        let size = u16::from_le_bytes([header[at + 2], header[at + 3]]) as usize;
        at += 8 + size;
    }
    out
}

/// The offsets of a trace's header fields and of each record's fields.
fn trace_boundaries(bytes: &[u8]) -> BTreeSet<u64> {
    let mut out: BTreeSet<u64> = [0, 8, 12, 16, 24].into();
    let Ok(index) = sp::trace::index(bytes) else {
        return out;
    };
    let v2 = index.version.has_source();
    for r in &index.regions {
        let mut at = r.offset;
        out.insert(at);
        at += 4;
        out.insert(at);
        at += r.name.len() as u64;
        out.insert(at);
        if v2 {
            at += 4;
            out.insert(at);
            at += r.source_file.as_ref().map_or(0, |s| s.len() as u64);
            out.insert(at);
            at += 4;
            out.insert(at);
        }
        out.insert(r.starts_at - 8);
        out.insert(r.starts_at);
        out.insert(r.ends_at);
        out.insert(r.ends_at + 8 * r.calls);
    }
    out
}

// ------------------------------------------------------------------ damaged versions

/// Keeps at most `n` of `items`, evenly spread.
fn spread<T: Copy>(items: &[T], n: usize) -> Vec<T> {
    if items.len() <= n {
        return items.to_vec();
    }
    (0..n).map(|i| items[i * items.len() / n]).collect()
}

/// The damaged versions of one file: truncations just before, at and just after every
/// boundary; flips in the first bytes of each structure (signatures, versions, sizes,
/// counts); and flips at random offsets.
fn damaged(original: &[u8], boundaries: &BTreeSet<u64>, seed: u64) -> Vec<(String, Vec<u8>)> {
    let n = original.len();
    let mut rng = support::Lcg(seed);
    let mut cuts = BTreeSet::new();
    for &b in boundaries {
        for at in [b.saturating_sub(1), b, b + 1] {
            if (at as usize) < n {
                cuts.insert(at as usize);
            }
        }
    }
    let cuts: Vec<usize> = cuts.into_iter().collect();
    let mut out = Vec::new();
    for at in spread(&cuts, 40 * scale()) {
        out.push((format!("truncated at {at}"), original[..at].to_vec()));
    }
    let starts: Vec<u64> = boundaries
        .iter()
        .copied()
        .filter(|&b| b < n as u64)
        .collect();
    for b in spread(&starts, 30 * scale()) {
        let at = (b as usize + rng.below(8)).min(n - 1);
        let mask = (rng.next() as u8) | 1;
        let mut bytes = original.to_vec();
        bytes[at] ^= mask;
        out.push((format!("flipped {at}^{mask:02x} (boundary {b})"), bytes));
    }
    for i in 0..20 * scale() {
        let mut bytes = original.to_vec();
        let mut what = Vec::new();
        for _ in 0..1 + i % 3 {
            let at = rng.below(n);
            let mask = (rng.next() as u8) | 1;
            bytes[at] ^= mask;
            what.push(format!("{at}^{mask:02x}"));
        }
        out.push((format!("flipped {}", what.join(",")), bytes));
    }
    out
}

// ------------------------------------------------------------------ the library paths

/// Reads every attribute, link and dataset, following each hard link once; collects the
/// object-header addresses.
fn read_everything<R: ReadAt>(file: &File<R>, headers: &mut Vec<u64>) -> Result<(), String> {
    let e = |e: sp::hdf5lite::Error| e.to_string();
    let mut seen = BTreeSet::new();
    let root = file.root().map_err(e)?;
    headers.push(root.address());
    let mut groups = vec![root];
    while let Some(g) = groups.pop() {
        for a in g.attributes().map_err(e)? {
            a.value(file).map_err(e)?;
        }
        for link in g.links().map_err(e)? {
            let LinkKind::Hard(addr) = link.kind else {
                continue;
            };
            if !seen.insert(addr) || seen.len() > 2000 {
                continue;
            }
            headers.push(addr);
            let path = format!("{}/{}", g.path().trim_end_matches('/'), link.name);
            match file.object_at(addr, &path) {
                Ok(Object::Group(child)) => groups.push(child),
                Ok(Object::Datatype(_)) => {}
                Ok(Object::Dataset(d)) => {
                    for a in d.attributes().map_err(e)? {
                        a.value(file).map_err(e)?;
                    }
                    d.read_values().map_err(e)?;
                }
                Err(err) if err.kind() == ErrorKind::Unsupported => {}
                Err(err) => return Err(err.to_string()),
            }
        }
    }
    Ok(())
}

/// What convert, inspect and export do with a stored profile, through the library.
/// Returns each path's error (as the CLI would print it), or `None` where it succeeded.
fn library_paths<R: ReadAt>(file: &File<R>) -> Vec<Option<String>> {
    let mut outcomes = Vec::new();
    // convert (an .h5 input, or --merge): import, merge, write.
    outcomes.push(
        schema::read_profile(file)
            .map_err(|e| e.to_string())
            .and_then(|stored| {
                let metadata = stored.metadata.clone();
                let mut merger = Merger::new();
                for (rank, regions) in stored.into_ranks() {
                    merger
                        .add_rank("in.h5", i64::from(rank), regions, Some(&metadata))
                        .map_err(|e| e.to_string())?;
                }
                write_profile(&merger.finish(Some("sweep")))
            })
            .err(),
    );
    // inspect: the full read and both percentage modes; the summary-only fast path.
    outcomes.push(
        load::read_full(file)
            .map(|p| {
                for mode in [PercentageMode::Coverage, PercentageMode::Exclusive] {
                    let options = RowOptions {
                        sort: SortKey::Total,
                        mode,
                        flat: false,
                        distribution: true,
                    };
                    region_rows(&p, &Selection::all(), options);
                }
            })
            .map_err(|e| e.to_string())
            .err(),
    );
    outcomes.push(load::read_summary(file).map_err(|e| e.to_string()).err());
    // export: index, row reader, lanes, and each format.
    outcomes.push(export_all(file).err());
    outcomes
}

fn export_all<R: ReadAt>(file: &File<R>) -> Result<(), String> {
    let e = |e: sp::analysis::Error| e.to_string();
    let exporter = Exporter::open(file, "sweep").map_err(e)?;
    for format in [Format::ChromeTrace, Format::Speedscope, Format::Json] {
        exporter
            .write(format, &Selection::all(), &mut io::sink())
            .map_err(e)?;
    }
    Ok(())
}

fn write_profile(profile: &schema::MergedProfile) -> Result<(), String> {
    let writer = schema::write::to_hdf5(profile).map_err(|e| e.to_string())?;
    writer
        .finish(&mut io::sink())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `sp convert` of a trace, through the library: parse (and index), merge, write.
fn convert_trace(bytes: &[u8]) -> Vec<Option<String>> {
    let indexed = sp::trace::index(bytes).map_err(|e| e.to_string());
    let converted = sp::trace::parse(bytes)
        .map_err(|e| e.to_string())
        .and_then(|view| {
            let regions: Vec<RegionCalls> = view.regions.iter().map(RegionCalls::from).collect();
            let mut merger = Merger::new();
            merger
                .add_rank("in.spt", i64::from(view.rank), regions, None)
                .map_err(|e| e.to_string())?;
            write_profile(&merger.finish(Some("sweep")))
        });
    vec![indexed.err(), converted.err()]
}

/// Runs every library path on one damaged file; returns what is wrong, if anything.
fn check_library(is_hdf5: bool, bytes: &[u8]) -> Option<String> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if !is_hdf5 {
            return convert_trace(bytes);
        }
        match File::open_with_limits(bytes, TIGHT) {
            Ok(file) => {
                let mut outcomes = vec![read_everything(&file, &mut Vec::new()).err()];
                outcomes.extend(library_paths(&file));
                outcomes
            }
            Err(e) => vec![Some(e.to_string())],
        }
    }));
    let errors = match outcome {
        Ok(errors) => errors,
        Err(_) => return Some("panicked".into()),
    };
    errors.into_iter().flatten().find_map(|e| {
        (e.is_empty() || e.contains('\n')).then(|| format!("error is not one line: {e:?}"))
    })
}

// ------------------------------------------------------------------ the binary

/// Runs `sp` on a damaged file (`path`): exit 0, or 1 with one line naming the file.
fn check_binary(is_hdf5: bool, path: &Path, dir: &Path) -> Option<String> {
    let p = path.to_str().unwrap();
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let runs: Vec<Vec<&str>> = if is_hdf5 {
        vec![
            vec!["convert", p, "-q", "-o", o],
            vec!["inspect", p],
            vec!["export", "json", p, "-o", o],
            vec!["ls", p],
        ]
    } else {
        vec![vec!["convert", p, "-q", "-o", o]]
    };
    for args in runs {
        let result = Command::new("prlimit")
            .arg(format!("--as={ADDRESS_SPACE}"))
            .arg(format!("--cpu={MAX_RUN_CPU_SECONDS}"))
            .arg("--")
            .arg(support::sp().get_program())
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .expect("prlimit (util-linux) runs");
        let err = String::from_utf8_lossy(&result.stderr);
        let fine = match result.status.code() {
            Some(0) => true,
            Some(1) => err.lines().count() == 1 && err.starts_with(&format!("sp: {p}")),
            _ => false,
        };
        if !fine {
            return Some(format!("sp {}: {} {err:?}", args[0], result.status));
        }
        let _ = std::fs::remove_file(&out);
    }
    None
}

// ------------------------------------------------------------------ the sweep

/// Measures the CPU time this thread runs (the library runs on the caller's thread), so a
/// case's time bound catches a runaway loop, not a machine loaded by other jobs; wall time
/// where the kernel does not report it.
struct Stopwatch {
    wall: Instant,
    cpu: Option<Duration>,
}

impl Stopwatch {
    fn start() -> Stopwatch {
        Stopwatch {
            wall: Instant::now(),
            cpu: thread_cpu_time(),
        }
    }

    fn elapsed(&self) -> Duration {
        match (self.cpu, thread_cpu_time()) {
            (Some(start), Some(now)) => now.saturating_sub(start),
            _ => self.wall.elapsed(),
        }
    }
}

/// The first field of `/proc/thread-self/schedstat`: nanoseconds on a CPU.
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// One worker's share: every `SHARDS`-th file from `shard`. Prints `case …` before each
/// case (so the parent can name the case that aborted) and `fail …` for each failure.
fn worker(shard: usize) {
    let dir = support::scratch_dir(&format!("sweep-{shard}"));
    let mut cases = 0;
    for (k, path) in originals().into_iter().enumerate() {
        if k % SHARDS != shard {
            continue;
        }
        let original = std::fs::read(&path).unwrap();
        let is_hdf5 = path.extension().is_some_and(|x| x == "h5");
        let boundaries = if is_hdf5 {
            hdf5_boundaries(&original)
        } else {
            trace_boundaries(&original)
        };
        let name = path.strip_prefix(support::repo()).unwrap().display();
        let damaged_path = dir.join(path.file_name().unwrap());
        let started = Stopwatch::start();
        check_library(is_hdf5, &original);
        let bound = MAX_CASE_TIME.max(started.elapsed() * 4);
        for (what, bytes) in damaged(&original, &boundaries, 0x5eed ^ k as u64) {
            cases += 1;
            println!("case {name} {what}");
            let started = Stopwatch::start();
            if let Some(problem) = check_library(is_hdf5, &bytes) {
                println!("fail {name} {what}: {problem}");
            }
            let took = started.elapsed();
            if took > bound {
                println!("fail {name} {what}: took {took:?}");
            }
            if cases % BINARY_SAMPLE == 0 {
                std::fs::write(&damaged_path, &bytes).unwrap();
                if let Some(problem) = check_binary(is_hdf5, &damaged_path, &dir) {
                    println!("fail {name} {what}: {problem}");
                }
            }
        }
    }
    println!("done {cases}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn damaged_golden_files_give_ok_or_a_one_line_error() {
    if let Ok(shard) = std::env::var("SP_SWEEP_WORKER") {
        worker(shard.parse().unwrap());
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..SHARDS)
        .map(|shard| {
            Command::new("prlimit")
                .arg(format!("--as={ADDRESS_SPACE}"))
                .arg("--")
                .arg(&exe)
                .args([
                    "damaged_golden_files_give_ok_or_a_one_line_error",
                    "--exact",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("SP_SWEEP_WORKER", shard.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("prlimit (util-linux) runs")
        })
        .collect();
    let mut failures = Vec::new();
    let mut total = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        failures.extend(
            text.lines()
                .filter(|l| l.starts_with("fail "))
                .map(str::to_owned),
        );
        match text.lines().find_map(|l| l.strip_prefix("done ")) {
            Some(n) => total += n.parse::<usize>().unwrap(),
            None => {
                // Aborted (a failed allocation under the address-space cap, a crash).
                let last = text.lines().rfind(|l| l.starts_with("case "));
                failures.push(format!(
                    "worker died ({}) at {last:?}: {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    eprintln!("{total} damaged files swept");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(total >= 1500 * scale(), "only {total} cases");
}

#[test]
fn boundaries_come_from_the_parsers() {
    // A golden profile: the superblock, the root header and its messages, heaps and data.
    let repo = support::repo();
    let bytes =
        std::fs::read(repo.join("tests/golden/c_trace/expected/profiling_data.h5")).unwrap();
    let b = hdf5_boundaries(&bytes);
    assert!(b.contains(&0), "superblock");
    assert!(b.len() > 50, "{} boundaries", b.len());
    // A trace: the header fields and every record's fields.
    let bytes =
        std::fs::read(repo.join("tests/golden/c_trace/inputs/profile_rank00000.spt")).unwrap();
    let index = sp::trace::index(&bytes).unwrap();
    let b = trace_boundaries(&bytes);
    for r in &index.regions {
        assert!(b.contains(&r.offset) && b.contains(&r.starts_at) && b.contains(&r.ends_at));
    }
    assert!(b.contains(&(bytes.len() as u64)));
}
