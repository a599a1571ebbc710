//! A tiny HTTP/1.1 proxy on 127.0.0.1 that forwards to a plain-HTTP
//! registry and injects faults: error statuses, truncated or corrupted
//! bodies, delays, dropped connections, or a callback (to kill the registry).
//! One request per connection (`Connection: close`).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// A request as the proxy saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// 0-based number of the request.
    pub n: usize,
    /// The `Authorization` header.
    pub auth: Option<String>,
    /// The proxy's own port.
    pub port: u16,
}

/// What to do with a request.
#[derive(Clone, Debug)]
pub enum Action {
    Forward,
    /// Answer with this status, no forwarding.
    Status(u16),
    /// Forward, then send only this many body bytes and close.
    Truncate(usize),
    /// Forward, flip the last body byte.
    Corrupt,
    /// Wait, then forward.
    Delay(Duration),
    /// Close the connection without answering.
    Drop,
    /// Answer with this status, extra headers and body, no forwarding.
    Respond(u16, Vec<(String, String)>, String),
    /// Answer with this status and extra headers, then stream zeros until
    /// the client hangs up (or `announce` bytes, when given, which are also
    /// sent as Content-Length), counting what was written in `sent`.
    Endless {
        status: u16,
        headers: Vec<(String, String)>,
        announce: Option<u64>,
        sent: Arc<AtomicU64>,
    },
}

type Rule = dyn Fn(&Seen) -> Action + Send + Sync;

pub struct Proxy {
    pub port: u16,
}

impl Proxy {
    /// Start a proxy to `127.0.0.1:upstream` applying `rule` to each request.
    pub fn start(upstream: u16, rule: impl Fn(&Seen) -> Action + Send + Sync + 'static) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let count = Arc::new(AtomicUsize::new(0));
        let rule: Arc<Rule> = Arc::new(rule);
        let c = count.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let rule = rule.clone();
                let n = c.fetch_add(1, Ordering::SeqCst);
                std::thread::spawn(move || {
                    let _ = handle(conn, upstream, port, n, &*rule);
                });
            }
        });
        Proxy { port }
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

fn read_head(s: &mut TcpStream) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            let rest = buf.split_off(i + 4);
            return Ok((buf, rest));
        }
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Err(std::io::Error::other("eof in head"));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

fn find(h: &[u8], needle: &[u8]) -> Option<usize> {
    h.windows(needle.len()).position(|w| w == needle)
}

fn content_length(head: &str) -> usize {
    head.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())
                .flatten()
        })
        .unwrap_or(0)
}

fn header(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
    })
}

fn handle(
    mut client: TcpStream,
    upstream: u16,
    port: u16,
    n: usize,
    rule: &Rule,
) -> std::io::Result<()> {
    let (head, mut body) = read_head(&mut client)?;
    let head = String::from_utf8_lossy(&head).into_owned();
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "the proxy only handles Content-Length bodies"
    );
    let len = content_length(&head);
    while body.len() < len {
        let mut chunk = vec![0u8; (len - body.len()).min(1 << 20)];
        let k = client.read(&mut chunk)?;
        if k == 0 {
            return Ok(());
        }
        body.extend_from_slice(&chunk[..k]);
    }
    let first = head.lines().next().unwrap_or("").to_string();
    let mut parts = first.split(' ');
    let seen = Seen {
        method: parts.next().unwrap_or("").to_string(),
        path: parts.next().unwrap_or("").to_string(),
        n,
        auth: header(&head, "authorization"),
        port,
    };
    let action = rule(&seen);
    match action.clone() {
        Action::Status(code) => {
            let msg = format!(
                "HTTP/1.1 {code} Injected\r\nContent-Length: 8\r\nConnection: close\r\n\r\ninjected"
            );
            return client.write_all(msg.as_bytes());
        }
        Action::Drop => return Ok(()),
        Action::Respond(code, headers, body) => {
            let mut msg = format!(
                "HTTP/1.1 {code} Injected\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                msg.push_str(&format!("{k}: {v}\r\n"));
            }
            msg.push_str("\r\n");
            msg.push_str(&body);
            return client.write_all(msg.as_bytes());
        }
        Action::Endless {
            status,
            headers,
            announce,
            sent,
        } => {
            let mut msg = format!("HTTP/1.1 {status} Injected\r\nConnection: close\r\n");
            if let Some(n) = announce {
                msg.push_str(&format!("Content-Length: {n}\r\n"));
            }
            for (k, v) in headers {
                msg.push_str(&format!("{k}: {v}\r\n"));
            }
            msg.push_str("\r\n");
            client.write_all(msg.as_bytes())?;
            let chunk = vec![b'0'; 64 << 10];
            let mut left = announce.unwrap_or(u64::MAX);
            while left > 0 {
                let n = chunk.len().min(left as usize);
                client.write_all(&chunk[..n])?;
                sent.fetch_add(n as u64, Ordering::SeqCst);
                left -= n as u64;
            }
            return client.flush();
        }
        Action::Delay(d) => std::thread::sleep(d),
        _ => {}
    }
    // Forward with Connection: close.
    let mut up = TcpStream::connect(("127.0.0.1", upstream))?;
    let mut out = String::new();
    for (i, line) in head.trim_end().split("\r\n").enumerate() {
        if i > 0 && line.to_ascii_lowercase().starts_with("connection:") {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    up.write_all(out.as_bytes())?;
    up.write_all(&body)?;
    let mut response = Vec::new();
    up.read_to_end(&mut response)?;
    let split = find(&response, b"\r\n\r\n")
        .map(|i| i + 4)
        .unwrap_or(response.len());
    match action {
        Action::Truncate(k) => {
            let end = (split + k).min(response.len());
            client.write_all(&response[..end])?;
        }
        Action::Corrupt if response.len() > split => {
            let last = response.len() - 1;
            response[last] ^= 0xff;
            client.write_all(&response)?;
        }
        _ => client.write_all(&response)?,
    }
    client.flush()
}
