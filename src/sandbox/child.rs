//! The raw syscalls a build command's process makes between `fork` and
//! `exec` to enter its sandbox (see [`super::namespace`]).
//!
//! Everything here runs in the child of a multi-threaded process: only
//! async-signal-safe syscalls on buffers prepared by the parent, no
//! allocation, no locks.

use std::ffi::CStr;
use std::io;

use nix::libc;

const MOUNT_ATTR_RDONLY: u64 = 0x0000_0001;
const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x0000_0004;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

pub(super) fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

fn check_long(rc: libc::c_long) -> io::Result<libc::c_long> {
    if rc == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// Write `data` to the (proc) file `path`.
pub(super) fn write_file(path: &CStr, data: &[u8]) -> io::Result<()> {
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

/// Enter a new user namespace (plus `extra` namespaces) with the given maps.
pub(super) fn enter_userns(extra: libc::c_int, uid_map: &[u8], gid_map: &[u8]) -> io::Result<()> {
    // SAFETY: plain syscall.
    check(unsafe { libc::unshare(libc::CLONE_NEWUSER | extra) })?;
    // Unprivileged processes must give up setgroups before writing gid_map.
    let _ = write_file(c"/proc/self/setgroups", b"deny");
    write_file(c"/proc/self/uid_map", uid_map)?;
    write_file(c"/proc/self/gid_map", gid_map)
}

/// Make every mount private: nothing propagates back to the host.
pub(super) fn make_private() -> io::Result<()> {
    // SAFETY: valid NUL-terminated strings.
    check(unsafe {
        libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        )
    })
}

pub(super) fn bind(src: &CStr, dst: &CStr) -> io::Result<()> {
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

/// A fresh tmpfs at `dst` (private `/tmp`, `/dev/shm`).
pub(super) fn tmpfs(dst: &CStr) -> io::Result<()> {
    // SAFETY: valid NUL-terminated strings.
    check(unsafe {
        libc::mount(
            c"tmpfs".as_ptr(),
            dst.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            c"mode=1777".as_ptr().cast(),
        )
    })
}

/// A detached copy of the mount tree at `path` (to be re-attached with
/// [`attach_tree`] after something was mounted over it).
pub(super) fn clone_tree(path: &CStr) -> io::Result<libc::c_int> {
    // SAFETY: open_tree(2) with a valid path.
    let fd = check_long(unsafe {
        libc::syscall(
            libc::SYS_open_tree,
            libc::AT_FDCWD,
            path.as_ptr(),
            OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint | libc::AT_RECURSIVE as libc::c_uint,
        )
    })?;
    Ok(fd as libc::c_int)
}

/// Attach a tree from [`clone_tree`] at `path`.
pub(super) fn attach_tree(fd: libc::c_int, path: &CStr) -> io::Result<()> {
    // SAFETY: move_mount(2) with a valid fd and path.
    check_long(unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            fd,
            c"".as_ptr(),
            libc::AT_FDCWD,
            path.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    })?;
    // SAFETY: closing our own fd.
    unsafe { libc::close(fd) };
    Ok(())
}

/// `mkdir`, an existing directory being fine.
pub(super) fn mkdir(path: &CStr) -> io::Result<()> {
    // SAFETY: valid NUL-terminated string.
    if unsafe { libc::mkdir(path.as_ptr(), 0o755) } == -1 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EEXIST) {
            return Err(e);
        }
    }
    Ok(())
}

/// Set (or clear) the read-only flag of the mount at `path`, and of every
/// mount below it with `recursive`.
pub(super) fn set_readonly(path: &CStr, ro: bool, recursive: bool) -> io::Result<()> {
    let attr = MountAttr {
        attr_set: if ro { MOUNT_ATTR_RDONLY } else { 0 },
        attr_clr: if ro { 0 } else { MOUNT_ATTR_RDONLY },
        propagation: 0,
        userns_fd: 0,
    };
    let flags = if recursive { libc::AT_RECURSIVE } else { 0 };
    // SAFETY: mount_setattr(2) with a valid path and a correctly sized struct.
    check_long(unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            flags as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    })?;
    Ok(())
}

/// Give up every capability for good: empty the bounding set and set
/// `no_new_privs` (no setuid binary or file capability gives any back).
/// The effective set empties at `exec`, as the command runs as a non-zero
/// uid.
pub(super) fn drop_privileges() -> io::Result<()> {
    for cap in 0..64 {
        // SAFETY: prctl with integer arguments; EINVAL past the last cap.
        if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) } == -1 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINVAL) {
                break;
            }
            return Err(e);
        }
    }
    // SAFETY: prctl with integer arguments.
    check(unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        )
    })?;
    // SAFETY: prctl with integer arguments.
    check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })
}

fn die_with_parent() -> io::Result<()> {
    // SAFETY: prctl with integer arguments.
    check(unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) })
}

/// Close every descriptor: the waiting processes need none (and must not
/// hold the pipe through which `std` learns that `exec` happened).
fn close_all() {
    // SAFETY: close_range(2) on our own descriptor table.
    unsafe { libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) };
}

/// Wait for `pid`, retrying on EINTR; returns the raw wait status.
fn wait_for(pid: libc::pid_t) -> libc::c_int {
    let mut status = 0;
    loop {
        // SAFETY: waitpid with a valid out-pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid || (r == -1 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR)) {
            return status;
        }
    }
}

fn exit_code(status: libc::c_int) -> libc::c_int {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        1
    }
}

/// After `unshare(CLONE_NEWPID)`: fork the namespace's init, which forks
/// the command. Returns `Ok` only in the command's process (which then
/// execs); the two waiting processes never return:
///
/// - this process waits for init and exits with its status;
/// - init (PID 1) reaps every orphan until the command ends, then exits
///   with the command's status, and the kernel kills whatever else still
///   runs in the namespace (backgrounded jobs, daemons) before that exit
///   completes;
/// - init dies with this process, and the command with init
///   (`PR_SET_PDEATHSIG`), so `kill -9` of `stack` (whose worker thread is
///   this process's parent) takes the whole namespace down.
pub(super) fn fork_init() -> io::Result<()> {
    // SAFETY: fork in a single-threaded child; both sides only make syscalls.
    let init = unsafe { libc::fork() };
    if init == -1 {
        return Err(io::Error::last_os_error());
    }
    if init > 0 {
        close_all();
        let status = wait_for(init);
        // SAFETY: ending this process without running any Rust code.
        unsafe { libc::_exit(exit_code(status)) };
    }
    die_with_parent()?;
    // SAFETY: as above.
    let cmd = unsafe { libc::fork() };
    if cmd == -1 {
        return Err(io::Error::last_os_error());
    }
    if cmd == 0 {
        die_with_parent()?;
        return Ok(());
    }
    close_all();
    let status = loop {
        let mut status = 0;
        // SAFETY: waitpid with a valid out-pointer.
        let r = unsafe { libc::waitpid(-1, &mut status, 0) };
        if r == cmd {
            break status;
        }
        if r == -1 && io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD) {
            break 1 << 8;
        }
    };
    // SAFETY: as above.
    unsafe { libc::_exit(exit_code(status)) }
}
