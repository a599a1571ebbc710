//! Whether an ELF file imports `dlopen` (its undefined dynamic symbols), and
//! the library-looking strings in its read-only data when it does.

use goblin::container::{Container, Ctx};
use goblin::elf::SectionHeader;
use goblin::elf::program_header::{PF_W, PF_X, PT_LOAD, ProgramHeader};
use goblin::elf::section_header::{SHF_ALLOC, SHF_EXECINSTR, SHF_WRITE, SHT_DYNSYM, SHT_PROGBITS};

use super::elf::{DynTags, ElfInfo, Order, until_nul, vaddr_to_offset};
use super::source::ReadAt;

/// Symbols whose import marks a file as one that loads libraries at run time.
const DLOPEN_SYMBOLS: &[&[u8]] = &[b"dlopen", b"dlmopen", b"lt_dlopen", b"lt_dlopenext"];

/// How the file is laid out, as far as the scan needs it.
pub(super) struct Layout<'a> {
    pub e: Order,
    pub ctx: Ctx,
    pub phdrs: &'a [ProgramHeader],
    pub header: &'a goblin::elf::Header,
}

/// Sets [`ElfInfo::imports_dlopen`]: undefined dynamic symbols named
/// dlopen/dlmopen/…, compared in place in the whole string table
/// `dynstr` (file offsets); and, when it imports one, the library strings
/// of its read-only data.
pub(super) fn scan<R: ReadAt + ?Sized>(
    src: &mut R,
    file: &Layout,
    tags: &DynTags,
    dynstr: (u64, u64),
    info: &mut ElfInfo,
) {
    let Layout {
        e,
        ctx,
        phdrs,
        header,
    } = *file;
    let size = src.size();
    let mut imports = Vec::new();
    let sym_size: u64 = if ctx.container == Container::Big {
        24
    } else {
        16
    };
    let syment = tags.syment.filter(|&s| s >= sym_size).unwrap_or(sym_size);
    let symtab = tags.symtab_vaddr.and_then(|v| vaddr_to_offset(phdrs, v));
    let mut shdrs = None;
    let symcount = symbol_count(src, file, tags.gnu_hash, tags.sysv_hash, &mut shdrs);
    if let (Some(symtab), Some(count)) = (symtab, symcount) {
        let count = (count as u64).min(size / syment);
        let table = src.read_at(symtab, count.saturating_mul(syment));
        let shndx_at = if sym_size == 24 { 6 } else { 14 };
        for sym in table.chunks(syment as usize) {
            let (Some(name), Some(shndx)) = (e.u32(sym, 0), e.u16(sym, shndx_at)) else {
                break;
            };
            if shndx == 0 && name != 0 {
                imports.push(name);
            }
        }
    }
    let (strtab, strtab_end) = dynstr;
    let table = src.read_at(strtab, strtab_end.saturating_sub(strtab));
    info.imports_dlopen = imports.iter().any(|&name| {
        let start = name as usize;
        // Compare in place (C++ names are long; no need to find their end).
        matches!(table.get(start), Some(b'd' | b'l'))
            && DLOPEN_SYMBOLS.iter().any(|sym| {
                let end = start + sym.len();
                end < table.len() && &table[start..end] == *sym && table[end] == 0
            })
    });
    if info.imports_dlopen {
        info.dlopen_strings = scan_read_only(src, phdrs, header, ctx, dynstr, shdrs);
    }
}

/// Number of dynamic symbols worth looking at for imports. With a GNU hash
/// table, undefined symbols all come before `symoffset`; otherwise the SysV
/// hash table's `nchain` or the `.dynsym` section size tells the count.
fn symbol_count<R: ReadAt + ?Sized>(
    src: &mut R,
    file: &Layout,
    gnu_hash: Option<u64>,
    sysv_hash: Option<u64>,
    shdrs: &mut Option<Option<Vec<SectionHeader>>>,
) -> Option<usize> {
    for table in [gnu_hash, sysv_hash] {
        if let Some(off) = table.and_then(|v| vaddr_to_offset(file.phdrs, v)) {
            let word = src.read_at(off.checked_add(4)?, 4);
            return file.e.u32(word, 0).map(|n| n as usize);
        }
    }
    shdrs
        .get_or_insert_with(|| section_headers(src, file.header, file.ctx))
        .as_ref()?
        .iter()
        .find(|s| s.sh_type == SHT_DYNSYM && s.sh_entsize > 0)
        .and_then(|s| usize::try_from(s.sh_size / s.sh_entsize).ok())
}

fn section_headers<R: ReadAt + ?Sized>(
    src: &mut R,
    header: &goblin::elf::Header,
    ctx: Ctx,
) -> Option<Vec<SectionHeader>> {
    if header.e_shoff == 0 || header.e_shnum == 0 {
        return None;
    }
    let count = usize::from(header.e_shnum);
    let len = (count * SectionHeader::size(ctx)) as u64;
    let table = src.read_at(header.e_shoff, len);
    if (table.len() as u64) < len {
        return None;
    }
    SectionHeader::parse_from(table, 0, count, ctx).ok()
}

/// The library strings in the file's read-only data: the `.rodata*`
/// sections (found by name), or, without section headers, the read-only
/// non-executable `PT_LOAD` segments minus the dynamic string table.
fn scan_read_only<R: ReadAt + ?Sized>(
    src: &mut R,
    phdrs: &[ProgramHeader],
    header: &goblin::elf::Header,
    ctx: Ctx,
    dynstr: (u64, u64),
    shdrs: Option<Option<Vec<SectionHeader>>>,
) -> Vec<String> {
    let size = src.size();
    let mut regions: Vec<(u64, u64)> = Vec::new();
    if let Some(shdrs) = shdrs.unwrap_or_else(|| section_headers(src, header, ctx)) {
        let names = shdrs
            .get(usize::from(header.e_shstrndx))
            .map(|s| (s.sh_offset, s.sh_offset.saturating_add(s.sh_size)));
        // The section names, read once (`None`: no name table, every
        // candidate section counts).
        let names: Option<Vec<u8>> = names.map(|(o, end)| {
            let end = end.min(size);
            src.read_at(o, end.saturating_sub(o)).to_vec()
        });
        for s in &shdrs {
            let flags = s.sh_flags;
            if s.sh_type != SHT_PROGBITS
                || flags & u64::from(SHF_ALLOC) == 0
                || flags & u64::from(SHF_EXECINSTR | SHF_WRITE) != 0
            {
                continue;
            }
            let rodata = names.as_ref().is_none_or(|n| {
                n.get(s.sh_name..)
                    .and_then(until_nul)
                    .is_some_and(|n| n.starts_with(b".rodata"))
            });
            if rodata {
                regions.push((s.sh_offset, s.sh_offset.saturating_add(s.sh_size)));
            }
        }
    }
    if regions.is_empty() {
        for p in phdrs {
            if p.p_type == PT_LOAD && p.p_flags & (PF_X | PF_W) == 0 {
                let (o, end) = (p.p_offset, p.p_offset.saturating_add(p.p_filesz));
                let (ds, de) = dynstr;
                if ds >= o && ds < end && de > ds {
                    regions.push((o, ds));
                    regions.push((de.min(end), end));
                } else {
                    regions.push((o, end));
                }
            }
        }
    }
    let mut found = Vec::new();
    for (start, end) in regions {
        let end = end.min(size);
        if start < end {
            src.scan_strings(start, end, &mut found);
        }
    }
    found.sort();
    found.dedup();
    found
}
