//! A small YAML writer for recipes (the importer's, and the recipe model
//! written back out, `recipes::write`): block style,
//! with short maps and lists of scalars in flow style, every string that a
//! YAML reader could take for something else double-quoted.

use std::fmt::Write;

/// A YAML value in the order it is written.
#[derive(Clone, Debug, PartialEq)]
pub enum Yaml {
    Str(String),
    Bool(bool),
    Int(i64),
    Seq(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
}

/// Flow style for a collection whose flow text is at most this long.
const FLOW_WIDTH: usize = 96;

impl Yaml {
    pub fn str(s: impl Into<String>) -> Yaml {
        Yaml::Str(s.into())
    }

    /// A map from `(key, value)` pairs, skipping `None` values.
    pub fn map<I, K>(entries: I) -> Yaml
    where
        I: IntoIterator<Item = (K, Option<Yaml>)>,
        K: Into<String>,
    {
        Yaml::Map(
            entries
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k.into(), v)))
                .collect(),
        )
    }

    pub fn strs<S: AsRef<str>>(items: &[S]) -> Yaml {
        Yaml::Seq(items.iter().map(|s| Yaml::str(s.as_ref())).collect())
    }

    fn is_scalar(&self) -> bool {
        matches!(self, Yaml::Str(_) | Yaml::Bool(_) | Yaml::Int(_))
    }

    fn is_empty_collection(&self) -> bool {
        match self {
            Yaml::Seq(v) => v.is_empty(),
            Yaml::Map(v) => v.is_empty(),
            _ => false,
        }
    }

    /// The flow form, if the value is small and at most two levels deep.
    fn flow(&self, depth: usize) -> Option<String> {
        let text = match self {
            Yaml::Str(s) => return Some(scalar(s)),
            Yaml::Bool(b) => return Some(b.to_string()),
            Yaml::Int(i) => return Some(i.to_string()),
            Yaml::Seq(items) => {
                if depth > 1 {
                    return None;
                }
                let parts = items
                    .iter()
                    .map(|i| i.flow(depth + 1))
                    .collect::<Option<Vec<_>>>()?;
                format!("[{}]", parts.join(", "))
            }
            Yaml::Map(entries) => {
                if depth > 1 {
                    return None;
                }
                let parts = entries
                    .iter()
                    .map(|(k, v)| Some(format!("{}: {}", scalar(k), v.flow(depth + 1)?)))
                    .collect::<Option<Vec<_>>>()?;
                format!("{{{}}}", parts.join(", "))
            }
        };
        (text.len() <= FLOW_WIDTH && !text.contains('\n')).then_some(text)
    }

    /// The whole document.
    pub fn to_document(&self) -> String {
        let mut out = String::new();
        match self {
            Yaml::Map(entries) => write_map(&mut out, entries, 0),
            Yaml::Seq(items) => write_seq(&mut out, items, 0),
            other => {
                let _ = writeln!(out, "{}", other.flow(0).unwrap_or_default());
            }
        }
        out
    }
}

fn write_map(out: &mut String, entries: &[(String, Yaml)], indent: usize) {
    for (k, v) in entries {
        let pad = " ".repeat(indent);
        let _ = write!(out, "{pad}{}:", scalar(k));
        write_value(out, v, indent);
    }
}

/// After `key:` or `-`: the value on the same line, or a block below.
fn write_value(out: &mut String, v: &Yaml, indent: usize) {
    if v.is_scalar() || v.is_empty_collection() {
        let _ = writeln!(out, " {}", v.flow(0).unwrap_or_default());
        return;
    }
    if let Some(flow) = v.flow(0) {
        if indent + flow.len() <= FLOW_WIDTH {
            let _ = writeln!(out, " {flow}");
            return;
        }
    }
    out.push('\n');
    match v {
        Yaml::Map(entries) => write_map(out, entries, indent + 2),
        Yaml::Seq(items) => write_seq(out, items, indent + 2),
        _ => unreachable!("scalars are written inline"),
    }
}

fn write_seq(out: &mut String, items: &[Yaml], indent: usize) {
    let pad = " ".repeat(indent);
    for item in items {
        match item {
            Yaml::Map(entries) if item.flow(0).is_none_or(|f| indent + f.len() > FLOW_WIDTH) => {
                // `- first: v` then the other keys aligned below it.
                let mut first = true;
                for (k, v) in entries {
                    if first {
                        let _ = write!(out, "{pad}- {}:", scalar(k));
                        first = false;
                    } else {
                        let _ = write!(out, "{pad}  {}:", scalar(k));
                    }
                    write_value(out, v, indent + 2);
                }
            }
            Yaml::Seq(_) if item.flow(0).is_none() => {
                let _ = write!(out, "{pad}-");
                write_value(out, item, indent);
            }
            _ => {
                let _ = writeln!(
                    out,
                    "{pad}- {}",
                    item.flow(1).or_else(|| item.flow(0)).unwrap_or_default()
                );
            }
        }
    }
}

/// A string as a plain scalar when that reads back as the same string,
/// otherwise double-quoted with JSON escapes (valid YAML).
pub fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
        && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '/')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        );
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_use_block_style_with_short_flow_collections() {
        let doc = Yaml::Map(vec![
            ("name".into(), Yaml::str("zlib-ng")),
            ("version".into(), Yaml::str("2.3.3")),
            ("flag".into(), Yaml::Bool(true)),
            ("list".into(), Yaml::strs(&["a", "on", "x y"])),
            (
                "deps".into(),
                Yaml::Seq(vec![Yaml::Map(vec![
                    ("spec".into(), Yaml::str("cmake@3.5:")),
                    ("type".into(), Yaml::str("build")),
                ])]),
            ),
            ("empty".into(), Yaml::Seq(vec![])),
        ]);
        let text = doc.to_document();
        assert_eq!(
            text,
            "name: zlib-ng\nversion: \"2.3.3\"\nflag: true\nlist: [a, \"on\", \"x y\"]\n\
             deps: [{spec: \"cmake@3.5:\", type: build}]\nempty: []\n"
        );
    }

    #[test]
    fn long_maps_in_lists_are_written_as_blocks() {
        let long = "x".repeat(120);
        let doc = Yaml::Map(vec![(
            "items".into(),
            Yaml::Seq(vec![Yaml::Map(vec![
                ("url".into(), Yaml::str(&long)),
                ("sha256".into(), Yaml::str("ab")),
            ])]),
        )]);
        assert_eq!(
            doc.to_document(),
            format!("items:\n  - url: {long}\n    sha256: ab\n")
        );
    }
}
