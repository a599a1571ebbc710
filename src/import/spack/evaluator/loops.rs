//! Loops in literal Python: comprehensions over evaluable lists and the
//! targets they bind (`x`, `a, b`).

use tree_sitter::Node;

use crate::import::spack::evaluator::value::{
    Eval, Evaluator, Scope, Unevaluable, Value, children, text,
};

impl Evaluator<'_> {
    pub(crate) fn comprehension(&self, node: Node) -> Eval<Value> {
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

    /// `{k: v for …}`: the pairs the clauses produce, as a dict.
    pub(crate) fn dict_comprehension(&self, node: Node) -> Eval<Value> {
        let parts = children(node);
        let pair = parts
            .first()
            .copied()
            .filter(|p| p.kind() == "pair")
            .ok_or_else(|| Unevaluable::new(node, "dict comprehension"))?;
        let mut scope = self.scope.clone();
        let mut results = Vec::new();
        self.comprehend(&parts[1..], pair, &mut scope, &mut results)?;
        let pairs = results.into_iter().map(|kv| match kv {
            Value::List(mut kv) if kv.len() == 2 => {
                let v = kv.pop().expect("two items");
                Ok((kv.pop().expect("two items"), v))
            }
            _ => Err(Unevaluable::new(node, "dict comprehension")),
        });
        Ok(Value::Dict(pairs.collect::<Eval<Vec<_>>>()?))
    }

    /// `items[a:b]` of a list or string (no step).
    pub(crate) fn slice(&self, slice: Node, value: Value) -> Eval<Value> {
        let mut bounds: Vec<Option<i64>> = vec![None];
        let mut cursor = slice.walk();
        for c in slice.children(&mut cursor) {
            if c.kind() == ":" {
                bounds.push(None);
                continue;
            }
            match self.eval(c)? {
                Value::Int(i) => *bounds.last_mut().expect("a bound") = Some(i),
                _ => return Err(Unevaluable::new(c, "slice bound")),
            }
        }
        if bounds.len() != 2 {
            return Err(Unevaluable::new(slice, "slice with a step"));
        }
        let items = match &value {
            Value::Str(s) => s.chars().map(|c| Value::Str(c.to_string())).collect(),
            Value::List(items) => items.clone(),
            _ => return Err(Unevaluable::new(slice, "slice of a non-sequence")),
        };
        let n = items.len() as i64;
        let at = |b: Option<i64>, default: i64| {
            let i = b.unwrap_or(default);
            (if i < 0 { n + i } else { i }).clamp(0, n) as usize
        };
        let (from, to) = (at(bounds[0], 0), at(bounds[1], n));
        let part: Vec<Value> = items[from..to.max(from)].to_vec();
        Ok(match value {
            Value::Str(_) => Value::Str(part.iter().map(Value::to_py_string).collect()),
            _ => Value::List(part),
        })
    }

    pub(crate) fn comprehend(
        &self,
        clauses: &[Node],
        body: Node,
        scope: &mut Scope,
        out: &mut Vec<Value>,
    ) -> Eval<()> {
        let Some((clause, rest)) = clauses.split_first() else {
            let ev = self.over(scope);
            if body.kind() == "pair" {
                let (Some(k), Some(v)) = (
                    body.child_by_field_name("key"),
                    body.child_by_field_name("value"),
                ) else {
                    return Err(Unevaluable::new(body, "pair"));
                };
                out.push(Value::List(vec![ev.eval(k)?, ev.eval(v)?]));
            } else {
                out.push(ev.eval(body)?);
            }
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
                let items = self
                    .over(scope)
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
                let keep = self.over(scope).eval(cond)?.truthy();
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
