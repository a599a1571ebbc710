//! CMake's `find_program`/`find_library` do not reach the host's `/usr`
//! unless a dependency declares it (issue 19); `find_path` searches the
//! compiler's default include directories (glibc's headers: Kokkos needs
//! `dlfcn.h`). The fixture `hostfind` looks for perl (only in /usr/bin),
//! zlib and zlib.h (only in /usr), glibc's libm and dlfcn.h.

use std::path::Path;

use stack::build::*;

use crate::harness::build::*;

/// Builds `hostfind` with `deps`; what its find_* calls found.
fn found(deps: Vec<DepPrefix>) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let mut j = job(
        &mount,
        "hostfind",
        fixture("hostfind"),
        BuildSystem::new("cmake"),
    );
    j.deps = deps;
    let prefix = j.prefix.clone();
    build_alone(tmp.path(), &mount, j);
    fs_err::read_to_string(prefix.join("share/found.txt")).unwrap()
}

/// Builds `j` alone into `mount` (direct), in the build directory
/// `<tmp>/build`, which is returned.
fn build_alone(tmp: &Path, mount: &Path, j: BuildJob) -> std::path::PathBuf {
    let mut g = BuildGraph::new();
    g.add(j);
    let build = tmp.join("build");
    let opts = options(&build, mount, MountMode::Direct);
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    assert_success(&summary);
    build
}

fn value<'a>(found: &'a str, key: &str) -> &'a str {
    found
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("{key} in {found}"))
}

#[test]
fn cmake_finds_nothing_of_usr_that_is_not_declared() {
    assert!(Path::new("/usr/bin/perl").exists() && Path::new("/usr/include/zlib.h").exists());
    let f = found(Vec::new());
    assert_eq!(value(&f, "perl"), "HOST_PERL-NOTFOUND", "{f}");
    assert_eq!(value(&f, "z"), "HOST_Z-NOTFOUND", "{f}");
    // glibc's libraries stay findable: a symlink in the stage.
    assert!(value(&f, "m").ends_with("/host-libc/libm.so"), "{f}");
    // Headers where the compiler finds them: glibc's (the compiler's default
    // include directory, which CMake leaves out of compile lines); a host
    // library's header there is of no use while the library is out of reach.
    assert_eq!(value(&f, "dlfcn.h"), "/usr/include", "{f}");
    assert_eq!(value(&f, "zlib.h"), "/usr/include", "{f}");
}

#[test]
fn cmake_finds_the_usr_externals_a_recipe_declares() {
    let mut zlib = host_tool("zlib", &[]);
    zlib.kind = DepKind::Link;
    let f = found(vec![host_tool("perl", &["perl"]), zlib]);
    // perl through the stage's tools directory (the declared executable),
    // recorded in the installed file as the program that link points to.
    assert_eq!(value(&f, "perl"), "/usr/bin/perl", "{f}");
    assert!(value(&f, "z").starts_with("/usr/lib"), "{f}");
    assert!(value(&f, "z").ends_with("/libz.so"), "{f}");
    assert_eq!(value(&f, "zlib.h"), "/usr/include", "{f}");
}

#[test]
fn a_dependencys_header_is_found_before_the_hosts() {
    // A dependency that installs zlib.h and libz.so, as the host does: its
    // prefix is searched before the compiler's default include directories
    // (netcdf-c's FindBz2 found the host's bzlib.h first and took the
    // library beside it).
    let dep_root = tempfile::tempdir().unwrap();
    let prefix = dep_root.path().join("zlib-1.0-abc");
    fs_err::create_dir_all(prefix.join("include")).unwrap();
    fs_err::create_dir_all(prefix.join("lib")).unwrap();
    fs_err::write(
        prefix.join("include/zlib.h"),
        "/* a dependency's zlib.h */\n",
    )
    .unwrap();
    fs_err::write(prefix.join("lib/libz.so"), "").unwrap();
    let zlib = DepPrefix {
        name: "zlib".into(),
        hash: "abc".into(),
        prefix: prefix.clone(),
        kind: DepKind::Link,
        executables: Vec::new(),
    };
    let f = found(vec![zlib]);
    assert_eq!(
        value(&f, "zlib.h"),
        prefix.join("include").to_str().unwrap(),
        "{f}"
    );
    assert_eq!(
        value(&f, "z"),
        prefix.join("lib/libz.so").to_str().unwrap(),
        "{f}"
    );
}

#[test]
fn no_installed_rpath_names_the_build_directory() {
    // find_library(m) gives the stage's glibc link (host-libc/libm.so);
    // CMake's install RPATH then named that directory, which is gone with
    // the stage (netcdf-c's programs had it, and their build tree's).
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let j = job(&mount, "linkm", fixture("linkm"), BuildSystem::new("cmake"));
    let prefix = j.prefix.clone();
    let build = build_alone(tmp.path(), &mount, j);
    let program = prefix.join("bin/usem");
    let d = readelf(&program).unwrap();
    let entries: Vec<&String> = d.rpath.iter().chain(&d.runpath).collect();
    assert!(
        entries.iter().all(|e| !Path::new(e).starts_with(&build)),
        "an RPATH entry names the build directory {}: {entries:?}",
        build.display()
    );
    assert_eq!(run_clean(&program).trim(), "4.0");
}
