#!/usr/bin/env bash
# Whole-process timings of `stack resolve --format json`, warm page cache,
# median of RUNS runs (default 10). Issue 3's goals: < 20 ms for demo,
# alps-like and alps-cxi, < 1 s for the synthetic 1,000-package stack.
# In-process timings of the same stacks: `cargo bench --bench resolve`.
#
#   scripts/bench-resolve.sh [RUNS]
#
# STACK: the binary timed (default target/release/stack, built when missing).
# PROFILE: the cargo profile of the bench binary that writes the synthetic
# repository (default release; `dev` avoids a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
profile=${PROFILE:-release}
stack=${STACK:-target/release/stack}
if [ ! -x "$stack" ]; then
    cargo build --locked --release --bin stack
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RESOLVE_BENCH_KEEP="$tmp/synthetic" cargo bench --locked --profile "$profile" --bench resolve >/dev/null

# name recipe cluster
cases=(
    "demo stacks/demo.yaml cluster-configs/local"
    "alps-like tests/fixtures/resolve/stacks/alps-like.yaml tests/fixtures/resolve/cluster-configs/gh200"
    "alps-cxi stacks/alps-cxi.yaml cluster-configs/alps-gh200"
    "synthetic-1000 $tmp/synthetic/stack.yaml $tmp/synthetic/cluster"
)

printf '%-16s %10s   %s\n' stack median goal
for c in "${cases[@]}"; do
    read -r name recipe cluster <<<"$c"
    goal="< 20 ms"
    [[ $name == synthetic-* ]] && goal="< 1 s"
    # One warm-up run, then RUNS timed ones (nanoseconds).
    if ! err=$(env -u STACK_REPOS "$stack" resolve "$recipe" --cluster "$cluster" --format json 2>&1 >/dev/null); then
        echo "$name: stack resolve failed:" >&2
        echo "$err" >&2
        exit 1
    fi
    times=()
    for _ in $(seq "$runs"); do
        t0=$(date +%s%N)
        env -u STACK_REPOS "$stack" resolve "$recipe" --cluster "$cluster" --format json >/dev/null 2>&1
        t1=$(date +%s%N)
        times+=($((t1 - t0)))
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf "%-16s %7.2f ms   %s\n" "$name" "$(awk -v n="$median" "BEGIN {print n / 1e6}")" "$goal"
done
