"""`CudaPackage`: the `cuda` and `cuda_arch` variants and the CUDA
dependency for a package that can build with CUDA."""

import re

from ..directives import depends_on, variant
from ..package_base import PackageBase
from ..variants import any_combination_of

# CUDA compute capabilities, and the CUDA versions that support each (facts
# of NVIDIA's documentation).
_ARCH_CUDA = (
    ("10", "@:6.0"), ("11", "@:6.5"), ("12", "@2.1:6.5"), ("13", "@2.1:6.5"),
    ("20", "@3.0:8.0"), ("21", "@3.2:8.0"),
    ("30", "@5.0:10.2"), ("32", "@5.0:10.2"), ("35", "@5.0:11.8"), ("37", "@6.5:11.8"),
    ("50", "@6.0:12.9"), ("52", "@6.5:12.9"), ("53", "@6.5:12.9"),
    ("60", "@8.0:12.9"), ("61", "@8.0:12.9"), ("62", "@8.0:12.9"),
    ("70", "@9.0:12.9"), ("72", "@9.0:"), ("75", "@10.0:"),
    ("80", "@11.0:"), ("86", "@11.1:"), ("87", "@11.4:"), ("89", "@11.8:"),
    ("90", "@12.0:"), ("90a", "@12.0:"),
    ("100", "@12.8:"), ("100a", "@12.8:"), ("100f", "@12.9:"),
    ("103", "@12.9:"), ("103a", "@12.9:"), ("103f", "@12.9:"),
    ("101", "@12.8:12.9"), ("101a", "@12.8:12.9"), ("101f", "@12.9"),
    ("110", "@13.0:"), ("110a", "@13.0:"), ("110f", "@13.0:"),
    ("120", "@12.8:"), ("120a", "@12.8:"), ("120f", "@12.9:"),
    ("121", "@12.9:"), ("121a", "@12.9:"), ("121f", "@12.9:"),
)


def _order(arch):
    m = re.match(r"(\d+)(.*)", arch)
    return (int(m.group(1)), m.group(2))


class CudaPackage(PackageBase):
    cuda_arch_values = tuple(sorted((a for a, _ in _ARCH_CUDA), key=_order))

    variant("cuda", default=False, description="Build with CUDA")
    variant("cuda_arch", description="CUDA architecture", values=any_combination_of(*cuda_arch_values),
            sticky=True, when="+cuda")

    @staticmethod
    def cuda_flags(arch_list):
        return [
            "--generate-code arch=compute_{0},code=sm_{0} --generate-code arch=compute_{0},code=compute_{0}".format(a)
            for a in arch_list
        ]

    @staticmethod
    def compute_capabilities(arch_list):
        out = []
        for arch in arch_list:
            m = re.match(r"(\d+)(.*)", arch)
            out.append("{:.1f}{}".format(int(m.group(1)) / 10.0, m.group(2)))
        return out

    depends_on("cuda", when="+cuda")
    for _arch, _range in _ARCH_CUDA:
        depends_on("cuda" + _range, when="cuda_arch=" + _arch)
    del _arch, _range
