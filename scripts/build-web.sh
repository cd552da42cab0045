#!/usr/bin/env bash
# Builds the browser page: one self-contained file, web/dist/sp.html, that works offline
# from file:// (the wasm is inlined gzipped, as base64; the worker is a Blob URL; no network).
#
#   scripts/build-web.sh            build and print the page's size
#
# Needs only cargo with the wasm32-unknown-unknown target (scripts/setup-env.sh adds it),
# gzip, base64 and awk. The wasm is built with the `wasm-release` profile of Cargo.toml.
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

cargo build --quiet -p sp-web --target wasm32-unknown-unknown --profile wasm-release
wasm="$TARGET_DIR/wasm32-unknown-unknown/wasm-release/sp_web.wasm"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Gzipped (the worker inflates it with the browser's DecompressionStream): a third of the size.
# zopfli writes the same gzip format 5 % smaller than gzip -9 (21 KB of the wasm's 456 KB),
# deterministically; scripts/setup-env.sh installs it.
if command -v zopfli >/dev/null; then
  zopfli -c "$wasm" | base64 -w0 >"$work/wasm.b64"
else
  echo "build-web: zopfli not found (scripts/setup-env.sh installs it); using gzip -9" >&2
  gzip -9 -n -c "$wasm" | base64 -w0 >"$work/wasm.b64"
fi

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
worker="$PAGE/worker.js"
[ -f "$work/min/worker.js" ] && worker="$work/min/worker.js"

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
