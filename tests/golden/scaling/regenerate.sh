#!/usr/bin/env bash
# Regenerates the scaling series: the reference's C region API (scope_profiler/c in the
# venv) under mpirun, 1, 2 and 4 ranks, strong and weak, each run imported with the
# reference into <mode>/ranks<N>.h5. Needs Open MPI (openmpi-bin, libopenmpi-dev); the
# tests read only the committed profiles, so CI does not. Timings are real, so rerunning
# gives other numbers (the tests compare sp with the reference on whatever is here).
#
#   SP_PYTHON=.venv/bin/python tests/golden/scaling/regenerate.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${SP_PYTHON:-$here/../../../.venv/bin/python}
c=$("$python" -c 'import os, scope_profiler; print(os.path.join(os.path.dirname(scope_profiler.__file__), "c"))')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -std=c99 -O2 -I"$c" -c "$c/scope_profiler.c" -o "$work/scope_profiler.o"
mpicc -std=c99 -O2 -I"$c" "$here/mpi_scaling.c" "$work/scope_profiler.o" -lm -o "$work/mpi_scaling"
for mode in strong weak; do
  mkdir -p "$here/$mode"
  for n in 1 2 4; do
    rm -rf "$work/run" && mkdir "$work/run"
    (cd "$work/run" && mpirun --oversubscribe --allow-run-as-root -np "$n" "$work/mpi_scaling" "$mode" >/dev/null)
    "$python" -m scope_profiler import-native "$work/run" -o "$here/$mode/ranks$n.h5" -q --label "$mode-$n"
    echo "regenerated $mode/ranks$n.h5"
  done
done
