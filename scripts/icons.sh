#!/usr/bin/env bash
# Makes the app icons (static/icon-*.png) from static/favicon.svg, once; the PNGs
# are committed. Needs Debian's librsvg2-bin (rsvg-convert).
#   icon-192.png, icon-512.png: the favicon as it is (purpose "any").
#   icon-maskable-192.png, icon-maskable-512.png: full-bleed green with the spade
#   inside the central 80 % circle that every launcher mask keeps (purpose "maskable").
set -euo pipefail
cd "$(dirname "$0")/../static"
command -v rsvg-convert >/dev/null || { echo "apt-get install librsvg2-bin" >&2; exit 1; }
spade=$(sed -n 's/.*\(<path[^>]*\/>\).*/\1/p' favicon.svg)
maskable=$(mktemp --suffix=.svg)
trap 'rm -f "$maskable"' EXIT
# The spade spans 36 x 42 of the 64 box around (32, 31); at 0.7 its corners stay
# within 18 units of the centre, well inside the safe circle of radius 25.6.
cat >"$maskable" <<SVG
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#0b6e4f"/><g transform="translate(32 32) scale(0.7) translate(-32 -31)">$spade</g></svg>
SVG
for size in 192 512; do
  rsvg-convert -w "$size" -h "$size" favicon.svg -o "icon-$size.png"
  rsvg-convert -w "$size" -h "$size" "$maskable" -o "icon-maskable-$size.png"
done
ls -l icon-*.png
