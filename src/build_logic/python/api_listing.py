"""Print API.txt (the names stack's package API implements):
`python3 -I api_listing.py > API.txt`."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from stack_spack.api_listing import text  # noqa: E402

if __name__ == "__main__":
    sys.stdout.write(text())
