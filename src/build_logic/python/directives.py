"""Print the directives a package.py records, as JSON:
`python3 -I directives.py FILE…` (each file evaluated for x86_64 and aarch64).

The file's siblings (packages it imports) are found in its repository:
`…/spack_repo/<ns>/packages/<dir>/package.py` or `<repo>/spack/<ns>/<dir>/package.py`."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from stack_spack import API_VERSION  # noqa: E402
from stack_spack.record import records  # noqa: E402


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stderr.write("usage: directives.py FILE…\n")
        return 2
    missing = [p for p in argv if not os.path.isfile(p)]
    if missing:
        sys.stderr.write("directives.py: no such file: {}\n".format(", ".join(missing)))
        return 2
    out = {"api": API_VERSION, "packages": records(argv)}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 1 if any("error" in r for p in out["packages"] for r in p["archs"].values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
