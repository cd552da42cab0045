#!/usr/bin/env bash
# The libhdf5 version matrix's Python environments: one venv per libhdf5 version, each with
# the h5py release whose wheels bundle that version, made once under target/matrix/ and
# reused (CI keeps target/ between runs of the same machine; a fresh one builds them in
# about a minute). Prints one line per venv: <hdf5 version> <python path>.
#
#   h5py 3.8.0  -> libhdf5 1.12.2   (numpy < 2: built against numpy 1)
#   h5py 3.11.0 -> libhdf5 1.14.2   (numpy < 2)
#   h5py 3.16.0 -> libhdf5 2.0.0
#
# libhdf5 1.10 is Debian's (h5dump, h5ls from hdf5-tools), not a venv.
# Environment: SP_BASE_PYTHON (default python3).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT="$REPO/target/matrix"
BASE_PYTHON=${SP_BASE_PYTHON:-python3}
mkdir -p "$ROOT"
# One maker at a time: a second caller waits, then finds the venvs complete.
exec 9>"$ROOT/.lock"
flock 9

venv() {
    local hdf5=$1 h5py=$2 numpy=$3 dir="$ROOT/hdf5-$1"
    local check="import h5py, sys; sys.exit(0 if h5py.version.hdf5_version.startswith('$hdf5') else 1)"
    if ! "$dir/bin/python" -c "$check" >/dev/null 2>&1; then
        rm -rf "$dir"
        "$BASE_PYTHON" -m venv "$dir"
        if ! "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
            --only-binary=:all: "h5py==$h5py" "numpy$numpy" >"$dir.log" 2>&1; then
            echo "matrix-venvs: cannot install h5py==$h5py:" >&2
            cat "$dir.log" >&2
            exit 1
        fi
        "$dir/bin/python" -c "$check" || {
            echo "matrix-venvs: h5py==$h5py does not bundle libhdf5 $hdf5" >&2
            exit 1
        }
    fi
    echo "$hdf5 $dir/bin/python"
}

venv 1.12 3.8.0 "<2"
venv 1.14 3.11.0 "<2"
venv 2.0 3.16.0 ">=2"
