#!/usr/bin/env python3
"""Import every package.py of a Spack repository through stack's package API
layer (class bodies evaluated once for x86_64 and once for aarch64, as
`directives.py` does) and count the packages that load, with the most
frequent errors.  A measuring tool for #41, not part of `stack`.

    python3 scripts/package-api-import.py <packages dir> [--jobs N]
"""

import collections
import multiprocessing
import os
import sys

LAYER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "build_logic", "python")
sys.path.insert(0, os.path.abspath(LAYER))

from stack_spack import record  # noqa: E402

ROOT = None


def one(d):
    errors = {}
    for arch in record.ARCHS:
        r = record.evaluate(os.path.join(ROOT, d, "package.py"), arch)
        if "error" in r:
            errors[arch] = (r["kind"], r["error"].splitlines()[0][:160])
    return d, errors


def main(argv):
    global ROOT
    ROOT = os.path.abspath(argv[0])
    jobs = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 2
    dirs = sorted(d for d in os.listdir(ROOT) if os.path.isfile(os.path.join(ROOT, d, "package.py")))
    with multiprocessing.Pool(jobs) as pool:
        results = pool.map(one, dirs, chunksize=50)
    ok = sum(1 for _, e in results if not e)
    print("packages {}, loading on both architectures {} ({:.1f}%)".format(len(results), ok, 100.0 * ok / len(results)))
    counts = collections.Counter(msg for _, e in results for msg in set(e.values()))
    for (kind, msg), n in counts.most_common(30):
        print("  {:5d} {} {}".format(n, kind, msg))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
