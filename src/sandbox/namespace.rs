//! Builds in a private sandbox: user, mount and PID namespaces.
//!
//! When the mount point is not writable, every command of the build runs in
//! its own sandbox, entered between `fork` and `exec` (a multi-threaded
//! process cannot `unshare(CLONE_NEWUSER)` itself), in two stages as
//! bubblewrap does:
//!
//! 1. **Setup** — `unshare(CLONE_NEWUSER | CLONE_NEWNS)` mapping our uid/gid
//!    to themselves; every mount private (nothing propagates to the host);
//!    `<build>/store` bound onto the mount point; each writable path (the
//!    package's stage and its own prefix; for hooks the build directory and
//!    the whole mount point) bound onto itself; the whole tree made
//!    read-only (`mount_setattr(AT_RECURSIVE, MOUNT_ATTR_RDONLY)`), then the
//!    writable paths writable again; a fresh tmpfs on `/tmp` and `/dev/shm`
//!    (paths of the build below `/tmp` are re-attached on it).
//! 2. **Lock** — `unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID)` into a
//!    namespace where the command runs as an unprivileged uid (its own uid,
//!    or 1000 when `stack` runs as root): the mounts copied into this
//!    less privileged namespace are locked (the kernel refuses to make them
//!    writable or to unmount them), the bounding set is emptied and
//!    `no_new_privs` set, so after `exec` the command holds no capability
//!    in any namespace and `mount -o remount,rw /` fails, also as root.
//!
//! The command then runs under a tiny init (PID 1 of the new PID
//! namespace, see [`super::child::fork_init`]); when the command
//! ends, every process it left behind is killed before `stack` sees the
//! exit, and `kill -9` of `stack` takes the namespace down.
//!
//! The result: the command sees its final prefix at the mount point, can
//! write only there and in its stage, and an install step that writes to
//! `/etc`, another package's prefix or `meta/` fails with "Read-only file
//! system" instead of changing them. No root is needed where unprivileged
//! user namespaces are enabled.
//!
//! Everything the child does is prepared in the parent: the closure only
//! makes raw syscalls (no allocation), as required after `fork` in a
//! multi-threaded program.

use std::ffi::{CStr, CString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use nix::libc;

use super::child;

/// The uid and gid a build runs as inside its sandbox when `stack` runs as
/// root (anyone else keeps their own): never 0, so it holds no capability.
pub const SANDBOX_ID_FOR_ROOT: u32 = 1000;

/// Directories replaced by a private tmpfs in the sandbox.
const PRIVATE_DIRS: &[&str] = &["/tmp", "/dev/shm"];

/// A path of the build that must stay visible under a private tmpfs.
#[derive(Debug, Clone)]
struct Reattach {
    path: CString,
    /// The directories to create on the tmpfs, outermost first.
    mkdirs: Vec<CString>,
}

/// The prepared sandbox of one build (or one package of it).
#[derive(Debug, Clone)]
pub struct Namespace {
    outer_uid_map: Vec<u8>,
    outer_gid_map: Vec<u8>,
    inner_uid_map: Vec<u8>,
    inner_gid_map: Vec<u8>,
    store_path: PathBuf,
    mount_path: PathBuf,
    store: CString,
    mount: CString,
    writable: Vec<CString>,
    private: Vec<CString>,
    reattach: Vec<Reattach>,
    /// Direct mode: only the PID namespace (and, for a user, the user
    /// namespace it needs); no mounts, nothing read-only.
    processes_only: bool,
}

fn cstr(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: NUL in path", p.display()),
        )
    })
}

/// `path` and its ancestors below `dir`, outermost first, if `path` is
/// below `dir`.
fn below(dir: &Path, path: &Path) -> io::Result<Option<Vec<CString>>> {
    let Ok(rel) = path.strip_prefix(dir) else {
        return Ok(None);
    };
    let mut at = dir.to_path_buf();
    let mut out = Vec::new();
    for c in rel.components() {
        at.push(c);
        out.push(cstr(&at)?);
    }
    Ok(Some(out))
}

impl Namespace {
    /// Prepare a sandbox that shows `store` at `mount` and keeps `build_dir`
    /// and the whole mount point writable (what hooks get; packages get
    /// [`Namespace::for_package`]).
    pub fn new(build_dir: &Path, store: &Path, mount: &Path) -> io::Result<Arc<Self>> {
        let uid = nix::unistd::getuid().as_raw();
        let gid = nix::unistd::getgid().as_raw();
        let (in_uid, in_gid) = match uid {
            0 => (SANDBOX_ID_FOR_ROOT, SANDBOX_ID_FOR_ROOT),
            _ => (uid, gid),
        };
        let mut ns = Namespace {
            outer_uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            outer_gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            inner_uid_map: format!("{in_uid} {uid} 1\n").into_bytes(),
            inner_gid_map: format!("{in_gid} {gid} 1\n").into_bytes(),
            store_path: store.to_path_buf(),
            mount_path: mount.to_path_buf(),
            store: cstr(store)?,
            mount: cstr(mount)?,
            writable: Vec::new(),
            private: Vec::new(),
            reattach: Vec::new(),
            processes_only: false,
        };
        // A store outside the build directory (a link to a shared store) is
        // kept too, as the build directory is.
        let mut keeps = vec![build_dir, mount];
        if !store.starts_with(build_dir) && store != mount {
            keeps.push(store);
        }
        for dir in PRIVATE_DIRS.iter().map(Path::new) {
            if !dir.is_dir() {
                continue;
            }
            ns.private.push(cstr(dir)?);
            for keep in keeps.iter().copied() {
                if let Some(mkdirs) = below(dir, keep)? {
                    ns.reattach.push(Reattach {
                        path: cstr(keep)?,
                        mkdirs,
                    });
                }
            }
        }
        ns.writable = keeps.iter().map(|p| cstr(p)).collect::<io::Result<_>>()?;
        Ok(Arc::new(ns))
    }

    /// This sandbox, with `paths` (directories whose programs the build
    /// runs, such as the compiler wrapper's) kept visible, read as they are,
    /// when they lie below a private directory such as `/tmp`.
    pub fn keeping(&self, paths: &[PathBuf]) -> io::Result<Arc<Self>> {
        let mut ns = self.clone();
        if !ns.private.is_empty() {
            for dir in PRIVATE_DIRS.iter().map(Path::new) {
                for path in paths {
                    if let Some(mkdirs) = below(dir, path)? {
                        ns.reattach.push(Reattach {
                            path: cstr(path)?,
                            mkdirs,
                        });
                    }
                }
            }
        }
        Ok(Arc::new(ns))
    }

    /// Direct mode's containment: each command runs in its own PID namespace
    /// (under the same init as in namespace mode, so no process outlives it
    /// or `stack`), with the host's files as they are. Root needs no user
    /// namespace for it; anyone else gets one mapping their uid to itself.
    pub fn processes_only(build_dir: &Path, mount: &Path) -> io::Result<Arc<Self>> {
        let mut ns = Namespace::clone(&*Namespace::new(build_dir, mount, mount)?);
        ns.processes_only = true;
        ns.private.clear();
        ns.reattach.clear();
        Ok(Arc::new(ns))
    }

    /// Direct mode's PID-namespace-only containment (no mounts)?
    pub fn is_processes_only(&self) -> bool {
        self.processes_only
    }

    /// The sandbox of one package: writable are only its stage directory
    /// and its own prefix (a path under the mount point, also at its host
    /// path in the store, where relocation edits it); the rest of the
    /// build directory, the other prefixes and `meta/` are read-only.
    pub fn for_package(&self, stage: &Path, prefix: &Path) -> Arc<Self> {
        let mut ns = self.clone();
        if ns.processes_only {
            return Arc::new(ns);
        }
        let mut paths = vec![stage.to_path_buf(), prefix.to_path_buf()];
        if let Ok(rel) = prefix.strip_prefix(&self.mount_path) {
            paths.push(self.store_path.join(rel));
        }
        // A path with a NUL cannot exist; an empty one makes the mount fail.
        ns.writable = paths.iter().map(|p| cstr(p).unwrap_or_default()).collect();
        Arc::new(ns)
    }

    /// Make `cmd` enter a fresh sandbox before exec, then `chdir(cwd)`.
    pub fn apply(self: &Arc<Self>, cmd: &mut Command, cwd: &Path) -> io::Result<()> {
        let ns = Arc::clone(self);
        let cwd = cstr(cwd)?;
        // SAFETY: the closure only makes async-signal-safe syscalls on
        // pre-built buffers; it allocates nothing.
        unsafe {
            cmd.pre_exec(move || ns.enter(&cwd));
        }
        Ok(())
    }

    /// Check that the sandbox can be entered: run `/bin/true` in it.
    pub fn probe(self: &Arc<Self>) -> Result<(), String> {
        let mut cmd = Command::new("/bin/true");
        self.apply(&mut cmd, Path::new("/"))
            .map_err(|e| e.to_string())?;
        match cmd.status() {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(format!("/bin/true in the namespace ended with {s}")),
            Err(e) => Err(e.to_string()),
        }
    }

    fn enter(&self, cwd: &CStr) -> io::Result<()> {
        if self.processes_only {
            return self.enter_processes_only(cwd);
        }
        child::enter_userns(libc::CLONE_NEWNS, &self.outer_uid_map, &self.outer_gid_map)?;
        child::make_private()?;
        child::bind(&self.store, &self.mount)?;
        for w in &self.writable {
            child::bind(w, w)?;
        }
        child::set_readonly(c"/", true, true)?;
        for w in &self.writable {
            child::set_readonly(w, false, false)?;
        }
        // The next namespace's uid_map is written through /proc.
        child::set_readonly(c"/proc", false, false)?;
        self.private_tmp()?;
        child::enter_userns(
            libc::CLONE_NEWNS | libc::CLONE_NEWPID,
            &self.inner_uid_map,
            &self.inner_gid_map,
        )?;
        child::set_readonly(c"/proc", true, false)?;
        child::drop_privileges()?;
        child::fork_init()?;
        // SAFETY: valid NUL-terminated string.
        child::check(unsafe { libc::chdir(cwd.as_ptr()) })
    }

    fn enter_processes_only(&self, cwd: &CStr) -> io::Result<()> {
        // SAFETY: plain syscalls.
        if unsafe { libc::geteuid() } == 0 {
            child::check(unsafe { libc::unshare(libc::CLONE_NEWPID) })?;
        } else {
            child::enter_userns(libc::CLONE_NEWPID, &self.outer_uid_map, &self.outer_gid_map)?;
        }
        child::fork_init()?;
        // SAFETY: valid NUL-terminated string.
        child::check(unsafe { libc::chdir(cwd.as_ptr()) })
    }

    /// Fresh tmpfs on `/tmp` and `/dev/shm`; what of the build lives below
    /// them is detached first and attached again on the tmpfs.
    fn private_tmp(&self) -> io::Result<()> {
        let mut fds = [-1 as libc::c_int; 8];
        for (i, r) in self.reattach.iter().take(fds.len()).enumerate() {
            fds[i] = child::clone_tree(&r.path)?;
        }
        for dir in &self.private {
            child::tmpfs(dir)?;
        }
        for (i, r) in self.reattach.iter().take(fds.len()).enumerate() {
            for d in &r.mkdirs {
                child::mkdir(d)?;
            }
            child::attach_tree(fds[i], &r.path)?;
        }
        Ok(())
    }
}

// Tested with real namespaces in tests/it/sandbox.rs (as root and unprivileged).
