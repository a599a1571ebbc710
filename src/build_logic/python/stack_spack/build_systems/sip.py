"""`SIPPackage`: `sip-build` into the Python site-packages, then make."""

import os
import re

from ..directives import build_system, depends_on, extends, when
from ..executable import Executable
from ..filelists import find
from ..fs import working_dir
from ..package_base import Builder, PackageBase, register_builder
from ._tools import tool


class SIPPackage(PackageBase):
    build_system_class = "SIPPackage"
    sip_module = "sip"
    install_time_test_callbacks = ["test_imports"]
    default_buildsystem = "sip"

    build_system("sip")

    with when("build_system=sip"):
        extends("python", type=("build", "link", "run"))
        depends_on("py-sip", type="build")
        depends_on("gmake", type="build")

    @property
    def import_modules(self):
        root = os.path.join(self.prefix, self.spec["python"].package.platlib)
        mods = [os.path.relpath(os.path.dirname(p), root).replace(os.sep, ".")
                for p in find(root, "__init__.py", recursive=True)]
        mods += [os.path.relpath(p, root)[:-3] for p in find(root, "*.py", recursive=False)]
        return [m for m in mods if re.match(r"[a-zA-Z0-9._]+$", m)]

    def python(self, *args, **kwargs):
        tool(self, "python")(*args, **kwargs)

    def test_imports(self):
        pass


@register_builder("sip")
class SIPBuilder(Builder):
    phases = ("configure", "build", "install")
    legacy_methods = ("configure_args", "build_args", "install_args")
    legacy_attributes = ("build_targets", "install_targets", "build_time_test_callbacks",
                         "install_time_test_callbacks", "build_directory")
    build_directory = "build"

    def configure(self, pkg, spec, prefix):
        platlib = getattr(pkg.module, "python_platlib", None)
        args = ["--verbose", "--target-dir", platlib]
        args.extend(self.configure_args())
        if spec["py-sip"].satisfies("@6.1.0:"):
            args.extend(["--scripts-dir", pkg.prefix.bin])
        Executable(spec["py-sip"].prefix.bin.join("sip-build"))(*args)

    def configure_args(self):
        return []

    def build_args(self):
        return []

    def install_args(self):
        return []

    def build(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "make", make_like=True)(*self.build_args())

    def install(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "make", make_like=True)("install", *self.install_args())
