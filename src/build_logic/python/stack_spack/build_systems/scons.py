"""`SConsPackage`: `scons <build_args>`, `scons install <install_args>`."""

from ..directives import build_system, depends_on
from ..package_base import Builder, PackageBase, register_builder
from ._tools import tool


class SConsPackage(PackageBase):
    build_system_class = "SConsPackage"
    default_buildsystem = "scons"

    build_system("scons")

    depends_on("scons", type="build", when="build_system=scons")


@register_builder("scons")
class SConsBuilder(Builder):
    phases = ("build", "install")
    legacy_methods = ("build_test",)
    legacy_long_methods = ("build_args", "install_args")
    legacy_attributes = ("build_time_test_callbacks",)
    build_time_test_callbacks = ["build_test"]

    def build_args(self, spec, prefix):
        return []

    def install_args(self, spec, prefix):
        return []

    def build(self, pkg, spec, prefix):
        tool(pkg, "scons")(*self.build_args(spec, prefix))

    def install(self, pkg, spec, prefix):
        tool(pkg, "scons")("install", *self.install_args(spec, prefix))

    def build_test(self):
        pass
