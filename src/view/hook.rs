//! `pre_install` / `post_install` hooks: a script from the recipe, rendered
//! with tera and run.
//!
//! Template variables (stackinator-compatible names): `env.mount`,
//! `env.build`, `env.store`, `env.name`, `env.config` (= `<mount>/config`),
//! and `stack.version`. A script that needs a literal `{{`, `{%` or `{#`
//! (bash's `${#array[@]}`) wraps it in `{% raw %}…{% endraw %}`.
//!
//! The rendered script is written to `<work_dir>/<kind>-hook` and run with
//! a clean environment: `PATH=/usr/local/bin:/usr/bin:/bin`, `LC_ALL=C`,
//! `TZ=UTC`, `STACK_MOUNT`, `STACK_BUILD`, `STACK_STORE`, `STACK_HOOK`, plus
//! what the caller passes (which wins). Its working directory is the build
//! directory; stdout and stderr go to `<work_dir>/<kind>-hook.log`.
//! A script without `#!` runs with `/bin/sh`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tera::Context;

use super::error::ViewError;

/// When a hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookKind {
    /// Before the first package is built.
    PreInstall,
    /// After views, modules and meta are generated, before the image is packed.
    PostInstall,
}

impl HookKind {
    pub fn name(self) -> &'static str {
        match self {
            HookKind::PreInstall => "pre-install",
            HookKind::PostInstall => "post-install",
        }
    }
}

/// Where a hook runs and what its template sees.
#[derive(Debug, Clone)]
pub struct HookContext {
    pub kind: HookKind,
    /// The stack's name.
    pub name: String,
    pub mount: PathBuf,
    pub build_dir: PathBuf,
    pub store_dir: PathBuf,
    /// Where the rendered script and its log are written.
    pub work_dir: PathBuf,
    /// Run the script in this private mount namespace (the store shown at
    /// the mount point), as the package builds ran; `None`: on the host.
    pub namespace: Option<Arc<crate::sandbox::Namespace>>,
}

/// A hook that ran successfully.
#[derive(Debug, Clone)]
pub struct HookRun {
    pub rendered: PathBuf,
    pub log: PathBuf,
    pub duration: Duration,
}

/// Render `script` with tera and run it; a non-zero exit is an error that
/// carries the end of the log.
pub fn run_hook(
    script: &Path,
    ctx: &HookContext,
    env: &[(String, String)],
) -> Result<HookRun, ViewError> {
    let kind = ctx.kind.name();
    let source = fs_err::read_to_string(script)?;
    let mut tctx = Context::new();
    let mount = ctx.mount.to_string_lossy().into_owned();
    tctx.insert(
        "env",
        &serde_json::json!({
            "mount": mount,
            "build": ctx.build_dir.to_string_lossy(),
            "store": ctx.store_dir.to_string_lossy(),
            "name": ctx.name,
            "config": format!("{mount}/config"),
        }),
    );
    tctx.insert(
        "stack",
        &serde_json::json!({"version": env!("CARGO_PKG_VERSION")}),
    );
    let rendered_text = crate::template::render_one(&source, &tctx)
        .map_err(|e| ViewError::template(&script.display().to_string(), &e))?;

    fs_err::create_dir_all(&ctx.work_dir)?;
    let rendered = ctx.work_dir.join(format!("{kind}-hook"));
    let log = ctx.work_dir.join(format!("{kind}-hook.log"));
    fs_err::write(&rendered, &rendered_text)?;
    fs_err::set_permissions(&rendered, std::fs::Permissions::from_mode(0o755))?;

    let log_file = fs_err::File::create(&log)?;
    let mut cmd = if rendered_text.starts_with("#!") {
        Command::new(&rendered)
    } else {
        let mut c = Command::new("/bin/sh");
        c.arg(&rendered);
        c
    };
    cmd.env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env("STACK_MOUNT", &ctx.mount)
        .env("STACK_BUILD", &ctx.build_dir)
        .env("STACK_STORE", &ctx.store_dir)
        .env("STACK_HOOK", kind)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(&ctx.build_dir)
        .stdin(Stdio::null())
        .stdout(log_file.file().try_clone()?)
        .stderr(log_file.into_file());
    if let Some(ns) = &ctx.namespace {
        ns.apply(&mut cmd, &ctx.build_dir)?;
    }
    let start = Instant::now();
    let status = cmd.status().map_err(|e| {
        ViewError::Io(std::io::Error::new(
            e.kind(),
            format!("{e} (running the {kind} hook {})", rendered.display()),
        ))
    })?;
    if !status.success() {
        let text = fs_err::read_to_string(&log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        return Err(ViewError::HookFailed {
            kind,
            script: script.to_path_buf(),
            status: status.to_string(),
            log,
            tail,
        });
    }
    Ok(HookRun {
        rendered,
        log,
        duration: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(dir: &Path, kind: HookKind) -> HookContext {
        HookContext {
            kind,
            name: "demo".into(),
            mount: "/user-environment".into(),
            build_dir: dir.to_path_buf(),
            store_dir: dir.join("store"),
            work_dir: dir.join("hooks"),
            namespace: None,
        }
    }

    #[test]
    fn renders_and_runs_with_a_clean_environment() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("post.sh");
        fs_err::write(
            &script,
            "#!/bin/sh\nset -eu\necho \"mount={{ env.mount }} name={{ env.name }} build={{ env.build }}\" > out.txt\n\
             echo \"hook=$STACK_HOOK extra=$EXTRA home=${HOME:-unset}\" >> out.txt\n\
             {% raw %}arr=\"{#}\"{% endraw %}\necho \"$arr\" >> out.txt\necho to-log\n",
        )
        .unwrap();
        let run = run_hook(
            &script,
            &ctx(dir.path(), HookKind::PostInstall),
            &[("EXTRA".into(), "yes".into())],
        )
        .unwrap();
        let out = fs_err::read_to_string(dir.path().join("out.txt")).unwrap();
        assert_eq!(
            out,
            format!(
                "mount=/user-environment name=demo build={}\nhook=post-install extra=yes home=unset\n{{#}}\n",
                dir.path().display()
            )
        );
        assert_eq!(fs_err::read_to_string(&run.log).unwrap(), "to-log\n");
        assert!(run.rendered.ends_with("hooks/post-install-hook"));
    }

    #[test]
    fn failure_names_the_script_and_shows_the_log_tail() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("pre.sh");
        // no shebang: runs with /bin/sh
        fs_err::write(&script, "echo about to fail >&2\nexit 3\n").unwrap();
        let err = run_hook(&script, &ctx(dir.path(), HookKind::PreInstall), &[]).unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("pre-install hook "), "{msg}");
        assert!(msg.contains("exit status: 3"), "{msg}");
        assert!(msg.ends_with("about to fail"), "{msg}");
    }

    #[test]
    fn template_errors_name_the_script() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("bad.sh");
        fs_err::write(&script, "echo {{ env.nope }}\n").unwrap();
        let err = run_hook(&script, &ctx(dir.path(), HookKind::PreInstall), &[]).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("bad.sh"), "{msg}");
        assert!(msg.contains("env.nope"), "{msg}");
    }
}
