//! Where the flags of a `flag_handler` go: the `return`s reached after each
//! flag is added, and the route (`inject`, `env`, `build_system`) they give.

use tree_sitter::Node;

use super::{Added, FlagItem, Ret, Run, VIAS, err};
use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::evaluator::exprs::first_words;
use crate::import::spack::evaluator::hook::Hook;
use crate::import::spack::evaluator::value::{Eval, Evaluator, Value, children};

/// The functions that return the tuple of routes with one list in place:
/// `inject_flags(name, flags)` is `(flags, None, None)`.
const ROUTES: [&str; 3] = ["inject_flags", "env_flags", "build_system_flags"];

impl Run<'_> {
    pub(super) fn flags_return(&mut self, stmt: Node) -> Eval<()> {
        let cond = self.live();
        let Some(e) = children(stmt).first().copied() else {
            return err(stmt, "return without flags");
        };
        let slots = self.slots(e)?;
        self.seq += 1;
        self.rets.push(Ret {
            cond: cond.clone(),
            slots,
            path: self.f.path.clone(),
            seq: self.seq,
        });
        // A return outside any `if` ends every path still running.
        self.returned = if self.f.arms == Cond::True {
            Cond::True
        } else {
            std::mem::replace(&mut self.returned, Cond::False).or(cond)
        };
        Ok(())
    }

    /// Where each list goes: the returned expression read through the one
    /// evaluator with [`Slots`] as its hook, a tuple of three of list names
    /// (`Value::Str`) and `None`s.
    fn slots(&self, e: Node) -> Eval<[Option<String>; 3]> {
        let hook = Slots { run: self, top: e };
        let ev = Evaluator {
            hook: Some(&hook),
            ..self.f.e.ev()
        };
        let mut out: [Option<String>; 3] = [None, None, None];
        match ev.eval(e)? {
            Value::List(items) if items.len() == 3 => {
                for (slot, item) in out.iter_mut().zip(items) {
                    *slot = match item {
                        Value::None => None,
                        Value::Str(list) => Some(list),
                        _ => return hook.refuse(e),
                    };
                }
                Ok(out)
            }
            _ => hook.refuse(e),
        }
    }

    /// Each added flag with the route of the returns that follow it.
    pub(super) fn routes(&self, def: Node, out: &mut Vec<FlagItem>) -> Eval<()> {
        if self.added.is_empty() {
            return Ok(());
        }
        if self.live() != Cond::False {
            return err(def, "flag_handler that may end without a return");
        }
        for a in &self.added {
            let mut via: Option<Option<usize>> = None;
            for r in self.reached(a) {
                let slot = r.slots.iter().position(|s| s.as_deref() == Some(&a.var));
                match via {
                    None => via = Some(slot),
                    Some(v) if v == slot => {}
                    Some(_) => {
                        let what =
                            format!("{} returned in different places by condition", self.name);
                        return err(def, what);
                    }
                }
            }
            if let Some(Some(slot)) = via {
                out.push(FlagItem {
                    name: self.name,
                    via: VIAS[slot],
                    cond: a.cond.clone(),
                    value: a.value.clone(),
                });
            }
        }
        Ok(())
    }

    /// The returns a flag may reach: the later ones, except those in
    /// another arm of an `if` it was added in, up to the first one in its own
    /// branch or a branch around it (which every path still running takes).
    fn reached(&self, a: &Added) -> Vec<&Ret> {
        let mut out = Vec::new();
        for r in self
            .rets
            .iter()
            .filter(|r| r.seq > a.seq && r.cond != Cond::False)
        {
            let common = a
                .path
                .iter()
                .zip(&r.path)
                .take_while(|(x, y)| x == y)
                .count();
            let other_arm = matches!(
                (a.path.get(common), r.path.get(common)),
                (Some(x), Some(y)) if x.0 == y.0
            );
            if other_arm {
                continue;
            }
            out.push(r);
            if a.path.starts_with(&r.path) {
                break;
            }
        }
        out
    }
}

/// The collector of a `flag_handler`'s returned routes on the one evaluator:
/// the returned expression (`top`, inside its parentheses) is a tuple of
/// three or a call of one of [`ROUTES`]; each of its items is `None`, a
/// list variable (its name, as `Value::Str`; string literals are refused),
/// or `list or None` (Python's `or` of the evaluator). Anything else is
/// refused.
struct Slots<'r, 'a> {
    run: &'r Run<'a>,
    top: Node<'r>,
}

impl Hook for Slots<'_, '_> {
    fn node(&self, node: Node, ev: &Evaluator) -> Option<Eval<Value>> {
        let top = self.is_top(node);
        match node.kind() {
            // The evaluator walks these.
            "parenthesized_expression" | "none" | "boolean_operator" => None,
            "tuple" | "expression_list" if top && children(node).len() == 3 => None,
            "identifier" => {
                let name = self.run.t(node);
                if self.run.lists.contains(&name) {
                    Some(Ok(Value::Str(name)))
                } else {
                    Some(self.refuse(node))
                }
            }
            "call" if top => Some(self.route(node, ev)),
            _ => Some(self.refuse(node)),
        }
    }
}

impl Slots<'_, '_> {
    /// The returned expression itself, or it inside parentheses.
    fn is_top(&self, node: Node) -> bool {
        let mut at = Some(self.top);
        while let Some(n) = at {
            if n.id() == node.id() {
                return true;
            }
            at = (n.kind() == "parenthesized_expression")
                .then(|| children(n).first().copied())
                .flatten();
        }
        false
    }

    /// `inject_flags(name, flags)` → `(flags, None, None)`, and so on.
    fn route(&self, call: Node, ev: &Evaluator) -> Eval<Value> {
        let f = call
            .child_by_field_name("function")
            .map(|f| self.run.t(f))
            .unwrap_or_default();
        let f = f.strip_prefix("self.").unwrap_or(&f);
        let args = call
            .child_by_field_name("arguments")
            .map(children)
            .unwrap_or_default();
        let (Some(i), [_, list]) = (ROUTES.iter().position(|h| *h == f), &args[..]) else {
            return self.refuse(call);
        };
        let mut out = vec![Value::None, Value::None, Value::None];
        out[i] = ev.eval(*list)?;
        Ok(Value::List(out))
    }

    /// The whole return, or one of its items, is not a route.
    fn refuse<T>(&self, node: Node) -> Eval<T> {
        if self.is_top(node) {
            return err(
                self.top,
                format!("return `{}`", first_words(&self.run.t(self.top))),
            );
        }
        err(
            node,
            format!("returned `{}`", first_words(&self.run.t(node))),
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::import::spack::hooks::flags::{flag_handler, flags_yaml};
    use crate::import::yaml_out::Yaml;

    /// The `flags:` of a handler that adds `-g` to the C flags and returns
    /// `ret`.
    fn routed(ret: &str) -> Result<String, String> {
        let body = format!(
            "def flag_handler(self, name, flags):\n    \
             if name == \"cflags\":\n        flags.append(\"-g\")\n    \
             return {ret}\n"
        );
        let tree = crate::import::spack::reader::parsed::parse(&body).unwrap();
        let def = crate::import::spack::reader::parsed::find_def(tree.root_node()).unwrap();
        let items = flag_handler(def, &body, &[]).map_err(|e| e.what)?;
        Ok(Yaml::Seq(flags_yaml(&items)).to_document())
    }

    #[test]
    fn each_shape_of_the_returned_routes_is_read_through_the_evaluator() {
        let inject = "- {cflags: [\"-g\"]}\n";
        let env = "- {cflags: [\"-g\"], via: env}\n";
        let build = "- {cflags: [\"-g\"], via: build_system}\n";
        for (ret, want) in [
            ("(flags, None, None)", inject),
            ("flags, None, None", inject),
            ("((None, flags, None))", env),
            ("(None, None, (flags or None))", build),
            ("(None, None or flags, None)", env),
            ("inject_flags(name, flags)", inject),
            ("self.env_flags(name, flags)", env),
            ("(self.build_system_flags(name, flags))", build),
        ] {
            assert_eq!(routed(ret).as_deref(), Ok(want), "return {ret}");
        }
        // Returned nowhere: the flag is not written.
        assert_eq!(routed("(None, None, None)").as_deref(), Ok(""));
        assert_eq!(routed("flags and None, None, None").as_deref(), Ok(""));
    }

    #[test]
    fn returns_that_are_not_routes_are_refused_by_what_they_return() {
        for (ret, what) in [
            ("flags", "return `flags`"),
            ("(flags, None)", "return `(flags, None)`"),
            ("print(flags)", "return `print(flags)`"),
            ("inject_flags(flags)", "return `inject_flags(flags)`"),
            ("(other, None, None)", "returned `other`"),
            ("(\"flags\", None, None)", "returned `\"flags\"`"),
            (
                "(flags if x else None, None, None)",
                "returned `flags if x else None`",
            ),
            (
                "(inject_flags(name, flags), None, None)",
                "returned `inject_flags(name, flags)`",
            ),
            ("env_flags(name, [\"-O2\"])", "returned `[\"-O2\"]`"),
        ] {
            assert_eq!(routed(ret), Err(what.to_string()), "return {ret}");
        }
    }
}
