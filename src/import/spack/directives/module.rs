//! The module-level statements of a package.py on the statement walker:
//! constants (`NAME = …`), and loops that fill a table the class then reads
//! (rocm-openmp-extras: `for i, item in enumerate(versions): for j, c in
//! enumerate(component_hashes): versions_dict.setdefault(item, {})[components[j]]
//! = component_hashes[j][i]`). A loop runs over evaluable values; item
//! assignments (`d[k] = v`, `d.setdefault(k, {})[k2] = v`) change the
//! module's binding. A statement it cannot evaluate stops the loop: the
//! names it would have filled stay as they were, and the directives that
//! read them are reported where they are. Outside loops such a statement
//! (an import, a function, an `if`) is passed over; classes are read after.

use tree_sitter::Node;

use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::evaluator::loops::bind_target;
use crate::import::spack::evaluator::value::{
    Eval, Evaluator, Scope, Unevaluable, Value, children, text,
};
use crate::import::spack::evaluator::walk::{Collector, Frame, frame_in};

/// The module's scope (`scope`, one frame) after its statements ran.
pub(crate) fn module_scope(root: Node, src: &str, scope: Scope) -> Scope {
    let mut run = ModuleRun {
        f: Frame::new(src, &[]),
    };
    run.f.e.scope = scope;
    // What fails is passed over (`failed`).
    let _ = run.block(&children(root));
    run.f.e.scope
}

/// The collector of module-level statements: constants and loop items are
/// bound in the module's scope, item assignments change that scope.
struct ModuleRun<'a> {
    f: Frame<'a>,
}

fn refused<T>(node: Node) -> Eval<T> {
    Err(Unevaluable::new(node, "module-level statement"))
}

impl<'a> Collector<'a> for ModuleRun<'a> {
    const LOOP_FRAME: bool = true;

    frame_in!(f);

    /// An assignment; outside loops only to a name (a constant).
    fn expression(&mut self, e: Node) -> Eval<()> {
        let constant = e
            .child_by_field_name("left")
            .is_some_and(|l| l.kind() == "identifier");
        let ok = e.kind() == "assignment"
            && (constant || self.f.e.scope.depth() > 1)
            && assignment(e, self.f.e.src, &mut self.f.e.scope);
        match ok {
            true => Ok(()),
            false => refused(e),
        }
    }

    fn condition(&self, node: Node) -> Eval<Cond> {
        refused(node)
    }

    fn return_statement(&mut self, stmt: Node) -> Eval<()> {
        refused(stmt)
    }

    fn ret(&mut self, stmt: Node, _cond: Cond) -> Eval<()> {
        refused(stmt)
    }

    /// A statement that fails stops the loop it is in; outside loops (the
    /// module's frame only) it is passed over.
    fn failed(&mut self, _stmt: Node, e: Unevaluable) -> Eval<()> {
        match self.f.e.scope.depth() {
            1 => Ok(()),
            _ => Err(e),
        }
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
        let scope = module_scope(tree.root_node(), src, Scope::new());
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

    #[test]
    fn a_failing_statement_stops_its_loop_and_is_passed_over_outside() {
        let src = "import os\nA = 1\nif os.x:\n    A = 2\nB, C = 3, 4\nD = unknown()\nT = {}\nfor x in [1, 2]:\n    T[x] = x\n    F = unknown()\n    T[x + 10] = x\nH = A + 1\n";
        let tree = crate::import::spack::reader::parsed::parse(src).unwrap();
        let scope = module_scope(tree.root_node(), src, Scope::new());
        assert_eq!(scope.get("A"), Some(&Value::Int(1)));
        // Outside loops only names are constants.
        assert_eq!(scope.get("B"), None);
        assert_eq!(scope.get("D"), None);
        assert_eq!(
            scope.get("T"),
            Some(&Value::Dict(vec![(Value::Int(1), Value::Int(1))]))
        );
        assert_eq!(scope.get("x"), None);
        assert_eq!(scope.get("H"), Some(&Value::Int(2)));
    }
}
