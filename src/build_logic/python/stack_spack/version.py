"""Versions with Spack's ordering, ranges and lists.

A version splits into components: runs of digits (numbers) and runs of
letters, separated by `.`, `-`, `_` or nothing (`1.2rc3` is 1, 2, rc, 3).
Ordering: component by component, a prefix is smaller (`1.2 < 1.2.0`);
numbers are greater than words, except the infinity words
(stable < nightly < trunk < head < master < main < develop) which are greater
than every number; a trailing `alpha`, `beta` or `rc` (with an optional
number) marks a pre-release, smaller than its release (`1.0rc1 < 1.0`).

As a constraint, `@1.2` admits 1.2 and every version that starts with it
(1.2.5, 1.2-dev), `@1.2:1.4` everything from 1.2 up to 1.4 and its
extensions, `@=1.2` exactly 1.2.
"""

import re

from .errors import VersionError

INFINITY_WORDS = ["stable", "nightly", "trunk", "head", "master", "main", "develop"]
_PRERELEASE = {"alpha": 0, "beta": 1, "rc": 2}
_FINAL = 3

_SEGMENT = re.compile(r"(?:([0-9]+)|([a-zA-Z]+))([_.-]*)")
_VALID = re.compile(r"^[A-Za-z0-9_.-][=A-Za-z0-9_.-]*$")


def _component_key(c):
    if isinstance(c, int):
        return (1, c, "")
    if c in INFINITY_WORDS:
        return (2, INFINITY_WORDS.index(c), "")
    return (0, 0, c)


class Version:
    """A single (concrete) version, such as `1.2.3`, `2.0rc1` or `develop`."""

    __slots__ = ("string", "components", "separators", "_key", "_release", "_pre", "_git_ref")

    def __init__(self, string):
        if isinstance(string, Version):
            string = string.string
        if isinstance(string, int):
            string = str(string)
        if not isinstance(string, str):
            raise TypeError("Cannot make a Version from {!r}".format(string))
        string = string.strip()
        self._git_ref = None
        text = string
        if text.startswith("git.") and "=" in text:
            ref, _, text = text[4:].partition("=")
            self._git_ref = ref
        elif "=" in text[1:] and not text.startswith("="):
            ref, _, text = text.partition("=")
            self._git_ref = ref
        if not text or not _VALID.match(text):
            raise VersionError("Invalid version string: {!r}".format(string))
        self.string = string
        comps = []
        seps = []
        pos = 0
        # leading separators are kept as part of the first separator slot
        for m in _SEGMENT.finditer(text):
            if m.start() != pos:
                raise VersionError("Invalid version string: {!r}".format(string))
            num, word, sep = m.groups()
            comps.append(int(num) if num is not None else word)
            seps.append(sep)
            pos = m.end()
        if pos != len(text) or not comps:
            raise VersionError("Invalid version string: {!r}".format(string))
        self.components = tuple(comps)
        self.separators = tuple(seps)
        release = comps
        pre = (_FINAL, 0)
        if len(comps) >= 2 and isinstance(comps[-1], int) and comps[-2] in _PRERELEASE:
            release, pre = comps[:-2], (_PRERELEASE[comps[-2]], comps[-1])
        elif len(comps) >= 2 and comps[-1] in _PRERELEASE:
            release, pre = comps[:-1], (_PRERELEASE[comps[-1]], 0)
        self._release = tuple(release)
        self._pre = pre
        self._key = (
            tuple(_component_key(c) for c in release),
            pre,
            (1, self._git_ref) if self._git_ref else (0, ""),
        )

    # --- text forms -------------------------------------------------------
    def __str__(self):
        return self.string

    def __repr__(self):
        return "Version({!r})".format(self.string)

    def __format__(self, spec):
        return format(self.string, spec)

    def _plain(self):
        """The version text without a git ref."""
        if self._git_ref is None:
            return self.string
        return self.string.rsplit("=", 1)[1]

    def _join(self, sep):
        return sep.join(str(c) for c in self.components)

    @property
    def dotted(self):
        return Version(self._plain().replace("-", ".").replace("_", "."))

    @property
    def underscored(self):
        return Version(self._plain().replace(".", "_").replace("-", "_"))

    @property
    def dashed(self):
        return Version(self._plain().replace(".", "-").replace("_", "-"))

    @property
    def joined(self):
        return Version(self._plain().replace(".", "").replace("-", "").replace("_", ""))

    @property
    def dotted_numeric_string(self):
        numeric = [c for c in self.components if isinstance(c, int)]
        return ".".join(str(c) for c in (numeric or [0]))

    @property
    def version(self):
        return (self._release, self._pre)

    @property
    def ref(self):
        return self._git_ref

    @property
    def ref_version(self):
        return Version(self._plain())

    def up_to(self, index):
        return self[:index]

    def isdevelop(self):
        return any(isinstance(c, str) and c in INFINITY_WORDS for c in self.components)

    def is_prerelease(self):
        return self._pre[0] != _FINAL

    @property
    def concrete(self):
        return self

    # --- sequence protocol ------------------------------------------------
    def __len__(self):
        return len(self.components)

    def __iter__(self):
        return iter(self.components)

    def __getitem__(self, idx):
        if isinstance(idx, int):
            return self.components[idx]
        if isinstance(idx, slice):
            n = len(self.components)
            start, stop, step = idx.indices(n)
            if step != 1:
                raise ValueError("Version slices must have step 1")
            if stop <= start:
                return Version.__new__(_EmptyVersion)
            text = ""
            for i in range(start, stop):
                text += str(self.components[i])
                if i < stop - 1:
                    text += self.separators[i]
            return Version(text)
        raise TypeError("Version indices must be integers or slices")

    # --- ordering ---------------------------------------------------------
    def __hash__(self):
        return hash(self._key)

    def __eq__(self, other):
        other = _coerce(other)
        if isinstance(other, Version):
            return self._key == other._key
        if isinstance(other, (VersionRange, VersionList)):
            return False
        return NotImplemented

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __lt__(self, other):
        other = _coerce(other)
        if isinstance(other, Version):
            return self._key < other._key
        return NotImplemented

    def __le__(self, other):
        other = _coerce(other)
        if isinstance(other, Version):
            return self._key <= other._key
        return NotImplemented

    def __gt__(self, other):
        other = _coerce(other)
        if isinstance(other, Version):
            return self._key > other._key
        return NotImplemented

    def __ge__(self, other):
        other = _coerce(other)
        if isinstance(other, Version):
            return self._key >= other._key
        return NotImplemented

    def __contains__(self, other):
        other = _coerce(other)
        if isinstance(other, Version):
            return self.is_prefix_of(other)
        return False

    def is_prefix_of(self, other):
        """`1.2` is a prefix of 1.2, 1.2.0 and 1.2-dev, not of 1.20."""
        return (
            self._pre[0] == _FINAL
            and self._git_ref is None
            and other._release[: len(self._release)] == self._release
        )

    # --- constraints ------------------------------------------------------
    def satisfies(self, other):
        """Whether this version lies in `other` (a version: the version and
        its extensions; a range; a list; or text such as `1.2:1.4`)."""
        other = ver(other) if isinstance(other, str) else other
        if isinstance(other, Version):
            return VersionRange(other, other).contains(self)
        if isinstance(other, (VersionRange, VersionList, ExactVersion)):
            return other.contains(self)
        raise TypeError("cannot compare a version with {!r}".format(other))

    def intersects(self, other):
        other = ver(other) if isinstance(other, str) else other
        if isinstance(other, Version):
            return other.is_prefix_of(self) or self.is_prefix_of(other) or self == other
        return other.intersects(self)

    overlaps = intersects



class _EmptyVersion(Version):
    """What an empty slice of a version gives: an empty text."""

    def __init__(self):  # pragma: no cover - built through __new__
        pass

    def __str__(self):
        return ""

    def __repr__(self):
        return "Version('')"

    def __len__(self):
        return 0

    def __bool__(self):
        return False

    def __eq__(self, other):
        return str(other) == ""

    def __hash__(self):
        return hash("")


# Give the empty version the attributes str() relies on.
_EmptyVersion.string = property(lambda self: "")
_EmptyVersion.components = property(lambda self: ())
_EmptyVersion.separators = property(lambda self: ())


class ExactVersion:
    """`=1.2`: exactly that version."""

    def __init__(self, version):
        self.version = Version(version)

    def contains(self, v):
        return Version(v) == self.version

    def intersects(self, other):
        if isinstance(other, ExactVersion):
            return other.version == self.version
        if isinstance(other, Version):
            return other.satisfies(self) or self.version.satisfies(other)
        return other.contains(self.version)

    def __str__(self):
        return "=" + str(self.version)

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, ExactVersion) and other.version == self.version

    def __hash__(self):
        return hash(("=", self.version))


class VersionRange:
    """`lo:hi`, `lo:`, `:hi` or `:`; `hi` also admits its extensions."""

    def __init__(self, lo=None, hi=None):
        self.lo = Version(lo) if lo not in (None, "") else None
        self.hi = Version(hi) if hi not in (None, "") else None

    def contains(self, v):
        v = Version(v) if not isinstance(v, Version) else v
        if self.lo is not None and v < self.lo:
            return False
        if self.hi is not None and not (v <= self.hi or self.hi.is_prefix_of(v)):
            return False
        return True

    def __contains__(self, v):
        v = _coerce(v)
        if isinstance(v, Version):
            return self.contains(v)
        if isinstance(v, VersionRange):
            return (v.lo is not None and self.contains(v.lo) or v.lo is None and self.lo is None) and (
                v.hi is not None and self.contains(v.hi) or v.hi is None and self.hi is None
            )
        return False

    def satisfies(self, other):
        other = ver(other) if isinstance(other, str) else other
        if isinstance(other, Version):
            other = VersionRange(other, other)
        if isinstance(other, VersionList):
            return any(self.satisfies(r) for r in other.items)
        if isinstance(other, VersionRange):
            lo_ok = other.lo is None or (self.lo is not None and self.lo >= other.lo)
            hi_ok = other.hi is None or (
                self.hi is not None and (self.hi <= other.hi or other.hi.is_prefix_of(self.hi))
            )
            return lo_ok and hi_ok
        return False

    def intersects(self, other):
        other = ver(other) if isinstance(other, str) else other
        if isinstance(other, Version):
            return self.contains(other) or (self.hi is not None and other.is_prefix_of(self.hi)) or (
                self.lo is not None and other.is_prefix_of(self.lo)
            )
        if isinstance(other, ExactVersion):
            return self.contains(other.version)
        if isinstance(other, VersionList):
            return any(self.intersects(x) for x in other.items)
        if isinstance(other, VersionRange):
            a = other.lo is None or self.hi is None or other.lo <= self.hi or self.hi.is_prefix_of(other.lo)
            b = self.lo is None or other.hi is None or self.lo <= other.hi or other.hi.is_prefix_of(self.lo)
            return a and b
        return False

    overlaps = intersects

    def __str__(self):
        return "{}:{}".format(self.lo or "", self.hi or "")

    def __repr__(self):
        return "VersionRange({!r})".format(str(self))

    def __eq__(self, other):
        return isinstance(other, VersionRange) and (self.lo, self.hi) == (other.lo, other.hi)

    def __hash__(self):
        return hash((self.lo, self.hi))


class VersionList:
    """A union of versions and ranges (`1.2,1.4:1.6`)."""

    def __init__(self, items=()):
        if isinstance(items, str):
            items = [ver(items)]
        self.items = []
        for it in items:
            it = ver(it) if isinstance(it, str) else it
            if isinstance(it, VersionList):
                self.items.extend(it.items)
            else:
                self.items.append(it)

    def contains(self, v):
        v = Version(v) if not isinstance(v, Version) else v
        for it in self.items:
            if isinstance(it, Version):
                if VersionRange(it, it).contains(v):
                    return True
            elif it.contains(v):
                return True
        return False

    def __contains__(self, v):
        v = _coerce(v)
        if isinstance(v, Version):
            return self.contains(v)
        return any(v == it for it in self.items)

    def satisfies(self, other):
        other = ver(other) if isinstance(other, str) else other
        return all(
            (it.satisfies(other) if not isinstance(it, ExactVersion) else it.version.satisfies(other))
            for it in self.items
        )

    def intersects(self, other):
        return any(
            (it.intersects(other) if not isinstance(it, ExactVersion) else it.intersects(other))
            for it in self.items
        )

    overlaps = intersects

    @property
    def concrete(self):
        if len(self.items) == 1 and isinstance(self.items[0], Version):
            return self.items[0]
        return None

    def lowest(self):
        vs = [it if isinstance(it, Version) else getattr(it, "lo", None) for it in self.items]
        vs = [v for v in vs if v is not None]
        return min(vs) if vs else None

    def highest(self):
        vs = [it if isinstance(it, Version) else getattr(it, "hi", None) for it in self.items]
        vs = [v for v in vs if v is not None]
        return max(vs) if vs else None

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    def __str__(self):
        return ",".join(str(i) for i in self.items)

    def __repr__(self):
        return "VersionList({!r})".format(str(self))

    def __eq__(self, other):
        return isinstance(other, VersionList) and self.items == other.items

    def __hash__(self):
        return hash(tuple(self.items))


def _coerce(other):
    if isinstance(other, str):
        try:
            return ver(other)
        except VersionError:
            return other
    if isinstance(other, int) and not isinstance(other, bool):
        return Version(str(other))
    return other


def ver(obj):
    """A version, range or list from text (`1.2`, `1.2:1.4`, `=1.2`, `1.2,1.4`)."""
    if isinstance(obj, (Version, VersionRange, VersionList, ExactVersion)):
        return obj
    if isinstance(obj, (list, tuple)):
        return VersionList(obj)
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        return Version(str(obj))
    if not isinstance(obj, str):
        raise TypeError("ver() cannot read {!r}".format(obj))
    text = obj.strip()
    if "," in text:
        return VersionList([ver(p) for p in text.split(",") if p.strip()])
    if text.startswith("="):
        return ExactVersion(text[1:])
    if ":" in text:
        lo, _, hi = text.partition(":")
        return VersionRange(lo.strip() or None, hi.strip() or None)
    return Version(text)


def version_constraint(text):
    """A version constraint as written after `@` in a spec: always a VersionList."""
    v = ver(text)
    if isinstance(v, VersionList):
        return v
    return VersionList([v])


def _as_range(it):
    if isinstance(it, Version):
        return VersionRange(it, it)
    return it


def _intersect_items(a, b):
    """The intersection of two items of version lists, or None."""
    if isinstance(a, ExactVersion):
        holds = b == a if isinstance(b, ExactVersion) else _as_range(b).contains(a.version)
        return a if holds else None
    if isinstance(b, ExactVersion):
        return _intersect_items(b, a)
    a, b = _as_range(a), _as_range(b)
    lo = a.lo if b.lo is None or (a.lo is not None and a.lo > b.lo) else b.lo
    if a.hi is None:
        hi = b.hi
    elif b.hi is None:
        hi = a.hi
    elif a.hi.is_prefix_of(b.hi):
        hi = b.hi
    elif b.hi.is_prefix_of(a.hi):
        hi = a.hi
    else:
        hi = min(a.hi, b.hi)
    if lo is not None and hi is not None and lo > hi and not hi.is_prefix_of(lo):
        return None
    if lo is not None and hi is not None and lo == hi:
        return Version(str(lo))
    return VersionRange(lo, hi)


def intersect_versions(a, b):
    """Versions in both `a` and `b` (Spack's `constrain`): `2:` and `:3` is
    `2:3`. When nothing is in both, the two stay listed (the condition never
    holds; it is kept as written rather than dropped)."""
    a = a if isinstance(a, VersionList) else VersionList([a])
    b = b if isinstance(b, VersionList) else VersionList([b])
    out = []
    for x in a.items:
        for y in b.items:
            z = _intersect_items(x, y)
            if z is not None and str(z) not in [str(o) for o in out]:
                out.append(z)
    return VersionList(out) if out else VersionList(list(a.items) + list(b.items))

