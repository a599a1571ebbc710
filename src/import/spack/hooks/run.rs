//! Running a method of the package: its `def` found in the one parsed
//! tree and handed to the evaluator; what it gives set in the build
//! section.

use tree_sitter::Node;

use crate::import::spack::directives::model::{Method, SpackPackage};
use crate::import::spack::directives::sections::Sections;
use crate::import::spack::evaluator::collected::Produced;
use crate::import::spack::evaluator::statements::run_method_in;
use crate::import::spack::evaluator::value::{Eval, Unevaluable};
use crate::import::yaml_out::Yaml;

/// Run `f` on the `def` of `m` in the package's one parsed tree (and the
/// text its nodes index); error lines are lines of package.py.
pub(crate) fn with_def<T>(
    pkg: &SpackPackage,
    m: &Method,
    f: impl FnOnce(Node, &str) -> Eval<T>,
) -> Eval<T> {
    let parsed = pkg.parsed.as_deref();
    match parsed.and_then(|p| Some((p.def_of(&m.range)?, p.src()))) {
        Some((def, src)) => f(def, src),
        None => Err(Unevaluable {
            line: m.line,
            what: "method does not parse".into(),
        }),
    }
}

/// A hook method run by the hook evaluator with the class's variants and
/// literal attributes.
pub(crate) fn run_hook(pkg: &SpackPackage, s: &Sections, m: &Method) -> Eval<Produced> {
    with_def(pkg, m, |def, src| {
        run_method_in(def, src, &s.variant_info, &s.class_attrs)
    })
}

/// Set a key of the build section; a later definition replaces an earlier
/// one (Python: the last `def` wins, a builder class's over the package's).
pub(crate) fn put(build: &mut Vec<(String, Yaml)>, key: &str, value: Yaml) {
    match build.iter_mut().find(|(k, _)| k == key) {
        Some(entry) => entry.1 = value,
        None => build.push((key.to_string(), value)),
    }
}
