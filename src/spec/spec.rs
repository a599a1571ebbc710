//! The [`Spec`] type and its canonical text form.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use super::constraint::VersionConstraint;
use super::error::SpecParseError;
use super::target::TargetConstraint;
use super::variant::VariantValue;

/// `%gcc@12:`: a compiler name and the versions allowed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CompilerSpec {
    pub name: String,
    pub versions: VersionConstraint,
}

impl fmt::Display for CompilerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if !self.versions.is_any() {
            write!(f, "@{}", self.versions)?;
        }
        Ok(())
    }
}

/// The compiler flag names of the spec syntax (`cflags="-O2 -g"`), as Spack
/// names them.
pub const FLAG_NAMES: &[&str] = &[
    "cflags", "cxxflags", "fflags", "cppflags", "ldflags", "ldlibs",
];

/// Names a variant cannot have: they clash with the spec syntax (`target=`,
/// `%compiler`), as do the [`FLAG_NAMES`].
pub const RESERVED_VARIANTS: &[&str] =
    &["target", "platform", "os", "arch", "compiler", "dev_path"];

/// Whether `name` cannot be a variant's name.
pub fn reserved_variant(name: &str) -> bool {
    RESERVED_VARIANTS.contains(&name) || FLAG_NAMES.contains(&name)
}

/// The flags of one flag name in a spec: `cflags="-O2 -g"` is `-O2`, `-g`
/// (the value split on whitespace); `cflags==…` also asks for them on every
/// link and run dependency (`propagate`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FlagList {
    pub flags: Vec<String>,
    pub propagate: bool,
}

impl FlagList {
    /// The spec text of these flags under `name` (`cflags=-fPIC`,
    /// `cxxflags=="-O3 -g"`).
    pub fn to_spec_text(&self, name: &str) -> String {
        let mut out = String::from(name);
        out.push_str(if self.propagate { "==" } else { "=" });
        let text = self.flags.join(" ");
        // commas are part of a bare flag value (`ldflags=-Wl,-z,now`)
        let bare = text
            .chars()
            .all(|c| c == ',' || super::variant::is_bare_value_char(c));
        if bare && !text.is_empty() && !text.starts_with('=') {
            out.push_str(&text);
        } else {
            super::variant::push_value(&mut out, &text);
        }
        out
    }
}

/// The languages a compiler is chosen for (`%c,cxx,fortran=nvhpc`).
pub const LANGUAGES: &[&str] = &["c", "cxx", "fortran"];

/// The canonical per-language compilers of `spec`: every language with the
/// same compiler and no `compiler` is that compiler (`%c,cxx,fortran=nvhpc`
/// is `%nvhpc`); a language with the node's compiler is dropped.
pub(crate) fn normalize_languages(spec: &mut Spec) {
    if spec.compiler.is_none() && spec.languages.len() == LANGUAGES.len() {
        let mut all = spec.languages.values();
        let first = all.next().cloned();
        if all.all(|c| Some(c) == first.as_ref()) {
            spec.compiler = first;
            spec.languages.clear();
        }
    }
    if let Some(c) = &spec.compiler {
        spec.languages.retain(|_, l| l != c);
    }
}

/// A spec: `name@versions +variant ~variant key=v1,v2 cflags="-O2 -g"
/// %compiler@ver target=T platform=P os=O ^dep…`. Every part is optional; a spec without a
/// name is *anonymous* (the `when:` conditions of recipes).
///
/// `Display` prints the canonical form (variants sorted by name, one token
/// each; dependencies sorted by name and flattened), and
/// `Spec::parse(&s.to_string()) == Ok(s)` for every spec whose dependencies
/// have no dependencies of their own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Spec {
    pub name: Option<String>,
    pub versions: VersionConstraint,
    pub variants: BTreeMap<String, VariantValue>,
    /// Compiler flags by name (one of [`FLAG_NAMES`]), never empty lists.
    pub flags: BTreeMap<String, FlagList>,
    pub compiler: Option<CompilerSpec>,
    /// `%fortran=nvhpc`: the compiler of one language (`c`, `cxx`,
    /// `fortran`) when it is not `compiler` (see `normalize_languages`).
    pub languages: BTreeMap<String, CompilerSpec>,
    pub target: Option<TargetConstraint>,
    pub platform: Option<String>,
    pub os: Option<String>,
    /// `^dep` constraints; parsing keeps them sorted by name, one per name.
    pub deps: Vec<Spec>,
    /// On a `^dep`: the virtuals it provides to the package (Spack 1.x's
    /// `%mpi=openmpi` and `^[virtuals=mpi] openmpi`). The resolver checks
    /// that the package provides them and takes it as their provider.
    pub virtuals: BTreeSet<String>,
}

impl Spec {
    /// Parses spec text. See `docs/spec-syntax.md`.
    pub fn parse(text: &str) -> Result<Spec, SpecParseError> {
        super::parse::parse_spec(text)
    }

    /// A spec with only a name.
    pub fn named(name: impl Into<String>) -> Spec {
        Spec {
            name: Some(name.into()),
            ..Spec::default()
        }
    }

    /// A spec without a name (a condition).
    pub fn is_anonymous(&self) -> bool {
        self.name.is_none()
    }

    /// Whether the spec constrains nothing at all (an empty condition, which
    /// always holds).
    pub fn is_empty(&self) -> bool {
        *self == Spec::default()
    }

    /// The `^name` constraint, searched depth-first through the
    /// dependencies.
    pub fn dep(&self, name: &str) -> Option<&Spec> {
        for d in &self.deps {
            if d.name.as_deref() == Some(name) {
                return Some(d);
            }
        }
        self.deps.iter().find_map(|d| d.dep(name))
    }

    /// The spec text without its dependencies.
    pub fn node_text(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let versions = (!self.versions.is_any()).then(|| format!("@{}", self.versions));
        match (&self.name, versions) {
            (Some(n), Some(v)) => parts.push(format!("{n}{v}")),
            (Some(n), None) => parts.push(n.clone()),
            (None, Some(v)) => parts.push(v),
            (None, None) => {}
        }
        for (name, value) in &self.variants {
            parts.push(value.to_spec_text(name));
        }
        for (name, flags) in &self.flags {
            parts.push(flags.to_spec_text(name));
        }
        if let Some(c) = &self.compiler {
            parts.push(format!("%{c}"));
        }
        parts.extend(self.language_texts());
        if let Some(p) = &self.platform {
            parts.push(format!("platform={p}"));
        }
        if let Some(o) = &self.os {
            parts.push(format!("os={o}"));
        }
        if let Some(t) = &self.target {
            parts.push(format!("target={t}"));
        }
        parts.join(" ")
    }

    /// `%c,cxx=gcc %fortran=nvhpc`: the per-language compilers, languages
    /// grouped by compiler in the order of their first language.
    fn language_texts(&self) -> Vec<String> {
        let mut groups: Vec<(&CompilerSpec, Vec<&str>)> = Vec::new();
        for (lang, c) in &self.languages {
            match groups.iter_mut().find(|(g, _)| *g == c) {
                Some((_, langs)) => langs.push(lang),
                None => groups.push((c, vec![lang])),
            }
        }
        groups
            .into_iter()
            .map(|(c, langs)| format!("%{}={c}", langs.join(",")))
            .collect()
    }

    /// The compiler asked for `lang`: its own, else the node's.
    pub fn compiler_for(&self, lang: &str) -> Option<&CompilerSpec> {
        self.languages.get(lang).or(self.compiler.as_ref())
    }

    fn flat_deps<'a>(&'a self, out: &mut Vec<&'a Spec>) {
        for d in &self.deps {
            out.push(d);
            d.flat_deps(out);
        }
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = self.node_text();
        let mut deps = Vec::new();
        self.flat_deps(&mut deps);
        deps.sort_by(|a, b| a.name.cmp(&b.name));
        for d in deps {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push('^');
            if !d.virtuals.is_empty() {
                let v: Vec<&str> = d.virtuals.iter().map(String::as_str).collect();
                text.push_str(&format!("[virtuals={}] ", v.join(",")));
            }
            text.push_str(&d.node_text());
        }
        f.write_str(&text)
    }
}

impl FromStr for Spec {
    type Err = SpecParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Spec::parse(s)
    }
}

/// A spec's fields, as [`crate::diag::binary_form`] writes them.
#[derive(serde::Serialize)]
struct SpecOut<'a> {
    name: &'a Option<String>,
    versions: &'a VersionConstraint,
    variants: &'a BTreeMap<String, VariantValue>,
    flags: &'a BTreeMap<String, FlagList>,
    compiler: &'a Option<CompilerSpec>,
    languages: &'a BTreeMap<String, CompilerSpec>,
    target: &'a Option<TargetConstraint>,
    platform: &'a Option<String>,
    os: &'a Option<String>,
    deps: &'a [Spec],
    virtuals: &'a BTreeSet<String>,
}

#[derive(serde::Deserialize)]
struct SpecIn {
    name: Option<String>,
    versions: VersionConstraint,
    variants: BTreeMap<String, VariantValue>,
    flags: BTreeMap<String, FlagList>,
    compiler: Option<CompilerSpec>,
    languages: BTreeMap<String, CompilerSpec>,
    target: Option<TargetConstraint>,
    platform: Option<String>,
    os: Option<String>,
    deps: Vec<Spec>,
    virtuals: BTreeSet<String>,
}

/// Its text (its fields in binary form: not every spec's text reads back
/// as the same spec).
impl serde::Serialize for Spec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if crate::diag::binary_form::active() {
            return SpecOut {
                name: &self.name,
                versions: &self.versions,
                variants: &self.variants,
                flags: &self.flags,
                compiler: &self.compiler,
                languages: &self.languages,
                target: &self.target,
                platform: &self.platform,
                os: &self.os,
                deps: &self.deps,
                virtuals: &self.virtuals,
            }
            .serialize(s);
        }
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Spec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if crate::diag::binary_form::active() {
            let s = SpecIn::deserialize(d)?;
            return Ok(Spec {
                name: s.name,
                versions: s.versions,
                variants: s.variants,
                flags: s.flags,
                compiler: s.compiler,
                languages: s.languages,
                target: s.target,
                platform: s.platform,
                os: s.os,
                deps: s.deps,
                virtuals: s.virtuals,
            });
        }
        let s = String::deserialize(d)?;
        Spec::parse(&s).map_err(serde::de::Error::custom)
    }
}
