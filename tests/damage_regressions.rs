//! Damaged files that the corruption sweep (tests/sweep.rs) and the fuzzers (fuzz/) found
//! mishandled, kept as regression tests. Each is a golden file with a few bytes changed, so
//! no damaged file is committed; each case names the bug it pinned.

mod support;

use std::time::{Duration, Instant};

use sp::analysis::load::read_full;
use sp::analysis::{region_rows, PercentageMode, RowOptions, Selection, SortKey};
use sp::hdf5lite::reader::File;

/// A golden file with `(offset, new byte)` changes.
fn damaged(rel: &str, changes: &[(usize, u8)]) -> Vec<u8> {
    let mut bytes = std::fs::read(support::repo().join("tests/golden").join(rel)).unwrap();
    for &(at, value) in changes {
        bytes[at] = value;
    }
    bytes
}

/// A rank value damaged to ~3.5 billion made `inspect` and `export` collect every rank
/// number below it (a 4 GiB allocation, then an abort). Now a one-line typed error.
#[test]
fn a_huge_rank_is_a_corrupt_profile_not_a_huge_allocation() {
    let mut bytes = damaged("h5_python_rich/inputs/rich.h5", &[]);
    bytes[8631] ^= 0xd3;
    let file = File::open(bytes.as_slice()).unwrap();
    let err = read_full(&file).unwrap_err().to_string();
    assert_eq!(
        err,
        "damaged profile: the profile claims 3539992578 ranks (more than 1048576)"
    );

    let dir = support::scratch_dir("huge-rank");
    let path = dir.join("rich.h5");
    std::fs::write(&path, &bytes).unwrap();
    for args in [&["inspect"][..], &["export", "chrome-trace"][..]] {
        let mut cmd = support::sp();
        cmd.args(args).arg(&path);
        if args[0] == "export" {
            cmd.arg("-o").arg(dir.join("out.json"));
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("sp: {}: {err}\n", path.display())
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A rank damaged to 11 468 800 made the call-path walk visit every rank number below it
/// (~30 s for a 24 KiB file) and chrome-trace export write a process for each. More than
/// `MAX_RANKS` is now a damaged profile, and the walk visits only ranks that have calls.
#[test]
fn ranks_without_calls_cost_nothing() {
    let mut bytes = damaged("fortran/expected/profiling_data.h5", &[]);
    bytes[18570] ^= 0xaf;
    let file = File::open(bytes.as_slice()).unwrap();
    let err = read_full(&file).unwrap_err().to_string();
    assert_eq!(
        err,
        "damaged profile: the profile claims 11468801 ranks (more than 1048576)"
    );

    let bytes = damaged("fortran/expected/profiling_data.h5", &[]);
    let file = File::open(bytes.as_slice()).unwrap();
    let mut profile = read_full(&file).unwrap();
    profile.num_ranks = sp::schema::MAX_RANKS;
    let started = Instant::now();
    for mode in [PercentageMode::Coverage, PercentageMode::Exclusive] {
        let rows = region_rows(&profile, &Selection::all(), options(mode));
        assert_eq!(rows.len(), 5, "{mode:?}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

/// Start deltas damaged so that 70 000 calls of one region nest in each other: each call's
/// full path (up to 70 000 long) was built, quadratic in time and memory (143 MiB, and
/// fuzzer timeouts). A call nested in its own region now shares its parent's path.
#[test]
fn deep_self_recursion_is_linear() {
    let bytes = damaged(
        "h5_python_gzip/inputs/auto_gzip.h5",
        &[(2031, 2), (23873, 0o64)],
    );
    assert_one_recursive_row(&bytes, "step", 70_000);

    // 30 000 calls of one region, each inside the previous: the old walk copied 450 million
    // path entries (3.6 GB); now one path.
    let n = 30_000i64;
    let trace = sp::trace::Trace {
        rank: 0,
        regions: vec![sp::trace::Region {
            name: "recurse".into(),
            source_file: None,
            source_line: None,
            starts: (0..n).collect(),
            ends: (0..n).map(|i| 2 * n - i).collect(),
        }],
    };
    let bytes = sp::trace::encode(&trace, sp::trace::Version::V2, sp::trace::Endian::Little);
    let view = sp::trace::parse(&bytes).unwrap();
    let mut merger = sp::schema::Merger::new();
    let regions = view
        .regions
        .iter()
        .map(sp::schema::RegionCalls::from)
        .collect();
    merger.add_rank("deep.spt", 0, regions, None).unwrap();
    let mut h5 = Vec::new();
    sp::schema::write::to_hdf5(&merger.finish(Some("deep")))
        .unwrap()
        .finish(&mut h5)
        .unwrap();
    assert_one_recursive_row(&h5, "recurse", n as u64);
}

/// The rows of a profile whose one region calls itself: one recursive row, found quickly.
fn assert_one_recursive_row(bytes: &[u8], name: &str, calls: u64) {
    let file = File::open(bytes).unwrap();
    let profile = read_full(&file).unwrap();
    let started = Instant::now();
    let rows = region_rows(
        &profile,
        &Selection::all(),
        options(PercentageMode::Coverage),
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].name, name);
    assert!(rows[0].recursive);
    assert_eq!(rows[0].calls, calls);
}

/// `sp export` named the output file in errors about reading the profile.
#[test]
fn export_read_errors_name_the_profile() {
    let bytes =
        std::fs::read(support::repo().join("examples/c_hdf5_multirank/run_rank00002.h5")).unwrap();
    let dir = support::scratch_dir("export-names-input");
    let path = dir.join("run.h5");
    std::fs::write(&path, &bytes[..17049]).unwrap();
    let out = support::sp()
        .args(["export", "json"])
        .arg(&path)
        .arg("-o")
        .arg(dir.join("out.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(&format!("sp: {}: /events/end_times: ", path.display())),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

fn options(mode: PercentageMode) -> RowOptions {
    RowOptions {
        sort: SortKey::Start,
        mode,
        flat: false,
        distribution: true,
    }
}
