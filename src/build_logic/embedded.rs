//! The layer's files, embedded at compile time, and writing them out.
//!
//! `build.rs` lists every file below `src/build_logic/python/` (without its
//! `tests/` directories and Python caches) into `$OUT_DIR/build_logic_files.rs`
//! as `include_bytes!` entries, so a new Python file needs no Rust edit, and
//! computes [`API_VERSION`] from their paths and contents.
//!
//! [`write_layer`] puts the tree at `<root>/<first 16 digits of API_VERSION>/`,
//! once: written into a temporary sibling, renamed into place, then made
//! read-only (files `0444`, directories `0555`). A later call compares the
//! files with the embedded ones and writes the tree again when they differ.
//! [`compile_layer`] adds the bytecode of an interpreter once (the layer
//! runs with `-B`, which reads bytecode but never writes it: without it
//! every package build would compile the layer again).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/build_logic_files.rs"));

/// The entry point of the layer, relative to its root.
pub const ENTRY: &str = "run.py";

/// The directory name of the written tree below the root given to
/// [`write_layer`].
pub fn layer_dir_name() -> &'static str {
    &API_VERSION[..16]
}

/// Whether `dir` holds exactly the embedded files (extra files are not
/// looked for: nothing writes there but [`write_layer`]).
fn matches(dir: &Path) -> bool {
    FILES
        .iter()
        .all(|(rel, bytes)| std::fs::read(dir.join(rel)).is_ok_and(|b| b == *bytes))
}

/// Make a tree writable again (to remove it) or read-only.
fn set_modes(dir: &Path, writable: bool) -> std::io::Result<()> {
    for e in walkdir::WalkDir::new(dir).contents_first(!writable) {
        let e = e.map_err(std::io::Error::other)?;
        let mode = match (e.file_type().is_dir(), writable) {
            (true, true) => 0o755,
            (true, false) => 0o555,
            (false, true) => 0o644,
            (false, false) => 0o444,
        };
        if !e.file_type().is_symlink() {
            fs_err::set_permissions(e.path(), std::fs::Permissions::from_mode(mode))?;
        }
    }
    Ok(())
}

fn remove(dir: &Path) -> std::io::Result<()> {
    if dir.exists() {
        set_modes(dir, true)?;
        fs_err::remove_dir_all(dir)?;
    }
    Ok(())
}

/// The layer written below `root` (created if needed); its directory.
pub fn write_layer(root: &Path) -> std::io::Result<PathBuf> {
    let dir = root.join(layer_dir_name());
    if dir.is_dir() && matches(&dir) {
        return Ok(dir);
    }
    fs_err::create_dir_all(root)?;
    remove(&dir)?;
    let tmp = tempfile::Builder::new()
        .prefix(".layer-")
        .tempdir_in(root)?;
    for (rel, bytes) in FILES {
        let path = tmp.path().join(rel);
        if let Some(parent) = path.parent() {
            fs_err::create_dir_all(parent)?;
        }
        fs_err::write(&path, bytes)?;
    }
    let tmp = tmp.keep();
    match fs_err::rename(&tmp, &dir) {
        Ok(()) => {}
        // Another build wrote it meanwhile.
        Err(_) if dir.is_dir() && matches(&dir) => {
            remove(&tmp)?;
            return Ok(dir);
        }
        Err(e) => {
            remove(&tmp)?;
            return Err(e);
        }
    }
    set_modes(&dir, false)?;
    Ok(dir)
}

/// The marker of bytecode compiled by `python` in a layer directory.
fn compiled_marker(dir: &Path, python: &Path) -> PathBuf {
    let key = super::files::sha256_hex(python.as_os_str().as_encoded_bytes());
    dir.join(format!(".compiled-{}", &key[..16]))
}

/// Compile the layer at `dir` ([`write_layer`]) to bytecode for `python`,
/// once (`python -I -m compileall -q`); the tree is read-only again after.
pub fn compile_layer(dir: &Path, python: &Path) -> std::io::Result<()> {
    let marker = compiled_marker(dir, python);
    if marker.exists() {
        return Ok(());
    }
    set_modes(dir, true)?;
    let out = std::process::Command::new(python)
        .args(["-I", "-m", "compileall", "-q"])
        .arg(dir)
        .stdin(std::process::Stdio::null())
        .output();
    let result = match out {
        Ok(o) if o.status.success() => fs_err::write(&marker, b""),
        Ok(o) => Err(std::io::Error::other(format!(
            "{} -m compileall: {}{}",
            python.display(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ))),
        Err(e) => Err(e),
    };
    set_modes(dir, false)?;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_version_is_a_sha256() {
        assert_eq!(API_VERSION.len(), 64);
        assert!(API_VERSION.bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[test]
    fn the_layer_is_written_once_read_only_and_repaired() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = write_layer(tmp.path()).unwrap();
        assert_eq!(dir, tmp.path().join(layer_dir_name()));
        assert!(matches(&dir));
        let mode = fs_err::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o555);
        for (rel, _) in FILES {
            let m = fs_err::metadata(dir.join(rel))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(m & 0o777, 0o444, "{rel}");
        }
        // Again: the same directory, nothing else below the root.
        assert_eq!(write_layer(tmp.path()).unwrap(), dir);
        let names: Vec<_> = fs_err::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        // A changed file is put back.
        if let Some((rel, bytes)) = FILES.first() {
            let p = dir.join(rel);
            set_modes(&dir, true).unwrap();
            fs_err::write(&p, b"changed").unwrap();
            assert!(!matches(&dir));
            write_layer(tmp.path()).unwrap();
            assert_eq!(fs_err::read(&p).unwrap(), *bytes);
        }
        set_modes(&dir, true).unwrap();
    }

    #[test]
    fn the_layer_is_compiled_once_per_interpreter() {
        let python = Path::new("/usr/bin/python3");
        if !python.is_file() {
            return; // the build tests run the layer with whatever Python there is
        }
        let tmp = tempfile::tempdir().unwrap();
        let dir = write_layer(tmp.path()).unwrap();
        compile_layer(&dir, python).unwrap();
        assert!(compiled_marker(&dir, python).is_file());
        let pyc = walkdir::WalkDir::new(&dir)
            .into_iter()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "pyc"))
            .count();
        assert!(pyc > 0 || FILES.is_empty());
        let mode = fs_err::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o555);
        // Still the embedded files: written again it is the same directory.
        assert_eq!(write_layer(tmp.path()).unwrap(), dir);
        compile_layer(&dir, python).unwrap();
        set_modes(&dir, true).unwrap();
    }
}
