//! The `audit` stage: prove that every ELF file in a tree resolves its
//! libraries inside the tree or in an allowed set of system libraries.

pub mod dlopen;
pub mod dst;
pub mod elf;
pub mod fs;
pub mod ldcache;
pub mod ldconf;
pub mod ldd;
pub mod load;
pub mod loader;
mod memo;
pub mod session;
