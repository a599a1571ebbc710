"""Build one package from its package.py: `python3 -I -B run.py request.json`."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from stack_spack.runner import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
