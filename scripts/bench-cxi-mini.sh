#!/usr/bin/env bash
# `stack build` of the CXI-mini stack against a hand-written script of the same steps, in one
# hyperfine run (issue 13, item 21):
#
#   hand:  tests/fixtures/cxi-mini/build-by-hand.sh (unpack, configure/cmake, make -j2, install,
#          run the programs) + mksquashfs of the prefixes (stack packs an image too)
#   stack: stack build stacks/cxi-mini.yaml -j 2 into a fresh build directory, source cache warm
#          (resolve, stage, patch, build in the sandbox, views, modules, audit, image)
#
#   scripts/bench-cxi-mini.sh [RUNS]        (default 3; needs hyperfine, squashfs-tools)
#   STACK=target/release/stack scripts/bench-cxi-mini.sh 5
#   STACK2=target/debug/stack STACK=target/release/stack scripts/bench-cxi-mini.sh 3
#                                           (a second binary, side by side in the same run)
#
# Work files go to $BENCH_DIR (default: a temp dir, removed at the end); the table is printed and
# written to $BENCH_DIR/cxi-mini.md.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-3}
stack=${STACK:-$root/target/debug/stack}
[ -x "$stack" ] || { echo "no stack binary at $stack (cargo build, or set STACK)" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine is not installed" >&2; exit 2; }
if [ -n "${BENCH_DIR:-}" ]; then
    work=$BENCH_DIR
    mkdir -p "$work"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/bench-cxi-mini.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
cd "$root"
# Warm the source cache once, outside the measurement.
"$stack" fetch stacks/cxi-mini.yaml --cluster cluster-configs/local --cache "$work/cache" >/dev/null
hyperfine --runs "$runs" --export-markdown "$work/cxi-mini.md" \
    --prepare "rm -rf '$work/hand' '$work/hand.squashfs' '$work/stack'" \
    -n hand "tests/fixtures/cxi-mini/build-by-hand.sh '$work/hand' >/dev/null && mksquashfs '$work/hand/prefix' '$work/hand.squashfs' -quiet -no-progress -noappend >/dev/null" \
    -n stack "'$stack' build stacks/cxi-mini.yaml --cluster cluster-configs/local --build '$work/stack' --cache '$work/cache' -j 2 >/dev/null 2>&1" \
    ${STACK2:+-n "stack ($STACK2)" "'$STACK2' build stacks/cxi-mini.yaml --cluster cluster-configs/local --build '$work/stack' --cache '$work/cache' -j 2 >/dev/null 2>&1"}
cat "$work/cxi-mini.md"
