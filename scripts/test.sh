#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit and integration tests.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings
cargo test --locked --all-targets
