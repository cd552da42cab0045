"""Checks, through h5py, how `sp convert` carried the foreign /metadata attributes of
foreign.h5 (tests/text/make_profiles.py): each attribute other than the two references is
in OUTPUT with its input's datatype, shape and value; the references are not.

    python tests/text/foreign_check.py INPUT OUTPUT
"""

import sys

import h5py
import numpy as np

CARRIED = ["int16s", "float32", "enum", "compound"]
LEFT_OUT = ["object_ref", "region_ref"]


def main():
    source, output = sys.argv[1:]
    problems = []
    with h5py.File(source) as a, h5py.File(output) as b:
        ma, mb = a["metadata"].attrs, b["metadata"].attrs
        for name in CARRIED:
            if name not in mb:
                problems.append(f"{name}: missing")
                continue
            ta, tb = ma.get_id(name), mb.get_id(name)
            if ta.dtype != tb.dtype or ta.shape != tb.shape:
                problems.append(f"{name}: {tb.dtype} {tb.shape}, was {ta.dtype} {ta.shape}")
            if h5py.check_dtype(enum=ta.dtype) != h5py.check_dtype(enum=tb.dtype):
                problems.append(f"{name}: enum members differ")
            if not np.array_equal(np.asarray(ma[name]), np.asarray(mb[name])):
                problems.append(f"{name}: {mb[name]!r}, was {ma[name]!r}")
        for name in LEFT_OUT:
            if name in mb:
                problems.append(f"{name}: carried, should be left out")
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
