//! The `build:` section of a package recipe: which build system, its
//! settings, explicit steps and install actions.
//!
//! Every string here is a tera template (rendered by the build stage; it sees
//! `prefix`, `version`, `variants`, `deps.<name>.prefix`, `jobs`, `target`,
//! `spec`). Each rendered string becomes one argv element; a template that
//! renders to several space-separated words is split on whitespace and empty
//! words are dropped.

use std::fmt;

use crate::build_kinds::{BuildKind, KeyType};
use crate::diag::{Loc, Spanned};

use super::env::EnvOp;
use super::located::{ArgList, Conditional, When};

/// How to build and install a package.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Build {
    pub system: BuildSystem,
    /// Explicit install actions, run after the build system's own install
    /// (the only install for `generic`, extra files for the others).
    pub install: Vec<InstallStep>,
    /// Environment changes for the build.
    pub build_env: Vec<EnvOp>,
    /// Extra argv steps around the phases, in file order.
    pub steps: Vec<Step>,
    /// File edits (`filter:`) applied to the staged source tree before any
    /// phase, in file order.
    pub filters: Vec<Filter>,
    /// Extra compiler flags (`flags:`), in file order.
    pub flags: Vec<super::flags::FlagEntry>,
    /// Location of the `system:` value.
    pub loc: Loc,
}

/// The build system kind with its settings: every key of the kind
/// ([`crate::build_kinds::BuildKind::keys`]), in the kind's order, with the
/// recipe's value or the key type's default. Code outside the kinds reads
/// them by type, never by kind.
#[derive(Clone, Debug)]
pub struct BuildSystem {
    pub kind: &'static dyn BuildKind,
    pub settings: Vec<(&'static str, Setting)>,
}

/// The value of one `build:` key of a kind, by its [`KeyType`].
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[allow(clippy::large_enum_variant)] // a few per recipe; direct access is worth more
pub enum Setting {
    Toggle(Toggle),
    Flag(bool),
    Args(ArgList),
    Text(Option<String>),
    /// A target list: an argument list (templates and `{when, args}` blocks)
    /// with the kind's default when not given.
    Words(ArgList),
    Relocate(Relocate),
    /// A package file ([`KeyType::File`]); `None` only in a recipe with
    /// errors.
    File(Option<PackageFileRef>),
    /// Package files ([`KeyType::Files`]).
    Files(Vec<PackageFileRef>),
}

/// A package file below the repository's `spack/` directory, with its
/// sha256 (`package: {file: builtin/libpng/package.py, sha256: …}`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PackageFileRef {
    /// As written: relative to `spack/`.
    pub file: String,
    /// Absolute.
    pub path: std::path::PathBuf,
    pub sha256: String,
    pub loc: Loc,
}

impl PackageFileRef {
    /// As the build logic checks and maps it.
    pub fn to_package_file(&self) -> Option<crate::build_logic::PackageFile> {
        Some(crate::build_logic::PackageFile {
            module: crate::build_logic::module_name(&self.file)?,
            path: self.path.clone(),
            sha256: self.sha256.clone(),
        })
    }
}

impl Setting {
    /// The value of a key the recipe does not give.
    pub fn default_for(ty: KeyType) -> Setting {
        match ty {
            KeyType::Toggle => Setting::Toggle(Toggle::Off),
            KeyType::Flag => Setting::Flag(false),
            KeyType::Args => Setting::Args(ArgList::new()),
            KeyType::Text => Setting::Text(None),
            KeyType::Words([]) => Setting::Words(ArgList::new()),
            KeyType::Words(d) => Setting::Words(vec![Conditional::always(
                d.iter().map(|s| s.to_string()).collect(),
                Loc::file_start("<default>"),
            )]),
            KeyType::Relocate => Setting::Relocate(Relocate::default()),
            KeyType::File => Setting::File(None),
            KeyType::Files => Setting::Files(Vec::new()),
        }
    }
}

/// The words of a target list without conditional blocks (`None` when it
/// has one): how a list equal to the kind's default is recognised.
pub fn plain_words(list: &ArgList) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    for c in list {
        if c.when.is_some() {
            return None;
        }
        out.extend(c.value.iter().map(String::as_str));
    }
    Some(out)
}

impl BuildSystem {
    /// `kind` with every key at its default.
    pub fn new(kind: &'static dyn BuildKind) -> Self {
        BuildSystem {
            kind,
            settings: kind
                .keys()
                .iter()
                .map(|k| (k.name, Setting::default_for(k.ty)))
                .collect(),
        }
    }

    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// The package files of the build section (every [`Setting::File`]
    /// and [`Setting::Files`] key, in key order): what the build logic
    /// runs, the node's own file first.
    pub fn package_files(&self) -> Vec<&PackageFileRef> {
        let mut out = Vec::new();
        for (_, s) in &self.settings {
            match s {
                Setting::File(Some(f)) => out.push(f),
                Setting::Files(list) => out.extend(list),
                _ => {}
            }
        }
        out
    }

    /// The setting of `key`.
    pub fn get(&self, key: &str) -> Option<&Setting> {
        self.settings
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, s)| s)
    }
}

/// A build system in serde form: the kind and each key by name (looked
/// up again when read: an unknown kind or key does not read).
#[derive(serde::Serialize)]
struct BuildSystemOut<'a> {
    kind: &'static str,
    settings: Vec<(&'static str, &'a Setting)>,
}

#[derive(serde::Deserialize)]
struct BuildSystemIn {
    kind: String,
    settings: Vec<(String, Setting)>,
}

impl serde::Serialize for BuildSystem {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        BuildSystemOut {
            kind: self.name(),
            settings: self.settings.iter().map(|(k, v)| (*k, v)).collect(),
        }
        .serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for BuildSystem {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let b = BuildSystemIn::deserialize(d)?;
        let kind = crate::build_kinds::get(&b.kind)
            .ok_or_else(|| D::Error::custom(format!("unknown build system `{}`", b.kind)))?;
        let settings =
            b.settings
                .into_iter()
                .map(|(name, setting)| {
                    let key = kind.keys().iter().find(|k| k.name == name).ok_or_else(|| {
                        D::Error::custom(format!("`{}` has no key `{name}`", b.kind))
                    })?;
                    Ok((key.name, setting))
                })
                .collect::<Result<_, D::Error>>()?;
        Ok(BuildSystem { kind, settings })
    }
}

impl fmt::Display for BuildSystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A bool setting that may hold only under a condition (`autoreconf: {when: "@main"}`).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[allow(clippy::large_enum_variant)]
pub enum Toggle {
    #[default]
    Off,
    On,
    When(When),
}

/// What to fix in an unpacked binary tree.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Relocate {
    /// Dependencies whose lib dirs go into every ELF file's RPATH.
    pub rpath: Vec<Spanned<String>>,
    /// Extra NEEDED entries.
    pub needed: Vec<NeededEntry>,
    /// Text replacements in text files (scripts, `.pc`), in file order;
    /// values are templates.
    pub placeholders: Vec<(String, String)>,
}

/// Add `add` (a soname) to the NEEDED list of files matching `file` (a glob
/// relative to the prefix), when `when` holds.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct NeededEntry {
    pub file: String,
    pub add: String,
    pub when: Option<When>,
    pub loc: Loc,
}

/// One `filter:` entry: Spack's `filter_file` (see [`crate::file_filter`]).
/// `file`, `regex` and `replace` are templates.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Filter {
    /// The file, relative to the source tree.
    pub file: String,
    /// A Python regular expression, or a literal string with `string: true`.
    pub regex: String,
    /// The replacement (`\1`…`\9` are groups).
    pub replace: String,
    pub string: bool,
    /// Skip a missing file instead of failing.
    pub ignore_absent: bool,
    pub when: Option<When>,
    pub loc: Loc,
}

/// One explicit install action.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct InstallStep {
    pub action: InstallAction,
    pub when: Option<When>,
    pub loc: Loc,
}

/// Install actions; paths are templates.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum InstallAction {
    /// Copy files matching `from` (a glob relative to the build dir; a
    /// directory copies its contents) into the prefix-relative dir `to`.
    Copy { from: String, to: String },
    /// Create a prefix-relative directory.
    Mkdir { path: String },
    /// Create the prefix-relative symlink `at` pointing to `target`.
    Symlink { target: String, at: String },
}

/// When an extra step runs.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Phase {
    /// Before autotools' `autoreconf`/`autogen.sh` (other systems: before
    /// configure), e.g. to write a `.release_version` a checkout lacks.
    PreBootstrap,
    PreConfigure,
    PostConfigure,
    PreBuild,
    PostBuild,
    PreInstall,
    PostInstall,
}

impl Phase {
    pub const ALL: [Phase; 7] = [
        Phase::PreBootstrap,
        Phase::PreConfigure,
        Phase::PostConfigure,
        Phase::PreBuild,
        Phase::PostBuild,
        Phase::PreInstall,
        Phase::PostInstall,
    ];

    /// The key in `steps:`.
    pub fn key(self) -> &'static str {
        match self {
            Phase::PreBootstrap => "pre_bootstrap",
            Phase::PreConfigure => "pre_configure",
            Phase::PostConfigure => "post_configure",
            Phase::PreBuild => "pre_build",
            Phase::PostBuild => "post_build",
            Phase::PreInstall => "pre_install",
            Phase::PostInstall => "post_install",
        }
    }

    pub fn from_key(key: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.key() == key)
    }
}

/// An extra command: an argument vector (never a shell string), run in the
/// source/build dir at `phase`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Step {
    pub phase: Phase,
    /// Templates, one per argv element.
    pub argv: Vec<String>,
    pub when: Option<When>,
    pub loc: Loc,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_round_trip_through_keys() {
        for p in Phase::ALL {
            assert_eq!(Phase::from_key(p.key()), Some(p));
        }
        assert_eq!(Phase::from_key("pre_fetch"), None);
    }

    #[test]
    fn makefile_installs_by_default() {
        let kind = crate::build_kinds::get("makefile").unwrap();
        let system = BuildSystem::new(kind);
        assert!(
            matches!(system.get("install_targets"), Some(Setting::Words(w)) if plain_words(w) == Some(vec!["install"]))
        );
        assert_eq!(system.to_string(), "makefile");
    }
}
