//! Where a version's archive comes from: Spack's default substitution of the
//! version into the class's `url`, mirror mix-ins (`gnu_mirror_path`, …). A package's own
//! `url_for_version` is evaluated in `url_method`.

use super::model::SpackPackage;
use super::value::Value;

/// Mirror mix-ins: the attribute naming the path and the first mirror.
const MIRRORS: &[(&str, &str)] = &[
    ("gnu_mirror_path", "https://ftpmirror.gnu.org/"),
    (
        "sourceforge_mirror_path",
        "https://prdownloads.sourceforge.net/",
    ),
    ("sourceware_mirror_path", "https://sourceware.org/pub/"),
    ("xorg_mirror_path", "https://www.x.org/archive/individual/"),
];

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
    class_url_with(|k| pkg.attribute(k))
}

/// [`class_url`] over any attribute lookup (a method's scope, where
/// `self.gnu_mirror_path = …` may have replaced the class's value).
pub fn class_url_with<'v>(get: impl Fn(&str) -> Option<&'v Value>) -> Option<String> {
    if let Some(Value::Str(u)) = get("url") {
        return Some(u.clone());
    }
    if let Some(Value::List(us)) = get("urls") {
        if let Some(Value::Str(u)) = us.first() {
            return Some(u.clone());
        }
    }
    for (attr, mirror) in MIRRORS {
        if let Some(Value::Str(path)) = get(attr) {
            return Some(format!("{mirror}{}", path.trim_start_matches('/')));
        }
    }
    None
}

/// Spack's default: the version written in `url` replaced by `version`, in
/// each separator style it appears in (`1.2.3`, `1_2_3`, `1-2-3`).
/// `known` are the package's versions, used to find the one in the URL.
pub fn substitute(url: &str, version: &str, known: &[&str]) -> Option<String> {
    let reference = reference_version(url, known)?;
    let mut out = url.to_string();
    let mut replaced = false;
    for sep in ['.', '_', '-'] {
        let from = restyle(&reference, sep);
        if from.len() < 2 && !reference.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let to = restyle(version, sep);
        if let Some(new) = replace_bounded(&out, &from, &to) {
            out = new;
            replaced = true;
        }
    }
    replaced.then_some(out)
}

/// The version written in a URL: the longest known version that occurs in it
/// at a number boundary, else the last version-like run of the file name.
fn reference_version(url: &str, known: &[&str]) -> Option<String> {
    let mut sorted: Vec<&str> = known
        .iter()
        .copied()
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    sorted.sort_by_key(|v| std::cmp::Reverse(v.len()));
    for v in sorted {
        for sep in ['.', '_', '-'] {
            if find_bounded(url, &restyle(v, sep)).is_some() {
                return Some(v.to_string());
            }
        }
    }
    let file = url.split_once("://").map_or(url, |(_, rest)| rest);
    let file = file.split_once('/').map_or(file, |(_, path)| path);
    let mut best: Option<&str> = None;
    let bytes = file.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let after_word =
            i > 0 && bytes[i - 1].is_ascii_alphanumeric() && !matches!(bytes[i - 1], b'v' | b'V');
        if bytes[i].is_ascii_digit() && !after_word {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_digit()
                    || (bytes[i] == b'.' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit()))
            {
                i += 1;
            }
            let run = &file[start..i];
            if run.contains('.') {
                best = Some(run);
            }
        }
        i += 1;
    }
    best.map(str::to_string)
}

pub(super) fn restyle(version: &str, sep: char) -> String {
    version
        .chars()
        .map(|c| if matches!(c, '.' | '_' | '-') { sep } else { c })
        .collect()
}

fn is_boundary(b: Option<u8>) -> bool {
    !b.is_some_and(|b| b.is_ascii_digit())
}

fn find_bounded(hay: &str, needle: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let start = from + pos;
        let end = start + needle.len();
        let before = start.checked_sub(1).map(|i| hay.as_bytes()[i]);
        let after = hay.as_bytes().get(end).copied();
        // `1.2` must not match inside `11.2` or `1.23` / `1.2.5`.
        let after_ok = is_boundary(after)
            && !(matches!(after, Some(b'.' | b'_'))
                && hay
                    .as_bytes()
                    .get(end + 1)
                    .is_some_and(|b| b.is_ascii_digit()));
        let before_ok = is_boundary(before)
            && !(matches!(before, Some(b'.'))
                && start >= 2
                && hay.as_bytes()[start - 2].is_ascii_digit());
        if before_ok && after_ok {
            return Some(start);
        }
        from = start + 1;
    }
    None
}

fn replace_bounded(hay: &str, from: &str, to: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = hay;
    let mut any = false;
    while let Some(pos) = find_bounded(rest, from) {
        out.push_str(&rest[..pos]);
        out.push_str(to);
        rest = &rest[pos + from.len()..];
        any = true;
    }
    out.push_str(rest);
    any.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_substitution_replaces_each_separator_style() {
        let url = "https://github.com/zlib-ng/zlib-ng/archive/2.0.0.tar.gz";
        assert_eq!(
            substitute(url, "2.3.3", &["2.3.3", "2.0.0"]).as_deref(),
            Some("https://github.com/zlib-ng/zlib-ng/archive/2.3.3.tar.gz")
        );
        let url = "https://example.org/v1.2.3/foo-1_2_3.tgz";
        assert_eq!(
            substitute(url, "1.4.0", &[]).as_deref(),
            Some("https://example.org/v1.4.0/foo-1_4_0.tgz")
        );
        assert_eq!(substitute("https://example.org/foo.tgz", "1.0", &[]), None);
    }
}
