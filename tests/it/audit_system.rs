//! A sample of this machine's own ELF files (every 25th regular ELF file of
//! /usr/bin and /usr/lib/x86_64-linux-gnu): `stack ldd` must agree with the
//! real `ldd`. The full comparison over all files (with timings) is
//! `cargo bench --bench audit` (benches/audit.rs).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::harness::audit::{elf_files, ldd, normalise_ldd};
use stack::audit::fs::{HostDir, Vfs};
use stack::audit::loader::LoaderModel;
use stack::audit::session::{Env, Session};

#[test]
fn sampled_host_files_agree_with_ldd() {
    let dirs = ["/usr/bin", "/usr/lib/x86_64-linux-gnu"];
    if !Path::new(dirs[1]).is_dir() {
        return; // not a Debian-layout x86-64 host
    }
    let files = elf_files(&dirs);
    let session = Session::new(
        Vfs::new(Box::new(HostDir::new("/"))),
        LoaderModel::host(),
        Env {
            ld_library_path: None,
            cwd: Some(PathBuf::from("/")),
        },
    );
    let mut checked = 0;
    let mut bad = Vec::new();
    for f in files.iter().step_by(25) {
        // ldd runs set-uid programs outside secure mode; real execution (and
        // stack ldd) does not. Documented difference.
        let mode = std::fs::metadata(f).unwrap().permissions().mode();
        if mode & 0o6000 != 0 {
            continue;
        }
        let (real, _) = ldd(f, Path::new("/"), None);
        let ours = stack::audit::ldd::ldd(&session, f, &f.to_string_lossy(), false);
        let ours = normalise_ldd(&ours.text);
        checked += 1;
        if ours != real {
            bad.push(format!(
                "{}:\n  ldd:   {real:?}\n  stack: {ours:?}",
                f.display()
            ));
        }
    }
    assert!(checked > 20, "only {checked} files");
    assert!(
        bad.is_empty(),
        "{} of {checked} disagree:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// Every ELF file of the sample parses the same read in ranges (as the
/// audit reads host files) and read whole into memory, with and without the
/// dlopen scan.
#[test]
fn ranged_reading_matches_whole_files() {
    use stack::audit::elf;
    use stack::audit::source::{FileSource, ReadPolicy};
    let dirs = ["/usr/bin", "/usr/lib/x86_64-linux-gnu"];
    if !Path::new(dirs[1]).is_dir() {
        return;
    }
    let files = elf_files(&dirs);
    let mut checked = 0;
    for f in files.iter().step_by(7) {
        let Ok(whole) = std::fs::read(f) else {
            continue;
        };
        for scan in [false, true] {
            let mut src =
                FileSource::open(std::fs::File::open(f).unwrap(), ReadPolicy::default()).unwrap();
            src.set_size(whole.len() as u64);
            assert_eq!(
                elf::parse_from(&mut src, scan),
                elf::parse(&whole, scan),
                "{} (scan {scan})",
                f.display()
            );
        }
        checked += 1;
    }
    assert!(checked > 50, "only {checked} files");
}
