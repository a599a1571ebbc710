import os
import unittest

from tests.helpers import WorkspaceTest, context, node
from stack_spack.errors import ApiNotImplemented
from stack_spack.filelists import HeaderList, LibraryList
from stack_spack.spec import Spec


def dag(ws=None):
    nodes = {
        "app": node("app", "2.3.1", {"shared": True, "libs": ["shared", "static"], "build_type": "Release",
                                     "cxxstd": "17", "build_system": "cmake", "cuda_arch": ["80", "90"]},
                    deps=[("cray-mpich", ["build", "link"], ["mpi"]), ("zlib-ng", ["link"], ["zlib-api"]),
                          ("cmake", ["build"], []), ("python", ["build", "run"], [])],
                    languages=("c", "cxx"), compiler=("gcc", "12.3.0")),
        "cray-mpich": node("cray-mpich", "8.1.30", {"cuda": False},
                           deps=[("zlib-ng", ["link"], ["zlib-api"])]),
        "zlib-ng": node("zlib-ng", "2.2.1", {"compat": True, "shared": True}, languages=("c",)),
        "cmake": node("cmake", "3.30.5", {}),
        "python": node("python", "3.11.7", {"shared": True}),
    }
    return nodes


SATISFIES = [
    ("@2.3", True), ("@2:", True), ("@:2.2", False), ("@=2.3.1", True), ("@=2.3", False),
    ("app", True), ("app@2.3", True), ("other", False), ("test.app", True), ("builtin.app", False),
    ("+shared", True), ("~shared", False), ("-shared", False), ("shared=true", True), ("shared=True", True),
    ("libs=shared", True), ("libs=shared,static", True), ("libs=static,none", False),
    ("build_type=Release", True), ("build_type=Debug", False), ("cxxstd=17", True), ("+cxxstd", False),
    ("cuda_arch=80", True), ("cuda_arch=80,90", True), ("cuda_arch=70", False),
    ("+undeclared", False), ("~undeclared", False), ("build_system=cmake", True),
    ("%gcc", True), ("%gcc@12:", True), ("%gcc@12.3", True), ("%gcc@:11", False), ("%clang", False),
    ("%c=gcc", True), ("%cxx=gcc@12.3", True), ("%fortran=gcc", False), ("%[virtuals=c] gcc", True),
    ("%c", True), ("%fortran", False), ("%cmake", True), ("%cmake@3.9:", True), ("%cmake@:3.8", False),
    ("%python", True), ("%zlib-ng", True), ("%cray-mpich", True),
    ("^mpi", True), ("^cray-mpich", True), ("^cray-mpich@8.1:", True), ("^cray-mpich@9:", False),
    ("^cray-mpich+cuda", False), ("^cray-mpich~cuda", True), ("^zlib-api", True), ("^zlib-ng+compat", True),
    ("^[virtuals=mpi] cray-mpich", True), ("^[virtuals=zlib-api] cray-mpich", False), ("^mpi=cray-mpich", True),
    ("^openmpi", False), ("^python@3.8:", True), ("^python@:3.7", False), ("^cmake@3.16:", True),
    ("target=x86_64:", True), ("target=zen3:", False), ("target=:zen3", True), ("target=zen2", True),
    ("target=zen", False), ("target=zen:", True), ("target=aarch64:", False), ("target=x86_64_v3:", True),
    ("target=zen2,neoverse_v2:", True), ("target=zen2:zen4", True), ("target=zen3:zen4", False),
    ("platform=linux", True), ("platform=darwin", False), ("os=sles15", True), ("os=rhel8", False),
    ("arch=linux-sles15-zen2", True), ("arch=linux-sles15-zen3", False),
    ("@2.3.1 +shared ^zlib-ng@2:", True), ("@2.3 %gcc ^python@3", True), ("+shared %gcc@:4", False),
    ('cflags="-O2"', True), ('cflags="-O3"', False),
]


class SatisfiesTest(WorkspaceTest):
    def setUp(self):
        super().setUp()
        req = self.ws.request("app", dag(), flags={"cflags": ["-O2", "-g"]})
        self.ctx = context(req)
        self.spec = self.ctx.root

    def test_table(self):
        for constraint, want in SATISFIES:
            with self.subTest(constraint=constraint):
                self.assertEqual(self.spec.satisfies(constraint), want)

    def test_in(self):
        s = self.spec
        self.assertIn("+shared", s)
        self.assertIn("^mpi", s)
        self.assertIn("mpi", s)
        self.assertIn("zlib-ng", s)
        self.assertIn("cray-mpich@8", s)
        self.assertIn("%gcc", s)
        self.assertIn("%c=gcc", s)
        self.assertNotIn("openmpi", s)
        self.assertNotIn("%fortran=gcc", s)
        self.assertIn(s["zlib-ng"], s)

    def test_dependency_specs_satisfy(self):
        mpich = self.spec["mpi"]
        self.assertTrue(mpich.satisfies("cray-mpich@8.1.30"))
        self.assertTrue(mpich.satisfies("mpi"))
        self.assertTrue(mpich.satisfies("^zlib-api"))
        self.assertFalse(self.spec["zlib-ng"].satisfies("^mpi"))

    def test_abstract_spec(self):
        a = Spec("hdf5@1.12: +mpi")
        self.assertEqual(a.name, "hdf5")
        self.assertTrue(a.satisfies("hdf5@1:"))
        self.assertTrue(a.satisfies("+mpi"))
        self.assertFalse(a.satisfies("~mpi"))
        self.assertEqual(Spec("languages=c,c++,d").variants["languages"].value, ("c", "c++", "d"))
        self.assertEqual(Spec("zlib").name, "zlib")
        self.assertEqual(str(Spec("foo@=1.2")), "foo@=1.2")
        # `arch=` with a target alone is that target (it was dropped)
        self.assertEqual(str(Spec("+mpi arch=ppc64le:")), str(Spec("+mpi target=ppc64le:")))
        self.assertNotEqual(str(Spec("+mpi arch=ppc64le:")), str(Spec("+mpi")))


class MixedToolchainTest(WorkspaceTest):
    def test_compiler_per_language(self):
        n = node("cray-mpich", languages=("c", "cxx", "fortran"))
        n["compilers"] = {"c": {"name": "gcc", "version": "13.2.0"}, "cxx": {"name": "gcc", "version": "13.2.0"},
                          "fortran": {"name": "nvhpc", "version": "24.3"}}
        s = context(self.ws.request("cray-mpich", {"cray-mpich": n})).root
        for constraint, want in (("%fortran=nvhpc", True), ("%fortran=gcc", False), ("%c=gcc", True),
                                 ("%c,cxx=gcc@13", True), ("%gcc", True), ("%nvhpc@24:", True),
                                 ("%cxx=nvhpc", False)):
            with self.subTest(constraint=constraint):
                self.assertEqual(s.satisfies(constraint), want)
                self.assertEqual(constraint in s, want)
        self.assertEqual(s["fortran"].name, "nvhpc")
        self.assertEqual(s["c"].name, "gcc")


class LookupTest(WorkspaceTest):
    def setUp(self):
        super().setUp()
        nodes = dag()
        req = self.ws.request("app", nodes)
        self.ctx = context(req)
        self.spec = self.ctx.root

    def test_by_name_and_virtual(self):
        s = self.spec
        self.assertEqual(s["mpi"].name, "cray-mpich")
        self.assertEqual(s["cray-mpich"].name, "cray-mpich")
        self.assertEqual(s["zlib-api"].name, "zlib-ng")
        self.assertEqual(s["app"].name, "app")
        self.assertEqual(str(s["zlib-api"].version), "2.2.1")
        self.assertTrue(s["mpi"].prefix.endswith("prefix/cray-mpich"))
        with self.assertRaises(KeyError):
            s["openmpi"]

    def test_language_virtuals_are_the_compiler(self):
        s = self.spec
        self.assertEqual(s["c"].name, "gcc")
        self.assertEqual(str(s["cxx"].version), "12.3.0")
        self.assertTrue(s["cxx"].package.cxx.endswith("g++"))
        self.assertEqual(s["c"].package.openmp_flag, "-fopenmp")
        self.assertEqual(s["cxx"].package.standard_flag(language="cxx", standard="17"), "-std=c++17")

    def test_compiler_wrapper_node(self):
        # Spack's compiler-wrapper package: here stack's wrappers (python's package reads it)
        ctx = context(self.ws.request("app", dag(), wrappers={"cc": "/opt/wrap/bin/cc", "cxx": "/opt/wrap/bin/c++"}))
        s = ctx.root
        wrapper = s["compiler-wrapper"].package
        link = s["cxx"].package.compiler_wrapper_link_paths["cxx"]
        self.assertEqual(str(wrapper.bin_dir() / link), "/opt/wrap/bin/c++")

    def test_query_parameters(self):
        q = self.spec["cray-mpich:cxx,f90"]
        self.assertEqual(q.last_query.extra_parameters, ["cxx", "f90"])
        self.assertEqual(q.last_query.name, "cray-mpich")
        self.assertTrue(self.spec["mpi"].last_query.isvirtual)

    def test_mpi_provider_defaults(self):
        m = self.spec["mpi"]
        self.assertTrue(m.mpicc.endswith("/bin/mpicc"))
        self.assertTrue(m.mpicxx.endswith("/bin/mpicxx"))
        self.assertTrue(m.mpifc.endswith("/bin/mpif90"))
        self.assertTrue(m.mpif77.endswith("/bin/mpif77"))

    def test_dag(self):
        s = self.spec
        self.assertEqual(sorted(d.name for d in s.dependencies()), ["cmake", "cray-mpich", "python", "zlib-ng"])
        self.assertEqual(sorted(d.name for d in s.dependencies(deptype="link")), ["cray-mpich", "zlib-ng"])
        self.assertEqual([d.name for d in s.dependencies(deptype="build")], ["cray-mpich", "cmake", "python"])
        self.assertEqual(sorted(n.name for n in s.traverse()), ["app", "cmake", "cray-mpich", "python", "zlib-ng"])
        self.assertEqual(sorted(n.name for n in s.traverse(root=False, deptype="link")), ["cray-mpich", "zlib-ng"])
        post = [n.name for n in s.traverse(order="post")]
        self.assertEqual(post[-1], "app")
        self.assertLess(post.index("zlib-ng"), post.index("cray-mpich"))
        self.assertEqual([p.name for p in s["zlib-ng"].dependents()], ["app", "cray-mpich"])
        edges = s.edges_to_dependencies(name="mpi")
        self.assertEqual(edges[0].virtuals, ("mpi",))

    def test_attributes(self):
        s = self.spec
        self.assertEqual(s.name, "app")
        self.assertEqual(s.namespace, "test")
        self.assertEqual(s.fullname, "test.app")
        self.assertEqual(s.variants["libs"].value, ("shared", "static"))
        self.assertIs(s.variants["shared"].value, True)
        self.assertEqual(s.variants["cxxstd"].value, "17")
        self.assertIn("cxxstd", s.variants)
        self.assertNotIn("nope", s.variants)
        self.assertEqual(str(s.compiler), "gcc@12.3.0")
        self.assertTrue(s.compiler.satisfies("gcc@12:"))
        self.assertEqual(str(s.target), "zen2")
        self.assertEqual(str(s.target.family), "x86_64")
        self.assertTrue(s.target >= "zen")
        self.assertFalse(s.target >= "zen3")
        self.assertEqual(s.platform, "linux")
        self.assertEqual(s.os, "sles15")
        self.assertEqual(str(s.architecture), "linux-sles15-zen2")
        self.assertEqual(s.dag_hash(), "app")
        self.assertEqual(s.dag_hash(2), "ap")
        self.assertTrue(s.concrete)
        self.assertFalse(s.external)
        self.assertEqual(s.prefix.lib, os.path.join(s.prefix, "lib"))
        self.assertEqual(s.prefix.share.man, os.path.join(s.prefix, "share", "man"))

    def test_text(self):
        s = self.spec
        self.assertEqual(str(s.variants), "+shared build_system=cmake build_type=Release cuda_arch=80,90 "
                                          "cxxstd=17 libs=shared,static")
        self.assertEqual(str(s), "app@2.3.1" + str(s.variants) + " arch=linux-sles15-zen2 %gcc@12.3.0")
        self.assertEqual(str(s.variants["shared"]), "+shared")
        self.assertEqual(str(s.variants["libs"]), "libs=shared,static")

    def test_format(self):
        s = self.spec
        self.assertEqual(s.format("{name}-{version}"), "app-2.3.1")
        self.assertEqual(s.format("{name}{@version}"), "app@2.3.1")
        self.assertEqual(s.format("{compiler.name}@{compiler.version}"), "gcc@12.3.0")
        self.assertEqual(s.format("{hash:2}"), "ap")
        self.assertEqual(s.format("{variants.build_type}"), "Release")
        self.assertEqual(s.format("{^python.version}"), "3.11.7")
        self.assertEqual(s.format("{architecture}"), "linux-sles15-zen2")
        self.assertEqual(s.format("{namespace}.{name}"), "test.app")

    def test_missing_spack_attribute_is_an_api_error(self):
        with self.assertRaises(ApiNotImplemented) as e:
            self.spec.splice
        self.assertIn("Spec.splice is not implemented", str(e.exception))
        with self.assertRaises(AttributeError):
            self.spec.no_such_thing
        self.assertFalse(hasattr(self.spec, "mpicc"))
        self.assertTrue(hasattr(self.spec["mpi"], "mpicc"))


class LibsHeadersTest(WorkspaceTest):
    def make_prefix(self, name, files):
        for f in files:
            self.ws.file("prefix/{}/{}".format(name, f), "x")

    def test_default_libs_and_headers(self):
        # `foo-bar`: lib<name> with any character for the dash, shared first
        self.make_prefix("foo-bar", ["lib/libfoo_bar.so", "lib/libfoo_bar.a", "include/foo.h",
                                     "include/foo/detail.hpp"])
        self.make_prefix("fftw", ["lib64/libfftw3.so", "include/fftw3.h"])
        nodes = {
            "app": node("app", deps=["foo-bar", ("fftw", ["link"], ["fftw-api"])]),
            "foo-bar": node("foo-bar", variants={"shared": True}),
            "fftw": node("fftw", variants={"shared": False}),
        }
        ctx = context(self.ws.request("app", nodes))
        s = ctx.root
        lib = self.ws.path("prefix", "foo-bar", "lib")
        libs = s["foo-bar"].libs
        self.assertIsInstance(libs, LibraryList)
        self.assertEqual(list(libs), [os.path.join(lib, "libfoo_bar.so")])
        self.assertEqual(libs.names, ["foo_bar"])
        self.assertEqual(libs.ld_flags, "-L{} -lfoo_bar".format(lib))
        self.assertEqual(libs.search_flags, "-L{}".format(lib))
        self.assertEqual(libs.link_flags, "-lfoo_bar")
        self.assertEqual(libs.directories, [lib])
        self.assertEqual(libs.joined(";"), os.path.join(lib, "libfoo_bar.so"))
        inc = self.ws.path("prefix", "foo-bar", "include")
        hdrs = s["foo-bar"].headers
        self.assertIsInstance(hdrs, HeaderList)
        self.assertEqual(hdrs.directories, [inc])
        self.assertEqual(hdrs.include_flags, "-I" + inc)
        self.assertEqual(hdrs.cpp_flags, hdrs.include_flags)
        self.assertEqual(sorted(hdrs.names), ["detail", "foo"])
        # ~shared asks for the static library, which fftw does not have
        from stack_spack.errors import NoLibrariesError
        with self.assertRaises(NoLibrariesError):
            s["fftw-api"].libs
        self.assertEqual(s["fftw"].headers.directories, [self.ws.path("prefix", "fftw", "include")])

    def test_package_property_and_virtual_specific_libs(self):
        self.make_prefix("openblas", ["lib/libopenblas.so"])
        self.make_prefix("mylapack", ["lib/libfoo_lapack.so", "lib/libfoo_blas.so"])
        self.ws.package("mylapack", '''
            class Mylapack(Package):
                version("1.0")
                provides("blas", "lapack")

                @property
                def blas_libs(self):
                    return find_libraries("libfoo_blas", self.prefix.lib)

                @property
                def libs(self):
                    q = self.spec.last_query
                    return find_libraries("libfoo_lapack", self.prefix.lib) if "lapack" in q.extra_parameters or \\
                        q.name == "lapack" else LibraryList([])
        ''')
        nodes = {
            "app": node("app", deps=[("openblas", ["link"], ["blas"]), ("mylapack", ["link"], ["lapack"])]),
            "openblas": node("openblas"),
            "mylapack": node("mylapack", module=True),
        }
        ctx = context(self.ws.request("app", nodes))
        s = ctx.root
        self.assertEqual(s["blas"].libs.names, ["openblas"])
        self.assertEqual(s["lapack"].libs.names, ["foo_lapack"])
        self.assertEqual(s["mylapack"].libs.names, [])
        self.assertEqual(s["mylapack:lapack"].libs.names, ["foo_lapack"])


if __name__ == "__main__":
    unittest.main()
