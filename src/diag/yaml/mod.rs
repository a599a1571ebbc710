//! A spanned YAML reader: parses a file into `marked_yaml` nodes and offers
//! typed accessors that record a [`Diagnostic`] (with file, line, column,
//! what was expected and a suggestion) instead of failing, so one pass over a
//! file reports every problem in it.
//!
//! ```
//! use stack::diag::{Diagnostics, SourceFile, yaml};
//! let src = SourceFile::new("/x/p.yaml", "name: foo\nnmae: bar\n");
//! let mut diags = Diagnostics::new();
//! let root = yaml::parse(&src).unwrap();
//! let mut cx = yaml::Cx::new(&src, &mut diags);
//! let map = cx.map(&root, "a package recipe", &["name", "description"]).unwrap();
//! let name = map.get("name").and_then(|n| cx.string(n, "the package name"));
//! assert_eq!(name.unwrap().value, "foo");
//! assert_eq!(diags.error_count(), 1); // unknown key `nmae` (did you mean `name`?)
//! ```

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use marked_yaml::Node;
use marked_yaml::types::{MarkedMappingNode, MarkedScalarNode};
use marked_yaml::{LoadError, LoaderOptions};

use super::{Code, Diagnostic, Diagnostics, Loc, SourceFile, backticked, did_you_mean};

mod scalars;

/// [`parse`] for a loader: a syntax error goes to `diags`.
pub fn parse_into(src: &SourceFile, diags: &mut Diagnostics) -> Option<Node> {
    parse(src).map_err(|d| diags.push(*d)).ok()
}

/// Parse a YAML document whose top level must be a mapping. An empty file is
/// an empty mapping. Syntax errors (including duplicate keys, anchors and
/// tags, which stack's formats do not use) become one diagnostic.
pub fn parse(src: &SourceFile) -> Result<Node, Box<Diagnostic>> {
    let options = LoaderOptions::default()
        .error_on_duplicate_keys(true)
        .prevent_coercion(true)
        .toplevel_mapping();
    let text = src.text();
    // The YAML library has internal assertions; never let a malformed input
    // abort the process.
    let result =
        std::panic::catch_unwind(|| marked_yaml::parse_yaml_with_options(0, text, options));
    let err = match result {
        Ok(Ok(node)) => return Ok(node),
        Ok(Err(e)) => e,
        Err(_) => {
            return Err(Box::new(
                Diagnostic::error(
                    Code::YamlSyntax,
                    "invalid YAML: the parser could not read this file",
                )
                .at(&src.start(), "somewhere in this file")
                .with_source(src),
            ));
        }
    };
    let (marker, message, label, help) = match &err {
        LoadError::TopLevelMustBeMapping(m) => (
            *m,
            "invalid YAML: the top level must be a mapping (`key: value` lines)".to_string(),
            "expected a mapping here",
            Some(
                "these files are mappings: `name: …`, `description: …` lines at the top level"
                    .into(),
            ),
        ),
        LoadError::TopLevelMustBeSequence(m) => (
            *m,
            "invalid YAML: the top level must be a sequence".to_string(),
            "expected a sequence here",
            None,
        ),
        LoadError::UnexpectedAnchor(m) => (
            *m,
            "invalid YAML: anchors and aliases (`&x`, `*x`) are not supported".to_string(),
            "anchor here",
            Some("write the value out in full".to_string()),
        ),
        LoadError::MappingKeyMustBeScalar(m) => (
            *m,
            "invalid YAML: mapping keys must be plain strings".to_string(),
            "complex key here",
            None,
        ),
        LoadError::UnexpectedTag(m) => (
            *m,
            "invalid YAML: tags (`!!str`, `!foo`) are not supported".to_string(),
            "tag here",
            Some("quote the value instead of tagging it".to_string()),
        ),
        LoadError::ScanError(m, e) => (*m, format!("invalid YAML: {}", e.info()), "here", None),
        LoadError::DuplicateKey(inner) => {
            let first = scalar_loc(src, &inner.prev_key);
            let second = scalar_loc(src, &inner.key);
            return Err(Box::new(
                Diagnostic::error(
                    Code::YamlSyntax,
                    format!("invalid YAML: duplicate key `{}`", inner.key.as_str()),
                )
                .at(&second, "defined again here")
                .at(&first, "first defined here")
                .with_source(src)
                .with_help("remove one of the two entries"),
            ));
        }
    };
    let offset = src.byte_of_char(marker.character());
    let len = src.text()[offset..]
        .chars()
        .next()
        .filter(|c| *c != '\n')
        .map_or(0, char::len_utf8);
    let help = help.or_else(|| {
        Some(
            "check the indentation here and on the lines above (an unclosed `[`, `{` or quote?); \
             quote values that contain `: `, ` #` or start with `[`, `{`, `*`, `&`, `!`"
                .to_string(),
        )
    });
    let d = Diagnostic::error(Code::YamlSyntax, message)
        .at(&src.loc(offset, len), label)
        .with_source(src)
        .with_help_opt(help);
    Err(Box::new(d))
}

/// Whether a scalar is YAML null: empty, `~` or `null` written without quotes.
pub fn is_null(s: &MarkedScalarNode) -> bool {
    s.may_coerce() && matches!(s.as_str(), "" | "~" | "null" | "Null" | "NULL")
}

fn scalar_loc(src: &SourceFile, s: &MarkedScalarNode) -> Loc {
    let Some(start) = s.span().start() else {
        return src.start();
    };
    let offset = src.byte_of_char(start.character());
    let len = scalar_len(&src.text()[offset..], s.as_str());
    src.loc(offset, len)
}

/// The length in the source of a scalar starting at `rest`.
fn scalar_len(rest: &str, value: &str) -> usize {
    let line_len = rest.find('\n').unwrap_or(rest.len());
    match rest.chars().next() {
        Some('"') => {
            let mut escaped = false;
            for (i, c) in rest.char_indices().skip(1) {
                match c {
                    '\\' if !escaped => escaped = true,
                    '"' if !escaped => return i + 1,
                    _ => escaped = false,
                }
            }
            line_len
        }
        Some('\'') => {
            let bytes = rest.as_bytes();
            let mut i = 1;
            while i < bytes.len() {
                if bytes[i] == b'\'' {
                    if bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    return i + 1;
                }
                i += 1;
            }
            line_len
        }
        Some('|') | Some('>') => line_len,
        _ if !value.is_empty() && rest.starts_with(value) => value.len(),
        _ => {
            let line = &rest[..line_len];
            line.find(" #")
                .unwrap_or(line.len())
                .max(value.len().min(line_len))
        }
    }
}

/// The kind of a node, for "expected X, found Y" messages.
pub fn kind(node: &Node) -> &'static str {
    match node {
        Node::Scalar(s) if is_null(s) => "nothing (null)",
        Node::Scalar(_) => "a scalar",
        Node::Mapping(_) => "a mapping",
        Node::Sequence(_) => "a list",
    }
}

/// The mapping keys a reader looked at, per file: a translation that must
/// not drop a key without a word ([`crate::stackinator`]) reads through a
/// tracking [`Cx`] ([`Cx::tracking`]) and then lists the keys of its input
/// files that nothing read and no diagnostic names.
#[derive(Clone, Debug, Default)]
pub struct KeysRead(Arc<Mutex<BTreeSet<(PathBuf, usize)>>>);

impl KeysRead {
    fn mark(&self, file: &Path, key: &MarkedScalarNode) {
        if let (Some(start), Ok(mut set)) = (key.span().start(), self.0.lock()) {
            set.insert((file.to_path_buf(), start.character()));
        }
    }

    /// Whether a reader of `file` looked at `key` (by its position).
    pub fn contains(&self, file: &Path, key: &MarkedScalarNode) -> bool {
        let Some(start) = key.span().start() else {
            return false;
        };
        self.0
            .lock()
            .is_ok_and(|set| set.contains(&(file.to_path_buf(), start.character())))
    }
}

/// Conversion context: the file being read and where diagnostics go.
pub struct Cx<'a> {
    pub src: &'a SourceFile,
    pub diags: &'a mut Diagnostics,
    /// Records the keys looked at ([`Cx::tracking`]).
    read: Option<KeysRead>,
}

/// A mapping node whose keys have been checked against the allowed ones.
pub struct Map<'n> {
    node: &'n MarkedMappingNode,
    /// Location of the mapping (its first line).
    pub loc: Loc,
    read: Option<(KeysRead, Arc<PathBuf>)>,
}

impl<'n> Map<'n> {
    fn mark(&self, key: &MarkedScalarNode) {
        if let Some((read, file)) = &self.read {
            read.mark(file, key);
        }
    }

    /// The value of `key`, unless absent or null.
    /// (Asking counts as reading the key, null or not: null is "the
    /// default" to the reader.)
    pub fn get(&self, key: &str) -> Option<&'n Node> {
        let node = self.node.get_node(key)?;
        if self.read.is_some() {
            if let Some(k) = self.key_node(key) {
                self.mark(k);
            }
        }
        match node {
            Node::Scalar(s) if is_null(s) => None,
            n => Some(n),
        }
    }

    /// Whether the key is present (even with a null value).
    pub fn has(&self, key: &str) -> bool {
        self.node.get_node(key).is_some()
    }

    /// All entries in file order: key text, key location source node, value.
    /// Going through them counts as reading every key.
    pub fn entries(&self) -> impl Iterator<Item = (&'n MarkedScalarNode, &'n Node)> {
        if self.read.is_some() {
            for k in self.node.keys() {
                self.mark(k);
            }
        }
        self.node.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }

    /// The key node for `key`, for labelling the key rather than the value.
    pub fn key_node(&self, key: &str) -> Option<&'n MarkedScalarNode> {
        self.node.keys().find(|k| k.as_str() == key)
    }

    /// Count `key` as read (a key whose null value means "the default").
    pub fn read(&self, key: &str) {
        if let Some(k) = self.key_node(key) {
            self.mark(k);
        }
    }
}

impl<'a> Cx<'a> {
    pub fn new(src: &'a SourceFile, diags: &'a mut Diagnostics) -> Self {
        Cx {
            src,
            diags,
            read: None,
        }
    }

    /// A context that records in `read` every key the reader looks at
    /// ([`Map::get`], [`Map::entries`], [`Map::read`]).
    pub fn tracking(src: &'a SourceFile, diags: &'a mut Diagnostics, read: &KeysRead) -> Self {
        Cx {
            src,
            diags,
            read: Some(read.clone()),
        }
    }

    fn map_of<'n>(&self, node: &'n MarkedMappingNode, whole: &Node) -> Map<'n> {
        Map {
            node,
            loc: self.loc(whole),
            read: self.read.as_ref().map(|r| (r.clone(), self.src.path_arc())),
        }
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        self.src.path()
    }

    /// The directory of the file being read (for relative paths).
    pub fn dir(&self) -> PathBuf {
        self.src
            .path()
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// Record a diagnostic, attaching this file's source.
    pub fn push(&mut self, mut d: Diagnostic) {
        d.attach_source(self.src);
        self.diags.push(d);
    }

    /// Record an error at `loc`.
    pub fn error(
        &mut self,
        code: Code,
        loc: &Loc,
        message: impl Into<String>,
        label: impl Into<String>,
        help: Option<String>,
    ) {
        let d = Diagnostic::error(code, message)
            .at(loc, label)
            .with_help_opt(help);
        self.push(d);
    }

    /// Record a warning at `loc`.
    pub fn warn(
        &mut self,
        code: Code,
        loc: &Loc,
        message: impl Into<String>,
        label: impl Into<String>,
        help: Option<String>,
    ) {
        let d = Diagnostic::warning(code, message)
            .at(loc, label)
            .with_help_opt(help);
        self.push(d);
    }

    /// The location of a node. For mappings and lists this is their first
    /// line (up to the end of that line).
    pub fn loc(&self, node: &Node) -> Loc {
        match node {
            Node::Scalar(s) => self.scalar_loc(s),
            _ => {
                let Some(start) = node.span().start() else {
                    return self.src.start();
                };
                // A block mapping's marker sits after its first key; start at
                // the key instead.
                let mut first = start.character();
                if let Node::Mapping(m) = node {
                    if let Some(k) = m.keys().next().and_then(|k| k.span().start()) {
                        first = first.min(k.character());
                    }
                }
                let offset = self.src.byte_of_char(first);
                let rest = &self.src.text()[offset..];
                let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
                let len = line.find(" #").unwrap_or(line.len());
                self.src.loc(offset, line[..len].trim_end().len())
            }
        }
    }

    /// The location of a scalar (quotes included).
    pub fn scalar_loc(&self, s: &MarkedScalarNode) -> Loc {
        scalar_loc(self.src, s)
    }

    /// The location of `len` bytes at byte `offset` inside the value of the
    /// scalar at `whole` (e.g. the part of a spec a parse error points at).
    /// Falls back to the whole scalar when the value is not written verbatim
    /// (escapes, folded lines).
    /// (In a translated file the location is in the user's file, and so is
    /// the part.)
    pub fn sub_loc(&self, whole: &Loc, value: &str, offset: usize, len: usize) -> Loc {
        let Some(file) = self.src.file_of(&whole.file) else {
            return whole.clone();
        };
        let text = file.text();
        if whole.offset > text.len() {
            return whole.clone();
        }
        let rest = &text[whole.offset..];
        let q = usize::from(rest.starts_with('"') || rest.starts_with('\''));
        let offset = offset.min(value.len());
        let len = len.min(value.len() - offset);
        if rest[q..].starts_with(value) {
            let mut at = file.own_loc(whole.offset + q + offset, len);
            at.via = whole.via.clone();
            at
        } else {
            whole.clone()
        }
    }

    fn type_error(&mut self, node: &Node, expected: &str, what: &str) {
        let loc = self.loc(node);
        self.error(
            Code::WrongType,
            &loc,
            format!("{what}: expected {expected}, found {}", kind(node)),
            format!("expected {expected}"),
            None,
        );
    }

    /// A mapping whose keys must all be in `allowed`; unknown keys are
    /// reported (with the nearest allowed key as a suggestion) and skipped.
    pub fn map<'n>(&mut self, node: &'n Node, what: &str, allowed: &[&str]) -> Option<Map<'n>> {
        let Node::Mapping(m) = node else {
            self.type_error(node, "a mapping", what);
            return None;
        };
        for key in m.keys() {
            if !allowed.contains(&key.as_str()) {
                let loc = self.scalar_loc(key);
                let help = did_you_mean(key.as_str(), allowed)
                    .or_else(|| Some(format!("allowed keys here: {}", backticked(allowed))));
                self.error(
                    Code::UnknownKey,
                    &loc,
                    format!("unknown key `{}` in {what}", key.as_str()),
                    "unknown key",
                    help,
                );
            }
        }
        Some(self.map_of(m, node))
    }

    /// A mapping with arbitrary keys (names chosen by the user).
    pub fn open_map<'n>(&mut self, node: &'n Node, what: &str) -> Option<Map<'n>> {
        let Node::Mapping(m) = node else {
            self.type_error(node, "a mapping", what);
            return None;
        };
        Some(self.map_of(m, node))
    }

    /// A required entry of `map`: reports a missing field at the mapping.
    pub fn required<'n>(&mut self, map: &Map<'n>, key: &str, what: &str) -> Option<&'n Node> {
        let node = map.get(key);
        if node.is_none() {
            let (msg, loc) = match map.key_node(key) {
                Some(k) => (
                    format!("`{key}` in {what} has no value"),
                    self.scalar_loc(k),
                ),
                None => (
                    format!("missing required field `{key}` in {what}"),
                    map.loc.clone(),
                ),
            };
            self.error(
                Code::MissingField,
                &loc,
                msg,
                format!("add `{key}` here"),
                None,
            );
        }
        node
    }

    /// A list (sequence) node.
    pub fn seq<'n>(&mut self, node: &'n Node, what: &str) -> Option<&'n [Node]> {
        match node {
            Node::Sequence(s) => Some(s.as_slice()),
            _ => {
                self.type_error(node, "a list", what);
                None
            }
        }
    }

    /// A list, or a single item standing for a one-element list.
    pub fn one_or_many<'n>(&mut self, node: &'n Node) -> &'n [Node] {
        match node {
            Node::Sequence(s) => s.as_slice(),
            n => std::slice::from_ref(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> (SourceFile, Node) {
        let src = SourceFile::new("/t/x.yaml", text);
        let node = parse(&src).unwrap();
        (src, node)
    }

    #[test]
    fn scalar_locations_cover_quotes() {
        let (src, root) = load("a: \"hello\"\nb: 'it''s'\nc: plain # c\n");
        let mut d = Diagnostics::new();
        let cx = Cx::new(&src, &mut d);
        let m = root.as_mapping().unwrap();
        let a = cx.loc(m.get_node("a").unwrap());
        assert_eq!((a.line, a.col, a.len), (1, 4, 7));
        let b = cx.loc(m.get_node("b").unwrap());
        assert_eq!((b.line, b.col, b.len), (2, 4, 7));
        let c = cx.loc(m.get_node("c").unwrap());
        assert_eq!((c.line, c.col, c.len), (3, 4, 5));
    }

    #[test]
    fn sub_locations_point_inside_the_value() {
        let (src, root) = load("spec: \"libfabric @@2\"\n");
        let mut d = Diagnostics::new();
        let cx = Cx::new(&src, &mut d);
        let node = root.as_mapping().unwrap().get_node("spec").unwrap();
        let whole = cx.loc(node);
        let sub = cx.sub_loc(&whole, "libfabric @@2", 11, 1);
        assert_eq!((sub.line, sub.col, sub.len), (1, 19, 1));
    }

    #[test]
    fn syntax_errors_name_the_position() {
        let src = SourceFile::new("/t/x.yaml", "a: [1, 2\nb: 3\n");
        let d = parse(&src).unwrap_err();
        assert_eq!(d.code, Code::YamlSyntax);
        assert!(d.loc().unwrap().line >= 1);
        let src = SourceFile::new("/t/x.yaml", "a: 1\na: 2\n");
        let d = parse(&src).unwrap_err();
        assert!(d.message.contains("duplicate key `a`"), "{}", d.message);
        assert_eq!(d.loc().unwrap().line, 2);
    }

    #[test]
    fn unknown_keys_are_suggested() {
        let (src, root) = load("name: x\nnmae: y\n");
        let mut d = Diagnostics::new();
        let mut cx = Cx::new(&src, &mut d);
        let m = cx
            .map(&root, "a package recipe", &["name", "description"])
            .unwrap();
        assert!(m.get("name").is_some());
        let diag = d.iter().next().unwrap();
        assert_eq!(diag.code, Code::UnknownKey);
        assert_eq!(diag.help.as_deref(), Some("did you mean `name`?"));
        assert_eq!(diag.loc().unwrap().line, 2);
    }

    #[test]
    fn typed_accessors_report_wrong_types() {
        let (src, root) = load("a: [x]\nb: \"true\"\nc: {k: v}\nd: 3\ne:\n");
        let mut d = Diagnostics::new();
        let mut cx = Cx::new(&src, &mut d);
        let m = cx.map(&root, "t", &["a", "b", "c", "d", "e"]).unwrap();
        assert!(cx.string(m.get("a").unwrap(), "a").is_none());
        assert!(cx.bool(m.get("b").unwrap(), "b").is_none());
        assert!(cx.seq(m.get("c").unwrap(), "c").is_none());
        assert_eq!(cx.u32(m.get("d").unwrap(), "d"), Some(3));
        assert!(m.get("e").is_none());
        assert!(cx.required(&m, "e", "t").is_none());
        assert!(cx.required(&m, "f", "t").is_none());
        assert_eq!(d.error_count(), 5);
    }

    #[test]
    fn empty_file_is_an_empty_mapping() {
        let (_, root) = load("");
        assert!(root.as_mapping().unwrap().is_empty());
    }
}
