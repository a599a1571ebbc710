"""The byte-identical routes of scripts/uenv-mirror.py: the mirror itself, Debian's source
packages (a private apt directory), PyPI, GitHub archives reproduced from fetched repositories,
git sources and URL patches of a commit.
"""

import glob
import gzip
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

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
        run(["apt-get", "source", "--download-only", f"{pkg}={ver}"], cwd=self.dl,
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
