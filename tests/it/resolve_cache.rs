//! The cache of loaded recipes (`$STACK_CACHE/parsed-recipes/`) as
//! `stack resolve` uses it: the first command writes it, the next one
//! decodes the recipes instead of parsing them, and damaged entries are
//! parsed again, with the same plan and the same messages each time.

use std::path::Path;

use crate::harness::{Run, Stack, root};

const ARGS: [&str; 4] = [
    "resolve",
    "stacks/alps-cxi.yaml",
    "--cluster",
    "cluster-configs/alps-gh200",
];

/// `stack resolve` of the Alps CXI stack with the cache `cache` (`-vvv`
/// when `trace`: the log says which recipes were decoded).
fn resolve(cache: &Path, trace: bool) -> Run {
    let mut args = Vec::from(ARGS);
    if trace {
        args.insert(0, "-vvv");
    }
    let run = Stack::new()
        .current_dir(root())
        .cache(cache)
        .args(args)
        .run();
    run.assert_success();
    run
}

fn entries(cache: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = fs_err::read_dir(cache.join("parsed-recipes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// Lines of a `-vvv` log saying a built-in recipe was parsed, and saying
/// one was decoded from the cache.
fn parsed_and_decoded(log: &str) -> (usize, usize) {
    let recipes = root().join("recipes").display().to_string();
    let lines = || log.lines().filter(|l| l.contains(&recipes));
    (
        lines().filter(|l| l.contains("parsing ")).count(),
        lines()
            .filter(|l| l.contains("from the recipe cache"))
            .count(),
    )
}

#[test]
fn a_second_resolve_decodes_the_recipes_the_first_one_parsed() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let first = resolve(&cache, true);
    let (parsed, decoded) = parsed_and_decoded(&first.stderr);
    assert!(parsed > 20, "{parsed} recipes parsed");
    assert_eq!(decoded, 0);
    let files = entries(&cache);
    assert_eq!(files.len(), parsed, "one entry per recipe parsed");
    for f in &files {
        let bytes = fs_err::read(f).unwrap();
        assert!(
            bytes.starts_with(b"stack-parsed-recipe 1 "),
            "{}",
            f.display()
        );
    }
    // The first command also parsed the recipes that may provide a
    // virtual, to index the built-in repository: the second decodes only
    // the recipes the stack reaches.
    let second = resolve(&cache, true);
    let (parsed_again, decoded) = parsed_and_decoded(&second.stderr);
    assert_eq!(parsed_again, 0);
    assert!(decoded > 20 && decoded <= files.len(), "{decoded} decoded");
    assert_eq!(second.stdout, first.stdout);
    // Without the log: the same plan and messages with the cache and
    // without one.
    let cached = resolve(&cache, false);
    let fresh = resolve(&tmp.path().join("fresh"), false);
    assert_eq!(
        (&cached.stdout, &cached.stderr),
        (&fresh.stdout, &fresh.stderr)
    );
    assert_eq!(cached.stdout, first.stdout);
}

/// Entries cut short, overwritten in the middle or replaced by another
/// recipe's: each recipe is parsed again, the plan is the same, and the
/// entries are written again.
#[test]
fn damaged_entries_are_parsed_again_with_the_same_plan() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let plain = resolve(&cache, false);
    let (_, reached) = parsed_and_decoded(&resolve(&cache, true).stderr);
    let files = entries(&cache);
    let originals: Vec<Vec<u8>> = files.iter().map(|f| fs_err::read(f).unwrap()).collect();
    for (i, f) in files.iter().enumerate() {
        let mut bytes = originals[i].clone();
        match i % 3 {
            0 => bytes.truncate(bytes.len() / 2),
            1 => {
                let mid = bytes.len() / 2;
                bytes[mid..mid + 4].copy_from_slice(b"\xff\x00\xff\x00");
            }
            _ => bytes = originals[(i + 1) % files.len()].clone(),
        }
        fs_err::write(f, bytes).unwrap();
    }
    let damaged = resolve(&cache, true);
    assert_eq!(damaged.stdout, plain.stdout);
    assert_eq!(parsed_and_decoded(&damaged.stderr), (reached, 0));
    let again = resolve(&cache, true);
    assert_eq!(parsed_and_decoded(&again.stderr), (0, reached));
    let quiet = resolve(&cache, false);
    assert_eq!(
        (&quiet.stdout, &quiet.stderr),
        (&plain.stdout, &plain.stderr)
    );
}
