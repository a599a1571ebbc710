import unittest

from tests.helpers import LAYER  # noqa: F401
from stack_spack.version import Version, VersionList, VersionRange, ver

ORDERED = [
    # (smaller, larger)
    ("1.2", "1.2.0"), ("1.2.0", "1.2.1"), ("1.2", "1.10"), ("1.9", "1.10"), ("0.9", "1.0rc1"),
    ("1.0alpha", "1.0beta2"), ("1.0beta2", "1.0rc1"), ("1.0rc1", "1.0rc2"), ("1.0rc", "1.0rc1"),
    ("1.0-rc1", "1.0"), ("1.0rc1", "1.0"), ("1.18.0", "1.18.0-dev"), ("1.18.0-dev", "1.18.1"),
    ("1.2a", "1.2.0"), ("10xyz", "10.1xyz"), ("2023.10", "2024.01"), ("1.9", "develop"),
    ("99999", "stable"), ("stable", "nightly"), ("trunk", "head"), ("head", "master"),
    ("master", "main"), ("main", "develop"), ("1.2.3", "1.2.3.0.1"), ("cxi-next", "1.0"),
    ("1_2", "1_3"), ("2.0.0", "2.0.1-1"), ("2.29.7-1", "2.29.7-2"),
]

EQUAL = [("2.0", "2_0"), ("2.0", "2-0"), ("1.2.3", "1.2.3"), ("007", "7")]

SATISFIES = [
    # version, constraint, expected
    ("1.2.5", "1.2", True), ("1.2", "1.2", True), ("1.20", "1.2", False), ("1.2-dev", "1.2", True),
    ("1.4.2", "1.2:1.4", True), ("1.5", "1.2:1.4", False), ("1.1.9", "1.2:1.4", False),
    ("1.2", "=1.2", True), ("1.2.1", "=1.2", False), ("3.0", "3:", True), ("2.99", "3:", False),
    ("2.7.18", ":2", True), ("3.0", ":2", False), ("1.0rc1", "1.0", False), ("1.0rc1", ":1.0", True),
    ("8.1.30", "8.1.28:", True), ("9.0.1", "8.1.32,9.0.1:", True), ("9.0.0", "8.1.32,9.0.1:", False),
    ("develop", "1.0:", True), ("develop", ":1.0", False), ("develop", "develop", True),
    ("main", "develop", False), ("2.2.1", "2:", True), ("1.6.47", "1.6.40:1.6", True),
]


class VersionOrderTest(unittest.TestCase):
    def test_ordering(self):
        for a, b in ORDERED:
            with self.subTest(a=a, b=b):
                self.assertLess(Version(a), Version(b))
                self.assertGreater(Version(b), Version(a))
                self.assertNotEqual(Version(a), Version(b))

    def test_equality(self):
        for a, b in EQUAL:
            with self.subTest(a=a, b=b):
                self.assertEqual(Version(a), Version(b))
                self.assertEqual(hash(Version(a)), hash(Version(b)))

    def test_comparison_with_strings(self):
        v = Version("3.4.1")
        self.assertTrue(v >= "3.4")
        self.assertTrue(v < "3.10")
        self.assertTrue(v == "3.4.1")
        self.assertTrue(v != "3.4")
        self.assertTrue(Version("1.0") <= "1.0")

    def test_satisfies(self):
        for v, c, want in SATISFIES:
            with self.subTest(v=v, c=c):
                self.assertEqual(Version(v).satisfies(c), want)
                self.assertEqual(ver(c).contains(Version(v)) if not isinstance(ver(c), Version)
                                 else Version(v).satisfies(ver(c)), want)


class VersionFormsTest(unittest.TestCase):
    def test_forms(self):
        v = Version("1.2-3_4")
        self.assertEqual(str(v.dotted), "1.2.3.4")
        self.assertEqual(str(v.underscored), "1_2_3_4")
        self.assertEqual(str(v.dashed), "1-2-3-4")
        self.assertEqual(str(v.joined), "1234")
        self.assertEqual(str(Version("2.29.7-1").up_to(2)), "2.29")
        self.assertEqual(str(Version("1.2rc3").up_to(3)), "1.2rc")
        self.assertEqual(str(Version("1.2.3").up_to(-1)), "1.2")

    def test_indexing(self):
        v = Version("1.2rc3")
        self.assertEqual(v[0], 1)
        self.assertEqual(v[2], "rc")
        self.assertEqual(v[-1], 3)
        self.assertEqual(len(v), 4)
        self.assertEqual(str(v[:2]), "1.2")
        self.assertIsInstance(v[:2], Version)
        major, minor = Version("3.11")
        self.assertEqual((major, minor), (3, 11))

    def test_formatting(self):
        v = Version("1.6.47")
        self.assertEqual("{0}".format(v), "1.6.47")
        self.assertEqual("v%s" % v, "v1.6.47")
        self.assertEqual(f"{v.up_to(2)}", "1.6")
        self.assertEqual(Version("3.11.7").dotted_numeric_string, "3.11.7")

    def test_develop_and_prerelease(self):
        self.assertTrue(Version("develop").isdevelop())
        self.assertFalse(Version("1.0").isdevelop())
        self.assertTrue(Version("2.0rc1").is_prerelease())

    def test_ranges_and_lists(self):
        self.assertIsInstance(ver("1.2:1.4"), VersionRange)
        self.assertIsInstance(ver("1.2,1.4"), VersionList)
        self.assertIn(Version("1.3"), ver("1.2:1.4"))
        self.assertNotIn(Version("1.5"), ver("1.2:1.4"))
        self.assertIn(Version("1.4.9"), ver("1.2:1.4"))
        self.assertTrue(ver("1.2:1.3").satisfies(ver("1:")))
        self.assertFalse(ver("1.2:").satisfies(ver("1.2:1.9")))
        self.assertTrue(ver("1.2:1.4").intersects("1.4:2"))
        self.assertFalse(ver("1.2:1.4").intersects("1.5:2"))

    def test_invalid(self):
        with self.assertRaises(ValueError):
            Version("1.2 3")
        with self.assertRaises(ValueError):
            Version("")


if __name__ == "__main__":
    unittest.main()
