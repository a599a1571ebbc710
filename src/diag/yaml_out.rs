//! A small YAML writer for recipes (the importer's, and the recipe model
//! written back out, `recipes::write`): block style,
//! with short maps and lists of scalars in flow style, every string that a
//! YAML reader could take for something else double-quoted.

use super::{Loc, OriginSpan};

/// A YAML value in the order it is written.
#[derive(Clone, Debug, PartialEq)]
pub enum Yaml {
    Str(String),
    Bool(bool),
    Int(i64),
    Seq(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
    /// A value translated from the user's text at a location: written as
    /// the value, and recorded in the span map of
    /// [`Yaml::to_document_with_origins`].
    At(Box<Yaml>, Loc),
}

/// Flow style for a collection whose flow text is at most this long.
const FLOW_WIDTH: usize = 96;

/// Text being written with the spans of its [`Yaml::At`] values.
#[derive(Default)]
struct Out {
    text: String,
    spans: Vec<OriginSpan>,
}

impl Out {
    /// Append `other` (positions relative to its start).
    fn append(&mut self, other: Out) {
        let base = self.text.len();
        self.text.push_str(&other.text);
        self.spans.extend(other.spans.into_iter().map(|mut s| {
            s.start += base;
            s.end += base;
            s
        }));
    }

    fn push(&mut self, s: &str) {
        self.text.push_str(s);
    }

    fn len(&self) -> usize {
        self.text.len()
    }
}

impl Yaml {
    pub fn str(s: impl Into<String>) -> Yaml {
        Yaml::Str(s.into())
    }

    /// `value`, translated from the user's text at `loc`.
    pub fn at(value: Yaml, loc: &Loc) -> Yaml {
        Yaml::At(Box::new(value), loc.clone())
    }

    /// The value without its [`Yaml::At`] wrappers.
    pub fn plain(&self) -> &Yaml {
        match self {
            Yaml::At(v, _) => v.plain(),
            v => v,
        }
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
        matches!(self.plain(), Yaml::Str(_) | Yaml::Bool(_) | Yaml::Int(_))
    }

    fn is_empty_collection(&self) -> bool {
        match self.plain() {
            Yaml::Seq(v) => v.is_empty(),
            Yaml::Map(v) => v.is_empty(),
            _ => false,
        }
    }

    /// The flow form, if the value is small and at most two levels deep.
    fn flow(&self, depth: usize) -> Option<Out> {
        let mut out = Out::default();
        match self {
            Yaml::At(v, loc) => {
                let inner = v.flow(depth)?;
                let value = match v.plain() {
                    Yaml::Str(s) => Some(s.clone()),
                    _ => None,
                };
                out.spans.push(OriginSpan {
                    start: 0,
                    end: inner.len(),
                    origin: loc.clone(),
                    value,
                });
                out.append(inner);
                return Some(out);
            }
            Yaml::Str(s) => {
                out.push(&scalar(s));
                return Some(out);
            }
            Yaml::Bool(b) => {
                out.push(&b.to_string());
                return Some(out);
            }
            Yaml::Int(i) => {
                out.push(&i.to_string());
                return Some(out);
            }
            Yaml::Seq(items) => {
                if depth > 1 {
                    return None;
                }
                out.push("[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(", ");
                    }
                    out.append(item.flow(depth + 1)?);
                }
                out.push("]");
            }
            Yaml::Map(entries) => {
                if depth > 1 {
                    return None;
                }
                out.push("{");
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(", ");
                    }
                    out.push(&format!("{}: ", scalar(k)));
                    out.append(v.flow(depth + 1)?);
                }
                out.push("}");
            }
        }
        (out.len() <= FLOW_WIDTH && !out.text.contains('\n')).then_some(out)
    }

    /// The whole document.
    pub fn to_document(&self) -> String {
        self.to_document_with_origins().0
    }

    /// The whole document and where its [`Yaml::At`] parts came from.
    pub fn to_document_with_origins(&self) -> (String, Vec<OriginSpan>) {
        let mut out = Out::default();
        write_block(&mut out, self, 0);
        let mut spans = out.spans;
        spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
        (out.text, spans)
    }
}

/// A top-level value, or a block below `key:`/`-`: its origin spans the
/// block.
fn write_block(out: &mut Out, v: &Yaml, indent: usize) {
    match v {
        Yaml::At(inner, loc) => {
            let start = out.len();
            write_block(out, inner, indent);
            out.spans.push(OriginSpan {
                start,
                end: out.len(),
                origin: loc.clone(),
                value: None,
            });
        }
        Yaml::Map(entries) => write_map(out, entries, indent),
        Yaml::Seq(items) => write_seq(out, items, indent),
        other => {
            if let Some(f) = other.flow(0) {
                out.append(f);
            }
            out.push("\n");
        }
    }
}

/// An entry whose value has an origin: the key's line belongs to it too.
fn write_map(out: &mut Out, entries: &[(String, Yaml)], indent: usize) {
    for (k, v) in entries {
        let pad = " ".repeat(indent);
        let start = out.len();
        out.push(&format!("{pad}{}:", scalar(k)));
        write_value(out, v, indent);
        if let Yaml::At(_, loc) = v {
            out.spans.push(OriginSpan {
                start,
                end: out.len(),
                origin: loc.clone(),
                value: None,
            });
        }
    }
}

/// After `key:` or `-`: the value on the same line, or a block below.
fn write_value(out: &mut Out, v: &Yaml, indent: usize) {
    if v.is_scalar() || v.is_empty_collection() {
        out.push(" ");
        if let Some(f) = v.flow(0) {
            out.append(f);
        }
        out.push("\n");
        return;
    }
    if let Some(flow) = v.flow(0) {
        if indent + flow.len() <= FLOW_WIDTH {
            out.push(" ");
            out.append(flow);
            out.push("\n");
            return;
        }
    }
    out.push("\n");
    write_block_below(out, v, indent + 2);
}

fn write_block_below(out: &mut Out, v: &Yaml, indent: usize) {
    match v {
        Yaml::At(inner, _) => write_block_below(out, inner, indent),
        Yaml::Map(entries) => write_map(out, entries, indent),
        Yaml::Seq(items) => write_seq(out, items, indent),
        _ => unreachable!("scalars are written inline"),
    }
}

fn write_seq(out: &mut Out, items: &[Yaml], indent: usize) {
    let pad = " ".repeat(indent);
    for item in items {
        let start = out.len();
        let origin = match item {
            Yaml::At(_, loc) => Some(loc.clone()),
            _ => None,
        };
        match item.plain() {
            Yaml::Map(entries) if item.flow(0).is_none_or(|f| indent + f.len() > FLOW_WIDTH) => {
                // `- first: v` then the other keys aligned below it.
                let mut first = true;
                for (k, v) in entries {
                    if first {
                        out.push(&format!("{pad}- {}:", scalar(k)));
                        first = false;
                    } else {
                        out.push(&format!("{pad}  {}:", scalar(k)));
                    }
                    write_value(out, v, indent + 2);
                }
            }
            Yaml::Seq(_) if item.flow(0).is_none() => {
                out.push(&format!("{pad}-"));
                write_value(out, item.plain(), indent);
            }
            _ => {
                out.push(&format!("{pad}- "));
                if let Some(f) = item.flow(1).or_else(|| item.flow(0)) {
                    out.append(f);
                }
                out.push("\n");
                continue;
            }
        }
        if let Some(origin) = origin {
            out.spans.push(OriginSpan {
                start,
                end: out.len(),
                origin,
                value: None,
            });
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
