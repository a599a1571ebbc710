//! JSON values written as block YAML (what CI files look like); every
//! string is double-quoted with JSON escapes, which YAML reads the same.

use serde_json::Value;

/// `v` as a YAML document.
pub fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Object(_) | Value::Array(_) => block(v, 0, &mut out),
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    out
}

fn key(k: &str) -> String {
    let plain = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.');
    if plain {
        k.to_string()
    } else {
        Value::String(k.to_string()).to_string()
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Object(m) if m.is_empty() => "{}".into(),
        Value::Array(a) if a.is_empty() => "[]".into(),
        other => other.to_string(),
    }
}

fn is_block(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

fn block(v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(m) => {
            for (k, val) in m {
                if is_block(val) {
                    out.push_str(&format!("{pad}{}:\n", key(k)));
                    block(val, indent + 2, out);
                } else {
                    out.push_str(&format!("{pad}{}: {}\n", key(k), scalar(val)));
                }
            }
        }
        Value::Array(a) => {
            for val in a {
                if is_block(val) {
                    // The first entry on the dash line, the rest below it.
                    let mut inner = String::new();
                    block(val, indent + 2, &mut inner);
                    let first = inner.split_off(indent + 2);
                    out.push_str(&format!("{pad}- {first}"));
                } else {
                    out.push_str(&format!("{pad}- {}\n", scalar(val)));
                }
            }
        }
        _ => out.push_str(&format!("{pad}{}\n", scalar(v))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_values_are_block_yaml() {
        let v = serde_json::json!({
            "stages": ["build", "assemble"],
            "build:a b": {"script": ["x \"y\""], "needs": [], "tags": ["t"]},
            "list": [{"job": "a", "optional": true}],
        });
        assert_eq!(
            to_yaml(&v),
            "stages:\n  - \"build\"\n  - \"assemble\"\n\"build:a b\":\n  script:\n    - \"x \\\"y\\\"\"\n  needs: []\n  tags:\n    - \"t\"\nlist:\n  - job: \"a\"\n    optional: true\n"
        );
    }
}
