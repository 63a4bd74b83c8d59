#!/usr/bin/env bash
# Regenerates the README's gallery from the example motion capture, with the commands
# themselves: a plot, a still of the preview, and the animated preview.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/gallery
mkdir -p "$out"
cargo build --release -q
bin=target/release/aibo-motion
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" -q build examples/nod-and-wave.bvh --profile ERS-7 -o "$tmp/nod-and-wave.mtn" > /dev/null
"$bin" plot "$tmp/nod-and-wave.mtn" -o "$out/nod-and-wave-plot.svg"
"$bin" preview "$tmp/nod-and-wave.mtn" --at 2.5 -o "$out/nod-and-wave-frame.svg"
"$bin" preview "$tmp/nod-and-wave.mtn" -o "$out/nod-and-wave-preview.svg"
ls -l "$out"
