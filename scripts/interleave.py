#!/usr/bin/env python3
"""Time shell commands interleaved, so that all see the same machine load.

    python3 scripts/interleave.py RUNS NAME=COMMAND [NAME=COMMAND ...]

Each command runs once to warm up, then RUNS rounds run every command in turn
(through `sh -c`, ~1 ms) with a 30 ms pause after each. Prints, per command,
the median and minimum wall time and CPU time (user + system of the command
and its children, from getrusage). Used for the speed tables of docs/audit.md,
for example:

    S=target/release/stack
    find /usr/lib/x86_64-linux-gnu /usr/bin -type f | xargs file -N | grep ': *ELF' | cut -d: -f1 > /tmp/files.txt
    python3 scripts/interleave.py 15 \\
        "full=$S audit /usr/lib/x86_64-linux-gnu /usr/bin --format json -o /dev/null" \\
        "noscan=$S audit /usr/lib/x86_64-linux-gnu /usr/bin --format json -o /dev/null --no-dlopen-scan" \\
        "libtree=xargs -a /tmp/files.txt libtree -p"
"""
import resource
import statistics
import subprocess
import sys
import time


def main() -> None:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit() or any("=" not in a for a in sys.argv[2:]):
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    cmds = dict(arg.split("=", 1) for arg in sys.argv[2:])
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, shell=True)
    for cmd in cmds.values():
        subprocess.run(cmd, **quiet)
    wall = {name: [] for name in cmds}
    cpu = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, **quiet)
            wall[name].append((time.perf_counter() - t0) * 1e3)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3)
            time.sleep(0.03)
    for name in cmds:
        w, c = wall[name], cpu[name]
        print(f"{name:12} wall median {statistics.median(w):7.1f} min {min(w):7.1f} ms"
              f" | cpu median {statistics.median(c):7.1f} min {min(c):7.1f} ms")


if __name__ == "__main__":
    main()
