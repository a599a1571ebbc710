//! The command's settings, resolved once: the flags a command has, the
//! environment and the cluster configuration, by the rules of
//! [`stack::settings::Settings::resolve`].

use stack::cluster::Cluster;
use stack::settings::{Env, Flags, Origin, Settings};

/// The settings of a command given `flags`, for `cluster` when it reads one.
pub fn resolve(flags: &Flags, cluster: Option<&Cluster>) -> Settings {
    let defaults = cluster.map(Cluster::setting_defaults);
    let settings = Settings::resolve(flags, &Env::read(), defaults.as_ref());
    let from = match settings.source_cache_origin {
        Origin::Flag => "--cache".to_string(),
        Origin::Env(v) => format!("${v}"),
        Origin::Cluster => "the cluster configuration".to_string(),
        Origin::Default => format!(
            "no STACK_CACHE, XDG_CACHE_HOME or HOME: the temporary directory's {}",
            stack::settings::TEMP_CACHE_DIR
        ),
    };
    tracing::debug!("source cache: {} ({from})", settings.source_cache.display());
    settings
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
