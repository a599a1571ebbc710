//! Headless Chromium (Debian's `chromium`, from scripts/install-deps.sh) on
//! a report file: the DOM after the page's script ran, every console
//! message, and a screenshot kept under `target/report-screenshots/` (the
//! CI's artifact).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the screenshots go: `<target>/report-screenshots/`.
pub fn screenshot_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target dir")
        .join("report-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn chromium() -> PathBuf {
    for dir in ["/usr/bin", "/usr/local/bin", "/bin"] {
        let p = Path::new(dir).join("chromium");
        if p.is_file() {
            return p;
        }
    }
    panic!("chromium is not installed: run scripts/install-deps.sh (Debian's `chromium`)");
}

/// Run chromium on `url` with the flags of a quiet, offline, throw-away
/// profile, plus `extra`; its stdout and stderr.
fn run(url: &str, extra: &[&str]) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new("timeout")
        .arg("180")
        .arg(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .env("HOME", profile.path())
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What the page looks like once loaded.
pub struct Rendered {
    pub dom: String,
    /// The page's console messages (errors, CSP violations, logs).
    pub console: Vec<String>,
}

impl Rendered {
    /// How many times `needle` occurs in the DOM.
    pub fn count(&self, needle: &str) -> usize {
        self.dom.matches(needle).count()
    }
}

/// Load `page` (with `fragment`, e.g. `#env=0`) and dump its DOM.
pub fn render(page: &Path, fragment: &str) -> Rendered {
    let url = format!("file://{}{fragment}", page.display());
    let (dom, err) = run(&url, &["--enable-logging=stderr", "--v=0", "--dump-dom"]);
    let console = err
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    Rendered { dom, console }
}

/// A `width`×`height` screenshot of `page` as `target/report-screenshots/<name>.png`.
pub fn screenshot(page: &Path, fragment: &str, name: &str, width: u32, height: u32) -> PathBuf {
    let png = screenshot_dir().join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    let url = format!("file://{}{fragment}", page.display());
    run(
        &url,
        &[
            &format!("--window-size={width},{height}"),
            &format!("--screenshot={}", png.display()),
        ],
    );
    let len = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(
        len > 10_000,
        "no screenshot at {} ({len} bytes)",
        png.display()
    );
    png
}
