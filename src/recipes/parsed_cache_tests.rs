use std::path::{Path, PathBuf};

use super::*;
use crate::diag::Diagnostics;
use crate::recipes::{PackageRepo, RepoDir, RepoOrigin, parse_package, recipe_files};

fn builtin_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/recipes"))
}

/// `path` parsed: the recipe when it loads without a diagnostic.
fn parse_clean(src: &SourceFile, repo_dir: &Path) -> Option<PackageRecipe> {
    let mut d = Diagnostics::new();
    let r = parse_package(src, repo_dir, &mut d);
    r.filter(|_| d.is_empty())
}

/// Every built-in recipe that loads without a diagnostic reads back from
/// the cache as the recipe the parser gives (its whole `{:?}` form,
/// locations included), its locations sharing the source's path.
#[test]
fn every_builtin_recipe_reads_back_as_parsed() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = ParsedCache::new(tmp.path());
    let dir = builtin_dir();
    let files = recipe_files(&dir).unwrap();
    let mut cached = 0;
    for f in &files {
        let src = SourceFile::read(f).unwrap();
        if crate::recipes::overlay::is_overlay(&src) {
            continue;
        }
        let Some(parsed) = parse_clean(&src, &dir) else {
            continue;
        };
        assert!(
            cache.load(&src, &dir).is_none(),
            "{}: no entry yet",
            f.display()
        );
        cache.store(&src, &dir, &parsed);
        let back = cache
            .load(&src, &dir)
            .unwrap_or_else(|| panic!("{}: the entry reads back", f.display()));
        assert_eq!(
            format!("{back:?}"),
            format!("{parsed:?}"),
            "{}",
            f.display()
        );
        assert!(Arc::ptr_eq(&back.loc.file, &src.path_arc()));
        cached += 1;
    }
    assert!(
        cached * 10 >= files.len() * 9,
        "{cached} of {} recipes cached",
        files.len()
    );
}

fn write_recipe(dir: &Path, name: &str, extra: &str) -> PathBuf {
    let path = dir.join(format!("{name}.yaml"));
    fs_err::write(
        &path,
        format!(
            "name: {name}\ndescription: d\nversions:\n  - {{version: \"1.0\", url: \"https://example.org/{name}-1.0.tar.gz\", sha256: {}}}\nbuild: {{system: autotools, configure_args: [--with-x]}}\ndependencies: [\"zlib@1.2: +shared\"]\n{extra}",
            "0".repeat(64)
        ),
    )
    .unwrap();
    path
}

/// A recipe directory `<tmp>/recipes` with `name.yaml`, and the cache.
fn setup(tmp: &Path, name: &str, extra: &str) -> (SourceFile, PathBuf, ParsedCache) {
    let dir = tmp.join("recipes");
    fs_err::create_dir_all(&dir).unwrap();
    let path = write_recipe(&dir, name, extra);
    let src = SourceFile::read(&path).unwrap();
    (src, dir, ParsedCache::new(tmp.join("cache")))
}

/// A truncated entry, any byte of it changed, another recipe's entry,
/// another build's entry or garbage: each is a miss, never a panic or
/// another recipe.
#[test]
fn a_damaged_or_foreign_entry_is_a_miss() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, dir, cache) = setup(tmp.path(), "foo", "");
    let recipe = parse_clean(&src, &dir).unwrap();
    cache.store(&src, &dir, &recipe);
    let entry = cache.entry_file(src.path(), &dir);
    let good = fs_err::read(&entry).unwrap();
    assert!(good.starts_with(IDENTITY.as_bytes()));
    assert!(decode(&good, &src, &dir).is_some());
    for len in 0..good.len() {
        assert!(decode(&good[..len], &src, &dir).is_none(), "cut at {len}");
    }
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 0x20;
        assert!(decode(&bad, &src, &dir).is_none(), "byte {at} changed");
    }
    let mut longer = good.clone();
    longer.push(0);
    assert!(decode(&longer, &src, &dir).is_none(), "a byte added");
    let other = identity_replaced(&good, "stack-parsed-recipe 1 0.0.0 0000000000000000\n");
    assert!(
        decode(&other, &src, &dir).is_none(),
        "another build's entry"
    );
    // Another recipe's entry in this one's place.
    let bar = write_recipe(&dir, "bar", "");
    let bar_src = SourceFile::read(&bar).unwrap();
    cache.store(&bar_src, &dir, &parse_clean(&bar_src, &dir).unwrap());
    let bar_entry = fs_err::read(cache.entry_file(&bar, &dir)).unwrap();
    assert!(decode(&bar_entry, &src, &dir).is_none());
    // Garbage in the file: a miss through `load`, and the next store
    // replaces it.
    fs_err::write(&entry, b"\x00\xffnot an entry").unwrap();
    assert!(cache.load(&src, &dir).is_none());
    cache.store(&src, &dir, &recipe);
    assert!(cache.load(&src, &dir).is_some());
}

/// `bytes` with its identity line replaced by `identity`.
fn identity_replaced(bytes: &[u8], identity: &str) -> Vec<u8> {
    let mut out = identity.as_bytes().to_vec();
    out.extend_from_slice(&bytes[IDENTITY.len()..]);
    out
}

/// `bytes` with `from` replaced by `to` (same length) in the recipe and
/// the checksum made right: what a build with other build kinds would
/// have written.
fn edited(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let rest = IDENTITY.len() + 16;
    let at = out[rest..]
        .windows(from.len())
        .position(|w| w == from)
        .expect("the bytes to replace")
        + rest;
    out[at..at + to.len()].copy_from_slice(to);
    let sum = xxh3_128(&out[rest..]).to_le_bytes();
    out[IDENTITY.len()..rest].copy_from_slice(&sum);
    out
}

/// An entry naming a build system or key this build does not have is a
/// miss; the same edit to a known kind's name reads.
#[test]
fn an_unknown_build_system_or_key_is_a_miss() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, dir, cache) = setup(tmp.path(), "foo", "");
    let recipe = parse_clean(&src, &dir).unwrap();
    cache.store(&src, &dir, &recipe);
    let good = fs_err::read(cache.entry_file(src.path(), &dir)).unwrap();
    assert!(decode(&edited(&good, b"autotools", b"autotoolz"), &src, &dir).is_none());
    assert!(
        decode(
            &edited(&good, b"configure_args", b"configure_argz"),
            &src,
            &dir
        )
        .is_none()
    );
    let same = edited(&good, b"autotools", b"autotools");
    assert_eq!(
        format!("{:?}", decode(&same, &src, &dir).unwrap()),
        format!("{recipe:?}")
    );
}

/// An edited recipe, or a patch file it checked that changed since: a
/// miss, and the parse reports what changed.
#[test]
fn a_changed_recipe_or_patch_file_is_a_miss() {
    let tmp = tempfile::tempdir().unwrap();
    let patches = tmp.path().join("patches");
    fs_err::create_dir_all(&patches).unwrap();
    fs_err::write(patches.join("fix.patch"), "--- a\n+++ b\n").unwrap();
    let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b"--- a\n+++ b\n"));
    let extra = format!("patches:\n  - {{file: fix.patch, sha256: {sha}}}\n");
    let (src, dir, cache) = setup(tmp.path(), "foo", &extra);
    let recipe = parse_clean(&src, &dir).unwrap();
    cache.store(&src, &dir, &recipe);
    assert!(cache.load(&src, &dir).is_some());
    // The same path with another text.
    let edited = SourceFile::new(src.path(), format!("{}\n", src.text()));
    assert!(cache.load(&edited, &dir).is_none());
    // Another repository directory (its own entry, none yet).
    assert!(cache.load(&src, tmp.path()).is_none());
    fs_err::write(patches.join("fix.patch"), "--- a\n+++ c\n").unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(patches.join("fix.patch"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert!(cache.load(&src, &dir).is_none());
    let mut d = Diagnostics::new();
    parse_package(&src, &dir, &mut d);
    assert!(d.has_errors(), "the checksum mismatch is reported");
}

fn repo(dir: &Path, cache: &Path) -> PackageRepo {
    let dirs = vec![RepoDir {
        path: dir.to_path_buf(),
        origin: RepoOrigin::Flag,
    }];
    PackageRepo::load_with_caches(dirs, None, Some(cache))
}

/// A repository keeps the recipes it loads without a diagnostic; one with
/// a warning is parsed every time, and its warning stays.
#[test]
fn only_recipes_without_diagnostics_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache_dir) = (tmp.path().join("recipes"), tmp.path().join("cache"));
    fs_err::create_dir_all(&dir).unwrap();
    let clean = write_recipe(&dir, "foo", "");
    // An unknown key: a diagnostic, and the recipe still loads.
    let noisy = write_recipe(&dir, "bar", "bogus_key: 1\n");
    let cache = ParsedCache::new(&cache_dir);
    let first = repo(&dir, &cache_dir);
    assert!(first.get("foo").is_some() && first.get("bar").is_some());
    let bar_diags = first.diagnostics("bar").unwrap().clone();
    assert!(!bar_diags.is_empty());
    assert!(cache.entry_file(&clean, &dir).is_file());
    assert!(!cache.entry_file(&noisy, &dir).exists());
    let second = repo(&dir, &cache_dir);
    assert_eq!(
        format!("{:?}", second.get("foo").unwrap()),
        format!("{:?}", first.get("foo").unwrap())
    );
    assert_eq!(
        format!("{:?}", second.diagnostics("bar").unwrap()),
        format!("{bar_diags:?}")
    );
    assert!(second.diagnostics("foo").unwrap().is_empty());
}

/// A cache directory that cannot be made (a file is in its place) costs
/// only the parsing.
#[test]
fn an_unwritable_cache_is_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, dir, _) = setup(tmp.path(), "foo", "");
    let blocked = tmp.path().join("blocked");
    fs_err::write(&blocked, "a file").unwrap();
    let cache = ParsedCache::new(blocked.join("cache"));
    let recipe = parse_clean(&src, &dir).unwrap();
    cache.store(&src, &dir, &recipe);
    assert!(cache.load(&src, &dir).is_none());
    let loaded = repo(&dir, &blocked.join("cache"));
    assert!(loaded.get("foo").is_some());
}
