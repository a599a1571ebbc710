//! Whether a file a recipe names stays below its directory (`patches/`,
//! `spack/`) also after following links: a recipe must not make `stack
//! check` read (and print the checksum of) any file it likes.

use std::path::{Component, Path};

/// Whether `path` stays below `dir` once links are followed; a path that
/// does not exist counts as below (its absence is reported on its own).
///
/// A path written below `dir` whose components below it are plain names
/// and none a link is below `dir` without resolving anything: checking
/// each component with one `lstat` costs a few system calls, where
/// resolving both paths in full costs one `readlink` per component of
/// each (a translated repository's load checks 1,800 patch files). A
/// link or a `..` below `dir` is resolved in full.
pub(super) fn stays_below(path: &Path, dir: &Path) -> bool {
    if let Some(plain) = plain_below(path, dir) {
        return plain;
    }
    match (path.canonicalize(), dir.canonicalize()) {
        (Ok(real), Ok(d)) => real.starts_with(d),
        _ => true,
    }
}

/// `Some(true)` when `path` is written below `dir` and no component below
/// `dir` is a link (or one is missing); `None` when it must be resolved.
fn plain_below(path: &Path, dir: &Path) -> Option<bool> {
    let rel = path.strip_prefix(dir).ok()?;
    let mut at = dir.to_path_buf();
    for c in rel.components() {
        let Component::Normal(name) = c else {
            return None;
        };
        at.push(name);
        match at.symlink_metadata() {
            Ok(m) if m.file_type().is_symlink() => return None,
            Ok(_) => {}
            Err(_) => return Some(true),
        }
    }
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn plain_names_links_inside_and_links_outside() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("patches");
        let outside = d.path().join("home");
        fs_err::create_dir_all(dir.join("zlib")).unwrap();
        fs_err::create_dir_all(&outside).unwrap();
        fs_err::write(dir.join("zlib/fix.patch"), "x").unwrap();
        fs_err::write(outside.join("secret"), "s").unwrap();
        symlink(dir.join("zlib/fix.patch"), dir.join("zlib/same.patch")).unwrap();
        symlink(outside.join("secret"), dir.join("zlib/leak.patch")).unwrap();
        symlink(&outside, dir.join("away")).unwrap();

        assert!(stays_below(&dir.join("zlib/fix.patch"), &dir));
        assert!(stays_below(&dir.join("zlib/same.patch"), &dir));
        assert!(stays_below(&dir.join("zlib/missing.patch"), &dir));
        assert!(!stays_below(&dir.join("zlib/leak.patch"), &dir));
        assert!(!stays_below(&dir.join("away/secret"), &dir));
        assert!(!stays_below(&dir.join("zlib/../../home/secret"), &dir));
        assert!(stays_below(&dir.join("zlib/../zlib/fix.patch"), &dir));
    }

    /// The directory itself may be a link: what is below it is below it.
    #[test]
    fn a_linked_directory_holds_what_is_below_it() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real");
        fs_err::create_dir_all(real.join("zlib")).unwrap();
        fs_err::write(real.join("zlib/fix.patch"), "x").unwrap();
        let dir = d.path().join("patches");
        symlink(&real, &dir).unwrap();
        assert!(stays_below(&dir.join("zlib/fix.patch"), &dir));
        symlink(real.join("zlib/fix.patch"), real.join("zlib/in.patch")).unwrap();
        assert!(stays_below(&dir.join("zlib/in.patch"), &dir));
    }
}
