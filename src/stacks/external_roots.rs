//! A root spec that an external installation will meet is not built and
//! is in no view or module: `stack check` says so instead of letting it
//! disappear silently.

use crate::cluster::Cluster;
use crate::diag::yaml::Cx;
use crate::diag::{Code, display_path};

use super::model::Environment;

/// Warn for each root spec of `env` whose package has externals (in the
/// merged cluster and environment policies) that can satisfy it: externals
/// are preferred over building.
pub fn check_external_roots(cx: &mut Cx, env: &Environment, cluster: &Cluster) {
    let policies = env.policies(cluster);
    for spec in &env.specs {
        let Some(name) = spec.name() else { continue };
        let Some(pol) = policies.get(name) else {
            continue;
        };
        let Some(ext) = pol
            .externals
            .iter()
            .flatten()
            .find(|e| e.spec.spec.versions.intersects(&spec.spec.versions))
        else {
            continue;
        };
        cx.warn(
            Code::InvalidValue,
            &spec.loc,
            format!(
                "root spec `{}` of environment `{}` will be met by the external `{}` at {}: it is not built and is in no view or module",
                spec.text,
                env.name.value,
                ext.spec.text,
                ext.prefix.display()
            ),
            "met by an external",
            Some(format!(
                "the external is listed at {}:{}; to build `{name}` into the stack instead, add `{name}: {{externals: []}}` to this environment's `packages:`",
                display_path(&ext.loc.file),
                ext.loc.line
            )),
        );
    }
}
