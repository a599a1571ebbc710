"""Run the layer's unit tests: `python3 -I src/build_logic/python/run_tests.py [pattern]`."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main(argv):
    loader = unittest.TestLoader()
    pattern = argv[0] if argv else "test_*.py"
    suite = loader.discover(os.path.join(HERE, "tests"), pattern=pattern, top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=1 if not os.environ.get("VERBOSE") else 2, buffer=True).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
