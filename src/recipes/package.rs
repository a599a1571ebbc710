//! The package recipe model: what `recipes/<name>.yaml` says about a package.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::diag::{Loc, Spanned};
use crate::spec::{VariantValue, Version, VersionConstraint};

use super::build::Build;
use super::env::EnvOp;
use super::located::{PathRef, Resource, SpecRef, When};

/// One package recipe, fully parsed (specs parsed, paths absolute).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PackageRecipe {
    pub name: String,
    /// The recipe file (absolute).
    pub file: PathBuf,
    /// The repository directory the recipe was found in (absolute).
    pub repo_dir: PathBuf,
    /// Location of the `name:` value.
    pub loc: Loc,
    pub description: String,
    pub homepage: Option<String>,
    /// In file order.
    pub versions: Vec<VersionEntry>,
    /// In file order.
    pub variants: Vec<VariantDef>,
    pub dependencies: Vec<Dependency>,
    pub conflicts: Vec<Conflict>,
    /// Applied in this order.
    pub patches: Vec<Patch>,
    /// Package-level `resources:` (each with its own `when:`), unpacked
    /// after a version's own resources, in order.
    pub resources: Vec<ExtraFile>,
    pub provides: Vec<Provide>,
    pub build: Build,
    /// Run environment (views, modules), applied in order.
    pub env: Vec<EnvOp>,
    /// What the package sets in the builds of the packages that depend on
    /// it (`dependent_build_env:`, Spack's `setup_dependent_build_environment`):
    /// applied in those builds after its `env:`, never in views or modules.
    pub dependent_build_env: Vec<EnvOp>,
    /// Provenance of a recipe written by `stack import` (`imported:`).
    pub imported: Option<super::imported::Imported>,
    /// The programs the package provides (`executables:`; empty: the
    /// package name). As an external in a system prefix (`/usr`), these are
    /// what a dependent's build finds on its `PATH`.
    pub executables: Vec<String>,
    /// The shared libraries the package provides, by the name before
    /// `.so` (`libraries:`; empty: `lib<name>`, as Spack's default `libs`).
    /// As an external the plan links in a system library directory
    /// (`/usr`), these are what the linkage audit allows of it.
    pub libraries: Vec<String>,
    /// A tool only ever run while a dependent builds (`build_tool:`;
    /// Spack's `build-tools` and `compiler` tags): when the environment's
    /// requirements on it clash, the dependents that need it only to build
    /// may each get a build of their own (see `docs/resolve.md`).
    pub build_tool: bool,
}

impl PackageRecipe {
    /// The names of the package's shared libraries (`libraries:`, else
    /// `lib<name>`, or the name itself when it starts with `lib`).
    pub fn library_names(&self) -> Vec<String> {
        if !self.libraries.is_empty() {
            return self.libraries.clone();
        }
        match self.name.strip_prefix("lib") {
            Some(_) => vec![self.name.clone()],
            None => vec![format!("lib{}", self.name)],
        }
    }

    /// The (first) definition of the variant called `name` (conditional
    /// ones included).
    pub fn variant(&self, name: &str) -> Option<&VariantDef> {
        self.variants.iter().find(|v| v.name == name)
    }

    /// Every definition of the variant called `name`: a variant may be
    /// defined once per condition (`when`), with its own default and values.
    pub fn variant_defs<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a VariantDef> + 'a {
        self.variants.iter().filter(move |v| v.name == name)
    }

    /// The version entry for exactly `version`.
    pub fn version(&self, version: &Version) -> Option<&VersionEntry> {
        self.versions.iter().find(|v| &v.version == version)
    }

    /// Version entries, newest first (branches such as `main` sort by the
    /// spec module's ordering).
    pub fn versions_newest_first(&self) -> Vec<&VersionEntry> {
        let mut v: Vec<_> = self.versions.iter().collect();
        v.sort_by(|a, b| b.version.cmp(&a.version));
        v
    }

    /// Whether this package provides the virtual `name` (under some condition).
    pub fn provides(&self, name: &str) -> bool {
        self.provides.iter().any(|p| p.name == name)
    }

    /// Names of all variants.
    pub fn variant_names(&self) -> impl Iterator<Item = &str> {
        let vs = &self.variants;
        vs.iter()
            .enumerate()
            .filter(|(i, v)| vs[..*i].iter().all(|w| w.name != v.name))
            .map(|(_, v)| v.name.as_str())
    }
}

/// One entry of `versions:`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct VersionEntry {
    pub version: Version,
    /// As written.
    pub text: String,
    /// Location of the `version:` value.
    pub loc: Loc,
    pub source: Source,
    /// Prefer this version over newer ones.
    pub preferred: bool,
}

/// Where a version's sources come from.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Source {
    Archive(ArchiveSource),
    Git(GitSource),
    /// `source: none`: nothing to fetch (Spack's `BundlePackage` versions,
    /// which only pull in dependencies); the build starts from an empty
    /// source tree.
    None,
}

/// A downloadable file (`url:`), usually an archive.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ArchiveSource {
    pub url: Resource,
    /// The URL as written.
    pub url_text: String,
    /// Lower-case hex; `None` only allowed when the stack sets `allow_unverified`.
    pub sha256: Option<String>,
    /// Extract the archive (`false`: keep the file as is, e.g. a `.run` installer).
    pub expand: bool,
    /// More files unpacked into the same source tree (`resources:`), in order.
    pub resources: Vec<ExtraFile>,
    /// `max_size:`: the most bytes the file may have, downloaded or extracted.
    pub max_size: Option<super::MaxSize>,
    pub loc: Loc,
}

/// One entry of `resources:`: a file fetched and checksummed like the main
/// source and unpacked (or with `expand: false` copied) into its tree, or a
/// git repository checked out into it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ExtraFile {
    /// `name:` (Spack's resource name): names it in messages and in the
    /// mirror (`<package>/<name>-<version>.<ext>`).
    pub name: Option<String>,
    /// The file's URL, or with `git` the repository.
    pub url: Resource,
    /// The URL (or repository) as written.
    pub url_text: String,
    /// `git:` resources: the revision to check out.
    pub git: Option<ResourceGit>,
    pub sha256: Option<String>,
    pub expand: bool,
    /// Strip an archive's single top-level directory (`strip:`, default
    /// true); `false` keeps it, named as in the archive (Spack's layout of a
    /// resource without `placement`).
    pub strip: bool,
    /// Where in the source tree it goes (`destination:`, a relative
    /// directory without `..`); `None`: the tree's top.
    pub destination: Option<String>,
    /// How it is laid out in `destination` (`placement:`).
    pub placement: Placement,
    /// The resource is used only by nodes that meet this (`when:`).
    pub when: Option<When>,
    /// `max_size:` (as for the main file).
    pub max_size: Option<super::MaxSize>,
    pub loc: Loc,
}

/// The revision of a `git:` resource.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ResourceGit {
    pub reference: GitRef,
    /// A commit pinned next to a tag or branch.
    pub commit: Option<String>,
    pub submodules: bool,
}

impl ResourceGit {
    /// The commit to check out, when the recipe names one.
    pub fn pinned(&self) -> Option<&str> {
        match &self.reference {
            GitRef::Commit(c) => Some(c),
            GitRef::Tag(_) | GitRef::Branch(_) => self.commit.as_deref(),
        }
    }
}

/// How a resource's unpacked tree is laid out in its `destination`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Placement {
    /// Its content merges into the destination (an archive's single
    /// top-level directory stripped, as for the main source).
    #[default]
    Merge,
    /// `placement: NAME`: the unpacked tree becomes the directory
    /// `destination/NAME` (Spack's placement string).
    Dir(String),
    /// `placement: {FROM: TO, …}`: the paths FROM of the unpacked tree move
    /// to `destination/TO` (Spack's placement mapping).
    Files(Vec<(String, String)>),
}

/// A git repository (`git:`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct GitSource {
    pub repo: Resource,
    /// The repository as written.
    pub repo_text: String,
    pub reference: GitRef,
    /// A commit pinned next to a tag or branch (checked at fetch).
    pub commit: Option<String>,
    pub submodules: bool,
    pub loc: Loc,
}

/// Which git object a version checks out.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum GitRef {
    Tag(String),
    /// Resolved to a commit at fetch time and pinned in `stack.lock`.
    Branch(String),
    /// 40 lower-case hex digits.
    Commit(String),
}

/// A variant declaration.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct VariantDef {
    pub name: String,
    /// Location of the variant's name.
    pub loc: Loc,
    pub description: Option<String>,
    pub kind: VariantKind,
    /// The variant exists only when this holds.
    pub when: Option<When>,
}

/// A variant's type, default and allowed values.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum VariantKind {
    /// `+name` / `~name`.
    Bool { default: bool },
    /// `name=value`; `values: None` accepts any value.
    Single {
        default: String,
        values: Option<Vec<String>>,
    },
    /// `name=v1,v2`; `values: None` accepts any value.
    Multi {
        default: BTreeSet<String>,
        values: Option<Vec<String>>,
    },
}

impl VariantDef {
    /// The default as a spec variant value.
    pub fn default_value(&self) -> VariantValue {
        match &self.kind {
            VariantKind::Bool { default } => VariantValue::Bool(*default),
            VariantKind::Single { default, .. } => {
                VariantValue::Values(BTreeSet::from([default.clone()]))
            }
            VariantKind::Multi { default, .. } => VariantValue::Values(default.clone()),
        }
    }

    /// The allowed values (`None`: any value; bool variants: none).
    pub fn allowed_values(&self) -> Option<&[String]> {
        match &self.kind {
            VariantKind::Bool { .. } => None,
            VariantKind::Single { values, .. } | VariantKind::Multi { values, .. } => {
                values.as_deref()
            }
        }
    }

    pub fn is_bool(&self) -> bool {
        matches!(self.kind, VariantKind::Bool { .. })
    }

    pub fn is_multi(&self) -> bool {
        matches!(self.kind, VariantKind::Multi { .. })
    }

    /// Check a value written in a spec against this declaration; the error
    /// says what was expected.
    pub fn check_value(&self, value: &VariantValue) -> Result<(), VariantValueError> {
        match (&self.kind, value) {
            (VariantKind::Bool { .. }, VariantValue::Bool(_)) => Ok(()),
            (VariantKind::Bool { .. }, VariantValue::Values(vals)) => {
                match vals.iter().next().map(String::as_str) {
                    Some("true" | "false" | "True" | "False") if vals.len() == 1 => Ok(()),
                    _ => Err(VariantValueError::NotBool),
                }
            }
            (_, VariantValue::Bool(_)) => Err(VariantValueError::NotValued),
            (VariantKind::Single { values, .. }, VariantValue::Values(vals)) => {
                if vals.len() > 1 {
                    return Err(VariantValueError::SingleValued);
                }
                check_allowed(values.as_deref(), vals)
            }
            (VariantKind::Multi { values, .. }, VariantValue::Values(vals)) => {
                check_allowed(values.as_deref(), vals)
            }
        }
    }
}

fn check_allowed(
    allowed: Option<&[String]>,
    vals: &BTreeSet<String>,
) -> Result<(), VariantValueError> {
    let Some(allowed) = allowed else {
        return Ok(());
    };
    match vals.iter().find(|v| !allowed.contains(v)) {
        Some(bad) => Err(VariantValueError::NotAllowed(bad.clone())),
        None => Ok(()),
    }
}

/// Why a variant value does not fit its declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantValueError {
    /// `name=x` on a bool variant.
    NotBool,
    /// `+name`/`~name` on a valued variant.
    NotValued,
    /// Several values for a single-valued variant.
    SingleValued,
    /// A value outside `values:`.
    NotAllowed(String),
}

/// How a dependency is used.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct DepTypes {
    /// Needed while building (tools, headers).
    pub build: bool,
    /// Linked against: its lib dirs go into RPATH.
    pub link: bool,
    /// Needed at run time (goes into views/modules with the package).
    pub run: bool,
    /// Needed only to test the package (`make check` in a `post_build`
    /// step): built, and available to the build like a build dependency,
    /// but never linked, never a run dependency, never in views, and left
    /// out of the package's hash (as Spack does).
    pub test: bool,
}

impl DepTypes {
    /// The default: `[build, link]`.
    pub const DEFAULT: DepTypes = DepTypes {
        build: true,
        link: true,
        run: false,
        test: false,
    };

    pub const NONE: DepTypes = DepTypes {
        build: false,
        link: false,
        run: false,
        test: false,
    };

    /// Only `test`: the dependency is not needed to build, link or run.
    pub fn test_only(self) -> bool {
        self.test && !(self.build || self.link || self.run)
    }

    /// Names of the set types, in `build, link, run, test` order.
    pub fn names(self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.build {
            v.push("build");
        }
        if self.link {
            v.push("link");
        }
        if self.run {
            v.push("run");
        }
        if self.test {
            v.push("test");
        }
        v
    }
}

impl Default for DepTypes {
    fn default() -> Self {
        DepTypes::DEFAULT
    }
}

/// One entry of `dependencies:`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Dependency {
    /// Always has a name (a package or a virtual).
    pub spec: SpecRef,
    pub types: DepTypes,
    pub when: Option<When>,
    /// `elsewhere: true`: the package's recipe may be missing from the
    /// searched repositories (spack-packages' translations provide it in
    /// stackinator inputs); only for conditional dependencies. Without it,
    /// the resolver avoids the condition or names the missing package.
    pub elsewhere: bool,
    /// Location of the entry.
    pub loc: Loc,
}

impl Dependency {
    /// The package or virtual depended on.
    pub fn name(&self) -> &str {
        self.spec.name().unwrap_or_default()
    }
}

/// One entry of `conflicts:`: the package cannot be configured this way.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Conflict {
    pub when: When,
    pub message: Option<String>,
    pub loc: Loc,
}

/// One entry of `patches:`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Patch {
    pub source: PatchSource,
    /// Lower-case hex.
    pub sha256: String,
    /// Strip level (`patch -p<level>`), default 1.
    pub level: u32,
    /// `working_dir:`: the directory of the source tree (relative, no `..`)
    /// the patch applies in (`patch -d`); `None`: the tree's top.
    pub working_dir: Option<String>,
    pub when: Option<When>,
    pub loc: Loc,
}

/// Where a patch comes from.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum PatchSource {
    /// A file below `<repo>/../patches/` (`path` absolute, `text` as written).
    File(PathRef),
    /// A downloaded patch.
    Url(Spanned<String>),
}

/// One entry of `provides:`: this package implements a virtual (`mpi`),
/// in the versions `versions` (`mpi@:3`; any version when not given).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Provide {
    pub name: String,
    /// The versions of the virtual it implements.
    pub versions: VersionConstraint,
    pub when: Option<When>,
    pub loc: Loc,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(kind: VariantKind) -> VariantDef {
        VariantDef {
            name: "v".into(),
            loc: Loc::new("f", 1, 1),
            description: None,
            kind,
            when: None,
        }
    }

    fn vals(v: &[&str]) -> VariantValue {
        VariantValue::Values(v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn variant_values_are_checked_against_the_declaration() {
        let b = def(VariantKind::Bool { default: false });
        assert_eq!(b.check_value(&VariantValue::Bool(true)), Ok(()));
        assert_eq!(
            b.check_value(&vals(&["x"])),
            Err(VariantValueError::NotBool)
        );
        let s = def(VariantKind::Single {
            default: "none".into(),
            values: Some(vec!["none".into(), "90".into()]),
        });
        assert_eq!(s.check_value(&vals(&["90"])), Ok(()));
        assert_eq!(
            s.check_value(&vals(&["80"])),
            Err(VariantValueError::NotAllowed("80".into()))
        );
        assert_eq!(
            s.check_value(&vals(&["90", "none"])),
            Err(VariantValueError::SingleValued)
        );
        assert_eq!(
            s.check_value(&VariantValue::Bool(true)),
            Err(VariantValueError::NotValued)
        );
        let m = def(VariantKind::Multi {
            default: BTreeSet::new(),
            values: None,
        });
        assert_eq!(m.check_value(&vals(&["a", "b"])), Ok(()));
    }

    #[test]
    fn dep_types_default_is_build_link() {
        assert_eq!(DepTypes::default().names(), vec!["build", "link"]);
    }
}
