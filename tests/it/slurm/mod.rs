//! `stack build --executor slurm` against a real single-node Slurm cluster
//! (slurmctld + slurmd + munged on loopback, started by each test) and the
//! loopback registry of tests/it/registry as the binary cache: the CXI-mini
//! stack through Slurm gives the image of a local build, byte for byte; a
//! rerun submits nothing; faults (a job cancelled with scancel, jobs whose
//! pushes fail, Ctrl-C, the node going down, a time limit: faults.rs) end
//! with clear errors, and a rerun resubmits only what is missing from the
//! cache; with a shared store the jobs build into the submitter's store
//! (shared.rs).

use crate::harness::{Stack, root};

mod faults;
mod shared;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use crate::harness::registry::{PASSWORD, TestRegistry, USER};
use crate::harness::slurm::{TestSlurm, wait_for};
use base64::Engine;

/// stdout and stderr, with white space (and miette's wrapping) collapsed.
fn text(o: &Output) -> String {
    let t = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let mut out = String::new();
    for line in t.lines() {
        let words: Vec<&str> = line
            .split_whitespace()
            .filter(|w| *w != "│" && *w != "×")
            .collect();
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}

/// `t` on one line, for phrases an error message may have wrapped.
fn flat(t: &str) -> String {
    t.split_whitespace()
        .filter(|w| *w != "|")
        .collect::<Vec<_>>()
        .join(" ")
}

/// One test's world: a Slurm cluster, a registry, a work directory with
/// the registry credentials (docker config), a signing key and a source cache.
struct World {
    slurm: TestSlurm,
    reg: TestRegistry,
    work: tempfile::TempDir,
}

impl World {
    fn start() -> Option<World> {
        let slurm = TestSlurm::start()?;
        let reg = TestRegistry::start_tls();
        let work = tempfile::tempdir().unwrap();
        let w = work.path();
        let auth = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
        fs_err::create_dir_all(w.join("docker")).unwrap();
        fs_err::write(
            w.join("docker/config.json"),
            format!(r#"{{"auths": {{"{}": {{"auth": "{auth}"}}}}}}"#, reg.host()),
        )
        .unwrap();
        let keygen = Stack::bare()
            .command()
            .args(["key", "generate"])
            .arg(w.join("site"))
            .output()
            .unwrap();
        assert!(keygen.status.success());
        Some(World { slurm, reg, work })
    }

    fn w(&self) -> &Path {
        self.work.path()
    }

    /// `stack build RECIPE` into `build` with the binary cache, run from the
    /// source tree; the jobs get the environment (credentials, CA, key).
    fn build(&self, recipe: &str, build: &str, extra: &[&str]) -> Command {
        let mut c = Stack::bare().command();
        c.current_dir(root())
            .env("SLURM_CONF", self.slurm.conf())
            .env("DOCKER_CONFIG", self.w().join("docker"))
            .env("SSL_CERT_FILE", self.reg.ca())
            .env("STACK_SIGNING_KEY", self.w().join("site.key"))
            .env("STACK_CACHE", self.w().join("sources"))
            .env("HOME", "/nonexistent")
            .args(["--color", "never", "build", recipe])
            .args(["--cluster", "cluster-configs/local", "-j", "2"])
            .arg("--build")
            .arg(self.w().join(build))
            .arg("--binary-cache")
            .arg(format!("oci://{}/slurm-cache", self.reg.host()))
            .arg("--trusted-key")
            .arg(self.w().join("site.pub"))
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn run(&self, recipe: &str, build: &str, extra: &[&str]) -> (Output, String) {
        let out = self.build(recipe, build, extra).output().unwrap();
        let t = text(&out);
        eprintln!("{t}");
        (out, t)
    }

    fn image(&self, build: &str) -> Vec<u8> {
        fs_err::read(self.w().join(build).join("store.squashfs")).unwrap()
    }
}

const SLURM: &[&str] = &["--executor", "slurm", "--slurm-poll", "0.3"];
/// One job per package (the fault tests count and pick jobs by package).
const SLURM_EACH: &[&str] = &[
    "--executor",
    "slurm",
    "--slurm-poll",
    "0.3",
    "--group-seconds",
    "0",
];

fn submitted(t: &str) -> usize {
    t.lines().filter(|l| l.contains("submitted as job")).count()
}

#[test]
fn cxi_mini_through_slurm_is_the_image_of_a_local_build() {
    let Some(world) = World::start() else { return };
    // Grouped by estimated cost (nothing recorded yet: by build system):
    // cassini-headers (generic, 2 s) and curl (cmake, 60 s) share a job;
    // libcxi and libfabric (autotools, 90 s each) have one each.
    // (scripts/slurm-overhead.sh measures other thresholds with
    // STACK_SLURM_GROUP_SECONDS.)
    let group = std::env::var("STACK_SLURM_GROUP_SECONDS").ok();
    let mut args = SLURM.to_vec();
    args.extend(["--group-seconds", group.as_deref().unwrap_or("120")]);
    let (out, t) = world.run("stacks/cxi-mini.yaml", "slurm", &args);
    assert!(out.status.success(), "{t}");
    let jobs = if group.is_none() {
        assert_eq!(submitted(&t), 3, "4 packages in 3 jobs:\n{t}");
        assert!(
            t.contains("(mini-cassini-headers, mini-curl)"),
            "the group names its packages:\n{t}"
        );
        3
    } else {
        submitted(&t)
    };
    assert!(
        t.contains("0 built, 4 reused"),
        "everything came from the cache:\n{t}"
    );
    // The jobs' output is streamed into the submitter's.
    assert!(t.contains("| fetched mini-curl@4.0"), "{t}");
    let times: serde_json::Value = serde_json::from_str(
        &fs_err::read_to_string(world.w().join("slurm/slurm/jobs.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(times.as_array().unwrap().len(), jobs);
    let jobs = times.as_array().unwrap();
    assert!(jobs.iter().all(|j| j["state"] == "COMPLETED"), "{times:#}");
    // The build report: every package on the row of the Slurm job that
    // built it, timed from the job's own records.
    let run: serde_json::Value =
        serde_json::from_str(&fs_err::read_to_string(world.w().join("slurm/run.json")).unwrap())
            .unwrap();
    for p in run["packages"].as_array().unwrap() {
        assert_eq!(p["status"], "remote", "{p}");
        assert!(p["lane"].as_str().unwrap().starts_with("slurm "), "{p}");
        let (ready, start) = (p["ready"].as_f64().unwrap(), p["start"].as_f64().unwrap());
        assert!(
            ready <= start + 1.0 && p["seconds"].as_f64().unwrap() > 0.0,
            "{p}"
        );
    }
    let page = fs_err::read_to_string(world.w().join("slurm/report.html")).unwrap();
    assert_eq!(
        page.matches("<g class=\"bar ").count(),
        4,
        "one bar per package"
    );

    // A local build of the same lock file, without the cache: same bytes.
    let lock = world.w().join("slurm/stack.lock");
    let local = Stack::bare()
        .command()
        .current_dir(root())
        .env("HOME", "/nonexistent")
        .args([
            "build",
            "stacks/cxi-mini.yaml",
            "--cluster",
            "cluster-configs/local",
        ])
        .args(["-j", "2", "--locked", "--no-binary-cache", "--lock-file"])
        .arg(&lock)
        .arg("--build")
        .arg(world.w().join("local"))
        .arg("--cache")
        .arg(world.w().join("sources"))
        .output()
        .unwrap();
    assert!(local.status.success(), "{}", text(&local));
    assert!(
        world.image("slurm") == world.image("local"),
        "the Slurm build's image differs from the local build's"
    );
    // scripts/slurm-overhead.sh reads the records of both builds from here.
    if let Ok(dir) = std::env::var("STACK_SLURM_FIGURES") {
        keep_records(world.w(), Path::new(&dir));
    }

    // A rerun elsewhere finds everything in the cache: no job at all.
    let (out, t) = world.run("stacks/cxi-mini.yaml", "again", SLURM);
    assert!(out.status.success(), "{t}");
    assert_eq!(submitted(&t), 0, "{t}");
    assert!(world.image("again") == world.image("local"));
}

/// Copy jobs.json and the build facts (logs/*.json) of the Slurm jobs and
/// of the local build into `to`.
fn keep_records(w: &Path, to: &Path) {
    fs_err::create_dir_all(to.join("jobs")).unwrap();
    fs_err::create_dir_all(to.join("local")).unwrap();
    fs_err::copy(w.join("slurm/slurm/jobs.json"), to.join("jobs.json")).unwrap();
    let facts = |dir: PathBuf, to: PathBuf| {
        for e in fs_err::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json") {
                fs_err::copy(&p, to.join(p.file_name().unwrap())).unwrap();
            }
        }
    };
    for e in fs_err::read_dir(w.join("slurm/slurm")).unwrap().flatten() {
        if e.path().is_dir() {
            facts(e.path().join("logs"), to.join("jobs"));
        }
    }
    facts(w.join("local/logs"), to.join("local"));
}

/// Wait until `n` jobs are in the queue; their `id|state|reason|name` rows.
fn queued(slurm: &TestSlurm, n: usize) -> Vec<String> {
    assert!(
        wait_for(|| slurm.jobs().len() >= n, Duration::from_secs(60)),
        "{:?}",
        slurm.jobs()
    );
    slurm.jobs()
}

fn wait_child(child: Child) -> (Output, String) {
    let out = child.wait_with_output().unwrap();
    let t = text(&out);
    eprintln!("{t}");
    (out, t)
}

#[test]
fn a_cancelled_job_fails_clearly_and_a_rerun_resubmits_only_the_missing() {
    let Some(world) = World::start() else { return };
    // Held jobs: cancel libcalc's, then release the others.
    let mut args = SLURM_EACH.to_vec();
    args.extend(["--slurm-args", "--hold"]);
    let child = world.build("stacks/demo.yaml", "a", &args).spawn().unwrap();
    let rows = queued(&world.slurm, 6);
    let libcalc = rows
        .iter()
        .find(|r| r.ends_with("|stack:libcalc"))
        .and_then(|r| r.split('|').next())
        .expect("libcalc's job")
        .to_string();
    let st = world
        .slurm
        .command("scancel")
        .arg(&libcalc)
        .status()
        .unwrap();
    assert!(st.success());
    for r in rows
        .iter()
        .filter(|r| !r.starts_with(&format!("{libcalc}|")))
    {
        let id = r.split('|').next().unwrap();
        let _ = world
            .slurm
            .command("scontrol")
            .args(["release", id])
            .status();
    }
    let (out, t) = wait_child(child);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let f = flat(&t);
    assert!(f.contains("remote job(s) did not succeed"), "{t}");
    assert!(
        f.contains(&format!("libcalc (job {libcalc}): CANCELLED")),
        "{t}"
    );
    assert!(f.contains("not run: a job it depends on failed"), "{t}");

    // The rerun submits libcalc and what depends on it, nothing else.
    let (out, t) = world.run("stacks/demo.yaml", "a", SLURM_EACH);
    assert!(out.status.success(), "{t}");
    assert_eq!(submitted(&t), 3, "libcalc, hello-make, tally:\n{t}");
    assert!(
        t.contains("libcalc: submitted") && t.contains("tally: submitted"),
        "{t}"
    );
}

#[test]
fn failed_pushes_and_ctrl_c_are_clear() {
    let Some(world) = World::start() else { return };
    // Jobs without registry credentials: nothing can be pushed.
    let mut args = SLURM.to_vec();
    args.extend(["--slurm-args", "--export=ALL,DOCKER_CONFIG=/nonexistent"]);
    let (out, t) = world.run("stacks/demo.yaml", "nopush", &args);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("FAILED"), "{t}");
    assert!(
        flat(&t).contains("the binary cache did not take what was built"),
        "the job's log tail says why:\n{t}"
    );

    // Ctrl-C while jobs wait: every job is cancelled.
    let mut args = SLURM_EACH.to_vec();
    args.extend(["--slurm-args", "--hold"]);
    let child = world
        .build("stacks/demo.yaml", "held", &args)
        .spawn()
        .unwrap();
    let before = world.slurm.jobs().len();
    queued(&world.slurm, before + 6);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let (out, t) = wait_child(child);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        flat(&t).contains("interrupted: cancelled the Slurm jobs"),
        "{t}"
    );
    assert!(
        wait_for(
            || world
                .slurm
                .jobs()
                .iter()
                .filter(|r| r.split('|').nth(1) != Some("CANCELLED")
                    && r.split('|').nth(1) != Some("COMPLETED")
                    && r.split('|').nth(1) != Some("FAILED"))
                .count()
                == 0,
            Duration::from_secs(20)
        ),
        "{:?}",
        world.slurm.jobs()
    );
}
