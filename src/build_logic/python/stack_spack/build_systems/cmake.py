"""`CMakePackage` and `CMakeBuilder`: configure with `cmake` in a separate
build directory, then build and install with make or ninja."""

import collections.abc
import os

from ..directives import build_system, conflicts, depends_on, variant, when
from ..errors import InstallError
from ..fs import working_dir
from ..package_base import Builder, PackageBase, builder_default, register_builder
from ._tools import tool

_GENERATORS = {"make": "Unix Makefiles", "ninja": "Ninja"}


def generator(*names, default=None):
    """Directive: the CMake generators the package supports (`make`,
    `ninja`) and the default one, as the variant `generator`."""
    allowed = ("make", "ninja")
    for n in names:
        if n not in allowed:
            raise ValueError("only 'make' and 'ninja' are allowed for CMake's 'generator' directive")
    default = default or names[0]

    def _values(x):
        return x in allowed

    _values.__doc__ = ",".join(names)
    variant("generator", default=default, values=_values,
            description="the build system generator to use", when="build_system=cmake")
    for x in allowed:
        if x not in names:
            conflicts("generator={}".format(x))


def define(cmake_var, value):
    """`-D<var>:BOOL=ON` for a bool, `-D<var>:STRING=a;b` for a list,
    `-D<var>:STRING=<value>` otherwise."""
    if isinstance(value, bool):
        return "-D{}:BOOL={}".format(cmake_var, "ON" if value else "OFF")
    if isinstance(value, collections.abc.Sequence) and not isinstance(value, str):
        value = ";".join(str(v) for v in value)
    return "-D{}:STRING={}".format(cmake_var, value)


def define_from_variant(pkg, cmake_var, variant=None):
    """`define(cmake_var, <value of the variant>)`; the variant's name is
    `cmake_var` lowercased unless given; "" when the variant is not active
    on the spec (a conditional variant)."""
    if variant is None:
        variant = cmake_var.lower()
    if not type(pkg).has_variant(variant) and variant not in pkg.spec.variants:
        raise KeyError('"{}" is not a variant of "{}"'.format(variant, pkg.name))
    if variant not in pkg.spec.variants:
        return ""
    value = pkg.spec.variants[variant].value
    if isinstance(value, (tuple, list)):
        value = sorted(value)
    return define(cmake_var, value)


def define_cuda_architectures(pkg):
    if "cuda_arch" in pkg.spec.variants and pkg.spec.satisfies("+cuda"):
        archs = [a for a in pkg.spec.variants["cuda_arch"].value if a != "none"]
        if archs:
            return define("CMAKE_CUDA_ARCHITECTURES", archs)
    return ""


def define_hip_architectures(pkg):
    if "amdgpu_target" in pkg.spec.variants and pkg.spec.satisfies("+rocm"):
        archs = [a for a in pkg.spec.variants["amdgpu_target"].value if a not in ("none", "auto")]
        if archs:
            return define("CMAKE_HIP_ARCHITECTURES", archs)
    return ""


def get_cmake_prefix_path(pkg):
    """The prefixes CMake searches: the package's direct build dependencies,
    then its link and run dependencies; system directories left out."""
    from ..envmods import is_system_path

    spec = pkg.spec
    out = []
    candidates = list(spec.dependencies(deptype=("build",)))
    candidates += list(spec.traverse(root=False, deptype=("link", "run")))
    for dep in candidates:
        if dep.prefix not in out and not is_system_path(dep.prefix):
            out.append(dep.prefix)
    return out


class CMakePackage(PackageBase):
    build_system_class = "CMakePackage"
    default_buildsystem = "cmake"
    disable_cmake_hints_from = []

    cmake_args = builder_default("cmake", "cmake_args")
    build_system("cmake")

    with when("build_system=cmake"):
        variant("build_type", default="Release", description="CMake build type",
                values=("Debug", "Release", "RelWithDebInfo", "MinSizeRel"))
        variant("ipo", default=False, when="%cmake@3.9:", description="CMake interprocedural optimization")
        generator("ninja", "make", default="make")
        depends_on("cmake", type="build")
        depends_on("gmake", type="build", when="generator=make")
        depends_on("ninja", type="build", when="generator=ninja")

    def flags_to_build_system_args(self, flags):
        args = []
        for lang, name in (("C", "cflags"), ("CXX", "cxxflags"), ("Fortran", "fflags")):
            values = list(flags.get(name) or []) + list(flags.get("cppflags") or [])
            if values:
                args.append("-DCMAKE_{}_FLAGS={}".format(lang, " ".join(values)))
        if flags.get("ldflags"):
            for kind in ("EXE", "MODULE", "SHARED"):
                args.append("-DCMAKE_{}_LINKER_FLAGS={}".format(kind, " ".join(flags["ldflags"])))
        if flags.get("ldlibs"):
            for lang in ("C", "CXX", "Fortran"):
                args.append("-DCMAKE_{}_STANDARD_LIBRARIES={}".format(lang, " ".join(flags["ldlibs"])))
        self.cmake_flag_args = args

    cmake_flag_args = []

    def define(self, cmake_var, value):
        return define(cmake_var, value)

    def define_from_variant(self, cmake_var, variant=None):
        return define_from_variant(self, cmake_var, variant)


@register_builder("cmake")
class CMakeBuilder(Builder):
    phases = ("cmake", "build", "install")
    legacy_methods = ("cmake_args", "check")
    legacy_attributes = (
        "generator", "build_targets", "install_targets", "build_time_test_callbacks",
        "archive_files", "root_cmakelists_dir", "std_cmake_args", "build_dirname", "build_directory",
    )
    build_targets = []
    install_targets = ["install"]
    build_time_test_callbacks = ["check"]

    @property
    def archive_files(self):
        return [os.path.join(self.build_directory, "CMakeCache.txt")]

    @property
    def root_cmakelists_dir(self):
        return self.pkg.stage.source_path

    @property
    def generator(self):
        if "generator" in self.spec.variants:
            g = self.spec.variants["generator"].value
            return _GENERATORS.get(g, g)
        return "Unix Makefiles"

    @property
    def std_cmake_args(self):
        args = CMakeBuilder.std_args(self.pkg, generator=self.generator)
        args.extend(getattr(self.pkg, "cmake_flag_args", []) or [])
        return args

    @staticmethod
    def std_args(pkg, generator=None):
        generator = generator or "Unix Makefiles"
        primary = generator.split(" - ")[-1]
        if primary not in ("Unix Makefiles", "Ninja"):
            raise InstallError("Invalid CMake generator: '{}'; only Unix Makefiles and Ninja are supported".format(
                generator))
        spec = pkg.spec
        try:
            build_type = spec.variants["build_type"].value
        except KeyError:
            build_type = "RelWithDebInfo"
        args = [
            "-G", generator,
            define("CMAKE_INSTALL_PREFIX", str(pkg.prefix)),
            define("CMAKE_INSTALL_RPATH_USE_LINK_PATH", True),
            define("CMAKE_INSTALL_RPATH", [os.path.join(pkg.prefix, "lib"), os.path.join(pkg.prefix, "lib64")]),
            define("CMAKE_PREFIX_PATH", get_cmake_prefix_path(pkg)),
            define("CMAKE_BUILD_TYPE", build_type),
        ]
        if primary == "Unix Makefiles":
            args.append(define("CMAKE_VERBOSE_MAKEFILE", True))
        cmakes = spec.dependencies("cmake", deptype="build")
        if len(cmakes) == 1:
            cm = cmakes[0]
            ipo = spec.variants["ipo"].value if "ipo" in spec.variants else False
            if cm.satisfies("@3.9:"):
                args.append(define("CMAKE_INTERPROCEDURAL_OPTIMIZATION", ipo))
            if cm.satisfies("@3.15:"):
                args.append(define("CMAKE_POLICY_DEFAULT_CMP0090", "NEW"))
            elif cm.satisfies("@3.1:"):
                args.append(define("CMAKE_EXPORT_NO_PACKAGE_REGISTRY", True))
            if cm.satisfies("@3.16:"):
                args.append(define("CMAKE_FIND_USE_PACKAGE_REGISTRY", False))
            elif cm.satisfies("@3.1:3.15"):
                args.append(define("CMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY", False))
                args.append(define("CMAKE_FIND_PACKAGE_NO_SYSTEM_PACKAGE_REGISTRY", False))
            if cm.satisfies("@3.5:") and (spec.satisfies("generator=make") or spec.satisfies("generator=ninja")):
                args.append(define("CMAKE_EXPORT_COMPILE_COMMANDS", True))
        if spec.satisfies("^boost@:1.69.0"):
            args.append(define("Boost_NO_BOOST_CMAKE", True))
        hints_off = getattr(pkg, "disable_cmake_hints_from", []) or []
        for edge in spec.edges_to_dependencies():
            dep_pkg = edge.spec.package
            fn = getattr(type(dep_pkg), "dependent_cmake_args", None)
            if fn is None or edge.spec.name in hints_off or any(v in hints_off for v in edge.virtuals):
                continue
            args.extend(dep_pkg.dependent_cmake_args(spec))
        return args

    @staticmethod
    def define(cmake_var, value):
        return define(cmake_var, value)

    def define_from_variant(self, cmake_var, variant=None):
        return define_from_variant(self.pkg, cmake_var, variant)

    @staticmethod
    def define_cuda_architectures(pkg):
        return define_cuda_architectures(pkg)

    @staticmethod
    def define_hip_architectures(pkg):
        return define_hip_architectures(pkg)

    @property
    def build_dirname(self):
        return "spack-build-{}".format(self.spec.dag_hash(7))

    @property
    def build_directory(self):
        return os.path.join(self.pkg.stage.path, self.build_dirname)

    def cmake_args(self):
        return []

    def cmake(self, pkg, spec, prefix):
        options = list(self.std_cmake_args)
        options += list(self.cmake_args())
        options.append(os.path.abspath(self.root_cmakelists_dir))
        with working_dir(self.build_directory, create=True):
            tool(pkg, "cmake")(*options)

    def build(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            if self.generator == "Ninja":
                tool(pkg, "ninja", make_like=True)(*(list(self.build_targets) + ["-v"]))
            else:
                tool(pkg, "make", make_like=True)(*self.build_targets)

    def install(self, pkg, spec, prefix):
        with working_dir(self.build_directory):
            if self.generator == "Ninja":
                tool(pkg, "ninja", make_like=True)(*self.install_targets)
            else:
                tool(pkg, "make", make_like=True)(*self.install_targets)

    def check(self):
        pass
