#!/usr/bin/env bash
# Regenerates the README's gallery from the example motion capture, with the commands
# themselves: a plot, a still of the preview, and the animated preview.
#   scripts/gallery.sh                 rebuilds, and rewrites docs/gallery
#   BIN=… OUT=… scripts/gallery.sh     with that binary, into that folder (tests/suite/gallery.rs
#                                      checks that the committed pictures are what it draws)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-docs/gallery}
mkdir -p "$out"
if [ -z "${BIN:-}" ]; then
  cargo build --release -q
fi
bin=${BIN:-target/release/aibo-motion}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" -q build examples/nod-and-wave.bvh --profile ERS-7 -o "$tmp/nod-and-wave.mtn" > /dev/null
"$bin" -q plot "$tmp/nod-and-wave.mtn" -o "$out/nod-and-wave-plot.svg" > /dev/null
"$bin" -q preview "$tmp/nod-and-wave.mtn" --at 2.5 -o "$out/nod-and-wave-frame.svg" > /dev/null
"$bin" -q preview "$tmp/nod-and-wave.mtn" -o "$out/nod-and-wave-preview.svg" > /dev/null
# A real dancer, where the shared samples are beside the repository (Bandai Namco
# Research Motion Dataset, CC BY-NC 4.0): standing at 1 s, dancing at 20 s.
bandai=../shared/mocap-samples/bvh/bandai1__dance-short_normal_001.bvh
if [ -f "$bandai" ]; then
  "$bin" -q build "$bandai" --profile ERS-7 -o "$tmp/bandai-dance.mtn" > /dev/null
  "$bin" -q preview "$tmp/bandai-dance.mtn" --at 1 -o "$out/bandai-dance-1s.svg" > /dev/null
  "$bin" -q preview "$tmp/bandai-dance.mtn" --at 20 -o "$out/bandai-dance-20s.svg" > /dev/null
else
  echo "no $bandai: the Bandai Namco frames are left as they were" >&2
fi
[ -n "${BIN:-}" ] || ls -l "$out"
