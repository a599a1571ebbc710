//! Spack `package.py` → stack package recipe.
//!
//! Each package.py is parsed once; the folders are the steps of the
//! conversion, in order, and each uses only itself and the ones before it
//! (checked by `layer_tests`):
//!
//! | folder | step |
//! |--------|------|
//! | [`reader`] | the parse: text and syntax tree (`reader::parsed::Parsed`), which every later step walks by node |
//! | [`evaluator`] | Python evaluated: literal values (`value`, `calls`, `loops`), spec conditions (`cond`), hook expressions → templates (`exprs`), statements of method bodies and module-level statements walked by one walker (`walk`) with a collector per consumer (`statements`, `filters`, `url_method`, `hooks::flags`, `directives::module`, `directives::class_body`) |
//! | [`directives`] | the class body → directives, attributes, methods (`class_body`, `blocks`, `lists`, `bases`, `imports`, `sibling_bases`) → versions, variants, dependencies, … (`translate`, `versions`, `resource`) |
//! | [`hooks`] | methods → the `build:` section and `env:` (`build_section`, `flags`, `install`, `patch`, `property`) |
//! | [`emit`] | the recipe assembled (`recipe`, `converted`), readings per architecture merged (`per_arch`), build logic left to package.py (`build_logic`, `package_files`) |
//!
//! `api_check` reads package.py files for `stack check` (the calls the
//! package API layer lacks; Python's own names in `python_builtins`).

pub mod api_check;
pub mod directives;
pub mod emit;
pub mod evaluator;
#[cfg(test)]
mod fidelity_tests;
pub mod hooks;
#[cfg(test)]
mod layer_tests;
#[cfg(test)]
mod loading_tests;
mod python_builtins;
pub mod reader;

use std::path::Path;
use std::sync::Arc;

use super::yaml_out::Yaml;
pub use api_check::{ApiGap, ApiListing, unsupported_api};
pub use directives::model;
pub use directives::model::{Kind, Untranslated};
pub use emit::converted::{Converted, NotWritten, Origin};
use emit::recipe::{assemble, not_written};
pub use emit::{build_logic, package_files};
pub(crate) use evaluator::cond::COMPILERS;

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
    if !directives::machine::machine_dependent(src) {
        return convert_for(name, file, (pkg_dir, siblings), origin, None);
    }
    let readings = directives::machine::ARCHES
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
        attributes.extend(directives::machine::platform_names(m));
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
