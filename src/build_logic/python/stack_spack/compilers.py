"""The compiler as package code sees it: `self.compiler` (paths of the real
compilers, flags such as `openmp_flag`, `cxx17_flag`, `cc_pic_flag`) and the
compiler's package (`self["cxx"]`, `spec["c"].package`: `cc`, `cxx`,
`fortran`, `pic_flag`, `standard_flag(...)`).

Flags per compiler family are the ones the compilers document.
"""

import os

from .errors import UnsupportedCompilerFlag
from .version import Version

_CLANG_LIKE = {
    "openmp_flag": "-fopenmp",
    "pic_flag": "-fPIC",
    "fc_pic_flag": "-fPIC",
    "stdcxx_libs": ("-lstdc++",),
    "opt_flags": ["-O0", "-O1", "-O2", "-O3", "-Os", "-Oz", "-Ofast", "-O"],
    "debug_flags": ["-gcodeview", "-gdwarf-2", "-gdwarf-3", "-gdwarf-4", "-gdwarf-5", "-gline-tables-only",
                    "-gmodules", "-g"],
    "verbose_flag": "-v",
    "cxx": {"98": "-std=c++98", "11": "-std=c++11", "14": "-std=c++14", "17": "-std=c++17",
            "20": "-std=c++20", "23": "-std=c++23", "26": "-std=c++26"},
    "c": {"89": "-std=c89", "90": "-std=c90", "99": "-std=c99", "11": "-std=c11", "17": "-std=c17",
          "18": "-std=c18", "23": "-std=c23"},
}

_FAMILIES = {
    "gcc": dict(_CLANG_LIKE, opt_flags=["-O", "-O0", "-O1", "-O2", "-O3", "-Os", "-Ofast", "-Og"],
                debug_flags=["-g", "-gstabs+", "-gstabs", "-gxcoff+", "-gxcoff", "-gvms"]),
    "llvm": dict(_CLANG_LIKE),
    "apple-clang": dict(_CLANG_LIKE),
    "aocc": dict(_CLANG_LIKE),
    "llvm-amdgpu": dict(_CLANG_LIKE),
    "cce": dict(_CLANG_LIKE, fc_pic_flag="-h PIC", stdcxx_libs=()),
    "intel-oneapi-compilers": dict(_CLANG_LIKE, openmp_flag="-fiopenmp", stdcxx_libs=("-cxxlib",)),
    "intel-oneapi-compilers-classic": dict(_CLANG_LIKE, openmp_flag="-qopenmp", stdcxx_libs=("-cxxlib",)),
    "nvhpc": dict(
        _CLANG_LIKE,
        openmp_flag="-mp",
        pic_flag="-fpic",
        fc_pic_flag="-fpic",
        stdcxx_libs=("-c++libs",),
        opt_flags=["-O", "-O0", "-O1", "-O2", "-O3", "-O4"],
        debug_flags=["-g", "-gopt"],
        cxx={"11": "--c++11", "14": "--c++14", "17": "--c++17", "20": "--c++20"},
        c={"99": "-c99", "11": "-c11", "17": "-c17"},
    ),
}

_ALIASES = {"clang": "llvm", "oneapi": "intel-oneapi-compilers", "intel": "intel-oneapi-compilers-classic",
            "rocmcc": "llvm-amdgpu", "pgi": "nvhpc"}


def family(name):
    name = _ALIASES.get(name, name)
    return _FAMILIES.get(name, _FAMILIES["gcc"])


class Compiler:
    """`self.compiler`."""

    linker_arg = "-Wl,"
    cc_rpath_arg = "-Wl,-rpath,"
    cxx_rpath_arg = "-Wl,-rpath,"
    f77_rpath_arg = "-Wl,-rpath,"
    fc_rpath_arg = "-Wl,-rpath,"
    disable_new_dtags = "-Wl,--disable-new-dtags"
    enable_new_dtags = "-Wl,--enable-new-dtags"
    required_libs = []
    extra_rpaths = []
    modules = []
    environment = {}

    def __init__(self, name, version, paths, target=None, os_name=None):
        self.name = name
        self.version = Version(str(version or "0"))
        self.cc = paths.get("cc")
        self.cxx = paths.get("cxx")
        self.fc = paths.get("fc")
        self.f77 = paths.get("f77") or paths.get("fc")
        self.target = target
        self.operating_system = os_name
        self._family = family(name)

    @property
    def real_version(self):
        return self.version

    @property
    def spec(self):
        from .spec import CompilerSpec

        return CompilerSpec(self.name, str(self.version))

    @property
    def prefix(self):
        for p in (self.cc, self.cxx, self.fc):
            if p:
                return os.path.dirname(os.path.dirname(os.path.realpath(p) if os.path.exists(p) else p))
        return None

    def implicit_rpaths(self):
        return []

    @property
    def openmp_flag(self):
        return self._family["openmp_flag"]

    @property
    def cc_pic_flag(self):
        return self._family["pic_flag"]

    @property
    def cxx_pic_flag(self):
        return self._family["pic_flag"]

    @property
    def fc_pic_flag(self):
        return self._family["fc_pic_flag"]

    @property
    def f77_pic_flag(self):
        return self._family["fc_pic_flag"]

    @property
    def pic_flag(self):
        return self._family["pic_flag"]

    @property
    def stdcxx_libs(self):
        return self._family["stdcxx_libs"]

    @property
    def opt_flags(self):
        return list(self._family["opt_flags"])

    @property
    def debug_flags(self):
        return list(self._family["debug_flags"])

    @property
    def verbose_flag(self):
        return self._family["verbose_flag"]

    def _std(self, lang, std):
        flag = self._family[lang].get(std)
        if flag is None:
            raise UnsupportedCompilerFlag(
                "{} does not support the {} standard flag for {}".format(self.name, lang, std)
            )
        return flag

    cxx98_flag = property(lambda self: self._std("cxx", "98"))
    cxx11_flag = property(lambda self: self._std("cxx", "11"))
    cxx14_flag = property(lambda self: self._std("cxx", "14"))
    cxx17_flag = property(lambda self: self._std("cxx", "17"))
    cxx20_flag = property(lambda self: self._std("cxx", "20"))
    cxx23_flag = property(lambda self: self._std("cxx", "23"))
    c99_flag = property(lambda self: self._std("c", "99"))
    c11_flag = property(lambda self: self._std("c", "11"))
    c17_flag = property(lambda self: self._std("c", "17"))
    c18_flag = property(lambda self: self._std("c", "18"))
    c23_flag = property(lambda self: self._std("c", "23"))

    def standard_flag(self, *, language, standard):
        lang = {"c++": "cxx", "cxx": "cxx", "c": "c"}.get(language, language)
        return self._std(lang, str(standard).replace("c++", "").replace("c", ""))

    def __str__(self):
        return "{}@{}".format(self.name, self.version)

    __repr__ = __str__


class CompilerPackage:
    """The package of a compiler node (`self["c"]`, `spec["cxx"].package`)."""

    def __init__(self, spec, compiler, wrappers=None):
        self.spec = spec
        self.compiler = compiler
        self.name = spec.name
        self.version = spec.version
        self.prefix = spec.prefix
        self._wrappers = dict(wrappers or {})

    rpath_arg = "-Wl,-rpath,"
    linker_arg = "-Wl,"
    disable_new_dtags = "-Wl,--disable-new-dtags"
    enable_new_dtags = "-Wl,--enable-new-dtags"
    implicit_rpath_libs = []

    @property
    def compiler_wrapper_link_paths(self):
        """Each language's wrapper, relative to the wrappers' directory
        (`spec["compiler-wrapper"].package.bin_dir()`)."""
        base = wrapper_dir(self._wrappers)
        out = {}
        for lang, key in (("c", "cc"), ("cxx", "cxx"), ("fortran", "fc")):
            w = self._wrappers.get(key)
            if w and base:
                out[lang] = os.path.relpath(w, base)
        return out

    @property
    def cc(self):
        return self.compiler.cc

    @property
    def cxx(self):
        return self.compiler.cxx

    @property
    def fortran(self):
        return self.compiler.fc

    @property
    def fc(self):
        return self.compiler.fc

    @property
    def f77(self):
        return self.compiler.f77

    @property
    def pic_flag(self):
        return self.compiler.pic_flag

    @property
    def openmp_flag(self):
        return self.compiler.openmp_flag

    @property
    def opt_flags(self):
        return self.compiler.opt_flags

    @property
    def debug_flags(self):
        return self.compiler.debug_flags

    @property
    def verbose_flags(self):
        return self.compiler.verbose_flag

    @property
    def stdcxx_libs(self):
        return self.compiler.stdcxx_libs

    @property
    def home(self):
        return self.prefix

    def standard_flag(self, *, language, standard):
        return self.compiler.standard_flag(language=language, standard=standard)

    def implicit_rpaths(self):
        return []

    def archspec_name(self):
        return {"llvm": "clang", "intel-oneapi-compilers": "oneapi"}.get(self.name, self.name)

    def __getattr__(self, name):
        if name.endswith("_flag") and not name.startswith("_"):
            return getattr(self.compiler, name)
        raise AttributeError("compiler package {} has no attribute {!r}".format(self.name, name))


def wrapper_dir(wrappers):
    """The directory of the compiler wrappers (of the C wrapper, else any)."""
    for key in ("cc", "cxx", "fc", "f77"):
        if wrappers.get(key):
            return os.path.dirname(wrappers[key])
    return None


class CompilerWrapperPackage:
    """`spec["compiler-wrapper"].package`: stack's compiler wrappers, in the
    role of Spack's compiler-wrapper package."""

    def __init__(self, spec, wrappers):
        self.spec = spec
        self.name = spec.name
        self.version = spec.version
        self.prefix = spec.prefix
        self._wrappers = dict(wrappers)

    def bin_dir(self):
        import pathlib

        return pathlib.Path(wrapper_dir(self._wrappers) or os.path.join(self.prefix, "bin"))

    @property
    def cc(self):
        return self._wrappers.get("cc")

    @property
    def cxx(self):
        return self._wrappers.get("cxx")

    @property
    def fc(self):
        return self._wrappers.get("fc")
