"""`PerlPackage`: `perl Makefile.PL INSTALL_BASE=<prefix>` + make, or
`perl Build.PL --install_base <prefix>` + `./Build`."""

import os

from ..directives import build_system, depends_on, extends, when
from ..errors import InstallError
from ..executable import Executable
from ..filelists import find
from ..fs import filter_file
from ..package_base import Builder, PackageBase, builder_default, register_builder, run_after
from ._tools import tool


class PerlPackage(PackageBase):
    build_system_class = "PerlPackage"
    default_buildsystem = "perl"

    configure_args = builder_default("perl", "configure_args")
    build_system("perl")

    with when("build_system=perl"):
        extends("perl")
        depends_on("gmake", type="build")

    @property
    def use_modules(self):
        prefix = self.prefix.lib + os.sep
        out = []
        for m in find(self.prefix.lib, ["*.pm"], recursive=True):
            rel = os.path.splitext(m)[0].replace(prefix, "")
            out.append("::".join(rel.split(os.sep)[1:]))
        return out

    @property
    def skip_modules(self):
        return []

    def test_use(self):
        pass


def _perl(pkg):
    exe = getattr(pkg.module, "perl", None)
    if isinstance(exe, Executable) and not exe.__class__.__name__ == "MissingExecutable":
        return exe
    try:
        return pkg.spec["perl"].command
    except KeyError:
        return tool(pkg, "perl")


@register_builder("perl")
class PerlBuilder(Builder):
    phases = ("configure", "build", "install")
    legacy_methods = ("configure_args", "check", "test_use")
    build_time_test_callbacks = ["check"]

    @property
    def build_method(self):
        src = self.pkg.stage.source_path
        if os.path.isfile(os.path.join(src, "Makefile.PL")):
            return "Makefile.PL"
        if os.path.isfile(os.path.join(src, "Build.PL")):
            return "Build.PL"
        raise InstallError("Unknown build_method for perl package: neither Makefile.PL nor Build.PL in {}".format(src))

    @property
    def build_executable(self):
        if self.build_method == "Makefile.PL":
            return tool(self.pkg, "make", make_like=True)
        return Executable(os.path.join(self.pkg.stage.source_path, "Build"))

    def configure_args(self):
        return []

    def configure(self, pkg, spec, prefix):
        if self.build_method == "Makefile.PL":
            options = ["Makefile.PL", "INSTALL_BASE={}".format(prefix)]
        else:
            options = ["Build.PL", "--install_base", str(prefix)]
        options += list(self.configure_args())
        _perl(pkg)(*options)

    @run_after("configure")
    def fix_shebang(self):
        if self.build_method == "Build.PL":
            path = os.path.join(self.pkg.stage.source_path, "Build")
            filter_file(r"^#!.*perl.*$", "#!/usr/bin/env perl", path, backup=False)

    def build(self, pkg, spec, prefix):
        self.build_executable()

    def check(self):
        pass

    def install(self, pkg, spec, prefix):
        self.build_executable("install")
