//! Builds in a private user+mount namespace.
//!
//! When the mount point is not writable, every command of the build runs in
//! its own new user and mount namespace, entered between `fork` and `exec`
//! (a multi-threaded process cannot `unshare(CLONE_NEWUSER)` itself):
//!
//! 1. `unshare(CLONE_NEWUSER | CLONE_NEWNS)`; map our uid/gid to themselves;
//! 2. make every mount private (nothing propagates back to the host);
//! 3. bind the build directory onto itself and `<build>/store` onto the mount
//!    point;
//! 4. make the whole tree read-only (`mount_setattr(…, AT_RECURSIVE,
//!    MOUNT_ATTR_RDONLY)`), then writable again only for the build directory,
//!    the mount point and `/dev`;
//! 5. `chdir` into the command's directory again (it was resolved before the
//!    mounts changed).
//!
//! The result: the command sees its final prefix at the mount point, and an
//! install step that writes to `/etc`, `/sbin` or `/lib/systemd` fails with
//! "Read-only file system" instead of leaving files on the host. No root is
//! needed where unprivileged user namespaces are enabled.
//!
//! Everything the child does is prepared in the parent: the closure only
//! makes raw syscalls (no allocation), as required after `fork` in a
//! multi-threaded program.

use std::ffi::{CStr, CString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use nix::libc;

const MOUNT_ATTR_RDONLY: u64 = 0x0000_0001;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// The prepared namespace setup for one build.
#[derive(Debug)]
pub struct Namespace {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    build_dir: CString,
    store: CString,
    mount: CString,
}

fn cstr(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: NUL in path", p.display()),
        )
    })
}

impl Namespace {
    /// Prepare a namespace that shows `store` at `mount` and keeps `build_dir` writable.
    pub fn new(build_dir: &Path, store: &Path, mount: &Path) -> io::Result<Arc<Self>> {
        let uid = nix::unistd::getuid().as_raw();
        let gid = nix::unistd::getgid().as_raw();
        Ok(Arc::new(Namespace {
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            build_dir: cstr(build_dir)?,
            store: cstr(store)?,
            mount: cstr(mount)?,
        }))
    }

    /// Make `cmd` enter a fresh namespace before exec, then `chdir(cwd)`.
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

    /// Check that the namespace can be entered: run `/bin/true` in it.
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
        // SAFETY: plain syscalls with valid NUL-terminated strings and buffers.
        unsafe {
            check(libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS))?;
            // Unprivileged processes must give up setgroups before writing gid_map.
            let _ = write_file(c"/proc/self/setgroups", b"deny");
            write_file(c"/proc/self/uid_map", &self.uid_map)?;
            write_file(c"/proc/self/gid_map", &self.gid_map)?;
            check(libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            bind(&self.build_dir, &self.build_dir)?;
            bind(&self.store, &self.mount)?;
            set_readonly(c"/", true)?;
            set_readonly(&self.build_dir, false)?;
            set_readonly(&self.mount, false)?;
            let _ = set_readonly(c"/dev", false);
            check(libc::chdir(cwd.as_ptr()))?;
        }
        Ok(())
    }
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

unsafe fn write_file(path: &CStr, data: &[u8]) -> io::Result<()> {
    // SAFETY: valid path and buffer; the fd is closed on every path.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        let err = io::Error::last_os_error();
        libc::close(fd);
        if n != data.len() as isize {
            return Err(err);
        }
    }
    Ok(())
}

unsafe fn bind(src: &CStr, dst: &CStr) -> io::Result<()> {
    // SAFETY: valid NUL-terminated strings.
    check(unsafe {
        libc::mount(
            src.as_ptr(),
            dst.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        )
    })
}

unsafe fn set_readonly(path: &CStr, ro: bool) -> io::Result<()> {
    let attr = MountAttr {
        attr_set: if ro { MOUNT_ATTR_RDONLY } else { 0 },
        attr_clr: if ro { 0 } else { MOUNT_ATTR_RDONLY },
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: mount_setattr(2) with a valid path and a correctly sized struct.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            libc::AT_RECURSIVE as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if rc == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_store_at_mount_and_keeps_host_read_only() {
        let d = tempfile::tempdir().unwrap();
        let build = d.path().join("build");
        let store = build.join("store");
        let mount = d.path().join("mnt");
        let outside = d.path().join("outside");
        for p in [&store, &mount, &outside] {
            fs_err::create_dir_all(p).unwrap();
        }
        let ns = Namespace::new(&build, &store, &mount).unwrap();
        if let Err(e) = ns.probe() {
            panic!("user namespaces unavailable: {e}");
        }
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c").arg(format!(
            "echo hi > {m}/file && mkdir -p {m}/pkg/lib && echo log > build.log && ! touch {o}/x 2>/dev/null",
            m = mount.display(),
            o = outside.display()
        ));
        ns.apply(&mut cmd, &build).unwrap();
        let st = cmd.status().unwrap();
        assert!(st.success(), "{st}");
        assert_eq!(fs_err::read_to_string(store.join("file")).unwrap(), "hi\n");
        assert!(store.join("pkg/lib").is_dir());
        assert!(build.join("build.log").is_file());
        assert!(
            !mount.join("file").exists(),
            "nothing written to the real mount point"
        );
        assert!(!outside.join("x").exists(), "host stays read-only");
    }
}
