//! `stack fetch RECIPE`: download and verify every source of a stack.

use std::process::ExitCode;

use stack::fetch::{FetchedContent, Origin};

use super::inputs::{InputArgs, SourceArgs};
use super::output::outln;
use super::progress::Progress;
use super::{CliError, Global};

/// Fetch and verify every source of a stack into the source cache.
///
/// Resolves the recipe (git branches pinned from the lock file beside the
/// recipe, or resolved now), then downloads every source, the `resources:`
/// of archive sources (as locked in the lock file under --locked) and URL patches:
/// cache first, then each mirror in order, then upstream; sha256 is
/// computed while streaming and checked before anything enters the cache.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack fetch stacks/alps-cxi.yaml --cluster cluster-configs/alps-gh200
  stack fetch stacks/alps-cxi.yaml --dry-run
  stack fetch stacks/demo.yaml --mirror file:///srv/stack-mirror --cache /scratch/cache

Exit status: 0 everything fetched and verified, 1 a source failed, 2 bad input.")]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub sources: SourceArgs,
    /// Refuse to deviate from the recipe's lock file (`<name>.lock` beside `<name>.yaml`).
    #[arg(long)]
    pub locked: bool,
    /// List what would be fetched: per source its checksum or commit, whether
    /// the cache has it, the mirrors and upstream locations tried in order,
    /// and what would stop it (a missing checksum); download nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let inputs = args.input.load()?;
    let resolved = super::settings::resolve(&args.sources.flags(), Some(&inputs.cluster));
    let settings = args.sources.sources(&resolved)?;
    if args.dry_run {
        let plan = stack::ops::fetch_plan(&inputs, args.locked, &settings)?;
        print_plan(&plan);
        return Ok(ExitCode::SUCCESS);
    }
    let progress = Progress::new(false);
    let t = std::time::Instant::now();
    let result = stack::ops::fetch(&inputs, args.locked, &settings, &progress);
    progress.finish();
    let outcome = result?;
    outln!(
        "{}{} in {:.2}s; cache {}",
        summary(&outcome.fetched),
        rejected_mirrors(progress.rejected_mirrors()),
        t.elapsed().as_secs_f64(),
        outcome.cache.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Per source: what verifies it, whether the cache has it, the locations
/// tried in order, and what would stop it before any download.
fn print_plan(plan: &stack::ops::FetchPlan) {
    for s in &plan.sources {
        let cached = if s.cached.is_some() { "  [cached]" } else { "" };
        outln!(
            "{:<28} {}{cached}",
            format!("{}@{}", s.package, s.version),
            s.verified_by
        );
        if s.cached.is_none() {
            for l in &s.locations {
                outln!("{:<28}   try {l}", "");
            }
        }
        if let Some(p) = &s.problem {
            outln!("{:<28}   problem: {p}", "");
        }
    }
    for m in &plan.mirrors {
        outln!("mirror: {m}");
    }
    outln!(
        "{} sources; cache {}",
        plan.sources.len(),
        plan.cache.display()
    );
}

/// `N sources verified, M trusted, K unverified (… cached, … from mirrors,
/// … upstream; X MB)`: a mirror's tarball of a git commit is only as good as
/// the mirror (trusted, not verified), and `--allow-unverified` sources are
/// neither.
fn summary(fetched: &[stack::fetch::Fetched]) -> String {
    use stack::fetch::Verification;
    let (mut cache, mut mirror, mut upstream, mut bytes) = (0, 0, 0, 0u64);
    let (mut verified, mut trusted, mut unverified) = (0, 0, 0);
    for f in fetched {
        match f.origin {
            Origin::Cache => cache += 1,
            Origin::Mirror(_) => mirror += 1,
            Origin::Upstream(_) => upstream += 1,
        }
        match f.verification {
            Verification::MirrorTarball { .. } => trusted += 1,
            Verification::Unverified => unverified += 1,
            _ => verified += 1,
        }
        if let FetchedContent::File { size, .. } = f.content {
            bytes += size;
        }
    }
    let mut head = format!("{verified} sources verified");
    if trusted > 0 {
        head.push_str(&format!(
            ", {trusted} trusted (mirror tarballs of git commits)"
        ));
    }
    if unverified > 0 {
        head.push_str(&format!(", {unverified} unverified"));
    }
    format!(
        "{head} ({cache} cached, {mirror} from mirrors, {upstream} upstream; {:.1} MB)",
        bytes as f64 / 1e6
    )
}

/// `; N mirror entries failed their checksum` when any did.
fn rejected_mirrors(n: usize) -> String {
    match n {
        0 => String::new(),
        1 => "; 1 mirror entry failed its checksum (see the warning)".into(),
        n => format!("; {n} mirror entries failed their checksum (see the warnings)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stack::fetch::{Fetched, Sha256Hex, Verification};

    fn file(verification: Verification, origin: Origin) -> Fetched {
        Fetched {
            package: "p".into(),
            version: "1".into(),
            content: FetchedContent::File {
                path: "/c/x".into(),
                sha256: Sha256Hex::parse(&"a".repeat(64)).unwrap(),
                file_name: "x.tar.gz".into(),
                expand: true,
                size: 2_000_000,
            },
            origin,
            verification,
            max_size: None,
        }
    }

    #[test]
    fn mirror_tarballs_are_trusted_not_verified() {
        let fetched = vec![
            file(Verification::Sha256, Origin::Cache),
            file(
                Verification::MirrorTarball { commit: "c".into() },
                Origin::Mirror("file:///m".into()),
            ),
            file(Verification::Unverified, Origin::Upstream("/u".into())),
        ];
        assert_eq!(
            summary(&fetched),
            "1 sources verified, 1 trusted (mirror tarballs of git commits), 1 unverified \
             (1 cached, 1 from mirrors, 1 upstream; 6.0 MB)"
        );
    }
}
