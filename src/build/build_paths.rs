//! Paths of the build that installed files must not keep.
//!
//! A build runs its tools through two private directories: the compiler
//! wrappers (`<build>/wrap/cc`, …) and the host tools (`<stage>/tools/sed`,
//! …, see [`super::host_tools`]). Configure scripts record the absolute
//! paths they found — libtool's `SED="<stage>/tools/sed"`, gmp.h's
//! `__GMP_CC`, perl's `Config_heavy.pl` — and those paths vanish with the
//! stage: an installed `libtoolize` then fails in every later build.
//!
//! After the install, every installed text file (not ELF, no NUL byte)
//! has these paths replaced by what they stand for: a host tool by the
//! program its link points to (`/usr/bin/sed`), a wrapper by the real
//! compiler it calls (the stack's gcc, by its path under the mount point).
//! Whatever still names the build directory afterwards is reported (the
//! log lists it); binaries are left alone, since a replacement would change
//! their length.
//!
//! One file is removed instead: pip's `<name>.dist-info/direct_url.json`
//! (PEP 610) when it records an install from a file in the build directory
//! (the staged wheel or source tree). That URL names nothing once the stage
//! is gone, and a rebuild in another build directory would install other
//! bytes; without it the package is an ordinary install of its version
//! (`pip freeze` prints `name==version`), as uv's `--no-installer-metadata`
//! leaves it. Its line in the `RECORD` beside it goes too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::bytes::{Captures, Regex};

use super::env::{RealTools, StageDirs};
use super::error::PackageError;
use super::relocate::with_write_permission;
use super::wrapper::{Lang, WRAPPER_NAMES};
use crate::store::walk_prefix;

/// The replacements for one package's build: `<dir>/<name>` → target, per
/// private directory (the pattern of `<dir>/<name>` compiled once).
#[derive(Clone, Debug, Default)]
pub struct BuildPaths {
    dirs: Vec<(Regex, BTreeMap<String, PathBuf>)>,
    /// Paths that must not appear in installed files (checked after the
    /// replacements).
    forbidden: Vec<PathBuf>,
}

/// What [`scrub`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scrubbed {
    /// Files rewritten.
    pub files: usize,
    /// Text files that still name a build path (relative to the prefix).
    pub remaining: Vec<PathBuf>,
}

impl BuildPaths {
    /// The replacements for a stage: its host tools (links in
    /// `stage.tools`) and the wrapper names with the real programs of `real`.
    pub fn new(stage: &StageDirs, real: &RealTools, build_dir: &Path) -> std::io::Result<Self> {
        let mut tools = BTreeMap::new();
        if stage.tools.is_dir() {
            for e in fs_err::read_dir(&stage.tools)? {
                let e = e?;
                if let Ok(target) = fs_err::read_link(e.path()) {
                    tools.insert(e.file_name().to_string_lossy().into_owned(), target);
                }
            }
        }
        let mut wrappers = BTreeMap::new();
        for (name, lang) in WRAPPER_NAMES {
            let program = match lang {
                Lang::C => Some(&real.cc),
                Lang::Cxx => real.cxx.as_ref(),
                Lang::Fortran => real.fc.as_ref(),
                Lang::Ld => real.ld.as_ref(),
                Lang::Cuda => None,
            };
            if let Some(p) = program {
                wrappers.insert((*name).to_string(), p.clone());
            }
        }
        Ok(BuildPaths {
            dirs: vec![(entry(&stage.tools), tools), (entry(&stage.wrap), wrappers)],
            forbidden: vec![stage.root.clone(), build_dir.to_path_buf()],
        })
    }

    /// `text` with the replacements made (`None`: nothing to replace).
    pub fn replace(&self, text: &[u8]) -> Option<Vec<u8>> {
        let mut out: Option<Vec<u8>> = None;
        for (re, names) in &self.dirs {
            let cur = out.as_deref().unwrap_or(text);
            if !re.is_match(cur) {
                continue;
            }
            let replaced = re.replace_all(cur, |c: &Captures<'_>| {
                let name = String::from_utf8_lossy(&c[1]).into_owned();
                match names.get(&name) {
                    Some(t) => t.as_os_str().as_encoded_bytes().to_vec(),
                    None => c[0].to_vec(),
                }
            });
            if replaced.as_ref() != cur {
                out = Some(replaced.into_owned());
            }
        }
        out
    }

    fn mentions_forbidden(&self, text: &[u8]) -> bool {
        self.forbidden
            .iter()
            .any(|p| memchr::memmem::find(text, p.as_os_str().as_encoded_bytes()).is_some())
    }
}

/// The pattern of a program's path in `dir`: the directory, then a path
/// component (what a shell word or a C string can hold).
fn entry(dir: &Path) -> Regex {
    let d = regex::escape(&dir.to_string_lossy());
    Regex::new(&format!(r"{d}/([A-Za-z0-9_.+\[-]+)")).expect("an escaped path and a fixed class")
}

/// Replace the build's private paths in every installed text file below
/// `host_prefix`; report the files that still name the build directory.
pub fn scrub(host_prefix: &Path, paths: &BuildPaths) -> Result<Scrubbed, PackageError> {
    let mut done = Scrubbed::default();
    for e in walk_prefix(host_prefix) {
        let e = e.map_err(std::io::Error::other)?;
        if !e.file_type().is_file() {
            continue;
        }
        let text = fs_err::read(e.path())?;
        if text.starts_with(b"\x7fELF") || memchr::memchr(0, &text).is_some() {
            continue;
        }
        let rel = e.path().strip_prefix(host_prefix).unwrap_or(e.path());
        if is_local_direct_url(e.path(), &text, paths) {
            drop_direct_url(e.path())?;
            done.files += 1;
            continue;
        }
        let now = match paths.replace(&text) {
            Some(new) => {
                with_write_permission(e.path(), || Ok(fs_err::write(e.path(), &new)?))?;
                done.files += 1;
                new
            }
            None => text,
        };
        if paths.mentions_forbidden(&now) {
            done.remaining.push(rel.to_path_buf());
        }
    }
    Ok(done)
}

/// Whether `path` is pip's `direct_url.json` of an install from a file in
/// the build directory.
fn is_local_direct_url(path: &Path, text: &[u8], paths: &BuildPaths) -> bool {
    let in_dist_info = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d.to_string_lossy().ends_with(".dist-info"));
    in_dist_info
        && path.file_name().is_some_and(|n| n == "direct_url.json")
        && paths.mentions_forbidden(text)
        && serde_json::from_slice::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v.get("url")?.as_str().map(|u| u.starts_with("file://")))
            .unwrap_or(false)
}

/// Remove `direct_url.json` and its line from the `RECORD` beside it.
fn drop_direct_url(path: &Path) -> Result<(), PackageError> {
    let dir = path.parent().expect("a file in a .dist-info directory");
    with_write_permission(dir, || Ok(fs_err::remove_file(path)?))?;
    let record = dir.join("RECORD");
    if let Ok(text) = fs_err::read_to_string(&record) {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        let entry = format!("{name}/direct_url.json,");
        let kept: String = text
            .split_inclusive('\n')
            .filter(|l| !l.starts_with(&entry))
            .collect();
        if kept != text {
            with_write_permission(&record, || Ok(fs_err::write(&record, &kept)?))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn setup(d: &Path) -> (StageDirs, RealTools) {
        let stage = StageDirs::new(d.join("stage/p-1"), false, d.join("wrap"));
        fs_err::create_dir_all(&stage.tools).unwrap();
        std::os::unix::fs::symlink("/usr/bin/sed", stage.tools.join("sed")).unwrap();
        std::os::unix::fs::symlink("/usr/bin/grep", stage.tools.join("grep")).unwrap();
        let real = RealTools {
            cc: "/opt/stack/gcc-14/bin/gcc".into(),
            cxx: Some("/opt/stack/gcc-14/bin/g++".into()),
            fc: None,
            ld: Some("/usr/bin/ld".into()),
        };
        (stage, real)
    }

    #[test]
    fn tools_and_wrappers_become_the_programs_they_stand_for() {
        let d = tempfile::tempdir().unwrap();
        let (stage, real) = setup(d.path());
        let p = BuildPaths::new(&stage, &real, d.path()).unwrap();
        let t = stage.tools.display().to_string();
        let w = stage.wrap.display().to_string();
        let text = format!(
            "SED=\"{t}/sed\"\nEGREP=\"{t}/grep -E\"\nLTCC=\"{w}/cc\"\nCXX={w}/g++ -O2\nFC={w}/gfortran\nX={t}/sedx\n"
        );
        let out = String::from_utf8(p.replace(text.as_bytes()).unwrap()).unwrap();
        assert_eq!(
            out,
            format!(
                "SED=\"/usr/bin/sed\"\nEGREP=\"/usr/bin/grep -E\"\nLTCC=\"/opt/stack/gcc-14/bin/gcc\"\n\
                 CXX=/opt/stack/gcc-14/bin/g++ -O2\nFC={w}/gfortran\nX={t}/sedx\n"
            )
        );
        assert!(p.replace(b"nothing here").is_none());
    }

    #[test]
    fn scrub_rewrites_text_files_keeps_modes_and_names_what_remains() {
        let d = tempfile::tempdir().unwrap();
        let (stage, real) = setup(d.path());
        let p = BuildPaths::new(&stage, &real, d.path()).unwrap();
        let prefix = d.path().join("prefix");
        fs_err::create_dir_all(prefix.join("bin")).unwrap();
        let t = stage.tools.display().to_string();
        let tool = prefix.join("bin/libtoolize");
        fs_err::write(&tool, format!("#!/bin/sh\nSED={t}/sed\n")).unwrap();
        fs_err::set_permissions(&tool, std::fs::Permissions::from_mode(0o555)).unwrap();
        let left = prefix.join("bin/left");
        fs_err::write(&left, format!("SRC={}/src\n", stage.root.display())).unwrap();
        let elf = prefix.join("bin/prog");
        fs_err::write(&elf, format!("\x7fELF\0{t}/sed")).unwrap();

        let s = scrub(&prefix, &p).unwrap();
        assert_eq!(s.files, 1);
        assert_eq!(s.remaining, vec![PathBuf::from("bin/left")]);
        assert_eq!(
            fs_err::read_to_string(&tool).unwrap(),
            "#!/bin/sh\nSED=/usr/bin/sed\n"
        );
        let mode = fs_err::metadata(&tool).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o555);
        assert!(
            fs_err::read(&elf)
                .unwrap()
                .ends_with(format!("{t}/sed").as_bytes())
        );
    }

    #[test]
    fn pips_record_of_a_staged_wheel_is_removed_and_other_urls_stay() {
        let d = tempfile::tempdir().unwrap();
        let (stage, real) = setup(d.path());
        let p = BuildPaths::new(&stage, &real, d.path()).unwrap();
        let prefix = d.path().join("prefix");
        let info = prefix.join("lib/python3.13/site-packages/pip-26.1.dist-info");
        fs_err::create_dir_all(&info).unwrap();
        let wheel = stage.root.join("src/pip-26.1-py3-none-any.whl");
        fs_err::write(
            info.join("direct_url.json"),
            format!(
                r#"{{"archive_info": {{}}, "url": "file://{}"}}"#,
                wheel.display()
            ),
        )
        .unwrap();
        fs_err::write(
            info.join("RECORD"),
            "pip/__init__.py,sha256=x,1\npip-26.1.dist-info/direct_url.json,sha256=y,2\npip-26.1.dist-info/RECORD,,\n",
        )
        .unwrap();
        // an install from a real URL records what it came from: kept
        let other = prefix.join("lib/python3.13/site-packages/w-1.dist-info");
        fs_err::create_dir_all(&other).unwrap();
        let remote = r#"{"url": "https://example.org/w-1.tar.gz"}"#;
        fs_err::write(other.join("direct_url.json"), remote).unwrap();

        let s = scrub(&prefix, &p).unwrap();
        assert!(s.remaining.is_empty(), "{s:?}");
        assert!(!info.join("direct_url.json").exists());
        assert_eq!(
            fs_err::read_to_string(info.join("RECORD")).unwrap(),
            "pip/__init__.py,sha256=x,1\npip-26.1.dist-info/RECORD,,\n"
        );
        assert_eq!(
            fs_err::read_to_string(other.join("direct_url.json")).unwrap(),
            remote
        );
    }
}
