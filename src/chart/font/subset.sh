#!/bin/sh
# Regenerates Inter-Regular-subset.otf, the font sp embeds to draw text into PNGs, from
# Debian's fonts-inter package (Inter 3.019, OFL-1.1; see LICENSE.txt) with fontTools'
# pyftsubset (the .venv has it, through matplotlib). Kept: Basic Latin, Latin-1, Latin
# Extended-A, Greek, General Punctuation, Arrows and a few maths signs; no layout features
# (sp lays text out by advance widths alone), no hinting.
# Then `SP_BLESS=1 cargo test --lib chart::font` rewrites metrics.bin, the advances layout
# reads, from the new font.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download fonts-inter
dpkg-deb -x fonts-inter_*.deb x
python=${SP_PYTHON:-$here/../../../.venv/bin/python}
"$python" -m fontTools.subset x/usr/share/fonts/opentype/inter/Inter-Regular.otf \
  --unicodes="U+0020-007E,U+00A0-017F,U+0370-03FF,U+2000-206F,U+2190-21FF,U+2212,U+2264,U+2265,U+2248,U+221E" \
  --layout-features='' --no-hinting --output-file="$here/Inter-Regular-subset.otf"
