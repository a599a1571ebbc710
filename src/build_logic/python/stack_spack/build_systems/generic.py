"""`Package`: a package whose `install(self, spec, prefix)` does the work."""

from ..package_base import GenericBuilder, Package  # noqa: F401

__all__ = ["GenericBuilder", "Package"]
