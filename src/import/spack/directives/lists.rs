//! Class-level list building: `fonts.append(f)` and `names.extend([...])`
//! in a loop's body, so that a later `variant("fonts", values=fonts)` sees
//! the list the loop built (as Python does when it runs the class body).

use tree_sitter::Node;

use crate::import::spack::directives::class_body::ClassReader;
use crate::import::spack::evaluator::value::{Args, Value};

impl ClassReader<'_> {
    /// Applies `NAME.append(x)` / `NAME.extend(xs)` / `NAME.insert(i, x)`
    /// to the list `NAME` of the class scope. False when the call is not one
    /// of these on a known list or its arguments have no value here (the
    /// caller then records the call as untranslated).
    pub(crate) fn list_method(&mut self, call: Node, func: &str) -> bool {
        let Some((name, method)) = func.split_once('.') else {
            return false;
        };
        if !matches!(self.f.e.scope.get(name), Some(Value::List(_))) {
            return false;
        }
        let Some(args) = Args::of_call(call, self.src) else {
            return false;
        };
        if !args.keywords.is_empty() {
            return false;
        }
        let ev = self.f.e.ev();
        let Ok(values) = args
            .positional
            .iter()
            .map(|a| ev.eval(*a))
            .collect::<Result<Vec<_>, _>>()
        else {
            return false;
        };
        let Some(Value::List(list)) = self.f.e.scope.get_mut(name) else {
            return false;
        };
        match (method, values.as_slice()) {
            ("append", [v]) => list.push(v.clone()),
            ("extend", [v]) => match v.iter_items() {
                Some(items) => list.extend(items),
                None => return false,
            },
            ("insert", [Value::Int(i), v]) => {
                let n = list.len() as i64;
                let at = if *i < 0 { n + i } else { *i }.clamp(0, n) as usize;
                list.insert(at, v.clone());
            }
            _ => return false,
        }
        true
    }
}
