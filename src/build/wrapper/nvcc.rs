//! The wrapper as `nvcc`: deterministic CUDA objects.
//!
//! nvcc names a translation unit's module (`__nv_module_id`, the
//! `_GLOBAL__N_…`/`__nv_static_…` names of anonymous-namespace and static
//! device symbols) from a random number, and the host object keeps the name
//! of a temporary file holding the process id (`tmpxft_<pid>_…cudafe1.cpp`),
//! so two builds of the same source differ. nvcc's `-frandom-seed=S`
//! replaces the random number (S is also passed on to gcc/clang; "users are
//! responsible for assigning different seeds to different files"), and
//! `--keep --keep-dir DIR` names the intermediate files after the source
//! instead of the process. So the wrapper adds
//!
//! - `-frandom-seed=<16 hex>`: a hash of the call's inputs and output as
//!   written (so each file gets its own seed, the same in every build);
//! - `--keep --keep-dir <fresh dir under $TMPDIR>`, removed afterwards;
//!
//! unless the call sets them itself, and passes queries (`--version`, …)
//! through. cudafe++ also hashes the source's absolute path into the module
//! id; for a call compiling one `.cu` file below the stage, the wrapper adds
//! `-Xcudafe --orig_src_path_name=<path with the stage mapped>` (the map
//! the gcc wrapper applies as `-ffile-prefix-map`), so builds in different
//! build directories agree. The real nvcc is `STACK_WRAP_REAL_NVCC` (the
//! `bin/nvcc` of the package's CUDA dependency); nvcc's host compiler calls
//! go through the `gcc`/`g++` wrappers on `PATH` as usual.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Options of nvcc whose value is the next argument (the ones that matter
/// for finding inputs; others are attached with `=`).
const TAKES_VALUE: &[&str] = &[
    "-o",
    "--output-file",
    "-I",
    "--include-path",
    "-L",
    "--library-path",
    "-l",
    "--library",
    "-D",
    "--define-macro",
    "-U",
    "--undefine-macro",
    "-x",
    "--x",
    "-ccbin",
    "--compiler-bindir",
    "-Xcompiler",
    "--compiler-options",
    "-Xlinker",
    "--linker-options",
    "-Xptxas",
    "--ptxas-options",
    "-Xnvlink",
    "--nvlink-options",
    "-Xcudafe",
    "-arch",
    "--gpu-architecture",
    "-code",
    "--gpu-code",
    "-gencode",
    "--generate-code",
    "-std",
    "--std",
    "-isystem",
    "-include",
    "--pre-include",
    "-odir",
    "--output-directory",
    "-MF",
    "--dependency-output",
    "-MT",
    "-keep-dir",
    "--keep-dir",
    "-t",
    "--threads",
    "-maxrregcount",
    "--maxrregcount",
    "-rdc",
    "--relocatable-device-code",
    "-m",
    "--machine",
    "-O",
    "--optimize",
];

/// How a call is changed.
#[derive(Debug, PartialEq, Eq)]
pub struct NvccCall {
    pub args: Vec<OsString>,
    /// Whether `--keep --keep-dir DIR` must be added (DIR made by the caller).
    pub keep_dir: bool,
}

fn is_query(a: &[u8]) -> bool {
    matches!(
        a,
        b"--version"
            | b"-V"
            | b"--help"
            | b"-h"
            | b"--list-gpu-arch"
            | b"-arch-ls"
            | b"--list-gpu-code"
            | b"-code-ls"
            | b"--dryrun"
            | b"-dryrun"
    )
}

fn name_is(a: &[u8], names: &[&str]) -> bool {
    names.iter().any(|n| {
        let n = n.as_bytes();
        a == n || (a.starts_with(n) && a.get(n.len()) == Some(&b'='))
    })
}

/// The inputs of a call: arguments that are not options or option values.
fn inputs<'a>(bytes: &[&'a [u8]]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let a = bytes[i];
        if TAKES_VALUE.iter().any(|t| t.as_bytes() == a) {
            i += 2;
            continue;
        }
        if !a.starts_with(b"-") {
            out.push(a);
        }
        i += 1;
    }
    out
}

/// `-Xcudafe --orig_src_path_name=P` for a call compiling one `.cu` file
/// below a mapped directory: cudafe++ hashes the source's absolute path
/// into the module id, so the stage path (which holds the build directory)
/// is replaced as `-ffile-prefix-map` does for gcc.
fn mapped_source(
    bytes: &[&[u8]],
    cwd: &Path,
    maps: &[(PathBuf, PathBuf)],
) -> Option<Vec<OsString>> {
    if bytes.iter().any(|a| a.starts_with(b"--orig_src_path_name")) {
        return None;
    }
    let cu: Vec<&[u8]> = inputs(bytes)
        .into_iter()
        .filter(|a| a.ends_with(b".cu"))
        .collect();
    let [one] = cu.as_slice() else {
        return None;
    };
    let abs = cwd.join(Path::new(OsStr::from_bytes(one)));
    let (old, new) = maps.iter().find(|(old, _)| abs.starts_with(old))?;
    let mapped = new.join(abs.strip_prefix(old).ok()?);
    let mut flag = OsString::from("--orig_src_path_name=");
    flag.push(mapped);
    Some(vec!["-Xcudafe".into(), flag])
}

/// The arguments to run the real nvcc with (without the keep dir itself),
/// for a call in `cwd` with the wrapper's prefix maps `maps`.
pub fn plan_in(args: &[OsString], cwd: &Path, maps: &[(PathBuf, PathBuf)]) -> NvccCall {
    let mut call = plan(args);
    let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    if !bytes.iter().any(|a| is_query(a)) {
        if let Some(extra) = mapped_source(&bytes, cwd, maps) {
            call.args.extend(extra);
        }
    }
    call
}

/// The arguments to run the real nvcc with (without the keep dir itself).
pub fn plan(args: &[OsString]) -> NvccCall {
    let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    if bytes.is_empty() || bytes.iter().any(|a| is_query(a)) {
        return NvccCall {
            args: args.to_vec(),
            keep_dir: false,
        };
    }
    let has_seed = bytes
        .iter()
        .any(|a| name_is(a, &["-frandom-seed", "--frandom-seed"]));
    let has_keep = bytes.iter().any(|a| {
        name_is(
            a,
            &[
                "-keep",
                "--keep",
                "-keep-dir",
                "--keep-dir",
                "-save-temps",
                "--save-temps",
            ],
        )
    });
    let mut out = args.to_vec();
    if !has_seed {
        let mut h = Sha256::new();
        h.update(b"stack-nvcc-seed-v1");
        let mut i = 0;
        while i < bytes.len() {
            let a = bytes[i];
            if a == b"-o" || a == b"--output-file" {
                if let Some(o) = bytes.get(i + 1) {
                    h.update(b"\0o\0");
                    h.update(o);
                }
                i += 2;
                continue;
            }
            if TAKES_VALUE.iter().any(|t| t.as_bytes() == a) {
                i += 2;
                continue;
            }
            if !a.starts_with(b"-") {
                h.update(b"\0i\0");
                h.update(a);
            }
            i += 1;
        }
        let seed = hex::encode(&h.finalize()[..8]);
        out.insert(0, format!("-frandom-seed={seed}").into());
    }
    NvccCall {
        args: out,
        keep_dir: !has_keep,
    }
}

/// Runs the real nvcc `real` with `args` changed as described; returns its
/// exit code (127 when it cannot run).
pub fn run(real: &OsStr, args: &[OsString], log: Option<&Path>) -> Result<i32, super::WrapError> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let maps = super::WrapConfig::from_env().prefix_maps;
    let call = plan_in(args, &cwd, &maps);
    let mut args = call.args;
    let mut keep: Option<PathBuf> = None;
    if call.keep_dir {
        // $TMPDIR, else /tmp.
        let base = std::env::temp_dir();
        match tempfile::Builder::new().prefix("nvcc-").tempdir_in(&base) {
            Ok(d) => {
                let p = d.keep();
                args.insert(0, p.clone().into_os_string());
                args.insert(0, "--keep-dir".into());
                args.insert(0, "--keep".into());
                keep = Some(p);
            }
            Err(e) => tracing::debug!("nvcc wrapper: no keep dir in {}: {e}", base.display()),
        }
    }
    if let Some(log) = log {
        super::log_line(log, "Nvcc", real, &args);
    }
    let status = std::process::Command::new(real).args(&args).status();
    if let Some(k) = keep {
        let _ = fs_err::remove_dir_all(k);
    }
    match status {
        Ok(s) => Ok(s.code().unwrap_or(1)),
        Err(source) => Err(super::WrapError::Exec {
            real: real.into(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    fn seed(call: &NvccCall) -> String {
        call.args[0].to_string_lossy().into_owned()
    }

    #[test]
    fn compiles_get_a_seed_per_file_and_a_keep_dir() {
        let a = plan(&v(&["-c", "-arch", "sm_90", "a.cu", "-o", "a.o"]));
        let a2 = plan(&v(&["-c", "-arch", "sm_90", "a.cu", "-o", "a.o"]));
        let b = plan(&v(&["-c", "-arch", "sm_90", "b.cu", "-o", "b.o"]));
        assert!(seed(&a).starts_with("-frandom-seed="), "{a:?}");
        assert_eq!(seed(&a).len(), "-frandom-seed=".len() + 16);
        assert_eq!(a, a2);
        assert_ne!(seed(&a), seed(&b));
        // the architecture is not an input
        let c = plan(&v(&["-c", "-arch", "sm_80", "a.cu", "-o", "a.o"]));
        assert_eq!(seed(&a), seed(&c));
        assert!(a.keep_dir);
    }

    #[test]
    fn the_stage_path_of_the_source_is_mapped_for_cudafe() {
        let maps = vec![(PathBuf::from("/b/stage/x"), PathBuf::from("/stack-stage/x"))];
        let call = plan_in(
            &v(&["-c", "src/k.cu", "-o", "k.o"]),
            Path::new("/b/stage/x/src"),
            &maps,
        );
        let n = call.args.len();
        assert_eq!(
            call.args[n - 2..],
            v(&[
                "-Xcudafe",
                "--orig_src_path_name=/stack-stage/x/src/src/k.cu"
            ])
        );
        // outside the stage, or several sources: nothing
        let call = plan_in(&v(&["-c", "k.cu"]), Path::new("/elsewhere"), &maps);
        assert!(!call.args.iter().any(|a| a == "-Xcudafe"));
        let call = plan_in(&v(&["-c", "a.cu", "b.cu"]), Path::new("/b/stage/x"), &maps);
        assert!(!call.args.iter().any(|a| a == "-Xcudafe"));
    }

    #[test]
    fn own_settings_and_queries_are_kept() {
        let q = plan(&v(&["--version"]));
        assert_eq!(q.args, v(&["--version"]));
        assert!(!q.keep_dir);
        let own = plan(&v(&["-frandom-seed=7", "--keep-dir=/k", "-c", "a.cu"]));
        assert_eq!(
            own.args,
            v(&["-frandom-seed=7", "--keep-dir=/k", "-c", "a.cu"])
        );
        assert!(!own.keep_dir);
    }
}
