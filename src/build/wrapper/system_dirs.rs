//! Which directories are the system's: never injected by the wrapper, moved
//! behind the dependencies when a package names them, and never made an
//! `-isystem` directory.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// System directories: never injected, and user flags naming them go last.
pub fn is_system_dir(dir: &Path) -> bool {
    const EXACT: &[&str] = &[
        "/",
        "/usr",
        "/usr/include",
        "/usr/local/include",
        "/include",
    ];
    const TREES: &[&str] = &[
        "/usr/lib",
        "/usr/lib32",
        "/usr/lib64",
        "/lib",
        "/lib32",
        "/lib64",
        "/usr/local/lib",
        "/usr/local/lib64",
    ];
    EXACT.iter().any(|e| dir == Path::new(e)) || TREES.iter().any(|t| dir.starts_with(t))
}

/// `-isystem DIR` / `-isystemDIR` at `args[i]` naming one of the compiler's
/// default include dirs (`/usr/include`, `/usr/local/include`): how many
/// arguments to drop. Such a flag (configure's `--with-hwloc=/usr` adds
/// it) moves the dir ahead of the compiler's own C++ headers, and
/// libstdc++'s `#include_next <stdlib.h>` then finds nothing; the dir is
/// searched anyway, so dropping it loses nothing.
pub(super) fn default_isystem(args: &[OsString], i: usize) -> Option<usize> {
    let is_default = |d: &[u8]| {
        let d = Path::new(OsStr::from_bytes(d));
        d == Path::new("/usr/include") || d == Path::new("/usr/local/include")
    };
    let b = args[i].as_bytes();
    if b == b"-isystem" {
        let next = args.get(i + 1)?;
        return is_default(next.as_bytes()).then_some(2);
    }
    let rest = b.strip_prefix(b"-isystem")?;
    is_default(rest).then_some(1)
}
