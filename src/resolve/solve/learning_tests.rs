//! Conflict learning ([`super::nogood`]): a dead end met again is refused
//! at the decision that leads into it, not explored again; the plan is the
//! one the search without learning finds.

use std::sync::{Arc, Mutex};

use super::search_fixture::{Fixture, ok, recipe};
use crate::resolve::{Plan, ResolveOptions, SearchStats};

/// The plan's nodes as `name@version variants`, sorted.
fn nodes(plan: &Plan) -> Vec<String> {
    let mut nodes: Vec<String> = plan
        .graph
        .node_weights()
        .map(|n| {
            let v: Vec<String> = n.variants.iter().map(|(k, v)| v.to_spec_text(k)).collect();
            format!("{}@{} {}", n.name, n.version, v.join(" "))
        })
        .collect();
    nodes.sort();
    nodes
}

/// Resolve `specs` with or without learning: the plan and the counters of
/// the environment's search.
fn search(f: &Fixture, specs: &str, learn: bool) -> (Vec<String>, SearchStats) {
    let stats = Arc::new(Mutex::new(Vec::new()));
    let opts = ResolveOptions {
        no_learning: !learn,
        search_stats: Some(stats.clone()),
        ..ResolveOptions::default()
    };
    let plan = ok(f.resolve_with(specs, &opts));
    let stats = stats.lock().unwrap();
    let [(env, s)] = stats.as_slice() else {
        panic!("one search expected: {stats:?}");
    };
    assert_eq!(env, "e");
    (nodes(&plan), *s)
}

fn write(f: &Fixture, name: &str, versions: &[&str], extra: &str) {
    let path = f.dir.path().join("recipes").join(format!("{name}.yaml"));
    fs_err::write(path, recipe(name, versions, extra)).unwrap();
}

/// pytorch (gh200) in small: `lgrpc@2` (decided first: the roots are
/// decided last to first) asks `lcy@3.1:`, every `lfast` asks `lcy@3.0`,
/// and `lfast` is needed by every `lcupy`, needed by every `lc3`, … by
/// every `lc1`. Without learning, each version of `lc1` decides every
/// version of `lc2`, each of those every version of `lc3` and so on down to
/// `lcupy` — 4^4 of them — before `lgrpc@1`; with learning, a version of
/// `lcN` that failed below is refused wherever it is decided again.
#[test]
fn a_dead_end_is_explored_once() {
    let f = Fixture::new();
    let four = ["4", "3", "2", "1"];
    write(
        &f,
        "lgrpc",
        &["2", "1"],
        "dependencies:\n  - {spec: \"lcy@3.1:\", when: \"@2\"}\n  - {spec: \"lcy@3.0\", when: \"@1\"}\n",
    );
    write(&f, "lc1", &four, "dependencies: [lc2]\n");
    write(&f, "lc2", &four, "dependencies: [lc3]\n");
    write(&f, "lc3", &four, "dependencies: [lcupy]\n");
    write(&f, "lcupy", &four, "dependencies: [lfast]\n");
    write(&f, "lfast", &["2", "1"], "dependencies: [\"lcy@3.0\"]\n");
    write(&f, "lcy", &["3.1", "3.0"], "");
    let specs = "lc1, lgrpc";
    let (plain, without) = search(&f, specs, false);
    let (learnt, with) = search(&f, specs, true);
    assert_eq!(learnt, plain, "learning changed the plan");
    assert!(learnt.contains(&"lgrpc@1 ".to_string()), "{learnt:?}");
    assert!(learnt.contains(&"lc1@4 ".to_string()), "{learnt:?}");
    // without: every combination of lc1, lc2, lc3 and lcupy versions
    assert!(without.decisions > 4 * 4 * 4 * 4, "{without:?}");
    // with: each version of each once, and the plan's decisions
    assert!(with.decisions <= 4 * 4 + 8, "{with:?}");
    assert!(with.pruned > 0 && with.learned > 0, "{with:?}");
    assert!(with.backjumps < without.backjumps, "{with:?} {without:?}");
}

/// cp2k (mc) in small: `ldbcsr +openmp` conflicts with
/// `^lmkl threads=none`, met only once everything is decided. Without
/// learning, every version of `lmkl` is decided with its default
/// `threads=none` and the packages after it decided again; the nogood learnt
/// names what the conflict asks of `lmkl` (`threads=none`), not the version,
/// so the other versions are refused as soon as they are decided.
#[test]
fn a_conflict_on_a_dependency_is_learnt_for_what_it_asks() {
    let f = Fixture::new();
    let versions: Vec<String> = (0..12).map(|i| format!("2025.{}", 11 - i)).collect();
    let versions: Vec<&str> = versions.iter().map(String::as_str).collect();
    write(
        &f,
        "ldbcsr",
        &["2.9"],
        "variants:\n  openmp: {default: true}\ndependencies: [lblas]\n\
         conflicts:\n  - {when: \"+openmp ^lmkl threads=none\"}\n",
    );
    write(
        &f,
        "lblas",
        &["1.0", "0.9"],
        "dependencies:\n  - {spec: lmkl, when: \"@1.0\"}\n  - {spec: lopenb, when: \"@0.9\"}\n",
    );
    write(
        &f,
        "lmkl",
        &versions,
        "variants:\n  threads: {default: none, values: [none, openmp]}\ndependencies: [lx1]\n",
    );
    write(&f, "lx1", &["1"], "dependencies: [lx2]\n");
    write(&f, "lx2", &["1"], "dependencies: [lx3]\n");
    write(&f, "lx3", &["1"], "");
    write(&f, "lopenb", &["0.3"], "");
    let specs = "ldbcsr";
    let (plain, without) = search(&f, specs, false);
    let (learnt, with) = search(&f, specs, true);
    assert_eq!(learnt, plain, "learning changed the plan");
    assert!(learnt.contains(&"lblas@0.9 ".to_string()), "{learnt:?}");
    // without: lmkl and the three after it, for each of its versions
    assert!(without.decisions >= 12 * 4, "{without:?}");
    // with: lmkl's versions, and its dependencies once
    assert!(with.decisions <= 12 + 8, "{with:?}");
    assert!(with.pruned >= 11, "{with:?}");
}
