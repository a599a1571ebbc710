#!/usr/bin/env bash
# The main job: build the demo stack offline from the sources shipped in tests/fixtures/demo,
# into build/demo (store.squashfs + meta/), then audit it. Installs missing system tools first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo run --locked -- build stacks/demo.yaml --cluster cluster-configs/local --build build/demo "$@"
