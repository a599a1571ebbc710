//! The result of an audit: every audited ELF file with its resolutions, and
//! the findings. Serialised as is for `--format json`.

use serde::Serialize;

use super::classify::Class;
use super::dlopen::DlopenKind;
use super::session::CacheSource;

/// What an audited tree was and where it is mounted.
#[derive(Clone, Debug, Serialize)]
pub struct Input {
    /// The path given (host directory or image file).
    pub path: String,
    /// `directory` or `squashfs`.
    pub kind: String,
    /// Where the tree lives at run time; every path in the report is there.
    pub mount: String,
    /// Where the mount point came from (`--mount`, `meta/env.json`, …).
    pub mount_from: String,
    /// The build's recorded audit report whose allow-list was used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_from: Option<String>,
}

/// The loader facts the audit used.
#[derive(Clone, Debug, Serialize)]
pub struct LoaderSummary {
    pub source: String,
    pub default_dirs: Vec<String>,
    pub lib: String,
    pub platform: String,
    pub hwcaps: Vec<String>,
    pub legacy_hwcaps: Vec<String>,
    pub cache: CacheSource,
    pub ld_library_path: Option<String>,
    pub sysroot: String,
}

/// How one ELF file is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    Executable,
    Library,
    /// No `PT_DYNAMIC` (or no `DT_NEEDED`): nothing to resolve.
    Static,
    /// `ET_REL` objects and the like.
    NotDynamic,
    /// Another class or machine than the target: the loader skips it.
    Foreign,
    /// Looks like ELF but the loader rejects it.
    Broken,
}

/// One `DT_NEEDED` entry and where it resolves when the file is loaded on
/// its own.
#[derive(Clone, Debug, Serialize)]
pub struct Resolution {
    pub needed: String,
    /// The path the loader opens (`null` when not found).
    pub path: Option<String>,
    /// `rpath`, `runpath`, `ld.so.cache`, `default-dir`, `already-loaded`,
    /// `path`, … (`null` when not found).
    pub via: Option<String>,
    /// For `rpath`: the object whose RPATH it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via_object: Option<String>,
    pub class: Class,
}

/// A library-looking string in a file that imports `dlopen`.
#[derive(Clone, Debug, Serialize)]
pub struct DlopenRef {
    pub string: String,
    pub kind: DlopenKind,
    /// Where it resolves (absolute strings: the file if it exists; bare
    /// names: the loader's search from this file).
    pub path: Option<String>,
    pub class: Class,
}

/// One audited ELF file.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    /// Path at run time (below the mount point).
    pub path: String,
    /// Package or prefix it belongs to.
    pub group: String,
    pub kind: FileKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub soname: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interp: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpath: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runpath: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub setid: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nodeflib: bool,
    pub needed: Vec<Resolution>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dlopen: Vec<DlopenRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Error,
    Warning,
}

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// A library resolves outside the stack and is not allowed.
    Leak,
    /// A library is found nowhere.
    Unresolved,
    /// The loader stops with an error (a non-ELF or truncated candidate,
    /// an executable as dependency, an empty token substitution).
    LoaderError,
    /// Found only because another object loaded it first (the loader's
    /// already-loaded rule); on its own the library does not resolve.
    ResolvesOnlyWhenPreloaded,
    /// A hard-coded absolute library path outside the stack in a file that
    /// calls `dlopen`.
    DlopenPath,
    /// A library name a `dlopen` caller would find outside the stack, or a
    /// relative path (resolved against the working directory).
    DlopenName,
    /// A relative RPATH/RUNPATH element (resolved against the working directory).
    RelativeSearchPath,
    /// An empty RPATH/RUNPATH element (means the working directory).
    EmptySearchPath,
    /// `$ORIGIN` in a set-uid/set-gid program (ignored by the loader there).
    SetidOrigin,
    /// An RPATH/RUNPATH element outside the mount point and outside every
    /// declared external's library directory (error for `DT_RPATH`, which
    /// outranks `LD_LIBRARY_PATH`; warning for `DT_RUNPATH`).
    SearchPathOutside,
    /// A library `dlopen`ed by bare name that the calling file's own search
    /// does not find, but a view's `LD_LIBRARY_PATH` does.
    DlopenOnlyThroughEnvironment,
    /// A `DT_NEEDED` entry with a slash (no search; relative ones depend on
    /// the working directory).
    NeededWithSlash,
    /// The program interpreter does not exist on the target.
    InterpreterMissing,
    /// An ELF file the loader would reject.
    BrokenElf,
    /// A file or directory of the stack that could not be read: it was not
    /// examined.
    Unreadable,
}

impl FindingKind {
    pub fn code(self) -> &'static str {
        match self {
            FindingKind::Leak => "leak",
            FindingKind::Unresolved => "unresolved",
            FindingKind::LoaderError => "loader-error",
            FindingKind::ResolvesOnlyWhenPreloaded => "resolves-only-when-preloaded",
            FindingKind::DlopenPath => "dlopen-path",
            FindingKind::DlopenName => "dlopen-name",
            FindingKind::RelativeSearchPath => "relative-search-path",
            FindingKind::EmptySearchPath => "empty-search-path",
            FindingKind::SetidOrigin => "setid-origin",
            FindingKind::SearchPathOutside => "search-path-outside",
            FindingKind::DlopenOnlyThroughEnvironment => "dlopen-only-through-environment",
            FindingKind::NeededWithSlash => "needed-with-slash",
            FindingKind::InterpreterMissing => "interpreter-missing",
            FindingKind::BrokenElf => "broken-elf",
            FindingKind::Unreadable => "unreadable",
        }
    }
}

/// One problem, with the chain of loads that explains it.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub severity: Severity,
    pub kind: FindingKind,
    /// The file the finding is about (the object that needs or contains).
    pub file: String,
    /// Package or prefix the file belongs to.
    pub group: String,
    /// The needed name, search path element or dlopen string concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Where it resolves, if anywhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub message: String,
    /// Load chain from a root program to `file` (root first).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<String>,
    /// How many roots (programs or standalone libraries) hit this.
    pub contexts: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// Counts.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Regular files looked at.
    pub files: usize,
    /// ELF files among them.
    pub elf_files: usize,
    /// Files and directories of the stack that could not be read (each an
    /// `unreadable` error finding).
    pub unreadable: usize,
    /// ELF files loaded as roots (executables and libraries).
    pub roots: usize,
    /// Direct `DT_NEEDED` resolutions of the audited files.
    pub resolutions: usize,
    pub in_stack: usize,
    pub allowed: usize,
    pub leaks: usize,
    pub unresolved: usize,
    /// Objects loaded over all roots (each root's full closure).
    pub loaded_objects: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Wall time of the audit in milliseconds.
    pub elapsed_ms: u64,
}

/// The result of `stack audit`.
#[derive(Clone, Debug, Serialize)]
pub struct AuditReport {
    pub inputs: Vec<Input>,
    pub loader: LoaderSummary,
    /// Effective allow-list patterns.
    pub allow: Vec<String>,
    pub summary: Summary,
    pub findings: Vec<Finding>,
    pub files: Vec<FileReport>,
}

impl AuditReport {
    /// Any finding of error severity.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    /// The one-line verdict `stack build` prints: `audit: clean` only when
    /// there is no finding at all, else the counts of errors and warnings.
    pub fn summary_line(&self) -> String {
        let (e, w) = (self.summary.errors, self.summary.warnings);
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        match (e, w) {
            (0, 0) => "audit: clean".to_string(),
            (0, w) => format!("audit: {}", plural(w, "warning")),
            (e, w) => format!("audit: {}, {}", plural(e, "error"), plural(w, "warning")),
        }
    }

    /// The process exit code the audit maps to: 0 clean, 1 findings.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.has_errors())
    }

    /// Human-readable report (see [`super::render::text`]).
    pub fn to_text(&self) -> String {
        super::render::text(self)
    }

    /// Pretty-printed JSON.
    pub fn to_json(&self) -> String {
        super::render::json(self)
    }

    /// JUnit XML for CI systems.
    /// The last line of the text report: `result: clean (0 errors, 2 warnings) in 35 ms`.
    pub fn result_line(&self) -> String {
        super::render::result_line(self)
    }

    pub fn to_junit(&self) -> String {
        super::render::junit(self)
    }
}
