#!/usr/bin/env bash
# Runs two sp binaries' `sp convert` on the same inputs and compares what they write byte for
# byte: the output file, stdout (the summary table and `wrote` line), stderr and the exit
# status, plain and with --compress. Cases: every golden case (tests/golden/*/case.txt, run
# as tests/golden.rs runs it, so the .h5 inputs and --merge too), the shipped examples, W1,
# and a few failures (a missing input, a truncated trace, two inputs of one rank).
#
#   scripts/compare-convert.sh OLD_SP NEW_SP [WORKDIR]
#
# W1 is generated with `sp-workload` (built with cargo) unless WORKDIR/w1 already holds it.
# Extra cases: set EXTRA_INPUTS to directories of inputs to convert as well.
# Exit status 0 when everything is identical, 1 when anything differs.
set -uo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_SP NEW_SP [WORKDIR]" >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"
work=$(realpath "$work")

compared=0
differences=0

# run_case NAME DIR OUTPUT ARGS...: runs `sp convert ARGS... -o SIDE/NAME/OUTPUT` in DIR with
# both binaries, then compares the file, stdout, stderr and status.
run_case() {
  local name=$1 dir=$2 output=$3
  shift 3
  local side bin out
  for side in old new; do
    bin=$old
    [ $side = new ] && bin=$new
    out="$work/$side/$name"
    rm -rf "$out"
    mkdir -p "$out"
    (cd "$dir" && "$bin" convert "$@" -o "$out/$output" >"$out/stdout" 2>"$out/stderr"
    echo $? >"$out/status")
    # The output path differs between the sides; the rest of the line must not.
    sed -i "s|$work/$side/|SIDE/|g" "$out/stdout" "$out/stderr"
  done
  compared=$((compared + 1))
  local part
  for part in status stdout stderr "$output"; do
    local a="$work/old/$name/$part" b="$work/new/$name/$part"
    if [ -e "$a" ] || [ -e "$b" ]; then
      if ! cmp -s "$a" "$b"; then
        echo "DIFFERENT $part: $name"
        differences=$((differences + 1))
        return
      fi
    fi
  done
  echo "same: $name ($(cat "$work/old/$name/status"), $(stat -c %s "$work/old/$name/$output" 2>/dev/null || echo no) bytes)"
}

for case_dir in "$repo"/tests/golden/*/; do
  [ -f "$case_dir/case.txt" ] || continue
  case=$(basename "$case_dir")
  inputs=$(sed -n 1p "$case_dir/case.txt")
  output=$(sed -n 2p "$case_dir/case.txt")
  extra=$(sed -n 3p "$case_dir/case.txt")
  # shellcheck disable=SC2086
  run_case "golden-$case" "$case_dir" "$output" $inputs $extra
  # shellcheck disable=SC2086
  run_case "golden-$case-compress" "$case_dir" "$output" $inputs $extra --compress
  # shellcheck disable=SC2086
  run_case "golden-$case-quiet" "$case_dir" "$output" $inputs $extra -q --compress=1
done

for ex in "$repo"/examples/*/; do
  name=$(basename "$ex")
  run_case "example-$name" "$repo" "$name.h5" "$ex"
  run_case "example-$name-compress" "$repo" "$name.h5" "$ex" --compress
  run_case "example-$name-label" "$repo" "$name.h5" "$ex" --label "a label" -q
done

if [ ! -d "$work/w1" ]; then
  (cd "$repo" && cargo run --quiet --release -p sp-bench --bin sp-workload -- W1 "$work/w1") \
    || exit 1
fi
run_case "w1" "$work" "w1.h5" "$work/w1" -q
run_case "w1-compress" "$work" "w1.h5" "$work/w1" -q --compress

for extra_dir in ${EXTRA_INPUTS:-}; do
  name=$(basename "$extra_dir")
  run_case "extra-$name" "$work" "$name.h5" "$extra_dir" -q
  run_case "extra-$name-compress" "$work" "$name.h5" "$extra_dir" -q --compress
done

# Failures: the message and status are behaviour too.
bad="$work/bad"
rm -rf "$bad"
mkdir -p "$bad/truncated" "$bad/duplicate"
trace="$repo/examples/c_multirank/run_rank00001.spt"
head -c 200 "$trace" >"$bad/truncated/run_rank00001.spt"
cp "$repo/examples/c_multirank/run_rank00000.spt" "$bad/truncated/"
cp "$trace" "$bad/duplicate/a_rank00001.spt"
cp "$trace" "$bad/duplicate/b_rank00001.spt"
run_case "missing-input" "$bad" "out.h5" "$bad/nosuch.spt"
run_case "truncated-trace" "$bad" "out.h5" "$bad/truncated"
run_case "duplicate-rank" "$bad" "out.h5" "$bad/duplicate"
run_case "duplicate-rank-h5" "$repo" "out.h5" "$repo/examples/c_hdf5_multirank" \
  "$repo/examples/c_hdf5_multirank/run_rank00001.h5" "$bad/duplicate/a_rank00001.spt"
run_case "merge-clash" "$repo/tests/golden/merge_gzip" "out.h5" inputs/run_rank00000.spt \
  --merge "$repo/tests/golden/merge_gzip/expected/merged.h5"

echo "compared $compared conversions: $differences differences"
[ "$differences" -eq 0 ]
