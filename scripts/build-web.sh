#!/usr/bin/env bash
# Builds the browser page: one self-contained file, web/dist/sp.html, that works offline
# from file:// (the wasm is inlined as an .lzma stream, in base64; the worker is a Blob URL;
# no network).
#
#   scripts/build-web.sh            build and print the page's size
#
# Needs only cargo with the wasm32-unknown-unknown target (scripts/setup-env.sh adds it),
# xz, base64 and awk. The wasm is built with the `wasm-release` profile of Cargo.toml.
# Fails if the page grows past its budget: 1.5 MB, 500 KB gzipped. build.rs runs it to carry
# the page inside a release binary, with SP_WEB_OUT (where to write the page) and
# SP_WEB_BUDGET=off (the budget is the shipped page's, checked by the release build).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET_DIR=${CARGO_TARGET_DIR:-target}
PAGE=web/page
OUT=${SP_WEB_OUT:-web/dist/sp.html}
MAX_BYTES=1500000
MAX_GZIP=500000

# Panic locations name each dependency's source file under cargo's registry: with its
# directory (machine- and registry-specific) cut to the crate's name they are shorter, and
# the page names no path of the machine it was built on (0.3 KB of the gzip).
flags=()
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
for dir in "$registry"/*/; do
  [ -d "$dir" ] && flags+=("--remap-path-prefix=$dir=")
done
flags+=("--remap-path-prefix=$PWD/=")
CARGO_ENCODED_RUSTFLAGS=$(IFS=$'\x1f'; echo "${flags[*]}") \
  cargo build --quiet -p sp-web --target wasm32-unknown-unknown --profile wasm-release
wasm="$TARGET_DIR/wasm32-unknown-unknown/wasm-release/sp_web.wasm"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# As an .lzma stream, which web/page/lzma.js unpacks in the worker: 372 KB where zopfli's
# gzip (which the browser would inflate natively) is 462 KB, for 1 KB of decoder. lc=4 and
# pb=0 suit wasm's bytes (0.8 KB smaller than the defaults).
if ! command -v xz >/dev/null; then
  echo "build-web: xz not found (scripts/setup-env.sh installs xz-utils)" >&2
  exit 1
fi
xz --format=lzma --lzma1=preset=9e,lc=4,pb=0 -c "$wasm" >"$work/wasm.lzma"
# xz writes the unpacked size as unknown; the decoder sizes its output by the header's, so
# it goes there (bytes 5-12, little-endian).
size_le=$(printf '%016x' "$(wc -c <"$wasm")" | sed 's/../& /g' | awk '{ for (i = NF; i > 0; i--) printf "\\x%s", $i }')
printf "$size_le" | dd of="$work/wasm.lzma" bs=1 seek=5 conv=notrunc status=none
base64 -w0 "$work/wasm.lzma" >"$work/wasm.b64"

# The scripts minified by terser (web/minify, which scripts/setup-env.sh installs): 3 KB of
# the page's gzip. Each file on its own, with top-level names kept, since the page's scripts
# share one scope. Without terser the page is built from the sources, a few KB larger.
terser=web/minify/node_modules/.bin/terser
mkdir "$work/min"
if [ -x "$terser" ]; then
  for js in "$PAGE"/*.js; do
    "$terser" "$js" --compress --mangle --comments false -o "$work/min/$(basename "$js")"
  done
else
  echo "build-web: terser not found (scripts/setup-env.sh installs it in web/minify); the page's scripts are not minified" >&2
fi
# The worker carries the decoder of its module.
min() { if [ -f "$work/min/$1" ]; then cat "$work/min/$1"; else cat "$PAGE/$1"; fi; }
{ min lzma.js; echo; min worker.js; } >"$work/worker.src.js"
worker="$work/worker.src.js"

# Inline the worker's wasm, then every `@include FILE@` line of the template, without the
# scripts' and the style's whole-line comments (no script has a string that spans lines).
awk -v b64="$work/wasm.b64" '
  BEGIN { getline wasm < b64 }
  { gsub(/@WASM_BASE64@/, wasm); print }
' "$worker" >"$work/worker.js"
awk -v page="$PAGE" -v work="$work" -v minified="$([ -x "$terser" ] && echo 1)" '
  /^@include [^@]+@$/ {
    name = substr($0, 10, length($0) - 10)
    file = (name == "worker.js") ? work "/worker.js" : page "/" name
    js = name ~ /\.js$/; css = name ~ /\.css$/
    # A minified script goes in as terser wrote it.
    if (js && minified) {
      if (name != "worker.js") file = work "/min/" name
      js = 0
    }
    while ((getline line < file) > 0) {
      # Whole-line comments stay in the sources, not in the page (6 KB of its gzip).
      if (js && line ~ /^[ \t]*\/\//) continue
      if (css && line ~ /^[ \t]*\/\*.*\*\/[ \t]*$/) continue
      # Nor their indentation and blank lines (no string spans lines, and the page has no
      # <pre>): 0.8 KB of the gzip.
      if (js || css) { sub(/^[ \t]+/, "", line); if (line == "") continue }
      # And a comment after code with no string, template or regex before it.
      if (js && line ~ /^[^\047"`\/]*[;{},)] +\/\/ /) sub(/ +\/\/ .*$/, "", line)
      print line
    }
    close(file)
    next
  }
  { sub(/^[ \t]+/, ""); print }
' "$PAGE/index.html" >"$work/sp.html"

if grep -q '@include\|@WASM_BASE64@' "$work/sp.html"; then
  echo "build-web: a placeholder was left in the page" >&2
  exit 1
fi
mkdir -p "$(dirname "$OUT")"
mv "$work/sp.html" "$OUT.tmp"
mv "$OUT.tmp" "$OUT"

bytes=$(wc -c <"$OUT")
gz=$(gzip -9c "$OUT" | wc -c)
wasm_bytes=$(wc -c <"$wasm")
echo "build-web: $OUT: $bytes bytes ($gz gzipped); wasm $wasm_bytes bytes"
if [ "${SP_WEB_BUDGET:-on}" != off ] && { [ "$bytes" -gt "$MAX_BYTES" ] || [ "$gz" -gt "$MAX_GZIP" ]; }; then
  echo "build-web: the page is over its budget ($MAX_BYTES bytes, $MAX_GZIP gzipped)" >&2
  exit 1
fi
