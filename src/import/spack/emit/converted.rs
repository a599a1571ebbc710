//! One converted package: its recipe, what was left untranslated, the
//! files to write beside it, or why no recipe is written.

use crate::import::spack::directives::model::{Kind, Untranslated};
use crate::import::spack::emit::package_files;
use crate::import::yaml_out::Yaml;

/// Where a package.py came from, for the `imported:` block.
#[derive(Clone, Debug, Default)]
pub struct Origin {
    /// Path of package.py relative to the spack-packages checkout.
    pub file: String,
    /// The checkout's commit, if it is a git repository.
    pub commit: Option<String>,
}

/// One converted package.
#[derive(Clone, Debug)]
pub struct Converted {
    pub name: String,
    pub recipe: Yaml,
    pub untranslated: Vec<Untranslated>,
    /// Spack's build system of the translated build section.
    pub build_system: String,
    /// Patch files to copy: (name below `patches/<name>/`, bytes).
    pub patch_files: Vec<(String, Vec<u8>)>,
    /// package.py files to copy below `spack/` (a `system: spack` recipe's
    /// package and its imports, [`super::build_logic`]).
    pub package_files: Vec<package_files::PackageFile>,
    /// Why no recipe is written for the package (a virtual placeholder, no
    /// version the stack can fetch): it is reported instead.
    pub not_written: Option<NotWritten>,
}

/// Why a package gets no recipe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotWritten {
    /// `virtual = True` (spack-packages' `c`, `cxx`, `fortran`, `mpi`): a
    /// name for the virtual, which its providers' recipes provide.
    Virtual,
    /// No version the stack can fetch: a recipe without versions does not
    /// load. The text says why.
    NoVersions(String),
    /// The file was not read (nested too deeply, no parse): an error of
    /// this package, the others are imported.
    Unreadable(String),
}

impl std::fmt::Display for NotWritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotWritten::Virtual => f.write_str(
                "a virtual package (`virtual = True`): its providers' recipes provide it",
            ),
            NotWritten::NoVersions(why) => write!(f, "no version the stack can fetch: {why}"),
            NotWritten::Unreadable(why) => f.write_str(why),
        }
    }
}

impl Converted {
    /// The recipe as YAML text.
    pub fn to_yaml(&self) -> String {
        self.recipe.to_document()
    }

    /// No directive was left untranslated.
    pub fn directives_complete(&self) -> bool {
        !self.untranslated.iter().any(|u| u.kind == Kind::Directive)
    }

    /// No build logic was left untranslated.
    pub fn hooks_complete(&self) -> bool {
        !self.untranslated.iter().any(|u| u.kind == Kind::Build)
    }

    /// The names of the recipe's versions, in order.
    pub fn version_names(&self) -> Vec<String> {
        self.versions_where(|_| true)
    }

    /// The names of the versions that have something to fetch (`url` or
    /// `git`; not an external-only package's `source: none`), in order.
    pub fn fetchable_version_names(&self) -> Vec<String> {
        self.versions_where(|e| e.iter().any(|(k, _)| k == "url" || k == "git"))
    }

    fn versions_where(&self, keep: impl Fn(&[(String, Yaml)]) -> bool) -> Vec<String> {
        let Yaml::Map(entries) = &self.recipe else {
            return Vec::new();
        };
        let Some((_, Yaml::Seq(versions))) = entries.iter().find(|(k, _)| k == "versions") else {
            return Vec::new();
        };
        versions
            .iter()
            .filter_map(|v| match v {
                Yaml::Map(e) if keep(e) => {
                    e.iter()
                        .find(|(k, _)| k == "version")
                        .and_then(|(_, v)| match v {
                            Yaml::Str(s) => Some(s.clone()),
                            _ => None,
                        })
                }
                _ => None,
            })
            .collect()
    }

    /// The build logic runs from package.py at build time
    /// ([`super::build_logic`]).
    pub fn runs_package_py(&self) -> bool {
        !self.package_files.is_empty()
    }
}
