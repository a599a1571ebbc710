"""`QMakePackage`: `qmake`, `make`, `make install`."""

from ..directives import build_system, depends_on
from ..fs import working_dir
from ..package_base import Builder, PackageBase, builder_default, register_builder
from ._tools import tool


class QMakePackage(PackageBase):
    build_system_class = "QMakePackage"
    default_buildsystem = "qmake"

    qmake_args = builder_default("qmake", "qmake_args")
    build_system("qmake")

    depends_on("qmake", type="build", when="build_system=qmake")
    depends_on("gmake", type="build")


@register_builder("qmake")
class QMakeBuilder(Builder):
    phases = ("qmake", "build", "install")
    legacy_methods = ("qmake_args", "check")
    legacy_attributes = ("build_directory", "build_time_test_callbacks")
    build_time_test_callbacks = ["check"]

    @property
    def build_directory(self):
        return self.stage.source_path

    def qmake_args(self):
        return []

    def qmake(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "qmake")(*self.qmake_args())

    def build(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "make", make_like=True)()

    def install(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "make", make_like=True)("install")

    def check(self):
        pass
