#!/usr/bin/env bash
# Regenerates every case's expected output with the reference, scope-profiler 0.7.5.
#
# Each case directory holds `case.txt`: line 1 the import-native inputs (relative to the case
# directory), line 2 the output file name (its stem is the run label, so it matters), and an
# optional line 3 of further arguments (`--merge PROFILE.h5`, `--label L`). The
# reference's output lands in `expected/<name>`. The reference is deterministic: rerunning
# this reproduces the committed files byte for byte.
#
# Inputs that are themselves Python runs of the reference (one per `hdf5_compression`) are
# made first by make_python_profiles.py, only when missing: their timestamps are real.
#
#   SP_PYTHON=.venv/bin/python tests/golden/regenerate.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${SP_PYTHON:-$here/../../.venv/bin/python}
"$python" "$here/make_python_profiles.py" "$here"/*/
for case_dir in "$here"/*/; do
  [ -f "$case_dir/case.txt" ] || continue
  inputs=$(sed -n 1p "$case_dir/case.txt")
  output=$(sed -n 2p "$case_dir/case.txt")
  extra=$(sed -n 3p "$case_dir/case.txt")
  mkdir -p "$case_dir/expected"
  # shellcheck disable=SC2086 # inputs and extra are lists of words
  (cd "$case_dir" && "$python" -m scope_profiler import-native $inputs -o "expected/$output" -q $extra)
  echo "regenerated $(basename "$case_dir")/expected/$output"
done
