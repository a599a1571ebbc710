//! A single-node Slurm cluster on loopback for one test: munged with its own
//! key and socket, slurmctld and slurmd (4 CPUs) with a slurm.conf generated
//! into a temporary directory, free ports. Needs root (SlurmUser=root) and
//! Debian's slurm-wlm and munge (scripts/install-deps.sh).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct TestSlurm {
    pub dir: tempfile::TempDir,
    children: Vec<Child>,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn daemon(program: &str, args: &[&str], log: &Path, conf: &Path) -> Child {
    Command::new(program)
        .args(args)
        .env("SLURM_CONF", conf)
        .stdout(fs_err::File::create(log).unwrap().into_parts().0)
        .stderr(
            fs_err::File::create(log.with_extension("err"))
                .unwrap()
                .into_parts()
                .0,
        )
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

impl TestSlurm {
    /// The cluster, or `None` (with the reason printed) where this machine
    /// cannot run one: not root, or slurm-wlm/munge not installed.
    pub fn start() -> Option<TestSlurm> {
        if !nix::unistd::Uid::effective().is_root() {
            eprintln!("SKIPPED: a test Slurm cluster runs its daemons as root (SlurmUser=root)");
            return None;
        }
        for p in [
            "munged",
            "slurmctld",
            "slurmd",
            "sbatch",
            "squeue",
            "scancel",
        ] {
            if !have(p) {
                eprintln!(
                    "SKIPPED: {p} is not installed (scripts/install-deps.sh installs slurm-wlm and munge)"
                );
                return None;
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for sub in ["state", "spool", "munge"] {
            fs_err::create_dir_all(d.join(sub)).unwrap();
        }
        let key = d.join("munge/munge.key");
        let mut bytes = vec![0u8; 1024];
        getrandom::fill(&mut bytes).unwrap();
        fs_err::write(&key, bytes).unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs_err::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        let sock = d.join("munge/munge.sock");
        let conf = d.join("slurm.conf");
        let mut slurm = TestSlurm {
            children: Vec::new(),
            dir,
        };
        let d = slurm.dir.path().to_path_buf();
        slurm.children.push(daemon(
            "munged",
            &[
                "-F",
                "-f",
                &format!("--socket={}", sock.display()),
                &format!("--key-file={}", key.display()),
                &format!("--log-file={}", d.join("munge/munged.log").display()),
                &format!("--pid-file={}", d.join("munge/munged.pid").display()),
                &format!("--seed-file={}", d.join("munge/munged.seed").display()),
            ],
            &d.join("munged.out"),
            &conf,
        ));
        if !wait_for(|| sock.exists(), Duration::from_secs(10)) {
            eprintln!(
                "SKIPPED: munged did not start here: {}",
                fs_err::read_to_string(d.join("munged.err")).unwrap_or_default()
            );
            return None;
        }
        let host = String::from_utf8(Command::new("hostname").arg("-s").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string();
        fs_err::write(&conf, slurm_conf(&d, &host, &sock)).unwrap();
        let c = conf.to_str().unwrap();
        slurm.children.push(daemon(
            "slurmctld",
            &["-D", "-i", "-f", c],
            &d.join("slurmctld.out"),
            &conf,
        ));
        slurm.children.push(daemon(
            "slurmd",
            &["-D", "-N", "stacknode", "-f", c],
            &d.join("slurmd.out"),
            &conf,
        ));
        let up = wait_for(
            || {
                slurm
                    .command("sinfo")
                    .args(["--noheader", "--format=%T"])
                    .output()
                    .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
            },
            Duration::from_secs(30),
        );
        assert!(
            up,
            "the test Slurm cluster did not come up:\n{}\n{}",
            fs_err::read_to_string(d.join("slurmctld.log")).unwrap_or_default(),
            fs_err::read_to_string(d.join("slurmd.log")).unwrap_or_default()
        );
        Some(slurm)
    }

    pub fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// A Slurm client command for this cluster.
    pub fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", self.conf());
        c
    }

    /// `squeue --states=all` rows `id|state|reason|name`.
    pub fn jobs(&self) -> Vec<String> {
        let o = self
            .command("squeue")
            .args(["--noheader", "--states=all", "--format=%i|%T|%r|%j"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| l.trim().to_string())
            .collect()
    }
}

pub fn wait_for(mut ok: impl FnMut() -> bool, limit: Duration) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    false
}

fn slurm_conf(d: &Path, host: &str, sock: &Path) -> String {
    let (ctld, slurmd) = (free_port(), free_port());
    let d = d.display();
    format!(
        "ClusterName=stacktest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld}
SlurmdPort={slurmd}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=3600
NodeName=stacknode NodeAddr=127.0.0.1 CPUs=4 RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=stacknode Default=YES MaxTime=INFINITE State=UP
",
        sock = sock.display()
    )
}

impl Drop for TestSlurm {
    fn drop(&mut self) {
        let _ = self.command("scancel").arg("--user=root").status();
        std::thread::sleep(Duration::from_millis(500));
        // slurmd, slurmctld, then munged.
        for c in self.children.iter_mut().rev() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(c.id() as i32),
                nix::sys::signal::Signal::SIGTERM,
            );
            let t = Instant::now();
            while t.elapsed() < Duration::from_secs(5) {
                if matches!(c.try_wait(), Ok(Some(_))) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
