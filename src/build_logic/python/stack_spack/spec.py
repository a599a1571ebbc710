"""Specs: the concrete spec of each node of the build (from the request) and
abstract specs written by package code (`Spec("foo@1.2")`), with Spack's
`satisfies` semantics.

A concrete spec knows its closure: `spec["dep"]` by name or virtual (also
`c`, `cxx`, `fortran`: the compiler), `^dep` conditions, `dependencies()`,
`traverse()`.  `spec["x"]` returns a view that remembers the query, so that
`spec["blas"].libs` asks the provider's `blas_libs` first and
`spec["hdf5:cxx,hl"].libs` sees `last_query.extra_parameters`.
"""

from . import specsyntax, target as targets
from .errors import SpecSyntaxError, not_implemented
from .prefix import Prefix
from .version import ExactVersion, Version, VersionList, ver

ALL_DEPTYPES = ("build", "link", "run", "test")

# Compiler package names and the spellings conditions use for them.
COMPILER_ALIASES = {
    "clang": "llvm",
    "llvm": "llvm",
    "oneapi": "intel-oneapi-compilers",
    "intel-oneapi-compilers": "intel-oneapi-compilers",
    "intel": "intel-oneapi-compilers-classic",
    "rocmcc": "llvm-amdgpu",
    "nvhpc": "nvhpc",
    "pgi": "nvhpc",
    "cce": "cce",
    "gcc": "gcc",
    "aocc": "aocc",
    "apple-clang": "apple-clang",
    "fj": "fj",
    "xl": "xl",
    "xl_r": "xl",
    "msvc": "msvc",
}

LANGUAGE_VIRTUALS = ("c", "cxx", "fortran")

# Public attributes of Spack's Spec that this layer does not implement:
# reading one is an error naming the package.py line, not an AttributeError.
SPACK_SPEC_ATTRIBUTES_MISSING = frozenset(
    """abstract_hash annotations build_spec clear_caches concretized constrain
    copy detach edges_from_dependents eq_dag eq_node from_detection from_dict
    from_json from_yaml lookup_hash mark_concrete node_dict_with_hashes
    original_spec_format patches process_hash replace_hash splice spliced
    to_dict to_json to_node_dict to_yaml tree trim user_provided_variant
    validate_detection""".split()
)


def compiler_name(name):
    return COMPILER_ALIASES.get(name, name)


# --- variants -----------------------------------------------------------


def _normal_value(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(sorted(str(v) for v in value))
    if value is None:
        return "none"
    return str(value)


class VariantValue:
    """The value of a variant on a concrete spec: `.value` is a bool, a
    string, or a tuple of strings (multi-valued)."""

    def __init__(self, name, value):
        self.name = name
        self._value = _normal_value(value)

    @property
    def value(self):
        return self._value

    @property
    def values(self):
        v = self._value
        return tuple(v) if isinstance(v, tuple) else (v,)

    @property
    def multi(self):
        return isinstance(self._value, tuple)

    def _texts(self):
        v = self._value
        if isinstance(v, bool):
            return {str(v).lower(), str(v)}
        if isinstance(v, tuple):
            return set(v)
        return {v}

    def satisfies(self, other):
        if isinstance(other, str):
            c = specsyntax.parse(other if "=" in other or other[:1] in "+~" else "{}={}".format(self.name, other))
            other = c.variants.get(self.name)
            if other is None:
                return True
        return variant_admits(self._value, other.value)

    def __contains__(self, item):
        return str(item) in self._texts() or item in self.values

    def __iter__(self):
        return iter(self.values)

    def __eq__(self, other):
        if isinstance(other, VariantValue):
            return self.name == other.name and self._value == other._value
        return self._value == _normal_value(other) if not isinstance(other, str) else str(self._value) == other

    def __hash__(self):
        return hash((self.name, self._value))

    def __bool__(self):
        return bool(self._value) if not isinstance(self._value, str) else True

    def __str__(self):
        v = self._value
        if isinstance(v, bool):
            return ("+" if v else "~") + self.name
        if isinstance(v, tuple):
            return "{}={}".format(self.name, ",".join(v))
        return "{}={}".format(self.name, v)

    def __repr__(self):
        return "VariantValue({!r}, {!r})".format(self.name, self._value)


def variant_admits(concrete, wanted):
    """Whether a concrete variant value satisfies a constraint value (a bool
    for `+x`/`~x`, a tuple of texts for `x=a,b`)."""
    if isinstance(wanted, bool):
        if isinstance(concrete, bool):
            return concrete is wanted
        texts = set(concrete) if isinstance(concrete, tuple) else {concrete}
        return str(wanted).lower() in {t.lower() for t in texts}
    wanted = tuple(wanted)
    if isinstance(concrete, bool):
        return len(wanted) == 1 and wanted[0].lower() == str(concrete).lower()
    if isinstance(concrete, tuple):
        return set(wanted) <= set(concrete) or (wanted == ("none",) and concrete == ())
    return len(wanted) == 1 and wanted[0] == concrete or (
        len(wanted) == 1 and wanted[0] == "*"
    )


class VariantMap(dict):
    """`spec.variants`: name → VariantValue."""

    def __init__(self, spec=None, values=None):
        super().__init__()
        self.spec = spec
        for k, v in (values or {}).items():
            self[k] = VariantValue(k, v)

    @property
    def dict(self):
        return dict(self)

    def satisfies(self, other):
        return all(k in self and self[k].satisfies(v) for k, v in other.items())

    def __str__(self):
        bools = sorted((v for v in self.values() if isinstance(v.value, bool)), key=lambda v: v.name)
        others = sorted((v for v in self.values() if not isinstance(v.value, bool)), key=lambda v: v.name)
        text = "".join(str(v) for v in bools)
        for v in others:
            text += " " + str(v)
        return text.strip()


class FlagMap(dict):
    """`spec.compiler_flags`: flag name → list of flags."""

    def __init__(self, flags=None):
        super().__init__()
        for name in specsyntax.FLAG_NAMES:
            self[name] = list((flags or {}).get(name, []))

    def __str__(self):
        return " ".join('{}="{}"'.format(k, " ".join(v)) for k, v in self.items() if v)


# --- compiler and architecture -------------------------------------------


class CompilerSpec:
    """`spec.compiler`: the compiler's name and version."""

    def __init__(self, name, version):
        self.name = name
        self.version = Version(version) if version else Version("0")

    @property
    def versions(self):
        return VersionList([self.version])

    def satisfies(self, other):
        c = specsyntax.parse(other if str(other).startswith("%") or "@" in str(other) or True else other)
        if c.name is None and c.direct:
            c = c.direct[0][1]
        if c.name and compiler_name(c.name) != compiler_name(self.name):
            return False
        return c.versions is None or c.versions.contains(self.version)

    def __str__(self):
        return "{}@{}".format(self.name, self.version)

    __repr__ = __str__

    def __eq__(self, other):
        if isinstance(other, str):
            return str(self) == other or self.name == other
        return isinstance(other, CompilerSpec) and (self.name, self.version) == (other.name, other.version)

    def __hash__(self):
        return hash((self.name, str(self.version)))


class ArchSpec:
    def __init__(self, platform, os_, target):
        self.platform = platform or "linux"
        self.os = os_ or "unknown"
        self.target = targets.Microarchitecture(target or "x86_64")

    @property
    def platform_os(self):
        return self.os

    def satisfies(self, other):
        c = specsyntax.parse(str(other) if "=" in str(other) else "arch=" + str(other))
        return _arch_ok(self.platform, self.os, self.target.name, c)

    def __str__(self):
        return "{}-{}-{}".format(self.platform, self.os, self.target)

    def __repr__(self):
        return str(self)

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


def _arch_ok(platform, os_, target, c):
    if c.platform and c.platform != platform:
        return False
    if c.os and c.os != os_ and not (c.os in ("fe", "be", "default_os", "frontend", "backend")):
        return False
    if c.target and not targets.constraint_admits(c.target, target):
        return False
    return True


class QueryState:
    """`spec.last_query`: how a dependent asked for this spec."""

    def __init__(self, name, extra_parameters=(), isvirtual=False):
        self.name = name
        self.extra_parameters = list(extra_parameters)
        self.isvirtual = isvirtual

    def __repr__(self):
        return "QueryState({!r}, {!r}, {!r})".format(self.name, self.extra_parameters, self.isvirtual)


class DependencySpec:
    """An edge of the DAG: `parent` depends on `spec` with `depflag` types,
    providing `virtuals`."""

    def __init__(self, parent, spec, types, virtuals):
        self.parent = parent
        self.spec = spec
        self.deptypes = tuple(types)
        self.virtuals = tuple(virtuals)

    @property
    def depflag(self):
        return self.deptypes

    def __repr__(self):
        return "DependencySpec({} -> {}, {}, {})".format(self.parent.name, self.spec.name, self.deptypes, self.virtuals)


# --- the spec classes ----------------------------------------------------


class Spec:
    """Spack's `Spec`.  `Spec("text")` parses an abstract spec; the specs of
    the build (`self.spec`) are concrete."""

    def __new__(cls, *args, **kwargs):
        if cls is Spec:
            return object.__new__(AbstractSpec)
        return object.__new__(cls)

    @staticmethod
    def from_detection(*args, **kwargs):
        raise not_implemented("Spec.from_detection")


class AbstractSpec(Spec):
    def __init__(self, text="", **kwargs):
        if isinstance(text, AbstractSpec):
            text = str(text)
        self._c = specsyntax.parse(str(text)) if text else specsyntax.Constraint()

    @property
    def name(self):
        return self._c.name

    @property
    def namespace(self):
        return self._c.namespace

    @property
    def versions(self):
        return self._c.versions if self._c.versions is not None else VersionList([ver(":")])

    @property
    def version(self):
        vl = self._c.versions
        if vl is not None and len(vl.items) == 1:
            it = vl.items[0]
            if isinstance(it, ExactVersion):
                return it.version
            if isinstance(it, Version):
                return it
        raise SpecSyntaxError("spec {!r} has no concrete version".format(str(self)))

    @property
    def variants(self):
        return {k: VariantValue(k, v.value if not isinstance(v.value, tuple) or len(v.value) > 1 else v.value[0])
                for k, v in self._c.variants.items()}

    @property
    def concrete(self):
        return False

    @property
    def anonymous(self):
        return self._c.name is None

    @property
    def virtual(self):
        return False

    def satisfies(self, other):
        """Abstract against abstract: every constraint of `other` is present
        (with a range inside `other`'s) in this spec."""
        o = specsyntax.parse(str(other))
        c = self._c
        if o.name and o.name != c.name:
            return False
        if o.versions is not None:
            if c.versions is None or not c.versions.satisfies(o.versions):
                return False
        for k, v in o.variants.items():
            mine = c.variants.get(k)
            if mine is None or not variant_admits(_constraint_as_concrete(mine.value), v.value):
                return False
        return True

    def intersects(self, other):
        o = specsyntax.parse(str(other))
        c = self._c
        if o.name and c.name and o.name != c.name:
            return False
        if o.versions is not None and c.versions is not None and not c.versions.intersects(o.versions):
            return False
        for k, v in o.variants.items():
            mine = c.variants.get(k)
            if mine is not None and isinstance(v.value, bool) and isinstance(mine.value, bool) and v.value != mine.value:
                return False
        return True

    def __contains__(self, other):
        return self.satisfies(other)

    def __str__(self):
        return str(self._c)

    def __repr__(self):
        return str(self)

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    def format(self, fmt="{name}{@versions}{variants}"):
        return _format(self, fmt)


def _constraint_as_concrete(value):
    if isinstance(value, bool):
        return value
    return value[0] if len(value) == 1 else tuple(value)


class ConcreteSpec(Spec):
    """A node of the build, concrete."""

    def __init__(self, ctx, hash_, node):
        self._ctx = ctx
        self._hash = hash_ or ""
        self.name = node["name"]
        self.namespace = node.get("namespace") or "builtin"
        self.version = Version(str(node.get("version") or "0"))
        self.variants = VariantMap(self, node.get("variants") or {})
        comp = node.get("compiler") or {}
        self.compiler = CompilerSpec(comp.get("name") or "gcc", comp.get("version") or "0")
        # the compiler of each language, when the request says (`%fortran=nvhpc`)
        self.compilers = {
            lang: CompilerSpec(c.get("name") or self.compiler.name, c.get("version") or str(self.compiler.version))
            for lang, c in (node.get("compilers") or {}).items() if isinstance(c, dict)
        }
        self.languages = tuple(node.get("languages") or ())
        self.architecture = ArchSpec(node.get("platform"), node.get("os"), node.get("target"))
        self.prefix = Prefix(node.get("prefix") or "/")
        self.external = bool(node.get("external"))
        self.external_path = self.prefix if self.external else None
        self.external_modules = []
        self.module_name = node.get("module")
        self.compiler_flags = FlagMap(node.get("flags"))
        self.extra_attributes = dict(node.get("extra_attributes") or {})
        self._edges = []  # DependencySpec to children
        self._parents = []  # DependencySpec from parents
        self.last_query = QueryState(self.name)
        self._package = None

    # --- identity ------------------------------------------------------
    concrete = True
    virtual = False
    installed = True

    @property
    def fullname(self):
        return "{}.{}".format(self.namespace, self.name)

    @property
    def versions(self):
        return VersionList([self.version])

    @property
    def target(self):
        return self.architecture.target

    @property
    def os(self):
        return self.architecture.os

    @property
    def platform(self):
        return self.architecture.platform

    @property
    def root(self):
        return self._ctx.root if self._ctx is not None else self

    @property
    def build_spec(self):
        return self

    def dag_hash(self, length=None):
        if not self._hash:
            import hashlib

            self._hash = hashlib.sha256(str(self).encode()).hexdigest()[:32]
        h = self._hash
        return h[:length] if length else h

    def dag_hash_bit_prefix(self, bits):
        return int(self.dag_hash(), 16) >> max(0, len(self.dag_hash()) * 4 - bits) if all(
            c in "0123456789abcdef" for c in self.dag_hash()
        ) else 0

    def __hash__(self):
        return hash((self.name, self._hash))

    def __eq__(self, other):
        if isinstance(other, SpecView):
            other = other._wrapped
        if isinstance(other, ConcreteSpec):
            return self is other or (self.name, self._hash) == (other.name, other._hash)
        if isinstance(other, str):
            return self.name == other or str(self) == other
        return False

    def __ne__(self, other):
        return not self.__eq__(other)

    # --- the package ----------------------------------------------------
    @property
    def package(self):
        if self._package is None:
            self._package = self._ctx.package_for(self)
        return self._package

    @package.setter
    def package(self, value):
        self._package = value

    @property
    def package_class(self):
        return type(self.package)

    # --- libs, headers, command (asked of the package) ---------------------
    @property
    def libs(self):
        return self._ctx.query_attribute(self, "libs", self.last_query)

    @property
    def headers(self):
        return self._ctx.query_attribute(self, "headers", self.last_query)

    @property
    def command(self):
        return self._ctx.query_attribute(self, "command", self.last_query)

    @property
    def home(self):
        return getattr(self.package, "home", self.prefix)

    # --- the DAG --------------------------------------------------------
    def edges_to_dependencies(self, name=None, depflag=None, deptype=None, virtuals=None):
        want = _deptypes(depflag if depflag is not None else deptype)
        out = []
        for e in self._edges:
            if want and not set(e.deptypes) & want:
                continue
            if name is not None and not (e.spec.name == name or name in e.virtuals):
                continue
            if virtuals is not None and not set(_listify(virtuals)) & set(e.virtuals):
                continue
            out.append(e)
        return out

    def edges_from_dependents(self, name=None, depflag=None, deptype=None, virtuals=None):
        want = _deptypes(depflag if depflag is not None else deptype)
        return [e for e in self._parents
                if (not want or set(e.deptypes) & want) and (name is None or e.parent.name == name)]

    def dependencies(self, name=None, deptype=None, depflag=None, virtuals=None):
        return [e.spec for e in self.edges_to_dependencies(name, depflag, deptype, virtuals)]

    def language_compiler(self, language):
        """The compiler of one language (`c`, `cxx`, `fortran`)."""
        return self.compilers.get(language, self.compiler)

    def has_virtual_dependency(self, virtual):
        return any(virtual in e.virtuals for n in self.traverse() for e in n._edges) or (
            virtual in LANGUAGE_VIRTUALS and virtual in self.languages
        )

    def dependents(self, name=None, deptype=None, depflag=None):
        return [e.parent for e in self.edges_from_dependents(name, depflag, deptype)]

    def traverse(self, root=True, order="pre", cover="nodes", direction="children",
                 deptype=None, depflag=None, visited=None, key=None, depth=False):
        want = _deptypes(depflag if depflag is not None else deptype)
        seen = set() if visited is None else visited
        out = []

        def visit(node, d):
            k = id(node)
            if k in seen:
                return
            seen.add(k)
            if order == "pre" and (root or node is not self):
                out.append((d, node))
            edges = node._edges if direction == "children" else node._parents
            for e in sorted(edges, key=lambda e: (e.spec if direction == "children" else e.parent).name):
                if want and not set(e.deptypes) & want:
                    continue
                visit(e.spec if direction == "children" else e.parent, d + 1)
            if order == "post" and (root or node is not self):
                out.append((d, node))

        visit(self, 0)
        if order == "topo":
            out = [(d, n) for d, n in _topological(self, want, root)]
        for d, n in out:
            yield (d, n) if depth else n

    def traverse_edges(self, root=True, order="pre", cover="edges", deptype=None, depflag=None, **kw):
        want = _deptypes(depflag if depflag is not None else deptype)
        seen = set()
        for node in self.traverse(root=True, deptype=deptype, depflag=depflag):
            for e in node._edges:
                if want and not set(e.deptypes) & want:
                    continue
                if id(e) not in seen:
                    seen.add(id(e))
                    yield e

    def _closure(self):
        return list(self.traverse(root=False))

    def __getitem__(self, query):
        return self._ctx.lookup(self, query)

    def __contains__(self, other):
        """`"+x" in spec` (this node), `"mpi" in spec`, `"^zlib" in spec`
        (a node of the DAG)."""
        if isinstance(other, (ConcreteSpec, SpecView)):
            o = other._wrapped if isinstance(other, SpecView) else other
            return any(n is o for n in self.traverse())
        c = specsyntax.parse(str(other))
        if c.name and not c.anonymous:
            for node in self.traverse():
                if _node_satisfies(node, c, self):
                    return True
            if compiler_name(c.name) == compiler_name(self.compiler.name) and self.languages:
                return self.satisfies("%" + str(other))
            return False
        return _node_satisfies(self, c, self)

    def satisfies(self, other, deps=True, strict=False):
        if isinstance(other, SpecView):
            other = other._wrapped
        if isinstance(other, ConcreteSpec):
            return self == other
        if isinstance(other, AbstractSpec):
            other = str(other)
        return _node_satisfies(self, specsyntax.parse(str(other)), self, deps=deps)

    def intersects(self, other, deps=True):
        return self.satisfies(other, deps=deps)

    def compiler_nodes(self):
        return self._ctx.compiler_nodes(self)

    # --- text ----------------------------------------------------------
    def format(self, fmt="{name}{@versions}{compiler_flags}{variants}{ arch=architecture}", **kwargs):
        return _format(self, fmt)

    def cformat(self, *args, **kwargs):
        return self.format(*args)

    def __str__(self):
        text = "{}@{}".format(self.name, self.version)
        v = str(self.variants)
        if v:
            text += (" " if not v.startswith(("+", "~")) else "") + v
        text += " arch={}".format(self.architecture)
        if self.languages:
            text += " %{}".format(self.compiler)
        return text

    def __repr__(self):
        return str(self)

    @property
    def short_spec(self):
        return "{} /{}".format(self, self.dag_hash(7))

    @property
    def cshort_spec(self):
        return self.short_spec

    def __getattr__(self, name):
        if name.startswith("__") or name.startswith("_"):
            raise AttributeError(name)
        if name in SPACK_SPEC_ATTRIBUTES_MISSING:
            raise not_implemented("Spec.{}".format(name))
        raise AttributeError("'Spec' object ({}) has no attribute '{}'".format(self.name, name))


class SpecView(Spec):
    """What `spec["dep:params"]` returns: the dependency's spec, which
    remembers how it was asked for (`last_query`)."""

    def __init__(self, wrapped, query):
        object.__setattr__(self, "_wrapped", wrapped)
        object.__setattr__(self, "_query", query)

    @property
    def last_query(self):
        return self._query

    @property
    def libs(self):
        return self._wrapped._ctx.query_attribute(self._wrapped, "libs", self._query)

    @property
    def headers(self):
        return self._wrapped._ctx.query_attribute(self._wrapped, "headers", self._query)

    @property
    def command(self):
        return self._wrapped._ctx.query_attribute(self._wrapped, "command", self._query)

    def __getattr__(self, name):
        return getattr(self._wrapped, name)

    def __setattr__(self, name, value):
        setattr(self._wrapped, name, value)

    def __getitem__(self, q):
        return self._wrapped[q]

    def __contains__(self, q):
        return q in self._wrapped

    def __eq__(self, other):
        return self._wrapped == other

    def __ne__(self, other):
        return not self._wrapped == other

    def __hash__(self):
        return hash(self._wrapped)

    def __str__(self):
        return str(self._wrapped)

    def __repr__(self):
        return repr(self._wrapped)

    def __format__(self, spec):
        return format(str(self._wrapped), spec)

    def satisfies(self, other, **kw):
        return self._wrapped.satisfies(other, **kw)

    def format(self, *args, **kwargs):
        return self._wrapped.format(*args, **kwargs)


def _listify(x):
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    return list(x)


def _deptypes(x):
    if x is None or x == "all" or x == ALL_DEPTYPES:
        return set()
    if isinstance(x, str):
        return {x}
    return set(x)


def _topological(root, want, include_root):
    order = []
    seen = set()

    def visit(node, d):
        if id(node) in seen:
            return
        seen.add(id(node))
        for e in sorted(node._edges, key=lambda e: e.spec.name):
            if want and not set(e.deptypes) & want:
                continue
            visit(e.spec, d + 1)
        if include_root or node is not root:
            order.append((d, node))

    visit(root, 0)
    order.reverse()
    return order


# --- satisfies -------------------------------------------------------------


def _name_matches(node, name, root):
    if node.name == name:
        return True
    for e in node._parents:
        if name in e.virtuals:
            return True
    return False


def _node_satisfies(node, c, root, deps=True):
    if c.name and not _name_matches(node, c.name, root):
        return False
    if c.namespace and c.namespace != node.namespace:
        return False
    if c.versions is not None and not c.versions.contains(node.version):
        return False
    for vname, vc in c.variants.items():
        if vname == "patches":
            continue
        if vname not in node.variants:
            return False
        if not variant_admits(node.variants[vname].value, vc.value):
            return False
    for fname, flags in c.flags.items():
        have = node.compiler_flags.get(fname, [])
        if not all(f in have for f in flags):
            return False
    if not _arch_ok(node.platform, node.os, node.target.name, c):
        return False
    if c.hash and not node.dag_hash().startswith(c.hash):
        return False
    if "dev_path" in c.other:
        return False
    for virtuals, dc in c.direct:
        if not _direct_ok(node, virtuals, dc):
            return False
    if deps:
        for virtuals, dc in c.transitive:
            if not _transitive_ok(node, virtuals, dc):
                return False
    return True


def _compiler_candidate_ok(node, virtuals, dc):
    """`%gcc@12`, `%c=gcc`, `%fortran=nvhpc`: the compiler of the node's
    languages (one per language when the toolchain mixes compilers)."""
    if not node.languages:
        return False
    if virtuals and not set(virtuals) <= set(node.languages):
        return False
    if dc.name is None or dc.variants or dc.direct or dc.transitive:
        return False
    langs = list(virtuals) if virtuals else list(node.languages)
    compilers = [node.language_compiler(lang) for lang in langs]
    if virtuals:
        ok = all(compiler_name(dc.name) == compiler_name(c.name) for c in compilers)
        ok = ok and all(dc.versions is None or dc.versions.contains(c.version) for c in compilers)
        return ok
    return any(
        compiler_name(dc.name) == compiler_name(c.name) and (dc.versions is None or dc.versions.contains(c.version))
        for c in compilers
    )


def _direct_ok(node, virtuals, dc):
    if dc.name in LANGUAGE_VIRTUALS and not virtuals:
        # `%c` alone: the node compiles C
        return dc.name in node.languages and dc.versions is None
    if _compiler_candidate_ok(node, virtuals, dc):
        return True
    for e in node._edges:
        if virtuals and not set(virtuals) <= set(e.virtuals):
            continue
        if _node_satisfies(e.spec, dc, node):
            return True
    return False


def _transitive_ok(node, virtuals, dc):
    for d in node.traverse(root=False):
        if virtuals:
            edges = [e for e in d._parents if set(virtuals) <= set(e.virtuals)]
            if not edges:
                continue
        if dc.name and dc.name != d.name and not any(dc.name in e.virtuals for e in d._parents):
            continue
        probe = dc
        if dc.name and dc.name != d.name:
            # a virtual: the provider's own version is not the virtual's
            probe = _without_versions(dc)
        if _node_satisfies(d, probe, node):
            return True
    # `^gcc`: the compiler is a (build) dependency too
    if dc.name and compiler_name(dc.name) == compiler_name(node.compiler.name) and node.languages:
        return dc.versions is None or dc.versions.contains(node.compiler.version)
    return False


def _without_versions(c):
    import copy

    c2 = copy.copy(c)
    c2.versions = None
    c2.name = None
    return c2


# --- format -----------------------------------------------------------------


def _format(spec, fmt):
    """Spack's spec format strings: `{name}`, `{version}`, `{@version}`,
    `{compiler.name}`, `{variants.x}`, `{hash:7}`, `{/hash}`, `{prefix}`,
    `{architecture}`, `{target}`, `{namespace}`, `{^dep.name}`…"""
    out = []
    i = 0
    n = len(fmt)
    while i < n:
        ch = fmt[i]
        if ch == "\\" and i + 1 < n:
            out.append(fmt[i + 1])
            i += 2
            continue
        if ch == "{":
            j = fmt.find("}", i)
            if j < 0:
                raise SpecSyntaxError("unterminated {{ in format string {!r}".format(fmt))
            out.append(_format_field(spec, fmt[i + 1 : j]))
            i = j + 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _format_field(spec, field):
    sigil = ""
    prefix_text = ""
    if field.startswith(" ") and "=" in field:
        prefix_text, _, field = field.partition("=")
        prefix_text += "="
    for s in ("@", "%", "/", "+", "^", "arch="):
        if field.startswith(s) and len(field) > len(s):
            sigil, field = s, field[len(s):]
            break
    length = None
    if ":" in field:
        field, _, fmt_spec = field.partition(":")
        try:
            length = int(fmt_spec)
        except ValueError:
            length = None
    obj = spec
    parts = field.split(".")
    if sigil == "^":
        obj = spec[parts[0]]
        parts = parts[1:]
    for p in parts:
        if p == "hash":
            obj = obj.dag_hash(length) if hasattr(obj, "dag_hash") else ""
            continue
        if p == "variants" and isinstance(obj, (ConcreteSpec, SpecView, AbstractSpec)):
            obj = obj.variants
            continue
        if isinstance(obj, dict):
            obj = obj.get(p, "")
        else:
            obj = getattr(obj, p, "")
    if obj is None or obj == "":
        return ""
    text = str(obj)
    if isinstance(obj, VariantMap):
        return text if not text or text[:1] in "+~" else " " + text
    if isinstance(obj, VariantValue):
        text = str(obj.value) if not isinstance(obj.value, tuple) else ",".join(obj.value)
    if sigil == "@" and isinstance(obj, VersionList):
        return "@" + text
    if sigil in ("@", "%", "/", "+"):
        text = sigil + text
    if sigil == "arch=":
        text = "arch=" + text
    return prefix_text + text
