#!/usr/bin/env python3
"""The versions spack-packages lists for the packages of recipes/ (#34 item 4).

    scripts/recipe-spack-versions.py CHECKOUT [--stack BIN] [--list] [--write]

Imports each package of recipes/ that spack-packages has (`stack import
spack`, into a temporary directory) and compares the versions the importer
writes with a source (an archive or a git reference; a version without one,
such as an external-only package's, is not fetchable in Spack either) with
the recipe's.

  --list   rewrite tests/fixtures/recipe-spack-versions.txt, the facts the
           suite checks recipes/ against (`name version` per line, no checkout
           needed): run it when the pinned spack-packages moves.
  --write  add the missing versions to recipes/<name>.yaml, each as the
           importer writes it (URL, sha256, git reference); the recipe's
           newest version stays its default (`preferred: true` when Spack
           has newer ones), and per-architecture version lists in conditions
           (`@13.0.2-x86_64,…`) that hold every version of an architecture
           get the new ones. Review the result: build steps and
           version-conditioned dependencies are the recipe's, not Spack's.

Without --list/--write it prints the missing versions. Needs PyYAML.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("recipe-spack-versions.py needs PyYAML (python3 -m pip install pyyaml)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECIPES = os.path.join(ROOT, "recipes")
LIST = os.path.join(ROOT, "tests", "fixtures", "recipe-spack-versions.txt")
ARCHS = ("x86_64", "aarch64")


def packages_dir(checkout):
    for d in (os.path.join(checkout, "repos", "spack_repo", "builtin", "packages"),
              os.path.join(checkout, "packages"), checkout):
        if os.path.isdir(d):
            return d
    sys.exit("{}: no packages directory".format(checkout))


def dir_name(name):
    d = name.replace("-", "_")
    return "_" + d if d[:1].isdigit() or d in ("global", "pass") else d


# --- versions, ordered as the stack orders them ------------------------------

INFINITY = ("stable", "trunk", "head", "master", "main", "develop")


def version_key(v):
    """The stack's order (src/spec/version.rs), closely enough to place a
    version: numbers above words, pre-releases below their release, a
    version with no number (a branch) above every release."""
    parts = [p for p in re.split(r"[._-]|(?<=\d)(?=[a-zA-Z])|(?<=[a-zA-Z])(?=\d)", v) if p]
    if not any(p.isdigit() for p in parts):
        return (1, INFINITY.index(v) if v in INFINITY else -1, ())
    key = []
    for p in parts:
        if p.isdigit():
            key.append((2, int(p), ""))
        elif p in ("alpha", "beta", "rc"):
            key.append((0, ("alpha", "beta", "rc").index(p), p))
        else:
            key.append((1, 0, p))
    return (0, 0, tuple(key))


def is_branch(v):
    return not re.search(r"\d", v)


def release_of(v):
    for a in ARCHS:
        if v.endswith("-" + a):
            return v[: -len(a) - 1]
    return v


# --- reading ------------------------------------------------------------------


def fetchable(entry):
    return "url" in entry or "git" in entry


def imported_versions(stack, checkout, names):
    """name -> [version entry] as `stack import spack` writes them."""
    with tempfile.TemporaryDirectory(prefix="recipe-spack-versions.") as tmp:
        out = os.path.join(tmp, "recipes")
        subprocess.run([stack, "import", "spack", *names, "--from", packages_dir(checkout), "--out", out],
                       check=True, stdout=subprocess.DEVNULL)
        result = {}
        for n in names:
            path = os.path.join(out, n + ".yaml")
            if not os.path.exists(path):
                continue
            with open(path) as f:
                doc = yaml.safe_load(f)
            result[n] = [v for v in doc.get("versions") or [] if fetchable(v)]
        return result


def recipe_versions(name):
    with open(os.path.join(RECIPES, name + ".yaml")) as f:
        doc = yaml.safe_load(f)
    return [str(v["version"]) for v in doc.get("versions") or []]


# --- writing ------------------------------------------------------------------


def quoted(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def flow(entry):
    parts = []
    for k, v in entry.items():
        if k == "preferred":
            continue  # the recipe's reviewed default stays its default
        if k == "version":
            parts.append("version: " + quoted(v) if not is_branch(str(v)) else "version: " + str(v))
        elif isinstance(v, bool):
            parts.append("{}: {}".format(k, "true" if v else "false"))
        elif k == "sha256" or k == "commit":
            parts.append("{}: {}".format(k, v))
        elif isinstance(v, (list, dict)):
            parts.append("{}: {}".format(k, yaml.safe_dump(v, default_flow_style=True, width=10000).strip()))
        else:
            parts.append("{}: {}".format(k, quoted(v)))
    return "  - {" + ", ".join(parts) + "}"


ENTRY = re.compile(r"^  - (?:\{\s*)?version:\s*\"?([^\",}\s]+)\"?")


def add_versions(name, new_entries):
    path = os.path.join(RECIPES, name + ".yaml")
    with open(path) as f:
        lines = f.read().split("\n")
    start = lines.index("versions:")
    entries = []  # (first line, last line, version)
    i = start + 1
    while i < len(lines) and (lines[i].startswith("  ") or not lines[i].strip()):
        m = ENTRY.match(lines[i])
        if m:
            entries.append([i, i, m.group(1)])
        elif entries and lines[i].startswith("    "):
            entries[-1][1] = i
        i += 1
    existing = [e[2] for e in entries]
    numeric = [v for v in existing if not is_branch(v) and "wheels" not in v]
    newest = max(numeric, key=version_key) if numeric else None
    has_preferred = any("preferred: true" in lines[e[0]] for e in entries) or any(
        "preferred: true" in lines[j] for e in entries for j in range(e[0], e[1] + 1))
    new_versions = [str(e["version"]) for e in new_entries]
    newer = newest and any(not is_branch(v) and version_key(release_of(v)) > version_key(release_of(newest))
                           for v in new_versions)
    insertions = {}  # line index -> [text]
    tail = entries[-1][1] + 1 if entries else start + 1
    # The recipe's own order (most are newest first, some oldest first).
    keys = [version_key(x[2]) for x in entries if not is_branch(x[2])]
    ascending = len(keys) > 1 and keys[0] < keys[-1]
    for e in sorted(new_entries, key=lambda e: version_key(str(e["version"])), reverse=not ascending):
        v = version_key(str(e["version"]))
        before = next((x[0] for x in entries
                       if (version_key(x[2]) > v if ascending else version_key(x[2]) < v)), tail)
        insertions.setdefault(before, []).append(flow(e))
    out = []
    for idx, line in enumerate(lines):
        out.extend(insertions.get(idx, []))
        if newer and not has_preferred and any(
                x[0] == idx and release_of(x[2]) == release_of(newest) for x in entries):
            if line.rstrip().endswith("}"):
                line = line.rstrip()[:-1].rstrip() + ", preferred: true}"
            else:
                out.append(line)
                line = "    preferred: true"
        out.append(line)
    if len(lines) in insertions:
        out.extend(insertions[len(lines)])
    text = "\n".join(out)
    text = extend_arch_lists(text, existing, new_versions)
    with open(path, "w") as f:
        f.write(text)


def extend_arch_lists(text, existing, new_versions):
    """`@a-x86_64,b-x86_64,…` lists that hold every (non-wheel) existing
    version of an architecture get that architecture's new versions."""
    def arch_of(v):
        return next((a for a in ARCHS if v.endswith("-" + a) and "wheels" not in v), None)

    by_arch = {a: {v for v in existing if arch_of(v) == a} for a in ARCHS}
    new_by_arch = {a: [v for v in new_versions if arch_of(v) == a] for a in ARCHS}

    def repl(m):
        items = m.group(1).split(",")
        have = set(items)
        added = []
        for a in ARCHS:
            if by_arch[a] and by_arch[a] <= have:
                added.extend(v for v in new_by_arch[a] if v not in have)
        if not added:
            return m.group(0)
        added.sort(key=lambda v: (version_key(release_of(v)), v), reverse=True)
        return "@" + ",".join(items + added)

    return re.sub(r"@([A-Za-z0-9_.,=-]+)", repl, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkout")
    ap.add_argument("--stack", default=None)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    stack = a.stack or next((p for p in (os.path.join(ROOT, "target", d, "stack") for d in ("release", "debug"))
                             if os.path.exists(p)), None)
    if not stack:
        sys.exit("no stack binary: build one (cargo build --release) or give --stack")
    pkgs = packages_dir(a.checkout)
    names = sorted(f[:-5] for f in os.listdir(RECIPES) if f.endswith(".yaml")
                   and os.path.isfile(os.path.join(pkgs, dir_name(f[:-5]), "package.py")))
    spack = imported_versions(stack, a.checkout, names)
    if a.list:
        with open(LIST, "w") as f:
            f.write("# The versions with a source that spack-packages lists for the packages of recipes/\n"
                    "# (as `stack import spack` writes them), which recipes/ keeps (#34 item 4).\n"
                    "# Written by scripts/recipe-spack-versions.py --list from spack-packages {}.\n".format(
                        commit_of(a.checkout)))
            for n in names:
                for e in spack.get(n, []):
                    f.write("{} {}\n".format(n, e["version"]))
    total = 0
    for n in names:
        have = set(recipe_versions(n))
        missing = [e for e in spack.get(n, []) if str(e["version"]) not in have]
        if not missing:
            continue
        total += len(missing)
        if a.write:
            add_versions(n, missing)
        print("{}: {}".format(n, " ".join(str(e["version"]) for e in missing)))
    print("{} versions missing from {} recipes{}".format(total, len(names), " (added)" if a.write else ""),
          file=sys.stderr)


def commit_of(checkout):
    try:
        return subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "(unknown commit)"


if __name__ == "__main__":
    main()
