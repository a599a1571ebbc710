//! Conditions of hook bodies: `self.spec.satisfies(…)`, `"+x" in spec`,
//! variant and version comparisons, `not`/`and`/`or`, as a collector of
//! the one evaluator.

use tree_sitter::Node;

use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::evaluator::exprs::{Exprs, Local, err, first_words};
use crate::import::spack::evaluator::hook::Hook;
use crate::import::spack::evaluator::value::{
    Args, Eval, Evaluator, Unevaluable, Value, children, operators,
};

/// The condition collector of the one evaluator: its leaves are
/// conditions on the spec (`Value::Cond`), which `not`, `and` and `or`
/// combine without short-circuiting.
struct Conditions<'e, 'a> {
    e: &'e Exprs<'a>,
    /// A reading of comparisons that comes first (`flag_handler`'s `name`).
    leaf: &'e dyn Fn(Node) -> Eval<Option<Cond>>,
}

impl Hook for Conditions<'_, '_> {
    fn node(&self, node: Node, _ev: &Evaluator) -> Option<Eval<Value>> {
        match node.kind() {
            // The evaluator walks these.
            "parenthesized_expression" | "not_operator" | "boolean_operator" => None,
            _ => Some(self.e.cond_leaf(node, self.leaf).map(Value::Cond)),
        }
    }
}

impl Exprs<'_> {
    /// A condition on the spec.
    pub fn cond(&self, node: Node) -> Eval<Cond> {
        self.cond_with(node, &|_| Ok(None))
    }

    /// A condition on the spec where `leaf` may decide a comparison first
    /// (`flag_handler`'s tests of `name`): the one evaluator walks `not`,
    /// `and`, `or` and parentheses, with [`Conditions`] as its hook.
    pub(crate) fn cond_with(
        &self,
        node: Node,
        leaf: &dyn Fn(Node) -> Eval<Option<Cond>>,
    ) -> Eval<Cond> {
        let conditions = Conditions { e: self, leaf };
        let ev = Evaluator {
            hook: Some(&conditions),
            ..self.ev()
        };
        match ev.eval(node)? {
            Value::Cond(c) => Ok(c),
            _ => err(node, format!("condition `{}`", first_words(self.t(node)))),
        }
    }

    /// A leaf of a condition: a comparison, a name, an attribute, a call,
    /// `True`/`False`; anything else is refused.
    fn cond_leaf(&self, node: Node, leaf: &dyn Fn(Node) -> Eval<Option<Cond>>) -> Eval<Cond> {
        match node.kind() {
            "true" => Ok(Cond::True),
            "false" => Ok(Cond::False),
            "comparison_operator" => match leaf(node)? {
                Some(c) => Ok(c),
                None => self.comparison(node),
            },
            "identifier" => match self.scope.local(self.t(node)) {
                Some(Local::Cond(c)) => Ok(c.clone()),
                Some(Local::Value(v)) => Ok(if v.truthy() { Cond::True } else { Cond::False }),
                _ => err(node, format!("condition `{}`", self.t(node))),
            },
            "attribute" => match self.t(node) {
                "self.run_tests" | "self.pkg.run_tests" => Ok(Cond::False),
                _ => match self.variant_of(node) {
                    Some(v) if self.variants.iter().any(|i| i.name == v && i.is_bool) => {
                        Ok(Cond::Spec(format!("+{v}")))
                    }
                    _ => err(node, format!("condition `{}`", first_words(self.t(node)))),
                },
            },
            "call" => self.cond_call(node),
            _ => err(node, format!("condition `{}`", first_words(self.t(node)))),
        }
    }

    pub(crate) fn cond_call(&self, node: Node) -> Eval<Cond> {
        let func = node
            .child_by_field_name("function")
            .ok_or_else(|| Unevaluable::new(node, "call"))?;
        let args = Args::of_call(node, self.src).ok_or_else(|| Unevaluable::new(node, "call"))?;
        if func.kind() == "attribute"
            && self.t(func.child_by_field_name("attribute").unwrap_or(func)) == "satisfies"
        {
            let obj = func.child_by_field_name("object").unwrap_or(func);
            let s = self.str_arg(
                *args
                    .positional
                    .first()
                    .ok_or_else(|| Unevaluable::new(node, "satisfies"))?,
            )?;
            if self.is_spec(obj) {
                return Ok(Cond::Spec(
                    crate::import::spack::evaluator::cond::normalize(&s),
                ));
            }
            if let Some(dep) = self.dep_of(obj) {
                return Ok(Cond::Spec(format!("^{dep}{}", s.trim())));
            }
        }
        err(node, format!("condition `{}`", first_words(self.t(node))))
    }

    pub(crate) fn comparison(&self, node: Node) -> Eval<Cond> {
        let parts = children(node);
        let op = operators(node, self.src).join(" ");
        if parts.len() != 2 {
            return err(node, "chained comparison");
        }
        let (a, b) = (parts[0], parts[1]);
        if (op == "in" || op == "not in") && self.is_spec(b) {
            let s = self.str_arg(a)?;
            // `"libs=static" in spec` (a `key=value` first) tests the
            // package itself, as Spack's `Spec.__contains__` does for an
            // anonymous spec; a name first tests a dependency.
            let s = if names_package(&s) {
                format!("^{s}")
            } else {
                s
            };
            let c = Cond::Spec(crate::import::spack::evaluator::cond::normalize(&s));
            return Ok(if op == "in" { c } else { c.not() });
        }
        // `"+x" in spec["dep"]`: ^dep+x.
        if op == "in" || op == "not in" {
            if let Some(dep) = self.dep_of(b) {
                let s = self.str_arg(a)?;
                if s.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                    return err(node, format!("`{s}` in a dependency"));
                }
                let c = Cond::Spec(format!("^{dep}{}", s.trim()));
                return Ok(if op == "in" { c } else { c.not() });
            }
        }
        if let Some(c) = self.target_family(a, b, &op)? {
            return Ok(c);
        }
        // `"v" in spec.variants["x"].value` (or without `.value`, or a name
        // bound to either): x=v.
        if op == "in" || op == "not in" {
            if let Some(var) = self
                .variant_object(b)
                .or_else(|| self.multi_variant(b))
                .or_else(|| self.variant_of(b))
                .or_else(|| self.variant_subscript(b))
            {
                let c = Cond::Spec(format!("{var}={}", self.str_arg(a)?));
                return Ok(if op == "in" { c } else { c.not() });
            }
        }
        if self.t(a) == "sys.platform" || self.t(a) == "platform.system()" {
            let s = self.str_arg(b)?.to_lowercase();
            let linux = s.starts_with("linux");
            return Ok(if (op == "==") == linux {
                Cond::True
            } else {
                Cond::False
            });
        }
        if let Some(c) = self.multi_comparison(a, b, &op)? {
            return Ok(c);
        }
        if let Some(var) = self.variant_of(a) {
            let v = self.str_arg(b)?;
            let c = Cond::Spec(format!("{var}={v}"));
            return match op.as_str() {
                "==" => Ok(c),
                "!=" => Ok(c.not()),
                _ => err(node, "variant comparison"),
            };
        }
        if self.is_version(a) {
            let v = match b.kind() {
                "call" => Args::of_call(b, self.src)
                    .and_then(|x| x.positional.first().copied())
                    .and_then(|x| self.constant(x)),
                _ => self.constant(b),
            };
            let Some(Value::Str(v)) = v else {
                return err(node, "version comparison");
            };
            return match op.as_str() {
                ">=" => Ok(Cond::Spec(format!("@{v}:"))),
                "<" => Ok(Cond::Spec(format!("@{v}:")).not()),
                "==" => Ok(Cond::Spec(format!("@={v}"))),
                "!=" => Ok(Cond::Spec(format!("@={v}")).not()),
                _ => err(node, format!("version comparison `{op}`")),
            };
        }
        err(node, format!("condition `{}`", first_words(self.t(node))))
    }

    /// Comparisons of a multi-valued variant's value (a sorted tuple in
    /// Spack): `x == "v"` compares a tuple with a string (never equal);
    /// `x[0] == "v"` holds when `v` is the smallest value set, which the
    /// spec says when `v` is the smallest allowed value, or `none` of
    /// `any_combination_of`/`disjoint_sets` (it excludes every other value).
    fn multi_comparison(&self, a: Node, b: Node, op: &str) -> Eval<Option<Cond>> {
        let negate = match op {
            "==" => false,
            "!=" => true,
            _ => return Ok(None),
        };
        let eq = if self.multi_variant(a).is_some() && b.kind() == "string" {
            Cond::False
        } else if let Some(var) = self.first_of_multi(a) {
            let v = self.str_arg(b)?;
            let allowed = self
                .variants
                .iter()
                .find(|i| i.name == var)
                .and_then(|i| i.values.clone())
                .unwrap_or_default();
            let smallest = allowed.iter().min().is_some_and(|m| *m == v);
            let exclusive_none = v == "none" && allowed.first().is_some_and(|f| f == "none");
            if !(smallest || exclusive_none) {
                return err(a, format!("`{}[0]` compared with `{v}`", var));
            }
            Cond::Spec(format!("{var}={v}"))
        } else {
            return Ok(None);
        };
        Ok(Some(if negate { eq.not() } else { eq }))
    }

    /// `spec.target.family == "aarch64"`: the target descends from that
    /// family (`target=aarch64:`).
    fn target_family(&self, a: Node, b: Node, op: &str) -> Eval<Option<Cond>> {
        let is_family = a.kind() == "attribute"
            && a.child_by_field_name("attribute")
                .is_some_and(|x| self.t(x) == "family")
            && a.child_by_field_name("object").is_some_and(|t| {
                t.kind() == "attribute"
                    && t.child_by_field_name("attribute")
                        .is_some_and(|x| self.t(x) == "target")
                    && t.child_by_field_name("object")
                        .is_some_and(|s| self.is_spec(s))
            });
        if !is_family || !matches!(op, "==" | "!=") {
            return Ok(None);
        }
        let family = self.str_arg(b)?;
        let c = Cond::Spec(format!("target={family}:"));
        Ok(Some(if op == "==" { c } else { c.not() }))
    }
}

/// Whether a spec string starts with a package name (`mpi`, `hdf5+mpi`),
/// not with an anonymous constraint (`libs=static`, `+x`, `@1:`).
fn names_package(s: &str) -> bool {
    let first = s.split_whitespace().next().unwrap_or("");
    first.starts_with(|c: char| c.is_ascii_alphanumeric())
        && !first
            .split(['@', '+', '~', '%'])
            .next()
            .unwrap_or("")
            .contains('=')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::spack::evaluator::variant_info::VariantInfo;
    use crate::import::spack::reader::parsed;

    /// The condition of the expression `expr` (one line), with `spec`
    /// bound to the spec and `on` to `True`.
    fn cond(expr: &str) -> Eval<Cond> {
        let tree = parsed::parse(expr).expect("parses");
        let node = parsed::expression_of(&tree);
        let variants: Vec<VariantInfo> = Vec::new();
        let mut e = Exprs::new(expr, &variants);
        e.scope.bind("spec".into(), Local::Spec);
        e.scope.set("on", Value::Bool(true));
        e.cond(node)
    }

    #[test]
    fn conditions_are_collected_through_the_evaluator_without_short_circuits() {
        let spec = |s: &str| Cond::Spec(s.into());
        assert_eq!(
            cond(r#"not (spec.satisfies("+mpi") and "^cuda" in spec) or on"#),
            Ok(spec("+mpi").and(spec("^cuda")).not().or(Cond::True))
        );
        assert_eq!(cond("self.run_tests or False"), Ok(Cond::False));
        // Both sides are read: Python would stop at `self.run_tests`.
        assert_eq!(
            cond("self.run_tests and spec.frobnicate()"),
            Err(Unevaluable {
                line: 1,
                what: "condition `spec.frobnicate()`".into()
            })
        );
        assert_eq!(
            cond("spec.version if on else 1").unwrap_err().what,
            "condition `spec.version if on else 1`"
        );
    }
}
