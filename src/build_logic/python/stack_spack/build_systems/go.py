"""`GoPackage`: `go build` then install the binary named after the package."""

from ..directives import build_system, depends_on, when
from ..fs import install, mkdirp, working_dir
from ..package_base import Builder, PackageBase, register_builder
from ._tools import tool


class GoPackage(PackageBase):
    build_system_class = "GoPackage"
    default_buildsystem = "go"

    build_system("go")

    with when("build_system=go"):
        depends_on("go", type="build")


@register_builder("go")
class GoBuilder(Builder):
    phases = ("build", "install")
    legacy_methods = ("check", "installcheck")
    legacy_attributes = ("std_build_args", "build_args", "std_ldflags", "ldflags", "check_args",
                         "build_directory", "install_time_test_callbacks")
    install_time_test_callbacks = ["check"]

    @property
    def build_directory(self):
        return self.pkg.stage.source_path

    @property
    def std_ldflags(self):
        return ["-s", "-w"]

    @property
    def ldflags(self):
        return []

    @property
    def std_build_args(self):
        return ["-p", str(self.pkg._ctx().make_jobs(self.pkg)), "-modcacherw", "-trimpath",
                "-ldflags", " ".join(list(self.std_ldflags) + list(self.ldflags)), "-o", self.pkg.name]

    @property
    def build_args(self):
        return []

    @property
    def check_args(self):
        return []

    def setup_build_environment(self, env):
        env.set("CGO_ENABLED", "1" if self.spec.satisfies("%c") else "0")
        self.pkg.setup_build_environment(env)

    def build(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "go")("build", *(list(self.std_build_args) + list(self.build_args)))

    def install(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            mkdirp(prefix.bin)
            install(pkg.name, prefix.bin)

    def check(self):
        pass

    def installcheck(self):
        pass
