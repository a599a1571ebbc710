"""Directives: `version`, `variant`, `depends_on`, … called in a package's
class body.  Each call is queued while the body runs and applied when the
class is created (by `DirectiveMeta`), so that the class holds what Spack's
would: `cls.versions`, `cls.variants`, `cls.dependencies`, … keyed by the
`when` condition.  Each call is also kept in `cls._directive_log` (in call
order, conditions merged) for `directives.py`, the record the importer's
differential check compares against.
"""

import sys

from . import specsyntax
from .errors import SpackError
from .spec import AbstractSpec, Spec
from .variants import Variant
from .version import Version

# queued directive calls of the class body being evaluated
_pending = []
# queued run_before/run_after hooks of the class body being evaluated
_pending_hooks = []
# `with when(...)` and `with default_args(...)` contexts
_when_stack = []
_defaults_stack = []

DICT_ATTRIBUTES = (
    "versions", "variants", "dependencies", "conflicts", "requirements", "provided",
    "provided_together", "patches", "resources", "extendees", "licenses",
    "disable_redistribute", "splice_specs",
)


class DirectiveError(SpackError):
    pass


# --- conditions -------------------------------------------------------------


def _merge_constraints(parts):
    """One constraint holding all of `parts` (texts): the root's attributes
    from each part, then the `%` and `^` nodes."""
    root = specsyntax.Constraint()
    for text in parts:
        c = specsyntax.parse(text)
        if c.name:
            if root.name and root.name != c.name:
                root.transitive.append(((), _node_only(c)))
                continue
            root.name, root.namespace = c.name, c.namespace
        if c.versions is not None:
            if root.versions is None:
                root.versions = c.versions
            else:
                from .version import intersect_versions

                root.versions = intersect_versions(root.versions, c.versions)
        root.variants.update(c.variants)
        for k, v in c.flags.items():
            root.flags.setdefault(k, []).extend(v)
        for k in ("platform", "os", "target", "hash"):
            if getattr(c, k):
                setattr(root, k, getattr(c, k))
        root.other.update(c.other)
        for d in c.direct:
            if str(d[1]) not in [str(x[1]) for x in root.direct]:
                root.direct.append(d)
        for d in c.transitive:
            if (d[0], str(d[1])) not in [(x[0], str(x[1])) for x in root.transitive]:
                root.transitive.append(d)
    return root


def _node_only(c):
    n = specsyntax.Constraint()
    n.name, n.versions, n.variants = c.name, c.versions, dict(c.variants)
    return n


def merge_when(*conditions):
    """The conjunction of `when` conditions as text; None when there is no
    condition; False when one of them is False (the directive is dropped)."""
    parts = []
    for c in conditions:
        if c is None or c is True:
            continue
        if c is False:
            return False
        if isinstance(c, Spec):
            c = str(c)
        c = str(c).strip()
        if c:
            parts.append(c)
    if not parts:
        return None
    if len(parts) == 1:
        return str(specsyntax.parse(parts[0]))
    return str(_merge_constraints(parts))


def when_spec(condition):
    """The `when` key of a record: an abstract Spec (empty for always)."""
    if condition is None or condition is True:
        return AbstractSpec("")
    return AbstractSpec(str(condition))


def _context_when():
    return merge_when(*_when_stack) if _when_stack else None


# --- the directive decorator -------------------------------------------------


def _caller_line():
    """(file, line, class-body line) of the directive call (a base class's
    calls name the layer's file). The class-body line is the statement of
    the class body that led to the call, in the same file: a helper
    function's call (`dav_sdk_depends_on(…)`) or the directive itself."""
    frame = sys._getframe(2)
    where = (frame.f_code.co_filename, frame.f_lineno)
    body = frame
    while body.f_back is not None and body.f_back.f_code.co_filename == where[0] \
            and body.f_back.f_code.co_name != "<module>":
        body = body.f_back
    return where[0], where[1], body.f_lineno


def directive(fn):
    """Make `fn(cls, *args, **kwargs)` a directive: calls in a class body are
    queued with the context's `when` and default arguments."""
    code = fn.__code__
    n_pos = code.co_argcount
    names = code.co_varnames[: n_pos + code.co_kwonlyargcount]
    accepts = set(names)
    var_kw = bool(code.co_flags & 0x08)  # CO_VARKEYWORDS
    var_pos = bool(code.co_flags & 0x04)  # CO_VARARGS
    # names of the positional parameters after `cls` (none after a *args)
    positional = [] if var_pos and n_pos <= 1 else list(code.co_varnames[1:n_pos])

    def call(*args, **kwargs):
        if "when" in positional and len(args) > positional.index("when"):
            # `conflicts("%gcc", "@1.0")`: name the positional arguments from `when` on
            i = positional.index("when")
            for name, value in zip(positional[i:], args[i:]):
                kwargs[name] = value
            args = args[:i]
        for defaults in _defaults_stack:
            for k, v in defaults.items():
                if (k in accepts or var_kw) and k not in kwargs:
                    kwargs[k] = v
        if "when" in accepts:
            w = merge_when(_context_when(), kwargs.get("when"))
            if w is False:
                return None
            kwargs["when"] = w
        where = _caller_line()
        _pending.append((fn.__name__, fn, args, kwargs, where))
        return None

    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn
    return call


def consume_pending():
    items = list(_pending)
    del _pending[:]
    return items


def reset_pending():
    """Forget what a class body that raised left queued (and its open
    `with when(...)` contexts), so that the next class does not get it."""
    del _pending[:]
    del _pending_hooks[:]
    del _when_stack[:]
    del _defaults_stack[:]


def consume_pending_hooks():
    items = list(_pending_hooks)
    del _pending_hooks[:]
    return items


class DirectiveMeta(type):
    """Applies the queued directives of a class body to the new class."""

    def __new__(mcs, name, bases, attrs):
        attrs["_queued_directives"] = consume_pending()
        attrs["_queued_hooks"] = consume_pending_hooks()
        return super().__new__(mcs, name, bases, attrs)

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        for attr in DICT_ATTRIBUTES:
            merged = {}
            for base in reversed(cls.__mro__[1:]):
                value = base.__dict__.get(attr)
                if isinstance(value, dict):
                    for k, v in value.items():
                        if isinstance(v, dict):
                            merged.setdefault(k, {}).update(v)
                        elif isinstance(v, list):
                            merged.setdefault(k, [])
                            merged[k] = merged[k] + [x for x in v if x not in merged[k]]
                        elif isinstance(v, set):
                            merged.setdefault(k, set())
                            merged[k] = merged[k] | v
                        else:
                            merged[k] = v
            if attr == "versions" and "versions" in attrs and not isinstance(attrs["versions"], dict):
                continue
            setattr(cls, attr, merged)
        log = []
        for base in reversed(cls.__mro__[1:]):
            log.extend(x for x in base.__dict__.get("_directive_log", []) if x not in log)
        inherited_maintainers = []
        for base in reversed(cls.__mro__[1:]):
            m = base.__dict__.get("maintainers")
            if isinstance(m, list):
                inherited_maintainers.extend(x for x in m if x not in inherited_maintainers)
        own = attrs.get("maintainers")
        if isinstance(own, (list, tuple)):
            inherited_maintainers.extend(x for x in own if x not in inherited_maintainers)
        cls.maintainers = inherited_maintainers
        for dname, fn, args, kwargs, where in attrs.get("_queued_directives", ()):
            fn(cls, *args, **kwargs)
            log.append((dname, args, kwargs, where))
        cls._directive_log = log
        # hooks: the bases' first, then this class's in definition order
        hooks = []
        for base in reversed(cls.__mro__[1:]):
            for h in base.__dict__.get("_hooks", []):
                if h not in hooks:
                    hooks.append(h)
        for h in attrs.get("_queued_hooks", ()):
            hooks.append(h)
        cls._hooks = hooks
        from .multimethod import SpecMultiMethod

        for k, v in attrs.items():
            fn = v.fget if isinstance(v, property) else v
            if isinstance(fn, SpecMultiMethod):
                fn.owner = cls
                fn.__name__ = k


# --- the directives -----------------------------------------------------------

_CHECKSUM_BY_LENGTH = {32: "md5", 40: "sha1", 56: "sha224", 64: "sha256", 96: "sha384", 128: "sha512"}


@directive
def version(cls, ver, checksum=None, **kwargs):
    kw = dict(kwargs)
    if checksum is not None:
        algo = _CHECKSUM_BY_LENGTH.get(len(str(checksum)), "checksum")
        kw[algo] = checksum
    v = Version(str(ver))
    cls.versions[v] = kw


@directive
def variant(cls, name, default=None, description="", values=None, multi=None, validator=None,
            when=None, sticky=False):
    if values is not None and multi is None and not callable(values):
        multi = False
    var = Variant(name, default=default, description=description, values=values, multi=multi,
                  validator=validator, sticky=sticky)
    cls.variants.setdefault(when_spec(when), {})[name] = var


class Dependency:
    def __init__(self, spec, depflag, patches=None, when=None):
        self.spec = AbstractSpec(spec) if not isinstance(spec, Spec) else spec
        self.depflag = tuple(depflag)
        self.patches = patches
        self.when = when

    @property
    def type(self):
        return self.depflag

    @property
    def name(self):
        return self.spec.name

    def __repr__(self):
        return "Dependency({!r}, {})".format(str(self.spec), self.depflag)


def _types(type_):
    if type_ is None:
        return ("build", "link")
    if isinstance(type_, str):
        return (type_,)
    return tuple(type_)


def _add_dependency(cls, dep, when):
    """Spack's `_depends_on`: a dependency named again under the same
    condition constrains the first (spec merged, types united, patches
    added)."""
    deps = cls.dependencies.setdefault(when_spec(when), {})
    old = deps.get(dep.spec.name)
    if old is None:
        deps[dep.spec.name] = dep
        return
    spec = AbstractSpec(str(_merge_constraints([str(old.spec), str(dep.spec)])))
    types = tuple(old.depflag) + tuple(t for t in dep.depflag if t not in old.depflag)
    patches = list(old.patches or []) + list(dep.patches or [])
    deps[dep.spec.name] = Dependency(spec, types, patches or None, when)


@directive
def depends_on(cls, spec, when=None, type=None, patches=None):
    _add_dependency(cls, Dependency(str(spec), _types(type), patches, when), when)


@directive
def extends(cls, spec, when=None, type=("build", "run"), patches=None):
    dep = Dependency(str(spec), _types(type), patches, when)
    _add_dependency(cls, dep, when)
    cls.extendees[dep.spec.name] = (dep.spec, when_spec(when))
    # Spack: a Python extension also needs the venv that isolates it.
    if dep.spec.name == "python" and getattr(cls, "name", None) != "python-venv":
        _add_dependency(cls, Dependency("python-venv", ("build", "run"), None, when), when)


@directive
def conflicts(cls, conflict_spec, when=None, msg=None):
    cls.conflicts.setdefault(when_spec(when), []).append((AbstractSpec(str(conflict_spec)), msg))


@directive
def requires(cls, *requirement_specs, policy="one_of", when=None, msg=None):
    specs = tuple(AbstractSpec(str(s)) for s in requirement_specs)
    cls.requirements.setdefault(when_spec(when), []).append((specs, policy, msg))


@directive
def provides(cls, *specs, when=None):
    key = when_spec(when)
    provided = cls.provided.setdefault(key, set())
    for s in specs:
        provided.add(AbstractSpec(str(s)))
    if len(specs) > 1:
        cls.provided_together.setdefault(key, []).append(set(str(s) for s in specs))


class Patch:
    def __init__(self, path_or_url, level=1, working_dir=".", reverse=False, sha256=None,
                 archive_sha256=None, when=None):
        self.path_or_url = path_or_url
        self.level = level
        self.working_dir = working_dir
        self.reverse = reverse
        self.sha256 = sha256
        self.archive_sha256 = archive_sha256
        self.when = when

    @property
    def url(self):
        return self.path_or_url if "://" in str(self.path_or_url) else None

    def __repr__(self):
        return "Patch({!r})".format(self.path_or_url)


@directive
def patch(cls, url_or_filename, level=1, when=None, working_dir=".", reverse=False,
          sha256=None, archive_sha256=None, **kwargs):
    cls.patches.setdefault(when_spec(when), []).append(
        Patch(url_or_filename, level, working_dir, reverse, sha256, archive_sha256, when)
    )


class Resource:
    def __init__(self, name, destination, placement, when, fetch_args):
        self.name = name
        self.destination = destination
        self.placement = placement
        self.when = when
        self.fetch_args = fetch_args

    def __repr__(self):
        return "Resource({!r})".format(self.name)


@directive
def resource(cls, name=None, destination="", placement=None, when=None, **kwargs):
    cls.resources.setdefault(when_spec(when), []).append(
        Resource(name, destination, placement, when, kwargs)
    )


@directive
def license(cls, license_identifier, checked_by=None, when=None):
    cls.licenses[when_spec(when)] = license_identifier


@directive
def maintainers(cls, *names):
    for n in names:
        if n not in cls.maintainers:
            cls.maintainers.append(n)


@directive
def redistribute(cls, source=None, binary=None, when=None):
    cls.disable_redistribute[when_spec(when)] = {
        "source": source is False, "binary": binary is False,
    }


@directive
def can_splice(cls, target, when=None, match_variants=None):
    cls.splice_specs[when_spec(when)] = (AbstractSpec(str(target)), match_variants)


@directive
def build_system(cls, *values, default=None):
    flat = []
    for v in values:
        if isinstance(v, (set, frozenset)):
            flat.extend(sorted(v, key=str))
        else:
            flat.append(v)
    default = default or (str(flat[0]) if flat else None)
    var = Variant("build_system", default=default, description="Build systems supported by the package",
                  values=tuple(values), multi=False)
    cls.variants.setdefault(when_spec(None), {})["build_system"] = var


# --- contexts ------------------------------------------------------------------


class default_args:
    """`with default_args(type="build"):` — arguments for every directive
    in the block."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __enter__(self):
        _defaults_stack.append(self.kwargs)
        return self

    def __exit__(self, *exc):
        _defaults_stack.pop()
        return False


class when:
    """`with when("+x"):` puts a condition on the directives in the block;
    `@when("+x")` on a method makes a multimethod (see multimethod.py)."""

    def __init__(self, condition):
        if isinstance(condition, Spec):
            condition = str(condition)
        self.condition = condition

    def __enter__(self):
        _when_stack.append(self.condition)
        return self

    def __exit__(self, *exc):
        _when_stack.pop()
        return False

    def __call__(self, method):
        from .multimethod import register_when

        cond = self.condition
        if cond is None:
            cond = True
        if isinstance(cond, str):
            cond = cond.strip() or True
        return register_when(cond, method, depth=2)
