"""Intel oneAPI packages: binary installers run into the prefix."""

import os
import platform
import shutil

from ..api import get_user
from ..directives import conflicts, depends_on, license, redistribute, variant
from ..envmods import EnvironmentModifications
from ..errors import InstallError
from ..executable import Executable
from ..filelists import HeaderList, LibraryList, find_libraries
from ..fs import join_path, mkdirp, symlink
from ..package_base import Package


class IntelOneApiPackage(Package):
    homepage = "https://software.intel.com/oneapi"
    unresolved_libraries = ["*"]

    license("https://intel.ly/393CijO")
    redistribute(source=False, binary=False)
    for _c in ("target=ppc64:", "target=ppc64le:", "target=aarch64:", "platform=darwin", "platform=windows"):
        conflicts(_c, msg="This package in only available for x86_64 and Linux")
    del _c
    variant("envmods", default=True, description="Toggles environment modifications")

    @staticmethod
    def update_description(cls):
        cls.__doc__ = (cls.__doc__ or "") + (
            " LICENSE INFORMATION: By downloading and using this software, you agree to the terms "
            "and conditions of the software license agreements at https://intel.ly/393CijO."
        )
        return cls

    @property
    def component_dir(self):
        raise NotImplementedError("{} must define component_dir".format(type(self).__name__))

    @property
    def v2_layout_versions(self):
        raise NotImplementedError("{} must define v2_layout_versions".format(type(self).__name__))

    @property
    def v2_layout(self):
        return self.spec.satisfies(self.v2_layout_versions)

    @property
    def component_prefix(self):
        v = self.spec.version.up_to(2) if self.v2_layout else self.spec.version
        return self.prefix.join(self.component_dir).join(str(v))

    @property
    def env_script_args(self):
        return ()

    def install(self, spec, prefix):
        self.install_component(os.path.basename(self.url_for_version(spec.version)))

    def install_component(self, installer_path):
        if platform.system() == "Linux":
            if get_user() == "root":
                shutil.rmtree("/var/intel/installercache", ignore_errors=True)
            bash = Executable("bash")
            bash.add_default_env("HOME", join_path(self.stage.path, "home"))
            bash.add_default_env("XDG_RUNTIME_DIR", join_path(self.stage.path, "runtime"))
            bash(installer_path, "-s", "-a", "-s", "--action", "install", "--eula", "accept",
                 "--install-dir", self.prefix)
        if not os.path.isdir(self.component_prefix):
            raise RuntimeError("install failed to directory: {}".format(self.component_prefix))

    def setup_run_environment(self, env):
        if "+envmods" in self.spec:
            env.extend(EnvironmentModifications.from_sourcing_file(
                self.component_prefix.env.join("vars.sh"), *self.env_script_args))

    def symlink_dir(self, src, dest):
        mkdirp(dest)
        for entry in os.listdir(src):
            s = join_path(src, entry)
            d = join_path(dest, entry)
            if os.path.isdir(s) and os.access(s, os.X_OK):
                self.symlink_dir(s, d)
            else:
                symlink(s, d)


class IntelOneApiLibraryPackage(IntelOneApiPackage):
    depends_on("c", type="build")

    def openmp_libs(self):
        if self.spec.satisfies("%intel") or self.spec.satisfies("%oneapi"):
            name = "libiomp5"
        elif self.spec.satisfies("%gcc"):
            name = "libgomp"
        elif self.spec.satisfies("%clang"):
            name = "libomp"
        else:
            raise InstallError("OneAPI package with OpenMP threading requires one of %clang, %gcc, %oneapi, or %intel")
        path = Executable(self.compiler.cc)("--print-file-name", "{}.so".format(name), output=str).strip()
        if not os.path.exists(path):
            raise InstallError("OneAPI package cannot locate OpenMP library: {}".format(path))
        return LibraryList(path)

    def header_directories(self, dirs):
        h = HeaderList([])
        h.directories = dirs
        for d in dirs:
            if not os.path.isdir(d):
                raise RuntimeError("{} does not exist".format(d))
        return h

    @property
    def headers(self):
        return self.header_directories([self.component_prefix.include])

    @property
    def libs(self):
        return find_libraries("*", root=self.component_prefix.lib, recursive=not self.v2_layout)


class IntelOneApiLibraryPackageWithSdk(IntelOneApiLibraryPackage):
    @property
    def headers(self):
        return self.header_directories([self.component_prefix.sdk.include])

    @property
    def libs(self):
        return find_libraries("*", self.component_prefix.sdk.lib64)


class IntelOneApiStaticLibraryList(LibraryList):
    def __init__(self, static_libs, dynamic_libs):
        super().__init__(list(static_libs) + list(dynamic_libs))
        self.static_libs = static_libs
        self.dynamic_libs = dynamic_libs

    @property
    def directories(self):
        return self.dynamic_libs.directories

    @property
    def search_flags(self):
        return self.dynamic_libs.search_flags

    @property
    def link_flags(self):
        return "-Wl,--start-group {} -Wl,--end-group {}".format(
            " ".join(self.static_libs.libraries), self.dynamic_libs.link_flags)

    @property
    def ld_flags(self):
        return "{} {}".format(self.search_flags, self.link_flags)


INTEL_MATH_LIBRARIES = ("intel-oneapi-mkl",)
