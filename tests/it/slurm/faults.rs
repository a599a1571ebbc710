//! Faults Slurm itself causes, on tests/fixtures/slurm/sleepy.yaml (a
//! quick package and a slow one that sleeps 100 s on top of it, one job
//! each): the node taken down while the slow job runs, and the slow job
//! killed by its time limit. Each ends in a clear error naming the package,
//! Slurm's state and reason; a rerun resubmits only the slow package.

use super::*;

const SLEEPY: &str = "tests/fixtures/slurm/sleepy.yaml";

/// Wait until the job named `stack:NAME` is RUNNING; its id.
fn running(slurm: &TestSlurm, name: &str) -> String {
    let suffix = format!("|stack:{name}");
    let id = || {
        slurm
            .jobs()
            .into_iter()
            .find(|r| r.ends_with(&suffix) && r.split('|').nth(1) == Some("RUNNING"))
            .and_then(|r| r.split('|').next().map(String::from))
    };
    assert!(
        wait_for(|| id().is_some(), Duration::from_secs(60)),
        "{:?}",
        slurm.jobs()
    );
    id().unwrap()
}

fn scontrol(slurm: &TestSlurm, args: &[&str]) {
    let st = slurm.command("scontrol").args(args).status().unwrap();
    assert!(st.success(), "scontrol {args:?}");
}

/// Bring the node back (refused while the killed job is still completing,
/// and when Slurm already returned it to service: ReturnToService=2) and
/// wait until it takes jobs again.
fn resume(slurm: &TestSlurm) {
    let idle = || {
        slurm
            .command("scontrol")
            .args(["show", "node", "stacknode"])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("State=IDLE"))
    };
    let back = || {
        let _ = slurm
            .command("scontrol")
            .args(["update", "nodename=stacknode", "state=resume"])
            .stderr(Stdio::null())
            .status();
        idle()
    };
    assert!(
        wait_for(back, Duration::from_secs(60)),
        "the node is not idle again"
    );
}

#[test]
fn node_down_and_time_limit_name_the_package_and_a_rerun_resubmits_only_it() {
    let Some(world) = World::start() else { return };
    // The node goes down under the slow job (no requeue: it fails).
    let mut args = SLURM_EACH.to_vec();
    args.extend(["--slurm-args", "--no-requeue"]);
    let child = world.build(SLEEPY, "down", &args).spawn().unwrap();
    let id = running(&world.slurm, "slow-headers");
    scontrol(
        &world.slurm,
        &[
            "update",
            "nodename=stacknode",
            "state=down",
            "reason=test-maintenance",
        ],
    );
    let (out, t) = wait_child(child);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let f = flat(&t);
    assert!(f.contains("1 remote job(s) did not succeed"), "{t}");
    assert!(
        f.contains(&format!("slow-headers (job {id}): NODE_FAIL")),
        "{t}"
    );
    resume(&world.slurm);

    // The slow job hits its time limit (one minute, Slurm's smallest).
    let mut args = SLURM_EACH.to_vec();
    args.extend(["--slurm-args", "--time=1"]);
    let (out, t) = world.run(SLEEPY, "down", &args);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_eq!(submitted(&t), 1, "quick-headers is in the cache:\n{t}");
    let f = flat(&t);
    assert!(f.contains("slow-headers (job"), "{t}");
    assert!(f.contains("): TIMEOUT"), "{t}");

    // A rerun (held, then interrupted) submits the slow package only.
    let mut args = SLURM_EACH.to_vec();
    args.extend(["--slurm-args", "--hold"]);
    let before = world.slurm.jobs().len();
    let child = world.build(SLEEPY, "down", &args).spawn().unwrap();
    let rows = queued(&world.slurm, before + 1);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let (_, t) = wait_child(child);
    assert_eq!(submitted(&t), 1, "{t}");
    assert!(t.contains("slow-headers: submitted"), "{t}");
    assert!(
        rows.iter().any(|r| r.ends_with("|stack:slow-headers")),
        "{rows:?}"
    );
}
