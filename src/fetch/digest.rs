//! SHA-256 digests: a validated hex type and single-pass hashing of files and streams.

use std::fmt;
use std::io::{self, Read, Write};
use std::path::Path;

use sha2::{Digest, Sha256};

/// Read buffer for hashing and copying (large enough that syscalls are not the cost).
pub(crate) const BUF_SIZE: usize = 1 << 20;

/// A sha256 digest as 64 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sha256Hex(String);

impl Sha256Hex {
    /// Accept 64 hex digits (any case); `None` for anything else.
    pub fn parse(s: &str) -> Option<Sha256Hex> {
        let s = s.trim();
        (s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| Sha256Hex(s.to_ascii_lowercase()))
    }

    pub(crate) fn from_hasher(h: Sha256) -> Sha256Hex {
        Sha256Hex(hex::encode(h.finalize()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The two-digit fan-out directory used by the cache and Spack mirrors.
    pub fn prefix(&self) -> &str {
        &self.0[..2]
    }
}

impl fmt::Display for Sha256Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Hash a whole reader; returns the digest and the number of bytes read.
pub(crate) fn hash_reader(mut r: impl Read) -> io::Result<(Sha256Hex, u64)> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; BUF_SIZE];
    let mut total = 0u64;
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        total += n as u64;
    }
    Ok((Sha256Hex::from_hasher(hasher), total))
}

/// Hash a file on disk.
pub fn sha256_file(path: &Path) -> io::Result<Sha256Hex> {
    Ok(hash_reader(fs_err::File::open(path)?)?.0)
}

/// Copy `r` into `w` while hashing, in one pass; `progress` sees the running byte count.
pub(crate) fn copy_hashing(
    mut r: impl Read,
    mut w: impl Write,
    mut progress: impl FnMut(u64),
) -> io::Result<(Sha256Hex, u64)> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; BUF_SIZE];
    let mut total = 0u64;
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        w.write_all(&buf[..n])?;
        total += n as u64;
        progress(total);
    }
    w.flush()?;
    Ok((Sha256Hex::from_hasher(hasher), total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_hash() {
        assert!(Sha256Hex::parse("abc").is_none());
        assert!(Sha256Hex::parse(&"g".repeat(64)).is_none());
        let h = Sha256Hex::parse(&"AB".repeat(32)).unwrap();
        assert_eq!(h.as_str(), "ab".repeat(32));
        assert_eq!(h.prefix(), "ab");
        let (d, n) = hash_reader(&b"abc"[..]).unwrap();
        assert_eq!(n, 3);
        assert_eq!(
            d.as_str(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let mut out = Vec::new();
        let (d2, _) = copy_hashing(&b"abc"[..], &mut out, |_| {}).unwrap();
        assert_eq!(d, d2);
        assert_eq!(out, b"abc");
    }
}
