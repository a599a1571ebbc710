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
import json
import os
import re
import shutil
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from uenv_routes import (Debian, Mirror, Repos, ext_of, git_tree_tarball, route_debian,  # noqa: E402
                         route_git, route_github, route_patch, route_pypi, run, sha256_file)
from uenv_sources import FIXES, RESOURCE_SUBSTITUTES, SUBSTITUTES, add_build_deps, bootstrap_deps  # noqa: E402


def builtin_recipe(name):
    p = os.path.join(os.environ.get("STACK_BUILTIN_REPO", os.path.join(ROOT, "recipes")), f"{name}.yaml")
    return p if os.path.isfile(p) else None


def yaml_str(s):
    return json.dumps(s)


OVERLAYS = {}
# A resource's planned sha256 -> (url, sha256) of the archive the overlay names instead.
RESOURCE_SWAPS = {}


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
    new = add_build_deps(new, extra_deps)
    if fix:
        new = FIXES[fix](new)
    for old_sha, (url, sha) in RESOURCE_SWAPS.items():
        new, n = re.subn(r'"url": "[^"]*", "sha256": "' + old_sha + '"',
                         lambda _: f'"url": "{url}", "sha256": "{sha}"', new)
        if n:
            note += f"; a resource (sha256 {old_sha[:12]}…) from {url.rsplit('/', 1)[-1]} instead"
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
            write_overlay(overlay, name, [entry], note, bootstrap_deps([e]) if e.get("bootstrap") else (), e.get("fix"))
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


def route_resources(node, src, mirror, deb, overlay, ledger):
    """The resources of an archive source: byte-identical from Debian's pool, else the
    RESOURCE_SUBSTITUTES file of the same release, named in the overlay. Returns the failures."""
    failed = []
    for r in src.get("resources", []):
        sha = r.get("sha256")
        if not sha or mirror.has(sha) or sha in RESOURCE_SWAPS:
            continue
        res = route_debian(node, r, deb, mirror)
        if res is True:
            continue
        sub = RESOURCE_SUBSTITUTES.get(sha)
        if not sub:
            failed.append(f"resource {r['url']}: {res or 'no route'}")
            continue
        name = sub["debian_file"]
        path, err = deb.fetch_file(name)
        if err:
            failed.append(f"resource {r['url']}: debian {name}: {err}")
            continue
        new_sha = deb.files[name][0]
        err = mirror.put_file(path, new_sha, ext_of(name))
        if err:
            failed.append(f"resource {r['url']}: {err}")
            continue
        RESOURCE_SWAPS[sha] = (f"https://deb.debian.org/debian/{deb.files[name][3]}/{name}", new_sha)
        ledger.setdefault("resource_swaps", {})[sha] = RESOURCE_SWAPS[sha]
        o = OVERLAYS.get(node["name"]) or ledger.get("overlays", {}).get(node["name"])
        if o:
            write_overlay(overlay, node["name"], o["versions"], o["note"], o["deps"], o["fix"], o.get("drop", ()))
    return failed


def git_tree_partial(node, src, repos, mirror, overlay):
    """A git version whose commit the fetched repository holds without some large blobs: the tree
    without the paths SUBSTITUTES allows to leave out (`missing_ok`), and the recipe fix that
    builds without them."""
    entry = next((e for e in SUBSTITUTES.get(node["name"], []) if e.get("git_missing_ok")), None)
    if not entry:
        return "git archive failed (blobs missing from the fetched repository)"
    m = re.match(r"https://github\.com/([^/]+)/([^/]+?)(\.git)?$", src["url"])
    repo = repos.find(m.group(1), m.group(2))
    commit = src["commit"]
    left = git_tree_tarball(repo, commit, f"{m.group(2)}-{commit[:12]}", mirror.git_path(src["url"], commit),
                            entry["git_missing_ok"])
    if left is None:
        return "git tree: blobs missing outside the paths allowed to be left out"
    write_overlay(overlay, node["name"], None, f"{node['name']}@{node['version']} without "
                  + ", ".join(left) + " (not in the fetched repository)", fix=entry.get("fix"))
    return True


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

    RESOURCE_SWAPS.update({k: tuple(v) for k, v in ledger.get("resource_swaps", {}).items()})
    # Rewrite the overlay from the shipped recipes as they are now (a fixed recipe is not hidden
    # by an old copy); the sources are in the mirror already.
    for name, o in ledger.get("overlays", {}).items():
        subs = SUBSTITUTES.get(name, [])
        fix = next((e["fix"] for e in subs if e.get("fix")), o["fix"])
        deps = bootstrap_deps(subs) if any(e.get("bootstrap") for e in subs) and o["deps"] else o["deps"]
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
                if res == "git archive failed":
                    res = git_tree_partial(node, src, repos, mirror, overlay)
                route = ledger.get(f"{src['url']}@{src.get('commit')}", "git")
                rows[key] = (route, "ok", src["url"]) if res is True else (route, "FAILED", res)
                continue
            swaps = len(RESOURCE_SWAPS)
            for err in route_resources(node, src, mirror, deb, overlay, ledger):
                rows[(name + " (resource)", err.split()[1].rsplit("/", 1)[-1])] = ("none", "FAILED", err)
            if len(RESOURCE_SWAPS) != swaps:
                rows[(name + " (resource)", "swapped")] = ("debian-orig", "ok", "")
                changed = True
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
