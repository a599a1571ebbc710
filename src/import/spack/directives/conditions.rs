//! A directive's condition: normalized, and checked with the stack's spec
//! parser (a spec it cannot read is recorded; the recipe keeps it as written).

use crate::import::spack::directives::model::{Directive, Kind, SpackPackage};
use crate::spec::Spec;

/// Check a condition or spec with the stack's spec parser; a spec it cannot
/// read is recorded (the recipe keeps it as written).
pub(crate) fn check_spec(pkg: &mut SpackPackage, line: usize, text: &str, what: &str) {
    if let Err(e) = Spec::parse(text) {
        pkg.untranslated(
            line,
            Kind::Directive,
            "spec syntax",
            format!("{what} `{text}`: {e}"),
        );
    }
}

/// The directive's `when`, normalized and checked (`None`: always).
pub(crate) fn when_of(pkg: &mut SpackPackage, d: &Directive) -> Option<String> {
    let w = crate::import::spack::evaluator::cond::normalize(d.kw_str("when")?.trim());
    if w.is_empty() {
        return None;
    }
    check_spec(pkg, d.line, &w, "condition");
    Some(w)
}
