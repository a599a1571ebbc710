//! `stack compiler find`: the C/C++/Fortran compilers on a search path,
//! as `compilers:` entries of a cluster configuration.
//!
//! A family (`gcc`, `clang`) is found by its C compiler (`gcc`, `gcc-12`,
//! `clang`, `clang-18`); its C++ and Fortran compilers are the same name
//! with `g++`/`gfortran` (`clang++`, `flang`) in the same directory. The
//! version is what the compiler prints for `-dumpfullversion` (gcc) or
//! `-dumpversion`; two names that are the same file are listed once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One compiler installation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundCompiler {
    /// `gcc` or `clang`.
    pub family: &'static str,
    pub version: String,
    pub cc: PathBuf,
    pub cxx: Option<PathBuf>,
    pub fc: Option<PathBuf>,
}

impl FoundCompiler {
    /// The `compilers:` entry (YAML flow mapping).
    pub fn yaml(&self) -> String {
        let mut s = format!(
            "{{spec: {}@{}, cc: {}",
            self.family,
            self.version,
            self.cc.display()
        );
        if let Some(p) = &self.cxx {
            s.push_str(&format!(", cxx: {}", p.display()));
        }
        if let Some(p) = &self.fc {
            s.push_str(&format!(", fc: {}", p.display()));
        }
        s.push('}');
        s
    }
}

/// (C name prefix, C++ name, Fortran name, family).
const FAMILIES: [(&str, &str, &str, &str); 2] = [
    ("gcc", "g++", "gfortran", "gcc"),
    ("clang", "clang++", "flang", "clang"),
];

/// The compilers in `dirs` (a search path, in order), first found first.
pub fn find_compilers(dirs: &[PathBuf]) -> Vec<FoundCompiler> {
    let mut out: Vec<FoundCompiler> = Vec::new();
    let mut seen: BTreeSet<(PathBuf, String)> = BTreeSet::new();
    for dir in dirs {
        let Ok(entries) = fs_err::read_dir(dir) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            for (c, cxx, fc, family) in FAMILIES {
                let Some(suffix) = name.strip_prefix(c) else {
                    continue;
                };
                // `gcc`, `gcc-12`, `gcc-12.2`; not `gcc-ar`, `gcc-nm-12`.
                if !(suffix.is_empty()
                    || suffix.strip_prefix('-').is_some_and(|v| {
                        !v.is_empty() && v.chars().all(|ch| ch.is_ascii_digit() || ch == '.')
                    }))
                {
                    continue;
                }
                let cc = dir.join(&name);
                let Some(version) = version_of(&cc, family) else {
                    continue;
                };
                let real = cc.canonicalize().unwrap_or_else(|_| cc.clone());
                if !seen.insert((real, version.clone())) {
                    continue;
                }
                let sibling = |base: &str| {
                    let p = dir.join(format!("{base}{suffix}"));
                    p.is_file().then_some(p)
                };
                out.push(FoundCompiler {
                    family,
                    version,
                    cc,
                    cxx: sibling(cxx),
                    fc: sibling(fc),
                });
            }
        }
    }
    out
}

/// The search path of this process (`PATH`).
pub fn path_dirs() -> Vec<PathBuf> {
    crate::settings::search_path()
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default()
}

fn version_of(cc: &Path, family: &str) -> Option<String> {
    let flag = if family == "gcc" {
        "-dumpfullversion"
    } else {
        "-dumpversion"
    };
    let out = Command::new(cc).arg(flag).output().ok()?;
    let v = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && v.chars().next().is_some_and(|c| c.is_ascii_digit())).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_this_machines_gcc_once_with_its_version() {
        let gcc = PathBuf::from("/usr/bin/gcc");
        if !gcc.is_file() {
            return;
        }
        let want = Command::new(&gcc).arg("-dumpfullversion").output().unwrap();
        let want = String::from_utf8(want.stdout).unwrap().trim().to_string();
        // A directory with gcc under two names (one a symlink), g++, and
        // names that are not compilers.
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::os::unix::fs::symlink(&gcc, d.join("gcc")).unwrap();
        std::os::unix::fs::symlink(&gcc, d.join("gcc-99")).unwrap();
        std::os::unix::fs::symlink("/usr/bin/g++", d.join("g++")).unwrap();
        fs_err::write(d.join("gcc-ar"), "").unwrap();
        let found = find_compilers(&[d.to_path_buf()]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].version, want);
        assert_eq!(found[0].cxx, Some(d.join("g++")));
        assert_eq!(
            found[0].yaml(),
            format!(
                "{{spec: gcc@{want}, cc: {0}/gcc, cxx: {0}/g++}}",
                d.display()
            )
        );
    }
}
