#!/usr/bin/env bash
# The balance table: for every Sony motion in ../shared/mtn-samples and every motion
# built (for the ERS-7, or the model given) from ../shared/mocap-samples, the static
# verdict (`check --balance`) and the physics one (`simulate`), as a Markdown table.
#
#   scripts/balance-table.sh [MODEL]      (default ERS-7; needs ../shared)
set -euo pipefail
cd "$(dirname "$0")/.."
model="${1:-ERS-7}"
shared=../shared
cargo build -q --release
bin=target/release/aibo-motion
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for f in "$shared"/mocap-samples/bvh/*.bvh; do
  "$bin" -q build "$f" --profile "$model" -o "$out/$(basename "${f%.bvh}").mtn" >/dev/null 2>&1 || true
done
for pair in charleston1:charleston charleston2:charleston cmu_01_01:cmu_01 cmu_11_01:cmu_11 lambada:lambada zombie:zombie; do
  amc=${pair%%:*}; asf=${pair##*:}
  "$bin" -q build "$shared/mocap-samples/asf-amc/$amc.amc" --asf "$shared/mocap-samples/asf-amc/$asf.asf" \
    --profile "$model" -o "$out/$amc.mtn" >/dev/null 2>&1 || true
done

verdicts() {
  local file=$1 static physics
  # Exit 1 is a finding, not a failure: the JSON is read either way.
  static=$({ "$bin" check --balance --json "$file" 2>/dev/null || true; } |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["balance"]["summary"])' 2>/dev/null || echo "unreadable")
  physics=$({ "$bin" simulate --json "$file" 2>/dev/null || true; } |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"].split("; slipped")[0])' 2>/dev/null || echo "unreadable")
  echo "| $2 | $static | $physics |"
}

echo "| motion | static (check --balance) | physics (simulate) |"
echo "|---|---|---|"
for f in "$shared"/mtn-samples/*/*.mtn; do
  verdicts "$f" "sony: $(basename "$(dirname "$f")")/$(basename "$f")"
done
for f in "$out"/*.mtn; do
  verdicts "$f" "built ($model): $(basename "$f" .mtn)"
done
