"""Spack's default `url_for_version`: a version's own `url=`; else the
package's `url` (or the first of `urls`, e.g. a mirror mix-in's or
`pypi`/`cran`'s) with the version written in it replaced by the wanted one
as the package writes it (`str(version)`; separators are not rewritten); else the
URL of the nearest version that has one, substituted the same way.  A URL
in which no version is found is used as it is."""

import re

from .errors import SpackError
from .version import Version


class NoURLError(SpackError):
    pass


_ARCHIVE_EXT = re.compile(
    r"(\.tar\.(gz|bz2|xz|zst|Z|lz|lzma)|\.(tgz|tbz2?|txz|tar|zip|gz|bz2|xz|zst|whl|gem|jar|rpm|deb|7z|run|sh|exe|dmg|egg))+$",
    re.IGNORECASE,
)
# A version as a file name writes it: numbers joined by `.`, `_` or `-`, a
# short letter suffix (`1.1.1w`), pre-release words (`1.8.0-rc1`, `2026-rc.1`).
_PRE = r"(?:alpha|beta|rc|pre|dev|post|patch|update|a|b|p|u)"
_PART = r"[0-9]+(?:(?:alpha|beta|rc|pre|dev|post|[a-z]{1,2})[0-9]*)?(?![A-Za-z])"
_VERSION_RUN = re.compile(
    r"(?:(?<=^)|(?<=[._/-])|(?<=[._/-][vV])|(?<=^[vV]))"
    r"(" + _PART + r"(?:[._-](?:" + _PART + r"|" + _PRE + r"[0-9]*(?![A-Za-z])))*)"
)


def _restyle(text, sep):
    return re.sub(r"[._-]", sep, text)


def _bounded(hay, needle):
    """Start offsets of `needle` in `hay` not inside a longer number:
    `1.2` is not found in `11.2`, `1.23` or `1.2.5`."""
    out = []
    start = 0
    while needle:
        i = hay.find(needle, start)
        if i < 0:
            return out
        j = i + len(needle)
        before = hay[i - 1] if i > 0 else ""
        before2 = hay[i - 2] if i > 1 else ""
        after = hay[j] if j < len(hay) else ""
        after2 = hay[j + 1] if j + 1 < len(hay) else ""
        ok = not before.isdigit() and not (before == "." and before2.isdigit())
        ok = ok and not after.isdigit() and not (after in "._" and after != "" and after2.isdigit())
        if ok:
            out.append(i)
        start = i + 1
    return out


def _stem(url):
    path, _, query = url.partition("?")
    # `count.php?url=./cloog-0.18.1.tar.gz`: the file is the query's
    for value in re.findall(r"=([^&#]+)", query):
        if _ARCHIVE_EXT.search(value):
            path = value
    path = path.split("#", 1)[0]
    name = [s for s in path.split("/") if s]
    name = name[-1] if name else path
    return _ARCHIVE_EXT.sub("", name)


def _runs(text):
    return [m.group(1) for m in _VERSION_RUN.finditer(text)]


# Spack's first passes over a file name (its documented `parse_version`):
# the version is what follows a name, the whole rest of the file name.
_PASSES = tuple(re.compile(p) for p in (
    r"^[a-zA-Z+._-]+[._-]v?(\d[\d._-]*)$",   # name-1.2.3, name-518-0.19
    r"^v?(\d[\d._-]*)$",                      # 1.2.3, v2019-08-20
    r"^[a-zA-Z+]*(\d[\da-zA-Z]*)$",           # namever
    r"^[a-zA-Z+-]*(\d[\da-zA-Z-]*)$",         # name-ver-ver
    r"^[a-zA-Z+_]*(\d[\da-zA-Z_]*)$",
    r"^[a-zA-Z+.]*(\d[\da-zA-Z.]*)$",         # squashfs4.3, v3.0.0beta5
    r"^[a-zA-Z\d+-]+-v?(\d[\da-zA-Z.]*)$",    # name2-1.0b1
    r"^[a-zA-Z\d+_]+_v?(\d[\da-zA-Z.]*)$",
))


# Words after a version that are not part of it (Spack strips such
# suffixes before it parses): `-src`, `.orig`, `.Linux`, `.cpp.gpl`, `.rock`.
_NOT_VERSION = re.compile(r"[._-][A-Za-z][A-Za-z0-9]*$")
_PRE_WORD = re.compile(r"^(alpha|beta|rc|pre|dev|post|a|b|p|u)\d*$", re.IGNORECASE)


def _strip_suffixes(text):
    while True:
        m = _NOT_VERSION.search(text)
        if not m or _PRE_WORD.match(m.group(0)[1:]) or len(m.group(0)) < 3:
            return text
        text = text[: m.start()]


def _spack_pass(stem):
    if re.fullmatch(r"[0-9a-f]{7,40}", stem):
        return None  # an archive of a commit: no version in it
    stem = _strip_suffixes(stem)
    for p in _PASSES:
        m = p.match(stem)
        if m:
            return _strip_suffixes(m.group(1)) or None
    return None


def reference_version(url, known=()):
    """The version as the URL writes it (Spack parses it from the file
    name): what follows the name when it is the rest of the file name
    (Spack's first passes); else the longest of the package's versions
    written in the file name,
    with the pre-release words that follow it there (`MUST-v1.8.0-rc1`);
    else the version-like run of the file name; else a known version
    anywhere in the URL; else a run of a directory name."""
    known = sorted((str(k) for k in known if str(k)[:1].isdigit()), key=len, reverse=True)
    stem = _stem(url)
    parsed = _spack_pass(stem)
    if parsed:
        return parsed
    runs = _runs(stem)
    for v in known:
        if _bounded(stem, v):
            longer = [r for r in runs if r != v and r.startswith(v) and r[len(v)] in "._-"]
            return longer[0] if longer else v
    if runs:
        with_sep = [r for r in runs if re.search(r"[._-]", r)]
        return (with_sep or runs)[0]
    for v in known:
        if _bounded(url, v):
            return v
    path = url.split("://", 1)[-1]
    for seg in reversed([s for s in path.split("/")[1:-1] if s]):
        runs = _runs(seg)
        if runs:
            return runs[0]
    return None


def substitute_version(url, new_version, known=()):
    """Spack's default substitution: `str(new_version)`, as written, where
    the URL's own version is written (at each place that text appears);
    separators are not rewritten (`mgcv_1.9-4` gives `mgcv_1.8-42` for
    `1.8-42`). `url` itself when it holds no version."""
    ref = reference_version(url, known)
    if ref is None:
        return url
    new = str(new_version)
    out = url
    for i in reversed(_bounded(url, ref)):
        out = out[:i] + new + out[i + len(ref):]
    return out


def _class_urls(pkg):
    url = getattr(pkg, "url", None)
    if url:
        return [url]
    urls = getattr(pkg, "urls", None)
    if urls:
        return list(urls)
    return []


def nearest_url(cls, version):
    version = Version(version)
    with_url = sorted((v, a["url"]) for v, a in cls.versions.items() if isinstance(a, dict) and a.get("url"))
    if not with_url:
        return None
    lower = [u for v, u in with_url if v <= version]
    if lower:
        return lower[-1]
    return with_url[0][1]


def all_urls_for_version(pkg, version):
    cls = pkg if isinstance(pkg, type) else type(pkg)
    version = Version(version)
    urls = []
    args = cls.versions.get(version)
    if isinstance(args, dict) and args.get("url"):
        urls.append(args["url"])
    known = list(cls.versions)
    url_version = pkg.url_version(version) if not isinstance(pkg, type) else str(version)
    for u in _class_urls(pkg):
        s = substitute_version(u, url_version, known)
        if s not in urls:
            urls.append(s)
    if not urls:
        near = nearest_url(cls, version)
        if near:
            urls.append(substitute_version(near, url_version, known))
    return urls


def default_url_for_version(pkg, version):
    urls = all_urls_for_version(pkg, version)
    if not urls:
        cls = pkg if isinstance(pkg, type) else type(pkg)
        raise NoURLError("Package {} has no version with a URL.".format(cls.__name__))
    return urls[0]


def join_url(base, *components, resolve_href=False, **kwargs):
    """Join URL components; with `resolve_href` a component is resolved
    against the base as a link would be."""
    url = str(base)
    for c in components:
        c = str(c)
        if resolve_href:
            if "://" in c:
                url = c
                continue
            if c.startswith("/"):
                scheme, _, rest = url.partition("://")
                url = "{}://{}{}".format(scheme, rest.split("/", 1)[0], c)
                continue
            if not url.endswith("/"):
                url = url.rsplit("/", 1)[0] + "/"
            url = url + c
        else:
            url = url.rstrip("/") + "/" + c.lstrip("/")
    return url
