//! Errors and warnings of the view stage.

use std::fmt;
use std::path::PathBuf;

/// Why views, modules or `meta/` could not be generated. Every message names
/// the view/package/file concerned and, where useful, ends with a hint.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error(transparent)]
    Io(#[from] std::io::Error),

    #[error("{origin}: bad value for {var}: {message}\nhint: {hint}")]
    Placeholder {
        origin: String,
        var: String,
        message: String,
        hint: String,
    },

    #[error(
        "{origin}: `{var}` is not a valid environment variable name\nhint: use letters, digits and `_`, not starting with a digit"
    )]
    InvalidVarName { origin: String, var: String },

    #[error(
        "invalid mount point {}\nhint: the mount point must be an absolute path such as /user-environment",
        mount.display()
    )]
    InvalidMount { mount: PathBuf },

    #[error("invalid view name `{name}`: {reason}")]
    InvalidViewName { name: String, reason: String },

    #[error(
        "the view `{name}` is defined by the environments `{first_env}` and `{second_env}`\nhint: view names are global (they become <mount>/env/<view>); rename one of them"
    )]
    DuplicateView {
        name: String,
        first_env: String,
        second_env: String,
    },

    #[error("default view `{name}` does not exist\nhint: the views are: {}", available.join(", "))]
    UnknownDefaultView {
        name: String,
        available: Vec<String>,
    },

    #[error(
        "view `{view}`: select names `{name}`, which the view does not link\nhint: the view (link: {link}) links: {}{}",
        available.join(", "),
        if *link == "roots" { "; to select a dependency use `link: run` or `link: all`" } else { "" }
    )]
    UnknownSelect {
        view: String,
        name: String,
        link: &'static str,
        available: Vec<String>,
    },

    #[error(
        "package {package}: prefix {} is not under the mount point {}\nhint: every package that is not external must be installed below the mount point",
        prefix.display(), mount.display()
    )]
    PrefixOutsideMount {
        package: String,
        prefix: PathBuf,
        mount: PathBuf,
    },

    #[error(
        "package {package}: prefix {} lies in `{dir}/`, which views, modules and meta own",
        prefix.display()
    )]
    PrefixInReservedDir {
        package: String,
        prefix: PathBuf,
        dir: &'static str,
    },

    #[error("package {package}: the installed prefix {} does not exist in the store", path.display())]
    PrefixMissing { package: String, path: PathBuf },

    #[error("package {package} depends on hash {hash}, which is not in the store contents")]
    UnknownDependency { package: String, hash: String },

    #[error(
        "view `{view}`: {first} and {second} both provide `{}` with different contents\nhint: exclude one of them from the view (`exclude: [...]`), or let the first one win (the default conflict policy)",
        path.display()
    )]
    Conflict {
        view: String,
        path: PathBuf,
        first: String,
        second: String,
    },

    #[error(
        "modules: {first} and {second} both project to the module `{module}`\nhint: make the projection unique, e.g. `{{name}}/{{version}}-{{hash:7}}`"
    )]
    ModuleNameClash {
        module: String,
        first: String,
        second: String,
    },

    #[error("modules: bad projection `{projection}`: {message}")]
    BadProjection { projection: String, message: String },

    #[error("template {name}: {message}")]
    Template { name: String, message: String },

    #[error("meta: {}: {message}", path.display())]
    MetaPath { path: PathBuf, message: String },

    #[error(
        "{kind} hook {} failed ({status}); its output is in {}\n{tail}",
        script.display(), log.display()
    )]
    HookFailed {
        kind: &'static str,
        script: PathBuf,
        status: String,
        log: PathBuf,
        tail: String,
    },

    #[error("could not serialise {what}: {source}")]
    Json {
        what: String,
        #[source]
        source: serde_json::Error,
    },
}

impl ViewError {
    pub(crate) fn template(name: &str, err: &tera::Error) -> ViewError {
        // tera nests the useful part (line, unknown variable) in the source chain.
        let mut message = err.to_string();
        let mut source = std::error::Error::source(err);
        while let Some(s) = source {
            message.push_str(": ");
            message.push_str(&s.to_string());
            source = s.source();
        }
        ViewError::Template {
            name: name.to_string(),
            message,
        }
    }
}

/// Something the caller should show but that did not stop generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewWarning {
    /// Two packages of a view provide the same path; `kept` won.
    Conflict {
        view: String,
        path: PathBuf,
        kept: String,
        skipped: String,
        /// Both files have the same contents (or link to the same target).
        identical: bool,
    },
    /// The view links no package (no roots in its environment, or all excluded).
    EmptyView { view: String },
    /// `exclude` names a package that is not in the view's environment.
    ExcludeUnknown { view: String, name: String },
}

impl fmt::Display for ViewWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewWarning::Conflict {
                view,
                path,
                kept,
                skipped,
                identical,
            } => write!(
                f,
                "view `{view}`: `{}` is provided by {kept} and {skipped}; kept {kept}{}",
                path.display(),
                if *identical { " (same contents)" } else { "" }
            ),
            ViewWarning::EmptyView { view } => write!(f, "view `{view}` links no package"),
            ViewWarning::ExcludeUnknown { view, name } => write!(
                f,
                "view `{view}`: exclude names `{name}`, which is not in the environment"
            ),
        }
    }
}
