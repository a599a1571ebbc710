//! `patch()` (every build system) and a Makefile package's `edit()` made
//! only of file filters → `build.filter:` entries. `patch()` runs after
//! the patch files (Spack's order), `edit()` at the start of the build:
//! both before anything reads the files, so the stack applies them to the
//! staged source, `patch()`'s first.

use crate::import::yaml_out::Yaml;

use crate::import::spack::directives::model::{Kind, Method, SpackPackage};
use crate::import::spack::directives::sections::Sections;
use crate::import::spack::evaluator::collected::FilterItem;
use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::hooks::run::run_hook;
use crate::import::spack::hooks::shape::method_when;

/// Whether `m` is a file-edit method this build system runs on the source.
pub(crate) fn is_edit_method(m: &Method, system: &str) -> bool {
    m.name == "patch" || (m.name == "edit" && system == "makefile")
}

/// Translate `m` into filters added to `build`, or record why not.
pub(crate) fn edit_method(
    pkg: &mut SpackPackage,
    s: &Sections,
    m: &Method,
    build: &mut Vec<(String, Yaml)>,
) {
    let construct = format!("method {}", m.name);
    match filters_of(pkg, s, m) {
        Ok(list) => {
            let at = match build.iter().position(|(k, _)| k == "filter") {
                Some(i) => i,
                None => {
                    build.push(("filter".into(), Yaml::Seq(Vec::new())));
                    build.len() - 1
                }
            };
            if let Yaml::Seq(items) = &mut build[at].1 {
                if m.name == "patch" {
                    items.splice(0..0, list);
                } else {
                    items.extend(list);
                }
            }
        }
        Err((line, why)) => pkg.untranslated(line, Kind::Build, construct, why),
    }
}

fn filters_of(pkg: &SpackPackage, s: &Sections, m: &Method) -> Result<Vec<Yaml>, (usize, String)> {
    if pkg.methods.iter().filter(|o| o.name == m.name).count() > 1 {
        return Err((m.line, format!("{} defined more than once", m.name)));
    }
    // Spack runs `edit()`, like every phase method, in the source tree
    // (MakefileBuilder's own build and install enter `build_directory`;
    // an `edit()` that wants it says `with working_dir(self.build_directory)`).
    let when = method_when(m).map_err(|_| (m.line, "decorated method".to_string()))?;
    let p = run_hook(pkg, s, m).map_err(|e| (e.line, e.what))?;
    if p.args.is_some() || !p.install.is_empty() || !p.env.is_empty() {
        return Err((m.line, "build logic besides file filters".into()));
    }
    if p.filters.is_empty() {
        return Err((m.line, "edits nothing the importer understands".into()));
    }
    let outer = when.map_or(Cond::True, Cond::Spec);
    p.filters
        .iter()
        .filter_map(|f| filter_yaml(&outer, f).transpose())
        .collect::<Result<Vec<_>, String>>()
        .map_err(|why| (m.line, why))
}

fn filter_yaml(outer: &Cond, f: &FilterItem) -> Result<Option<Yaml>, String> {
    let cond = outer.clone().and(f.cond.clone());
    if cond == Cond::False {
        return Ok(None);
    }
    let when = cond.as_when().ok_or_else(|| {
        format!(
            "filter of {} under a condition that is not a spec",
            f.filter.file
        )
    })?;
    let ff = &f.filter;
    Ok(Some(Yaml::map([
        ("file", Some(Yaml::str(&ff.file))),
        ("regex", Some(Yaml::str(&ff.regex))),
        ("replace", Some(Yaml::str(&ff.replace))),
        ("string", ff.string.then_some(Yaml::Bool(true))),
        (
            "ignore_absent",
            ff.ignore_absent.then_some(Yaml::Bool(true)),
        ),
        ("when", when.map(Yaml::str)),
    ])))
}
