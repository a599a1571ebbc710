"""The record of a package class's directives as JSON (`directives.py`):
the oracle the importer's differential check compares against.

Each file is evaluated once per architecture (`platform.machine()` reads
`x86_64`, then `aarch64`; `platform.system()` reads `Linux`), as the importer
reads it.  Versions carry the URL `url_for_version` gives for them."""

import contextlib
import os
import platform
import sys
import traceback

from . import finder
from .context import package_class
from .directives import reset_pending
from .errors import ApiNotImplemented, register_package_file
from .lang import classproperty
from .spec import AbstractSpec, ConcreteSpec
from .variants import ConditionalValue, DisjointSetsOfValues
from .version import Version

ARCHS = ("x86_64", "aarch64")


def locate(path):
    """(namespace, directory, namespaces root, layout) of a package.py:
    `…/spack_repo/<ns>/packages/<dir>/package.py` (a Spack repository) or
    `…/spack/<ns>/<dir>/package.py` (a stack repository)."""
    path = os.path.abspath(path)
    d = os.path.dirname(path)
    pkg_dir = os.path.basename(d)
    parent = os.path.dirname(d)
    if os.path.basename(parent) == "packages":
        ns_dir = os.path.dirname(parent)
        return os.path.basename(ns_dir), pkg_dir, os.path.dirname(ns_dir), "spack"
    return os.path.basename(parent), pkg_dir, os.path.dirname(parent), "stack"


def module_name(ns, pkg_dir):
    return "spack_repo.{}.packages.{}.package".format(ns, pkg_dir)


@contextlib.contextmanager
def machine(arch):
    saved = (platform.machine, platform.system)
    platform.machine = lambda: arch
    platform.system = lambda: "Linux"
    try:
        yield
    finally:
        platform.machine, platform.system = saved


def _json(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (Version, AbstractSpec)):
        return str(value)
    if isinstance(value, ConditionalValue):
        return {"value": _json(value.value), "when": str(value.when) if value.when else None}
    if isinstance(value, DisjointSetsOfValues):
        return {"disjoint_sets": [list(s) for s in value.sets], "default": value.default}
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((_json(v) for v in value), key=str)
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if callable(value):
        return {"callable": getattr(value, "__qualname__", getattr(value, "__name__", repr(value)))}
    return str(value)


def _when(w):
    s = str(w) if w is not None else ""
    return s or None


def _variant(name, when, var):
    values = var.values_source
    if isinstance(values, DisjointSetsOfValues):
        vals = _json(values)
    elif values is None:
        vals = _json(list(var.values)) if var.values is not None else None
    elif callable(values) and not isinstance(values, (list, tuple, set)):
        vals = {"callable": getattr(values, "__name__", "validator"), "doc": getattr(values, "__doc__", None)}
    else:
        vals = _json(list(values))
    return {
        "name": name, "when": _when(when), "default": _json(var.default), "values": vals,
        "multi": bool(var.multi), "sticky": bool(var.sticky), "description": var.description,
        "validator": _json(var.validator) if var.validator else None,
    }


class _UrlSpec(ConcreteSpec):
    """A spec holding just a version (for `url_for_version`)."""

    def __init__(self, name, version):
        super().__init__(None, "", {"name": name, "version": str(version)})


def _instance(cls, version):
    pkg = cls.__new__(cls)
    pkg.spec = _UrlSpec(cls.name, version)
    pkg._builder = None
    return pkg


def _has_url(cls):
    try:
        inst = _instance(cls, list(cls.versions)[0] if cls.versions else "1.0")
        return bool(getattr(inst, "url", None) or getattr(inst, "urls", None))
    except Exception:  # noqa: BLE001
        return False


def class_record(cls):
    rec = {"class": cls.__name__, "name": cls.name, "bases": [c.__name__ for c in cls.__mro__[1:]
                                                              if c not in (object,)]}
    for attr in ("homepage", "url", "git", "list_url", "list_depth", "has_code", "build_system_class",
                 "default_buildsystem", "pypi", "cran", "bioc", "gnu_mirror_path", "sourceforge_mirror_path",
                 "sourceware_mirror_path", "xorg_mirror_path", "tags", "extendable", "parallel"):
        try:
            value = getattr(cls, attr, None)
        except Exception as e:  # noqa: BLE001 - recorded, not fatal
            value = "<error: {}>".format(e)
        if value is not None and not isinstance(value, (property, classproperty)):
            rec[attr] = _json(value)
    rec["maintainers"] = list(cls.maintainers)
    try:
        urls = getattr(_instance(cls, list(cls.versions)[0] if cls.versions else "1.0"), "urls", None)
        if urls:
            rec["urls"] = _json(list(urls))
    except Exception as e:  # noqa: BLE001
        rec["urls"] = "<error: {}>".format(e)
    versions = []
    for v, kwargs in cls.versions.items():
        entry = {"version": str(v)}
        entry.update({k: _json(x) for k, x in kwargs.items()})
        if any(k in kwargs for k in ("git", "tag", "branch", "commit", "svn", "hg", "cvs")) or (
            cls.git and not kwargs.get("url") and not _has_url(cls)
        ):
            versions.append(entry)
            continue
        try:
            # A version's own `url=` is what Spack fetches, even when the
            # package defines `url_for_version` (its fetch strategy reads
            # the version's arguments first).
            entry["fetch_url"] = kwargs.get("url") or _instance(cls, v).url_for_version(v)
        except Exception as e:  # noqa: BLE001
            entry["fetch_url_error"] = "{}: {}".format(type(e).__name__, e)
        versions.append(entry)
    rec["versions"] = versions
    rec["variants"] = [_variant(n, w, var) for w, d in cls.variants.items() for n, var in d.items()]
    rec["dependencies"] = [
        {"spec": str(dep.spec), "when": _when(w), "type": list(dep.depflag),
         "patches": _json(dep.patches) if dep.patches else None}
        for w, deps in cls.dependencies.items() for dep in deps.values()
    ]
    rec["conflicts"] = [{"spec": str(s), "when": _when(w), "msg": m}
                        for w, items in cls.conflicts.items() for s, m in items]
    rec["requires"] = [{"specs": [str(s) for s in specs], "policy": pol, "when": _when(w), "msg": m}
                       for w, items in cls.requirements.items() for specs, pol, m in items]
    rec["provides"] = [{"specs": sorted(str(s) for s in specs), "when": _when(w)}
                       for w, specs in cls.provided.items()]
    rec["patches"] = [
        {"path_or_url": p.path_or_url, "sha256": p.sha256, "archive_sha256": p.archive_sha256,
         "level": p.level, "working_dir": p.working_dir, "reverse": p.reverse, "when": _when(w)}
        for w, items in cls.patches.items() for p in items
    ]
    rec["resources"] = [
        {"name": r.name, "destination": r.destination, "placement": _json(r.placement), "when": _when(w),
         "fetch": _json(r.fetch_args)}
        for w, items in cls.resources.items() for r in items
    ]
    rec["extends"] = [{"spec": str(s), "when": _when(w)} for s, w in cls.extendees.values()]
    rec["licenses"] = [{"license": lic, "when": _when(w)} for w, lic in cls.licenses.items()]
    rec["redistribute"] = [dict(v, when=_when(w)) for w, v in cls.disable_redistribute.items()]
    rec["can_splice"] = [{"target": str(t), "when": _when(w), "match_variants": _json(mv)}
                         for w, (t, mv) in cls.splice_specs.items()]
    rec["calls"] = [
        {"directive": name, "file": where[0], "line": where[1], "body_line": where[-1],
         "args": _json(list(args)),
         "kwargs": _json(kwargs)}
        for name, args, kwargs, where in cls._directive_log
    ]
    return rec


def evaluate(path, arch):
    """The record of the package class of one file for one architecture."""
    ns, pkg_dir, root, layout = locate(path)
    name = module_name(ns, pkg_dir)
    finder.install({name: path}).add_root(root, layout)
    register_package_file(path)
    finder.forget_packages()
    reset_pending()
    with machine(arch):
        try:
            __import__(name)
            module = sys.modules[name]
            cls = package_class(module, pkg_dir.lstrip("_").replace("_", "-"))
            return class_record(cls)
        except ApiNotImplemented as e:
            return {"error": e.message(), "kind": "api"}
        except BaseException as e:  # noqa: BLE001 - each file's failure is recorded
            if isinstance(e, KeyboardInterrupt):
                raise
            frames = traceback.extract_tb(e.__traceback__)
            where = [f for f in frames if f.filename.endswith("package.py")]
            loc = "{}:{}".format(where[-1].filename, where[-1].lineno) if where else ""
            return {"error": "{}: {}".format(type(e).__name__, e), "at": loc, "kind": "python"}


def records(paths, archs=ARCHS):
    out = []
    for p in paths:
        ns, pkg_dir, _, _ = locate(p)
        out.append({
            "file": os.path.abspath(p),
            "module": module_name(ns, pkg_dir),
            "archs": {a: evaluate(p, a) for a in archs},
        })
    return out
