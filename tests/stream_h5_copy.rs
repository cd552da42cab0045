//! Merging schema-3 profiles: event columns stored as the output stores them (little-endian
//! `i64` start deltas and durations) are copied byte for byte, contiguous or chunked, with
//! rows that straddle chunks and chunks of the two columns interleaved in the file; columns
//! of another byte order or width are decoded and encoded again. Either way the merge has
//! `import-native`'s content.

mod support;

use std::ffi::OsStr;
use std::path::Path;

/// Writes a schema-3 profile through h5py: ranks `rank0` and `rank0 + 1`, regions `a`, `b`
/// and `c` (2,500, 1,700 and 0 calls on the first rank; 3, 0 and 900 on the second), rows
/// stored in the event columns in an order unlike the index's, with a gap. Start deltas
/// are mostly positive, a few negative (so the smallest start is not the first); durations
/// a few negative. `layout` is `contiguous`, or `chunked` (unfiltered chunks of 1,000
/// events, written a piece of each column at a time so their chunks interleave); `first`
/// and `second` are the numpy types of the two columns.
fn write_profile(path: &Path, rank0: u32, layout: &str, first: &str, second: &str) {
    write_named_profile(path, rank0, layout, first, second, "");
}

/// [`write_profile`] with region names `{prefix}a`, `{prefix}b` and `{prefix}c`.
fn write_named_profile(
    path: &Path,
    rank0: u32,
    layout: &str,
    first: &str,
    second: &str,
    prefix: &str,
) {
    let script = r#"
import sys, h5py, numpy as np
path, rank0, layout, t1, t2, prefix = sys.argv[1], int(sys.argv[2]), *sys.argv[3:7]
rng = np.random.RandomState(rank0 + 7)
counts = [2500, 1700, 0, 3, 0, 900]
rows = []
for n in counts:
    deltas = rng.randint(1, 5000, size=n).astype(np.int64)
    if n:
        deltas[0] = 3_000_000_000_000 + rng.randint(0, 10**6)
        deltas[1::37] = -rng.randint(1, 300, size=len(deltas[1::37]))
    durations = rng.randint(0, 10**6, size=n).astype(np.int64)
    durations[::53] *= -1
    rows.append((deltas, durations))
# Stored order: rows 5, 1, (gap of 11 events), 3, 0; empty rows at offset 0.
order, gap = [5, 1, 3, 0], 11
offsets, at, first_col, second_col = [0] * 6, 0, [], []
for k, r in enumerate(order):
    offsets[r] = at
    first_col.append(rows[r][0]); second_col.append(rows[r][1]); at += counts[r]
    if k == 1:
        first_col.append(np.zeros(gap, np.int64)); second_col.append(np.zeros(gap, np.int64)); at += gap
d1, d2 = np.concatenate(first_col), np.concatenate(second_col)
with h5py.File(path, "w") as f:
    f.attrs["scope_profiler_schema"] = np.int64(3)
    f.attrs["storage_layout"] = "columnar"
    f.create_group("metadata").attrs["hostname"] = "node%d" % rank0
    f.create_dataset("region_table/names", data=[prefix + n for n in "abc"], dtype=h5py.string_dtype())
    g = f.create_group("rank_region_index")
    g["region_ids"] = np.array([0, 1, 2, 0, 1, 2], dtype=np.uint32)
    g["ranks"] = np.array([rank0] * 3 + [rank0 + 1] * 3, dtype=np.uint32)
    g["event_offsets"] = np.array(offsets, dtype=np.uint64)
    g["event_counts"] = np.array(counts, dtype=np.uint64)
    g["source_lines"] = np.array([3, 4, 5, 3, 4, 5], dtype=np.int64)
    for name, text in [("source_files", "x.c"), ("source_texts", "x()"), ("tags", "[]")]:
        g.create_dataset(name, data=[text] * 6, dtype=h5py.string_dtype())
    e = f.create_group("events")
    if layout == "contiguous":
        e.create_dataset("start_deltas", data=d1.astype(t1))
        e.create_dataset("durations", data=d2.astype(t2))
    else:
        a = e.create_dataset("start_deltas", shape=(0,), maxshape=(None,), chunks=(1000,), dtype=t1)
        b = e.create_dataset("durations", shape=(0,), maxshape=(None,), chunks=(1000,), dtype=t2)
        for lo in range(0, len(d1), 1300):
            hi = min(lo + 1300, len(d1))
            for ds, col in [(a, d1), (b, d2)]:
                ds.resize((hi,)); ds[lo:hi] = col[lo:hi]; ds.flush()
"#;
    let rank0 = rank0.to_string();
    let args: [&OsStr; 8] = [
        "-c".as_ref(),
        script.as_ref(),
        path.as_os_str(),
        rank0.as_ref(),
        layout.as_ref(),
        first.as_ref(),
        second.as_ref(),
        prefix.as_ref(),
    ];
    support::run_python(Path::new("."), args);
}

/// Profiles whose columns copy (contiguous, chunked) and profiles whose columns must be
/// re-encoded (big-endian start deltas; 32-bit durations; both chunked too) merge, and merge
/// into one with `--merge`, to the reference's content; plain and compressed outputs agree.
#[test]
fn copied_and_re_encoded_columns_merge_to_the_reference_content() {
    let scratch = support::scratch_dir("stream-h5-copy");
    let inputs = scratch.join("inputs");
    std::fs::create_dir_all(&inputs).unwrap();
    let variants = [
        ("copy_contiguous.h5", "contiguous", "<i8", "<i8"),
        ("copy_chunked.h5", "chunked", "<i8", "<i8"),
        ("big_endian.h5", "contiguous", ">i8", "<i8"),
        ("narrow_chunked.h5", "chunked", "<i8", "<i4"),
        ("big_endian_chunked.h5", "chunked", "<i8", ">i8"),
    ];
    let mut all = Vec::new();
    for (k, (name, layout, first, second)) in variants.iter().enumerate() {
        write_profile(&inputs.join(name), 10 * k as u32, layout, first, second);
        all.push(format!("../inputs/{name}"));
    }
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let (ours, reference) = (scratch.join("ours"), scratch.join("reference"));
    for dir in [&ours, &reference] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let args = [&all[..], &["-o", "all.h5"]].concat();
    support::sp_convert(&ours, &args);
    support::import_native(&reference, &args);
    support::assert_same_content(&ours.join("all.h5"), &reference.join("all.h5"));
    support::assert_same_content_by_our_reader(&ours.join("all.h5"), &reference.join("all.h5"));

    // --merge into a profile whose columns copy, and into one whose columns re-encode.
    for (base, layout, first) in [
        ("base_copy.h5", "chunked", "<i8"),
        ("base_be.h5", "contiguous", ">i8"),
    ] {
        write_named_profile(&inputs.join(base), 100, layout, first, "<i8", "m_");
        let base = format!("../inputs/{base}");
        let args = [&all[..], &["--merge", &base, "-o", "merged.h5"]].concat();
        support::sp_convert(&ours, &args);
        support::import_native(&reference, &args);
        support::assert_same_content(&ours.join("merged.h5"), &reference.join("merged.h5"));
    }

    let packed = scratch.join("packed");
    std::fs::create_dir_all(&packed).unwrap();
    support::sp_convert(
        &packed,
        &[&all[..], &["-o", "all.h5", "--compress"]].concat(),
    );
    support::assert_same_content_by_our_reader(&packed.join("all.h5"), &ours.join("all.h5"));
}
