//! `stack images REGISTRY/NAMESPACE`: list the uenv images in a registry.

use std::process::ExitCode;

use super::output::{Format, outln};
use super::registry_args::RegistryArgs;
use super::{CliError, Global};

/// List the uenv images below a namespace of a registry: label, tag,
/// system, uarch, size, digest.
///
/// Reads the registry's catalog (/v2/_catalog) and the tags of every
/// repository with the uenv layout NAMESPACE/SYSTEM/UARCH/NAME/VERSION.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stack images localhost:5000/deploy
  stack images registry.example/deploy --format json | jq '.[].label'")]
pub struct Args {
    /// REGISTRY/NAMESPACE, e.g. localhost:5000/deploy.
    pub location: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub registry: RegistryArgs,
    #[command(flatten)]
    pub tls: super::inputs::TlsArgs,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let rest = args
        .location
        .strip_prefix("oci://")
        .unwrap_or(&args.location);
    let (host, namespace) = rest.split_once('/').ok_or_else(|| {
        CliError::input(miette::miette!(
            "`{}`: expected REGISTRY/NAMESPACE, e.g. localhost:5000/deploy",
            args.location
        ))
    })?;
    let namespace = namespace.trim_end_matches('/');
    let settings = super::settings::resolve(&args.registry.flags(&args.tls), None);
    let images = stack::ops::list_images(host, namespace, &args.registry.access(), &settings)?;
    match args.format {
        Format::Json => {
            let text = serde_json::to_string_pretty(&images)
                .map_err(|e| CliError::failure(miette::miette!("{e}")))?;
            outln!("{text}");
        }
        Format::Text => {
            outln!("{:<40} {:>10} {:<19}", "LABEL", "SIZE", "DIGEST");
            for i in &images {
                outln!(
                    "{:<40} {:>10} {:<19}",
                    i.label,
                    human_size(i.size),
                    &i.digest[..i.digest.len().min(19)]
                );
            }
        }
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
