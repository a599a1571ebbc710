"""`MavenPackage`: `mvn package -DskipTests`, then copy the tree."""

from ..directives import build_system, depends_on, when
from ..executable import which
from ..fs import install_tree, working_dir
from ..package_base import Builder, PackageBase, builder_default, register_builder


class MavenPackage(PackageBase):
    build_system_class = "MavenPackage"
    default_buildsystem = "maven"

    build_args = builder_default("maven", "build_args")
    build_system("maven")

    with when("build_system=maven"):
        depends_on("java", type=("build", "run"))
        depends_on("maven", type="build")


@register_builder("maven")
class MavenBuilder(Builder):
    phases = ("build", "install")
    legacy_methods = ("build_args",)
    legacy_attributes = ("build_directory",)

    @property
    def build_directory(self):
        return self.pkg.stage.source_path

    def build_args(self):
        return []

    def build(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            mvn = which("mvn", required=True)
            mvn("package", "-DskipTests", *self.build_args())

    def install(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            install_tree(".", prefix)
