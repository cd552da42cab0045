"""Writes the input profiles of the golden cases that start from a Python run, with the
reference's own Python writer (scope-profiler 0.7.5): one per `hdf5_compression` it
offers. Their timestamps are real, so they are made once and committed;
`regenerate.sh` runs this only for inputs that are missing.

    python tests/golden/make_python_profiles.py CASE_DIR...
"""

import os
import sys

import hdf5plugin  # noqa: F401  (the zstd filter, as the reference's writer uses it)
import scope_profiler as sp

# case directory -> (input file, compression)
CASES = {
    "h5_python_lzf": ("inputs/lzf.h5", "lzf"),
    "h5_python_zstd": ("inputs/zstd.h5", "zstd"),
    "h5_python_gzip_option": ("inputs/gzip.h5", "gzip"),
    "h5_lzf_with_traces": ("inputs/lzf.h5", "lzf"),
    "merge_zstd": ("inputs/base.h5", "zstd"),
}


def run(path, compression):
    """A run of a few thousand nested calls: every event column spans several chunks."""
    with sp.session(file_path=path, hdf5_compression=compression, verbose=False,
                    label=f"python-{compression}"):
        for _ in range(3000):
            with sp.region("outer"):
                for _ in range(3):
                    with sp.region("inner"):
                        pass
        with sp.region("once"):
            pass


def main():
    for case_dir in sys.argv[1:]:
        name = os.path.basename(os.path.normpath(case_dir))
        if name not in CASES:
            continue
        rel, compression = CASES[name]
        path = os.path.join(case_dir, rel)
        if os.path.exists(path):
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        run(path, compression)
        print(f"made {name}/{rel} ({compression})")


if __name__ == "__main__":
    main()
