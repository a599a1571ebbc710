import json
import os
import subprocess
import sys
import unittest

from tests.helpers import LAYER, WorkspaceTest
from stack_spack import record

FIXTURE = '''
import platform

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.test.packages.base_pkg.package import BasePkg


class Demo(CMakePackage, BasePkg):
    """A package for the directive tests."""

    homepage = "https://example.org/demo"
    url = "https://example.org/demo/demo-1.2.3.tar.gz"
    git = "https://example.org/demo.git"
    maintainers("alice", "bob")

    license("Apache-2.0", checked_by="alice")

    version("develop", branch="main")
    version("1.2.3", sha256="a" * 64)
    version("1.2.0", "b" * 32)
    version("1.0.0", sha256="c" * 64, url="https://mirror.example.org/old/demo_1_0_0.tgz", deprecated=True)
    for _v in ["0.9.1", "0.9.0"]:
        version(_v, sha256="d" * 64)
    if platform.machine() == "aarch64":
        version("0.8-arm", sha256="e" * 64)

    variant("shared", default=True, description="Build shared libraries")
    variant("debug", description="no default: False")
    variant("backend", default="serial", values=("serial", "openmp", "cuda"), description="backend")
    variant("langs", default="c,cxx", values=("c", "cxx", "fortran"), multi=True, description="languages")
    variant("tools", values=any_combination_of("a", "b"), description="optional tools")
    variant("std", default="17", values=("14", "17", conditional("20", when="@1.2:")), description="std")
    variant("threads", values=disjoint_sets(("auto",), ("openmp", "tbb")).with_default("auto"),
            description="threading")

    depends_on("c", type="build")
    depends_on("zlib-api")
    depends_on("mpi", when="+mpi")
    depends_on("python@3.8:", type=("build", "run"), when="@1.2:")
    conflicts("%gcc@:7", "@1.2:", "needs C++17")
    conflicts("backend=cuda", when="~shared", msg="cuda needs shared")
    requires("%gcc", "%clang", policy="one_of", when="@develop", msg="gcc or clang")
    provides("demo-api@2", when="@1.2:")
    provides("blas", "lapack")
    patch("fix.patch", when="@:1.0")
    patch("https://example.org/fix2.patch", sha256="f" * 64, level=2, working_dir="src")
    resource(name="data", url="https://example.org/data.tgz", sha256="0" * 64, destination="share")
    extends("python", when="+python")
    variant("python", default=False, description="python bindings")
    variant("mpi", default=False, description="mpi")
    redistribute(binary=False)
    can_splice("demo@1.2.0", when="@1.2.3")

    with when("+shared"):
        depends_on("libfoo@2:")
        with when("@1.2:"):
            depends_on("libbar", type="link")
            conflicts("target=aarch64:", when="backend=openmp")

    with default_args(type="build"):
        depends_on("pkgconfig")
        depends_on("perl", when="@develop")

    @when("@1.2:")
    def cmake_args(self):
        return [self.define("NEW", True)]

    def cmake_args(self):
        return []
'''

BASE = '''
from spack_repo.builtin.build_systems.generic import Package


class BasePkg(Package):
    """A base class imported from another package file."""

    variant("from_base", default=True, description="declared by the base")
    depends_on("basedep")

    base_versions = {"1.0": "x"}
'''


class DirectivesTest(WorkspaceTest):
    def setUp(self):
        super().setUp()
        self.ws.package("base-pkg", BASE)
        self.path = self.ws.package("demo", FIXTURE)

    def record(self, arch="x86_64"):
        r = record.evaluate(self.path, arch)
        self.assertNotIn("error", r, r.get("error"))
        return r

    def test_versions(self):
        r = self.record()
        vs = {v["version"]: v for v in r["versions"]}
        self.assertEqual(list(vs), ["develop", "1.2.3", "1.2.0", "1.0.0", "0.9.1", "0.9.0"])
        self.assertEqual(vs["develop"]["branch"], "main")
        self.assertNotIn("fetch_url", vs["develop"])
        self.assertEqual(vs["1.2.3"]["sha256"], "a" * 64)
        self.assertEqual(vs["1.2.0"]["md5"], "b" * 32)
        self.assertTrue(vs["1.0.0"]["deprecated"])
        self.assertEqual(vs["1.2.3"]["fetch_url"], "https://example.org/demo/demo-1.2.3.tar.gz")
        self.assertEqual(vs["0.9.1"]["fetch_url"], "https://example.org/demo/demo-0.9.1.tar.gz")
        self.assertEqual(vs["1.0.0"]["fetch_url"], "https://mirror.example.org/old/demo_1_0_0.tgz")

    def test_per_architecture(self):
        x86 = [v["version"] for v in self.record("x86_64")["versions"]]
        arm = [v["version"] for v in self.record("aarch64")["versions"]]
        self.assertNotIn("0.8-arm", x86)
        self.assertIn("0.8-arm", arm)

    def test_variants(self):
        r = self.record()
        vs = {(v["name"], v["when"]): v for v in r["variants"]}
        self.assertEqual(vs[("shared", None)]["default"], True)
        self.assertEqual(vs[("shared", None)]["values"], [True, False])
        self.assertEqual(vs[("debug", None)]["default"], False)
        self.assertEqual(vs[("backend", None)]["values"], ["serial", "openmp", "cuda"])
        self.assertFalse(vs[("backend", None)]["multi"])
        self.assertTrue(vs[("langs", None)]["multi"])
        self.assertEqual(vs[("langs", None)]["default"], "c,cxx")
        self.assertEqual(vs[("tools", None)]["default"], "none")
        self.assertTrue(vs[("tools", None)]["multi"])
        self.assertEqual(vs[("tools", None)]["values"]["disjoint_sets"], [["none"], ["a", "b"]])
        std = vs[("std", None)]["values"]
        self.assertEqual(std[:2], ["14", "17"])
        self.assertEqual(std[2], [{"value": "20", "when": "@1.2:"}])
        self.assertEqual(vs[("threads", None)]["default"], "auto")
        # base classes add theirs
        self.assertIn(("build_type", "build_system=cmake"), vs)
        self.assertIn(("generator", "build_system=cmake"), vs)
        self.assertIn(("ipo", "build_system=cmake %cmake@3.9:"), vs)
        self.assertIn(("from_base", None), vs)
        self.assertEqual(vs[("build_system", None)]["default"], "cmake")

    def test_dependencies_and_conditions(self):
        r = self.record()
        deps = {(d["spec"], d["when"]): d["type"] for d in r["dependencies"]}
        self.assertEqual(deps[("zlib-api", None)], ["build", "link"])
        self.assertEqual(deps[("c", None)], ["build"])
        self.assertEqual(deps[("python@3.8:", "@1.2:")], ["build", "run"])
        self.assertIn(("libfoo@2:", "+shared"), deps)
        self.assertEqual(deps[("libbar", "@1.2: +shared")], ["link"])
        self.assertEqual(deps[("pkgconfig", None)], ["build"])
        self.assertEqual(deps[("perl", "@develop")], ["build"])
        self.assertEqual(deps[("python", "+python")], ["build", "run"])
        self.assertIn(("cmake", "build_system=cmake"), deps)
        self.assertIn(("basedep", None), deps)
        conflicts = {(c["spec"], c["when"]): c["msg"] for c in r["conflicts"]}
        self.assertEqual(conflicts[("%gcc@:7", "@1.2:")], "needs C++17")
        self.assertEqual(conflicts[("backend=cuda", "~shared")], "cuda needs shared")
        self.assertIn(("target=aarch64:", "@1.2: +shared backend=openmp"), conflicts)
        self.assertEqual(r["requires"], [{"specs": ["%gcc", "%clang"], "policy": "one_of", "when": "@develop",
                                          "msg": "gcc or clang"}])
        provides = {p["when"]: p["specs"] for p in r["provides"]}
        self.assertEqual(provides["@1.2:"], ["demo-api@2"])
        self.assertEqual(provides[None], ["blas", "lapack"])
        self.assertEqual(r["extends"], [{"spec": "python", "when": "+python"}])

    def test_other_directives(self):
        r = self.record()
        self.assertEqual(r["maintainers"], ["alice", "bob"])
        self.assertEqual(r["licenses"], [{"license": "Apache-2.0", "when": None}])
        patches = {p["path_or_url"]: p for p in r["patches"]}
        self.assertEqual(patches["fix.patch"]["when"], "@:1.0")
        self.assertEqual(patches["https://example.org/fix2.patch"]["level"], 2)
        self.assertEqual(patches["https://example.org/fix2.patch"]["working_dir"], "src")
        self.assertEqual(r["resources"][0]["name"], "data")
        self.assertEqual(r["resources"][0]["fetch"]["url"], "https://example.org/data.tgz")
        self.assertEqual(r["redistribute"], [{"source": False, "binary": True, "when": None}])
        self.assertEqual(r["can_splice"][0]["target"], "demo@1.2.0")
        self.assertEqual(r["class"], "Demo")
        self.assertIn("CMakePackage", r["bases"])
        lines = [c["line"] for c in r["calls"] if c["directive"] == "version" and c["file"] == self.path]
        self.assertEqual(len(lines), 6)

    def test_class_holds_spack_shapes(self):
        from stack_spack import finder

        record.evaluate(self.path, "x86_64")
        cls = sys.modules["spack_repo.test.packages.demo.package"].Demo
        from stack_spack.version import Version

        self.assertIn(Version("1.2.3"), cls.versions)
        self.assertEqual(cls.versions[Version("1.2.3")]["sha256"], "a" * 64)
        self.assertTrue(cls.has_variant("backend"))
        self.assertIn("zlib-api", cls.dependency_names())
        finder.forget_packages()

    def test_cli(self):
        out = subprocess.run([sys.executable, "-I", os.path.join(LAYER, "directives.py"), self.path],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(out.returncode, 0, out.stderr.decode())
        data = json.loads(out.stdout)
        pkg = data["packages"][0]
        self.assertEqual(pkg["module"], "spack_repo.test.packages.demo.package")
        self.assertEqual(sorted(pkg["archs"]), ["aarch64", "x86_64"])
        self.assertEqual(pkg["archs"]["x86_64"]["name"], "demo")

    def test_repeated_dependencies_merge_and_extends_python_adds_the_venv(self):
        p = self.ws.package("ext", '''
            class Ext(Package):
                version("1.0", sha256="0" * 64)
                variant("a", default=False, description="a")
                depends_on("python@3.8:", type=("build", "run"), when="+a")
                extends("python", when="+a")
                depends_on("zlib", type="build")
                depends_on("zlib@1.3:", type="link")
        ''')
        r = record.evaluate(p, "x86_64")
        deps = {(d["spec"], d["when"]): sorted(d["type"]) for d in r["dependencies"]}
        self.assertEqual(deps[("python@3.8:", "+a")], ["build", "run"])
        self.assertEqual(deps[("python-venv", "+a")], ["build", "run"])
        self.assertEqual(deps[("zlib@1.3:", None)], ["build", "link"])
        self.assertEqual(len(deps), 3, deps)

    def test_calls_record_the_class_body_line_that_led_to_them(self):
        p = self.ws.package("helper", '''
            def helper_depends_on(spec):
                depends_on(spec)


            class Helper(Package):
                version("1.0", sha256="0" * 64)
                helper_depends_on("zlib")
        ''')
        r = record.evaluate(p, "x86_64")
        call = [c for c in r["calls"] if c["directive"] == "depends_on"][0]
        with open(p) as f:
            lines = f.read().split("\n")
        self.assertIn("depends_on(spec)", lines[call["line"] - 1])
        self.assertIn('helper_depends_on("zlib")', lines[call["body_line"] - 1])

    def test_conditions_and_repeated_specs_intersect_their_versions(self):
        p = self.ws.package("inter", '''
            class Inter(Package):
                version("3.0", sha256="0" * 64)
                with when("@2:"):
                    depends_on("x", when="@:3")
                depends_on("y@1.16.6:", type="build")
                depends_on("y@:1", type="build")
        ''')
        r = record.evaluate(p, "x86_64")
        deps = {d["spec"]: d["when"] for d in r["dependencies"]}
        self.assertEqual(deps["x"], "@2:3")
        self.assertIn("y@1.16.6:1", deps)

    def test_errors_are_recorded(self):
        bad = self.ws.package("bad", '''
            class Bad(Package):
                version("1.0")
                depends_on(not_a_name_anywhere)
        ''')
        r = record.evaluate(bad, "x86_64")
        self.assertIn("NameError", r["error"])
        self.assertTrue(r["at"].endswith("bad/package.py:5"), r["at"])
        missing = self.ws.package("missing", '''
            class Missing(Package):
                version("1.0")
                sbang_install_path()
        ''')
        r = record.evaluate(missing, "x86_64")
        self.assertEqual(r["kind"], "api")
        self.assertIn("missing/package.py:5: name 'sbang_install_path' is not implemented", r["error"])
        # What the failed class bodies queued is not given to the next class.
        good = self.ws.package("good", '''
            class Good(Package):
                version("2.0", sha256="0" * 64)
        ''')
        r = record.evaluate(good, "x86_64")
        self.assertEqual([v["version"] for v in r["versions"]], ["2.0"])


class UrlTest(WorkspaceTest):
    def url(self, body, version, name="u"):
        p = self.ws.package(name, body)
        r = record.evaluate(p, "x86_64")
        self.assertNotIn("error", r, r.get("error"))
        for v in r["versions"]:
            if v["version"] == version:
                return v.get("fetch_url", v.get("fetch_url_error"))
        raise AssertionError("no version " + version)

    def test_the_version_is_substituted_as_written(self):
        # Spack puts `str(version)` where the file name writes its version;
        # separators are not rewritten (packages that need another style
        # define `url_for_version`).
        body = '''
            class U(Package):
                url = "https://example.org/v1.2.3/u-1_2_3-src.tar.gz"
                version("2.0.1", sha256="0" * 64)
                version("1.2.3", sha256="1" * 64)
        '''
        self.assertEqual(self.url(body, "2.0.1"), "https://example.org/v1.2.3/u-2.0.1-src.tar.gz")
        cran = '''
            class U(Package):
                url = "https://cran.r-project.org/src/contrib/mgcv_1.9-4.tar.gz"
                version("1.9-4", sha256="0" * 64)
                version("1.8-42", sha256="1" * 64)
        '''
        self.assertEqual(self.url(cran, "1.8-42", "mgcv"),
                         "https://cran.r-project.org/src/contrib/mgcv_1.8-42.tar.gz")
        rc = '''
            class U(Package):
                url = "https://example.org/MUST-v1.8.0-rc1.tar.gz"
                version("1.9.0-rc1", sha256="0" * 64)
                version("1.8.0", sha256="1" * 64)
        '''
        self.assertEqual(self.url(rc, "1.9.0-rc1", "must"), "https://example.org/MUST-v1.9.0-rc1.tar.gz")
        # What follows the name is the version (Spack's first passes): a
        # letter suffix (`1.0b1`), a name glued to it (`squashfs4.3`), a
        # package's prefix trick (`518-0.19`).
        for name, url, version, want in (
            ("bolt", "https://example.org/v1.0b1/bolt-1.0b1.tar.gz", "2.0",
             "https://example.org/v2.0/bolt-2.0.tar.gz"),
            ("squash", "https://example.org/squashfs4.3/squashfs4.3.tar.gz", "4.6.1",
             "https://example.org/squashfs4.6.1/squashfs4.6.1.tar.gz"),
            # words after the version are not part of it; a file named in
            # the query is the file
            ("iwyu", "https://example.org/iwyu-0.26.src.tar.gz", "0.23",
             "https://example.org/iwyu-0.23.src.tar.gz"),
            ("cloog", "https://example.org/count.php3?url=./cloog-0.18.1.tar.gz", "0.18.4",
             "https://example.org/count.php3?url=./cloog-0.18.4.tar.gz"),
        ):
            body = '''
                class U(Package):
                    url = "{}"
                    version("{}", sha256="0" * 64)
            '''.format(url, version)
            self.assertEqual(self.url(body, version, name), want)

    def test_dashes_and_no_version(self):
        body = '''
            class U(Package):
                url = "https://example.org/files/u-2024-01-15.tgz"
                version("2024-02-01", sha256="0" * 64)
        '''
        self.assertEqual(self.url(body, "2024-02-01"), "https://example.org/files/u-2024-02-01.tgz")
        body = '''
            class U(Package):
                url = "https://example.org/latest.tgz"
                version("3", sha256="0" * 64)
        '''
        self.assertEqual(self.url(body, "3", name="u2"), "https://example.org/latest.tgz")

    def test_a_versions_own_url_wins_over_url_for_version(self):
        body = '''
            class U(Package):
                version("2.0", sha256="0" * 64)
                version("1.0", sha256="1" * 64, url="https://example.org/Old-1.0.tar.gz")

                def url_for_version(self, version):
                    return "https://example.org/new-{0}.tar.gz".format(version)
        '''
        self.assertEqual(self.url(body, "1.0", "own"), "https://example.org/Old-1.0.tar.gz")
        self.assertEqual(self.url(body, "2.0", "own2"), "https://example.org/new-2.0.tar.gz")

    def test_custom_url_for_version(self):
        body = '''
            class U(Package):
                url = "https://example.org/u-1.0.tar.gz"
                version("1.10.2", sha256="0" * 64)
                version("0.9", sha256="1" * 64)

                def url_for_version(self, version):
                    if version < Version("1"):
                        return "https://old.example.org/u{0}.zip".format(version.joined)
                    return "https://example.org/{0}/u-{1}.tar.gz".format(version.up_to(2), version)
        '''
        self.assertEqual(self.url(body, "1.10.2"), "https://example.org/1.10/u-1.10.2.tar.gz")
        self.assertEqual(self.url(body, "0.9", name="u3"), "https://old.example.org/u09.zip")

    def test_mirrors_pypi_cran(self):
        gnu = '''
            from spack_repo.builtin.build_systems.gnu import GNUMirrorPackage
            from spack_repo.builtin.build_systems.autotools import AutotoolsPackage

            class U(AutotoolsPackage, GNUMirrorPackage):
                gnu_mirror_path = "hello/hello-2.12.tar.gz"
                version("2.12.1", sha256="0" * 64)
        '''
        self.assertEqual(self.url(gnu, "2.12.1", "gnu"), "https://ftpmirror.gnu.org/hello/hello-2.12.1.tar.gz")
        xorg = '''
            from spack_repo.builtin.build_systems.xorg import XorgPackage
            from spack_repo.builtin.build_systems.autotools import AutotoolsPackage

            class U(AutotoolsPackage, XorgPackage):
                xorg_mirror_path = "lib/libX11-1.8.7.tar.xz"
                version("1.8.10", sha256="0" * 64)
        '''
        self.assertEqual(self.url(xorg, "1.8.10", "xorg"),
                         "https://www.x.org/archive/individual/lib/libX11-1.8.10.tar.xz")
        pypi = '''
            from spack_repo.builtin.build_systems.python import PythonPackage

            class U(PythonPackage):
                pypi = "numpy/numpy-1.26.4.tar.gz"
                version("2.1.0", sha256="0" * 64)
        '''
        self.assertEqual(self.url(pypi, "2.1.0", "pypi"),
                         "https://files.pythonhosted.org/packages/source/n/numpy/numpy-2.1.0.tar.gz")
        cran = '''
            from spack_repo.builtin.build_systems.r import RPackage

            class U(RPackage):
                cran = "ggplot2"
                version("3.5.1", sha256="0" * 64)
                version("3.4.0", sha256="1" * 64)
        '''
        self.assertEqual(self.url(cran, "3.4.0", "cran"),
                         "https://cran.r-project.org/src/contrib/ggplot2_3.4.0.tar.gz")


if __name__ == "__main__":
    unittest.main()
