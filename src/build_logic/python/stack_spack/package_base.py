"""`PackageBase`, builders and phases.

A package class holds the directives' record (see directives.py).  At build
time the package is built by a *builder*: the build system's builder class
(`CMakeBuilder` for `build_system=cmake`), or the class of that name the
package's module defines (`class CMakeBuilder(cmake.CMakeBuilder)`).  When
the package module has no builder class, the package's own methods and
attributes of the same names as the builder's (`cmake_args`, `install`,
`build_directory`, …) replace the builder's, as in Spack's "legacy" packages.
A package instance reads what it lacks from its builder (`self.build_directory`).

Phases run in order, each between its `run_before` and `run_after` hooks,
in the stage's source directory.
"""

import os
import sys
import time

from . import directives as _directives
from .errors import InstallError, not_implemented
from .lang import classproperty
from .prefix import Prefix

# build system name -> default builder class
BUILDERS = {}

# Public attributes of Spack's PackageBase that this layer lacks: reading one
# is an error naming the package.py line, not an AttributeError.
SPACK_PACKAGE_ATTRIBUTES_MISSING = frozenset(
    """all_patches content_hash do_clean do_deprecate do_fetch do_install
    do_patch do_restage do_stage do_uninstall fetch_remote_versions fetcher
    find_valid_url_for_version global_license_dir installed_upstream
    possible_dependencies test_log_file tester view""".split()
)

_LAYER_PREFIX = "stack_spack"


def is_layer_class(cls):
    return cls.__module__.split(".")[0] == _LAYER_PREFIX or cls.__module__ == "builtins"


def user_defines(cls, name):
    """Whether `name` comes from a class of a package file (not the layer)."""
    for c in cls.__mro__:
        if name in c.__dict__:
            return not is_layer_class(c)
    return False


class PackagePropertyError(InstallError):
    """An AttributeError raised inside a package's property."""


# --- hooks ------------------------------------------------------------------------


def run_before(phase, when=None):
    """Decorator: run the method before `phase` (when the spec satisfies `when`)."""

    def register(fn):
        _directives._pending_hooks.append(("before", phase, when, fn))
        return fn

    return register


def run_after(phase, when=None):
    """Decorator: run the method after `phase` (when the spec satisfies `when`)."""

    def register(fn):
        _directives._pending_hooks.append(("after", phase, when, fn))
        return fn

    return register


def on_package_attributes(**attr_dict):
    """Decorator: run the method only if the package has these attribute
    values (`run_tests=True`)."""

    def decorator(fn):
        def wrapper(instance, *args, **kwargs):
            pkg = getattr(instance, "pkg", instance)
            if all(getattr(pkg, k, None) == v for k, v in attr_dict.items()):
                return fn(instance, *args, **kwargs)
            return None

        wrapper.__name__ = getattr(fn, "__name__", "hook")
        wrapper.__wrapped__ = fn
        return wrapper

    return decorator


# --- the stage ----------------------------------------------------------------------


class Stage:
    """`self.stage`: the build's staging directory and its source tree."""

    def __init__(self, path, source_path):
        self.path = str(path)
        self.source_path = str(source_path)
        self.archive_file = None
        self.expanded = True
        self.srcs = [self]

    def __iter__(self):
        return iter([self])

    def __getitem__(self, i):
        return [self][i]

    def __len__(self):
        return 1

    def __repr__(self):
        return "Stage({!r})".format(self.source_path)


# --- the package class ----------------------------------------------------------------


def _module_package_name(module_name):
    parts = module_name.split(".")
    if len(parts) >= 2 and parts[-1] == "package":
        d = parts[-2]
        if d.startswith("_") and d[1:2].isdigit():
            d = d[1:]
        return d.replace("_", "-")
    return None


class PackageMeta(_directives.DirectiveMeta):
    pass


class PackageBase(metaclass=PackageMeta):
    """The base of every package class."""

    homepage = None
    url = None
    list_url = None
    list_depth = 0
    git = None
    has_code = True
    parallel = True
    run_tests = False
    keep_werror = None
    extendable = False
    transitive_rpaths = True
    manual_download = False
    license_required = False
    license_comment = "#"
    license_files = []
    license_vars = []
    license_url = ""
    sanity_check_is_file = []
    sanity_check_is_dir = []
    executables = []
    libraries = []
    tags = []
    non_bindable_shared_objects = []
    unresolved_libraries = []
    archive_files = []
    fetch_options = {}
    test_requires_compiler = False
    build_system_class = "PackageBase"
    default_buildsystem = "generic"
    legacy_buildsystem = "generic"
    stack_build_context = None  # set by the runner

    def __init__(self, spec):
        self.spec = spec
        self._builder = None
        try:
            spec._package = self
        except AttributeError:
            pass

    # --- names ---------------------------------------------------------
    @classproperty
    def name(cls):
        n = _module_package_name(cls.__module__)
        return n if n is not None else cls.__name__.lower()

    @classproperty
    def namespace(cls):
        parts = cls.__module__.split(".")
        if parts[0] == "spack_repo" and len(parts) > 1:
            return parts[1]
        return "builtin"

    @classproperty
    def fullname(cls):
        return "{}.{}".format(cls.namespace, cls.name)

    @classproperty
    def fullnames(cls):
        return [cls.fullname]

    @classproperty
    def module(cls):
        return sys.modules[cls.__module__]

    @classproperty
    def package_dir(cls):
        return os.path.dirname(os.path.abspath(sys.modules[cls.__module__].__file__))

    @classproperty
    def all_urls(cls):
        urls = []
        if cls.__dict__.get("url") or getattr(cls, "url", None):
            urls.append(cls.url)
        for args in cls.versions.values():
            if "url" in args:
                urls.append(args["url"])
        return urls

    @classmethod
    def variant_names(cls):
        return [name for d in cls.variants.values() for name in d]

    @classmethod
    def has_variant(cls, name):
        return any(name in d for d in cls.variants.values())

    @classmethod
    def variant_items(cls):
        return list(cls.variants.items())

    @classmethod
    def dependency_names(cls):
        return sorted({name for d in cls.dependencies.values() for name in d})

    @classmethod
    def get_variant(cls, name):
        for d in cls.variants.values():
            if name in d:
                return d[name]
        raise KeyError(name)

    @classproperty
    def dependencies_by_name(cls):
        out = {}
        for when, deps in cls.dependencies.items():
            for name, dep in deps.items():
                out.setdefault(name, []).append(dep)
        return out

    # --- concrete attributes ---------------------------------------------
    @property
    def version(self):
        return self.spec.version

    @property
    def prefix(self):
        return self.spec.prefix

    @property
    def home(self):
        return self.prefix

    @property
    def compiler(self):
        return self._ctx().compiler

    @property
    def stage(self):
        return self._ctx().stage

    @property
    def installed(self):
        return True

    @property
    def command(self):
        """The package's executable: `<prefix>/bin/<name>` (or found under the prefix)."""
        from .defaults import default_attribute

        return default_attribute(self.spec, self, "command", None)

    @property
    def metadata_dir(self):
        return os.path.join(self.prefix, ".spack")

    @property
    def install_log_path(self):
        return os.path.join(self.prefix, ".spack", "spack-build-out.txt")

    def _if_make_target_execute(self, target, *args, **kwargs):
        """Run `make <target>` if the Makefile has that target."""
        import subprocess

        if subprocess.run(["make", "-n", target], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            self.module.make(target, *args, **kwargs)

    def _if_ninja_target_execute(self, target, *args, **kwargs):
        """Run `ninja <target>` if the build has that target."""
        import subprocess

        out = subprocess.run(["ninja", "-t", "targets", "all"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL).stdout.decode(errors="replace")
        if any(line.split(":")[0] == target for line in out.splitlines()):
            self.module.ninja(target, *args, **kwargs)

    @property
    def is_extension(self):
        return bool(self.extendees)

    @property
    def extendee_spec(self):
        for name in self.extendees:
            try:
                return self.spec[name]
            except KeyError:
                continue
        return None

    def extends(self, spec):
        if str(spec) not in self.extendees:
            return False
        return True

    def provides(self, vpkg_name):
        for when, provided in self.provided.items():
            if when.name is None and str(when) and not self.spec.satisfies(str(when)):
                continue
            if any(p.name == vpkg_name for p in provided):
                return True
        return False

    @property
    def virtuals_provided(self):
        out = []
        for when, provided in self.provided.items():
            if str(when) and not self.spec.satisfies(str(when)):
                continue
            out.extend(provided)
        return out

    @property
    def rpath(self):
        dirs = [self.prefix.lib, self.prefix.lib64]
        for dep in self.spec.traverse(root=False, deptype=("link",)):
            dirs.extend([dep.prefix.lib, dep.prefix.lib64])
        return [d for d in dirs if os.path.isdir(d)]

    @property
    def rpath_args(self):
        return " ".join("-Wl,-rpath,{}".format(d) for d in self.rpath)

    @property
    def keep_werror_flags(self):
        return self.keep_werror

    def __getitem__(self, key):
        return self.spec[key].package

    def _ctx(self):
        ctx = type(self).stack_build_context or PackageBase.stack_build_context
        if ctx is None:
            raise InstallError("the package API is used outside of a build")
        return ctx

    # --- the builder -------------------------------------------------------
    @property
    def builder(self):
        if self._builder is None:
            self._builder = create_builder(self)
        return self._builder

    def __getattr__(self, name):
        if name.startswith("_") or name in ("spec",):
            raise AttributeError(name)
        for c in type(self).__mro__:
            if name in c.__dict__ and hasattr(c.__dict__[name], "__get__"):
                # a property of the class raised AttributeError: show that error, not
                # "no attribute" (and never ask the builder, which may ask the package back)
                try:
                    return c.__dict__[name].__get__(self, type(self))
                except AttributeError as e:
                    raise PackagePropertyError(
                        "{}.{} failed: AttributeError: {}".format(type(self).__name__, name, e)
                    ) from e
        builder_cls = type(self.__dict__.get("_builder")) if self.__dict__.get("_builder") else None
        if builder_cls is None and "spec" in self.__dict__:
            try:
                builder_cls = builder_class_for(self)
            except Exception:  # noqa: BLE001 - no builder: plain attribute error below
                builder_cls = None
        if builder_cls is not None and hasattr(builder_cls, name):
            return getattr(self.builder, name)
        if name in SPACK_PACKAGE_ATTRIBUTES_MISSING:
            raise not_implemented("package attribute {}".format(name))
        raise AttributeError("'{}' package has no attribute '{}'".format(type(self).__name__, name))

    # --- URLs ---------------------------------------------------------------
    def url_version(self, version):
        return str(version)

    def url_for_version(self, version):
        from .urls import default_url_for_version

        return default_url_for_version(self, version)

    def all_urls_for_version(self, version):
        from .urls import all_urls_for_version

        return all_urls_for_version(self, version)

    def nearest_url(self, version):
        from .urls import nearest_url

        return nearest_url(type(self), version)

    # --- environment hooks: nothing by default --------------------------------
    def setup_build_environment(self, env):
        pass

    def setup_run_environment(self, env):
        pass

    def setup_dependent_build_environment(self, env, dependent_spec):
        pass

    def setup_dependent_run_environment(self, env, dependent_spec):
        pass

    def setup_dependent_package(self, module, dependent_spec):
        pass

    # --- compiler flags -----------------------------------------------------------
    @staticmethod
    def inject_flags(name, flags):
        """Flags go to the compiler wrappers."""
        return flags, None, None

    @staticmethod
    def env_flags(name, flags):
        """Flags go to the environment (CFLAGS, …)."""
        return None, flags, None

    @staticmethod
    def build_system_flags(name, flags):
        """Flags go to the build system's command line."""
        return None, None, flags

    def flag_handler(self, name, flags):
        return type(self).inject_flags(name, flags)

    def flags_to_build_system_args(self, flags):
        if any(v for v in flags.values()):
            raise InstallError(
                "The {} build system cannot take compiler flags on its command line".format(
                    type(self).build_system_class
                )
            )

    # --- tests (never run by stack) ---------------------------------------------
    def cache_extra_test_sources(self, srcs):
        pass

    def test(self):
        pass

    @property
    def test_suite(self):
        return None

    def __str__(self):
        return "{}({})".format(type(self).__name__, self.spec)

    __repr__ = __str__


# --- builders ---------------------------------------------------------------------


class BuilderMeta(_directives.DirectiveMeta):
    pass


class Builder(metaclass=BuilderMeta):
    """Runs the phases of one build system for a package."""

    phases = ()
    build_system = None
    legacy_methods = ()
    legacy_attributes = ()
    legacy_long_methods = ()
    build_time_test_callbacks = []
    install_time_test_callbacks = []

    def __init__(self, pkg):
        self.pkg = pkg

    @property
    def spec(self):
        return self.pkg.spec

    @property
    def stage(self):
        return self.pkg.stage

    @property
    def prefix(self):
        return self.pkg.prefix

    @property
    def archive_files(self):
        return []

    @property
    def compiler(self):
        return self.pkg.compiler

    @property
    def name(self):
        return self.pkg.name

    # environment hooks: the package's, unless a builder class overrides them
    def setup_build_environment(self, env):
        return self.pkg.setup_build_environment(env)

    def setup_dependent_build_environment(self, env, dependent_spec):
        return self.pkg.setup_dependent_build_environment(env, dependent_spec)

    def setup_run_environment(self, env):
        return self.pkg.setup_run_environment(env)

    def setup_dependent_run_environment(self, env, dependent_spec):
        return self.pkg.setup_dependent_run_environment(env, dependent_spec)

    def setup_dependent_package(self, module, dependent_spec):
        return self.pkg.setup_dependent_package(module, dependent_spec)

    def __repr__(self):
        return "{}({})".format(type(self).__name__, self.pkg.spec.name)


BuilderWithDefaults = Builder
BaseBuilder = Builder


def builder_default(builder_cls_or_name, name):
    """A package-level method that runs the builder's own implementation
    (`super().cmake_args()` in a package class gives CMakeBuilder's)."""

    def method(self, *args, **kwargs):
        cls = BUILDERS[builder_cls_or_name] if isinstance(builder_cls_or_name, str) else builder_cls_or_name
        return getattr(cls, name)(self.builder, *args, **kwargs)

    method.__name__ = name
    return method


def register_builder(build_system_name):
    def decorator(cls):
        cls.build_system = build_system_name
        BUILDERS[build_system_name] = cls
        return cls

    return decorator


@register_builder("generic")
class GenericBuilder(Builder):
    """The builder of `Package`: one phase, `install`, which the package
    defines."""

    phases = ("install",)

    def install(self, pkg, spec, prefix):
        raise InstallError("Package {} must define an install method".format(spec.name))


class Package(PackageBase):
    """A package built by its own `install(self, spec, prefix)`."""

    build_system_class = "Package"
    default_buildsystem = "generic"
    legacy_buildsystem = "generic"

    _directives.build_system("generic")


def build_system_name(pkg):
    """The spec's `build_system` variant; without it, the default the
    package's `build_system(…)` directive declares."""
    spec = pkg.spec
    try:
        return spec.variants["build_system"].value
    except (KeyError, AttributeError, TypeError):
        pass
    for when, variants in getattr(type(pkg), "variants", {}).items():
        var = variants.get("build_system")
        if var is not None and not str(when) and var.default:
            return str(var.default)
    for cls in type(pkg).__mro__:
        bs = cls.__dict__.get("default_buildsystem")
        if bs:
            return bs
    return "generic"


def _package_modules(pkg_cls):
    mods = []
    for c in pkg_cls.__mro__:
        if is_layer_class(c):
            continue
        m = sys.modules.get(c.__module__)
        if m is not None and m not in mods:
            mods.append(m)
    return mods


_ADAPTED = {}


def builder_class_for(pkg):
    bs = build_system_name(pkg)
    default_cls = BUILDERS.get(bs)
    if default_cls is None:
        raise not_implemented("build_system={}".format(bs))
    for m in _package_modules(type(pkg)):
        custom = m.__dict__.get(default_cls.__name__)
        if isinstance(custom, type) and issubclass(custom, Builder) and not is_layer_class(custom):
            return custom
    # a base class may name its own builder (`GenericBuilder = RBuilder` in RPackage)
    attr = getattr(type(pkg), default_cls.__name__, None)
    if isinstance(attr, type) and issubclass(attr, Builder):
        if not is_layer_class(attr):
            return attr
        default_cls = attr
    key = (type(pkg), default_cls)
    if key in _ADAPTED:
        return _ADAPTED[key]
    pkg_cls = type(pkg)
    overrides = {}
    names = set()
    for c in default_cls.__mro__:
        names.update(n for n in c.__dict__ if not n.startswith("_"))
    own_phases = pkg_cls.__dict__.get("phases") if user_defines(pkg_cls, "phases") else None
    if user_defines(pkg_cls, "phases"):
        for c in pkg_cls.__mro__:
            if "phases" in c.__dict__:
                own_phases = c.__dict__["phases"]
                break
        overrides["phases"] = tuple(own_phases)
        names.update(own_phases)
    phase_names = set(overrides.get("phases", default_cls.phases))
    skip = {"pkg", "spec", "stage", "prefix", "phases", "build_system", "setup_build_environment",
            "setup_dependent_build_environment", "setup_run_environment",
            "setup_dependent_run_environment", "setup_dependent_package", "legacy_methods",
            "legacy_attributes", "legacy_long_methods"}
    for name in names - skip:
        if not user_defines(pkg_cls, name):
            continue
        attr = None
        for c in pkg_cls.__mro__:
            if name in c.__dict__:
                attr = c.__dict__[name]
                break
        if name in phase_names:
            overrides[name] = _phase_forwarder(name)
        elif callable(attr) and not isinstance(attr, (type, property)):
            overrides[name] = _method_forwarder(name)
        else:
            overrides[name] = property(_attribute_forwarder(name))
    cls = type(default_cls.__name__, (default_cls,), overrides)
    cls.__module__ = default_cls.__module__
    _ADAPTED[key] = cls
    return cls


def _phase_forwarder(name):
    def phase(self, pkg, spec, prefix):
        return getattr(pkg, name)(spec, prefix)

    phase.__name__ = name
    return phase


def _method_forwarder(name):
    def method(self, *args, **kwargs):
        return getattr(self.pkg, name)(*args, **kwargs)

    method.__name__ = name
    return method


def _attribute_forwarder(name):
    def get(self):
        return getattr(self.pkg, name)

    return get


def create_builder(pkg):
    return builder_class_for(pkg)(pkg)


# --- running the phases -------------------------------------------------------------


class PhaseRecord:
    def __init__(self):
        self.timings = []  # (name, seconds)

    def add(self, name, seconds):
        self.timings.append((name, round(seconds, 4)))


def _hook_applies(hook_when, spec):
    if hook_when is None:
        return True
    if hook_when is True or hook_when is False:
        return hook_when
    return spec.satisfies(hook_when)


def _hooks(builder, kind, phase):
    """(instance, function) for the hooks of a phase: the builder class's,
    then the package class's."""
    out = []
    spec = builder.pkg.spec
    for owner, holder in ((builder, type(builder)), (builder.pkg, type(builder.pkg))):
        for hkind, hphase, hwhen, fn in getattr(holder, "_hooks", ()):
            if hkind == kind and hphase == phase and _hook_applies(hwhen, spec):
                out.append((owner, fn))
    return out


def _call_hook(instance, fn):
    from .multimethod import SpecMultiMethod

    if isinstance(fn, SpecMultiMethod) and fn.matches_none(instance) and fn.default is None:
        return None
    return fn(instance)


def run_phases(pkg, record=None):
    """Run every phase of the package's builder with its hooks."""
    builder = pkg.builder
    spec = pkg.spec
    source = pkg.stage.source_path
    for phase in builder.phases:
        for instance, fn in _hooks(builder, "before", phase):
            os.chdir(source)
            t = time.time()
            _call_hook(instance, fn)
            if record:
                record.add("run_before:{}:{}".format(phase, getattr(fn, "__name__", "?")), time.time() - t)
        os.chdir(source)
        sys.stdout.write("==> {}: Executing phase: '{}'\n".format(spec.name, phase))
        sys.stdout.flush()
        t = time.time()
        method = getattr(builder, phase, None)
        if method is None:
            raise InstallError("builder {} has no phase {!r}".format(type(builder).__name__, phase))
        method(pkg, spec, pkg.prefix)
        if record:
            record.add(phase, time.time() - t)
        for instance, fn in _hooks(builder, "after", phase):
            os.chdir(source)
            t = time.time()
            _call_hook(instance, fn)
            if record:
                record.add("run_after:{}:{}".format(phase, getattr(fn, "__name__", "?")), time.time() - t)
    os.chdir(source)


def sanity_check_prefix(pkg):
    prefix = pkg.prefix

    def check(paths, kind, test):
        for p in paths:
            path = os.path.join(prefix, p)
            if not test(path):
                raise InstallError("Install failed for {}. No such {} in prefix: {}".format(pkg.spec.name, kind, p))

    check(pkg.sanity_check_is_file if isinstance(pkg.sanity_check_is_file, (list, tuple)) else [pkg.sanity_check_is_file],
          "file", os.path.isfile)
    check(pkg.sanity_check_is_dir if isinstance(pkg.sanity_check_is_dir, (list, tuple)) else [pkg.sanity_check_is_dir],
          "directory", os.path.isdir)
    if not pkg.has_code or build_system_name(pkg) == "bundle":
        return
    entries = [e for e in os.listdir(prefix) if e not in (".spack", ".stack")] if os.path.isdir(prefix) else []
    if not entries:
        raise InstallError("Install failed for {}.  Nothing was installed!".format(pkg.spec.name))


def as_prefix(path):
    return Prefix(path)
