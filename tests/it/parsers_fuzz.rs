//! Property-based fuzzing of every parser that reads outside input: spec
//! text, recipe YAML, ELF files, `ld.so.cache`, squashfs images (superblock
//! and tables, read in place) and source archives (tar.gz, zip). Inputs are
//! random or mutated copies of real seeds; nothing may panic, and an archive
//! never writes outside its stage.
//!
//! The normal test run is a smoke budget; `scripts/fuzz.sh` runs each
//! target with a bigger one (`STACK_FUZZ_CASES`) and reports executions and
//! crashes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Cases per target: `STACK_FUZZ_CASES`, else a smoke budget.
fn cases(smoke: u32) -> u32 {
    std::env::var("STACK_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(smoke)
}

fn runner(smoke: u32) -> TestRunner {
    TestRunner::new(Config {
        cases: cases(smoke),
        failure_persistence: None,
        ..Config::default()
    })
}

/// Prints the budget (read by scripts/fuzz.sh).
fn report(target: &str, n: u32) {
    eprintln!("fuzz {target}: {n} executions");
}

/// `base` cut to `cut` bytes with some bytes replaced.
fn mutate(base: &[u8], cut: usize, flips: &[(usize, u8)]) -> Vec<u8> {
    let mut v = base[..cut.min(base.len())].to_vec();
    for &(at, b) in flips {
        if !v.is_empty() {
            let i = at % v.len();
            v[i] = b;
        }
    }
    v
}

fn mutation(len: usize) -> impl Strategy<Value = (usize, Vec<(usize, u8)>)> {
    (
        0..=len,
        proptest::collection::vec((0..len.max(1), any::<u8>()), 0..12),
    )
}

fn seeds_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

#[test]
fn spec_text() {
    let n = cases(2000);
    runner(2000)
        .run(
            &prop_oneof![
                "[ -~]{0,60}",
                "[a-z0-9@:+~=%^,. -]{0,60}",
                "[a-z]{1,8}(@[0-9.:,]{0,12})?( [+~][a-z]{1,5})*( \\^[a-z]{1,6}@[0-9:]{0,6})*"
            ],
            |text| {
                let _ = stack::spec::Spec::parse(&text);
                let _ = stack::spec::VersionConstraint::parse(&text);
                Ok(())
            },
        )
        .unwrap();
    report("spec-text", n);
}

#[test]
fn recipe_yaml() {
    use stack::cluster::parse_cluster;
    use stack::diag::{Diagnostics, SourceFile};
    use stack::recipes::parse_package;
    use stack::stacks::parse_stack_recipe;
    let seed = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("stacks/demo/recipes/hello-make.yaml"),
    )
    .unwrap();
    let n = cases(300);
    runner(300)
        .run(&mutation(seed.len()), |(cut, flips)| {
            let flips: Vec<(usize, u8)> = flips.into_iter().map(|(i, b)| (i, b % 0x7f)).collect();
            let bytes = mutate(seed.as_bytes(), cut, &flips);
            let text = String::from_utf8_lossy(&bytes);
            let dir = std::env::temp_dir().join("fuzz/recipes");
            let src = SourceFile::new(dir.join("hello-make.yaml"), text.into_owned());
            let mut d = Diagnostics::new();
            let _ = parse_package(&src, &dir, &mut d);
            let _ = parse_stack_recipe(&src, &mut d);
            let _ = parse_cluster(&src, &mut d);
            Ok(())
        })
        .unwrap();
    report("recipe-yaml", n);
}

/// A real shared library (built with gcc once).
fn elf_seed() -> &'static [u8] {
    static LIB: OnceLock<Vec<u8>> = OnceLock::new();
    LIB.get_or_init(|| {
        let dir = seeds_dir();
        std::fs::write(
            dir.join("l.c"),
            "#include <dlfcn.h>\nvoid *f(void) { return dlopen(\"libz.so.1\", 0); }\n",
        )
        .unwrap();
        let st = Command::new("gcc")
            .args(["-shared", "-fPIC", "-o", "libl.so", "l.c", "-ldl"])
            .args([
                "-Wl,-soname,libl.so.1",
                "-Wl,--enable-new-dtags,-rpath,$ORIGIN",
            ])
            .current_dir(dir)
            .status()
            .unwrap();
        assert!(st.success());
        std::fs::read(dir.join("libl.so")).unwrap()
    })
}

#[test]
fn elf_files() {
    use stack::audit::elf;
    use stack::audit::source::Bytes;
    let seed = elf_seed();
    let n = cases(500);
    runner(500)
        .run(&mutation(seed.len()), |(cut, flips)| {
            let flips: Vec<(usize, u8)> = flips.into_iter().map(|(i, b)| (i % 4096, b)).collect();
            let bytes = mutate(seed, cut, &flips);
            let _ = elf::parse_from(&mut Bytes(&bytes), true);
            Ok(())
        })
        .unwrap();
    report("elf", n);
}

#[test]
fn ld_so_cache() {
    use stack::audit::ldcache::LdCache;
    let Ok(seed) = std::fs::read("/etc/ld.so.cache") else {
        return;
    };
    let n = cases(1000);
    runner(1000)
        .run(&mutation(seed.len()), |(cut, flips)| {
            // Most structure is in the first kilobytes: mutate there.
            let flips: Vec<(usize, u8)> = flips.into_iter().map(|(i, b)| (i % 2048, b)).collect();
            let bytes = mutate(&seed, cut, &flips);
            for big in [false, true] {
                if let Ok(c) = LdCache::parse(&bytes, big) {
                    let _ = c.len();
                }
            }
            Ok(())
        })
        .unwrap();
    report("ld.so.cache", n);
}

/// A small squashfs image (mksquashfs) of a tree with a library, a link and
/// a directory.
fn squashfs_seed() -> &'static [u8] {
    static IMG: OnceLock<Vec<u8>> = OnceLock::new();
    IMG.get_or_init(|| {
        let dir = seeds_dir().join("sq");
        std::fs::create_dir_all(dir.join("tree/lib")).unwrap();
        std::fs::write(dir.join("tree/lib/libl.so"), elf_seed()).unwrap();
        std::fs::write(dir.join("tree/README"), "hello\n").unwrap();
        std::os::unix::fs::symlink("lib/libl.so", dir.join("tree/link")).unwrap();
        let st = Command::new("mksquashfs")
            .args([
                "tree",
                "img",
                "-noappend",
                "-quiet",
                "-no-progress",
                "-all-root",
            ])
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(st.success());
        std::fs::read(dir.join("img")).unwrap()
    })
}

#[test]
fn squashfs_images() {
    use stack::audit::fs::Backend;
    use stack::audit::squashfs::SquashImage;
    let seed = squashfs_seed();
    let n = cases(150);
    let file = seeds_dir().join("mutated.squashfs");
    runner(150)
        .run(&mutation(seed.len()), |(cut, flips)| {
            // The superblock (96 bytes) and the tables at the end.
            let len = seed.len();
            let flips: Vec<(usize, u8)> = flips
                .into_iter()
                .map(|(i, b)| {
                    (
                        if i % 2 == 0 {
                            i % 96
                        } else {
                            len - 1 - i % 512
                        },
                        b,
                    )
                })
                .collect();
            std::fs::write(&file, mutate(seed, cut.max(96), &flips)).unwrap();
            if let Ok(img) = SquashImage::open(&file) {
                for dir in ["", "lib"] {
                    let _ = img.list(Path::new(dir));
                }
                let _ = img.read_link(Path::new("link"));
                let _ = img.read_all(Path::new("README"));
                let _ = img.load(Path::new("lib/libl.so"));
            }
            Ok(())
        })
        .unwrap();
    report("squashfs", n);
}

/// A tar.gz and a zip of a small tree.
fn archive_seeds() -> &'static [(String, Vec<u8>)] {
    static A: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    A.get_or_init(|| {
        let dir = seeds_dir().join("ar");
        std::fs::create_dir_all(dir.join("pkg-1.0/src")).unwrap();
        std::fs::write(dir.join("pkg-1.0/src/a.c"), "int a;\n").unwrap();
        std::fs::write(dir.join("pkg-1.0/README"), "hello\n").unwrap();
        std::os::unix::fs::symlink("README", dir.join("pkg-1.0/link")).unwrap();
        let tar = Command::new("tar")
            .args(["czf", "pkg.tar.gz", "pkg-1.0"])
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(tar.success());
        let mut out = vec![(
            "pkg-1.0.tar.gz".to_string(),
            std::fs::read(dir.join("pkg.tar.gz")).unwrap(),
        )];
        // An uncompressed tar too: mutations then hit the headers directly.
        let st = Command::new("tar")
            .args(["cf", "pkg.tar", "pkg-1.0"])
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(st.success());
        out.push((
            "pkg-1.0.tar".into(),
            std::fs::read(dir.join("pkg.tar")).unwrap(),
        ));
        out
    })
}

#[test]
fn archives() {
    use stack::fetch::{Fetched, FetchedContent, Origin, Sha256Hex, Verification, stage};
    let seeds = archive_seeds();
    let n = cases(300);
    let root = seeds_dir().join("stages");
    let outside = seeds_dir().join("outside-marker");
    let i = std::sync::atomic::AtomicU64::new(0);
    for (name, seed) in seeds {
        runner(300 / seeds.len() as u32)
            .run(&mutation(seed.len()), |(cut, flips)| {
                let i = i.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let bytes = mutate(seed, cut, &flips);
                let file = root.join(format!("in-{i}-{name}"));
                std::fs::create_dir_all(&root).unwrap();
                std::fs::write(&file, &bytes).unwrap();
                let fetched = Fetched {
                    package: "pkg".into(),
                    version: "1.0".into(),
                    content: FetchedContent::File {
                        path: file.clone(),
                        sha256: Sha256Hex::parse(&"0".repeat(64)).unwrap(),
                        file_name: name.clone(),
                        expand: true,
                        size: bytes.len() as u64,
                    },
                    origin: Origin::Cache,
                    verification: Verification::Unverified,
                    max_size: None,
                };
                let dest: PathBuf = root.join(format!("stage-{i}"));
                let _ = stage(&fetched, &dest);
                let _ = std::fs::remove_dir_all(&dest);
                let _ = std::fs::remove_file(&file);
                prop_assert!(!outside.exists());
                Ok(())
            })
            .unwrap();
    }
    report("archives", n);
}
