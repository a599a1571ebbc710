"""`spack.version`."""
from ..errors import VersionError  # noqa: F401
from ..version import ExactVersion, Version, VersionList, VersionRange, ver  # noqa: F401

StandardVersion = Version
