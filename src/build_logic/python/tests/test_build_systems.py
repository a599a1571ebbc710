"""Each build system builds a tiny project for real through run.py."""

import os
import shutil
import subprocess
import unittest

from tests.helpers import WorkspaceTest, have, node

HELLO_C = """\
#include <stdio.h>
int main(void) {
#ifdef GREETING
    puts(GREETING);
#else
    puts("hello");
#endif
    return 0;
}
"""


class BuildSystemTest(WorkspaceTest):
    def build(self, name, variants=None, deps=None, extra_nodes=None, **request_kw):
        nodes = {name: node(name, "1.0", dict(variants or {}), module=True, deps=deps or [])}
        nodes.update(extra_nodes or {})
        req = self.ws.request(name, nodes, **request_kw)
        rc, out, err = self.ws.run(req)
        self.assertEqual(rc, 0, "stdout:\n{}\nstderr:\n{}".format(out[-4000:], err[-4000:]))
        return req, out

    def prefix(self, name, *parts):
        return self.ws.path("prefix", name, *parts)

    def run_installed(self, path):
        return subprocess.run([path], stdout=subprocess.PIPE, check=True).stdout.decode().strip()


@unittest.skipUnless(have("cmake", "make", "gcc"), "cmake, make and gcc")
class CMakeTest(BuildSystemTest):
    def test_cmake_args_from_variants_hooks_flags_and_run_env(self):
        self.ws.file("stage/src/CMakeLists.txt", """\
            cmake_minimum_required(VERSION 3.10)
            project(hello C)
            add_executable(hello hello.c)
            if(GREETING)
              target_compile_definitions(hello PRIVATE GREETING="${GREETING}")
            endif()
            install(TARGETS hello DESTINATION bin)
        """)
        self.ws.file("stage/src/hello.c", HELLO_C)
        self.ws.package("hello", '''
            from spack_repo.builtin.build_systems.cmake import CMakePackage


            class Hello(CMakePackage):
                version("1.0")
                variant("greeting", default="none", values=("none", "hi", "hey"), description="what")
                variant("shared", default=True, description="unused")
                depends_on("c", type="build")

                def cmake_args(self):
                    args = [self.define_from_variant("BUILD_SHARED_LIBS", "shared")]
                    if not self.spec.satisfies("greeting=none"):
                        args.append(self.define("GREETING", self.spec.variants["greeting"].value))
                    return args

                def flag_handler(self, name, flags):
                    if name == "cflags":
                        return (None, None, flags + ["-DFROM_HANDLER"])
                    return (flags, None, None)

                @run_before("cmake")
                def before(self):
                    touch(join_path(self.stage.path, "before-cmake"))

                @run_after("install")
                def after(self):
                    with open(join_path(self.prefix, "marker"), "w") as f:
                        f.write(self.build_directory)

                @run_after("install", when="greeting=hey")
                def never(self):
                    raise InstallError("the hook's condition does not hold")

                def setup_run_environment(self, env):
                    env.prepend_path("PATH", self.prefix.bin)
                    env.set("HELLO_GREETING", self.spec.variants["greeting"].value)
                    env.append_flags("HELLO_FLAGS", "-a")
        ''')
        req, out = self.build("hello", {"build_system": "cmake", "greeting": "hi", "shared": False,
                                        "build_type": "Release", "generator": "make"},
                              flags={"cflags": ["-O1"]})
        self.assertEqual(self.run_installed(self.prefix("hello", "bin", "hello")), "hi")
        self.assertIn("-DBUILD_SHARED_LIBS:BOOL=OFF", out)
        self.assertIn("-DCMAKE_C_FLAGS=-O1 -DFROM_HANDLER", out)
        self.assertIn("-DCMAKE_INSTALL_PREFIX:STRING=" + self.prefix("hello"), out)
        self.assertTrue(os.path.exists(self.ws.path("stage", "before-cmake")))
        with open(self.prefix("hello", "marker")) as f:
            self.assertEqual(f.read(), self.ws.path("stage", "spack-build-hello"))
        self.assertEqual(self.ws.output("run-env.json"), [
            {"op": "prepend_path", "name": "PATH", "value": self.prefix("hello", "bin")},
            {"op": "set", "name": "HELLO_GREETING", "value": "hi"},
            {"op": "append_path", "name": "HELLO_FLAGS", "value": "-a", "separator": " "},
        ])
        result = self.ws.output("result.json")
        self.assertEqual(result["builder"], "CMakeBuilder")
        self.assertEqual([c[1:3] for c in result["commands"]], [["-G", "Unix Makefiles"], ["-j2"], ["-j2", "install"]])
        self.assertEqual([t["name"] for t in result["timings"]][3:],
                         ["run_before:cmake:before", "cmake", "build", "install", "run_after:install:after"])

    @unittest.skipUnless(have("ninja"), "ninja")
    def test_builder_class_in_package_file_and_ninja(self):
        self.ws.file("stage/src/CMakeLists.txt", """\
            cmake_minimum_required(VERSION 3.10)
            project(hello C)
            add_executable(hello hello.c)
            install(TARGETS hello DESTINATION bin)
        """)
        self.ws.file("stage/src/hello.c", HELLO_C)
        self.ws.package("hello2", '''
            from spack_repo.builtin.build_systems import cmake
            from spack_repo.builtin.build_systems.autotools import AutotoolsPackage
            from spack_repo.builtin.build_systems.cmake import CMakePackage


            class Hello2(CMakePackage, AutotoolsPackage):
                version("1.0")
                build_system("cmake", "autotools", default="cmake")


            class CMakeBuilder(cmake.CMakeBuilder):
                def cmake_args(self):
                    return [self.define("FROM_BUILDER", "yes"), "-DSPEC_NAME=" + self.pkg.spec.name]

                @run_after("install")
                def copy_cache(self):
                    install(join_path(self.build_directory, "CMakeCache.txt"), self.prefix)
        ''')
        self.build("hello2", {"build_system": "cmake", "generator": "ninja", "build_type": "Debug"})
        self.assertEqual(self.run_installed(self.prefix("hello2", "bin", "hello")), "hello")
        with open(self.prefix("hello2", "CMakeCache.txt")) as f:
            cache = f.read()
        self.assertIn("FROM_BUILDER:STRING=yes", cache)
        self.assertIn("CMAKE_BUILD_TYPE:STRING=Debug", cache)
        self.assertIn("CMAKE_MAKE_PROGRAM:FILEPATH=" + shutil.which("ninja"), cache)


@unittest.skipUnless(have("make", "gcc", "sh"), "make, gcc, sh")
class AutotoolsTest(BuildSystemTest):
    def test_configure_make_install(self):
        # a hand-written configure (no autoconf needed) that records its arguments
        self.ws.file("stage/src/configure", """\
            #!/bin/sh
            echo "$@" > configure.args
            prefix=/usr
            for a in "$@"; do case "$a" in --prefix=*) prefix="${a#--prefix=}";; esac; done
            cat > Makefile <<EOF
            all:
            \t\\$(CC) -o hello hello.c
            install:
            \tmkdir -p $prefix/bin $prefix/lib
            \tcp hello $prefix/bin/
            \tcp configure.args $prefix/
            \ttouch $prefix/lib/libhello.la
            EOF
        """, mode=0o755)
        self.ws.file("stage/src/hello.c", HELLO_C)
        self.ws.package("auto", '''
            from spack_repo.builtin.build_systems.autotools import AutotoolsPackage


            class Auto(AutotoolsPackage):
                version("1.0")
                variant("mpi", default=False, description="mpi")
                variant("fortran", default=True, description="fortran")
                variant("codecs", values=any_combination_of("png", "jpeg"), description="codecs")

                def configure_args(self):
                    args = self.with_or_without("mpi")
                    args += self.enable_or_disable("fortran")
                    args += self.with_or_without("codecs")
                    args.append("CC=" + spack_cc)
                    return args
        ''')
        self.build("auto", {"build_system": "autotools", "mpi": False, "fortran": True, "codecs": ["png"]},
                   wrappers={"cc": shutil.which("gcc")})
        with open(self.prefix("auto", "configure.args")) as f:
            args = f.read().split()
        self.assertEqual(args, ["--prefix=" + self.prefix("auto"), "--without-mpi", "--enable-fortran",
                                "--with-png", "--without-jpeg", "CC=" + shutil.which("gcc")])
        self.assertEqual(self.run_installed(self.prefix("auto", "bin", "hello")), "hello")
        self.assertFalse(os.path.exists(self.prefix("auto", "lib", "libhello.la")))

    @unittest.skipUnless(have("autoreconf", "autoconf"), "autoconf")
    def test_autoreconf_when_there_is_no_configure(self):
        self.ws.file("stage/src/configure.ac", """\
            AC_INIT([hello], [1.0])
            AC_PROG_CC
            AC_CONFIG_FILES([Makefile])
            AC_OUTPUT
        """)
        self.ws.file("stage/src/Makefile.in", """\
            prefix = @prefix@
            all:
            \t@CC@ -o hello hello.c
            install:
            \tmkdir -p $(prefix)/bin && cp hello $(prefix)/bin/
        """)
        self.ws.file("stage/src/hello.c", HELLO_C)
        self.ws.package("auto2", '''
            from spack_repo.builtin.build_systems.autotools import AutotoolsPackage


            class Auto2(AutotoolsPackage):
                version("1.0")
        ''')
        self.build("auto2", {"build_system": "autotools"})
        self.assertTrue(os.path.exists(self.ws.path("stage", "src", "configure")))
        self.assertEqual(self.run_installed(self.prefix("auto2", "bin", "hello")), "hello")


@unittest.skipUnless(have("make", "gcc"), "make, gcc")
class MakefileTest(BuildSystemTest):
    def test_edit_targets_and_filters(self):
        self.ws.file("stage/src/Makefile", """\
            PREFIX = /usr/local
            GREETING = "plain"
            all: hello
            hello: hello.c
            \t$(CC) -DGREETING='$(GREETING)' -o hello hello.c
            install-all:
            \tmkdir -p $(PREFIX)/bin
            \tcp hello $(PREFIX)/bin/
        """)
        self.ws.file("stage/src/hello.c", HELLO_C)
        self.ws.package("mk", '''
            from spack_repo.builtin.build_systems.makefile import MakefilePackage


            class Mk(MakefilePackage):
                version("1.0")
                install_targets = ["install-all"]

                @property
                def build_targets(self):
                    return ["CC=" + self.compiler.cc, "hello"]

                def edit(self, spec, prefix):
                    makefile = FileFilter("Makefile")
                    makefile.filter(r"^PREFIX\\s*=.*", "PREFIX = " + prefix)
                    filter_file('"plain"', '"edited"', "Makefile", string=True)
        ''')
        self.build("mk", {"build_system": "makefile"})
        self.assertEqual(self.run_installed(self.prefix("mk", "bin", "hello")), "edited")


@unittest.skipUnless(have("meson", "ninja", "gcc"), "meson, ninja, gcc")
class MesonTest(BuildSystemTest):
    def test_meson_args(self):
        self.ws.file("stage/src/meson.build", """\
            project('hello', 'c')
            executable('hello', 'hello.c', c_args: ['-DGREETING="' + get_option('greeting') + '"'],
                       install: true)
        """)
        self.ws.file("stage/src/meson_options.txt", "option('greeting', type: 'string', value: 'x')\n")
        self.ws.file("stage/src/hello.c", HELLO_C)
        self.ws.package("ms", '''
            from spack_repo.builtin.build_systems.meson import MesonPackage


            class Ms(MesonPackage):
                version("1.0")

                def meson_args(self):
                    return ["-Dgreeting=from-meson"]
        ''')
        _, out = self.build("ms", {"build_system": "meson", "buildtype": "release", "default_library": ["shared"],
                                   "strip": False})
        self.assertIn("-Dbuildtype=release", out)
        self.assertIn("-Ddefault_library=shared", out)
        self.assertEqual(self.run_installed(self.prefix("ms", "bin", "hello")), "from-meson")


class GenericTest(BuildSystemTest):
    def test_install_method_and_utilities(self):
        self.ws.file("stage/src/data/a.txt", "version=@VERSION@\n")
        self.ws.file("stage/src/data/sub/b.txt", "b\n")
        self.ws.file("stage/src/tool.sh", "#!/bin/sh\necho tool says $1\n")
        self.ws.package("gen", '''
            import os


            class Gen(Package):
                version("1.0")
                variant("extra", default=False, description="extra")

                def patch(self):
                    filter_file("@VERSION@", str(self.version), "data/a.txt")

                @run_before("install")
                def prepare(self):
                    set_executable("tool.sh")

                def install(self, spec, prefix):
                    mkdirp(prefix.share.gen, prefix.bin)
                    install_tree("data", prefix.share.gen)
                    install("tool.sh", prefix.bin)
                    tool = Executable(join_path(prefix.bin, "tool.sh"))
                    said = tool("hi", output=str)
                    with working_dir(prefix.share, create=True):
                        with open("said.txt", "w") as f:
                            f.write(said)
                    sh = which("sh")
                    rc = sh("-c", "exit 3", fail_on_error=False)
                    assert sh.returncode == 3
                    sh("-c", "exit 4", ignore_errors=[4])
                    assert ancestor(prefix.share.gen, 2) == prefix
                    found = find(prefix, "*.txt")
                    assert len(found) == 3, found
                    copy(join_path(prefix.share.gen, "a.txt"), join_path(prefix, "copy.txt"))
                    symlink("copy.txt", join_path(prefix, "link.txt"))
                    if spec.satisfies("+extra"):
                        touch(prefix.extra)
                    assert make_jobs == 3
                    assert self.spec["c"].name == "gcc"
                    assert self.compiler.cc_rpath_arg == "-Wl,-rpath,"
                    assert os.getcwd() == self.stage.source_path
        ''')
        self.build("gen", {"build_system": "generic", "extra": True}, jobs=3)
        with open(self.prefix("gen", "share", "gen", "a.txt")) as f:
            self.assertEqual(f.read(), "version=1.0\n")
        self.assertTrue(os.path.isfile(self.prefix("gen", "share", "gen", "sub", "b.txt")))
        with open(self.prefix("gen", "share", "said.txt")) as f:
            self.assertEqual(f.read(), "tool says hi\n")
        self.assertEqual(os.readlink(self.prefix("gen", "link.txt")), "copy.txt")
        self.assertTrue(os.path.exists(self.prefix("gen", "extra")))

    @unittest.skipUnless(have("patchelf", "gcc"), "patchelf, gcc")
    def test_binary_package_relocated_by_hooks(self):
        # the layout of a site's binary archive: one tree per toolchain, placeholders in scripts
        for tree in ("vendor-gcc", "vendor-nvhpc"):
            self.ws.file("stage/src/{}/bin/vcc".format(tree), "#!/bin/sh\nexec @@CC@@ -I@@PREFIX@@/include \"$@\"\n",
                         mode=0o755)
        src = self.ws.file("stage/lib.c", "int vendor(void) { return 42; }\n")
        os.makedirs(self.ws.path("stage", "src", "vendor-gcc", "lib"))
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", self.ws.path("stage", "src", "vendor-gcc", "lib",
                                                                      "libvendor.so"), src], check=True)
        self.ws.file("prefix/pmi/lib/libpmi.so", "")
        self.ws.package("vendor-bin", '''
            import os


            class VendorBin(Package):
                version("1.0")
                depends_on("pmi", type="link")
                depends_on("patchelf", type="build")

                def install(self, spec, prefix):
                    if "%fortran=nvhpc" in self.spec:
                        install_tree("vendor-nvhpc", prefix)
                    elif self.spec.satisfies("%fortran=gcc"):
                        install_tree("vendor-gcc", prefix)
                    else:
                        raise InstallError("unsupported toolchain")

                @run_after("install")
                def relocate(self):
                    patchelf = which("patchelf", required=True)
                    rpath = os.environ["SPACK_RPATH_DIRS"]
                    for lib in find_libraries("libvendor", self.prefix.lib):
                        patchelf("--force-rpath", "--set-rpath", rpath, lib)
                        patchelf("--add-needed", "libpmi.so", lib, fail_on_error=False)

                @run_after("install")
                def compilers(self):
                    filter_file("@@CC@@", self.compiler.cc, self.prefix.bin.vcc, string=True)
                    filter_file("@@PREFIX@@", self.prefix, self.prefix.bin.vcc, string=True)
        ''')
        n = node("vendor-bin", module=True, variants={"build_system": "generic"}, languages=("c", "fortran"),
                 deps=[("pmi", ["link"], []), ("patchelf", ["build"], [])])
        n["compilers"] = {"c": {"name": "gcc", "version": "12.2.0"}, "fortran": {"name": "gcc", "version": "12.2.0"}}
        self.build("vendor-bin", variants={"build_system": "generic"}, extra_nodes={
            "vendor-bin": n, "pmi": node("pmi"), "patchelf": node("patchelf", prefix="/usr")})
        lib = self.prefix("vendor-bin", "lib", "libvendor.so")
        rpath = subprocess.run(["patchelf", "--print-rpath", lib], stdout=subprocess.PIPE).stdout.decode().strip()
        self.assertIn(self.ws.path("prefix", "pmi", "lib"), rpath.split(":"))
        needed = subprocess.run(["patchelf", "--print-needed", lib], stdout=subprocess.PIPE).stdout.decode()
        self.assertIn("libpmi.so", needed)
        with open(self.prefix("vendor-bin", "bin", "vcc")) as f:
            text = f.read()
        self.assertIn(shutil.which("gcc"), text)
        self.assertIn("-I" + self.prefix("vendor-bin") + "/include", text)

    def test_nothing_installed_is_an_error(self):
        self.ws.package("empty", '''
            class Empty(Package):
                version("1.0")

                def install(self, spec, prefix):
                    pass
        ''')
        req = self.ws.request("empty", {"empty": node("empty", module=True, variants={"build_system": "generic"})})
        rc, out, err = self.ws.run(req)
        self.assertEqual(rc, 1)
        self.assertIn("Nothing was installed", err)


@unittest.skipUnless(have("perl", "make"), "perl, make")
class PerlTest(BuildSystemTest):
    def perl_node(self):
        return {"perl": node("perl", "5.36.0", prefix="/usr")}

    def test_makefile_pl(self):
        self.ws.file("stage/src/Makefile.PL", """\
            use ExtUtils::MakeMaker;
            WriteMakefile(NAME => 'Hello::World', VERSION => '1.0');
        """)
        self.ws.file("stage/src/lib/Hello/World.pm", "package Hello::World;\nsub hi { 'hi' }\n1;\n")
        self.ws.package("perl-hello-world", '''
            from spack_repo.builtin.build_systems.perl import PerlPackage


            class PerlHelloWorld(PerlPackage):
                version("1.0")
        ''')
        self.build("perl-hello-world", {"build_system": "perl"}, deps=[("perl", ["build", "run"], [])],
                   extra_nodes=self.perl_node())
        found = [os.path.join(r, f) for r, _, fs in os.walk(self.prefix("perl-hello-world")) for f in fs]
        self.assertTrue(any(f.endswith(os.path.join("lib", "perl5", "Hello", "World.pm")) for f in found), found)
        env = self.ws.output("run-env.json")
        self.assertIn({"op": "prepend_path", "name": "PERL5LIB",
                       "value": self.prefix("perl-hello-world", "lib", "perl5")}, env)

    def test_build_pl(self):
        # a Build.PL that writes its own Build script (no Module::Build needed)
        self.ws.file("stage/src/Build.PL", r"""
            use strict;
            my ($base) = grep { $_ ne '--install_base' } @ARGV;
            open(my $fh, '>', 'Build') or die;
            print $fh "#!/usr/bin/perl\n";
            print $fh "use File::Path qw(make_path);\n";
            print $fh "my \$base = '$base';\n";
            print $fh "if (\@ARGV && \$ARGV[0] eq 'install') {\n";
            print $fh "  make_path(\"\$base/lib/perl5\");\n";
            print $fh "  open(my \$o, '>', \"\$base/lib/perl5/Built.pm\"); print \$o \"1;\\n\";\n";
            print $fh "}\n";
            close $fh;
            chmod 0755, 'Build';
        """)
        self.ws.package("perl-built", '''
            from spack_repo.builtin.build_systems.perl import PerlPackage


            class PerlBuilt(PerlPackage):
                version("1.0")
        ''')
        self.build("perl-built", {"build_system": "perl"}, deps=[("perl", ["build", "run"], [])],
                   extra_nodes=self.perl_node())
        self.assertTrue(os.path.isfile(self.prefix("perl-built", "lib", "perl5", "Built.pm")))
        with open(self.ws.path("stage", "src", "Build")) as f:
            self.assertEqual(f.readline().strip(), "#!/usr/bin/env perl")


@unittest.skipUnless(have("R"), "R")
class RTest(BuildSystemTest):
    def test_r_cmd_install(self):
        self.ws.file("stage/src/DESCRIPTION", """\
            Package: stackhello
            Version: 1.0
            Title: Test
            Description: A test package.
            Author: stack
            Maintainer: stack <stack@example.org>
            License: MIT
        """)
        self.ws.file("stage/src/NAMESPACE", "export(hello)\n")
        self.ws.file("stage/src/R/hello.R", "hello <- function() 'hello'\n")
        self.ws.package("r-stackhello", '''
            from spack_repo.builtin.build_systems.r import RPackage


            class RStackhello(RPackage):
                cran = "stackhello"
                version("1.0")
        ''')
        r_prefix = os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("R"))))
        self.build("r-stackhello", {"build_system": "generic"}, deps=[("r", ["build", "run"], [])],
                   extra_nodes={"r": node("r", "4.2.2", prefix=r_prefix)})
        self.assertTrue(os.path.isfile(self.prefix("r-stackhello", "rlib", "R", "library", "stackhello",
                                                   "DESCRIPTION")))


def _system_python_with_pip():
    for p in ("/usr/bin/python3", shutil.which("python3")):
        if p and subprocess.run([p, "-c", "import setuptools, pip"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL).returncode == 0:
            return p
    return None


class PythonTest(BuildSystemTest):
    @unittest.skipUnless(_system_python_with_pip(), "a python3 with pip and setuptools")
    def test_pip_install(self):
        py = os.path.realpath(_system_python_with_pip())
        py_prefix = os.path.dirname(os.path.dirname(py))
        version = subprocess.run([py, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                                 stdout=subprocess.PIPE).stdout.decode().strip()
        self.ws.file("stage/src/pyproject.toml", """\
            [build-system]
            requires = ["setuptools"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "stackhello"
            version = "1.0"
        """)
        self.ws.file("stage/src/stackhello/__init__.py", "def hello():\n    return 'hello'\n")
        self.ws.package("py-stackhello", '''
            from spack_repo.builtin.build_systems.python import PythonPackage


            class PyStackhello(PythonPackage):
                pypi = "stackhello/stackhello-1.0.tar.gz"
                version("1.0")

                @run_after("install")
                def where(self):
                    with open(join_path(self.prefix, "platlib.txt"), "w") as f:
                        f.write(python_platlib)
        ''')
        self.build("py-stackhello", {"build_system": "python_pip"},
                   deps=[("python", ["build", "run"], [])],
                   extra_nodes={"python": node("python", version, prefix=py_prefix)})
        with open(self.prefix("py-stackhello", "platlib.txt")) as f:
            platlib = f.read()
        self.assertTrue(platlib.startswith(self.prefix("py-stackhello", "lib", "python")), platlib)
        found = [r for r, _, fs in os.walk(self.prefix("py-stackhello")) if "__init__.py" in fs]
        self.assertTrue(any(r.endswith("stackhello") for r in found), found)


if __name__ == "__main__":
    unittest.main()
