"""stack's own base classes and builders for Spack's build systems, served
as `spack_repo.<namespace>.build_systems.<name>` (and the older
`spack.build_systems.<name>`)."""
