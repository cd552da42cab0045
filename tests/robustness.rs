//! Damaged files: every golden and corpus `.h5`, truncated at many points and with bytes
//! flipped at many offsets (a fixed pseudo-random sample), is opened and every object read
//! under tight `Limits`. Each case must end in `Ok` or a typed error, never a panic, and
//! quickly. Then the CLI: `sp convert` on damaged `.h5` and `.spt` inputs fails with one
//! line naming the file, exit status 1, and no output file.

mod support;

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sp::hdf5lite::reader::{File, LinkKind, Object};
use sp::hdf5lite::{ErrorKind, Limits, Result};

/// Caps far below the defaults: a damaged size field must hit them, not the machine.
const TIGHT: Limits = Limits {
    max_metadata_bytes: 1 << 20,
    max_chunk_bytes: 1 << 20,
    max_read_bytes: 8 << 20,
    max_depth: 16,
    max_header_chunks: 64,
    max_object_entries: 4096,
};

/// Most objects one walk opens: the corpus files have a few hundred.
const MAX_OBJECTS: usize = 2000;

/// The slowest any one damaged file may take to read completely (unoptimised build).
const MAX_CASE_TIME: Duration = Duration::from_secs(3);

fn h5_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("golden")] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "h5") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Opens `bytes` and reads every attribute value, every link and every dataset's values,
/// following each hard link once.
fn read_everything(bytes: &[u8]) -> Result<usize> {
    let f = File::open_with_limits(bytes, TIGHT)?;
    let mut seen = HashSet::new();
    let mut groups = vec![f.root()?];
    let mut objects = 0;
    while let Some(g) = groups.pop() {
        for a in g.attributes()? {
            a.value(&f)?;
        }
        for link in g.links()? {
            let LinkKind::Hard(addr) = link.kind else {
                continue;
            };
            if !seen.insert(addr) || objects >= MAX_OBJECTS {
                continue;
            }
            objects += 1;
            let path = format!("{}/{}", g.path().trim_end_matches('/'), link.name);
            match f.object_at(addr, &path) {
                Ok(Object::Group(child)) => groups.push(child),
                Ok(Object::Dataset(d)) => {
                    for a in d.attributes()? {
                        a.value(&f)?;
                    }
                    d.read_values()?;
                }
                Ok(Object::Datatype(_)) => {}
                // Committed datatypes and the like: nothing more to read.
                Err(e) if e.kind() == ErrorKind::Unsupported => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(objects)
}

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 21
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The damaged versions of one file: truncations (evenly spread and random) and byte
/// flips (half of them in the first 8 KiB, where superblock, root group and most
/// headers live).
fn mutations(original: &[u8], seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut rng = Lcg(seed);
    let n = original.len();
    // `SP_DAMAGE_SCALE=20` (say) runs twenty times as many flips, for a deeper search.
    let scale: usize = std::env::var("SP_DAMAGE_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let mut out = Vec::new();
    for i in 0..60 {
        let at = if i < 30 { n * i / 30 } else { rng.below(n) };
        out.push((format!("truncated at {at}"), original[..at].to_vec()));
    }
    for i in 0..120 * scale {
        let mut bytes = original.to_vec();
        let mut what = Vec::new();
        for _ in 0..1 + i % 3 {
            let at = if i % 2 == 0 {
                rng.below(n.min(8192))
            } else {
                rng.below(n)
            };
            let mask = (rng.next() as u8) | 1;
            bytes[at] ^= mask;
            what.push(format!("{at}^{mask:02x}"));
        }
        out.push((format!("flipped {}", what.join(",")), bytes));
    }
    out
}

#[test]
fn damaged_files_give_typed_errors_never_panics() {
    let files = h5_files();
    assert!(files.len() >= 20, "{} files", files.len());
    let mut cases = 0;
    let mut failures = Vec::new();
    let mut kinds = std::collections::BTreeMap::new();
    for (k, path) in files.iter().enumerate() {
        let original = std::fs::read(path).unwrap();
        // The undamaged file reads completely.
        if let Err(e) = read_everything(&original) {
            assert!(path.ends_with("unsupported.h5"), "{}: {e}", path.display());
        }
        for (what, bytes) in mutations(&original, 0x5eed + k as u64) {
            cases += 1;
            let start = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(|| read_everything(&bytes)));
            let took = start.elapsed();
            let name = path.file_name().unwrap().to_string_lossy();
            match outcome {
                Err(_) => failures.push(format!("{name} {what}: panicked")),
                Ok(Err(e)) => {
                    *kinds.entry(format!("{:?}", e.kind())).or_insert(0) += 1;
                    if matches!(e.kind(), ErrorKind::Usage | ErrorKind::Io) {
                        failures.push(format!("{name} {what}: {:?} error: {e}", e.kind()));
                    }
                }
                Ok(Ok(_)) => *kinds.entry("Ok".to_string()).or_insert(0) += 1,
            }
            if took > MAX_CASE_TIME {
                failures.push(format!("{name} {what}: took {took:?}"));
            }
        }
    }
    eprintln!("{cases} damaged files: {kinds:?}");
    assert!(cases >= 3000, "{cases} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ------------------------------------------------------------------------- the CLI

fn golden(rel: &str) -> Vec<u8> {
    std::fs::read(support::repo().join("tests/golden").join(rel)).unwrap()
}

/// Runs `sp convert ARGS -o out.h5 -q` in `dir`; asserts exit 1, one stderr line
/// `sp: <file>: …`, and that the directory holds only what it held before.
fn assert_convert_fails(dir: &Path, args: &[&str], file: &str) {
    let before = listing(dir);
    let out = support::sp()
        .current_dir(dir)
        .arg("convert")
        .args(args)
        .args(["-o", "out.h5", "-q"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.starts_with(&format!("sp: {file}: ")),
        "{args:?}: {err:?} does not name {file}"
    );
    assert_eq!(listing(dir), before, "{args:?} left files behind");
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn convert_rejects_damaged_inputs_cleanly() {
    let dir = support::scratch_dir("robustness-convert");
    let spt = golden("synthetic/inputs/g_rank00000.spt");
    let h5 = golden("mixed/inputs/run_rank00002.h5");
    let profile = golden("mixed/inputs/profiling_data.h5");
    let good = dir.join("good_rank00000.spt");
    std::fs::write(&good, &spt).unwrap();

    std::fs::write(dir.join("cut_rank00001.spt"), &spt[..spt.len() / 2]).unwrap();
    assert_convert_fails(&dir, &["cut_rank00001.spt"], "cut_rank00001.spt");
    std::fs::remove_file(dir.join("cut_rank00001.spt")).unwrap();

    let mut flipped = spt.clone();
    flipped[0] ^= 0xff; // the magic
    std::fs::write(dir.join("magic_rank00001.spt"), &flipped).unwrap();
    assert_convert_fails(&dir, &["magic_rank00001.spt"], "magic_rank00001.spt");
    std::fs::remove_file(dir.join("magic_rank00001.spt")).unwrap();

    std::fs::write(dir.join("cut_rank00002.h5"), &h5[..h5.len() / 3]).unwrap();
    assert_convert_fails(
        &dir,
        &["good_rank00000.spt", "cut_rank00002.h5"],
        "cut_rank00002.h5",
    );
    std::fs::remove_file(dir.join("cut_rank00002.h5")).unwrap();

    std::fs::write(dir.join("text_rank00002.h5"), b"not an HDF5 file\n").unwrap();
    assert_convert_fails(&dir, &["text_rank00002.h5"], "text_rank00002.h5");
    std::fs::remove_file(dir.join("text_rank00002.h5")).unwrap();

    // A flipped byte in the signature of a profile given to --merge.
    let mut bad = profile.clone();
    bad[3] ^= 0x40;
    std::fs::write(dir.join("base.h5"), &bad).unwrap();
    assert_convert_fails(
        &dir,
        &["good_rank00000.spt", "--merge", "base.h5"],
        "base.h5",
    );
    std::fs::write(dir.join("base.h5"), &profile[..profile.len() / 2]).unwrap();
    assert_convert_fails(
        &dir,
        &["good_rank00000.spt", "--merge", "base.h5"],
        "base.h5",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ls_on_damaged_files_fails_in_one_line() {
    let dir = support::scratch_dir("robustness-ls");
    let original = std::fs::read(support::repo().join("tests/corpus/types_latest.h5")).unwrap();
    for (name, bytes) in [
        ("cut.h5", original[..original.len() / 2].to_vec()),
        ("empty.h5", Vec::new()),
        ("header.h5", {
            let mut b = original.clone();
            b[60] ^= 0x10; // inside the root object header: its checksum fails
            b
        }),
    ] {
        std::fs::write(dir.join(name), &bytes).unwrap();
        let out = support::sp()
            .current_dir(&dir)
            .args(["ls", "--data", "--strict", name])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.starts_with(&format!("sp: {name}: ")), "{name}: {err}");
    }
    // Without --strict, a file whose root reads lists what it can and marks the rest.
    let out = support::sp()
        .current_dir(&dir)
        .args(["ls", "--data", "cut.h5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(listing.starts_with("/  group\n"), "{listing}");
    assert!(listing.contains("\n    ! "), "{listing}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `sp ARGS` in `dir` under a 1 GiB address-space cap, so a damaged size that reaches
/// an allocation aborts the process instead of swapping.
fn sp_capped(dir: &Path, args: &[&str]) -> std::process::Output {
    let bin = support::sp().get_program().to_owned();
    std::process::Command::new("sh")
        .current_dir(dir)
        .arg("-c")
        .arg("ulimit -v 1048576; exec \"$@\"")
        .arg("sh")
        .arg(bin)
        .args(args)
        .output()
        .unwrap()
}

/// A dataspace larger than its maximum sizes is malformed: `ls --data`, `inspect` and
/// `convert` each fail with one line naming the dataset, never an 11 GB allocation.
#[test]
fn dataspace_past_its_maximum_fails_in_one_line() {
    let corpus = support::repo().join("tests/corpus/damaged");
    let out_dir = support::scratch_dir("robustness-dims");
    for (file, object, dims, max) in [
        ("damaged_dims_1.h5", "/events/durations", 1375731744u64, 32),
        (
            "damaged_dims_2.h5",
            "/rank_region_index/region_ids",
            1912602625,
            1,
        ),
    ] {
        let out_file = out_dir.join("out.h5");
        let out_arg = out_file.to_str().unwrap();
        let reason =
            format!("{object}: dataspace dimension 0 of {dims} passes its maximum of {max}");
        for args in [
            vec!["ls", "--data", "--strict", file],
            vec!["inspect", file],
            vec!["convert", file, "-o", out_arg, "-q"],
        ] {
            let out = sp_capped(&corpus, &args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            let want = if args[0] == "ls" {
                format!("sp: {file}: 1 parts could not be read; the first: {reason} (at byte ")
            } else {
                format!("sp: {file}: {reason} (at byte ")
            };
            assert!(err.starts_with(&want), "{args:?}: {err:?}");
            assert!(!out_file.exists(), "{args:?} left an output");
        }
        // Without --strict, ls lists the rest of the file and marks the damaged dataset.
        let out = sp_capped(&corpus, &["ls", "--data", file]);
        assert_eq!(out.status.code(), Some(0));
        let listing = String::from_utf8_lossy(&out.stdout);
        let line = format!("{object}  not readable here: dataspace dimension 0 of {dims}");
        assert!(listing.contains(&line), "{listing}");
        assert!(
            listing.contains("/region_table/names  dataset"),
            "{listing}"
        );
    }
    std::fs::remove_dir_all(&out_dir).unwrap();
}

/// Contiguous storage shorter than its dataspace is malformed, and found before the
/// dataspace sizes anything: a 4-element dataset whose dataspace (and maximum) claim 2^33
/// elements.
#[test]
fn contiguous_storage_shorter_than_its_dataspace_is_malformed() {
    use sp::hdf5lite::{Data, Datatype, FileWriter, Shape, StorageLayout};
    let mut w = FileWriter::new();
    w.create_dataset(
        FileWriter::ROOT,
        "d",
        Datatype::I64,
        Shape::vector(4),
        Data::i64s(&[1, 2, 3, 4]),
        StorageLayout::Contiguous,
    )
    .unwrap();
    let mut bytes = Vec::new();
    w.finish(&mut bytes).unwrap();
    // The version 2 dataspace message: rank 1, max dims present, simple; size 4, max 4.
    let space = [2u8, 1, 1, 1, 4, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0];
    let at = bytes
        .windows(space.len())
        .position(|w| w == space)
        .expect("the dataspace message");
    bytes[at + 4] = 0;
    bytes[at + 8] = 2; // size 2^33
    bytes[at + 12] = 0;
    bytes[at + 16] = 2; // maximum 2^33
                        // The header's checksum no longer matches: recompute it over the OHDR chunk.
    let ohdr = bytes[..at]
        .windows(4)
        .rposition(|w| w == b"OHDR")
        .expect("the object header");
    let flags = bytes[ohdr + 5];
    let mut pos = ohdr + 6;
    if flags & 0x20 != 0 {
        pos += 16; // times
    }
    if flags & 0x10 != 0 {
        pos += 4; // attribute phase change
    }
    let width = 1usize << (flags & 3);
    let mut size = [0u8; 8];
    size[..width].copy_from_slice(&bytes[pos..pos + width]);
    let end = pos + width + u64::from_le_bytes(size) as usize;
    let sum = sp::hdf5lite::raw::checksum::metadata_checksum(&bytes[ohdr..end]);
    bytes[end..end + 4].copy_from_slice(&sum.to_le_bytes());

    let file = File::open(bytes.as_slice()).unwrap();
    let d = file.dataset("/d").unwrap();
    assert_eq!(d.len().unwrap(), 1 << 33);
    let err = d.read_raw().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    assert_eq!(err.path(), Some("/d"));
    assert_eq!(
        err.message(),
        "contiguous storage of 32 bytes is shorter than the 68719476736 bytes the dataspace needs"
    );
}
