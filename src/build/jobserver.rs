//! One GNU make jobserver bounds all parallelism of a build.
//!
//! [`JobServer::new`] creates a pipe with `N` tokens (`-j N`). The scheduler
//! takes one token per running package (the package's *implicit* token: the
//! `make` it starts runs its first job on it, as cargo does for rustc); every
//! further parallel job inside a package takes a token from the same pipe:
//!
//! - `make` (GNU make 4) gets the pipe through `MAKEFLAGS=-j --jobserver-auth=R,W`;
//! - `ninja` 1.13 and newer reads the same `MAKEFLAGS`;
//! - older `ninja` does not speak the protocol: before it starts we take as
//!   many extra tokens as are free right now (without waiting), run
//!   `ninja -j 1+extra`, and give them back when it exits.
//!
//! So the number of running compiler processes never exceeds `N`.

use std::process::Command;
use std::sync::OnceLock;

/// The shared token pool.
#[derive(Debug)]
pub struct JobServer {
    client: jobserver::Client,
    limit: usize,
    /// Our own non-blocking handles on the pipe (a separate open file
    /// description, so children keep their blocking one), for `grab_free`.
    nb_read: std::fs::File,
    nb_write: std::sync::Arc<std::fs::File>,
}

/// Tokens borrowed for a ninja run; returned on drop.
#[derive(Debug)]
pub struct Extra<'a> {
    tokens: Vec<u8>,
    write: &'a std::fs::File,
}

impl Extra<'_> {
    /// Parallelism for the child: its implicit token plus the extras.
    pub fn jobs(&self) -> usize {
        1 + self.tokens.len()
    }
}

impl Drop for Extra<'_> {
    fn drop(&mut self) {
        use std::io::Write;
        if !self.tokens.is_empty() {
            let mut w = self.write;
            if let Err(e) = w.write_all(&self.tokens) {
                tracing::error!("cannot return {} jobserver tokens: {e}", self.tokens.len());
            }
        }
    }
}

impl JobServer {
    pub fn new(limit: usize) -> std::io::Result<Self> {
        let limit = limit.max(1);
        let client = jobserver::Client::new(limit)?;
        let (r, w) = pipe_fds(&client)?;
        let open = |fd: i32, write: bool| {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .read(!write)
                .write(write)
                .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
                .open(format!("/proc/self/fd/{fd}"))
        };
        Ok(JobServer {
            nb_read: open(r, false)?,
            nb_write: std::sync::Arc::new(open(w, true)?),
            client,
            limit,
        })
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    pub fn client(&self) -> &jobserver::Client {
        &self.client
    }

    /// Pass the jobserver to a child (sets `MAKEFLAGS`, keeps the pipe open across exec).
    pub fn configure(&self, cmd: &mut Command) {
        self.client.configure_make(cmd);
    }

    /// Take up to `max` free tokens without waiting.
    pub fn grab_free(&self, max: usize) -> Extra<'_> {
        use std::io::Read;
        let mut tokens = vec![0u8; max];
        let mut r = &self.nb_read;
        let n = loop {
            match r.read(&mut tokens) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break 0,
            }
        };
        tokens.truncate(n);
        Extra {
            tokens,
            write: &self.nb_write,
        }
    }
}

/// The pipe's file descriptors, from the `MAKEFLAGS` the client hands to children.
fn pipe_fds(client: &jobserver::Client) -> std::io::Result<(i32, i32)> {
    let mut cmd = Command::new("true");
    client.configure_make(&mut cmd);
    let flags = cmd
        .get_envs()
        .find(|(k, _)| *k == "MAKEFLAGS")
        .and_then(|(_, v)| v)
        .map(|v| v.to_string_lossy().into_owned())
        .unwrap_or_default();
    flags
        .split_whitespace()
        .find_map(|w| w.strip_prefix("--jobserver-auth="))
        .and_then(|fds| fds.split_once(','))
        .and_then(|(r, w)| Some((r.parse().ok()?, w.parse().ok()?)))
        .ok_or_else(|| std::io::Error::other(format!("unexpected jobserver flags `{flags}`")))
}

/// A token taken without waiting through our own handle; returned on drop.
#[derive(Debug)]
pub struct OwnToken {
    byte: u8,
    write: std::sync::Arc<std::fs::File>,
}

/// A token held for a running package (returned to the pool on drop).
#[derive(Debug)]
#[allow(dead_code)] // held only for its Drop
pub enum Token {
    /// From the helper thread (blocking acquire).
    Helper(jobserver::Acquired),
    /// Taken without waiting.
    Own(OwnToken),
}

impl Drop for OwnToken {
    fn drop(&mut self) {
        use std::io::Write;
        let mut w: &std::fs::File = &self.write;
        if let Err(e) = w.write_all(&[self.byte]) {
            tracing::error!("cannot return a jobserver token: {e}");
        }
    }
}

impl JobServer {
    /// Take one free token without waiting (no helper-thread round trip).
    pub fn try_take(&self) -> Option<OwnToken> {
        use std::io::Read;
        let mut b = [0u8; 1];
        let mut r = &self.nb_read;
        loop {
            match r.read(&mut b) {
                Ok(1) => {
                    return Some(OwnToken {
                        byte: b[0],
                        write: self.nb_write.clone(),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                _ => return None,
            }
        }
    }
}

/// Whether the `ninja` on the host honours the make jobserver (1.13+).
pub fn ninja_has_jobserver(ninja: &std::path::Path) -> bool {
    static CACHE: OnceLock<bool> = OnceLock::new();
    *CACHE.get_or_init(|| {
        let out = Command::new(ninja).arg("--version").output();
        let Ok(out) = out else { return false };
        let v = String::from_utf8_lossy(&out.stdout);
        parse_at_least(v.trim(), 1, 13)
    })
}

fn parse_at_least(v: &str, major: u64, minor: u64) -> bool {
    let mut it = v.split('.').map(|p| {
        p.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse::<u64>()
            .unwrap_or(0)
    });
    let (a, b) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
    (a, b) >= (major, minor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert!(!parse_at_least("1.11.1", 1, 13));
        assert!(parse_at_least("1.13.0", 1, 13));
        assert!(parse_at_least("2.0", 1, 13));
    }

    #[test]
    fn grab_is_bounded() {
        let js = JobServer::new(3).unwrap();
        let held = js.client().acquire().unwrap();
        let extra = js.grab_free(10);
        assert_eq!(extra.jobs(), 3);
        assert!(js.grab_free(1).tokens.is_empty());
        drop(extra);
        drop(held);
        assert_eq!(js.grab_free(10).jobs(), 4);
        let a = js.try_take().unwrap();
        let b = js.try_take().unwrap();
        let c = js.try_take().unwrap();
        assert!(js.try_take().is_none());
        drop((a, b, c));
        assert_eq!(js.client().available().unwrap(), 3);
    }
}
