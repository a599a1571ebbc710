//! External-only packages: Spack packages whose `install` does nothing but
//! raise (`raise InstallError("… specify it as an external package in
//! packages.yaml")`: cray-libsci, cray-mpich, hcoll, cce). They translate to
//! `build: {system: external}`, their source-less versions to
//! `source: none` entries: the recipe names what the vendor ships, and the
//! resolver only ever satisfies it with a cluster external.

use crate::import::spack::directives::model::SpackPackage;
use crate::import::spack::evaluator::value::children;

/// The line of the package class's `install` method when its body is a
/// single `raise` (a docstring besides it is fine).
pub(crate) fn raising_install(pkg: &SpackPackage) -> Option<usize> {
    let m = pkg
        .methods
        .iter()
        .find(|m| m.name == "install" && m.builder.is_none() && m.decorators.is_empty())?;
    let def = pkg.parsed.as_deref()?.def_of(&m.range)?;
    only_raises(def).then_some(m.line)
}

/// Whether a `def` has a body of one `raise` statement.
fn only_raises(def: tree_sitter::Node) -> bool {
    let Some(body) = def.child_by_field_name("body") else {
        return false;
    };
    let stmts: Vec<_> = children(body)
        .into_iter()
        .filter(|s| !is_docstring(*s))
        .collect();
    matches!(stmts.as_slice(), [s] if s.kind() == "raise_statement")
}

fn is_docstring(n: tree_sitter::Node) -> bool {
    n.kind() == "expression_statement" && children(n).iter().all(|c| c.kind() == "string")
}

#[cfg(test)]
mod tests {
    fn only_raises(src: &str) -> bool {
        let tree = crate::import::spack::reader::parsed::parse(src).unwrap();
        super::only_raises(
            crate::import::spack::reader::parsed::find_def(tree.root_node()).unwrap(),
        )
    }

    #[test]
    fn a_body_of_one_raise_is_external_only() {
        let raising = "def install(self, spec, prefix):\n    \"\"\"Not here.\"\"\"\n    raise InstallError(\n        self.spec.format(\"{name} is not installable\")\n    )\n";
        assert!(only_raises(raising));
        assert!(only_raises(
            "def install(self, spec, prefix):\n    raise NotImplementedError(\"cray compiler must be configured as external\")\n"
        ));
    }

    #[test]
    fn a_body_that_does_more_is_not() {
        let more = "def install(self, spec, prefix):\n    if spec.satisfies(\"+x\"):\n        raise InstallError(\"no\")\n    make(\"install\")\n";
        assert!(!only_raises(more));
        assert!(!only_raises(
            "def install(self, spec, prefix):\n    mkdirp(prefix.lib)\n"
        ));
    }
}
