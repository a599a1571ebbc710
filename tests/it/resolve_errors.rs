//! Unsatisfiable stacks: each explanation (the requirements that collide,
//! with file:line, and why each package is there) is snapshot-tested.

use crate::harness::Stack;

use crate::harness::resolve::*;
use stack::resolve::ResolveError;

fn explain(file: &str, cluster: &str) -> String {
    match resolve_fixture(file, cluster) {
        Ok(_) => panic!("{file} resolved, but it should not"),
        Err(e @ ResolveError::Unsatisfiable(_)) => e.to_string(),
        Err(e) => panic!("{file}: unexpected error {e}"),
    }
}

macro_rules! unsat {
    ($test:ident, $file:literal) => {
        unsat!($test, $file, "local");
    };
    ($test:ident, $file:literal, $cluster:literal) => {
        #[test]
        fn $test() {
            insta::assert_snapshot!(explain($file, $cluster));
        }
    };
}

unsat!(single_valued_variant_clash, "unsat-variant-clash.yaml");
unsat!(version_clash, "unsat-version-clash.yaml");
unsat!(recipe_conflict, "unsat-conflict.yaml");
unsat!(no_matching_external, "unsat-external.yaml");
unsat!(inactive_conditional_variant, "unsat-inactive-variant.yaml");
unsat!(provider_condition, "unsat-provider.yaml");
unsat!(backtracking_exhausted, "unsat-backtrack.yaml");
unsat!(conflict_with_the_target, "unsat-target.yaml");
unsat!(compiler_mismatch, "unsat-compiler.yaml");
unsat!(policy_against_root, "unsat-policy.yaml");
unsat!(root_dep_outside_the_closure, "unsat-root-dep.yaml");
unsat!(conflict_naming_a_dependency, "unsat-dep-conflict.yaml");

#[test]
fn explanations_name_every_requirement_with_file_and_line() {
    let text = explain("unsat-variant-clash.yaml", "local");
    assert!(text.contains("tests/fixtures/resolve/recipes/aws-ofi-nccl.yaml:15"));
    assert!(text.contains("tests/fixtures/resolve/stacks/unsat-variant-clash.yaml:8"));
    let err = resolve_fixture("unsat-backtrack.yaml", "local").unwrap_err();
    let e = err.explanation().unwrap();
    assert_eq!(e.environment, "ml");
    // every version, the branch last, is refused as it is applied (what it
    // asks of nccl excludes the stack's nccl): nothing was backtracked over
    assert!(e.tried.is_empty(), "{:?}", e.tried);
    assert!(
        e.lines
            .iter()
            .any(|l| l.text.contains("; tried 1.13.0, 1.9.2, master")),
        "{e:?}"
    );
    assert!(err.is_input_error());
}

/// alps-uenv's prgenv-gnu gh200 asks for `cray-mpich@9.1` (no public
/// recipe has it): the resolver tried every kokkos-kernels and boost version
/// for 12 s and then blamed kokkos. A failure no decision caused ends the
/// search at once and is the failure reported: here aws-ofi-nccl's, whose
/// every version the stack's own nccl pin refuses, met before `zlib@9`.
#[test]
fn a_hopeless_root_is_reported_before_any_backtracking() {
    let err = resolve_fixture("unsat-hopeless.yaml", "local").unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("no candidate for `aws-ofi-nccl` works"),
        "{text}"
    );
    assert!(!text.contains("gave up"), "{text}");
    assert!(err.explanation().unwrap().tried.is_empty(), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn cli_prints_the_explanation_and_exits_2() {
    let out = assert_cmd::Command::from_std(Stack::bare().command())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "resolve",
            "tests/fixtures/resolve/stacks/unsat-variant-clash.yaml",
            "--color",
            "never",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stderr));
}
