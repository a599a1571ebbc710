"""The import hook: serves `spack.package` and the older module spellings
package files use, `spack_repo.<ns>.build_systems.<x>` (stack's base
classes), and `spack_repo.<ns>.packages.<dir>.package` from the files the
request lists — nothing else of `spack`, `llnl` or `spack_repo`.

A package module runs with builtins that turn an unknown global name into
`ApiNotImplemented` (naming the package.py line) when the name is part of
Spack's package API, so that a missing API is never mistaken for a bug in
the package."""

import builtins
import importlib
import importlib.abc
import importlib.machinery
import os
import sys

from . import known_names
from .errors import ApiNotImplemented, caller_location, register_package_file

# module name -> module of the layer that implements it
ALIASES = {
    "spack.package": "stack_spack.api",
    "spack.util.environment": "stack_spack.compat.util_environment",
    "spack.util.executable": "stack_spack.compat.util_executable",
    "spack.util.prefix": "stack_spack.compat.util_prefix",
    "spack.build_environment": "stack_spack.compat.build_environment",
    "spack.compilers": "stack_spack.compat.compilers",
    "spack.platforms": "stack_spack.compat.platforms",
    "spack.error": "stack_spack.errors",
    "spack.version": "stack_spack.compat.version",
    "spack.spec": "stack_spack.compat.spec",
    "spack.directives": "stack_spack.directives",
    "spack.multimethod": "stack_spack.multimethod",
    "spack.builder": "stack_spack.compat.builder",
    "spack.phase_callbacks": "stack_spack.compat.builder",
    "spack.package_base": "stack_spack.compat.builder",
    "spack.operating_systems.mac_os": "stack_spack.compat.mac_os",
    "spack.install_test": "stack_spack.compat.install_test",
    "llnl.util.filesystem": "stack_spack.compat.filesystem",
    "llnl.util.tty": "stack_spack.tty",
    "llnl.util.lang": "stack_spack.lang",
    "llnl.util.symlink": "stack_spack.compat.filesystem",
    "llnl.path": "stack_spack.compat.filesystem",
    "llnl.url": "stack_spack.compat.url",
    "spack.url": "stack_spack.compat.url",
    "spack.util.url": "stack_spack.compat.url",
}

# modules that are only containers of the ones above
PACKAGES = {
    "spack", "spack.util", "spack.operating_systems", "llnl", "llnl.util",
    "spack.llnl", "spack.llnl.util", "spack.build_systems", "spack.pkg",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target
        self.original_spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.original_spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module):
        if self.original_spec is not None:
            module.__spec__ = self.original_spec


class _PackageLoader(importlib.abc.Loader):
    """Creates an empty package (a container module) whose submodules load
    when first used as attributes (`spack.build_systems.cmake.CMakeBuilder`
    after only `import spack.package`)."""

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__path__ = []
        name = module.__name__

        def __getattr__(attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            return importlib.import_module(name + "." + attr)

        module.__getattr__ = __getattr__


class MissingNameBuiltins(dict):
    """Builtins of a package module: an unknown name that belongs to Spack's
    package API raises ApiNotImplemented; any other a NameError."""

    def __missing__(self, key):
        if key in known_names.SPACK_API_NAMES:
            raise MissingApiName(key)
        raise NameError("name '{}' is not defined".format(key))


class MissingApiName(ApiNotImplemented, NameError):
    def __init__(self, name):
        ApiNotImplemented.__init__(self, "name '{}'".format(name), caller_location(2))


_BUILTINS = None


def package_builtins():
    global _BUILTINS
    if _BUILTINS is None:
        _BUILTINS = MissingNameBuiltins(builtins.__dict__)
    return _BUILTINS


class _FileLoader(importlib.abc.Loader):
    """Loads one package.py of the request."""

    def __init__(self, path):
        self.path = path

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        register_package_file(self.path)
        with open(self.path, "rb") as f:
            source = f.read()
        code = compile(source, self.path, "exec", dont_inherit=True)
        module.__file__ = self.path
        module.__dict__["__builtins__"] = package_builtins()
        exec(code, module.__dict__)


class StackFinder(importlib.abc.MetaPathFinder):
    def __init__(self, modules=None):
        # module name -> path of package.py
        self.modules = dict(modules or {})
        # (directory holding the namespaces, layout) searched for package files
        self.roots = []

    def add_modules(self, modules):
        self.modules.update(modules)

    def add_root(self, root, layout):
        """Serve every package of the namespaces under `root`: `spack`
        layout `<root>/<ns>/packages/<dir>/package.py`, `stack` layout
        `<root>/<ns>/<dir>/package.py` (a repository's `spack/`)."""
        if (root, layout) not in self.roots:
            self.roots.append((root, layout))

    def _path_of(self, fullname):
        path = self.modules.get(fullname)
        if path is not None:
            return path
        parts = fullname.split(".")
        if len(parts) != 5:
            return None
        ns, d = parts[1], parts[3]
        for root, layout in self.roots:
            if layout == "spack":
                p = os.path.join(root, ns, "packages", d, "package.py")
            else:
                p = os.path.join(root, ns, d, "package.py")
            if os.path.isfile(p):
                return p
        return None

    def _package_file_spec(self, fullname):
        path = self._path_of(fullname)
        if path is None:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, _FileLoader(path), origin=path)
        spec.has_location = True
        return spec

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.split(".")[0]
        if top not in ("spack", "llnl", "spack_repo"):
            return None
        if fullname in ALIASES:
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(ALIASES[fullname]))
        if fullname.startswith("spack.llnl."):
            rest = fullname[len("spack."):]
            if rest in ALIASES:
                return importlib.machinery.ModuleSpec(fullname, _AliasLoader(ALIASES[rest]))
        if fullname in PACKAGES:
            return importlib.machinery.ModuleSpec(fullname, _PackageLoader(), is_package=True)
        parts = fullname.split(".")
        if top == "spack":
            if len(parts) == 3 and parts[1] == "build_systems":
                return self._build_system(fullname, parts[2])
            if parts[1] == "pkg" and len(parts) >= 3:
                return self._old_package(fullname, parts)
            raise ApiNotImplemented("import of module {}".format(fullname), caller_location(2))
        if top == "llnl":
            raise ApiNotImplemented("import of module {}".format(fullname), caller_location(2))
        # spack_repo…
        if len(parts) <= 2 or (len(parts) == 3 and parts[2] in ("packages", "build_systems")):
            return importlib.machinery.ModuleSpec(fullname, _PackageLoader(), is_package=True)
        if parts[2] == "build_systems" and len(parts) == 4:
            return self._build_system(fullname, parts[3])
        if parts[2] == "packages":
            if len(parts) == 4:
                if self._path_of(fullname + ".package") is not None:
                    return importlib.machinery.ModuleSpec(fullname, _PackageLoader(), is_package=True)
                return None
            if len(parts) == 5 and parts[4] == "package":
                return self._package_file_spec(fullname)
        return None

    def _build_system(self, fullname, name):
        target = "stack_spack.build_systems." + name
        try:
            importlib.import_module(target)
        except ModuleNotFoundError as e:
            if e.name == target:
                raise ApiNotImplemented("build system module {}".format(fullname), caller_location(3))
            raise
        module = sys.modules[target]
        if "__getattr__" not in module.__dict__:
            # the names of spack.package are reachable through a build-system
            # module too (`from …build_systems.cuda import conflicts`)
            module.__getattr__ = _api_getattr
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(target))

    def _old_package(self, fullname, parts):
        """`spack.pkg.<ns>.<name>` (before package API v2)."""
        if len(parts) == 3:
            return importlib.machinery.ModuleSpec(fullname, _PackageLoader(), is_package=True)
        target = "spack_repo.{}.packages.{}.package".format(parts[2], parts[3].replace("-", "_"))
        if self._path_of(target) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(target))


def _api_getattr(name):
    if name.startswith("__"):
        raise AttributeError(name)
    api = importlib.import_module("stack_spack.api")
    return getattr(api, name)


_FINDER = None


def install(modules=None):
    """Put the finder first on `sys.meta_path` (once) and add `modules`."""
    global _FINDER
    if _FINDER is None:
        _FINDER = StackFinder()
        sys.meta_path.insert(0, _FINDER)
    if modules:
        _FINDER.add_modules({k: os.path.abspath(v) for k, v in modules.items()})
    return _FINDER


def forget_packages():
    """Drop the loaded package modules (to evaluate them again)."""
    for name in list(sys.modules):
        if name.startswith("spack_repo.") or name.startswith("spack.pkg."):
            del sys.modules[name]
