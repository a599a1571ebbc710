//! git repositories served over smart HTTP on 127.0.0.1:0 by the real `git http-backend` (CGI),
//! in plain HTTP or TLS (rustls, with a certificate of [`super::registry::make_ca_and_cert`]).
//! One thread per connection, `Connection: close`. Besides the repositories under the project
//! root, paths can be made to misbehave: a redirect, or a non-git answer.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

/// How requests under a path prefix are answered instead of by `git http-backend`.
#[derive(Clone, Debug)]
pub enum Twist {
    /// `302 Found` to the same path with the prefix replaced by this one.
    Redirect(String),
    /// `200 OK` with this Content-Type and a short body.
    Answer(String),
}

#[derive(Default)]
struct State {
    twists: Mutex<Vec<(String, Twist)>>,
    requests: Mutex<Vec<String>>,
    agents: Mutex<Vec<String>>,
}

/// A running server; it lives as long as the test process (threads are detached).
pub struct GitHttp {
    addr: SocketAddr,
    scheme: &'static str,
    state: Arc<State>,
}

impl GitHttp {
    /// Serve the repositories under `root` over plain HTTP.
    pub fn start(root: &Path) -> GitHttp {
        GitHttp::serve(root, None)
    }

    /// Serve them over HTTPS with `certs/server.pem` and `certs/server.key`.
    pub fn start_tls(root: &Path, certs: &Path) -> GitHttp {
        GitHttp::serve(root, Some(tls_config(certs)))
    }

    fn serve(root: &Path, tls: Option<Arc<rustls::ServerConfig>>) -> GitHttp {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State::default());
        let scheme = if tls.is_some() { "https" } else { "http" };
        let (st, root) = (state.clone(), root.to_path_buf());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (st, root, tls) = (st.clone(), root.clone(), tls.clone());
                std::thread::spawn(move || {
                    let _ = match tls {
                        Some(config) => match rustls::ServerConnection::new(config) {
                            Ok(conn) => handle(rustls::StreamOwned::new(conn, stream), &root, &st),
                            Err(_) => Ok(()),
                        },
                        None => handle(stream, &root, &st),
                    };
                });
            }
        });
        GitHttp {
            addr,
            scheme,
            state,
        }
    }

    /// `http(s)://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("{}://{}{path}", self.scheme, self.addr)
    }

    /// Answer requests under `prefix` with `twist`.
    pub fn twist(&self, prefix: &str, twist: Twist) {
        self.state
            .twists
            .lock()
            .unwrap()
            .push((prefix.to_string(), twist));
    }

    /// The `User-Agent` of every request so far.
    pub fn user_agents(&self) -> Vec<String> {
        self.state.agents.lock().unwrap().clone()
    }

    /// The requests so far, as `METHOD /path?query`.
    pub fn requests(&self) -> Vec<String> {
        self.state.requests.lock().unwrap().clone()
    }
}

fn tls_config(certs: &Path) -> Arc<rustls::ServerConfig> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain = CertificateDer::pem_file_iter(certs.join("server.pem"))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(certs.join("server.key")).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    Arc::new(config)
}

/// One request: parsed, then twisted or handed to `git http-backend`.
fn handle<S: Read + Write>(stream: S, root: &Path, st: &State) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("GET").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    st.requests
        .lock()
        .unwrap()
        .push(format!("{method} {target}"));
    st.agents
        .lock()
        .unwrap()
        .push(headers.get("user-agent").cloned().unwrap_or_default());
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let twist = st
        .twists
        .lock()
        .unwrap()
        .iter()
        .find(|(prefix, _)| path.starts_with(prefix.as_str()))
        .cloned();
    let out = reader.get_mut();
    match twist {
        Some((prefix, Twist::Redirect(to))) => {
            let location = format!("{to}{}", &target[prefix.len()..]);
            respond(out, "302 Found", &[("Location", &location)], b"moved\n")
        }
        Some((_, Twist::Answer(content_type))) => respond(
            out,
            "200 OK",
            &[("Content-Type", &content_type)],
            b"<html>not git</html>\n",
        ),
        None => {
            let cgi = backend(root, &method, path, query, &headers, &body)?;
            forward(out, &cgi)
        }
    }
}

/// Run `git http-backend` for one request; its CGI output.
fn backend(
    root: &Path,
    method: &str,
    path: &str,
    query: &str,
    headers: &HashMap<String, String>,
    body: &[u8],
) -> std::io::Result<Vec<u8>> {
    let header = |k: &str| headers.get(k).cloned().unwrap_or_default();
    let mut child = Command::new("git")
        .arg("http-backend")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("CONTENT_TYPE", header("content-type"))
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("GIT_PROTOCOL", header("git-protocol"))
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().unwrap();
    let body = body.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&body));
    let out = child.wait_with_output()?;
    let _ = writer.join();
    Ok(out.stdout)
}

/// A CGI answer (headers, a blank line, the body) as an HTTP/1.1 response.
fn forward(out: &mut impl Write, cgi: &[u8]) -> std::io::Result<()> {
    let split = cgi
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, i + 4))
        .or_else(|| {
            cgi.windows(2)
                .position(|w| w == b"\n\n")
                .map(|i| (i, i + 2))
        })
        .unwrap_or((cgi.len(), cgi.len()));
    let head = String::from_utf8_lossy(&cgi[..split.0]).into_owned();
    let mut status = "200 OK".to_string();
    let mut headers = Vec::new();
    for line in head.lines() {
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("status") {
                status = v.trim().to_string();
            } else {
                headers.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
    }
    let refs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    respond(out, &status, &refs, &cgi[split.1..])
}

fn respond(
    out: &mut impl Write,
    status: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {status}\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    out.write_all(head.as_bytes())?;
    out.write_all(body)?;
    out.flush()
}

/// A bare copy of `repo` at `root/<name>` for the server (what `git clone --bare` makes).
pub fn publish(repo: &Path, root: &Path, name: &str) -> PathBuf {
    let to = root.join(name);
    let out = Command::new("git")
        .args(["clone", "--quiet", "--bare"])
        .arg(repo)
        .arg(&to)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git clone --bare: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    to
}
