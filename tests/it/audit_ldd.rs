//! `stack ldd` against the real `ldd`, on programs and libraries built with
//! gcc for every rule of glibc's loader (docs/audit.md, reference §1) and the
//! edge cases other tools get wrong (§1.6). Where real execution and ldd
//! differ (symlinked program, set-uid program), `stack ldd` follows real
//! execution; those tests check that against an actual run.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::Command;

use crate::harness::audit::*;
use stack::audit::LoaderModel;

/// Rewrites the first dynamic entry with tag `from` to tag `to`.
fn retag(file: &Path, from: u64, to: u64) {
    let mut bytes = std::fs::read(file).unwrap();
    let elf = goblin::elf::Elf::parse(&bytes).unwrap();
    let ph = elf
        .program_headers
        .iter()
        .find(|p| p.p_type == goblin::elf::program_header::PT_DYNAMIC)
        .unwrap();
    let (off, n) = (ph.p_offset as usize, ph.p_filesz as usize / 16);
    drop(elf);
    for i in 0..n {
        let at = off + i * 16;
        let tag = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        if tag == from {
            bytes[at..at + 8].copy_from_slice(&to.to_le_bytes());
            std::fs::write(file, bytes).unwrap();
            return;
        }
    }
    panic!("tag {from} not found");
}

#[test]
fn runpath_is_not_inherited_rpath_is() {
    let c = Case::new();
    c.lib("B", &[], &[]);
    c.lib("A", &["B"], &[]);
    let d = c.s("d");
    c.exe(
        "runpath",
        &["A"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{d}")],
    );
    c.exe(
        "rpath",
        &["A"],
        &[&format!("-Wl,--disable-new-dtags,-rpath,{d}")],
    );
    c.put("libA.so", "d");
    c.put("libB.so", "d");
    c.done();
    let l = agree(&c.p("runpath"), c.root());
    assert!(has(&l, "libB.so", "not found"), "{l:?}");
    let l = agree(&c.p("rpath"), c.root());
    assert!(has(&l, "libB.so", &format!("{d}/libB.so")), "{l:?}");
}

#[test]
fn rpath_chain_continues_past_a_runpath_ancestor() {
    // exe RPATH d0 → A (RUNPATH d1) → B (no paths) → C, found in d0.
    let c = Case::new();
    let (d0, d1) = (c.s("d0"), c.s("d1"));
    c.lib("C", &[], &[]);
    c.lib("B", &["C"], &[]);
    c.lib(
        "A",
        &["B"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{d1}")],
    );
    c.exe(
        "app",
        &["A"],
        &[&format!("-Wl,--disable-new-dtags,-rpath,{d0}")],
    );
    c.put("libA.so", "d0");
    c.put("libB.so", "d1");
    c.put("libC.so", "d0");
    c.done();
    let l = agree(&c.p("app"), c.root());
    assert!(has(&l, "libC.so", &format!("{d0}/libC.so")), "{l:?}");
}

#[test]
fn runpath_of_the_loader_disables_the_programs_rpath() {
    let c = Case::new();
    let (d0, d1) = (c.s("d0"), c.s("d1"));
    c.lib("C", &[], &[]);
    c.lib(
        "A",
        &["C"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{d1}")],
    );
    c.exe(
        "app",
        &["A"],
        &[&format!("-Wl,--disable-new-dtags,-rpath,{d0}")],
    );
    c.put("libA.so", "d0");
    c.put("libC.so", "d0");
    c.done();
    let l = agree(&c.p("app"), c.root());
    assert!(has(&l, "libC.so", "not found"), "{l:?}");
}

#[test]
fn intermediate_rpaths_form_a_chain() {
    let c = Case::new();
    let (d1, d2) = (c.s("d1"), c.s("d2"));
    c.lib("C", &[], &[]);
    c.lib("B", &["C"], &[]);
    c.lib(
        "A",
        &["B"],
        &[&format!("-Wl,--disable-new-dtags,-rpath,{d2}")],
    );
    c.exe(
        "app",
        &["A"],
        &[&format!("-Wl,--disable-new-dtags,-rpath,{d1}")],
    );
    c.put("libA.so", "d1");
    c.put("libB.so", "d2");
    c.put("libC.so", "d2");
    c.done();
    let l = agree(&c.p("app"), c.root());
    assert!(has(&l, "libC.so", &format!("{d2}/libC.so")), "{l:?}");
}

#[test]
fn rpath_is_ignored_when_runpath_is_present() {
    // A has DT_RPATH d0 and DT_RUNPATH d1 (made by retagging its SONAME).
    let c = Case::new();
    let (d0, d1) = (c.s("d0"), c.s("d1"));
    c.lib("B", &[], &[]);
    let a = c.lib(
        "A",
        &["B"],
        &[
            &format!("-Wl,-soname,{d1}"),
            &format!("-Wl,--disable-new-dtags,-rpath,{d0}"),
        ],
    );
    retag(&a, 14, 29); // DT_SONAME → DT_RUNPATH
    c.exe(
        "app",
        &["A"],
        &[&format!("-Wl,--disable-new-dtags,-rpath,{d0}")],
    );
    c.put("libA.so", "d0");
    c.put("libB.so", "d0");
    c.done();
    let l = agree(&c.p("app"), c.root());
    assert!(has(&l, "libB.so", "not found"), "{l:?}");
    std::fs::create_dir_all(c.p("d1")).unwrap();
    std::fs::copy(c.p("d0/libB.so"), c.p("d1/libB.so")).unwrap();
    let l = agree(&c.p("app"), c.root());
    assert!(has(&l, "libB.so", &format!("{d1}/libB.so")), "{l:?}");
}

#[test]
fn ld_library_path_sits_between_rpath_and_runpath() {
    let c = Case::new();
    let (d0, d2) = (c.s("d0"), c.s("d2"));
    c.lib("A", &[], &[]);
    c.exe(
        "rpath",
        &["A"],
        &[&format!("-Wl,--disable-new-dtags,-rpath,{d0}")],
    );
    c.exe(
        "runpath",
        &["A"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{d0}")],
    );
    c.put("libA.so", "d0");
    c.put("libA.so", "d2");
    c.done();
    let l = agree_llp(&c.p("rpath"), c.root(), Some(&d2));
    assert!(has(&l, "libA.so", &format!("{d0}/libA.so")), "{l:?}");
    let l = agree_llp(
        &c.p("runpath"),
        c.root(),
        Some(&format!("/nonexistent;{d2}")),
    );
    assert!(has(&l, "libA.so", &format!("{d2}/libA.so")), "{l:?}");
}

#[test]
fn origin_in_programs_and_libraries() {
    let c = Case::new();
    c.lib("B", &[], &[]);
    c.lib("A", &["B"], &["-Wl,--enable-new-dtags,-rpath,$ORIGIN"]);
    c.exe(
        "d/bin/app",
        &["A"],
        &["-Wl,--enable-new-dtags,-rpath,${ORIGIN}/../lib"],
    );
    c.put("libA.so", "d/lib");
    c.put("libB.so", "d/lib");
    c.done();
    let l = agree(&c.p("d/bin/app"), c.root());
    assert!(
        has(&l, "libA.so", &format!("{}/bin/../lib/libA.so", c.s("d"))),
        "{l:?}"
    );
    assert!(
        has(&l, "libB.so", &format!("{}/bin/../lib/libB.so", c.s("d"))),
        "{l:?}"
    );
    // A library as the root: $ORIGIN is the path given.
    agree(&c.p("d/lib/libA.so"), c.root());
}

#[test]
fn symlinked_program_follows_real_execution_not_ldd() {
    let c = Case::new();
    c.lib("A", &[], &[]);
    c.exe(
        "d/bin/app",
        &["A"],
        &["-Wl,--enable-new-dtags,-rpath,$ORIGIN/../lib"],
    );
    c.put("libA.so", "d/lib");
    c.done();
    std::fs::create_dir_all(c.p("s")).unwrap();
    symlink(c.p("d/bin/app"), c.p("s/app")).unwrap();
    // ldd takes $ORIGIN from the path given: not found.
    let (real, _) = ldd(&c.p("s/app"), c.root(), None);
    assert!(has(&real, "libA.so", "not found"), "{real:?}");
    // Real execution takes it from /proc/self/exe: it runs.
    let st = Command::new(c.p("s/app")).status().unwrap();
    assert!(st.success());
    // stack ldd follows real execution: same as ldd on the real path.
    let (ours, ok) = stack_ldd(&c.p("s/app"), c.root(), &[]);
    assert!(ok);
    let (via_real_path, _) = ldd(&c.p("d/bin/app"), c.root(), None);
    assert_eq!(ours, via_real_path);
}

#[test]
fn lib_and_platform_tokens() {
    let m = LoaderModel::host();
    let c = Case::new();
    let d = c.s("d");
    c.lib("A", &[], &[]);
    c.lib("B", &[], &[]);
    c.exe(
        "app",
        &["A", "B"],
        &[&format!(
            "-Wl,--enable-new-dtags,-rpath,{d}/$LIB:{d}/${{PLATFORM}}"
        )],
    );
    c.put("libA.so", &format!("d/{}", m.lib));
    c.put("libB.so", &format!("d/{}", m.platform));
    c.done();
    let l = agree(&c.p("app"), c.root());
    assert!(
        has(&l, "libA.so", &format!("{d}/{}/libA.so", m.lib)),
        "{l:?}"
    );
    assert!(
        has(&l, "libB.so", &format!("{d}/{}/libB.so", m.platform)),
        "{l:?}"
    );
}

#[test]
fn unknown_tokens_stay_literal() {
    let c = Case::new();
    let d = c.s("d");
    c.lib("A", &[], &[]);
    c.exe(
        "app",
        &["A"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{d}/$FOO")],
    );
    c.put("libA.so", "d/$FOO");
    c.done();
    let l = agree(&c.p("app"), c.root());
    assert!(has(&l, "libA.so", &format!("{d}/$FOO/libA.so")), "{l:?}");
}

#[test]
fn empty_and_relative_elements_use_the_working_directory() {
    let c = Case::new();
    c.lib("A", &[], &[]);
    c.lib("B", &[], &[]);
    let app = c.exe("app", &["A", "B"], &[]);
    c.patchelf(
        &["--force-rpath", "--set-rpath", ":/nonexistent/x/:rel"],
        &app,
    );
    c.put("libA.so", "w");
    c.put("libB.so", "w/rel");
    c.done();
    // From w/: libA.so via the empty element, libB.so via "rel".
    let l = agree(&app, &c.p("w"));
    assert!(l.iter().any(|x| x == "\tlibA.so"), "{l:?}");
    assert!(has(&l, "libB.so", "rel/libB.so"), "{l:?}");
    // Elsewhere: neither.
    let l = agree(&app, c.root());
    assert!(has(&l, "libA.so", "not found"), "{l:?}");
}

#[test]
fn trailing_slashes_and_duplicate_directories() {
    let c = Case::new();
    let d = c.s("d");
    c.lib("A", &[], &[]);
    let app = c.exe("app", &["A"], &[]);
    c.patchelf(&["--set-rpath", &format!("{d}///:{d}:/:{d}/")], &app);
    c.put("libA.so", "d");
    c.done();
    let l = agree(&app, c.root());
    assert!(has(&l, "libA.so", &format!("{d}/libA.so")), "{l:?}");
}

#[test]
fn nodeflib_skips_system_directories_and_their_cache_entries() {
    let c = Case::new();
    c.exe("app", &[], &["-Wl,-z,nodefaultlib"]);
    c.done();
    let l = agree(&c.p("app"), c.root());
    assert!(has(&l, "libc.so.6", "not found"), "{l:?}");
    // A cache hit below a system directory is dropped too, even from an
    // ld.so.conf directory (libfakeroot lives below /usr/lib/<triplet>).
    if Path::new("/usr/lib/x86_64-linux-gnu/libfakeroot/libfakeroot-0.so").exists() {
        let c = Case::new();
        c.gcc_raw(&[
            "-shared",
            "-fPIC",
            "-o",
            &c.s("libN.so"),
            "-x",
            "c",
            "/dev/null",
            "-Wl,-z,nodefaultlib",
            "-Wl,--no-as-needed",
            "-L/usr/lib/x86_64-linux-gnu/libfakeroot",
            "-lfakeroot-0",
        ]);
        let l = agree(&c.p("libN.so"), c.root());
        assert!(has(&l, "libfakeroot-0.so", "not found"), "{l:?}");
    }
}

#[test]
fn wrong_class_and_machine_candidates_are_skipped() {
    let c = Case::new();
    let (d1, d2, d3) = (c.s("d1"), c.s("d2"), c.s("d3"));
    c.lib("A", &[], &[]);
    c.exe(
        "app",
        &["A"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{d1}:{d2}:{d3}")],
    );
    let a1 = c.put("libA.so", "d1");
    let a2 = c.put("libA.so", "d2");
    c.put("libA.so", "d3");
    c.done();
    let mut b = std::fs::read(&a1).unwrap();
    b[4] = 1; // ELFCLASS32
    std::fs::write(&a1, b).unwrap();
    let mut b = std::fs::read(&a2).unwrap();
    b[18..20].copy_from_slice(&183u16.to_le_bytes()); // EM_AARCH64
    std::fs::write(&a2, b).unwrap();
    let l = agree(&c.p("app"), c.root());
    assert!(has(&l, "libA.so", &format!("{d3}/libA.so")), "{l:?}");
    let (why, _) = stack_ldd(&c.p("app"), c.root(), &["--why"]);
    assert!(why.iter().any(|l| l.contains("RUNPATH")), "{why:?}");
}

#[test]
fn non_elf_candidates_stop_the_loader() {
    for (content, expect) in [
        (
            &b"/* GNU ld script\n   Use the shared library, but some functions are only in\n   the static library.  */\nGROUP ( libA.so.1 libA_nonshared.a )\n"[..],
            "invalid ELF header",
        ),
        (&b"INPUT(libA.so.1)\n"[..], "file too short"),
        (&b""[..], "file too short"),
    ] {
        let c = Case::new();
        let (d1, d2) = (c.s("d1"), c.s("d2"));
        c.lib("A", &[], &[]);
        c.exe("app", &["A"], &[&format!("-Wl,--enable-new-dtags,-rpath,{d1}:{d2}")]);
        c.put("libA.so", "d2");
        std::fs::create_dir_all(c.p("d1")).unwrap();
        std::fs::write(c.p("d1/libA.so"), content).unwrap();
        c.done();
        let l = agree(&c.p("app"), c.root());
        assert!(l.iter().any(|x| x.contains(expect)), "{l:?}");
        // The real program does not start.
        let st = Command::new(c.p("app")).status().unwrap();
        assert_eq!(st.code(), Some(127));
    }
}

#[test]
fn already_loaded_objects_satisfy_later_needs_in_bfs_order() {
    // A (RUNPATH dc) and B (no paths) both need C.
    let c = Case::new();
    let (da, dc) = (c.s("da"), c.s("dc"));
    c.lib("C", &[], &[]);
    c.lib(
        "A",
        &["C"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{dc}")],
    );
    c.lib("B", &["C"], &[]);
    c.exe(
        "ab",
        &["A", "B"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{da}")],
    );
    c.exe(
        "ba",
        &["B", "A"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{da}")],
    );
    c.put("libA.so", "da");
    c.put("libB.so", "da");
    c.put("libC.so", "dc");
    c.done();
    let l = agree(&c.p("ab"), c.root());
    assert_eq!(
        l.iter().filter(|x| x.contains("libC.so")).count(),
        1,
        "{l:?}"
    );
    // B first: its lookup fails (the program would not start), and A's
    // later succeeds; ldd prints both.
    let l = agree(&c.p("ba"), c.root());
    assert!(has(&l, "libC.so", "not found"), "{l:?}");
    assert!(has(&l, "libC.so", &format!("{dc}/libC.so")), "{l:?}");
    assert_eq!(Command::new(c.p("ba")).status().unwrap().code(), Some(127));
    assert!(Command::new(c.p("ab")).status().unwrap().success());
}

#[test]
fn soname_of_a_loaded_object_matches() {
    // The program needs libX.so (whose soname is libX.so.1); Y needs
    // libX.so.1, which exists nowhere under that name.
    let c = Case::new();
    let d = c.s("d");
    c.lib("X", &[], &["-Wl,-soname,libX.so.1"]);
    std::fs::copy(c.p("b/libX.so"), c.p("b/libX.so.1")).unwrap();
    c.lib("Y", &["X"], &[]);
    let app = c.exe(
        "app",
        &["X", "Y"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{d}")],
    );
    c.patchelf(&["--replace-needed", "libX.so.1", "libX.so"], &app);
    c.put("libX.so", "d");
    c.put("libY.so", "d");
    c.done();
    let l = agree(&app, c.root());
    assert!(has(&l, "libX.so", &format!("{d}/libX.so")), "{l:?}");
    assert!(!l.iter().any(|x| x.contains("not found")), "{l:?}");
}

#[test]
fn same_file_under_two_names_is_one_object() {
    let c = Case::new();
    let d = c.s("d");
    c.lib("A", &[], &["-Wl,-soname,libA.so.2"]);
    let app = c.exe(
        "app",
        &["A"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{d}")],
    );
    c.patchelf(&["--replace-needed", "libA.so.2", "libA.so"], &app);
    c.patchelf(&["--add-needed", "libA.so.1"], &app);
    c.put("libA.so", "d");
    symlink("libA.so", c.p("d/libA.so.1")).unwrap();
    c.done();
    // libA.so.1 (a link to libA.so) comes first; libA.so is the same file.
    let l = agree(&app, c.root());
    assert_eq!(
        l.iter().filter(|x| x.contains("libA.so")).count(),
        1,
        "{l:?}"
    );
}

#[test]
fn hwcaps_subdirectories_are_searched_first() {
    let m = LoaderModel::host();
    let c = Case::new();
    let (d, e) = (c.s("d"), c.s("e"));
    c.lib("A", &[], &[]);
    c.exe(
        "app",
        &["A"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{d}:{e}")],
    );
    c.put("libA.so", "d");
    c.put("libA.so", "e");
    if let Some(level) = m.hwcaps.last() {
        c.put("libA.so", &format!("d/glibc-hwcaps/{level}"));
    }
    if let Some(sub) = m.legacy_hwcaps.last() {
        c.put("libA.so", &format!("d/{sub}"));
    }
    c.done();
    let l = agree(&c.p("app"), c.root());
    if let Some(level) = m.hwcaps.last() {
        assert!(
            has(&l, "libA.so", &format!("{d}/glibc-hwcaps/{level}/libA.so")),
            "{l:?}"
        );
    }
    // Legacy subdirectories (glibc ≤ 2.36) come after glibc-hwcaps.
    if let Some(sub) = m.legacy_hwcaps.last() {
        let _ = std::fs::remove_dir_all(c.p("d/glibc-hwcaps"));
        let l = agree(&c.p("app"), c.root());
        assert!(has(&l, "libA.so", &format!("{d}/{sub}/libA.so")), "{l:?}");
    }
}

#[test]
fn setuid_program_origin_follows_secure_mode() {
    let c = Case::new();
    c.lib("A", &[], &[]);
    c.exe(
        "d/bin/app",
        &["A"],
        &["-Wl,--enable-new-dtags,-rpath,$ORIGIN/../lib"],
    );
    c.put("libA.so", "d/lib");
    c.done();
    let app = c.p("d/bin/app");
    std::fs::set_permissions(&app, std::fs::Permissions::from_mode(0o4755)).unwrap();
    // ldd (not in secure mode) finds it.
    let (real, _) = ldd(&app, c.root(), None);
    assert!(
        has(
            &real,
            "libA.so",
            &format!("{}/bin/../lib/libA.so", c.s("d"))
        ),
        "{real:?}"
    );
    // The loader of a set-uid program ignores an untrusted $ORIGIN.
    let (ours, _) = stack_ldd(&app, c.root(), &[]);
    assert!(has(&ours, "libA.so", "not found"), "{ours:?}");
    // Check against a real run as another user, where possible.
    if nix::unistd::geteuid().is_root() {
        for p in [c.root(), &c.p("d"), &c.p("d/bin"), &c.p("d/lib")] {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::set_permissions(c.p("d/lib/libA.so"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        let out = crate::harness::user::setpriv(crate::harness::user::NOBODY)
            .arg(&app)
            .output();
        if let Ok(out) = out {
            if out.status.code() == Some(127) || out.status.success() {
                assert_eq!(
                    out.status.code(),
                    Some(127),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert!(String::from_utf8_lossy(&out.stderr).contains("libA.so"));
            }
        }
    }
}

#[test]
fn needed_with_a_slash_is_opened_as_a_path() {
    let c = Case::new();
    std::fs::create_dir_all(c.p("d")).unwrap();
    // No soname: the linker records the path it was given.
    c.gcc_raw(&[
        "-shared",
        "-fPIC",
        "-o",
        &c.s("d/libP.so"),
        "-x",
        "c",
        "/dev/null",
    ]);
    c.gcc_raw(&[
        "-shared",
        "-fPIC",
        "-o",
        "d/libR.so",
        "-x",
        "c",
        "/dev/null",
    ]);
    std::fs::write(c.p("b/main.c"), "int main(void){return 0;}\n").unwrap();
    let abs = c.s("d/libP.so");
    c.gcc_raw(&[
        "-o",
        "app",
        "b/main.c",
        "-Wl,--no-as-needed",
        &abs,
        "d/libR.so",
    ]);
    c.done();
    let l = agree(&c.p("app"), c.root());
    assert!(l.iter().any(|x| x.trim() == abs), "{l:?}");
    assert!(l.iter().any(|x| x.trim() == "d/libR.so"), "{l:?}");
    // The relative one is relative to the working directory, not the program.
    let l = agree(&c.p("app"), &c.p("d"));
    assert!(has(&l, "d/libR.so", "not found"), "{l:?}");
}

#[test]
fn tokens_in_needed_entries() {
    let c = Case::new();
    c.lib("A", &[], &[]);
    let app = c.exe("d/app", &[], &[]);
    c.patchelf(&["--add-needed", "$ORIGIN/libA.so"], &app);
    c.put("libA.so", "d");
    c.done();
    let l = agree(&app, c.root());
    assert!(
        l.iter()
            .any(|x| x.trim() == format!("{}/libA.so", c.s("d"))),
        "{l:?}"
    );
}

#[test]
fn executables_cannot_be_dependencies() {
    for (flag, msg) in [
        ("-pie", "position-independent executable"),
        ("-no-pie", "cannot dynamically load executable"),
    ] {
        let c = Case::new();
        std::fs::create_dir_all(c.p("d")).unwrap();
        std::fs::write(c.p("b/m.c"), "int main(void){return 0;}\n").unwrap();
        c.gcc_raw(&[flag, "-o", "d/libE.so", "b/m.c", "-Wl,-soname,libE.so"]);
        c.lib("A", &[], &[]);
        let app = c.exe(
            "app",
            &["A"],
            &[&format!("-Wl,--enable-new-dtags,-rpath,{}", c.s("d"))],
        );
        c.patchelf(&["--add-needed", "libE.so"], &app);
        c.put("libA.so", "d");
        c.done();
        let l = agree(&app, c.root());
        assert!(l.iter().any(|x| x.contains(msg)), "{l:?}");
    }
}

#[test]
fn missing_names_are_listed_each_time_after_the_interpreter() {
    let c = Case::new();
    let d = c.s("d");
    c.lib("Z", &[], &[]);
    c.lib("H", &["Z"], &[]);
    c.lib("I", &["Z"], &[]);
    c.exe(
        "app",
        &["H", "I"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{d}")],
    );
    c.put("libH.so", "d");
    c.put("libI.so", "d");
    c.done();
    let l = agree(&c.p("app"), c.root());
    assert_eq!(
        l.iter()
            .filter(|x| x.contains("libZ.so => not found"))
            .count(),
        2,
        "{l:?}"
    );
}

#[test]
fn static_and_dependency_free_files() {
    let c = Case::new();
    std::fs::write(c.p("b/m.c"), "int main(void){return 0;}\n").unwrap();
    c.gcc_raw(&[
        "-shared",
        "-fPIC",
        "-nostdlib",
        "-o",
        "libnone.so",
        "-x",
        "c",
        "/dev/null",
    ]);
    agree(&c.p("libnone.so"), c.root());
    c.gcc_raw(&["-c", "-o", "m.o", "b/m.c"]);
    agree(&c.p("m.o"), c.root());
    if Path::new("/usr/lib/x86_64-linux-gnu/libc.a").exists() {
        c.gcc_raw(&["-static", "-o", "st", "b/m.c"]);
        let l = agree(&c.p("st"), c.root());
        assert_eq!(l, vec!["\tnot a dynamic executable"]);
    }
}

#[test]
fn the_cache_is_keyed_by_soname_not_by_the_files_in_ld_so_conf_dirs() {
    // libfakeroot-sysv.so sits in an ld.so.conf directory, but ldconfig
    // cached it only under its soname libfakeroot-0.so: not found by name.
    let dir = Path::new("/usr/lib/x86_64-linux-gnu/libfakeroot");
    if !dir.join("libfakeroot-sysv.so").exists() {
        return;
    }
    let c = Case::new();
    let lib = c.lib("A", &[], &[]);
    c.patchelf(&["--add-needed", "libfakeroot-sysv.so"], &lib);
    c.patchelf(&["--add-needed", "libfakeroot-0.so"], &lib);
    let l = agree(&lib, c.root());
    assert!(has(&l, "libfakeroot-sysv.so", "not found"), "{l:?}");
    assert!(
        has(
            &l,
            "libfakeroot-0.so",
            &format!("{}/libfakeroot-0.so", dir.display())
        ),
        "{l:?}"
    );
}
