//! `spack`: the package's own build logic, run at build time. Its
//! `package.py` (and the package files it imports) run in Python through
//! stack's own package API layer ([`crate::build_logic`]): the builder's
//! phases with their argument methods (`cmake_args`, `configure_args`,
//! `edit`, `install`, …), `run_before`/`run_after` hooks, the environment
//! setup of the package and of its dependencies, `flag_handler`, `@when`
//! multimethods.
//!
//! In the build phase the kind checks every package file against its
//! sha256 and copies it into the stage (`.stack-build-logic/spack/`: the
//! sandbox sees the stage, and what runs is what was checked), writes the
//! layer out (once per build directory), writes
//! `<stage>/.stack-build-logic/request.json` and runs
//! `<python> -I -B <layer>/run.py <request.json>` in the source tree as a
//! command of the build: the sandbox, the jobserver and the log apply to
//! Python and everything it starts. An exit status of
//! [`crate::build_logic::EXIT_UNSUPPORTED`] (an API the layer lacks) becomes
//! an error naming the package.py line and the call.

use super::KeyType::{File, Files};
use super::{BuildKind, JobSettings, Key, PhaseError, Phases, key};
use crate::build_logic::{self, BuildLogicError};

#[derive(Debug)]
pub(super) struct Spack;

/// The `build:` keys.
const KEYS: &[Key] = &[key("package", File), key("imports", Files)];

/// The message the layer prints for an API it lacks, from the log's tail
/// (`stack: <file>:<line>: <call> is not implemented …`).
fn unsupported_message(tail: &[String]) -> Option<String> {
    tail.iter()
        .rev()
        .find(|l| l.starts_with("stack: ") && l.contains("is not implemented"))
        .map(|l| l.trim_start_matches("stack: ").to_string())
}

impl BuildKind for Spack {
    fn name(&self) -> &'static str {
        "spack"
    }
    fn keys(&self) -> &'static [Key] {
        KEYS
    }
    fn compiles(&self) -> bool {
        true
    }
    fn runs_build_logic(&self) -> bool {
        true
    }
    fn build(&self, _: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let package = cx.package_name().to_string();
        let mut at = cx.stage_info();
        at.cmake_host_args = cx.cmake_host_args()?;
        let Some(logic) = cx.build_logic() else {
            return Err(Box::new(BuildLogicError::NoLogic { package }));
        };
        let modules = logic.stage_files(&package, cx.stage_root())?;
        for f in &logic.files {
            cx.log(&format!(
                "==> package file {} (sha256 {}) from {}",
                build_logic::files::relative_path(&f.module).display(),
                &f.sha256[..16.min(f.sha256.len())],
                f.path.display()
            ));
        }
        let layer = build_logic::write_layer(&logic.layer_root)?;
        let python = logic.python.clone();
        let request = logic.request(cx.package_hash(), &at, modules);
        let dir = build_logic::job::stage_dir(cx.stage_root());
        fs_err::create_dir_all(&dir)?;
        let file = dir.join("request.json");
        let mut text = serde_json::to_vec_pretty(&request).map_err(std::io::Error::other)?;
        text.push(b'\n');
        fs_err::write(&file, text)?;
        let argv = vec![
            python.to_string_lossy().into_owned(),
            "-I".into(),
            "-B".into(),
            layer
                .join(build_logic::embedded::ENTRY)
                .to_string_lossy()
                .into_owned(),
            file.to_string_lossy().into_owned(),
        ];
        let src = cx.src().to_path_buf();
        match cx.run(argv, &src) {
            Ok(()) => Ok(()),
            Err(e) if cx.exit_code(&e) == Some(build_logic::EXIT_UNSUPPORTED) => {
                let message = unsupported_message(&cx.log_tail(60)).unwrap_or_else(|| {
                    "a call of the package is not implemented (the log has the traceback)".into()
                });
                Err(Box::new(BuildLogicError::Unsupported { package, message }))
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unsupported_call_is_read_from_the_log() {
        let tail = [
            "Traceback (most recent call last):".to_string(),
            "  File \"/r/spack/builtin/x/package.py\", line 12, in install".to_string(),
            "stack: /r/spack/builtin/x/package.py:12: self.foo() is not implemented by stack's package API (docs/import.md#supported-api)".to_string(),
            "==> failed: exit status 3".to_string(),
        ];
        assert_eq!(
            unsupported_message(&tail).as_deref(),
            Some(
                "/r/spack/builtin/x/package.py:12: self.foo() is not implemented by stack's package API (docs/import.md#supported-api)"
            )
        );
        assert_eq!(unsupported_message(&tail[..2]), None);
    }
}
