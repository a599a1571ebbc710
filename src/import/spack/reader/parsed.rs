//! Parsing a `package.py` once: its text and tree-sitter syntax tree
//! ([`Parsed`]), shared by every reading of the file (per architecture) and
//! every consumer (directives, hooks, `url_for_version`), which take the
//! tree's nodes instead of parsing parts of the text again.

use std::sync::Arc;

use tree_sitter::{Node, Parser, Tree};

/// One package.py, parsed.
pub struct Parsed {
    src: String,
    tree: Tree,
}

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Parsed({} bytes)", self.src.len())
    }
}

impl Parsed {
    /// Parse `src`; a tree nested deeper than [`MAX_DEPTH`] is refused.
    pub fn new(src: &str) -> Result<Arc<Parsed>, ParseError> {
        let tree = parse_checked(src)?;
        Ok(Arc::new(Parsed {
            src: src.to_string(),
            tree,
        }))
    }

    /// The text the tree was parsed from (node ranges index it).
    pub fn src(&self) -> &str {
        &self.src
    }

    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The `def` of the method whose definition (decorators included)
    /// spans `range` of the text.
    pub fn def_of(&self, range: &std::ops::Range<usize>) -> Option<Node<'_>> {
        let outer = self
            .root()
            .descendant_for_byte_range(range.start, range.end)?;
        find_def(outer)
    }
}

/// The first `def` at or below `node`.
pub fn find_def(node: Node) -> Option<Node> {
    if node.kind() == "function_definition" {
        return Some(node);
    }
    children(node).into_iter().find_map(find_def)
}

/// The text of a node.
pub fn text<'s>(node: Node, src: &'s str) -> &'s str {
    &src[node.byte_range()]
}

/// Named children of a node, comments skipped.
pub fn children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// `line` cut to at most `max` bytes (at a character boundary), `…` marking
/// a cut.
pub fn clip(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_string();
    }
    let mut end = max;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

/// The operators of a comparison (`<`, `not`, `in`, …), in order.
pub fn operators<'s>(node: Node, src: &'s str) -> Vec<&'s str> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .filter(|c| !c.is_named())
        .map(|c| text(c, src))
        .collect()
}

/// How deeply a package.py's syntax tree may nest. Real files stay below
/// 100 (gptune, the deepest of spack-packages, is about 60); every walker
/// over the tree recurses once per level or so, and a file nested
/// 100,000 levels deep (`((((…))))`) overflowed the stack of the import
/// and ended it. Deeper files are refused before any walker sees them.
pub const MAX_DEPTH: usize = 256;

/// The depth of a syntax tree and the line where it is reached, counted
/// without recursion.
fn depth(tree: &tree_sitter::Tree) -> (usize, usize) {
    let mut cursor = tree.walk();
    let (mut depth, mut deepest, mut line) = (1, 1, 1);
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            if depth > deepest {
                deepest = depth;
                line = cursor.node().start_position().row + 1;
            }
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return (deepest, line);
            }
            depth -= 1;
        }
    }
}

/// Why a package.py is not read at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The parser gave no tree.
    Failed,
    /// Nested deeper than [`MAX_DEPTH`] (at this line).
    TooDeep(usize),
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Failed => f.write_str("package.py did not parse"),
            ParseError::TooDeep(line) => write!(
                f,
                "line {line}: the code nests deeper than {MAX_DEPTH} levels; not read"
            ),
        }
    }
}

/// Parse Python source with this thread's parser; a tree nested deeper
/// than [`MAX_DEPTH`] is refused.
pub fn parse_checked(src: &str) -> Result<tree_sitter::Tree, ParseError> {
    let tree = parse_unchecked(src).ok_or(ParseError::Failed)?;
    match depth(&tree) {
        (d, line) if d > MAX_DEPTH => Err(ParseError::TooDeep(line)),
        _ => Ok(tree),
    }
}

/// [`parse_checked`], the reason dropped.
pub fn parse(src: &str) -> Option<tree_sitter::Tree> {
    parse_checked(src).ok()
}

/// The expression of a one-line source `expr` parsed by [`parse`] (the
/// first statement's first child): what the evaluator's tests evaluate.
#[cfg(test)]
pub fn expression_of(tree: &tree_sitter::Tree) -> Node<'_> {
    tree.root_node()
        .named_child(0)
        .and_then(|statement| statement.named_child(0))
        .expect("one expression statement")
}

/// Make tree-sitter allocate with mimalloc, as the rest of `stack` does,
/// instead of glibc's malloc: its parse stacks and trees are a fifth of a
/// translation's time, and glibc's malloc was a fifth of that. Called
/// before the first parser is made, so that nothing tree-sitter allocated
/// with one allocator is freed with the other.
fn allocate_with_mimalloc() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: tree-sitter's allocator is process-global. It is set once,
    // before this module makes the first parser, and every parser of
    // `stack` is made here (the tests' too), so no tree-sitter object
    // allocated with glibc's malloc exists to be freed with mimalloc.
    ONCE.call_once(|| unsafe {
        tree_sitter::set_allocator(
            Some(libmimalloc_sys::mi_malloc),
            Some(zeroed),
            Some(libmimalloc_sys::mi_realloc),
            Some(libmimalloc_sys::mi_free),
        );
    });
}

/// `calloc` for tree-sitter, with mimalloc (whose `mi_calloc` its Rust
/// bindings do not expose).
unsafe extern "C" fn zeroed(count: usize, size: usize) -> *mut std::ffi::c_void {
    match count.checked_mul(size) {
        // SAFETY: `mi_zalloc` takes any size and returns null when it fails.
        Some(bytes) => unsafe { libmimalloc_sys::mi_zalloc(bytes) },
        None => std::ptr::null_mut(),
    }
}

/// Parse Python source with this thread's parser.
fn parse_unchecked(src: &str) -> Option<tree_sitter::Tree> {
    thread_local! {
        static PARSER: std::cell::RefCell<Option<Parser>> = const { std::cell::RefCell::new(None) };
    }
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            allocate_with_mimalloc();
            let mut p = Parser::new();
            p.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
            *slot = Some(p);
        }
        slot.as_mut()?.parse(src, None)
    })
}
