//! Base classes defined in the package.py itself (fftw's `FftwBase`): their
//! directives and hooks apply to the package, as Python's inheritance has it.

use tree_sitter::Node;

use crate::import::spack::directives::model::SpackPackage;
use crate::import::spack::evaluator::value::text;

fn name_of<'s>(class: Node, src: &'s str) -> &'s str {
    class
        .child_by_field_name("name")
        .map(|n| text(n, src))
        .unwrap_or("")
}

/// The names of a class's base classes as written (last dotted part).
pub(crate) fn base_names(class: Node, src: &str) -> Vec<String> {
    let Some(bases) = class.child_by_field_name("superclasses") else {
        return Vec::new();
    };
    let mut cursor = bases.walk();
    bases
        .named_children(&mut cursor)
        .filter(|b| b.kind() != "keyword_argument")
        .map(|b| text(b, src).rsplit('.').next().unwrap_or("").to_string())
        .collect()
}

/// The classes of `classes` that `main` inherits from, the most basic
/// first (each before the classes deriving from it).
pub(crate) fn local_bases<'t>(main: Node<'t>, classes: &[Node<'t>], src: &str) -> Vec<Node<'t>> {
    let mut out: Vec<Node<'t>> = Vec::new();
    collect(main, classes, src, &mut out, 0);
    out
}

fn collect<'t>(
    class: Node<'t>,
    classes: &[Node<'t>],
    src: &str,
    out: &mut Vec<Node<'t>>,
    depth: usize,
) {
    if depth > 8 {
        return; // a cycle is a Python error; do not loop on it
    }
    for base in base_names(class, src) {
        let Some(b) = classes.iter().find(|c| name_of(**c, src) == base) else {
            continue;
        };
        if b.id() == class.id() || out.iter().any(|o| o.id() == b.id()) {
            continue;
        }
        collect(*b, classes, src, out, depth + 1);
        out.push(*b);
    }
}

/// After the local bases and then the package class were read into `pkg`:
/// the package's bases are the library bases they name (a local base
/// replaced by its own bases), and a method the package class defines
/// replaces the bases' method of that name (`first_own`: index of the
/// package class's first method).
pub(crate) fn merge(pkg: &mut SpackPackage, local: &[(String, Vec<String>)], first_own: usize) {
    let mut bases = Vec::new();
    expand(&pkg.bases.clone(), local, &mut bases, 0);
    pkg.bases = bases;
    let own: Vec<(String, Option<String>)> = pkg.methods[first_own..]
        .iter()
        .map(|m| (m.name.clone(), m.builder.clone()))
        .collect();
    let mut i = 0;
    pkg.methods.retain(|m| {
        i += 1;
        i > first_own || !own.iter().any(|(n, b)| *n == m.name && *b == m.builder)
    });
}

fn expand(names: &[String], local: &[(String, Vec<String>)], out: &mut Vec<String>, depth: usize) {
    for n in names {
        match local.iter().find(|(l, _)| l == n) {
            Some((_, inner)) if depth < 8 => expand(inner, local, out, depth + 1),
            _ => {
                if !out.contains(n) {
                    out.push(n.clone());
                }
            }
        }
    }
}
