//! Shared helpers of the audit tests: build tiny C libraries and programs
//! with the real gcc in a temporary directory, run the real `ldd` and
//! `stack ldd`, and normalise their output.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub const STACK: &str = env!("CARGO_BIN_EXE_stack");

/// A temporary directory holding one linkage case.
pub struct Case {
    pub dir: tempfile::TempDir,
}

fn run(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

impl Case {
    pub fn new() -> Case {
        let dir = tempfile::Builder::new()
            .prefix("stack-audit-")
            .tempdir()
            .unwrap();
        std::fs::create_dir_all(dir.path().join("b")).unwrap();
        Case { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn p(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Path as a string.
    pub fn s(&self, rel: &str) -> String {
        self.p(rel).to_string_lossy().into_owned()
    }

    fn gcc(&self, args: &[String]) {
        run(Command::new("gcc").current_dir(self.root()).args(args));
    }

    fn source(&self, name: &str, body: &str) -> String {
        let src = self.p(&format!("b/{name}.c"));
        std::fs::write(&src, body).unwrap();
        src.to_string_lossy().into_owned()
    }

    /// Builds `b/lib<name>.so` (soname `lib<name>.so` unless `flags` set
    /// one) needing `deps` (each `lib<dep>.so` from `b/`).
    pub fn lib(&self, name: &str, deps: &[&str], flags: &[&str]) -> PathBuf {
        let src = self.source(
            &format!("lib{name}"),
            &format!("int f_{name}(void) {{ return 1; }}\n"),
        );
        let out = self.p(&format!("b/lib{name}.so"));
        let mut args: Vec<String> = vec![
            "-shared".into(),
            "-fPIC".into(),
            "-o".into(),
            out.to_string_lossy().into_owned(),
            src,
        ];
        if !flags.iter().any(|f| f.contains("-soname")) {
            args.push(format!("-Wl,-soname,lib{name}.so"));
        }
        args.push("-Wl,--no-as-needed".into());
        args.push(format!("-L{}", self.s("b")));
        args.extend(deps.iter().map(|d| format!("-l{d}")));
        args.extend(flags.iter().map(|s| s.to_string()));
        self.gcc(&args);
        out
    }

    /// Builds the program `rel` needing `deps` from `b/`.
    pub fn exe(&self, rel: &str, deps: &[&str], flags: &[&str]) -> PathBuf {
        let src = self.source("main", "int main(void) { return 0; }\n");
        let out = self.p(rel);
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        let mut args: Vec<String> = vec!["-o".into(), out.to_string_lossy().into_owned(), src];
        args.push("-Wl,--no-as-needed".into());
        args.push(format!("-L{}", self.s("b")));
        args.extend(deps.iter().map(|d| format!("-l{d}")));
        args.extend(flags.iter().map(|s| s.to_string()));
        self.gcc(&args);
        out
    }

    /// Raw gcc invocation in the case directory.
    pub fn gcc_raw(&self, args: &[&str]) {
        self.gcc(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    }

    /// Copies `b/<file>` to `<dir>/<file>` (creating `dir`).
    pub fn put(&self, file: &str, dir: &str) -> PathBuf {
        let to = self.p(dir).join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(self.p(&format!("b/{file}")), &to).unwrap();
        to
    }

    /// Removes the build directory so nothing is found there by accident.
    pub fn done(&self) {
        let _ = std::fs::remove_dir_all(self.p("b"));
    }

    /// `patchelf ARGS FILE`.
    pub fn patchelf(&self, args: &[&str], file: &Path) {
        run(Command::new("patchelf").args(args).arg(file));
    }
}

/// `ldd FILE` in `cwd` (no LD_LIBRARY_PATH unless given), normalised: load
/// addresses and the vDSO line removed. Returns (lines, success).
pub fn ldd(file: &Path, cwd: &Path, llp: Option<&str>) -> (Vec<String>, bool) {
    let mut cmd = Command::new("ldd");
    cmd.arg(file)
        .current_dir(cwd)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("LD_PRELOAD");
    if let Some(l) = llp {
        cmd.env("LD_LIBRARY_PATH", l);
    }
    let out = cmd.output().expect("ldd");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (normalise_ldd(&text), out.status.success())
}

pub fn normalise_ldd(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.contains("linux-vdso.so"))
        .map(|l| {
            let l = l.trim_end();
            match l.rfind(" (0x") {
                Some(i) if l.ends_with(')') => l[..i].to_string(),
                _ => l.to_string(),
            }
        })
        .filter(|l| !l.is_empty())
        .collect()
}

/// Every regular ELF file below `dirs` (by magic number), sorted: the host
/// corpus of the whole-system check and the audit benchmark.
pub fn elf_files(dirs: &[impl AsRef<Path>]) -> Vec<PathBuf> {
    use std::io::Read;
    let mut out = Vec::new();
    for d in dirs {
        for e in walkdir::WalkDir::new(d).into_iter().flatten() {
            if !e.file_type().is_file() {
                continue;
            }
            let mut m = [0u8; 4];
            let ok = std::fs::File::open(e.path())
                .and_then(|mut f| f.read_exact(&mut m))
                .is_ok();
            if ok && &m == b"\x7fELF" {
                out.push(e.path().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// `stack ldd FILE [extra…]` in `cwd`. Returns (lines, success).
pub fn stack_ldd(file: &Path, cwd: &Path, extra: &[&str]) -> (Vec<String>, bool) {
    let out = Command::new(STACK)
        .arg("ldd")
        .arg(file)
        .args(extra)
        .current_dir(cwd)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("stack ldd");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (normalise_ldd(&text), out.status.success())
}

/// Runs `stack ldd` and `ldd` on `file` and asserts they agree; returns
/// the lines.
pub fn agree(file: &Path, cwd: &Path) -> Vec<String> {
    agree_llp(file, cwd, None)
}

pub fn agree_llp(file: &Path, cwd: &Path, llp: Option<&str>) -> Vec<String> {
    let (real, real_ok) = ldd(file, cwd, llp);
    let extra: Vec<&str> = match llp {
        Some(l) => vec!["--ld-library-path", l],
        None => vec![],
    };
    let (ours, ours_ok) = stack_ldd(file, cwd, &extra);
    assert_eq!(
        ours,
        real,
        "stack ldd and ldd disagree on {}",
        file.display()
    );
    assert_eq!(
        ours_ok,
        real_ok,
        "exit status differs on {}",
        file.display()
    );
    ours
}

/// Whether `lines` has `NAME => PATH` (PATH may be `not found`).
pub fn has(lines: &[String], name: &str, path: &str) -> bool {
    lines
        .iter()
        .any(|l| l.trim() == format!("{name} => {path}"))
}
