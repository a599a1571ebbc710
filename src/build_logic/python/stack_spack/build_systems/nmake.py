"""`NMakePackage`: Windows only; on Linux its packages conflict with the platform."""

from ..directives import build_system, conflicts
from ..errors import InstallError
from ..package_base import Builder, PackageBase, register_builder


class NMakePackage(PackageBase):
    build_system_class = "NMakePackage"
    default_buildsystem = "nmake"

    build_system("nmake")
    conflicts("platform=linux", when="build_system=nmake")
    conflicts("platform=darwin", when="build_system=nmake")


@register_builder("nmake")
class NMakeBuilder(Builder):
    phases = ("build", "install")

    def build(self, pkg, spec, prefix):
        raise InstallError("NMake builds run on Windows only")

    install = build
