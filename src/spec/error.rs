//! Errors of the spec language: bad text ([`SpecError`], [`SpecParseError`])
//! and specs that cannot hold together ([`SpecConflict`]).

use miette::SourceSpan;

/// A version, version constraint or target that does not parse. Offsets are
/// bytes into the text that was parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("invalid version `{text}`: {reason}")]
    InvalidVersion {
        text: String,
        reason: String,
        offset: usize,
        len: usize,
    },
    #[error("invalid version constraint `{text}`: {reason}")]
    InvalidConstraint {
        text: String,
        reason: String,
        offset: usize,
        len: usize,
    },
    #[error("unknown target `{name}`{}", suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownTarget {
        name: String,
        suggestion: Option<String>,
        offset: usize,
    },
    #[error("invalid target constraint `{text}`: {reason}")]
    InvalidTarget {
        text: String,
        reason: String,
        offset: usize,
        len: usize,
    },
}

impl SpecError {
    /// Byte offset of the offending text.
    pub fn offset(&self) -> usize {
        match self {
            SpecError::InvalidVersion { offset, .. }
            | SpecError::InvalidConstraint { offset, .. }
            | SpecError::UnknownTarget { offset, .. }
            | SpecError::InvalidTarget { offset, .. } => *offset,
        }
    }

    /// Length in bytes of the offending text.
    pub fn len(&self) -> usize {
        match self {
            SpecError::InvalidVersion { len, .. }
            | SpecError::InvalidConstraint { len, .. }
            | SpecError::InvalidTarget { len, .. } => *len,
            SpecError::UnknownTarget { name, .. } => name.len(),
        }
    }

    /// True when the error covers no characters (e.g. "found nothing").
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The reason alone, without the quoted input (for messages that show
    /// the input themselves).
    pub fn reason(&self) -> String {
        match self {
            SpecError::InvalidVersion { reason, .. }
            | SpecError::InvalidConstraint { reason, .. }
            | SpecError::InvalidTarget { reason, .. } => reason.clone(),
            SpecError::UnknownTarget { .. } => self.to_string(),
        }
    }

    /// The same error seen from a larger text in which the parsed part
    /// starts at byte `base`.
    pub(crate) fn shifted(self, whole: &str, base: usize) -> SpecError {
        match self {
            SpecError::InvalidVersion {
                reason,
                offset,
                len,
                ..
            } => SpecError::InvalidVersion {
                text: whole.to_string(),
                reason,
                offset: offset + base,
                len,
            },
            SpecError::InvalidConstraint {
                reason,
                offset,
                len,
                ..
            } => SpecError::InvalidConstraint {
                text: whole.to_string(),
                reason,
                offset: offset + base,
                len,
            },
            SpecError::InvalidTarget {
                reason,
                offset,
                len,
                ..
            } => SpecError::InvalidTarget {
                text: whole.to_string(),
                reason,
                offset: offset + base,
                len,
            },
            SpecError::UnknownTarget {
                name,
                suggestion,
                offset,
            } => SpecError::UnknownTarget {
                name,
                suggestion,
                offset: offset + base,
            },
        }
    }
}

/// A spec string that does not parse: where (byte `offset` and `len` into
/// `input`), what was found and what was expected, and possibly a hint.
/// Renders with miette as the input with the offending characters underlined.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("{message}")]
#[diagnostic(code(stack::spec::syntax))]
pub struct SpecParseError {
    /// What was found and what was expected.
    pub message: String,
    /// A hint (nearest valid name, the syntax of the element), if any.
    #[help]
    pub help: Option<String>,
    /// The whole spec text.
    #[source_code]
    pub input: String,
    /// Byte offset of the offending characters in `input`.
    pub offset: usize,
    /// Their length in bytes (0 at the end of the input).
    pub len: usize,
    #[label("{label}")]
    span: SourceSpan,
    label: Box<str>,
}

impl SpecParseError {
    pub(crate) fn new(
        input: &str,
        offset: usize,
        len: usize,
        message: impl Into<String>,
        label: impl Into<String>,
        help: Option<String>,
    ) -> SpecParseError {
        SpecParseError {
            message: message.into(),
            help,
            input: input.to_string(),
            offset,
            len,
            span: SourceSpan::new(offset.into(), len),
            label: label.into().into_boxed_str(),
        }
    }

    /// The offending bytes of `input`.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.len
    }

    /// The short label drawn under the offending characters.
    pub fn label(&self) -> &str {
        &self.label
    }
}

fn in_package(package: &Option<String>) -> String {
    package
        .as_ref()
        .map(|p| format!("{p}: "))
        .unwrap_or_default()
}

/// Two specs that cannot both hold: which part clashed, with both sides'
/// text (`left` is the spec being constrained, `right` the new constraint).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecConflict {
    #[error("package `{left}` cannot also be `{right}`")]
    Name { left: String, right: String },
    #[error("{}version `@{left}` conflicts with `@{right}`", in_package(.package))]
    Versions {
        package: Option<String>,
        left: String,
        right: String,
    },
    #[error("{}variant `{left}` conflicts with `{right}`", in_package(.package))]
    Variant {
        package: Option<String>,
        variant: String,
        left: String,
        right: String,
    },
    #[error("{}compiler `%{left}` conflicts with `%{right}`", in_package(.package))]
    Compiler {
        package: Option<String>,
        left: String,
        right: String,
    },
    #[error("{}`target={left}` conflicts with `target={right}`", in_package(.package))]
    Target {
        package: Option<String>,
        left: String,
        right: String,
    },
    #[error("{}`{key}={left}` conflicts with `{key}={right}`", in_package(.package))]
    Arch {
        package: Option<String>,
        key: &'static str,
        left: String,
        right: String,
    },
}
