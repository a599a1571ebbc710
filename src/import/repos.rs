//! The Spack repositories an import reads: the one it converts and the
//! others its package.py files import from (a site repository's
//! `cray_mpich` imports `spack_repo.builtin.packages.mpich.package`).
//! Each has a namespace (its `repo.yaml`'s `repo: namespace:`) and a
//! directory of `<dir>/package.py`.

use std::path::{Path, PathBuf};

use super::confined::{self, Refusal};

/// The namespace of a repository without a `repo.yaml`: stackinator puts a
/// recipe's `repo/` packages in the `alps` namespace.
pub const DEFAULT_NAMESPACE: &str = "alps";

/// One Spack package repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpackRepo {
    /// `builtin`, `alps`.
    pub namespace: String,
    /// The directory holding `<dir>/package.py`.
    pub packages: PathBuf,
}

impl SpackRepo {
    /// The repository whose packages directory is `packages` (found with
    /// [`super::packages_dir`]).
    pub fn at(packages: &Path) -> SpackRepo {
        SpackRepo {
            namespace: namespace_of(packages),
            packages: packages.to_path_buf(),
        }
    }

    /// The bytes of `<dir>/<rel>` of this repository, read strictly below
    /// the package's directory (see [`confined`]).
    pub fn read(&self, dir: &str, rel: &str) -> Result<Vec<u8>, Refusal> {
        if !confined::plain_name(dir) {
            return Err(Refusal::NotPlain);
        }
        confined::plain(rel)?;
        confined::read_below(&self.packages, &format!("{dir}/{rel}"))
    }
}

/// The namespace in `<packages>/../repo.yaml` (`repo:\n  namespace: alps`),
/// else [`DEFAULT_NAMESPACE`].
fn namespace_of(packages: &Path) -> String {
    let yaml = packages
        .parent()
        .map(|p| p.join("repo.yaml"))
        .and_then(|f| super::git_tree::read(&f).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    yaml.as_deref()
        .and_then(namespace_in)
        .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string())
}

fn namespace_in(text: &str) -> Option<String> {
    let value = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .find_map(|l| l.trim().strip_prefix("namespace:"))?;
    let value = value.split('#').next().unwrap_or("").trim();
    let value = value.trim_matches(|c| c == '"' || c == '\'');
    let ok = !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then(|| value.to_string())
}

/// The repository being imported and the others, searched by namespace.
#[derive(Clone, Debug)]
pub struct Repos {
    pub own: SpackRepo,
    pub others: Vec<SpackRepo>,
}

impl Repos {
    /// The repositories of `namespace`, the imported one first.
    pub fn of<'a>(&'a self, namespace: &'a str) -> impl Iterator<Item = &'a SpackRepo> + 'a {
        std::iter::once(&self.own)
            .chain(&self.others)
            .filter(move |r| r.namespace == namespace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_come_from_repo_yaml() {
        assert_eq!(
            namespace_in("repo:\n  namespace: alps\n  api: v2.2\n").as_deref(),
            Some("alps")
        );
        assert_eq!(
            namespace_in("repo:\n  namespace: 'builtin' # ours\n").as_deref(),
            Some("builtin")
        );
        assert_eq!(namespace_in("repo:\n  namespace: ../x\n"), None);
        let d = tempfile::tempdir().unwrap();
        fs_err::create_dir_all(d.path().join("packages")).unwrap();
        assert_eq!(SpackRepo::at(&d.path().join("packages")).namespace, "alps");
        fs_err::write(d.path().join("repo.yaml"), "repo:\n  namespace: site\n").unwrap();
        assert_eq!(SpackRepo::at(&d.path().join("packages")).namespace, "site");
    }
}
