#!/usr/bin/env bash
# Release archives: dist/sp-VERSION-x86_64-linux-musl.tar.gz and
# dist/sp-VERSION-aarch64-linux-musl.tar.gz, each holding the static binary, sp.html, the
# man pages, the bash/zsh/fish completions, README.md, the licences and SHA256SUMS over them.
#
#   scripts/release.sh             build the page, then both binaries (each carries the page),
#                                  then write dist/
#   scripts/release.sh --binaries  build the two static binaries only
#   scripts/release.sh --page      build web/dist/sp.html only, as a release has it
#   scripts/release.sh --pack      write dist/ from binaries and page already built
#   scripts/release.sh --check     pack twice from the built files and compare the bytes
#   scripts/release.sh --files [SP] list an archive's files (SP names the subcommands)
#
# Reproducible: the binaries are built with the paths of this machine remapped (the
# checkout and $CARGO_HOME, whose crate sources panic messages name), and the archives have
# sorted entries, owner 0, every mtime at SOURCE_DATE_EPOCH (the commit's time unless set)
# and a gzip header without name or time. docs/install.md has the checks and their times.
# Needs the rustup targets x86_64-unknown-linux-musl, aarch64-unknown-linux-musl (linked by
# rust-lld, .cargo/config.toml) and wasm32-unknown-unknown, musl-gcc and GNU tar.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl)
TARGET_DIR=${CARGO_TARGET_DIR:-target}
VERSION=$(awk -F'"' '/^version *=/ { print $2; exit }' Cargo.toml)
CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

# The same flags for every release build, so two builds anywhere give the same bytes.
# Separated by 0x1f, as CARGO_ENCODED_RUSTFLAGS wants (a path may hold spaces).
release_flags() {
  printf '%s\x1f%s' "--remap-path-prefix=$PWD=/sp" "--remap-path-prefix=$CARGO_HOME=/cargo"
}

# `sp-VERSION-x86_64-linux-musl` for the rustup target x86_64-unknown-linux-musl.
archive_name() { echo "sp-$VERSION-${1%%-*}-linux-musl"; }

timed() {
  local start=$SECONDS
  "$@"
  echo "release: $* took $((SECONDS - start)) s" >&2
}

# Each binary carries the page the archive ships (build.rs, SP_PAGE_BUILD), built first.
build_binary() {
  SP_PAGE_BUILD="$PWD/web/dist/sp.html" CARGO_ENCODED_RUSTFLAGS=$(release_flags) \
    cargo build --quiet --release --locked --target "$1"
}

# The page's wasm names crate sources in its panic messages too: the same remapping.
build_page() { CARGO_ENCODED_RUSTFLAGS=$(release_flags) scripts/build-web.sh; }

build_binaries() {
  [ -f web/dist/sp.html ] || timed build_page
  for target in "${TARGETS[@]}"; do timed build_binary "$target"; done
  page_inside "$TARGET_DIR/x86_64-unknown-linux-musl/release/sp"
}

# Fails unless binary $1, alone in a directory and with no $SP_PAGE, writes a report: the
# page is inside it.
page_inside() {
  local lone golden="$PWD/tests/golden/synthetic/expected/golden.h5"
  lone=$(mktemp -d)
  cp "$1" "$lone/sp"
  if ! (cd "$lone" && env -u SP_PAGE ./sp report "$golden" -o r.html) ||
    ! grep -q 'application/x-sp-profile' "$lone/r.html"; then
    rm -rf "$lone"
    echo "release: $1 does not carry the page" >&2
    return 1
  fi
  rm -rf "$lone"
  echo "release: $1 carries the page"
}

# The subcommands that binary $1 lists in its --help (each has a man page).
subcommands() {
  "$1" --help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on && $1 != "help" { print $1 }'
}

# The paths of an archive's files under its top directory, sorted; $1 is an sp binary that
# names the subcommands. stage() writes exactly these; packaging/ installs each of them.
archive_files() {
  {
    printf '%s\n' sp sp.html README.md LICENSE-MIT LICENSE-APACHE SHA256SUMS man/man1/sp.1
    subcommands "$1" | sed 's|.*|man/man1/sp-&.1|'
    printf '%s\n' completions/sp.bash completions/_sp completions/sp.fish
  } | LC_ALL=C sort
}

# Fills directory $2 with the files of target $1's archive.
stage() {
  local target=$1 dir=$2 bin="$TARGET_DIR/$1/release/sp" host="$TARGET_DIR/x86_64-unknown-linux-musl/release/sp"
  for file in "$bin" "$host" web/dist/sp.html; do
    [ -f "$file" ] || { echo "release: $file is missing (run scripts/release.sh)" >&2; exit 1; }
  done
  rm -rf "$dir"
  mkdir -p "$dir/man/man1" "$dir/completions"
  cp "$bin" "$dir/sp"
  cp web/dist/sp.html README.md LICENSE-MIT LICENSE-APACHE "$dir/"
  # The pages and completions are text made by the x86-64 binary (the same on every target).
  "$host" man >"$dir/man/man1/sp.1"
  for sub in $(subcommands "$host"); do
    "$host" man "$sub" >"$dir/man/man1/sp-$sub.1"
  done
  "$host" completions bash >"$dir/completions/sp.bash"
  "$host" completions zsh >"$dir/completions/_sp"
  "$host" completions fish >"$dir/completions/sp.fish"
  (cd "$dir" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | xargs sha256sum >SHA256SUMS)
  if ! diff <(cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) <(archive_files "$host") >&2; then
    echo "release: $dir does not hold the files archive_files lists" >&2
    exit 1
  fi
}

# Packs directory $1 (its last component is the archive's top directory) into $2.
pack() {
  local dir=$1 out=$2
  # Modes fixed too: a umask or a checkout's permissions must not change the bytes.
  chmod -R u=rwX,go=rX "$dir"
  chmod 755 "$dir/sp"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    --format=gnu -C "$(dirname "$dir")" -cf - "$(basename "$dir")" |
    gzip -9 -n >"$out.tmp"
  mv "$out.tmp" "$out"
}

# The packaging files with this release's checksums filled in (packaging/README.md):
# dist/easybuild/sp-VERSION.eb and dist/spack/sp/package.py.
package_files() {
  local sums=()
  for target in "${TARGETS[@]}"; do
    sums+=(-e "s/@SHA256_${target%%-*}@/$(sha256sum "dist/$(archive_name "$target").tar.gz" | cut -d' ' -f1)/")
  done
  mkdir -p dist/easybuild dist/spack/sp
  sed "${sums[@]}" "packaging/easybuild/sp-$VERSION.eb" >"dist/easybuild/sp-$VERSION.eb"
  sed "${sums[@]}" packaging/spack/package.py >dist/spack/sp/package.py
  echo "release: dist/easybuild/sp-$VERSION.eb and dist/spack/sp/package.py with the archives' sha256"
}

pack_all() {
  mkdir -p dist
  for target in "${TARGETS[@]}"; do
    local name
    name=$(archive_name "$target")
    stage "$target" "dist/$name"
    pack "dist/$name" "dist/$name.tar.gz"
    echo "release: dist/$name.tar.gz $(wc -c <"dist/$name.tar.gz") bytes, sha256 $(sha256sum "dist/$name.tar.gz" | cut -d' ' -f1)"
  done
  package_files
}

# Stages and packs every archive twice, in two scratch directories, and compares the bytes.
check() {
  local target name
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  for target in "${TARGETS[@]}"; do
    name=$(archive_name "$target")
    for round in 1 2; do
      stage "$target" "$work/$round/$name"
      # Another mtime and mode on the second round must not show in the bytes.
      [ "$round" = 1 ] || { touch -d @1 "$work/2/$name/sp.html"; chmod 600 "$work/2/$name/README.md"; }
      pack "$work/$round/$name" "$work/$round/$name.tar.gz"
    done
    cmp "$work/1/$name.tar.gz" "$work/2/$name.tar.gz"
    echo "release: $name.tar.gz packs to the same bytes twice"
  done
}

case ${1:-} in
  "")
    timed build_page
    build_binaries
    timed pack_all
    ;;
  --binaries) build_binaries ;;
  --page) timed build_page ;;
  --pack) timed pack_all ;;
  --check) check ;;
  --files) archive_files "${2:-$TARGET_DIR/x86_64-unknown-linux-musl/release/sp}" ;;
  *)
    echo "usage: scripts/release.sh [--binaries | --page | --pack | --check | --files [SP]]" >&2
    exit 2
    ;;
esac
