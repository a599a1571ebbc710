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
use std::collections::BTreeSet;

use super::spec::{CompilerSpec, FLAG_NAMES, FlagList, LANGUAGES, Spec, normalize_languages};
use super::target::TargetConstraint;
use super::variant::{VariantValue, is_bare_value_char, is_name_char, is_name_start};
use super::version::is_git_ref_char;

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

    /// `%name` or `%name@versions` at `at`: the node's compiler, or the
    /// language form `%c,cxx=name@versions`: the compiler of those
    /// languages (see `normalize_languages`).
    fn compiler_clause(&mut self, spec: &mut Spec, at: usize) -> Result<(), SpecParseError> {
        self.pos += 1;
        self.skip_ws();
        let (_, name) = self.name(
            "a compiler name after `%`",
            Some("for example `%gcc` or `%gcc@12:`".into()),
        )?;
        let (name, languages) = match self.peek() {
            Some('=') if !LANGUAGES.contains(&name) => {
                return self.virtual_assignment(spec, name);
            }
            Some(',' | '=') => {
                let (langs, name) = self.language_assignment(at, name)?;
                (name, Some(langs))
            }
            _ => (name, None),
        };
        let mut compiler = CompilerSpec {
            name: compiler_package(name).to_string(),
            versions: VersionConstraint::any(),
        };
        if self.peek() == Some('@') {
            self.pos += 1;
            compiler.versions = self.versions("@")?;
        }
        // `%c=gcc@13 %fortran=gcc`: the same compiler again, without versions.
        let again = |have: &CompilerSpec| have.name == compiler.name && compiler.versions.is_any();
        let Some(languages) = languages else {
            if spec.compiler.is_some() {
                return Err(self.second_compiler(at, "a second compiler for the same package"));
            }
            spec.compiler = Some(compiler);
            normalize_languages(spec);
            return Ok(());
        };
        for lang in languages {
            if let Some(have) = spec.languages.get(lang) {
                if again(have) {
                    continue;
                }
                return Err(self.second_compiler(
                    at,
                    &format!("a second compiler for `{lang}` in the same package"),
                ));
            }
            if spec
                .compiler
                .as_ref()
                .is_some_and(|c| *c == compiler || again(c))
            {
                continue;
            }
            spec.languages.insert(lang.to_string(), compiler.clone());
        }
        normalize_languages(spec);
        Ok(())
    }

    /// `%mpi=openmpi@5: +cuda` (Spack 1.x; `virt` is read already, `=` is
    /// next): the package depends on `openmpi@5: +cuda` as the provider of
    /// `mpi` — the clauses up to the next `%` or `^` are the provider's, as
    /// in Spack 1.x — kept as a dependency of the node with its
    /// [`Spec::virtuals`].
    fn virtual_assignment(&mut self, spec: &mut Spec, virt: &str) -> Result<(), SpecParseError> {
        self.pos += 1;
        if !self.peek().is_some_and(is_name_start) {
            return Err(self.expected(
                "a package name after `=`",
                Some(format!(
                    "for example `%{virt}=name`: the provider of `{virt}`"
                )),
            ));
        }
        let mut dep = Spec::default();
        dep.virtuals.insert(virt.to_string());
        let outer = std::mem::replace(&mut self.in_edge, true);
        let parsed = self.node(&mut dep, true);
        self.in_edge = outer;
        parsed?;
        let at = self.pos;
        match spec.deps.iter_mut().find(|d| d.name == dep.name) {
            Some(prev) => {
                prev.constrain(&dep).map_err(|e| {
                    self.error(
                        at,
                        0,
                        format!("contradicting constraints on the same dependency: {e}"),
                        "contradicts an earlier `%` of the same package",
                        None,
                    )
                })?;
            }
            None => spec.deps.push(dep),
        }
        Ok(())
    }

    /// Spack 1.x's edge attributes after `^`: `[virtuals=gl,glu]` (the
    /// virtuals the dependency provides); nothing when there is no `[`.
    fn edge_attributes(&mut self) -> Result<BTreeSet<String>, SpecParseError> {
        let mut out = BTreeSet::new();
        if self.peek() != Some('[') {
            return Ok(out);
        }
        let at = self.pos;
        let Some(len) = self.src[at..].find(']') else {
            return Err(self.error(at, 1, "`[` without its `]`", "not closed", None));
        };
        let inner = &self.src[at + 1..at + len];
        for attr in inner.split_whitespace() {
            match attr.split_once('=') {
                Some(("virtuals", v)) if v.split(',').all(|n| n.starts_with(is_name_start)) => {
                    out.extend(v.split(',').map(str::to_string));
                }
                _ => {
                    return Err(self.error(
                        at,
                        len + 1,
                        format!("unsupported edge attribute `{attr}`"),
                        "only `virtuals=` is read",
                        Some("for example `^[virtuals=mpi] openmpi`".into()),
                    ));
                }
            }
        }
        self.pos = at + len + 1;
        self.skip_ws();
        Ok(out)
    }

    fn second_compiler(&self, at: usize, message: &str) -> SpecParseError {
        self.error(at, self.pos - at, message, "second `%`", None)
    }

    /// Spack's language form `%c,cxx,fortran=nvhpc` (`first` is the first
    /// language, read already): the languages and the compiler name.
    fn language_assignment(
        &mut self,
        at: usize,
        first: &'a str,
    ) -> Result<(Vec<&'a str>, &'a str), SpecParseError> {
        let mut lang = (self.pos - first.len(), first);
        let mut langs = Vec::new();
        loop {
            if !LANGUAGES.contains(&lang.1) {
                return Err(self.error(
                    lang.0,
                    lang.1.len(),
                    format!(
                        "`{}` is not a language: `%LANG=compiler` takes c, cxx and fortran",
                        lang.1
                    ),
                    "not c, cxx or fortran",
                    Some("for example `%c,cxx=gcc` or `%fortran=nvhpc`".into()),
                ));
            }
            langs.push(lang.1);
            match self.peek() {
                Some(',') => {
                    self.pos += 1;
                    lang = self.name("a language after `,`", None)?;
                }
                Some('=') => {
                    self.pos += 1;
                    let (_, compiler) = self.name(
                        "a compiler name after `=`",
                        Some(format!("for example `{}=gcc`", &self.src[at..self.pos - 1])),
                    )?;
                    return Ok((langs, compiler));
                }
                _ => return Err(self.expected("`,` or `=` after a language", None)),
            }
        }
    }

    /// A word: `key=value`, or the package name when it comes `first`.
    fn word_clause(&mut self, spec: &mut Spec, first: bool) -> Result<(), SpecParseError> {
        let (start, word) = self.take_while(is_name_char);
        // Spack's `key:=value` (exactly these values of a multi-valued
        // variant): a requirement's values are already the variant's values
        // here (docs/spec-syntax.md), so it reads as `key=value`.
        if self.peek() == Some(':') && self.src[self.pos + 1..].starts_with('=') {
            self.pos += 1;
        }
        if self.peek() == Some('=') {
            let eq = self.pos;
            while self.peek() == Some('=') {
                self.pos += 1;
            }
            if FLAG_NAMES.contains(&word) {
                return self.flags_clause(spec, start, word, self.pos - eq > 1);
            }
            return self.key_value(spec, start, word);
        }
        if first && spec.name.is_none() {
            spec.name = Some(word.to_string());
            return Ok(());
        }
        let (message, help) = if spec.name.is_some() {
            (
                format!("unexpected `{word}`: a spec names one package"),
                format!(
                    "for a dependency write `^{word}`; for a variant `+{word}` or `{word}=value`"
                ),
            )
        } else {
            (
                format!("unexpected `{word}`: the package name comes first"),
                format!("write `{word} …` with the name at the start, or `+{word}` for a variant"),
            )
        };
        Err(self.error(start, word.len(), message, "unexpected name", Some(help)))
    }

    fn set_variant(
        &self,
        spec: &mut Spec,
        at: usize,
        name: &str,
        value: VariantValue,
    ) -> Result<(), SpecParseError> {
        if spec.variants.contains_key(name) {
            return Err(self.error(
                at,
                self.pos - at,
                format!("variant `{name}` is given twice"),
                "given again here",
                None,
            ));
        }
        spec.variants.insert(name.to_string(), value);
        Ok(())
    }

    /// After `key=`: the value(s).
    fn key_value(
        &mut self,
        spec: &mut Spec,
        key_at: usize,
        key: &str,
    ) -> Result<(), SpecParseError> {
        let value_at = self.pos;
        let values = self.values(key)?;
        let raw = &self.src[value_at..self.pos];
        let single = |p: &Self, what: &str| -> Result<String, SpecParseError> {
            match values.as_slice() {
                [v] if !v.is_empty() => Ok(v.clone()),
                _ => Err(p.error(
                    value_at,
                    raw.len(),
                    format!("`{key}=` takes one {what}"),
                    "one value expected",
                    None,
                )),
            }
        };
        let twice = |p: &Self| {
            p.error(
                key_at,
                p.pos - key_at,
                format!("`{key}=` is given twice"),
                "given again here",
                None,
            )
        };
        match key {
            "target" => {
                let t = TargetConstraint::parse(raw)
                    .map_err(|e| self.convert_spec_error(e, value_at, raw))?;
                if spec.target.is_some() {
                    return Err(twice(self));
                }
                spec.target = Some(t);
            }
            "platform" => {
                let v = single(self, "platform name")?;
                if spec.platform.is_some() {
                    return Err(twice(self));
                }
                spec.platform = Some(v);
            }
            "os" => {
                let v = single(self, "operating system name")?;
                if spec.os.is_some() {
                    return Err(twice(self));
                }
                spec.os = Some(v);
            }
            "arch" => {
                let v = single(self, "`platform-os-target` triple")?;
                let parts: Vec<&str> = v.splitn(3, '-').collect();
                let [platform, os, target] = parts.as_slice() else {
                    return Err(self.error(
                        value_at,
                        raw.len(),
                        format!("expected `arch=platform-os-target`, found `arch={v}`"),
                        "not a platform-os-target triple",
                        Some("for example `arch=linux-sles15-neoverse_v2`".into()),
                    ));
                };
                if spec.platform.is_some() || spec.os.is_some() || spec.target.is_some() {
                    return Err(twice(self));
                }
                let target_at = value_at + platform.len() + os.len() + 2;
                let t = TargetConstraint::parse(target)
                    .map_err(|e| self.convert_spec_error(e, target_at, target))?;
                spec.platform = Some(platform.to_string());
                spec.os = Some(os.to_string());
                spec.target = Some(t);
            }
            _ => {
                let value = match values.as_slice() {
                    [v] if v == "true" || v == "True" => VariantValue::Bool(true),
                    [v] if v == "false" || v == "False" => VariantValue::Bool(false),
                    _ => VariantValue::Values(values.into_iter().collect()),
                };
                if spec.variants.contains_key(key) {
                    return Err(self.error(
                        key_at,
                        self.pos - key_at,
                        format!("variant `{key}` is given twice"),
                        "given again here",
                        Some(format!("list several values with commas: `{key}=a,b`")),
                    ));
                }
                spec.variants.insert(key.to_string(), value);
            }
        }
        Ok(())
    }

    /// After `cflags=` (`propagate`: after `cflags==`): one value, quoted
    /// or bare (commas belong to it: `ldflags=-Wl,-z,now`), split on
    /// whitespace into flags.
    fn flags_clause(
        &mut self,
        spec: &mut Spec,
        key_at: usize,
        key: &str,
        propagate: bool,
    ) -> Result<(), SpecParseError> {
        let text = match self.peek() {
            Some('"' | '\'') => {
                let mut values = self.values(key)?;
                if values.len() != 1 {
                    return Err(self.error(
                        key_at,
                        self.pos - key_at,
                        format!("`{key}=` takes one value"),
                        "one value expected",
                        Some(format!("quote several flags together: `{key}=\"-O2 -g\"`")),
                    ));
                }
                values.pop().unwrap_or_default()
            }
            _ => {
                let (_, v) = self.take_while(|c| is_bare_value_char(c) || c == ',');
                if v.is_empty() {
                    return Err(self.expected(
                        &format!("flags after `{key}=`"),
                        Some(format!("for example `{key}=-O2` or `{key}=\"-O2 -g\"`")),
                    ));
                }
                v.to_string()
            }
        };
        if spec.flags.contains_key(key) {
            return Err(self.error(
                key_at,
                self.pos - key_at,
                format!("`{key}` is given twice"),
                "given again here",
                Some(format!("quote several flags together: `{key}=\"-O2 -g\"`")),
            ));
        }
        let flags: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        if !flags.is_empty() {
            spec.flags
                .insert(key.to_string(), FlagList { flags, propagate });
        }
        Ok(())
    }

    /// `value(,value)*`, each bare or quoted.
    fn values(&mut self, key: &str) -> Result<Vec<String>, SpecParseError> {
        let mut out = Vec::new();
        loop {
            match self.peek() {
                Some(q @ ('"' | '\'')) => {
                    let open = self.pos;
                    self.pos += 1;
                    let rest = &self.src[self.pos..];
                    let Some(close) = rest.find(q) else {
                        return Err(self.error(
                            open,
                            self.src.len() - open,
                            format!("unterminated quoted value: no closing {q}"),
                            "opened here",
                            None,
                        ));
                    };
                    out.push(rest[..close].to_string());
                    self.pos += close + 1;
                }
                _ => {
                    let (_, v) = self.take_while(is_bare_value_char);
                    if v.is_empty() {
                        let what = if out.is_empty() {
                            format!("a value after `{key}=`")
                        } else {
                            "a value after `,`".to_string()
                        };
                        return Err(self.expected(&what, None));
                    }
                    out.push(v.to_string());
                }
            }
            if self.peek() == Some(',') {
                self.pos += 1;
            } else {
                return Ok(out);
            }
        }
    }
}

/// The package of a compiler named by Spack's older compiler name: `oneapi`
/// is `intel-oneapi-compilers` and `rocmcc` is `llvm-amdgpu` (Spack 1.x
/// reads both names; spack-packages still writes `%oneapi` in conditions).
/// Every other name is its package's.
fn compiler_package(name: &str) -> &str {
    match name {
        "oneapi" => "intel-oneapi-compilers",
        "rocmcc" => "llvm-amdgpu",
        other => other,
    }
}
