import unittest

from tests.helpers import WorkspaceTest, context, node
from stack_spack.errors import NoSuchMethodError

PACKAGE = '''
class MmBase(Package):
    def bar(self):
        return "base"


class Mm(MmBase):
    version("2.0")
    version("1.0")
    variant("x", default=False, description="x")

    def foo(self):
        return "default"

    @when("@2:")
    def foo(self):
        return "two"

    @when("+x")
    def foo(self):
        return "x"

    @when("@1")
    def bar(self):
        return "bar1"

    @when("@1")
    def only_one(self):
        return "one"

    @property
    def prop(self):
        return "plain"

    @when("@2:")
    @property
    def prop(self):
        return "two"

    def by_compiler(self):
        return "other"

    @when("%gcc@12:")
    def by_compiler(self):
        return "new gcc"

    def needs_mpi(self):
        return "without"

    @when("^mpi")
    def needs_mpi(self):
        return "with mpi"

    @when("+x")
    def replaced(self):
        return "x"

    def replaced(self):
        # a plain definition after the @when ones replaces them (as in Python)
        return "plain"
'''


class MultimethodTest(WorkspaceTest):
    def pkg(self, version, variants=None, compiler=("gcc", "12.2.0"), deps=()):
        self.ws.modules.clear()
        self.ws.package("mm", PACKAGE)
        nodes = {"mm": node("mm", version, dict(variants or {}), module=True, compiler=compiler, deps=deps)}
        for d in deps:
            nodes[d[0]] = node(d[0])
        ctx = context(self.ws.request("mm", nodes))
        return ctx.root.package

    def test_first_matching_definition_wins(self):
        self.assertEqual(self.pkg("2.0", {"x": True}).foo(), "two")
        self.assertEqual(self.pkg("1.0", {"x": True}).foo(), "x")
        self.assertEqual(self.pkg("1.0", {"x": False}).foo(), "default")

    def test_falls_back_to_base_class(self):
        self.assertEqual(self.pkg("1.0").bar(), "bar1")
        self.assertEqual(self.pkg("2.0").bar(), "base")

    def test_no_match_no_default(self):
        self.assertEqual(self.pkg("1.0").only_one(), "one")
        with self.assertRaises(NoSuchMethodError):
            self.pkg("2.0").only_one()

    def test_properties(self):
        self.assertEqual(self.pkg("1.0").prop, "plain")
        self.assertEqual(self.pkg("2.0").prop, "two")

    def test_conditions_on_compiler_and_dependencies(self):
        self.assertEqual(self.pkg("1.0").by_compiler(), "new gcc")
        self.assertEqual(self.pkg("1.0", compiler=("gcc", "11.1.0")).by_compiler(), "other")
        self.assertEqual(self.pkg("1.0").needs_mpi(), "without")
        self.assertEqual(self.pkg("1.0", deps=[("openmpi", ["link"], ["mpi"])]).needs_mpi(), "with mpi")
        self.assertEqual(self.pkg("1.0", {"x": True}).replaced(), "plain")


class BuildSystemDefaultTest(WorkspaceTest):
    def test_builder_of_the_declared_default(self):
        self.ws.package("two", '''
            from spack_repo.builtin.build_systems.autotools import AutotoolsPackage
            from spack_repo.builtin.build_systems.cmake import CMakePackage


            class Two(CMakePackage, AutotoolsPackage):
                version("1.0")
                build_system("cmake", "autotools", default="autotools")
        ''')
        pkg = context(self.ws.request("two", {"two": node("two", module=True)})).root.package
        self.assertEqual(type(pkg.builder).__name__, "AutotoolsBuilder")
        pkg = context(self.ws.request("two", {"two": node("two", module=True, variants={"build_system": "cmake"})}))
        self.assertEqual(type(pkg.root.package.builder).__name__, "CMakeBuilder")


class PackageAndBuilderTest(WorkspaceTest):
    def test_super_and_fallbacks_reach_the_builder_defaults(self):
        self.ws.package("sup", '''
            from spack_repo.builtin.build_systems.cmake import CMakePackage


            class SupBase(CMakePackage):
                def cmake_args(self):
                    return super().cmake_args() + ["-DBASE=1"]


            class Sup(SupBase):
                version("2.0")
                version("1.0")

                def cmake_args(self):
                    return super().cmake_args() + ["-DSUP=1"]

                @when("@1")
                def only_old(self):
                    return ["old"]

                @property
                def broken(self):
                    return self.spec["zlib"].nothing_like_this
        ''')
        self.ws.package("when-only", '''
            from spack_repo.builtin.build_systems.cmake import CMakePackage


            class WhenOnly(CMakePackage):
                version("2.0")

                @when("@:1")
                def cmake_args(self):
                    return ["-DOLD=1"]
        ''')
        nodes = {"sup": node("sup", "2.0", {"build_system": "cmake"}, module=True, deps=["zlib"]), "zlib": node("zlib")}
        pkg = context(self.ws.request("sup", nodes)).root.package
        self.assertEqual(pkg.builder.cmake_args(), ["-DBASE=1", "-DSUP=1"])
        self.assertEqual(pkg.cmake_args(), ["-DBASE=1", "-DSUP=1"])
        from stack_spack.package_base import PackagePropertyError
        with self.assertRaises(PackagePropertyError):
            pkg.broken
        pkg = context(self.ws.request("when-only", {"when-only": node("when-only", "2.0", {"build_system": "cmake"},
                                                                      module=True)})).root.package
        self.assertEqual(pkg.builder.cmake_args(), [])


if __name__ == "__main__":
    unittest.main()
