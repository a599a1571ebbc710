//! Base classes imported from another package of the repository
//! (`from spack_repo.builtin.packages.fftw.package import FftwBase`): the
//! sibling package.py is read, and the base's directives and class
//! attributes apply to the package before its own, as Python's inheritance
//! has it. The base's methods are in another file, which the hook translator
//! does not read: each one the package does not override is reported.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{LazyLock, Mutex};

use crate::import::spack::directives::attribute_kinds::INFO_METHODS;
use crate::import::spack::directives::bases::base_directives;
use crate::import::spack::directives::class_body;
use crate::import::spack::directives::imports::{Siblings, imported_attributes, imported_classes};
use crate::import::spack::directives::model::{Kind, SpackPackage};

/// Replace each base class of `pkg` that is imported from a sibling
/// package by that class's own bases, its directives and attributes.
pub fn merge(pkg: &mut SpackPackage, src: &str, siblings: Siblings) {
    let imported = imported_classes(src);
    let mut bases = Vec::new();
    for base in pkg.bases.clone() {
        let found = imported.iter().find(|c| c.class == base);
        let other = match found {
            Some(c) if base_directives(&base).is_none() => siblings
                .dir_of(c.namespace.as_deref(), &c.module)
                .and_then(|packages| read(siblings.with_dir(&packages), &c.module, &base)),
            _ => None,
        };
        let Some(other) = other else {
            bases.push(base);
            continue;
        };
        let module = found.map(|c| c.module.clone()).unwrap_or_default();
        apply(pkg, &other, &format!("{module}/package.py"));
        for b in &other.bases {
            if !bases.contains(b) {
                bases.push(b.clone());
            }
        }
    }
    pkg.bases = bases;
}

/// The sibling's class, read once per process (a base such as `QtBase` is
/// shared by many packages).
fn read(siblings: Siblings, module: &str, class: &str) -> Option<SpackPackage> {
    type Cache = Mutex<HashMap<(PathBuf, String), Option<SpackPackage>>>;
    static CACHE: LazyLock<Cache> = LazyLock::new(Cache::default);
    let key = (siblings.packages.join(module), class.to_string());
    if let Some(hit) = CACHE.lock().ok()?.get(&key) {
        return hit.clone();
    }
    let other = read_uncached(siblings, module, class);
    CACHE.lock().ok()?.insert(key, other.clone());
    other
}

fn read_uncached(siblings: Siblings, module: &str, class: &str) -> Option<SpackPackage> {
    let file = crate::import::spack::directives::imports::sibling_file(siblings.packages, module)?;
    let (attributes, _) = imported_attributes(&file.text, siblings);
    let other = class_body::read_package_with(class, &file.parsed, attributes);
    (other.class_name == class).then_some(other)
}

/// The base's directives and attributes first (line 0: not in this file),
/// its unreadable directives and its methods reported.
fn apply(pkg: &mut SpackPackage, other: &SpackPackage, file: &str) {
    let class = &other.class_name;
    let mut directives: Vec<_> = other.directives.clone();
    for d in &mut directives {
        d.line = 0;
    }
    directives.append(&mut pkg.directives);
    pkg.directives = directives;
    let mut attributes: Vec<_> = other
        .attributes
        .iter()
        .map(|(n, v, _)| (n.clone(), v.clone(), 0))
        .collect();
    attributes.append(&mut pkg.attributes);
    pkg.attributes = attributes;
    for u in other
        .untranslated
        .iter()
        .filter(|u| u.kind == Kind::Directive)
    {
        let detail = format!("{class} ({file} line {}): {}", u.line, u.detail);
        pkg.untranslated(0, Kind::Directive, u.construct.clone(), detail);
    }
    for m in &other.methods {
        if pkg
            .methods
            .iter()
            .any(|o| o.name == m.name && o.builder == m.builder)
        {
            continue;
        }
        let name = m.name.as_str();
        let info =
            INFO_METHODS.contains(&name) || name.starts_with("test") || name.starts_with('_');
        let kind = if info { Kind::Info } else { Kind::Build };
        let detail = format!("inherited from {class} ({file} line {})", m.line);
        pkg.untranslated(0, kind, format!("method {name}"), detail);
    }
}
