//! Source text kept for rendering diagnostics.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use miette::NamedSource;

use super::lined::Lined;

use super::Loc;

/// The text of one input file, cheap to clone, with helpers to turn the
/// YAML parser's character positions into byte positions and [`Loc`]s.
///
/// A generated file (a stackinator recipe's translation) carries its
/// [`Origins`]: every [`Loc`] made from it points at the user's file and
/// line the text was translated from, with the generated position in
/// [`Loc::via`].
#[derive(Clone, Debug)]
pub struct SourceFile {
    path: Arc<PathBuf>,
    named: Arc<NamedSource<Lined>>,
    origins: Option<Arc<Origins>>,
}

/// One stretch of a generated file and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OriginSpan {
    /// Byte range in the generated text.
    pub start: usize,
    pub end: usize,
    /// The user's text it was translated from.
    pub origin: Loc,
    /// The string written here, when the span is one scalar that says what
    /// the user wrote: positions inside it map one to one (quotes aside).
    pub value: Option<String>,
}

/// The span map of a generated file: which stretch came from where, the
/// source files those places are in, and where anything else came from.
#[derive(Clone, Debug, Default)]
pub struct Origins {
    /// Sorted by start; nested spans follow their parents.
    pub spans: Vec<OriginSpan>,
    /// The user's files the spans point into (for rendering).
    pub files: Vec<SourceFile>,
    /// The origin of text no span covers (the recipe as a whole).
    pub fallback: Option<Loc>,
}

impl Origins {
    /// The innermost span holding byte `offset`.
    fn span_at(&self, offset: usize) -> Option<&OriginSpan> {
        self.spans
            .iter()
            .filter(|s| s.start <= offset && (offset < s.end || s.start == s.end))
            .min_by_key(|s| s.end - s.start)
    }

    /// The user's file at `path`, if a span points into it.
    pub fn file(&self, path: &Path) -> Option<&SourceFile> {
        self.files.iter().find(|f| f.path() == path)
    }
}

impl SourceFile {
    /// Wrap `text` read from `path`. Diagnostics show the path relative to
    /// the current directory when it lies below it.
    pub fn new(path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        let path = path.into();
        let text = text.into();
        let name = display_name(&path);
        SourceFile {
            path: Arc::new(path),
            named: Arc::new(NamedSource::new(name, Lined::new(text))),
            origins: None,
        }
    }

    /// A generated file and where its parts came from ([`Origins`]).
    pub fn translated(path: impl Into<PathBuf>, text: impl Into<String>, origins: Origins) -> Self {
        SourceFile {
            origins: Some(Arc::new(origins)),
            ..SourceFile::new(path, text)
        }
    }

    /// The span map of a generated file.
    pub fn origins(&self) -> Option<&Origins> {
        self.origins.as_deref()
    }

    /// The file a location points into: this one, or (for a generated
    /// file) the user's file it was translated from.
    pub fn file_of(&self, path: &Path) -> Option<&SourceFile> {
        if self.path() == path {
            return Some(self);
        }
        self.origins.as_deref()?.file(path)
    }

    /// Read a file (errors name the path).
    pub fn read(path: impl Into<PathBuf>) -> std::io::Result<Self> {
        let path = path.into();
        let bytes = fs_err::read(&path)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let bytes = e.as_bytes();
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: {}", path.display(), utf8_error(bytes, e.utf8_error())),
            )
        })?;
        Ok(SourceFile::new(path, text))
    }

    /// Read an input file; a failure is one I/O diagnostic that names
    /// `what` ("the stack recipe").
    pub fn read_input(path: impl Into<PathBuf>, what: &str) -> Result<Self, super::Diagnostics> {
        SourceFile::read(path).map_err(|e| {
            super::Diagnostic::error(super::Code::Io, format!("cannot read {what}: {e}")).into()
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The shared path, as stored in [`Loc::file`].
    pub fn path_arc(&self) -> Arc<PathBuf> {
        self.path.clone()
    }

    pub fn text(&self) -> &str {
        self.named.inner().text()
    }

    /// The source in the form miette renders, borrowed.
    pub fn named_ref(&self) -> &NamedSource<Lined> {
        &self.named
    }

    /// Byte offset of the `n`th character (clamped to the end of the text).
    pub fn byte_of_char(&self, n: usize) -> usize {
        match self.named.inner().char_offsets() {
            None => n.min(self.text().len()),
            Some(offsets) => offsets.get(n).copied().unwrap_or(self.text().len()),
        }
    }

    /// The 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text().len());
        let starts = self.named.inner().starts();
        let line = starts.partition_point(|&s| s <= offset);
        let start = starts[line - 1];
        let col = self.text()[start..]
            .char_indices()
            .take_while(|(i, _)| start + i < offset)
            .count();
        (line, col + 1)
    }

    /// A location for the byte range `offset..offset+len`; in a generated
    /// file, the place in the user's file it was translated from.
    pub fn loc(&self, offset: usize, len: usize) -> Loc {
        let here = self.own_loc(offset, len);
        match &self.origins {
            Some(o) => o.map(here, self.text()),
            None => here,
        }
    }

    /// A location in this very file (no translation).
    pub fn own_loc(&self, offset: usize, len: usize) -> Loc {
        let offset = offset.min(self.text().len());
        let len = len.min(self.text().len() - offset);
        let (line, col) = self.line_col(offset);
        Loc {
            file: self.path.clone(),
            line,
            col,
            offset,
            len,
            via: None,
        }
    }

    /// The start of the file.
    pub fn start(&self) -> Loc {
        self.loc(0, 0)
    }
}

impl Origins {
    /// `here` (a location in the generated file, whose text is `text`)
    /// as the place it was translated from.
    fn map(&self, here: Loc, text: &str) -> Loc {
        let Some(span) = self.span_at(here.offset) else {
            return match &self.fallback {
                Some(f) => Loc {
                    via: Some(Arc::new(here)),
                    ..f.clone()
                },
                None => here,
            };
        };
        let mut out = span.origin.clone();
        if let (Some(value), Some(file)) = (&span.value, self.file(&span.origin.file)) {
            // Inside one scalar written verbatim in both files: the same
            // characters, so the same offset from the value's start.
            let inner = |t: &str, at: usize| {
                let quoted = t[at..].starts_with(['"', '\'']);
                let start = at + usize::from(quoted);
                t.get(start..start + value.len())
                    .filter(|v| v == value)
                    .map(|_| start)
            };
            if let (Some(w), Some(o)) = (
                inner(text, span.start),
                inner(file.text(), span.origin.offset),
            ) && here.offset >= w
                && here.offset + here.len <= w + value.len()
            {
                out = file.own_loc(o + (here.offset - w), here.len);
            }
        }
        out.via = Some(Arc::new(here));
        out
    }
}

/// A path for messages: relative to the current directory when it lies
/// below it (`.` for the directory itself), else as is.
pub fn display_path(path: &Path) -> String {
    display_name(path)
}

/// The working directory, asked once: `stack` never changes it, and a
/// command names a hundred files.
fn working_dir() -> Option<&'static Path> {
    static CWD: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    CWD.get_or_init(|| std::env::current_dir().ok()).as_deref()
}

fn display_name(path: &Path) -> String {
    if path.as_os_str().is_empty() {
        return ".".into();
    }
    if let Some(cwd) = working_dir() {
        if let Ok(rel) = path.strip_prefix(cwd) {
            if rel.as_os_str().is_empty() {
                return ".".into();
            }
            return rel.display().to_string();
        }
    }
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_of_offsets() {
        let src = SourceFile::new("/x/f.yaml", "ab\ncd\n\nef");
        assert_eq!(src.line_col(0), (1, 1));
        assert_eq!(src.line_col(1), (1, 2));
        assert_eq!(src.line_col(3), (2, 1));
        assert_eq!(src.line_col(7), (4, 1));
        assert_eq!(src.line_col(100), (4, 3));
    }

    #[test]
    fn non_ascii_char_positions_map_to_bytes() {
        let src = SourceFile::new("/x/f.yaml", "é: ü\nb: 1");
        assert_eq!(src.byte_of_char(0), 0);
        assert_eq!(src.byte_of_char(1), 2);
        assert_eq!(src.byte_of_char(3), 4);
        let loc = src.loc(4, 2);
        assert_eq!((loc.line, loc.col), (1, 4));
    }
}

/// Where the first invalid UTF-8 byte is, for a message: line and column
/// (counted in characters, from 1) and the byte.
fn utf8_error(bytes: &[u8], e: std::str::Utf8Error) -> String {
    let good = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
    let line = good.matches('\n').count() + 1;
    let col = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!(
        "line {line}, column {col}: byte 0x{:02x} is not valid UTF-8 (input files must be UTF-8)",
        bytes[e.valid_up_to()]
    )
}

#[cfg(test)]
mod utf8_tests {
    use super::*;

    #[test]
    fn invalid_utf8_says_where() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("r.yaml");
        fs_err::write(&p, b"name: x\ndescription: caf\xc3\xa9 \xff\n").unwrap();
        let e = SourceFile::read(&p).err().unwrap();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        let m = e.to_string();
        assert!(
            m.ends_with("r.yaml: line 2, column 19: byte 0xff is not valid UTF-8 (input files must be UTF-8)"),
            "{m}"
        );
    }
}
