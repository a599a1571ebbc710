"""`CachedCMakePackage`: CMake configured from an initial cache file
(`-C <file>`) that the package fills with entries."""

import os

from ..directives import depends_on
from .cmake import CMakeBuilder, CMakePackage
from ..package_base import register_builder


def cmake_cache_path(name, value, comment="", force=False):
    return 'set({} "{}" CACHE PATH "{}"{})\n'.format(name, value, comment, " FORCE" if force else "")


def cmake_cache_string(name, value, comment="", force=False):
    return 'set({} "{}" CACHE STRING "{}"{})\n'.format(name, value, comment, " FORCE" if force else "")


def cmake_cache_option(name, boolean_value, comment="", force=False):
    value = "ON" if boolean_value else "OFF"
    return 'set({} {} CACHE BOOL "{}"{})\n'.format(name, value, comment, " FORCE" if force else "")


def cmake_cache_filepath(name, value, comment=""):
    return 'set({} "{}" CACHE FILEPATH "{}")\n'.format(name, value, comment)


@register_builder("cached_cmake")
class CachedCMakeBuilder(CMakeBuilder):
    phases = ("initconfig", "cmake", "build", "install")
    legacy_methods = CMakeBuilder.legacy_methods + (
        "initconfig_compiler_entries", "initconfig_mpi_entries", "initconfig_hardware_entries",
        "std_initconfig_entries", "initconfig_package_entries",
    )
    legacy_attributes = CMakeBuilder.legacy_attributes + ("cache_name", "cache_path")

    @property
    def cache_name(self):
        return "{}-{}-{}@{}.cmake".format(self.pkg.name, self.spec.architecture, self.spec.compiler.name,
                                          self.spec.compiler.version)

    @property
    def cache_path(self):
        return os.path.join(self.pkg.stage.source_path, self.cache_name)

    def define_cmake_cache_from_variant(self, cmake_var, variant=None, comment=""):
        variant = variant or cmake_var.lower()
        if variant not in self.pkg.spec.variants:
            return ""
        value = self.pkg.spec.variants[variant].value
        if isinstance(value, bool):
            return cmake_cache_option(cmake_var, value, comment)
        if isinstance(value, tuple):
            value = ";".join(value)
        return cmake_cache_string(cmake_var, value, comment)

    def initconfig_compiler_entries(self):
        spec = self.pkg.spec
        entries = [
            "#------------------{}\n".format("-" * 60),
            "# Compilers\n",
            "#------------------{}\n".format("-" * 60),
        ]
        for var, env in (("CMAKE_C_COMPILER", "CC"), ("CMAKE_CXX_COMPILER", "CXX"),
                         ("CMAKE_Fortran_COMPILER", "FC")):
            if os.environ.get(env):
                entries.append(cmake_cache_path(var, os.environ[env]))
        flags = spec.compiler_flags
        for var, names in (("CMAKE_C_FLAGS", ("cflags", "cppflags")), ("CMAKE_CXX_FLAGS", ("cxxflags", "cppflags")),
                           ("CMAKE_Fortran_FLAGS", ("fflags",))):
            values = [f for n in names for f in flags.get(n, [])]
            if values:
                entries.append(cmake_cache_string(var, " ".join(values)))
        if flags.get("ldflags"):
            for kind in ("EXE", "MODULE", "SHARED"):
                entries.append(cmake_cache_string("CMAKE_{}_LINKER_FLAGS".format(kind), " ".join(flags["ldflags"])))
        return entries

    def initconfig_mpi_entries(self):
        spec = self.pkg.spec
        if not spec.satisfies("^mpi"):
            return []
        mpi = spec["mpi"]
        entries = ["#------------------{}\n".format("-" * 60), "# MPI\n",
                   "#------------------{}\n\n".format("-" * 60)]
        entries.append(cmake_cache_path("MPI_C_COMPILER", mpi.mpicc))
        entries.append(cmake_cache_path("MPI_CXX_COMPILER", mpi.mpicxx))
        if getattr(mpi, "mpifc", None):
            entries.append(cmake_cache_path("MPI_Fortran_COMPILER", mpi.mpifc))
        for exe in ("srun", "mpirun", "mpiexec"):
            p = os.path.join(mpi.prefix, "bin", exe)
            if os.path.exists(p):
                entries.append(cmake_cache_path("MPIEXEC_EXECUTABLE", p))
                break
        entries.append(cmake_cache_string("MPIEXEC_NUMPROC_FLAG", "-n"))
        return entries

    def initconfig_hardware_entries(self):
        spec = self.pkg.spec
        entries = ["#------------------{}\n".format("-" * 60), "# Hardware\n",
                   "#------------------{}\n\n".format("-" * 60)]
        if spec.satisfies("^cuda"):
            cuda = spec["cuda"].prefix
            entries.append(cmake_cache_path("CUDAToolkit_ROOT", cuda))
            entries.append(cmake_cache_path("CMAKE_CUDA_COMPILER", "${CUDAToolkit_ROOT}/bin/nvcc"))
            entries.append(cmake_cache_path("CMAKE_CUDA_HOST_COMPILER", "${CMAKE_CXX_COMPILER}"))
            if "cuda_arch" in spec.variants:
                archs = [a for a in spec.variants["cuda_arch"].value if a != "none"]
                if archs:
                    entries.append(cmake_cache_string("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
        if "+rocm" in spec and "amdgpu_target" in spec.variants:
            archs = [a for a in spec.variants["amdgpu_target"].value if a not in ("none", "auto")]
            if archs:
                entries.append(cmake_cache_string("CMAKE_HIP_ARCHITECTURES", ";".join(archs)))
        return entries

    def std_initconfig_entries(self):
        spec = self.pkg.spec
        paths = [d.prefix for d in spec.traverse(root=False, deptype=("build", "link"))]
        return [
            "#------------------{}\n".format("-" * 60),
            "# !!!! This is a generated file, edit at own risk !!!!\n",
            "#------------------{}\n".format("-" * 60),
            "# CMake executable path: {}\n".format(getattr(self.pkg.module, "cmake", "cmake")),
            "#------------------{}\n\n".format("-" * 60),
            cmake_cache_string("CMAKE_PREFIX_PATH", ";".join(paths)),
            cmake_cache_string("CMAKE_INSTALL_RPATH_USE_LINK_PATH", "ON"),
            cmake_cache_string("CMAKE_BUILD_TYPE", spec.variants["build_type"].value
                               if "build_type" in spec.variants else "Release"),
        ]

    def initconfig_package_entries(self):
        return []

    def initconfig(self, pkg, spec, prefix):
        entries = (self.std_initconfig_entries() + self.initconfig_compiler_entries()
                   + self.initconfig_mpi_entries() + self.initconfig_hardware_entries()
                   + self.initconfig_package_entries())
        with open(self.cache_name, "w") as f:
            for e in entries:
                f.write("{}\n".format(e) if not e.endswith("\n") else e)

    @property
    def std_cmake_args(self):
        args = super().std_cmake_args
        args.extend(["-C", self.cache_path])
        return args


class CachedCMakePackage(CMakePackage):
    CMakeBuilder = CachedCMakeBuilder

    depends_on("c", type="build")
    depends_on("cxx", type="build")

    def flags_to_build_system_args(self, flags):
        self.cmake_flag_args = []
