//! Class attributes of other packages a package.py imports
//! (`from spack_repo.builtin.packages.boost.package import Boost`, then
//! `depends_on(Boost.with_default_variants)`): the sibling package.py is
//! read and its literal class attributes are put in scope as `Boost.<name>`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

use crate::import::confined;
use crate::import::repos::Repos;
use crate::import::spack::directives::class_body;
use crate::import::spack::directives::model::SpackPackage;
use crate::import::spack::evaluator::value::Value;
use crate::import::spack::reader::parsed::{ParseError, Parsed};

/// `Class.method()` → the method's source.
pub type Helpers = Vec<(String, String)>;

/// An imported class: the namespace of its package module (`None`: a
/// relative `from ..<module>.package`), the module's directory, the class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedClass {
    pub namespace: Option<String>,
    pub module: String,
    pub class: String,
}

/// The classes of each `from spack_repo.<ns>.packages.<module>.package
/// import <class>[, <class>…]` (or `from ..<module>.package import …`)
/// line of `src`.
pub fn imported_classes(src: &str) -> Vec<ImportedClass> {
    let mut out = Vec::new();
    for line in src.lines() {
        let line = line.trim();
        // `from ..pdi.package import Pdi` names a sibling package too.
        let (namespace, rest) = if let Some(rest) = line.strip_prefix("from spack_repo.") {
            let Some((ns, rest)) = rest.split_once(".packages.") else {
                continue;
            };
            (Some(ns.to_string()), rest)
        } else if let Some(rest) = line.strip_prefix("from ..") {
            (None, rest)
        } else {
            continue;
        };
        let Some((module, names)) = rest.split_once(".package import ") else {
            continue;
        };
        // A module is one directory of the repository (`../x`, `//abs`:
        // none).
        let identifier =
            |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier(module) || !namespace.as_deref().is_none_or(identifier) {
            continue;
        }
        for name in names.split(',') {
            // `X as Y` is used as `Y`.
            let name = name.trim().rsplit(" as ").next().unwrap_or("").trim();
            if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                out.push(ImportedClass {
                    namespace: namespace.clone(),
                    module: module.to_string(),
                    class: name.to_string(),
                });
            }
        }
    }
    out
}

/// Where the package modules a package.py imports are found: the packages
/// directory of the file being read and, for a whole import, every
/// repository by namespace.
#[derive(Clone, Copy, Debug)]
pub struct Siblings<'a> {
    pub packages: &'a Path,
    pub repos: Option<&'a Repos>,
}

impl Siblings<'_> {
    /// The packages directory holding `<module>/package.py`: a repository
    /// of the namespace named, else the file's own (a directory without a
    /// `repo.yaml` that imports `spack_repo.builtin.packages.x` from
    /// itself).
    pub fn dir_of(&self, namespace: Option<&str>, module: &str) -> Option<PathBuf> {
        let has = |dir: &Path| confined::is_dir_below(dir, module);
        let named = namespace
            .zip(self.repos)
            .and_then(|(ns, repos)| repos.of(ns).find(|r| has(&r.packages)))
            .map(|r| r.packages.clone());
        named.or_else(|| has(self.packages).then(|| self.packages.to_path_buf()))
    }

    /// The same lookup for a file of the packages directory `packages`.
    pub fn with_dir<'b>(&self, packages: &'b Path) -> Siblings<'b>
    where
        Self: 'b,
    {
        Siblings {
            packages,
            repos: self.repos,
        }
    }
}

/// `Class.attr` → value for the classes `src` imports from other packages
/// (a package that cannot be read adds nothing: the attribute stays
/// unevaluable and is reported where it is used).
/// Also returns `Class.method()` → source of each `@staticmethod` of those
/// classes.
pub fn imported_attributes(src: &str, siblings: Siblings) -> (Vec<(String, Value)>, Helpers) {
    let mut out = Vec::new();
    let mut helpers = Vec::new();
    for c in imported_classes(src) {
        let Some(packages) = siblings.dir_of(c.namespace.as_deref(), &c.module) else {
            continue;
        };
        if let Some(class_scope) = class_scope(&packages, &c.module, &c.class) {
            out.extend(class_scope.attributes.iter().cloned());
            helpers.extend(class_scope.helpers.iter().cloned());
        }
    }
    (out, helpers)
}

/// The text of `<packages>/<module>/package.py`, read strictly below
/// `packages` (never through a link).
pub fn read_sibling(packages: &Path, module: &str) -> Option<String> {
    let bytes = crate::import::confined::read_below(packages, &format!("{module}/package.py"));
    bytes.ok().map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// A sibling package.py, read and parsed once per process: the files
/// others import from (`boost`, `cuda`, `qt-base`) serve both their
/// imported attributes and the base classes defined in them.
pub struct SiblingFile {
    pub text: String,
    pub parsed: Result<Arc<Parsed>, ParseError>,
}

/// [`SiblingFile`] of `<packages>/<module>/package.py` (`None`: not read).
pub fn sibling_file(packages: &Path, module: &str) -> Option<Arc<SiblingFile>> {
    type Cache = Mutex<HashMap<PathBuf, Option<Arc<SiblingFile>>>>;
    static CACHE: LazyLock<Cache> = LazyLock::new(Cache::default);
    let key = packages.join(module);
    if let Some(hit) = CACHE.lock().ok()?.get(&key) {
        return hit.clone();
    }
    let file = read_sibling(packages, module).map(|text| {
        let parsed = Parsed::new(&text);
        Arc::new(SiblingFile { text, parsed })
    });
    CACHE.lock().ok()?.insert(key, file.clone());
    file
}

/// What one imported class puts in scope.
struct ClassScope {
    attributes: Vec<(String, Value)>,
    helpers: Helpers,
}

/// The scope of `class` of `file`, read once per process: a sibling such as
/// `boost` or `cuda` is imported by hundreds of packages, and `--all`
/// parsed it again for each one.
fn class_scope(packages: &Path, module: &str, class: &str) -> Option<Arc<ClassScope>> {
    type Cache = Mutex<HashMap<(PathBuf, String), Option<Arc<ClassScope>>>>;
    static CACHE: LazyLock<Cache> = LazyLock::new(Cache::default);
    let key = (packages.join(module), class.to_string());
    if let Some(hit) = CACHE.lock().ok()?.get(&key) {
        return hit.clone();
    }
    let scope = read_class_scope(packages, module, class).map(Arc::new);
    CACHE.lock().ok()?.insert(key, scope.clone());
    scope
}

fn read_class_scope(packages: &Path, module: &str, class: &str) -> Option<ClassScope> {
    let file = sibling_file(packages, module)?;
    let text = &file.text;
    let other = class_body::read_base_parsed(module, &file.parsed);
    if other.class_name != class {
        return other_class_helpers(&other, text, class);
    }
    let mut attributes: Vec<_> = other
        .attributes
        .iter()
        .map(|(name, value, _)| (format!("{class}.{name}"), value.clone()))
        .collect();
    // `Class.versions`: Spack's dict of version → the directive's keywords.
    let versions = other.directives("version").filter_map(|d| {
        let v = d.arg_str(0)?;
        let kwargs = d
            .kwargs
            .iter()
            .map(|(k, v)| (Value::Str(k.clone()), v.clone()));
        Some((Value::Str(v.to_string()), Value::Dict(kwargs.collect())))
    });
    attributes.push((format!("{class}.versions"), Value::Dict(versions.collect())));
    let helpers = static_helpers(&other, text, class, |_| true);
    Some(ClassScope {
        attributes,
        helpers,
    })
}

/// A class of the file other than its package class (`QtPackage`, the base
/// of `QtBase` in qt-base's file, which the other qt-* packages import):
/// its static methods, read as part of the package class's local bases.
fn other_class_helpers(other: &SpackPackage, text: &str, class: &str) -> Option<ClassScope> {
    let start = text.find(&format!("\nclass {class}("))? + 1;
    let end = text[start + 1..]
        .find("\nclass ")
        .map_or(text.len(), |i| start + 1 + i);
    let helpers = static_helpers(other, text, class, |r| r.start > start && r.end <= end);
    Some(ClassScope {
        attributes: Vec::new(),
        helpers,
    })
}

/// The static methods of `class` (those whose source range `within` takes)
/// as `Class.name()` → their source, the helpers class attributes may call.
fn static_helpers(
    other: &SpackPackage,
    text: &str,
    class: &str,
    within: impl Fn(&std::ops::Range<usize>) -> bool,
) -> Helpers {
    other
        .methods
        .iter()
        .filter(|m| within(&m.range))
        .filter(|m| m.builder.is_none() && m.decorators.iter().any(|d| d == "staticmethod"))
        .map(|m| {
            (
                format!("{class}.{}()", m.name),
                text[m.range.clone()].to_string(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_lines_name_module_and_class() {
        let src = "from spack_repo.builtin.packages.boost.package import Boost\n\
                   from spack_repo.builtin.packages.qt_base.package import QtBase, QtPackage\n\
                   from spack_repo.builtin.build_systems.cmake import CMakePackage\n";
        let got: Vec<(Option<String>, String, String)> = imported_classes(src)
            .into_iter()
            .map(|c| (c.namespace, c.module, c.class))
            .collect();
        let b = Some("builtin".to_string());
        assert_eq!(
            got,
            vec![
                (b.clone(), "boost".to_string(), "Boost".to_string()),
                (b.clone(), "qt_base".to_string(), "QtBase".to_string()),
                (b, "qt_base".to_string(), "QtPackage".to_string()),
            ]
        );
    }

    #[test]
    fn attributes_of_a_sibling_package_are_in_scope() {
        let dir = tempfile::tempdir().unwrap();
        let boost = dir.path().join("boost");
        fs_err::create_dir_all(&boost).unwrap();
        fs_err::write(
            boost.join("package.py"),
            "class Boost(Package):\n    with_default_variants = \"boost\" + \"\".join([\"+a\", \"+b\"])\n",
        )
        .unwrap();
        let src = "from spack_repo.builtin.packages.boost.package import Boost\n";
        let siblings = Siblings {
            packages: dir.path(),
            repos: None,
        };
        let (attrs, helpers) = imported_attributes(src, siblings);
        assert!(helpers.is_empty());
        assert_eq!(
            attrs,
            vec![
                (
                    "Boost.with_default_variants".to_string(),
                    Value::Str("boost+a+b".into())
                ),
                ("Boost.versions".to_string(), Value::Dict(Vec::new())),
            ]
        );
    }
}
