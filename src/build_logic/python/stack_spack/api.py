"""`spack.package`: the names package files import with
`from spack.package import *`, implemented by stack.

Build-system base classes (`CMakePackage`, …) are also here, as in
Spack's package API v1 (repositories that do not import them from
`spack_repo.builtin.build_systems`); they load when first used.
"""

import contextlib
import getpass
import importlib
import os
import platform as _platform
from os import chdir, environ, getcwd, makedirs, mkdir, remove, removedirs  # noqa: F401
from shutil import move, rmtree  # noqa: F401
from typing import Dict, Iterable, List, Optional, Tuple  # noqa: F401

from . import tty  # noqa: F401
from .directives import (  # noqa: F401
    build_system, can_splice, conflicts, default_args, depends_on, extends, license,
    maintainers, patch, provides, redistribute, requires, resource, variant, version, when,
)
from .envmods import EnvironmentModifications, filter_system_paths, is_system_path  # noqa: F401
from .errors import (  # noqa: F401
    ApiNotImplemented, CompilerError, InstallError, NoHeadersError, NoLibrariesError, ProcessError,
    SkipTest, SpackError, UnsupportedCompilerFlag,
)
from .executable import Executable, MakeExecutable, which, which_string  # noqa: F401
from .filelists import (  # noqa: F401
    FileList, HeaderList, LibraryList, find, find_all_headers, find_first, find_headers,
    find_libraries, find_system_libraries,
)
from .fs import (  # noqa: F401
    FileFilter, ancestor, can_access, change_sed_delimiter, copy, copy_mode, copy_tree,
    filter_file, filter_shebang, find_required_file, fix_darwin_install_name, force_remove,
    force_symlink, has_shebang, install, install_tree, is_exe, join_path, keep_modification_time,
    library_extensions, mkdirp, path_contains_subdirectory, readlink, remove_directory_contents,
    remove_linked_tree, rename, safe_remove, set_executable, set_install_permissions, symlink,
    touch, touchp, unset_executable_mode, windows_sfn, working_dir,
)
from .lang import ClassProperty, classproperty, dedupe, memoized  # noqa: F401
from .package_base import (  # noqa: F401
    BaseBuilder, Builder, BuilderWithDefaults, GenericBuilder, Package, PackageBase,
    create_builder, on_package_attributes, register_builder, run_after, run_before,
)
from .prefix import Prefix  # noqa: F401
from .spec import Spec  # noqa: F401
from .target import optimization_flags as _optimization_flags
from .urls import join_url  # noqa: F401
from .variants import (  # noqa: F401
    any_combination_of, auto_or_any_combination_of, conditional, disjoint_sets,
)
from .version import Version, VersionList, VersionRange, ver  # noqa: F401

env = environ
cd = chdir
dso_suffix = "so"


def shared_library_suffix(spec):
    return "so"


def static_library_suffix(spec):
    return "a"


all_deptypes = ("build", "link", "run", "test")
package_api_version = (2, 2)


def inject_flags(pkg, name, flags):
    """`flag_handler = inject_flags`: flags go to the compiler wrappers."""
    return flags, None, None


def env_flags(pkg, name, flags):
    """`flag_handler = env_flags`: flags go to the environment (CFLAGS, …)."""
    return None, flags, None


def build_system_flags(pkg, name, flags):
    """`flag_handler = build_system_flags`: flags go to the build system's
    command line."""
    return None, None, flags


def kernel_version():
    """The host's Linux kernel version."""
    import re

    m = re.match(r"[0-9]+(\.[0-9]+)*", _platform.release())
    return Version(m.group(0) if m else "0")


def get_user():
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no passwd entry in a sandbox
        return os.environ.get("USER", "stack")


def determine_number_of_jobs(*, parallel=False, max_cpus=None, config=None):
    from .package_base import PackageBase as _PB

    ctx = _PB.stack_build_context
    if not parallel:
        return 1
    jobs = ctx.jobs if ctx is not None else (os.cpu_count() or 1)
    return min(jobs, max_cpus) if max_cpus else jobs


def get_effective_jobs(jobs, parallel=True, supports_jobserver=False):
    if not parallel:
        return 1
    return jobs


def get_cmake_prefix_path(pkg):
    from .build_systems.cmake import get_cmake_prefix_path as _g

    return _g(pkg)


@contextlib.contextmanager
def set_env(**kwargs):
    """Set environment variables inside the block, restore them after."""
    saved = {k: os.environ.get(k) for k in kwargs}
    os.environ.update({k: str(v) for k, v in kwargs.items()})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class _Platform:
    name = "linux"
    default_os = "linux"

    @property
    def default(self):
        return _platform.machine()

    def __str__(self):
        return self.name

    def target(self, name):
        from .target import Microarchitecture

        return Microarchitecture(_platform.machine() if name in ("default_target", "frontend", "fe") else name)

    def operating_system(self, name):
        return self.default_os


def host_platform():
    return _Platform()


def macos_version():
    return Version("0")


def microarchitecture_flags(spec, language="c"):
    return _optimization_flags(spec.target.name, spec.compiler.name)


def microarchitecture_flags_from_target(target, compiler):
    return _optimization_flags(str(target), getattr(compiler, "name", str(compiler)))


def execute_build_time_tests(builder):
    """Build-time tests do not run in stack builds (`run_tests` is False)."""


def execute_install_time_tests(builder):
    """Install-time tests do not run in stack builds."""


def apply_macos_rpath_fixups(builder):
    """Only meaningful on macOS."""


def cache_extra_test_sources(pkg, srcs):
    """Stand-alone test sources are not kept by stack builds."""


@contextlib.contextmanager
def test_part(pkg, test_name, purpose, work_dir=".", verbose=False):
    yield


def check_outputs(expected, actual):
    import re

    for check in [expected] if isinstance(expected, str) else expected:
        if not re.search(check, actual):
            raise RuntimeError("Expected {!r} in output".format(check))


def get_escaped_text_output(filename):
    import re

    with open(filename) as f:
        return [re.escape(line) for line in f.read().split("\n") if line]


def install_test_root(pkg):
    return os.path.join(pkg.prefix, ".spack", "test")


def bash_completion_path(root):
    return os.path.join(root, "share", "bash-completion", "completions")


def zsh_completion_path(root):
    return os.path.join(root, "share", "zsh", "site-functions")


def fish_completion_path(root):
    return os.path.join(root, "share", "fish", "vendor_completions.d")


def filter_compiler_wrappers(*files, after="install", relative_root=None, ignore_absent=True,
                             backup=False, recursive=False, **kwargs):
    """Directive: after the phase `after`, replace the paths of the compiler
    wrappers in the installed `files` (globs under `prefix/relative_root`) by
    the paths of the real compilers, so that the installed files keep working
    outside the build."""

    def _filter(pkg):
        import fnmatch

        root = os.path.join(pkg.prefix, relative_root) if relative_root else str(pkg.prefix)
        found = []
        if os.path.isdir(root):
            for dirpath, dirnames, filenames in os.walk(root):
                for f in filenames:
                    if any(fnmatch.fnmatch(f, pat) for pat in files):
                        found.append(os.path.join(dirpath, f))
                if not recursive:
                    dirnames[:] = []
        if not found:
            return
        ctx = pkg._ctx()
        comp = ctx.compiler
        pairs = []
        for key in ("cc", "cxx", "fc", "f77"):
            wrapper = ctx.wrappers.get(key)
            real = getattr(comp, key, None)
            if wrapper and real and wrapper != real:
                pairs.append((wrapper, real))
        for wrapper, real in sorted(pairs, key=lambda p: -len(p[0])):
            filter_file(wrapper, real, *found, string=True, backup=backup, ignore_absent=ignore_absent)

    _filter.__name__ = "filter_compiler_wrappers"
    run_after(after)(_filter)


class ModuleChangePropagator:
    """Set module-level names of a package's module and of the modules of
    its package base classes (`module.cmake = …` in setup_dependent_package)."""

    def __init__(self, package):
        import sys

        from .package_base import is_layer_class

        object.__setattr__(self, "_modules", [])
        object.__setattr__(self, "_set", {})
        cls = package if isinstance(package, type) else type(package)
        for c in cls.__mro__:
            if is_layer_class(c):
                continue
            m = sys.modules.get(c.__module__)
            if m is not None and m not in self._modules:
                self._modules.append(m)
        object.__setattr__(self, "package", package)

    def __getattr__(self, name):
        if name in self._set:
            return self._set[name]
        return getattr(self._modules[0], name)

    def __setattr__(self, key, value):
        self._set[key] = value
        for m in self._modules:
            setattr(m, key, value)

    def propagate_changes_to_mro(self):
        pass


# Build-system classes of package API v1, loaded when first asked for.
_V1_NAMES = {
    "AspellDictPackage": "aspell_dict", "AutotoolsPackage": "autotools", "BundlePackage": "bundle",
    "CachedCMakePackage": "cached_cmake", "cmake_cache_filepath": "cached_cmake",
    "cmake_cache_option": "cached_cmake", "cmake_cache_path": "cached_cmake",
    "cmake_cache_string": "cached_cmake", "CargoPackage": "cargo", "CMakePackage": "cmake",
    "generator": "cmake", "CompilerPackage": "compiler", "CudaPackage": "cuda",
    "GNUMirrorPackage": "gnu", "GoPackage": "go", "IntelOneApiLibraryPackage": "oneapi",
    "IntelOneApiLibraryPackageWithSdk": "oneapi", "IntelOneApiPackage": "oneapi",
    "IntelOneApiStaticLibraryList": "oneapi", "INTEL_MATH_LIBRARIES": "oneapi",
    "LuaPackage": "lua", "MakefilePackage": "makefile", "MavenPackage": "maven",
    "MesonPackage": "meson", "MSBuildPackage": "msbuild", "NMakePackage": "nmake",
    "OctavePackage": "octave", "PerlPackage": "perl", "PythonExtension": "python",
    "PythonPackage": "python", "QMakePackage": "qmake", "RacketPackage": "racket",
    "RPackage": "r", "ROCmPackage": "rocm", "RubyPackage": "ruby", "SConsPackage": "scons",
    "SIPPackage": "sip", "SourceforgePackage": "sourceforge", "SourcewarePackage": "sourceware",
    "WafPackage": "waf", "XorgPackage": "xorg",
}

_BASE_ALL = [
    n for n in list(globals())
    if not n.startswith("_") and n not in ("contextlib", "getpass", "importlib", "os")
]

# `spack` itself: old package files use `spack.build_systems.cmake.CMakeBuilder`
# after `from spack.package import *`, which gave them the name.
__all__ = sorted(set(_BASE_ALL) | set(_V1_NAMES) | {"spack"})


def __getattr__(name):
    if name == "spack":
        from . import finder

        finder.install()
        return importlib.import_module("spack")
    modname = _V1_NAMES.get(name)
    if modname is not None:
        try:
            mod = importlib.import_module("stack_spack.build_systems." + modname)
        except ImportError:
            raise ApiNotImplemented("spack.package.{}".format(name))
        value = getattr(mod, name)
        globals()[name] = value
        return value
    if name.startswith("__"):
        raise AttributeError(name)
    raise ApiNotImplemented("spack.package.{}".format(name))
