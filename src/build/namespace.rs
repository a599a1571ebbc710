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
//! namespace, see [`super::sandbox_child::fork_init`]); when the command
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

use super::sandbox_child as child;

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
    build_dir: PathBuf,
    store: CString,
    mount: CString,
    writable: Vec<CString>,
    private: Vec<CString>,
    reattach: Vec<Reattach>,
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
            build_dir: build_dir.to_path_buf(),
            store: cstr(store)?,
            mount: cstr(mount)?,
            writable: Vec::new(),
            private: Vec::new(),
            reattach: Vec::new(),
        };
        for dir in PRIVATE_DIRS.iter().map(Path::new) {
            if !dir.is_dir() {
                continue;
            }
            ns.private.push(cstr(dir)?);
            for keep in [build_dir, mount] {
                if let Some(mkdirs) = below(dir, keep)? {
                    ns.reattach.push(Reattach {
                        path: cstr(keep)?,
                        mkdirs,
                    });
                }
            }
        }
        ns.writable = vec![cstr(build_dir)?, cstr(mount)?];
        Ok(Arc::new(ns))
    }

    /// The sandbox of one package: writable are only its stage directory
    /// and its own prefix (a path under the mount point); the build
    /// directory, the other prefixes and `meta/` are read-only.
    pub fn for_package(&self, stage: &Path, prefix: &Path) -> Arc<Self> {
        let mut ns = self.clone();
        // A path with a NUL cannot exist; an empty one makes the mount fail.
        ns.writable = [stage, prefix]
            .iter()
            .map(|p| cstr(p).unwrap_or_default())
            .collect();
        Arc::new(ns)
    }

    /// The build directory this sandbox was made for.
    pub fn build_dir(&self) -> &Path {
        &self.build_dir
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    struct Dirs {
        _d: tempfile::TempDir,
        build: PathBuf,
        store: PathBuf,
        mount: PathBuf,
        outside: PathBuf,
    }

    fn dirs() -> Dirs {
        let d = tempfile::tempdir().unwrap();
        let build = d.path().join("build");
        let store = build.join("store");
        let mount = d.path().join("mnt");
        let outside = d.path().join("outside");
        for p in [&store, &mount, &outside] {
            fs_err::create_dir_all(p).unwrap();
        }
        Dirs {
            build,
            store,
            mount,
            outside,
            _d: d,
        }
    }

    fn sh(ns: &Arc<Namespace>, cwd: &Path, script: &str) -> std::process::Output {
        if let Err(e) = ns.probe() {
            panic!("user namespaces unavailable: {e}");
        }
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c").arg(script);
        ns.apply(&mut cmd, cwd).unwrap();
        cmd.output().unwrap()
    }

    fn ok(out: &std::process::Output) {
        assert!(
            out.status.success(),
            "{}\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn shows_store_at_mount_and_keeps_host_read_only() {
        let t = dirs();
        let ns = Namespace::new(&t.build, &t.store, &t.mount).unwrap();
        let out = sh(
            &ns,
            &t.build,
            &format!(
                "echo hi > {m}/file && mkdir -p {m}/pkg/lib && echo log > build.log && ! touch {o}/x 2>/dev/null",
                m = t.mount.display(),
                o = t.outside.display()
            ),
        );
        ok(&out);
        assert_eq!(fs_err::read_to_string(t.store.join("file")).unwrap(), "hi\n");
        assert!(t.store.join("pkg/lib").is_dir());
        assert!(t.build.join("build.log").is_file());
        assert!(
            !t.mount.join("file").exists(),
            "nothing written to the real mount point"
        );
        assert!(!t.outside.join("x").exists(), "host stays read-only");
    }

    /// Issue 13, item 2: as root the build could remount `/` writable (it
    /// kept every capability in its user namespace). Now it runs as a
    /// non-zero uid without capabilities, with no_new_privs and locked
    /// mounts, whoever starts it.
    #[test]
    fn cannot_undo_the_sandbox() {
        let t = dirs();
        let ns = Namespace::new(&t.build, &t.store, &t.mount).unwrap();
        let marker = t.outside.join("escape");
        let out = sh(
            &ns,
            &t.build,
            &format!(
                "id -u; grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs)' /proc/self/status; \
                 mount -o remount,bind,rw / 2>&1; mount -o remount,bind,rw {o} 2>&1; \
                 umount -l {o} 2>&1; echo x > {marker} 2>&1; true",
                o = t.outside.display(),
                marker = marker.display()
            ),
        );
        ok(&out);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!marker.exists(), "the build wrote outside: {text}");
        assert_ne!(text.lines().next(), Some("0"), "runs as root inside: {text}");
        for field in ["CapEff", "CapPrm", "CapBnd"] {
            assert!(
                text.contains(&format!("{field}:\t0000000000000000")),
                "{field} not empty: {text}"
            );
        }
        assert!(text.contains("NoNewPrivs:\t1"), "{text}");
    }

    /// Issue 13, item 2: `/tmp` and `/dev/shm` are private to the build.
    #[test]
    fn private_tmp_and_shm() {
        let t = dirs();
        let ns = Namespace::new(&t.build, &t.store, &t.mount).unwrap();
        let name = format!("stack-sandbox-test-{}", std::process::id());
        let host_tmp = Path::new("/tmp").join(&name);
        fs_err::write(&host_tmp, "host").unwrap();
        let out = sh(
            &ns,
            &t.build,
            &format!(
                "test ! -e /tmp/{name} && echo in > /tmp/{name}.new && echo shm > /dev/shm/{name} \
                 && echo ok > {m}/seen",
                m = t.mount.display()
            ),
        );
        let _ = fs_err::remove_file(&host_tmp);
        ok(&out);
        assert!(!Path::new("/tmp").join(format!("{name}.new")).exists());
        assert!(!Path::new("/dev/shm").join(&name).exists());
        // The build's own paths stay visible (these tests live in /tmp).
        assert!(t.store.join("seen").is_file());
    }

    /// Issue 13, item 6: a package may write only its stage and its own
    /// prefix, not its dependencies' prefixes or `meta/`.
    #[test]
    fn package_writes_only_its_stage_and_prefix() {
        let t = dirs();
        for d in ["dep/lib", "pkg", "meta"] {
            fs_err::create_dir_all(t.store.join(d)).unwrap();
        }
        fs_err::write(t.store.join("dep/lib/libdep.so"), "orig").unwrap();
        let stage = t.build.join("stage/pkg");
        fs_err::create_dir_all(&stage).unwrap();
        let ns = Namespace::new(&t.build, &t.store, &t.mount)
            .unwrap()
            .for_package(&stage, &t.mount.join("pkg"));
        let m = t.mount.display();
        let out = sh(
            &ns,
            &stage,
            &format!(
                "echo new > {m}/pkg/file && echo log > here && \
                 ! echo evil > {m}/dep/lib/libdep.so 2>/dev/null && \
                 ! ln -s /etc {m}/meta/x 2>/dev/null && ! rm -rf {m}/meta 2>/dev/null && \
                 ! touch {b}/stack.lock 2>/dev/null && ! touch {b}/store/dep/x 2>/dev/null",
                b = t.build.display()
            ),
        );
        ok(&out);
        assert_eq!(fs_err::read_to_string(t.store.join("pkg/file")).unwrap(), "new\n");
        assert_eq!(
            fs_err::read_to_string(t.store.join("dep/lib/libdep.so")).unwrap(),
            "orig"
        );
        assert!(t.store.join("meta").is_dir() && !t.store.join("meta/x").exists());
        assert!(stage.join("here").is_file());
    }

    /// Issue 13, item 7: a backgrounded process does not outlive its
    /// command (it wrote into the store after the image was packed).
    #[test]
    fn background_processes_end_with_the_command() {
        let t = dirs();
        let ns = Namespace::new(&t.build, &t.store, &t.mount).unwrap();
        let out = sh(
            &ns,
            &t.build,
            &format!(
                "(sleep 1; echo late > {m}/late.txt) >/dev/null 2>&1 & echo started",
                m = t.mount.display()
            ),
        );
        ok(&out);
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!t.store.join("late.txt").exists(), "a build process survived");
    }

    /// Issue 13, item 10: when the process that started the build dies
    /// (here: the thread that spawned it ends, as with `kill -9` of
    /// `stack`), the whole sandbox dies with it.
    #[test]
    fn sandbox_dies_with_its_parent() {
        let t = dirs();
        let ns = Namespace::new(&t.build, &t.store, &t.mount).unwrap();
        ns.probe().unwrap();
        let late = t.store.join("late.txt");
        let m = t.mount.clone();
        let cwd = t.build.clone();
        let child = std::thread::spawn(move || {
            let mut cmd = Command::new("/bin/sh");
            cmd.arg("-c")
                .arg(format!("(sleep 2; echo late > {}/late.txt) & wait", m.display()));
            // SAFETY: prctl is async-signal-safe (what the runner sets).
            unsafe {
                cmd.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    Ok(())
                });
            }
            ns.apply(&mut cmd, &cwd).unwrap();
            cmd.spawn().unwrap()
        })
        .join()
        .unwrap();
        let mut child = child;
        let status = child.wait().unwrap();
        std::thread::sleep(Duration::from_secs(3));
        assert!(!late.exists(), "the build outlived its parent ({status})");
    }
}
