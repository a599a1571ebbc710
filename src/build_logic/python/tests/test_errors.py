"""Errors name the package.py file and line: an API the layer lacks (exit
3), a failing build (exit 1, with the traceback), a bad request (exit 2)."""

import json
import re
import unittest

from tests.helpers import WorkspaceTest, context, node
from stack_spack.errors import ApiNotImplemented


class ErrorTest(WorkspaceTest):
    def run_package(self, body, name="bad"):
        path = self.ws.package(name, body)
        req = self.ws.request(name, {name: node(name, module=True, variants={"build_system": "generic"})})
        rc, out, err = self.ws.run(req)
        return path, rc, out, err

    def test_missing_name_exits_3_with_file_and_line(self):
        path, rc, out, err = self.run_package('''
            class Bad(Package):
                version("1.0")

                def install(self, spec, prefix):
                    mkdirp(prefix)
                    sbang_install_path()
        ''')
        self.assertEqual(rc, 3, err)
        msg = "stack: {}:8: name 'sbang_install_path' is not implemented by stack's package API " \
              "(docs/import.md#supported-api)".format(path)
        self.assertIn(msg, err)
        self.assertIn('File "{}", line 8, in install'.format(path), err)

    def test_missing_module_and_spack_package_name(self):
        path, rc, out, err = self.run_package('''
            import spack.detection


            class Bad(Package):
                version("1.0")
        ''')
        self.assertEqual(rc, 3)
        self.assertIn("stack: {}:3: import of module spack.detection is not implemented".format(path), err)
        path, rc, out, err = self.run_package('''
            from spack.package import make_package_test_rpath


            class Bad2(Package):
                version("1.0")
        ''', name="bad2")
        self.assertEqual(rc, 3)
        self.assertIn("{}:3: spack.package.make_package_test_rpath is not implemented".format(path), err)

    def test_missing_spec_and_package_attributes(self):
        path, rc, out, err = self.run_package('''
            class Bad(Package):
                version("1.0")

                def install(self, spec, prefix):
                    spec.splice("x")
        ''')
        self.assertEqual(rc, 3)
        self.assertIn("{}:7: Spec.splice is not implemented".format(path), err)
        path, rc, out, err = self.run_package('''
            class Bad3(Package):
                version("1.0")

                def install(self, spec, prefix):
                    self.do_fetch()
        ''', name="bad3")
        self.assertEqual(rc, 3)
        self.assertIn("{}:7: package attribute do_fetch is not implemented".format(path), err)

    def test_unknown_names_and_attributes_stay_python_errors(self):
        path, rc, out, err = self.run_package('''
            class Bad(Package):
                version("1.0")

                def install(self, spec, prefix):
                    self.not_a_spack_thing
        ''')
        self.assertEqual(rc, 1)
        self.assertIn("AttributeError", err)
        self.assertIn('File "{}", line 7, in install'.format(path), err)
        self.assertIn("stack: the error happened in {}:7 (install)".format(path), err)

    def test_failing_command_shows_traceback_with_package_line(self):
        path, rc, out, err = self.run_package('''
            class Bad(Package):
                version("1.0")

                def install(self, spec, prefix):
                    which("sh")("-c", "echo oops >&2; exit 7")
        ''')
        self.assertEqual(rc, 1)
        self.assertIn('File "{}", line 7, in install'.format(path), err)
        self.assertIn("ProcessError: Command exited with status 7", err)
        self.assertRegex(err, re.compile(r"stack: bad failed: ProcessError"))

    def test_install_error_raised_by_package(self):
        path, rc, out, err = self.run_package('''
            class Bad(Package):
                version("1.0")

                def install(self, spec, prefix):
                    raise InstallError("specify it as an external")
        ''')
        self.assertEqual(rc, 1)
        self.assertIn("InstallError: specify it as an external", err)

    def test_bad_requests_exit_2(self):
        p = self.ws.path("req.json")
        for content, needle in (("{not json", "not JSON"), (json.dumps({"api": 99}), "api 99"),
                                (json.dumps({"api": 1, "package": "x", "nodes": {}}), "not among the nodes")):
            with open(p, "w") as f:
                f.write(content)
            import subprocess
            import sys
            import os
            from tests.helpers import LAYER

            proc = subprocess.run([sys.executable, "-I", os.path.join(LAYER, "run.py"), p],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.assertEqual(proc.returncode, 2)
            self.assertIn(needle, proc.stderr.decode())

    def test_in_process_error_location(self):
        path = self.ws.package("loc", '''
            class Loc(Package):
                version("1.0")

                def use(self):
                    return self.spec.patches
        ''')
        ctx = context(self.ws.request("loc", {"loc": node("loc", module=True)}))
        with self.assertRaises(ApiNotImplemented) as e:
            ctx.root.package.use()
        self.assertEqual((e.exception.file, e.exception.line), (path, 7))


if __name__ == "__main__":
    unittest.main()
