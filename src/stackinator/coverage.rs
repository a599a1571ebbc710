//! No key dropped without a word: after a translation, every key of every
//! input file was either read by a translator or named by a diagnostic
//! (a warning that it is not supported, an error). A key neither read nor
//! named gets a `stack::not-translated` warning at its position here — a
//! safety net: the translators handle every key stackinator defines, and
//! tests/it/stackinator_keys.rs fails when a key of the alps-uenv and
//! alps-cluster-config repositories reaches this net.

use std::path::Path;

use crate::diag::yaml::{KeysRead, Node};
use crate::diag::{Code, Diagnostic, Diagnostics, SourceFile};

/// The warnings for the keys of `files` that nothing read and no
/// diagnostic of `diags` names.
pub fn untranslated(
    files: &[(SourceFile, Node)],
    keys: &KeysRead,
    diags: &Diagnostics,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut seen: Vec<&Path> = Vec::new();
    for (src, root) in files {
        // A file read twice is checked once.
        if seen.contains(&src.path()) {
            continue;
        }
        seen.push(src.path());
        let named: Vec<usize> = diags
            .iter()
            .flat_map(|d| d.labels.iter())
            // A label of no length at the start is about the file as a whole.
            .filter(|l| *l.loc.file == src.path() && (l.loc.len > 0 || l.loc.offset > 0))
            .map(|l| l.loc.offset)
            .collect();
        let walk = Walk {
            src,
            keys,
            named: &named,
        };
        walk.node(root, src.text().len(), &mut Vec::new(), &mut out);
    }
    out
}

struct Walk<'a> {
    src: &'a SourceFile,
    keys: &'a KeysRead,
    /// Byte offsets of every diagnostic label in this file.
    named: &'a [usize],
}

impl Walk<'_> {
    fn offset(&self, node: &Node) -> Option<usize> {
        let start = match node {
            Node::Mapping(m) => m
                .keys()
                .next()
                .and_then(|k| k.span().start())
                .or(node.span().start()),
            _ => node.span().start(),
        }?;
        Some(self.src.byte_of_char(start.character()))
    }

    /// The first mapping key at or below `node`, as a byte offset: a
    /// diagnostic before it is about the entry itself.
    fn first_key(&self, node: &Node) -> Option<usize> {
        match node {
            Node::Mapping(m) => m
                .keys()
                .next()
                .and_then(|k| k.span().start())
                .map(|s| self.src.byte_of_char(s.character())),
            Node::Sequence(items) => items.iter().find_map(|i| self.first_key(i)),
            Node::Scalar(_) => None,
        }
    }

    fn node(&self, node: &Node, end: usize, path: &mut Vec<String>, out: &mut Vec<Diagnostic>) {
        match node {
            Node::Mapping(m) => {
                let entries: Vec<_> = m.iter().collect();
                for (i, (k, v)) in entries.iter().enumerate() {
                    let Some(start) = k.span().start() else {
                        continue;
                    };
                    let at = self.src.byte_of_char(start.character());
                    let next = entries
                        .get(i + 1)
                        .and_then(|(k, _)| k.span().start())
                        .map_or(end, |s| self.src.byte_of_char(s.character()));
                    let head_end = self.first_key(v).filter(|&f| f > at).unwrap_or(next);
                    let named = self.named.iter().any(|&o| o >= at && o < head_end);
                    path.push(k.as_str().to_string());
                    if named {
                        // A diagnostic about the entry covers all of it.
                    } else if self.keys.contains(self.src.path(), k) {
                        self.node(v, next, path, out);
                    } else {
                        let loc = self.src.loc(at, k.as_str().len());
                        out.push(
                            Diagnostic::warning(
                                Code::NotTranslated,
                                format!("`{}` is not translated: stack ignores it", path.join(":")),
                            )
                            .at(&loc, "not translated")
                            .with_source(self.src)
                            .with_help(
                                "stack does not know this key of the stackinator format; \
                                 please report it (docs/stackinator.md lists what is translated)",
                            ),
                        );
                    }
                    path.pop();
                }
            }
            Node::Sequence(items) => {
                for (i, item) in items.iter().enumerate() {
                    let next = items.get(i + 1).and_then(|n| self.offset(n)).unwrap_or(end);
                    // A diagnostic at an item's start is about the whole item.
                    if self.offset(item).is_some_and(|o| self.named.contains(&o)) {
                        continue;
                    }
                    path.push(format!("[{i}]"));
                    self.node(item, next, path, out);
                    path.pop();
                }
            }
            Node::Scalar(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::yaml::{Cx, parse};

    /// A key read is covered and its children are checked; a key a
    /// diagnostic names is covered with its children; any other is not.
    #[test]
    fn keys_neither_read_nor_named_are_reported_with_their_path() {
        let src = SourceFile::new(
            "/x/views.yaml",
            "a:\n  b: 1\n  c: 2\nd: {e: 1}\nf: [{g: 1}]\n",
        );
        let root = parse(&src).unwrap();
        let keys = KeysRead::default();
        let mut diags = Diagnostics::new();
        let mut cx = Cx::tracking(&src, &mut diags, &keys);
        let m = cx.open_map(&root, "top").unwrap();
        let a = cx.open_map(m.get("a").unwrap(), "a").unwrap();
        let _ = a.get("b");
        let d = m.key_node("d").unwrap();
        let loc = cx.scalar_loc(d);
        cx.warn(Code::Unsupported, &loc, "d is ignored", "here", None);
        let _ = m.get("f");
        let out = untranslated(&[(src.clone(), root)], &keys, &diags);
        let msgs: Vec<String> = out.iter().map(|d| d.message.clone()).collect();
        assert_eq!(
            msgs,
            [
                "`a:c` is not translated: stack ignores it",
                "`f:[0]:g` is not translated: stack ignores it"
            ]
        );
        assert_eq!(out[0].loc().unwrap().line, 3);
    }
}
