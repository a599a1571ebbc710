//! Speed and fidelity of `stack audit` / `stack ldd` on this machine's own
//! files: every regular ELF file under /usr/lib/x86_64-linux-gnu and
//! /usr/bin (the corpus of docs/audit.md).
//!
//!     cargo bench --bench audit                  # speed + agreement
//!     cargo bench --bench audit -- speed         # timings only
//!     cargo bench --bench audit -- agreement     # ldd comparison only
//!     cargo bench --bench audit -- scan          # dlopen scan against its floor
//!     cargo bench --bench audit -- --runs 30 --dirs /usr/bin
//!
//! Speed: `stack audit` (library call and CLI binary; full resolution:
//! every ELF file loaded as a root, all findings, dlopen scan) against
//! `libtree -p` with all files in one process and an `ldd` loop, all on a
//! warm page cache (one warm-up run each, then the minimum and median of
//! `--runs`). Agreement: `stack ldd` against `ldd`, file by file, listing
//! every disagreement with its reason.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use stack::audit::fs::{HostDir, Vfs};
use stack::audit::loader::LoaderModel;
use stack::audit::session::{Env, Session};
use stack::audit::{AuditOptions, audit_paths};

#[path = "../tests/it/harness/audit.rs"]
mod audit_support;
use audit_support::elf_files;

/// A named thing to time.
type Tool<'a> = (&'static str, Box<dyn FnMut() + 'a>);

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

struct Timing {
    min: Duration,
    median: Duration,
    runs: usize,
}

impl std::fmt::Display for Timing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "min {:8.1} ms   median {:8.1} ms   ({} runs)",
            ms(self.min),
            ms(self.median),
            self.runs
        )
    }
}

fn real_ldd(f: &Path) -> Vec<String> {
    audit_support::ldd(f, Path::new("/"), None).0
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this
    // binary without it: then only a quick agreement check on a few files.
    let bench = std::env::args().any(|a| a == "--bench");
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut runs = 15;
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut modes: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = it.next().and_then(|n| n.parse().ok()).unwrap_or(runs),
            "--dirs" => {
                for d in it.by_ref() {
                    dirs.push(PathBuf::from(d));
                }
            }
            m => modes.push(m.to_string()),
        }
    }
    if dirs.is_empty() {
        dirs = vec!["/usr/lib/x86_64-linux-gnu".into(), "/usr/bin".into()];
    }
    dirs.retain(|d| d.is_dir());
    if dirs.is_empty() {
        eprintln!("no corpus directories on this machine; skipping");
        return;
    }
    let mut files = elf_files(&dirs);
    if !bench {
        files = files.into_iter().step_by(100).collect();
        modes = vec!["agreement".into()];
    }
    let all = modes.is_empty();
    println!(
        "corpus: {} regular ELF files under {} ({} CPUs)",
        files.len(),
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );

    let mut ldd_outputs: Option<(Duration, Vec<Vec<String>>)> = None;
    if all || modes.iter().any(|m| m == "speed") {
        let bin = env!("CARGO_BIN_EXE_stack");
        let full = AuditOptions::default();
        let resolution = AuditOptions {
            dlopen_scan: false,
            ..AuditOptions::default()
        };
        let cli = |extra: &'static [&'static str]| {
            let dirs = dirs.clone();
            move || {
                let st = Command::new(bin)
                    .arg("audit")
                    .args(&dirs)
                    .args(["--format", "json", "-o", "/dev/null"])
                    .args(extra)
                    .status()
                    .expect("stack");
                assert!(st.code().is_some_and(|c| c <= 1));
            }
        };
        let libtree_ok = Command::new("libtree")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok();
        let mut summary = String::new();
        let mut tools: Vec<Tool> = vec![
            (
                "stack audit, library call, full (resolution + dlopen scan)",
                Box::new(|| {
                    let r = audit_paths(&dirs, &full).expect("audit");
                    if summary.is_empty() {
                        summary = format!(
                            "{} files, {} ELF, {} roots, {} objects loaded, {} findings",
                            r.summary.files,
                            r.summary.elf_files,
                            r.summary.roots,
                            r.summary.loaded_objects,
                            r.findings.len()
                        );
                    }
                }),
            ),
            (
                "stack audit, library call, resolution only",
                Box::new(|| {
                    audit_paths(&dirs, &resolution).expect("audit");
                }),
            ),
            ("stack audit CLI, full, JSON report", Box::new(cli(&[]))),
            (
                "stack audit CLI, resolution only, JSON report",
                Box::new(cli(&["--no-dlopen-scan"])),
            ),
        ];
        if libtree_ok {
            let files = files.clone();
            tools.push((
                "libtree -p, all files in one process",
                Box::new(move || {
                    let _ = Command::new("libtree")
                        .arg("-p")
                        .args(&files)
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status();
                }),
            ));
        }
        // Warm up, then interleave the runs so every tool sees the same
        // machine load.
        for (_, f) in tools.iter_mut() {
            f();
        }
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); tools.len()];
        for _ in 0..runs {
            for (i, (_, f)) in tools.iter_mut().enumerate() {
                let t = Instant::now();
                f();
                times[i].push(t.elapsed());
                // Let the audit's deferred freeing finish before the next
                // tool runs (it is not part of anyone's wall time).
                std::thread::sleep(Duration::from_millis(40));
            }
        }
        let names: Vec<&str> = tools.iter().map(|(n, _)| *n).collect();
        drop(tools);
        let mut timings = Vec::new();
        for (name, mut v) in names.iter().zip(times) {
            v.sort();
            let t = Timing {
                min: v[0],
                median: v[v.len() / 2],
                runs,
            };
            println!("{name:<48} {t}");
            timings.push(t);
        }
        println!("  ({summary})");
        // The ldd loop runs once (it takes seconds); its output feeds the
        // agreement check.
        let t = Instant::now();
        let outs: Vec<Vec<String>> = files.iter().map(|f| real_ldd(f)).collect();
        let ldd_time = t.elapsed();
        println!(
            "{:<48} {:8.1} ms   ({:.2} ms per file, 1 run)",
            "ldd loop (one ldd per file)",
            ms(ldd_time),
            ms(ldd_time) / files.len() as f64
        );
        let lib = &timings[0];
        let cli_full = &timings[2];
        if let Some(lt) = timings.get(4) {
            println!(
                "libtree / stack audit (median): {:.2}x (library, full), {:.2}x (library, resolution only), {:.2}x (CLI, full)",
                ms(lt.median) / ms(lib.median),
                ms(lt.median) / ms(timings[1].median),
                ms(lt.median) / ms(cli_full.median)
            );
        }
        println!(
            "ldd loop / stack audit (median): {:.0}x (library, full), {:.0}x (CLI, full)",
            ms(ldd_time) / ms(lib.median),
            ms(ldd_time) / ms(cli_full.median)
        );
        ldd_outputs = Some((ldd_time, outs));
    }

    if all || modes.iter().any(|m| m == "scan") {
        scan_floor(&files, runs);
    }

    if all || modes.iter().any(|m| m == "agreement") {
        let outs = match ldd_outputs {
            Some((_, o)) => o,
            None => files.iter().map(|f| real_ldd(f)).collect(),
        };
        let session = Session::new(
            Vfs::new(Box::new(HostDir::new("/"))),
            LoaderModel::host(),
            Env {
                ld_library_path: None,
                cwd: Some(PathBuf::from("/")),
            },
        );
        let t = Instant::now();
        let ours: Vec<Vec<String>> = files
            .iter()
            .map(|f| {
                audit_support::normalise_ldd(
                    &stack::audit::ldd::ldd(&session, f, &f.to_string_lossy(), false).text,
                )
            })
            .collect();
        let stack_time = t.elapsed();
        let mut agree = 0;
        let mut bad = Vec::new();
        for ((f, real), ours) in files.iter().zip(&outs).zip(&ours) {
            if real == ours {
                agree += 1;
                continue;
            }
            let mode = std::fs::metadata(f)
                .map(|m| m.permissions().mode())
                .unwrap_or(0);
            let reason = if mode & 0o6000 != 0 {
                "set-uid/set-gid: ldd runs outside secure mode, real execution (and stack ldd) in it"
            } else {
                "unexplained"
            };
            bad.push((f, reason, real, ours));
        }
        println!(
            "stack ldd over all files: {:.1} ms (sequential, one session)",
            ms(stack_time)
        );
        println!(
            "agreement stack ldd vs ldd: {agree}/{} files = {:.3}%",
            files.len(),
            100.0 * agree as f64 / files.len() as f64
        );
        if bad.is_empty() {
            println!("disagreements: none");
        }
        for (f, reason, real, ours) in &bad {
            println!("DISAGREE {} ({reason})", f.display());
            println!("  ldd:   {real:?}");
            println!("  stack: {ours:?}");
        }
        if !bench {
            assert!(
                bad.iter().all(|b| b.1 != "unexplained"),
                "unexplained disagreements"
            );
        }
    }
}

/// The dlopen scan against its floor: the `.rodata` of every file that
/// imports dlopen (one per inode, as the audit reads them) is mapped, and
/// (a) one byte of every 64-byte line is read — what any scan of these bytes
/// costs at least, on one thread — and (b) stack's scanner runs over it
/// (regions over 2 MB in parallel chunks, as in the audit). Fresh maps each
/// run (page faults included), best of `runs`.
fn scan_floor(files: &[PathBuf], runs: usize) {
    use std::os::unix::fs::MetadataExt;
    let mut seen = std::collections::HashSet::new();
    let mut regions: Vec<(PathBuf, u64, u64)> = Vec::new();
    for f in files {
        let Ok(meta) = std::fs::metadata(f) else {
            continue;
        };
        if !seen.insert((meta.dev(), meta.ino())) {
            continue;
        }
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        if !stack::audit::elf::parse(&bytes, true).is_some_and(|e| e.imports_dlopen) {
            continue;
        }
        let Ok(elf) = goblin::elf::Elf::parse(&bytes) else {
            continue;
        };
        for sh in &elf.section_headers {
            let rodata = elf
                .shdr_strtab
                .get_at(sh.sh_name)
                .is_some_and(|n| n.starts_with(".rodata"));
            if rodata && sh.sh_type == goblin::elf::section_header::SHT_PROGBITS {
                regions.push((f.clone(), sh.sh_offset, sh.sh_size));
            }
        }
    }
    let total: u64 = regions.iter().map(|r| r.2).sum();
    let pass = |scan: bool| {
        let t = Instant::now();
        let mut sink = 0u64;
        let mut found = Vec::new();
        for (path, off, len) in &regions {
            let file = std::fs::File::open(path).expect("open");
            // SAFETY: the corpus is not modified while the benchmark runs.
            let map = unsafe { memmap2::Mmap::map(&file) }.expect("map");
            let end = (off + len).min(map.len() as u64) as usize;
            let r = &map[(*off as usize).min(end)..end];
            if scan {
                stack::audit::dlopen::library_strings(r, &mut found);
            } else {
                sink = r
                    .iter()
                    .step_by(64)
                    .fold(sink, |a, &b| a.wrapping_add(u64::from(b)));
            }
        }
        std::hint::black_box((sink, found.len()));
        t.elapsed()
    };
    let best = |scan: bool| {
        (0..runs.max(1))
            .map(|_| pass(scan))
            .min()
            .unwrap_or_default()
    };
    let (touch, scan) = (best(false), best(true));
    let gbs = |d: Duration| total as f64 / d.as_secs_f64() / 1e9;
    println!(
        "dlopen scan: {} files import dlopen (one per inode), {:.1} MB of .rodata",
        regions
            .iter()
            .map(|r| &r.0)
            .collect::<std::collections::HashSet<_>>()
            .len(),
        total as f64 / 1e6
    );
    println!(
        "  map + read one byte per 64-byte line (the floor, one thread) {:7.1} ms  ({:.1} GB/s)",
        ms(touch),
        gbs(touch)
    );
    println!(
        "  map + stack's scanner (regions over 2 MB in parallel chunks) {:7.1} ms  ({:.1} GB/s)",
        ms(scan),
        gbs(scan)
    );
}
