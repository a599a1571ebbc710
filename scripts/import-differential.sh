#!/usr/bin/env bash
# The differential check of `stack import spack` over a whole spack-packages
# checkout (#34): each imported recipe against the directives its package.py
# records when the Python package API layer runs its class body; prints the
# differences per kind of directive (silent, flagged, by design).
#
#   scripts/import-differential.sh [CHECKOUT] [-v] [--records FILE]
#
# CHECKOUT defaults to $STACK_SPACK_PACKAGES. -v lists every silent difference.
# --records FILE keeps the oracle's records (minutes of Python over a whole
# checkout) and reads them on later runs; delete FILE when
# src/build_logic/python changes.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=${1:-${STACK_SPACK_PACKAGES:-}}
if [ -z "$checkout" ]; then
    echo "usage: $0 CHECKOUT [-v] (or set STACK_SPACK_PACKAGES)" >&2
    exit 2
fi
shift || true
cargo bench --locked --bench import_differential -- "$checkout" "$@"
