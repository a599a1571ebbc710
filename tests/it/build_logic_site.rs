//! Site binary packages (alps-cluster-config's cray-mpich, cray-pmi, … are
//! packages whose `install` copies a vendor archive and whose hooks
//! relocate it): the same shapes, written for the tests, over archives of
//! the same layout that the test compiles (tiny real ELF libraries, a
//! compiler wrapper script and a pkg-config file with `@@…@@`
//! placeholders). Built for real through the package API layer, used by a
//! dependent through `spec["mpi"].mpicc`, audited clean.

use std::path::Path;
use std::process::Command;

use crate::harness::Stack;
use crate::harness::spack_project::{Project, fixtures};

fn sh(cmd: &str, cwd: &Path) {
    let st = Command::new("sh")
        .args(["-ec", cmd])
        .current_dir(cwd)
        .status()
        .unwrap();
    assert!(st.success(), "{cmd}");
}

/// The trees of a PMI archive `<pmi>/` (lib/libsitepmi.so) and an MPI
/// archive `<mpi>/` (mpich-gcc/ and mpich-nvhpc/, each with lib/libmpi.so
/// linked against libsitepmi.so without an RPATH, include/mpi.h, bin/mpicc
/// and lib/pkgconfig/mpich.pc with placeholders), compiled in `dir`.
fn binary_trees(dir: &Path, pmi: &str, mpi: &str) {
    let b = fixtures().join("binaries");
    let b = b.display();
    fs_err::create_dir_all(dir).unwrap();
    sh(
        &format!(
            "mkdir -p {pmi}/lib {pmi}/include\n\
             gcc -shared -fPIC -Wl,-soname,libsitepmi.so -o {pmi}/lib/libsitepmi.so {b}/sitepmi.c\n\
             for f in gcc nvhpc; do\n\
               d={mpi}/mpich-$f; mkdir -p $d/lib/pkgconfig $d/include $d/bin\n\
               gcc -shared -fPIC -DFLAVOUR='\"'$f'\"' -Wl,-soname,libmpi.so -o $d/lib/libmpi.so {b}/sitempi.c \
                 -L{pmi}/lib -lsitepmi\n\
               cp {b}/mpi.h $d/include/; cp {b}/mpicc $d/bin/; cp {b}/mpich.pc $d/lib/pkgconfig/\n\
             done"
        ),
        dir,
    );
}

/// `site-pmi-1.0.tar.gz` and `site-mpi-1.0.tar.gz` ([`binary_trees`])
/// below `<t>/src/`; their `versions:` entries.
fn archives(p: &Project) -> (String, String) {
    let w = p.path().join("archives");
    binary_trees(&w, "site-pmi-1.0", "site-mpi-1.0");
    let pmi = p.pack(&w, "site-pmi-1.0", "1.0");
    let mpi = p.pack(&w, "site-mpi-1.0", "1.0");
    (pmi, mpi)
}

fn project() -> Project {
    let p = Project::new();
    let (pmi, mpi) = archives(&p);
    p.spack_recipe(
        "site-pmi",
        "site_pmi",
        &format!("versions:\n{pmi}dependencies:\n  - {{spec: patchelf, type: build}}\n"),
        &[],
    );
    p.spack_recipe(
        "site-mpi",
        "site_mpi",
        &format!(
            "versions:\n{mpi}provides: [mpi]\ndependencies:\n  - {{spec: patchelf, type: build}}\n  \
             - {{spec: site-pmi, type: link}}\nimported: {{from: spack, languages: [c, fortran]}}\n"
        ),
        &["mpi_env"],
    );
    p.spack_recipe(
        "mpi-hello",
        "mpi_hello",
        &format!(
            "versions:\n{}dependencies:\n  - {{spec: mpi, type: [build, link]}}\n",
            p.version("mpi-hello-1.0", "1.0")
        ),
        &[],
    );
    p.write_stack(
        &[("e", &["mpi-hello"])],
        "    packages:\n      mpi: {require: site-mpi}\n",
    );
    p
}

#[test]
fn site_binary_packages_install_relocate_and_serve_their_dependents() {
    let p = project();
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("audit: clean"), "{text}");
    let store = p.path().join("build/store");
    let mounted =
        |host: &Path| Path::new("/user-environment").join(host.strip_prefix(&store).unwrap());
    let (mpi, pmi) = (p.prefix("site-mpi"), p.prefix("site-pmi"));
    // The gcc tree was chosen (`%fortran=gcc`), its placeholders filled.
    let mpicc = fs_err::read_to_string(mpi.join("bin/mpicc")).unwrap();
    assert!(!mpicc.contains("@@"), "{mpicc}");
    assert!(mpicc.contains("\"/usr/bin/gcc\""), "{mpicc}");
    assert!(
        mpicc.contains(&format!("{}/include", mounted(&mpi).display())),
        "{mpicc}"
    );
    let pc = fs_err::read_to_string(mpi.join("lib/pkgconfig/mpich.pc")).unwrap();
    assert!(
        pc.starts_with(&format!("prefix={}\n", mounted(&mpi).display())),
        "{pc}"
    );
    // patchelf gave libmpi.so an RPATH to site-pmi's lib.
    let dynamic = Command::new("readelf")
        .args(["-d"])
        .arg(mpi.join("lib/libmpi.so"))
        .output()
        .unwrap();
    let dynamic = String::from_utf8_lossy(&dynamic.stdout);
    assert!(
        dynamic.contains(&format!("{}/lib", mounted(&pmi).display())),
        "{dynamic}"
    );
    // The dependent was compiled with the provider's mpicc and runs
    // with the store at the mount point.
    let hello = p.prefix("mpi-hello");
    let said = p.run_mounted(&hello, "bin/mpi-hello");
    assert_eq!(said, "mpi-hello: rank 0 of 1 via gcc\n");
}

/// `tar czf <dist>/<dir>.tar.gz <dir>` of `from/<dir>`; its sha256.
fn tarball(from: &Path, dir: &str, dist: &Path) -> String {
    crate::harness::tarball(from, dir, &dist.join(format!("{dir}.tar.gz")))
}

/// The stackinator way: a recipe whose network MPI is the cluster site
/// repository's `cray-mpich` (a binary package over `cray-pmi`, written for
/// the tests after alps-cluster-config's shapes). The site's package files
/// win over the shipped reviewed `cray-mpich`/`cray-pmi` recipes
/// (stackinator's order: the recipe's `repo/`, the site repositories, the
/// built-in repository), are translated to `system: spack` recipes with
/// their package files, and build for real; the image audits clean.
#[test]
fn a_stackinator_site_repository_builds_its_binary_packages() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let fx = t.join("fx");
    let st = Command::new("cp")
        .arg("-a")
        .arg(fixtures().join("stackinator"))
        .arg(&fx)
        .status()
        .unwrap();
    assert!(st.success());
    let dist = t.join("dist");
    fs_err::create_dir_all(&dist).unwrap();
    let trees = t.join("trees");
    binary_trees(&trees, "cray-pmi-6.1.15", "cray-mpich-8.1.32");
    let sha_pmi = tarball(&trees, "cray-pmi-6.1.15", &dist);
    let sha_mpich = tarball(&trees, "cray-mpich-8.1.32", &dist);
    let sha_hello = tarball(&fixtures().join("src"), "mpi-hello-1.0", &dist);
    for e in walkdir::WalkDir::new(&fx).into_iter().flatten() {
        if e.file_name() == "package.py" {
            let text = fs_err::read_to_string(e.path()).unwrap();
            let text = text
                .replace("@DIST@", &dist.display().to_string())
                .replace("@SHA_PMI@", &sha_pmi)
                .replace("@SHA_MPICH@", &sha_mpich)
                .replace("@SHA_HELLO@", &sha_hello);
            fs_err::write(e.path(), text).unwrap();
        }
    }
    let out = Stack::bare()
        .command()
        .args(["--color", "never", "build"])
        .arg(fx.join("recipe"))
        .arg("--cluster")
        .arg(fx.join("cluster/local"))
        .args(["--build", "build", "--cache", "cache", "-j", "2"])
        .env("STACK_CACHE", t.join("cache"))
        .env_remove("STACK_SPACK_PACKAGES")
        .env_remove("STACK_REPOS")
        .current_dir(t)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("3 built"), "{text}");
    assert!(text.contains("audit: clean"), "{text}");
    let logs = t.join("build/logs");
    let log_of = |name: &str| -> String {
        let f = fs_err::read_dir(&logs)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.extension().is_some_and(|x| x == "log")
                    && p.file_name()
                        .is_some_and(|f| f.to_string_lossy().starts_with(&format!("{name}-")))
            })
            .unwrap_or_else(|| panic!("no log for {name}"));
        fs_err::read_to_string(f).unwrap()
    };
    // The site's package files ran (not the shipped `binary` recipes).
    for (name, version) in [("cray-mpich", "8.1.32"), ("cray-pmi", "6.1.15")] {
        let log = log_of(name);
        assert!(
            log.starts_with(&format!("==> {name} {version} (spack)")),
            "{log}"
        );
        assert!(log.contains("alps/"), "{log}");
    }
    let store = t.join("build/store");
    let hello = walkdir::WalkDir::new(&store)
        .min_depth(2)
        .max_depth(2)
        .into_iter()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("mpi-hello-"))
        .expect("mpi-hello installed")
        .into_path();
    let mounted = Path::new("/user-environment").join(hello.strip_prefix(&store).unwrap());
    let run = Command::new("unshare")
        .args(["-rm", "sh", "-ec"])
        .arg(format!(
            "mount --bind '{}' /user-environment\nexec '{}/bin/mpi-hello'",
            store.display(),
            mounted.display()
        ))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "mpi-hello: rank 0 of 1 via gcc\n"
    );
}
