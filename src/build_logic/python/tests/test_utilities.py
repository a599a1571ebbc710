"""File-system helpers, Executable and which, Prefix, library lists."""

import os
import stat
import unittest

from tests.helpers import WorkspaceTest
from stack_spack import fs
from stack_spack.errors import ProcessError
from stack_spack.executable import Executable, MakeExecutable, which, which_string
from stack_spack.filelists import HeaderList, LibraryList, find, find_headers, find_libraries
from stack_spack.prefix import Prefix


class FilterFileTest(WorkspaceTest):
    def test_regex_string_and_backrefs(self):
        p = self.ws.file("f.txt", "CC = cc\nCFLAGS = -O2\nname: value\n")
        os.chmod(p, 0o750)
        fs.filter_file(r"^CC\s*=.*", "CC = gcc", p)
        fs.filter_file("-O2", "-O3 -g", p, string=True)
        fs.filter_file(r"(\w+): (\w+)", r"\2: \1", p)
        with open(p) as f:
            self.assertEqual(f.read(), "CC = gcc\nCFLAGS = -O3 -g\nvalue: name\n")
        self.assertEqual(stat.S_IMODE(os.stat(p).st_mode), 0o750)
        self.assertFalse(os.path.exists(p + "~"))

    def test_backup_absent_and_markers(self):
        p = self.ws.file("g.txt", "a\nSTART\na\nSTOP\na\n")
        fs.filter_file("a", "b", p, start_at="START", stop_at="STOP", backup=True)
        with open(p) as f:
            self.assertEqual(f.read(), "a\nSTART\nb\nSTOP\na\n")
        self.assertTrue(os.path.exists(p + "~"))
        fs.filter_file("x", "y", self.ws.path("nope"), ignore_absent=True)
        with self.assertRaises(OSError):
            fs.filter_file("x", "y", self.ws.path("nope"))
        ff = fs.FileFilter(p)
        ff.filter("b", "c")
        with open(p) as f:
            self.assertIn("c\n", f.read())


class CopyTest(WorkspaceTest):
    def test_install_tree_copy_tree_and_globs(self):
        self.ws.file("src/a/x.h", "x")
        self.ws.file("src/a/b/y.h", "y")
        self.ws.file("src/top.txt", "t")
        os.symlink("top.txt", self.ws.path("src", "link.txt"))
        fs.install_tree(self.ws.path("src"), self.ws.path("dst"))
        self.assertTrue(os.path.isfile(self.ws.path("dst", "a", "b", "y.h")))
        self.assertEqual(os.readlink(self.ws.path("dst", "link.txt")), "top.txt")
        fs.mkdirp(self.ws.path("inc"))
        fs.install(self.ws.path("src", "a", "*.h"), self.ws.path("inc"))
        self.assertTrue(os.path.isfile(self.ws.path("inc", "x.h")))
        fs.copy(self.ws.path("src", "top.txt"), self.ws.path("copy.txt"))
        fs.copy_tree(self.ws.path("src", "a"), self.ws.path("dst2"))
        self.assertTrue(os.path.isfile(self.ws.path("dst2", "b", "y.h")))
        self.assertEqual(fs.ancestor(self.ws.path("dst2", "b"), 2), self.ws.root)
        self.assertEqual(fs.join_path(Prefix("/p"), "lib", 64), "/p/lib/64")
        with fs.working_dir(self.ws.path("new"), create=True):
            self.assertEqual(os.getcwd(), os.path.realpath(self.ws.path("new")))
        fs.touch(self.ws.path("t1"))
        fs.force_remove(self.ws.path("t1"), self.ws.path("never-there"))
        self.assertFalse(os.path.exists(self.ws.path("t1")))
        fs.force_symlink("a", self.ws.path("s"))
        fs.force_symlink("b", self.ws.path("s"))
        self.assertEqual(os.readlink(self.ws.path("s")), "b")
        p = self.ws.file("exe", "#!/bin/sh\n")
        fs.set_executable(p)
        self.assertTrue(fs.is_exe(p))


class ExecutableTest(WorkspaceTest):
    def test_output_capture_and_errors(self):
        sh = which("sh")
        self.assertIsInstance(sh, Executable)
        self.assertEqual(sh("-c", "echo out; echo err >&2", output=str, error=os.devnull), "out\n")
        self.assertEqual(sh("-c", "echo err >&2", output=os.devnull, error=str), "err\n")
        both = sh("-c", "echo a; echo b >&2", output=str, error=str)
        self.assertEqual(sorted(both.split()), ["a", "b"])
        p = self.ws.path("out.txt")
        sh("-c", "echo to-file", output=p)
        with open(p) as f:
            self.assertEqual(f.read(), "to-file\n")
        with self.assertRaises(ProcessError):
            sh("-c", "exit 2")
        sh("-c", "exit 2", fail_on_error=False)
        self.assertEqual(sh.returncode, 2)
        sh("-c", "exit 5", ignore_errors=(5,))
        self.assertEqual(sh.returncode, 5)
        self.assertEqual(sh("-c", "echo $FOO", output=str, extra_env={"FOO": "bar"}), "bar\n")
        exe = Executable("sh -c")
        self.assertEqual(exe("echo split", output=str), "split\n")
        exe.add_default_env("X", "1")
        self.assertEqual(exe("echo $X", output=str), "1\n")
        self.assertIsNone(which("no-such-tool-anywhere"))
        self.assertEqual(which_string("sh"), sh.path)
        with self.assertRaises(Exception):
            which("no-such-tool-anywhere", required=True)

    def test_make_jobs(self):
        echo = MakeExecutable(which_string("echo"), jobs=4)
        self.assertEqual(echo("all", output=str), "-j4 all\n")
        self.assertEqual(echo("all", parallel=False, output=str), "-j1 all\n")
        saved = os.environ.get("MAKEFLAGS")
        os.environ["MAKEFLAGS"] = " -j --jobserver-auth=fifo:/tmp/x"
        try:
            # the caller hands down a jobserver: make takes its jobs from there
            self.assertEqual(echo("all", output=str), "all\n")
            ninja = MakeExecutable(which_string("echo"), jobs=4, supports_jobserver=False)
            self.assertEqual(ninja("all", output=str), "-j4 all\n")
        finally:
            if saved is None:
                os.environ.pop("MAKEFLAGS")
            else:
                os.environ["MAKEFLAGS"] = saved


class LibraryListTest(WorkspaceTest):
    def test_lists(self):
        for f in ("lib/libfoo.so", "lib/libfoo.a", "lib64/libbar.so", "include/foo.h", "include/sub/bar.hpp"):
            self.ws.file(f, "x")
        libs = find_libraries(["libfoo", "libbar"], self.ws.root, shared=True, recursive=True)
        self.assertEqual(libs.names, ["foo"])
        libs = find_libraries(["libfoo", "libbar"], [self.ws.path("lib"), self.ws.path("lib64")], recursive=False)
        self.assertEqual(libs.names, ["foo", "bar"])
        self.assertEqual(libs.ld_flags, "-L{} -L{} -lfoo -lbar".format(self.ws.path("lib"), self.ws.path("lib64")))
        static = find_libraries("libfoo", self.ws.path("lib"), shared=False)
        self.assertEqual(static.basenames, ["libfoo.a"])
        combined = libs + static
        self.assertIsInstance(combined, LibraryList)
        self.assertEqual(len(combined), 3)
        hdrs = find_headers(["foo", "bar"], self.ws.path("include"), recursive=True)
        self.assertIsInstance(hdrs, HeaderList)
        self.assertEqual(hdrs.directories, [self.ws.path("include")])
        hdrs.add_macro("-DFOO")
        self.assertEqual(hdrs.cpp_flags, "-I{} -DFOO".format(self.ws.path("include")))
        hdrs.directories = [self.ws.path("include", "sub")]
        self.assertEqual(hdrs.include_flags, "-I" + self.ws.path("include", "sub"))
        self.assertEqual(sorted(os.path.basename(f) for f in find(self.ws.root, "*.so")), ["libbar.so", "libfoo.so"])

    def test_prefix(self):
        p = Prefix("/opt/x")
        self.assertEqual(p.lib, "/opt/x/lib")
        self.assertEqual(p.bin.mpicc, "/opt/x/bin/mpicc")
        self.assertEqual(p.share.man, "/opt/x/share/man")
        self.assertEqual(p.join("lib/pkgconfig"), "/opt/x/lib/pkgconfig")
        self.assertIsInstance(p.lib64, Prefix)
        self.assertEqual("{0}/include".format(p), "/opt/x/include")


if __name__ == "__main__":
    unittest.main()
