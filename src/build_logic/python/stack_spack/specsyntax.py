"""Spack's abstract spec syntax: `name@1.2:1.4 +shared ~debug k=v %gcc@12
^dep@3: target=x86_64: platform=linux`, `%c=gcc`, `^[virtuals=mpi] mpich`.

`parse(text)` gives a `Constraint` tree: the root node with its attributes,
its direct (`%`) dependencies and its transitive (`^`) dependencies.  Like
Spack 1.0, attributes written after `%x` or `^x` belong to that node, `^`
nodes hang off the root and `%` nodes off the node before them.
"""

import re

from .errors import SpecSyntaxError
from .version import VersionList, version_constraint

FLAG_NAMES = ("cflags", "cxxflags", "fflags", "cppflags", "ldflags", "ldlibs")
ARCH_KEYS = ("target", "os", "platform", "arch", "architecture")

_NAME = r"[a-zA-Z_0-9][a-zA-Z_0-9\-]*"
_RE_NAME = re.compile(r"(%s(?:\.%s)*)" % (_NAME, _NAME))
_RE_VERSION = re.compile(r"\s*([=A-Za-z0-9_.\-:]+(?:\s*,\s*[=A-Za-z0-9_.\-:]+)*)")
_RE_VARIANT = re.compile(r"(%s)" % _NAME)
_RE_KEY_VALUE = re.compile(r"(%s)(==|=)" % r"[a-zA-Z_0-9][a-zA-Z_0-9\-.]*")
_RE_UNQUOTED = re.compile(r"[a-zA-Z_0-9\-+*.,:=~/\\]+")
_RE_VIRTUAL_ASSIGN = re.compile(r"(%s(?:,%s)*)=(?!=)" % (_NAME, _NAME))
_RE_HASH = re.compile(r"/([a-zA-Z0-9]+)")


class VariantConstraint:
    """`+x` / `~x` (a bool) or `x=a,b` (values, as text)."""

    __slots__ = ("name", "value", "propagate")

    def __init__(self, name, value, propagate=False):
        self.name = name
        self.value = value  # bool, or tuple of str
        self.propagate = propagate

    def __str__(self):
        if isinstance(self.value, bool):
            return ("+" if self.value else "~") + self.name
        return "{}={}".format(self.name, ",".join(self.value))

    def __repr__(self):
        return "VariantConstraint({})".format(self)


class Constraint:
    """One node of an abstract spec."""

    def __init__(self):
        self.name = None
        self.namespace = None
        self.versions = None  # VersionList or None
        self.variants = {}  # name -> VariantConstraint
        self.flags = {}  # flag name -> list of str
        self.platform = None
        self.os = None
        self.target = None  # text of the target constraint
        self.hash = None
        self.direct = []  # [(virtuals tuple, Constraint)] written with %
        self.transitive = []  # [(virtuals tuple, Constraint)] written with ^
        self.other = {}  # other key=value pairs (dev_path, …)

    @property
    def anonymous(self):
        return self.name is None

    def is_empty(self):
        return not (
            self.name or self.versions or self.variants or self.flags or self.platform
            or self.os or self.target or self.hash or self.direct or self.transitive or self.other
        )

    def node_str(self):
        out = []
        if self.name:
            out.append((self.namespace + "." if self.namespace else "") + self.name)
        if self.versions is not None:
            out.append("@" + str(self.versions))
        for v in self.variants.values():
            out.append(str(v))
        for k, vals in self.flags.items():
            out.append('{}="{}"'.format(k, " ".join(vals)))
        for k, v in self.other.items():
            out.append("{}={}".format(k, v))
        if self.platform:
            out.append("platform=" + self.platform)
        if self.os:
            out.append("os=" + self.os)
        if self.target:
            out.append("target=" + self.target)
        if self.hash:
            out.append("/" + self.hash)
        text = ""
        for part in out:
            if text and not (part.startswith("@") or part.startswith("+") or part.startswith("~")):
                text += " "
            elif text and (part.startswith("+") or part.startswith("~")):
                text += " "
            text += part
        for virtuals, dep in self.direct:
            text += " %" + (",".join(virtuals) + "=" if virtuals else "") + dep.node_str()
        return text.strip()

    def __str__(self):
        text = self.node_str()
        for virtuals, dep in self.transitive:
            text += " ^" + ("[virtuals={}] ".format(",".join(virtuals)) if virtuals else "") + dep.node_str()
        return text.strip()

    def __repr__(self):
        return "Constraint({!r})".format(str(self))


class _Parser:
    def __init__(self, text):
        self.text = text
        self.pos = 0

    def error(self, what):
        raise SpecSyntaxError(
            "cannot read spec {!r} at column {}: {}".format(self.text, self.pos + 1, what)
        )

    def skip_ws(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def at_end(self):
        return self.pos >= len(self.text)

    def peek(self, n=1):
        return self.text[self.pos : self.pos + n]

    def match(self, regex):
        m = regex.match(self.text, self.pos)
        if m:
            self.pos = m.end()
        return m

    def parse(self):
        root = Constraint()
        current = root
        while True:
            self.skip_ws()
            if self.at_end():
                break
            c = self.peek()
            if c in "^%":
                sigil = c
                self.pos += 1
                if self.peek() == sigil:  # %% or ^^: propagation, same node
                    self.pos += 1
                self.skip_ws()
                virtuals = ()
                if self.peek() == "[":
                    virtuals = self.edge_attributes()
                    self.skip_ws()
                else:
                    save = self.pos
                    m = self.match(_RE_VIRTUAL_ASSIGN)
                    if m and self.match(_RE_NAME):
                        self.pos = m.end()
                        virtuals = tuple(m.group(1).split(","))
                    else:
                        self.pos = save
                node = Constraint()
                m = self.match(_RE_NAME)
                if not m:
                    self.error("a package name after {}".format(sigil))
                self.set_name(node, m.group(1))
                if sigil == "^":
                    root.transitive.append((virtuals, node))
                else:
                    current.direct.append((virtuals, node))
                current = node
                continue
            if c == "@":
                self.pos += 1
                m = self.match(_RE_VERSION)
                if not m:
                    self.error("a version after @")
                text = re.sub(r"\s+", "", m.group(1))
                split = re.search(r":-(?=[A-Za-z_])", text)
                if split:  # `@4.2.5:-libsodium`: a range, then a disabled variant
                    self.pos -= len(m.group(1)) - (split.start() + 1)
                    text = text[: split.start() + 1]
                try:
                    vl = version_constraint(text)
                except Exception as e:  # noqa: BLE001 - reported as syntax
                    self.error("bad version {!r}: {}".format(text, e))
                if current.versions is None:
                    current.versions = vl
                else:
                    current.versions = VersionList(list(current.versions.items) + list(vl.items))
                continue
            prev = self.text[self.pos - 1] if self.pos else " "
            if c in "+~" or (c == "-" and (prev.isspace() or prev == ":")):
                value = c == "+"
                self.pos += 1
                propagate = False
                if self.peek() == c:
                    self.pos += 1
                    propagate = True
                self.skip_ws()  # `scotch + esmumps`
                m = self.match(_RE_VARIANT)
                if not m:
                    self.error("a variant name after {}".format(c))
                current.variants[m.group(1)] = VariantConstraint(m.group(1), value, propagate)
                continue
            if c == "/":
                m = self.match(_RE_HASH)
                if not m:
                    self.error("a hash after /")
                current.hash = m.group(1)
                continue
            m = self.match(_RE_KEY_VALUE)
            if m:
                key, op = m.group(1), m.group(2)
                value = self.value()
                self.key_value(root, current, key, value, op == "==")
                continue
            m = self.match(_RE_NAME)
            if m:
                if current.name is not None:
                    self.error("a second package name {!r}".format(m.group(1)))
                self.set_name(current, m.group(1))
                continue
            self.error("unexpected {!r}".format(c))
        return root

    def set_name(self, node, text):
        if "." in text:
            ns, _, name = text.rpartition(".")
            node.namespace, node.name = ns, name
        else:
            node.name = text

    def edge_attributes(self):
        end = self.text.find("]", self.pos)
        if end < 0:
            self.error("a closing ]")
        body = self.text[self.pos + 1 : end]
        self.pos = end + 1
        virtuals = ()
        for part in body.split():
            k, _, v = part.partition("=")
            if k == "virtuals":
                virtuals = tuple(x for x in v.split(",") if x)
        return virtuals

    def value(self):
        c = self.peek()
        if c in "\"'":
            end = self.text.find(c, self.pos + 1)
            if end < 0:
                self.error("a closing quote")
            v = self.text[self.pos + 1 : end]
            self.pos = end + 1
            return v
        m = self.match(_RE_UNQUOTED)
        return m.group(0) if m else ""

    def key_value(self, root, current, key, value, propagate):
        if key in ("target", "os", "platform"):
            setattr(root, key, value)
            return
        if key in ("arch", "architecture"):
            parts = value.split("-", 2)
            if len(parts) == 3:
                p, o, t = parts
                for k, v in (("platform", p), ("os", o), ("target", t)):
                    if v and v != "None":
                        setattr(root, k, v)
            elif value:
                # `arch=ppc64le:`: a target alone (it was dropped, and the
                # condition then always held)
                root.target = value
            return
        if key == "namespace":
            current.namespace = value
            return
        if key in FLAG_NAMES:
            current.flags.setdefault(key, []).extend(value.split())
            return
        if key in ("dev_path", "patches", "commit"):
            current.other[key] = value
            return
        vals = tuple(v for v in value.split(",") if v != "") if value else ("",)
        current.variants[key] = VariantConstraint(key, vals, propagate)


_CACHE = {}


def parse(text):
    """The constraint tree of `text` (cached: constraints are not mutated)."""
    if isinstance(text, Constraint):
        return text
    text = str(text)
    hit = _CACHE.get(text)
    if hit is None:
        hit = _Parser(text).parse()
        if len(_CACHE) < 20000:
            _CACHE[text] = hit
    return hit
