"""The build's context: the concrete specs of every node of the request,
their packages, the compiler, the stage and the tools, plus the lookups
that `Spec` delegates here (`spec["x"]`, `.libs`, `.headers`, `.command`)."""

import importlib
import os
import re

from . import defaults
from .compilers import Compiler, CompilerPackage, CompilerWrapperPackage, wrapper_dir
from .errors import InstallError
from .executable import Executable, MakeExecutable, MissingExecutable, which_string
from .package_base import PackageBase, PackagePropertyError, Stage
from .spec import LANGUAGE_VIRTUALS, ConcreteSpec, DependencySpec, QueryState, SpecView, compiler_name


def mod_to_class(name):
    """Spack's class name of a package: `py-numpy` → `PyNumpy`, `3proxy` → `_3proxy`."""
    parts = [p for p in re.split(r"[-_]+", name) if p]
    cls = "".join(p[0].upper() + p[1:].lower() for p in parts)
    if cls[:1].isdigit():
        cls = "_" + cls
    return cls


def package_class(module, pkg_name):
    want = mod_to_class(pkg_name)
    cls = module.__dict__.get(want)
    if isinstance(cls, type) and issubclass(cls, PackageBase):
        return cls
    candidates = [
        v for v in module.__dict__.values()
        if isinstance(v, type) and issubclass(v, PackageBase) and v.__module__ == module.__name__
    ]
    for c in candidates:
        if c.__name__.lower() == want.lower():
            return c
    if len(candidates) == 1:
        return candidates[0]
    raise InstallError("{} defines no package class {} (found: {})".format(
        module.__name__, want, ", ".join(c.__name__ for c in candidates) or "none"))


class BuildContext:
    def __init__(self, request):
        self.request = request
        self.jobs = int(request.get("jobs") or 1)
        comp = request.get("compiler") or {}
        self.wrappers = dict(comp.get("wrappers") or {})
        self.compiler_flags = dict(comp.get("flags") or {})
        self.inject_env = dict(comp.get("inject_env") or {})
        stage = request.get("stage") or {}
        self.stage = Stage(stage.get("root") or os.getcwd(), stage.get("source") or os.getcwd())
        self.nodes = {}
        for h, node in (request.get("nodes") or {}).items():
            self.nodes[h] = ConcreteSpec(self, h, node)
        for h, node in (request.get("nodes") or {}).items():
            parent = self.nodes[h]
            for d in node.get("dependencies") or []:
                child = self.nodes.get(d.get("hash"))
                if child is None:
                    raise InstallError("request: node {} depends on {} which is not in the request".format(
                        parent.name, d.get("hash")))
                edge = DependencySpec(parent, child, d.get("types") or ["build", "link"], d.get("virtuals") or [])
                parent._edges.append(edge)
                child._parents.append(edge)
        for node in self.nodes.values():
            if not node.module_name:
                defaults.provider_spec_attributes(node)
        root_hash = request.get("package")
        if root_hash not in self.nodes:
            raise InstallError("request: the package {} is not among the nodes".format(root_hash))
        self.root = self.nodes[root_hash]
        self.root.compiler_flags.update({k: list(v) for k, v in self.compiler_flags.items()})
        rn = (request.get("nodes") or {})[root_hash]
        c = rn.get("compiler") or {}
        self.compiler = Compiler(
            c.get("name") or "gcc", c.get("version") or "0",
            {k: comp.get(k) for k in ("cc", "cxx", "fc", "f77")},
            target=self.root.target, os_name=self.root.os,
        )
        self._compiler_nodes = {}
        self._tools = {}

    # --- packages ---------------------------------------------------------
    def package_for(self, spec):
        if spec.module_name:
            module = importlib.import_module(spec.module_name)
            cls = package_class(module, spec.name)
            return cls(spec)
        return defaults.default_package(spec)

    # --- spec["x"] --------------------------------------------------------
    def lookup(self, spec, query):
        query = str(query)
        name, _, params = query.partition(":")
        name = name.strip()
        extra = [p.strip() for p in params.split(",") if p.strip()]
        if name == spec.name:
            return SpecView(spec, QueryState(name, extra, False))
        if name in LANGUAGE_VIRTUALS:
            return SpecView(self.compiler_node(spec, name), QueryState(name, extra, True))
        found = None
        virtual = False
        # dependencies first by name, then by the virtual they provide
        for node in spec.traverse(root=False):
            if node.name == name:
                found = node
                break
        if found is None:
            for node in spec.traverse(root=True):
                for e in node._edges:
                    if name in e.virtuals:
                        found, virtual = e.spec, True
                        break
                if found is not None:
                    break
        if found is None and compiler_name(name) == compiler_name(spec.compiler.name):
            found = self.compiler_node(spec)
        if found is None and name == "compiler-wrapper" and spec.languages:
            found = self.compiler_wrapper_node(spec)
        if found is None:
            raise KeyError("No spec with name {} in {}".format(name, spec))
        return SpecView(found, QueryState(name, extra, virtual))

    def compiler_node(self, spec, language=None):
        comp = spec.language_compiler(language) if language else spec.compiler
        key = (comp.name, str(comp.version))
        node = self._compiler_nodes.get(key)
        if node is None:
            prefix = self.compiler.prefix or "/usr"
            node = ConcreteSpec(self, "", {
                "name": comp.name, "version": str(comp.version),
                "namespace": "builtin", "module": None, "variants": {},
                "target": spec.target.name, "platform": spec.platform, "os": spec.os,
                "prefix": prefix, "external": True,
            })
            node._package = CompilerPackage(node, self.compiler, self.wrappers)
            self._compiler_nodes[key] = node
        return node

    def compiler_wrapper_node(self, spec):
        """`spec["compiler-wrapper"]`: stack's wrappers (Spack's compiler-wrapper package)."""
        node = self._compiler_nodes.get("compiler-wrapper")
        if node is None:
            d = wrapper_dir(self.wrappers) or "/"
            node = ConcreteSpec(self, "", {
                "name": "compiler-wrapper", "version": "1.0", "namespace": "builtin", "module": None,
                "variants": {}, "target": spec.target.name, "platform": spec.platform, "os": spec.os,
                "prefix": os.path.dirname(d), "external": True,
            })
            node._package = CompilerWrapperPackage(node, self.wrappers)
            self._compiler_nodes["compiler-wrapper"] = node
        return node

    def compiler_nodes(self, spec):
        out = []
        for lang in spec.languages:
            n = self.compiler_node(spec, lang)
            if n not in out:
                out.append(n)
        return out

    # --- libs / headers / command --------------------------------------------
    def query_attribute(self, spec, attr, query):
        spec.last_query = query
        pkg = spec.package
        try:
            if query is not None and query.isvirtual:
                special = "{}_{}".format(query.name, attr)
                if hasattr(type(pkg), special):
                    return getattr(pkg, special)
            if hasattr(type(pkg), attr) and not (attr == "home"):
                return getattr(pkg, attr)
        except AttributeError as e:
            raise PackagePropertyError(
                "{}.{} of {} failed: {}".format(type(pkg).__name__, attr, spec.name, e)
            ) from e
        return defaults.default_attribute(spec, pkg, attr, query)

    # --- tools --------------------------------------------------------------
    def tool_path(self, name, spec=None):
        spec = spec or self.root
        for node in spec.traverse(root=False):
            p = os.path.join(node.prefix, "bin", name)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
        return which_string(name)

    def tool(self, name, make_like=False, jobs=None):
        key = (name, make_like, jobs)
        if key not in self._tools:
            path = self.tool_path(name)
            if path is None:
                exe = MissingExecutable(name)
            elif make_like:
                exe = MakeExecutable(path, jobs if jobs is not None else self.jobs)
            else:
                exe = Executable(path)
            self._tools[key] = exe
        return self._tools[key]

    def make_jobs(self, pkg):
        return self.jobs if getattr(pkg, "parallel", True) else 1
