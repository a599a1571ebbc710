//! The harness shared by the executed documentation tests
//! (`docs_console.rs` for the Markdown, `help_examples.rs` for `--help`):
//! a copy of the shipped inputs to run commands in, the command runner
//! (an empty environment, this build's `stack` first on `PATH`) and the
//! in-order line matcher.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// The shipped inputs the commands use, copied (commands may write).
pub fn workspace(root: &Path, to: &Path) {
    for dir in [
        "recipes",
        "patches",
        "stacks",
        "cluster-configs",
        "tests/fixtures/demo",
    ] {
        let st = Command::new("cp")
            .args(["-r", "--parents", dir])
            .arg(to)
            .current_dir(root)
            .status()
            .unwrap();
        assert!(st.success(), "copy {dir}");
    }
}

/// `PATH` for the commands: this build's `stack`, then the system's.
pub fn search_path() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_stack")).parent().unwrap();
    format!("{}:/usr/bin:/bin", bin.display())
}

/// Runs `line` with `sh -c` in `dir` (also `HOME`), environment cleared:
/// the exit status and stdout then stderr, `dir` replaced by `[ROOT]` and
/// the source tree by `[REPO]`.
pub fn run(line: &str, dir: &Path) -> (i32, String) {
    run_with(line, dir, &[])
}

/// [`run`] with `vars` added to the environment.
pub fn run_with(line: &str, dir: &Path, vars: &[(&str, &str)]) -> (i32, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env_clear()
        .envs(vars.iter().copied())
        .env("PATH", search_path())
        .env("HOME", dir)
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let text = text
        .replace(&dir.display().to_string(), "[ROOT]")
        // The built-in repository: the source tree `stack` was built from.
        .replace(env!("CARGO_MANIFEST_DIR"), "[REPO]");
    (out.status.code().unwrap_or(-1), text)
}

/// Expected lines appear in order; `…` skips any lines.
pub fn matches(expected: &[String], actual: &str) -> Result<(), String> {
    let actual: Vec<&str> = actual.lines().map(str::trim_end).collect();
    let mut at = 0;
    let mut skip = false;
    for e in expected.iter().map(|e| e.trim_end()) {
        if e.trim() == "…" || e.trim() == "..." {
            skip = true;
            continue;
        }
        match actual[at..].iter().position(|a| *a == e) {
            Some(p) if skip || p == 0 => at += p + 1,
            _ => return Err(format!("expected line not found (in order): {e:?}")),
        }
        skip = false;
    }
    Ok(())
}
