//! The errors of a pipeline run and their one classification into bad
//! input (exit 2) and failed operations (exit 1).

use crate::build;
use crate::fetch;
use crate::image;
use crate::resolve;
use crate::store;
use crate::view;

use super::RenderError;
use super::plan::LockError;

/// Errors of the pipeline that are not a package build failure. Stage
/// errors are boxed: they are large and only travel on the failure path.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Lock(Box<LockError>),
    #[error(transparent)]
    Resolve(Box<resolve::ResolveError>),
    #[error(transparent)]
    Fetch(Box<fetch::FetchError>),
    #[error(transparent)]
    Patch(Box<crate::patch::PatchError>),
    #[error(transparent)]
    Render(Box<RenderError>),
    #[error(transparent)]
    Build(Box<build::BuildError>),
    #[error(transparent)]
    View(Box<view::ViewError>),
    #[error(transparent)]
    Image(Box<image::ImageError>),
    #[error(transparent)]
    Audit(Box<crate::audit::AuditError>),
    #[error(transparent)]
    Store(Box<store::StoreError>),
    #[error(transparent)]
    Verify(Box<crate::verify::VerifyError>),
    #[error(transparent)]
    Distributed(Box<crate::remote::DistributedError>),
    #[error(transparent)]
    Preflight(Box<super::preflight::PreflightError>),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Internal(String),
    /// `stack gc` was given a directory without `stack.lock`.
    #[error(
        "{} is not a build directory: it has no stack.lock\nhint: give the --build directory of a `stack build`",
        .0.display()
    )]
    NotABuildDir(std::path::PathBuf),
    /// Two packages of the plan whose modules would have the same name.
    #[error(
        "modules: {first} and {second} both project to the module `{module}` (modules: at {at})\nhint: make the projection unique, e.g. `{{name}}/{{version}}-{{hash:7}}`, or exclude one of them (`exclude:`)"
    )]
    ModuleClash {
        module: String,
        first: String,
        second: String,
        at: crate::diag::Loc,
    },
    /// Imported recipes with untranslated build logic that nobody reviewed.
    #[error("{}", unreviewed_message(.0))]
    Unreviewed(Vec<(String, std::path::PathBuf, Vec<String>)>),
}

fn unreviewed_message(items: &[(String, std::path::PathBuf, Vec<String>)]) -> String {
    let mut text = String::from(
        "preflight: imported recipes with untranslated build logic must be reviewed before they are built \
         (fix them, then set `imported.reviewed: true`):",
    );
    for (name, file, constructs) in items {
        text.push_str(&format!(
            "\n  {name} ({}): {}",
            file.display(),
            constructs.join("; ")
        ));
    }
    text
}

macro_rules! boxed_from {
    ($($variant:ident: $ty:ty),* $(,)?) => {
        $(impl From<$ty> for PipelineError {
            fn from(e: $ty) -> Self {
                PipelineError::$variant(Box::new(e))
            }
        })*
    };
}

boxed_from!(
    Lock: LockError,
    Resolve: resolve::ResolveError,
    Fetch: fetch::FetchError,
    Patch: crate::patch::PatchError,
    Render: RenderError,
    Build: build::BuildError,
    View: view::ViewError,
    Image: image::ImageError,
    Audit: crate::audit::AuditError,
    Store: store::StoreError,
    Verify: crate::verify::VerifyError,
    Distributed: crate::remote::DistributedError,
    Preflight: super::preflight::PreflightError,
);

pub use crate::diag::ErrorClass;

impl PipelineError {
    /// The one classification of every stage error.
    pub fn class(&self) -> ErrorClass {
        let input = match self {
            PipelineError::Lock(e) => e.is_input_error(),
            PipelineError::Resolve(e) => e.is_input_error(),
            PipelineError::Fetch(e) => matches!(
                **e,
                fetch::FetchError::MissingChecksum { .. }
                    | fetch::FetchError::InvalidChecksum { .. }
                    | fetch::FetchError::UnpinnedGit { .. }
                    | fetch::FetchError::InvalidCommit { .. }
                    | fetch::FetchError::InvalidUrl { .. }
                    | fetch::FetchError::CaFile(_)
            ),
            PipelineError::Distributed(e) => e.is_input_error(),
            PipelineError::Image(e) => matches!(**e, image::ImageError::BadImage { .. }),
            PipelineError::Render(_)
            | PipelineError::Preflight(_)
            | PipelineError::ModuleClash { .. }
            | PipelineError::Unreviewed(_)
            | PipelineError::NotABuildDir(_) => true,
            _ => false,
        };
        if input {
            ErrorClass::Input
        } else {
            ErrorClass::Failure
        }
    }

    /// A hint to show with the error, where there is one.
    pub fn help(&self) -> Option<&'static str> {
        match self {
            PipelineError::Lock(e) => Some(e.help()),
            _ => None,
        }
    }
}

impl crate::diag::Classify for PipelineError {
    fn class(&self) -> ErrorClass {
        PipelineError::class(self)
    }

    fn hint(&self) -> Option<String> {
        self.help().map(String::from)
    }

    /// The resolver's explanations (conflicts, lock differences).
    fn lays_itself_out(&self) -> bool {
        matches!(
            self,
            PipelineError::Resolve(r)
                if matches!(**r, resolve::ResolveError::Unsatisfiable(_) | resolve::ResolveError::LockMismatch { .. })
        )
    }
}
