//! Install prefixes: `<mount>/<target>/<name>-<version>-<hash8>`.
//!
//! The target keeps trees for different microarchitectures apart when
//! several stacks share a store; name and version make the path readable;
//! the first 8 hex digits of the node hash make it unique per
//! configuration. Characters outside `[A-Za-z0-9._+-]` in the version (a
//! `git.<ref>=<version>` version may hold `/` or `=`) become `_`.

use std::path::{Path, PathBuf};

/// The install prefix of a built node.
pub fn install_prefix(
    mount: &Path,
    target: &str,
    name: &str,
    version: &str,
    hash: &str,
) -> PathBuf {
    let clean: String = version
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    mount
        .join(target)
        .join(format!("{name}-{clean}-{}", &hash[..8.min(hash.len())]))
}

/// Whether a directory name has the form [`install_prefix`] gives the last
/// component (`<name>-<version>-<8 hex>`): what the store may remove when no
/// plan names it any more.
pub fn is_prefix_name(name: &str) -> bool {
    name.rsplit_once('-').is_some_and(|(head, h)| {
        head.contains('-') && h.len() == 8 && h.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_names_are_recognised() {
        let p = install_prefix(Path::new("/m"), "x86_64", "p", "git.a/b=1", "0123456789");
        let name = p.file_name().unwrap().to_str().unwrap();
        assert!(is_prefix_name(name), "{name}");
        for other in [
            "meta",
            "modules",
            "views",
            "p-01234567",
            "p-1.0-0123456",
            "p-1.0-0123456g",
        ] {
            assert!(!is_prefix_name(other), "{other}");
        }
    }

    #[test]
    fn prefixes_are_readable_and_safe() {
        assert_eq!(
            install_prefix(
                Path::new("/user-environment"),
                "neoverse_v2",
                "libfabric",
                "2.2.0",
                "0123456789abcdef"
            ),
            PathBuf::from("/user-environment/neoverse_v2/libfabric-2.2.0-01234567")
        );
        assert_eq!(
            install_prefix(
                Path::new("/m"),
                "x86_64",
                "p",
                "git.feature/x=1.0",
                "abcdef0123"
            ),
            PathBuf::from("/m/x86_64/p-git.feature_x_1.0-abcdef01")
        );
    }
}
