"""`RacketPackage`: `raco pkg install` of the source directory."""

import os

from ..directives import build_system, extends, maintainers
from ..errors import ProcessError
from ..executable import Executable
from ..fs import working_dir
from ..package_base import Builder, PackageBase, register_builder


class RacketPackage(PackageBase):
    maintainers("elfprince13")
    build_system_class = "RacketPackage"
    default_buildsystem = "racket"
    racket_name = None
    parallel = True

    build_system("racket")

    extends("racket", when="build_system=racket")


@register_builder("racket")
class RacketBuilder(Builder):
    phases = ("install",)
    legacy_attributes = ("build_directory", "build_time_test_callbacks", "subdirectory")
    build_time_test_callbacks = ["check"]

    @property
    def subdirectory(self):
        if self.pkg.racket_name:
            return "pkgs/{}".format(self.pkg.racket_name)
        return None

    @property
    def build_directory(self):
        d = os.getcwd()
        return os.path.join(d, self.subdirectory) if self.subdirectory else d

    def install(self, pkg, spec, prefix):
        raco = Executable("raco")
        with working_dir(self.build_directory):
            name = pkg.racket_name
            args = ["pkg", "install", "-t", "dir", "-n", name, "--deps", "fail", "--ignore-implies",
                    "--copy", "-i", "-j", str(pkg._ctx().make_jobs(pkg)), "--", os.getcwd()]
            try:
                raco(*args)
            except ProcessError:
                args.insert(-2, "--skip-installed")
                raco(*args)
