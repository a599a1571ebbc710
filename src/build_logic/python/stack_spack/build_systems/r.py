"""`RPackage`: `R CMD INSTALL --library=<prefix>/rlib/R/library <source>`."""

from ..directives import depends_on, extends
from ..fs import mkdirp
from ..lang import classproperty
from ..package_base import GenericBuilder, Package, builder_default
from ._tools import tool


class RBuilder(GenericBuilder):
    phases = ("install",)
    legacy_methods = ("configure_args", "configure_vars")

    def configure_args(self):
        return []

    def configure_vars(self):
        return []

    def install(self, pkg, spec, prefix):
        import os

        lib_dir = getattr(pkg.module, "r_lib_dir", None) or os.path.join(prefix, "rlib", "R", "library")
        mkdirp(lib_dir)
        args = ["--vanilla", "CMD", "INSTALL"]
        config_args = list(self.configure_args())
        config_vars = list(self.configure_vars())
        if config_args:
            args.append("--configure-args={}".format(" ".join(config_args)))
        if config_vars:
            args.append("--configure-vars={}".format(" ".join(config_vars)))
        args.extend(["--library={}".format(lib_dir), self.stage.source_path])
        tool(pkg, "R")(*args)


def _homepage(cls):
    if cls.cran:
        return "https://cloud.r-project.org/package={}".format(cls.cran)
    if cls.bioc:
        return "https://bioconductor.org/packages/{}".format(cls.bioc)
    return None


def _urls(cls):
    if cls.cran and cls.versions:
        first = str(list(cls.versions)[0])
        return [
            "https://cran.r-project.org/src/contrib/{}_{}.tar.gz".format(cls.cran, first),
            "https://cran.r-project.org/src/contrib/Archive/{0}/{0}_{1}.tar.gz".format(cls.cran, first),
        ]
    return []


def _list_url(cls):
    if cls.cran:
        return "https://cran.r-project.org/src/contrib/Archive/{}/".format(cls.cran)
    return None


def _git(cls):
    if cls.bioc:
        return "https://git.bioconductor.org/packages/{}".format(cls.bioc)
    return None


class RPackage(Package):
    cran = None
    bioc = None
    GenericBuilder = RBuilder
    build_system_class = "RPackage"
    configure_args = builder_default(RBuilder, "configure_args")
    configure_vars = builder_default(RBuilder, "configure_vars")

    extends("r")
    depends_on("gmake", type="build", when="%c")
    depends_on("gmake", type="build", when="%cxx")
    depends_on("gmake", type="build", when="%fortran")

    homepage = classproperty(_homepage)
    urls = classproperty(_urls)
    list_url = classproperty(_list_url)
    git = classproperty(_git)
