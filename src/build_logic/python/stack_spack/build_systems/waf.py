"""`WafPackage`: `python waf -j<jobs> configure|build|install`."""

from ..directives import build_system, depends_on
from ..fs import working_dir
from ..package_base import Builder, PackageBase, register_builder
from ._tools import tool


class WafPackage(PackageBase):
    build_system_class = "WafPackage"
    default_buildsystem = "waf"

    build_system("waf")

    depends_on("python@2.5:", type="build", when="build_system=waf")


@register_builder("waf")
class WafBuilder(Builder):
    phases = ("configure", "build", "install")
    legacy_methods = ("build_test", "install_test", "configure_args", "build_args", "install_args")
    legacy_attributes = ("build_time_test_callbacks", "build_directory", "install_time_test_callbacks")
    build_time_test_callbacks = ["build_test"]
    install_time_test_callbacks = ["install_test"]

    @property
    def build_directory(self):
        return self.stage.source_path

    def python(self, *args, **kwargs):
        tool(self.pkg, "python")(*args, **kwargs)

    def waf(self, *args, **kwargs):
        with working_dir(self.build_directory):
            self.python("waf", "-j{}".format(self.pkg._ctx().make_jobs(self.pkg)), *args, **kwargs)

    def configure_args(self):
        return []

    def build_args(self):
        return []

    def install_args(self):
        return []

    def configure(self, pkg, spec, prefix):
        self.waf("configure", "--prefix={}".format(prefix), *self.configure_args())

    def build(self, pkg, spec, prefix):
        self.waf("build", *self.build_args())

    def install(self, pkg, spec, prefix):
        self.waf("install", *self.install_args())

    def build_test(self):
        pass

    def install_test(self):
        pass
