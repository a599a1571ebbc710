"""`spack.spec`."""
from ..spec import CompilerSpec, Spec  # noqa: F401
