//! The R and Perl build systems of the package API, for real: `R CMD
//! INSTALL` and `perl Makefile.PL` + make, with the base classes'
//! dependencies (`r`, `perl`) as cluster externals. Fixtures:
//! tests/fixtures/spack-py.

use std::process::Command;

use crate::harness::spack_project::Project;

#[test]
fn an_r_package_installs_with_r_cmd_install() {
    let p = Project::new();
    p.spack_recipe(
        "r-greet",
        "r_greet",
        &format!(
            "versions:\n{}dependencies:\n  - {{spec: r, type: [build, run]}}\n",
            p.version("greet", "1.0")
        ),
        &[],
    );
    p.write_stack(&[("e", &["r-greet"])], "");
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    let lib = p.prefix("r-greet").join("rlib/R/library");
    assert!(lib.join("greet/DESCRIPTION").is_file(), "{}", lib.display());
    let out = Command::new("Rscript")
        .args(["--vanilla", "-e"])
        .arg(format!(
            "library(greet, lib.loc = \"{}\"); cat(greet(\"stack\"))",
            lib.display()
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello stack from R");
}

#[test]
fn a_perl_module_installs_with_makefile_pl() {
    let p = Project::new();
    p.spack_recipe(
        "perl-greet",
        "perl_greet",
        &format!(
            "versions:\n{}dependencies:\n  - {{spec: perl, type: [build, link, run]}}\n",
            p.version("Greet-1.0", "1.0")
        ),
        &[],
    );
    p.write_stack(&[("e", &["perl-greet"])], "");
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    let pre = p.prefix("perl-greet");
    let module = walkdir::WalkDir::new(&pre)
        .into_iter()
        .flatten()
        .find(|e| e.file_name() == "Greet.pm")
        .map(|e| e.into_path())
        .unwrap_or_else(|| panic!("no Greet.pm below {}", pre.display()));
    let out = Command::new("perl")
        .arg(format!("-I{}", module.parent().unwrap().display()))
        .args(["-MGreet", "-e", "print Greet::hello()"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello from perl");
    assert!(
        p.log("perl-greet").contains("Makefile.PL"),
        "{}",
        p.log("perl-greet")
    );
}
