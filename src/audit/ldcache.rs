//! `/etc/ld.so.cache`: the loader's name → path table written by ldconfig.
//!
//! Both layouts are read: the "new" format (`glibc-ld.so.cache1.1`, the only
//! one glibc ≥ 2.32 writes; 48-byte header, 24-byte entries, string offsets
//! from the start of the new header, optional extension directory with the
//! `glibc-hwcaps` subdirectory names) and the old `ld.so-1.7.0` format, alone
//! or followed by a new-format table. Lookups follow `_dl_load_cache_lookup`:
//! by exact name; flags must match the target; `glibc-hwcaps` entries win by
//! priority if the target supports their subdirectory; entries with legacy
//! hwcap bits are skipped (glibc ≥ 2.37 behaviour; Debian and Fedora caches
//! have none).

use std::collections::HashMap;

use super::loader::LoaderModel;

const OLD_MAGIC: &[u8] = b"ld.so-1.7.0";
const NEW_MAGIC: &[u8] = b"glibc-ld.so.cache";
const NEW_VERSION: &[u8] = b"1.1";
const EXT_MAGIC: u32 = 0xEAA4_2174;
const HWCAP_EXTENSION: u64 = 1 << 62;
const ISA_LEVEL_MASK: u64 = 0x3ff;

/// One cache entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheEntry {
    pub flags: i32,
    pub path: String,
    pub hwcap: u64,
    /// Name of the `glibc-hwcaps` subdirectory for hwcaps entries.
    pub hwcaps_subdir: Option<String>,
}

/// A parsed cache.
#[derive(Clone, Debug, Default)]
pub struct LdCache {
    entries: HashMap<String, Vec<CacheEntry>, std::hash::BuildHasherDefault<super::memo::FxHasher>>,
    count: usize,
    /// The generator string from the extension section, if any.
    pub generator: Option<String>,
}

/// Why a cache file could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CacheError {
    #[error("not an ld.so.cache file (no `ld.so-1.7.0` or `glibc-ld.so.cache1.1` magic)")]
    BadMagic,
    #[error("ld.so.cache is truncated: {0}")]
    Truncated(&'static str),
}

struct Bytes<'a> {
    b: &'a [u8],
    le: bool,
}

impl Bytes<'_> {
    fn u32(&self, off: usize) -> Option<u32> {
        let s: [u8; 4] = self.b.get(off..off.checked_add(4)?)?.try_into().ok()?;
        Some(if self.le {
            u32::from_le_bytes(s)
        } else {
            u32::from_be_bytes(s)
        })
    }
    fn u64(&self, off: usize) -> Option<u64> {
        let s: [u8; 8] = self.b.get(off..off.checked_add(8)?)?.try_into().ok()?;
        Some(if self.le {
            u64::from_le_bytes(s)
        } else {
            u64::from_be_bytes(s)
        })
    }
    fn cstr(&self, off: usize) -> Option<String> {
        let rest = self.b.get(off..)?;
        let nul = rest.iter().position(|&c| c == 0)?;
        Some(String::from_utf8_lossy(&rest[..nul]).into_owned())
    }
}

/// What the old-format part of a cache file holds.
enum Old {
    /// Its entries (no new-format table follows).
    Entries(LdCache),
    /// The offset of the new-format table that follows it.
    NewAt(usize),
}

/// The glibc-hwcaps subdirectory an entry's `hwcap` names, if it names one.
fn hwcaps_subdir(hwcap: u64, names: &[String]) -> Option<String> {
    if hwcap & HWCAP_EXTENSION != 0 && ((hwcap >> 32) & !ISA_LEVEL_MASK) == (1 << 30) {
        Some(
            names
                .get((hwcap & 0xffff_ffff) as usize)
                .cloned()
                .unwrap_or_default(),
        )
    } else {
        None
    }
}

impl LdCache {
    /// Parses a cache file; `big_endian_target` decides the byte order of
    /// files that do not declare one.
    pub fn parse(bytes: &[u8], big_endian_target: bool) -> Result<LdCache, CacheError> {
        let base = if bytes.starts_with(OLD_MAGIC) {
            match Self::parse_old(bytes, big_endian_target)? {
                Old::Entries(cache) => return Ok(cache),
                Old::NewAt(at) => at,
            }
        } else if bytes.starts_with(NEW_MAGIC) {
            0
        } else {
            return Err(CacheError::BadMagic);
        };
        Self::parse_new(&bytes[base..], big_endian_target)
    }

    /// The old format (`ld.so-1.7.0`): its entries, or where the new-format
    /// table that follows it starts.
    fn parse_old(bytes: &[u8], big_endian_target: bool) -> Result<Old, CacheError> {
        // Old header: magic[11] + pad → u32 nlibs at 12; entries of 12 bytes.
        let b = Bytes {
            b: bytes,
            le: !big_endian_target,
        };
        let nlibs = b.u32(12).ok_or(CacheError::Truncated("old header"))? as usize;
        let entries_at = 16usize;
        let strings_at = nlibs
            .checked_mul(12)
            .and_then(|n| n.checked_add(entries_at))
            .filter(|&e| e <= bytes.len())
            .ok_or(CacheError::Truncated("old entries"))?;
        // A new-format table may follow, 8-byte aligned.
        let aligned = (strings_at + 7) & !7;
        if bytes
            .get(aligned..)
            .is_some_and(|r| r.starts_with(NEW_MAGIC))
        {
            return Ok(Old::NewAt(aligned));
        }
        let mut cache = LdCache::default();
        let s = Bytes {
            b: &bytes[strings_at..],
            le: b.le,
        };
        for i in 0..nlibs {
            let e = entries_at + i * 12;
            let (Some(flags), Some(key), Some(value)) = (b.u32(e), b.u32(e + 4), b.u32(e + 8))
            else {
                break;
            };
            if let (Some(k), Some(v)) = (s.cstr(key as usize), s.cstr(value as usize)) {
                cache.push(
                    k,
                    CacheEntry {
                        flags: flags as i32,
                        path: v,
                        hwcap: 0,
                        hwcaps_subdir: None,
                    },
                );
            }
        }
        Ok(Old::Entries(cache))
    }

    /// The new format (`glibc-ld.so.cache1.1`) starting at `data`.
    fn parse_new(data: &[u8], big_endian_target: bool) -> Result<LdCache, CacheError> {
        if !data[NEW_MAGIC.len()..].starts_with(NEW_VERSION) {
            return Err(CacheError::BadMagic);
        }
        if data.len() < 48 {
            return Err(CacheError::Truncated("header"));
        }
        let le = match data[28] {
            2 => true,
            3 => false,
            _ => !big_endian_target,
        };
        let b = Bytes { b: data, le };
        let nlibs = b.u32(20).ok_or(CacheError::Truncated("header"))? as usize;
        let ext_offset = b.u32(32).unwrap_or(0) as usize;
        let mut cache = LdCache::default();
        let hwcaps_names = cache.read_extensions(&b, ext_offset);
        if nlibs
            .checked_mul(24)
            .and_then(|n| n.checked_add(48))
            .is_none_or(|end| end > data.len())
        {
            return Err(CacheError::Truncated("entries"));
        }
        for i in 0..nlibs {
            let e = 48 + i * 24;
            let (Some(flags), Some(key), Some(value), Some(hwcap)) =
                (b.u32(e), b.u32(e + 4), b.u32(e + 8), b.u64(e + 16))
            else {
                break;
            };
            let (Some(k), Some(v)) = (b.cstr(key as usize), b.cstr(value as usize)) else {
                continue;
            };
            cache.push(
                k,
                CacheEntry {
                    flags: flags as i32,
                    path: v,
                    hwcap,
                    hwcaps_subdir: hwcaps_subdir(hwcap, &hwcaps_names),
                },
            );
        }
        Ok(cache)
    }

    /// The extension directory at `ext_offset`: the generator goes into
    /// the cache; returns the hwcaps subdirectory names.
    fn read_extensions(&mut self, b: &Bytes, ext_offset: usize) -> Vec<String> {
        let mut hwcaps_names: Vec<String> = Vec::new();
        if ext_offset == 0 || b.u32(ext_offset) != Some(EXT_MAGIC) {
            return hwcaps_names;
        }
        let count = b.u32(ext_offset + 4).unwrap_or(0) as usize;
        for i in 0..count.min(64) {
            let s = ext_offset + 8 + i * 16;
            let (Some(tag), Some(off), Some(size)) = (b.u32(s), b.u32(s + 8), b.u32(s + 12)) else {
                break;
            };
            match tag {
                0 => {
                    let g =
                        b.b.get(off as usize..(off as usize).saturating_add(size as usize));
                    self.generator = g.map(|g| String::from_utf8_lossy(g).into_owned());
                }
                1 => {
                    for j in 0..(size as usize / 4) {
                        let name = b.u32(off as usize + j * 4).and_then(|o| b.cstr(o as usize));
                        hwcaps_names.push(name.unwrap_or_default());
                    }
                }
                _ => {}
            }
        }
        hwcaps_names
    }

    fn push(&mut self, key: String, e: CacheEntry) {
        self.count += 1;
        self.entries.entry(key).or_default().push(e);
    }

    /// Number of entries read.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// A cache built from (name, path) pairs (the `ld.so.conf` fallback).
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>, flags: i32) -> LdCache {
        let mut c = LdCache::default();
        for (k, v) in pairs {
            c.push(
                k,
                CacheEntry {
                    flags,
                    path: v,
                    hwcap: 0,
                    hwcaps_subdir: None,
                },
            );
        }
        c
    }

    /// The path the loader takes from the cache for `name`, if any.
    pub fn lookup(&self, name: &str, model: &LoaderModel) -> Option<&str> {
        let entries = self.entries.get(name)?;
        let mut best: Option<(usize, &CacheEntry)> = None;
        for e in entries {
            if !model.cache_flags_ok(e.flags) {
                continue;
            }
            match &e.hwcaps_subdir {
                Some(sub) => {
                    if let Some(prio) = model.hwcaps.iter().position(|h| h == sub) {
                        if best.is_none_or(|(p, _)| prio < p) {
                            best = Some((prio, e));
                        }
                    }
                }
                None if e.hwcap != 0 => continue,
                None => {
                    if best.is_none() {
                        return Some(&e.path);
                    }
                    break;
                }
            }
        }
        best.map(|(_, e)| e.path.as_str())
    }

    /// Every (name, path) pair, for diagnostics and tests.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &CacheEntry)> {
        self.entries
            .iter()
            .flat_map(|(k, v)| v.iter().map(move |e| (k.as_str(), e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn x86() -> LoaderModel {
        let mut m = LoaderModel::defaults("x86_64", Path::new("/nonexistent"));
        m.hwcaps = vec!["x86-64-v3".into(), "x86-64-v2".into()];
        m
    }

    /// Builds a new-format cache the way ldconfig lays it out.
    fn build(entries: &[(&str, &str, i32, u64)], hwcaps: &[&str]) -> Vec<u8> {
        let n = entries.len();
        let mut strings = Vec::new();
        let str_base = 48 + n * 24;
        let mut offs = Vec::new();
        for (k, v, _, _) in entries {
            let ko = str_base + strings.len();
            strings.extend_from_slice(k.as_bytes());
            strings.push(0);
            let vo = str_base + strings.len();
            strings.extend_from_slice(v.as_bytes());
            strings.push(0);
            offs.push((ko as u32, vo as u32));
        }
        let mut hw_offs = Vec::new();
        for h in hwcaps {
            hw_offs.push((str_base + strings.len()) as u32);
            strings.extend_from_slice(h.as_bytes());
            strings.push(0);
        }
        while !(str_base + strings.len()).is_multiple_of(4) {
            strings.push(0);
        }
        let ext_off = str_base + strings.len();
        let mut out = Vec::new();
        out.extend_from_slice(b"glibc-ld.so.cache1.1");
        out.extend_from_slice(&(n as u32).to_le_bytes());
        out.extend_from_slice(&(strings.len() as u32).to_le_bytes());
        out.extend_from_slice(&[2, 0, 0, 0]);
        out.extend_from_slice(&(ext_off as u32).to_le_bytes());
        out.extend_from_slice(&[0; 12]);
        for ((_, _, flags, hwcap), (ko, vo)) in entries.iter().zip(&offs) {
            out.extend_from_slice(&flags.to_le_bytes());
            out.extend_from_slice(&ko.to_le_bytes());
            out.extend_from_slice(&vo.to_le_bytes());
            out.extend_from_slice(&0u32.to_le_bytes());
            out.extend_from_slice(&hwcap.to_le_bytes());
        }
        out.extend_from_slice(&strings);
        // extension directory with one hwcaps section
        let sec_data = ext_off + 8 + 16;
        out.extend_from_slice(&EXT_MAGIC.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(sec_data as u32).to_le_bytes());
        out.extend_from_slice(&((hwcaps.len() * 4) as u32).to_le_bytes());
        for o in hw_offs {
            out.extend_from_slice(&o.to_le_bytes());
        }
        out
    }

    #[test]
    fn hwcaps_entries_win_by_priority() {
        let ext = |i: u64| HWCAP_EXTENSION | i;
        let bytes = build(
            &[
                (
                    "libx.so.1",
                    "/usr/lib/glibc-hwcaps/x86-64-v4/libx.so.1",
                    0x0303,
                    ext(0),
                ),
                (
                    "libx.so.1",
                    "/usr/lib/glibc-hwcaps/x86-64-v2/libx.so.1",
                    0x0303,
                    ext(2),
                ),
                (
                    "libx.so.1",
                    "/usr/lib/glibc-hwcaps/x86-64-v3/libx.so.1",
                    0x0303,
                    ext(1),
                ),
                ("libx.so.1", "/usr/lib/libx.so.1", 0x0303, 0),
                ("liby.so", "/usr/lib32/liby.so", 0x0003, 0),
                ("liby.so", "/usr/lib/liby.so", 0x0303, 0),
            ],
            &["x86-64-v4", "x86-64-v3", "x86-64-v2"],
        );
        let c = LdCache::parse(&bytes, false).unwrap();
        assert_eq!(c.len(), 6);
        let m = x86();
        assert_eq!(
            c.lookup("libx.so.1", &m),
            Some("/usr/lib/glibc-hwcaps/x86-64-v3/libx.so.1")
        );
        assert_eq!(c.lookup("liby.so", &m), Some("/usr/lib/liby.so"));
        assert_eq!(c.lookup("libz.so", &m), None);
        let mut plain = m.clone();
        plain.hwcaps.clear();
        assert_eq!(c.lookup("libx.so.1", &plain), Some("/usr/lib/libx.so.1"));
    }

    #[test]
    fn rejects_garbage_and_truncation() {
        assert_eq!(
            LdCache::parse(b"hello", false).unwrap_err(),
            CacheError::BadMagic
        );
        let bytes = build(&[("a", "/a", 0x0303, 0)], &[]);
        for cut in 0..bytes.len() {
            let _ = LdCache::parse(&bytes[..cut], false);
        }
    }

    #[test]
    fn reads_host_cache_like_ldconfig() {
        let Ok(bytes) = std::fs::read("/etc/ld.so.cache") else {
            return;
        };
        let c = LdCache::parse(&bytes, false).unwrap();
        let out = std::process::Command::new("ldconfig").arg("-p").output();
        let Ok(out) = out else { return };
        let text = String::from_utf8_lossy(&out.stdout);
        let mut n = 0;
        for line in text.lines().skip(1) {
            let Some((left, path)) = line.trim().split_once(" => ") else {
                continue;
            };
            let name = left.split(' ').next().unwrap();
            assert!(
                c.iter().any(|(k, e)| k == name && e.path == path),
                "{name} => {path} missing"
            );
            n += 1;
        }
        assert_eq!(n, c.len());
    }
}
