//! Shared helpers of the fetch integration tests (`tests/fetch_*.rs`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use sha2::{Digest, Sha256};
use stack::fetch::{
    FetchError, FetchOptions, FetchReporter, Fetched, GitRef, Source, SourceCache, SourceRequest,
};

pub fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Options for tests: fast retries and short timeouts.
pub fn options(cache_base: &Path) -> FetchOptions {
    let mut o = FetchOptions::new(SourceCache::new(cache_base));
    o.retry_backoff = Duration::from_millis(10);
    o.idle_timeout = Duration::from_secs(10);
    o.lock_timeout = Duration::from_secs(60);
    o
}

pub fn archive(package: &str, version: &str, url: &str, sha256: Option<&str>) -> SourceRequest {
    SourceRequest {
        mirror_name: None,
        package: package.into(),
        version: version.into(),
        source: Source::Archive {
            url: url.into(),
            sha256: sha256.map(str::to_string),
            expand: true,
            max_size: None,
        },
    }
}

/// A request for version 1.0 of package `gitpkg` from the git repository at `url`.
pub fn git_req(url: &str, reference: GitRef, commit: Option<&str>) -> SourceRequest {
    SourceRequest {
        mirror_name: None,
        package: "gitpkg".into(),
        version: "1.0".into(),
        source: Source::Git {
            url: url.into(),
            reference,
            commit: commit.map(str::to_string),
            submodules: false,
        },
    }
}

/// A `.tar.gz` of `files` (path, content) under the top-level directory `top/`.
pub fn tar_gz(top: &str, files: &[(&str, &[u8])]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(tar::EntryType::Directory);
    h.set_mode(0o755);
    h.set_size(0);
    h.set_mtime(1_600_000_000);
    b.append_data(&mut h, format!("{top}/"), std::io::empty())
        .unwrap();
    for (path, data) in files {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Regular);
        h.set_mode(if path.ends_with(".sh") { 0o755 } else { 0o644 });
        h.set_size(data.len() as u64);
        h.set_mtime(1_600_000_000);
        b.append_data(&mut h, format!("{top}/{path}"), *data)
            .unwrap();
    }
    b.into_inner().unwrap().finish().unwrap()
}

/// Every regular file under `dir` (recursively), sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| !e.file_type().is_dir())
        .map(|e| e.into_path())
        .collect();
    v.sort();
    v
}

/// Archive entries of a cache (`sources-v1/archive/…`), temp files included.
pub fn cache_archives(cache_base: &Path) -> Vec<PathBuf> {
    files_under(&cache_base.join("sources-v1/archive"))
}

/// Records reporter calls as text lines.
#[derive(Default)]
pub struct Recorder {
    pub events: Mutex<Vec<String>>,
}

impl Recorder {
    pub fn events(&self) -> Vec<String> {
        self.events.lock().unwrap().clone()
    }
    pub fn count(&self, prefix: &str) -> usize {
        self.events()
            .iter()
            .filter(|e| e.starts_with(prefix))
            .count()
    }
    fn push(&self, s: String) {
        self.events.lock().unwrap().push(s);
    }
}

impl FetchReporter for Recorder {
    fn started(&self, index: usize, request: &SourceRequest, location: &str) {
        self.push(format!("started {index} {} {location}", request.label()));
    }
    fn transfer(&self, index: usize, location: &str, total: Option<u64>) {
        self.push(format!("transfer {index} {location} {total:?}"));
    }
    fn progress(&self, index: usize, bytes: u64, total: Option<u64>) {
        self.push(format!("progress {index} {bytes} {total:?}"));
    }
    fn retrying(&self, index: usize, location: &str, attempt: u32, error: &FetchError) {
        self.push(format!("retrying {index} {location} {attempt} {error}"));
    }
    fn waiting_for_lock(&self, index: usize, lock: &Path) {
        self.push(format!("waiting {index} {}", lock.display()));
    }
    fn finished(&self, index: usize, fetched: &Fetched) {
        self.push(format!("finished {index} {:?}", fetched.origin));
    }
    fn failed(&self, index: usize, error: &FetchError) {
        self.push(format!("failed {index} {error}"));
    }
}

/// Run git with a fixed identity and dates; panics on failure; returns stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "protocol.file.allow=always",
        ])
        .args(args)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.org")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.org")
        .env("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Write `files` into `dir` and commit them; returns the commit id.
pub fn commit(dir: &Path, files: &[(&str, &str)], message: &str) -> String {
    for (p, c) in files {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, c).unwrap();
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}
