"""`spack.builder`, `spack.phase_callbacks`, `spack.package_base`."""
from ..package_base import (  # noqa: F401
    BaseBuilder, Builder, BuilderWithDefaults, GenericBuilder, Package, PackageBase,
    create_builder, on_package_attributes, register_builder, run_after, run_before,
)
from ..errors import InstallError  # noqa: F401

create = create_builder
