"""`spack.util.prefix`."""
from ..prefix import Prefix  # noqa: F401
