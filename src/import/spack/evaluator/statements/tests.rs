//! Tests of `statements`.

use super::*;

fn variants() -> Vec<VariantInfo> {
    let v = |name: &str, is_bool, values: Option<Vec<&str>>, multi| VariantInfo {
        name: name.into(),
        is_bool,
        values: values.map(|v| v.into_iter().map(String::from).collect()),
        multi,
        when: None,
        line: 1,
    };
    vec![
        v("shared", true, None, false),
        v("fabrics", false, Some(vec!["tcp", "cxi"]), true),
    ]
}

fn templates(items: &[ArgItem]) -> Vec<(Option<String>, String)> {
    items
        .iter()
        .map(|i| {
            (
                i.cond
                    .as_when()
                    .flatten()
                    .or_else(|| Some(i.cond.as_tera()))
                    .filter(|s| s != "true"),
                i.template.clone(),
            )
        })
        .collect()
}

#[test]
fn configure_args_bodies_become_conditional_templates() {
    let src = r#"
def configure_args(self):
    spec = self.spec
    args = ["--disable-static", f"--with-zlib={spec['zlib'].prefix}"]
    if spec.satisfies("+shared"):
        args.append("--enable-shared")
    else:
        args.append("--disable-shared")
    if self.spec.satisfies("@2:"):
        args.extend(["--a", "--b"])
    elif "^mpi" in spec:
        args.append("--mpi")
    args += self.enable_or_disable("fabrics")
    return args
"#;
    let out = run_method(src, &variants()).unwrap();
    let t = templates(&out.args.unwrap());
    assert_eq!(t[0], (None, "--disable-static".into()));
    assert_eq!(
        t[1],
        (None, "--with-zlib={{ deps[\"zlib\"].prefix }}".into())
    );
    assert_eq!(t[2], (Some("+shared".into()), "--enable-shared".into()));
    assert_eq!(t[3], (Some("~shared".into()), "--disable-shared".into()));
    assert_eq!(t[4], (Some("@2:".into()), "--a".into()));
    assert_eq!(
        t[6],
        (
            Some("spec is not satisfies(\"@2:\") and spec is satisfies(\"^mpi\")".into()),
            "--mpi".into()
        )
    );
    assert_eq!(
        t[7].1,
        "{% if \"tcp\" in variants.fabrics %}--enable-tcp{% else %}--disable-tcp{% endif %}"
    );
}

#[test]
fn a_key_value_in_spec_tests_the_package_and_a_name_a_dependency() {
    // Spack's `Spec.__contains__`: an anonymous spec is tested on the
    // root only (mpfr's `"libs=static" in self.spec`).
    let src = r#"
def configure_args(self):
    args = []
    if "libs=static" in self.spec:
        args.append("--static")
    if "zlib+pic" in self.spec:
        args.append("--pic")
    if self.spec.satisfies("^[virtuals=qmake] qt-base"):
        args.append("--qt5")
    return args
"#;
    let out = run_method(src, &variants()).unwrap();
    let t = templates(&out.args.unwrap());
    assert_eq!(t[0], (Some("libs=static".into()), "--static".into()));
    assert_eq!(t[1], (Some("^zlib+pic".into()), "--pic".into()));
    // Edge attributes in Spack's spelling become the stack's.
    assert_eq!(t[2], (Some("^qt-base".into()), "--qt5".into()));
}

#[test]
fn unknown_calls_are_reported_with_their_line() {
    let src = "def cmake_args(self):\n    args = []\n    tty.warn('a')\n    return args\n";
    let e = run_method(src, &variants()).unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.what.contains("tty.warn"), "{}", e.what);
}

#[test]
fn a_conditional_return_leaves_the_rest_under_the_negated_condition() {
    let src = r#"
def cmake_args(self):
    if self.spec.satisfies("+shared"):
        return ["-DSHARED=ON"]
    args = ["-DSTATIC=ON"]
    return args
"#;
    let out = run_method(src, &variants()).unwrap();
    let t = templates(&out.args.unwrap());
    assert_eq!(
        t,
        vec![
            (Some("+shared".into()), "-DSHARED=ON".into()),
            (Some("~shared".into()), "-DSTATIC=ON".into()),
        ]
    );
}

#[test]
fn multi_valued_variant_values_bound_to_names_become_list_templates() {
    let src = r#"
def cmake_args(self):
    fabrics = self.spec.variants["fabrics"].value
    args = [self.define("FABRICS", fabrics), "-DFIRST={0}".format(fabrics[0])]
    if fabrics != "tcp":
        args.append(";".join(fabrics))
    return args
"#;
    let out = run_method(src, &variants()).unwrap();
    let t = templates(&out.args.unwrap());
    assert_eq!(
        t,
        vec![
            (
                None,
                "-DFABRICS:STRING={{ variants.fabrics | join(sep=\";\") }}".into()
            ),
            (None, "-DFIRST={{ variants.fabrics | first }}".into()),
            // A tuple is never equal to a string (Python).
            (None, "{{ variants.fabrics | join(sep=\";\") }}".into()),
        ]
    );
}

#[test]
fn class_attributes_are_read_as_self_attributes() {
    let src = r#"
def edit(self, spec, prefix):
    with working_dir(self.build_directory):
        filter_file("-O3", "-O2", "config.mk", string=True)
"#;
    let attrs = [("build_directory".to_string(), "src".to_string())];
    let out = run_snippet_in(src, &variants(), &attrs).unwrap();
    assert_eq!(out.filters[0].filter.file, "src/config.mk");
}

#[test]
fn a_name_bound_to_the_spec_is_the_spec_when_bound_again() {
    let src = r#"
def configure_args(self):
    spec = self.spec
    s = spec
    return [f"--with-zlib={s['zlib'].prefix}", f"--v={s.version}"]
"#;
    let out = run_method(src, &variants()).unwrap();
    assert_eq!(
        templates(&out.args.unwrap()),
        vec![
            (None, "--with-zlib={{ deps[\"zlib\"].prefix }}".into()),
            (None, "--v={{ version }}".into()),
        ]
    );
}

#[test]
fn the_prefix_is_known_through_the_spec_bound_to_a_name() {
    let src = r#"
def configure_args(self):
    s = self.spec
    p = s.prefix
    q = self.prefix
    d = s["zlib"].prefix
    return [f"--libdir={p.lib}", f"--datadir={q.share}", f"--z={d}"]
"#;
    let out = run_method(src, &variants()).unwrap();
    assert_eq!(
        templates(&out.args.unwrap()),
        vec![
            (None, "--libdir={{ prefix }}/lib".into()),
            (None, "--datadir={{ prefix }}/share".into()),
            (None, "--z={{ deps[\"zlib\"].prefix }}".into()),
        ]
    );
}
