//! Extended attributes of installed files. A manifest records none and an
//! image carries none (`mksquashfs -no-xattrs`), so a file that has one —
//! a file capability (`security.capability`), `user.*`, `trusted.*` — is
//! refused where a manifest is made or checked, never packed without it.
//! `security.selinux`, the label an SELinux host gives every file, is the
//! host's and not the file's: it is ignored.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Attributes that are the host's, not the file's.
pub const IGNORED: &[&str] = &["security.selinux"];

/// The largest attribute list read (the kernel's limit is 64 KiB).
const MAX_LIST: usize = 1 << 16;

/// The names of the extended attributes of `path` (not followed when it is
/// a link), without [`IGNORED`] ones; empty where the filesystem has none.
pub fn names(path: &Path) -> std::io::Result<Vec<String>> {
    let c = CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: `c` is NUL-terminated; a null buffer of size 0 asks for the size.
    let size = unsafe { libc::llistxattr(c.as_ptr(), std::ptr::null_mut(), 0) };
    if size < 0 {
        let e = std::io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::ENOTSUP) => Ok(Vec::new()),
            _ => Err(std::io::Error::new(
                e.kind(),
                format!("{}: listing extended attributes: {e}", path.display()),
            )),
        };
    }
    if size == 0 {
        return Ok(Vec::new());
    }
    let mut buf = vec![0u8; MAX_LIST];
    // SAFETY: `buf` is valid for `buf.len()` bytes.
    let n = unsafe { libc::llistxattr(c.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = std::io::Error::last_os_error();
        return Err(std::io::Error::new(
            e.kind(),
            format!("{}: listing extended attributes: {e}", path.display()),
        ));
    }
    buf.truncate(usize::try_from(n).unwrap_or(0));
    Ok(buf
        .split(|b| *b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .filter(|n| !IGNORED.contains(&n.as_str()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 40, item 8: an attribute is seen (where the filesystem keeps
    /// `user.*` ones), and the manifest of a prefix holding it is an error.
    #[test]
    fn a_file_with_an_attribute_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("tool");
        fs_err::write(&f, "x").unwrap();
        assert!(names(&f).unwrap().is_empty());
        let c = CString::new(f.as_os_str().as_bytes()).unwrap();
        let (k, v) = (c"user.stack-test", b"1");
        // SAFETY: valid NUL-terminated name and path, value of v.len() bytes.
        let r = unsafe { libc::lsetxattr(c.as_ptr(), k.as_ptr(), v.as_ptr().cast(), v.len(), 0) };
        if r != 0 {
            // This filesystem keeps no user attributes: nothing to see.
            tracing::warn!("skipped: {}", std::io::Error::last_os_error());
            return;
        }
        assert_eq!(names(&f).unwrap(), ["user.stack-test"]);
        let err = crate::store::manifest(d.path()).unwrap_err().to_string();
        assert!(
            err.contains("tool") && err.contains("user.stack-test"),
            "{err}"
        );
    }
}
