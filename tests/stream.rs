//! The streaming conversion of `sp convert` against the in-memory route of the library
//! (`trace::parse` → `Merger` → `to_hdf5`): the same bytes, for traces with regions larger
//! than one streaming block (whose `m2` is summed in pieces), both byte orders and versions,
//! empty regions, and many small ranks.

mod support;

use std::ffi::OsStr;
use std::path::Path;

use sp::schema::{write, Merger, RegionCalls};
use sp::trace::{encode, parse, Endian, Region, Trace, Version};

/// A deterministic pseudo-random sequence (SplitMix64).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn region(name: &str, calls: usize, seed: u64, source: bool) -> Region {
    let mut mix = Mix(seed);
    let mut t = 1_000_000_000_000i64 + (mix.next() % 1_000_000) as i64;
    let mut starts = Vec::with_capacity(calls);
    let mut ends = Vec::with_capacity(calls);
    for _ in 0..calls {
        t += (mix.next() % 10_000) as i64;
        starts.push(t);
        // Durations spread over orders of magnitude, a few negative.
        let d = (mix.next() % (1 << (mix.next() % 30))) as i64;
        ends.push(if mix.next() % 97 == 0 {
            t - d / 5
        } else {
            t + d
        });
    }
    Region {
        name: name.into(),
        source_file: source.then(|| format!("{name}.c")),
        source_line: source.then_some(12),
        starts,
        ends,
    }
}

/// Writes the traces and returns the in-memory route's bytes.
fn write_inputs(dir: &Path, traces: &[(Trace, Version, Endian)], label: &str) -> Vec<u8> {
    let mut merger = Merger::new();
    for (i, (trace, version, endian)) in traces.iter().enumerate() {
        let bytes = encode(trace, *version, *endian);
        let name = format!("run_rank{i:05}.spt");
        std::fs::write(dir.join(&name), &bytes).unwrap();
        let view = parse(&bytes).unwrap();
        let regions = view.regions.iter().map(RegionCalls::from).collect();
        merger
            .add_rank(&name, i64::from(view.rank), regions, None)
            .unwrap();
    }
    let profile = merger.finish(Some(label));
    let mut out = Vec::new();
    write::to_hdf5(&profile).unwrap().finish(&mut out).unwrap();
    out
}

fn convert(dir: &Path, output: &Path) {
    let mut cmd = support::sp();
    cmd.arg("convert").arg(dir).arg("-o").arg(output).arg("-q");
    support::run_ok(&mut cmd);
}

#[test]
fn large_regions_and_mixed_formats_match_the_in_memory_route() {
    let scratch = support::scratch_dir("stream-large");
    let inputs = scratch.join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    let traces = vec![
        (
            Trace {
                rank: 0,
                regions: vec![
                    // > 2 blocks of 512 Ki calls: m2 from three pairwise pieces.
                    region("hot", 1_200_003, 1, true),
                    region("small", 1_000, 2, false),
                    region("idle", 0, 3, true),
                ],
            },
            Version::V2,
            Endian::Little,
        ),
        (
            Trace {
                rank: 1,
                regions: vec![
                    region("small", 70_000, 4, false),
                    region("hot", 9, 5, false),
                ],
            },
            Version::V1,
            Endian::Big,
        ),
        (
            Trace {
                rank: 7,
                regions: vec![
                    region("late", 524_288, 6, true),
                    region("edge", 524_289, 7, true),
                ],
            },
            Version::V2,
            Endian::Big,
        ),
    ];
    let expected = write_inputs(&inputs, &traces, "large");
    let output = scratch.join("large.h5");
    convert(&inputs, &output);
    let ours = std::fs::read(&output).unwrap();
    assert_eq!(ours.len(), expected.len());
    assert!(
        ours == expected,
        "streamed file differs from the in-memory one"
    );
    std::fs::remove_dir_all(scratch).ok();
}

#[test]
fn many_small_ranks_match_the_in_memory_route() {
    let scratch = support::scratch_dir("stream-many");
    let inputs = scratch.join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    let traces: Vec<_> = (0..300)
        .map(|rank| {
            let regions = (0..6)
                .map(|r| {
                    region(
                        &format!("r{r}"),
                        (rank * 7 + r) % 40,
                        (rank * 10 + r) as u64,
                        r % 2 == 0,
                    )
                })
                .collect();
            (
                Trace {
                    rank: rank as i32,
                    regions,
                },
                Version::V2,
                Endian::Little,
            )
        })
        .collect();
    let expected = write_inputs(&inputs, &traces, "many");
    let output = scratch.join("many.h5");
    convert(&inputs, &output);
    assert!(std::fs::read(&output).unwrap() == expected);
    std::fs::remove_dir_all(scratch).ok();
}

#[test]
fn a_bad_input_fails_with_its_path_and_leaves_no_output() {
    let scratch = support::scratch_dir("stream-bad");
    let inputs = scratch.join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    let good = encode(
        &Trace {
            rank: 0,
            regions: vec![region("a", 10, 1, false)],
        },
        Version::V2,
        Endian::Little,
    );
    std::fs::write(inputs.join("a_rank00000.spt"), &good).unwrap();
    std::fs::write(inputs.join("b_rank00001.spt"), &good[..good.len() - 3]).unwrap();
    std::fs::write(inputs.join("c_rank00002.spt"), &good).unwrap();
    let output = scratch.join("out.h5");
    let out = support::sp()
        .arg("convert")
        .arg(&inputs)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!("sp: {}/b_rank00001.spt: ", inputs.display())),
        "{stderr}"
    );
    assert!(!output.exists());
    let leftovers: Vec<_> = std::fs::read_dir(&scratch).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "only the input directory remains");
    std::fs::remove_dir_all(scratch).ok();
}

/// `--compress=1` on multi-block regions: a chunk tree of two levels (hundreds of chunks,
/// some straddling pass-2 units), read back by our reader and by h5py with the content of
/// the uncompressed conversion, and accepted by h5dump.
#[test]
fn compressed_output_has_the_uncompressed_content() {
    let scratch = support::scratch_dir("stream-compress");
    let inputs = scratch.join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    let traces = vec![
        (
            Trace {
                rank: 0,
                regions: vec![
                    region("hot", 1_100_001, 11, true),
                    region("b", 3, 12, false),
                ],
            },
            Version::V2,
            Endian::Little,
        ),
        (
            Trace {
                rank: 2,
                regions: vec![region("b", 20_000, 13, false), region("c", 0, 14, true)],
            },
            Version::V2,
            Endian::Big,
        ),
    ];
    write_inputs(&inputs, &traces, "run");
    let plain = scratch.join("plain").join("run.h5");
    let packed = scratch.join("packed").join("run.h5");
    std::fs::create_dir_all(plain.parent().unwrap()).unwrap();
    std::fs::create_dir_all(packed.parent().unwrap()).unwrap();
    convert(&inputs, &plain);
    let mut cmd = support::sp();
    cmd.arg("convert")
        .arg(&inputs)
        .arg("-o")
        .arg(&packed)
        .arg("-q")
        .arg("--compress=1");
    support::run_ok(&mut cmd);
    let (plain_len, packed_len) = (
        std::fs::metadata(&plain).unwrap().len(),
        std::fs::metadata(&packed).unwrap().len(),
    );
    assert!(packed_len < plain_len, "{packed_len} vs {plain_len}");
    support::assert_same_content_by_our_reader(&packed, &plain);
    support::assert_same_content(&packed, &plain);
    let dump = std::process::Command::new("h5dump")
        .arg("-d")
        .arg("/events/start_deltas")
        .arg(&packed)
        .output()
        .expect("run h5dump");
    assert!(dump.status.success() && dump.stderr.is_empty());

    // Deterministic too (same file name, hence the same default label).
    let again = scratch.join("again").join("run.h5");
    std::fs::create_dir_all(again.parent().unwrap()).unwrap();
    let mut cmd = support::sp();
    cmd.arg("convert")
        .arg(&inputs)
        .arg("-o")
        .arg(&again)
        .arg("-q")
        .arg("--compress=1");
    support::run_ok(&mut cmd);
    assert!(std::fs::read(&again).unwrap() == std::fs::read(&packed).unwrap());
    std::fs::remove_dir_all(scratch).ok();
}

/// Writes a schema-2 profile with absolute, big-endian, gzip-chunked time columns through
/// h5py (as older Python writers laid them out): rank 3 with a row of `big` calls (from
/// `starts0`, one every 1000 ns, each lasting 7 ns, a few negative) and a row of 10, and
/// rank 4 with 5 calls of the first region.
fn write_schema2_profile(path: &Path, big: usize) {
    let script = r#"
import sys, h5py, numpy as np
path, big = sys.argv[1], int(sys.argv[2])
t0 = 2_000_000_000_000
starts = [t0 + 1000 * np.arange(big, dtype=np.int64), t0 + 7 + np.arange(10, dtype=np.int64), t0 + 5 * np.arange(5, dtype=np.int64)]
ends = [s + 7 for s in starts]
ends[0][::97] -= 20
st, en = np.concatenate(starts), np.concatenate(ends)
counts = np.array([len(s) for s in starts], dtype=np.uint64)
offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.uint64)
with h5py.File(path, "w") as f:
    f.attrs["scope_profiler_schema"] = np.int64(2)
    f.attrs["storage_layout"] = "columnar"
    m = f.create_group("metadata")
    m.attrs["hostname"] = "node7"
    m.attrs["mpi_rank"] = np.int64(3)
    f.create_dataset("region_table/names", data=["big", "tiny"], dtype=h5py.string_dtype())
    g = f.create_group("rank_region_index")
    g["region_ids"] = np.array([0, 1, 0], dtype=np.uint32)
    g["ranks"] = np.array([3, 3, 4], dtype=np.uint32)
    g["event_offsets"] = offsets
    g["event_counts"] = counts
    g["source_lines"] = np.array([12, -1, 12], dtype=np.int64)
    g.create_dataset("source_files", data=["big.c", "", "big.c"], dtype=h5py.string_dtype())
    g.create_dataset("source_texts", data=["do_big()", "", "do_big()"], dtype=h5py.string_dtype())
    g.create_dataset("tags", data=["[]"] * 3, dtype=h5py.string_dtype())
    e = f.create_group("events")
    e.create_dataset("start_times", data=st.astype(">i8"), chunks=(10000,), compression="gzip")
    e.create_dataset("end_times", data=en, chunks=(4096,), compression="gzip", shuffle=True)
"#;
    let big = big.to_string();
    let args = [
        OsStr::new("-c"),
        script.as_ref(),
        path.as_os_str(),
        big.as_ref(),
    ];
    support::run_python(Path::new("."), args);
}

/// `.h5` inputs stream: rows over several blocks and many chunks, as start deltas (an sp
/// profile with compressed columns) and as absolute big-endian times (a schema-2 profile),
/// converted together with a trace, and merged into with `--merge`, have the reference's
/// content; the compressed output has the plain one's.
#[test]
fn big_multi_chunk_profiles_stream_to_the_reference_content() {
    let scratch = support::scratch_dir("stream-h5");
    let traces = scratch.join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    let rank0 = Trace {
        rank: 0,
        regions: vec![
            // Over two blocks: pass 1 summarises it in one job, pass 2 in three pieces.
            region("hot", 1_100_001, 21, true),
            region("small", 3_000, 22, false),
            region("idle", 0, 23, true),
        ],
    };
    std::fs::write(
        traces.join("r_rank00000.spt"),
        encode(&rank0, Version::V2, Endian::Little),
    )
    .unwrap();
    let rank5 = Trace {
        rank: 5,
        regions: vec![region("late", 700, 24, true), region("hot5", 9, 25, false)],
    };
    let inputs = scratch.join("inputs");
    std::fs::create_dir_all(&inputs).unwrap();
    std::fs::write(
        inputs.join("t_rank00005.spt"),
        encode(&rank5, Version::V1, Endian::Big),
    )
    .unwrap();
    // An sp profile of rank 0 with compressed start deltas: 135 chunks per column.
    support::run_ok(
        support::sp()
            .arg("convert")
            .arg(&traces)
            .arg("-o")
            .arg(inputs.join("deltas_rank0.h5"))
            .args(["-q", "--compress=1"]),
    );
    write_schema2_profile(&inputs.join("abs_rank3.h5"), 600_001);

    let (ours, reference) = (scratch.join("ours"), scratch.join("reference"));
    for dir in [&ours, &reference] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let all = [
        "../inputs/abs_rank3.h5",
        "../inputs/deltas_rank0.h5",
        "../inputs/t_rank00005.spt",
    ];
    let sp = support::sp_convert;
    sp(&ours, &[&all[..], &["-o", "all.h5"]].concat());
    support::import_native(&reference, &[&all[..], &["-o", "all.h5"]].concat());
    support::assert_same_content(&ours.join("all.h5"), &reference.join("all.h5"));
    support::assert_same_content_by_our_reader(&ours.join("all.h5"), &reference.join("all.h5"));

    // --merge into the big delta profile.
    let merge = [
        "../inputs/t_rank00005.spt",
        "--merge",
        "../inputs/deltas_rank0.h5",
    ];
    sp(
        &ours,
        &[&merge[..], &["-o", "merged.h5", "--label", "m"]].concat(),
    );
    support::import_native(
        &reference,
        &[&merge[..], &["-o", "merged.h5", "--label", "m"]].concat(),
    );
    support::assert_same_content(&ours.join("merged.h5"), &reference.join("merged.h5"));

    // Compressed, the same content again (same file name, so the same label).
    let packed = scratch.join("packed");
    std::fs::create_dir_all(&packed).unwrap();
    sp(
        &packed,
        &[&all[..], &["-o", "all.h5", "--compress"]].concat(),
    );
    support::assert_same_content_by_our_reader(&packed.join("all.h5"), &ours.join("all.h5"));
    std::fs::remove_dir_all(scratch).ok();
}
