"""`MakefilePackage` and `MakefileBuilder`: `edit` (the package adapts the
Makefile), `make`, `make install`."""

from ..directives import build_system, conflicts, depends_on, when
from ..fs import working_dir
from ..package_base import Builder, PackageBase, register_builder
from ._tools import tool


class MakefilePackage(PackageBase):
    build_system_class = "MakefilePackage"
    default_buildsystem = "makefile"

    build_system("makefile")

    with when("build_system=makefile"):
        conflicts("platform=windows")
        depends_on("gmake", type="build")


@register_builder("makefile")
class MakefileBuilder(Builder):
    phases = ("edit", "build", "install")
    legacy_methods = ("check", "installcheck")
    legacy_attributes = (
        "build_targets", "install_targets", "build_time_test_callbacks",
        "install_time_test_callbacks", "build_directory",
    )
    build_targets = []
    install_targets = ["install"]
    build_time_test_callbacks = ["check"]
    install_time_test_callbacks = ["installcheck"]

    @property
    def build_directory(self):
        return self.pkg.stage.source_path

    def edit(self, pkg, spec, prefix):
        pass

    def build(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "make", make_like=True)(*self.build_targets)

    def install(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "make", make_like=True)(*self.install_targets)

    def check(self):
        pass

    def installcheck(self):
        pass
