"""`spack.compilers` (only its name is used by package files)."""
