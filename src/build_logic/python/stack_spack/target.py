"""Microarchitecture targets: families and `target=` ranges.

The same table as stack's spec module (src/spec/target.rs): a target
descends from every target on a path up to its family root.  `target=x86_64:`
admits x86_64 and every descendant, `target=:zen3` zen3 and its ancestors,
`target=zen2` exactly zen2.
"""

_PARENTS = {
    "x86_64": (),
    "x86_64_v2": ("x86_64",),
    "x86_64_v3": ("x86_64_v2",),
    "x86_64_v4": ("x86_64_v3",),
    "nocona": ("x86_64",),
    "core2": ("nocona",),
    "nehalem": ("core2", "x86_64_v2"),
    "westmere": ("nehalem",),
    "sandybridge": ("westmere",),
    "ivybridge": ("sandybridge",),
    "haswell": ("ivybridge", "x86_64_v3"),
    "broadwell": ("haswell",),
    "skylake": ("broadwell",),
    "mic_knl": ("broadwell",),
    "skylake_avx512": ("skylake", "x86_64_v4"),
    "cannonlake": ("skylake",),
    "cascadelake": ("skylake_avx512",),
    "icelake": ("cascadelake", "cannonlake"),
    "sapphirerapids": ("icelake",),
    "k10": ("x86_64",),
    "bulldozer": ("x86_64_v2",),
    "piledriver": ("bulldozer",),
    "steamroller": ("piledriver",),
    "excavator": ("steamroller", "x86_64_v3"),
    "zen": ("x86_64_v3",),
    "zen2": ("zen",),
    "zen3": ("zen2",),
    "zen4": ("zen3", "x86_64_v4"),
    "zen5": ("zen4",),
    "aarch64": (),
    "armv8.1a": ("aarch64",),
    "armv8.2a": ("armv8.1a",),
    "armv8.3a": ("armv8.2a",),
    "armv8.4a": ("armv8.3a",),
    "armv8.5a": ("armv8.4a",),
    "armv9.0a": ("armv8.5a",),
    "thunderx2": ("armv8.1a",),
    "a64fx": ("armv8.2a",),
    "cortex_a72": ("aarch64",),
    "graviton": ("cortex_a72",),
    "neoverse_n1": ("armv8.2a",),
    "graviton2": ("neoverse_n1",),
    "neoverse_v1": ("armv8.4a", "neoverse_n1"),
    "graviton3": ("neoverse_v1",),
    "neoverse_n2": ("armv9.0a", "neoverse_n1"),
    "neoverse_v2": ("armv9.0a", "neoverse_n2"),
    "graviton4": ("neoverse_v2",),
    "m1": ("armv8.4a",),
    "m2": ("m1", "armv8.5a"),
    "ppc64": (),
    "power7": ("ppc64",),
    "power8": ("power7",),
    "power9": ("power8",),
    "power10": ("power9",),
    "ppc64le": (),
    "power8le": ("ppc64le",),
    "power9le": ("power8le",),
    "power10le": ("power9le",),
    "x86": (),
    "i686": ("x86",),
    "ppc": (),
    "ppcle": (),
    "arm": (),
    "riscv64": (),
    "u74mc": ("riscv64",),
    "sparc": (),
    "sparc64": (),
}

_VENDOR = {
    "zen": "AuthenticAMD", "zen2": "AuthenticAMD", "zen3": "AuthenticAMD",
    "zen4": "AuthenticAMD", "zen5": "AuthenticAMD", "k10": "AuthenticAMD",
    "bulldozer": "AuthenticAMD", "piledriver": "AuthenticAMD",
    "steamroller": "AuthenticAMD", "excavator": "AuthenticAMD",
    "neoverse_n1": "ARM", "neoverse_v1": "ARM", "neoverse_v2": "ARM",
    "neoverse_n2": "ARM", "a64fx": "Fujitsu", "thunderx2": "Cavium",
    "m1": "Apple", "m2": "Apple",
}

_CACHE = {}


def known(name):
    return name in _PARENTS


def ancestors(name):
    """Every ancestor of `name` (not itself), nearest first."""
    if name in _CACHE:
        return _CACHE[name]
    out = []
    todo = list(_PARENTS.get(name, ()))
    while todo:
        p = todo.pop(0)
        if p not in out:
            out.append(p)
            todo.extend(_PARENTS.get(p, ()))
    _CACHE[name] = out
    return out


def descends_from(target, ancestor):
    """Whether `target` is `ancestor` or one of its descendants."""
    if target == ancestor:
        return True
    return ancestor in ancestors(target)


def family(name):
    if not known(name):
        return name
    roots = [a for a in [name] + ancestors(name) if not _PARENTS.get(a)]
    return roots[0] if roots else name


def range_admits(item, target):
    """One element of a `target=` constraint (`zen2`, `x86_64:`, `:zen3`,
    `zen2:zen4`) against a concrete target name."""
    item = item.strip()
    if ":" not in item:
        return item == target
    lo, _, hi = item.partition(":")
    if lo and not descends_from(target, lo):
        return False
    if hi and not descends_from(hi, target):
        return False
    return True


def constraint_admits(text, target):
    return any(range_admits(part, target) for part in text.split(",") if part.strip())


class Microarchitecture:
    """The concrete target of a spec (`spec.target`): compares by ancestry
    as archspec does (`target >= "haswell"`: haswell or a descendant)."""

    def __init__(self, name):
        self.name = str(name)

    @property
    def family(self):
        return Microarchitecture(family(self.name))

    @property
    def microarchitecture(self):
        return self

    @property
    def parents(self):
        return [Microarchitecture(p) for p in _PARENTS.get(self.name, ())]

    @property
    def ancestors(self):
        return [Microarchitecture(p) for p in ancestors(self.name)]

    @property
    def vendor(self):
        if self.name in _VENDOR:
            return _VENDOR[self.name]
        return "generic" if not _PARENTS.get(self.name) else "GenericVendor"

    @property
    def generation(self):
        return 0

    def satisfies(self, other):
        return constraint_admits(str(other), self.name)

    def _name(self, other):
        return other.name if isinstance(other, Microarchitecture) else str(other)

    def __eq__(self, other):
        return self.name == self._name(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.name)

    def __lt__(self, other):
        o = self._name(other)
        return self.name in ancestors(o)

    def __le__(self, other):
        o = self._name(other)
        return o == self.name or self.name in ancestors(o)

    def __gt__(self, other):
        o = self._name(other)
        return o in ancestors(self.name)

    def __ge__(self, other):
        o = self._name(other)
        return o == self.name or o in ancestors(self.name)

    def __contains__(self, feature):
        return False

    def __str__(self):
        return self.name

    def __repr__(self):
        return "Microarchitecture({!r})".format(self.name)

    def __format__(self, spec):
        return format(self.name, spec)

    def optimization_flags(self, compiler_name, compiler_version=None):
        return optimization_flags(self.name, compiler_name)


# Flags to optimise for a target (archspec's documented per-compiler flags,
# for the targets of the table above that Alps and common clusters use).
_GCC_FLAGS = {
    "x86_64": "-march=x86-64 -mtune=generic",
    "x86_64_v2": "-march=x86-64-v2 -mtune=generic",
    "x86_64_v3": "-march=x86-64-v3 -mtune=generic",
    "x86_64_v4": "-march=x86-64-v4 -mtune=generic",
    "haswell": "-march=haswell -mtune=haswell",
    "broadwell": "-march=broadwell -mtune=broadwell",
    "skylake": "-march=skylake -mtune=skylake",
    "skylake_avx512": "-march=skylake-avx512 -mtune=skylake-avx512",
    "cascadelake": "-march=cascadelake -mtune=cascadelake",
    "icelake": "-march=icelake-client -mtune=icelake-client",
    "sapphirerapids": "-march=sapphirerapids -mtune=sapphirerapids",
    "zen": "-march=znver1 -mtune=znver1",
    "zen2": "-march=znver2 -mtune=znver2",
    "zen3": "-march=znver3 -mtune=znver3",
    "zen4": "-march=znver4 -mtune=znver4",
    "zen5": "-march=znver5 -mtune=znver5",
    "aarch64": "-march=armv8-a -mtune=generic",
    "neoverse_n1": "-mcpu=neoverse-n1",
    "neoverse_v1": "-mcpu=neoverse-v1",
    "neoverse_v2": "-mcpu=neoverse-v2",
    "a64fx": "-mcpu=a64fx",
}


def optimization_flags(target, compiler_name):
    if compiler_name in ("gcc", "llvm", "clang", "aocc", "apple-clang"):
        return _GCC_FLAGS.get(target, "")
    if compiler_name == "nvhpc":
        return {"zen2": "-tp=zen2", "zen3": "-tp=zen3", "neoverse_v2": "-tp=neoverse-v2"}.get(target, "")
    return ""
