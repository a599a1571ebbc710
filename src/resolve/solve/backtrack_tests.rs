//! The search backtracking on a dependency's requirement that clashes with
//! the others on its package (not only on `conflicts:`): the dependent's
//! older versions first, then a variant of the dependency's condition that
//! nothing asked for, on the recipes of `search_fixture`.

use super::search_fixture::{Fixture, ok, recipe};
use crate::resolve::ResolveOptions;
use crate::resolve::render::render_choices;

#[test]
fn a_dependent_takes_the_version_whose_dependency_meets_a_pinned_one() {
    let f = Fixture::new();
    let plan = ok(f.resolve("\"hp@6.4\", thrust"));
    assert_eq!(f.node(&plan, "thrust"), "thrust@6.4");
    assert_eq!(f.node(&plan, "hp"), "hp@6.4");
}

#[test]
fn a_pinned_version_no_recipe_has_is_the_failure_not_the_clash_before_it() {
    let f = Fixture::new();
    let text = f.resolve("\"hp@5.4\", thrust").unwrap_err().to_string();
    assert!(
        text.contains("no version of `hp` satisfies `@5.4`"),
        "{text}"
    );
}

/// Six packages of ten versions each merely depend on `rbl`; `rsp@7.2`
/// (hipsparse, which needs them, so decided before them) fixed `rcm@7.2`
/// while the stack pins `hp@5.7`. Only `rsp` can change that: blaming the
/// six for `rbl`'s failure too made the search try their 10^6 combinations
/// (q-e-sirius mi200 gave up after 200,000 alternatives).
#[test]
fn only_the_decisions_that_shaped_a_failure_are_backtracked_over() {
    let f = Fixture::new();
    let dir = f.dir.path().join("recipes");
    let versions: Vec<String> = (0..10).map(|i| format!("1.{i}")).collect();
    let versions: Vec<&str> = versions.iter().map(String::as_str).collect();
    let mut users = Vec::new();
    for i in 0..6 {
        let name = format!("u{i}");
        fs_err::write(
            dir.join(format!("{name}.yaml")),
            recipe(&name, &versions, "dependencies: [rbl]\n"),
        )
        .unwrap();
        users.push(name);
    }
    let mut rsp = format!("dependencies: [{}", users.join(", "));
    for v in ["7.2", "6.4", "5.7"] {
        rsp.push_str(&format!(", {{spec: \"rcm@{v}\", when: \"@{v}\"}}"));
    }
    rsp.push_str("]\n");
    fs_err::write(
        dir.join("rsp.yaml"),
        recipe("rsp", &["7.2", "6.4", "5.7"], &rsp),
    )
    .unwrap();
    let specs = "\"hp@5.7\", rsp";
    let opts = ResolveOptions {
        max_steps: Some(5_000),
        ..ResolveOptions::default()
    };
    let plan = ok(f.resolve_with(specs, &opts));
    assert_eq!(f.node(&plan, "rsp"), "rsp@5.7");
    assert_eq!(f.node(&plan, "rbl"), "rbl@5.7");
    assert_eq!(f.node(&plan, "u5"), "u5@1.9");
}

#[test]
fn the_failure_that_ended_the_search_is_reported_with_the_first_clash_below() {
    let f = Fixture::new();
    // lg@2 asks, through mid@2, for fm@12, ump for fm@9:11: backtracking
    // takes lg@1 and gets past that clash; libu's conflict with zz@:1,
    // checked once everything is decided, then ends the search.
    let text = f.resolve("lg, ump, libu").unwrap_err().to_string();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("cannot resolve environment `e`"),
        "{text}"
    );
    assert!(
        lines
            .next()
            .unwrap()
            .contains("`libu@1.0` conflicts with `^zz@:1`"),
        "{text}"
    );
    assert!(
        text.contains(
            "the first clash met, which backtracking went past: `mid@2` requires `fm@12`"
        ),
        "{text}"
    );
}

#[test]
fn when_a_flip_got_past_the_first_cause_the_failure_after_it_is_reported() {
    let f = Fixture::new();
    // cond's default +hdf5_compat clashes with adio's hd@1.12:; the flip
    // to ~hdf5_compat gets past that, and usr's conflict then ends it.
    // The clash refused cond's candidates as they were applied: no failure
    // was met before the one shown.
    let text = f.resolve("usr, adio").unwrap_err().to_string();
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .contains("`usr@1.0` conflicts with `^cond~hdf5_compat`"),
        "{text}"
    );
    assert!(!text.contains("the first clash met"), "{text}");
}

#[test]
fn two_dependents_asking_for_ranges_meet_at_an_older_version() {
    let f = Fixture::new();
    let plan = ok(f.resolve("fm, splog, ump"));
    assert_eq!(f.node(&plan, "splog"), "splog@1.15");
    assert_eq!(f.node(&plan, "fm"), "fm@11.0");
}

#[test]
fn a_default_variant_of_the_condition_flips_after_every_version() {
    let f = Fixture::new();
    let plan = ok(f.resolve("cond, adio"));
    // hdf5_compat exists only with +hdf5: it flips, hdf5 stays.
    assert_eq!(f.node(&plan, "cond"), "cond@0.9 +hdf5 ~hdf5_compat");
    assert_eq!(f.node(&plan, "hd"), "hd@1.14");
    let choices = render_choices(&plan);
    assert!(
        choices.contains("`cond@0.9` takes `~hdf5_compat`, not the default `+hdf5_compat`, as `hd@1.8` when `+hdf5 +hdf5_compat` clashes with the other requirements on `hd`"),
        "{choices}"
    );
    // Asked for, it stays, and the clash is the failure, with positions.
    let text = f
        .resolve("\"cond+hdf5_compat\", adio")
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("`cond` requires `hd@1.8` when `+hdf5 +hdf5_compat` ("),
        "{text}"
    );
    assert!(text.contains("`adio@2.10` requires `hd@1.12:` ("), "{text}");
    assert!(text.contains("; tried 0.9, 0.8"), "{text}");
}

#[test]
fn a_flip_learnt_after_a_conflict_flip_is_tried_too() {
    let f = Fixture::new();
    // tril~epetra flips aztec (a conflict) in the first flipped attempt;
    // then kk+wrapper clashes with `kk~wrapper` and tril takes +wrapper.
    let plan = ok(f.resolve("\"kk+wrapper\", \"tril~epetra\""));
    assert_eq!(
        f.node(&plan, "tril"),
        "tril@16.0 ~aztec ~epetra +kokkos +wrapper"
    );
    // Without the conflict, the same.
    let plan = ok(f.resolve("\"kk+wrapper\", tril"));
    assert_eq!(
        f.node(&plan, "tril"),
        "tril@16.0 +aztec +epetra +kokkos +wrapper"
    );
    // With wrapper asked for, kokkos is the variant left to flip.
    let plan = ok(f.resolve("\"kk+wrapper\", \"tril~wrapper\""));
    assert_eq!(
        f.node(&plan, "tril"),
        "tril@16.0 +aztec +epetra ~kokkos ~wrapper"
    );
    // With both asked for, nothing is: the clash, which refuses tril as it
    // is applied, is the failure.
    let text = f
        .resolve("\"kk+wrapper\", \"tril~wrapper+kokkos\"")
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("`tril@16.0` requires `kk~wrapper` when `+kokkos ~wrapper` ("),
        "{text}"
    );
    assert!(
        text.contains("but the stack asks for `kk+wrapper` ("),
        "{text}"
    );
}

#[test]
fn a_default_variant_asking_for_a_package_no_repository_has_flips() {
    let f = Fixture::new();
    let plan = ok(f.resolve("\"shm +python\""));
    assert_eq!(f.node(&plan, "shm"), "shm@3.4 +python ~pytorch");
    let choices = render_choices(&plan);
    assert!(
        choices.contains("takes `~pytorch`, not the default `+pytorch`, as `no-such-pkg@2.6:` when `+python +pytorch` no repository has a recipe for `no-such-pkg`"),
        "{choices}"
    );
    // Asked for, the missing package is the failure.
    let text = f
        .resolve("\"shm +python +pytorch\"")
        .unwrap_err()
        .to_string();
    assert!(text.contains("no-such-pkg"), "{text}");
}

/// A search that gives up says so, and that the failure shown is the first
/// clash it met, whatever that failure's own hint.
#[test]
fn a_search_that_gives_up_says_so() {
    let f = Fixture::new();
    let opts = ResolveOptions {
        max_steps: Some(2),
        ..ResolveOptions::default()
    };
    let text = f
        .resolve_with("splog, ump, libu", &opts)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("the search gave up after trying 3 alternatives: the failure above is the first clash it met"),
        "{text}"
    );
    assert!(text.contains("to narrow the search"), "{text}");
    // With room, the same search ends on its real failure.
    let text = f.resolve("splog, ump, libu").unwrap_err().to_string();
    assert!(!text.contains("gave up"), "{text}");
}

/// A root's `%virtual=provider` is a requirement, not a preference: when
/// the provider fails, the virtual gets no other one.
#[test]
fn a_provider_a_root_names_for_a_virtual_is_the_only_one() {
    let f = Fixture::new();
    let plan = ok(f.resolve("ms"));
    assert_eq!(f.node(&plan, "lva"), "lva@1.0");
    let text = f.resolve("\"ms %lv=lvm\"").unwrap_err().to_string();
    assert!(text.contains("hp@9"), "{text}");
    assert!(!text.contains("lva"), "{text}");
}

/// Each `provides:` entry of a provider is a way to provide the virtual:
/// llvm provides `libllvm` when `@22`, when `@21`, …; py-llvmlite's
/// `llvm@20` takes the entry that fits.
#[test]
fn every_provides_entry_of_a_provider_is_an_alternative() {
    let f = Fixture::new();
    let plan = ok(f.resolve("lvuser, lvpin"));
    assert_eq!(f.node(&plan, "lvp"), "lvp@1.0");
    let plan = ok(f.resolve("lvuser"));
    assert_eq!(f.node(&plan, "lvp"), "lvp@2.0");
}
