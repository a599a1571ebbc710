"""`spack.install_test`."""
from ..api import cache_extra_test_sources, check_outputs, get_escaped_text_output, install_test_root, test_part  # noqa: F401,E501
from ..errors import SkipTest  # noqa: F401
