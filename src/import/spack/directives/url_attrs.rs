//! Class attributes that base classes derive (`pypi`, `cran`, `bioc`,
//! XorgPackage's mirrors) and the class's URL template, the default
//! substitution's input (`evaluator::url`).

use crate::import::spack::directives::model::SpackPackage;
use crate::import::spack::evaluator::url;
use crate::import::spack::evaluator::value::Value;

/// XorgPackage's `base_mirrors`, in its order.
const XORG_MIRRORS: &[&str] = &[
    "https://www.x.org/archive/individual/",
    "https://mirrors.ircam.fr/pub/x.org/individual/",
    "https://mirror.transip.net/xorg/individual/",
    "ftp://ftp.freedesktop.org/pub/xorg/individual/",
    "http://xorg.mirrors.pair.com/individual/",
];

/// Attributes that base classes derive from a shorter one: `pypi`
/// (PythonPackage), `cran` and `bioc` (RPackage) → `url`, `homepage`,
/// `list_url`, `git`. Only fills attributes the package does not set.
pub fn derive_attributes(pkg: &mut SpackPackage) {
    let get =
        |pkg: &SpackPackage, k: &str| pkg.attribute(k).and_then(Value::as_str).map(str::to_string);
    let first_version = pkg
        .directives("version")
        .find_map(|d| d.arg_str(0).map(str::to_string));
    let mut derived: Vec<(&str, String)> = Vec::new();
    if let Some(pypi) = get(pkg, "pypi") {
        let name = pypi.split('/').next().unwrap_or(&pypi).to_string();
        let initial = pypi.chars().next().unwrap_or('x');
        derived.push((
            "url",
            format!("https://files.pythonhosted.org/packages/source/{initial}/{pypi}"),
        ));
        derived.push(("homepage", format!("https://pypi.org/project/{name}/")));
        derived.push(("list_url", format!("https://pypi.org/simple/{name}/")));
    }
    if let Some(cran) = get(pkg, "cran") {
        if let Some(v) = &first_version {
            derived.push((
                "url",
                format!("https://cran.r-project.org/src/contrib/{cran}_{v}.tar.gz"),
            ));
        }
        derived.push((
            "homepage",
            format!("https://cloud.r-project.org/package={cran}"),
        ));
        derived.push((
            "list_url",
            format!("https://cran.r-project.org/src/contrib/Archive/{cran}/"),
        ));
    }
    if let Some(bioc) = get(pkg, "bioc") {
        derived.push((
            "git",
            format!("https://git.bioconductor.org/packages/{bioc}"),
        ));
        derived.push((
            "homepage",
            format!("https://bioconductor.org/packages/{bioc}"),
        ));
    }
    for (k, v) in derived {
        if pkg.attribute(k).is_none() && !(k == "url" && pkg.attribute("urls").is_some()) {
            pkg.attributes.push((k.to_string(), Value::Str(v), 0));
        }
    }
    // XorgPackage's `urls` property: the path on each of its mirrors
    // (`self.urls[0]` in a `url_for_version`).
    if let (Some(path), None) = (get(pkg, "xorg_mirror_path"), pkg.attribute("urls")) {
        let urls = XORG_MIRRORS
            .iter()
            .map(|m| Value::Str(format!("{m}{}", path.trim_start_matches('/'))))
            .collect();
        pkg.attributes.push(("urls".into(), Value::List(urls), 0));
    }
}

/// The URL template of the class: `url`, the first of `urls`, or a mirror
/// mix-in's path on its first mirror.
pub fn class_url(pkg: &SpackPackage) -> Option<String> {
    url::class_url_with(|k| pkg.attribute(k))
}
