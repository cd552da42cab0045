#!/usr/bin/env bash
# Fuzz the targets, each seeded from the repository's golden and corpus files, with one
# worker, as many targets at a time as the machine has cores, and print each run's final
# figures. A crash, a run over 10 s or a
# single allocation over 256 MiB stops that target and leaves its input in
# fuzz/artifacts/<target>/; inputs over 2 s are kept there too (slow-unit-*) and counted,
# to be re-timed on an idle machine (the machine is shared, so 2 s is no hard stop).
#
#   fuzz/campaign.sh SECONDS [TARGET...]     default: every target in fuzz/Cargo.toml
#
# Environment: CARGO_FUZZ (default: cargo-fuzz on PATH, else target/tools/bin/cargo-fuzz,
# installed there if missing); SP_FUZZ_JOBS, targets run at once (default: the number of
# cores). Logs go to fuzz/logs/<target>.log.
set -euo pipefail
FUZZ=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$FUZZ")
seconds=${1:?usage: fuzz/campaign.sh SECONDS [TARGET...]}
shift
if [ "$#" -eq 0 ]; then
    set -- $(sed -n 's/^name = "\(.*\)"$/\1/p' "$FUZZ/Cargo.toml" | grep -v '^sp-fuzz$')
fi

tools="$REPO/target/tools"
if [ -z "${CARGO_FUZZ:-}" ]; then
    if command -v cargo-fuzz >/dev/null 2>&1; then
        CARGO_FUZZ=cargo-fuzz
    else
        CARGO_FUZZ="$tools/bin/cargo-fuzz"
        if [ ! -x "$CARGO_FUZZ" ]; then
            echo "campaign: installing cargo-fuzz under target/tools"
            # An unoptimised build: it only drives the fuzzer, and builds in half the time.
            cargo install cargo-fuzz --locked --debug --root "$tools" --quiet
        fi
    fi
fi
export RUSTC_BOOTSTRAP=1
# The fuzz targets are the library's: no page built into them (build.rs), and no wasm build
# under the sanitizer's flags.
export SP_PAGE_BUILD=off

# The seeds of a target: traces for the trace targets, HDF5 files for the rest.
seed() {
    local target=$1 dir="$FUZZ/corpus/$1"
    mkdir -p "$dir"
    case "$target" in
    trace_*)
        cp -n "$REPO"/tests/golden/*/inputs/*.spt "$REPO"/examples/*/*.spt \
            "$REPO"/src/trace/testdata/*.spt "$dir"/ 2>/dev/null || true
        ;;
    *)
        cp -n "$REPO"/tests/corpus/*.h5 "$REPO"/tests/corpus/golden/*.h5 \
            "$REPO"/examples/c_hdf5_multirank/*.h5 "$dir"/ 2>/dev/null || true
        for f in "$REPO"/tests/golden/*/expected/*.h5 "$REPO"/tests/golden/*/inputs/*.h5; do
            case_name=$(basename "$(dirname "$(dirname "$f")")")
            cp -n "$f" "$dir/${case_name}_$(basename "$f")"
        done
        ;;
    esac
}

mkdir -p "$FUZZ/logs"
cd "$FUZZ"
"$CARGO_FUZZ" build -O >"$FUZZ/logs/build.log" 2>&1 || {
    cat "$FUZZ/logs/build.log" >&2
    exit 1
}
# One target's run; its one-line result goes to stdout and the summary.
fuzz_one() {
    local target=$1 log="$FUZZ/logs/$1.log" result execs cov ft corpus slow
    mkdir -p "$FUZZ/artifacts/$target"
    if "$CARGO_FUZZ" run -O "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -timeout=10 -report_slow_units=2 \
        -malloc_limit_mb=256 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1; then
        result=ok
    else
        result=FAILED
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o "cov: [0-9]*" "$log" | tail -1 || true)
    ft=$(grep -o "ft: [0-9]*" "$log" | tail -1 || true)
    corpus=$(find "corpus/$target" -type f | wc -l)
    slow=$(find "artifacts/$target" -name 'slow-unit-*' | wc -l)
    echo "$target: $result, ${seconds}s, ${execs:-?} execs, ${cov:-cov: ?}, ${ft:-ft: ?}, corpus $corpus, slow $slow" | tee -a "$FUZZ/logs/summary.txt"
    if [ "$result" = FAILED ]; then
        grep -E '^(==[0-9]+==|SUMMARY|.*panicked)' "$log" | head -5 >&2 || true
        ls "$FUZZ/artifacts/$target" >&2
        return 1
    fi
}

# Each target is single-threaded, so the cores run as many side by side.
jobs=${SP_FUZZ_JOBS:-$(nproc)}
status=0
running=0
for target in "$@"; do
    seed "$target"
    if [ "$running" -ge "$jobs" ]; then
        wait -n || status=1
        running=$((running - 1))
    fi
    fuzz_one "$target" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n || status=1
    running=$((running - 1))
done
exit "$status"
