#!/usr/bin/env bash
# Resolution benchmarks: whole `stack` processes of the release build, timed with `hyperfine -N`
# (min and median wall time of RUNS runs after WARMUP warm-up runs, warm page cache, and the mean
# CPU time, user + system, which a loaded machine inflates less) and their peak memory
# (`/usr/bin/time -v`, maximum resident set size of one run). In-process timings of the first
# stacks: `cargo bench --bench resolve`.
#
#   scripts/bench-resolve.sh [--alps] [--update-baseline] [--runs N]
#
# Figures (name: what runs):
#   demo, alps-like, alps-cxi     `stack resolve RECIPE --cluster DIR --format json` of the
#                                 shipped stacks (alps-like: the test fixture)
#   synthetic-1000                the same, a generated stack reaching all of a generated
#                                 1,000-package repository (`cargo bench --bench resolve` writes it)
#   builtin-100, -1000, -5000     the demo with a built-in repository of that many recipes (the
#                                 built-in recipes the demo reads, then generated ones): the time
#                                 stays flat when the built-in repository grows
# With --alps (needs STACK_SPACK_PACKAGES, a spack-packages checkout, ALPS_UENV, an alps-uenv
# checkout, ALPS_CLUSTERS, an alps-cluster-config checkout; their translations cached under
# $BENCH_CACHE, default target/bench/cache):
#   alps/FAMILY-VERSION-ARCH      `stack resolve` of each newest alps-uenv recipe that resolves
#                                 (as scripts/stackinator-alps.sh chooses them), translations cached
#   alps-table                    all of scripts/stackinator-alps.sh with PREFLIGHT=0 (check +
#                                 resolve per row, no build preflight), cached
#   alps-first-translation        `stack check` of prgenv-gnu (gh200) on an empty cache: reads the
#                                 spack-packages commit its config.yaml pins from its git objects
#                                 and translates it
#
# Output: a table on stdout, and every figure with its command, the machine's load and the
# commit in $BENCH_OUT (default target/bench/resolve.json), and the same as lines of the
# benchmarks page's input (benches/results/resolve.tsv: section, what, figure, command, when)
# in target/bench/resolve.tsv. Each figure is compared with benches/baselines/resolve.json: a CPU
# time, a peak memory or (when the load average is below 1 at the start) a min wall time more
# than 20% above the baseline's fails the script (exit 3) after the table;
# --update-baseline writes the figures measured into the baseline instead (figures it does not
# measure are kept).
#
# STACK: the binary timed (default target/release/stack, built when missing). SYNTHETIC=0 leaves
# out synthetic-1000 (whose repository `cargo bench` writes). RUNS (default 20,
# 5 for the alps rows, 3 for the table and the first translation), WARMUP (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
alps=0
update=0
runs=${RUNS:-20}
while [ $# -gt 0 ]; do
    case $1 in
        --alps) alps=1 ;;
        --update-baseline) update=1 ;;
        --runs) runs=$2; shift ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
warmup=${WARMUP:-3}
stack=$(realpath -m "${STACK:-target/release/stack}")
out=$(realpath -m "${BENCH_OUT:-target/bench/resolve.json}")
baseline=$root/benches/baselines/resolve.json
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed: apt-get install time" >&2; exit 2; }
if [ ! -x "$stack" ]; then
    cargo build --locked --release --bin stack
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$out")"
: >"$tmp/figures.jsonl"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# The stacks' own caches (a built-in repository's index, translations) live here, not in ~/.cache.
export STACK_CACHE=$tmp/cache
unset STACK_REPOS STACK_BUILTIN_REPO

# figure NAME GOAL_MS RUNS COMMAND...: time COMMAND (hyperfine -N), measure its peak memory,
# and record both. GOAL_MS: the goal (empty: none). `hyperfine --prepare` takes $PREPARE.
figure() {
    local name=$1 goal=$2 n=$3
    shift 3
    local cmd=("$@") json="$tmp/h.json" prep=()
    [ -n "${PREPARE:-}" ] && prep=(--prepare "$PREPARE")
    if ! "${cmd[@]}" >"$tmp/out" 2>&1; then
        echo "$name: ${cmd[*]} failed:" >&2
        tail -20 "$tmp/out" >&2
        exit 1
    fi
    hyperfine -N --style none --warmup "${WARM:-$warmup}" --runs "$n" "${prep[@]}" \
        --export-json "$json" -- "$(printf '%q ' "${cmd[@]}")" >/dev/null
    [ -n "${PREPARE:-}" ] && bash -c "$PREPARE"
    /usr/bin/time -v "${cmd[@]}" >/dev/null 2>"$tmp/time" || true
    local rss
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time")
    python3 - "$json" "$name" "$goal" "$rss" "$root" "${cmd[@]}" >>"$tmp/figures.jsonl" <<'EOF'
import json, statistics, sys
h = json.load(open(sys.argv[1]))["results"][0]
name, goal, rss, root = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
command = " ".join(a.replace(root + "/", "") for a in sys.argv[6:])
print(json.dumps({
    "name": name,
    "command": command,
    "runs": len(h["times"]),
    "min_ms": round(h["min"] * 1000, 2),
    "median_ms": round(statistics.median(h["times"]) * 1000, 2),
    # CPU time (user + system, mean): less sensitive to a loaded machine than wall time.
    "cpu_ms": round((h["user"] + h["system"]) * 1000, 2),
    "max_rss_mb": round(rss / 1024, 1),
    "goal_ms": float(goal) if goal else None,
}))
EOF
    tail -1 "$tmp/figures.jsonl" | python3 -c '
import json, sys
f = json.loads(sys.stdin.read())
goal = "" if f["goal_ms"] is None else "goal <= %g ms" % f["goal_ms"]
print("%-34s min %9.2f ms  median %9.2f ms  cpu %9.2f ms  %7.1f MB  %s" % (f["name"], f["min_ms"], f["median_ms"], f["cpu_ms"], f["max_rss_mb"], goal))'
}

resolve() { echo "$stack" resolve "$@" --format json; }

# The shipped stacks.
figure demo 8 "$runs" $(resolve stacks/demo.yaml --cluster cluster-configs/local)
figure alps-like "" "$runs" $(resolve tests/fixtures/resolve/stacks/alps-like.yaml --cluster tests/fixtures/resolve/cluster-configs/gh200)
figure alps-cxi 12 "$runs" $(resolve stacks/alps-cxi.yaml --cluster cluster-configs/alps-gh200)
if [ "${SYNTHETIC:-1}" = 1 ]; then
    RESOLVE_BENCH_KEEP="$tmp/synthetic" cargo bench --locked --profile "${PROFILE:-release}" --bench resolve >/dev/null 2>&1
    figure synthetic-1000 1000 "$runs" $(resolve "$tmp/synthetic/stack.yaml" --cluster "$tmp/synthetic/cluster")
fi

# The demo with built-in repositories of 100, 1,000 and 5,000 recipes: the built-in recipes it
# reads (as `stack -vvv` logs them: parsed, or decoded from the recipe cache), then generated
# ones (a third with a dependency, one in 50 providing a virtual of its own). The demo and its
# cluster are copied beside the generated repository, so that the `recipes/` found above the
# stack is the built-in one.
"$stack" resolve stacks/demo.yaml --cluster cluster-configs/local >/dev/null 2>&1
"$stack" -vvv resolve stacks/demo.yaml --cluster cluster-configs/local 2>&1 >/dev/null \
    | sed -n -e "s|.*parsing $root/recipes/\([^/]*\)\.yaml.*|\1|p" \
        -e "s|.*$root/recipes/\([^/]*\)\.yaml from the recipe cache.*|\1|p" | sort -u >"$tmp/used"
"$stack" resolve stacks/demo.yaml --cluster cluster-configs/local --format json \
    | jq -c '[.nodes[] | [.name, .version, .hash]]' >"$tmp/plan"
for n in 100 1000 5000; do
    b=$tmp/builtin-$n
    mkdir -p "$b/recipes" "$b/stacks" "$b/cluster-configs" "$b/tests/fixtures"
    while read -r r; do cp "recipes/$r.yaml" "$b/recipes/"; done <"$tmp/used"
    ln -s "$root/patches" "$b/patches"
    ln -s "$root/tests/fixtures/demo" "$b/tests/fixtures/demo"
    cp -r stacks/demo.yaml stacks/demo "$b/stacks/"
    cp -r cluster-configs/local "$b/cluster-configs/"
    python3 - "$b/recipes" "$n" <<'EOF'
import os, sys
dir, total = sys.argv[1], int(sys.argv[2])
have = len(os.listdir(dir))
for i in range(total - have):
    deps = f"dependencies: [gen{i + 1:05}]\n" if i % 3 == 0 and i + 1 < total - have else ""
    provides = f"provides: [gen-virtual-{i}]\n" if i % 50 == 0 else ""
    with open(os.path.join(dir, f"gen{i:05}.yaml"), "w") as f:
        f.write(f"""name: gen{i:05}
description: generated package {i}
versions:
  - {{version: "1.1", url: "https://example.org/gen{i:05}-1.1.tar.gz", sha256: "{i:064x}"}}
  - {{version: "1.0", url: "https://example.org/gen{i:05}-1.0.tar.gz", sha256: "{i + 1:064x}"}}
variants:
  shared: {{default: true}}
{deps}{provides}build: {{system: autotools, configure_args: ["--enable-gen"]}}
""")
EOF
    # Older than the index-settling delay, as a repository is that nobody is editing.
    touch -d '-1 minute' "$b/recipes"
    got=$(STACK_BUILTIN_REPO=$b/recipes "$stack" resolve "$b/stacks/demo.yaml" --format json \
        | jq -c '[.nodes[] | [.name, .version, .hash]]')
    if [ "$got" != "$(cat "$tmp/plan")" ]; then
        echo "builtin-$n: the demo's plan differs from the one with the shipped recipes" >&2
        exit 1
    fi
    STACK_BUILTIN_REPO=$b/recipes figure "builtin-$n" 8 "$runs" $(resolve "$b/stacks/demo.yaml")
done

if [ $alps = 1 ]; then
    : "${STACK_SPACK_PACKAGES:?--alps needs STACK_SPACK_PACKAGES}" "${ALPS_UENV:?--alps needs ALPS_UENV}" \
        "${ALPS_CLUSTERS:?--alps needs ALPS_CLUSTERS}"
    # Translations are kept across runs of the script (the first costs seconds per commit).
    export STACK_CACHE=$(realpath -m "${BENCH_CACHE:-target/bench/cache}")
    # shellcheck source=/dev/null
    source <(sed -n '/^cluster_of()/,/^}/p' scripts/stackinator-alps.sh)
    for fam in "$ALPS_UENV"/recipes/*/; do
        version=$(ls "$fam" | grep -E '^(v?[0-9]|hip)' | sort -V | tail -1) || true
        [ -n "$version" ] || continue
        dirs=("$fam$version")
        [ -f "$fam$version/config.yaml" ] || dirs=("$fam$version"/*/)
        for d in "${dirs[@]}"; do
            d=${d%/}
            [ -f "$d/config.yaml" ] || continue
            arch=$(basename "$d")
            [ "$d" = "$fam$version" ] && arch=$version
            cluster=$ALPS_CLUSTERS/$(cluster_of "$arch")
            "$stack" resolve "$d" --cluster "$cluster" >/dev/null 2>&1 || continue
            WARM=1 figure "alps/$(basename "$fam")-$version-$arch" 500 "${ALPS_RUNS:-5}" \
                "$stack" resolve "$d" --cluster "$cluster"
        done
    done
    WARM=0 PREFLIGHT=0 figure alps-table 15000 "${TABLE_RUNS:-3}" bash scripts/stackinator-alps.sh "$ALPS_UENV" "$ALPS_CLUSTERS" "$stack"
    # `stack check` translates as `stack resolve` does (whose plan this recipe may not have).
    first=$(ls -d "$ALPS_UENV"/recipes/prgenv-gnu/*/gh200 | sort -V | tail -1)
    # Each run translates into a cache directory of its own, made by `mktemp` beside the others
    # and deleted with them at the end: a run right after deleting the previous run's 14,000
    # files is not a first translation as a user meets it (ext4 skips the inodes freed in the
    # last minutes when it allocates, the kernel's `recently_deleted`, which made the system
    # time of such a loop 10 s instead of 1.5 s).
    mkdir -p "$tmp/fresh"
    WARM=0 figure alps-first-translation 5000 "${TABLE_RUNS:-3}" \
        bash -c 'STACK_CACHE=$(mktemp -d -p "$1") exec "${@:2}"' first-translation "$tmp/fresh" \
        "$stack" check "$first" --cluster "$ALPS_CLUSTERS/daint"
fi

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$tmp/figures.jsonl" "$out" "$baseline" "$update" "$load_before" "$load_after" \
    "$(git rev-parse HEAD)" "$(nproc)" <<'EOF'
import datetime, json, sys
figures_file, out, baseline_file, update, before, after, commit, nproc = sys.argv[1:]
figures = [json.loads(l) for l in open(figures_file)]
doc = {
    "suite": "resolve",
    "script": "scripts/bench-resolve.sh",
    "commit": commit,
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": {"cores": int(nproc), "load_before": before, "load_after": after},
    "figures": figures,
}
json.dump(doc, open(out, "w"), indent=2)
open(out, "a").write("\n")
# The same figures as lines of benches/results/resolve.tsv, the benchmarks page's input
# (section, what, figure, command, when).
tsv = out[: -len(".json")] + ".tsv" if out.endswith(".json") else out + ".tsv"
when = f"{doc['date'][:10]}, release build of {commit[:7]}, {nproc} cores, load average {before}"
with open(tsv, "w") as t:
    t.write("# section\twhat\tfigure\tcommand\twhen\n")
    for f in figures:
        goal = "" if f["goal_ms"] is None else f" (goal ≤ {f['goal_ms']:g} ms)"
        figure = (f"{f['min_ms']} ms min, {f['median_ms']} ms median, {f['cpu_ms']} ms CPU, "
                  f"{f['max_rss_mb']} MB peak{goal}")
        t.write(f"Resolution\t{f['name']}\t{figure}\t{f['command']}\t{when}\n")
print(f"figures written to {out} and {tsv} (load average before {before}, after {after})")
try:
    base = json.load(open(baseline_file))
except FileNotFoundError:
    base = {"suite": "resolve", "figures": []}
old = {f["name"]: f for f in base["figures"]}
if update == "1":
    for f in figures:
        old[f["name"]] = f
    base.update(commit=commit, date=doc["date"], machine=doc["machine"])
    base["figures"] = sorted(old.values(), key=lambda f: f["name"])
    json.dump(base, open(baseline_file, "w"), indent=2)
    open(baseline_file, "a").write("\n")
    print(f"baseline {baseline_file} updated")
    sys.exit(0)
failed = []
# Wall times are compared only on a quiet machine (load average below 1 when the run began):
# on a loaded one they measure the other processes.
keys = [("cpu_ms", "ms"), ("max_rss_mb", "MB")]
if float(before.split()[0]) < 1.0:
    keys.insert(0, ("min_ms", "ms"))
else:
    print(f"load average {before.split()[0]}: wall times not compared with the baseline")
for f in figures:
    b = old.get(f["name"])
    if b is None:
        continue
    for key, unit in keys:
        if b.get(key) and f[key] > 1.2 * b[key]:
            failed.append(f"{f['name']}: {key} {f[key]} {unit} is more than 20% above the baseline's {b[key]} {unit}")
for line in failed:
    print("REGRESSION " + line, file=sys.stderr)
sys.exit(3 if failed else 0)
EOF
