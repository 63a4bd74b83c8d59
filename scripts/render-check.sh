#!/usr/bin/env bash
# Renders the plot and the preview (SVG and HTML) of the README example and of a Sony
# motion to PNG in headless Chromium, for a person to look at: they must open in a
# browser and show what the motion does. Skipped, with a notice, where Chromium is
# absent (Debian: apt-get install chromium).
#   scripts/render-check.sh [OUT_DIR]     (default target/render-check)
set -euo pipefail
cd "$(dirname "$0")/.."
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
    echo "skipped: Chromium not found (apt-get install chromium)"
    exit 0
fi
out=${1:-target/render-check}
mkdir -p "$out"
cargo build --release -q
bin=target/release/aibo-motion
"$bin" -q build examples/nod-and-wave.bvh --profile ERS-7 -o "$out/nod-and-wave.mtn" > /dev/null
inputs=("$out/nod-and-wave.mtn")
sony="../shared/mtn-samples/sony-openr-monet-ers7/a_stand#stand_so0_makebow.mtn"
if [ -f "$sony" ]; then
    cp "$sony" "$out/makebow.mtn"
    inputs+=("$out/makebow.mtn")
else
    echo "note: ../shared not found: the Sony motion is left out"
fi
profile_dir=$(mktemp -d)
trap 'rm -rf "$profile_dir"' EXIT
shoot() { # FILE WIDTH HEIGHT PNG
    "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile_dir" --hide-scrollbars --virtual-time-budget=1500 \
        --window-size="$2,$3" --screenshot="$4" "file://$(realpath "$1")" 2> /dev/null
    [ -s "$4" ] || { echo "error: $4 was not written"; exit 1; }
    echo "$4"
}
for mtn in "${inputs[@]}"; do
    stem=${mtn%.mtn}
    "$bin" plot "$mtn" -o "$stem-plot.svg"
    "$bin" preview "$mtn" -o "$stem-preview.html"
    "$bin" preview "$mtn" -o "$stem-preview.svg"
    height=$(grep -o 'height="[0-9]*"' "$stem-plot.svg" | head -1 | tr -dc 0-9)
    shoot "$stem-plot.svg" 1200 "$height" "$stem-plot.png"
    shoot "$stem-preview.html" 920 436 "$stem-preview-html.png"
    shoot "$stem-preview.svg" 920 436 "$stem-preview-svg.png"
done
