//! Package files: the `package.py` files a `spack` recipe runs, below the
//! repository's `spack/` directory (beside `recipes/`, as patches are below
//! `patches/`), laid out as Spack's repositories are:
//! `spack/<namespace>/<dir>/package.py` is the module
//! `spack_repo.<namespace>.packages.<dir>.package`.

use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use super::BuildLogicError;

/// The directory of package files beside a repository's `recipes/`.
pub const SPACK_DIR: &str = "spack";

/// One package file of a build job, checked against its sha256 before the
/// layer runs it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PackageFile {
    /// The module name (`spack_repo.builtin.packages.libpng.package`).
    pub module: String,
    /// The file, absolute.
    pub path: PathBuf,
    /// Its sha256 as the recipe states it.
    pub sha256: String,
}

/// Why a `file:` value does not name a package file.
pub fn layout_problem(rel: &str) -> Option<&'static str> {
    let p = Path::new(rel);
    if p.is_absolute() {
        return Some("an absolute path");
    }
    let parts: Vec<&str> = p
        .components()
        .map(|c| match c {
            Component::Normal(s) => s.to_str().unwrap_or(""),
            _ => "..",
        })
        .collect();
    if parts.contains(&"..") || parts.iter().any(|s| s.is_empty()) {
        return Some("a path with `..` or `.`");
    }
    if parts.len() != 3 || parts[2] != "package.py" {
        return Some("not `<namespace>/<directory>/package.py`");
    }
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    if !ident(parts[0]) || !ident(parts[1]) {
        return Some(
            "a namespace or directory that is not a Python identifier (Spack writes `py_numpy` for py-numpy)",
        );
    }
    None
}

/// The module of a package file given relative to `spack/`
/// (`builtin/libpng/package.py` → `spack_repo.builtin.packages.libpng.package`);
/// `None` when the path does not have that layout ([`layout_problem`]).
pub fn module_name(rel: &str) -> Option<String> {
    if layout_problem(rel).is_some() {
        return None;
    }
    let mut parts = rel.split('/');
    let ns = parts.next()?;
    let dir = parts.next()?;
    Some(format!("spack_repo.{ns}.packages.{dir}.package"))
}

/// The namespace of a package file given relative to `spack/`.
pub fn namespace(rel: &str) -> Option<&str> {
    module_name(rel).and_then(|_| rel.split('/').next())
}

/// The sha256 of a file's bytes, as lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The path below `spack/` of a package module
/// (`spack_repo.builtin.packages.libpng.package` → `builtin/libpng/package.py`).
pub fn relative_path(module: &str) -> PathBuf {
    let parts: Vec<&str> = module.split('.').collect();
    match parts[..] {
        ["spack_repo", ns, "packages", dir, "package"] => {
            Path::new(ns).join(dir).join("package.py")
        }
        _ => PathBuf::from(module.replace('.', "/") + ".py"),
    }
}

impl PackageFile {
    /// The file's bytes, checked against its sha256 (at build time;
    /// `stack check` does the same when it loads the recipe).
    pub fn checked_bytes(&self, package: &str) -> Result<Vec<u8>, BuildLogicError> {
        let bytes = fs_err::read(&self.path).map_err(|source| BuildLogicError::Unreadable {
            package: package.to_string(),
            path: self.path.clone(),
            source,
        })?;
        let found = sha256_hex(&bytes);
        if found != self.sha256 {
            return Err(BuildLogicError::Checksum {
                package: package.to_string(),
                path: self.path.clone(),
                expected: self.sha256.clone(),
                found,
            });
        }
        Ok(bytes)
    }

    /// Check the file against its sha256.
    pub fn verify(&self, package: &str) -> Result<(), BuildLogicError> {
        self.checked_bytes(package).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_follow_spacks_layout() {
        assert_eq!(
            module_name("builtin/py_numpy/package.py").as_deref(),
            Some("spack_repo.builtin.packages.py_numpy.package")
        );
        assert_eq!(namespace("alps/cray_mpich/package.py"), Some("alps"));
        for bad in [
            "/abs/x/package.py",
            "builtin/../x/package.py",
            "builtin/x/y/package.py",
            "builtin/py-numpy/package.py",
            "builtin/x/other.py",
            "x/package.py",
        ] {
            assert_eq!(module_name(bad), None, "{bad}");
            assert!(layout_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn modules_map_back_to_their_paths() {
        assert_eq!(
            relative_path("spack_repo.alps.packages.cray_mpich.package"),
            PathBuf::from("alps/cray_mpich/package.py")
        );
    }

    #[test]
    fn a_changed_file_fails_its_check() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("package.py");
        fs_err::write(&path, "class X: pass\n").unwrap();
        let mut f = PackageFile {
            module: "m".into(),
            path: path.clone(),
            sha256: sha256_hex(b"class X: pass\n"),
        };
        f.verify("x").unwrap();
        f.sha256 = sha256_hex(b"other");
        let e = f.verify("x").unwrap_err().to_string();
        assert!(e.contains("does not match its sha256"), "{e}");
        f.path = tmp.path().join("missing.py");
        let e = f.verify("x").unwrap_err().to_string();
        assert!(e.contains("cannot read package file"), "{e}");
    }
}
