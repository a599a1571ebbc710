"""`AutotoolsPackage` and `AutotoolsBuilder`: (autoreconf), `configure
--prefix=…`, `make`, `make install`."""

import os
import shutil
import subprocess

from ..directives import build_system, conflicts, depends_on, when
from ..errors import InstallError
from ..executable import Executable
from ..filelists import find
from ..fs import force_remove, working_dir
from ..package_base import Builder, PackageBase, builder_default, register_builder, run_after, run_before
from ._tools import tool


class AutotoolsPackage(PackageBase):
    build_system_class = "AutotoolsPackage"
    default_buildsystem = "autotools"

    configure_args = builder_default("autotools", "configure_args")
    build_system("autotools")

    with when("build_system=autotools"):
        depends_on("gnuconfig", type="build", when="target=ppc64le:")
        depends_on("gnuconfig", type="build", when="target=aarch64:")
        depends_on("gnuconfig", type="build", when="target=riscv64:")
        depends_on("gmake", type="build")
        conflicts("platform=windows")

    configure_flag_args = []

    def flags_to_build_system_args(self, flags):
        args = []
        for name in ("cflags", "cxxflags", "cppflags", "ldflags", "ldlibs"):
            values = flags.get(name)
            if values:
                var = "LIBS" if name == "ldlibs" else name.upper()
                args.append("{}={}".format(var, " ".join(values)))
        if flags.get("fflags"):
            args.append("FFLAGS={}".format(" ".join(flags["fflags"])))
            args.append("FCFLAGS={}".format(" ".join(flags["fflags"])))
        self.configure_flag_args = args

    def enable_or_disable(self, *args, **kwargs):
        return self.builder.enable_or_disable(*args, **kwargs)

    def with_or_without(self, *args, **kwargs):
        return self.builder.with_or_without(*args, **kwargs)


def _aclocal_dirs(spec):
    """`-I <dep>/share/aclocal` for the build dependencies that have one."""
    args = []
    for dep in spec.dependencies(deptype=("build",)):
        d = os.path.join(dep.prefix, "share", "aclocal")
        if os.path.isdir(d) and d not in ("/usr/share/aclocal",):
            args.extend(["-I", d])
    return args


@register_builder("autotools")
class AutotoolsBuilder(Builder):
    phases = ("autoreconf", "configure", "build", "install")
    legacy_methods = ("configure_args", "check", "installcheck")
    legacy_attributes = (
        "archive_files", "patch_libtool", "build_targets", "install_targets",
        "build_time_test_callbacks", "install_time_test_callbacks", "force_autoreconf",
        "autoreconf_extra_args", "install_libtool_archives", "patch_config_files",
        "configure_directory", "configure_abs_path", "build_directory", "autoreconf_search_path_args",
    )
    patch_libtool = True
    build_targets = []
    install_targets = ["install"]
    build_time_test_callbacks = ["check"]
    install_time_test_callbacks = ["installcheck"]
    force_autoreconf = False
    autoreconf_extra_args = []
    install_libtool_archives = False

    @property
    def patch_config_files(self):
        return self.spec.satisfies("target=ppc64le:") or self.spec.satisfies("target=aarch64:") or \
            self.spec.satisfies("target=riscv64:")

    @property
    def archive_files(self):
        return [os.path.join(self.build_directory, "config.log")]

    @property
    def configure_directory(self):
        return self.pkg.stage.source_path

    @property
    def configure_abs_path(self):
        return os.path.join(os.path.abspath(self.configure_directory), "configure")

    @property
    def build_directory(self):
        d = self.configure_directory
        if not os.path.isabs(d):
            d = os.path.join(self.pkg.stage.source_path, d)
        return d

    @property
    def autoreconf_search_path_args(self):
        return _aclocal_dirs(self.spec)

    def configure_args(self):
        return []

    # --- hooks of the build system -------------------------------------------
    @run_before("autoreconf")
    def _delete_configure_to_force_update(self):
        if self.force_autoreconf:
            force_remove(self.configure_abs_path)

    @run_after("autoreconf")
    def _do_patch_config_files(self):
        """Replace config.guess/config.sub that do not know the target with
        the ones of the `gnuconfig` dependency."""
        if not self.patch_config_files:
            return
        family = self.spec.target.family.name
        arch = {"ppc64le": "ppc64le", "aarch64": "aarch64", "riscv64": "riscv64"}.get(family, "local")

        def runs_ok(path):
            args = [path] + ([arch] if os.path.basename(path) == "config.sub" else [])
            try:
                return subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
            except OSError:
                return False

        broken = [f for f in find(self.pkg.stage.path, ["config.sub", "config.guess"]) if not runs_ok(f)]
        if not broken:
            return
        try:
            gnuconfig = self.spec["gnuconfig"]
        except KeyError:
            raise InstallError(
                "Failed to find suitable substitutes for {} (no gnuconfig dependency)".format(
                    ", ".join(sorted({os.path.basename(b) for b in broken}))))
        for path in broken:
            candidate = os.path.join(gnuconfig.prefix, os.path.basename(path))
            if not os.path.exists(candidate) or not runs_ok(candidate):
                raise InstallError("gnuconfig has no working {}".format(os.path.basename(path)))
            mode = os.stat(path).st_mode
            os.chmod(path, mode | 0o200)
            shutil.copyfile(candidate, path)
            os.chmod(path, mode)

    @run_after("autoreconf")
    def _set_configure_or_die(self):
        if not os.path.exists(self.configure_abs_path):
            raise RuntimeError("configure script not found in {}".format(self.configure_directory))
        configure = Executable(self.configure_abs_path)
        for m in _package_modules(self.pkg):
            m.configure = configure

    @run_before("configure")
    def _set_autotools_environment_variables(self):
        os.environ["FORCE_UNSAFE_CONFIGURE"] = "1"

    @run_after("install")
    def _remove_libtool_archives(self):
        if self.install_libtool_archives:
            return
        removed = []
        for root, _, files in os.walk(self.pkg.prefix):
            for f in files:
                if f.endswith(".la"):
                    p = os.path.join(root, f)
                    os.remove(p)
                    removed.append(p)
        if removed:
            log_dir = os.path.join(self.pkg.prefix, ".spack")
            os.makedirs(log_dir, exist_ok=True)
            with open(os.path.join(log_dir, "removed_la_files.txt"), "w") as f:
                f.write("\n".join(removed) + "\n")

    # --- phases -------------------------------------------------------------
    def autoreconf(self, pkg, spec, prefix):
        if os.path.exists(self.configure_abs_path):
            return
        with working_dir(self.configure_directory):
            args = ["-ivf"] + list(self.autoreconf_search_path_args) + list(self.autoreconf_extra_args)
            tool(pkg, "autoreconf")(*args)

    def configure(self, pkg, spec, prefix):
        options = list(getattr(self.pkg, "configure_flag_args", []) or [])
        options.append("--prefix={}".format(prefix))
        options += list(self.configure_args())
        with working_dir(self.build_directory, create=True):
            configure = getattr(pkg.module, "configure", None)
            if not isinstance(configure, Executable) or configure.path == "./configure":
                configure = Executable(self.configure_abs_path)
            configure(*options)

    def build(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "make", make_like=True)(*(["V=1"] + list(self.build_targets)))

    def install(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "make", make_like=True)(*self.install_targets)

    def check(self):
        pass

    def installcheck(self):
        pass

    # --- --with-x / --enable-x ----------------------------------------------
    def _activate_or_not(self, name, on, off, activation_value=None, variant=None):
        spec = self.pkg.spec
        if activation_value == "prefix":
            activation_value = lambda x: spec[x].prefix  # noqa: E731
        variant = variant or name
        if not type(self.pkg).has_variant(variant):
            raise KeyError('"{}" is not a variant of "{}"'.format(variant, self.pkg.name))
        if variant not in spec.variants:
            return []
        vdef = type(self.pkg).get_variant(variant)
        if vdef.values is not None and set(vdef.values) == {True, False}:
            options = [(name, spec.variants[variant].value is True)]
        else:
            src = vdef.values_source
            feature = getattr(src, "feature_values", None) or vdef.values or ()
            have = spec.variants[variant].values
            options = [(str(v), str(v) in have) for v in feature]
        args = []
        for value, active in options:
            override = "{}_or_{}_{}".format(on, off, value)
            gen = getattr(self, override, None) or getattr(self.pkg, override, None)
            if gen is not None:
                line = gen(active)
                if isinstance(line, str):
                    line = [line]
                args.extend(x for x in (line or []) if x)
                continue
            if active:
                line = "--{}-{}".format(on, value)
                if activation_value is not None:
                    v = activation_value(value)
                    if v:
                        line = "{}={}".format(line, v)
                args.append(line)
            else:
                args.append("--{}-{}".format(off, value))
        return args

    def with_or_without(self, name, activation_value=None, variant=None):
        """`--with-<name>` / `--without-<name>` for a bool variant; for each
        value of a multi-valued one `--with-<value>` / `--without-<value>`."""
        return self._activate_or_not(name, "with", "without", activation_value, variant)

    def enable_or_disable(self, name, activation_value=None, variant=None):
        return self._activate_or_not(name, "enable", "disable", activation_value, variant)


def _package_modules(pkg):
    import sys

    from ..package_base import is_layer_class

    out = []
    for c in type(pkg).__mro__:
        if is_layer_class(c):
            continue
        m = sys.modules.get(c.__module__)
        if m is not None and m not in out:
            out.append(m)
    return out
