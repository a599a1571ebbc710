//! Finding library names in read-only data: the strings a program is likely
//! to pass to `dlopen`.
//!
//! Only whole C strings count (the byte before is NUL or the region start,
//! the byte after is NUL), made of path characters and ending in `.so` or
//! `.so.<digits>…`. That keeps format strings (`lib%s.so`) and messages
//! ("cannot load /usr/lib/x.so") out. The scan runs only on files that import
//! `dlopen` (see [`super::elf`]), with a SIMD substring search for `.so`.

use serde::Serialize;

/// Longest string considered (a path longer than this is not a library path
/// anyone hard-codes).
const MAX_LEN: usize = 512;

fn path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'/' | b'.' | b'_' | b'-' | b'+' | b'@' | b',' | b'~')
}

/// Program interpreter names (`ld-linux-x86-64.so.2`, `ld.so.1`,
/// `ld64.so.2`, `ldx32.so.1`): linkers and debuggers carry them as strings,
/// nobody dlopens them.
fn is_loader_name(base: &[u8]) -> bool {
    base.starts_with(b"ld-")
        || base.starts_with(b"ld.")
        || base.starts_with(b"ld64.")
        || base.starts_with(b"ldx32")
}

/// Appends every library-looking C string in `region` to `out`. Large
/// regions (the read-only data of LLVM or node is 30-50 MB) are split into
/// chunks scanned in parallel.
pub fn library_strings(region: &[u8], out: &mut Vec<String>) {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 20;
    if region.len() <= 2 * CHUNK {
        scan(region, 0, region.len(), out);
        return;
    }
    let starts: Vec<usize> = (0..region.len()).step_by(CHUNK).collect();
    let parts: Vec<Vec<String>> = starts
        .par_iter()
        .map(|&start| {
            let mut v = Vec::new();
            scan(region, start, (start + CHUNK).min(region.len()), &mut v);
            v
        })
        .collect();
    out.extend(parts.into_iter().flatten());
}

/// Strings whose `.so` starts in `region[from..to]`.
fn scan(region: &[u8], from: usize, to: usize, out: &mut Vec<String>) {
    let window = &region[from..(to + 2).min(region.len())];
    for pos in memchr::memmem::find_iter(window, b".so") {
        let pos = from + pos;
        if pos >= to {
            break;
        }
        // Forward: `.so`, then optional `.<digits>` groups, then NUL.
        let mut end = pos + 3;
        while end < region.len() && (region[end] == b'.' || region[end].is_ascii_digit()) {
            end += 1;
        }
        if end >= region.len() || region[end] != 0 {
            continue;
        }
        // The version suffix must be `(.digits)*`.
        let suffix = &region[pos + 3..end];
        if !suffix.is_empty()
            && (suffix[0] != b'.'
                || suffix.ends_with(b".")
                || suffix.windows(2).any(|w| w == b".."))
        {
            continue;
        }
        // Backward to the string start.
        let mut start = pos;
        while start > 0 && pos - start < MAX_LEN && path_byte(region[start - 1]) {
            start -= 1;
        }
        if start > 0 && region[start - 1] != 0 {
            continue;
        }
        if start == pos {
            continue; // just ".so"
        }
        let s = &region[start..end];
        // The last component must be a plausible file name.
        let base = s.rsplit(|&b| b == b'/').next().unwrap_or(s);
        if base.len() <= 3 || base.starts_with(b".") || is_loader_name(base) {
            continue;
        }
        if let Ok(s) = std::str::from_utf8(s) {
            out.push(s.to_owned());
        }
    }
}

/// What kind of name a dlopen string is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DlopenKind {
    /// `/usr/lib64/libcurl.so.4`: opened as is, no search.
    Absolute,
    /// `plugins/libx.so`: relative to the process's working directory.
    Relative,
    /// `libcurl.so.4`: searched like a `DT_NEEDED` entry of the caller.
    Bare,
}

pub fn kind_of(s: &str) -> DlopenKind {
    if s.starts_with('/') {
        DlopenKind::Absolute
    } else if s.contains('/') {
        DlopenKind::Relative
    } else {
        DlopenKind::Bare
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(b: &[u8]) -> Vec<String> {
        // (the test helper shadows the module's scan)
        let mut v = Vec::new();
        library_strings(b, &mut v);
        v
    }

    #[test]
    fn finds_whole_library_strings() {
        let data = b"\0/usr/lib64/libcurl.so.4\0libfoo.so\0cannot open /x/liby.so\0lib%s.so\0\
                     libz.so.1.2.13\0.so\0x.so.\0libbad.so..1\0plugins/libp.so\0/opt/a.so.x\0\
                     /lib64/ld-linux-x86-64.so.2\0/usr/lib/ld.so.1\0";
        assert_eq!(
            scan(data),
            vec![
                "/usr/lib64/libcurl.so.4",
                "libfoo.so",
                "libz.so.1.2.13",
                "plugins/libp.so"
            ]
        );
    }

    #[test]
    fn chunked_scan_finds_strings_across_chunk_borders() {
        let mut big = vec![b'x'; 5 << 20];
        let mut put = |at: usize, s: &[u8]| {
            big[at - 1] = 0;
            big[at..at + s.len()].copy_from_slice(s);
            big[at + s.len()] = 0;
        };
        put(100, b"/a/liba.so.1");
        put((1 << 20) - 5, b"/b/libb.so");
        put((2 << 20) - 1, b"libc.so.6");
        put((5 << 20) - 20, b"/d/libd.so");
        let mut v = scan(&big);
        v.sort();
        assert_eq!(
            v,
            vec!["/a/liba.so.1", "/b/libb.so", "/d/libd.so", "libc.so.6"]
        );
    }

    #[test]
    fn region_edges() {
        assert_eq!(scan(b"libfoo.so\0"), vec!["libfoo.so"]);
        assert!(scan(b"libfoo.so").is_empty());
        assert!(scan(b"").is_empty());
        assert!(scan(b".so\0").is_empty());
    }

    #[test]
    fn kinds() {
        assert_eq!(kind_of("/a/libx.so"), DlopenKind::Absolute);
        assert_eq!(kind_of("a/libx.so"), DlopenKind::Relative);
        assert_eq!(kind_of("libx.so"), DlopenKind::Bare);
    }
}
