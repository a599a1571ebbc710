"""`spack.install_test`."""
from ..api import (  # noqa: F401
    cache_extra_test_sources, check_outputs, get_escaped_text_output, install_test_root, test_part,
)
from ..errors import SkipTest  # noqa: F401
