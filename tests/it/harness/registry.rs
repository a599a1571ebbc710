//! A real registry for the tests: Debian's `docker-registry` (distribution
//! 2.8) on 127.0.0.1, with TLS from a CA made here (openssl CLI) and
//! htpasswd basic auth (bcrypt entries from `htpasswd -B`), or plain HTTP
//! behind a fault-injecting proxy (the proxy of `tests/it/registry/proxy.rs`).

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::Stack;

pub const USER: &str = "alice";
pub const PASSWORD: &str = "s3cret-pass";

/// `stack --color never` as a registry client: `HOME=/nonexistent`, so
/// no Docker configuration or CA is found but what a test passes (the
/// harness already removes `SSL_CERT_FILE` and `DOCKER_CONFIG`).
pub fn stack_client() -> Command {
    Stack::new().env("HOME", "/nonexistent").command()
}

/// A running registry; killed when dropped.
pub struct TestRegistry {
    pub dir: tempfile::TempDir,
    pub port: u16,
    pub tls: bool,
    child: Option<Child>,
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl TestRegistry {
    /// TLS and basic auth.
    pub fn start_tls() -> TestRegistry {
        Self::start(true)
    }

    /// Plain HTTP, no auth (for the fault proxy in front of it).
    pub fn start_plain() -> TestRegistry {
        Self::start(false)
    }

    fn start(tls: bool) -> TestRegistry {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        if tls {
            make_ca_and_cert(d);
            let out = Command::new("htpasswd")
                .args(["-Bbn", USER, PASSWORD])
                .output()
                .expect("htpasswd (apache2-utils) is installed");
            assert!(out.status.success());
            fs_err::write(d.join("htpasswd"), out.stdout).unwrap();
        }
        let mut r = TestRegistry {
            dir,
            port: free_port(),
            tls,
            child: None,
        };
        r.write_config();
        r.restart();
        r
    }

    fn write_config(&self) {
        let d = self.dir.path();
        let mut cfg = format!(
            "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{}\n",
            d.join("data").display(),
            self.port
        );
        if self.tls {
            cfg.push_str(&format!(
                "  tls:\n    certificate: {}\n    key: {}\nauth:\n  htpasswd:\n    realm: stack-test\n    path: {}\n",
                d.join("server.pem").display(),
                d.join("server.key").display(),
                d.join("htpasswd").display()
            ));
        }
        fs_err::write(d.join("config.yml"), cfg).unwrap();
    }

    /// (Re)start the server process and wait until it accepts connections.
    pub fn restart(&mut self) {
        self.kill();
        let log = std::fs::File::create(self.dir.path().join("registry.log")).unwrap();
        let child = Command::new("docker-registry")
            .arg("serve")
            .arg(self.dir.path().join("config.yml"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("docker-registry is installed (scripts/install-deps.sh)");
        self.child = Some(child);
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "registry did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kill the server process (SIGKILL).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map(|c| c.id()).unwrap_or(0)
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn ca(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// The blob files of the filesystem storage driver.
    pub fn blob_path(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").unwrap();
        self.dir
            .path()
            .join("data/docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }
}

impl Drop for TestRegistry {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A CA and a server certificate for 127.0.0.1 signed by it.
pub fn make_ca_and_cert(d: &Path) {
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    run(Command::new("openssl")
        .args(["req", "-x509"])
        .args(ec)
        .args(["-keyout", "ca.key", "-out", "ca.pem", "-days", "2"])
        .args(["-subj", "/CN=stack test CA"])
        .current_dir(d));
    run(Command::new("openssl")
        .arg("req")
        .args(ec)
        .args(["-keyout", "server.key", "-out", "server.csr"])
        .args(["-subj", "/CN=127.0.0.1"])
        .current_dir(d));
    fs_err::write(
        d.join("ext.cnf"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    run(Command::new("openssl")
        .args([
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
        ])
        .args([
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ])
        .current_dir(d));
}
