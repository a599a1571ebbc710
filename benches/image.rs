//! Image creation time: `image::pack` next to raw `mksquashfs` on the same tree.
//!
//!     cargo bench --bench image
//!
//! The tree is a copy of host directories that look like a software stack
//! (headers: many small files; compiler binaries and libraries: large ELF
//! files). Override with `STACK_BENCH_SOURCES=/dir1:/dir2`; iterations with
//! `STACK_BENCH_ITERS` (default 3). Each iteration runs, in rotating order:
//!
//! - `raw-stackinator`: mksquashfs with stackinator's flags
//!   (`-force-uid nobody -force-gid nobody` as numbers, `-all-time T -no-recovery -noappend
//!   -Xcompression-level 3`);
//! - `raw-stack-flags`: mksquashfs with exactly the flags `image::pack` passes;
//! - `pack-mksquashfs`: `image::pack` with the mksquashfs writer (includes the
//!   sha256 of the result and the rename into place);
//! - `pack-embedded`: `image::pack` with the pure-Rust writer.
//!
//! Reported: median wall time per variant and the ratio to raw-stackinator.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use stack::image::{self, ImageOptions, Writer, mksquashfs};

const EPOCH: u32 = 315_576_060;

fn copy_sources(dest: &Path) -> u64 {
    let sources = std::env::var("STACK_BENCH_SOURCES")
        .unwrap_or_else(|_| "/usr/include:/usr/lib/gcc".to_string());
    for (i, src) in sources.split(':').filter(|s| !s.is_empty()).enumerate() {
        let to = dest.join(format!("pkg{i}"));
        let ok = Command::new("cp")
            .arg("-a")
            .arg(src)
            .arg(&to)
            .status()
            .expect("cp runs")
            .success();
        assert!(ok, "copying {src} failed");
    }
    walkdir::WalkDir::new(dest)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .sum()
}

fn time(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` runs us with no
    // args: keep that fast.
    if !std::env::args().any(|a| a == "--bench") {
        println!("image bench: run with `cargo bench --bench image`");
        return;
    }
    let iters: usize = std::env::var("STACK_BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("store");
    fs_err::create_dir(&tree).unwrap();
    let bytes = copy_sources(&tree);
    let files = walkdir::WalkDir::new(&tree).into_iter().count();
    let tool = mksquashfs::find(None).expect("mksquashfs is installed");
    println!(
        "tree: {} entries, {:.1} MiB in regular files; {} {}; {} cpus",
        files,
        bytes as f64 / (1 << 20) as f64,
        tool.program.display(),
        tool.version,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    let out = |name: &str| dir.path().join(format!("{name}.squashfs"));
    let opts = |writer| ImageOptions {
        writer,
        source_date_epoch: Some(EPOCH),
        ..ImageOptions::default()
    };
    let stack_args = mksquashfs::args(
        &tool,
        &tree,
        &out("raw-stack-flags"),
        EPOCH,
        &opts(Writer::Mksquashfs),
    );

    type Variant<'a> = (&'a str, Box<dyn Fn() + 'a>);
    let variants: Vec<Variant> = vec![
        (
            "raw-stackinator",
            Box::new(|| {
                let ok = Command::new(&tool.program)
                    .arg(&tree)
                    .arg(out("raw-stackinator"))
                    .args(["-force-uid", "65534", "-force-gid", "65534"]) // "nobody" (Debian has no group of that name)
                    .args(["-all-time", &EPOCH.to_string()])
                    .args(["-no-recovery", "-noappend", "-Xcompression-level", "3"])
                    .args(["-quiet", "-no-progress"])
                    .status()
                    .unwrap()
                    .success();
                assert!(ok);
            }),
        ),
        (
            "raw-stack-flags",
            Box::new(|| {
                let ok = Command::new(&tool.program)
                    .args(&stack_args)
                    .status()
                    .unwrap()
                    .success();
                assert!(ok);
            }),
        ),
        (
            "pack-mksquashfs",
            Box::new(|| {
                image::pack(&tree, &out("pack-mksquashfs"), &opts(Writer::Mksquashfs)).unwrap();
            }),
        ),
        (
            "pack-embedded",
            Box::new(|| {
                image::pack(&tree, &out("pack-embedded"), &opts(Writer::Embedded)).unwrap();
            }),
        ),
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    for i in 0..iters {
        for k in 0..variants.len() {
            let j = (i + k) % variants.len();
            let d = time(&variants[j].1);
            times[j].push(d);
        }
    }
    let base = median(&mut times[0].clone());
    println!(
        "{:<16} {:>10} {:>8} {:>10}   (median of {iters})",
        "variant", "time", "ratio", "size"
    );
    for (j, (name, _)) in variants.iter().enumerate() {
        let m = median(&mut times[j]);
        let size = fs_err::metadata(out(name)).map(|m| m.len()).unwrap_or(0);
        println!(
            "{:<16} {:>9.2}s {:>7.3}x {:>8.1}MiB",
            name,
            m.as_secs_f64(),
            m.as_secs_f64() / base.as_secs_f64(),
            size as f64 / (1 << 20) as f64
        );
    }
}
