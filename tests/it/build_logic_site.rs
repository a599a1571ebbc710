//! Site binary packages (alps-cluster-config's cray-mpich, cray-pmi, … are
//! packages whose `install` copies a vendor archive and whose hooks
//! relocate it): the same shapes, written for the tests, over archives of
//! the same layout that the test compiles (tiny real ELF libraries, a
//! compiler wrapper script and a pkg-config file with `@@…@@`
//! placeholders). Built for real through the package API layer, used by a
//! dependent through `spec["mpi"].mpicc`, audited clean.

use std::path::Path;
use std::process::Command;

use crate::build_logic_support::{Project, fixtures};

fn sh(cmd: &str, cwd: &Path) {
    let st = Command::new("sh")
        .args(["-ec", cmd])
        .current_dir(cwd)
        .status()
        .unwrap();
    assert!(st.success(), "{cmd}");
}

/// `site-pmi-1.0.tar.gz` (lib/libsitepmi.so) and `site-mpi-1.0.tar.gz`
/// (mpich-gcc/ and mpich-nvhpc/, each with lib/libmpi.so linked against
/// libsitepmi.so without an RPATH, include/mpi.h, bin/mpicc and
/// lib/pkgconfig/mpich.pc with placeholders) below `<t>/src/`; their
/// `versions:` entries.
fn archives(p: &Project) -> (String, String) {
    let bin = fixtures().join("binaries");
    let w = p.path().join("archives");
    let b = bin.display();
    fs_err::create_dir_all(&w).unwrap();
    sh(
        &format!(
            "mkdir -p site-pmi-1.0/lib site-pmi-1.0/include\n\
             gcc -shared -fPIC -Wl,-soname,libsitepmi.so -o site-pmi-1.0/lib/libsitepmi.so {b}/sitepmi.c\n\
             for f in gcc nvhpc; do\n\
               d=site-mpi-1.0/mpich-$f; mkdir -p $d/lib/pkgconfig $d/include $d/bin\n\
               gcc -shared -fPIC -DFLAVOUR='\"'$f'\"' -Wl,-soname,libmpi.so -o $d/lib/libmpi.so {b}/sitempi.c \
                 -Lsite-pmi-1.0/lib -lsitepmi\n\
               cp {b}/mpi.h $d/include/; cp {b}/mpicc $d/bin/; cp {b}/mpich.pc $d/lib/pkgconfig/\n\
             done"
        ),
        &w,
    );
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
    p.stack(
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
