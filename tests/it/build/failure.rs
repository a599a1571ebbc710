//! A failing package: its phase, the log tail and path; dependents skipped,
//! independent work finished (or not, with fail-fast); clear setup errors.

use std::path::{Path, PathBuf};

use stack::build::*;

use crate::harness::build::*;

/// A source tree whose `configure` prints 40 lines and fails.
fn broken_source(dir: &Path) -> PathBuf {
    let src = dir.join("broken");
    fs_err::create_dir_all(&src).unwrap();
    let script = "#!/bin/sh\necho \"checking for frobnicator... no\"\n\
                  i=1; while [ $i -le 40 ]; do echo \"noise line $i\"; i=$((i+1)); done\n\
                  echo \"configure: error: frobnicator not found\" >&2\nexit 1\n";
    fs_err::write(src.join("configure"), script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs_err::set_permissions(
        src.join("configure"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    src
}

/// Replace the temp dir and the given hashes (8-hex prefixes) for snapshots.
fn redact(text: &str, tmp: &Path, hashes: &[&str]) -> String {
    let mut s = text.replace(&tmp.display().to_string(), "[TMP]");
    for h in hashes {
        s = s.replace(&h[..8], "[HASH]");
    }
    s
}

#[test]
fn failing_configure_reports_phase_and_log_tail_and_skips_dependents() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let broken = job(
        &mount,
        "broken",
        broken_source(tmp.path()),
        BuildSystem::new("autotools"),
    );
    let mut after = generic_headers(&mount);
    after.name = "after".into();
    after.hash = hash_of("after", "1", "x");
    after.prefix = mount.join("after-1-x");
    after.deps = vec![dep(&broken, DepKind::Link)];
    let calc = makefile_calc(&mount);
    let broken_prefix = broken.prefix.clone();
    let broken_slug = broken.slug();
    let broken_hash = broken.hash.clone();
    let calc_prefix = calc.prefix.clone();

    let mut g = BuildGraph::new();
    let b = g.add(broken);
    let a = g.add(after);
    g.add(calc);
    g.depends_on(a, b);
    let rec = Recorder::default();
    let summary = run_plan(&g, &options(&build, &mount, MountMode::Direct), &rec).unwrap();

    assert!(!summary.success());
    let failed: Vec<_> = summary.failed().collect();
    assert_eq!(failed.len(), 1);
    let PackageStatus::Failed {
        phase,
        message,
        log_tail,
    } = &failed[0].status
    else {
        unreachable!()
    };
    assert_eq!(*phase, Phase::Configure);
    assert!(message.contains("exit status 1"), "{message}");
    assert!(message.starts_with("`./configure --prefix="), "{message}");
    assert_eq!(log_tail.len(), TAIL_LINES);
    assert!(
        log_tail
            .iter()
            .any(|l| l == "configure: error: frobnicator not found"),
        "{log_tail:?}"
    );
    assert!(log_tail.iter().any(|l| l == "noise line 40"));
    assert!(
        !log_tail.iter().any(|l| l == "noise line 5"),
        "only the tail"
    );
    let log = failed[0].log.clone().unwrap();
    assert_eq!(log, build.join("logs").join(format!("{broken_slug}.log")));
    assert!(
        fs_err::read_to_string(&log)
            .unwrap()
            .contains("noise line 1\n")
    );

    // The dependent is skipped, the independent package is built.
    let after = &summary.packages[a.0];
    assert_eq!(
        after.status,
        PackageStatus::Skipped {
            because: "dependency `broken` failed".into()
        }
    );
    assert_eq!(
        summary.built().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["calcmk"]
    );
    assert!(
        rec.events
            .borrow()
            .contains(&"skipped after because broken".to_string())
    );

    // Nothing that looks installed is left; the stage is kept for debugging.
    assert!(!broken_prefix.join(".stack/installed.json").exists());
    assert!(
        build
            .join("stage")
            .join(&broken_slug)
            .join("src/configure")
            .exists()
    );
    assert!(calc_prefix.join(".stack/installed.json").exists());

    let rendered = format!(
        "{} failed in phase {phase}: {message}\nlog: {}\n{}",
        failed[0].name,
        log.display(),
        log_tail[log_tail.len() - 4..].join("\n")
    );
    insta::assert_snapshot!(
        "failing_configure",
        redact(&rendered, tmp.path(), &[&broken_hash])
    );
}

#[test]
fn fail_fast_stops_independent_work() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let broken = job(
        &mount,
        "broken",
        broken_source(tmp.path()),
        BuildSystem::new("autotools"),
    );
    let mut after = generic_headers(&mount);
    after.name = "after".into();
    after.prefix = mount.join("after-1");
    let indep = generic_headers(&mount);
    let mut g = BuildGraph::new();
    let b = g.add(broken);
    let a = g.add(after);
    let i = g.add(indep);
    g.depends_on(a, b);
    let mut opts = options(&build, &mount, MountMode::Direct);
    opts.jobs = 1;
    opts.fail_fast = true;
    let summary = run_plan(&g, &opts, &NoopReporter).unwrap();
    assert!(matches!(
        summary.packages[b.0].status,
        PackageStatus::Failed { .. }
    ));
    assert!(
        matches!(&summary.packages[i.0].status, PackageStatus::Skipped { because } if because.contains("fail-fast"))
    );
    assert!(matches!(
        summary.packages[a.0].status,
        PackageStatus::Skipped { .. }
    ));
}

#[test]
fn setup_errors_are_clear() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let opts = options(&build, &mount, MountMode::Direct);

    let mut g = BuildGraph::new();
    let x = g.add(generic_headers(&mount));
    let mut other = generic_headers(&mount);
    other.name = "other".into();
    other.prefix = mount.join("other");
    let y = g.add(other);
    g.depends_on(x, y);
    g.depends_on(y, x);
    let err = run_plan(&g, &opts, &NoopReporter).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the build graph has a dependency cycle: headers -> other -> headers"
    );

    let mut g = BuildGraph::new();
    let mut outside = generic_headers(&mount);
    outside.prefix = "/opt/elsewhere/headers".into();
    g.add(outside);
    let err = run_plan(&g, &opts, &NoopReporter).unwrap_err().to_string();
    insta::assert_snapshot!("prefix_outside_mount", redact(&err, tmp.path(), &[]));

    let mut g = BuildGraph::new();
    let mut nocc = generic_headers(&mount);
    nocc.compiler.cc = "no-such-cc-xyz".into();
    g.add(nocc);
    let err = run_plan(&g, &opts, &NoopReporter).unwrap_err().to_string();
    assert!(
        err.starts_with("compiler `no-such-cc-xyz` not found on PATH"),
        "{err}"
    );

    let mut ns = options(
        &build,
        &tmp.path().join("missing-mount"),
        MountMode::Namespace,
    );
    ns.mount = tmp.path().join("missing-mount");
    let mut g = BuildGraph::new();
    let mut j = generic_headers(&ns.mount);
    j.prefix = ns.mount.join("h");
    g.add(j);
    let err = run_plan(&g, &ns, &NoopReporter).unwrap_err().to_string();
    insta::assert_snapshot!("mount_point_missing", redact(&err, tmp.path(), &[]));
}

#[test]
fn stage_of_a_failed_older_hash_is_removed_by_the_next_build() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let broken = job(
        &mount,
        "broken",
        broken_source(tmp.path()),
        BuildSystem::new("autotools"),
    );
    let old_stage = build.join("stage").join(broken.slug());
    let mut g = BuildGraph::new();
    g.add(broken);
    let opts = options(&build, &mount, MountMode::Direct);
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    assert!(!summary.success());
    assert!(old_stage.is_dir(), "a failed build keeps its stage");

    // The recipe is fixed: same package, new hash. A stage of another
    // package (from another recipe sharing the build dir) stays.
    let other = build.join("stage").join("other-1.0-0123abcd");
    fs_err::create_dir_all(&other).unwrap();
    let mut fixed = generic_headers(&mount);
    fixed.name = "broken".into();
    fixed.hash = hash_of("broken", "1.0", "fixed");
    fixed.prefix = mount.join(format!("broken-1.0-{}", &fixed.hash[..8]));
    let mut g = BuildGraph::new();
    g.add(fixed);
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    assert_success(&summary);
    assert!(!old_stage.exists(), "{} left behind", old_stage.display());
    assert!(other.is_dir());
}

/// A source tree whose `configure` runs `m4`, a host program the job
/// does not declare.
fn m4_source(dir: &Path) -> PathBuf {
    let src = dir.join("usesm4");
    fs_err::create_dir_all(&src).unwrap();
    let script = "#!/bin/sh\nset -e\necho 'define(X, 1)X' | m4 > m4.out\nsed -n p m4.out\n\
                  printf 'all:\\n\\ttrue\\ninstall:\\n\\tmkdir -p $(DESTDIR)%s/share\\n' \"$STACK_PREFIX\" > Makefile\n";
    fs_err::write(src.join("configure"), script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs_err::set_permissions(
        src.join("configure"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    src
}

/// Issue 19: the build PATH holds the base tools and the declared ones,
/// not the host's `/usr/bin`; an undeclared tool is an error naming the
/// package, the recipe and the tool. Declared (an external in `/usr`), it is
/// found, and only it: `/usr/bin` is never on the PATH.
#[test]
fn an_undeclared_host_tool_is_an_error_naming_it_and_a_declared_one_works() {
    assert!(
        Path::new("/usr/bin/m4").exists(),
        "m4 is missing: run scripts/install-deps.sh"
    );
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let mut undeclared = job(
        &mount,
        "usesm4",
        m4_source(tmp.path()),
        BuildSystem::new("autotools"),
    );
    undeclared.recipe = Some("/repo/usesm4.yaml".into());
    let mut g = BuildGraph::new();
    g.add(undeclared.clone());
    let rec = Recorder::default();
    let summary = run_plan(&g, &options(&build, &mount, MountMode::Direct), &rec).unwrap();
    let failed: Vec<_> = summary.failed().collect();
    let PackageStatus::Failed { phase, message, .. } = &failed[0].status else {
        panic!("{:?}", summary.packages)
    };
    assert_eq!(*phase, Phase::Configure);
    insta::assert_snapshot!(
        "undeclared_tool",
        redact(message, tmp.path(), &[&undeclared.hash])
    );
    // The stage's private bin dir: symlinks to base tools only.
    let tools = build.join("stage").join(undeclared.slug()).join("tools");
    assert_eq!(
        fs_err::read_link(tools.join("sed")).unwrap().parent(),
        Some(Path::new("/usr/bin"))
    );
    assert!(!tools.join("m4").exists() && !tools.join("python3").exists());

    // Declared as an external build tool in /usr: m4 (and nothing else) found.
    let mut declared = undeclared;
    declared.deps = vec![host_tool("m4", &["m4"])];
    let build2 = tmp.path().join("build2");
    let mut g = BuildGraph::new();
    g.add(declared.clone());
    let summary = run_plan(&g, &options(&build2, &mount, MountMode::Direct), &rec).unwrap();
    assert!(summary.success(), "{:?}", summary.packages);
    let log = fs_err::read_to_string(build2.join("logs").join(format!("{}.log", declared.slug())))
        .unwrap();
    assert!(log.lines().any(|l| l == "1"), "m4 ran: {log}");
}

/// A configure script that only warns about a missing program, and a make
/// that fails 60 lines later (MPICH's `src/mpl`: `config.status: perl:
/// command not found`, then no `mplconfig.h`): the error names the tool and
/// the log's line, not only the last command.
#[test]
fn a_missing_tool_far_above_the_failure_is_named_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let src = tmp.path().join("warnsperl");
    fs_err::create_dir_all(&src).unwrap();
    let script = "#!/bin/sh\nperl -e 1 || echo 'perl missing, going on'\n\
                  i=0; while [ $i -lt 60 ]; do echo noise $i; i=$((i+1)); done\n\
                  printf 'all:\\n\\ttest -f mplconfig.h\\ninstall:\\n\\ttrue\\n' > Makefile\n";
    fs_err::write(src.join("configure"), script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs_err::set_permissions(
        src.join("configure"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let j = job(&mount, "warnsperl", src, BuildSystem::new("autotools"));
    let mut g = BuildGraph::new();
    g.add(j);
    let summary = run_plan(
        &g,
        &options(&build, &mount, MountMode::Direct),
        &Recorder::default(),
    )
    .unwrap();
    let failed: Vec<_> = summary.failed().collect();
    let PackageStatus::Failed { phase, message, .. } = &failed[0].status else {
        panic!("{:?}", summary.packages)
    };
    assert_eq!(*phase, Phase::Build);
    assert!(
        message.starts_with("warnsperl: `perl` is not on the build PATH (`make` failed; the log says `perl` was not found at line "),
        "{message}"
    );
}

/// A package that fails half-way through its install (lua 5.4.4 in the real
/// prgenv-gnu: `bin/`, `include/` and `lib/` written, then an error) leaves
/// no prefix behind: a partial image or a later run finds nothing
/// half-installed. The stage and the log stay for inspection.
#[test]
fn a_package_failing_during_its_install_leaves_no_prefix() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let mut half = generic_headers(&mount);
    half.name = "half".into();
    half.hash = hash_of("half", "1", "x");
    half.prefix = mount.join("half-1-x");
    half.steps.pre_install = vec![vec![
        "sh".into(),
        "-c".into(),
        r#"mkdir -p "$STACK_PREFIX/bin" && echo tool > "$STACK_PREFIX/bin/tool" && exit 3"#.into(),
    ]];
    let prefix = half.prefix.clone();
    let slug = half.slug();
    let mut g = BuildGraph::new();
    g.add(half);
    let summary = run_plan(
        &g,
        &options(&build, &mount, MountMode::Direct),
        &Recorder::default(),
    )
    .unwrap();
    assert!(!summary.success());
    let failed: Vec<_> = summary.failed().collect();
    assert!(
        matches!(
            failed[0].status,
            PackageStatus::Failed {
                phase: Phase::Install,
                ..
            }
        ),
        "{:?}",
        failed[0].status
    );
    assert!(
        !prefix.exists(),
        "a half-installed prefix is left: {}",
        prefix.display()
    );
    assert!(build.join("stage").join(&slug).join("src").is_dir());
    assert!(failed[0].log.as_ref().unwrap().is_file());
}
