#!/usr/bin/env bash
# Proves a change to the importer byte-identical: imports a whole spack-packages
# checkout with two `stack` binaries and diffs the written trees (recipes,
# patches, package files and the report, whose timing line is left out).
#
#   scripts/import-byte-identical.sh BEFORE_BIN AFTER_BIN [CHECKOUT]
#
# CHECKOUT defaults to $STACK_SPACK_PACKAGES. Everything is written below a
# temporary directory, removed on exit unless KEEP=1. Exits 0 when the trees
# are identical, 1 (and prints the diff) when they differ.
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 BEFORE_BIN AFTER_BIN [CHECKOUT] (or set STACK_SPACK_PACKAGES)" >&2
    exit 2
fi
before=$(realpath "$1")
after=$(realpath "$2")
checkout=${3:-${STACK_SPACK_PACKAGES:-}}
if [ -z "$checkout" ]; then
    echo "no spack-packages checkout: pass CHECKOUT or set STACK_SPACK_PACKAGES" >&2
    exit 2
fi
repo="$checkout/repos/spack_repo/builtin"
[ -d "$repo/packages" ] || repo="$checkout"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/import-byte-identical.XXXXXX")
if [ "${KEEP:-0}" != 1 ]; then
    trap 'rm -rf "$tmp"' EXIT
else
    echo "keeping $tmp" >&2
fi
export STACK_CACHE="${STACK_CACHE:-$tmp/cache}"
for side in before after; do
    bin=$before
    [ "$side" = after ] && bin=$after
    start=$(date +%s.%N)
    "$bin" import spack --all --from "$repo" --out "$tmp/$side/recipes" \
        --report "$tmp/$side/report.md" >"$tmp/$side.log" 2>&1 \
        || { echo "$side: import failed, see $tmp/$side.log" >&2; cat "$tmp/$side.log" >&2; exit 2; }
    end=$(date +%s.%N)
    printf '%s: %.1f s wall, %s\n' "$side" "$(echo "$end - $start" | bc)" "$(tail -n 1 "$tmp/$side.log")"
    # The reports name the run's duration; everything else must match.
    sed -i -E 's/^\| wall time \|.*/| wall time | | <time> |/' "$tmp/$side/report.md"
    [ -f "$tmp/$side/report.json" ] &&
        sed -i -E 's/"wall_seconds": [0-9.e+-]+/"wall_seconds": 0/' "$tmp/$side/report.json"
done
if diff -r "$tmp/before" "$tmp/after" >"$tmp/diff.txt"; then
    echo "identical: $(find "$tmp/after/recipes" -type f | wc -l) files"
else
    cat "$tmp/diff.txt"
    echo "DIFFERENT: $(grep -c '^diff\|^Only' "$tmp/diff.txt" || true) files differ" >&2
    exit 1
fi
