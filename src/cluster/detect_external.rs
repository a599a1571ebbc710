//! `stack external find`: installations of packages on this system, as
//! `packages:` externals of a cluster configuration.
//!
//! Two probes, in order: `pkg-config` (the package name as module:
//! `--modversion` and `--variable=prefix`), then an executable of that name
//! on the search path (`NAME --version`, the first dotted number in its
//! output; the prefix is the directory above `bin/`). Python is looked for
//! as `python3`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One detected installation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundExternal {
    pub package: String,
    pub version: String,
    pub prefix: PathBuf,
    /// How it was found: `pkg-config` or the executable's path.
    pub how: String,
}

impl FoundExternal {
    /// The `packages:` entry (YAML, one line).
    pub fn yaml(&self) -> String {
        format!(
            "{}: {{externals: [{{spec: {}@{}, prefix: {}}}]}}",
            self.package,
            self.package,
            self.version,
            self.prefix.display()
        )
    }
}

/// Look for `package` with pkg-config, then on `path`.
pub fn find_external(package: &str, path: &[PathBuf]) -> Option<FoundExternal> {
    by_pkg_config(package).or_else(|| by_executable(package, path))
}

fn by_pkg_config(package: &str) -> Option<FoundExternal> {
    let run = |args: &[&str]| -> Option<String> {
        let out = Command::new("pkg-config").args(args).output().ok()?;
        let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (out.status.success() && !s.is_empty()).then_some(s)
    };
    let version = run(&["--modversion", package])?;
    let prefix = run(&["--variable=prefix", package])?;
    Some(FoundExternal {
        package: package.to_string(),
        version: first_version(&version)?,
        prefix: PathBuf::from(prefix),
        how: "pkg-config".into(),
    })
}

fn by_executable(package: &str, path: &[PathBuf]) -> Option<FoundExternal> {
    let exe_name = if package == "python" {
        "python3"
    } else {
        package
    };
    let exe = path
        .iter()
        .map(|d| d.join(exe_name))
        .find(|p| p.is_file())?;
    let out = Command::new(&exe).arg("--version").output().ok()?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let version = text.lines().find_map(first_version)?;
    let bin = exe.parent()?;
    let prefix = if bin.file_name().is_some_and(|n| n == "bin") {
        bin.parent().unwrap_or(Path::new("/")).to_path_buf()
    } else {
        bin.to_path_buf()
    };
    Some(FoundExternal {
        package: package.to_string(),
        version,
        prefix,
        how: exe.display().to_string(),
    })
}

/// The first `N.N[.N…]` in `text` (`cmake version 3.25.1` → `3.25.1`).
pub fn first_version(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // A number starts after a non-word character, or after a `v` that
        // does (`v5.36.0`); not inside `x86_64` or after a dot.
        let boundary = |j: usize| {
            j == 0
                || !(bytes[j - 1].is_ascii_alphanumeric()
                    || bytes[j - 1] == b'.'
                    || bytes[j - 1] == b'_')
        };
        let starts = bytes[i].is_ascii_digit()
            && (boundary(i) || (i > 0 && bytes[i - 1] == b'v' && boundary(i - 1)));
        if starts {
            let end = text[i..]
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .map_or(text.len(), |e| i + e);
            let v = text[i..end].trim_end_matches('.');
            if v.contains('.') {
                return Some(v.to_string());
            }
            i = end;
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_the_first_dotted_number() {
        assert_eq!(
            first_version("cmake version 3.25.1").as_deref(),
            Some("3.25.1")
        );
        assert_eq!(first_version("Python 3.11.2").as_deref(), Some("3.11.2"));
        assert_eq!(
            first_version("m4 (GNU M4) 1.4.19").as_deref(),
            Some("1.4.19")
        );
        assert_eq!(first_version("1.11.1").as_deref(), Some("1.11.1"));
        assert_eq!(
            first_version("This is perl 5, version 36, subversion 0 (v5.36.0)").as_deref(),
            Some("5.36.0")
        );
        assert_eq!(first_version("x86_64 v2 build 12"), None);
    }

    #[test]
    fn finds_cmake_on_the_path_and_zlib_with_pkg_config() {
        let usr_bin = PathBuf::from("/usr/bin");
        if usr_bin.join("cmake").is_file() {
            let want = Command::new("/usr/bin/cmake")
                .arg("--version")
                .output()
                .unwrap();
            let want = first_version(&String::from_utf8_lossy(&want.stdout)).unwrap();
            let found = find_external("cmake", std::slice::from_ref(&usr_bin)).expect("cmake");
            assert_eq!(found.version, want);
            assert_eq!(found.prefix, PathBuf::from("/usr"));
            assert_eq!(found.how, "/usr/bin/cmake");
            assert_eq!(
                found.yaml(),
                format!("cmake: {{externals: [{{spec: cmake@{want}, prefix: /usr}}]}}")
            );
        }
        if let Some(z) = by_pkg_config("zlib") {
            assert_eq!(z.how, "pkg-config");
            assert!(z.version.contains('.'));
        }
        assert_eq!(
            find_external("surely-not-installed-anywhere", &[usr_bin]),
            None
        );
    }
}
