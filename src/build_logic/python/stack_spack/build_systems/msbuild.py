"""`MSBuildPackage`: Windows only; on Linux its packages conflict with the platform."""

from ..directives import build_system, conflicts
from ..errors import InstallError
from ..package_base import Builder, PackageBase, register_builder


class MSBuildPackage(PackageBase):
    build_system_class = "MSBuildPackage"
    default_buildsystem = "msbuild"

    build_system("msbuild")
    conflicts("platform=linux", when="build_system=msbuild")
    conflicts("platform=darwin", when="build_system=msbuild")
    conflicts("platform=freebsd", when="build_system=msbuild")


@register_builder("msbuild")
class MSBuildBuilder(Builder):
    phases = ("build", "install")

    @staticmethod
    def define(msbuild_arg, value):
        return "/p:{}={}".format(msbuild_arg, value)

    def build(self, pkg, spec, prefix):
        raise InstallError("MSBuild builds run on Windows only")

    install = build
