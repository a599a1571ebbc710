//! What a kind's phases may do in the build stage: run commands in the
//! stage, find programs on the build `PATH`, borrow jobserver tokens. The
//! build stage implements it for its per-package context.

use std::path::{Path, PathBuf};

/// A failed phase: the build stage's own error, boxed (the build stage
/// takes it back out).
pub type PhaseError = Box<dyn std::error::Error + Send + Sync>;

/// The build stage as a kind's phases see it.
pub trait Phases {
    /// The stage's copy of the source tree.
    fn src(&self) -> &Path;
    /// The build directory: `<stage>/build` out of source, else [`Self::src`].
    fn build_dir(&self) -> &Path;
    /// The stage's scratch root (for files a kind prepares, such as CMake's
    /// view of the host C library).
    fn stage_root(&self) -> &Path;
    /// The install prefix as builds see it (under the mount point).
    fn prefix(&self) -> String;
    /// Run `argv` (never a shell string) in `cwd`, under the jobserver, in
    /// the build environment and sandbox; its output goes to the log.
    fn run(&mut self, argv: Vec<String>, cwd: &Path) -> Result<(), PhaseError>;
    /// A program on the build `PATH`.
    fn which(&self, name: &str) -> Option<PathBuf>;
    /// `path` is an executable file.
    fn is_executable(&self, path: &Path) -> bool;
    /// The `-j` for a `ninja` that does not speak the jobserver protocol
    /// (`None` when it does): the extra tokens are held until the next
    /// [`Self::run`] ends.
    fn ninja_jobs(&mut self, ninja: &Path) -> Option<usize>;
    /// The RPATH entries the compiler wrapper adds, `:`-separated.
    fn wrapper_rpaths(&self) -> String;
    /// The CMake `-D` arguments that keep `find_*` off the host (see
    /// `build::host_libs`), after preparing what they name in the stage.
    fn cmake_host_args(&mut self) -> Result<Vec<String>, PhaseError>;
    /// The package's name (for messages).
    fn package_name(&self) -> &str;
    /// The node hash of the package being built.
    fn package_hash(&self) -> &str;
    /// The job's build logic (kinds that run it,
    /// [`super::BuildKind::runs_build_logic`]).
    fn build_logic(&self) -> Option<&crate::build_logic::LogicJob>;
    /// The stage as the build logic's request describes it: directories,
    /// `-j`, the real compilers and the wrappers.
    fn stage_info(&self) -> crate::build_logic::job::StageInfo;
    /// The exit status of a command that [`Self::run`] reported as failed
    /// (`None`: it did not start, or a signal ended it).
    fn exit_code(&self, error: &PhaseError) -> Option<i32>;
    /// The last `lines` lines of the build log.
    fn log_tail(&self, lines: usize) -> Vec<String>;
    /// Write a line to the build log.
    fn log(&self, line: &str);
}
