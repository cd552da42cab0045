#!/usr/bin/env bash
# The aarch64 static binary writes the same bytes as the x86-64 one: every golden conversion
# that tests/golden.rs runs (tests/golden/*/case.txt) is run with both, the aarch64 binary
# under qemu-aarch64-static, and the two outputs are compared with cmp.
#
#   scripts/check-aarch64.sh [X86_64_SP [AARCH64_SP]]
#
# Defaults: the musl release binaries under target/ (scripts/release.sh --binaries builds
# them). Needs qemu-aarch64-static (Debian's qemu-user-static) unless the machine is aarch64.
set -euo pipefail
cd "$(dirname "$0")/.."

x86=$(realpath "${1:-target/x86_64-unknown-linux-musl/release/sp}")
arm=$(realpath "${2:-target/aarch64-unknown-linux-musl/release/sp}")
if [ "$(uname -m)" = aarch64 ]; then run_arm=("$arm"); else run_arm=(qemu-aarch64-static "$arm"); fi
for bin in "$x86" "$arm"; do
  if readelf -l "$bin" | grep -q INTERP || readelf -d "$bin" 2>/dev/null | grep -q NEEDED; then
    echo "check-aarch64: $bin is not statically linked" >&2
    exit 1
  fi
done
command -v "${run_arm[0]}" >/dev/null || { echo "check-aarch64: ${run_arm[0]} not found" >&2; exit 1; }
echo "check-aarch64: $("$x86" --version) | $("${run_arm[@]}" --version)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=0
for spec in tests/golden/*/case.txt; do
  dir=$(dirname "$spec")
  name=$(basename "$dir")
  # case.txt: the inputs, the output's name, then extra arguments (as tests/golden.rs reads it).
  { read -r -a inputs; read -r output; read -r -a extra || true; } <"$spec"
  mkdir -p "$work/x86/$name" "$work/arm/$name"
  (cd "$dir" && "$x86" convert "${inputs[@]}" -o "$work/x86/$name/$output" -q "${extra[@]}")
  (cd "$dir" && "${run_arm[@]}" convert "${inputs[@]}" -o "$work/arm/$name/$output" -q "${extra[@]}")
  if ! cmp "$work/x86/$name/$output" "$work/arm/$name/$output"; then
    echo "check-aarch64: $name: the aarch64 output differs from the x86-64 output" >&2
    exit 1
  fi
  cases=$((cases + 1))
done
[ "$cases" -gt 0 ] || { echo "check-aarch64: no golden cases found" >&2; exit 1; }
echo "check-aarch64: $cases golden conversions byte-identical on x86-64 and aarch64"
