"""Environment hooks: dependencies' setup_dependent_*, the package's
setup_build_environment, EnvironmentModifications, defaults of providers
without package.py, and the run environment written for views."""

import os
import shutil
import unittest

from tests.helpers import WorkspaceTest, node
from stack_spack.envmods import EnvironmentModifications


class EnvironmentModificationsTest(unittest.TestCase):
    def test_operations_in_order(self):
        env = {"PATH": "/usr/bin:/bin", "KEEP": "1", "DROP": "x", "FLAGS": "-O2"}
        mods = EnvironmentModifications()
        mods.prepend_path("PATH", "/opt/a/bin")
        mods.append_path("PATH", "/opt/b/bin")
        mods.remove_path("PATH", "/bin")
        mods.set("NEW", 3)
        mods.unset("DROP")
        mods.append_flags("FLAGS", "-g")
        mods.prepend_path("EMPTY", "/x")
        mods.set_path("LIST", ["/a", "/b"])
        mods.prune_duplicate_paths("PATH")
        mods.apply_modifications(env)
        self.assertEqual(env["PATH"], "/opt/a/bin:/usr/bin:/opt/b/bin")
        self.assertEqual(env["NEW"], "3")
        self.assertNotIn("DROP", env)
        self.assertEqual(env["FLAGS"], "-O2 -g")
        self.assertEqual(env["EMPTY"], "/x")
        self.assertEqual(env["LIST"], "/a:/b")
        self.assertTrue(mods.is_unset("DROP"))
        self.assertEqual(len(mods.group_by_name()["PATH"]), 4)
        self.assertEqual(mods.to_json()[:2], [
            {"op": "prepend_path", "name": "PATH", "value": "/opt/a/bin"},
            {"op": "append_path", "name": "PATH", "value": "/opt/b/bin"},
        ])
        self.assertIn({"op": "unset", "name": "DROP"}, mods.to_json())

    def test_extend_and_drop(self):
        a = EnvironmentModifications()
        a.set("A", "1")
        b = EnvironmentModifications()
        b.set("B", "2")
        a.extend(b)
        self.assertEqual([m.name for m in a], ["A", "B"])
        self.assertTrue(a.drop("A"))
        self.assertEqual([m.name for m in a], ["B"])

    def test_from_sourcing_file(self):
        d = os.path.dirname(os.path.abspath(__file__))
        script = os.path.join(d, "__sourced_test.sh")
        with open(script, "w") as f:
            f.write("export STACK_SOURCED=yes\nexport PATH=/opt/sourced/bin:$PATH\n")
        self.addCleanup(os.remove, script)
        mods = EnvironmentModifications.from_sourcing_file(script)
        env = dict(os.environ)
        mods.apply_modifications(env)
        self.assertEqual(env["STACK_SOURCED"], "yes")
        self.assertTrue(env["PATH"].startswith("/opt/sourced/bin:"))


class DependentEnvironmentTest(WorkspaceTest):
    def test_dependency_hooks_then_package_hook(self):
        self.ws.package("libdep", '''
            class Libdep(Package):
                version("1.0")

                def setup_dependent_build_environment(self, env, dependent_spec):
                    env.set("LIBDEP_FOR", dependent_spec.name)
                    env.set("ORDER", "dep")
                    env.prepend_path("CMAKE_PREFIX_PATH", self.prefix)

                def setup_dependent_package(self, module, dependent_spec):
                    module.libdep_tool = join_path(self.prefix, "bin", "tool")
                    self.spec.tool_path = join_path(self.prefix, "bin", "tool")

                def setup_run_environment(self, env):
                    env.set("LIBDEP_RUN", "yes")
        ''')
        self.ws.package("tool", '''
            class Tool(Package):
                version("2.0")

                def setup_run_environment(self, env):
                    env.set("TOOL_RUN", "yes")
        ''')
        self.ws.package("app", '''
            import os


            class App(Package):
                version("1.0")

                def setup_build_environment(self, env):
                    env.append_flags("ORDER", "app", sep=",")
                    env.set("FROM_APP", self.spec["mpi"].mpicc)

                def install(self, spec, prefix):
                    mkdirp(prefix)
                    with open(join_path(prefix, "seen.txt"), "w") as f:
                        for k in ("LIBDEP_FOR", "ORDER", "FROM_APP", "TOOL_RUN", "LIBDEP_RUN", "MPICC",
                                  "MPICH_CC", "CC", "SPACK_CC", "SPACK_RPATH_DIRS", "SPACK_INCLUDE_DIRS"):
                            f.write("{}={}\\n".format(k, os.environ.get(k)))
                        f.write("tool={}\\n".format(libdep_tool))
                        f.write("attr={}\\n".format(spec["libdep"].tool_path))
        ''')
        nodes = {
            "app": node("app", module=True, variants={"build_system": "generic"},
                        deps=[("libdep", ["build", "link"], []), ("tool", ["build"], []),
                              ("mpich", ["build", "link"], ["mpi"])]),
            "libdep": node("libdep", module=True, variants={"build_system": "generic"}),
            "tool": node("tool", module=True, variants={"build_system": "generic"}),
            "mpich": node("mpich", "4.2.0"),
        }
        req = self.ws.request("app", nodes, wrappers={"cc": "/wrap/cc", "cxx": "/wrap/c++"})
        self.ws.file("prefix/libdep/lib/liblibdep.so", "")
        self.ws.file("prefix/libdep/include/libdep.h", "")
        rc, out, err = self.ws.run(req)
        self.assertEqual(rc, 0, err)
        with open(self.ws.path("prefix", "app", "seen.txt")) as f:
            seen = dict(line.rstrip("\n").split("=", 1) for line in f)
        mpich = self.ws.path("prefix", "mpich")
        self.assertEqual(seen["LIBDEP_FOR"], "app")
        self.assertEqual(seen["ORDER"], "dep,app")
        self.assertEqual(seen["FROM_APP"], os.path.join(mpich, "bin", "mpicc"))
        self.assertEqual(seen["TOOL_RUN"], "yes")          # a build dependency runs: its run env
        self.assertEqual(seen["LIBDEP_RUN"], "yes")
        self.assertEqual(seen["MPICC"], os.path.join(mpich, "bin", "mpicc"))
        self.assertEqual(seen["MPICH_CC"], "/wrap/cc")
        self.assertEqual(seen["CC"], "/wrap/cc")
        self.assertEqual(seen["SPACK_CC"], shutil.which("gcc"))
        app = self.ws.path("prefix", "app")
        self.assertEqual(seen["SPACK_RPATH_DIRS"], ":".join([os.path.join(app, "lib"), os.path.join(app, "lib64"),
                                                             self.ws.path("prefix", "libdep", "lib")]))
        self.assertEqual(seen["SPACK_INCLUDE_DIRS"], self.ws.path("prefix", "libdep", "include"))
        self.assertEqual(seen["tool"], self.ws.path("prefix", "libdep", "bin", "tool"))
        self.assertEqual(seen["attr"], self.ws.path("prefix", "libdep", "bin", "tool"))

    def test_flags_routing(self):
        self.ws.package("flags", '''
            import os


            class Flags(Package):
                version("1.0")

                def flag_handler(self, name, flags):
                    if name == "cflags":
                        return (flags + ["-fcommon"], None, None)
                    if name == "cxxflags":
                        return (None, flags, None)
                    if name == "fflags":
                        return env_flags(self, name, flags + ["-fallow-argument-mismatch"])
                    return (flags, None, None)

                def install(self, spec, prefix):
                    mkdirp(prefix)
                    with open(join_path(prefix, "flags.txt"), "w") as f:
                        for k in ("WRAP_CFLAGS", "CXXFLAGS", "FFLAGS", "WRAP_LDFLAGS", "CFLAGS"):
                            f.write("{}={}\\n".format(k, os.environ.get(k)))
        ''')
        nodes = {"flags": node("flags", module=True, variants={"build_system": "generic"})}
        req = self.ws.request("flags", nodes, flags={"cflags": ["-O2"], "cxxflags": ["-O3"], "ldflags": ["-L/x"]},
                              inject_env={"cflags": "WRAP_CFLAGS", "ldflags": "WRAP_LDFLAGS"})
        rc, out, err = self.ws.run(req, env={"CFLAGS": ""})
        self.assertEqual(rc, 0, err)
        with open(self.ws.path("prefix", "flags", "flags.txt")) as f:
            seen = dict(line.rstrip("\n").split("=", 1) for line in f)
        self.assertEqual(seen["WRAP_CFLAGS"], "-O2 -fcommon")
        self.assertEqual(seen["CXXFLAGS"], "-O3")
        self.assertEqual(seen["FFLAGS"], "-fallow-argument-mismatch")
        self.assertEqual(seen["WRAP_LDFLAGS"], "-L/x")
        self.assertEqual(seen["CFLAGS"], "")

    @unittest.skipUnless(shutil.which("python3"), "python3")
    def test_python_extension_run_environment(self):
        self.ws.package("py-thing", '''
            from spack_repo.builtin.build_systems.python import PythonPackage


            class PyThing(PythonPackage):
                version("1.0")

                def install(self, spec, prefix):
                    mkdirp(python_platlib)
                    touch(join_path(python_platlib, "thing.py"))
        ''')
        nodes = {
            "py-thing": node("py-thing", module=True, variants={"build_system": "python_pip"},
                             deps=[("python", ["build", "run"], [])]),
            "python": node("python", "3.11.7"),
        }
        req = self.ws.request("py-thing", nodes)
        rc, out, err = self.ws.run(req)
        self.assertEqual(rc, 0, err)
        site = self.ws.path("prefix", "py-thing", "lib", "python3.11", "site-packages")
        self.assertTrue(os.path.isfile(os.path.join(site, "thing.py")))
        self.assertIn({"op": "prepend_path", "name": "PYTHONPATH", "value": site}, self.ws.output("run-env.json"))


if __name__ == "__main__":
    unittest.main()
