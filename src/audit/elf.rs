//! Reading the parts of an ELF file that the dynamic loader looks at.
//!
//! Nothing is executed. The header and program headers are parsed with
//! goblin; the dynamic section is read through `PT_DYNAMIC` and its string
//! table through `DT_STRTAB` (mapped to a file offset with the `PT_LOAD`
//! segments), exactly the way `ld.so` finds them, so stripped files and files
//! without section headers work. Every offset is bounds-checked: malformed
//! input yields [`ElfInfo::malformed`] or a [`Candidate`] verdict, never a
//! panic (see the proptest at the bottom and `tests/it/audit_fuzz.rs`).

use goblin::container::{Container, Ctx, Endian};
use goblin::elf::dynamic::{
    DT_FLAGS, DT_FLAGS_1, DT_GNU_HASH, DT_HASH, DT_NEEDED, DT_NULL, DT_RPATH, DT_RUNPATH,
    DT_SONAME, DT_STRSZ, DT_STRTAB, DT_SYMENT, DT_SYMTAB,
};
use goblin::elf::header::{ELFCLASS32, ELFCLASS64, ELFDATA2LSB, ELFDATA2MSB, ET_DYN, ET_EXEC};
use goblin::elf::program_header::{PT_DYNAMIC, PT_INTERP, PT_LOAD, ProgramHeader};
use serde::Serialize;

use super::source::{Bytes, ReadAt};

/// `DF_1_NODEFLIB`: do not search the default library directories.
pub const DF_1_NODEFLIB: u64 = 0x800;
/// `DF_1_PIE`: a position-independent executable.
pub const DF_1_PIE: u64 = 0x0800_0000;

/// The 4-byte ELF magic.
pub const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

/// What kind of ELF file this is, as far as linkage is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ElfKind {
    /// Has a `PT_INTERP`: started by the kernel through the dynamic loader.
    Executable,
    /// `ET_DYN` without `PT_INTERP`: a shared library.
    Library,
    /// `ET_EXEC`/`ET_DYN` without `PT_DYNAMIC`: nothing to resolve.
    Static,
    /// `ET_REL`, `ET_CORE`, …: not loadable.
    Other,
}

/// The loader-relevant contents of one ELF file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ElfInfo {
    /// The 16 `e_ident` bytes (class, data, version, OS ABI, padding).
    pub ident: [u8; 16],
    pub e_type: u16,
    pub machine: u16,
    pub e_version: u32,
    /// `e_phentsize` matches the class (`ld.so` rejects the file otherwise).
    pub phentsize_ok: bool,
    /// `PT_INTERP`, if any.
    pub interp: Option<String>,
    /// Has a `PT_DYNAMIC` segment.
    pub dynamic: bool,
    /// Shared strings: the load simulation hands them around a lot.
    pub needed: Vec<std::sync::Arc<str>>,
    /// `DT_RPATH` as written in the file (see [`ElfInfo::effective_rpath`]).
    pub rpath: Option<String>,
    pub runpath: Option<String>,
    pub soname: Option<String>,
    pub flags: u64,
    pub flags_1: u64,
    /// Imports `dlopen`, `dlmopen` or libltdl's `lt_dlopen*`.
    pub imports_dlopen: bool,
    /// Library-looking strings in read-only data (filled only when asked for
    /// and the file imports `dlopen`).
    pub dlopen_strings: Vec<String>,
    /// A `$` appears in RPATH, RUNPATH or a NEEDED entry.
    pub tokens: bool,
    /// Why the file cannot be loaded although its header looked fine
    /// (truncated program headers, dynamic section outside the file, …).
    pub malformed: Option<String>,
}

impl ElfInfo {
    pub fn class(&self) -> u8 {
        self.ident[4]
    }

    pub fn data(&self) -> u8 {
        self.ident[5]
    }

    pub fn kind(&self) -> ElfKind {
        if self.e_type != ET_DYN && self.e_type != ET_EXEC {
            ElfKind::Other
        } else if !self.dynamic {
            ElfKind::Static
        } else if self.interp.is_some() {
            ElfKind::Executable
        } else {
            ElfKind::Library
        }
    }

    /// `DT_RPATH` as the loader uses it: ignored when `DT_RUNPATH` is present
    /// (glibc erases it while reading the dynamic section).
    pub fn effective_rpath(&self) -> Option<&str> {
        if self.runpath.is_some() {
            None
        } else {
            self.rpath.as_deref()
        }
    }

    /// Whether a `$` appears in the strings the loader expands.
    pub fn uses_tokens(&self) -> bool {
        self.tokens
    }

    pub fn nodeflib(&self) -> bool {
        self.flags_1 & DF_1_NODEFLIB != 0
    }
}

/// Endian-aware integer reads from a byte slice, with bounds checks.
#[derive(Clone, Copy)]
pub(super) struct Order(bool);

impl Order {
    pub(super) fn u16(self, b: &[u8], off: usize) -> Option<u16> {
        let b: [u8; 2] = b.get(off..off.checked_add(2)?)?.try_into().ok()?;
        Some(if self.0 {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        })
    }

    pub(super) fn u32(self, b: &[u8], off: usize) -> Option<u32> {
        let b: [u8; 4] = b.get(off..off.checked_add(4)?)?.try_into().ok()?;
        Some(if self.0 {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    pub(super) fn u64(self, b: &[u8], off: usize) -> Option<u64> {
        let b: [u8; 8] = b.get(off..off.checked_add(8)?)?.try_into().ok()?;
        Some(if self.0 {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        })
    }
}

/// The bytes before the first NUL, if there is one.
pub(super) fn until_nul(b: &[u8]) -> Option<&[u8]> {
    memchr::memchr(0, b).map(|n| &b[..n])
}

fn lossy(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// Translates a virtual address to a file offset through the `PT_LOAD`
/// segments (only the file-backed part of a segment counts).
pub(super) fn vaddr_to_offset(phdrs: &[ProgramHeader], vaddr: u64) -> Option<u64> {
    phdrs
        .iter()
        .filter(|p| p.p_type == PT_LOAD)
        .find(|p| vaddr >= p.p_vaddr && vaddr - p.p_vaddr < p.p_filesz)
        .and_then(|p| p.p_offset.checked_add(vaddr - p.p_vaddr))
}

/// Parses `bytes` (the whole file). Returns `None` when the bytes are not an
/// ELF file at all (no magic, or shorter than an ELF identification). Files
/// with a valid identification but broken structure come back with
/// [`ElfInfo::malformed`] set.
pub fn parse(bytes: &[u8], scan_dlopen: bool) -> Option<ElfInfo> {
    parse_from(&mut Bytes(bytes), scan_dlopen)
}

/// [`parse`], reading only the ranges the loader looks at from `src`.
/// Without `scan_dlopen`, the dynamic symbols are not read and
/// [`ElfInfo::imports_dlopen`] stays `false`.
pub fn parse_from<R: ReadAt + ?Sized>(src: &mut R, scan_dlopen: bool) -> Option<ElfInfo> {
    let head = src.read_at(0, 64);
    if head.len() < 16 || &head[..4] != ELF_MAGIC {
        return None;
    }
    let mut info = ElfInfo::default();
    info.ident.copy_from_slice(&head[..16]);
    let header = container_of(&info.ident).and_then(|c| {
        goblin::elf::Elf::parse_header(head)
            .map(|h| (c, h))
            .map_err(|_| "file too short for an ELF header".to_string())
    });
    let parsed = header.and_then(|(c, h)| parse_dynamic(src, &h, c, scan_dlopen, &mut info));
    if let Err(why) = parsed {
        info.malformed = Some(why);
    }
    Some(info)
}

/// The word size and byte order (`true`: little-endian) the identification
/// names.
fn container_of(ident: &[u8; 16]) -> Result<(Container, bool), String> {
    match (ident[4], ident[5]) {
        (ELFCLASS64, ELFDATA2LSB) => Ok((Container::Big, true)),
        (ELFCLASS64, ELFDATA2MSB) => Ok((Container::Big, false)),
        (ELFCLASS32, ELFDATA2LSB) => Ok((Container::Little, true)),
        (ELFCLASS32, ELFDATA2MSB) => Ok((Container::Little, false)),
        _ => Err("unknown ELF class or data encoding".into()),
    }
}

/// Everything after the ELF header into `info`: program headers, the
/// dynamic section and its strings, and (with `scan_dlopen`) the dlopen
/// imports. `Err` says why the file is malformed.
fn parse_dynamic<R: ReadAt + ?Sized>(
    src: &mut R,
    header: &goblin::elf::Header,
    (container, le): (Container, bool),
    scan_dlopen: bool,
    info: &mut ElfInfo,
) -> Result<(), String> {
    info.e_type = header.e_type;
    info.machine = header.e_machine;
    info.e_version = header.e_version;
    let ctx = Ctx::new(container, if le { Endian::Little } else { Endian::Big });
    let phdrs = program_headers(src, header, ctx, info)?;
    let Some(dyn_ph) = phdrs.iter().find(|p| p.p_type == PT_DYNAMIC) else {
        return Ok(());
    };
    info.dynamic = true;
    let e = Order(le);
    let tags = DynTags::of(&dynamic_entries(src, dyn_ph, container, e)?, info);
    let strtab = tags.strtab_vaddr.and_then(|v| vaddr_to_offset(&phdrs, v));
    let size = src.size();
    // Strings end before this file offset.
    let strtab_end = match (strtab, tags.strsz) {
        (Some(s), Some(sz)) => s.saturating_add(sz).min(size),
        (Some(_), None) => size,
        _ => 0,
    };
    let Some(strtab) = strtab else {
        if tags.has_strings() {
            return Err("DT_STRTAB missing or outside the loaded segments".into());
        }
        return Ok(());
    };
    let strings = Strings {
        base: strtab,
        end: strtab_end,
    };
    tags.read_strings(src, &strings, info)?;
    if scan_dlopen {
        let file = super::elf_dlopen::Layout {
            e,
            ctx,
            phdrs: &phdrs,
            header,
        };
        super::elf_dlopen::scan(src, &file, &tags, (strtab, strtab_end), info);
    }
    Ok(())
}

/// The program headers, with the interpreter they name into `info`.
fn program_headers<R: ReadAt + ?Sized>(
    src: &mut R,
    header: &goblin::elf::Header,
    ctx: Ctx,
    info: &mut ElfInfo,
) -> Result<Vec<ProgramHeader>, String> {
    let phent = ProgramHeader::size(ctx);
    info.phentsize_ok = usize::from(header.e_phentsize) == phent;
    let phnum = usize::from(header.e_phnum);
    let phsize = (phnum * phent) as u64;
    let phdrs = match src.read_at(header.e_phoff, phsize) {
        b if b.len() as u64 == phsize => ProgramHeader::parse(b, 0, phnum, ctx).ok(),
        _ => None,
    };
    let phdrs = phdrs.ok_or("program headers lie outside the file")?;
    for ph in &phdrs {
        if ph.p_type == PT_INTERP && ph.p_filesz > 0 {
            // glibc uses the segment as a string; an unterminated one is
            // still "an interpreter".
            let seg = src.read_at(ph.p_offset, ph.p_filesz);
            info.interp = Some(lossy(until_nul(seg).unwrap_or(seg)));
        }
    }
    Ok(phdrs)
}

/// The `(tag, value)` entries of the dynamic segment, up to `DT_NULL`.
fn dynamic_entries<R: ReadAt + ?Sized>(
    src: &mut R,
    dyn_ph: &ProgramHeader,
    container: Container,
    e: Order,
) -> Result<Vec<(u64, u64)>, String> {
    let dyn_size: usize = if container == Container::Big { 16 } else { 8 };
    let mut dyns: Vec<(u64, u64)> = Vec::new();
    if dyn_ph.p_filesz == 0 {
        return Ok(dyns);
    }
    let seg = src.read_at(dyn_ph.p_offset, dyn_ph.p_filesz);
    if (seg.len() as u64) < dyn_ph.p_filesz {
        return Err("dynamic section lies outside the file".into());
    }
    dyns.reserve(seg.len() / dyn_size);
    for entry in seg.chunks_exact(dyn_size) {
        let (tag, val) = if container == Container::Big {
            (e.u64(entry, 0), e.u64(entry, 8))
        } else {
            (
                e.u32(entry, 0).map(u64::from),
                e.u32(entry, 4).map(u64::from),
            )
        };
        let (Some(tag), Some(val)) = (tag, val) else {
            break;
        };
        if tag == DT_NULL {
            break;
        }
        dyns.push((tag, val));
    }
    Ok(dyns)
}

/// The dynamic tags the loader (and the dlopen scan) reads.
#[derive(Default)]
pub(super) struct DynTags {
    strtab_vaddr: Option<u64>,
    strsz: Option<u64>,
    pub(super) symtab_vaddr: Option<u64>,
    pub(super) syment: Option<u64>,
    pub(super) gnu_hash: Option<u64>,
    pub(super) sysv_hash: Option<u64>,
    needed_offs: Vec<u64>,
    rpath_off: Option<u64>,
    runpath_off: Option<u64>,
    soname_off: Option<u64>,
}

impl DynTags {
    /// The tags of `dyns`; the flags go straight into `info`.
    fn of(dyns: &[(u64, u64)], info: &mut ElfInfo) -> DynTags {
        let mut t = DynTags::default();
        for &(tag, val) in dyns {
            match tag {
                DT_NEEDED => t.needed_offs.push(val),
                DT_RPATH => t.rpath_off = Some(val),
                DT_RUNPATH => t.runpath_off = Some(val),
                DT_SONAME => t.soname_off = Some(val),
                DT_STRTAB => t.strtab_vaddr = Some(val),
                DT_STRSZ => t.strsz = Some(val),
                DT_SYMTAB => t.symtab_vaddr = Some(val),
                DT_SYMENT => t.syment = Some(val),
                DT_GNU_HASH => t.gnu_hash = Some(val),
                DT_HASH => t.sysv_hash = Some(val),
                DT_FLAGS => info.flags = val,
                DT_FLAGS_1 => info.flags_1 = val,
                _ => {}
            }
        }
        t
    }

    fn has_strings(&self) -> bool {
        !self.needed_offs.is_empty()
            || self.rpath_off.is_some()
            || self.runpath_off.is_some()
            || self.soname_off.is_some()
    }

    /// NEEDED, RPATH, RUNPATH and SONAME from the string table into `info`.
    fn read_strings<R: ReadAt + ?Sized>(
        &self,
        src: &mut R,
        strings: &Strings,
        info: &mut ElfInfo,
    ) -> Result<(), String> {
        let mut offs: Vec<u64> = self.needed_offs.clone();
        offs.extend(self.rpath_off);
        offs.extend(self.runpath_off);
        offs.extend(self.soname_off);
        let found = strings.read(src, &mut offs);
        let get = |off: u64| {
            found
                .iter()
                .find(|(o, _)| *o == off)
                .and_then(|(_, s)| s.clone())
        };
        info.needed.reserve_exact(self.needed_offs.len());
        for &off in &self.needed_offs {
            let s =
                get(off).ok_or_else(|| format!("DT_NEEDED string offset {off:#x} is invalid"))?;
            info.needed.push(s.into());
        }
        info.rpath = self.rpath_off.and_then(get);
        info.runpath = self.runpath_off.and_then(get);
        info.soname = self.soname_off.and_then(get);
        info.tokens = info.rpath.as_deref().is_some_and(|r| r.contains('$'))
            || info.runpath.as_deref().is_some_and(|r| r.contains('$'))
            || info.needed.iter().any(|n| n.contains('$'));
        Ok(())
    }
}

/// The dynamic string table: file offsets `base..end`.
struct Strings {
    base: u64,
    end: u64,
}

impl Strings {
    /// Reads the strings at the table offsets `offs` (sorted and
    /// deduplicated in place): one read per cluster of nearby strings.
    /// `None` for an offset outside the table or a string without its NUL.
    fn read<R: ReadAt + ?Sized>(
        &self,
        src: &mut R,
        offs: &mut Vec<u64>,
    ) -> Vec<(u64, Option<String>)> {
        /// Strings closer than this share a read.
        const CLUSTER: u64 = 4096;
        /// Bytes read past the last string start of a cluster.
        const TAIL: u64 = 256;
        offs.sort_unstable();
        offs.dedup();
        let mut out = Vec::with_capacity(offs.len());
        let mut i = 0;
        while i < offs.len() {
            let first = offs[i];
            let Some(start) = self.base.checked_add(first).filter(|&s| s < self.end) else {
                // Sorted: every later offset is outside too.
                out.extend(offs[i..].iter().map(|&o| (o, None)));
                break;
            };
            let mut j = i + 1;
            while j < offs.len()
                && offs[j] - first < CLUSTER
                && self.base.checked_add(offs[j]).is_some_and(|s| s < self.end)
            {
                j += 1;
            }
            let last = self.base + offs[j - 1];
            let len = (last + TAIL).min(self.end) - start;
            let mut retry = Vec::new();
            {
                let window = src.read_at(start, len);
                for &o in &offs[i..j] {
                    let at = (o - first) as usize;
                    match window.get(at..).and_then(until_nul) {
                        Some(s) => out.push((o, Some(lossy(s)))),
                        None => retry.push(o),
                    }
                }
            }
            // A string longer than the window: read to the table's end.
            for o in retry {
                let at = self.base + o;
                let s = until_nul(src.read_at(at, self.end - at)).map(lossy);
                out.push((o, s));
            }
            i = j;
        }
        out
    }
}

pub use super::verify::{Candidate, Target, verify};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn self_exe() -> Vec<u8> {
        std::fs::read(std::env::current_exe().unwrap()).unwrap()
    }

    #[test]
    fn reads_own_test_binary() {
        let bytes = self_exe();
        let info = parse(&bytes, true).expect("test binary is ELF");
        assert!(info.dynamic);
        assert!(
            info.needed.iter().any(|n| n.starts_with("libc.so")),
            "{:?}",
            info.needed
        );
        assert_eq!(info.kind(), ElfKind::Executable);
        assert!(info.malformed.is_none());
    }

    #[test]
    fn not_elf_is_none() {
        assert!(parse(b"/* GNU ld script */ GROUP ( libc.so.6 )", false).is_none());
        assert!(parse(b"", false).is_none());
    }

    fn exe_bytes() -> &'static [u8] {
        static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        BYTES.get_or_init(self_exe)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]
        /// Truncations and byte flips of a real ELF file never panic (the
        /// thorough version with a small gcc-built library is
        /// `tests/it/audit_fuzz.rs`).
        #[test]
        fn mutated_elf_never_panics(cut in 0u32..=1000, flips in proptest::collection::vec((0usize..8192, any::<u8>()), 0..32)) {
            let full = exe_bytes();
            let cut = (full.len() as u64 * u64::from(cut) / 1000) as usize;
            let mut bytes = full[..cut].to_vec();
            for (pos, val) in flips {
                if !bytes.is_empty() {
                    let len = bytes.len();
                    bytes[pos % len] = val;
                }
            }
            if let Some(info) = parse(&bytes, true) {
                let _ = verify(&bytes, bytes.len() as u64, Some(&info), Target { class: 2, data: 1, machine: 62 });
            }
        }
    }
}
