//! `stack create URL`: a package recipe skeleton from a source archive —
//! name and version from the file name, sha256 from the download, and the
//! build system detected from the files at the top of the source tree.

use std::path::Path;

use super::{FetchError, FetchOptions, FetchReporter, Source, SourceRequest};

/// What `stack create` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skeleton {
    pub name: String,
    pub version: String,
    pub url: String,
    pub sha256: String,
    /// `cmake`, `meson`, `autotools`, `makefile` or `generic`.
    pub system: &'static str,
    /// The file that decided the build system.
    pub evidence: Option<&'static str>,
}

/// `libfoo-1.2.3.tar.gz` → (`libfoo`, `1.2.3`); `None` without a version.
pub fn name_and_version(url: &str) -> Option<(String, String)> {
    let file = url.rsplit('/').next()?;
    let stem = [
        ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar.zst", ".zip", ".tar",
    ]
    .iter()
    .find_map(|ext| file.strip_suffix(ext))
    .unwrap_or(file);
    // The version starts at the first `-` or `_` followed by a digit
    // (or `v` and a digit).
    let bytes = stem.as_bytes();
    let at = (1..bytes.len()).find(|&i| {
        (bytes[i - 1] == b'-' || bytes[i - 1] == b'_')
            && (bytes[i].is_ascii_digit()
                || (bytes[i] == b'v' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
    })?;
    let name = stem[..at - 1].to_ascii_lowercase();
    let version = stem[at..].trim_start_matches('v').to_string();
    (!name.is_empty()).then_some((name, version))
}

/// The build system of the source tree at `root`.
pub fn detect_build_system(root: &Path) -> (&'static str, Option<&'static str>) {
    for (file, system) in [
        ("CMakeLists.txt", "cmake"),
        ("meson.build", "meson"),
        ("configure", "autotools"),
        ("configure.ac", "autotools"),
        ("configure.in", "autotools"),
        ("Makefile", "makefile"),
        ("makefile", "makefile"),
        ("GNUmakefile", "makefile"),
    ] {
        if root.join(file).is_file() {
            return (system, Some(file));
        }
    }
    ("generic", None)
}

/// Download `url` (into the cache), unpack it into `scratch` and describe it.
pub fn create(
    url: &str,
    scratch: &Path,
    options: &FetchOptions,
    reporter: &dyn FetchReporter,
) -> Result<Option<Skeleton>, FetchError> {
    let Some((name, version)) = name_and_version(url) else {
        return Ok(None);
    };
    let mut opts = options.clone();
    opts.allow_unverified = true;
    opts.computing_digests = true;
    let req = SourceRequest {
        mirror_name: None,
        package: name.clone(),
        version: version.clone(),
        source: Source::Archive {
            url: url.to_string(),
            sha256: None,
            expand: true,
            max_size: None,
        },
    };
    let fetched = super::fetch_all(std::slice::from_ref(&req), &opts, reporter)?;
    let f = &fetched[0];
    let staged = super::stage(f, &scratch.join("src"))?;
    let (system, evidence) = detect_build_system(&staged.root);
    Ok(Some(Skeleton {
        name,
        version,
        url: url.to_string(),
        sha256: f.sha256().map(ToString::to_string).unwrap_or_default(),
        system,
        evidence,
    }))
}

impl Skeleton {
    /// The recipe text: what is known filled in, the rest as comments.
    pub fn recipe(&self) -> String {
        let detected = match self.evidence {
            Some(f) => format!("detected from {f}"),
            None => "no CMakeLists.txt, meson.build, configure or Makefile found".into(),
        };
        let build = match self.system {
            "cmake" => {
                "build:\n  system: cmake\n  # cmake_args: [-DBUILD_TESTING=OFF]\n".to_string()
            }
            "meson" => "build:\n  system: meson\n  # meson_args: [-Dtests=false]\n".to_string(),
            "autotools" => {
                "build:\n  system: autotools\n  # configure_args: [--disable-static]\n".to_string()
            }
            "makefile" => {
                "build:\n  system: makefile\n  make_args: [\"PREFIX={{ prefix }}\"]\n".to_string()
            }
            _ => "build:\n  system: generic\n  install:\n    - {copy: ., to: .}\n".to_string(),
        };
        format!(
            "# Created by `stack create {url}`; check every line (see docs/recipes.md).\n\
             name: {name}\n\
             description: FIXME one line about {name}\n\
             # homepage: https://…\n\
             versions:\n  - {{version: \"{version}\", url: \"{url}\", sha256: {sha}}}\n\
             # variants:\n#   shared: {{default: true, description: build shared libraries}}\n\
             # dependencies: [zlib, {{spec: cmake, type: build}}]\n\
             # build system {system}: {detected}\n\
             {build}",
            url = self.url,
            name = self.name,
            version = self.version,
            sha = self.sha256,
            system = self.system,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_versions_come_from_the_file_name() {
        let nv = |u: &str| name_and_version(u).map(|(n, v)| format!("{n} {v}"));
        assert_eq!(
            nv("https://x.org/dl/libfoo-1.2.3.tar.gz").as_deref(),
            Some("libfoo 1.2.3")
        );
        assert_eq!(
            nv("/srv/hwloc-2.12.2.tar.bz2").as_deref(),
            Some("hwloc 2.12.2")
        );
        assert_eq!(
            nv("https://x/aws-ofi-nccl-v1.8.1.tar.gz").as_deref(),
            Some("aws-ofi-nccl 1.8.1")
        );
        assert_eq!(nv("https://x/Foo_2.0.zip").as_deref(), Some("foo 2.0"));
        assert_eq!(nv("https://x/noversion.tar.gz"), None);
    }

    #[test]
    fn the_build_system_is_found_by_its_file() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(detect_build_system(tmp.path()), ("generic", None));
        fs_err::write(tmp.path().join("Makefile"), "").unwrap();
        assert_eq!(detect_build_system(tmp.path()).0, "makefile");
        fs_err::write(tmp.path().join("configure.ac"), "").unwrap();
        assert_eq!(detect_build_system(tmp.path()).0, "autotools");
        fs_err::write(tmp.path().join("CMakeLists.txt"), "").unwrap();
        assert_eq!(
            detect_build_system(tmp.path()),
            ("cmake", Some("CMakeLists.txt"))
        );
    }
}
