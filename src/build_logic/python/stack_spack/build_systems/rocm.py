"""`ROCmPackage`: the `rocm` and `amdgpu_target` variants and the ROCm
dependencies for a package that can build with HIP."""

import os
import re

from ..directives import conflicts, depends_on, variant
from ..fs import join_path
from ..package_base import PackageBase
from ..variants import any_combination_of


class ROCmPackage(PackageBase):
    amdgpu_targets = (
        "gfx701", "gfx801", "gfx802", "gfx803", "gfx900", "gfx900:xnack-", "gfx902", "gfx904",
        "gfx906", "gfx906:xnack-", "gfx908", "gfx908:xnack-", "gfx909", "gfx90a", "gfx90a:xnack-",
        "gfx90a:xnack+", "gfx90c", "gfx940", "gfx941", "gfx942", "gfx950", "gfx1010", "gfx1011",
        "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035",
        "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152",
        "gfx1153", "gfx1200", "gfx1201", "gfx1250", "gfx1251",
    )

    variant("rocm", default=False, description="Enable ROCm support")
    variant("amdgpu_target", description="AMD GPU architecture", values=any_combination_of(*amdgpu_targets),
            sticky=True, when="+rocm")

    depends_on("llvm-amdgpu", type="build", when="+rocm")
    depends_on("hsa-rocr-dev", when="+rocm")
    depends_on("hip +rocm", when="+rocm")

    conflicts("amdgpu_target=none", when="+rocm")

    @staticmethod
    def hip_flags(amdgpu_target):
        return "--amdgpu-target={}".format(",".join(amdgpu_target))

    def asan_on(self, env):
        """Build with the address sanitizer of ROCm's clang."""
        llvm = self.spec["llvm-amdgpu"].prefix
        env.set("CC", llvm + "/bin/clang")
        env.set("CXX", llvm + "/bin/clang++")
        env.set("ASAN_OPTIONS", "detect_leaks=0")
        for root, _, files in os.walk(llvm):
            if "libclang_rt.asan-x86_64.so" in files:
                env.prepend_path("LD_LIBRARY_PATH", root)
        dwarf = "-gdwarf-5" if ("rhel" in self.spec.os or "sles" in self.spec.os) else ""
        env.set("CFLAGS", "-fsanitize=address -shared-libasan -g {}".format(dwarf))
        env.set("CXXFLAGS", "-fsanitize=address -shared-libasan -g {}".format(dwarf))
        env.set("LDFLAGS", "-Wl,--enable-new-dtags -fuse-ld=lld  -fsanitize=address -g -Wl,")

    depends_on("llvm-amdgpu@5.2.0:", when="amdgpu_target=gfx940")
    depends_on("llvm-amdgpu@5.7.0:", when="amdgpu_target=gfx941")
    depends_on("llvm-amdgpu@5.7.0:", when="amdgpu_target=gfx942")
    depends_on("llvm-amdgpu@5.2.0:", when="amdgpu_target=gfx1036")
    depends_on("llvm-amdgpu@5.3.0:", when="amdgpu_target=gfx1100")
    depends_on("llvm-amdgpu@5.3.0:", when="amdgpu_target=gfx1101")
    depends_on("llvm-amdgpu@5.3.0:", when="amdgpu_target=gfx1102")
    depends_on("llvm-amdgpu@5.3.0:", when="amdgpu_target=gfx1103")


class ROCmLibrary(PackageBase):
    """Helpers that read the ROCm version of an installation."""

    @classmethod
    def determine_version(cls, path):
        m = re.search(r"rocm-(\d+\.\d+\.\d+)", path)
        if m:
            return m.group(1)
        return cls.version_from_rocm_version_h(path)

    @classmethod
    def version_from_rocm_version_h(cls, path):
        root = os.path.dirname(os.path.dirname(os.path.abspath(path)))
        header = join_path(root, "include", "rocm-core", "rocm_version.h")
        try:
            with open(header, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            return None
        parts = []
        for key in ("MAJOR", "MINOR", "PATCH"):
            m = re.search(r"^\s*#\s*define\s+ROCM_VERSION_{}\s+(\d+)".format(key), text, re.MULTILINE)
            if not m:
                return None
            parts.append(m.group(1))
        return ".".join(parts)
