//! The `audit` stage: prove that every ELF file of a stack resolves its
//! libraries inside the stack or in an allowed set of system libraries,
//! without running anything.
//!
//! This module depends on nothing in the crate but [`crate::diag`]-level
//! basics, so it runs alone in CI (`stack audit image.squashfs`).
//!
//! ## How it works
//!
//! 1. [`fs`]: a virtual file system of the target machine — each audited
//!    tree at its mount point (a host directory, or a squashfs image read in
//!    place by [`squashfs`]), the target system (host `/` or a sysroot)
//!    everywhere else; symbolic links resolve in that space; directory
//!    listings are read once.
//! 2. [`loader`]: the target loader's facts (default directories, `$LIB`,
//!    `$PLATFORM`, hwcaps subdirectories, cache path), from the host's
//!    `ld.so --help` or a cluster configuration; [`ldcache`] reads
//!    `ld.so.cache`, [`ldconf`] imitates ldconfig when there is none.
//! 3. [`elf`]: the loader-relevant parts of each ELF file, panic-free on
//!    malformed input, read in ranges through [`source`] (`pread` of the
//!    few parts the loader looks at); [`verify`] is `open_verify`;
//!    [`dlopen`] finds library strings in the read-only data of files that
//!    import `dlopen`.
//! 4. [`load`]: glibc's breadth-first load of one root, with the
//!    already-loaded rule, RPATH chain vs RUNPATH, tokens ([`dst`]), hwcaps
//!    subdirectories, class/machine skips and fatal candidates.
//!    [`session`] caches parsed files across all roots.
//! 5. [`analyze`] loads every ELF file of the stack as a root (in
//!    parallel), [`classify`] sorts every resolution (stack / allowed /
//!    leak / unresolved) and [`findings`] merges the problems of all loads;
//!    [`unreadable`] turns every file or directory that could not be read
//!    into an error finding (an audit never vouches for what it did not see).
//! 6. [`render`]: text, JSON and JUnit; [`ldd`] prints one load list the way
//!    `ldd` does.
//!
//! Entry points: [`audit_tree`] / [`audit_paths`] with [`AuditOptions`],
//! giving an [`AuditReport`]; [`ldd::ldd`] for `stack ldd`.

pub mod analyze;
pub mod classify;
pub mod dlopen;
mod dlopen_refs;
pub mod dst;
pub mod elf;
mod elf_dlopen;
pub mod error;
pub mod findings;
pub mod fs;
pub mod ldcache;
pub mod ldconf;
pub mod ldd;
pub mod load;
pub mod loader;
mod memo;
pub mod recorded;
pub mod render;
pub mod report;
pub mod runpath;
pub mod session;
pub mod source;
pub mod squashfs;
pub mod tree;
pub mod unreadable;
pub mod verify;

pub use classify::{AllowList, Class, DEFAULT_ALLOW};
pub use error::AuditError;
pub use loader::LoaderModel;
pub use report::{AuditReport, FileReport, Finding, FindingKind, Severity};
pub use tree::{AuditOptions, DEFAULT_MOUNT, audit_paths, audit_tree};
