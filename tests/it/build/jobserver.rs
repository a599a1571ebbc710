//! `-j N` is never exceeded: packages hold one token each, `make` children
//! share the jobserver, old `ninja` gets only the tokens that are free.

use stack::build::*;

use crate::harness::build::*;

#[test]
fn total_parallelism_never_exceeds_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let par = tmp.path().join("par");
    fs_err::create_dir_all(par.join("active")).unwrap();
    let env = vec![EnvOp::Set("PAR_DIR".into(), par.display().to_string())];
    let mk = |name: &str| {
        let mut j = job(
            &mount,
            name,
            fixture("par"),
            BuildSystem::new("makefile").with("install_targets", Vec::<String>::new()),
        );
        j.prefix = mount.join(name);
        j.build_env = env.clone();
        j
    };
    let mut cm = job(
        &mount,
        "par-cmake",
        fixture("par"),
        BuildSystem::new("cmake"),
    );
    cm.build_env = env.clone();
    let mut generic = job(
        &mount,
        "par-generic",
        fixture("par"),
        BuildSystem::new("generic"),
    );
    generic.build_env = env.clone();
    generic.steps.pre_build = vec![vec!["sh".into(), "./work.sh".into()]];

    let mut g = BuildGraph::new();
    g.add(mk("par-make-a"));
    g.add(mk("par-make-b"));
    g.add(cm);
    g.add(generic);
    let mut opts = options(&build, &mount, MountMode::Direct);
    opts.jobs = 3;
    let summary = run_plan(&g, &opts, &NoopReporter).unwrap();
    assert_success(&summary);

    let counts: Vec<usize> = fs_err::read_to_string(par.join("counts"))
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(counts.len(), 6 + 6 + 6 + 1);
    let max = *counts.iter().max().unwrap();
    assert!(max <= 3, "{max} units ran at once with -j3: {counts:?}");
    assert!(max >= 2, "no parallelism at all: {counts:?}");
}
