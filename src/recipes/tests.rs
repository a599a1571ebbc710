//! Tests of package recipe loading and the repository.

use std::path::Path;

use crate::diag::{Code, Diagnostics, SourceFile};
use crate::spec::VariantValue;

use super::*;

fn parse(text: &str) -> (Option<PackageRecipe>, Diagnostics) {
    let src = SourceFile::new("/repo/recipes/libfoo.yaml", text);
    let mut d = Diagnostics::new();
    let r = parse_package(&src, Path::new("/repo/recipes"), &mut d);
    (r, d)
}

const FULL: &str = r#"
name: libfoo
description: test package
homepage: https://example.org
versions:
  - version: "1.0"
    url: ../dist/libfoo-1.0.tar.gz
    sha256: 00000000000000000000000000000000000000000000000000000000000000AA
  - version: "2.0-rc1"
    url: https://example.org/foo.run
    sha256: 0000000000000000000000000000000000000000000000000000000000000001
    expand: false
    preferred: true
  - version: main
    git: ../git/foo
    branch: main
    submodules: true
  - version: "1.5"
    git: https://example.org/foo.git
    tag: v1.5
    commit: 0123456789abcdef0123456789abcdef01234567
variants:
  cuda: {default: false, description: CUDA support}
  fabrics: {default: [tcp], values: [cxi, tcp, shm], multi: true}
  cuda_arch: {default: "none", values: ["none", "80", "90"]}
  gdr: {default: false, when: "+cuda"}
  free: {default: anything}
dependencies:
  - libbar
  - {spec: "libbaz@1: +shared", type: link, when: "+cuda"}
  - {spec: cmake, type: [build, run]}
conflicts:
  - {when: "+cuda fabrics=shm", message: no}
provides:
  - mpi
  - {virtual: fuse, when: "@2:"}
build:
  system: autotools
  autoreconf: {when: "@main"}
  autogen: true
  configure_args:
    - --disable-static
    - {when: "+cuda", args: ["--with-cuda={{ deps.cuda.prefix }}", "--enable-x"]}
  make_args: ["V=1"]
  steps:
    pre_configure: [["sed", "-i", "s/a/b/", "Makefile"], {when: "+cuda", args: ["true"]}]
  install:
    - {copy: "lib*.so*", to: lib}
    - {mkdir: share/doc}
    - {symlink: libfoo.so.1, at: lib/libfoo.so, when: "@1.0"}
  build_env: [{set: {FOO: bar, BAZ: qux}}]
env:
  - {prepend_path: {LD_LIBRARY_PATH: "{{ prefix }}/lib"}}
  - {unset: [A, B], when: "+cuda"}
"#;

/// The sources of `FULL`'s versions: an archive, a file, a git branch
/// and a pinned tag.
fn check_full_recipe_sources(r: &PackageRecipe) {
    match &r.versions[0].source {
        Source::Archive(a) => {
            assert_eq!(
                a.url,
                Resource::Local("/repo/dist/libfoo-1.0.tar.gz".into())
            );
            assert_eq!(a.url_text, "../dist/libfoo-1.0.tar.gz");
            assert_eq!(
                a.sha256.as_deref().unwrap(),
                &"0".repeat(62).to_string().add("aa")
            );
            assert!(a.expand);
        }
        s => panic!("{s:?}"),
    }
    assert!(r.versions[1].preferred);
    assert!(matches!(&r.versions[1].source, Source::Archive(a) if !a.expand));
    match &r.versions[2].source {
        Source::Git(g) => {
            assert_eq!(g.repo, Resource::Local("/repo/git/foo".into()));
            assert_eq!(g.reference, GitRef::Branch("main".into()));
            assert!(g.submodules);
        }
        s => panic!("{s:?}"),
    }
    match &r.versions[3].source {
        Source::Git(g) => {
            assert_eq!(g.reference, GitRef::Tag("v1.5".into()));
            assert_eq!(
                g.commit.as_deref(),
                Some("0123456789abcdef0123456789abcdef01234567")
            );
        }
        s => panic!("{s:?}"),
    }
}

#[test]
fn a_full_recipe_converts_to_the_model() {
    let (r, d) = parse(FULL);
    assert!(d.is_empty(), "{d}");
    let r = r.unwrap();
    assert_eq!(r.name, "libfoo");
    assert_eq!(r.versions.len(), 4);
    check_full_recipe_sources(&r);
    let newest: Vec<_> = r
        .versions_newest_first()
        .iter()
        .map(|v| v.text.clone())
        .collect();
    assert_eq!(newest[0], "main");

    assert_eq!(
        r.variant("cuda").unwrap().default_value(),
        VariantValue::Bool(false)
    );
    assert!(r.variant("fabrics").unwrap().is_multi());
    assert_eq!(
        r.variant("cuda_arch").unwrap().allowed_values().unwrap(),
        &["none".to_string(), "80".into(), "90".into()]
    );
    assert!(r.variant("gdr").unwrap().when.is_some());
    assert_eq!(r.variant("free").unwrap().allowed_values(), None);

    assert_eq!(r.dependencies[0].name(), "libbar");
    assert_eq!(r.dependencies[0].types, DepTypes::DEFAULT);
    assert_eq!(r.dependencies[1].name(), "libbaz");
    assert_eq!(r.dependencies[1].types.names(), vec!["link"]);
    assert_eq!(r.dependencies[1].when.as_ref().unwrap().text, "+cuda");
    assert_eq!(r.dependencies[2].types.names(), vec!["build", "run"]);
    assert_eq!(r.dependencies[1].loc.line, 30);
    assert_eq!(r.dependencies[1].spec.loc.col, 12);

    assert_eq!(r.conflicts[0].message.as_deref(), Some("no"));
    assert!(r.provides("mpi") && r.provides("fuse"));

    let sys = &r.build.system;
    assert_eq!(sys.name(), "autotools");
    assert!(matches!(
        sys.get("autoreconf"),
        Some(Setting::Toggle(Toggle::When(_)))
    ));
    assert!(matches!(
        sys.get("autogen"),
        Some(Setting::Toggle(Toggle::On))
    ));
    let Some(Setting::Args(configure_args)) = sys.get("configure_args") else {
        panic!("{sys:?}")
    };
    assert_eq!(configure_args.len(), 2);
    assert!(configure_args[0].when.is_none());
    assert_eq!(configure_args[1].value.len(), 2);
    assert_eq!(configure_args[1].when.as_ref().unwrap().text, "+cuda");
    assert_eq!(r.build.steps.len(), 2);
    assert_eq!(r.build.steps[0].phase, Phase::PreConfigure);
    assert_eq!(
        r.build.steps[0].argv,
        vec!["sed", "-i", "s/a/b/", "Makefile"]
    );
    assert_eq!(r.build.install.len(), 3);
    assert_eq!(
        r.build.install[2].action,
        InstallAction::Symlink {
            target: "libfoo.so.1".into(),
            at: "lib/libfoo.so".into()
        }
    );
    assert_eq!(r.build.build_env.len(), 2);
    assert_eq!(r.env.len(), 3);
    assert_eq!(r.env[1].kind, EnvOpKind::Unset);
    assert_eq!(r.env[2].var, "B");
}

trait Add {
    fn add(self, s: &str) -> String;
}
impl Add for String {
    fn add(mut self, s: &str) -> String {
        self.push_str(s);
        self
    }
}

#[test]
fn every_problem_in_a_file_is_collected() {
    let text = r#"
name: libfoo
description: x
versions:
  - version: "1.0"
    url: https://x/a.tgz
    sha256: zz
  - version: "1.0"
    url: https://x/b.tgz
variants:
  cuda: {default: false}
dependencies:
  - {spec: "libbar", when: "+cdua"}
  - {spec: "@1.0"}
build:
  system: autotols
"#;
    let (r, d) = parse(text);
    assert!(r.is_some());
    let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
    assert!(codes.contains(&Code::BadChecksum), "{codes:?}");
    assert!(codes.contains(&Code::DuplicateVersion), "{codes:?}");
    assert!(codes.contains(&Code::UnknownVariant), "{codes:?}");
    assert!(codes.contains(&Code::BadSpec), "{codes:?}");
    assert!(codes.contains(&Code::UnknownBuildSystem), "{codes:?}");
    let unknown = d.iter().find(|d| d.code == Code::UnknownVariant).unwrap();
    assert_eq!(unknown.help.as_deref(), Some("did you mean `cuda`?"));
    assert_eq!(unknown.loc().unwrap().line, 13);
}

/// `source: none` (a Spack bundle's version): no fetch; alone in its entry,
/// and only with the value `none`.
#[test]
fn a_version_without_a_source_says_so() {
    let head = "name: libfoo\ndescription: x\nbuild: {system: generic}\nversions:\n";
    let ok = format!("{head}  - {{version: \"3.0\", source: none}}\n");
    let (r, d) = parse(&ok);
    assert!(d.is_empty(), "{d}");
    assert!(matches!(r.unwrap().versions[0].source, Source::None));
    for (entry, line) in [
        (
            "{version: \"3.0\", source: none, url: https://x/a.tgz}",
            "`url`",
        ),
        ("{version: \"3.0\", source: none, tag: v3}", "`tag`"),
        ("{version: \"3.0\", source: bundle}", "not `bundle`"),
        ("{version: \"3.0\"}", "`source: none`"),
    ] {
        let (_, d) = parse(&format!("{head}  - {entry}\n"));
        let bad: Vec<_> = d.iter().filter(|d| d.code == Code::BadSource).collect();
        assert_eq!(bad.len(), 1, "{entry}: {d}");
        assert!(bad[0].message.contains(line), "{entry}: {}", bad[0].message);
    }
}

#[test]
fn makefile_and_binary_settings() {
    let text = r#"
name: libfoo
description: x
versions:
  - {version: "1", url: "https://x/a.tgz", sha256: 0000000000000000000000000000000000000000000000000000000000000000}
dependencies: [libfabric]
build:
  system: binary
  relocate:
    rpath: [libfabric]
    needed: [{file: "lib/libmpi.so*", add: libfabric.so.1}]
    placeholders: {"@@PREFIX@@": "{{ prefix }}", "@@CC@@": gcc}
"#;
    let (r, d) = parse(text);
    assert!(d.is_empty(), "{d}");
    let r = r.unwrap();
    let Some(Setting::Relocate(rel)) = r.build.system.get("relocate") else {
        panic!()
    };
    assert_eq!(rel.rpath[0].value, "libfabric");
    assert_eq!(rel.needed[0].add, "libfabric.so.1");
    assert_eq!(rel.placeholders[0].0, "@@PREFIX@@");

    let text = text.replace(
        "system: binary",
        "system: makefile\n  install_targets: []\n  build_targets: [all]",
    );
    let text = text.replace("  relocate:\n    rpath: [libfabric]\n    needed: [{file: \"lib/libmpi.so*\", add: libfabric.so.1}]\n    placeholders: {\"@@PREFIX@@\": \"{{ prefix }}\", \"@@CC@@\": gcc}\n", "");
    let (r, d) = parse(&text);
    assert!(d.is_empty(), "{d}");
    let r = r.unwrap();
    let words = |key| match r.build.system.get(key) {
        Some(Setting::Words(w)) => super::build::plain_words(w).unwrap().join(" "),
        other => panic!("{other:?}"),
    };
    assert!(words("install_targets").is_empty());
    assert_eq!(words("build_targets"), "all");

    // Targets are an argument list: `{when, args}` blocks too (Spack's
    // `build_targets` property appending `O_PCRE=1` under `+pcre`).
    let text = text.replace(
        "build_targets: [all]",
        "build_targets: [all, {when: \"@1:\", args: [\"O_PCRE=1\"]}]",
    );
    let (r, d) = parse(&text);
    assert!(d.is_empty(), "{d}");
    match r.unwrap().build.system.get("build_targets") {
        Some(Setting::Words(w)) => {
            assert_eq!(w.len(), 2);
            assert_eq!(w[1].when.as_ref().unwrap().text, "@1:");
            assert_eq!(w[1].value, vec!["O_PCRE=1"]);
        }
        other => panic!("{other:?}"),
    }
}

fn write(path: &Path, text: &str) {
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(path, text).unwrap();
}

const MINI: &str = "description: x\nversions: [{version: \"1\", git: \"https://x/y.git\", tag: v1}]\nbuild: {system: generic}\n";

#[test]
fn earlier_repositories_win_and_virtuals_are_indexed() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a/recipes");
    let b = tmp.path().join("b/recipes");
    write(
        &a.join("foo.yaml"),
        &format!("name: foo\n{MINI}provides: [mpi]\n"),
    );
    write(&b.join("foo.yaml"), &format!("name: foo\n{MINI}"));
    write(
        &b.join("bar.yaml"),
        &format!(
            "name: bar\n{MINI}provides: [{{virtual: mpi, when: \"@1\"}}]\ndependencies: [mpi, nothere]\n"
        ),
    );
    write(&b.join("broken.yaml"), "name: [");
    let dirs = vec![
        RepoDir {
            path: a.clone(),
            origin: RepoOrigin::Flag,
        },
        RepoDir {
            path: b.clone(),
            origin: RepoOrigin::Flag,
        },
        RepoDir {
            path: tmp.path().join("missing"),
            origin: RepoOrigin::Env,
        },
    ];
    let repo = PackageRepo::load(dirs);
    assert_eq!(
        repo.names().collect::<Vec<_>>(),
        vec!["bar", "broken", "foo"]
    );
    assert_eq!(repo.file("foo").unwrap(), a.join("foo.yaml"));
    assert_eq!(repo.shadowed("foo"), [b.join("foo.yaml")]);
    assert!(repo.is_virtual("mpi"));
    let providers: Vec<_> = repo
        .providers("mpi")
        .iter()
        .map(|p| p.package.as_str())
        .collect();
    assert_eq!(providers, vec!["bar", "foo"]);
    assert!(repo.providers("mpi")[0].when.is_some());
    assert!(repo.get("broken").is_none() && repo.contains("broken"));
    assert!(repo.diagnostics("broken").unwrap().has_errors());
    assert_eq!(repo.problems().len(), 1);
    assert_eq!(repo.suggest("fo"), Some("foo"));
    let d = repo.check("bar");
    assert_eq!(d.error_count(), 1, "{d}");
    let e = d.iter().next().unwrap();
    assert_eq!(e.code, Code::UnknownPackage);
    assert!(e.message.contains("nothere"));
    // the patch dir of a repository is its sibling
    assert_eq!(repo.dirs()[0].patch_dir(), tmp.path().join("a/patches"));
}

/// A repository given one directory too high (`--repo site` for
/// `site/recipes/*.yaml`) used to be searched silently and change nothing.
#[test]
fn a_repository_without_recipes_is_a_warning_naming_its_recipes_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    write(
        &site.join("recipes/foo.yaml"),
        &format!("name: foo\n{MINI}"),
    );
    let repo = PackageRepo::load(vec![RepoDir {
        path: site.clone(),
        origin: RepoOrigin::Flag,
    }]);
    assert!(repo.is_empty());
    assert_eq!(repo.problems().len(), 1);
    let w = repo.problems().iter().next().unwrap();
    assert_eq!(w.code, Code::BadPath);
    assert!(!w.is_error());
    assert!(
        w.message.contains("holds no recipe") && w.message.contains("--repo"),
        "{}",
        w.message
    );
    let help = w.help.as_deref().unwrap_or_default();
    assert!(
        help.contains(&format!("{}", site.join("recipes").display())),
        "{help}"
    );
    // the same directory's recipes/ itself is fine
    let ok = PackageRepo::load(vec![RepoDir {
        path: site.join("recipes"),
        origin: RepoOrigin::Flag,
    }]);
    assert!(ok.problems().is_empty() && ok.contains("foo"));
}

#[test]
fn patch_files_are_found_beside_the_repository_and_checksummed() {
    let tmp = tempfile::tempdir().unwrap();
    let recipes = tmp.path().join("recipes");
    write(&tmp.path().join("patches/foo/fix.patch"), "--- a\n+++ b\n");
    let good = "8a2b8e9ddd4b4dd6b3cd13c7b0d0ea6d4a6e5b64b5be5c0e6c7c1ef2bce5d0b1";
    let actual = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(b"--- a\n+++ b\n"))
    };
    write(
        &recipes.join("foo.yaml"),
        &format!(
            "name: foo\n{MINI}patches:\n  - {{file: foo/fix.patch, sha256: {actual}, level: 0}}\n  - {{file: foo/fix.patch, sha256: {good}}}\n  - {{file: foo/nope.patch, sha256: {good}}}\n"
        ),
    );
    let (r, d) = load_package(&recipes.join("foo.yaml"), &recipes);
    let r = r.unwrap();
    assert_eq!(r.patches.len(), 3);
    assert_eq!(r.patches[0].level, 0);
    assert_eq!(r.patches[1].level, 1);
    match &r.patches[0].source {
        PatchSource::File(p) => assert_eq!(p.path, tmp.path().join("patches/foo/fix.patch")),
        s => panic!("{s:?}"),
    }
    let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::PatchChecksum, Code::PatchMissing], "{d}");
    assert!(
        d.iter()
            .next()
            .unwrap()
            .help
            .as_ref()
            .unwrap()
            .contains(&actual)
    );
}

/// Recipes are parsed when first asked for: a broken recipe costs nothing
/// and reports nothing until then, and is reported the same way after.
#[test]
fn recipes_are_parsed_on_first_use() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("recipes");
    fs_err::create_dir_all(&dir).unwrap();
    fs_err::write(dir.join("broken.yaml"), "name: broken\nversions: [\n").unwrap();
    fs_err::write(
        dir.join("ok.yaml"),
        "name: ok\ndescription: d\nversions: [{version: \"1\", url: \"https://x/ok.tgz\", sha256: 0000000000000000000000000000000000000000000000000000000000000000}]\nbuild: {system: generic}\n",
    )
    .unwrap();
    let repo = PackageRepo::load(vec![RepoDir {
        path: dir.clone(),
        origin: RepoOrigin::Flag,
    }]);
    assert_eq!(repo.names().collect::<Vec<_>>(), vec!["broken", "ok"]);
    assert!(repo.names().all(|n| !repo.was_parsed(n)));
    assert_eq!(repo.get("ok").unwrap().name, "ok");
    assert!(!repo.was_parsed("broken"));
    assert!(!repo.is_virtual("ok"));
    assert!(repo.get("broken").is_none());
    assert!(repo.diagnostics("broken").unwrap().has_errors());
    repo.parse_all();
    assert!(repo.names().all(|n| repo.was_parsed(n)));
}

/// Issue 13, item 1: `stack check` said ok to install steps that leave the
/// prefix; destinations known to leave it are errors, with a position.
#[test]
fn install_paths_leaving_the_prefix_are_flagged() {
    let text = r#"
name: evil
versions:
  - version: "1.0"
    url: https://x/a.tgz
    sha256: 00000000000000000000000000000000000000000000000000000000000000AA
build:
  system: generic
  install:
    - {symlink: /home/user/victim, at: out}
    - {copy: payload.txt, to: ../out}
    - {mkdir: /etc/evil}
    - {symlink: x, at: "../y"}
    - {copy: /etc/passwd, to: share}
    - {copy: "{{ prefix }}/x", to: "share/{{ name }}"}
"#;
    let (_, d) = parse(text);
    let lines: Vec<(usize, bool)> = d
        .iter()
        .filter(|d| d.code == Code::InvalidValue)
        .map(|d| (d.loc().unwrap().line, d.is_error()))
        .collect();
    assert_eq!(
        lines,
        vec![(10, false), (11, true), (12, true), (13, true), (14, true)],
        "{d}"
    );
}

const SMALL_HEAD: &str = "name: libfoo\ndescription: d\nversions: [{version: \"1.0\", url: a.tgz, sha256: 0000000000000000000000000000000000000000000000000000000000000000}]\nbuild: {system: generic}\n";

#[test]
fn provides_takes_versions() {
    let (r, d) = parse(&format!(
        "{SMALL_HEAD}provides: [\"mpi@:3\", {{virtual: \"fuse@2:\", when: \"@1:\"}}, blas]\n"
    ));
    assert!(!d.has_errors(), "{d:?}");
    let r = r.unwrap();
    let got: Vec<(String, String)> = r
        .provides
        .iter()
        .map(|p| (p.name.clone(), p.versions.to_string()))
        .collect();
    assert_eq!(got[0], ("mpi".to_string(), ":3".to_string()));
    assert_eq!(got[1], ("fuse".to_string(), "2:".to_string()));
    assert_eq!(got[2].0, "blas");
    assert!(r.provides[2].versions.is_any());
}

#[test]
fn provides_rejects_more_than_versions() {
    let (_, d) = parse(&format!("{SMALL_HEAD}provides: [\"mpi@3 +cuda\"]\n"));
    let e = d.iter().find(|e| e.is_error()).expect("an error");
    assert!(
        e.to_string()
            .contains("a provided virtual has a name and versions only"),
        "{e}"
    );
}

#[test]
fn dependency_type_test_is_read_and_misspellings_suggest_it() {
    let (r, d) = parse(&format!(
        "{SMALL_HEAD}dependencies: [{{spec: checker, type: [test]}}, {{spec: other, type: [tests]}}]\n"
    ));
    let r = r.unwrap();
    let t = r.dependencies[0].types;
    assert!(t.test && t.test_only(), "{t:?}");
    assert_eq!(t.names(), vec!["test"]);
    let e = d.iter().find(|e| e.is_error()).expect("an error");
    assert!(
        e.to_string().contains("unknown dependency type `tests`"),
        "{e}"
    );
    assert!(format!("{e:?}").contains("did you mean `test`"), "{e:?}");
}

#[test]
fn elsewhere_dependencies_may_name_packages_the_repositories_lack() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a/recipes");
    write(
        &a.join("kk.yaml"),
        &format!(
            "name: kk\n{MINI}variants:\n  rocm: {{default: false}}\n\
             dependencies:\n  - {{spec: \"hip +rocm\", when: \"+rocm\", elsewhere: true}}\n  \
             - {{spec: hsa, when: \"+rocm\"}}\n"
        ),
    );
    let repo = PackageRepo::load(vec![RepoDir {
        path: a.clone(),
        origin: RepoOrigin::Flag,
    }]);
    let d = repo.check("kk");
    // hip is `elsewhere`; hsa is not
    assert_eq!(d.error_count(), 1, "{d}");
    assert!(d.iter().next().unwrap().message.contains("`hsa`"), "{d}");
    let kk = repo.get("kk").unwrap();
    assert!(kk.dependencies[0].elsewhere && !kk.dependencies[1].elsewhere);
    // written back as read
    let text = kk.to_yaml();
    assert!(text.contains("elsewhere: true"), "{text}");
    // only a conditional dependency can be elsewhere
    let (_, d) = parse(&format!(
        "{SMALL_HEAD}dependencies: [{{spec: hip, elsewhere: true}}]\n"
    ));
    let e = d.iter().find(|e| e.is_error()).expect("an error");
    assert!(
        e.to_string()
            .contains("`elsewhere: true` on a dependency without `when:`"),
        "{e}"
    );
}
