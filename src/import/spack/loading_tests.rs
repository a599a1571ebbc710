//! Causes of written recipes that stack then refused to load (issue #34,
//! "packages written that do not load"), one fixture package.py each
//! (tests/fixtures/import/loading, written for these tests): every imported
//! recipe loads, and says what the package.py says or flags the difference.

use std::path::{Path, PathBuf};

use crate::import::{ImportOptions, import_spack};

/// Import every fixture; the directory of recipes and the temporary
/// directory (kept alive).
fn import_all() -> (PathBuf, tempfile::TempDir) {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("recipes");
    import_spack(&ImportOptions {
        from: Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/loading"),
        packages: Vec::new(),
        out: out.clone(),
        with_repos: Vec::new(),
        dry_run: false,
    })
    .unwrap();
    (out, t)
}

/// The recipe's text, after checking that stack loads it.
fn loaded(out: &Path, name: &str) -> String {
    let file = out.join(format!("{name}.yaml"));
    let (_, diags) = crate::recipes::load_package(&file, out);
    let text = fs_err::read_to_string(&file).unwrap();
    assert!(!diags.has_errors(), "{name}: {diags:?}\n{text}");
    text
}

/// `variant(name="int64", …)` was not read ("no name"): the recipe had
/// conditions on a variant it did not define (phist,
/// sandia-micro-benchmarks).
#[test]
fn a_variant_named_by_keyword_is_defined() {
    let (out, _t) = import_all();
    let r = loaded(&out, "keyword-variant-demo");
    assert!(r.contains("int64: {default: true"), "{r}");
    assert!(
        r.contains(r#"{spec: "metis+int64", when: "+int64"}"#),
        "{r}"
    );
    assert!(!r.contains("no name"), "{r}");
}

/// A condition naming a variant, a platform or a version twice was written
/// as it is (easi, gasnet, seissol, eckit; curl; acts-algebra-plugins,
/// detray, gaudi, podio): a multi-valued variant's values are merged as
/// Spack merges them, and what can never hold is left out with a note.
#[test]
fn repeated_atoms_merge_or_are_left_out() {
    let (out, _t) = import_all();
    let r = loaded(&out, "repeated-atoms-demo");
    assert!(
        r.contains(r#"{when: "jit=fast,fast-llvm", message: "choose one fast backend"}"#),
        "{r}"
    );
    assert!(!r.contains("message: \"never holds\""), "{r}");
    // what never holds is only in the notes, not in a condition
    assert!(!r.contains("when: \"mode=a mode=b"), "{r}");
    assert!(!r.contains("platform=windows platform=darwin"), "{r}");
    assert!(
        !r.contains("when: \"platform=darwin platform=windows"),
        "{r}"
    );
    assert!(!r.contains("zlib"), "{r}");
    assert!(r.contains("condition never holds"), "{r}");
    assert!(!r.contains("spec syntax"), "{r}");
}

/// `default=fast_network()` (a probe of the host Spack runs on) dropped
/// the variant and left conditions on it (aluminum, lbann, scr): the
/// variant is written with a default that is reported.
#[test]
fn host_computed_defaults_are_written_and_reported() {
    let (out, _t) = import_all();
    let r = loaded(&out, "host-default-demo");
    assert!(r.contains("network: {default: false"), "{r}");
    assert!(r.contains("default: SLURM"), "{r}");
    assert!(r.contains(r#"{spec: libfabric, when: "+network"}"#), "{r}");
    assert_eq!(
        r.matches("construct: \"variant default\"").count(),
        2,
        "{r}"
    );
    assert!(
        r.contains("`fast_network()` is computed on the host"),
        "{r}"
    );
}

/// A variant named `cflags` or `compiler` (athena, timemory) cannot be
/// spelled in a stack spec: it is reported, not written.
#[test]
fn reserved_variant_names_are_reported_not_written() {
    let (out, _t) = import_all();
    let r = loaded(&out, "reserved-variant-demo");
    assert!(!r.contains("cflags: {"), "{r}");
    assert!(!r.contains("compiler: {"), "{r}");
    assert!(r.contains("python: {default: false"), "{r}");
    assert_eq!(r.matches("variant name reserved").count(), 2, "{r}");
}

/// A patch whose `sha256=` is a sha1 (py-xtb) was written with it, which
/// stack refuses: it is reported as a patch without a sha256.
#[test]
fn a_patch_with_a_sha1_digest_is_reported() {
    let (out, _t) = import_all();
    let r = loaded(&out, "sha1-patch-demo");
    assert!(
        !r.contains("0123456789abcdef0123456789abcdef01234567\"\n"),
        "{r}"
    );
    assert!(r.contains("https://example.org/good.patch"), "{r}");
    assert!(r.contains("is not a sha256 (40 characters)"), "{r}");
}

/// An external-only package with a helper class and no version (msvc)
/// became a `system: spack` recipe without versions: it stays external.
#[test]
fn an_external_only_package_with_helpers_stays_external() {
    let (out, _t) = import_all();
    let r = loaded(&out, "external-helper-demo");
    assert!(r.contains("system: external"), "{r}");
    assert!(!r.contains("system: spack"), "{r}");
}
