//! The settings table: rows of (command, flags, environment, cluster) →
//! the resolved setting. Every command that has a setting resolves it by
//! the same rule, so a row per command shows the rule holds for it.

use super::*;
use std::path::Path;

fn env() -> Env {
    Env {
        home: Some("/home/u".into()),
        temp_dir: "/tmp".into(),
        ..Env::default()
    }
}

fn cluster_cache(push: bool) -> ClusterDefaults {
    ClusterDefaults {
        binary_cache: Some(ClusterBinaryCache {
            url: "oci://site:5000/cache".into(),
            keys: vec!["ed25519:site".into()],
            push,
        }),
        shared_store: true,
        group_seconds: Some(300),
    }
}

/// The commands that read the source cache, each with its flags.
const SOURCE_CACHE_COMMANDS: &[&str] = &["build", "fetch", "mirror", "resolve", "ci generate"];

#[test]
fn the_source_cache_has_one_rule_for_every_command() {
    // (environment, --cache) → (source cache, where it came from)
    let rows: &[(Env, Option<&str>, &str, Origin)] = &[
        (env(), Some("/c"), "/c", Origin::Flag),
        (
            Env {
                stack_cache: Some("/sc".into()),
                ..env()
            },
            None,
            "/sc",
            Origin::Env("STACK_CACHE"),
        ),
        (
            Env {
                stack_cache: Some("/sc".into()),
                ..env()
            },
            Some("/c"),
            "/c",
            Origin::Flag,
        ),
        (
            Env {
                xdg_cache_home: Some("/x".into()),
                ..env()
            },
            None,
            "/x/stack",
            Origin::Env("XDG_CACHE_HOME"),
        ),
        (env(), None, "/home/u/.cache/stack", Origin::Env("HOME")),
        // No home: the temporary directory, for every command (build and
        // fetch used to fail, resolve used the temp dir, stackinator
        // translations went to ./.stack-cache).
        (
            Env {
                home: None,
                ..env()
            },
            None,
            "/tmp/stack-cache",
            Origin::Default,
        ),
    ];
    for command in SOURCE_CACHE_COMMANDS {
        for (env, flag, want, origin) in rows {
            let flags = Flags {
                cache: flag.map(PathBuf::from),
                ..Flags::default()
            };
            let s = Settings::resolve(&flags, env, None);
            assert_eq!(
                s.source_cache,
                Path::new(want),
                "{command}: {env:?} {flag:?}"
            );
            assert_eq!(
                s.source_cache_origin, *origin,
                "{command}: {env:?} {flag:?}"
            );
        }
    }
    // The caches' base (recipe index, stackinator translations) ignores
    // --cache: it is the source cache's default.
    let s = Settings::resolve(
        &Flags {
            cache: Some("/c".into()),
            ..Flags::default()
        },
        &env(),
        None,
    );
    assert_eq!(s.cache_base, Path::new("/home/u/.cache/stack"));
}

#[test]
fn the_binary_cache_and_its_trust_have_one_rule() {
    struct Row {
        command: &'static str,
        flags: Flags,
        cluster: Option<ClusterDefaults>,
        want: Option<(&'static str, &'static [&'static str], bool, bool)>,
    }
    let url = |u: &str| Some(u.to_string());
    let rows = [
        Row {
            command: "build",
            flags: Flags::default(),
            cluster: None,
            want: None,
        },
        Row {
            command: "build",
            flags: Flags::default(),
            cluster: Some(cluster_cache(true)),
            want: Some(("oci://site:5000/cache", &["ed25519:site"], false, true)),
        },
        Row {
            command: "ci generate",
            flags: Flags::default(),
            cluster: Some(cluster_cache(false)),
            want: Some(("oci://site:5000/cache", &["ed25519:site"], false, false)),
        },
        Row {
            command: "build",
            flags: Flags {
                binary_cache: url("oci://r/c"),
                trusted_keys: vec!["k.pub".into()],
                allow_unsigned: true,
                ..Flags::default()
            },
            cluster: Some(cluster_cache(true)),
            want: Some(("oci://r/c", &["k.pub", "ed25519:site"], true, true)),
        },
        Row {
            command: "ci generate",
            flags: Flags {
                binary_cache: url("oci://r/c"),
                no_push: true,
                ..Flags::default()
            },
            cluster: None,
            want: Some(("oci://r/c", &[], false, false)),
        },
        Row {
            command: "build",
            flags: Flags {
                no_binary_cache: true,
                ..Flags::default()
            },
            cluster: Some(cluster_cache(true)),
            want: None,
        },
    ];
    for row in rows {
        let s = Settings::resolve(&row.flags, &env(), row.cluster.as_ref());
        let got = s.binary_cache.as_ref().map(|b| {
            (
                b.url.as_str(),
                b.trusted_keys
                    .iter()
                    .chain(&b.cluster_keys)
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
                b.allow_unsigned,
                b.push,
            )
        });
        let want = row.want.map(|(u, k, a, p)| (u, k.to_vec(), a, p));
        assert_eq!(got, want, "{}: {:?}", row.command, row.flags);
    }
}

/// (command, flags, env, cluster) → (sign key, shared store, group seconds).
type KeyRow = (
    &'static str,
    Flags,
    Env,
    Option<ClusterDefaults>,
    Option<&'static str>,
    bool,
    f64,
);

/// (command, flags, env) → (docker config, plain http, spack packages).
type RegistryRow = (
    &'static str,
    Flags,
    Env,
    Option<&'static str>,
    bool,
    Option<&'static str>,
);

#[test]
fn signing_key_shared_store_and_grouping_have_one_rule() {
    let with_key = Env {
        signing_key: Some("/env.key".into()),
        ..env()
    };
    // (command, flags, env, cluster) → (sign key, shared store, group seconds)
    let rows: Vec<KeyRow> = vec![
        ("push", Flags::default(), env(), None, None, false, 60.0),
        (
            "push",
            Flags::default(),
            with_key.clone(),
            None,
            Some("/env.key"),
            false,
            60.0,
        ),
        (
            "build",
            Flags {
                sign_key: Some("/flag.key".into()),
                ..Flags::default()
            },
            with_key.clone(),
            None,
            Some("/flag.key"),
            false,
            60.0,
        ),
        // The cluster's shared store applies to remote builds only.
        (
            "build",
            Flags::default(),
            env(),
            Some(cluster_cache(true)),
            None,
            false,
            300.0,
        ),
        (
            "build",
            Flags {
                remote_executor: true,
                ..Flags::default()
            },
            env(),
            Some(cluster_cache(true)),
            None,
            true,
            300.0,
        ),
        (
            "build",
            Flags {
                shared_store: true,
                group_seconds: Some(0.0),
                ..Flags::default()
            },
            env(),
            None,
            None,
            true,
            0.0,
        ),
        (
            "ci generate",
            Flags {
                group_seconds: Some(10.0),
                ..Flags::default()
            },
            env(),
            Some(cluster_cache(true)),
            None,
            false,
            10.0,
        ),
    ];
    for (command, flags, env, cluster, key, shared, group) in rows {
        let s = Settings::resolve(&flags, &env, cluster.as_ref());
        assert_eq!(
            s.sign_key.as_deref(),
            key.map(Path::new),
            "{command}: {flags:?}"
        );
        assert_eq!(s.shared_store, shared, "{command}: {flags:?}");
        assert_eq!(s.group_seconds, group, "{command}: {flags:?}");
    }
}

#[test]
fn registry_and_spack_packages_have_one_rule() {
    let docker = Env {
        docker_config: Some("/d".into()),
        spack_packages: Some("/sp".into()),
        ..env()
    };
    // (command, flags, env) → (docker config, plain http, spack packages)
    let rows: Vec<RegistryRow> = vec![
        (
            "pull",
            Flags::default(),
            env(),
            Some("/home/u/.docker/config.json"),
            false,
            None,
        ),
        (
            "push",
            Flags::default(),
            docker.clone(),
            Some("/d/config.json"),
            false,
            Some("/sp"),
        ),
        (
            "images",
            Flags {
                docker_config: Some("/f.json".into()),
                plain_http: true,
                ..Flags::default()
            },
            docker.clone(),
            Some("/f.json"),
            true,
            Some("/sp"),
        ),
        (
            "stackinator convert",
            Flags {
                spack_packages: Some("/mine".into()),
                ..Flags::default()
            },
            docker,
            Some("/d/config.json"),
            false,
            Some("/mine"),
        ),
        (
            "build",
            Flags::default(),
            Env {
                home: None,
                ..env()
            },
            None,
            false,
            None,
        ),
    ];
    for (command, flags, env, docker, plain, spack) in rows {
        let s = Settings::resolve(&flags, &env, None);
        assert_eq!(
            s.registry.docker_config.as_deref(),
            docker.map(Path::new),
            "{command}"
        );
        assert_eq!(s.registry.plain_http, plain, "{command}");
        assert_eq!(
            s.spack_packages.as_deref(),
            spack.map(Path::new),
            "{command}"
        );
    }
}

/// docs/cli.md's environment table names every variable `src/settings.rs`
/// reads, and the module reads nothing the table does not name.
#[test]
fn every_variable_is_read_in_settings_and_listed_in_the_docs() {
    let docs = include_str!("../../docs/cli.md");
    let table: Vec<&str> = docs
        .split("## Environment")
        .nth(1)
        .expect("docs/cli.md has an Environment section")
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect();
    for v in super::super::VARIABLES {
        assert!(
            table.iter().any(|l| l.contains(&format!("`{v}`"))),
            "docs/cli.md's environment table does not list {v}"
        );
    }
    let source = include_str!("../settings.rs");
    for call in ["non_empty(\"", "var_os(\"", "var(\"", "path(\""] {
        for read in source.split(call).skip(1) {
            let name = read.split('"').next().unwrap_or_default();
            assert!(
                super::super::VARIABLES.contains(&name),
                "src/settings.rs reads {name}, which VARIABLES does not list"
            );
        }
    }
    for name in [
        "STACK_CACHE",
        "XDG_CACHE_HOME",
        "STACK_SIGNING_KEY",
        "DOCKER_CONFIG",
    ] {
        assert!(
            source.contains(&format!("\"{name}\"")),
            "{name} is read in settings.rs"
        );
    }
}
