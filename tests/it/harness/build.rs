//! Shared helpers: job builders for the fixture projects, ELF checks with
//! `readelf -d`, running installed programs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};
use stack::build::*;

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/build")
        .join(name)
}

pub fn hash_of(name: &str, version: &str, extra: &str) -> String {
    hex::encode(Sha256::digest(format!("v1|{name}|{version}|{extra}")))
}

/// A job with the fixture `source` (a path) installing below `mount`.
pub fn job(mount: &Path, name: &str, source: PathBuf, system: BuildSystem) -> BuildJob {
    let version = "1.0".to_string();
    let hash = hash_of(name, &version, &source.display().to_string());
    let prefix = mount.join(format!("{name}-{version}-{}", &hash[..8]));
    BuildJob {
        name: name.into(),
        spec: format!("{name}@{version}"),
        version,
        hash,
        prefix,
        source_dir: source,
        system,
        dep_env: Vec::new(),
        build_env: Vec::new(),
        steps: Steps::default(),
        filters: Vec::new(),
        relocate: None,
        deps: Vec::new(),
        host_libraries: Vec::new(),
        compiler: CompilerPaths::default(),
        cost: None,
        patches: Vec::new(),
        recipe: None,
    }
}

pub fn dep(on: &BuildJob, kind: DepKind) -> DepPrefix {
    DepPrefix {
        name: on.name.clone(),
        hash: on.hash.clone(),
        prefix: on.prefix.clone(),
        kind,
        executables: Vec::new(),
    }
}

/// A build tool of the host (`/usr`), as the pipeline passes an external
/// build dependency: only `exes` of `/usr/bin` go on the build PATH.
pub fn host_tool(name: &str, exes: &[&str]) -> DepPrefix {
    DepPrefix {
        name: name.into(),
        hash: hash_of(name, "host", "/usr"),
        prefix: "/usr".into(),
        kind: DepKind::Build,
        executables: exes.iter().map(|e| e.to_string()).collect(),
    }
}

/// The autotools a job with `autoreconf: true` declares.
pub fn autotools_deps() -> Vec<DepPrefix> {
    vec![
        host_tool(
            "autoconf",
            &["autoconf", "autoheader", "autom4te", "autoreconf"],
        ),
        host_tool(
            "automake",
            &["automake", "aclocal", "automake-*", "aclocal-*"],
        ),
        host_tool("libtool", &["libtool", "libtoolize"]),
        host_tool("m4", &["m4"]),
        host_tool("perl", &["perl"]),
    ]
}

/// Options for a test build: the real `stack-wrap` binary as wrapper, -j2.
pub fn options(build: &Path, mount: &Path, mode: MountMode) -> BuildOptions {
    let mut o = BuildOptions::new(build);
    o.mount = mount.to_path_buf();
    o.mount_mode = mode;
    o.jobs = 2;
    o.wrapper_exe = Some(PathBuf::from(env!("CARGO_BIN_EXE_stack-wrap")));
    o.wrapper_log = true;
    o
}

pub fn autotools_calc(mount: &Path) -> BuildJob {
    let mut j = job(
        mount,
        "libcalc",
        fixture("libcalc"),
        BuildSystem::new("autotools")
            .with("autoreconf", true)
            .with("configure_args", vec!["--disable-static".to_string()]),
    );
    j.deps = autotools_deps();
    j
}

pub fn makefile_calc(mount: &Path) -> BuildJob {
    let mut j = job(
        mount,
        "calcmk",
        fixture("calcmk"),
        BuildSystem::new("makefile"),
    );
    let prefix = j.prefix.display().to_string();
    j.system
        .settings
        .set("make_args", vec![format!("PREFIX={prefix}")]);
    j
}

pub fn cmake_greet(mount: &Path, calc: &BuildJob) -> BuildJob {
    let mut j = job(mount, "greet", fixture("greet"), BuildSystem::new("cmake"));
    j.hash = hash_of("greet", "1.0", &calc.hash);
    j.prefix = mount.join(format!("greet-1.0-{}", &j.hash[..8]));
    j.deps = vec![dep(calc, DepKind::Link)];
    j
}

pub fn meson_hello(mount: &Path, calc: &BuildJob, greet: &BuildJob) -> BuildJob {
    let mut j = job(mount, "hello", fixture("hello"), BuildSystem::new("meson"));
    j.deps = vec![
        dep(calc, DepKind::Link),
        dep(greet, DepKind::Link),
        host_tool("pkgconf", &["pkgconf", "pkg-config"]),
    ];
    j
}

pub fn makefile_mktool(mount: &Path, calc: &BuildJob) -> BuildJob {
    let mut j = job(
        mount,
        "mktool",
        fixture("mktool"),
        BuildSystem {
            install: vec![
                InstallStep::Copy {
                    from: "libmk.so*".into(),
                    to: "lib".into(),
                },
                InstallStep::Copy {
                    from: "mktool".into(),
                    to: "bin".into(),
                },
                InstallStep::Copy {
                    from: "mk.h".into(),
                    to: "include".into(),
                },
                InstallStep::Symlink {
                    target: "mktool".into(),
                    at: "bin/mk".into(),
                },
            ],
            ..BuildSystem::new("makefile").with("install_targets", Vec::<String>::new())
        },
    );
    j.hash = hash_of("mktool", "1.0", &calc.hash);
    j.prefix = mount.join(format!("mktool-1.0-{}", &j.hash[..8]));
    j.deps = vec![dep(calc, DepKind::Link)];
    j
}

pub fn generic_headers(mount: &Path) -> BuildJob {
    job(
        mount,
        "headers",
        fixture("headers"),
        BuildSystem::new("generic"),
    )
}

/// A prebuilt tree (as a vendor tarball would unpack): `lib/libbin.so.1`
/// and `bin/bintool` linked against a stub `libcalc.so.1` with a bogus
/// build-machine RPATH, plus `bin/bin-config` and `lib/pkgconfig/bin.pc`
/// holding `@@PREFIX@@`.
pub fn make_prebuilt(dir: &Path) -> PathBuf {
    let stub = dir.join("stub");
    let tree = dir.join("prebuilt");
    for d in [
        stub.as_path(),
        &tree.join("lib/pkgconfig"),
        &tree.join("bin"),
        &tree.join("include"),
    ] {
        fs_err::create_dir_all(d).unwrap();
    }
    fs_err::write(
        stub.join("calc.c"),
        "int calc_add(int a, int b) { return 0; }\n",
    )
    .unwrap();
    run(Command::new("gcc")
        .args(["-shared", "-fPIC", "-Wl,-soname,libcalc.so.1", "-o"])
        .arg(stub.join("libcalc.so.1"))
        .arg(stub.join("calc.c")));
    fs_err::write(
        dir.join("bin.c"),
        "int calc_add(int, int);\nint bin_value(void) { return calc_add(20, 22); }\n",
    )
    .unwrap();
    fs_err::write(
        dir.join("bintool.c"),
        "#include <stdio.h>\nint bin_value(void);\nint main(void) { printf(\"bin %d\\n\", bin_value()); return 0; }\n",
    )
    .unwrap();
    run(Command::new("gcc")
        .args([
            "-shared",
            "-fPIC",
            "-Wl,-soname,libbin.so.1",
            "-Wl,-rpath,/vendor/build/lib",
            "-o",
        ])
        .arg(tree.join("lib/libbin.so.1"))
        .arg(dir.join("bin.c"))
        .arg(stub.join("libcalc.so.1")));
    std::os::unix::fs::symlink("libbin.so.1", tree.join("lib/libbin.so")).unwrap();
    run(Command::new("gcc")
        .args(["-Wl,-rpath,/vendor/build/lib", "-o"])
        .arg(tree.join("bin/bintool"))
        .arg(dir.join("bintool.c"))
        .arg(tree.join("lib/libbin.so.1"))
        .arg(stub.join("libcalc.so.1")));
    fs_err::write(
        tree.join("bin/bin-config"),
        "#!/bin/sh\necho @@PREFIX@@ @@CC@@\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs_err::set_permissions(
        tree.join("bin/bin-config"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    fs_err::write(
        tree.join("lib/pkgconfig/bin.pc"),
        "prefix=@@PREFIX@@\nlibdir=${prefix}/lib\nName: bin\nDescription: x\nVersion: 1\nLibs: -L${libdir} -lbin\n",
    )
    .unwrap();
    fs_err::write(tree.join("include/bin.h"), "int bin_value(void);\n").unwrap();
    tree
}

pub fn binary_bin(mount: &Path, tree: PathBuf, calc: &BuildJob) -> BuildJob {
    let mut j = job(mount, "bin", tree, BuildSystem::new("binary"));
    let prefix = j.prefix.display().to_string();
    j.deps = vec![dep(calc, DepKind::Link)];
    j.relocate = Some(Relocation {
        rpath: vec![calc.prefix.join("lib"), calc.prefix.join("lib64")],
        needed: vec![AddNeeded {
            files: "lib/libbin.so.*".into(),
            add: vec!["libm.so.6".into()],
        }],
        placeholders: BTreeMap::from([
            ("@@PREFIX@@".to_string(), prefix),
            ("@@CC@@".to_string(), "gcc".to_string()),
        ]),
    });
    j
}

pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Run an installed program with an empty environment (no LD_LIBRARY_PATH).
pub fn run_clean(program: &Path) -> String {
    run(Command::new(program).env_clear())
}

/// What `readelf -d` says about a file: NEEDED, RPATH, RUNPATH.
#[derive(Debug, Default)]
pub struct Dynamic {
    pub needed: Vec<String>,
    pub rpath: Vec<String>,
    pub runpath: Vec<String>,
}

pub fn readelf(path: &Path) -> Option<Dynamic> {
    let out = Command::new("readelf")
        .arg("-dW")
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    if !text.contains("Dynamic section") {
        return None;
    }
    let mut d = Dynamic::default();
    for line in text.lines() {
        let value = || {
            let s = line.find('[')? + 1;
            let e = line.rfind(']')?;
            Some(line[s..e].to_string())
        };
        if line.contains("(NEEDED)") {
            d.needed.extend(value());
        } else if line.contains("(RPATH)") {
            d.rpath = value()
                .unwrap_or_default()
                .split(':')
                .map(String::from)
                .collect();
        } else if line.contains("(RUNPATH)") {
            d.runpath = value()
                .unwrap_or_default()
                .split(':')
                .map(String::from)
                .collect();
        }
    }
    Some(d)
}

pub fn is_elf(path: &Path) -> bool {
    use std::io::Read;
    let mut m = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut m))
        .is_ok()
        && &m == b"\x7fELF"
}

/// Every dynamic ELF file under `host_root` (the store as the host sees
/// it; `mount` is what its RPATHs say) must find each library that the
/// store provides through its own RPATH, inside the store — and every other
/// library must be a system library. Returns the files checked.
pub fn assert_self_contained(host_root: &Path, mount: &Path) -> Vec<PathBuf> {
    let mut provided: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    let mut elves = Vec::new();
    for e in walkdir::WalkDir::new(host_root).into_iter().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.contains(".so") {
            provided
                .entry(name)
                .or_default()
                .push(e.path().to_path_buf());
        }
        if e.file_type().is_file() && is_elf(e.path()) {
            elves.push(e.path().to_path_buf());
        }
    }
    let system_dirs = [
        "/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu",
        "/lib64",
        "/usr/lib64",
        "/lib",
        "/usr/lib",
        "/lib/aarch64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
    ];
    let mut checked = Vec::new();
    for f in elves {
        let Some(d) = readelf(&f) else { continue };
        if d.needed.is_empty() {
            continue;
        }
        assert!(
            d.runpath.is_empty(),
            "{}: RUNPATH instead of RPATH: {:?}",
            f.display(),
            d.runpath
        );
        let origin = f.parent().unwrap();
        let dirs: Vec<PathBuf> = d
            .rpath
            .iter()
            .filter(|r| !r.is_empty())
            .map(|r| {
                if let Some(rest) = r.strip_prefix("$ORIGIN") {
                    PathBuf::from(format!("{}{rest}", origin.display()))
                } else {
                    let p = PathBuf::from(r);
                    match p.strip_prefix(mount) {
                        Ok(rel) => host_root.join(rel),
                        Err(_) => p,
                    }
                }
            })
            .collect();
        for lib in &d.needed {
            if provided.contains_key(lib) {
                let hit = dirs.iter().map(|d| d.join(lib)).find(|p| p.exists());
                let hit = hit.unwrap_or_else(|| {
                    panic!(
                        "{}: NEEDED {lib} is in the store but not reachable through RPATH {:?}",
                        f.display(),
                        d.rpath
                    )
                });
                assert!(
                    hit.starts_with(host_root),
                    "{}: {lib} resolves outside the store",
                    f.display()
                );
            } else {
                assert!(
                    system_dirs.iter().any(|s| Path::new(s).join(lib).exists()),
                    "{}: NEEDED {lib} is neither in the store nor a system library",
                    f.display()
                );
            }
        }
        for r in &d.rpath {
            assert!(
                r.is_empty() || r.starts_with("$ORIGIN") || Path::new(r).starts_with(mount),
                "{}: RPATH entry {r} points outside the mount point",
                f.display()
            );
        }
        checked.push(f);
    }
    checked
}

/// A reporter that records events, for assertions.
#[derive(Default)]
pub struct Recorder {
    pub events: std::cell::RefCell<Vec<String>>,
}

impl BuildReporter for Recorder {
    fn waiting_for_lock(&self, lock: &Path) {
        self.events
            .borrow_mut()
            .push(format!("waiting {}", lock.display()));
    }
    fn planned(&self, total: usize, to_build: usize) {
        self.events
            .borrow_mut()
            .push(format!("planned {to_build}/{total}"));
    }
    fn reused(&self, _id: JobId, name: &str) {
        self.events.borrow_mut().push(format!("reused {name}"));
    }
    fn started(&self, _id: JobId, name: &str) {
        self.events.borrow_mut().push(format!("started {name}"));
    }
    fn phase(&self, _id: JobId, name: &str, phase: Phase) {
        self.events
            .borrow_mut()
            .push(format!("phase {name} {phase}"));
    }
    fn finished(&self, _id: JobId, report: &PackageReport) {
        self.events
            .borrow_mut()
            .push(format!("finished {}", report.name));
    }
    fn skipped(&self, _id: JobId, name: &str, because: &str) {
        self.events
            .borrow_mut()
            .push(format!("skipped {name} because {because}"));
    }
}

/// Panic with the failure details of a summary.
pub fn assert_success(summary: &BuildSummary) {
    for p in &summary.packages {
        if let PackageStatus::Failed {
            phase,
            message,
            log_tail,
        } = &p.status
        {
            panic!(
                "{} failed in {phase}: {message}\nlog {}:\n{}",
                p.name,
                p.log.as_ref().unwrap().display(),
                log_tail.join("\n")
            );
        }
    }
    assert!(summary.success(), "{:#?}", summary.packages);
}

/// The manifests of all prefixes below `host_root`, keyed by prefix name.
pub fn manifests(host_root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in fs_err::read_dir(host_root).unwrap() {
        let e = e.unwrap();
        let m = e.path().join(".stack/manifest.json");
        let text = fs_err::read_to_string(&m).unwrap_or_else(|_| "<missing>".into());
        out.insert(e.file_name().to_string_lossy().into_owned(), text);
    }
    out
}
