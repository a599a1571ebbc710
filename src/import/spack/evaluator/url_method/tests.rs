//! Tests of `url_method`.

use super::*;

fn url_for_version(src: &str, v: &str, scope: &Scope, known: &[&str]) -> Eval<String> {
    let tree = crate::import::spack::reader::parsed::parse(src).unwrap();
    let def = find_def(tree.root_node()).unwrap();
    super::url_for_version(def, src, v, scope, known)
}

#[test]
fn url_for_version_bodies_are_evaluated_per_version() {
    let src = r#"
def url_for_version(self, version):
    if version < Version("2.0"):
        return f"https://e.org/old/foo-{version.underscored}.tgz"
    elif self.spec.satisfies("@3:"):
        return "https://e.org/{0}/foo-{1}.tgz".format(version.up_to(1), version)
    return "https://e.org/v%s/foo.tgz" % version.up_to(2)
"#;
    let scope = Scope::new();
    assert_eq!(
        url_for_version(src, "1.5.2", &scope, &[]).unwrap(),
        "https://e.org/old/foo-1_5_2.tgz"
    );
    assert_eq!(
        url_for_version(src, "3.1.0", &scope, &[]).unwrap(),
        "https://e.org/3/foo-3.1.0.tgz"
    );
    assert_eq!(
        url_for_version(src, "2.7.1", &scope, &[]).unwrap(),
        "https://e.org/v2.7/foo.tgz"
    );
    assert_eq!(up_to("1.2.3", 2), "1.2");
    assert_eq!(up_to("1.2", 5), "1.2");
}

#[test]
fn assignments_chained_comparisons_and_components_evaluate() {
    let src = r#"
def url_for_version(self, version):
    url = "https://e.org/"
    if Version("1.0") <= version < Version("2.0"):
        url += "one/{0}-{1}.tgz"
    elif version[0] == 3 and version[-1] != 0:
        url += "three/{0}-{1}.tgz"
    else:
        return super().url_for_version(version)
    return url.format(version.up_to(-1), version[-1])
"#;
    let mut scope = Scope::new();
    scope.set("self.url", Value::Str("https://e.org/x-2.0.tar.gz".into()));
    let known = ["2.0"];
    let run = |v: &str| url_for_version(src, v, &scope, &known);
    assert_eq!(run("1.4.2").unwrap(), "https://e.org/one/1.4-2.tgz");
    assert_eq!(run("3.1.5").unwrap(), "https://e.org/three/3.1-5.tgz");
    assert_eq!(run("3.1.0").unwrap(), "https://e.org/x-3.1.0.tar.gz");
    assert_eq!(run("2.2").unwrap(), "https://e.org/x-2.2.tar.gz");
    // mesa's Python 2 spelling
    let src = src.replace("super()", "super(Mesa, self)");
    let run = |v: &str| url_for_version(&src, v, &scope, &known);
    assert_eq!(run("3.1.0").unwrap(), "https://e.org/x-3.1.0.tar.gz");
}

#[test]
fn dates_keywords_spec_membership_and_raise_evaluate() {
    let src = r#"
def url_for_version(self, version):
    if len(version) == 3 and version[0] >= 2000:
        d = datetime.datetime.strptime(str(version), "%Y-%m-%d").date()
        return "https://e.org/d_{0}.tgz".format(datetime.datetime.strftime(d, "%d%b%Y"))
    if "@:1.9" in self.spec:
        prefix = self.url.rsplit("/", maxsplit=1)[0]
        return "{p}/old-{v}.tgz".format(p=prefix, v=version)
    if version[0] > 5:
        raise ValueError("no such version")
    return f"https://e.org/v{version[0]:02}-{version[1]:02}.tgz"
"#;
    let mut scope = Scope::new();
    scope.set("self.url", Value::Str("https://e.org/pub/x.tgz".into()));
    let run = |v: &str| url_for_version(src, v, &scope, &[]);
    assert_eq!(run("2018-01-12").unwrap(), "https://e.org/d_12Jan2018.tgz");
    assert_eq!(run("1.4.2").unwrap(), "https://e.org/pub/old-1.4.2.tgz");
    assert_eq!(run("3.1.0").unwrap(), "https://e.org/v03-01.tgz");
    assert!(run("6.0.0").is_err());
}
