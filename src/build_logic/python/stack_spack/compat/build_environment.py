"""`spack.build_environment`."""
from ..api import (  # noqa: F401
    ModuleChangePropagator, dso_suffix, get_cmake_prefix_path, get_effective_jobs,
    shared_library_suffix, static_library_suffix,
)
from ..errors import ChildError, InstallError  # noqa: F401
from ..executable import MakeExecutable  # noqa: F401


def optimization_flags(compiler, target):
    """The flags that optimise for `target` with `compiler` (older API)."""
    from ..target import optimization_flags as _flags

    return _flags(str(target), getattr(compiler, "name", str(compiler)))
