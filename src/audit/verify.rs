//! `ld.so`'s `open_verify`: whether a candidate file found by a search is
//! loadable, skipped (the search goes on) or fatal (the load fails).

use goblin::elf::header::{ELFCLASS64, ELFDATA2LSB, ET_DYN, ET_EXEC};

use super::elf::{ELF_MAGIC, ElfInfo};

/// What `ld.so`'s `open_verify` makes of a candidate file for a loader of
/// the given class, data encoding and machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Candidate {
    /// Loadable: the search stops here.
    Accept,
    /// Silently skipped, the search goes on (wrong class or machine).
    Skip(&'static str),
    /// The loader gives up with this error (the whole load fails).
    Fatal(String),
}

/// Target identity used by [`verify`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub class: u8,
    pub data: u8,
    pub machine: u16,
}

/// Applies `open_verify`'s checks, in glibc's order, to a file whose first
/// bytes are `head` (at least the ELF header when available) and whose full
/// length is `len`; `info` is its parse result if it is ELF.
pub fn verify(head: &[u8], len: u64, info: Option<&ElfInfo>, target: Target) -> Candidate {
    let ehdr = if target.class == ELFCLASS64 { 64 } else { 52 };
    if len < ehdr as u64 || head.len() < 16 {
        return Candidate::Fatal("file too short".into());
    }
    if &head[..4] != ELF_MAGIC {
        return Candidate::Fatal("invalid ELF header".into());
    }
    let ident = &head[..16];
    if ident[4] != target.class {
        return Candidate::Skip("wrong ELF class");
    }
    if ident[5] != target.data {
        return Candidate::Fatal(
            if target.data == ELFDATA2LSB {
                "ELF file data encoding not little-endian"
            } else {
                "ELF file data encoding not big-endian"
            }
            .into(),
        );
    }
    if ident[6] != 1 {
        return Candidate::Fatal("ELF file version ident does not match current one".into());
    }
    let osabi = ident[7];
    if osabi != 0 && osabi != 3 {
        return Candidate::Fatal("ELF file OS ABI invalid".into());
    }
    let abiversion = ident[8];
    if (osabi == 0 && abiversion != 0) || (osabi == 3 && abiversion > 3) {
        return Candidate::Fatal("ELF file ABI version invalid".into());
    }
    if ident[9..16].iter().any(|&b| b != 0) {
        return Candidate::Fatal("nonzero padding in e_ident".into());
    }
    let Some(info) = info else {
        return Candidate::Fatal("cannot read file data".into());
    };
    if info.e_version != 1 {
        return Candidate::Fatal("ELF file version does not match current one".into());
    }
    if info.machine != target.machine {
        return Candidate::Skip("wrong ELF machine");
    }
    if info.e_type != ET_DYN && info.e_type != ET_EXEC {
        return Candidate::Fatal("only ET_DYN and ET_EXEC can be loaded".into());
    }
    if !info.phentsize_ok {
        return Candidate::Fatal("ELF file's phentsize not the expected size".into());
    }
    if let Some(m) = &info.malformed {
        return Candidate::Fatal(m.clone());
    }
    Candidate::Accept
}

#[cfg(test)]
mod tests {
    use super::*;
    use goblin::elf::header::ELFCLASS32;

    #[test]
    fn verify_orders_checks_like_glibc() {
        let t = Target {
            class: ELFCLASS64,
            data: ELFDATA2LSB,
            machine: goblin::elf::header::EM_X86_64,
        };
        assert_eq!(
            verify(b"", 0, None, t),
            Candidate::Fatal("file too short".into())
        );
        let text = [b'a'; 100];
        assert_eq!(
            verify(&text, 100, None, t),
            Candidate::Fatal("invalid ELF header".into())
        );
        let bytes = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let info = super::super::elf::parse(&bytes, false).unwrap();
        assert_eq!(
            verify(&bytes, bytes.len() as u64, Some(&info), t),
            Candidate::Accept
        );
        let mut b32 = bytes.clone();
        b32[4] = ELFCLASS32;
        assert_eq!(
            verify(&b32, b32.len() as u64, None, t),
            Candidate::Skip("wrong ELF class")
        );
        let mut pad = bytes.clone();
        pad[12] = 7;
        assert!(matches!(
            verify(&pad, pad.len() as u64, Some(&info), t),
            Candidate::Fatal(_)
        ));
        let other = Target {
            machine: goblin::elf::header::EM_AARCH64,
            ..t
        };
        assert_eq!(
            verify(&bytes, bytes.len() as u64, Some(&info), other),
            Candidate::Skip("wrong ELF machine")
        );
    }
}
