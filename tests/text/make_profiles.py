"""Writes the profiles the terminal-text tests read, with the reference's own Python
writer (scope-profiler 0.7.5) and h5py. Their timestamps are real, so the tests make them
afresh and compare sp with the reference on the same file, never with committed text.

    python tests/text/make_profiles.py OUTDIR

- wide.h5: region names of East Asian wide characters, emoji (one a ZWJ sequence),
  combining marks and Hangul, nested, so the table's columns depend on display width.
- evil.h5: region names and a metadata value holding terminal control sequences (OSC 0
  that sets the window title, CSI 2J that clears the screen, SGR colours, BEL,
  backspace, a C1 control), as an instrumented program may pass them.
- evil_b.h5: the same names with other timings, to compare with evil.h5 (sp diff).
- foreign.h5: wide.h5 with attributes another tool added to /metadata through h5py: an
  object reference, a region reference, and attributes of other datatypes (an i16
  array, an f32, a fixed-length byte string, an enum, a compound).
"""

import os
import sys

import h5py
import numpy as np
import scope_profiler as sp

WIDE = ["日本語の領域", "io 🚀 checkpoint", "👩\u200d💻 dev", "e\u0301tude", "한국어", "plain"]
EVIL = [
    "evil\x1b]0;PWNED\x07title",
    "clear\x1b[2Jscreen",
    "\x1b[31mred\x1b[0m",
    "bell\x07and\x08back",
    "c1\x9bcsi",
    "plain",
]


def run(path, names, label, repeat):
    """The first name holds the others, each called `repeat` times."""
    with sp.session(file_path=path, verbose=False, label=label):
        with sp.region(names[0]):
            for _ in range(repeat):
                for name in names[1:]:
                    with sp.region(name):
                        pass


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    run(os.path.join(out, "wide.h5"), WIDE, "wide 日本", 3)
    run(os.path.join(out, "evil.h5"), EVIL, "evil\x1b[2J", 3)
    run(os.path.join(out, "evil_b.h5"), EVIL, "evil\x1b[2J", 5)
    with h5py.File(os.path.join(out, "evil.h5"), "a") as f:
        f["metadata"].attrs["note"] = "title\x1b]0;PWNED\x07"
    foreign = os.path.join(out, "foreign.h5")
    run(foreign, WIDE, "foreign", 2)
    with h5py.File(foreign, "a") as f:
        meta = f["metadata"]
        target = f["rank_region_index/ranks"]
        meta.attrs["object_ref"] = f["rank_region_index"].ref
        meta.attrs["region_ref"] = target.regionref[0:2]
        meta.attrs["int16s"] = np.array([-1, 2, 300], dtype="<i2")
        meta.attrs["float32"] = np.float32(0.1)
        meta.attrs["fixed_bytes"] = np.bytes_(b"abc")
        colour = h5py.enum_dtype({"red": 0, "green": 1}, basetype="u1")
        meta.attrs.create("enum", 1, dtype=colour)
        pair = np.dtype([("a", "<i4"), ("b", "<f8")])
        meta.attrs.create("compound", np.array((7, 2.5), dtype=pair), dtype=pair)


if __name__ == "__main__":
    main()
