"""API.txt lists what the layer implements and is generated from it."""

import os
import unittest

from tests.helpers import LAYER
from stack_spack import api
from stack_spack.api_listing import text


class ApiTxtTest(unittest.TestCase):
    def test_api_txt_is_current(self):
        with open(os.path.join(LAYER, "API.txt")) as f:
            on_disk = f.read()
        self.assertEqual(on_disk, text(), "API.txt is out of date: run "
                         "`python3 -I src/build_logic/python/api_listing.py > src/build_logic/python/API.txt`")

    def test_every_listed_spack_package_name_exists(self):
        for name in api.__all__:
            with self.subTest(name=name):
                self.assertIsNotNone(getattr(api, name))


if __name__ == "__main__":
    unittest.main()
