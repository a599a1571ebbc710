"""`CompilerPackage`: a package that installs a compiler (gcc, llvm, …):
the names of its executables, their paths in the prefix and its flags."""

import os
import re

from ..executable import Executable
from ..package_base import PackageBase


def compiler_output(compiler_path, *, version_argument, ignore_errors=()):
    exe = Executable(str(compiler_path))
    args = version_argument if isinstance(version_argument, (list, tuple)) else [version_argument]
    return exe(*args, output=str, error=str, ignore_errors=ignore_errors, fail_on_error=False)


class CompilerPackage(PackageBase):
    tags = ["compiler"]
    compiler_suffixes = [r"-.*"]
    compiler_prefixes = []
    compiler_version_argument = "-dumpversion"
    compiler_version_regex = "(.*)"
    compiler_languages = ["c", "cxx", "fortran"]
    compiler_wrapper_link_paths = {}
    opt_flags = []
    debug_flags = []
    rpath_arg = "-Wl,-rpath,"
    linker_arg = "-Wl,"
    pic_flag = "-fPIC"
    verbose_flags = "-v"
    openmp_flag = "-fopenmp"
    implicit_rpath_libs = []
    c_names = []
    cxx_names = []
    fortran_names = []

    @property
    def supported_languages(self):
        return [lang for lang in self.compiler_languages if self.spec.satisfies("languages={}".format(lang))
                or "languages" not in self.spec.variants]

    @classmethod
    def compiler_names(cls):
        names = []
        for lang in cls.compiler_languages:
            names.extend(getattr(cls, "{}_names".format(lang), []))
        return names

    @classmethod
    def compiler_bindir(cls, prefix):
        return os.path.join(prefix, "bin")

    @classmethod
    def determine_version(cls, exe):
        args = cls.compiler_version_argument
        for arg in (args if isinstance(args, (list, tuple)) else [args]):
            out = compiler_output(exe, version_argument=arg)
            m = re.search(cls.compiler_version_regex, out or "")
            if m:
                return m.group(1)
        return None

    def standard_flag(self, *, language, standard):
        return self._standard_flag(language=language, standard=standard)

    def _standard_flag(self, *, language, standard):
        raise NotImplementedError("{} has no standard flag for {} {}".format(self.name, language, standard))

    def archspec_name(self):
        return self.name

    def _compiler_path(self, lang):
        names = getattr(self, "{}_names".format(lang), [])
        bindir = self.compiler_bindir(self.prefix)
        for n in names:
            p = os.path.join(bindir, n)
            if os.path.exists(p):
                return p
        return os.path.join(bindir, names[0]) if names else None

    @property
    def cc(self):
        return self._compiler_path("c")

    @property
    def cxx(self):
        return self._compiler_path("cxx")

    @property
    def fortran(self):
        return self._compiler_path("fortran")
