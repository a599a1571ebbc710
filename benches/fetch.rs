//! Fetch throughput: `fetch_all` of ~1 GB of archives from a loopback HTTP mirror into an empty
//! cache, against `sha256sum` over the same files in the same run.
//!
//! Run: `cargo bench --bench fetch` (environment: `FETCH_BENCH_MB` total size, default 1024;
//! `FETCH_BENCH_FILES` number of files, default 8; `FETCH_BENCH_RUNS` runs each, default 3;
//! `FETCH_BENCH_DIR` where to put the files, default the system temp dir).
//!
//! Goal (issue 4): fetch within 1.3x of sha256sum, i.e. hashing is single-pass and downloads
//! overlap. Both sides read their input from the page cache (the files were just written).
//!
//! A second part times `stage` (safe extraction) of a source-like tar.gz with many small files
//! against `tar -xzf` (`FETCH_BENCH_STAGE_FILES`, default 20000; 0 skips it).

#[path = "../tests/it/harness/http.rs"]
mod server;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use server::{Behaviour, Body, Server};
use stack::fetch::{
    FetchOptions, NoopReporter, Origin, Source, SourceCache, SourceRequest, fetch_all, stage,
};

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Fill `path` with `size` pseudo-random bytes (xorshift; incompressible, fast to make).
fn write_random(path: &Path, size: u64, seed: u64) {
    let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut buf = vec![0u8; 1 << 20];
    let mut left = size;
    while left > 0 {
        for chunk in buf.chunks_exact_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk.copy_from_slice(&x.to_le_bytes());
        }
        let n = left.min(buf.len() as u64) as usize;
        f.write_all(&buf[..n]).unwrap();
        left -= n as u64;
    }
    f.flush().unwrap();
}

/// CPU time (user + system) used so far by this process (`who = RUSAGE_SELF`) or by its
/// waited-for children (`RUSAGE_CHILDREN`).
fn cpu(who: i32) -> Duration {
    let mut ru: nix::libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes into the struct we pass.
    unsafe { nix::libc::getrusage(who, &mut ru) };
    let tv = |t: nix::libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// One timed run: wall time and CPU time.
#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    cpu: Duration,
}

/// Run a hashing command over the files; returns the timing and the digests (first word of
/// each output line; `openssl dgst` prints `SHA2-256(file)= hex`, so take the last word there).
fn hash_cmd(program: &[&str], files: &[PathBuf]) -> Option<(Sample, Vec<String>)> {
    let cpu0 = cpu(nix::libc::RUSAGE_CHILDREN);
    let start = Instant::now();
    let out = Command::new(program[0])
        .args(&program[1..])
        .args(files)
        .output()
        .ok()?;
    let wall = start.elapsed();
    if !out.status.success() {
        return None;
    }
    let digests = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            if program[0] == "openssl" {
                w[w.len() - 1]
            } else {
                w[0]
            }
            .to_string()
        })
        .collect();
    Some((
        Sample {
            wall,
            cpu: cpu(nix::libc::RUSAGE_CHILDREN) - cpu0,
        },
        digests,
    ))
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this binary without it,
    // and then a small smoke run checks that the benchmark works without taking minutes.
    let full = std::env::args().any(|a| a == "--bench");
    let total_mb = env_num("FETCH_BENCH_MB", if full { 1024 } else { 8 });
    let nfiles = env_num("FETCH_BENCH_FILES", 8).max(1);
    let runs = env_num("FETCH_BENCH_RUNS", if full { 3 } else { 1 }).max(1);
    let base = std::env::var_os("FETCH_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let tmp = tempfile::Builder::new()
        .prefix("stack-fetch-bench.")
        .tempdir_in(base)
        .unwrap();
    let size = total_mb * (1 << 20) / nfiles;
    println!(
        "fetch benchmark: {nfiles} files x {} MiB = {} MiB, {runs} runs each, {} cores",
        size >> 20,
        (size * nfiles) >> 20,
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );

    let src = tmp.path().join("files");
    std::fs::create_dir_all(&src).unwrap();
    let files: Vec<PathBuf> = (0..nfiles)
        .map(|i| {
            let p = src.join(format!("pkg{i}-1.0.tar.gz"));
            write_random(&p, size, i + 1);
            p
        })
        .collect();

    // Baselines: coreutils sha256sum (the yardstick) and openssl (SHA-NI accelerated,
    // like the sha2 crate on this CPU), each over the same files from the page cache.
    let mut digests = Vec::new();
    let mut base_times = Vec::new();
    let mut openssl_times = Vec::new();
    for _ in 0..runs {
        let (t, d) = hash_cmd(&["sha256sum"], &files).expect("sha256sum");
        base_times.push(t);
        digests = d;
        if let Some((t, d)) = hash_cmd(&["openssl", "dgst", "-sha256"], &files) {
            assert_eq!(d, digests);
            openssl_times.push(t);
        }
    }

    // A loopback mirror in Spack layout; the upstream URLs point at a closed port.
    let srv = Server::start();
    let requests: Vec<SourceRequest> = files
        .iter()
        .zip(&digests)
        .enumerate()
        .map(|(i, (f, d))| {
            srv.route(
                &format!("/mirror/_source-cache/archive/{}/{d}.tar.gz", &d[..2]),
                Body::File(f.clone()),
                Behaviour::Ok,
            );
            SourceRequest {
                mirror_name: None,
                package: format!("pkg{i}"),
                version: "1.0".into(),
                source: Source::Archive {
                    url: format!("http://127.0.0.1:9/pkg{i}-1.0.tar.gz"),
                    sha256: Some(d.clone()),
                    expand: true,
                    max_size: None,
                },
            }
        })
        .collect();

    let mut fetch_times = Vec::new();
    let mut hit_times = Vec::new();
    for run in 0..runs {
        let cache = tmp.path().join(format!("cache{run}"));
        let mut opts = FetchOptions::new(SourceCache::new(&cache));
        opts.mirrors = vec![srv.url("/mirror")];
        let (cpu0, start) = (cpu(nix::libc::RUSAGE_SELF), Instant::now());
        let got = fetch_all(&requests, &opts, &NoopReporter).expect("fetch");
        fetch_times.push(Sample {
            wall: start.elapsed(),
            cpu: cpu(nix::libc::RUSAGE_SELF) - cpu0,
        });
        assert!(got.iter().all(|f| matches!(f.origin, Origin::Mirror(_))));
        // Cache hit: every entry re-verified.
        let (cpu0, start) = (cpu(nix::libc::RUSAGE_SELF), Instant::now());
        let got = fetch_all(&requests, &opts, &NoopReporter).expect("fetch");
        hit_times.push(Sample {
            wall: start.elapsed(),
            cpu: cpu(nix::libc::RUSAGE_SELF) - cpu0,
        });
        assert!(got.iter().all(|f| f.origin == Origin::Cache));
        std::fs::remove_dir_all(&cache).unwrap();
    }

    let best = |v: &[Sample]| v.iter().min_by_key(|s| s.wall).copied().unwrap();
    let mib = (size * nfiles) as f64 / (1 << 20) as f64;
    let show = |name: &str, v: &[Sample]| {
        if v.is_empty() {
            return;
        }
        let b = best(v);
        println!(
            "{name:<36} wall {:>7.3} s ({:>6.0} MiB/s)  cpu {:>6.3} s   all runs (wall): {}",
            b.wall.as_secs_f64(),
            mib / b.wall.as_secs_f64(),
            b.cpu.as_secs_f64(),
            v.iter()
                .map(|t| format!("{:.3}", t.wall.as_secs_f64()))
                .collect::<Vec<_>>()
                .join(" ")
        );
    };
    show("sha256sum (coreutils)", &base_times);
    show("openssl dgst -sha256", &openssl_times);
    show("fetch_all, loopback mirror, empty", &fetch_times);
    show("fetch_all, cache hit (re-verify)", &hit_times);
    let fetch = best(&fetch_times).wall.as_secs_f64();
    println!(
        "ratio fetch/sha256sum: {:.2}x (goal <= 1.3x)",
        fetch / best(&base_times).wall.as_secs_f64()
    );
    if !openssl_times.is_empty() {
        println!(
            "ratio fetch/openssl:   {:.2}x",
            fetch / best(&openssl_times).wall.as_secs_f64()
        );
    }

    let nstage = env_num("FETCH_BENCH_STAGE_FILES", if full { 20_000 } else { 200 });
    if nstage > 0 {
        bench_stage(tmp.path(), nstage, runs);
    }
}

/// A source-like tarball: `nfiles` text files of ~4 KiB in nested directories, plus some
/// symlinks; extracted with `stage` and with `tar -xzf`.
fn bench_stage(dir: &Path, nfiles: u64, runs: u64) {
    let tarball = dir.join("src-1.0.tar.gz");
    {
        let gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&tarball).unwrap(),
            flate2::Compression::default(),
        );
        let mut b = tar::Builder::new(gz);
        let mut text = String::new();
        for i in 0..nfiles {
            text.clear();
            for j in 0..64 {
                text.push_str(&format!(
                    "int f_{i}_{j}(int x) {{ return x * {j} + {i}; }}\n"
                ));
            }
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(tar::EntryType::Regular);
            h.set_mode(0o644);
            h.set_size(text.len() as u64);
            h.set_mtime(1_700_000_000);
            let path = format!("src-1.0/d{}/e{}/f{i}.c", i % 50, i % 7);
            b.append_data(&mut h, path, text.as_bytes()).unwrap();
            if i % 100 == 0 {
                let mut h = tar::Header::new_gnu();
                h.set_entry_type(tar::EntryType::Symlink);
                h.set_mode(0o777);
                h.set_size(0);
                b.append_link(
                    &mut h,
                    format!("src-1.0/d{}/link{i}.c", i % 50),
                    format!("e{}/f{i}.c", i % 7),
                )
                .unwrap();
            }
        }
        b.into_inner().unwrap().finish().unwrap();
    }
    let size = std::fs::metadata(&tarball).unwrap().len();
    let (_, digests) = hash_cmd(&["sha256sum"], std::slice::from_ref(&tarball)).unwrap();
    let req = SourceRequest {
        mirror_name: None,
        package: "src".into(),
        version: "1.0".into(),
        source: Source::Archive {
            url: tarball.display().to_string(),
            sha256: Some(digests[0].clone()),
            expand: true,
            max_size: None,
        },
    };
    let opts = FetchOptions::new(SourceCache::new(dir.join("stage-cache")));
    let fetched = fetch_all(&[req], &opts, &NoopReporter)
        .unwrap()
        .pop()
        .unwrap();
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for run in 0..runs {
        let dest = dir.join(format!("stage{run}"));
        let start = Instant::now();
        let staged = stage(&fetched, &dest).unwrap();
        ours.push(start.elapsed());
        assert!(staged.entries >= nfiles);
        std::fs::remove_dir_all(&dest).unwrap();

        let dest = dir.join(format!("tar{run}"));
        std::fs::create_dir_all(&dest).unwrap();
        let start = Instant::now();
        let ok = Command::new("tar")
            .arg("-xzf")
            .arg(&tarball)
            .arg("-C")
            .arg(&dest)
            .status()
            .unwrap()
            .success();
        theirs.push(start.elapsed());
        assert!(ok);
        std::fs::remove_dir_all(&dest).unwrap();
    }
    let best = |v: &[Duration]| v.iter().min().copied().unwrap().as_secs_f64();
    println!(
        "stage (safe extraction), {nfiles} files, {:.0} MiB tar.gz: best {:.3} s; tar -xzf: best {:.3} s; ratio {:.2}x",
        size as f64 / (1 << 20) as f64,
        best(&ours),
        best(&theirs),
        best(&ours) / best(&theirs)
    );
}
