//! Packages whose build logic runs from their package.py at build time
//! (`build: {system: spack}`, DESIGN §14): when some of it is not fully
//! expressed in YAML — a method or hook left untranslated, a build system
//! with no stack kind (R, Perl, Go, Cargo, …) — the recipe names the
//! package.py and every package.py it imports, with their sha256, instead
//! of a half-translated build section. The directives stay translated
//! statically (resolution never runs Python); the untranslated methods are
//! kept as `info` items, so a reviewer sees what runs in Python.

use crate::import::yaml_out::Yaml;

use crate::import::spack::directives::model::{Kind, Untranslated};
use crate::import::spack::emit::converted::Converted;
use crate::import::spack::emit::package_files::{IMPORT_MISSING, PackageFile};
use crate::import::spack::emit::per_arch::{get_mut, set};

/// Untranslated `build` constructs that running package.py does not
/// settle: what they describe happens before any Python runs (sources,
/// patch files, the files the package loads).
const NOT_RUN: &[&str] = &[
    "directive resource",
    "dependency patches",
    "directive patch",
    "patch working_dir",
    "patch without sha256",
    "patch file missing",
    "patch file refused",
    IMPORT_MISSING,
];

/// Whether `u` is build logic that runs from package.py at build time.
pub fn runs_from_package(u: &Untranslated) -> bool {
    u.kind == Kind::Build && !NOT_RUN.contains(&u.construct.as_str())
}

/// Whether the package's build is not fully expressed in YAML. An
/// external-only package (`build: {system: external}`) that declares no
/// version stays external: a `system: spack` recipe needs a version to
/// build, an external names the cluster's (msvc, whose helper classes are
/// build logic).
pub fn needs_package_py(c: &Converted) -> bool {
    let external_build = Yaml::Map(vec![("system".into(), Yaml::str("external"))]);
    let Yaml::Map(entries) = &c.recipe else {
        return false;
    };
    let has =
        |key: &str, pred: &dyn Fn(&Yaml) -> bool| entries.iter().any(|(k, v)| k == key && pred(v));
    let versionless_external = has("build", &|v| *v == external_build)
        && !has(
            "versions",
            &|v| matches!(v, Yaml::Seq(vs) if !vs.is_empty()),
        );
    !versionless_external && c.untranslated.iter().any(runs_from_package)
}

/// Make `c` a `system: spack` recipe that runs `package` (with `imports`),
/// when it needs to; `problems` are the imports that could not be read.
pub fn apply(
    c: &mut Converted,
    package: PackageFile,
    imports: Vec<PackageFile>,
    problems: Vec<Untranslated>,
) {
    if !needs_package_py(c) {
        return;
    }
    let entry = |f: &PackageFile| {
        Yaml::map([
            ("file", Some(Yaml::str(&f.file))),
            ("sha256", Some(Yaml::str(f.sha256()))),
        ])
    };
    let imports_yaml =
        (!imports.is_empty()).then(|| Yaml::Seq(imports.iter().map(entry).collect()));
    let build = Yaml::map([
        ("system", Some(Yaml::str("spack"))),
        ("package", Some(entry(&package))),
        ("imports", imports_yaml),
    ]);
    set(&mut c.recipe, "build", Some(build));
    // Every build system runs from package.py: none is excluded.
    // The run environment comes from the package's own
    // `setup_run_environment`, run at build time.
    set(&mut c.recipe, "env", None);
    for u in &mut c.untranslated {
        if u.construct == "build system not translated" {
            u.detail = format!(
                "{}: runs from package.py at build time",
                u.detail.split(':').next().unwrap_or("")
            );
        }
        if runs_from_package(u) {
            u.kind = Kind::Info;
            if !u.detail.is_empty() {
                u.detail.push_str("; ");
            }
            u.detail.push_str("runs from package.py at build time");
        }
    }
    c.untranslated.extend(problems);
    c.untranslated.sort();
    c.untranslated.dedup();
    let items = crate::import::spack::emit::recipe::untranslated_items(&c.untranslated);
    if let Some(imported) = get_mut(&mut c.recipe, "imported") {
        set(imported, "untranslated", items);
    }
    c.package_files.push(package);
    c.package_files.extend(imports);
}
