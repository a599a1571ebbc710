"""`run.py request.json`: build one package by running its package.py.

1. import the package module (and the ones it imports) through the finder;
2. set the module-level names (`make`, `spack_cc`, `make_jobs`, …) and run
   `setup_dependent_package` of the dependencies;
3. route the compiler flags through `flag_handler`;
4. apply the dependencies' `setup_run_environment` (build tools) and
   `setup_dependent_build_environment`, then the package's
   `setup_build_environment`, to the environment;
5. run `patch()`, then the builder's phases with their hooks;
6. write the run environment (`setup_run_environment`) and the result.

Exit status: 0 success, 1 the build failed, 2 a bad request, 3 an API the
layer does not implement.
"""

import json
import os
import sys
import time
import traceback

from . import API_VERSION, executable, finder
from .api import ModuleChangePropagator
from .context import BuildContext
from .envmods import EnvironmentModifications
from .errors import ApiNotImplemented, InstallError, is_package_file
from .executable import Executable, MakeExecutable, MissingExecutable
from .multimethod import SpecMultiMethod
from .package_base import PackageBase, PhaseRecord, is_layer_class, run_phases, sanity_check_prefix
from .request import BadRequest, read_request
from .specsyntax import FLAG_NAMES

# tools set as module-level names for a build when a dependency or PATH has them
MODULE_TOOLS = (
    "cmake", "ctest", "meson", "autoreconf", "autoconf", "automake", "aclocal", "libtoolize",
    "autoheader", "perl", "scons", "go", "cargo", "ruby", "gem", "rake", "lua", "luarocks",
    "mvn", "qmake", "octave", "R", "pip", "bazel", "ant", "java", "javac",
)


def _modules_of(pkg):
    out = []
    for c in type(pkg).__mro__:
        if is_layer_class(c):
            continue
        m = sys.modules.get(c.__module__)
        if m is not None and m not in out:
            out.append(m)
    return out


def set_module_variables(ctx, pkg):
    """The names Spack sets on a package's module (and its base classes'
    modules) for a build."""
    jobs = ctx.make_jobs(pkg)
    values = {"make_jobs": jobs, "dso_suffix": "so", "prefix": pkg.prefix}
    make_path = ctx.tool_path("make") or ctx.tool_path("gmake")
    values["make"] = MakeExecutable(make_path, jobs) if make_path else MissingExecutable("make")
    values["gmake"] = values["make"]
    ninja_path = ctx.tool_path("ninja")
    values["ninja"] = MakeExecutable(ninja_path, jobs, supports_jobserver=False) if ninja_path else \
        MissingExecutable("ninja")
    values["configure"] = Executable("./configure")
    py = ctx.tool_path("python3") or ctx.tool_path("python")
    values["python"] = Executable(py) if py else MissingExecutable("python")
    for name in MODULE_TOOLS:
        path = ctx.tool_path(name)
        if name == "ctest" and path:
            values[name] = MakeExecutable(path, jobs, supports_jobserver=False)
        else:
            values[name] = Executable(path) if path else MissingExecutable(name)
    comp = ctx.compiler
    for var, key in (("spack_cc", "cc"), ("spack_cxx", "cxx"), ("spack_fc", "fc"), ("spack_f77", "f77")):
        values[var] = ctx.wrappers.get(key) or getattr(comp, key) or key
    for m in _modules_of(pkg):
        for k, v in values.items():
            setattr(m, k, v)


def visited_dependencies(root):
    """The dependencies whose environment a build sees, dependencies first:
    the direct ones, then link/run edges from there (not the build
    dependencies of dependencies); and which of them run at build time
    (direct build dependencies and their run dependencies)."""
    order = []
    seen = set()
    executables = set()

    def visit(node, via_exec):
        if via_exec:
            executables.add(id(node))
        if id(node) in seen:
            if via_exec:
                for e in node._edges:
                    if "run" in e.deptypes:
                        visit(e.spec, True)
            return
        seen.add(id(node))
        for e in sorted(node._edges, key=lambda e: e.spec.name):
            if not ({"link", "run"} & set(e.deptypes)):
                continue
            visit(e.spec, via_exec and "run" in e.deptypes)
        order.append(node)

    for e in sorted(root._edges, key=lambda e: e.spec.name):
        visit(e.spec, bool({"build", "run"} & set(e.deptypes)))
    return order, executables


def _builder_or_package(pkg):
    if isinstance(pkg, PackageBase):
        try:
            return pkg.builder
        except ApiNotImplemented:
            return pkg
    return pkg


def build_environment(ctx, pkg):
    spec = pkg.spec
    env = EnvironmentModifications()
    for var, key in (("CC", "cc"), ("CXX", "cxx"), ("FC", "fc"), ("F77", "f77")):
        if ctx.wrappers.get(key):
            env.set(var, ctx.wrappers[key])
    order, executables = visited_dependencies(spec)
    spack_variables(ctx, pkg, env)
    # each dependency's module gets its names too, and those its own dependencies
    # set (python's `python_platlib` for a py-* dependency's properties)
    for dep in order:
        dpkg = dep.package
        if isinstance(dpkg, PackageBase):
            set_module_variables(ctx, dpkg)
            dprop = ModuleChangePropagator(dpkg)
            for sub in dep.dependencies():
                _builder_or_package(sub.package).setup_dependent_package(dprop, dep)
    propagator = ModuleChangePropagator(pkg)
    for dep in order:
        _builder_or_package(dep.package).setup_dependent_package(propagator, spec)
    for dep in order:
        b = _builder_or_package(dep.package)
        if id(dep) in executables:
            bindir = os.path.join(dep.prefix, "bin")
            if os.path.isdir(bindir):
                env.prepend_path("PATH", bindir)
            b.setup_run_environment(env)
        b.setup_dependent_build_environment(env, spec)
    pkg.builder.setup_build_environment(env)
    return env


def spack_variables(ctx, pkg, env):
    """The SPACK_* variables of Spack's build environment that package code
    reads: the real compilers (SPACK_CC, …) and the link dependencies'
    directories (SPACK_RPATH_DIRS, SPACK_LINK_DIRS, SPACK_INCLUDE_DIRS)."""
    from .envmods import is_system_path

    comp = ctx.compiler
    for var, key in (("SPACK_CC", "cc"), ("SPACK_CXX", "cxx"), ("SPACK_FC", "fc"), ("SPACK_F77", "f77")):
        path = getattr(comp, key, None)
        if path and var not in os.environ:
            env.set(var, path)
    link, include, store = [], [], []
    for dep in pkg.spec.traverse(root=False, deptype=("link",)):
        for sub in ("lib", "lib64"):
            d = os.path.join(dep.prefix, sub)
            if os.path.isdir(d) and not is_system_path(d) and d not in link:
                link.append(d)
                if not dep.external:
                    store.append(d)
        d = os.path.join(dep.prefix, "include")
        if os.path.isdir(d) and not is_system_path(d) and d not in include:
            include.append(d)
    own = [os.path.join(pkg.prefix, "lib"), os.path.join(pkg.prefix, "lib64")]
    values = {
        "SPACK_LINK_DIRS": ":".join(link), "SPACK_INCLUDE_DIRS": ":".join(include),
        "SPACK_RPATH_DIRS": ":".join(own + link), "SPACK_STORE_RPATH_DIRS": ":".join(own + store),
        "SPACK_COMPILER_IMPLICIT_RPATHS": "",
    }
    for var, value in values.items():
        if var not in os.environ:
            env.set(var, value)


def route_flags(ctx, pkg):
    """Call `flag_handler` for each flag name and send the flags where it
    says: the compiler wrappers, the environment, or the build system."""
    spec = pkg.spec
    build_system_flags = {}
    for name in FLAG_NAMES:
        flags = list(spec.compiler_flags.get(name, []))
        handler = pkg.flag_handler
        result = handler(name, flags)
        if result is None:
            result = (None, None, None)
        inject, env_flags, bs = (list(x) if x else [] for x in result)
        var = ctx.inject_env.get(name)
        if var:
            if inject:
                os.environ[var] = " ".join(inject)
            else:
                os.environ.pop(var, None)
        elif inject:
            # no wrapper variable for this flag: the environment is the next best place
            env_flags = inject + env_flags
        if env_flags:
            os.environ[name.upper()] = " ".join(env_flags)
        build_system_flags[name] = bs
    pkg.flags_to_build_system_args(build_system_flags)


def run_patch(pkg):
    fn = getattr(type(pkg), "patch", None)
    if fn is None or not _user_method(type(pkg), "patch"):
        return
    os.chdir(pkg.stage.source_path)
    if isinstance(fn, SpecMultiMethod) and fn.matches_none(pkg) and fn.default is None:
        return
    pkg.patch()


def _user_method(cls, name):
    for c in cls.__mro__:
        if name in c.__dict__:
            return not is_layer_class(c)
    return False


def run_environment(pkg):
    env = EnvironmentModifications()
    _builder_or_package(pkg).setup_run_environment(env)
    for name in getattr(pkg, "extendees", {}) or {}:
        try:
            extendee = pkg.spec[name]
        except KeyError:
            continue
        _builder_or_package(extendee.package).setup_dependent_run_environment(env, pkg.spec)
    return env


def build(request):
    finder.install(request.get("modules") or {})
    ctx = BuildContext(request)
    PackageBase.stack_build_context = ctx
    record = PhaseRecord()
    t0 = time.time()
    spec = ctx.root
    pkg = spec.package
    if not isinstance(pkg, PackageBase):
        raise InstallError("{} has no package.py in the request (module is null)".format(spec.name))
    record.add("load", time.time() - t0)
    t = time.time()
    set_module_variables(ctx, pkg)
    route_flags(ctx, pkg)
    env = build_environment(ctx, pkg)
    env.apply_modifications(os.environ)
    record.add("environment", time.time() - t)
    os.makedirs(str(pkg.prefix), exist_ok=True)
    t = time.time()
    run_patch(pkg)
    record.add("patch", time.time() - t)
    run_phases(pkg, record)
    sanity_check_prefix(pkg)
    outputs = request.get("outputs") or {}
    if outputs.get("run_env"):
        run_env = run_environment(pkg).to_json()
        _write_json(outputs["run_env"], run_env)
    if outputs.get("result"):
        _write_json(outputs["result"], {
            "api": API_VERSION,
            "package": spec.name,
            "build_system": type(pkg.builder).build_system,
            "builder": type(pkg.builder).__name__,
            "phases": list(pkg.builder.phases),
            "timings": [{"name": n, "seconds": s} for n, s in record.timings],
            "commands": list(executable.COMMANDS),
            "total_seconds": round(time.time() - t0, 4),
        })


def _write_json(path, data):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


def _print_traceback(exc):
    sys.stdout.flush()
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    sys.stderr.write("".join(lines))
    frames = traceback.extract_tb(exc.__traceback__)
    pkg_frames = [f for f in frames if is_package_file(f.filename)]
    if pkg_frames:
        f = pkg_frames[-1]
        sys.stderr.write("stack: the error happened in {}:{} ({})\n".format(f.filename, f.lineno, f.name))
    sys.stderr.flush()


def main(argv):
    if len(argv) != 1:
        sys.stderr.write("usage: run.py <request.json>\n")
        return 2
    try:
        request = read_request(argv[0])
    except BadRequest as e:
        sys.stderr.write("stack: bad build-logic request {}: {}\n".format(argv[0], e))
        return 2
    layer = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.stdout.write("==> stack package API {}: {} (python {})\n".format(
        API_VERSION, layer, sys.version.split()[0]))
    sys.stdout.flush()
    try:
        build(request)
    except ApiNotImplemented as e:
        _print_traceback(e)
        sys.stderr.write(e.message() + "\n")
        return 3
    except BaseException as e:  # noqa: BLE001 - every failure is reported with its traceback
        if isinstance(e, KeyboardInterrupt):
            raise
        _print_traceback(e)
        sys.stderr.write("stack: {} failed: {}: {}\n".format(
            request.get("nodes", {}).get(request.get("package"), {}).get("name", "package"),
            type(e).__name__, e))
        return 1
    return 0
