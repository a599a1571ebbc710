//! Choices the solver makes as Spack's would (docs/resolve.md, "Choices"):
//! Spack's default providers (`iconv` → `libiconv`), a dependency cycle as a
//! conflict to backtrack from, and a variant nothing asked for taking its
//! other value to avoid a conflict — after older versions, as in Spack.
//! Small recipes written next to the stack, searched before the fixtures.

use std::path::Path;

use crate::harness::resolve::*;
use stack::resolve::render::{render_choices, render_tree};
use stack::resolve::{Plan, ResolveError, ResolveOptions};

const SHA: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A recipe `name` with versions `versions`, a generic build and `extra`.
fn recipe(name: &str, versions: &[&str], extra: &str) -> String {
    let mut y = format!("name: {name}\ndescription: {name}\nversions:\n");
    for v in versions {
        y.push_str(&format!(
            "  - {{version: \"{v}\", url: https://example.org/{name}-{v}.tgz, sha256: {SHA}}}\n"
        ));
    }
    y.push_str("build: {system: generic}\n");
    y.push_str(extra);
    y
}

/// The recipes of these tests: two `iconv` providers (`aglibc` first by
/// name), a `xiconv` whose first provider closes a build cycle, and `tri`
/// whose 2.0 conflicts with `+aztec ~epetra`.
fn recipes() -> Vec<(&'static str, String)> {
    vec![
        ("aglibc", recipe("aglibc", &["1.0"], "provides: [iconv]\n")),
        (
            "libiconv",
            recipe("libiconv", &["1.0"], "provides: [iconv]\n"),
        ),
        (
            "gtext",
            recipe("gtext", &["1.0"], "dependencies: [iconv, xiconv]\n"),
        ),
        (
            "aaa-libc",
            recipe(
                "aaa-libc",
                &["1.0"],
                "provides: [xiconv]\ndependencies:\n  - {spec: texi, type: [build]}\n",
            ),
        ),
        ("texi", recipe("texi", &["1.0"], "dependencies: [gtext]\n")),
        (
            "zzz-iconv",
            recipe("zzz-iconv", &["1.0"], "provides: [xiconv]\n"),
        ),
        (
            "tri",
            recipe(
                "tri",
                &["2.0", "1.0"],
                "variants:\n  aztec: {default: true}\n  epetra: {default: true}\nconflicts:\n  - {when: \"@2: +aztec ~epetra\", message: aztec needs epetra}\n",
            ),
        ),
    ]
}

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new(skip: &[&str]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("recipes");
        std::fs::create_dir(&repo).unwrap();
        for (name, text) in recipes() {
            if !skip.contains(&name) {
                std::fs::write(repo.join(format!("{name}.yaml")), text).unwrap();
            }
        }
        Fixture { dir }
    }

    fn resolve(&self, body: &str) -> Result<Plan, ResolveError> {
        let file = self.dir.path().join("stack.yaml");
        let text = format!(
            "name: t\nrepos: [{}, {}]\n{body}",
            self.dir.path().join("recipes").display(),
            fixtures().join("recipes").display()
        );
        std::fs::write(&file, text).unwrap();
        let inputs = load(Path::new(&file), "local");
        resolve_inputs(&inputs, &ResolveOptions::default())
    }

    /// The tree and the choices, with the temporary directory as `<dir>`.
    fn render(&self, plan: &Plan) -> String {
        let text = render_tree(plan) + &render_choices(plan);
        let dir = self.dir.path().display().to_string();
        let text = text.replace(&dir, "<dir>");
        // The choices, not the hashes nor the header (fixture paths).
        text.lines()
            .skip_while(|l| !l.starts_with("environment "))
            .map(|l| match l.rsplit_once(" /") {
                Some((head, h)) if h.len() == 8 && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    head.to_string()
                }
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn env(specs: &str) -> String {
    format!("environments:\n  e:\n    specs: [{specs}]\n")
}

#[test]
fn iconv_is_libiconv_unless_a_policy_prefers_another() {
    let f = Fixture::new(&[]);
    let plan = ok(f.resolve(&env("iconv")));
    assert_eq!(env_names(&plan, "e"), ["libiconv"]);
    let plan = ok(f.resolve(
        "environments:\n  e:\n    specs: [iconv]\n    packages:\n      iconv: {prefer: [aglibc]}\n",
    ));
    assert_eq!(env_names(&plan, "e"), ["aglibc"]);
}

#[test]
fn a_provider_that_closes_a_cycle_is_given_up_for_the_next() {
    let f = Fixture::new(&[]);
    // aaa-libc comes first by name, and its build needs texi → gtext →
    // xiconv: a cycle; the search backtracks to zzz-iconv.
    let plan = ok(f.resolve(&env("gtext")));
    assert_eq!(
        env_names(&plan, "e"),
        ["gtext", "libiconv", "zzz-iconv"],
        "{}",
        f.render(&plan)
    );
}

#[test]
fn a_cycle_with_no_other_choice_is_explained() {
    let f = Fixture::new(&["zzz-iconv"]);
    let text = f.resolve(&env("gtext")).unwrap_err().to_string();
    assert!(
        text.contains("dependency cycle: gtext@1.0 → aaa-libc@1.0 → texi@1.0 → gtext@1.0"),
        "{text}"
    );
}

#[test]
fn an_older_version_comes_before_a_flipped_variant() {
    let f = Fixture::new(&[]);
    // Spack's order: a version that works with the defaults first.
    let plan = ok(f.resolve(&env("tri ~epetra")));
    assert_eq!(variants(node(&plan, "tri")), "+aztec ~epetra");
    assert_eq!(node(&plan, "tri").version.to_string(), "1.0");
    // With the version fixed, aztec (nothing asked for it) takes ~aztec.
    let plan = ok(f.resolve(&env("tri@2 ~epetra")));
    assert_eq!(variants(node(&plan, "tri")), "~aztec ~epetra");
    // Asked for, it is not flipped: the conflict is the failure.
    let text = f
        .resolve(&env("tri@2 ~epetra +aztec"))
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("`tri@2.0` conflicts with `@2: +aztec ~epetra`"),
        "{text}"
    );
}

#[test]
fn resolve_choices_are_explained() {
    let f = Fixture::new(&[]);
    let plan = ok(f.resolve(&env("gtext, \"tri@2 ~epetra\"")));
    insta::assert_snapshot!("resolve_choices_tree_and_choices", f.render(&plan));
}
