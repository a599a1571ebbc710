//! Fuzzing the ELF reader and the loader simulation with truncated and
//! mutated copies of a real (gcc-built) library: nothing may panic, and the
//! verdicts must stay consistent (a truncated candidate is never accepted
//! silently when its header is cut).

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::harness::audit::Case;
use proptest::prelude::*;
use stack::audit::elf::{self, Candidate, Target};
use stack::audit::fs::{HostDir, Vfs};
use stack::audit::load;
use stack::audit::loader::LoaderModel;
use stack::audit::session::{Env, Session};
use stack::audit::source::{FileSource, ReadPolicy};

struct Corpus {
    _case: Case,
    lib: Vec<u8>,
    exe: PathBuf,
    dir: PathBuf,
}

/// A small library with RUNPATH, SONAME, NEEDED and a dlopen import, and a
/// program that needs it from `d/`.
fn corpus() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let c = Case::new();
        std::fs::write(
            c.p("b/f.c"),
            "#include <dlfcn.h>\nvoid *f(void) { return dlopen(\"/opt/x/libq.so.1\", 0); }\n",
        )
        .unwrap();
        c.gcc_raw(&[
            "-shared",
            "-fPIC",
            "-o",
            "b/libF.so",
            "b/f.c",
            "-Wl,-soname,libF.so",
            "-Wl,--enable-new-dtags,-rpath,$ORIGIN/x:/y",
            "-ldl",
        ]);
        let exe = c.exe(
            "app",
            &["F"],
            &[&format!("-Wl,--enable-new-dtags,-rpath,{}", c.s("d"))],
        );
        let lib = std::fs::read(c.p("b/libF.so")).unwrap();
        let dir = c.p("d");
        std::fs::create_dir_all(&dir).unwrap();
        Corpus {
            _case: c,
            lib,
            exe,
            dir,
        }
    })
}

const X86: Target = Target {
    class: 2,
    data: 1,
    machine: 62,
};

fn mutate(base: &[u8], cut: usize, flips: &[(usize, u8)]) -> Vec<u8> {
    let mut b = base[..cut.min(base.len())].to_vec();
    for &(pos, val) in flips {
        if !b.is_empty() {
            let n = b.len();
            b[pos % n] = val;
        }
    }
    b
}

#[test]
fn the_original_parses() {
    let c = corpus();
    let info = elf::parse(&c.lib, true).unwrap();
    assert_eq!(info.soname.as_deref(), Some("libF.so"));
    assert_eq!(info.runpath.as_deref(), Some("$ORIGIN/x:/y"));
    assert!(info.imports_dlopen);
    assert_eq!(info.dlopen_strings, vec!["/opt/x/libq.so.1"]);
    assert_eq!(
        elf::verify(&c.lib, c.lib.len() as u64, Some(&info), X86),
        Candidate::Accept
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    /// The parser and open_verify never panic on truncated/mutated input.
    #[test]
    fn parser_never_panics(
        cut in 0usize..20_000,
        flips in proptest::collection::vec((0usize..20_000, any::<u8>()), 0..16),
    ) {
        let c = corpus();
        let b = mutate(&c.lib, cut, &flips);
        let info = elf::parse(&b, true);
        let v = elf::verify(&b, b.len() as u64, info.as_ref(), X86);
        // Without the 64-byte header nothing is loadable.
        if b.len() < 64 {
            prop_assert!(v != Candidate::Accept);
        }
    }

    /// Header fields hit harder: flips only in the first 256 bytes.
    #[test]
    fn header_mutations_never_panic(flips in proptest::collection::vec((0usize..256, any::<u8>()), 1..8)) {
        let c = corpus();
        let b = mutate(&c.lib, usize::MAX, &flips);
        let info = elf::parse(&b, true);
        let _ = elf::verify(&b, b.len() as u64, info.as_ref(), X86);
    }
}

/// Parses the file `b` read in ranges (tiny first read, small prefix and
/// map thresholds, so every reading path is taken).
fn parse_ranged(b: &[u8], scan: bool) -> Option<elf::ElfInfo> {
    let t = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(t.path(), b).unwrap();
    let policy = ReadPolicy {
        head: 64,
        prefix: 512,
        map: 4096,
    };
    let mut src = FileSource::open(std::fs::File::open(t.path()).unwrap(), policy).unwrap();
    src.set_size(b.len() as u64);
    elf::parse_from(&mut src, scan)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// Reading only the needed ranges of a file gives exactly what parsing
    /// the whole file in memory gives, broken files included.
    #[test]
    fn ranged_reading_matches_whole_file(
        cut in 0usize..20_000,
        flips in proptest::collection::vec((0usize..20_000, any::<u8>()), 0..16),
        scan in any::<bool>(),
    ) {
        let c = corpus();
        let b = mutate(&c.lib, cut, &flips);
        prop_assert_eq!(parse_ranged(&b, scan), elf::parse(&b, scan));
    }
}

#[test]
fn ranged_reading_of_the_original() {
    let c = corpus();
    for scan in [false, true] {
        assert_eq!(parse_ranged(&c.lib, scan), elf::parse(&c.lib, scan));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    /// The whole loader simulation on a program whose library candidate is
    /// a mutated copy: no panic, and the outcome is one of found / skipped /
    /// fatal.
    #[test]
    fn loader_never_panics(
        cut in 0usize..20_000,
        flips in proptest::collection::vec((0usize..20_000, any::<u8>()), 0..8),
    ) {
        let c = corpus();
        let b = mutate(&c.lib, cut, &flips);
        let case = tempfile::tempdir().unwrap();
        let dir = case.path().join("d");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("libF.so"), &b).unwrap();
        // The program's RUNPATH names corpus().dir; point that at the copy.
        let vfs = Vfs::new(Box::new(HostDir::new("/"))).mount(&c.dir, Box::new(HostDir::new(&dir)));
        let s = Session::new(vfs, LoaderModel::host(), Env::default());
        let list = load::load(&s, &c.exe).unwrap();
        prop_assert!(!list.edges.is_empty());
        let _ = stack::audit::ldd::render(&list, "app", true);
    }
}
