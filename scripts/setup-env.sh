#!/usr/bin/env bash
# Install what `cargo test --test interop` needs on a fresh Debian machine:
# the HDF5 command-line tools and C library (to build the reference's C
# example with SP_HDF5=1), gfortran, musl-tools, a Python venv at <repo>/.venv
# holding the reference (scope-profiler 0.7.5), h5py and the reference's extras, and the extra Rust
# targets. Idempotent: each step is skipped when its result is already there.
# Quiet unless something is installed (one line each) or fails (its log).
#
# Environment: SP_BASE_PYTHON (default python3) is the interpreter the venv is
# made from.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV="$REPO/.venv"
SP_REF_VERSION=0.7.5
BASE_PYTHON=${SP_BASE_PYTHON:-python3}
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

# Run a command with its output in $LOG; on failure print the log and stop.
quietly() {
    if ! "$@" >"$LOG" 2>&1; then
        echo "setup-env: failed: $*" >&2
        cat "$LOG" >&2
        exit 1
    fi
}

have() { command -v "$1" >/dev/null 2>&1; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
fi

# --- Debian packages --------------------------------------------------------
packages=()
have h5dump || packages+=(hdf5-tools)
have gfortran || packages+=(gfortran)
if ! have h5cc && ! pkg-config --exists hdf5-serial 2>/dev/null && ! pkg-config --exists hdf5 2>/dev/null; then
    packages+=(libhdf5-dev)
fi
have musl-gcc || packages+=(musl-tools)
# Needed to build the reference's examples; present on most machines already.
have make || packages+=(make)
have cc || packages+=(gcc)
have pkg-config || packages+=(pkg-config)
# The page's wasm is inlined as an .lzma stream made by xz (scripts/build-web.sh).
have xz || packages+=(xz-utils)
# The aarch64 static binary runs the golden conversions under qemu (scripts/check-aarch64.sh).
have qemu-aarch64-static || [ "$(uname -m)" = aarch64 ] || packages+=(qemu-user-static)
if ! have "$BASE_PYTHON"; then
    packages+=(python3 python3-venv)
elif ! "$BASE_PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    packages+=(python3-venv)
fi
if [ "${#packages[@]}" -gt 0 ]; then
    echo "setup-env: apt-get install ${packages[*]}"
    export DEBIAN_FRONTEND=noninteractive
    quietly $SUDO apt-get update
    quietly $SUDO apt-get install -y "${packages[@]}"
fi

# --- Python venv with the reference -----------------------------------------
# The reference's extras, for the tests that compare with its plot data (pandas,
# matplotlib, maxplotlibx), its terminal UI (textual) and Extra-P's scaling models.
# scipy checks the noise-aware check's Welch p-values (src/analysis/compare/noise.rs).
# mcp is the reference's MCP server, whose tool schemas tests/mcp.rs compares; the reference
# (0.7.5) imports mcp.server.fastmcp, which mcp 2 renamed, so it stays on mcp 1.
REF_EXTRAS=(pandas matplotlib maxplotlibx textual extrap scipy "mcp<2")
venv_ok() {
    [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "$SP_REF_VERSION" >/dev/null 2>&1 <<'EOF'
import sys
from importlib.metadata import version
import h5py, hdf5plugin, netCDF4, scope_profiler  # noqa: F401
import pandas, matplotlib, maxplotlib, textual, extrap, scipy, mcp  # noqa: F401
from mcp.server.fastmcp import FastMCP  # noqa: F401
sys.exit(0 if version("scope-profiler") == sys.argv[1] else 1)
EOF
}
if ! venv_ok; then
    echo "setup-env: python venv $VENV with scope-profiler==$SP_REF_VERSION, h5py, hdf5plugin, netCDF4 and the reference's extras"
    if [ ! -x "$VENV/bin/python" ]; then
        quietly "$BASE_PYTHON" -m venv "$VENV"
    fi
    quietly "$VENV/bin/python" -m pip install --disable-pip-version-check --no-cache-dir \
        "scope-profiler==$SP_REF_VERSION" h5py hdf5plugin netCDF4 \
        "${REF_EXTRAS[@]}"
    if ! venv_ok; then
        echo "setup-env: $VENV still does not import scope_profiler $SP_REF_VERSION, h5py, hdf5plugin, netCDF4 and ${REF_EXTRAS[*]}" >&2
        exit 1
    fi
fi

# --- Rust targets -------------------------------------------------------------
if have rustup; then
    installed=$(rustup target list --installed)
    targets=()
    for t in x86_64-unknown-linux-musl aarch64-unknown-linux-musl wasm32-unknown-unknown; do
        grep -qx "$t" <<<"$installed" || targets+=("$t")
    done
    if [ "${#targets[@]}" -gt 0 ]; then
        echo "setup-env: rustup target add ${targets[*]}"
        quietly rustup target add "${targets[@]}"
    fi
else
    echo "setup-env: rustup not found; install Rust (rustup) first" >&2
    exit 1
fi

# --- robustness (issue 12): the libhdf5 version matrix's venvs -------------------------
# One venv per libhdf5 version (h5py wheels bundling 1.12, 1.14, 2.0) under target/matrix/,
# made once and reused; tests/version_matrix.rs calls the same script.
if ! "$REPO/scripts/matrix-venvs.sh" >"$LOG" 2>&1; then
    echo "setup-env: failed: scripts/matrix-venvs.sh" >&2
    cat "$LOG" >&2
    exit 1
fi

# --- The browser page's tests (web/e2e) ---------------------------------------------
# Debian's chromium, which Playwright drives (no browser is downloaded), and the pinned
# playwright-core of web/e2e/package-lock.json in web/e2e/node_modules (gitignored).
if [ ! -x /usr/bin/chromium ]; then
    echo "setup-env: apt-get install chromium"
    export DEBIAN_FRONTEND=noninteractive
    quietly $SUDO apt-get update
    quietly $SUDO apt-get install -y chromium
fi
if ! have node || ! have npm; then
    echo "setup-env: node and npm are needed for the browser page's tests (web/e2e)" >&2
    exit 1
fi
# `npm ci` in DIR unless its node_modules holds PACKAGE at the version package.json pins:
# playwright-core for web/e2e, and the page's minifier, terser, for scripts/build-web.sh.
npm_pinned() {
    local dir="$REPO/$1" package=$2 pinned installed
    pinned=$(node -p "require('$dir/package.json').devDependencies['$package']")
    installed=$(node -p "try { require('$dir/node_modules/$package/package.json').version } catch { '' }")
    if [ "$pinned" != "$installed" ]; then
        echo "setup-env: npm ci in $1 ($package $pinned)"
        (cd "$dir" && quietly npm ci --no-audit --no-fund)
    fi
}
npm_pinned web/e2e playwright-core
npm_pinned web/minify terser
