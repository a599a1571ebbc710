"""`CargoPackage`: `cargo install --root out --path .`, then copy `out`."""

from ..directives import build_system, depends_on, when
from ..fs import install_tree, working_dir
from ..package_base import Builder, PackageBase, register_builder
from ._tools import tool


class CargoPackage(PackageBase):
    build_system_class = "CargoPackage"
    default_buildsystem = "cargo"

    build_system("cargo")

    with when("build_system=cargo"):
        depends_on("rust", type="build")


@register_builder("cargo")
class CargoBuilder(Builder):
    phases = ("build", "install")
    legacy_methods = ("check", "installcheck")
    legacy_attributes = ("build_args", "check_args", "build_directory", "install_time_test_callbacks")
    install_time_test_callbacks = ["check"]

    @property
    def build_directory(self):
        return self.pkg.stage.source_path

    @property
    def std_build_args(self):
        return ["-j", str(self.pkg._ctx().make_jobs(self.pkg))]

    @property
    def build_args(self):
        return []

    @property
    def check_args(self):
        return []

    def build(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "cargo")("install", "--root", "out", "--path", ".",
                               *(list(self.std_build_args) + list(self.build_args)))

    def install(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            install_tree("out", prefix)

    def check(self):
        pass

    def installcheck(self):
        pass
