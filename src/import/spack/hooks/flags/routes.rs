//! Where the flags of a `flag_handler` go: the `return`s reached after each
//! flag is added, and the route (`inject`, `env`, `build_system`) they give.

use tree_sitter::Node;

use super::{Added, FlagItem, Ret, Run, VIAS, err};
use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::evaluator::exprs::first_words;
use crate::import::spack::evaluator::value::{Eval, children};

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

    /// Where each list goes: a 3-tuple, or `inject_flags`/`env_flags`/
    /// `build_system_flags(name, flags)`.
    fn slots(&self, e: Node) -> Eval<[Option<String>; 3]> {
        let inner = match e.kind() {
            "parenthesized_expression" => children(e).first().copied().unwrap_or(e),
            _ => e,
        };
        if matches!(inner.kind(), "tuple" | "expression_list") {
            let items = children(inner);
            if items.len() == 3 {
                let mut out: [Option<String>; 3] = [None, None, None];
                for (i, item) in items.iter().enumerate() {
                    out[i] = self.slot(*item)?;
                }
                return Ok(out);
            }
        }
        if inner.kind() == "call" {
            let f = inner
                .child_by_field_name("function")
                .map(|f| self.t(f))
                .unwrap_or_default();
            let f = f.strip_prefix("self.").unwrap_or(&f);
            let i = ["inject_flags", "env_flags", "build_system_flags"]
                .iter()
                .position(|h| *h == f);
            let args = inner
                .child_by_field_name("arguments")
                .map(children)
                .unwrap_or_default();
            if let (Some(i), [_, list]) = (i, &args[..]) {
                let mut out: [Option<String>; 3] = [None, None, None];
                out[i] = self.slot(*list)?;
                return Ok(out);
            }
        }
        err(e, format!("return `{}`", first_words(&self.t(e))))
    }

    /// `None`, a list variable, or `(list or None)`.
    fn slot(&self, node: Node) -> Eval<Option<String>> {
        let t = self.t(node);
        if t == "None" {
            return Ok(None);
        }
        let t = t.trim_start_matches('(').trim_end_matches(')');
        let t = t.strip_suffix(" or None").unwrap_or(t).trim();
        if self.lists.iter().any(|l| l == t) {
            return Ok(Some(t.to_string()));
        }
        err(node, format!("returned `{}`", first_words(t)))
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
