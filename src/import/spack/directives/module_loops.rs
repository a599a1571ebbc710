//! Module-level loops that fill a table the class then reads
//! (rocm-openmp-extras: `for i, item in enumerate(versions): for j, c in
//! enumerate(component_hashes): versions_dict.setdefault(item, {})[components[j]]
//! = component_hashes[j][i]`). The loop runs over evaluable values; item
//! assignments (`d[k] = v`, `d.setdefault(k, {})[k2] = v`) change the
//! module's binding. A statement it cannot evaluate stops the loop: the
//! names it would have filled stay as they were, and the directives that
//! read them are reported where they are.

use tree_sitter::Node;

use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::evaluator::loops::bind_target;
use crate::import::spack::evaluator::value::{
    Eval, Evaluator, Scope, Unevaluable, Value, children, text,
};
use crate::import::spack::evaluator::walk::{Collector, Frame, frame_in};

/// Run a module-level `for` statement; `false` when some part of it could
/// not be evaluated.
pub(crate) fn module_for(stmt: Node, src: &str, scope: &mut Scope) -> bool {
    let mut run = ModuleRun {
        f: Frame::new(src, &[]),
        scope,
    };
    run.for_statement(stmt).is_ok()
}

/// The collector of a module-level loop: its items and targets are bound
/// in the module's scope, its item assignments change that scope.
struct ModuleRun<'a, 's> {
    f: Frame<'a>,
    scope: &'s mut Scope,
}

fn refused<T>(node: Node) -> Eval<T> {
    Err(Unevaluable::new(node, "module-level loop"))
}

impl<'a> Collector<'a> for ModuleRun<'a, '_> {
    frame_in!(f);

    fn expression(&mut self, e: Node) -> Eval<()> {
        match e.kind() == "assignment" && assignment(e, self.f.e.src, self.scope) {
            true => Ok(()),
            false => refused(e),
        }
    }

    fn condition(&self, node: Node) -> Eval<Cond> {
        refused(node)
    }

    fn ret(&mut self, stmt: Node, _cond: Cond) -> Eval<()> {
        refused(stmt)
    }

    fn loop_items(&self, iterable: Node) -> Eval<Vec<Value>> {
        Evaluator::new(self.f.e.src, self.scope)
            .eval(iterable)?
            .iter_items()
            .ok_or_else(|| Unevaluable::new(iterable, "loop over a non-list"))
    }

    fn bind_item(&mut self, target: Node, item: Value) -> Eval<()> {
        self.scope.push();
        let bound = bind_target(target, self.f.e.src, item, self.scope);
        if bound.is_err() {
            self.scope.pop();
        }
        bound
    }

    fn item_done(&mut self) {
        self.scope.pop();
    }
}

fn assignment(assign: Node, src: &str, scope: &mut Scope) -> bool {
    let (Some(left), Some(right)) = (
        assign.child_by_field_name("left"),
        assign.child_by_field_name("right"),
    ) else {
        return false;
    };
    let Ok(value) = Evaluator::new(src, scope).eval(right) else {
        return false;
    };
    if left.kind() != "subscript" {
        return bind_target(left, src, value, scope).is_ok();
    }
    let Some((name, steps)) = path(left, src, scope) else {
        return false;
    };
    let Some(mut target) = scope.get_mut(&name) else {
        return false;
    };
    let Some(((last, _), inner)) = steps.split_last() else {
        return false;
    };
    for (key, default) in inner {
        let Some(next) = entry(target, key, default.clone()) else {
            return false;
        };
        target = next;
    }
    match entry(target, last, Some(Value::None)) {
        Some(slot) => {
            *slot = value;
            true
        }
        None => false,
    }
}

/// The steps from a module binding to the item assigned: each key with the
/// value `setdefault` inserts when it is missing (`None`: plain `d[k]`, which
/// must exist).
type Steps = Vec<(Value, Option<Value>)>;

fn path(n: Node, src: &str, scope: &Scope) -> Option<(String, Steps)> {
    let ev = Evaluator::new(src, scope);
    match n.kind() {
        "identifier" => Some((text(n, src).to_string(), Vec::new())),
        "subscript" => {
            let (name, mut steps) = path(n.child_by_field_name("value")?, src, scope)?;
            steps.push((ev.eval(n.child_by_field_name("subscript")?).ok()?, None));
            Some((name, steps))
        }
        "call" => {
            let f = n.child_by_field_name("function")?;
            if f.kind() != "attribute"
                || text(f.child_by_field_name("attribute")?, src) != "setdefault"
            {
                return None;
            }
            let (name, mut steps) = path(f.child_by_field_name("object")?, src, scope)?;
            let args = n.child_by_field_name("arguments")?;
            let [k, d] = children(args).try_into().ok()?;
            steps.push((ev.eval(k).ok()?, Some(ev.eval(d).ok()?)));
            Some((name, steps))
        }
        _ => None,
    }
}

/// The dict item `key` of `target`, inserted as `default` when missing.
fn entry<'v>(target: &'v mut Value, key: &Value, default: Option<Value>) -> Option<&'v mut Value> {
    let Value::Dict(items) = target else {
        return None;
    };
    match items.iter().position(|(k, _)| k == key) {
        Some(i) => Some(&mut items[i].1),
        None => {
            items.push((key.clone(), default?));
            items.last_mut().map(|(_, v)| v)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_loop_fills_a_table_by_setdefault() {
        let src = "versions = [\"1.0\", \"2.0\"]\nnames = [\"a\", \"b\"]\nhashes = [[\"a1\", \"a2\"], [\"b1\", \"b2\"]]\ntable = dict()\nfor i, item in enumerate(versions):\n    for j, h in enumerate(hashes):\n        table.setdefault(item, {})[names[j]] = hashes[j][i]\n";
        let tree = crate::import::spack::reader::parsed::parse(src).unwrap();
        let mut scope = Scope::new();
        for stmt in children(tree.root_node()) {
            if stmt.kind() == "for_statement" {
                assert!(module_for(stmt, src, &mut scope));
                continue;
            }
            let a = children(stmt)[0];
            let name = text(a.child_by_field_name("left").unwrap(), src).to_string();
            let v = Evaluator::new(src, &scope)
                .eval(a.child_by_field_name("right").unwrap())
                .unwrap();
            scope.set(&name, v);
        }
        let s = |x: &str| Value::Str(x.into());
        let want = Value::Dict(vec![
            (
                s("1.0"),
                Value::Dict(vec![(s("a"), s("a1")), (s("b"), s("b1"))]),
            ),
            (
                s("2.0"),
                Value::Dict(vec![(s("a"), s("a2")), (s("b"), s("b2"))]),
            ),
        ]);
        assert_eq!(scope.get("table"), Some(&want));
    }
}
