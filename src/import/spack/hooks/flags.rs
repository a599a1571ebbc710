//! Spack's `flag_handler(self, name, flags)` → the recipe's `build.flags:`.
//!
//! The body runs once per flag name (`cflags`, …, `ldlibs`) with `name`
//! bound, so `name == "cflags"`, `name in [...]` and `name.lower()` are
//! decided; spec conditions (`self.spec.satisfies(…)`, `"+x" in spec`) stay
//! conditions. What is appended (`flags.append`, `flags.extend`,
//! `flags += […]`, or a local list returned in its place) goes where the
//! reached `return` puts it: `(flags, None, None)` or `inject_flags` →
//! `via: inject`, `(None, flags, None)` or `env_flags` → `via: env`,
//! `(None, None, flags)` or `build_system_flags` → `via: build_system`.
//! Anything else (loops over the flags, tests of the user's flags,
//! dependency libraries, `raise`) leaves the method untranslated.

mod routes;

use tree_sitter::Node;

use crate::import::yaml_out::Yaml;

use crate::import::spack::evaluator::cond::{Cond, if_else};
use crate::import::spack::evaluator::exprs::{Local, err, first_words};
use crate::import::spack::evaluator::value::{Eval, Unevaluable, children, text};
use crate::import::spack::evaluator::variant_info::VariantInfo;
use crate::import::spack::evaluator::walk::{Collector, Frame, frame_in};

const NAMES: [&str; 6] = [
    "cflags", "cxxflags", "fflags", "cppflags", "ldflags", "ldlibs",
];
const VIAS: [&str; 3] = ["inject", "env", "build_system"];

/// A flag appended to a list variable under a condition.
struct Added {
    var: String,
    cond: Cond,
    value: String,
    /// The branches it was added in (outermost first) and its place in the body.
    path: Vec<(usize, usize)>,
    seq: usize,
}

/// A reached `return`: its condition and which list goes to which slot.
struct Ret {
    cond: Cond,
    slots: [Option<String>; 3],
    path: Vec<(usize, usize)>,
    seq: usize,
}

/// One flag of the result: name, route, condition, template.
pub struct FlagItem {
    pub name: &'static str,
    pub via: &'static str,
    pub cond: Cond,
    pub value: String,
}

struct Run<'a> {
    f: Frame<'a>,
    name: &'static str,
    name_param: String,
    /// List variables: the `flags` parameter and local lists.
    lists: Vec<String>,
    /// The condition under which a `return` was reached before.
    returned: Cond,
    added: Vec<Added>,
    rets: Vec<Ret>,
    /// Statement places numbered so far.
    seq: usize,
}

/// The flags a `flag_handler` method (its `def`, a node of the tree of
/// `method_src`) adds.
pub fn flag_handler(def: Node, method_src: &str, variants: &[VariantInfo]) -> Eval<Vec<FlagItem>> {
    let params: Vec<String> = def
        .child_by_field_name("parameters")
        .map(|p| {
            children(p)
                .into_iter()
                .map(|n| {
                    let id = if n.kind() == "identifier" {
                        Some(n)
                    } else {
                        children(n).into_iter().find(|c| c.kind() == "identifier")
                    };
                    id.map(|i| text(i, method_src).to_string())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default();
    let [_, name_param, flags_param] = &params[..] else {
        return err(def, "flag_handler parameters");
    };
    let body = def
        .child_by_field_name("body")
        .ok_or_else(|| Unevaluable::new(def, "method body"))?;
    let mut out = Vec::new();
    for name in NAMES {
        let mut run = Run {
            f: Frame::new(method_src, variants),
            name,
            name_param: name_param.clone(),
            lists: vec![flags_param.clone()],
            returned: Cond::False,
            added: Vec::new(),
            rets: Vec::new(),
            seq: 0,
        };
        run.block(&children(body))?;
        run.routes(def, &mut out)?;
    }
    Ok(out)
}

impl<'a> Collector<'a> for Run<'a> {
    const IN: &'static str = " in flag_handler";

    frame_in!(f);

    fn expression(&mut self, e: Node) -> Eval<()> {
        match e.kind() {
            "assignment" => self.assignment(e),
            "augmented_assignment" => self.augmented(e),
            _ => self.call(e),
        }
    }

    fn ret(&mut self, stmt: Node, _cond: Cond) -> Eval<()> {
        self.flags_return(stmt)
    }

    /// A condition: tests of `name` are decided, the rest are spec conditions.
    fn condition(&self, node: Node) -> Eval<Cond> {
        self.f.e.cond_with(node, &|n| self.name_test(n))
    }

    fn stopped(&self) -> bool {
        self.live() == Cond::False
    }

    /// `for x in [literal, …]:` (no `else`) over anything but the flags.
    fn check_loop(&self, stmt: Node, iterable: Node) -> Eval<()> {
        if self.lists.contains(&self.t(iterable)) {
            return err(stmt, "loop over the flags given");
        }
        if stmt.child_by_field_name("alternative").is_some() {
            return err(stmt, "`for … else` in flag_handler");
        }
        Ok(())
    }
}

impl Run<'_> {
    fn t(&self, node: Node) -> String {
        self.f.t(node)
    }

    /// The condition under which the current statement runs.
    fn live(&self) -> Cond {
        self.f.arms.clone().and(self.returned.clone().not())
    }

    fn add(&mut self, var: &str, node: Node) -> Eval<()> {
        let cond = self.live();
        let items = if node.kind() == "list" || node.kind() == "tuple" {
            self.f
                .e
                .list(node)?
                .into_iter()
                .map(|i| (cond.clone().and(i.cond), i.template))
                .collect()
        } else {
            vec![(cond, self.f.e.tmpl(node)?)]
        };
        for (cond, value) in items {
            self.seq += 1;
            self.added.push(Added {
                var: var.to_string(),
                cond,
                value,
                path: self.f.path.clone(),
                seq: self.seq,
            });
        }
        Ok(())
    }

    fn call(&mut self, e: Node) -> Eval<()> {
        let func = e
            .child_by_field_name("function")
            .ok_or_else(|| Unevaluable::new(e, "call"))?;
        let args = e.child_by_field_name("arguments").map(children);
        if func.kind() == "attribute" {
            let obj = func.child_by_field_name("object").map(|o| self.t(o));
            let method = func
                .child_by_field_name("attribute")
                .map(|a| self.t(a))
                .unwrap_or_default();
            if let (Some(obj), Some([arg])) = (obj, args.as_deref()) {
                if self.lists.contains(&obj) && (method == "append" || method == "extend") {
                    return self.add(&obj, *arg);
                }
            }
        }
        err(e, format!("call `{}`", first_words(&self.t(e))))
    }

    fn assignment(&mut self, a: Node) -> Eval<()> {
        let (Some(l), Some(r)) = (
            a.child_by_field_name("left"),
            a.child_by_field_name("right"),
        ) else {
            return err(a, "assignment");
        };
        let (name, rt) = (self.t(l), self.t(r));
        if l.kind() != "identifier" {
            return err(a, format!("assignment to `{}`", first_words(&name)));
        }
        // `flags = list(flags)`: the same flags.
        if rt == format!("list({name})") && self.lists.contains(&name) {
            return Ok(());
        }
        if rt == "self.spec" || rt == "self.pkg.spec" {
            self.f.e.scope.bind(name, Local::Spec);
            return Ok(());
        }
        if r.kind() == "list" && !self.added.iter().any(|x| x.var == name) {
            if !self.lists.contains(&name) {
                self.lists.push(name.clone());
            }
            return self.add(&name, r);
        }
        err(a, format!("assignment to `{}`", first_words(&name)))
    }

    fn augmented(&mut self, a: Node) -> Eval<()> {
        let (Some(l), Some(r), Some(op)) = (
            a.child_by_field_name("left"),
            a.child_by_field_name("right"),
            a.child_by_field_name("operator"),
        ) else {
            return err(a, "assignment");
        };
        let var = self.t(l);
        if self.t(op) == "+=" && self.lists.contains(&var) {
            return self.add(&var, r);
        }
        err(a, format!("statement `{}`", first_words(&self.t(a))))
    }

    /// `name == "cflags"`, `name in [...]`, `name.lower() != …`, `flags is None`.
    fn name_test(&self, node: Node) -> Eval<Option<Cond>> {
        let parts = children(node);
        let op = crate::import::spack::evaluator::value::operators(node, self.f.e.src).join(" ");
        let [a, b] = parts[..] else {
            return Ok(None);
        };
        let at = self.t(a);
        if self.lists.contains(&at) && self.t(b) == "None" {
            // The flags are a list, never None.
            return Ok(Some(if op == "is not" {
                Cond::True
            } else {
                Cond::False
            }));
        }
        if self.lists.contains(&self.t(b)) && (op == "in" || op == "not in") {
            return err(node, "test of the flags given (`… in flags`)");
        }
        let p = &self.name_param;
        if at != *p && at != format!("{p}.lower()") {
            return Ok(None);
        }
        let value = self
            .f
            .e
            .value(b)
            .map_err(|_| Unevaluable::new(b, "flag name test"))?;
        let names: Vec<String> = match &value {
            crate::import::spack::evaluator::value::Value::Str(s) => vec![s.clone()],
            v => v
                .iter_items()
                .unwrap_or_default()
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect(),
        };
        let hit = names.iter().any(|n| n == self.name);
        let holds = match op.as_str() {
            "==" | "in" => hit,
            "!=" | "not in" => !hit,
            _ => return err(node, format!("flag name test `{op}`")),
        };
        Ok(Some(if holds { Cond::True } else { Cond::False }))
    }
}

/// The `flags:` entries: runs of the same name, route and `when:` in one
/// entry; a condition that is not a spec makes the flag a template.
pub fn flags_yaml(items: &[FlagItem]) -> Vec<Yaml> {
    let mut groups: Vec<(&str, &str, Option<String>, Vec<String>)> = Vec::new();
    for item in items {
        if item.cond == Cond::False {
            continue;
        }
        let (when, value) = match item.cond.as_when() {
            Some(w) => (w, item.value.clone()),
            None => (None, if_else(&item.cond, &item.value, "")),
        };
        match groups.last_mut() {
            Some((n, v, w, list)) if *n == item.name && *v == item.via && *w == when => {
                list.push(value)
            }
            _ => groups.push((item.name, item.via, when, vec![value])),
        }
    }
    groups
        .into_iter()
        .map(|(name, via, when, list)| {
            Yaml::map([
                (name, Some(Yaml::strs(&list))),
                ("via", (via != "inject").then(|| Yaml::str(via))),
                ("when", when.map(Yaml::str)),
            ])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(body: &str) -> Result<String, String> {
        let tree = crate::import::spack::reader::parsed::parse(body).unwrap();
        let def = crate::import::spack::reader::parsed::find_def(tree.root_node()).unwrap();
        let items = flag_handler(def, body, &[]).map_err(|e| e.what)?;
        Ok(Yaml::Seq(flags_yaml(&items)).to_document())
    }

    #[test]
    fn each_flag_goes_where_the_return_it_reaches_puts_it() {
        let body = "def flag_handler(self, name, flags):\n    \
                    if name == \"cflags\" and self.spec.satisfies(\"%nvhpc\"):\n        \
                    flags.append(\"-O2\")\n        return (None, flags, None)\n    \
                    if name in [\"cxxflags\"]:\n        flags.append(self.compiler.cxx11_flag)\n    \
                    return (flags, None, None)\n";
        assert_eq!(
            flags(body).unwrap(),
            "- {cflags: [\"-O2\"], via: env, when: \"%nvhpc\"}\n\
             - {cxxflags: [\"{{ compiler.cxx11_flag }}\"]}\n"
        );
    }

    #[test]
    fn a_later_if_that_returns_elsewhere_is_reached_too() {
        let body = "def flag_handler(self, name, flags):\n    \
                    if name == \"cflags\":\n        flags.append(\"-g\")\n    \
                    if self.spec.satisfies(\"+x\"):\n        return (None, flags, None)\n    \
                    return (flags, None, None)\n";
        assert_eq!(
            flags(body).unwrap_err(),
            "cflags returned in different places by condition"
        );
    }

    #[test]
    fn tests_of_the_given_flags_and_loops_stay_untranslated() {
        let test = "def flag_handler(self, name, flags):\n    \
                    if \"-g\" not in flags:\n        flags.append(\"-g\")\n    \
                    return (flags, None, None)\n";
        assert!(flags(test).unwrap_err().contains("flags given"));
        let a_loop = "def flag_handler(self, name, flags):\n    \
                      for f in flags:\n        pass\n    return (flags, None, None)\n";
        assert!(
            flags(a_loop)
                .unwrap_err()
                .contains("loop over the flags given")
        );
        let literal = "def flag_handler(self, name, flags):\n    \
                       if name == \"cxxflags\":\n        for s in [\"%oneapi\", \"%cce@15:\"]:\n            \
                       if self.spec.satisfies(s):\n                flags.append(\"-Wno-x\")\n    \
                       return (flags, None, None)\n";
        assert_eq!(
            flags(literal).unwrap(),
            "- {cxxflags: [\"-Wno-x\"], when: \"%oneapi\"}\n- {cxxflags: [\"-Wno-x\"], when: \"%cce@15:\"}\n"
        );
    }
}
