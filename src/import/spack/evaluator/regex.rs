//! `re.search` / `re.match` / `re.fullmatch` of a literal pattern over an
//! evaluable string, and `.group(n)` of the match (rust-bootstrap's and
//! go-bootstrap's `url_for_version` test the version against a pattern).
//! Python's `re` and the `regex` crate agree on the patterns package.py
//! files use here (classes, groups, repetition); a pattern the crate does
//! not read leaves the call unevaluable.

use tree_sitter::Node;

use crate::import::spack::evaluator::value::{CallValue, Eval, Evaluator, Unevaluable, Value};

/// The value a match is kept as: its groups (`None` for a group that did
/// not take part), group 0 first.
const MATCH: &str = "re.Match";

impl Evaluator<'_> {
    pub(crate) fn re_call(&self, node: Node, func: &str, args: Vec<Value>) -> Eval<Value> {
        let fail = |what: &str| Unevaluable::new(node, format!("{func}: {what}"));
        let [Value::Str(pattern), Value::Str(subject)] = args.as_slice() else {
            return Err(fail("arguments"));
        };
        let anchored = match func {
            "re.search" => format!("(?:{pattern})"),
            "re.match" => format!("^(?:{pattern})"),
            _ => format!("^(?:{pattern})$"),
        };
        let re = regex::Regex::new(&anchored).map_err(|_| fail("pattern"))?;
        Ok(match re.captures(subject) {
            None => Value::None,
            Some(caps) => Value::Call(Box::new(CallValue {
                name: MATCH.into(),
                args: caps
                    .iter()
                    .map(|g| g.map_or(Value::None, |m| Value::Str(m.as_str().into())))
                    .collect(),
                kwargs: Vec::new(),
            })),
        })
    }
}

/// `m.group(n)` / `m.group()` of a match.
pub(crate) fn match_group(call: &CallValue, args: &[Value]) -> Option<Value> {
    if call.name != MATCH {
        return None;
    }
    let i = match args {
        [] => 0,
        [Value::Int(i)] => usize::try_from(*i).ok()?,
        _ => return None,
    };
    call.args.get(i).cloned()
}

#[cfg(test)]
mod tests {
    use crate::import::spack::evaluator::value::{Evaluator, Scope, Value};
    use crate::import::spack::reader::parsed;

    fn eval(expr: &str) -> Option<Value> {
        let src = format!("x = {expr}\n");
        let tree = parsed::parse(&src)?;
        let assign = tree.root_node().named_child(0)?.named_child(0)?;
        let right = assign.child_by_field_name("right")?;
        let scope = Scope::new();
        Evaluator::new(&src, &scope).eval(right).ok()
    }

    #[test]
    fn a_match_gives_its_groups_and_no_match_is_none() {
        let m = r#"re.search(r"(\S+)-(\S+)-(\S+)", "1.70.0-darwin-aarch64")"#;
        assert_eq!(
            eval(&format!("{m}.group(2)")),
            Some(Value::Str("darwin".into()))
        );
        assert_eq!(
            eval(r#"re.search(r"(\S+)-(\S+)-(\S+)", "1.70.0")"#),
            Some(Value::None)
        );
        assert_eq!(eval(r#"re.match(r"\d", "a1")"#), Some(Value::None));
        assert_eq!(
            eval(r#"re.fullmatch(r"a(b)?", "a").group(1)"#),
            Some(Value::None)
        );
    }
}
