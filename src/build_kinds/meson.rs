//! `meson`: `meson setup --prefix=P --libdir=lib --buildtype=release
//! --wrap-mode=nodownload ARGS <stage>/build`, `meson compile`, `meson install`.

use super::KeyType::Args;
use super::{BuildKind, JobSettings, Key, PhaseError, Phases, key};

#[derive(Debug)]
pub(super) struct Meson;

/// The `build:` keys.
const KEYS: &[Key] = &[key("meson_args", Args)];

impl BuildKind for Meson {
    fn name(&self) -> &'static str {
        "meson"
    }
    fn estimated_seconds(&self) -> f64 {
        60.0
    }
    fn keys(&self) -> &'static [Key] {
        KEYS
    }
    fn tools(&self) -> &'static [&'static str] {
        &["meson", "ninja"]
    }
    fn compiles(&self) -> bool {
        true
    }
    fn out_of_source(&self, _: &JobSettings) -> bool {
        true
    }
    fn configure(&self, s: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let mut argv: Vec<String> = vec![
            "meson".into(),
            "setup".into(),
            format!("--prefix={}", cx.prefix()),
            "--libdir=lib".into(),
            "--buildtype=release".into(),
            "--wrap-mode=nodownload".into(),
        ];
        argv.extend(s.list("meson_args").iter().cloned());
        let src = cx.src().to_path_buf();
        argv.push(cx.build_dir().to_string_lossy().into_owned());
        argv.push(src.to_string_lossy().into_owned());
        cx.run(argv, &src)
    }
    fn build(&self, _: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let ninja = cx.which("ninja").unwrap_or_else(|| "ninja".into());
        let jobs = cx.ninja_jobs(&ninja);
        let dir = cx.build_dir().to_path_buf();
        let mut argv: Vec<String> = vec![
            "meson".into(),
            "compile".into(),
            "-C".into(),
            dir.to_string_lossy().into_owned(),
        ];
        if let Some(j) = jobs {
            argv.push("-j".into());
            argv.push(j.to_string());
        }
        cx.run(argv, &dir)
    }
    fn install(&self, _: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let dir = cx.build_dir().to_path_buf();
        let argv = vec![
            "meson".into(),
            "install".into(),
            "-C".into(),
            dir.to_string_lossy().into_owned(),
            "--no-rebuild".into(),
        ];
        cx.run(argv, &dir)
    }
}
