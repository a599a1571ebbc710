//! The settings table through the command line: rows of (command line,
//! environment, cluster) → a resolved setting, each command line parsed
//! by clap and turned into flags the way its command does.

use clap::Parser;
use stack::settings::{ClusterBinaryCache, ClusterDefaults, Env, Flags, Settings};

use super::super::{Cli, Command};

/// The flags of a parsed command line, as its command takes them.
fn flags(argv: &str) -> Flags {
    let cli = Cli::try_parse_from(argv.split_whitespace()).expect(argv);
    match cli.command {
        Command::Build(a) => a.flags(),
        Command::Ci(a) => {
            let super::super::ci::CiCommand::Generate(g) = a.command;
            g.flags()
        }
        Command::Resolve(a) => a.flags(),
        Command::Fetch(a) => a.sources.flags(),
        Command::Mirror(a) => {
            let super::super::mirror::MirrorCommand::Create(c) = a.command;
            c.sources.flags()
        }
        Command::Checksum(a) => a.sources.flags(),
        Command::Create(a) => a.sources.flags(),
        Command::Push(a) => a.flags(),
        Command::Pull(a) => a.registry.flags(&a.tls),
        Command::Images(a) => a.registry.flags(&a.tls),
        Command::Stackinator(a) => {
            let super::super::stackinator::Sub::Convert(c) = a.command;
            c.flags()
        }
        _ => panic!("{argv}: the command has no settings"),
    }
}

fn env(vars: &[(&str, &str)]) -> Env {
    let mut env = Env {
        home: Some("/home/u".into()),
        temp_dir: "/tmp".into(),
        ..Env::default()
    };
    for (k, v) in vars {
        let v = Some(std::path::PathBuf::from(v));
        match *k {
            "STACK_CACHE" => env.stack_cache = v,
            "XDG_CACHE_HOME" => env.xdg_cache_home = v,
            "HOME" => env.home = v.filter(|p| !p.as_os_str().is_empty()),
            "STACK_SIGNING_KEY" => env.signing_key = v,
            "DOCKER_CONFIG" => env.docker_config = v,
            "STACK_SPACK_PACKAGES" => env.spack_packages = v,
            _ => panic!("{k}"),
        }
    }
    env
}

fn site() -> ClusterDefaults {
    ClusterDefaults {
        binary_cache: Some(ClusterBinaryCache {
            url: "oci://site:5000/cache".into(),
            keys: vec!["ed25519:site".into()],
            push: false,
        }),
        shared_store: true,
        group_seconds: Some(300),
    }
}

/// One setting of `s`, as text.
fn setting(s: &Settings, name: &str) -> String {
    let path = |p: &Option<std::path::PathBuf>| {
        p.as_ref()
            .map_or("-".into(), |p| p.to_string_lossy().into_owned())
    };
    match name {
        "source cache" => s.source_cache.to_string_lossy().into_owned(),
        "binary cache" => s.binary_cache.as_ref().map_or("-".into(), |b| {
            format!(
                "{} keys={} unsigned={} push={}",
                b.url,
                b.trusted_keys
                    .iter()
                    .chain(&b.cluster_keys)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(","),
                b.allow_unsigned,
                b.push
            )
        }),
        "sign key" => path(&s.sign_key),
        "shared store" => s.shared_store.to_string(),
        "group seconds" => s.group_seconds.to_string(),
        "docker config" => path(&s.registry.docker_config),
        "plain http" => s.registry.plain_http.to_string(),
        "ca files" => format!("{:?}", s.registry.ca_files),
        "spack packages" => path(&s.spack_packages),
        _ => panic!("{name}"),
    }
}

type Row = (
    &'static str,
    &'static [(&'static str, &'static str)],
    bool,
    &'static str,
    &'static str,
);

/// (command line, environment, with the site's cluster, setting, value).
const ROWS: &[Row] = &[
    // The source cache: one rule for every command that has one.
    (
        "stack build s.yaml",
        &[],
        false,
        "source cache",
        "/home/u/.cache/stack",
    ),
    (
        "stack fetch s.yaml",
        &[],
        false,
        "source cache",
        "/home/u/.cache/stack",
    ),
    (
        "stack resolve s.yaml",
        &[],
        false,
        "source cache",
        "/home/u/.cache/stack",
    ),
    (
        "stack mirror create s.yaml m",
        &[],
        false,
        "source cache",
        "/home/u/.cache/stack",
    ),
    (
        "stack checksum zlib",
        &[],
        false,
        "source cache",
        "/home/u/.cache/stack",
    ),
    (
        "stack create file:///x.tgz",
        &[],
        false,
        "source cache",
        "/home/u/.cache/stack",
    ),
    (
        "stack ci generate s.yaml",
        &[],
        false,
        "source cache",
        "/home/u/.cache/stack",
    ),
    (
        "stack build s.yaml",
        &[("STACK_CACHE", "/sc")],
        false,
        "source cache",
        "/sc",
    ),
    (
        "stack resolve s.yaml",
        &[("STACK_CACHE", "/sc")],
        false,
        "source cache",
        "/sc",
    ),
    (
        "stack build s.yaml --cache /c",
        &[("STACK_CACHE", "/sc")],
        false,
        "source cache",
        "/c",
    ),
    (
        "stack resolve s.yaml --cache /c",
        &[("STACK_CACHE", "/sc")],
        false,
        "source cache",
        "/c",
    ),
    (
        "stack fetch s.yaml",
        &[("XDG_CACHE_HOME", "/x")],
        false,
        "source cache",
        "/x/stack",
    ),
    // Without a home: the temporary directory, for build, fetch and
    // resolve alike (build and fetch used to fail).
    (
        "stack build s.yaml",
        &[("HOME", "")],
        false,
        "source cache",
        "/tmp/stack-cache",
    ),
    (
        "stack fetch s.yaml",
        &[("HOME", "")],
        false,
        "source cache",
        "/tmp/stack-cache",
    ),
    (
        "stack resolve s.yaml",
        &[("HOME", "")],
        false,
        "source cache",
        "/tmp/stack-cache",
    ),
    // The binary cache, its trust and its pushes.
    ("stack build s.yaml", &[], false, "binary cache", "-"),
    (
        "stack build s.yaml",
        &[],
        true,
        "binary cache",
        "oci://site:5000/cache keys=ed25519:site unsigned=false push=false",
    ),
    (
        "stack ci generate s.yaml",
        &[],
        true,
        "binary cache",
        "oci://site:5000/cache keys=ed25519:site unsigned=false push=false",
    ),
    (
        "stack build s.yaml --binary-cache oci://r/c --trusted-key k.pub --allow-unsigned",
        &[],
        true,
        "binary cache",
        "oci://r/c keys=k.pub,ed25519:site unsigned=true push=false",
    ),
    (
        "stack ci generate s.yaml --binary-cache oci://r/c --trusted-key k.pub --allow-unsigned",
        &[],
        true,
        "binary cache",
        "oci://r/c keys=k.pub,ed25519:site unsigned=true push=false",
    ),
    (
        "stack build s.yaml --binary-cache oci://r/c",
        &[],
        false,
        "binary cache",
        "oci://r/c keys= unsigned=false push=true",
    ),
    (
        "stack build s.yaml --binary-cache oci://r/c --no-push",
        &[],
        false,
        "binary cache",
        "oci://r/c keys= unsigned=false push=false",
    ),
    (
        "stack build s.yaml --no-binary-cache",
        &[],
        true,
        "binary cache",
        "-",
    ),
    (
        "stack ci generate s.yaml --no-binary-cache",
        &[],
        true,
        "binary cache",
        "-",
    ),
    // The signing key.
    (
        "stack push b r/x:1",
        &[("STACK_SIGNING_KEY", "/e.key")],
        false,
        "sign key",
        "/e.key",
    ),
    (
        "stack build s.yaml",
        &[("STACK_SIGNING_KEY", "/e.key")],
        false,
        "sign key",
        "/e.key",
    ),
    (
        "stack ci generate s.yaml",
        &[("STACK_SIGNING_KEY", "/e.key")],
        false,
        "sign key",
        "/e.key",
    ),
    (
        "stack push b r/x:1 --sign-key /f.key",
        &[("STACK_SIGNING_KEY", "/e.key")],
        false,
        "sign key",
        "/f.key",
    ),
    (
        "stack build s.yaml --sign-key /f.key",
        &[("STACK_SIGNING_KEY", "/e.key")],
        false,
        "sign key",
        "/f.key",
    ),
    // The shared store: the cluster's only for remote builds.
    ("stack build s.yaml", &[], true, "shared store", "false"),
    (
        "stack build s.yaml --executor slurm",
        &[],
        true,
        "shared store",
        "true",
    ),
    (
        "stack build s.yaml --executor slurm",
        &[],
        false,
        "shared store",
        "false",
    ),
    (
        "stack build s.yaml --shared-store",
        &[],
        false,
        "shared store",
        "true",
    ),
    // Grouping: the flag, the cluster's, 60.
    (
        "stack build s.yaml --executor slurm",
        &[],
        false,
        "group seconds",
        "60",
    ),
    (
        "stack build s.yaml --executor slurm",
        &[],
        true,
        "group seconds",
        "300",
    ),
    (
        "stack ci generate s.yaml",
        &[],
        true,
        "group seconds",
        "300",
    ),
    (
        "stack ci generate s.yaml --group-seconds 5",
        &[],
        true,
        "group seconds",
        "5",
    ),
    (
        "stack build s.yaml --executor slurm --group-seconds 5",
        &[],
        true,
        "group seconds",
        "5",
    ),
    // Registries: credentials and transport.
    (
        "stack push b r/x:1",
        &[],
        false,
        "docker config",
        "/home/u/.docker/config.json",
    ),
    (
        "stack pull r/x:1",
        &[("DOCKER_CONFIG", "/d")],
        false,
        "docker config",
        "/d/config.json",
    ),
    (
        "stack images r",
        &[("DOCKER_CONFIG", "/d")],
        false,
        "docker config",
        "/d/config.json",
    ),
    (
        "stack build s.yaml",
        &[("DOCKER_CONFIG", "/d")],
        false,
        "docker config",
        "/d/config.json",
    ),
    (
        "stack ci generate s.yaml --docker-config /f.json",
        &[("DOCKER_CONFIG", "/d")],
        false,
        "docker config",
        "/f.json",
    ),
    (
        "stack pull r/x:1 --docker-config /f.json",
        &[],
        false,
        "docker config",
        "/f.json",
    ),
    (
        "stack push b r/x:1 --plain-http",
        &[],
        false,
        "plain http",
        "true",
    ),
    (
        "stack pull r/x:1 --plain-http",
        &[],
        false,
        "plain http",
        "true",
    ),
    (
        "stack images r --plain-http",
        &[],
        false,
        "plain http",
        "true",
    ),
    (
        "stack build s.yaml --plain-http",
        &[],
        false,
        "plain http",
        "true",
    ),
    (
        "stack ci generate s.yaml --plain-http",
        &[],
        false,
        "plain http",
        "true",
    ),
    ("stack build s.yaml", &[], false, "plain http", "false"),
    (
        "stack build s.yaml --ca-file /ca.pem",
        &[],
        false,
        "ca files",
        "[\"/ca.pem\"]",
    ),
    (
        "stack ci generate s.yaml --ca-file /ca.pem",
        &[],
        false,
        "ca files",
        "[\"/ca.pem\"]",
    ),
    (
        "stack resolve s.yaml --ca-file /ca.pem",
        &[],
        false,
        "ca files",
        "[\"/ca.pem\"]",
    ),
    (
        "stack push b r/x:1 --ca-file /ca.pem",
        &[],
        false,
        "ca files",
        "[\"/ca.pem\"]",
    ),
    // The spack-packages checkout.
    (
        "stack stackinator convert r c --out o",
        &[("STACK_SPACK_PACKAGES", "/sp")],
        false,
        "spack packages",
        "/sp",
    ),
    (
        "stack stackinator convert r c --out o --spack-packages /mine",
        &[("STACK_SPACK_PACKAGES", "/sp")],
        false,
        "spack packages",
        "/mine",
    ),
];

#[test]
fn every_command_resolves_each_setting_by_the_same_rule() {
    let cluster = site();
    for (argv, vars, with_cluster, name, want) in ROWS {
        let s = Settings::resolve(&flags(argv), &env(vars), with_cluster.then_some(&cluster));
        assert_eq!(
            setting(&s, name),
            *want,
            "{argv} with {vars:?} (cluster: {with_cluster}): {name}"
        );
    }
}
