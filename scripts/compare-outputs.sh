#!/usr/bin/env bash
# Runs two sp binaries on the same inputs and compares every output byte for byte: stdout,
# stderr and exit status of `sp inspect` (table at two widths, CSV, JSON, several option
# sets), `sp export` (chrome-trace, speedscope, json), `sp ls`, and the files `sp convert`
# writes, on every golden profile, the shipped examples and the W1 workload. A refactoring
# that must not change behaviour passes with zero differences.
#
#   scripts/compare-outputs.sh BEFORE_SP AFTER_SP [WORKDIR]
#
# W1 is generated with `sp-workload` (built with cargo) unless WORKDIR/w1 already holds it.
# Exit status 0 when everything is identical, 1 when anything differs.
set -uo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 BEFORE_SP AFTER_SP [WORKDIR]" >&2
  exit 2
fi
before=$(realpath "$1")
after=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"
work=$(realpath "$work")

# Inputs: the golden profiles (expected outputs and .h5 inputs), the corpus of the
# reference's outputs, the examples and W1 converted by the BEFORE binary.
inputs=()
for f in "$repo"/tests/golden/*/expected/*.h5 "$repo"/tests/golden/*/inputs/*.h5 \
  "$repo"/tests/corpus/golden/*.h5; do
  inputs+=("$f")
done
mkdir -p "$work/converted"
for ex in "$repo"/examples/*/; do
  name=$(basename "$ex")
  "$before" convert "$ex" -o "$work/converted/$name.h5" -q || exit 1
  inputs+=("$work/converted/$name.h5")
done
if [ ! -d "$work/w1" ]; then
  (cd "$repo" && cargo run --quiet --release -p sp-bench --bin sp-workload -- W1 "$work/w1") \
    || exit 1
fi
"$before" convert "$work/w1" -o "$work/converted/w1.h5" -q || exit 1
inputs+=("$work/converted/w1.h5")

# Every command, with {} standing for the input and {out} for an output file.
inspect_sets=(
  ""
  "--flat"
  "--flat --from-events"
  "--sort total --ranks 1"
  "--percentage-mode exclusive --sort name"
  "--include s.* A --exclude .*x"
  "--sort p95 --ranks 0 2"
  "--flat --sort imbalance"
  "--columns region ranks calls total percent parent_percent avg gpu_total gpu_avg min max first last std p50 p95 p99 imbalance"
  "--metadata-only"
  "--regions-only --full"
)

differences=0
compared=0

# run_both LABEL ARGS...: runs both binaries (stdout, stderr, status) and compares.
run_both() {
  local label=$1
  shift
  local side bin
  for side in before after; do
    bin=$before
    [ $side = after ] && bin=$after
    mkdir -p "$work/$side"
    (cd "$work/$side" && COLUMNS=${COLUMNS_FOR_RUN:-100} "$bin" "$@" \
      >"$work/$side/stdout" 2>"$work/$side/stderr"
    echo $? >"$work/$side/status")
  done
  compared=$((compared + 1))
  local part
  for part in stdout stderr status; do
    if ! cmp -s "$work/before/$part" "$work/after/$part"; then
      echo "DIFFERENT $part: $label"
      differences=$((differences + 1))
      return
    fi
  done
  # Files the command wrote (export/convert outputs) must be identical as well.
  if [ -e "$work/before/out" ] || [ -e "$work/after/out" ]; then
    if ! cmp -s "$work/before/out" "$work/after/out"; then
      echo "DIFFERENT output file: $label"
      differences=$((differences + 1))
    fi
    rm -f "$work/before/out" "$work/after/out"
  fi
}

for f in "${inputs[@]}"; do
  rel=${f#"$repo"/}
  for set in "${inspect_sets[@]}"; do
    # shellcheck disable=SC2086
    for format in table csv json; do
      run_both "inspect $rel $set --format $format" inspect "$f" $set --format "$format"
    done
    # shellcheck disable=SC2086
    COLUMNS_FOR_RUN=60 run_both "inspect $rel $set (60 columns)" inspect "$f" $set
  done
  run_both "inspect $rel --format csv --percentage-mode exclusive" \
    inspect "$f" --format csv --percentage-mode exclusive
  for format in chrome-trace speedscope json; do
    run_both "export $format $rel" export "$format" "$f" -o out
    run_both "export $format $rel --ranks 0" export "$format" "$f" -o out --ranks 0
  done
  run_both "ls $rel" ls "$f"
  run_both "ls $rel --json" ls "$f" --json
done

# Several files at once, and the errors (wording and status are behaviour too).
golden_h5="$repo/tests/golden/synthetic/expected/golden.h5"
mixed_h5="$repo/tests/golden/mixed/expected/merged.h5"
for format in table csv json; do
  run_both "inspect two files --format $format" inspect "$golden_h5" "$mixed_h5" --format "$format"
done
printf 'not hdf5' >"$work/plain.txt"
run_both "inspect a missing file" inspect "$work/nosuch.h5"
run_both "inspect a text file" inspect "$work/plain.txt"
run_both "inspect a plain HDF5 file" inspect "$repo/tests/corpus/types_earliest.h5"
run_both "inspect bad ranks" inspect "$golden_h5" --ranks 3-1
run_both "inspect bad pattern" inspect "$golden_h5" --include "("
run_both "inspect no summary" inspect "$repo/tests/golden/fortran/inputs" --flat
run_both "inspect bad option" inspect "$golden_h5" --sort nonsense
run_both "export a missing file" export json "$work/nosuch.h5" -o out
run_both "export to a missing directory" export json "$golden_h5" -o missing/out.json
run_both "export bad ranks" export json "$golden_h5" -o out --ranks x
for ex in "$repo"/examples/*/; do
  run_both "convert $(basename "$ex")" convert "$ex" -o out
  run_both "convert $(basename "$ex") --compress" convert "$ex" -o out --compress
done
run_both "convert w1" convert "$work/w1" -o out
run_both "convert a missing input" convert "$work/nosuch.spt"

echo "compared $compared runs: $differences differences"
[ "$differences" -eq 0 ]
