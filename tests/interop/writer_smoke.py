#!/usr/bin/env python3
"""Interop check of the hdf5lite writer against libhdf5 tools and h5py.

Writes the profile-shaped file of `tests/hdf5lite_writer.rs` (via its
SP_WRITER_SMOKE_OUT switch), then checks that

* `h5dump -p -B` and `h5ls -r` open it with exit status 0 and nothing on stderr,
* h5dump prints the datatypes exactly as it does for the reference's golden
  files (I64/U32/U64/F64, the UTF-8 vlen string, the 88-byte summary compound,
  the bool enum) and the fill-value times the reference uses,
* h5py reads every group, dataset and attribute back with the exact values.

Run from the repository root with a Python that has h5py and numpy:

    python tests/interop/writer_smoke.py

Exit status 0 when everything matches; otherwise the first mismatch is reported.
"""

import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

VLEN_STR = """H5T_STRING {
            STRSIZE H5T_VARIABLE;
            STRPAD H5T_STR_NULLTERM;
            CSET H5T_CSET_UTF8;
            CTYPE H5T_C_S1;
         }"""

SUMMARY = """H5T_COMPOUND {
            H5T_STD_I64LE "total";
            H5T_STD_I64LE "minimum";
            H5T_STD_I64LE "maximum";
            H5T_STD_I64LE "first";
            H5T_STD_I64LE "last";
            H5T_STD_I64LE "start_minimum";
            H5T_STD_I64LE "end_maximum";
            H5T_STD_U64LE "gpu_count";
            H5T_STD_I64LE "gpu_total";
            H5T_IEEE_F64LE "mean";
            H5T_IEEE_F64LE "m2";
         }"""

BOOL_ENUM = """H5T_ENUM {
            H5T_STD_I8LE;
            "FALSE"            0;
            "TRUE"             1;
         }"""

SUMMARY_NAMES = ["total", "minimum", "maximum", "first", "last", "start_minimum",
                 "end_maximum", "gpu_count", "gpu_total", "mean", "m2"]


def fail(msg):
    print(f"writer_smoke: FAIL: {msg}")
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def summary_row(total, mean, m2):
    return (total, 1, 2, 3, 4, 5, 6, 0, 0, mean, m2)


def check_h5dump(path):
    for cmd in (["h5dump", "-p", "-B", path], ["h5ls", "-r", path]):
        r = run(cmd)
        check(r.returncode == 0, f"{cmd[0]} exit status {r.returncode}: {r.stderr}")
        check(r.stderr == "", f"{cmd[0]} wrote to stderr: {r.stderr}")
    dump = run(["h5dump", "-p", "-B", path]).stdout
    check("SUPERBLOCK_VERSION 2" in dump, "superblock version")
    blocks = {
        "summary compound": ('DATASET "summary_statistics" {\n         DATATYPE  ' + SUMMARY),
        "vlen string dataset": ('DATASET "tags" {\n         DATATYPE  ' + VLEN_STR),
        "bool enum": ('ATTRIBUTE "flag" {\n         DATATYPE  ' + BOOL_ENUM),
        "i64 dataset": 'DATASET "durations" {\n         DATATYPE  H5T_STD_I64LE\n',
        "u32 dataset": 'DATASET "ranks" {\n         DATATYPE  H5T_STD_U32LE\n',
        "u64 dataset": 'DATASET "event_counts" {\n         DATATYPE  H5T_STD_U64LE\n',
        "f64 attribute": 'ATTRIBUTE "ratio" {\n         DATATYPE  H5T_IEEE_F64LE\n',
        "i64 attribute": 'ATTRIBUTE "scope_profiler_schema" {\n      DATATYPE  H5T_STD_I64LE\n',
    }
    for what, text in blocks.items():
        check(text in dump, f"h5dump does not print the {what} as the reference does")
    check(dump.count("H5D_FILL_TIME_ALLOC") == 6, "vlen datasets fill on allocation")
    check(dump.count("H5D_FILL_TIME_IFSET") == 10, "numeric datasets fill if set")
    check(dump.count("H5D_ALLOC_TIME_LATE") == 16, "allocation time late everywhere")
    check("OFFSET 18446744073709551615" in dump, "empty datasets have no address")


def check_h5py(path):
    f = h5py.File(path, "r")
    check(sorted(f.keys()) == ["events", "metadata", "rank_region_index", "region_table"],
          f"root links {sorted(f.keys())}")
    check(f.attrs["scope_profiler_schema"] == 3, "schema attribute")
    check(f.attrs["scope_profiler_schema"].dtype == np.int64, "schema dtype")
    check(f.attrs["storage_layout"] == "columnar", "storage_layout")
    # libhdf5 counts attributes of a version-2 header via its Attribute Info message.
    check(len(f.attrs) == 2, f"root has {len(f.attrs)} attributes")
    check(len(f["metadata"].attrs) == 12, f"metadata has {len(f['metadata'].attrs)} attributes")

    m = f["metadata"].attrs
    expected = {
        "source": "native",
        "trace_format_version": 2,
        "start_time_ns": 1_700_000_000_123_456_789,
        "label": "golden",
        "hostname": "nœud-é1",
        "timestamp": "2024-01-31T23:59:59+00:00",
        "mpi_rank": -2,
        "source_language": "",
        "ratio": 0.1,
        "flag": True,
    }
    check(sorted(m.keys()) == sorted(list(expected) + ["tags", "empty_list"]),
          f"metadata keys {sorted(m.keys())}")
    for k, v in expected.items():
        got = m[k]
        check(got == v and type(got.item() if hasattr(got, "item") else got) == type(v),
              f"metadata {k}: {got!r} != {v!r}")
    check(m["flag"].dtype == np.bool_, "flag is a numpy bool")
    check(list(m["tags"]) == ["a", "", "é"], f"tags {list(m['tags'])}")
    check(m["empty_list"].shape == (0,), "empty_list shape")

    def strings(ds):
        return [s.decode("utf-8") for s in ds[()]]

    check(strings(f["region_table/names"]) == ["solve", "io", "ünïcode"], "names")
    r = f["rank_region_index"]
    check(len(r) == 12, f"{len(r)} rank_region_index datasets")
    ints = {
        "region_ids": ([0, 1, 2], np.uint32),
        "ranks": ([0, 0, 1], np.uint32),
        "event_offsets": ([0, 2, 2], np.uint64),
        "event_counts": ([2, 0, 1], np.uint64),
        "source_lines": ([42, -1, 7], np.int64),
        "exclusive_totals": ([-1, -1, -1], np.int64),
    }
    for k, (v, dt) in ints.items():
        check(r[k].dtype == dt, f"{k} dtype {r[k].dtype}")
        check(r[k][()].tolist() == v, f"{k} values {r[k][()].tolist()}")
    s = r["summary_statistics"]
    check(list(s.dtype.names) == SUMMARY_NAMES, "summary member names")
    check(s.dtype.itemsize == 88, "summary size")
    check([s.dtype.fields[n][1] for n in SUMMARY_NAMES] == list(range(0, 88, 8)),
          "summary offsets")
    rows = [tuple(x.item() for x in row) for row in s[()]]
    want = [summary_row(1700, 850.0, 5000.0), summary_row(0, 0.0, 0.0),
            summary_row(-5, 883.3333333333334, 11666.666666666668)]
    check(rows == want, f"summary rows {rows}")
    check(strings(r["source_files"]) == ["solver.c", "", "io.f90"], "source_files")
    check(strings(r["source_texts"]) == ["", "", ""], "source_texts")
    check(strings(r["tags"]) == ["[]", "[]", '["golden", "\\u00e9"]'], "tags")
    check(strings(r["event_metadata"]) == ["[]", "[]", "[]"], "event_metadata")
    check(r["empty_strings"].shape == (0,), "empty_strings shape")
    e = f["events"]
    check(e["start_deltas"][()].tolist() == [100, 50, -(2**63)], "start_deltas")
    check(e["durations"][()].tolist() == [800, 900, -3], "durations")
    check(e["empty"].shape == (0,) and e["empty"].dtype == np.int64, "empty dataset")
    for name in ("events", "metadata", "rank_region_index", "region_table"):
        check(isinstance(f[name], h5py.Group), f"{name} is a group")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "writer_smoke.h5")
        env = dict(os.environ, SP_WRITER_SMOKE_OUT=path)
        r = run(["cargo", "test", "-q", "--test", "hdf5lite_writer", "profile_shaped"], env=env)
        check(r.returncode == 0 and os.path.exists(path), f"cargo test failed: {r.stdout}{r.stderr}")
        check_h5dump(path)
        check_h5py(path)
    print("writer_smoke: ok")


if __name__ == "__main__":
    main()
