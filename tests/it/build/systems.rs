//! Every build system builds and installs for real; the result is
//! self-contained (RPATHs); a second run rebuilds nothing.

use std::path::Path;

use stack::build::*;

use crate::harness::build::*;

#[test]
fn every_build_system_installs_a_self_contained_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let calc = autotools_calc(&mount);
    let greet = cmake_greet(&mount, &calc);
    let hello = meson_hello(&mount, &calc, &greet);
    let mk = makefile_mktool(&mount, &calc);
    let headers = generic_headers(&mount);
    let tree = make_prebuilt(&tmp.path().join("vendor"));
    let bin = binary_bin(&mount, tree, &calc);
    let prefixes = [&calc, &greet, &hello, &mk, &headers, &bin].map(|j| j.prefix.clone());

    let mut g = BuildGraph::new();
    let c = g.add(calc);
    let gr = g.add(greet);
    let h = g.add(hello);
    let m = g.add(mk);
    g.add(headers);
    let b = g.add(bin);
    g.depends_on(gr, c);
    g.depends_on(h, c);
    g.depends_on(h, gr);
    g.depends_on(m, c);
    g.depends_on(b, c);

    let opts = options(&build, &mount, MountMode::Direct);
    let rec = Recorder::default();
    let summary = run_plan(&g, &opts, &rec).unwrap();
    assert_success(&summary);
    assert_eq!(summary.built().count(), 6);
    assert!(!summary.namespaced);
    assert_eq!(summary.store_root, mount);
    for p in summary.built() {
        assert!(
            p.timing.children > std::time::Duration::ZERO || p.name == "headers",
            "{p:?}"
        );
        assert!(p.timing.wall >= p.timing.children);
    }

    // The programs run with an empty environment: RPATHs find everything.
    let [calc_p, greet_p, hello_p, mk_p, headers_p, bin_p] = &prefixes;
    assert_eq!(run_clean(&calc_p.join("bin/calc")), "calc 5\n");
    assert_eq!(
        run_clean(&greet_p.join("bin/greeter")),
        "hello cmake (42)\n"
    );
    assert_eq!(
        run_clean(&hello_p.join("bin/hello")),
        "hello meson (42)\nsum 2\n"
    );
    assert_eq!(run_clean(&mk_p.join("bin/mk")), "twice 42\n");
    assert_eq!(run_clean(&bin_p.join("bin/bintool")), "bin 42\n");
    assert!(headers_p.join("include/hdr/hdr.h").is_file());
    assert!(headers_p.join("share/doc/headers/README").is_file());
    assert!(calc_p.join("lib/pkgconfig/calc.pc").is_file());

    // Every ELF file: store libraries through RPATH (not RUNPATH), nothing outside.
    let checked = assert_self_contained(&mount, &mount);
    for must in [
        calc_p.join("bin/calc"),
        greet_p.join("lib/libgreet.so.2.0"),
        greet_p.join("bin/greeter"),
        hello_p.join("bin/hello"),
        mk_p.join("lib/libmk.so.1"),
        mk_p.join("bin/mktool"),
        bin_p.join("bin/bintool"),
        bin_p.join("lib/libbin.so.1"),
    ] {
        assert!(
            checked.contains(&must),
            "{} not checked: {checked:?}",
            must.display()
        );
    }
    // The dependency's lib dir is in the RPATH of a library linking it.
    let greet_dyn = readelf(&greet_p.join("lib/libgreet.so.2.0")).unwrap();
    assert!(
        greet_dyn
            .rpath
            .contains(&calc_p.join("lib").display().to_string()),
        "{greet_dyn:?}"
    );

    // Issue 19: no RPATH entry names a directory that does not exist (the
    // wrapper adds `<prefix>/lib64`, which these installs do not create).
    assert!(!greet_p.join("lib64").exists());
    for file in &checked {
        for entry in readelf(file).unwrap().rpath {
            assert!(
                entry.starts_with("$ORIGIN") || Path::new(&entry).is_dir(),
                "{}: RPATH entry {entry} is no directory",
                file.display()
            );
        }
    }
    assert!(
        !greet_dyn
            .rpath
            .contains(&greet_p.join("lib64").display().to_string()),
        "{greet_dyn:?}"
    );

    // Binary relocation: vendor RPATH gone, NEEDED added, placeholders replaced.
    let bintool = readelf(&bin_p.join("bin/bintool")).unwrap();
    assert!(
        !bintool.rpath.iter().any(|r| r.contains("/vendor")),
        "{bintool:?}"
    );
    assert_eq!(bintool.rpath[0], bin_p.join("lib").display().to_string());
    let libbin = readelf(&bin_p.join("lib/libbin.so.1")).unwrap();
    assert!(
        libbin.needed.contains(&"libm.so.6".to_string()),
        "{libbin:?}"
    );
    let config = fs_err::read_to_string(bin_p.join("bin/bin-config")).unwrap();
    assert_eq!(config, format!("#!/bin/sh\necho {} gcc\n", bin_p.display()));
    let pc = fs_err::read_to_string(bin_p.join("lib/pkgconfig/bin.pc")).unwrap();
    assert!(
        pc.starts_with(&format!("prefix={}\n", bin_p.display())),
        "{pc}"
    );

    // Install records: written, with deps, log and manifest.
    let rec_h = stack::store::read_record(hello_p).unwrap().unwrap();
    assert_eq!(rec_h.name, "hello");
    assert_eq!(rec_h.build_system, "meson");
    assert_eq!(rec_h.deps.len(), 2);
    assert!(rec_h.manifest_entries >= 2);
    // Build time and log stay in the build directory, out of the prefix.
    assert!(!hello_p.join(".stack/build.log").exists());
    let slug = format!("hello-{}-{}", rec_h.version, &rec_h.hash[..8]);
    let facts: stack::store::BuildFacts = serde_json::from_str(
        &fs_err::read_to_string(build.join("logs").join(format!("{slug}.json"))).unwrap(),
    )
    .unwrap();
    assert!(
        facts.build_seconds > 0.0 && facts.built_at.ends_with('Z'),
        "{facts:?}"
    );
    let log = fs_err::read_to_string(&facts.log).unwrap();
    assert!(log.contains("==> meson setup"), "{log}");
    // Stages are removed after success.
    assert_eq!(fs_err::read_dir(build.join("stage")).unwrap().count(), 0);

    // A second run rebuilds nothing and touches no log.
    let logs_before: Vec<_> = fs_err::read_dir(build.join("logs"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().modified().unwrap())
        .collect();
    let rec2 = Recorder::default();
    let again = run_plan(&g, &opts, &rec2).unwrap();
    assert_eq!(again.reused().count(), 6);
    assert_eq!(again.built().count(), 0);
    assert!(
        !rec2
            .events
            .borrow()
            .iter()
            .any(|e| e.starts_with("started"))
    );
    assert_eq!(
        rec2.events
            .borrow()
            .iter()
            .filter(|e| e.starts_with("reused"))
            .count(),
        6
    );
    let logs_after: Vec<_> = fs_err::read_dir(build.join("logs"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().modified().unwrap())
        .collect();
    assert_eq!(logs_before, logs_after);
}

/// The prefix cache seam: consulted before a job is built (a prefix it
/// restores is reused, nothing is built) and fed after a job was built.
#[test]
fn a_prefix_cache_is_consulted_before_building_and_fed_after() {
    use std::sync::{Arc, Mutex};

    #[derive(Debug, Default)]
    struct Recording {
        /// Restore this job by copying the prefix built by the first run.
        restore_from: Mutex<Option<std::path::PathBuf>>,
        kept: Mutex<Vec<String>>,
        /// The build seconds each kept job came with.
        seconds: Mutex<Vec<Option<f64>>>,
    }
    impl PrefixCache for Recording {
        fn restore(
            &self,
            job: &BuildJob,
            host_prefix: &std::path::Path,
        ) -> Result<bool, stack::store::StoreError> {
            let Some(from) = self.restore_from.lock().unwrap().clone() else {
                return LocalStore.restore(job, host_prefix);
            };
            let status = std::process::Command::new("cp")
                .arg("-a")
                .arg(&from)
                .arg(host_prefix)
                .status()?;
            assert!(status.success());
            LocalStore.restore(job, host_prefix)
        }
        fn keep(
            &self,
            job: &BuildJob,
            _host_prefix: &std::path::Path,
            build_seconds: Option<f64>,
        ) -> Result<(), stack::store::StoreError> {
            self.kept.lock().unwrap().push(job.name.clone());
            self.seconds.lock().unwrap().push(build_seconds);
            Ok(())
        }
    }

    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let headers = generic_headers(&mount);
    let prefix = headers.prefix.clone();
    let mut g = BuildGraph::new();
    g.add(headers);
    let cache = Arc::new(Recording::default());
    let mut opts = options(&tmp.path().join("build"), &mount, MountMode::Direct);
    opts.prefix_cache = Some(cache.clone());
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    assert_success(&summary);
    assert_eq!(summary.built().count(), 1);
    assert_eq!(*cache.kept.lock().unwrap(), ["headers"]);
    let secs = cache.seconds.lock().unwrap()[0].expect("a built job has its seconds");
    let wall = summary.packages[0].timing.wall.as_secs_f64();
    assert!(secs > 0.0 && secs == wall, "{secs} vs {wall}");

    // Another machine's mount point: the cache restores the prefix there.
    let saved = tmp.path().join("saved");
    std::fs::rename(&prefix, &saved).unwrap();
    *cache.restore_from.lock().unwrap() = Some(saved);
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    assert_eq!(summary.built().count(), 0);
    assert_eq!(summary.reused().count(), 1);
    assert!(prefix.join(".stack/installed.json").is_file());
    assert_eq!(
        cache.kept.lock().unwrap().len(),
        1,
        "nothing built, nothing kept"
    );
}

/// `source_subdir` (Spack's `root_cmakelists_dir`): CMake configures the
/// project whose top `CMakeLists.txt` is in a directory of the tree.
#[test]
fn cmake_configures_the_source_subdir() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir_all(src.join("cpp")).unwrap();
    std::fs::write(src.join("README"), "the project is in cpp/\n").unwrap();
    std::fs::write(
        src.join("cpp/CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.13)\nproject(sub C)\n\
         add_executable(sub sub.c)\ninstall(TARGETS sub DESTINATION bin)\n",
    )
    .unwrap();
    std::fs::write(
        src.join("cpp/sub.c"),
        "#include <stdio.h>\nint main(void) { puts(\"sub\"); return 0; }\n",
    )
    .unwrap();
    let mount = tmp.path().join("ue");
    let j = job(
        &mount,
        "sub",
        src,
        BuildSystem::new("cmake").with("source_subdir", "cpp"),
    );
    let prefix = j.prefix.clone();
    let mut g = BuildGraph::new();
    g.add(j);
    let opts = options(&tmp.path().join("build"), &mount, MountMode::Direct);
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    assert_success(&summary);
    assert_eq!(run_clean(&prefix.join("bin/sub")), "sub\n");
}

/// A `generic` recipe whose own step installs (as an imported
/// `pip install --prefix` does) gets nothing else: its source tree is not
/// copied beside it. Without any step the whole tree is the install.
#[test]
fn a_generic_step_that_installs_is_the_whole_install() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir_all(src.join("tests")).unwrap();
    std::fs::write(src.join("tool.py"), "print('tool')\n").unwrap();
    std::fs::write(src.join("tests/test_tool.py"), "\n").unwrap();
    let mount = tmp.path().join("ue");
    let mut stepped = job(&mount, "stepped", src.clone(), BuildSystem::new("generic"));
    stepped.steps.pre_install = vec![vec![
        "sh".into(),
        "-c".into(),
        r#"mkdir -p "$STACK_PREFIX/lib/site" && cp tool.py "$STACK_PREFIX/lib/site/""#.into(),
    ]];
    let plain = job(&mount, "plain", src, BuildSystem::new("generic"));
    let (stepped_p, plain_p) = (stepped.prefix.clone(), plain.prefix.clone());
    let mut g = BuildGraph::new();
    g.add(stepped);
    g.add(plain);
    let opts = options(&tmp.path().join("build"), &mount, MountMode::Direct);
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    assert_success(&summary);
    let names = |p: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != ".stack")
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&stepped_p), ["lib"]);
    assert!(stepped_p.join("lib/site/tool.py").is_file());
    assert_eq!(names(&plain_p), ["tests", "tool.py"]);
}
