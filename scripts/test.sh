#!/usr/bin/env bash
# The whole test suite, runnable on a fresh machine: installs what the tests need (Debian
# tools, the Python reference in .venv, rustup targets), then runs every check CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step prints how long the one before it took, so CI's time budget can be read off a log.
last=$SECONDS
step() {
  printf '\n== [%ds, +%ds] %s\n' "$SECONDS" $((SECONDS - last)) "$*"
  last=$SECONDS
}

step "setting up the test environment"
scripts/setup-env.sh
export SP_PYTHON="$PWD/.venv/bin/python"

step "formatting and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings

step "tests"
cargo test --workspace

step "the library builds for WebAssembly, with the test that drives every front end through it"
cargo build --lib --no-default-features --target wasm32-unknown-unknown
cargo test -p sp-front-ends --no-run --target wasm32-unknown-unknown

# build.rs builds the page into the release binaries (in target/page; the page step below
# reuses that build), and the browser tests check a lone binary writes a report with it.
step "static musl release build passes the golden tests"
cargo build --release --target x86_64-unknown-linux-musl
musl_bin=target/x86_64-unknown-linux-musl/release/sp
if readelf -l "$musl_bin" | grep -q 'INTERP\|Requesting program interpreter'; then
  echo "error: $musl_bin is dynamically linked" >&2
  exit 1
fi
if readelf -d "$musl_bin" 2>/dev/null | grep -q NEEDED; then
  echo "error: $musl_bin needs shared libraries" >&2
  exit 1
fi
echo "$musl_bin is statically linked"
SP_BIN="$PWD/$musl_bin" cargo test --test golden

# The aarch64 release build is most of this step's time (docs/install.md has the figures).
step "static aarch64 build writes the same bytes as x86-64 (every golden conversion, under qemu)"
cargo build --release --target aarch64-unknown-linux-musl
scripts/check-aarch64.sh "$musl_bin" target/aarch64-unknown-linux-musl/release/sp

# --- The browser page (web/): its wasm linted, the page built, then driven in chromium ---
step "browser page: build web/dist/sp.html and run its Playwright tests over file://"
cargo clippy -p sp-web --target wasm32-unknown-unknown -- -D warnings
CARGO_TARGET_DIR=target/page scripts/build-web.sh
SP_BIN="$PWD/$musl_bin" npm --prefix web/e2e test
# --- end of the browser page's block ---

step "benchmark harness, quick mode (tiny workloads; checks both tools agree, no targets)"
"$SP_PYTHON" bench/compare.py --quick --sp "$PWD/$musl_bin"

# --- robustness (issue 12): fuzz every target for half a minute ----------------------
# cargo-fuzz is installed once under target/tools; fuzz/campaign.sh seeds each target from
# the golden and corpus files and fails on a crash, a run over 10 s or an allocation over
# 256 MiB (the long campaign and its figures: fuzz/README.md).
step "fuzz targets, 30 s each"
SP_FUZZ_SECONDS=${SP_FUZZ_SECONDS:-30}
fuzz/campaign.sh "$SP_FUZZ_SECONDS"
# --- end robustness ----------------------------------------------------------------------

step "all checks passed"
