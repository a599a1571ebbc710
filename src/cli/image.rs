//! `stack image BUILD_DIR`: re-pack `BUILD_DIR/store` into
//! `BUILD_DIR/store.squashfs` without rebuilding, and copy `store/meta`
//! beside it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::image_args::ImageArgs;
use super::output::{errln, outln};
use super::{CliError, Global};
use stack::ops::{ImageOptions, MetaCopy};

/// Pack a build directory's store into a reproducible store.squashfs
/// (without rebuilding anything).
///
/// Every file in the image is owned by nobody (65534), has its mtime set to
/// SOURCE_DATE_EPOCH (default 1980-01-01) and is readable by all; packing the
/// same store twice gives a byte-identical file. `store/meta` (env.json, the
/// recipe, the lockfile, provenance) is also copied to BUILD_DIR/meta, where
/// uenv looks first.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stack image build/demo                  # build/demo/store -> build/demo/store.squashfs, meta/
  stack image build/demo -o demo.squashfs --writer embedded
  SOURCE_DATE_EPOCH=1700000000 stack image build/demo --compression zstd --level 19
  unsquashfs -l build/demo/store.squashfs # list what is inside")]
pub struct Args {
    /// The build directory: the one that contains `store/`.
    pub build_dir: PathBuf,
    /// Where to write the image [default: BUILD_DIR/store.squashfs].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub image: ImageArgs,
    /// The mtime of every entry, in seconds since 1970 [default: $SOURCE_DATE_EPOCH, else
    /// 315576060].
    #[arg(long, value_name = "SECONDS")]
    pub source_date_epoch: Option<u32>,
    /// The mksquashfs program to use [default: mksquashfs on PATH].
    #[arg(long, value_name = "PROGRAM")]
    pub mksquashfs: Option<PathBuf>,
    /// Do not copy store/meta to BUILD_DIR/meta.
    #[arg(long)]
    pub no_meta: bool,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let store = args.build_dir.join("store");
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| args.build_dir.join("store.squashfs"));
    let mut opts = ImageOptions {
        source_date_epoch: args.source_date_epoch,
        mksquashfs: args.mksquashfs.clone(),
        ..ImageOptions::default()
    };
    args.image.apply(&mut opts);

    let spinner = super::output::stderr_is_terminal().then(|| {
        let pb = indicatif::ProgressBar::new_spinner();
        pb.set_message(format!("packing {}", store.display()));
        pb.enable_steady_tick(Duration::from_millis(120));
        pb
    });
    let result = stack::ops::pack_image(&args.build_dir, &output, &opts, !args.no_meta);
    if let Some(pb) = spinner {
        pb.finish_and_clear();
    }
    let packed = result?;
    let info = packed.image;

    let bold = |s: &str| {
        if global.use_color(super::output::stdout_is_terminal()) {
            console::style(s).bold().to_string()
        } else {
            s.to_string()
        }
    };
    outln!(
        "{} {} ({}, {}, {:.1} s)",
        bold("packed"),
        info.path.display(),
        human_size(info.size),
        info.writer,
        info.duration.as_secs_f64()
    );
    outln!("{} {}", bold("sha256"), info.sha256);
    match packed.meta {
        MetaCopy::Skipped => {}
        MetaCopy::Copied(meta) => outln!("{} {}", bold("meta  "), meta.display()),
        MetaCopy::Missing(path) => errln!(
            "warning: {} has no env.json; nothing copied beside the image",
            path.display()
        ),
        MetaCopy::Failed(e) => return Err(CliError::failure(miette::miette!("{e}"))),
    }
    Ok(ExitCode::SUCCESS)
}

fn human_size(bytes: u64) -> String {
    const UNITS: &[&str] = &["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}
