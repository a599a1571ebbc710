#!/usr/bin/env bash
# The Slurm executor's overhead per package against a local build of the same lock file:
# runs tests/it/slurm's CXI-mini test (a single-node Slurm cluster on loopback, the loopback
# registry as binary cache), keeps the jobs' records and prints, per package: the wait from
# submission (or from its last dependency's end) to the job running, the job's run time, the
# build inside it, the rest of the job (stack starting, resolving, pulling dependencies,
# pushing), and the same package's local build time. A job of several packages (grouped by
# --group-seconds) is one row, its build and local times summed over its packages.
#   bash scripts/slurm-overhead.sh [OUT_DIR]        (REPORT_ONLY=1: only the table of OUT_DIR)
#   GROUP_SECONDS=0 bash scripts/slurm-overhead.sh DIR   (one job per package; default: the
#   test's 120 s, which puts the 4 CXI-mini packages in 3 jobs)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-$(mktemp -d)}"
if [ -z "${REPORT_ONLY:-}" ]; then
  rm -rf "$out"; mkdir -p "$out"
  STACK_SLURM_GROUP_SECONDS="${GROUP_SECONDS:-120}" STACK_SLURM_FIGURES="$out" cargo test --test it slurm::cxi_mini -- --nocapture > "$out/test.log" 2>&1 \
    || { tail -50 "$out/test.log"; exit 1; }
fi
python3 - "$out" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
jobs = json.load(open(os.path.join(out, "jobs.json")))
def facts(d):
    r = {}
    for f in glob.glob(os.path.join(out, d, "*.json")):
        j = json.load(open(f))
        r[j["name"]] = j["build_seconds"]
    return r
remote, local = facts("jobs"), facts("local")
ended = {}
print(f"{'job':<26}{'queued s':>9}{'job s':>8}{'build s':>9}{'rest s':>8}{'local s':>9}")
tot = [0.0] * 5
for j in sorted(jobs, key=lambda j: j["started"] or 0):
    name = j["package"]
    members = [p.strip() for p in (j.get("packages") or name).split(",")]
    ready = max([j["submitted"]] + [e for e in ended.values() if e <= (j["started"] or 0)])
    q = (j["started"] or 0) - ready
    run = (j["ended"] or 0) - (j["started"] or 0)
    b = sum(remote.get(m, 0.0) for m in members)
    l = sum(local.get(m, 0.0) for m in members)
    ended[name] = j["ended"] or 0
    row = [q, run, b, run - b, l]
    tot = [a + c for a, c in zip(tot, row)]
    print(f"{name:<26}" + "".join(f"{v:>{w}.2f}" for v, w in zip(row, [9, 8, 9, 8, 9])))
print(f"{'sum (' + str(len(jobs)) + ' jobs)':<26}" + "".join(f"{v:>{w}.2f}" for v, w in zip(tot, [9, 8, 9, 8, 9])))
first = min(j["submitted"] for j in jobs); last = max(j["ended"] or 0 for j in jobs)
print(f"jobs from first submission to last end: {last - first:.2f} s; local build times summed: {sum(local.values()):.2f} s")
PY
