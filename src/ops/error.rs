//! The one error type of the operations, classified once.

use crate::diag::{Code, Diagnostic, Diagnostics, SourceFile};
use crate::pipeline::{ErrorClass, PipelineError};
use crate::resolve::ResolveError;

/// Why an operation did not complete.
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    /// The recipe, cluster or package recipes have problems (every one of
    /// them, with file, line and column).
    #[error("{} error{} in the inputs", .0.error_count(), if .0.error_count() == 1 { "" } else { "s" })]
    Inputs(Diagnostics),
    /// A stage failed or refused its input.
    #[error(transparent)]
    Stage(#[from] PipelineError),
    /// `stack report`: the build records could not be read or the page
    /// written.
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    /// `stack import spack`.
    #[error(transparent)]
    Import(#[from] crate::import::ImportError),
    /// The binary cache's address or registry.
    #[error(transparent)]
    Cache(#[from] crate::oci::DistributeError),
    /// A key (`--trusted-key`, the cluster's `keys:`, `--sign-key`).
    #[error(transparent)]
    Key(#[from] crate::sign::SignError),
    /// Credentials: a token file, docker's configuration.
    #[error(transparent)]
    Registry(#[from] crate::registry::RegistryError),
    /// The password could not be read from stdin (`--password-stdin`).
    #[error("reading the password from stdin: {0}")]
    Stdin(std::io::Error),
    /// A value the command was given is wrong (a file it names cannot be
    /// read): bad input.
    #[error("{0}")]
    BadValue(String),
    /// The command's options contradict each other or the recipe (the
    /// mount point, the build directory): bad input, with what to do.
    #[error("{message}")]
    Refused { message: String, help: String },
    /// `--stack RECIPE`: the recipe's `repos:` cannot be read (the
    /// problems, with file and line).
    #[error("{}: cannot read the stack recipe's `repos:`", .recipe.display())]
    StackRepos {
        recipe: std::path::PathBuf,
        problems: Diagnostics,
    },
    /// `stack audit`.
    #[error(transparent)]
    Audit(#[from] crate::audit::AuditError),
    /// `stack verify`, and the check of a store before it is packed.
    #[error(transparent)]
    Verify(#[from] crate::verify::VerifyError),
    /// `stack image`.
    #[error(transparent)]
    Image(#[from] crate::image::ImageError),
    /// `stack find`.
    #[error(transparent)]
    Find(#[from] crate::view::query::FindError),
    /// `stack diff`.
    #[error(transparent)]
    Diff(#[from] crate::view::diff::DiffError),
    /// `stack run`, `stack shell`: the image, build or view is not there.
    #[error(transparent)]
    Run(#[from] crate::image::run::RunError),
    /// A program could not be started (`unshare` for `stack run`, the
    /// command of `stack build-env`), with what to do.
    #[error("{message}")]
    Spawn { message: String, help: String },
    /// `stack build-env`: no such build environment.
    #[error(transparent)]
    BuildEnv(#[from] crate::build::build_env::BuildEnvError),
    /// `--cluster DIR` is not a valid cluster configuration (the problems,
    /// with file and line).
    #[error("--cluster {}: invalid cluster configuration", .dir.display())]
    Cluster {
        dir: std::path::PathBuf,
        problems: Diagnostics,
    },
    /// Reading or writing a file the command was not given failed.
    #[error(transparent)]
    Io(std::io::Error),
    /// A file the operation writes could not be written.
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

impl From<crate::fetch::FetchError> for OpError {
    fn from(e: crate::fetch::FetchError) -> Self {
        OpError::Stage(e.into())
    }
}

impl OpError {
    /// Bad input (exit 2) or a failed operation (exit 1).
    pub fn class(&self) -> ErrorClass {
        match self {
            OpError::Inputs(_)
            | OpError::BadValue(_)
            | OpError::Refused { .. }
            | OpError::StackRepos { .. }
            | OpError::Cluster { .. } => ErrorClass::Input,
            OpError::Write { .. } | OpError::Stdin(_) | OpError::Spawn { .. } => {
                ErrorClass::Failure
            }
            OpError::Stage(e) => e.class(),
            _ => self.inner().map_or(ErrorClass::Failure, |e| e.class()),
        }
    }

    /// The error of another room this one carries, classified there.
    fn inner(&self) -> Option<&dyn crate::diag::Classify> {
        match self {
            OpError::Stage(e) => Some(e),
            OpError::Report(e) => Some(e),
            OpError::Import(e) => Some(e),
            OpError::Cache(e) => Some(e),
            OpError::Key(e) => Some(e),
            OpError::Registry(e) => Some(e),
            OpError::Audit(e) => Some(e),
            OpError::Verify(e) => Some(e),
            OpError::Image(e) => Some(e),
            OpError::Run(e) => Some(e),
            OpError::Find(e) => Some(e),
            OpError::Diff(e) => Some(e),
            OpError::BuildEnv(e) => Some(e),
            OpError::Io(e) => Some(e),
            OpError::Inputs(_)
            | OpError::BadValue(_)
            | OpError::Refused { .. }
            | OpError::StackRepos { .. }
            | OpError::Cluster { .. }
            | OpError::Write { .. }
            | OpError::Stdin(_)
            | OpError::Spawn { .. } => None,
        }
    }

    /// The error as diagnostics with source snippets, when it points into a
    /// YAML file (the loaders' problems; a template that did not render; a
    /// compiler the cluster lacks), rendered like `stack check` renders them.
    pub fn diagnostics(&self) -> Option<Diagnostics> {
        let (message, loc, code) = match self {
            OpError::Inputs(d) => return Some(d.clone()),
            OpError::Stage(PipelineError::Render(e)) => (
                format!(
                    "cannot render `{}` for {}: {}",
                    e.template, e.package, e.reason
                ),
                e.loc.clone(),
                Code::BadTemplate,
            ),
            OpError::Stage(PipelineError::Resolve(e)) => match &**e {
                ResolveError::Compiler {
                    message,
                    loc: Some(loc),
                } => (message.clone(), loc.clone(), Code::UnknownCompiler),
                _ => return None,
            },
            _ => return None,
        };
        let mut d = Diagnostic::error(code, message).at(&loc, "here");
        if let Ok(source) = SourceFile::read(loc.path()) {
            d = d.with_source(&source);
        }
        let mut all = Diagnostics::new();
        all.push(d);
        Some(all)
    }
}

impl crate::diag::Classify for OpError {
    fn class(&self) -> ErrorClass {
        OpError::class(self)
    }

    fn hint(&self) -> Option<String> {
        match self {
            OpError::Stage(e) if self.diagnostics().is_none() => crate::diag::Classify::hint(e),
            OpError::Stage(_) => None,
            OpError::Refused { help, .. } | OpError::Spawn { help, .. } => Some(help.clone()),
            _ => self.inner().and_then(|e| e.hint()),
        }
    }

    fn diagnostics(&self) -> Option<Diagnostics> {
        match self {
            OpError::Inputs(_) | OpError::Stage(_) => OpError::diagnostics(self),
            OpError::StackRepos { problems, .. } | OpError::Cluster { problems, .. } => {
                Some(problems.clone())
            }
            _ => self.inner().and_then(|e| e.diagnostics()),
        }
    }

    fn lays_itself_out(&self) -> bool {
        self.inner().is_some_and(|e| e.lays_itself_out())
    }
}

/// `stack import spack`: an unknown package (with the nearest name) or
/// none at all is the input's fault; reading or writing failing is not.
impl crate::diag::Classify for crate::import::ImportError {
    fn class(&self) -> ErrorClass {
        use crate::import::ImportError;
        crate::diag::input_if(matches!(
            self,
            ImportError::UnknownPackage { .. } | ImportError::NoPackages(_)
        ))
    }

    fn hint(&self) -> Option<String> {
        match self {
            crate::import::ImportError::UnknownPackage {
                suggestion: Some(s),
                ..
            } => Some(format!("did you mean `{s}`?")),
            _ => None,
        }
    }
}
