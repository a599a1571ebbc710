//! Python string literals and formatting: prefixes, backslash escapes,
//! `"…".format(…)` and `"…" % …`.

use tree_sitter::Node;

use crate::import::spack::evaluator::value::{Eval, Unevaluable, Value, children, text};

/// The prefix of a string literal (`f`, `r`, `rb`, …), lower-case.
pub fn string_prefix(node: Node, src: &str) -> String {
    let mut cursor = node.walk();
    let start = node
        .children(&mut cursor)
        .find(|c| c.kind() == "string_start")
        .map(|c| text(c, src))
        .unwrap_or("");
    start
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_lowercase()
}

/// An f-string interpolation's reading: (the interpolation, its
/// expression, its format specifier) → its text.
pub type Interp<'a> = dyn Fn(Node, Node, Option<&str>) -> Eval<String> + 'a;

/// A string literal's text (a `concatenated_string`'s parts joined): each
/// run of characters (escapes applied unless the string is raw) through
/// `content`, each f-string interpolation (its node, its expression and its
/// format specifier) through `interp`.
pub fn string_with(
    node: Node,
    src: &str,
    content: &dyn Fn(Node, String) -> Eval<String>,
    interp: &Interp,
) -> Eval<String> {
    if node.kind() == "concatenated_string" {
        let mut out = String::new();
        for part in children(node) {
            out.push_str(&string_with(part, src, content, interp)?);
        }
        return Ok(out);
    }
    let raw = string_prefix(node, src).contains('r');
    let mut out = String::new();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "string_content" => {
                let t = text(child, src);
                out.push_str(&content(child, if raw { t.into() } else { unescape(t) })?);
            }
            "interpolation" => {
                let expr = child
                    .child_by_field_name("expression")
                    .ok_or_else(|| Unevaluable::new(child, "f-string interpolation"))?;
                let spec = child
                    .child_by_field_name("format_specifier")
                    .map(|f| text(f, src).trim_start_matches(':'));
                out.push_str(&interp(child, expr, spec)?);
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Python's backslash escapes in a non-raw string.
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some('\n') => {}
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// `"…{0}…{}…".format(args)` with positional fields only.
pub fn format_braces(fmt: &str, args: &[Value]) -> Option<Value> {
    format_named(fmt, args, &[])
}

/// `"…{0}…{name}…".format(args, name=…)`.
pub fn format_named(fmt: &str, args: &[Value], named: &[(String, Value)]) -> Option<Value> {
    let mut out = String::new();
    let mut next = 0usize;
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let mut field = String::new();
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                    field.push(c);
                }
                let (field, spec) = field.split_once(':').unwrap_or((&field, ""));
                let value = if field.is_empty() {
                    next += 1;
                    args.get(next - 1)?
                } else if let Ok(idx) = field.parse::<usize>() {
                    args.get(idx)?
                } else {
                    &named.iter().find(|(k, _)| k == field)?.1
                };
                out.push_str(&format_spec(value, spec)?);
            }
            c => out.push(c),
        }
    }
    Some(Value::Str(out))
}

/// A value formatted by a format specification: none, `s`, `d`, or a
/// zero-padded or plain width of an integer (`02d`, `02`, `3`).
pub fn format_spec(v: &Value, spec: &str) -> Option<String> {
    match (v, spec) {
        (_, "") | (Value::Str(_), "s") | (Value::Int(_), "d") => Some(v.to_py_string()),
        (Value::Int(i), spec) => {
            let digits = spec.strip_suffix('d').unwrap_or(spec);
            let width: usize = digits.parse().ok()?;
            Some(if digits.starts_with('0') {
                format!("{i:0width$}")
            } else {
                format!("{i:width$}")
            })
        }
        _ => None,
    }
}

/// `"…%s…" % args` with `%s`, `%d` and `%02d`.
pub fn percent_format(fmt: &str, args: &[Value]) -> Option<Value> {
    let mut out = String::new();
    let mut it = args.iter();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = String::new();
        let conv = loop {
            match chars.next()? {
                c @ '0'..='9' => spec.push(c),
                c => break c,
            }
        };
        match conv {
            '%' if spec.is_empty() => out.push('%'),
            's' | 'd' if spec.is_empty() => out.push_str(&it.next()?.to_py_string()),
            'd' => out.push_str(&format_spec(it.next()?, &spec)?),
            _ => return None,
        }
    }
    if it.next().is_some() {
        return None;
    }
    Some(Value::Str(out))
}
