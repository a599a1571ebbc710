"""`BundlePackage`: a package with no code of its own, only dependencies."""

from ..directives import build_system
from ..package_base import Builder, PackageBase, register_builder


class BundlePackage(PackageBase):
    build_system_class = "BundlePackage"
    default_buildsystem = "bundle"
    has_code = False

    build_system("bundle")


@register_builder("bundle")
class BundleBuilder(Builder):
    phases = ("install",)

    def install(self, pkg, spec, prefix):
        pass
