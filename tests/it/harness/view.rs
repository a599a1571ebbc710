//! A small installed store for the view and image tests: a real shared
//! library and a program linked against it (compiled with gcc, RPATH set to
//! the library's final path under the mount point), a build-only tool, an
//! external, and the views/modules/meta inputs `stack build` would pass.
#![allow(dead_code)] // each test crate uses a different part

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use stack::view::{
    ConflictPolicy, CopyFile, EnvOp, InstalledPackage, LinkType, MetaInfo, ModuleFlavour,
    ModulesSpec, Provenance, StoreContents, ViewSpec,
};

pub const HASH_GREET: &str = "7d1f3c5e9a2b4d6f8e0a1c3e5b7d9f1a";
pub const HASH_HELLO: &str = "2b4d6f8a0c1e3a5c7e9b1d3f5a7c9e0b";
pub const HASH_CMAKE: &str = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b";
pub const HASH_ZLIB: &str = "0000000000000000000000000000000z";

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/view")
}

fn prefix(mount: &Path, name: &str, version: &str, hash: &str) -> PathBuf {
    mount
        .join("x86_64")
        .join(format!("{name}-{version}-{}", &hash[..8]))
}

fn write(path: &Path, text: &str) {
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(path, text).unwrap();
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Install the fake packages into `store` for `mount`. With `compile`, the
/// library and program are built with gcc; without, they are placeholder
/// text files (enough for generated-file snapshots).
pub fn install(mount: &Path, store: &Path, compile: bool) -> StoreContents {
    let to_store = |p: &Path| store.join(p.strip_prefix(mount).unwrap());
    let greet = prefix(mount, "libgreet", "1.0", HASH_GREET);
    let hello = prefix(mount, "hello", "2.1", HASH_HELLO);
    let cmake = prefix(mount, "cmake", "3.30.1", HASH_CMAKE);
    let (gs, hs, cs) = (to_store(&greet), to_store(&hello), to_store(&cmake));
    let src = fixtures().join("src");

    fs_err::create_dir_all(gs.join("lib")).unwrap();
    write(
        &gs.join("include/greet.h"),
        &fs_err::read_to_string(src.join("greet.h")).unwrap(),
    );
    if compile {
        run(Command::new("gcc")
            .args(["-shared", "-fPIC", "-O1", "-Wl,-soname,libgreet.so.1", "-o"])
            .arg(gs.join("lib/libgreet.so.1"))
            .arg(src.join("greet.c")));
    } else {
        write(
            &gs.join("lib/libgreet.so.1"),
            "placeholder for libgreet.so.1\n",
        );
    }
    std::os::unix::fs::symlink("libgreet.so.1", gs.join("lib/libgreet.so")).unwrap();
    std::os::unix::fs::symlink("lib", gs.join("lib64")).unwrap();
    write(
        &gs.join("lib/pkgconfig/greet.pc"),
        &format!(
            "prefix={}\nName: greet\nVersion: 1.0\nDescription: greeting\nLibs: -L${{prefix}}/lib -lgreet\n",
            greet.display()
        ),
    );
    write(&gs.join("share/doc/README"), "libgreet documentation\n");
    write(&gs.join("share/licenses/LICENSE"), "BSD-3-Clause\n");
    write(&gs.join(".stack/spec.json"), "{\"name\": \"libgreet\"}\n");

    fs_err::create_dir_all(hs.join("bin")).unwrap();
    if compile {
        run(Command::new("gcc")
            .args(["-O1", "-o"])
            .arg(hs.join("bin/hello"))
            .arg(src.join("hello.c"))
            .arg(format!("-I{}", gs.join("include").display()))
            .arg(format!("-L{}", gs.join("lib").display()))
            .arg("-lgreet")
            .arg(format!("-Wl,-rpath,{}", greet.join("lib").display())));
    } else {
        write(&hs.join("bin/hello"), "placeholder for hello\n");
    }
    write(&hs.join("share/doc/README"), "hello documentation\n");
    write(&hs.join("share/licenses/LICENSE"), "BSD-3-Clause\n");
    write(&hs.join("share/man/man1/hello.1"), ".TH HELLO 1\n");
    write(&hs.join(".stack/spec.json"), "{\"name\": \"hello\"}\n");
    write(&cs.join("bin/cmake"), "#!/bin/sh\necho cmake 3.30.1\n");

    StoreContents {
        mount: mount.to_path_buf(),
        store_dir: store.to_path_buf(),
        packages: vec![
            InstalledPackage {
                name: "hello".into(),
                version: "2.1".into(),
                hash: HASH_HELLO.into(),
                description: "Prints a greeting from libgreet".into(),
                prefix: hello.clone(),
                deps: vec![HASH_GREET.into(), HASH_ZLIB.into()],
                build_deps: vec![HASH_CMAKE.into()],
                root_in: vec!["tools".into(), "dev".into()],
                external: false,
                env: vec![
                    EnvOp::set("HELLO_LANG", "en"),
                    EnvOp::set("HELLO_CACHE", "${@HOME@}/.cache/hello"),
                    EnvOp::prepend_path(
                        "HELLO_PLUGIN_PATH",
                        format!("{}/lib/plugins", hello.display()),
                    ),
                ],
            },
            InstalledPackage {
                name: "libgreet".into(),
                version: "1.0".into(),
                hash: HASH_GREET.into(),
                description: "A greeting library".into(),
                prefix: greet.clone(),
                deps: vec![],
                build_deps: vec![],
                root_in: vec![],
                external: false,
                env: vec![EnvOp::set("GREET_HOME", greet.display().to_string())],
            },
            InstalledPackage {
                name: "cmake".into(),
                version: "3.30.1".into(),
                hash: HASH_CMAKE.into(),
                description: "Build tool".into(),
                prefix: cmake,
                deps: vec![],
                build_deps: vec![],
                root_in: vec![],
                external: false,
                env: vec![],
            },
            InstalledPackage {
                name: "zlib".into(),
                version: "1.2.13".into(),
                hash: HASH_ZLIB.into(),
                description: "system zlib".into(),
                prefix: "/usr".into(),
                deps: vec![],
                build_deps: vec![],
                root_in: vec![],
                external: true,
                env: vec![],
            },
        ],
    }
}

/// The views of the fake recipe: `default` (roots of `tools`, with the
/// Julia/UCX settings users need), `tools-all` (everything, build tools
/// included), `develop` (the `dev` environment with its run dependencies).
pub fn views() -> Vec<ViewSpec> {
    let mut prefix_paths = BTreeMap::new();
    prefix_paths.insert(
        "LD_LIBRARY_PATH".to_string(),
        vec!["lib".to_string(), "lib64".to_string()],
    );
    vec![
        ViewSpec {
            env_name: "tools".into(),
            name: "default".into(),
            link: LinkType::Roots,
            description: "the tools".into(),
            prefix_paths: prefix_paths.clone(),
            env_vars: vec![
                EnvOp::set("JULIA_CUDA_MEMORY_POOL", "none"),
                EnvOp::set("UCX_MEMTYPE_CACHE", "no"),
                EnvOp::set("UCX_ERROR_SIGNALS", "SIGILL,SIGBUS,SIGFPE"),
                EnvOp::set("JULIA_MPI_BINARY", "system"),
                EnvOp::set("HELLO_CACHE", "${@HOME@}/.cache/$@view_name@"),
                EnvOp::set("STACK_VIEW_ROOT", "$@view_path@"),
                EnvOp::unset("PYTHONPATH"),
                EnvOp::unset("HELLO_DEBUG"),
                EnvOp::prepend_path("PATH", "$@view_path@/sbin"),
                EnvOp::append_path("MANPATH", "$@mount@/share/man"),
            ],
            ..ViewSpec::default()
        },
        ViewSpec {
            env_name: "tools".into(),
            name: "tools-all".into(),
            link: LinkType::All,
            prefix_paths,
            conflicts: ConflictPolicy::FirstWins,
            ..ViewSpec::default()
        },
        ViewSpec {
            env_name: "dev".into(),
            name: "develop".into(),
            link: LinkType::Run,
            description: "headers and libraries".into(),
            ..ViewSpec::default()
        },
    ]
}

pub fn modules(flavour: ModuleFlavour) -> ModulesSpec {
    ModulesSpec {
        flavour,
        ..ModulesSpec::default()
    }
}

/// Meta inputs: the recipe files, lockfile and extra dir from the fixtures,
/// fixed provenance (so images are reproducible).
pub fn meta(mount: &Path) -> MetaInfo {
    let recipe = fixtures().join("recipe");
    MetaInfo {
        name: "view-demo".into(),
        description: Some("views, modules and image test stack".into()),
        default_view: Some("default".into()),
        recipe_files: vec![
            CopyFile {
                from: recipe.join("stack.yaml"),
                to: "stack.yaml".into(),
            },
            CopyFile {
                from: recipe.join("scripts"),
                to: "scripts".into(),
            },
        ],
        lockfile: Some(recipe.join("stack.lock")),
        provenance: Some(Provenance {
            stack_version: "0.1.0".into(),
            time: Some("1980-01-01T00:01:00Z".into()),
            source_date_epoch: Some(315_576_060),
            host: Some(stack::view::HostInfo {
                system: "Linux".into(),
                node: "builder".into(),
                release: "6.1".into(),
                version: "#1".into(),
                machine: "x86_64".into(),
            }),
            cluster: "local".into(),
            mount: mount.display().to_string(),
            args: Some(vec!["stack".into(), "build".into(), "stack.yaml".into()]),
        }),
        extra_dir: Some(recipe.join("extra")),
        audit_report: None,
    }
}
