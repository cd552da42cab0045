//! `sp convert --shard I/N` in N parallel processes, then `sp convert` of the N parts: the
//! same bytes as one conversion of all inputs. The run has W3's shape (2,048 ranks × 20
//! regions × 50 calls), with what a merge of parts could get wrong: regions whose sort keys
//! tie (no calls on some rank), so their order of first appearance decides, and per-rank
//! `.h5` inputs in three shards, none holding the lowest rank, whose metadata the run
//! inherits from the lowest of their ranks.

mod support;

use std::path::Path;

use sp::hdf5lite::reader::File;
use sp::schema::{read, Depth, MetaValue};
use sp::trace::{encode, Endian, Region, Trace, Version};

const RANKS: u32 = 2048;
const SHARDS: u32 = 8;

/// Trace ranks are 0..2045; these three ranks come as `.h5` files named to sort among the
/// traces (file name, rank, hostname).
const PROFILES: [(&str, u32, &str); 3] = [
    ("t_rank00700.h5", 2045, "node-a"),
    ("t_rank01300.h5", 2046, "node-b"),
    ("t_rank01800.h5", 2047, "node-c"),
];

/// Rank `rank`'s regions: 18 with 50 calls, in a rank-dependent order; `flaky` (calls on
/// most ranks, none on rank 1500, so its key is 0.0) listed before `idle` (never called, key
/// 0.0): the whole run sees `flaky` first, shard 0 alone sorts `idle` first.
fn trace(rank: u32) -> Trace {
    let t0 = 3_600_000_000_000i64 + i64::from(rank % 97) * 1_000;
    let mut regions: Vec<Region> = (0..18u32)
        .map(|r| {
            let name = format!("r{:02}", (r + rank) % 18);
            let starts: Vec<i64> = (0..50i64)
                .map(|i| t0 + i * 10_000 + i64::from(r) * 300 + i64::from((rank * 7 + r) % 13))
                .collect();
            let ends = starts
                .iter()
                .enumerate()
                .map(|(i, s)| s + 100 + ((i as i64 * 31 + i64::from(r)) % 200))
                .collect();
            Region {
                source_file: (r % 3 == 0).then(|| format!("{name}.c")),
                source_line: (r % 3 == 0).then_some(r as i32 + 1),
                name,
                starts,
                ends,
            }
        })
        .collect();
    let flaky_calls = if rank == 1500 { 0 } else { 50 };
    let flaky_starts: Vec<i64> = (0..flaky_calls).map(|i| t0 + 5 + i * 10_000).collect();
    let flaky_ends = flaky_starts.iter().map(|s| s + 3).collect();
    regions.insert(
        0,
        Region {
            name: "flaky".into(),
            starts: flaky_starts,
            ends: flaky_ends,
            ..Region::default()
        },
    );
    regions.insert(
        1,
        Region {
            name: "idle".into(),
            ..Region::default()
        },
    );
    Trace {
        rank: rank as i32,
        regions,
    }
}

fn write_traces(dir: &Path) {
    for rank in 0..RANKS - PROFILES.len() as u32 {
        let t = trace(rank);
        let bytes = encode(&t, Version::V2, Endian::Little);
        std::fs::write(dir.join(format!("t_rank{rank:05}.spt")), bytes).unwrap();
    }
}

/// The per-rank profiles, as the C API's `SP_USE_HDF5` build writes them (schema 2,
/// absolute times), through h5py.
fn write_profiles(dir: &Path) {
    let script = r#"
import sys, h5py, numpy as np
for spec in sys.argv[2:]:
    name, rank, host = spec.split(":")
    rank = int(rank)
    starts = 3_600_000_000_000 + 123 + 10_000 * np.arange(50, dtype=np.int64)
    with h5py.File(sys.argv[1] + "/" + name, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int64(2)
        f.attrs["storage_layout"] = "columnar"
        m = f.create_group("metadata")
        m.attrs["hostname"] = host
        m.attrs["mpi_rank"] = np.int64(rank)
        f.create_dataset("region_table/names", data=["c_solve"], dtype=h5py.string_dtype())
        g = f.create_group("rank_region_index")
        g["region_ids"] = np.array([0], dtype=np.uint32)
        g["ranks"] = np.array([rank], dtype=np.uint32)
        g["event_offsets"] = np.array([0], dtype=np.uint64)
        g["event_counts"] = np.array([50], dtype=np.uint64)
        g["source_lines"] = np.array([7], dtype=np.int64)
        g.create_dataset("source_files", data=["solve.c"], dtype=h5py.string_dtype())
        g.create_dataset("source_texts", data=[""], dtype=h5py.string_dtype())
        g.create_dataset("tags", data=["[]"], dtype=h5py.string_dtype())
        f["events/start_times"] = starts
        f["events/end_times"] = starts + 250
"#;
    let specs = PROFILES.map(|(name, rank, host)| format!("{name}:{rank}:{host}"));
    let mut args = vec![
        "-c".to_owned(),
        script.to_owned(),
        dir.display().to_string(),
    ];
    args.extend(specs);
    support::run_python(dir, args);
}

fn metadata(path: &Path) -> sp::schema::Metadata {
    let file = File::open(std::fs::read(path).unwrap()).unwrap();
    read(&file, Depth::Metadata).unwrap().metadata
}

#[test]
fn eight_shards_merged_give_the_one_shot_bytes() {
    let scratch = support::scratch_dir("shard");
    let traces = scratch.join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    write_traces(&traces);
    write_profiles(&traces);

    let one = scratch.join("one");
    let parts = scratch.join("parts");
    let merged = scratch.join("merged");
    for dir in [&one, &parts, &merged] {
        std::fs::create_dir_all(dir).unwrap();
    }
    support::run_ok(
        support::sp()
            .arg("convert")
            .arg(&traces)
            .arg("-o")
            .arg(one.join("run.h5"))
            .arg("-q"),
    );
    // Every shard in its own process, all at once.
    let children: Vec<_> = (0..SHARDS)
        .map(|i| {
            support::sp()
                .arg("convert")
                .arg(&traces)
                .arg("--shard")
                .arg(format!("{i}/{SHARDS}"))
                .arg("-o")
                .arg(parts.join(format!("part_{i}.h5")))
                .arg("-q")
                .spawn()
                .expect("spawn a shard")
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a shard failed");
    }
    let part_files: Vec<_> = (0..SHARDS)
        .map(|i| parts.join(format!("part_{i}.h5")))
        .collect();
    support::run_ok(
        support::sp()
            .arg("convert")
            .args(&part_files)
            .arg("-o")
            .arg(merged.join("run.h5"))
            .arg("-q"),
    );

    let one_bytes = std::fs::read(one.join("run.h5")).unwrap();
    assert!(
        one_bytes == std::fs::read(merged.join("run.h5")).unwrap(),
        "the merge of the parts differs from the one-shot conversion"
    );
    // What made it so: the metadata of rank 2045's input, and the parts' own attributes.
    let whole = metadata(&one.join("run.h5"));
    assert_eq!(whole["hostname"], MetaValue::Str("node-a".into()));
    assert!(!whole.keys().any(|k| k.starts_with("sp_")));
    let part2 = metadata(&part_files[2]);
    assert_eq!(part2["sp_shard"], MetaValue::Str("2/8".into()));
    assert_eq!(part2["sp_metadata_rank"], MetaValue::Int(2045));
    let part0 = metadata(&part_files[0]);
    assert!(!part0.contains_key("sp_metadata_rank"));
    let MetaValue::StrList(order) = &part0["sp_region_order"] else {
        panic!("sp_region_order is not a list of names");
    };
    assert_eq!(order[..2], ["flaky", "idle"]);
    std::fs::remove_dir_all(scratch).ok();
}
