//! The spec parser: text → [`Spec`], with byte-precise errors.
//!
//! Grammar (whitespace separates tokens; `+`, `~`, `@`, `%`, `^` may also
//! follow a token directly):
//!
//! ```text
//! spec    := node ( '^' [edge] node )*            the first node may be anonymous,
//! node    := [name] clause*                 every node after `^` is named
//! clause  := '@' constraint
//!          | '+'+ name | '~'+ name | ' -'+ name   (`-` only after a space)
//!          | flag ('=' | '==') value              (flag: cflags cxxflags fflags cppflags ldflags ldlibs)
//!          | key [':'] '='+ value (',' value)*  (`key==v` propagates in Spack, `key:=v` is exact; both `key=v` here)
//!          | '%' name ['@' constraint]
//!          | '%' lang {',' lang} '=' name ['@' constraint]   (lang: c, cxx, fortran)
//!          | '%' virtual '=' name ['@' constraint]   (a dependency providing the virtual)
//! edge    := '[' 'virtuals=' name {',' name} ']'   (after `^`: what the dependency provides)
//! value   := bare | "'" … "'" | '"' … '"'
//! ```
//!
//! `target=`, `platform=`, `os=` and `arch=platform-os-target` set the
//! architecture; the flag names set compiler flags (a value split on
//! whitespace; `==` propagates them to dependencies); other keys are
//! variants.

use super::constraint::VersionConstraint;
use super::error::{SpecError, SpecParseError};

use super::spec::Spec;
use super::variant::{VariantValue, is_name_char, is_name_start};
use super::version::is_git_ref_char;

mod compilers;
mod words;

const CLAUSES: &str =
    "a package name, `@version`, `+variant`, `~variant`, `key=value`, `%compiler` or `^dependency`";

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    /// Inside a `%virtual=provider` node: a `%` ends it, like a `^`.
    in_edge: bool,
}

/// Parses spec text (see the module documentation).
pub(crate) fn parse_spec(src: &str) -> Result<Spec, SpecParseError> {
    let mut p = Parser {
        src,
        pos: 0,
        in_edge: false,
    };
    let mut root = Spec::default();
    p.node(&mut root, false)?;
    let mut deps: Vec<Spec> = Vec::new();
    while p.peek() == Some('^') {
        let caret = p.pos;
        p.pos += 1;
        p.skip_ws();
        let virtuals = p.edge_attributes()?;
        if !p.peek().is_some_and(is_name_start) {
            return Err(p.expected(
                "a package name after `^`",
                Some("dependencies are named: `^libcxi@main`".into()),
            ));
        }
        let mut dep = Spec {
            virtuals,
            ..Spec::default()
        };
        p.node(&mut dep, true)?;
        if let Some(prev) = deps.iter_mut().find(|d| d.name == dep.name) {
            prev.constrain(&dep).map_err(|e| {
                p.error(
                    caret,
                    p.pos - caret,
                    format!("contradicting constraints on the same dependency: {e}"),
                    "contradicts an earlier `^` of the same package",
                    None,
                )
            })?;
        } else {
            deps.push(dep);
        }
    }
    debug_assert!(p.peek().is_none());
    // `%mpi=openmpi` on the root: a dependency like `^[virtuals=mpi] openmpi`.
    for dep in std::mem::take(&mut root.deps) {
        match deps.iter_mut().find(|d| d.name == dep.name) {
            Some(prev) => {
                prev.constrain(&dep).map_err(|e| {
                    p.error(
                        0,
                        src.len(),
                        format!("contradicting constraints on the same dependency: {e}"),
                        "contradicts a `^` of the same package",
                        None,
                    )
                })?;
            }
            None => deps.push(dep),
        }
    }
    deps.sort_by(|a, b| a.name.cmp(&b.name));
    root.deps = deps;
    Ok(root)
}

fn describe(found: Option<char>) -> String {
    match found {
        None => "end of input".to_string(),
        Some(c) if c.is_whitespace() => "a space".to_string(),
        Some(c) => format!("`{c}`"),
    }
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn skip_ws(&mut self) -> bool {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if !c.is_whitespace() {
                break;
            }
            self.pos += c.len_utf8();
        }
        self.pos > start
    }

    fn take_while(&mut self, pred: impl Fn(char) -> bool) -> (usize, &'a str) {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if !pred(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        (start, &self.src[start..self.pos])
    }

    fn error(
        &self,
        offset: usize,
        len: usize,
        message: impl Into<String>,
        label: impl Into<String>,
        help: Option<String>,
    ) -> SpecParseError {
        SpecParseError::new(self.src, offset, len, message, label, help)
    }

    /// An error at the current position about what was found there.
    /// At the end of the input the error points at the last character
    /// (what should have been followed by something).
    fn expected(&self, what: &str, help: Option<String>) -> SpecParseError {
        let found = self.peek();
        let (offset, len) = match found {
            Some(c) => (self.pos, c.len_utf8()),
            None => match self.src[..self.pos].chars().next_back() {
                Some(prev) => (self.pos - prev.len_utf8(), prev.len_utf8()),
                None => (self.pos, 0),
            },
        };
        self.error(
            offset,
            len,
            format!("expected {what}, found {}", describe(found)),
            format!("expected {what}"),
            help,
        )
    }

    fn name(
        &mut self,
        what: &str,
        help: Option<String>,
    ) -> Result<(usize, &'a str), SpecParseError> {
        if !self.peek().is_some_and(is_name_start) {
            return Err(self.expected(what, help));
        }
        Ok(self.take_while(is_name_char))
    }

    /// A version constraint after `@`.
    fn versions(&mut self, after: &str) -> Result<VersionConstraint, SpecParseError> {
        let (start, text) = self.take_while(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '.' | '-' | '_' | ':' | ',' | '=')
                || is_git_ref_char(c)
        });
        if text.is_empty() {
            return Err(self.expected(
                &format!("a version after `{after}`"),
                Some("versions look like `@1.2` (1.2 or 1.2.x), `@=1.2`, `@1.2:1.4`, `@:2`, `@2.2:` or `@1.2,1.4:`".into()),
            ));
        }
        VersionConstraint::parse(text).map_err(|e| self.convert_spec_error(e, start, text))
    }

    fn convert_spec_error(&self, e: SpecError, base: usize, text: &str) -> SpecParseError {
        let offset = base + e.offset();
        let len = e.len();
        match &e {
            SpecError::UnknownTarget { .. } => self.error(
                offset,
                len,
                e.to_string(),
                "unknown target",
                Some(format!(
                    "known targets: {}",
                    super::target::known_targets().collect::<Vec<_>>().join(", ")
                )),
            ),
            SpecError::InvalidVersion { reason, .. } | SpecError::InvalidConstraint { reason, .. } => self.error(
                offset,
                len,
                format!("invalid version `{text}`: {reason}"),
                "invalid version",
                Some("versions look like `@1.2` (1.2 or 1.2.x), `@=1.2`, `@1.2:1.4`, `@:2`, `@2.2:` or `@1.2,1.4:`".into()),
            ),
            SpecError::InvalidTarget { reason, .. } => self.error(
                offset,
                len,
                format!("invalid target `{text}`: {reason}"),
                "invalid target",
                Some("targets look like `target=zen3`, `target=aarch64:` (the family), `target=:zen3` or `target=zen2:zen4`".into()),
            ),
        }
    }

    /// One node: an optional (or, after `^`, required) name and its clauses,
    /// up to the next `^` or the end.
    fn node(&mut self, spec: &mut Spec, is_dep: bool) -> Result<(), SpecParseError> {
        let mut seen_versions = false;
        let mut first = true;
        loop {
            let spaced = self.skip_ws() || first;
            let Some(c) = self.peek() else { break };
            let at = self.pos;
            match c {
                '^' => break,
                '%' if self.in_edge => break,
                '@' => {
                    self.pos += 1;
                    let v = self.versions("@")?;
                    if seen_versions {
                        return Err(self.error(
                            at,
                            self.pos - at,
                            "a second version constraint for the same package",
                            "second `@`",
                            Some("list several versions with commas: `@1.2,1.4:`".into()),
                        ));
                    }
                    seen_versions = true;
                    spec.versions = v;
                }
                '+' | '~' => {
                    let sigil = c;
                    while self.peek() == Some(sigil) {
                        self.pos += 1;
                    }
                    let (_, name) = self.name(&format!("a variant name after `{sigil}`"), None)?;
                    Self::set_variant(self, spec, at, name, VariantValue::Bool(sigil == '+'))?;
                }
                '-' if spaced => {
                    while self.peek() == Some('-') {
                        self.pos += 1;
                    }
                    let (_, name) = self.name("a variant name after `-`", None)?;
                    Self::set_variant(self, spec, at, name, VariantValue::Bool(false))?;
                }
                '-' => {
                    return Err(self.error(
                        at,
                        1,
                        "`-` disables a variant only after a space",
                        "needs a space before it",
                        Some("write ` -name` or `~name` (names may contain `-`, so `foo-bar` is one name)".into()),
                    ));
                }
                '%' => self.compiler_clause(spec, at)?,
                c if is_name_start(c) => self.word_clause(spec, first)?,
                _ => {
                    let len = c.len_utf8();
                    return Err(self.error(
                        at,
                        len,
                        format!("expected {CLAUSES}, found {}", describe(Some(c))),
                        "unexpected character",
                        None,
                    ));
                }
            }
            first = false;
        }
        if is_dep && spec.name.is_none() {
            // `^` followed directly by a clause or nothing
            return Err(self.error(
                self.pos.min(self.src.len()),
                0,
                "expected a package name after `^`",
                "expected a package name",
                None,
            ));
        }
        Ok(())
    }
}
