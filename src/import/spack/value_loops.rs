//! Loops in literal Python: comprehensions over evaluable lists and the
//! targets they bind (`x`, `a, b`).

use tree_sitter::Node;

use super::value::{Eval, Evaluator, Scope, Unevaluable, Value, children, text};

impl Evaluator<'_> {
    pub(super) fn comprehension(&self, node: Node) -> Eval<Value> {
        let parts = children(node);
        let body = parts
            .first()
            .copied()
            .ok_or_else(|| Unevaluable::new(node, "comprehension"))?;
        let mut scope = self.scope.clone();
        let mut results = Vec::new();
        self.comprehend(&parts[1..], body, &mut scope, &mut results)?;
        Ok(Value::List(results))
    }

    pub(super) fn comprehend(
        &self,
        clauses: &[Node],
        body: Node,
        scope: &mut Scope,
        out: &mut Vec<Value>,
    ) -> Eval<()> {
        let Some((clause, rest)) = clauses.split_first() else {
            let ev = Evaluator {
                src: self.src,
                scope,
                hook: self.hook,
            };
            out.push(ev.eval(body)?);
            return Ok(());
        };
        match clause.kind() {
            "for_in_clause" => {
                let left = clause
                    .child_by_field_name("left")
                    .ok_or_else(|| Unevaluable::new(*clause, "for clause"))?;
                let right = clause
                    .child_by_field_name("right")
                    .ok_or_else(|| Unevaluable::new(*clause, "for clause"))?;
                let items = Evaluator {
                    src: self.src,
                    scope,
                    hook: self.hook,
                }
                .eval(right)?
                .iter_items()
                .ok_or_else(|| Unevaluable::new(right, "iteration over a non-list"))?;
                for item in items {
                    scope.push();
                    bind_target(left, self.src, item, scope)?;
                    let r = self.comprehend(rest, body, scope, out);
                    scope.pop();
                    r?;
                }
                Ok(())
            }
            "if_clause" => {
                let cond = children(*clause)
                    .first()
                    .copied()
                    .ok_or_else(|| Unevaluable::new(*clause, "if clause"))?;
                let keep = Evaluator {
                    src: self.src,
                    scope,
                    hook: self.hook,
                }
                .eval(cond)?
                .truthy();
                if keep {
                    self.comprehend(rest, body, scope, out)?;
                }
                Ok(())
            }
            other => Err(Unevaluable::new(
                *clause,
                format!("comprehension `{other}`"),
            )),
        }
    }
}

/// Bind a `for` target (`x` or `a, b`) to a value.
pub fn bind_target(target: Node, src: &str, value: Value, scope: &mut Scope) -> Eval<()> {
    match target.kind() {
        "identifier" => {
            scope.set(text(target, src), value);
            Ok(())
        }
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "tuple"
        | "parenthesized_expression" => {
            let names = children(target);
            let items = value
                .iter_items()
                .ok_or_else(|| Unevaluable::new(target, "unpacking a non-sequence"))?;
            if names.len() == 1 && target.kind() == "parenthesized_expression" {
                return bind_target(names[0], src, Value::List(items), scope);
            }
            if names.len() != items.len() {
                return Err(Unevaluable::new(target, "unpacking of the wrong length"));
            }
            for (n, v) in names.into_iter().zip(items) {
                bind_target(n, src, v, scope)?;
            }
            Ok(())
        }
        other => Err(Unevaluable::new(target, format!("loop target `{other}`"))),
    }
}
