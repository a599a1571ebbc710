#!/usr/bin/env python3
"""Assemble a Spack-layout source mirror for a stack's plan from upstream sources reachable here.

    scripts/uenv-mirror.py --recipe RECIPE --cluster CLUSTER --mirror DIR --overlay DIR \\
        --repos DIR [--repos DIR …] [--work DIR] [--stack BIN] [--only NAME,…]

RECIPE/CLUSTER are what `stack build` gets. Every source of the plan (`stack resolve --format
json`, with --repo OVERLAY when it holds recipes) is looked for by these routes, in order
(docs: ../shared/reference/upstream-sources.md):

  mirror       already in DIR under its sha256
  debian       a Debian source package carries a file with exactly that sha256 (its Sources
               index, from deb-src entries for bookworm, trixie and sid in a private apt
               directory under WORK: the system's apt sources are not touched);
               `apt-get source --download-only`, else the pool file directly
  pypi         files.pythonhosted.org URLs: `pip download --no-deps` of the sdist or wheel
  github       a GitHub archive (…/archive/<tag>.tar.gz, …/archive/refs/tags/…) or a release
               asset that is one: `git archive --prefix=<repo>-<version>/ <tag> | gzip -cn`
               from the repository found under a --repos directory
  git          git sources of the plan (a tag or branch pinned to a commit): a tarball of the
               commit from the repository under --repos, at _source-cache/git/<url path>/<commit>.tar.gz

A source none of them gives byte for byte falls back to the entries of SUBSTITUTES below, each
written into the OVERLAY repository (a copy of the shipped recipe with that version's source
replaced, searched before the shipped ones: `stack build --repo OVERLAY/recipes`):

  pinned-git   the release tag's commit of the upstream repository (under --repos)
  debian-orig  Debian's orig tarball of the same release in another compression, or repacked
               (`+dfsg`: files removed for licence reasons): not byte-identical to upstream's
  debian-other Debian's orig tarball of another release (the overlay lists only that version)

After writing the overlay the plan is resolved again (a version may change), until it is stable.
Then a table: package, version, route, ok/FAILED and why. Archives are verified by sha256.
Nothing fetched is written into this repository: DIR, OVERLAY and WORK are scratch.
"""

import argparse
import glob
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Facts about upstream projects whose release archive is not reachable byte for byte here: where
# else the same release is (its repository and tag, Debian's source package), and what a build
# from that other source needs. "{v}" is the version, "{v_}" with underscores.
SUBSTITUTES = {
    # Debian's orig tarball of the same release, repacked or recompressed.
    "gcc": [{"debian": "gcc-14", "orig": "gcc-14_{v}.orig.tar.gz", "member": "gcc-{v}-dfsg.tar.xz",
             "fix": "gcc-dfsg"}],
    "gmp": [{"debian": "gmp", "orig": "gmp_{v}+dfsg.orig.tar.xz", "fix": "gmp-dfsg"}],
    "autoconf": [{"debian": "autoconf", "orig": "autoconf_{v}.orig.tar.xz"}],
    "libtool": [{"debian": "libtool", "orig": "libtool_{v}.orig.tar.xz"}],
    "xz": [{"debian": "xz-utils", "orig": "xz-utils_{v}.orig.tar.xz"}],
    "bison": [{"debian": "bison", "orig": "bison_{v}+dfsg.orig.tar.xz"}],
    "boost": [{"debian": "boost1.90", "orig": "boost1.90_{v}.orig.tar.xz"}],
    "hdf5": [{"debian": "hdf5", "orig": "hdf5_{v}+repack.orig.tar.gz"}],
    "gsl": [{"debian": "gsl", "orig": "gsl_{v}+dfsg.orig.tar.gz"}],
    "papi": [{"debian": "papi", "orig": "papi_{v}.orig.tar.gz"}],
    "metis": [{"debian": "metis", "orig": "metis_{v}.dfsg.orig.tar.xz"}],
    "flex": [{"debian": "flex", "orig": "flex_{v}.orig.tar.gz"}],
    # upstream's bug-fix patches are only on ftp.gnu.org
    "readline": [{"drop_unreachable_patches": True}],
    # The release tag of the upstream repository (missing_ok: paths a fetched snapshot lacks,
    # left out of the tree).
    "cmake": [{"git": "Kitware/CMake", "tag": "v{v}"}],
    "curl": [{"git": "curl/curl", "tag": "curl-{v_}", "bootstrap": True}],
    "json-c": [{"git": "json-c/json-c", "tag": "json-c-{v}-*"}],
    "libuv": [{"git": "libuv/libuv", "tag": "v{v}", "bootstrap": True, "fix": "autogen"}],
    "libyaml": [{"git": "yaml/libyaml", "tag": "{v}", "bootstrap": True}],
    "libxml2": [{"git": "GNOME/libxml2", "tag": "v{v}", "bootstrap": True}],
    "libfabric": [{"git": "ofiwg/libfabric", "tag": "v{v}", "bootstrap": True}],
    "libnl": [{"git": "thom311/libnl", "tag": "libnl{v_}", "bootstrap": True}],
    "libaec": [{"git": "MathisRosenhauer/libaec", "tag": "v{v}"}],
    "netcdf-c": [{"git": "Unidata/netcdf-c", "tag": "v{v}", "missing_ok": ["docs/"]}],
    "netcdf-fortran": [{"git": "Unidata/netcdf-fortran", "tag": "v{v}", "missing_ok": ["docs/"]}],
    "netcdf-cxx4": [{"git": "Unidata/netcdf-cxx4", "tag": "v{v}"}],
    "fmt": [{"git": "fmtlib/fmt", "tag": "{v}"}],
    "ncurses": [{"git": "ThomasDickey/ncurses-snapshots", "tag": "v{v_}"}],
    "patchelf": [{"git": "NixOS/patchelf", "tag": "{v}", "bootstrap": True}],
    "pkgconf": [{"git": "pkgconf/pkgconf", "tag": "pkgconf-{v}", "bootstrap": True}],
    # Another release: the fetched repositories and Debian's pool stop before the planned one.
    "mpfr": [{"debian": "mpfr4", "other": ["4.2.2"], "orig": "mpfr4_{v}.orig.tar.xz",
              "url": "https://ftp.gnu.org/gnu/mpfr/mpfr-{v}.tar.xz"}],
    "m4": [{"debian": "m4", "other": ["1.4.19"], "orig": "m4_{v}.orig.tar.xz",
            "url": "https://ftp.gnu.org/gnu/m4/m4-{v}.tar.xz"}],
    "automake": [{"debian": "automake-1.17", "other": ["1.17"], "orig": "automake-1.17_{v}.orig.tar.xz",
                  "url": "https://ftp.gnu.org/gnu/automake/automake-{v}.tar.xz"}],
    "python": [{"debian": "python3.13", "other": ["3.13.15", "3.13.5"], "orig": "python3.13_{v}.orig.tar.xz",
                "url": "https://www.python.org/ftp/python/{v}/Python-{v}.tar.xz"}],
    "perl": [{"debian": "perl", "other": ["5.42.3", "5.40.1"], "orig": "perl_{v}.orig.tar.xz",
              "url": "https://www.cpan.org/src/5.0/perl-{v}.tar.xz"}],
    "openssl": [{"debian": "openssl", "other": ["3.5.7"], "orig": "openssl_{v}.orig.tar.gz",
                 "url": "https://www.openssl.org/source/openssl-{v}.tar.gz"}],
    "lua": [{"debian": "lua5.4", "other": ["5.4.7", "5.4.9"], "orig": "lua5.4_{v}.orig.tar.gz",
             "url": "https://www.lua.org/ftp/lua-{v}.tar.gz"}],
    # kokkos' identical older releases (4.3) need a patch of a commit no fetched repository has
    "kokkos": [{"git": "kokkos/kokkos", "tag": "{v}", "other": ["4.6.01"], "before_older": True}],
    "kokkos-kernels": [{"git": "kokkos/kokkos-kernels", "tag": "{v}", "other": ["4.6.01"], "before_older": True}],
    "zlib-ng": [{"git": "zlib-ng/zlib-ng", "tag": "{v}", "other": ["2.2.2"]}],
    "openblas": [{"git": "OpenMathLib/OpenBLAS", "tag": "v{v}", "other": ["0.3.28"]}],
}

BOOTSTRAP_DEPS = ["autoconf", "automake", "libtool", "m4"]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def ext_of(name):
    for e in (".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst", ".tgz", ".tbz2", ".txz", ".zip", ".whl", ".tar"):
        if name.endswith(e):
            return e
    return ""


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, **kw)


class Mirror:
    def __init__(self, root):
        self.root = root

    def archive_path(self, sha, ext):
        return os.path.join(self.root, "_source-cache", "archive", sha[:2], sha + ext)

    def has(self, sha):
        return bool(glob.glob(os.path.join(self.root, "_source-cache", "archive", sha[:2], sha + "*")))

    def put_file(self, path, sha, ext):
        got = sha256_file(path)
        if got != sha:
            return f"sha256 {got[:12]}… ≠ {sha[:12]}…"
        dst = self.archive_path(sha, ext)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        tmp = dst + ".tmp"
        shutil.copyfile(path, tmp)
        os.replace(tmp, dst)
        return None

    def git_path(self, url, commit):
        rest = url.split("://", 1)[-1]
        rest = rest.split("/", 1)[1] if "://" in url else rest
        parts = [p for p in re.split(r"[/?#]", rest) if p and p not in (".", "..")]
        return os.path.join(self.root, "_source-cache", "git", *parts, commit + ".tar.gz")


class Repos:
    """Bare repositories the user supplied: DIR/<owner>+<name>/repo (the `fetch` layout),
    DIR/<owner>/<name>.git, DIR/<name>.git or DIR/<name>."""

    def __init__(self, dirs):
        self.dirs = dirs

    def find(self, owner, name):
        for d in self.dirs:
            for cand in (f"{owner}+{name}/repo", f"{owner}/{name}.git", f"{owner}/{name}", f"{name}.git", name):
                p = os.path.join(d, cand)
                if os.path.isdir(p) and (os.path.isfile(os.path.join(p, "HEAD"))):
                    return p
            # case-insensitive owner+name
            try:
                for e in os.listdir(d):
                    if e.lower() == f"{owner}+{name}".lower() and os.path.isdir(os.path.join(d, e, "repo")):
                        return os.path.join(d, e, "repo")
            except OSError:
                pass
        return None

    @staticmethod
    def commit_of(repo, ref):
        r = run(["git", "-C", repo, "rev-parse", "--verify", "--quiet", ref + "^{commit}"], text=True)
        return r.stdout.strip() if r.returncode == 0 else None

    @staticmethod
    def tags_matching(repo, pattern):
        r = run(["git", "-C", repo, "tag", "-l", pattern], text=True)
        return [t for t in r.stdout.split() if t]


def git_tarball(repo, commit, prefix, out, submodules=()):
    """`git archive --prefix=PREFIX/ COMMIT | gzip -cn` (GitHub's archive bytes)."""
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        a = subprocess.Popen(["git", "-C", repo, "archive", "--format=tar", f"--prefix={prefix}/", commit],
                             stdout=subprocess.PIPE)
        g = subprocess.run(["gzip", "-cn"], stdin=a.stdout, stdout=f)
        a.stdout.close()
        if a.wait() != 0 or g.returncode != 0:
            os.remove(tmp)
            return False
    os.replace(tmp, out)
    return True


def git_tree_tarball(repo, commit, prefix, out, missing_ok=()):
    """A tar.gz of COMMIT's tree written from the objects (no `git archive`), so that blobs the
    repository lacks (fetched snapshots leave out large files) can be left out when their paths
    start with one of MISSING_OK. Returns the list of paths left out, or None if a blob outside
    MISSING_OK is missing."""
    ls = run(["git", "-C", repo, "ls-tree", "-r", "-z", "--full-tree", commit])
    if ls.returncode != 0:
        return None
    entries = []
    for rec in ls.stdout.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, kind, oid = meta.split()
        entries.append((mode.decode(), kind.decode(), oid.decode(), path.decode()))
    mtime = int(run(["git", "-C", repo, "log", "-1", "--format=%ct", commit], text=True).stdout.strip() or 0)
    cat = subprocess.Popen(["git", "-C", repo, "cat-file", "--batch"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE)
    missing = []
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "wb") as raw:
        gz = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="")
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT) as tar:
            def info(name, kind, mode):
                ti = tarfile.TarInfo(f"{prefix}/{name}" if name else f"{prefix}/")
                ti.type, ti.mode, ti.mtime = kind, mode, mtime
                ti.uid = ti.gid = 0
                return ti
            tar.addfile(info("", tarfile.DIRTYPE, 0o755))
            dirs = set()
            for mode, kind, oid, path in entries:
                parts = path.split("/")
                for i in range(1, len(parts)):
                    d = "/".join(parts[:i])
                    if d not in dirs:
                        dirs.add(d)
                        tar.addfile(info(d, tarfile.DIRTYPE, 0o755))
                if kind == "commit":  # a submodule: an empty directory, as in `git archive`
                    tar.addfile(info(path, tarfile.DIRTYPE, 0o755))
                    continue
                cat.stdin.write(oid.encode() + b"\n")
                cat.stdin.flush()
                header = cat.stdout.readline().split()
                if len(header) < 3 or header[1] == b"missing":
                    missing.append(path)
                    continue
                data = cat.stdout.read(int(header[2]))
                cat.stdout.read(1)
                if mode == "120000":
                    ti = info(path, tarfile.SYMTYPE, 0o777)
                    ti.linkname = data.decode()
                    tar.addfile(ti)
                else:
                    ti = info(path, tarfile.REGTYPE, 0o755 if mode == "100755" else 0o644)
                    ti.size = len(data)
                    tar.addfile(ti, io.BytesIO(data))
        gz.close()
    cat.stdin.close()
    cat.wait()
    if any(not any(m.startswith(ok) for ok in missing_ok) for m in missing):
        os.remove(tmp)
        return None
    os.replace(tmp, out)
    return missing


class Debian:
    """Debian source packages through a private apt directory (deb-src for bookworm, trixie, sid)."""

    def __init__(self, work):
        self.dir = os.path.join(work, "apt")
        self.conf = os.path.join(self.dir, "apt.conf")
        self.index = None
        self.dl = os.path.join(work, "debian")

    def setup(self):
        d = self.dir
        for sub in ("etc/sources.list.d", "etc/preferences.d", "state/lists/partial", "cache/archives/partial"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        open(os.path.join(d, "etc/sources.list"), "a").close()
        with open(os.path.join(d, "etc/sources.list.d/deb-src.sources"), "w") as f:
            f.write("Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm trixie sid\n"
                    "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n")
        with open(self.conf, "w") as f:
            f.write(f'Dir::Etc::sourcelist "{d}/etc/sources.list";\n'
                    f'Dir::Etc::sourceparts "{d}/etc/sources.list.d";\n'
                    f'Dir::Etc::preferencesparts "{d}/etc/preferences.d";\n'
                    f'Dir::State::Lists "{d}/state/lists";\nDir::Cache "{d}/cache";\n')
        lists = glob.glob(os.path.join(d, "state/lists/*Sources*"))
        if not lists:
            log("apt-get update (private deb-src lists) …")
            r = run(["apt-get", "update"], env={**os.environ, "APT_CONFIG": self.conf}, text=True)
            if r.returncode != 0:
                log(r.stderr)
        self.load_index()

    def load_index(self):
        """sha256 → (source package, version, file name, directory) from the Sources indices."""
        self.index = {}
        self.files = {}
        for f in sorted(glob.glob(os.path.join(self.dir, "state/lists/*_source_Sources*"))):
            r = run(["/usr/lib/apt/apt-helper", "cat-file", f])
            if r.returncode != 0:
                continue
            pkg = ver = directory = None
            in_sha = False
            for line in r.stdout.decode(errors="replace").splitlines():
                if line.startswith("Package: "):
                    pkg = line[9:].strip()
                elif line.startswith("Version: "):
                    ver = line[9:].strip()
                elif line.startswith("Directory: "):
                    directory = line[11:].strip()
                elif line.startswith("Checksums-Sha256:"):
                    in_sha = True
                    continue
                elif not line.startswith(" "):
                    in_sha = False
                if in_sha and line.startswith(" "):
                    parts = line.split()
                    if len(parts) == 3:
                        self.index.setdefault(parts[0], (pkg, ver, parts[2], directory))
                        self.files.setdefault(parts[2], (parts[0], pkg, ver, directory))

    def fetch_file(self, name):
        """Download the pool file NAME (orig tarballs are shared by the package's revisions)."""
        if name not in self.files:
            return None, "not in Debian's Sources indices"
        sha, pkg, ver, directory = self.files[name]
        os.makedirs(self.dl, exist_ok=True)
        dst = os.path.join(self.dl, name)
        if os.path.isfile(dst) and sha256_file(dst) == sha:
            return dst, None
        # apt-get source first (the ordinary client), then the pool file alone: the .dsc of an
        # old revision may be gone while its orig tarball is still there.
        r = run(["apt-get", "source", "--download-only", f"{pkg}={ver}"], cwd=self.dl,
                env={**os.environ, "APT_CONFIG": self.conf}, text=True)
        if not (os.path.isfile(dst) and sha256_file(dst) == sha):
            url = f"http://deb.debian.org/debian/{directory}/{name}"
            try:
                with urllib.request.urlopen(url, timeout=120) as resp, open(dst + ".part", "wb") as f:
                    shutil.copyfileobj(resp, f)
                os.replace(dst + ".part", dst)
            except Exception as e:  # noqa: BLE001 - reported in the table
                return None, f"{pkg} {ver}: {name}: {e}"
        if sha256_file(dst) != sha:
            return None, f"{name}: sha256 differs from Debian's index"
        return dst, None


def parse_github(url):
    m = re.match(r"https://github\.com/([^/]+)/([^/]+)/archive/(?:refs/tags/)?(.+?)(\.tar\.gz|\.zip)$", url)
    if m:
        return ("archive",) + m.groups()
    m = re.match(r"https://github\.com/([^/]+)/([^/]+)/releases/download/([^/]+)/(.+?)(\.tar\.gz)$", url)
    if m:
        return ("release",) + m.groups()
    return None


def route_github(node, src, repos, mirror, work):
    gh = parse_github(src["url"])
    if not gh:
        return None
    kind, owner, name, tag, rest = gh[0], gh[1], gh[2], gh[3], gh[4:]
    repo = repos.find(owner, name)
    if not repo:
        return f"github {owner}/{name}: no repository under --repos (fetch github:{owner}/{name})"
    commit = Repos.commit_of(repo, tag)
    if not commit:
        return f"github {owner}/{name}: no tag {tag}"
    if kind == "archive":
        if rest[-1] != ".tar.gz":
            return f"github {owner}/{name}: {rest[-1]} archives are not reproduced"
        prefixes = [f"{name}-{tag[1:] if tag[:1] in 'vV' and tag[1:2].isdigit() else tag}", f"{name}-{tag}"]
    else:
        stem = rest[0]
        prefixes = [stem, f"{name}-{tag.lstrip('v')}"]
    tried = []
    for prefix in dict.fromkeys(prefixes):
        out = os.path.join(work, "github", f"{prefix}.tar.gz")
        if not git_tarball(repo, commit, prefix, out):
            tried.append(f"{prefix}: git archive failed")
            continue
        err = mirror.put_file(out, src["sha256"], ".tar.gz")
        os.remove(out)
        if err is None:
            return True
        tried.append(f"{prefix}/: {err}")
    return f"github {owner}/{name} {tag}: " + "; ".join(tried)


def route_pypi(node, src, mirror, work):
    url = src["url"]
    if "pythonhosted.org" not in url and "pypi.io" not in url and "pypi.org" not in url:
        return None
    fname = url.rsplit("/", 1)[-1]
    if fname.endswith(".whl"):
        dist, version = fname.split("-")[:2]
        kind = "--only-binary=:all:"
    else:
        m = re.match(r"(.+)-([^-]+?)(\.tar\.gz|\.zip|\.tar\.bz2)$", fname)
        if not m:
            return f"pypi: cannot read {fname}"
        dist, version = m.group(1), m.group(2)
        kind = "--no-binary=:all:"
    d = os.path.join(work, "pypi")
    os.makedirs(d, exist_ok=True)
    if not os.path.isfile(os.path.join(d, fname)):
        r = run([sys.executable, "-m", "pip", "download", "--no-deps", kind,
                 "-d", d, f"{dist}=={version}"], text=True)
        if not os.path.isfile(os.path.join(d, fname)):
            tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["?"]
            return f"pypi {dist}=={version}: {tail[0]}"
    err = mirror.put_file(os.path.join(d, fname), src["sha256"], ext_of(fname))
    return True if err is None else f"pypi {fname}: {err}"


def route_debian(node, src, deb, mirror):
    hit = deb.index.get(src["sha256"])
    if not hit:
        return None
    path, err = deb.fetch_file(hit[2])
    if err:
        return f"debian {hit[0]} {hit[1]}: {err}"
    err = mirror.put_file(path, src["sha256"], ext_of(hit[2]) or ext_of(src["url"]))
    return True if err is None else f"debian {hit[2]}: {err}"


def route_git(node, src, repos, mirror):
    url = src["url"]
    m = re.match(r"https://github\.com/([^/]+)/([^/]+?)(\.git)?$", url)
    if not m:
        return f"git {url}: not a GitHub repository"
    repo = repos.find(m.group(1), m.group(2))
    if not repo:
        return f"git {m.group(1)}/{m.group(2)}: no repository under --repos"
    commit = src.get("commit")
    if not commit or not Repos.commit_of(repo, commit):
        return f"git {m.group(1)}/{m.group(2)}: commit {commit} not in the repository"
    out = mirror.git_path(url, commit)
    if os.path.isfile(out):
        return True
    if src.get("submodules"):
        return f"git {m.group(1)}/{m.group(2)}: submodules are not assembled by this script"
    return True if git_tarball(repo, commit, f"{m.group(2)}-{commit[:12]}", out) else "git archive failed"


def route_patch(patch, repos, mirror):
    """A URL patch of a recipe: raw.githubusercontent.com/<owner>/<repo>/<commit>/<path> is that
    file of the commit in the repository under --repos (spack-packages' patches)."""
    url, sha = patch["url"], patch["sha256"]
    path = url.split("?", 1)[0]
    ext = "." + path.rsplit(".", 1)[-1] if re.search(r"\.[A-Za-z0-9]{1,8}$", path) else ""
    if mirror.has(sha):
        return "mirror", None
    m = re.match(r"https://raw\.githubusercontent\.com/([^/]+)/([^/]+)/([0-9a-f]{40})/(.+)$", url)
    c = re.match(r"https://github\.com/([^/]+)/([^/]+)/commit/([0-9a-f]{40})\.(patch|diff)\?full_index=1$", url)
    if not m and not c:
        return None, f"patch {url}: only files of a commit (raw.githubusercontent.com) and GitHub's commit patches are reproduced"
    owner, name, commit = (m or c).groups()[:3]
    repo = repos.find(owner, name)
    if not repo:
        return None, f"patch {url}: no repository {owner}/{name} under --repos"
    if m:
        r = run(["git", "-C", repo, "show", f"{commit}:{m.group(4)}"])
    elif c.group(4) == "patch":  # GitHub's .patch is git format-patch without the signature
        r = run(["git", "-C", repo, "format-patch", "-1", "--full-index", "--stdout", "--no-signature", commit])
    else:
        r = run(["git", "-C", repo, "diff", "--full-index", f"{commit}^", commit])
    if r.returncode != 0:
        return None, f"patch {url}: not in {repo}"
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(r.stdout)
    err = mirror.put_file(f.name, sha, ext)
    os.remove(f.name)
    return ("github", None) if err is None else (None, f"patch {url}: {err}")


# ---------------------------------------------------------------- the overlay repository

def builtin_recipe(name):
    p = os.path.join(os.environ.get("STACK_BUILTIN_REPO", os.path.join(ROOT, "recipes")), f"{name}.yaml")
    return p if os.path.isfile(p) else None


def yaml_str(s):
    return json.dumps(s)


OVERLAYS = {}


def write_overlay(overlay, name, versions, note, extra_deps=(), fix=None, drop_patches=()):
    """OVERLAY/recipes/NAME.yaml: the shipped recipe with `versions:` replaced by VERSIONS
    (inline YAML maps), its patches beside it, EXTRA_DEPS added as build dependencies."""
    OVERLAYS[name] = {"versions": None if versions is None else list(versions), "note": note,
                      "deps": list(extra_deps), "fix": fix, "drop": list(drop_patches)}
    src = builtin_recipe(name)
    if not src:
        return f"no shipped recipe for {name} to overlay"
    text = open(src).read()
    new = text
    if versions is not None:
        block = "versions:\n" + "".join(f"  - {v}\n" for v in versions)
        new, n = re.subn(r"(?ms)^versions:\n(  - .*?\n)+(?=\S)", lambda _: block, text, count=1)
        if n != 1:
            return f"{src}: no `versions:` block found"
    if extra_deps:
        have = re.findall(r"^  - \{?spec: \"?([a-z0-9-]+)|^  - ([a-z0-9-]+)\s*$", new, re.M)
        have = {a or b for a, b in have}
        add = "".join(f"  - {{spec: {d}, type: build}}\n" for d in extra_deps if d not in have)
        if add:
            if re.search(r"(?m)^dependencies:\s*\[\]\s*$", new):
                new = re.sub(r"(?m)^dependencies:\s*\[\]\s*$", "dependencies:\n" + add.rstrip("\n"), new)
            elif re.search(r"(?m)^dependencies:\s*$", new):
                new = re.sub(r"(?m)^dependencies:\s*\n", lambda _: "dependencies:\n" + add, new, count=1)
            else:
                new = new.replace("\nbuild:\n", "\ndependencies:\n" + add + "build:\n", 1)
    if fix:
        new = FIXES[fix](new)
    for url in drop_patches:
        new = "".join(line for line in new.splitlines(keepends=True)
                      if not (line.lstrip().startswith("- {url:") and url in line))
    header = (f"# Overlay written by scripts/uenv-mirror.py: {note}\n"
              f"# Everything else as {os.path.relpath(src, ROOT)}.\n")
    dst = os.path.join(overlay, "recipes", f"{name}.yaml")
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    old = open(dst).read() if os.path.isfile(dst) else None
    if old != header + new:
        with open(dst, "w") as f:
            f.write(header + new)
    pdir = os.path.join(os.path.dirname(os.path.dirname(src)), "patches", name)
    if os.path.isdir(pdir):
        pdst = os.path.join(overlay, "patches", name)
        if not os.path.isdir(pdst):
            shutil.copytree(pdir, pdst)
    return None if old == header + new else "changed"


def fix_gcc_dfsg(t):
    """Debian's -dfsg gcc lacks the GFDL hook documentation: the s-tm-texi check that compares
    it (in `all-gcc` from gcc 13 on, and again at install) is made a plain stamp."""
    stamp = ("      - [sed, -i, -e, 's|^s-tm-texi: build/genhooks|s-tm-texi:\\n\\t$(STAMP) $@\\n"
             "dfsg-unused-tm-texi: build/genhooks|', gcc/Makefile.in]\n")
    t = t.replace("    pre_configure:\n", "    pre_configure:\n" + stamp, 1)
    return t


def add_step(t, phase, argv):
    """Add the command ARGV (a YAML flow list) at the start of build.steps.PHASE."""
    line = f"      - {argv}\n"
    if re.search(rf"(?m)^    {phase}:\n", t):
        return re.sub(rf"(?m)^    {phase}:\n", lambda m: m.group(0) + line, t, count=1)
    if re.search(r"(?m)^  steps:\n", t):
        return re.sub(r"(?m)^  steps:\n", lambda m: m.group(0) + f"    {phase}:\n" + line, t, count=1)
    return re.sub(r"(?m)^build:\n", lambda m: m.group(0) + f"  steps:\n    {phase}:\n" + line, t, count=1)


def fix_gmp_dfsg(t):
    """Debian's +dfsg gmp has no doc/ (the GFDL manual): configure still lists doc/Makefile, so a
    doc/Makefile.in whose targets do nothing stands in for it."""
    targets = ("all install install-data install-exec uninstall check installcheck clean distclean "
               "mostlyclean maintainer-clean info dvi pdf ps html install-info install-dvi install-html "
               "install-pdf install-ps install-strip tags ctags distdir")
    script = f"mkdir -p doc && printf '%s:\\n\\t@:\\n' '{targets}' > doc/Makefile.in"
    return add_step(t, "pre_configure", json.dumps(["sh", "-c", script]))


def fix_autogen(t):
    """A git tree whose autogen.sh writes files configure.ac includes (libuv's
    m4/libuv-extra-automake-flags.m4): run ./autogen.sh, not plain autoreconf."""
    return re.sub(r"(?m)^  system: autotools\n", lambda m: m.group(0) + "  autogen: true\n", t, count=1)


FIXES = {"gcc-dfsg": fix_gcc_dfsg, "gmp-dfsg": fix_gmp_dfsg, "autogen": fix_autogen}


def subst(fmt, v):
    return fmt.replace("{v_}", v.replace(".", "_")).replace("{v}", v)


def route_substitute(node, src, repos, mirror, deb, overlay, work, other=False):
    """The SUBSTITUTES entries: (route, None, ledger key) when placed, else (None, why, None)."""
    name, v = node["name"], node["version"]
    whys = []
    for e in SUBSTITUTES.get(name, []):
        if "git" in e:
            owner, rname = e["git"].split("/")
            repo = repos.find(owner, rname)
            if not repo:
                whys.append(f"pinned-git {e['git']}: no repository under --repos (fetch github:{e['git']})")
                continue
            commit = None
            for gv in (e.get("other", []) if other else [v]):
                tag = subst(e["tag"], gv)
                if "*" in tag:
                    tags = Repos.tags_matching(repo, tag)
                    tag = tags[-1] if tags else tag
                commit = Repos.commit_of(repo, tag)
                if commit:
                    break
                whys.append(f"pinned-git {e['git']}: no tag {tag}")
            if not commit:
                continue
            url = f"https://github.com/{owner}/{rname}.git"
            out = mirror.git_path(url, commit)
            missing = []
            if not os.path.isfile(out):
                missing = git_tree_tarball(repo, commit, f"{rname}-{commit[:12]}", out, e.get("missing_ok", ()))
                if missing is None:
                    whys.append(f"pinned-git {e['git']}: blobs missing from the repository")
                    continue
            entry = f"{{version: {yaml_str(gv)}, git: {url}, tag: {yaml_str(tag)}, commit: {commit}}}"
            note = f"{name}@{gv} from the tag {tag} of {url} (commit {commit[:12]}), not the release archive"
            if gv != v:
                note += f", in the place of {v} (the fetched repository has no tag for it)"
            if missing:
                note += f"; left out (not in the fetched repository): {', '.join(missing)}"
            write_overlay(overlay, name, [entry], note, BOOTSTRAP_DEPS if e.get("bootstrap") else (), e.get("fix"))
            kind = "pinned-git" + ("-other" if gv != v else "") + (" (incomplete)" if missing else "")
            return kind, None, f"{url}@{commit}"
        if "debian" in e:
            for ver in (e.get("other", []) if other else ([] if "other" in e else [v])):
                fname = subst(e["orig"], ver)
                path, err = deb.fetch_file(fname)
                if err:
                    whys.append(f"debian {e['debian']}: {err}")
                    continue
                if e.get("member"):
                    member = subst(e["member"], ver)
                    mpath = os.path.join(deb.dl, member)
                    if not os.path.isfile(mpath):
                        with tarfile.open(path) as tf:
                            m = next((m for m in tf.getmembers() if m.name.endswith("/" + member)), None)
                            if m is None:
                                whys.append(f"debian {fname}: no {member} inside")
                                continue
                            with tf.extractfile(m) as r, open(mpath + ".part", "wb") as w:
                                shutil.copyfileobj(r, w)
                            os.replace(mpath + ".part", mpath)
                    path, fname = mpath, member
                sha = sha256_file(path)
                mirror.put_file(path, sha, ext_of(fname))
                url = subst(e["url"], ver) if e.get("url") else src["url"].rsplit("/", 1)[0] + "/" + fname
                entry = f"{{version: {yaml_str(ver)}, url: {yaml_str(url)}, sha256: {sha}}}"
                kind = "debian-orig" if ver == v else "debian-other"
                note = (f"{name}@{ver} from Debian's {fname} ({e['debian']}), "
                        + ("not byte-identical to upstream's archive" if ver == v
                           else f"in the place of {v}, whose archive is not reachable here"))
                write_overlay(overlay, name, [entry], note, (), e.get("fix"))
                return kind, None, sha
    return None, ("; ".join(whys) if whys else None), None


def route_older(node, repos, mirror, deb, overlay, work):
    """The newest version of the shipped recipe, older than the planned one, whose archive is
    reachable byte for byte: the overlay lists only that version."""
    import yaml  # PyYAML (Debian's python3-yaml)

    src = builtin_recipe(node["name"])
    if not src:
        return None, None, None
    recipe = yaml.safe_load(open(src))
    for ver in recipe.get("versions", []):
        if not isinstance(ver, dict) or "url" not in ver or "sha256" not in ver:
            continue
        v = str(ver["version"])
        if v == node["version"] or not older(v, node["version"]):
            continue
        fake = {**node, "version": v}
        s = {"type": "archive", "url": ver["url"], "sha256": ver["sha256"]}
        for route, fn in (("debian", lambda: route_debian(fake, s, deb, mirror)),
                          ("github", lambda: route_github(fake, s, repos, mirror, work))):
            if mirror.has(ver["sha256"]) or fn() is True:
                entry = "{" + ", ".join(f"{k}: {yaml_str(val) if isinstance(val, str) else json.dumps(val)}"
                                        for k, val in ver.items()) + "}"
                write_overlay(overlay, node["name"], [entry],
                              f"{node['name']}@{v} (its archive is identical to upstream's, from the {route} "
                              f"route) in the place of {node['version']}, whose archive is not reachable here")
                return f"older ({route})", None, ver["sha256"]
    return None, None, None


def older(a, b):
    def key(v):
        return [(0, int(p)) if p.isdigit() else (-1, p) for p in re.split(r"[.\-_]", v)]
    return key(a) < key(b)


# ---------------------------------------------------------------- the plan

def resolve(a, overlay):
    cmd = [a.stack, "resolve", a.recipe, "--cluster", a.cluster, "--format", "json"]
    if glob.glob(os.path.join(overlay, "recipes", "*.yaml")):
        cmd += ["--repo", os.path.join(overlay, "recipes")]
    r = run(cmd, text=True)
    if r.returncode != 0:
        sys.exit(f"stack resolve failed:\n{r.stderr[-4000:]}")
    return json.loads(r.stdout)["nodes"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--recipe", required=True)
    ap.add_argument("--cluster", required=True)
    ap.add_argument("--mirror", required=True)
    ap.add_argument("--overlay", required=True)
    ap.add_argument("--repos", action="append", default=[])
    ap.add_argument("--work", default=None)
    ap.add_argument("--stack", default=os.environ.get("STACK", os.path.join(ROOT, "target/debug/stack")))
    ap.add_argument("--only", default="", help="comma-separated package names")
    ap.add_argument("--table", default=None, help="also write the table to this file")
    a = ap.parse_args()
    mirror = Mirror(os.path.abspath(a.mirror))
    overlay = os.path.abspath(a.overlay)
    work = os.path.abspath(a.work or os.path.join(a.mirror, "..", "mirror-work"))
    os.makedirs(work, exist_ok=True)
    repos = Repos([os.path.abspath(d) for d in a.repos])
    deb = Debian(work)
    deb.setup()
    only = {n for n in a.only.split(",") if n}
    ledger_path = os.path.join(work, "routes.json")
    ledger = json.load(open(ledger_path)) if os.path.isfile(ledger_path) else {}

    # Rewrite the overlay from the shipped recipes as they are now (a fixed recipe is not hidden
    # by an old copy); the sources are in the mirror already.
    for name, o in ledger.get("overlays", {}).items():
        subs = SUBSTITUTES.get(name, [])
        fix = next((e["fix"] for e in subs if e.get("fix")), o["fix"])
        deps = BOOTSTRAP_DEPS if any(e.get("bootstrap") for e in subs) and o["deps"] else o["deps"]
        write_overlay(overlay, name, o["versions"], o["note"], deps, fix, o.get("drop", ()))

    def save_ledger():
        ledger["overlays"] = {**ledger.get("overlays", {}), **OVERLAYS}
        with open(ledger_path + ".tmp", "w") as f:
            json.dump(ledger, f, indent=1, sort_keys=True)
        os.replace(ledger_path + ".tmp", ledger_path)

    rows = {}
    for _round in range(4):
        nodes = resolve(a, overlay)
        changed = False
        for node in nodes:
            name, v = node["name"], node["version"]
            if only and name not in only:
                continue
            src = node.get("source")
            key = (name, v)
            unreachable = []
            for patch in node.get("patches", []):
                if "url" not in patch:
                    continue
                kind, err = route_patch(patch, repos, mirror)
                if err:
                    unreachable.append(patch["url"])
                    rows[(name + " (patch)", patch["url"].rsplit("/", 1)[-1])] = ("none", "FAILED", err)
            if unreachable and any(e.get("drop_unreachable_patches") for e in SUBSTITUTES.get(name, [])):
                write_overlay(overlay, name, None, "without the patches not reachable here: "
                              + ", ".join(u.rsplit("/", 1)[-1] for u in unreachable), drop_patches=unreachable)
                for u in unreachable:
                    rows[(name + " (patch)", u.rsplit("/", 1)[-1])] = ("left out", "ok", u)
                changed = True
            if node.get("external"):
                rows[key] = ("external", "ok", node.get("prefix", ""))
                continue
            if not src or src.get("type") == "none":
                rows[key] = ("no source", "ok", "")
                continue
            if key in rows and rows[key][1] == "ok":
                continue
            if src["type"] == "git":
                res = route_git(node, src, repos, mirror)
                route = ledger.get(f"{src['url']}@{src.get('commit')}", "git")
                rows[key] = (route, "ok", src["url"]) if res is True else (route, "FAILED", res)
                continue
            sha = src["sha256"]
            if mirror.has(sha):
                rows[key] = (ledger.get(sha, "mirror"), "ok", "")
                continue
            why = []
            for route, fn in (("debian", lambda: route_debian(node, src, deb, mirror)),
                              ("pypi", lambda: route_pypi(node, src, mirror, work)),
                              ("github", lambda: route_github(node, src, repos, mirror, work))):
                res = fn()
                if res is True:
                    ledger[sha] = route
                    rows[key] = (route, "ok", src["url"])
                    break
                if res:
                    why.append(res)
            if key in rows and rows[key][1] == "ok":
                continue
            # the same release from elsewhere, else an older release of the recipe that is
            # byte-identical, else another release from elsewhere
            kind, err, ident = route_substitute(node, src, repos, mirror, deb, overlay, work)
            if not kind and any(e.get("before_older") for e in SUBSTITUTES.get(name, [])):
                kind, err, ident = route_substitute(node, src, repos, mirror, deb, overlay, work, other=True)
            if not kind:
                kind, _, ident = route_older(node, repos, mirror, deb, overlay, work)
            if not kind:
                kind, err2, ident = route_substitute(node, src, repos, mirror, deb, overlay, work, other=True)
                err = "; ".join(e for e in (err, err2) if e)
            if kind:
                ledger[ident] = kind
                rows[key] = (kind, "ok", "overlay")
                changed = True
                continue
            if err:
                why.append(err)
            rows[key] = ("none", "FAILED", "; ".join(why) or f"no route for {src['url']}")
        save_ledger()
        if not changed:
            break
        # drop rows of versions the overlay replaced; the next round re-reads the plan
        planned = {(n["name"], n["version"]) for n in resolve(a, overlay)}
        rows = {k: r for k, r in rows.items() if k in planned or r[0] == "left out"}

    for name, o in ledger.get("overlays", {}).items():
        for u in o.get("drop") or []:
            rows[(name + " (patch)", u.rsplit("/", 1)[-1])] = ("left out", "ok", u)
    lines = [f"{'package':<24} {'version':<16} {'route':<13} result"]
    for (name, v), (route, ok, why) in sorted(rows.items()):
        lines.append(f"{name:<24} {v:<16} {route:<13} {ok}{'' if ok == 'ok' else ': ' + why}")
    counts = {}
    for route, ok, _ in rows.values():
        counts[(route, ok)] = counts.get((route, ok), 0) + 1
    lines.append("")
    lines.append("summary: " + ", ".join(f"{r} {o}: {c}" for (r, o), c in sorted(counts.items())))
    out = "\n".join(lines)
    print(out)
    if a.table:
        with open(a.table, "w") as f:
            f.write(out + "\n")
    sys.exit(0 if all(r[1] == "ok" for r in rows.values()) else 1)


if __name__ == "__main__":
    main()
