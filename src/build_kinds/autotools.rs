//! `autotools`: optional `./autogen.sh` / `autoreconf -fi`, then
//! `./configure --prefix=P`, `make`, `make install`, all in the source tree
//! (or, `out_of_source`, `<src>/configure` and make in `<stage>/build`).
//! Like Spack's autotools builder, a tree without `configure` but with
//! `configure.ac` (or `configure.in`) is bootstrapped with `autoreconf -fi`
//! (a GitHub tag archive ships no generated files). `source_subdir` names
//! the directory of `configure` inside the source tree (Spack's
//! `configure_directory`): bootstrap, configure and make run there.

use std::path::Path;

use std::path::PathBuf;

use super::KeyType::{Args, Flag, Text, Toggle};
use super::{BuildKind, JobSettings, Key, PhaseError, Phases, key};

#[derive(Debug)]
pub(super) struct Autotools;

/// The `build:` keys.
const KEYS: &[Key] = &[
    key("autoreconf", Toggle),
    key("autogen", Toggle),
    key("out_of_source", Flag),
    key("source_subdir", Text),
    key("configure_args", Args),
    key("make_args", Args),
];

/// `./name`, or `sh ./name` when the script is not executable.
fn script(cx: &dyn Phases, dir: &Path, name: &str, relative: bool) -> Vec<String> {
    let path = dir.join(name);
    let shown = if relative {
        format!("./{name}")
    } else {
        path.to_string_lossy().into_owned()
    };
    if cx.is_executable(&path) {
        vec![shown]
    } else {
        vec!["sh".into(), shown]
    }
}

/// The tree has autoconf input but no `configure` to run.
fn lacks_configure(src: &Path) -> bool {
    !src.join("configure").exists()
        && (src.join("configure.ac").is_file() || src.join("configure.in").is_file())
}

/// The directory of `configure`: the source tree or its `source_subdir`.
fn configure_dir(s: &JobSettings, src: &Path) -> PathBuf {
    match s.text("source_subdir") {
        Some(sub) if !sub.is_empty() && sub != "." => src.join(sub),
        _ => src.to_path_buf(),
    }
}

/// Where make runs: the build directory out of source, else the directory
/// of `configure`.
fn make_dir(s: &JobSettings, cx: &dyn Phases) -> PathBuf {
    if s.flag("out_of_source") {
        cx.build_dir().to_path_buf()
    } else {
        configure_dir(s, cx.src())
    }
}

/// `make_args`, then `extra`.
fn make(s: &JobSettings, extra: &[String]) -> Vec<String> {
    let mut argv = vec!["make".to_string()];
    argv.extend(s.list("make_args").iter().cloned());
    argv.extend(extra.iter().cloned());
    argv
}

impl BuildKind for Autotools {
    fn name(&self) -> &'static str {
        "autotools"
    }
    fn keys(&self) -> &'static [Key] {
        KEYS
    }
    fn compiles(&self) -> bool {
        true
    }
    fn out_of_source(&self, s: &JobSettings) -> bool {
        s.flag("out_of_source")
    }
    fn bootstraps(&self, s: &JobSettings, src: &Path) -> bool {
        s.flag("autoreconf") || s.flag("autogen") || lacks_configure(&configure_dir(s, src))
    }
    fn bootstrap(&self, s: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let src = configure_dir(s, cx.src());
        if s.flag("autogen") {
            let argv = script(cx, &src, "autogen.sh", true);
            cx.run(argv, &src)?;
        }
        if s.flag("autoreconf") || lacks_configure(&src) {
            cx.run(vec!["autoreconf".into(), "-fi".into()], &src)?;
        }
        Ok(())
    }
    /// `CFLAGS=…` (`ldlibs`: `LIBS=…`) configure arguments, as Spack's
    /// `AutotoolsBuilder.flags_to_build_system_args`.
    fn flag_args(&self, flags: &[(&str, String)]) -> Option<(&'static str, Vec<String>)> {
        let args = flags
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(name, v)| {
                let var = match *name {
                    "ldlibs" => "LIBS".to_string(),
                    n => n.to_uppercase(),
                };
                format!("{var}={v}")
            })
            .collect();
        Some(("configure_args", args))
    }
    fn configure(&self, s: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let src = configure_dir(s, cx.src());
        let mut argv = script(cx, &src, "configure", !s.flag("out_of_source"));
        argv.push(format!("--prefix={}", cx.prefix()));
        argv.extend(s.list("configure_args").iter().cloned());
        let build = make_dir(s, cx);
        cx.run(argv, &build)
    }
    fn build(&self, s: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let build = make_dir(s, cx);
        cx.run(make(s, &[]), &build)
    }
    fn install(&self, s: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        // Job-only: the install targets (default `install`; none: no call).
        let targets = s.list_or("install_targets", &["install"]);
        if targets.is_empty() {
            return Ok(());
        }
        let build = make_dir(s, cx);
        cx.run(make(s, &targets), &build)
    }
}
