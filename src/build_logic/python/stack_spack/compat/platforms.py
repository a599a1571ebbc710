"""`spack.platforms`."""
from ..api import host_platform as host  # noqa: F401
