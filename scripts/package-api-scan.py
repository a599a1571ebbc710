#!/usr/bin/env python3
"""Static scan of package.py files against stack's package API (API.txt):
which modules, names and attributes of the package API a file uses that
the layer does not implement.  A measuring tool for #41, not part of
`stack`.

    python3 scripts/package-api-scan.py <packages dir> [--json out.json]

<packages dir> holds <dir>/package.py (a Spack repository's `packages/`).
Attributes are checked where the scan knows the object's type: `self` in a
package or builder class, `self.spec`/`spec`/`spec["x"]`, `self.compiler`,
versions, `env` of the setup_*_environment hooks, `.libs`/`.headers`,
`self.stage`.
"""

import ast
import builtins
import collections
import json
import os
import sys

LAYER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "build_logic", "python")
sys.path.insert(0, os.path.abspath(LAYER))

from stack_spack import finder, record  # noqa: E402
from stack_spack.api_listing import sections  # noqa: E402
from stack_spack.package_base import Builder, PackageBase, builder_class_for  # noqa: E402

BUILTINS = set(dir(builtins)) | {"__file__", "__name__", "__qualname__", "__doc__", "__module__"}
ENV_HOOKS = {"setup_build_environment", "setup_run_environment", "setup_dependent_build_environment",
             "setup_dependent_run_environment"}


def api_sections():
    return {name: set(items) for name, items in sections()}


def dynamic_names(root, dirs):
    """Attributes packages set on specs and modules of their dependents
    (`self.spec.mpicc = …`, `module.cmake = …`) anywhere in the repository."""
    spec_attrs, module_vars = set(), set()
    for d in dirs:
        try:
            tree = ast.parse(open(os.path.join(root, d, "package.py")).read())
        except SyntaxError:
            continue
        for n in ast.walk(tree):
            targets = []
            if isinstance(n, ast.Assign):
                targets = n.targets
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
                targets = [n.target]
            for t in targets:
                if isinstance(t, ast.Attribute):
                    chain = _chain(t.value)
                    if chain in ("self.spec", "spec", "dependent_spec"):
                        spec_attrs.add(t.attr)
                    if chain in ("module", "dependent_module"):
                        module_vars.add(t.attr)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr" and n.args:
                if _chain(n.args[0]) in ("module",) and isinstance(n.args[1], ast.Constant):
                    module_vars.add(n.args[1].value)
    return spec_attrs, module_vars


def _chain(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Subscript):
        inner = _chain(node.value)
        if inner:
            parts.append(inner + "[]")
            return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        inner = _chain(node.func)
        if inner:
            parts.append(inner + "()")
            return ".".join(reversed(parts))
    return None


class Scanner:
    def __init__(self, root, api, spec_dyn, module_dyn):
        self.root = root
        self.api = api
        self.spec_attrs = api["class:Spec"] | spec_dyn | {"package", "mpicc", "mpicxx", "mpifc", "mpif77"}
        self.names = api["spack.package"] | api["module-variables"] | module_dyn
        self.modules = api["modules"]

    def type_sets(self):
        a = self.api
        return {
            "Spec": self.spec_attrs,
            "Compiler": a["class:Compiler"],
            "Version": a["class:Version"],
            "VariantValue": a["class:VariantValue"],
            "Stage": a["class:Stage"],
            "Env": a["class:EnvironmentModifications"],
            "LibraryList": a["class:LibraryList"],
            "HeaderList": a["class:HeaderList"],
            "CompilerPackage": a["class:CompilerPackage"],
        }

    def scan(self, d):
        path = os.path.join(self.root, d, "package.py")
        src = open(path).read()
        tree = ast.parse(src)
        missing = []
        defined = set()
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                defined.add(n.name)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                defined.add(n.id)
            elif isinstance(n, ast.arg):
                defined.add(n.arg)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                defined.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                missing.extend(self.check_import(n))
                if isinstance(n, ast.ImportFrom) and n.module == "spack.package":
                    continue
                for a in n.names:
                    defined.add((a.asname or a.name).split(".")[0])
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                if n.id not in defined and n.id not in BUILTINS and n.id not in self.names:
                    missing.append(("name", n.id, n.lineno))
        missing.extend(self.check_attributes(d, tree))
        return sorted(set(missing), key=lambda m: (m[2], m[1]))

    def check_import(self, n):
        out = []
        if isinstance(n, ast.Import):
            for a in n.names:
                top = a.name.split(".")[0]
                if top in ("spack", "llnl") and a.name not in self.modules and a.name not in (
                        "spack", "llnl", "spack.util", "llnl.util", "spack.llnl", "spack.llnl.util"):
                    out.append(("module", a.name, n.lineno))
            return out
        mod = n.module or ""
        if n.level:
            return out
        parts = mod.split(".")
        if parts[0] in ("spack", "llnl"):
            if mod == "spack.package":
                for a in n.names:
                    if a.name != "*" and a.name not in self.api["spack.package"]:
                        out.append(("spack.package", a.name, n.lineno))
            elif mod in ("spack", "spack.build_systems", "llnl.util", "spack.util"):
                pass
            elif mod not in self.modules:
                out.append(("module", mod, n.lineno))
            else:
                target = finder.ALIASES.get(mod) or finder.ALIASES.get(mod.replace("spack.llnl.", "llnl.", 1))
                if target:
                    m = __import__(target, fromlist=["x"])
                    for a in n.names:
                        if a.name != "*" and not hasattr(m, a.name):
                            out.append(("name-of-" + mod, a.name, n.lineno))
        elif parts[0] == "spack_repo" and len(parts) >= 3 and parts[2] == "build_systems":
            if len(parts) == 3:
                for a in n.names:
                    if "build_systems." + a.name not in self.api:
                        out.append(("module", mod + "." + a.name, n.lineno))
            else:
                sec = "build_systems." + parts[3]
                if sec not in self.api:
                    out.append(("module", mod, n.lineno))
                else:
                    for a in n.names:
                        if a.name != "*" and a.name not in self.api[sec] and a.name not in self.api["spack.package"]:
                            out.append(("name-of-" + mod, a.name, n.lineno))
        return out

    def live_classes(self, d):
        ns = os.path.basename(os.path.dirname(self.root))
        name = record.module_name(ns, d)
        finder.forget_packages()
        try:
            __import__(name)
        except BaseException:  # noqa: BLE001 - the import is measured elsewhere
            return {}
        m = sys.modules[name]
        return {k: v for k, v in vars(m).items() if isinstance(v, type) and v.__module__ == name}

    def check_attributes(self, d, tree):
        out = []
        live = self.live_classes(d)
        types = self.type_sets()
        self_assigned = set()
        for n in ast.walk(tree):
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                ts = n.targets if isinstance(n, ast.Assign) else [n.target]
                for t in ts:
                    for sub in ast.walk(t):
                        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
                            self_assigned.add(sub.attr)
        for cdef in [n for n in tree.body if isinstance(n, ast.ClassDef)]:
            cls = live.get(cdef.name)
            kind = None
            builder_attrs = set()
            if isinstance(cls, type) and issubclass(cls, PackageBase):
                kind = "Package"
                try:
                    inst = cls.__new__(cls)
                    inst.spec = None
                    for b in {builder_class_for_cls(cls)} - {None}:
                        builder_attrs |= set(dir(b))
                except Exception:  # noqa: BLE001
                    pass
            elif isinstance(cls, type) and issubclass(cls, Builder):
                kind = "Builder"
            for fn in [n for n in ast.walk(cdef) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
                env_param = None
                args = [a.arg for a in fn.args.args]
                if fn.name in ENV_HOOKS and len(args) > 1:
                    env_param = args[1]
                local_types = {"spec": "Spec", "dependent_spec": "Spec", "dspec": "Spec"}
                if env_param:
                    local_types[env_param] = "Env"
                if fn.name == "url_for_version" and len(args) > 1:
                    local_types[args[1]] = "Version"
                for n in ast.walk(fn):
                    if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                        t = self.type_of(n.value, local_types)
                        if t:
                            local_types[n.targets[0].id] = t
                        elif n.targets[0].id in local_types and n.targets[0].id not in ("spec",):
                            local_types.pop(n.targets[0].id, None)
                for n in ast.walk(fn):
                    if not isinstance(n, ast.Attribute) or not isinstance(n.ctx, ast.Load):
                        continue
                    if isinstance(n.value, ast.Name) and n.value.id == "self" and kind and cls is not None:
                        a = n.attr
                        ok = hasattr(cls, a) or a in self_assigned or a in builder_attrs
                        if kind == "Builder" and not ok:
                            ok = a in ("pkg", "spec", "stage", "prefix")
                        if not ok:
                            out.append(("{}.attr".format(kind), a, n.lineno))
                        continue
                    t = self.type_of(n.value, local_types, self_kind=kind)
                    if t and t in types and n.attr not in types[t] and not n.attr.startswith("_"):
                        out.append((t + ".attr", n.attr, n.lineno))
        return out

    def type_of(self, node, local_types, self_kind=None):
        """The type of an expression, as far as the scan knows it."""
        if isinstance(node, ast.Name):
            return local_types.get(node.id)
        if isinstance(node, ast.Subscript):
            base = self.type_of(node.value, local_types, self_kind)
            if base == "Spec":
                key = node.slice.value if isinstance(node.slice, ast.Constant) else None
                return "Spec"
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                key = node.slice.value if isinstance(node.slice, ast.Constant) else None
                if key in ("c", "cxx", "fortran"):
                    return "CompilerPackage"
            if isinstance(node.value, ast.Attribute) and node.value.attr == "variants":
                if self.type_of(node.value.value, local_types, self_kind) == "Spec":
                    return "VariantValue"
            return None
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                return {"spec": "Spec", "compiler": "Compiler", "version": "Version", "stage": "Stage"}.get(node.attr)
            base = self.type_of(node.value, local_types, self_kind)
            if base == "Spec":
                return {"version": "Version", "libs": "LibraryList", "headers": "HeaderList"}.get(node.attr)
            return None
        return None


def builder_class_for_cls(cls):
    class _S:
        variants = {}

    inst = cls.__new__(cls)
    inst.spec = _S()
    try:
        return builder_class_for(inst)
    except Exception:  # noqa: BLE001
        return None


def main(argv):
    root = os.path.abspath(argv[0])
    out_json = argv[argv.index("--json") + 1] if "--json" in argv else None
    dirs = sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "package.py")))
    api = api_sections()
    spec_dyn, module_dyn = dynamic_names(root, dirs)
    finder.install().add_root(os.path.dirname(os.path.dirname(root)), "spack")
    scanner = Scanner(root, api, spec_dyn, module_dyn)
    per_pkg = {}
    for d in dirs:
        per_pkg[d] = scanner.scan(d)
    clean = sum(1 for v in per_pkg.values() if not v)
    print("packages {} using only implemented API {} ({:.1f}%)".format(len(dirs), clean, 100.0 * clean / len(dirs)))
    c = collections.Counter()
    for d, v in per_pkg.items():
        for kind, name, _ in set((k, n, 0) for k, n, _ in v):
            c[(kind, name)] += 1
    print("most frequent missing (packages using it):")
    for (kind, name), n in c.most_common(60):
        print("  {:5d} {} {}".format(n, kind, name))
    if out_json:
        with open(out_json, "w") as f:
            json.dump(per_pkg, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
