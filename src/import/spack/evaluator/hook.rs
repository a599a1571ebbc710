//! How a consumer takes part in the evaluator's walk: a [`Hook`] evaluates
//! the nodes it knows before the built-in rules (`version.up_to(2)` in
//! `url_for_version`, the spec's references in a template) and decides the
//! points where its reading differs from Python's values: the literal text
//! of a string, an f-string interpolation, which operators it takes and a
//! conditional expression. The evaluator walks the rest (strings and
//! f-strings, parentheses, operators, conditionals) once for every
//! consumer.

use tree_sitter::Node;

use crate::import::spack::evaluator::value::{Eval, Evaluator, Unevaluable, Value, format_spec};

/// A consumer's part in the walk. Each method but [`Hook::node`] has
/// Python's reading as its default.
pub trait Hook {
    /// The value of a node this consumer evaluates itself; `None`: the
    /// evaluator's rules.
    fn node(&self, node: Node, ev: &Evaluator) -> Option<Eval<Value>>;

    /// A run of literal characters of a string (escapes applied).
    fn literal(&self, _node: Node, s: String) -> Eval<String> {
        Ok(s)
    }

    /// An f-string interpolation `{expr:spec}` (`child`, the whole of it).
    fn interpolation(
        &self,
        child: Node,
        expr: Node,
        spec: Option<&str>,
        ev: &Evaluator,
    ) -> Eval<String> {
        let v = ev.eval(expr)?;
        format_spec(&v, spec.unwrap_or(""))
            .ok_or_else(|| Unevaluable::new(child, "f-string format specifier"))
    }

    /// Whether the binary operator `op` of `node` is taken at all (before
    /// its operands are evaluated).
    fn operator(&self, _node: Node, _op: &str) -> Eval<()> {
        Ok(())
    }

    /// `then if cond else or_else`, when this consumer decides it
    /// otherwise than by the truth of `cond`'s value.
    fn conditional(&self, _node: Node, _parts: [Node; 3], _ev: &Evaluator) -> Option<Eval<Value>> {
        None
    }
}

/// A closure is a hook of nodes alone (`url_for_version`, class bodies).
impl<F: Fn(Node, &Evaluator) -> Option<Eval<Value>>> Hook for F {
    fn node(&self, node: Node, ev: &Evaluator) -> Option<Eval<Value>> {
        self(node, ev)
    }
}

/// Python's reading throughout: values alone.
pub struct Values;

impl Hook for Values {
    fn node(&self, _node: Node, _ev: &Evaluator) -> Option<Eval<Value>> {
        None
    }
}
