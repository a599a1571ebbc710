"""`MesonPackage` and `MesonBuilder`: `meson setup` in a separate build
directory, then `ninja` and `ninja install`."""

import os

from ..directives import build_system, conflicts, depends_on, variant, when
from ..fs import working_dir
from ..package_base import Builder, PackageBase, builder_default, register_builder
from ._tools import tool


class MesonPackage(PackageBase):
    build_system_class = "MesonPackage"
    default_buildsystem = "meson"

    meson_args = builder_default("meson", "meson_args")
    build_system("meson")

    with when("build_system=meson"):
        variant("buildtype", default="release", description="Meson build type",
                values=("plain", "debug", "debugoptimized", "release", "minsize"))
        variant("default_library", default="shared", values=("shared", "static"), multi=True,
                description="Build shared libs, static libs or both")
        variant("strip", default=False, description="Strip targets on install")
        depends_on("meson", type="build")
        depends_on("ninja", type="build")
        for plat in ("linux", "freebsd", "darwin"):
            with when("platform={}".format(plat)):
                depends_on("pkgconfig", type="build")
        conflicts("^python@3.12:", when="%meson@:1.0")

    meson_flag_args = []

    def flags_to_build_system_args(self, flags):
        args = []
        for name, key in (("cflags", "c_args"), ("cxxflags", "cpp_args"), ("fflags", "fortran_args")):
            values = list(flags.get(name) or [])
            if name != "fflags":
                values += list(flags.get("cppflags") or [])
            if values:
                args.append("-D{}={}".format(key, " ".join(values)))
        link = list(flags.get("ldflags") or []) + list(flags.get("ldlibs") or [])
        if link:
            for key in ("c_link_args", "cpp_link_args", "fortran_link_args"):
                args.append("-D{}={}".format(key, " ".join(link)))
        self.meson_flag_args = args


@register_builder("meson")
class MesonBuilder(Builder):
    phases = ("meson", "build", "install")
    legacy_methods = ("meson_args", "check")
    legacy_attributes = ("build_targets", "install_targets", "build_time_test_callbacks",
                         "root_mesonlists_dir", "std_meson_args", "build_directory")
    build_targets = []
    install_targets = ["install"]
    build_time_test_callbacks = ["check"]

    @property
    def archive_files(self):
        return [os.path.join(self.build_directory, "meson-logs", "meson-log.txt")]

    @property
    def root_mesonlists_dir(self):
        return self.pkg.stage.source_path

    @property
    def std_meson_args(self):
        return MesonBuilder.std_args(self.pkg) + list(getattr(self.pkg, "meson_flag_args", []) or [])

    @staticmethod
    def std_args(pkg):
        spec = pkg.spec
        buildtype = spec.variants["buildtype"].value if "buildtype" in spec.variants else "release"
        strip = "true" if spec.satisfies("+strip") else "false"
        libs = set(spec.variants["default_library"].values) if "default_library" in spec.variants else {"shared"}
        default_library = "both" if libs >= {"shared", "static"} else ("static" if "static" in libs else "shared")
        return [
            "-Dprefix={}".format(pkg.prefix),
            "-Dlibdir={}".format(pkg.prefix.lib),
            "-Dbuildtype={}".format(buildtype),
            "-Dstrip={}".format(strip),
            "-Ddefault_library={}".format(default_library),
            "-Dwrap_mode=nodownload",
        ]

    @property
    def build_dirname(self):
        return "spack-build-{}".format(self.spec.dag_hash(7))

    @property
    def build_directory(self):
        return os.path.join(self.pkg.stage.path, self.build_dirname)

    def meson_args(self):
        return []

    def meson(self, pkg, spec, prefix):
        options = []
        try:
            old = spec["meson"].satisfies("@:0.63")
        except KeyError:
            old = False
        if not old:
            options.append("setup")
        options.append(os.path.abspath(self.root_mesonlists_dir))
        options += list(self.std_meson_args)
        options += list(self.meson_args())
        with working_dir(self.build_directory, create=True):
            tool(pkg, "meson")(*options)

    def build(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "ninja", make_like=True)(*(["-v"] + list(self.build_targets)))

    def install(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            tool(pkg, "ninja", make_like=True)(*self.install_targets)

    def check(self):
        pass
