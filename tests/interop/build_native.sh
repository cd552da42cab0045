#!/usr/bin/env bash
# Build the reference package's shipped C and Fortran examples and our
# multi-rank drivers, run them, and leave real traces in OUTDIR:
#
#   example_c/profile_rank00000.spt        shipped C example (no HDF5)
#   example_fortran/profile_rank00000.spt  shipped Fortran example
#   example_c_hdf5/profile_rank00000.h5    shipped C example built with SP_HDF5=1
#   c/run_rank0000{0..3}.spt               multirank.c, ranks 0-3
#   fortran/run_rank0000{0..2}.spt         multirank.f90, ranks 0-2
#   c_hdf5/run_rank0000{0..2}.h5           multirank.c on the SP_HDF5=1 library
#   mixed/{c_rank00000,c_rank00002,f_rank00001,f_rank00003,f_rank00010}.spt
#                                          C and Fortran ranks in one directory
#   mixed_h5/{h_rank00000.h5,c_rank00001.spt,f_rank00002.spt}
#                                          the same with a per-rank .h5
#
# Usage: build_native.sh OUTDIR. The reference is found through the python in
# $SP_PYTHON, else <repo>/.venv/bin/python. Quiet unless a step fails, then
# the log of that step is printed and the exit status is 1.
set -euo pipefail

if [ "$#" -ne 1 ]; then
    echo "usage: build_native.sh OUTDIR" >&2
    exit 2
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PY=${SP_PYTHON:-$REPO/.venv/bin/python}
CC=${CC:-cc}
FC=gfortran # GNU make's builtin FC=f77 would beat the Makefile's FC ?= gfortran
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
LOG="$OUT/build.log"
: >"$LOG"

# Run a command, its output appended to $LOG; on failure show the log.
step() {
    echo "+ $*" >>"$LOG"
    if ! "$@" >>"$LOG" 2>&1; then
        echo "build_native.sh: failed: $*" >&2
        tail -n 60 "$LOG" >&2
        exit 1
    fi
}

if [ ! -x "$PY" ]; then
    echo "build_native.sh: no python at $PY (run scripts/setup-env.sh first, or set SP_PYTHON)" >&2
    exit 1
fi
PKG=$("$PY" -c 'import scope_profiler, os; print(os.path.dirname(scope_profiler.__file__))')

# Build from a copy, so a read-only or stale install directory does not matter.
SRC="$OUT/src"
rm -rf "$SRC" "$OUT/build"
mkdir -p "$SRC"
cp -R "$PKG/c" "$SRC/c"
cp -R "$PKG/fortran" "$SRC/fortran"

B="$OUT/build"
step make -C "$SRC/c" BUILD_DIR="$B/c" CC="$CC"
step make -C "$SRC/c" SP_HDF5=1 BUILD_DIR="$B/c_hdf5" CC="$CC"
step make -C "$SRC/fortran" FC="$FC" BUILD_DIR="$B/fortran"

# The same link flags the shipped Makefile uses for SP_HDF5=1.
HDF5_CFLAGS=$(pkg-config --cflags hdf5-serial 2>/dev/null || pkg-config --cflags hdf5 2>/dev/null || true)
HDF5_LIBS=$(pkg-config --libs hdf5-serial 2>/dev/null || pkg-config --libs hdf5 2>/dev/null || echo -lhdf5)
CFLAGS="-std=c99 -O2 -Wall -Wextra -Werror"
# shellcheck disable=SC2086 # word splitting of the flag lists is intended
step "$CC" $CFLAGS -I"$SRC/c" "$HERE/multirank.c" "$B/c/scope_profiler.o" -lm -o "$B/c/multirank"
# shellcheck disable=SC2086
step "$CC" $CFLAGS -DSP_USE_HDF5 $HDF5_CFLAGS -I"$SRC/c" "$HERE/multirank.c" "$B/c_hdf5/scope_profiler.o" \
    -lm $HDF5_LIBS -o "$B/c_hdf5/multirank"
step "$FC" -O2 -Wall -Wextra -Werror -I"$B/fortran" "$HERE/multirank.f90" "$B/fortran/scope_profiler.o" \
    -o "$B/fortran/multirank_f"

# Run a program in a fresh directory.
run_in() {
    local dir=$1
    shift
    mkdir -p "$dir"
    echo "+ (cd $dir && $*)" >>"$LOG"
    if ! (cd "$dir" && "$@") >>"$LOG" 2>&1; then
        echo "build_native.sh: failed in $dir: $*" >&2
        tail -n 60 "$LOG" >&2
        exit 1
    fi
}

for d in example_c example_fortran example_c_hdf5 c fortran c_hdf5 mixed mixed_h5; do
    rm -rf "${OUT:?}/$d"
done
run_in "$OUT/example_c" "$B/c/example"
run_in "$OUT/example_fortran" "$B/fortran/example"
run_in "$OUT/example_c_hdf5" "$B/c_hdf5/example"

# Ranks run one after the other, highest first and Fortran before C, so the
# earliest timestamps are on the last rank and file: the converter's
# start-time ordering of regions then differs from the order it reads them in.
for r in 3 2 1 0; do run_in "$OUT/c" "$B/c/multirank" run "$r"; done
for r in 2 1 0; do run_in "$OUT/fortran" "$B/fortran/multirank_f" run "$r"; done
for r in 2 1 0; do run_in "$OUT/c_hdf5" "$B/c_hdf5/multirank" run "$r"; done

for r in 10 3 1; do run_in "$OUT/mixed" "$B/fortran/multirank_f" f "$r"; done
for r in 2 0; do run_in "$OUT/mixed" "$B/c/multirank" c "$r"; done

run_in "$OUT/mixed_h5" "$B/fortran/multirank_f" f 2
run_in "$OUT/mixed_h5" "$B/c/multirank" c 1
run_in "$OUT/mixed_h5" "$B/c_hdf5/multirank" h 0

# Every expected file must exist: a library that silently wrote nothing (or
# wrote elsewhere) must not turn into an empty test input.
expect=(
    example_c/profile_rank00000.spt example_fortran/profile_rank00000.spt
    example_c_hdf5/profile_rank00000.h5
    c/run_rank00000.spt c/run_rank00001.spt c/run_rank00002.spt c/run_rank00003.spt
    fortran/run_rank00000.spt fortran/run_rank00001.spt fortran/run_rank00002.spt
    c_hdf5/run_rank00000.h5 c_hdf5/run_rank00001.h5 c_hdf5/run_rank00002.h5
    mixed/c_rank00000.spt mixed/c_rank00002.spt
    mixed/f_rank00001.spt mixed/f_rank00003.spt mixed/f_rank00010.spt
    mixed_h5/h_rank00000.h5 mixed_h5/c_rank00001.spt mixed_h5/f_rank00002.spt
)
for f in "${expect[@]}"; do
    if [ ! -s "$OUT/$f" ]; then
        echo "build_native.sh: expected output $OUT/$f is missing" >&2
        exit 1
    fi
done
