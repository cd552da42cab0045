#!/usr/bin/env python3
"""Prove that h5content.py and check_read_h5.py can fail.

    selftest.py REF.h5 WORKDIR

REF.h5 is an import-native output with several ranks and at least one row
with a source file. Each case copies it into WORKDIR, alters the copy with
h5py (a value, a datatype, an attribute, a dataset, ...) and asserts that
each comparison reports exactly the kind of difference expected - or, for a
change of storage only, that neither reports anything. Exits 0 when every
expectation holds, else 1 with the failed ones listed.
"""

import contextlib
import io
import os
import shutil
import sys

import h5py
import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_read_h5  # noqa: E402
import h5content  # noqa: E402


def _recreate(f, path, data, **kwargs):
    """Replace dataset `path` by a new one holding `data` (attributes copied)."""
    attrs = dict(f[path].attrs)
    del f[path]
    ds = f.create_dataset(path, data=data, **kwargs)
    for k, v in attrs.items():
        ds.attrs[k] = v


def bump_duration(f):
    d = f["events/durations"]
    d[0] = d[0] + 1


def source_lines_as_i32(f):
    _recreate(f, "rank_region_index/source_lines", f["rank_region_index/source_lines"][()].astype("<i4"))


def durations_big_endian(f):
    _recreate(f, "events/durations", f["events/durations"][()].astype(">i8"))


def relabel(f):
    f["metadata"].attrs["label"] = "something else"


def start_time_as_u64(f):
    f["metadata"].attrs.create("start_time_ns", f["metadata"].attrs["start_time_ns"], dtype="<u8")


def extra_attribute(f):
    f["metadata"].attrs["extra"] = "x"


def names_fixed_length(f):
    names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][()]]
    width = max(1, max(len(n.encode()) for n in names))
    fixed = h5py.string_dtype("utf-8", length=width)
    _recreate(f, "region_table/names", np.array([n.encode() for n in names], dtype=fixed), dtype=fixed)


def rename_compound_member(f):
    old = f["rank_region_index/summary_statistics"][()]
    names = list(old.dtype.names)
    names[names.index("m2")] = "M2"
    new = old.copy()
    new.dtype.names = names
    _recreate(f, "rank_region_index/summary_statistics", new)


def flip_mean_bit(f):
    s = f["rank_region_index/summary_statistics"][()]
    row = int(np.argmax(s["mean"]))
    s["mean"][row] = np.nextafter(s["mean"][row], np.inf)
    f["rank_region_index/summary_statistics"][...] = s


def drop_event_metadata(f):
    del f["rank_region_index/event_metadata"]


def change_source_file(f):
    files = [x.decode() if isinstance(x, bytes) else x for x in f["rank_region_index/source_files"][()]]
    i = next(i for i, x in enumerate(files) if x)
    files[i] = files[i] + ".orig"
    _recreate(f, "rank_region_index/source_files", files, dtype=h5py.string_dtype("utf-8"))


def move_last_rank(f):
    r = f["rank_region_index/ranks"]
    r[-1] = r[-1] + 100


def storage_only(f):
    """Same content, different storage: chunked, filtered, resizable, other fill."""
    d = f["events/start_deltas"][()]
    _recreate(f, "events/start_deltas", d, chunks=(7,), maxshape=(None,), compression="gzip",
              shuffle=True, fillvalue=-5)
    n = f["region_table/names"][()]
    _recreate(f, "region_table/names", n, dtype=h5py.string_dtype("utf-8"), chunks=(3,), maxshape=(None,))
    s = f["rank_region_index/summary_statistics"][()]
    _recreate(f, "rank_region_index/summary_statistics", s, chunks=(2,), maxshape=(None,), track_times=True)
    # attribute order: write the metadata attributes back in reverse order
    attrs = [(k, f["metadata"].attrs.get_id(k).get_type(), f["metadata"].attrs[k])
             for k in f["metadata"].attrs]
    for k, _, _ in attrs:
        del f["metadata"].attrs[k]
    for k, tid, v in reversed(attrs):
        f["metadata"].attrs.create(k, v, dtype=tid.dtype if tid.get_class() != h5py.h5t.STRING
                                   else h5py.string_dtype("utf-8"))


# name, alteration, substring expected in a compare() line (None: no difference),
# substring expected in a check_read_h5 line (None: no difference), extra compare args
CASES = [
    ("value", bump_duration, "/events/durations: value", "end_times_ns", []),
    ("integer width", source_lines_as_i32, "/rank_region_index/source_lines: type", None, []),
    ("byte order", durations_big_endian, "/events/durations: type", None, []),
    ("attribute value", relabel, "/metadata@label: value", "['metadata']['label']", []),
    ("attribute type", start_time_as_u64, "/metadata@start_time_ns: type", "['metadata']['start_time_ns']", []),
    ("extra attribute", extra_attribute, "/metadata@extra: attribute only in A", "['metadata']['extra']", []),
    ("ignored attribute", extra_attribute, None, "['metadata']['extra']", ["/metadata/extra"]),
    ("vlen vs fixed string", names_fixed_length, "/region_table/names: type", None, []),
    ("compound member name", rename_compound_member, "/rank_region_index/summary_statistics: type",
     "read_h5_summary", []),
    ("float last bit", flip_mean_bit, "/rank_region_index/summary_statistics: value", "['mean']", []),
    ("missing dataset", drop_event_metadata, "/rank_region_index/event_metadata: only in B", None, []),
    ("source file", change_source_file, "/rank_region_index/source_files: value", "['source_file']", []),
    ("rank", move_last_rank, "/rank_region_index/ranks: value", "['num_ranks']", []),
    ("storage only", storage_only, None, None, []),
]


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    ref, work = argv[1], argv[2]
    os.makedirs(work, exist_ok=True)
    failures = []
    for i, (name, alter, want_content, want_read, extra) in enumerate(CASES):
        copy = os.path.join(work, "altered%02d.h5" % i)
        shutil.copyfile(ref, copy)
        with h5py.File(copy, "r+") as f:
            alter(f)
        diffs = h5content.differences(h5content.dump(copy), h5content.dump(ref), extra)
        with contextlib.redirect_stdout(io.StringIO()):
            status = h5content.main(["compare", copy, ref] + sum((["--ignore-attr", p] for p in extra), []))
        if want_content is None:
            if diffs or status != 0:
                failures.append("%s: h5content reported %r (exit %d), expected nothing" % (name, diffs, status))
        else:
            if status != 1 or not any(d.startswith(want_content) for d in diffs):
                failures.append("%s: h5content reported %r (exit %d), expected a line starting %r"
                                % (name, diffs, status, want_content))
        rdiffs = check_read_h5.compare(copy, ref)
        if want_read is None:
            if rdiffs:
                failures.append("%s: check_read_h5 reported %r, expected nothing" % (name, rdiffs[:3]))
        elif not any(want_read in d for d in rdiffs):
            failures.append("%s: check_read_h5 reported %r, expected a line containing %r"
                            % (name, rdiffs[:3], want_read))
    if failures:
        print("selftest: %d of %d expectations failed:" % (len(failures), len(CASES)))
        for line in failures:
            print("  " + line)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
