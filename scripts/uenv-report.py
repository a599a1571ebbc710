#!/usr/bin/env python3
"""The per-package table of a prgenv-gnu build by scripts/uenv-build.sh (issue #35).

    scripts/uenv-report.py [--work /work/uenv] [--stack BIN]

One row per node of the plan (`stack resolve --format json` with the overlay, as the build
resolves it): package, version, source route (from uenv-mirror.py's table), built / failed (phase)
/ skipped (because of which dependency) / not built, build wall time (BUILD/logs/<prefix>.json),
installed size (du of the prefix in BUILD/store). Then the totals.
"""

import argparse
import glob
import json
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def du(path):
    r = subprocess.run(["du", "-sk", path], capture_output=True, text=True)
    return int(r.stdout.split()[0]) * 1024 if r.returncode == 0 else 0


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default=os.environ.get("UENV_WORK", "/work/uenv"))
    ap.add_argument("--stack", default=os.environ.get("STACK", os.path.join(ROOT, "target/debug/stack")))
    ap.add_argument("--recipe", default=os.path.join(os.environ.get("ALPS_UENV", "/work/data/alps-uenv"),
                                                     "recipes/prgenv-gnu/26.3/mc"))
    a = ap.parse_args()
    w = a.work
    env = {**os.environ, "STACK_CACHE": os.environ.get("STACK_CACHE", f"{w}/cache"),
           "STACK_SPACK_PACKAGES": os.environ.get("STACK_SPACK_PACKAGES", "/work/data/spack-packages")}
    r = subprocess.run([a.stack, "resolve", a.recipe, "--cluster", f"{w}/cluster/eiger", "--repo",
                        f"{w}/overlay/recipes", "--format", "json"], capture_output=True, text=True, env=env)
    nodes = json.loads(r.stdout)["nodes"]
    routes = {}
    for line in open(f"{w}/mirror-table.txt"):
        m = re.match(r"(\S+)\s+(\S+)\s+(.+?)\s+(ok|FAILED)(: (.*))?$", line.rstrip())
        if m and not m.group(1).endswith(")"):
            routes[(m.group(1), m.group(2))] = (m.group(3).strip(), m.group(4), m.group(6) or "")
    # the newest outcome per package over every build log
    outcome = {}
    for log in sorted(glob.glob(f"{w}/logs/build-*.log")):
        for line in open(log, errors="replace"):
            m = re.match(r"\s+FAILED (\S+)@(\S+) in (\S+)", line)
            if m:
                outcome[m.group(1)] = f"failed in {m.group(3)}"
            m = re.match(r"\s+skipped (\S+): (.+)$", line)
            if m:
                outcome[m.group(1)] = f"skipped: {m.group(2)} failed"
    rows = []
    total_s = total_b = 0
    built = 0
    for n in sorted(nodes, key=lambda n: (n["name"], n["version"])):
        name, v = n["name"], n["version"]
        prefix = os.path.join(f"{w}/build/store", os.path.relpath(n["prefix"], "/user-environment"))
        key = os.path.basename(n["prefix"])
        rec = f"{w}/build/logs/{key}.json"
        route = routes.get((name, v), ("?", "", ""))[0]
        if n.get("external"):
            rows.append((name, v, "external", "external", "", ""))
            continue
        if os.path.isfile(os.path.join(prefix, ".stack", "installed.json")):
            secs = json.load(open(rec)).get("build_seconds", 0) if os.path.isfile(rec) else 0
            size = du(prefix)
            total_s += secs
            total_b += size
            built += 1
            rows.append((name, v, route, "built", f"{secs:.0f} s" if secs else "cache", human(size)))
        else:
            why = outcome.get(name, "not built")
            if routes.get((name, v), ("", "", ""))[1] == "FAILED":
                why = "no source: " + routes[(name, v)][2]
            rows.append((name, v, route, why, "", ""))
    wid = [max(len(str(r[i])) for r in rows + [("package", "version", "route", "result", "wall", "size")])
           for i in range(6)]
    wid[3] = min(wid[3], 60)
    head = ("package", "version", "route", "result", "wall", "size")
    print(" | ".join(h.ljust(wid[i]) for i, h in enumerate(head)))
    print("-|-".join("-" * x for x in wid))
    for r in rows:
        print(" | ".join(str(c)[:wid[i]].ljust(wid[i]) for i, c in enumerate(r)))
    print(f"\n{built} of {len(nodes)} nodes built ({sum(1 for r in rows if r[2] == 'external')} external); "
          f"sum of build times {total_s / 3600:.2f} h; installed {human(total_b)}")


if __name__ == "__main__":
    main()
