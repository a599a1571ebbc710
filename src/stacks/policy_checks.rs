//! The `packages:` policies of a stack's environments and of the cluster
//! configuration, checked against the repositories: each names a package or
//! a virtual, a virtual's requirement names one of its providers, and each
//! spec fits its package.

use crate::cluster::{Cluster, Policies};
use crate::diag::yaml::Cx;
use crate::diag::{Code, Diagnostic, Diagnostics, SourceFile};
use crate::recipes::{PackageRepo, SpecRef, check_spec};

pub(super) fn check_cluster(
    cluster: &Cluster,
    src: &SourceFile,
    repo: &PackageRepo,
    diags: &mut Diagnostics,
) {
    let mut cx = Cx::new(src, diags);
    if let Some(net) = &cluster.network {
        for spec in net.mpi.iter().chain(&net.specs) {
            check_spec(&mut cx, repo, spec, None, "network spec");
        }
    }
    check_policies(&mut cx, repo, &cluster.packages, false);
}

/// Policy keys name packages or virtuals (`all` too); their specs fit.
/// Unknown names are errors in a stack recipe and warnings in a cluster
/// configuration (which serves stacks with other repositories too).
pub(super) fn check_policies(cx: &mut Cx, repo: &PackageRepo, policies: &Policies, strict: bool) {
    for (name, pol) in &policies.entries {
        if name == "all" {
            continue;
        }
        let pkg = repo.get(name);
        if !repo.knows(name) {
            let help = repo.suggest(name).map(|n| format!("did you mean `{n}`?"));
            let msg = format!("`packages` names `{name}`, which is not a known package or virtual");
            let d = if strict {
                Diagnostic::error(Code::UnknownPackage, msg)
            } else {
                Diagnostic::warning(Code::UnknownPackage, msg)
            };
            cx.push(
                d.at(&pol.loc, "no recipe for this package")
                    .with_help_opt(help)
                    .about(name),
            );
            continue;
        }
        let specs = pol
            .require
            .iter()
            .flatten()
            .chain(pol.prefer.iter().flatten());
        for s in specs {
            check_policy_spec(cx, repo, name, pkg.map(|p| p.as_ref()), s);
        }
        for e in pol.externals.iter().flatten() {
            check_spec(cx, repo, &e.spec, None, "external");
        }
    }
}

fn check_policy_spec(
    cx: &mut Cx,
    repo: &PackageRepo,
    name: &str,
    pkg: Option<&crate::recipes::PackageRecipe>,
    s: &SpecRef,
) {
    match (s.name(), pkg) {
        // A virtual's requirement names a provider.
        (Some(provider), None) => {
            // By the indexes: the other providers are not parsed.
            let providers: Vec<&str> = repo
                .provider_names(name)
                .iter()
                .map(String::as_str)
                .collect();
            if !providers.contains(&provider) {
                cx.push(
                    Diagnostic::error(
                        Code::UnknownPackage,
                        format!("`{provider}` does not provide `{name}`"),
                    )
                    .at(&s.loc, "not a provider")
                    .with_help(format!("providers of `{name}`: {}", providers.join(", ")))
                    .about(provider),
                );
                return;
            }
            check_spec(cx, repo, s, None, "policy spec");
        }
        (Some(other), Some(_)) if other != name => {
            cx.error(
                Code::InvalidValue,
                &s.loc,
                format!("a policy for `{name}` names another package `{other}`"),
                format!("expected constraints on `{name}`"),
                Some(format!(
                    "write the constraints only, e.g. `@1.2 +shared`, or `{name}@…`"
                )),
            );
        }
        _ => check_spec(cx, repo, s, pkg, "policy spec"),
    }
}
