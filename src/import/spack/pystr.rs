//! Python string literals and formatting: prefixes, backslash escapes,
//! `"…".format(…)` and `"…" % …`.

use tree_sitter::Node;

use super::value::{Value, text};

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
                let idx = if field.is_empty() {
                    next += 1;
                    next - 1
                } else {
                    field.parse().ok()?
                };
                out.push_str(&args.get(idx)?.to_py_string());
            }
            c => out.push(c),
        }
    }
    Some(Value::Str(out))
}

/// `"…%s…" % args` with `%s`/`%d` only.
pub fn percent_format(fmt: &str, args: &[Value]) -> Option<Value> {
    let mut out = String::new();
    let mut it = args.iter();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '%' => out.push('%'),
            's' | 'd' => out.push_str(&it.next()?.to_py_string()),
            _ => return None,
        }
    }
    if it.next().is_some() {
        return None;
    }
    Some(Value::Str(out))
}
