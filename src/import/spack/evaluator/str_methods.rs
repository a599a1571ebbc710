//! The methods of Python strings a package.py calls on known values
//! (`"…".join(…)`, `.split(".", 1)`, `.zfill(2)`, …), as pure functions of
//! the string and the evaluated arguments. `None`: a method or an argument
//! shape the evaluator does not know.

use crate::import::spack::evaluator::value::Value;
use crate::import::spack::evaluator::version_parts;

/// `s.<attr>(args…)`; `.format()` is the caller's (it has its own message).
pub fn call(s: &str, attr: &str, args: &[Value]) -> Option<Value> {
    let str_value = |t: String| Some(Value::Str(t));
    match (attr, args) {
        ("join", [v]) => str_value(
            v.iter_items()?
                .iter()
                .map(Value::to_py_string)
                .collect::<Vec<_>>()
                .join(s),
        ),
        ("up_to", [Value::Int(n)]) if *n > 0 => str_value(version_parts::up_to(s, *n)),
        ("upper", _) => str_value(s.to_uppercase()),
        ("lower", _) => str_value(s.to_lowercase()),
        ("rsplit" | "split", [Value::Str(sep), Value::Int(n)]) => {
            Some(split_n(s, sep, *n, attr == "rsplit"))
        }
        ("rsplit" | "split", [_, _]) => None,
        ("rstrip" | "lstrip" | "strip", _) => strip(s, attr, args),
        ("startswith", [Value::Str(x)]) => Some(Value::Bool(s.starts_with(x.as_str()))),
        ("endswith", [Value::Str(x)]) => Some(Value::Bool(s.ends_with(x.as_str()))),
        ("find" | "rfind", [Value::Str(x)]) => {
            let at = if attr == "find" {
                s.find(x.as_str())
            } else {
                s.rfind(x.as_str())
            };
            // Python counts characters, not bytes.
            Some(Value::Int(at.map_or(-1, |i| s[..i].chars().count() as i64)))
        }
        ("zfill", [Value::Int(w)]) => str_value(zfill(s, *w)),
        ("replace", [Value::Str(a), Value::Str(b)]) => str_value(s.replace(a.as_str(), b)),
        ("split", []) => Some(strs(s.split_whitespace())),
        ("split", [Value::Str(sep)]) => Some(strs(s.split(sep.as_str()))),
        _ => None,
    }
}

fn strs<'a>(parts: impl Iterator<Item = &'a str>) -> Value {
    Value::List(parts.map(|p| Value::Str(p.into())).collect())
}

/// `s.split(sep, n)` / `s.rsplit(sep, n)`: at most `n` splits.
fn split_n(s: &str, sep: &str, n: i64, from_right: bool) -> Value {
    let n = n.max(0) as usize + 1;
    if from_right {
        let mut p: Vec<&str> = s.rsplitn(n, sep).collect();
        p.reverse();
        strs(p.into_iter())
    } else {
        strs(s.splitn(n, sep))
    }
}

/// `strip`/`lstrip`/`rstrip`, of whitespace or of the given characters.
fn strip(s: &str, attr: &str, args: &[Value]) -> Option<Value> {
    let out = match args {
        [Value::Str(chars)] => {
            let set: Vec<char> = chars.chars().collect();
            match attr {
                "rstrip" => s.trim_end_matches(set.as_slice()),
                "lstrip" => s.trim_start_matches(set.as_slice()),
                _ => s.trim_matches(set.as_slice()),
            }
        }
        [] => match attr {
            "rstrip" => s.trim_end(),
            "lstrip" => s.trim_start(),
            _ => s.trim(),
        },
        _ => return None,
    };
    Some(Value::Str(out.to_string()))
}

/// `s.zfill(width)`: zeros after a leading sign.
fn zfill(s: &str, width: i64) -> String {
    let width = usize::try_from(width).unwrap_or(0);
    let pad = "0".repeat(width.saturating_sub(s.chars().count()));
    match s.strip_prefix(['-', '+']) {
        Some(rest) => format!("{}{pad}{rest}", &s[..1]),
        None => format!("{pad}{s}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn methods_as_python_answers_them() {
        assert_eq!(
            call("1.2.3", "split", &[s("."), Value::Int(1)]),
            Some(Value::List(vec![s("1"), s("2.3")]))
        );
        assert_eq!(
            call("1.2.3", "rsplit", &[s("."), Value::Int(1)]),
            Some(Value::List(vec![s("1.2"), s("3")]))
        );
        assert_eq!(call("-7", "zfill", &[Value::Int(4)]), Some(s("-007")));
        assert_eq!(call("xxabxx", "strip", &[s("x")]), Some(s("ab")));
        assert_eq!(call("  ab ", "lstrip", &[]), Some(s("ab ")));
        assert_eq!(call("äbä", "rfind", &[s("ä")]), Some(Value::Int(2)));
        assert_eq!(
            call("a b", "split", &[]),
            Some(Value::List(vec![s("a"), s("b")]))
        );
        assert_eq!(
            call("abc", "startswith", &[s("ab")]),
            Some(Value::Bool(true))
        );
        assert_eq!(call("1.2.3", "up_to", &[Value::Int(2)]), Some(s("1.2")));
        assert_eq!(call("abc", "zfill", &[s("x")]), None);
        assert_eq!(call("abc", "casefold", &[]), None);
    }
}
