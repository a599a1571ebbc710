//! A command's settings, resolved once from its flags, the environment
//! (read here, once) and the cluster configuration when the command reads
//! one, by the rules of [`Settings::resolve`].

use crate::cluster::Cluster;
use crate::settings::{Env, Flags, Origin, Settings, TEMP_CACHE_DIR};

/// The settings of a command given `flags`, for `cluster` when it reads
/// one; where the source cache comes from is logged.
pub fn command_settings(flags: &Flags, cluster: Option<&Cluster>) -> Settings {
    let defaults = cluster.map(Cluster::setting_defaults);
    let settings = Settings::resolve(flags, &Env::read(), defaults.as_ref());
    let from = match settings.source_cache_origin {
        Origin::Flag => "--cache".to_string(),
        Origin::Env(v) => format!("${v}"),
        Origin::Cluster => "the cluster configuration".to_string(),
        Origin::Default => {
            format!(
                "no STACK_CACHE, XDG_CACHE_HOME or HOME: the temporary directory's {TEMP_CACHE_DIR}"
            )
        }
    };
    tracing::debug!("source cache: {} ({from})", settings.source_cache.display());
    settings
}
