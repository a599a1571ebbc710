//! The package.py files a package.py loads: `from
//! spack_repo.<ns>.packages.<dir>.package import X` (also `from ..<dir>.package`,
//! `from spack_repo.<ns>.packages.<dir> import package`, the pre-1.0
//! `spack.pkg.<ns>.<dir>`), followed transitively through every repository
//! of the import ([`Repos`]). A package whose build logic runs from its
//! package.py at build time needs them all beside it.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use crate::import::repos::Repos;
use crate::import::spack::directives::model::{Kind, Untranslated};

/// A package.py file and where it goes below `<repo>/spack/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageFile {
    /// `<namespace>/<dir>/package.py`.
    pub file: String,
    pub bytes: Vec<u8>,
}

impl PackageFile {
    pub fn new(namespace: &str, dir: &str, bytes: Vec<u8>) -> PackageFile {
        PackageFile {
            file: format!("{namespace}/{dir}/package.py"),
            bytes,
        }
    }

    pub fn sha256(&self) -> String {
        hex::encode(Sha256::digest(&self.bytes))
    }
}

/// One package module a package.py imports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleRef {
    /// 1-based line of the import.
    pub line: usize,
    /// `None`: relative (`from ..<dir>.package`), the importer's namespace.
    pub namespace: Option<String>,
    /// Spack's directory name (`py_numpy`).
    pub dir: String,
}

fn identifier(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The package module named by `module` (a dotted name as written after
/// `from`/`import`), if it is one.
fn package_module(module: &str) -> Option<(Option<String>, String)> {
    let module = module.strip_suffix(".package").unwrap_or(module);
    let (ns, dir) = if let Some(rest) = module.strip_prefix("spack_repo.") {
        let (ns, rest) = rest.split_once('.')?;
        (Some(ns), rest.strip_prefix("packages.")?)
    } else if let Some(rest) = module.strip_prefix("spack.pkg.") {
        let (ns, dir) = rest.split_once('.')?;
        (Some(ns), dir)
    } else if let Some(dir) = module.strip_prefix("..") {
        (None, dir)
    } else {
        return None;
    };
    let ok = identifier(dir) && ns.is_none_or(identifier);
    ok.then(|| (ns.map(str::to_string), dir.to_string()))
}

/// The package modules `src` imports, in file order.
pub fn imported_modules(src: &str) -> Vec<ModuleRef> {
    let mut out = Vec::new();
    for (i, line) in src.lines().enumerate() {
        let line = line.trim();
        let module = if let Some(rest) = line.strip_prefix("from ") {
            rest.split_whitespace().next()
        } else if let Some(rest) = line.strip_prefix("import ") {
            rest.split([',', ' ']).find(|s| !s.is_empty())
        } else {
            None
        };
        if let Some((namespace, dir)) = module.and_then(package_module) {
            out.push(ModuleRef {
                line: i + 1,
                namespace,
                dir,
            });
        }
    }
    out
}

/// The package.py files `src` (package `dir` of namespace `namespace`)
/// imports, transitively, sorted by file; an import that cannot be read
/// is reported (the package cannot run without it).
pub fn imported_files(
    namespace: &str,
    dir: &str,
    src: &str,
    repos: &Repos,
) -> (Vec<PackageFile>, Vec<Untranslated>) {
    let mut seen = BTreeSet::from([(namespace.to_string(), dir.to_string())]);
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let mut todo = vec![(namespace.to_string(), None::<String>, src.to_string())];
    while let Some((ns, from, text)) = todo.pop() {
        for m in imported_modules(&text) {
            let ns = m.namespace.clone().unwrap_or_else(|| ns.clone());
            if !seen.insert((ns.clone(), m.dir.clone())) {
                continue;
            }
            match read_module(repos, &ns, &m.dir) {
                Ok(bytes) => {
                    let next = String::from_utf8_lossy(&bytes).into_owned();
                    let file = PackageFile::new(&ns, &m.dir, bytes);
                    todo.push((ns, Some(file.file.clone()), next));
                    files.push(file);
                }
                Err(why) => {
                    let module = format!("spack_repo.{ns}.packages.{}.package", m.dir);
                    let (line, detail) = match &from {
                        None => (m.line, format!("{module}: {why}")),
                        Some(f) => (0, format!("{module} (imported by {f}): {why}")),
                    };
                    problems.push(Untranslated {
                        line,
                        kind: Kind::Build,
                        construct: IMPORT_MISSING.into(),
                        detail,
                    });
                }
            }
        }
    }
    files.sort_by(|a, b| a.file.cmp(&b.file));
    (files, problems)
}

/// The construct reported for an imported package module that cannot be read.
pub const IMPORT_MISSING: &str = "import of a package";

fn read_module(repos: &Repos, namespace: &str, dir: &str) -> Result<Vec<u8>, String> {
    let mut why = format!("no repository of the namespace `{namespace}` has it");
    // A directory without a `repo.yaml` that imports
    // `spack_repo.builtin.packages.x` from itself: its own, last.
    let own = (repos.own.namespace != namespace).then_some(&repos.own);
    for repo in repos.of(namespace).chain(own) {
        match repo.read(dir, "package.py") {
            Ok(bytes) => return Ok(bytes),
            Err(crate::import::confined::Refusal::Missing) => {}
            Err(r) => why = format!("{}/{dir}/package.py: {r}", repo.packages.display()),
        }
    }
    Err(why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::repos::SpackRepo;

    #[test]
    fn package_imports_in_every_spelling() {
        let src = "from spack_repo.builtin.packages.boost.package import Boost\n\
                   from spack_repo.builtin.build_systems.cmake import CMakePackage\n\
                   from ..pdi.package import Pdi\n\
                   from ..openfoam import package as openfoam\n\
                   from spack.pkg.builtin.kokkos import Kokkos\n\
                   import spack_repo.alps.packages.cray_mpich.package as cm\n\
                   from ../../../etc/x.package import X\n\
                   from spack.package import *\n";
        let refs = imported_modules(src);
        assert_eq!(refs.len(), 5, "{refs:?}");
        assert_eq!(refs[0].namespace.as_deref(), Some("builtin"));
        assert_eq!(refs[0].dir, "boost");
        assert_eq!(
            (refs[1].namespace.as_deref(), refs[1].dir.as_str()),
            (None, "pdi")
        );
        assert_eq!(refs[2].dir, "openfoam");
        assert_eq!(refs[3].dir, "kokkos");
        assert_eq!(refs[4].namespace.as_deref(), Some("alps"));
        assert_eq!(refs[4].line, 6);
    }

    #[test]
    fn imports_are_followed_transitively_across_repositories() {
        let d = tempfile::tempdir().unwrap();
        let write = |p: &str, text: &str| {
            let f = d.path().join(p);
            fs_err::create_dir_all(f.parent().unwrap()).unwrap();
            fs_err::write(f, text).unwrap();
        };
        write("site/repo.yaml", "repo:\n  namespace: alps\n");
        write("builtin/repo.yaml", "repo:\n  namespace: builtin\n");
        write(
            "site/packages/cray_mpich/package.py",
            "from spack_repo.builtin.packages.mpich.package import MpichEnv\n\
             from spack_repo.builtin.packages.nope.package import Nope\n",
        );
        write(
            "builtin/packages/mpich/package.py",
            "from ..mpich_base.package import Base\n",
        );
        write(
            "builtin/packages/mpich_base/package.py",
            "class Base: pass\n",
        );
        let repos = Repos {
            own: SpackRepo::at(&d.path().join("site/packages")),
            others: vec![SpackRepo::at(&d.path().join("builtin/packages"))],
        };
        let src =
            fs_err::read_to_string(d.path().join("site/packages/cray_mpich/package.py")).unwrap();
        let (files, problems) = imported_files("alps", "cray_mpich", &src, &repos);
        let names: Vec<&str> = files.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(
            names,
            ["builtin/mpich/package.py", "builtin/mpich_base/package.py"]
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].line, 2);
        assert!(
            problems[0].detail.contains("builtin.packages.nope"),
            "{problems:?}"
        );
    }
}
