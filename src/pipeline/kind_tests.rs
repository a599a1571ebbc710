//! A build system kind is one registration: the test-only `probe` kind
//! (`src/build_kinds/probe.rs`, registered in `build_kinds::KINDS` under
//! `cfg(test)` and named in no other file) is checked, written back, hashed
//! and rendered into a build job by code that knows only key types.

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostics, SourceFile};
use crate::recipes::parse_package;
use crate::resolve::{Plan, ResolveOptions, resolve};
use crate::spec::VariantValue;
use crate::stacks::{InputOptions, load_inputs};

const RECIPE: &str = r#"name: pp
description: a package of the test-only kind
versions: [{version: "1.0", url: "https://example.org/pp-1.0.tar.gz", sha256: SHA}]
variants:
  x: {default: false, description: d}
build:
  system: probe
  probe_toggle: {when: "+x"}
  probe_flag: true
  probe_args: ["--p={{ prefix }}", {when: "~x", args: ["--not-x"]}]
  probe_text: sub
"#;

/// A repository holding `pp` (its recipe `text`) and a stack of `pp` and
/// `pp+x`, checked by the loader.
fn load(dir: &Path, text: &str) -> crate::stacks::Inputs {
    let repo = dir.join("repo");
    fs_err::create_dir_all(&repo).unwrap();
    fs_err::write(repo.join("pp.yaml"), text.replace("SHA", &"0".repeat(64))).unwrap();
    let stack = dir.join("stack.yaml");
    fs_err::write(
        &stack,
        "name: t\nenvironments:\n  e: {specs: [pp]}\n  f: {specs: [\"pp+x\"]}\n",
    )
    .unwrap();
    let opts = InputOptions {
        recipe: stack,
        cluster: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("cluster-configs/local")),
        repos: vec![repo],
        ..InputOptions::default()
    };
    load_inputs(&opts).unwrap_or_else(|d| panic!("{d:#?}"))
}

fn plan_of(inputs: &crate::stacks::Inputs) -> Plan {
    resolve(
        &inputs.recipe,
        &inputs.cluster,
        &inputs.repo,
        &ResolveOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The `pp` nodes' (`+x`, hash, job) pairs.
fn jobs_of(plan: &Plan) -> Vec<(bool, String, crate::build::BuildJob)> {
    let mut out: Vec<_> = plan
        .nodes_sorted()
        .into_iter()
        .filter(|&i| plan.node(i).name == "pp")
        .map(|i| {
            let n = plan.node(i);
            let x = n.variants.get("x") == Some(&VariantValue::Bool(true));
            let job = super::build_job(plan, i, PathBuf::from("/src"), 2).unwrap();
            (x, n.hash.clone(), job)
        })
        .collect();
    out.sort_by_key(|(x, _, _)| *x);
    out
}

#[test]
fn a_kind_registered_once_is_checked_written_hashed_and_rendered() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = load(dir.path(), RECIPE);
    assert!(inputs.warnings.is_empty(), "{:?}", inputs.warnings);

    // Written back: non-default keys only, and read again to the same text.
    let recipe = inputs.repo.get("pp").unwrap();
    let text = recipe.to_yaml();
    for key in [
        "system: probe",
        "probe_flag: true",
        "probe_text: sub",
        "--not-x",
    ] {
        assert!(text.contains(key), "{key} missing from\n{text}");
    }
    assert!(
        !text.contains("probe_words"),
        "a default was written:\n{text}"
    );
    let file = dir.path().join("pp.yaml");
    fs_err::write(&file, &text).unwrap();
    let mut d = Diagnostics::new();
    let again = parse_package(&SourceFile::read(&file).unwrap(), dir.path(), &mut d).unwrap();
    assert!(d.is_empty(), "{d}");
    assert_eq!(again.to_yaml(), text);

    // Rendered by key type: the toggle decided, arguments rendered, the
    // words' default filled in; the build side finds the kind by name.
    let plan = plan_of(&inputs);
    let jobs = jobs_of(&plan);
    assert_eq!(jobs.len(), 2);
    let ((_, plain_hash, plain), (_, x_hash, x)) = (&jobs[0], &jobs[1]);
    assert_ne!(plain_hash, x_hash);
    for job in [plain, x] {
        let s = &job.system.settings;
        assert_eq!(job.system.kind, "probe");
        assert!(s.flag("probe_flag"));
        assert_eq!(s.text("probe_text"), Some("sub"));
        assert_eq!(s.list("probe_words"), ["all"]);
        assert_eq!(
            s.list("probe_args")[0],
            format!("--p={}", job.prefix.display())
        );
        let kind = job.system.kind().unwrap();
        assert!(kind.out_of_source(s));
        assert_eq!(
            crate::build::host_tools::build_system_tools(&job.system),
            ["probe-tool"]
        );
    }
    assert!(!plain.system.settings.flag("probe_toggle"));
    assert!(x.system.settings.flag("probe_toggle"));
    assert_eq!(plain.system.settings.list("probe_args").len(), 2);
    assert_eq!(x.system.settings.list("probe_args").len(), 1);

    // The hash covers the kind's keys: another text, another hash.
    let other = tempfile::tempdir().unwrap();
    let changed = load(
        other.path(),
        &RECIPE.replace("probe_text: sub", "probe_text: other"),
    );
    assert_ne!(jobs_of(&plan_of(&changed))[0].1, *plain_hash);
}

#[test]
fn a_kind_refuses_keys_it_does_not_declare() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pp.yaml");
    let text = RECIPE
        .replace("SHA", &"0".repeat(64))
        .replace("probe_flag:", "probe_flags:");
    fs_err::write(&file, text).unwrap();
    let mut d = Diagnostics::new();
    parse_package(&SourceFile::read(&file).unwrap(), dir.path(), &mut d);
    let msg = d.to_string();
    assert!(msg.contains("unknown key `probe_flags`"), "{msg}");
    assert!(msg.contains("probe_flag"), "{msg}");
}
