"""`RubyPackage`: `gem build` (or `rake package`) and `gem install`."""

import glob

from ..directives import build_system, extends, maintainers
from ..package_base import Builder, PackageBase, register_builder
from ._tools import tool


class RubyPackage(PackageBase):
    maintainers("Kerilk")
    build_system_class = "RubyPackage"
    default_buildsystem = "ruby"

    build_system("ruby")

    extends("ruby", when="build_system=ruby")


@register_builder("ruby")
class RubyBuilder(Builder):
    phases = ("build", "install")

    def build(self, pkg, spec, prefix):
        gemspecs = glob.glob("*.gemspec")
        if gemspecs:
            tool(pkg, "gem")("build", "--norc", gemspecs[0])
        elif glob.glob("Rakefile"):
            tool(pkg, "rake")("package", "-j{}".format(pkg._ctx().make_jobs(pkg)))

    def install(self, pkg, spec, prefix):
        gems = glob.glob("*.gem")
        if gems:
            tool(pkg, "gem")("install", "--norc", "--ignore-dependencies", "--install-dir", prefix, gems[0])
