//! List-valued expressions of hook bodies: literals, concatenation,
//! comprehensions over literal lists, helper calls that yield arguments,
//! and lists joined into one string.

use tree_sitter::Node;

use crate::import::spack::evaluator::collected::ArgItem;
use crate::import::spack::evaluator::cond::{Cond, quote};
use crate::import::spack::evaluator::exprs::{Exprs, Local, err, first_words, literal};
use crate::import::spack::evaluator::value::{
    Args, Eval, Unevaluable, Value, bind_target, children,
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

    /// A list-valued expression.
    pub fn list(&self, node: Node) -> Eval<Vec<ArgItem>> {
        match node.kind() {
            "list" | "tuple" => {
                let mut out = Vec::new();
                for item in children(node) {
                    if item.kind() == "list_splat" {
                        let inner = children(item)
                            .first()
                            .copied()
                            .ok_or_else(|| Unevaluable::new(item, "splat"))?;
                        out.extend(self.list(inner)?);
                    } else {
                        out.extend(self.element(item)?);
                    }
                }
                Ok(out)
            }
            "parenthesized_expression" => match children(node).first() {
                Some(inner) => self.list(*inner),
                None => Ok(Vec::new()),
            },
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
            "binary_operator" => {
                let (Some(l), Some(r)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) else {
                    return err(node, "operator");
                };
                let mut a = self.list(l)?;
                a.extend(self.list(r)?);
                Ok(a)
            }
            "list_comprehension" => self.comprehension(node),
            "call" => self.list_call(node),
            "conditional_expression" => {
                let parts = children(node);
                if parts.len() != 3 {
                    return err(node, "conditional expression");
                }
                let c = self.cond(parts[1])?;
                let mut out: Vec<ArgItem> = self
                    .list(parts[0])?
                    .into_iter()
                    .map(|i| ArgItem {
                        cond: c.clone().and(i.cond),
                        ..i
                    })
                    .collect();
                out.extend(self.list(parts[2])?.into_iter().map(|i| ArgItem {
                    cond: c.clone().not().and(i.cond),
                    ..i
                }));
                Ok(out)
            }
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
