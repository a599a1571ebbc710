//! A small HTTP/1.1 server on 127.0.0.1:0 for fetch tests and the fetch benchmark, with
//! configurable misbehaviour per path. One thread per connection, `Connection: close`.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What a path serves.
#[derive(Clone)]
pub enum Body {
    Bytes(Arc<Vec<u8>>),
    File(PathBuf),
}

impl Body {
    pub fn bytes(b: impl Into<Vec<u8>>) -> Body {
        Body::Bytes(Arc::new(b.into()))
    }
    fn len(&self) -> u64 {
        match self {
            Body::Bytes(b) => b.len() as u64,
            Body::File(p) => std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
        }
    }
}

/// How a path answers.
#[derive(Clone, Debug)]
pub enum Behaviour {
    /// 200 with the body (206 for a range request).
    Ok,
    /// Always this status.
    Status(u16),
    /// `status` for the first `times` requests, then Ok.
    FailThenOk { status: u16, times: usize },
    /// The first `times` requests announce the full length but close after `after` bytes; range
    /// requests are honoured only if `ranges`.
    Truncate {
        times: usize,
        after: usize,
        ranges: bool,
    },
    /// Send `chunk` bytes, sleep `delay`, repeat.
    Slow { chunk: usize, delay: Duration },
    /// Headers and `after` bytes, then nothing for `hold`.
    Stall { after: usize, hold: Duration },
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Hit {
    pub range: Option<String>,
}

struct Route {
    body: Body,
    behaviour: Behaviour,
}

#[derive(Default)]
struct State {
    routes: Mutex<HashMap<String, Route>>,
    hits: Mutex<HashMap<String, Vec<Hit>>>,
    active: AtomicUsize,
    max_active: AtomicUsize,
}

pub struct Server {
    addr: SocketAddr,
    state: Arc<State>,
}

impl Server {
    pub fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State::default());
        let st = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let st = st.clone();
                std::thread::spawn(move || {
                    let now = st.active.fetch_add(1, Ordering::SeqCst) + 1;
                    st.max_active.fetch_max(now, Ordering::SeqCst);
                    let _ = handle(stream, &st);
                    st.active.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        Server { addr, state }
    }

    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base())
    }

    pub fn route(&self, path: &str, body: Body, behaviour: Behaviour) {
        self.state
            .routes
            .lock()
            .unwrap()
            .insert(path.to_string(), Route { body, behaviour });
    }

    pub fn hits(&self, path: &str) -> Vec<Hit> {
        self.state
            .hits
            .lock()
            .unwrap()
            .get(path)
            .cloned()
            .unwrap_or_default()
    }

    pub fn max_concurrency(&self) -> usize {
        self.state.max_active.load(Ordering::SeqCst)
    }
}

fn handle(stream: TcpStream, st: &State) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    let mut range = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("range")
        {
            range = Some(v.trim().to_string());
        }
    }
    let nth = {
        let mut hits = st.hits.lock().unwrap();
        let v = hits.entry(path.clone()).or_default();
        v.push(Hit {
            range: range.clone(),
        });
        v.len() - 1
    };
    let route = st
        .routes
        .lock()
        .unwrap()
        .get(&path)
        .map(|r| (r.body.clone(), r.behaviour.clone()));
    let mut out = stream;
    let Some((body, behaviour)) = route else {
        return status(&mut out, 404);
    };
    let len = body.len();
    let start = |honour: bool| -> u64 {
        if !honour {
            return 0;
        }
        range
            .as_deref()
            .and_then(|r| r.strip_prefix("bytes="))
            .and_then(|r| r.strip_suffix('-'))
            .and_then(|s| s.parse().ok())
            .filter(|&s| s < len)
            .unwrap_or(0)
    };
    match behaviour {
        Behaviour::Status(code) => status(&mut out, code),
        Behaviour::FailThenOk {
            status: code,
            times,
        } if nth < times => status(&mut out, code),
        Behaviour::Truncate {
            times,
            after,
            ranges,
        } => {
            let from = start(ranges);
            headers(&mut out, from, len)?;
            if nth < times {
                send(
                    &mut out,
                    &body,
                    from,
                    Some((from + after as u64).min(len)),
                    None,
                )
            } else {
                send(&mut out, &body, from, None, None)
            }
        }
        Behaviour::Slow { chunk, delay } => {
            headers(&mut out, 0, len)?;
            send(&mut out, &body, 0, None, Some((chunk, delay)))
        }
        Behaviour::Stall { after, hold } => {
            headers(&mut out, 0, len)?;
            send(&mut out, &body, 0, Some((after as u64).min(len)), None)?;
            out.flush()?;
            std::thread::sleep(hold);
            Ok(())
        }
        Behaviour::Ok | Behaviour::FailThenOk { .. } => {
            let from = start(true);
            headers(&mut out, from, len)?;
            send(&mut out, &body, from, None, None)
        }
    }
}

fn status(out: &mut TcpStream, code: u16) -> std::io::Result<()> {
    let msg = format!("status {code}\n");
    write!(
        out,
        "HTTP/1.1 {code} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{msg}",
        msg.len()
    )
}

fn headers(out: &mut TcpStream, from: u64, len: u64) -> std::io::Result<()> {
    if from > 0 {
        write!(
            out,
            "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {from}-{}/{len}\r\n\
             Accept-Ranges: bytes\r\nConnection: close\r\n\r\n",
            len - from,
            len - 1
        )
    } else {
        write!(
            out,
            "HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nAccept-Ranges: bytes\r\nConnection: close\r\n\r\n"
        )
    }
}

/// Send body bytes `from..until` (until the end if `None`), optionally trickling.
fn send(
    out: &mut TcpStream,
    body: &Body,
    from: u64,
    until: Option<u64>,
    slow: Option<(usize, Duration)>,
) -> std::io::Result<()> {
    let mut reader: Box<dyn Read> = match body {
        Body::Bytes(b) => Box::new(std::io::Cursor::new(b.clone().to_vec())),
        Body::File(p) => Box::new(std::fs::File::open(p)?),
    };
    if from > 0 {
        std::io::copy(&mut (&mut reader).take(from), &mut std::io::sink())?;
    }
    let mut reader: Box<dyn Read> = match until {
        Some(u) => Box::new(reader.take(u - from)),
        None => reader,
    };
    match slow {
        None => {
            if let (Body::File(p), None, 0) = (body, until, from) {
                // Fast path for big files (sendfile through std's copy specialisation).
                let mut f = std::fs::File::open(p)?;
                std::io::copy(&mut f, out)?;
            } else {
                std::io::copy(&mut reader, out)?;
            }
        }
        Some((chunk, delay)) => {
            let mut buf = vec![0u8; chunk];
            loop {
                let n = reader.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                out.write_all(&buf[..n])?;
                out.flush()?;
                std::thread::sleep(delay);
            }
        }
    }
    out.flush()
}
