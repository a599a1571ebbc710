//! The target system's dynamic loader, described by facts: which directories
//! it searches by default, what `$LIB` and `$PLATFORM` expand to, which
//! `glibc-hwcaps` (and, up to glibc 2.36, legacy hwcap) subdirectories it
//! tries, and where its `ld.so.cache` lives.
//!
//! [`LoaderModel::host`] asks the host's `ld.so --help` (glibc ≥ 2.33 prints
//! the search path and hwcaps levels) — it runs the host's own loader, never
//! an audited file. [`LoaderModel::defaults`] guesses from a system root
//! without running anything. Every field is public and serde-(de)serialisable
//! so a cluster configuration can state the facts of another OS.

use std::path::Path;
use std::process::Command;

use goblin::elf::header::{
    ELFCLASS32, ELFCLASS64, ELFDATA2LSB, EM_AARCH64, EM_PPC64, EM_RISCV, EM_X86_64,
};
use serde::{Deserialize, Serialize};

use super::elf::Target;

/// Facts about the target's `ld.so`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoaderModel {
    /// ELF `e_machine` of the target (62 = x86-64, 183 = AArch64).
    pub machine: u16,
    /// `EI_CLASS` (2 = 64-bit).
    pub class: u8,
    /// `EI_DATA` (1 = little-endian).
    pub data: u8,
    /// The program interpreter used when a root has no `PT_INTERP`.
    pub interpreter: String,
    /// The built-in ("system") search directories, in order.
    pub default_dirs: Vec<String>,
    /// What `$LIB` expands to (Debian: `lib/x86_64-linux-gnu`, Fedora: `lib64`).
    pub lib: String,
    /// What `$PLATFORM` expands to (`AT_PLATFORM`, e.g. `x86_64`, `haswell`).
    pub platform: String,
    /// Supported `glibc-hwcaps` subdirectories, best first (`x86-64-v3`, …).
    #[serde(default)]
    pub hwcaps: Vec<String>,
    /// Legacy hwcap subdirectory components in path order (`tls`, the
    /// platform, hwcap names); glibc ≤ 2.36 only. Empty for newer glibc.
    #[serde(default)]
    pub legacy_hwcaps: Vec<String>,
    /// Path of `ld.so.cache` on the target; `None` = the loader uses no cache.
    pub ld_so_cache: Option<String>,
    /// Path of `ld.so.conf` (used only when the cache file does not exist).
    pub ld_so_conf: String,
    /// Where these facts came from (shown in reports).
    #[serde(default)]
    pub source: String,
}

/// ELF identity and interpreter of the architectures we know.
fn arch_facts(arch: &str) -> Option<(u16, u8, &'static str, &'static str)> {
    Some(match arch {
        "x86_64" => (
            EM_X86_64,
            ELFCLASS64,
            "/lib64/ld-linux-x86-64.so.2",
            "x86_64-linux-gnu",
        ),
        "aarch64" => (
            EM_AARCH64,
            ELFCLASS64,
            "/lib/ld-linux-aarch64.so.1",
            "aarch64-linux-gnu",
        ),
        "powerpc64" => (
            EM_PPC64,
            ELFCLASS64,
            "/lib64/ld64.so.2",
            "powerpc64le-linux-gnu",
        ),
        "riscv64" => (
            EM_RISCV,
            ELFCLASS64,
            "/lib/ld-linux-riscv64-lp64d.so.1",
            "riscv64-linux-gnu",
        ),
        _ => return None,
    })
}

impl LoaderModel {
    /// The identity a candidate file must have to be loadable.
    pub fn target(&self) -> Target {
        Target {
            class: self.class,
            data: self.data,
            machine: self.machine,
        }
    }

    /// Facts guessed for `arch` (`x86_64`, `aarch64`, …) from the layout of
    /// the system root `sysroot`, without running anything: multiarch
    /// (Debian/Ubuntu) if `usr/lib/<triplet>` exists, otherwise `lib64`
    /// (Fedora, RHEL, SLES). No hwcaps subdirectories are assumed.
    pub fn defaults(arch: &str, sysroot: &Path) -> LoaderModel {
        let (machine, class, interp, triplet) = arch_facts(arch).unwrap_or((
            EM_X86_64,
            ELFCLASS64,
            "/lib64/ld-linux-x86-64.so.2",
            "x86_64-linux-gnu",
        ));
        let multiarch = sysroot.join("usr/lib").join(triplet).is_dir();
        let (default_dirs, lib) = if multiarch {
            (
                vec![
                    format!("/lib/{triplet}"),
                    format!("/usr/lib/{triplet}"),
                    "/lib".to_string(),
                    "/usr/lib".to_string(),
                ],
                format!("lib/{triplet}"),
            )
        } else if class == ELFCLASS32 {
            (vec!["/lib".into(), "/usr/lib".into()], "lib".into())
        } else {
            (vec!["/lib64".into(), "/usr/lib64".into()], "lib64".into())
        };
        LoaderModel {
            machine,
            class,
            data: ELFDATA2LSB,
            interpreter: interp.to_string(),
            default_dirs,
            lib,
            platform: arch.to_string(),
            hwcaps: Vec::new(),
            legacy_hwcaps: Vec::new(),
            ld_so_cache: Some("/etc/ld.so.cache".into()),
            ld_so_conf: "/etc/ld.so.conf".into(),
            source: format!(
                "defaults for {arch} ({} layout of {})",
                if multiarch { "multiarch" } else { "lib64" },
                sysroot.display()
            ),
        }
    }

    /// The host's loader: `ld.so --help` of the host's interpreter, falling
    /// back to [`LoaderModel::defaults`] when it cannot tell (glibc < 2.33).
    pub fn host() -> LoaderModel {
        let arch = std::env::consts::ARCH;
        let mut model = Self::defaults(arch, Path::new("/"));
        let out = Command::new(&model.interpreter).arg("--help").output();
        if let Ok(out) = out {
            let text = String::from_utf8_lossy(&out.stdout);
            if model.apply_help(&text) {
                model.source = format!("{} --help", model.interpreter);
            }
        }
        model
    }

    /// Reads the facts `ld.so --help` prints (glibc ≥ 2.33). Returns whether
    /// the search path section was found.
    pub fn apply_help(&mut self, text: &str) -> bool {
        #[derive(PartialEq)]
        enum Section {
            None,
            Search,
            Hwcaps,
            Legacy,
        }
        let mut section = Section::None;
        let mut dirs = Vec::new();
        let mut uses_cache = false;
        let mut hwcaps = Vec::new();
        let mut legacy = Vec::new();
        let mut platform = None;
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with("Shared library search path") {
                section = Section::Search;
                continue;
            }
            if t.starts_with("Subdirectories of glibc-hwcaps") {
                section = Section::Hwcaps;
                continue;
            }
            if t.starts_with("Legacy HWCAP subdirectories") {
                section = Section::Legacy;
                continue;
            }
            if t.is_empty() || !line.starts_with(' ') {
                if !t.is_empty() {
                    section = Section::None;
                }
                continue;
            }
            match section {
                Section::Search => {
                    if t.contains("ld.so.cache") {
                        uses_cache = true;
                    } else if let Some(d) = t.strip_suffix("(system search path)") {
                        dirs.push(d.trim().to_string());
                    }
                }
                Section::Hwcaps => {
                    if let Some((name, rest)) = t.split_once(' ') {
                        if rest.contains("searched") && !rest.contains("not searched") {
                            hwcaps.push(name.to_string());
                        }
                    }
                }
                Section::Legacy => {
                    if let Some((name, rest)) = t.split_once(' ') {
                        if rest.contains("AT_PLATFORM") {
                            platform = Some(name.to_string());
                        }
                        if rest.contains("searched") && !rest.contains("not searched") {
                            legacy.push((name.to_string(), rest.contains("AT_PLATFORM")));
                        }
                    }
                }
                Section::None => {}
            }
        }
        if dirs.is_empty() {
            return false;
        }
        if self.lib.is_empty() || self.source.starts_with("defaults") {
            // glibc's $LIB is the first system directory without its slash on
            // every distribution we know (Debian lib/<triplet>, Fedora lib64).
            self.lib = dirs[0].trim_start_matches('/').to_string();
        }
        self.default_dirs = dirs;
        self.hwcaps = hwcaps;
        if let Some(p) = platform {
            self.platform = p;
        }
        // Path order of the legacy components: tls, the platform, then the
        // hwcap names in the order printed.
        let mut comps = Vec::new();
        if legacy.iter().any(|(n, _)| n == "tls") {
            comps.push("tls".to_string());
        }
        for (n, is_platform) in &legacy {
            if *is_platform {
                comps.push(n.clone());
            }
        }
        for (n, is_platform) in &legacy {
            if !is_platform && n != "tls" {
                comps.push(n.clone());
            }
        }
        self.legacy_hwcaps = comps;
        if !uses_cache {
            self.ld_so_cache = None;
        }
        true
    }

    /// The subdirectories tried inside every search directory, in order,
    /// each with a trailing `/`; the last one is `""` (the directory itself).
    pub fn subdirs(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .hwcaps
            .iter()
            .map(|h| format!("glibc-hwcaps/{h}/"))
            .collect();
        let n = self.legacy_hwcaps.len().min(16);
        for m in (1..(1u32 << n)).rev() {
            let mut s = String::new();
            for (i, c) in self.legacy_hwcaps.iter().take(n).enumerate() {
                if m & (1 << (n - 1 - i)) != 0 {
                    s.push_str(c);
                    s.push('/');
                }
            }
            out.push(s);
        }
        out.push(String::new());
        out
    }

    /// The system directories with a trailing slash, as glibc compares them.
    pub fn system_dirs_slashed(&self) -> Vec<String> {
        self.default_dirs
            .iter()
            .map(|d| {
                let d = d.trim_end_matches('/');
                format!("{d}/")
            })
            .collect()
    }

    /// `ld.so.cache` entry flags this loader accepts (`_dl_cache_check_flags`).
    pub fn cache_flags_ok(&self, flags: i32) -> bool {
        let expected = match (self.machine, self.class) {
            (EM_X86_64, ELFCLASS64) => 0x0303,
            (EM_AARCH64, _) => 0x0a03,
            (EM_PPC64, _) => 0x0503,
            (EM_RISCV, ELFCLASS64) => 0x1003,
            (_, ELFCLASS32) => return flags == 1 || flags == 3,
            _ => 0x0303,
        };
        flags == expected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEBIAN_HELP: &str = "\
Shared library search path:
  (libraries located via /etc/ld.so.cache)
  /lib/x86_64-linux-gnu (system search path)
  /usr/lib/x86_64-linux-gnu (system search path)
  /lib (system search path)
  /usr/lib (system search path)

Subdirectories of glibc-hwcaps directories, in priority order:
  x86-64-v4 (supported, searched)
  x86-64-v3 (supported, searched)
  x86-64-v2 (supported, searched)

Legacy HWCAP subdirectories under library search path directories:
  haswell (AT_PLATFORM; supported, searched)
  tls (supported, searched)
  avx512_1 (supported, searched)
  x86_64 (supported, searched)
";

    #[test]
    fn parses_debian_help() {
        let mut m = LoaderModel::defaults("x86_64", Path::new("/nonexistent"));
        assert!(m.apply_help(DEBIAN_HELP));
        assert_eq!(m.default_dirs[0], "/lib/x86_64-linux-gnu");
        assert_eq!(m.default_dirs.len(), 4);
        assert_eq!(m.lib, "lib/x86_64-linux-gnu");
        assert_eq!(m.platform, "haswell");
        assert_eq!(m.hwcaps, vec!["x86-64-v4", "x86-64-v3", "x86-64-v2"]);
        assert_eq!(
            m.legacy_hwcaps,
            vec!["tls", "haswell", "avx512_1", "x86_64"]
        );
        let subs = m.subdirs();
        assert_eq!(subs.len(), 3 + 15 + 1);
        // The order LD_DEBUG=libs shows on glibc 2.36.
        assert_eq!(subs[3], "tls/haswell/avx512_1/x86_64/");
        assert_eq!(subs[4], "tls/haswell/avx512_1/");
        assert_eq!(subs[5], "tls/haswell/x86_64/");
        assert_eq!(subs[10], "tls/");
        assert_eq!(subs[17], "x86_64/");
        assert_eq!(subs[18], "");
        assert_eq!(m.ld_so_cache.as_deref(), Some("/etc/ld.so.cache"));
    }

    #[test]
    fn newer_glibc_has_no_legacy() {
        let mut m = LoaderModel::defaults("x86_64", Path::new("/nonexistent"));
        let help = DEBIAN_HELP.split("Legacy").next().unwrap();
        assert!(m.apply_help(help));
        assert!(m.legacy_hwcaps.is_empty());
        assert_eq!(m.platform, "x86_64");
        assert_eq!(m.subdirs().len(), 4);
    }

    #[test]
    fn defaults_without_multiarch_use_lib64() {
        let m = LoaderModel::defaults("x86_64", Path::new("/nonexistent"));
        assert_eq!(m.default_dirs, vec!["/lib64", "/usr/lib64"]);
        assert_eq!(m.lib, "lib64");
        assert!(m.cache_flags_ok(0x0303));
        assert!(!m.cache_flags_ok(0x0003));
    }

    #[test]
    fn model_round_trips_through_json() {
        let m = LoaderModel::defaults("aarch64", Path::new("/nonexistent"));
        let s = serde_json::to_string(&m).unwrap();
        let back: LoaderModel = serde_json::from_str(&s).unwrap();
        assert_eq!(m, back);
    }
}
