"""`spack.build_environment`."""
from ..api import (  # noqa: F401
    ModuleChangePropagator, dso_suffix, get_cmake_prefix_path, get_effective_jobs,
    shared_library_suffix, static_library_suffix,
)
from ..errors import ChildError, InstallError  # noqa: F401
from ..executable import MakeExecutable  # noqa: F401
