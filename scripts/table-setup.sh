# Sourced by the table scripts (balance, judges, walk): from the repository's root, the
# release build made, `models` the models asked for (else the script's `default_models`),
# and `out` a scratch folder removed on exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build -q --release
models=("$@")
[ ${#models[@]} -eq 0 ] && models=("${default_models[@]}")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
