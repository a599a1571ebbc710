//! Tests of the spec syntax: every form of docs/spec-syntax.md, canonical
//! printing, and the error messages (positions, wording, rendered reports).

use super::*;

fn s(text: &str) -> Spec {
    Spec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn err(text: &str) -> SpecParseError {
    match Spec::parse(text) {
        Ok(spec) => panic!("{text} parsed as {spec:?}"),
        Err(e) => e,
    }
}

#[test]
fn full_syntax() {
    let x = s(
        "libfabric@2.2:2.5 +cuda ~debug -xpmem fabrics=cxi,shm,lnx %gcc@12: target=neoverse_v2 platform=linux os=sles15 ^libcxi@main ^json-c@0.17",
    );
    assert_eq!(x.name.as_deref(), Some("libfabric"));
    assert_eq!(x.versions, VersionConstraint::parse("2.2:2.5").unwrap());
    assert_eq!(x.variants["cuda"], VariantValue::Bool(true));
    assert_eq!(x.variants["debug"], VariantValue::Bool(false));
    assert_eq!(x.variants["xpmem"], VariantValue::Bool(false));
    assert_eq!(
        x.variants["fabrics"],
        VariantValue::values(["cxi", "shm", "lnx"])
    );
    let c = x.compiler.as_ref().unwrap();
    assert_eq!(c.name, "gcc");
    assert!(c.versions.contains(&Version::parse("13.2").unwrap()));
    assert_eq!(x.target.as_ref().unwrap().is_exact(), Some("neoverse_v2"));
    assert_eq!(x.platform.as_deref(), Some("linux"));
    assert_eq!(x.os.as_deref(), Some("sles15"));
    assert_eq!(x.deps.len(), 2);
    assert_eq!(x.deps[0].name.as_deref(), Some("json-c"));
    assert_eq!(x.deps[1].name.as_deref(), Some("libcxi"));
    assert_eq!(
        x.to_string(),
        "libfabric@2.2:2.5 +cuda ~debug fabrics=cxi,lnx,shm ~xpmem %gcc@12: platform=linux os=sles15 target=neoverse_v2 ^json-c@0.17 ^libcxi@main"
    );
}

#[test]
fn compact_spack_forms() {
    let x = s("foo@1.2+cuda~mpi%gcc@12^bar+x");
    assert_eq!(x.to_string(), "foo@1.2 +cuda ~mpi %gcc@12 ^bar +x");
    assert_eq!(s("foo ++cuda ~~mpi --x").to_string(), "foo +cuda ~mpi ~x");
    assert_eq!(s("foo key==value").to_string(), "foo key=value");
    // Spack's exact multi-valued form (paraview's packages.yaml: `llvm targets:=x86`),
    // also as a whole requirement without a name
    assert_eq!(
        s("foo targets:=x86,nvptx").to_string(),
        "foo targets=nvptx,x86"
    );
    assert_eq!(s("targets:=x86").to_string(), "targets=x86");
    assert_eq!(
        s("foo cuda=true debug=False").to_string(),
        "foo +cuda ~debug"
    );
    assert_eq!(s("foo-bar@1.0-dev").to_string(), "foo-bar@1.0-dev");
    assert_eq!(s("  foo   @1.2  ").to_string(), "foo@1.2");
    assert_eq!(s("foo % gcc").to_string(), "foo %gcc");
    assert_eq!(s("foo ^ bar").to_string(), "foo ^bar");
}

/// Spack's per-language compiler form, as alps-uenv's recipes write it:
/// every language with one compiler is that compiler, otherwise each
/// language keeps its own (grouped by compiler in the canonical form).
#[test]
fn language_compiler_assignments() {
    assert_eq!(
        s("vasp@6.6.1 +cuda %c,cxx,fortran=nvhpc").to_string(),
        "vasp@6.6.1 +cuda %nvhpc"
    );
    assert_eq!(
        s("cuda ^libxml2 %c=gcc").to_string(),
        "cuda ^libxml2 %c=gcc"
    );
    assert_eq!(s("foo %c=gcc@13 %c=gcc").to_string(), "foo %c=gcc@13");
    assert_eq!(
        s("foo %fortran=nvhpc %c,cxx=gcc").to_string(),
        "foo %c,cxx=gcc %fortran=nvhpc"
    );
    assert_eq!(
        s("foo %gcc %fortran=nvhpc").to_string(),
        "foo %gcc %fortran=nvhpc"
    );
    assert_eq!(s("foo %c=gcc %gcc").to_string(), "foo %gcc");
    let x = s("hdf5 +fortran %fortran=nvhpc@25.1");
    assert_eq!(x.compiler, None);
    assert_eq!(x.compiler_for("fortran").unwrap().to_string(), "nvhpc@25.1");
    assert_eq!(x.compiler_for("c"), None);
    for text in ["foo %c,cxx=gcc %fortran=nvhpc", "foo %gcc %fortran=llvm@18"] {
        assert_eq!(s(text).to_string(), text);
    }
    let e = err("foo %c=gcc %c=nvhpc");
    assert!(e.to_string().contains("a second compiler for `c`"), "{e}");
    let e = err("foo %gcc %nvhpc");
    assert!(e.to_string().contains("a second compiler"), "{e}");
    // A key that is not a language names a virtual: `gcc` as the provider
    // of `rust` (the resolver checks that it provides it).
    assert!(s("foo %rust=gcc").deps[0].virtuals.contains("rust"));
    let e = err("foo %c,rust=gcc");
    assert!(e.to_string().contains("`rust` is not a language"), "{e}");
    let e = err("foo %c,=gcc");
    assert!(e.to_string().contains("a language after `,`"), "{e}");
}

/// A node with per-language compilers meets `%c=…` by its language and
/// `%name` by any of its compilers; requirements per language merge.
#[test]
fn language_compilers_satisfy_and_merge() {
    let node = s("foo %gcc@14 %fortran=nvhpc@25.1");
    assert!(node.satisfies(&s("%c=gcc")));
    assert!(node.satisfies(&s("%fortran=nvhpc")));
    assert!(!node.satisfies(&s("%fortran=gcc")));
    assert!(node.satisfies(&s("%nvhpc")));
    assert!(!node.satisfies(&s("%llvm")));
    let mut a = s("foo %fortran=nvhpc");
    assert!(a.intersects(&s("foo %gcc")));
    assert!(!a.intersects(&s("foo %fortran=gcc")));
    a.constrain(&s("foo %c,cxx=nvhpc")).unwrap();
    assert_eq!(a.to_string(), "foo %nvhpc");
    assert!(s("foo %c=gcc").constrain(&s("%c=llvm")).is_err());
}

#[test]
fn anonymous_conditions() {
    for (text, canon) in [
        ("+cuda", "+cuda"),
        ("@:2 target=aarch64:", "@:2 target=aarch64:"),
        ("fabrics=cxi", "fabrics=cxi"),
        ("^libcxi@main", "^libcxi@main"),
        ("@main", "@main"),
        ("@2.3 fabrics=cxi", "@2.3 fabrics=cxi"),
        ("", ""),
        ("   ", ""),
        ("-cuda", "~cuda"),
    ] {
        let x = s(text);
        assert!(x.is_anonymous(), "{text}");
        assert_eq!(x.to_string(), canon, "{text}");
    }
    assert!(s("").is_empty());
}

#[test]
fn versions_in_specs() {
    let v = |t: &str| s(t).versions.to_string();
    assert_eq!(v("nccl@2.29.7-1"), "2.29.7-1");
    assert_eq!(v("foo@1.18.0-dev"), "1.18.0-dev");
    assert_eq!(v("foo@=1.2"), "=1.2");
    assert_eq!(v("foo@1.2,1.4:"), "1.2,1.4:");
    assert_eq!(v("foo@git.v2.3.0rc1=2.3.0"), "git.v2.3.0rc1=2.3.0");
    assert_eq!(v("foo@=git.feature/cxi=main"), "=git.feature/cxi=main");
    assert_eq!(v("foo@:"), ":");
    assert!(s("foo@:").versions.is_any());
}

#[test]
fn values_and_quotes() {
    let x = s(r#"foo opts="-O3 -g" cuda_arch=80,90 label="a,b",c"#);
    assert_eq!(x.variants["opts"], VariantValue::single("-O3 -g"));
    assert_eq!(x.variants["cuda_arch"], VariantValue::values(["80", "90"]));
    assert_eq!(x.variants["label"], VariantValue::values(["a,b", "c"]));
    assert_eq!(s(&x.to_string()), x);
}

fn flags<'a>(spec: &'a Spec, name: &str) -> (Vec<&'a str>, bool) {
    let f = &spec.flags[name];
    (f.flags.iter().map(String::as_str).collect(), f.propagate)
}

/// Spack's compiler flags: `cflags=-fPIC` (alps-uenv's lammps), quoted
/// lists split on whitespace, commas kept (`-Wl,-z,now`), `==` propagates.
#[test]
fn compiler_flags() {
    let x = s(
        r#"scafacos cflags=-fPIC cxxflags="-O3 -g" fflags==-fPIC ldflags=-Wl,-z,now ldlibs='-lm'"#,
    );
    assert!(x.variants.is_empty());
    assert_eq!(flags(&x, "cflags"), (vec!["-fPIC"], false));
    assert_eq!(flags(&x, "cxxflags"), (vec!["-O3", "-g"], false));
    assert_eq!(flags(&x, "fflags"), (vec!["-fPIC"], true));
    assert_eq!(flags(&x, "ldflags"), (vec!["-Wl,-z,now"], false));
    assert_eq!(flags(&x, "ldlibs"), (vec!["-lm"], false));
    assert_eq!(
        x.to_string(),
        r#"scafacos cflags=-fPIC cxxflags="-O3 -g" fflags==-fPIC ldflags=-Wl,-z,now ldlibs=-lm"#
    );
    assert_eq!(s(&x.to_string()), x);
    // after variants, before the compiler; on dependencies and conditions
    let y = s("hypre+mpi cppflags=-DX=1 %gcc ^fftw cflags=-O2");
    assert_eq!(flags(&y, "cppflags"), (vec!["-DX=1"], false));
    assert_eq!(flags(&y.deps[0], "cflags"), (vec!["-O2"], false));
    assert_eq!(
        y.to_string(),
        "hypre +mpi cppflags=-DX=1 %gcc ^fftw cflags=-O2"
    );
    assert_eq!(s("cflags=-fPIC").to_string(), "cflags=-fPIC");
    // an empty list constrains nothing
    assert!(s(r#"foo cflags="""#).flags.is_empty());
}

/// Spack's rules (spack #41049): a spec satisfies a flag condition when it
/// has at least all of its flags, in any order; flags never conflict, and
/// merging appends the missing ones.
#[test]
fn compiler_flags_satisfy_and_merge() {
    let have = s(r#"foo cflags="-O2 -g -fPIC" fflags==-fPIC"#);
    for yes in [
        "cflags=-fPIC",
        r#"cflags="-fPIC -O2""#,
        "fflags=-fPIC",
        "fflags==-fPIC",
        "",
    ] {
        assert!(have.satisfies(&s(yes)), "{yes}");
    }
    for no in ["cflags=-O3", "cxxflags=-fPIC", "cflags==-g", "ldflags=-g"] {
        assert!(!have.satisfies(&s(no)), "{no}");
    }
    assert!(s("cflags=-O2").intersects(&s("cflags=-O3")));
    let mut a = s("foo cflags=-O2");
    assert_eq!(a.constrain(&s(r#"cflags="-g -O2" cxxflags==-g"#)), Ok(true));
    assert_eq!(a.to_string(), r#"foo cflags="-O2 -g" cxxflags==-g"#);
    assert_eq!(a.constrain(&s("cflags=-g")), Ok(false));
    assert!(a.satisfies(&s("cflags=-g cxxflags=-g")));
}

#[test]
fn arch_triple() {
    let x = s("foo arch=linux-sles15-neoverse_v2");
    assert_eq!(
        x.to_string(),
        "foo platform=linux os=sles15 target=neoverse_v2"
    );
}

#[test]
fn duplicate_deps_merge() {
    let x = s("foo ^bar@1: ^bar+x ^baz");
    assert_eq!(x.to_string(), "foo ^bar@1: +x ^baz");
    let e = err("foo ^bar+x ^bar~x");
    assert!(
        e.message.contains("bar: variant `+x` conflicts with `~x`"),
        "{}",
        e.message
    );
}

/// Spec texts with the error message each must start with, its offset and
/// length (an empty message: the text parses).
const ERROR_CASES: &[(&str, &str, usize, usize)] = &[
    (
        "foo@",
        "expected a version after `@`, found end of input",
        3,
        1,
    ),
    (
        "foo@ 1.2",
        "expected a version after `@`, found a space",
        4,
        1,
    ),
    ("foo@+cuda", "expected a version after `@`, found `+`", 4, 1),
    (
        "foo@1..2",
        "invalid version `1..2`: two separators in a row",
        6,
        1,
    ),
    (
        "foo@1.5:1.4",
        "invalid version `1.5:1.4`: `1.5:1.4` is empty: `1.5` is above `1.4`",
        4,
        7,
    ),
    (
        "foo@1.2@1.3",
        "a second version constraint for the same package",
        7,
        4,
    ),
    (
        "foo target=neoverse_v9",
        "unknown target `neoverse_v9`; did you mean `neoverse_v2`?",
        11,
        11,
    ),
    (
        "foo target=zen2:zen9",
        "unknown target `zen9`; did you mean `zen5`?",
        16,
        4,
    ),
    (
        "foo +",
        "expected a variant name after `+`, found end of input",
        4,
        1,
    ),
    (
        "foo ~ x",
        "expected a variant name after `~`, found a space",
        5,
        1,
    ),
    (
        "foo %",
        "expected a compiler name after `%`, found end of input",
        4,
        1,
    ),
    (
        "foo ^",
        "expected a package name after `^`, found end of input",
        4,
        1,
    ),
    (
        "foo ^+x",
        "expected a package name after `^`, found `+`",
        5,
        1,
    ),
    (
        "foo bar",
        "unexpected `bar`: a spec names one package",
        4,
        3,
    ),
    (
        "+cuda foo",
        "unexpected `foo`: the package name comes first",
        6,
        3,
    ),
    ("foo+cuda~cuda", "variant `cuda` is given twice", 8, 5),
    (
        "foo fabrics=cxi fabrics=shm",
        "variant `fabrics` is given twice",
        16,
        11,
    ),
    (
        "foo fabrics=",
        "expected a value after `fabrics=`, found end of input",
        11,
        1,
    ),
    (
        "foo fabrics=a,",
        "expected a value after `,`, found end of input",
        13,
        1,
    ),
    ("foo-bar-baz@1.2-rc", "", 0, 0),
    ("foo@1.2-x !", "expected a package name, `@version`", 10, 1),
    ("foo x=\"abc", "unterminated quoted value", 6, 4),
    ("foo %gcc %clang", "a second compiler", 9, 6),
    (
        "foo target=zen2 target=zen3",
        "`target=` is given twice",
        16,
        11,
    ),
    (
        "foo platform=a,b",
        "`platform=` takes one platform name",
        13,
        3,
    ),
    (
        "foo arch=linux-sles15",
        "expected `arch=platform-os-target`",
        9,
        12,
    ),
    ("foo\u{e9}", "expected a package name, `@version`", 3, 2),
    (
        "foo@git.abc",
        "invalid version `git.abc`: a git version needs the version it stands for",
        4,
        7,
    ),
];

#[test]
fn error_positions_and_messages() {
    for &(text, msg, offset, len) in ERROR_CASES {
        if msg.is_empty() {
            assert!(Spec::parse(text).is_ok(), "{text}");
            continue;
        }
        let e = err(text);
        assert!(e.message.starts_with(msg), "{text}: got {:?}", e.message);
        assert_eq!((e.offset, e.len), (offset, len), "{text}: {}", e.message);
    }
}

#[test]
fn minus_needs_a_space() {
    // names may contain `-`, so `foo-bar` is a name, and `foo@1.2-x` a version
    assert_eq!(s("foo-bar").name.as_deref(), Some("foo-bar"));
    assert_eq!(s("foo@1.2-x").versions.to_string(), "1.2-x");
    assert_eq!(s("foo@1.2 -x").variants["x"], VariantValue::Bool(false));
    assert_eq!(s("foo+a-b").variants["a-b"], VariantValue::Bool(true));
    let e = err("foo x=\"a\"-b");
    assert_eq!(e.message, "`-` disables a variant only after a space");
    assert_eq!(e.offset, 9);
}

fn render(text: &str) -> String {
    let e = err(text);
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(80)
        .render_report(&mut out, &e)
        .unwrap();
    out
}

#[test]
fn rendered_errors() {
    for (name, text) in [
        ("unknown_target", "libfabric@2.2 target=neoverse_v9"),
        ("missing_version", "libfabric@ +cuda"),
        ("empty_range", "nccl@2.29:2.18"),
        ("second_name", "libfabric cuda"),
        ("minus_without_space", "foo cflags=\"-O2\"-debug"),
        (
            "duplicate_variant",
            "libfabric fabrics=cxi +cuda fabrics=shm",
        ),
        ("dep_without_name", "aws-ofi-nccl ^@1.2"),
        ("unexpected_character", "libfabric@2.2 !cuda"),
        ("version_at_end", "libfabric@"),
        ("bad_version_character", "nccl@2.29.7-1!"),
        ("flags_without_value", "scafacos cflags= +x"),
        ("flags_twice", "scafacos cflags=-fPIC cflags=-O2"),
        ("flags_two_values", r#"scafacos cflags="-O2",-g"#),
    ] {
        insta::assert_snapshot!(name, render(text), text);
    }
}

#[test]
fn documented_examples_parse_and_round_trip() {
    for text in [
        "libfabric@2.2.0 fabrics=cxi,shm,tcp,rxm +cuda",
        "libfabric@main fabrics=cxi,shm,lnx +cuda ^libcxi@main",
        "nccl@2.29.7-1 cuda_arch=90",
        "cray-mpich@8.1.30 +cuda %gcc@12: target=neoverse_v2",
        "aws-ofi-nccl@master ^nccl fabrics=auto",
        "libfuse@2.9.9 target=aarch64:",
        "mukautuva ^mpich@4:",
        "+cuda",
        "@:2 target=aarch64:",
        "fabrics=cxi",
        "^libcxi@main",
        "",
        "libfabric@git.v2.3.0rc1=2.3.0",
        "foo@1.2+cuda~mpi%gcc@12^bar",
    ] {
        let spec = s(text);
        assert_eq!(s(&spec.to_string()), spec, "{text}");
    }
    let gitv = s("libfabric@git.v2.3.0rc1=2.3.0");
    assert!(gitv.satisfies(&s("@2.3:")));
    assert!(gitv.satisfies(&s("@2.3")));
    let concrete = s("libfabric@=2.2.0 +cuda fabrics=cxi,shm target=neoverse_v2");
    assert!(concrete.satisfies(&s("@2: fabrics=cxi target=aarch64:")));
}

#[test]
fn dependencies_are_found_and_serialised() {
    let x = s("aws-ofi-nccl@master ^nccl fabrics=auto ^libfabric@main");
    assert_eq!(
        x.dep("nccl").map(|d| d.to_string()),
        Some("nccl fabrics=auto".into())
    );
    assert!(x.dep("mpi").is_none());
    let json = serde_json::to_string(&x).unwrap();
    assert_eq!(
        json,
        "\"aws-ofi-nccl@master ^libfabric@main ^nccl fabrics=auto\""
    );
    let back: Spec = serde_json::from_str(&json).unwrap();
    assert_eq!(back, x);
    assert!(serde_json::from_str::<Spec>("\"foo@\"").is_err());
}

#[test]
fn nested_dependencies_print_flat() {
    let mut root = Spec::named("a");
    let mut b = Spec::named("b");
    b.deps.push(s("c@1"));
    root.deps.push(b);
    assert_eq!(root.to_string(), "a ^b ^c@1");
    assert!(root.satisfies(&s("a ^c@1")));
    assert_eq!(s(&root.to_string()).deps.len(), 2);
}

#[test]
fn a_virtual_assignment_is_a_dependency_providing_it() {
    // paraview's `mesa +osmesa ~glx +llvm %libllvm=llvm ~clang~flang`: the
    // clauses after `%libllvm=llvm` are llvm's (Spack 1.x), up to a `%`.
    let x = s("mesa +osmesa ~glx +llvm %libllvm=llvm@17: ~clang~flang %c=gcc");
    assert_eq!(x.variants.len(), 3);
    assert_eq!(x.deps[0].variants.len(), 2);
    assert_eq!(x.compiler_for("c").unwrap().name, "gcc");
    assert_eq!(x.deps.len(), 1);
    let llvm = &x.deps[0];
    assert_eq!(llvm.name.as_deref(), Some("llvm"));
    assert!(llvm.versions.contains(&Version::parse("18").unwrap()));
    assert_eq!(llvm.virtuals.iter().collect::<Vec<_>>(), ["libllvm"]);
    // The same in Spack's edge-attribute spelling, which is how it prints.
    let y = s("mesa +osmesa ~glx +llvm %c=gcc ^[virtuals=libllvm] llvm@17: ~clang~flang");
    assert_eq!(x, y);
    assert_eq!(s(&x.to_string()), x);
    assert!(
        x.to_string()
            .contains("^[virtuals=libllvm] llvm@17: ~clang ~flang")
    );
    // With a `^` of the same package: one dependency, both constraints.
    let z = s("mesa %libllvm=llvm ^llvm@17: +clang");
    assert_eq!(z.deps.len(), 1);
    assert_eq!(z.deps[0].variants["clang"], VariantValue::Bool(true));
    assert!(z.deps[0].virtuals.contains("libllvm"));
    // Several virtuals of one provider.
    let g = s("x ^[virtuals=gl,glu] osmesa");
    assert_eq!(g.deps[0].virtuals.len(), 2);
    assert!(
        err("x ^[deptypes=build] cmake")
            .to_string()
            .contains("edge attribute")
    );
    assert!(
        err("x %mpi=")
            .to_string()
            .contains("package name after `=`")
    );
}

/// Spack's older compiler names are their packages': `%oneapi` is
/// `intel-oneapi-compilers` (a stackinator `compilers.yaml` entry), also per
/// language; `%clang` stays, as clusters name their clang so.
#[test]
fn older_compiler_names_are_their_packages() {
    assert_eq!(
        s("cray-mpich@8.1.32 %oneapi").to_string(),
        "cray-mpich@8.1.32 %intel-oneapi-compilers"
    );
    assert_eq!(
        s("foo %fortran=oneapi@2025").to_string(),
        "foo %fortran=intel-oneapi-compilers@2025"
    );
    assert_eq!(s("foo %rocmcc").to_string(), "foo %llvm-amdgpu");
    assert_eq!(s("foo %clang@17").to_string(), "foo %clang@17");
}
