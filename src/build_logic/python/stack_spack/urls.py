"""Spack's default `url_for_version`: a version's own `url=`; else the
package's `url` (or the first of `urls`, e.g. a mirror mix-in's or
`pypi`/`cran`'s) with the version written in it replaced by the wanted one,
in each separator style it appears in (`1.2.3`, `1_2_3`, `1-2-3`); else the
URL of the nearest version that has one, substituted the same way.  A URL
in which no version is found is used as it is."""

import re

from .errors import SpackError
from .version import Version


class NoURLError(SpackError):
    pass


_ARCHIVE_EXT = re.compile(
    r"(\.tar\.(gz|bz2|xz|zst|Z|lz|lzma)|\.(tgz|tbz2?|txz|tar|zip|gz|bz2|xz|whl|gem|jar|rpm|deb|7z|run|sh|exe|dmg|egg))+$"
)
_VERSION_RUN = re.compile(r"(?<![0-9A-Za-z])v?([0-9]+(?:[._-][0-9]+)*(?:[._-]?(?:alpha|beta|rc|a|b|p|pre|post|dev)[0-9]*)?)")


def _restyle(text, sep):
    return re.sub(r"[._-]", sep, text)


def _bounded(hay, needle):
    """Start offsets of `needle` in `hay` not inside a longer number:
    `1.2` is not found in `11.2`, `1.23` or `1.2.5`."""
    out = []
    start = 0
    while True:
        i = hay.find(needle, start)
        if i < 0:
            return out
        j = i + len(needle)
        before = hay[i - 1] if i > 0 else ""
        before2 = hay[i - 2] if i > 1 else ""
        after = hay[j] if j < len(hay) else ""
        after2 = hay[j + 1] if j + 1 < len(hay) else ""
        ok = not before.isdigit() and not (before in "." and before2.isdigit() and before != "")
        ok = ok and not after.isdigit() and not (after in "._" and after != "" and after2.isdigit())
        if ok:
            out.append(i)
        start = i + 1


def reference_version(url, known=()):
    """The version written in `url`: the longest known version found in it
    (in any separator style), else the last version-like run of its file
    name."""
    for v in sorted((str(k) for k in known), key=len, reverse=True):
        if not v[:1].isdigit():
            continue
        for sep in ".-_":
            if _bounded(url, _restyle(v, sep)):
                return v
    path = url.split("://", 1)[-1]
    path = path.split("?", 1)[0]
    segments = [s for s in path.split("/")[1:] if s]
    for seg in reversed(segments):
        stem = _ARCHIVE_EXT.sub("", seg)
        runs = [m.group(1) for m in _VERSION_RUN.finditer(stem)]
        runs = [r for r in runs if re.search(r"[._-]", r) or len(segments) and seg is segments[-1]]
        if runs:
            return runs[-1]
    return None


def substitute_version(url, new_version, known=()):
    """`url` with the version written in it replaced by `new_version` in
    each separator style; `url` itself when it holds no version."""
    ref = reference_version(url, known)
    if ref is None:
        return url
    new = str(new_version)
    out = url
    styles = []
    for sep in ".-_":
        styles.append((_restyle(ref, sep), _restyle(new, sep)))
    if not re.search(r"[._-]", ref):
        styles = [(ref, new)]
    seen = set()
    for old, repl in styles:
        if old in seen:
            continue
        seen.add(old)
        offsets = _bounded(out, old)
        for i in reversed(offsets):
            out = out[:i] + repl + out[i + len(old):]
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
