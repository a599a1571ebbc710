"""`spack.util.executable`."""
from ..errors import CommandNotFoundError, ProcessError  # noqa: F401
from ..executable import Executable, which, which_string  # noqa: F401
