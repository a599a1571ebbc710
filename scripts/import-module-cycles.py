#!/usr/bin/env python3
"""Import cycles among the files of the Spack importer.

    scripts/import-module-cycles.py [DIR]   (DIR defaults to src/import/spack)

Each file is a module; an edge is a path in its code (tests and comments
aside) to another file of DIR (`super::x`, `crate::import::spack::a::x`).
Prints each strongly connected component of more than one file and the
count of files in them.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "src/import/spack"
mods = {}
for dirpath, _, files in os.walk(root):
    for f in files:
        if f.endswith(".rs") and f != "tests.rs" and not f.endswith("_tests.rs"):
            rel = os.path.relpath(os.path.join(dirpath, f), root)[:-3]
            name = rel[: -len("/mod")] if rel.endswith("/mod") else rel
            mods["" if name == "mod" else name] = os.path.join(dirpath, f)


def code(text):
    i = text.find("#[cfg(test)]\nmod ")
    text = text if i < 0 else text[:i]
    return re.sub(r"//.*", "", text)


def resolve(base, parts):
    """The longest module named by `parts` below `base`."""
    best = None
    for n in range(1, len(parts) + 1):
        cand = "/".join(([base] if base else []) + parts[:n])
        if cand in mods:
            best = cand
    return best


edges = {m: set() for m in mods}
for m, path in mods.items():
    text = code(open(path).read())
    parent = m.rsplit("/", 1)[0] if "/" in m else ""
    is_dir_mod = path.endswith("mod.rs")
    here = m if is_dir_mod else parent
    for p in re.findall(r"crate::import::spack::((?:\w+::)*\w+)", text):
        t = resolve("", p.split("::"))
        if t and t != m:
            edges[m].add(t)
    for sup, p in re.findall(r"(?<![\w:])((?:super::)+)((?:\w+::)*\w+)", text):
        base = here
        for _ in range(sup.count("super::") - 1):
            base = base.rsplit("/", 1)[0] if "/" in base else ""
        t = resolve(base, p.split("::"))
        if t and t != m:
            edges[m].add(t)
# a folder's mod.rs only declares its files: not an edge of the code
for m in mods:
    if mods[m].endswith("mod.rs"):
        edges[m] = {t for t in edges[m] if not t.startswith(m + "/") or m == ""}

index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def strong(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            strong(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        sccs.append(comp)


for v in mods:
    if v not in index:
        strong(v)
cycles = [sorted(c) for c in sccs if len(c) > 1]
for c in sorted(cycles, key=len, reverse=True):
    print(f"{len(c)} files: {' '.join(n or '(root)' for n in c)}")
print(f"files: {len(mods)}, in cycles: {sum(len(c) for c in cycles)}, cycles: {len(cycles)}")
