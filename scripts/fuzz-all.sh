#!/usr/bin/env bash
# Runs every fuzz target in turn for SECONDS each (default 600) and prints a summary line
# per target: runs done and whether it found anything. Corpora live in fuzz/corpus/
# (ignored by git); where ../shared is beside the repository they are seeded from its
# real files, which stay out of the repository, build_from_bvh also from synthetic
# walks (scripts/walk-seeds.py), and bridge_receive from PROTOCOL.md's test vectors
# (scripts/bridge-seeds.py).
#   scripts/fuzz-all.sh [SECONDS] [TARGET…]
# Needs cargo-fuzz (`cargo install cargo-fuzz`); nightly features via RUSTC_BOOTSTRAP.
set -uo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list)
fi
shared=../../shared
seed() { # TARGET GLOB…
    local dir=corpus/$1
    shift
    mkdir -p "$dir"
    for f in "$@"; do
        # Only small files: the fuzzer mutates better from short inputs.
        # Named by their path, as several folders hold files of one name.
        [ -f "$f" ] && [ "$(stat -c %s "$f")" -lt 200000 ] &&
            cp "$f" "$dir/$(printf %s "$f" | md5sum | cut -c1-16)"
    done
    return 0
}
seed mtn_decode "$shared"/mtn-samples/*/*.mtn
seed view_mtn "$shared"/mtn-samples/*/*.mtn
seed balance_mtn "$shared"/mtn-samples/*/*.mtn
seed oda_decode "$shared"/rcode-samples/*/OPEN-R/MW/DATA/P/*.ODA
seed bvh_read "$shared"/mocap-samples/bvh/*.bvh
seed build_from_bvh "$shared"/mocap-samples/bvh/*.bvh
# Walks, with or without ../shared: the gait and the felt floor need takes that travel.
python3 ../scripts/walk-seeds.py corpus/build_from_bvh ||
    echo "no python3: build_from_bvh is fuzzed without the synthetic walks" >&2
seed asf_read "$shared"/mocap-samples/asf-amc/*.asf
seed amc_read "$shared"/mocap-samples/asf-amc/*.amc
seed mrtk_read "$shared"/mrtk-samples/*.bin
seed mwc_read "$shared"/rcode-samples/*/OPEN-R/MW/CONF/*.MWC
seed actions_read "$shared"/rcode-samples/*/OPEN-R/APP/PC/AMS/ACTION.*
seed bridge_receive
python3 ../scripts/bridge-seeds.py corpus/bridge_receive ||
    echo "no python3: bridge_receive is fuzzed from random bytes only" >&2
mkdir -p ../target/fuzz-logs
for t in "${targets[@]}"; do
    log=../target/fuzz-logs/$t.log
    # A target with no seeds starts from an empty corpus (libFuzzer wants the folder).
    mkdir -p "corpus/$t" "artifacts/$t"
    before=$(ls "artifacts/$t" | wc -l)
    # A build runs the balance stage's simulations: seeded with the real takes (up to
    # 173 kB), libFuzzer spent 300 s replaying its seeds and mutated none (282 runs).
    # Inputs up to the synthetic walks' 50 kB (longer seeds are cut there) ran 8926.
    extra=()
    [ "$t" = build_from_bvh ] && extra=(-max_len=50000)
    RUSTC_BOOTSTRAP=1 cargo fuzz run -O "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 "${extra[@]}" > "$log" 2>&1
    status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    if [ $status -eq 0 ]; then
        echo "$t: ${runs:-?} runs in ${seconds} s, no findings"
    elif [ "$(ls "artifacts/$t" | wc -l)" -gt "$before" ]; then
        echo "$t: FOUND SOMETHING (exit $status), ${runs:-?} runs; see $log and fuzz/artifacts/$t"
    else
        # No input saved: the fuzzer did not run (a build error, a missing tool).
        echo "$t: DID NOT RUN (exit $status); see $log"
    fi
done
