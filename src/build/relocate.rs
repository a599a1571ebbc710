//! Relocation of an installed tree (prebuilt `binary` packages such as
//! cray-mpich): RPATHs, extra `NEEDED` entries, placeholders.
//!
//! - Every dynamic ELF file (executable or shared object; not `.o`, not
//!   static) gets `patchelf --force-rpath --set-rpath` with: its existing
//!   `$ORIGIN…` entries, the prefix's own `lib`/`lib64`, then the listed
//!   dependency directories — those that exist. `--force-rpath` writes
//!   `DT_RPATH`, which the loader searches before `LD_LIBRARY_PATH`.
//! - `needed` rules run `patchelf --add-needed` on matching files (skipping
//!   names already needed).
//! - Placeholders (`@@PREFIX@@`) are replaced in every file that is not ELF
//!   and has no NUL byte (scripts, `.pc` files, wrappers); binaries are left
//!   alone because a replacement would change their length.
//!
//! File modes are kept; read-only files are made writable for the edit.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use globset::GlobBuilder;

use super::command::Runner;
use super::env::PathMap;
use super::error::PackageError;
use super::job::Relocation;
use crate::store::walk_prefix;

/// What relocation changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relocated {
    pub rpath_set: usize,
    pub needed_added: usize,
    pub placeholder_files: usize,
}

struct ElfInfo {
    dynamic: bool,
    rpaths: Vec<String>,
    needed: Vec<String>,
}

fn elf_info(path: &Path) -> Result<Option<ElfInfo>, PackageError> {
    use std::io::Read;
    let mut f = fs_err::File::open(path)?;
    let mut magic = [0u8; 4];
    if f.read(&mut magic)? < 4 || &magic != b"\x7fELF" {
        return Ok(None);
    }
    let file = f.into_parts().0;
    // SAFETY: the file is ours (below the prefix being built) and not modified while mapped.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| PackageError::Relocate {
        file: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let elf = match goblin::elf::Elf::parse(&map) {
        Ok(e) => e,
        Err(e) => {
            tracing::debug!(
                "{}: not a parseable ELF file ({e}); left alone",
                path.display()
            );
            return Ok(None);
        }
    };
    let ty = elf.header.e_type;
    let dynamic = elf.dynamic.is_some()
        && (ty == goblin::elf::header::ET_EXEC || ty == goblin::elf::header::ET_DYN);
    let mut rpaths: Vec<String> = Vec::new();
    for r in elf.rpaths.iter().chain(elf.runpaths.iter()) {
        for part in r.split(':') {
            rpaths.push(part.to_string());
        }
    }
    Ok(Some(ElfInfo {
        dynamic,
        rpaths,
        needed: elf.libraries.iter().map(|s| s.to_string()).collect(),
    }))
}

/// How RPATHs are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RpathMode {
    /// Replace: keep `$ORIGIN` entries, then the given dirs (prebuilt trees).
    Replace,
    /// Ensure: keep every entry, append the given dirs that are missing
    /// (compiled trees whose install step dropped wrapper RPATHs — meson and
    /// CMake rewrite RPATHs at install time). Files without `NEEDED` entries
    /// are left alone.
    Ensure,
}

/// Relocate the tree at `host_prefix` (logical prefix `prefix`).
pub fn relocate(
    rel: &Relocation,
    prefix: &Path,
    host_prefix: &Path,
    map: &PathMap,
    runner: &Runner<'_>,
) -> Result<Relocated, PackageError> {
    let dirs = existing_dirs(
        [prefix.join("lib"), prefix.join("lib64")]
            .into_iter()
            .chain(rel.rpath.iter().cloned()),
        map,
    );
    fix_tree(
        rel,
        RpathMode::Replace,
        &dirs,
        &|_| false,
        host_prefix,
        runner,
    )
}

/// Make sure every dynamic ELF file with `NEEDED` entries below
/// `host_prefix` has all of `rpaths` (those that exist) in its RPATH, and
/// no entry below the mount point that names no directory (the wrapper
/// adds `<prefix>/lib64` before knowing whether the install creates it),
/// nor any entry in `build_dir` outside the mount point: the stage, its
/// build tree and its `host-libc` links are gone once the build ends, yet
/// CMake's `CMAKE_INSTALL_RPATH_USE_LINK_PATH` puts the directory of every
/// library linked by path there (`find_library(m)` answers from the
/// stage's `host-libc`).
pub fn ensure_rpaths(
    rpaths: &[PathBuf],
    host_prefix: &Path,
    build_dir: &Path,
    map: &PathMap,
    runner: &Runner<'_>,
) -> Result<Relocated, PackageError> {
    let dirs = existing_dirs(rpaths.iter().cloned(), map);
    let absent = |entry: &str| {
        let p = Path::new(entry);
        let in_mount = p.starts_with(&map.mount);
        p.is_absolute()
            && ((in_mount && !map.to_host(p).is_dir()) || (!in_mount && p.starts_with(build_dir)))
    };
    fix_tree(
        &Relocation::default(),
        RpathMode::Ensure,
        &dirs,
        &absent,
        host_prefix,
        runner,
    )
}

fn existing_dirs(dirs: impl Iterator<Item = PathBuf>, map: &PathMap) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for d in dirs {
        if map.to_host(&d).is_dir() && !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// The new RPATH entries of a file, or `None` when nothing changes.
/// `absent` tells entries to drop (Ensure mode).
fn new_rpath(
    mode: RpathMode,
    current: &[String],
    dirs: &[PathBuf],
    absent: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let mut entries: Vec<String> = match mode {
        RpathMode::Replace if dirs.is_empty() => return None,
        RpathMode::Replace => current
            .iter()
            .filter(|r| r.starts_with("$ORIGIN") || r.starts_with("${ORIGIN}"))
            .cloned()
            .collect(),
        RpathMode::Ensure => current
            .iter()
            .filter(|r| !r.is_empty() && !absent(r))
            .cloned()
            .collect(),
    };
    for d in dirs {
        let s = d.to_string_lossy().into_owned();
        if !entries.contains(&s) {
            entries.push(s);
        }
    }
    let new = entries.join(":");
    (current.join(":") != new).then_some(new)
}

fn fix_tree(
    rel: &Relocation,
    mode: RpathMode,
    dirs: &[PathBuf],
    absent: &dyn Fn(&str) -> bool,
    host_prefix: &Path,
    runner: &Runner<'_>,
) -> Result<Relocated, PackageError> {
    let needed_rules = rel
        .needed
        .iter()
        .map(|n| {
            GlobBuilder::new(&n.files)
                .literal_separator(true)
                .build()
                .map(|g| (g.compile_matcher(), &n.add))
                .map_err(|e| PackageError::BadPattern {
                    pattern: n.files.clone(),
                    message: e.to_string(),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let placeholders: Vec<(&String, &String)> = rel.placeholders.iter().collect();
    let mut out = Relocated::default();
    for entry in walk_prefix(host_prefix) {
        let entry = entry.map_err(|e| std::io::Error::other(e.to_string()))?;
        if !entry.file_type().is_file() {
            continue;
        }
        let path = entry.path();
        let relpath = path.strip_prefix(host_prefix).expect("below root");
        match elf_info(path)? {
            Some(info) if info.dynamic => {
                // One patchelf call per kind of edit: patchelf 0.14 corrupts
                // the RPATH when --set-rpath and --add-needed are combined.
                let mut calls: Vec<Vec<String>> = Vec::new();
                let wants_rpath = mode == RpathMode::Replace || !info.needed.is_empty();
                if let Some(new) =
                    new_rpath(mode, &info.rpaths, dirs, absent).filter(|_| wants_rpath)
                {
                    calls.push(match new.is_empty() {
                        // every entry was an absent directory
                        true => vec!["--remove-rpath".into()],
                        false => vec!["--force-rpath".into(), "--set-rpath".into(), new],
                    });
                    out.rpath_set += 1;
                }
                let mut add: Vec<String> = Vec::new();
                for (glob, libs) in &needed_rules {
                    if glob.is_match(relpath) {
                        for lib in libs.iter() {
                            if !info.needed.contains(lib) && !add.contains(lib) {
                                add.push(lib.clone());
                            }
                        }
                    }
                }
                for lib in add {
                    calls.push(vec!["--add-needed".into(), lib]);
                    out.needed_added += 1;
                }
                for args in calls {
                    let mut argv = vec!["patchelf".to_string()];
                    argv.extend(args);
                    argv.push(path.to_string_lossy().into_owned());
                    with_write_permission(path, || runner.run_with(&argv, host_prefix, false))?;
                }
            }
            Some(_) => {}
            None => {
                if !placeholders.is_empty() && replace_placeholders(path, &placeholders)? {
                    out.placeholder_files += 1;
                }
            }
        }
    }
    Ok(out)
}

pub(super) fn with_write_permission<T>(
    path: &Path,
    f: impl FnOnce() -> Result<T, PackageError>,
) -> Result<T, PackageError> {
    let mode = fs_err::metadata(path)?.permissions().mode();
    if mode & 0o200 != 0 {
        return f();
    }
    fs_err::set_permissions(path, std::fs::Permissions::from_mode(mode | 0o200))?;
    let r = f();
    fs_err::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    r
}

/// Replace placeholders in a text file; true when it changed.
fn replace_placeholders(
    path: &Path,
    placeholders: &[(&String, &String)],
) -> Result<bool, PackageError> {
    let bytes = fs_err::read(path)?;
    if bytes.contains(&0) {
        return Ok(false);
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return Ok(false);
    };
    let mut new = text.clone();
    for (from, to) in placeholders {
        if new.contains(from.as_str()) {
            new = new.replace(from.as_str(), to);
        }
    }
    if new == text {
        return Ok(false);
    }
    with_write_permission(path, || Ok(fs_err::write(path, new.as_bytes())?))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpath_modes() {
        let cur = vec!["$ORIGIN/../lib".to_string(), "/vendor/lib".to_string()];
        let dirs = vec![PathBuf::from("/m/a/lib"), PathBuf::from("/m/b/lib")];
        let none = |_: &str| false;
        assert_eq!(
            new_rpath(RpathMode::Replace, &cur, &dirs, &none).unwrap(),
            "$ORIGIN/../lib:/m/a/lib:/m/b/lib"
        );
        assert_eq!(
            new_rpath(RpathMode::Ensure, &cur, &dirs, &none).unwrap(),
            "$ORIGIN/../lib:/vendor/lib:/m/a/lib:/m/b/lib"
        );
        let done = vec!["/m/a/lib".to_string(), "/m/b/lib".to_string()];
        assert_eq!(new_rpath(RpathMode::Ensure, &done, &dirs, &none), None);
        assert_eq!(new_rpath(RpathMode::Ensure, &done, &[], &none), None);
        // An entry below the mount that names no directory goes.
        let lib64 = |e: &str| e == "/m/a/lib64";
        let cur = vec!["/m/a/lib".to_string(), "/m/a/lib64".to_string()];
        assert_eq!(
            new_rpath(RpathMode::Ensure, &cur, &[], &lib64).unwrap(),
            "/m/a/lib"
        );
    }

    #[test]
    fn placeholders_in_text_only() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("mpicc");
        fs_err::write(&t, "prefix=@@PREFIX@@\ncc=@@CC@@\n").unwrap();
        fs_err::set_permissions(&t, std::fs::Permissions::from_mode(0o555)).unwrap();
        let b = d.path().join("blob");
        fs_err::write(&b, b"@@PREFIX@@\0").unwrap();
        let p1 = "@@PREFIX@@".to_string();
        let v1 = "/m/mpich".to_string();
        let p2 = "@@CC@@".to_string();
        let v2 = "gcc".to_string();
        let ph = [(&p1, &v1), (&p2, &v2)];
        assert!(replace_placeholders(&t, &ph).unwrap());
        assert_eq!(
            fs_err::read_to_string(&t).unwrap(),
            "prefix=/m/mpich\ncc=gcc\n"
        );
        assert_eq!(
            fs_err::metadata(&t).unwrap().permissions().mode() & 0o777,
            0o555
        );
        assert!(!replace_placeholders(&b, &ph).unwrap());
    }
}
