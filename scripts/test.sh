#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs the system tools the tests use (apt, when missing),
# then formatting, lints, the documentation (no broken links), unit and integration tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings   # conventions: clippy.toml, lints in src/lib.rs
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --document-private-items --locked
cargo test --locked   # unit, integration and doc tests (benchmarks: cargo bench)
