//! Spack `package.py` → stack package recipe.
//!
//! | file | step |
//! |------|------|
//! | `value` | evaluating literal Python (strings, lists, f-strings, comprehensions) |
//! | `reader` | tree-sitter parse; class body → directives, attributes, methods |
//! | `bases` | what `CMakePackage`, `CudaPackage`, … add |
//! | `imports` | class attributes of the other packages a package.py imports |
//! | `sibling_bases` | base classes defined in another package.py |
//! | `url` | version URLs: default substitution, mirrors |
//! | `url_method` | a package's `url_for_version`, evaluated per version |
//! | `translate` | directives → versions, variants, dependencies, … |
//! | `cond`, `hook_expr`, `hook_body` | hook bodies → templates and conditions |
//! | `hooks` | methods → the `build:` section and `env:` |
//! | `model` | what is read, and what is reported untranslated |
//! | `per_arch` | packages read once per architecture (`platform.machine()`), merged |

pub mod api_check;
pub mod directives;
pub mod emit;
pub mod evaluator;
#[cfg(test)]
mod fidelity_tests;
pub mod hooks;
pub mod reader;

use std::path::Path;
use std::sync::Arc;

use super::yaml_out::Yaml;
pub use api_check::{ApiGap, ApiListing, unsupported_api};
pub use directives::model;
pub use directives::model::{Kind, Untranslated};
pub use emit::{build_logic, package_files};
pub(crate) use evaluator::cond::COMPILERS;

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
    /// package and its imports, [`build_logic`]).
    pub package_files: Vec<emit::package_files::PackageFile>,
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
    /// ([`build_logic`]).
    pub fn runs_package_py(&self) -> bool {
        !self.package_files.is_empty()
    }
}

/// Convert the text of one package.py. `pkg_dir` is its directory (for
/// patch files).
///
/// A package whose directives depend on the machine Spack runs on
/// (`platform.machine()`: a binary per architecture) is read once per
/// architecture and the readings merged (`per_arch`).
pub fn convert(name: &str, src: &str, pkg_dir: &Path, origin: &Origin) -> Converted {
    convert_in(name, src, pkg_dir, origin, None)
}

/// [`convert`] with the repositories of an import, where the package modules
/// a package.py imports are found by namespace (`None`: beside `pkg_dir`).
pub fn convert_in(
    name: &str,
    src: &str,
    pkg_dir: &Path,
    origin: &Origin,
    repos: Option<&crate::import::Repos>,
) -> Converted {
    let packages = pkg_dir.parent().unwrap_or(Path::new("."));
    let siblings = directives::imports::Siblings { packages, repos };
    // Parsed once: every reading (per architecture) walks the one tree.
    let parsed = reader::parsed::Parsed::new(src);
    let file = (src, &parsed);
    if !emit::per_arch::machine_dependent(src) {
        return convert_for(name, file, (pkg_dir, siblings), origin, None);
    }
    let readings = emit::per_arch::ARCHES
        .iter()
        .map(|m| {
            (
                *m,
                convert_for(name, file, (pkg_dir, siblings), origin, Some(m)),
            )
        })
        .collect();
    emit::per_arch::merge(readings)
}

/// A package.py's text and its parse.
type File<'a> = (
    &'a str,
    &'a Result<Arc<reader::parsed::Parsed>, reader::parsed::ParseError>,
);

fn convert_for(
    name: &str,
    (src, parsed): File,
    (pkg_dir, siblings): (&Path, directives::imports::Siblings),
    origin: &Origin,
    machine: Option<&str>,
) -> Converted {
    let (mut attributes, helpers) = directives::imports::imported_attributes(src, siblings);
    if let Some(m) = machine {
        attributes.extend(emit::per_arch::platform_names(m));
    }
    // Static methods of imported classes, for class attributes that call them.
    attributes.extend(
        helpers
            .iter()
            .map(|(k, v)| (k.clone(), evaluator::value::Value::Str(v.clone()))),
    );
    let mut pkg = directives::class_body::read_package_with(name, parsed, attributes);
    pkg.helpers = helpers;
    pkg.machine = machine.map(str::to_string);
    directives::sibling_bases::merge(&mut pkg, src, siblings);
    let mut sections = directives::translate::sections(&mut pkg, src, pkg_dir);
    let mut out = hooks::build_section::build_section(&mut pkg, src, &sections);
    directives::own_variants::apply(&mut pkg, &mut sections, &mut out.build, &mut out.env);
    let mut untranslated = std::mem::take(&mut pkg.untranslated);
    untranslated.sort();
    untranslated.dedup();
    let external = out.build == Yaml::Map(vec![("system".into(), Yaml::str("external"))]);
    let recipe = assemble(
        &pkg,
        &sections,
        out.build,
        out.env,
        &out.spack_system,
        origin,
        &untranslated,
    );
    let not_written = not_written(&pkg, &sections, &untranslated, external);
    Converted {
        name: name.to_string(),
        recipe,
        untranslated,
        build_system: out.spack_system,
        not_written,
        patch_files: sections.patch_files,
        package_files: Vec::new(),
    }
}

/// Whether the package is a virtual placeholder or has no version (an
/// `external` package declaring none is written: a cluster external names
/// its version).
fn not_written(
    pkg: &directives::model::SpackPackage,
    s: &directives::translate::Sections,
    untranslated: &[Untranslated],
    external: bool,
) -> Option<NotWritten> {
    if let Some(why) = &pkg.unreadable {
        return Some(NotWritten::Unreadable(why.clone()));
    }
    if matches!(
        pkg.attribute("virtual"),
        Some(evaluator::value::Value::Bool(true))
    ) {
        return Some(NotWritten::Virtual);
    }
    if !s.versions.is_empty() {
        return None;
    }
    let why: Vec<String> = untranslated
        .iter()
        .filter(|u| u.construct.starts_with("version"))
        .map(|u| format!("line {}: {} ({})", u.line, u.construct, u.detail))
        .collect();
    if why.is_empty() && external {
        return None;
    }
    Some(NotWritten::NoVersions(if why.is_empty() {
        "the package declares none".into()
    } else {
        why.join("; ")
    }))
}

fn description(pkg: &directives::model::SpackPackage) -> String {
    let doc = pkg.docstring.clone().unwrap_or_default();
    let para = doc.split("\n\n").next().unwrap_or("");
    let text = para.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        format!("{} (imported from Spack)", pkg.name)
    } else {
        text
    }
}

fn seq_or_none(items: &[Yaml]) -> Option<Yaml> {
    (!items.is_empty()).then(|| Yaml::Seq(items.to_vec()))
}

fn assemble(
    pkg: &directives::model::SpackPackage,
    s: &directives::translate::Sections,
    build: Yaml,
    env: Vec<Yaml>,
    system: &str,
    origin: &Origin,
    untranslated: &[Untranslated],
) -> Yaml {
    let homepage = pkg
        .attribute("homepage")
        .and_then(|v| v.as_str())
        .map(Yaml::str);
    let variants = (!s.variants.is_empty()).then(|| Yaml::Map(s.variants.clone()));
    let build_tool = is_build_tool(pkg).then_some(Yaml::Bool(true));
    Yaml::map([
        ("name", Some(Yaml::str(&pkg.name))),
        ("description", Some(Yaml::str(description(pkg)))),
        ("homepage", homepage),
        ("versions", Some(Yaml::Seq(s.versions.clone()))),
        ("variants", variants),
        ("dependencies", seq_or_none(&s.dependencies)),
        ("conflicts", seq_or_none(&s.conflicts)),
        ("patches", seq_or_none(&s.patches)),
        ("resources", seq_or_none(&s.resources)),
        ("provides", seq_or_none(&s.provides)),
        ("build_tool", build_tool),
        ("build", Some(build)),
        ("env", seq_or_none(&env)),
        (
            "imported",
            Some(imported_block(pkg, s, system, origin, untranslated)),
        ),
    ])
}

/// Spack lets a package tagged `build-tools` or `compiler` have more than
/// one node (`concretizer:duplicates:strategy: minimal`): a build-only
/// dependency of another configuration. Such a package is a `build_tool`.
fn is_build_tool(pkg: &directives::model::SpackPackage) -> bool {
    let tagged = |v: &evaluator::value::Value| {
        v.as_str()
            .is_some_and(|t| t == "build-tools" || t == "compiler")
    };
    match pkg.attribute("tags") {
        Some(evaluator::value::Value::List(tags)) => tags.iter().any(tagged),
        _ => false,
    }
}

fn imported_block(
    pkg: &directives::model::SpackPackage,
    s: &directives::translate::Sections,
    system: &str,
    origin: &Origin,
    untranslated: &[Untranslated],
) -> Yaml {
    let languages = languages_yaml(&s.languages);
    let list_url = pkg
        .attribute("list_url")
        .and_then(|v| v.as_str())
        .map(Yaml::str);
    Yaml::map([
        ("from", Some(Yaml::str("spack"))),
        ("file", Some(Yaml::str(&origin.file))),
        ("commit", origin.commit.as_deref().map(Yaml::str)),
        ("reviewed", Some(Yaml::Bool(false))),
        ("languages", languages),
        ("build_system", Some(Yaml::str(system))),
        (
            "build_systems",
            (s.build_systems.len() > 1).then(|| Yaml::strs(&s.build_systems)),
        ),
        ("list_url", list_url),
        ("license", seq_or_none(&s.license)),
        (
            "maintainers",
            (!s.maintainers.is_empty()).then(|| Yaml::strs(&s.maintainers)),
        ),
        ("kept", seq_or_none(&s.kept)),
        ("untranslated", untranslated_items(untranslated)),
    ])
}

/// `imported.languages`: a language always needed as its name, one needed
/// under conditions once per condition (`{language: cxx, when: "@1.3.4:"}`).
fn languages_yaml(
    languages: &std::collections::BTreeMap<String, Vec<Option<String>>>,
) -> Option<Yaml> {
    let mut items = Vec::new();
    for (name, conds) in languages {
        if conds.contains(&None) {
            items.push(Yaml::str(name));
            continue;
        }
        for when in conds.iter().flatten() {
            items.push(Yaml::map([
                ("language", Some(Yaml::str(name))),
                ("when", Some(Yaml::str(when))),
            ]));
        }
    }
    seq_or_none(&items)
}

/// The `imported.untranslated` list.
fn untranslated_items(untranslated: &[Untranslated]) -> Option<Yaml> {
    let items = untranslated
        .iter()
        .map(|u| {
            Yaml::map([
                ("line", Some(Yaml::Int(u.line as i64))),
                ("kind", Some(Yaml::str(u.kind.name()))),
                ("construct", Some(Yaml::str(&u.construct))),
                (
                    "detail",
                    (!u.detail.is_empty()).then(|| Yaml::str(&u.detail)),
                ),
            ])
        })
        .collect::<Vec<_>>();
    seq_or_none(&items)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `conflicts` on compiler flags (`cxxflags=…`) can never hold here:
    /// it is left out, with a note, and the other conflicts stay.
    #[test]
    fn conflicts_on_compiler_flags_never_hold_and_are_left_out() {
        let src = r#"
class Flags(CMakePackage):
    """Flags."""
    url = "https://example.org/flags-1.0.tgz"
    version("1.0", sha256="0" * 64)
    variant("tests", default=False, description="t")
    conflicts('cxxflags="-stdlib=libc++" %clang', when="+tests", msg="no libc++")
    conflicts("%clang", when="+tests", msg="kept")
"#;
        let c = convert("flags", src, Path::new("/nonexistent"), &Origin::default());
        let yaml = c.to_yaml();
        assert!(!yaml.contains("cxxflags=\\\"-stdlib"), "{yaml}");
        assert!(!yaml.contains("no libc++"), "{yaml}");
        assert!(yaml.contains("kept"), "{yaml}");
        assert!(yaml.contains("conflict on compiler flags"), "{yaml}");
    }

    /// A `url_for_version` that reads a class attribute through the class
    /// (`Dated.stable`), as lammps' does, places every version.
    #[test]
    fn build_tools_and_compiler_tags_make_a_build_tool() {
        let tagged = |tags: &str| {
            let src = format!(
                "class Cy(PythonPackage):\n    \"\"\"Cy.\"\"\"\n    url = \"https://example.org/cy-3.1.tgz\"\n    tags = {tags}\n    version(\"3.1\", sha256=\"0\" * 64)\n"
            );
            let c = convert("cy", &src, Path::new("/nonexistent"), &Origin::default());
            let yaml = c.to_yaml();
            (yaml.contains("build_tool: true"), yaml)
        };
        for tags in [r#"["build-tools"]"#, r#"["e4s", "compiler"]"#] {
            let (tool, yaml) = tagged(tags);
            assert!(tool, "{tags}: {yaml}");
            assert!(!yaml.contains("untranslated"), "{yaml}");
        }
        let (tool, yaml) = tagged(r#"["e4s"]"#);
        assert!(!tool, "{yaml}");
    }

    #[test]
    fn url_methods_read_class_attributes_through_the_class_name() {
        let src = r#"
import datetime as dt
class Dated(CMakePackage):
    """Dated."""
    version("20250722", sha256="1" * 64)
    version("20240829.4", sha256="2" * 64)
    version("20250612", sha256="3" * 64)
    stable = {"20250722", "20240829.4"}

    def url_for_version(self, version):
        parts = str(version).split(".")
        day = dt.datetime.strptime(parts[0], "%Y%m%d")
        update = "" if len(parts) < 2 else "_update{0}".format(parts[1])
        return "https://example.org/{0}_{1}{2}.tar.gz".format(
            "stable" if str(version) in Dated.stable else "patch",
            day.strftime("%d%b%Y").lstrip("0"),
            update,
        )
"#;
        let c = convert("dated", src, Path::new("/nonexistent"), &Origin::default());
        let yaml = c.to_yaml();
        assert!(
            yaml.contains("https://example.org/stable_22Jul2025.tar.gz"),
            "{yaml}"
        );
        assert!(
            yaml.contains("https://example.org/stable_29Aug2024_update4.tar.gz"),
            "{yaml}"
        );
        assert!(
            yaml.contains("https://example.org/patch_12Jun2025.tar.gz"),
            "{yaml}"
        );
    }

    /// A class body that picks its archives by `host_platform().default_os`
    /// (aqlprofile) reads the generic branch: the translation does not depend
    /// on the machine that runs it.
    #[test]
    fn class_level_os_tests_take_the_generic_branch() {
        let src = r#"
_files = {
    "2.0": {
        "apt": ("1111111111111111111111111111111111111111111111111111111111111111", "https://example.org/p_2.0.deb"),
        "yum": ("2222222222222222222222222222222222222222222222222222222222222222", "https://example.org/p-2.0.rpm"),
    },
}
class Profiled(Package):
    """Profiled."""
    spack_os = host_platform().default_os
    if "rhel" in spack_os or "centos" in spack_os:
        pkg_type = "yum"
    elif "sles" in spack_os:
        pkg_type = "zyp"
    else:
        pkg_type = "apt"
    for ver, packages in _files.items():
        pkg = packages.get(pkg_type)
        if pkg:
            version(ver, sha256=pkg[0], url=pkg[1], expand=False)
"#;
        let c = convert(
            "profiled",
            src,
            Path::new("/nonexistent"),
            &Origin::default(),
        );
        let yaml = c.to_yaml();
        assert!(yaml.contains("https://example.org/p_2.0.deb"), "{yaml}");
        assert!(!yaml.contains("p-2.0.rpm"), "{yaml}");
        assert!(yaml.contains("expand: false"), "{yaml}");
    }

    /// A package without code (`has_code = False`, python-venv) has
    /// versions with nothing to fetch: they are `source: none`, not left out.
    #[test]
    fn versions_of_packages_without_code_have_no_source() {
        let src = r#"
class Venvish(Package):
    """Venvish."""
    has_code = False
    version("1.0")
    extends("python")

    def install(self, spec, prefix):
        python("-m", "venv", "--without-pip", prefix)
"#;
        let c = convert(
            "venvish",
            src,
            Path::new("/nonexistent"),
            &Origin::default(),
        );
        let yaml = c.to_yaml();
        assert!(yaml.contains("source: none"), "{yaml}");
        assert!(
            yaml.contains("version: '1.0'") || yaml.contains("version: \"1.0\""),
            "{yaml}"
        );
    }

    /// Regression: `conditional(…)` inside `disjoint_sets(…)` was written
    /// as the value `<object>`; the variant is now reported instead.
    #[test]
    fn objects_among_variant_values_are_reported_not_written() {
        let src = r#"
class Plugins(CMakePackage):
    """Plugins."""
    url = "https://example.org/plugins-1.0.tgz"
    version("1.0", sha256="0" * 64)
    available = (conditional("jade", when="@2:"), conditional("trackjet", when="@2:"))
    variant("plugins", values=disjoint_sets(("all",), available).with_default("all"), description="p")
"#;
        let c = convert(
            "plugins",
            src,
            Path::new("/nonexistent"),
            &Origin::default(),
        );
        let yaml = c.to_yaml();
        assert!(!yaml.contains("<object>"), "{yaml}");
        assert!(yaml.contains("conditional(…)"), "{yaml}");
        assert!(!c.directives_complete(), "{yaml}");
    }

    /// Regression: a variant named `gni-cookie` was written
    /// `variants.gni-cookie`, which tera reads as a subtraction.
    #[test]
    fn dashed_variant_names_are_subscripted_in_templates() {
        let src = r#"
class Dashed(CMakePackage):
    """Dashed."""
    url = "https://example.org/dashed-1.0.tgz"
    version("1.0", sha256="0" * 64)
    variant("gni-cookie", default=False, description="g")
    variant("use_x", default=False, description="x")

    def cmake_args(self):
        return [self.define_from_variant("GNI", "gni-cookie"), self.define_from_variant("X", "use_x")]
"#;
        let c = convert("dashed", src, Path::new("/nonexistent"), &Origin::default());
        let yaml = c.to_yaml();
        assert!(yaml.contains("variants['gni-cookie']"), "{yaml}");
        assert!(yaml.contains("variants.use_x"), "{yaml}");
        assert!(!yaml.contains("variants.gni-cookie"), "{yaml}");
    }

    /// Regression: a key defined twice (an attribute and a method, or a
    /// method redefined in a builder class) was written twice, which is
    /// invalid YAML.
    #[test]
    fn build_keys_defined_twice_are_written_once() {
        let src = r#"
class Twice(AutotoolsPackage):
    """Twice."""
    url = "https://example.org/twice-1.0.tgz"
    version("1.0", sha256="0" * 64)
    force_autoreconf = True

    def autoreconf(self, spec, prefix):
        autoreconf("-fi")

    def configure_args(self):
        return ["--a"]


class AutotoolsBuilder(autotools.AutotoolsBuilder):
    def configure_args(self):
        return ["--b"]
"#;
        let c = convert("twice", src, Path::new("/nonexistent"), &Origin::default());
        let yaml = c.to_yaml();
        assert_eq!(yaml.matches("configure_args:").count(), 1, "{yaml}");
        assert_eq!(yaml.matches("autoreconf:").count(), 1, "{yaml}");
        assert!(yaml.contains("configure_args: [\"--b\"]"), "{yaml}");
    }
}
