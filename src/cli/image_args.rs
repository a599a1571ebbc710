//! --writer, --compression, --level: shared by `stack image` and
//! `stack build` (which packs the image as its last step).

use stack::ops::{Compression, ImageOptions, Writer};

/// How the squashfs image is written.
#[derive(Debug, Clone, clap::Args)]
pub struct ImageArgs {
    /// Which program writes the image: mksquashfs when installed (auto), always
    /// mksquashfs, or the embedded pure-Rust writer.
    #[arg(long, value_enum, default_value_t = WriterArg::Auto)]
    pub writer: WriterArg,
    /// Compression of the image.
    #[arg(long, value_enum, default_value_t = CompressionArg::Gzip)]
    pub compression: CompressionArg,
    /// Compression level [default: 3 for gzip (as stackinator), 15 for zstd].
    #[arg(long, value_name = "N")]
    pub level: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WriterArg {
    Auto,
    Mksquashfs,
    Embedded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompressionArg {
    Gzip,
    Zstd,
    Xz,
}

impl ImageArgs {
    /// Set the writer and compression of `opts`.
    pub fn apply(&self, opts: &mut ImageOptions) {
        opts.writer = match self.writer {
            WriterArg::Auto => Writer::Auto,
            WriterArg::Mksquashfs => Writer::Mksquashfs,
            WriterArg::Embedded => Writer::Embedded,
        };
        opts.compression = match self.compression {
            CompressionArg::Gzip => Compression::Gzip {
                level: self.level.unwrap_or(3),
            },
            CompressionArg::Zstd => Compression::Zstd {
                level: self.level.unwrap_or(15),
            },
            CompressionArg::Xz => Compression::Xz,
        };
    }
}
