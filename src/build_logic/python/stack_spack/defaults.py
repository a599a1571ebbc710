"""What the layer provides for a dependency that has no package.py (a stack
YAML recipe or an external): `.libs`/`.headers`/`.command` found in its
prefix, and the well-known attributes and environment of providers
(mpi: `mpicc`…; python: `command`, `python_platlib`…; perl; R; build tools
such as cmake, ninja, meson as module-level executables)."""

import glob
import os

from .envmods import is_system_path
from .errors import NoLibrariesError
from .executable import Executable, MakeExecutable
from .filelists import LibraryList, default_headers, default_libs, find_libraries
from .prefix import Prefix

MPICH_LIKE = ("mpich", "cray-mpich", "mvapich", "mvapich2", "mvapich2-gdr", "intel-mpi", "intel-oneapi-mpi")
OPENMPI_LIKE = ("openmpi", "hpcx-mpi", "spectrum-mpi", "fujitsu-mpi")

# Libraries of well-known providers of blas, lapack and scalapack.
_VIRTUAL_LIBS = {
    ("openblas", "blas"): ["libopenblas"], ("openblas", "lapack"): ["libopenblas"],
    ("blis", "blas"): ["libblis"], ("amdblis", "blas"): ["libblis", "libblis-mt"],
    ("libflame", "lapack"): ["libflame"], ("amdlibflame", "lapack"): ["libflame"],
    ("flexiblas", "blas"): ["libflexiblas"], ("flexiblas", "lapack"): ["libflexiblas"],
    ("netlib-lapack", "blas"): ["libblas"], ("netlib-lapack", "lapack"): ["liblapack"],
    ("netlib-scalapack", "scalapack"): ["libscalapack"],
    ("cray-libsci", "blas"): ["libsci_gnu", "libsci_cray", "libsci_nvidia", "libsci_amd"],
    ("cray-libsci", "lapack"): ["libsci_gnu", "libsci_cray", "libsci_nvidia", "libsci_amd"],
    ("cray-libsci", "scalapack"): ["libsci_gnu_mpi", "libsci_cray_mpi", "libsci_nvidia_mpi", "libsci_amd_mpi"],
    ("fftw", "fftw-api"): ["libfftw3"],
}


def _python_version(spec):
    return spec.version.up_to(2)


def python_dirs(spec):
    """(platlib, purelib, include) of a python node, relative to a prefix."""
    v = _python_version(spec)
    root = Prefix(spec.prefix)
    found = sorted(glob.glob(os.path.join(root, "lib", "python{}*".format(v), "site-packages")))
    if found:
        lib = os.path.relpath(found[0], root)
    else:
        lib = os.path.join("lib", "python{}".format(v), "site-packages")
    inc = sorted(glob.glob(os.path.join(root, "include", "python{}*".format(v))))
    include = os.path.relpath(inc[0], root) if inc else os.path.join("include", "python{}".format(v))
    return lib, lib, include


class DefaultPackage:
    """The package of a node without package.py."""

    def __init__(self, spec):
        self.spec = spec
        self.name = spec.name
        self.version = spec.version
        self.prefix = spec.prefix
        self.extendees = {}
        self.run_tests = False
        self.parallel = True
        if spec.name == "python":
            platlib, purelib, include = python_dirs(spec)
            self.platlib = platlib
            self.purelib = purelib
            self.include = include

    @property
    def home(self):
        return self.prefix

    @property
    def compiler(self):
        return self.spec._ctx.compiler

    @property
    def command(self):
        return default_attribute(self.spec, self, "command", None)

    def extends(self, spec):
        return False

    def __getitem__(self, key):
        return self.spec[key].package

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError("the package of {} (no package.py) has no attribute '{}'".format(self.spec.name, name))

    # environment hooks of a node without package.py
    def setup_build_environment(self, env):
        pass

    def setup_run_environment(self, env):
        pass

    def setup_dependent_build_environment(self, env, dependent_spec):
        dependent_environment(self.spec, env, dependent_spec)

    def setup_dependent_run_environment(self, env, dependent_spec):
        dependent_run_environment(self.spec, env, dependent_spec)

    def setup_dependent_package(self, module, dependent_spec):
        provider_module_variables(self.spec, module, dependent_spec)


def default_package(spec):
    pkg = DefaultPackage(spec)
    provider_spec_attributes(spec)
    return pkg


def _provided(spec):
    out = set()
    for e in spec._parents:
        out.update(e.virtuals)
    return out


def _exe(prefix, *names):
    for n in names:
        p = os.path.join(prefix, "bin", n)
        if os.path.exists(p):
            return p
    return os.path.join(prefix, "bin", names[0])


def provider_spec_attributes(spec):
    """Attributes providers set on their spec (`spec["mpi"].mpicc`, `spec["hip"].hipcc`)."""
    if spec.name == "hip":
        spec.hipcc = os.path.join(spec.prefix, "bin", "hipcc")
        spec.hip_device_libs = os.path.join(spec.prefix, "amdgcn", "bitcode")
    if "mpi" in _provided(spec) or spec.name in MPICH_LIKE + OPENMPI_LIKE:
        spec.mpicc = _exe(spec.prefix, "mpicc")
        spec.mpicxx = _exe(spec.prefix, "mpicxx", "mpic++", "mpiCC")
        spec.mpifc = _exe(spec.prefix, "mpif90", "mpifort")
        spec.mpif77 = _exe(spec.prefix, "mpif77", "mpif90", "mpifort")


def default_attribute(spec, pkg, attr, query):
    home = getattr(pkg, "home", spec.prefix)
    if attr == "libs":
        virtual = query.name if query is not None and query.isvirtual else None
        names = _VIRTUAL_LIBS.get((spec.name, virtual)) if virtual else None
        if names:
            shared = None if "shared" not in spec.variants else spec.variants["shared"].value
            for n in names:
                for sh in ([shared] if shared is not None else [True, False]):
                    libs = find_libraries(n, home, shared=sh, recursive=True)
                    if libs:
                        return libs
        if spec.name == "python":
            return find_libraries("libpython{}*".format(_python_version(spec)), home, shared=True, recursive=True)
        shared = spec.variants["shared"].value if "shared" in spec.variants and isinstance(
            spec.variants["shared"].value, bool) else None
        try:
            return default_libs(spec.name, home, shared)
        except NoLibrariesError:
            if virtual in ("blas", "lapack", "scalapack"):
                libs = find_libraries("lib" + virtual, home, shared=True, recursive=True)
                if libs:
                    return libs
            raise
    if attr == "headers":
        if spec.name == "python":
            inc = os.path.join(home, python_dirs(spec)[2])
            from .filelists import find_headers

            hdrs = find_headers("Python", inc)
            if hdrs:
                return hdrs
        return default_headers(spec.name, home)
    if attr == "command":
        names = [spec.name]
        if spec.name == "python":
            names = ["python3", "python"]
        if spec.name == "r":
            names = ["R"]
        for n in names:
            p = os.path.join(home, "bin", n)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return Executable(p)
        from .filelists import find

        for n in names:
            hits = [h for h in find(home, n, recursive=True) if os.access(h, os.X_OK)]
            if hits:
                return Executable(hits[0])
        raise RuntimeError("Unable to locate {} command in {}".format(spec.name, home))
    raise AttributeError(attr)


# --- module-level variables and environments of providers without package.py ---


def _extends(node, extendee):
    """Whether `node` is an extension of `extendee` (by its package's
    `extends`, else by its prefix's layout)."""
    pkg = node.package
    extendees = getattr(pkg, "extendees", None) or {}
    if extendee.name in extendees:
        return True
    if extendee.name == "python":
        return bool(glob.glob(os.path.join(node.prefix, "lib", "python*", "site-packages")))
    if extendee.name == "perl":
        return os.path.isdir(os.path.join(node.prefix, "lib", "perl5"))
    if extendee.name == "r":
        return os.path.isdir(os.path.join(node.prefix, "rlib", "R", "library"))
    return False


def provider_module_variables(spec, module, dependent_spec):
    name = spec.name
    if name == "python":
        platlib, purelib, include = python_dirs(spec)
        try:
            module.python = default_attribute(spec, spec.package, "command", None)
        except RuntimeError:
            from .executable import MissingExecutable

            module.python = MissingExecutable(os.path.join(spec.prefix, "bin", "python3"))
        module.python_platlib = os.path.join(dependent_spec.prefix, platlib)
        module.python_purelib = os.path.join(dependent_spec.prefix, purelib)
        module.python_include = os.path.join(dependent_spec.prefix, include)
    elif name == "perl":
        module.perl = Executable(os.path.join(spec.prefix, "bin", "perl"))
    elif name == "r":
        module.R = Executable(os.path.join(spec.prefix, "bin", "R"))
        module.r_lib_dir = os.path.join(dependent_spec.prefix, "rlib", "R", "library")
    elif name == "cmake":
        module.cmake = Executable(os.path.join(spec.prefix, "bin", "cmake"))
        module.ctest = MakeExecutable(os.path.join(spec.prefix, "bin", "ctest"), spec._ctx.jobs)
    elif name == "ninja":
        module.ninja = MakeExecutable(os.path.join(spec.prefix, "bin", "ninja"), spec._ctx.make_jobs(
            dependent_spec.package), supports_jobserver=False)
    elif name in ("gmake", "make"):
        make = MakeExecutable(os.path.join(spec.prefix, "bin", "make"), spec._ctx.make_jobs(dependent_spec.package))
        module.make = make
        module.gmake = make
    elif name == "meson":
        module.meson = Executable(os.path.join(spec.prefix, "bin", "meson"))


def dependent_environment(spec, env, dependent_spec):
    """`setup_dependent_build_environment` of a node without package.py."""
    name = spec.name
    provided = _provided(spec)
    if "mpi" in provided or name in MPICH_LIKE + OPENMPI_LIKE:
        provider_spec_attributes(spec)
        env.set("MPICC", spec.mpicc)
        env.set("MPICXX", spec.mpicxx)
        env.set("MPIF77", spec.mpif77)
        env.set("MPIF90", spec.mpifc)
        env.set("MPIFC", spec.mpifc)
        wrappers = spec._ctx.wrappers
        if name in MPICH_LIKE or name not in OPENMPI_LIKE:
            for var, key in (("MPICH_CC", "cc"), ("MPICH_CXX", "cxx"), ("MPICH_F77", "f77"),
                             ("MPICH_F90", "fc"), ("MPICH_FC", "fc")):
                if wrappers.get(key):
                    env.set(var, wrappers[key])
        if name in OPENMPI_LIKE:
            for var, key in (("OMPI_CC", "cc"), ("OMPI_CXX", "cxx"), ("OMPI_FC", "fc"), ("OMPI_F77", "f77")):
                if wrappers.get(key):
                    env.set(var, wrappers[key])
    if name == "python":
        platlib, purelib, _ = python_dirs(spec)
        bindir = os.path.join(spec.prefix, "bin")
        if not is_system_path(bindir):
            env.prepend_path("PATH", bindir)
        prefixes = []
        if _extends(dependent_spec, spec):
            prefixes.append(dependent_spec.prefix)
        for direct in dependent_spec.dependencies(deptype=("build", "run", "test")):
            if direct is spec or not _extends(direct, spec):
                continue
            if direct.prefix not in prefixes:
                prefixes.append(direct.prefix)
            for ind in direct.traverse(deptype="run"):
                if ind is not spec and _extends(ind, spec) and ind.prefix not in prefixes:
                    prefixes.append(ind.prefix)
        for p in prefixes:
            for d in sorted({platlib, purelib}):
                env.prepend_path("PYTHONPATH", os.path.join(p, d))
    if name == "perl":
        for node in [dependent_spec] + list(dependent_spec.traverse(root=False, deptype=("build", "run", "link"))):
            lib = os.path.join(node.prefix, "lib", "perl5")
            if os.path.isdir(lib) or node is dependent_spec:
                env.prepend_path("PERL5LIB", lib)
    if name == "r":
        libs = []
        for node in dependent_spec.traverse(root=False, deptype=("build", "run", "link")):
            d = os.path.join(node.prefix, "rlib", "R", "library")
            if os.path.isdir(d):
                libs.append(d)
        libs.append(os.path.join(dependent_spec.prefix, "rlib", "R", "library"))
        env.set("R_LIBS", ":".join(libs))
    if name == "cmake" or name == "pkgconf" or name == "pkg-config":
        pass


def dependent_run_environment(spec, env, dependent_spec):
    """`setup_dependent_run_environment` of a node without package.py:
    extensions of python, perl and R find their files."""
    if spec.name == "python" and _extends(dependent_spec, spec):
        platlib, purelib, _ = python_dirs(spec)
        for d in sorted({platlib, purelib}):
            env.prepend_path("PYTHONPATH", os.path.join(dependent_spec.prefix, d))
    if spec.name == "perl":
        env.prepend_path("PERL5LIB", os.path.join(dependent_spec.prefix, "lib", "perl5"))
    if spec.name == "r":
        env.prepend_path("R_LIBS", os.path.join(dependent_spec.prefix, "rlib", "R", "library"))


def libs_of(names, root):
    return LibraryList(find_libraries(names, root, recursive=True))
