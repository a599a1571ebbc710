//! One problem in an input file ([`Diagnostic`]) and a collection of them
//! ([`Diagnostics`]).

use std::fmt;

use super::{Loc, SourceFile};

/// How bad a diagnostic is. Only errors make a check fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Warning,
    Error,
}

/// What kind of problem a diagnostic reports; shown as the miette code
/// (`stack::unknown-key`) so users can search the docs for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    /// A file could not be read.
    Io,
    /// The YAML itself does not parse.
    YamlSyntax,
    /// A key that the format does not define.
    UnknownKey,
    /// A value of the wrong YAML type (scalar/list/map, bool/string/number).
    WrongType,
    /// A required field is absent.
    MissingField,
    /// A value that is not one of the allowed ones.
    InvalidValue,
    /// A spec that does not parse.
    BadSpec,
    /// A spec or dependency names a package that no repository has.
    UnknownPackage,
    /// A spec or `when:` names a variant the package does not define.
    UnknownVariant,
    /// A variant value outside the variant's allowed values.
    UnknownVariantValue,
    /// Two version entries with the same version.
    DuplicateVersion,
    /// Something defined twice (environment, view, variant name …).
    Duplicate,
    /// A package recipe's `name` differs from its file name.
    NameMismatch,
    /// A version with both `url` and `git`, neither, or a bad git reference.
    BadSource,
    /// A sha256 that is not 64 hex digits, or a missing one.
    BadChecksum,
    /// A patch file that does not exist.
    PatchMissing,
    /// A patch file whose sha256 differs from the recipe's.
    PatchChecksum,
    /// A build system that does not exist.
    UnknownBuildSystem,
    /// A target name outside the built-in target table.
    UnknownTarget,
    /// A compiler that the cluster does not provide.
    UnknownCompiler,
    /// A path that does not exist or is not the expected kind.
    BadPath,
    /// A template that does not parse.
    BadTemplate,
    /// A feature of the format that stack does not support.
    Unsupported,
    /// A key of a translated format (stackinator) that nothing translated.
    NotTranslated,
    /// An imported recipe with untranslated build logic, not yet reviewed.
    Unreviewed,
    /// A package file (`spack/…/package.py` of a `system: spack` recipe)
    /// that does not exist or is not where package files go.
    PackageFileMissing,
    /// A package file whose sha256 differs from the recipe's.
    PackageFileChecksum,
    /// A call in a package file that stack's package API does not
    /// implement (the build would fail there).
    UnsupportedApi,
}

impl Code {
    /// The code as shown to users.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Io => "stack::io",
            Code::YamlSyntax => "stack::yaml-syntax",
            Code::UnknownKey => "stack::unknown-key",
            Code::WrongType => "stack::wrong-type",
            Code::MissingField => "stack::missing-field",
            Code::InvalidValue => "stack::invalid-value",
            Code::BadSpec => "stack::bad-spec",
            Code::UnknownPackage => "stack::unknown-package",
            Code::UnknownVariant => "stack::unknown-variant",
            Code::UnknownVariantValue => "stack::unknown-variant-value",
            Code::DuplicateVersion => "stack::duplicate-version",
            Code::Duplicate => "stack::duplicate",
            Code::NameMismatch => "stack::name-mismatch",
            Code::BadSource => "stack::bad-source",
            Code::BadChecksum => "stack::bad-checksum",
            Code::PatchMissing => "stack::patch-missing",
            Code::PatchChecksum => "stack::patch-checksum",
            Code::UnknownBuildSystem => "stack::unknown-build-system",
            Code::UnknownTarget => "stack::unknown-target",
            Code::UnknownCompiler => "stack::unknown-compiler",
            Code::BadPath => "stack::bad-path",
            Code::BadTemplate => "stack::bad-template",
            Code::Unsupported => "stack::unsupported",
            Code::NotTranslated => "stack::not-translated",
            Code::Unreviewed => "stack::unreviewed-import",
            Code::PackageFileMissing => "stack::package-file-missing",
            Code::PackageFileChecksum => "stack::package-file-checksum",
            Code::UnsupportedApi => "stack::unsupported-api",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A labelled location inside a diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub loc: Loc,
    pub text: String,
}

/// One problem: what is wrong, where (labels point into [`Diagnostic::source`]),
/// and how to fix it ([`Diagnostic::help`]).
///
/// Renders through miette with the offending YAML line and a caret when a
/// source is attached; without one, its `Display` starts with `file:line:col`.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    /// The first label is the primary location.
    pub labels: Vec<Label>,
    pub help: Option<String>,
    pub source: Option<SourceFile>,
    /// Further notes, possibly in other files ("first defined here").
    pub related: Vec<Diagnostic>,
    /// The package the diagnostic is about (`unknown package `x``, an
    /// unreviewed import), for tools that act on it without parsing the
    /// message.
    pub subject: Option<String>,
}

impl Diagnostic {
    /// A new error without location.
    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            labels: Vec::new(),
            help: None,
            source: None,
            related: Vec::new(),
            subject: None,
        }
    }

    /// A new warning without location.
    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }

    /// Add a labelled location (the first one added is the primary location).
    pub fn at(mut self, loc: &Loc, label: impl Into<String>) -> Self {
        self.labels.push(Label {
            loc: loc.clone(),
            text: label.into(),
        });
        self
    }

    /// Attach the source text the labels point into.
    pub fn with_source(mut self, source: &SourceFile) -> Self {
        self.source = Some(source.clone());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Set the help only when there is one (e.g. a did-you-mean suggestion).
    pub fn with_help_opt(mut self, help: Option<String>) -> Self {
        if help.is_some() {
            self.help = help;
        }
        self
    }

    /// Name the package the diagnostic is about ([`Diagnostic::subject`]).
    pub fn about(mut self, package: impl Into<String>) -> Self {
        self.subject = Some(package.into());
        self
    }

    pub fn with_related(mut self, related: Diagnostic) -> Self {
        self.related.push(related);
        self
    }

    /// The primary location, if any.
    pub fn loc(&self) -> Option<&Loc> {
        self.labels.first().map(|l| &l.loc)
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Attach a source if none is attached yet and the primary label points
    /// into `source`.
    /// A generated file's diagnostics point into the user's files it was
    /// translated from: then that file is attached.
    pub fn attach_source(&mut self, source: &SourceFile) {
        if self.source.is_some() {
            return;
        }
        if let Some(file) = self.loc().and_then(|l| source.file_of(&l.file)) {
            self.source = Some(file.clone());
        }
    }

    /// The note on a diagnostic about a translated file: where the line it
    /// points at went in the translation.
    fn translation_note(&self) -> Option<String> {
        let via = self.loc()?.via.as_ref()?;
        Some(format!(
            "stack's translation of this line: {}:{}:{} (translated from here)",
            super::display_path(&via.file),
            via.line,
            via.col
        ))
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.loc(), &self.source) {
            (Some(loc), None) => write!(f, "{loc}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Diagnostic {}

impl miette::Diagnostic for Diagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code.as_str()))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Warning => miette::Severity::Warning,
            Severity::Error => miette::Severity::Error,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match (&self.help, self.translation_note()) {
            (Some(h), Some(n)) => Some(Box::new(format!("{h}\n{n}"))),
            (None, Some(n)) => Some(Box::new(n)),
            (h, None) => h
                .as_ref()
                .map(|h| Box::new(h) as Box<dyn fmt::Display + 'a>),
        }
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source
            .as_ref()
            .map(|s| s.named_ref() as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let source = self.source.as_ref()?;
        let labels = self
            .labels
            .iter()
            .enumerate()
            .filter(|(_, l)| *l.loc.file == source.path())
            .map(|(i, l)| {
                let text = (!l.text.is_empty()).then(|| l.text.clone());
                if i == 0 {
                    miette::LabeledSpan::new_primary_with_span(text, l.loc.span())
                } else {
                    miette::LabeledSpan::new_with_span(text, l.loc.span())
                }
            })
            .collect::<Vec<_>>();
        Some(Box::new(labels.into_iter()))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(
            self.related.iter().map(|d| d as &dyn miette::Diagnostic),
        ))
    }
}

/// Diagnostics collected while loading and checking inputs.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new() -> Self {
        Diagnostics::default()
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    pub fn extend(&mut self, other: impl IntoIterator<Item = Diagnostic>) {
        self.items.extend(other);
    }

    /// Number of errors (warnings not counted).
    pub fn error_count(&self) -> usize {
        self.items.iter().filter(|d| d.is_error()).count()
    }

    pub fn warning_count(&self) -> usize {
        self.items.len() - self.error_count()
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }

    /// The outcome of a loader: `Ok` with the value and the warnings when
    /// parsing produced a value and no error, `Err` with every diagnostic
    /// otherwise.
    pub fn into_loaded<T>(self, value: Option<T>) -> Result<(T, Diagnostics), Diagnostics> {
        match value {
            Some(v) if !self.has_errors() => Ok((v, self)),
            _ => Err(self),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.items.iter()
    }

    /// Sort by file, then position, keeping the order of equal positions.
    pub fn sort(&mut self) {
        self.items.sort_by(|a, b| {
            let key = |d: &Diagnostic| d.loc().map(|l| (l.file.clone(), l.offset));
            key(a).cmp(&key(b))
        });
    }

    /// `Ok(value)` when there are no errors (warnings are kept in the caller's
    /// hands by [`Diagnostics::warnings`]); otherwise all diagnostics.
    pub fn into_result<T>(self, value: T) -> Result<T, Diagnostics> {
        if self.has_errors() {
            Err(self)
        } else {
            Ok(value)
        }
    }

    /// The warnings only.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter().filter(|d| !d.is_error())
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics { items: vec![d] }
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.error_count();
        write!(f, "{n} error{}", if n == 1 { "" } else { "s" })?;
        for d in &self.items {
            write!(f, "\n{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_location_without_source() {
        let d = Diagnostic::error(Code::UnknownKey, "unknown key `x`")
            .at(&Loc::new("/f.yaml", 2, 3), "here");
        assert_eq!(d.to_string(), "/f.yaml:2:3: unknown key `x`");
    }

    #[test]
    fn renders_with_caret_and_help() {
        let src = SourceFile::new("/tmp/f.yaml", "name: x\nfabric: 1\n");
        let d = Diagnostic::error(Code::UnknownKey, "unknown key `fabric`")
            .at(&src.loc(8, 6), "not a known key")
            .with_source(&src)
            .with_help("did you mean `fabrics`?");
        let mut out = String::new();
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::none())
            .with_width(80)
            .render_report(&mut out, &d)
            .unwrap();
        assert!(out.contains("[/tmp/f.yaml:2:1]"), "{out}");
        assert!(out.contains("^^^|^^"), "{out}");
        assert!(out.contains("did you mean `fabrics`?"), "{out}");
        assert!(out.contains("stack::unknown-key"), "{out}");
    }

    #[test]
    fn collects_and_counts() {
        let mut ds = Diagnostics::new();
        ds.push(Diagnostic::warning(Code::BadPath, "w"));
        assert!(ds.clone().into_result(()).is_ok());
        ds.push(Diagnostic::error(Code::BadSpec, "e"));
        assert_eq!(ds.error_count(), 1);
        assert_eq!(ds.warning_count(), 1);
        assert!(ds.into_result(()).is_err());
    }
}
