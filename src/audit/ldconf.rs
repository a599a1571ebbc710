//! `ld.so.conf` fallback for targets without an `ld.so.cache`.
//!
//! The loader itself never reads `ld.so.conf`; ldconfig turns it into the
//! cache. When the target has no cache file we imitate ldconfig: collect the
//! directories (following `include` globs), read the libraries in them and
//! key each by its `DT_SONAME` (falling back to the file name), which is what
//! the loader would later find by name.

use std::path::{Path, PathBuf};

use super::elf;
use super::fs::{Lookup, NodeKind, Vfs};

/// Directories named by the configuration file `conf` (a virtual path),
/// in order, following `include` lines (globs, relative to the file's
/// directory). `hwcap` lines are ignored, as ldconfig ≥ 2.37 does.
pub fn conf_dirs(vfs: &Vfs, conf: &Path) -> Vec<String> {
    let mut out = Vec::new();
    read_conf(vfs, conf, &mut out, 0);
    out
}

fn read_conf(vfs: &Vfs, conf: &Path, out: &mut Vec<String>, depth: u32) {
    if depth > 16 {
        return;
    }
    let Lookup::File(real) = vfs.lookup(conf) else {
        return;
    };
    let Ok(bytes) = vfs.read_all(&real) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    let base = conf.parent().unwrap_or(Path::new("/")).to_path_buf();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(pat) = line.strip_prefix("include") {
            if !pat.starts_with(char::is_whitespace) {
                continue;
            }
            for pat in pat.split_whitespace() {
                let full = if pat.starts_with('/') {
                    PathBuf::from(pat)
                } else {
                    base.join(pat)
                };
                for f in glob_files(vfs, &full) {
                    read_conf(vfs, &f, out, depth + 1);
                }
            }
            continue;
        }
        if line.starts_with("hwcap") {
            continue;
        }
        for d in line.split([':', ',', '\t', ' ']).filter(|d| !d.is_empty()) {
            let d = d.split('=').next().unwrap_or(d); // old "dir=TYPE" syntax
            let d = d.trim_end_matches('/');
            if !out.iter().any(|x| x == d) {
                out.push(d.to_string());
            }
        }
    }
}

/// Files matching a glob whose wildcards are only in the last component.
fn glob_files(vfs: &Vfs, pattern: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (pattern.parent(), pattern.file_name()) else {
        return Vec::new();
    };
    let Ok(glob) = globset::Glob::new(&name.to_string_lossy()) else {
        return Vec::new();
    };
    let m = glob.compile_matcher();
    let Lookup::Dir(cdir) = vfs.lookup_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = vfs
        .read_dir(&cdir)
        .into_iter()
        .filter(|(n, k)| *k != NodeKind::Dir && m.is_match(n))
        .map(|(n, _)| dir.join(n))
        .collect();
    out.sort();
    out
}

/// (name, path) pairs ldconfig would put into the cache for these
/// directories: every ELF shared object keyed by its soname (or file name).
pub fn scan(vfs: &Vfs, dirs: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for d in dirs {
        let Lookup::Dir(cdir) = vfs.lookup_dir(Path::new(d)) else {
            continue;
        };
        for (name, _) in vfs.read_dir(&cdir) {
            let name = name.to_string_lossy().into_owned();
            if !name.starts_with("lib") || !name.contains(".so") {
                continue;
            }
            let Lookup::File(real) = vfs.lookup_in(&cdir, &name) else {
                continue;
            };
            let Ok(mut loaded) = vfs.load(&real) else {
                continue;
            };
            let Some(info) = elf::parse_from(&mut loaded.data, false) else {
                continue;
            };
            if info.kind() != elf::ElfKind::Library && info.kind() != elf::ElfKind::Executable {
                continue;
            }
            let key = info.soname.clone().unwrap_or_else(|| name.clone());
            let path = format!("{}/{}", d.trim_end_matches('/'), key);
            if !out
                .iter()
                .any(|(k, p): &(String, String)| *k == key && *p == path)
            {
                out.push((key, path));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::fs::HostDir;

    #[test]
    fn follows_includes() {
        let t = tempfile::tempdir().unwrap();
        let etc = t.path().join("etc");
        fs_err::create_dir_all(etc.join("ld.so.conf.d")).unwrap();
        fs_err::write(
            etc.join("ld.so.conf"),
            "include /etc/ld.so.conf.d/*.conf\n/opt/a # comment\n",
        )
        .unwrap();
        fs_err::write(
            etc.join("ld.so.conf.d/b.conf"),
            "/opt/b/\nhwcap 0 nosegneg\n",
        )
        .unwrap();
        fs_err::write(etc.join("ld.so.conf.d/a.conf"), "/opt/c:/opt/a\n").unwrap();
        fs_err::write(etc.join("ld.so.conf.d/x.txt"), "/opt/no\n").unwrap();
        let vfs = Vfs::new(Box::new(HostDir::new(t.path())));
        assert_eq!(
            conf_dirs(&vfs, Path::new("/etc/ld.so.conf")),
            vec!["/opt/c", "/opt/a", "/opt/b"]
        );
    }
}
