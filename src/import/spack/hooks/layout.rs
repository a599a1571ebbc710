//! Class attributes on where and how make runs, translated into `make_args`
//! or recorded as info.

use crate::import::yaml_out::Yaml;

use crate::import::spack::directives::model::{Kind, SpackPackage};
use crate::import::spack::evaluator::value::Value;

/// Attributes on where and how make runs, with a translation: `parallel =
/// False` (makefile, autotools) → `-j1` in `make_args`; autotools'
/// `build_directory = "spack-build"` → `out_of_source: true`; CMake's
/// `root_cmakelists_dir` and Autotools' `configure_directory` → `source_subdir`; a makefile's
/// `build_directory` → `-C DIR` in `make_args`; a Python package's
/// `build_directory` → the directory pip installs from; the `build_directory` of
/// CMake or Meson only names the out-of-source directory, which the stack
/// chooses itself (info). Returns whether the attribute was handled.
pub(crate) fn layout_attribute(
    pkg: &mut SpackPackage,
    name: &str,
    value: &Value,
    line: usize,
    system: &str,
    build: &mut Vec<(String, Yaml)>,
) -> bool {
    match (name, system, value) {
        ("parallel", "makefile" | "autotools", Value::Bool(false)) => {
            prepend_args(build, "make_args", &["-j1"]);
        }
        ("build_directory", "makefile", Value::Str(dir)) if !dir.contains("{{") => {
            prepend_args(build, "make_args", &["-C", dir]);
        }
        ("build_directory", "python_pip", Value::Str(dir)) if pip_directory(build, dir) => {}
        ("build_directory", "autotools", Value::Str(dir)) if is_fresh_build_dir(dir) => {
            build.push(("out_of_source".into(), Yaml::Bool(true)));
        }
        ("root_cmakelists_dir", "cmake", Value::Str(dir))
        | ("configure_directory", "autotools", Value::Str(dir))
            if is_subdir(dir) =>
        {
            build.push(("source_subdir".into(), Yaml::str(dir)));
        }
        ("build_directory", "cmake" | "meson", Value::Str(dir)) => {
            let detail =
                format!("{dir:?}: the stack builds out of source in a directory of its own");
            pkg.untranslated(line, Kind::Info, "attribute build_directory", detail);
        }
        _ => return false,
    }
    true
}

/// A relative path inside the source tree.
fn is_subdir(dir: &str) -> bool {
    !dir.is_empty()
        && !dir.starts_with('/')
        && !dir.contains("{{")
        && dir.split('/').all(|c| c != "..")
}

/// A build directory of autotools that is not a directory of the tarball
/// (`spack-build`, `build`): only "configure out of source" matters.
fn is_fresh_build_dir(dir: &str) -> bool {
    matches!(dir, "build" | "_build") || dir.starts_with("spack-build")
}

/// A Python package's `build_directory` (where its `pyproject.toml` or
/// `setup.py` is) as the directory `pip install` installs from.
fn pip_directory(build: &mut [(String, Yaml)], dir: &str) -> bool {
    let Some((_, Yaml::Map(steps))) = build.iter_mut().find(|(k, _)| k == "steps") else {
        return false;
    };
    let Some((_, Yaml::Seq(calls))) = steps.iter_mut().find(|(k, _)| k == "pre_install") else {
        return false;
    };
    match calls.first_mut() {
        Some(Yaml::Seq(argv)) if matches!(argv.last(), Some(Yaml::Str(s)) if s == ".") => {
            // `./`: pip reads a bare word as a requirement name.
            let path = if dir.starts_with(['.', '/']) {
                dir.to_string()
            } else {
                format!("./{dir}")
            };
            *argv.last_mut().expect("not empty") = Yaml::str(path);
            true
        }
        _ => false,
    }
}

/// Put `args` first in the argument list `key` of `build:`.
pub(crate) fn prepend_args(build: &mut Vec<(String, Yaml)>, key: &str, args: &[&str]) {
    let mut items: Vec<Yaml> = args.iter().map(|a| Yaml::str(*a)).collect();
    match build.iter_mut().find(|(k, _)| k == key) {
        Some((_, Yaml::Seq(old))) => {
            items.append(old);
            *old = items;
        }
        Some((_, other)) => {
            items.push(other.clone());
            *other = Yaml::Seq(items);
        }
        None => build.push((key.to_string(), Yaml::Seq(items))),
    }
}
