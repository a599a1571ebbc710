"""`OctavePackage`: `pkg install` of the archive into the prefix."""

from ..directives import build_system, extends, when
from ..package_base import Builder, PackageBase, register_builder
from ._tools import tool


class OctavePackage(PackageBase):
    build_system_class = "OctavePackage"
    default_buildsystem = "octave"

    build_system("octave")

    with when("build_system=octave"):
        extends("octave")


@register_builder("octave")
class OctaveBuilder(Builder):
    phases = ("install",)

    def install(self, pkg, spec, prefix):
        tool(pkg, "octave")(
            "--quiet", "--norc", "--built-in-docstrings-file=/dev/null", "--texi-macros-file=/dev/null",
            "--eval", "pkg prefix {}; pkg install {}".format(prefix, pkg.stage.archive_file or "."),
        )

    def setup_build_environment(self, env):
        env.unset("CC")
        env.unset("CXX")
        env.unset("FC")
        self.pkg.setup_build_environment(env)
