//! Random access to the bytes of a file, for the ELF reader.
//!
//! The loader looks at a few small parts of each file: the ELF and program
//! headers, `PT_INTERP`, `PT_DYNAMIC` and a handful of strings. A
//! [`FileSource`] reads just those ranges with `pread` into buffers reused
//! across files on one thread, instead of mapping the whole file (mapping
//! costs page faults, and unmapping in a multi-threaded process makes every
//! core flush its TLB). Only big ranges — whole string tables and the
//! read-only data of the dlopen scan, in files that import `dlopen` — come
//! from a memory map, made once per file when first needed.
//!
//! [`Bytes`] is the same interface over a file already in memory (squashfs
//! images, tests, the fuzz targets).

use std::cell::RefCell;
use std::io;
use std::os::unix::fs::FileExt;

use super::dlopen;

/// Random access to a file's bytes.
pub trait ReadAt {
    /// Length of the file.
    fn size(&self) -> u64;

    /// The bytes `off..off + len`, fewer where the file ends (none past its
    /// end or when reading fails). The slice lives until the next call.
    fn read_at(&mut self, off: u64, len: u64) -> &[u8];

    /// Appends the library strings of the bytes `start..end` (dlopen scan).
    fn scan_strings(&mut self, start: u64, end: u64, out: &mut Vec<String>) {
        let bytes = self.read_at(start, end.saturating_sub(start));
        dlopen::library_strings(bytes, out);
    }
}

/// A file that is already in memory.
pub struct Bytes<'a>(pub &'a [u8]);

impl ReadAt for Bytes<'_> {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&mut self, off: u64, len: u64) -> &[u8] {
        slice_at(self.0, off, len)
    }
}

/// `bytes[off..off + len]`, clamped to the slice.
fn slice_at(bytes: &[u8], off: u64, len: u64) -> &[u8] {
    let Ok(start) = usize::try_from(off) else {
        return &[];
    };
    if start >= bytes.len() {
        return &[];
    }
    let end = usize::try_from(off.saturating_add(len))
        .unwrap_or(usize::MAX)
        .min(bytes.len());
    &bytes[start..end]
}

thread_local! {
    static POOL: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of the thread's pool, returned to it when dropped: reading
/// thousands of files into fresh allocations keeps the allocator busy.
pub struct PooledBuf(Vec<u8>);

impl PooledBuf {
    pub fn take() -> PooledBuf {
        PooledBuf(POOL.with(|p| p.borrow_mut().pop()).unwrap_or_default())
    }

    pub fn vec(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }
}

impl std::ops::Deref for PooledBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for PooledBuf {
    fn drop(&mut self) {
        let mut v = std::mem::take(&mut self.0);
        if v.capacity() != 0 && v.capacity() <= 1 << 20 {
            v.clear();
            POOL.with(|p| {
                let mut p = p.borrow_mut();
                if p.len() < 8 {
                    p.push(v);
                }
            });
        }
    }
}

/// Reads `buf.len()` bytes at `off`, fewer at the end of the file; returns
/// how many were read.
fn pread_full(file: &std::fs::File, buf: &mut [u8], off: u64) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], off + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// How a [`FileSource`] reads.
#[derive(Clone, Copy, Debug)]
pub struct ReadPolicy {
    /// The first read (ELF header, program headers and, in most libraries,
    /// the symbol and string tables).
    pub head: usize,
    /// Ranges ending before this offset extend the first read (they are
    /// usually the string table right after it).
    pub prefix: u64,
    /// Ranges at least this long come from a memory map of the file.
    pub map: u64,
}

impl Default for ReadPolicy {
    fn default() -> Self {
        ReadPolicy {
            head: 4096,
            prefix: 32 * 1024,
            map: 1 << 20,
        }
    }
}

/// An open host file, read in ranges (see the module documentation).
pub struct FileSource {
    file: Option<std::fs::File>,
    size: u64,
    policy: ReadPolicy,
    /// Bytes `0..head.len()` of the file.
    head: PooledBuf,
    scratch: Option<PooledBuf>,
    map: Option<memmap2::Mmap>,
}

impl FileSource {
    /// Reads the first bytes of `file` (at most `policy.head`); the caller
    /// then decides whether it is worth more (see [`Self::head`]).
    pub fn open(file: std::fs::File, policy: ReadPolicy) -> io::Result<FileSource> {
        let mut head = PooledBuf::take();
        let v = head.vec();
        v.resize(policy.head.max(64), 0);
        let got = pread_full(&file, v, 0)?;
        v.truncate(got);
        Ok(FileSource {
            file: Some(file),
            size: got as u64,
            policy,
            head,
            scratch: None,
            map: None,
        })
    }

    /// The bytes read so far from the start of the file.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// Whether the first read reached the end of the file.
    pub fn read_all(&self) -> bool {
        (self.head.len() as u64) < self.policy.head.max(64) as u64
    }

    /// Sets the file length (from `fstat`) once the file is known to be
    /// worth reading further.
    pub fn set_size(&mut self, size: u64) {
        self.size = size.max(self.head.len() as u64);
    }

    /// Keeps only the first `n` bytes and closes the file (a file that is
    /// not ELF: only its first bytes matter).
    pub fn truncate(&mut self, n: usize) {
        self.head.vec().truncate(n);
        self.size = self.head.len() as u64;
        self.file = None;
    }

    /// `fstat` of the open file.
    pub fn metadata(&self) -> io::Result<std::fs::Metadata> {
        match &self.file {
            Some(f) => f.metadata(),
            None => Err(io::Error::from(io::ErrorKind::NotFound)),
        }
    }

    fn mapped(&mut self) -> Option<&memmap2::Mmap> {
        if self.map.is_none() {
            let file = self.file.as_ref()?;
            // SAFETY: the map is read-only and private to this process; a
            // file changed underneath by another process can at worst give
            // wrong bytes, which the bounds-checked parser tolerates.
            self.map = unsafe { memmap2::Mmap::map(file) }.ok();
        }
        self.map.as_ref()
    }
}

impl ReadAt for FileSource {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&mut self, off: u64, len: u64) -> &[u8] {
        if off >= self.size {
            return &[];
        }
        let end = off.saturating_add(len).min(self.size);
        let have = self.head.len() as u64;
        if end <= have {
            return &self.head[off as usize..end as usize];
        }
        let Some(file) = self.file.as_ref() else {
            return &[];
        };
        if end <= self.policy.prefix {
            // Extend the first read.
            let v = self.head.vec();
            v.resize(end as usize, 0);
            let got = pread_full(file, &mut v[have as usize..], have).unwrap_or(0);
            v.truncate(have as usize + got);
            let end = end.min(v.len() as u64);
            return &self.head[(off.min(end)) as usize..end as usize];
        }
        if end - off >= self.policy.map {
            let Some(map) = self.mapped() else {
                return &[];
            };
            let end = (end as usize).min(map.len());
            return &map[(off as usize).min(end)..end];
        }
        if let Some(map) = &self.map {
            let end = (end as usize).min(map.len());
            return &map[(off as usize).min(end)..end];
        }
        let scratch = self.scratch.get_or_insert_with(PooledBuf::take);
        let v = scratch.vec();
        v.resize((end - off) as usize, 0);
        let got = pread_full(file, v, off).unwrap_or(0);
        v.truncate(got);
        &scratch[..]
    }

    fn scan_strings(&mut self, start: u64, end: u64, out: &mut Vec<String>) {
        let end = end.min(self.size);
        if start >= end {
            return;
        }
        if self.file.is_none() || end <= self.head.len() as u64 {
            dlopen::library_strings(&self.head[start as usize..end as usize], out);
            return;
        }
        // Faulting the map in from parallel chunks was measured faster than
        // chunked `pread` and `MADV_POPULATE_READ`.
        if let Some(map) = self.mapped() {
            let end = (end as usize).min(map.len());
            dlopen::library_strings(&map[(start as usize).min(end)..end], out);
        }
    }
}

/// The contents of a file opened for the loader.
pub enum Contents {
    /// All of it in memory (a file of a squashfs image).
    Bytes(Vec<u8>),
    /// An open host file.
    File(FileSource),
}

impl Contents {
    /// The first bytes of the file (at least 64 when it is that long).
    pub fn head(&self) -> &[u8] {
        match self {
            Contents::Bytes(v) => v,
            Contents::File(f) => f.head(),
        }
    }
}

impl ReadAt for Contents {
    fn size(&self) -> u64 {
        match self {
            Contents::Bytes(v) => v.len() as u64,
            Contents::File(f) => f.size(),
        }
    }

    fn read_at(&mut self, off: u64, len: u64) -> &[u8] {
        match self {
            Contents::Bytes(v) => slice_at(v, off, len),
            Contents::File(f) => f.read_at(off, len),
        }
    }

    fn scan_strings(&mut self, start: u64, end: u64, out: &mut Vec<String>) {
        match self {
            Contents::Bytes(v) => Bytes(v).scan_strings(start, end, out),
            Contents::File(f) => f.scan_strings(start, end, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_match_the_file() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f");
        let data: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
        fs_err::write(&p, &data).unwrap();
        let policy = ReadPolicy {
            head: 100,
            prefix: 1000,
            map: 100_000,
        };
        let mut s = FileSource::open(std::fs::File::open(&p).unwrap(), policy).unwrap();
        assert!(!s.read_all());
        assert_eq!(s.head(), &data[..100]);
        s.set_size(data.len() as u64);
        let mut b = Bytes(&data);
        for (off, len) in [
            (0u64, 10u64),
            (50, 500),
            (900, 200),
            (5000, 20),
            (299_990, 100),
            (300_000, 1),
            (10, 150_000),
            (20_000, 30),
            (u64::MAX - 1, 5),
        ] {
            assert_eq!(s.read_at(off, len), b.read_at(off, len), "{off} {len}");
        }
        let mut a = Vec::new();
        s.scan_strings(0, 10, &mut a);
        assert!(a.is_empty());
    }

    #[test]
    fn short_file_is_read_whole() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f");
        fs_err::write(&p, b"hello").unwrap();
        let mut s =
            FileSource::open(std::fs::File::open(&p).unwrap(), ReadPolicy::default()).unwrap();
        assert!(s.read_all());
        assert_eq!(s.size(), 5);
        assert_eq!(s.read_at(1, 100), b"ello");
        s.truncate(2);
        assert_eq!(s.read_at(0, 100), b"he");
    }
}
