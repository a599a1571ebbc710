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
            OpError::Inputs(_) => ErrorClass::Input,
            OpError::Stage(e) => e.class(),
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
            _ => None,
        }
    }

    fn diagnostics(&self) -> Option<Diagnostics> {
        OpError::diagnostics(self)
    }

    fn lays_itself_out(&self) -> bool {
        match self {
            OpError::Stage(e) => crate::diag::Classify::lays_itself_out(e),
            OpError::Inputs(_) => false,
        }
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
