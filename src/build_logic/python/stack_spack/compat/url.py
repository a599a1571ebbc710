"""`spack.url`, `llnl.url`."""
from ..urls import join_url, reference_version, substitute_version  # noqa: F401


def parse_version(path):
    from ..version import Version

    v = reference_version(path)
    if v is None:
        raise ValueError("no version in {}".format(path))
    return Version(v)
