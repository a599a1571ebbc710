//! Writing what was translated: readings per architecture merged, the
//! package.py files a `system: spack` recipe runs, build logic left to
//! package.py.

pub mod build_logic;
pub(crate) mod converted;
pub mod package_files;
pub(crate) mod per_arch;
pub(crate) mod recipe;
