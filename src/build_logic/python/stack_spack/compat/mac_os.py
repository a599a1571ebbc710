"""`spack.operating_systems.mac_os`: never macOS on a stack build host."""
from ..api import macos_version  # noqa: F401
