//! List-valued expressions of hook bodies: literals, concatenation,
//! comprehensions over literal lists, helper calls that yield arguments,
//! and lists joined into one string. Argument lists are a collector of the
//! one evaluator ([`Lists`]): it walks parentheses, `+` and `a if c else
//! b`, the collector reads the rest.

use tree_sitter::Node;

use crate::import::spack::evaluator::collected::ArgItem;
use crate::import::spack::evaluator::cond::{Cond, quote};
use crate::import::spack::evaluator::exprs::{Exprs, Local, err, first_words, literal};
use crate::import::spack::evaluator::hook::Hook;
use crate::import::spack::evaluator::value::{
    Args, Eval, Evaluator, Unevaluable, Value, bind_target, children,
};
use crate::import::spack::evaluator::variant_info::variant_ref;

impl Exprs<'_> {
    /// `",".join(spec.variants["x"].value)`.
    pub(crate) fn join(&self, node: Node, func: Node, args: &Args) -> Eval<String> {
        let sep_node = func.child_by_field_name("object").unwrap_or(func);
        let sep = match self.constant(sep_node) {
            Some(Value::Str(s)) => s,
            _ => return err(node, "join"),
        };
        let arg = *args
            .positional
            .first()
            .ok_or_else(|| Unevaluable::new(node, "join"))?;
        if let Some(name) = self.multi_variant(arg).or_else(|| self.variant_of(arg)) {
            return Ok(format!(
                "{{{{ {} | join(sep={}) }}}}",
                variant_ref(&name),
                quote(&sep)
            ));
        }
        let items = self.list(arg)?;
        if items.iter().any(|i| i.cond != Cond::True) {
            return err(node, "join of a conditional list");
        }
        Ok(items
            .into_iter()
            .map(|i| i.template)
            .collect::<Vec<_>>()
            .join(&sep))
    }

    /// A list-valued expression: an argument list, each item under its
    /// condition, collected through the one evaluator with [`Lists`] as its
    /// hook.
    pub fn list(&self, node: Node) -> Eval<Vec<ArgItem>> {
        let ev = Evaluator {
            hook: Some(&Lists(self)),
            ..self.ev()
        };
        match ev.eval(node)? {
            Value::Args(items) => Ok(items),
            _ => err(
                node,
                format!("list expression `{}`", first_words(self.t(node))),
            ),
        }
    }

    /// A node the list collector reads itself: a list or tuple of
    /// templates, a name bound to a list, a comprehension, a call that
    /// gives arguments; anything else is refused.
    fn list_leaf(&self, node: Node, ev: &Evaluator) -> Eval<Vec<ArgItem>> {
        match node.kind() {
            "list" | "tuple" => {
                let mut out = Vec::new();
                for item in children(node) {
                    if item.kind() == "list_splat" {
                        let inner = children(item)
                            .first()
                            .copied()
                            .ok_or_else(|| Unevaluable::new(item, "splat"))?;
                        out.extend(args_of(inner, ev.eval(inner)?)?);
                    } else {
                        out.extend(self.element(item)?);
                    }
                }
                Ok(out)
            }
            "identifier" => match self.scope.local(self.t(node)) {
                Some(Local::List(items)) => Ok(items.clone()),
                Some(Local::Value(Value::List(vals))) => vals
                    .iter()
                    .map(|v| {
                        Ok(ArgItem {
                            cond: Cond::True,
                            template: literal(node, &v.to_py_string())?,
                        })
                    })
                    .collect(),
                _ => err(node, format!("list `{}`", self.t(node))),
            },
            "list_comprehension" => self.comprehension(node),
            "call" => self.list_call(node),
            _ => err(
                node,
                format!("list expression `{}`", first_words(self.t(node))),
            ),
        }
    }

    /// One element of a list literal: an argument, or a helper call that
    /// yields one conditional argument.
    pub(crate) fn element(&self, node: Node) -> Eval<Vec<ArgItem>> {
        if node.kind() == "call" {
            let f = node
                .child_by_field_name("function")
                .map(|f| self.func_name(f))
                .unwrap_or_default();
            if f.ends_with("define_from_variant") {
                let args =
                    Args::of_call(node, self.src).ok_or_else(|| Unevaluable::new(node, "call"))?;
                return self.define_from_variant(node, &args);
            }
        }
        Ok(vec![ArgItem {
            cond: Cond::True,
            template: self.tmpl(node)?,
        }])
    }

    pub(crate) fn list_call(&self, node: Node) -> Eval<Vec<ArgItem>> {
        let (func, args, fname) = self.call_parts(node)?;
        let fname = fname.as_str();
        let method = fname.rsplit('.').next().unwrap_or(fname);
        match method {
            "with_or_without" => self.activate(node, &args, "with", "without"),
            "enable_or_disable" => self.activate(node, &args, "enable", "disable"),
            "activate_or_not" => self.activate(node, &args, "", ""),
            "configure_args" | "cmake_args" | "meson_args" if fname.starts_with("super(") => {
                Ok(Vec::new())
            }
            "split" if func.kind() == "attribute" && args.positional.is_empty() => {
                let obj = func.child_by_field_name("object").unwrap_or(func);
                let t = self.tmpl(obj)?;
                if t.contains("{%") {
                    return err(node, "split of a template");
                }
                Ok(t.split_whitespace()
                    .map(|w| ArgItem {
                        cond: Cond::True,
                        template: w.to_string(),
                    })
                    .collect())
            }
            "list" if fname == "list" && args.positional.len() == 1 => {
                self.list(args.positional[0])
            }
            _ => err(node, format!("call of `{}`", first_words(fname))),
        }
    }

    pub(crate) fn comprehension(&self, node: Node) -> Eval<Vec<ArgItem>> {
        let parts = children(node);
        let [body, clause] = parts[..] else {
            return err(node, "comprehension");
        };
        if clause.kind() != "for_in_clause" {
            return err(node, "comprehension");
        }
        let left = clause
            .child_by_field_name("left")
            .ok_or_else(|| Unevaluable::new(node, "comprehension"))?;
        let right = clause
            .child_by_field_name("right")
            .ok_or_else(|| Unevaluable::new(node, "comprehension"))?;
        let items = self
            .value(right)?
            .iter_items()
            .ok_or_else(|| Unevaluable::new(right, "iteration over a non-list"))?;
        let mut out = Vec::new();
        for item in items {
            let mut inner = self.clone();
            bind_target(left, self.src, item, &mut inner.scope)?;
            out.extend(inner.element(body)?);
        }
        Ok(out)
    }
}

/// The argument-list collector of the one evaluator: a list is
/// `Value::Args` (arguments, each under its condition); `+` joins two,
/// `a if c else b` puts each side's items under `c` or `not c`.
struct Lists<'e, 'a>(&'e Exprs<'a>);

impl Hook for Lists<'_, '_> {
    fn node(&self, node: Node, ev: &Evaluator) -> Option<Eval<Value>> {
        match node.kind() {
            // The evaluator walks these.
            "parenthesized_expression" | "binary_operator" | "conditional_expression" => None,
            _ => Some(self.0.list_leaf(node, ev).map(Value::Args)),
        }
    }

    fn operator(&self, node: Node, op: &str) -> Eval<()> {
        match op {
            "+" => Ok(()),
            o => err(node, format!("operator `{o}`")),
        }
    }

    fn conditional(&self, _node: Node, parts: [Node; 3], ev: &Evaluator) -> Option<Eval<Value>> {
        let [a, c, b] = parts;
        let items = || {
            let c = self.0.cond(c)?;
            let under = |n: Node, c: Cond| -> Eval<Vec<ArgItem>> {
                Ok(args_of(n, ev.eval(n)?)?
                    .into_iter()
                    .map(|i| ArgItem {
                        cond: c.clone().and(i.cond),
                        ..i
                    })
                    .collect())
            };
            let mut out = under(a, c.clone())?;
            out.extend(under(b, c.not())?);
            Ok(Value::Args(out))
        };
        Some(items())
    }
}

/// The items of an argument list: every value the list collector gives is
/// one.
fn args_of(node: Node, v: Value) -> Eval<Vec<ArgItem>> {
    match v {
        Value::Args(items) => Ok(items),
        _ => err(node, "argument list of a non-list value"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::spack::evaluator::variant_info::VariantInfo;
    use crate::import::spack::reader::parsed;

    /// The argument list of the expression `expr` (one line), with `spec`
    /// bound to the spec and `base` to a list of one argument.
    fn list(expr: &str) -> Eval<Vec<(Cond, String)>> {
        let tree = parsed::parse(expr).expect("parses");
        let node = parsed::expression_of(&tree);
        let variants: Vec<VariantInfo> = Vec::new();
        let mut e = Exprs::new(expr, &variants);
        e.scope.bind("spec".into(), Local::Spec);
        let base = vec![ArgItem {
            cond: Cond::True,
            template: "--base".into(),
        }];
        e.scope.bind("base".into(), Local::List(base));
        let items = e.list(node)?;
        Ok(items.into_iter().map(|i| (i.cond, i.template)).collect())
    }

    #[test]
    fn argument_lists_are_collected_through_the_evaluator() {
        let on = Cond::Spec("+shared".into());
        let t = |c: &Cond, s: &str| (c.clone(), s.to_string());
        assert_eq!(
            list(
                r#"[*base, f"-p={self.prefix}"] + (["-s"] if spec.satisfies("+shared") else ["-t"])"#
            ),
            Ok(vec![
                t(&Cond::True, "--base"),
                t(&Cond::True, "-p={{ prefix }}"),
                t(&on, "-s"),
                t(&on.clone().not(), "-t"),
            ])
        );
        assert_eq!(list(r#"(base)"#), Ok(vec![t(&Cond::True, "--base")]));
        // Python has no `-` of lists; only `+` joins two.
        assert_eq!(list("base - base").unwrap_err().what, "operator `-`");
        assert_eq!(
            list(r#""-a""#).unwrap_err().what,
            "list expression `\"-a\"`"
        );
    }
}
