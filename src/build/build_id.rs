//! Build IDs that depend on the installed bytes only.
//!
//! The linker computes `NT_GNU_BUILD_ID` over the file it writes. CMake and
//! libtool link in the build tree with RPATHs naming the stage directory and
//! rewrite or relink at install time; the ID then still hashes the stage path,
//! so two builds of one lockfile in different build directories differ in
//! those 20 bytes only. After install, every ELF file that carries a GNU
//! build-ID note gets a new ID: the SHA-256 of the file with the ID bytes
//! zeroed, cut to the note's size (as `debugedit --build-id` does for
//! reproducible distribution packages). The ID stays unique per content, and
//! is now a function of the content alone.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::error::PackageError;
use super::relocate::with_write_permission;
use crate::store::walk_prefix;

/// `NT_GNU_BUILD_ID`.
const NT_GNU_BUILD_ID: u32 = 3;

/// Recompute the build ID of every ELF file below `host_prefix`; returns how
/// many files changed.
pub fn normalize(host_prefix: &Path) -> Result<usize, PackageError> {
    let mut changed = 0;
    for entry in walk_prefix(host_prefix) {
        let entry = entry.map_err(|e| PackageError::Relocate {
            file: e.path().unwrap_or(host_prefix).to_path_buf(),
            message: e.to_string(),
        })?;
        if entry.file_type().is_file() && normalize_file(entry.path())? {
            changed += 1;
        }
    }
    Ok(changed)
}

/// Where the ID bytes of a file are: `(offset, len)`.
fn build_id_range(bytes: &[u8]) -> Option<(usize, usize)> {
    let elf = goblin::elf::Elf::parse(bytes).ok()?;
    let notes = elf
        .iter_note_headers(bytes)
        .or_else(|| elf.iter_note_sections(bytes, Some(".note.gnu.build-id")))?;
    for note in notes.flatten() {
        if note.n_type == NT_GNU_BUILD_ID && note.name == "GNU" && !note.desc.is_empty() {
            let offset = note.desc.as_ptr() as usize - bytes.as_ptr() as usize;
            return Some((offset, note.desc.len()));
        }
    }
    None
}

/// The content-derived ID for `bytes` whose ID occupies `range`.
fn content_id(bytes: &[u8], (offset, len): (usize, usize)) -> Vec<u8> {
    let mut h = Sha256::new();
    h.update(&bytes[..offset]);
    h.update(vec![0u8; len]);
    h.update(&bytes[offset + len..]);
    let digest = h.finalize();
    // An ID longer than 32 bytes (never seen) repeats the digest.
    digest.iter().copied().cycle().take(len).collect()
}

fn normalize_file(path: &Path) -> Result<bool, PackageError> {
    let mut f = fs_err::File::open(path)?;
    let mut magic = [0u8; 4];
    if f.read(&mut magic)? < 4 || &magic != b"\x7fELF" {
        return Ok(false);
    }
    let mut bytes = magic.to_vec();
    f.read_to_end(&mut bytes)?;
    let Some(range) = build_id_range(&bytes) else {
        return Ok(false);
    };
    let id = content_id(&bytes, range);
    if bytes[range.0..range.0 + range.1] == id[..] {
        return Ok(false);
    }
    with_write_permission(path, || {
        let mut w = fs_err::OpenOptions::new().write(true).open(path)?;
        w.seek(SeekFrom::Start(range.0 as u64))?;
        w.write_all(&id)?;
        Ok(())
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn compile(dir: &Path, name: &str, define: &str) -> std::path::PathBuf {
        let src = dir.join("a.c");
        fs_err::write(&src, "int main(void) { return 0; }\n").unwrap();
        let out = dir.join(name);
        let st = Command::new("cc")
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .arg("-Wl,--build-id=sha1")
            .arg(format!("-Wl,-rpath,{define}"))
            .status()
            .unwrap();
        assert!(st.success());
        out
    }

    fn id(path: &Path) -> Vec<u8> {
        let b = fs_err::read(path).unwrap();
        let (o, l) = build_id_range(&b).unwrap();
        b[o..o + l].to_vec()
    }

    #[test]
    fn same_content_same_id_after_normalising() {
        let d = tempfile::tempdir().unwrap();
        // Two links whose only difference is erased before install: the IDs
        // differ at first (they hash the RPATH string), then agree.
        let a = compile(d.path(), "a", "/stage/one/xxxx");
        let b = compile(d.path(), "b", "/stage/two/yyyy");
        for p in [&a, &b] {
            let st = Command::new("patchelf")
                .args(["--set-rpath", "/m/lib"])
                .arg(p)
                .status()
                .unwrap();
            assert!(st.success());
        }
        assert_ne!(id(&a), id(&b));
        assert_eq!(
            fs_err::read(&a).unwrap().len(),
            fs_err::read(&b).unwrap().len()
        );
        assert!(normalize_file(&a).unwrap());
        assert!(normalize_file(&b).unwrap());
        assert_eq!(id(&a), id(&b));
        assert_eq!(fs_err::read(&a).unwrap(), fs_err::read(&b).unwrap());
        // Idempotent, and the program still runs.
        assert!(!normalize_file(&a).unwrap());
        assert!(Command::new(&a).status().unwrap().success());
    }

    #[test]
    fn non_elf_and_id_less_files_are_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("t.txt");
        fs_err::write(&t, "hello").unwrap();
        assert!(!normalize_file(&t).unwrap());
        let src = d.path().join("a.c");
        fs_err::write(&src, "int main(void) { return 0; }\n").unwrap();
        let out = d.path().join("noid");
        let st = Command::new("cc")
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .arg("-Wl,--build-id=none")
            .status()
            .unwrap();
        assert!(st.success());
        let before = fs_err::read(&out).unwrap();
        assert!(!normalize_file(&out).unwrap());
        assert_eq!(fs_err::read(&out).unwrap(), before);
    }
}
