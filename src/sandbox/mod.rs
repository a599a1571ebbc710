//! The sandbox every build command and hook runs in: private user, mount
//! and PID namespaces that keep the host read-only and the command without
//! capabilities ([`Namespace`]; the raw-syscall child side in `child`).
//! Below `build` (package builds) and `view` (hooks); depends on nothing
//! but the standard library and libc.

mod child;
mod namespace;

pub use namespace::Namespace;
