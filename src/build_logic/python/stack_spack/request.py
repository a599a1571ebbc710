"""Reading `request.json` (written by `src/build_logic/request.rs`): the
package to build, the package files, every node of its closure, the stage,
the compiler and where to write the outputs (seam §3)."""

import json

from . import API_VERSION


class BadRequest(Exception):
    pass


def _need(obj, key, kind, where):
    if key not in obj:
        raise BadRequest("{}: missing field '{}'".format(where, key))
    if not isinstance(obj[key], kind):
        raise BadRequest("{}: field '{}' should be {}".format(where, key, getattr(kind, "__name__", kind)))
    return obj[key]


def validate(request):
    if not isinstance(request, dict):
        raise BadRequest("the request is not a JSON object")
    api = _need(request, "api", int, "request")
    if api != API_VERSION:
        raise BadRequest("request api {} but this layer implements api {}".format(api, API_VERSION))
    package = _need(request, "package", str, "request")
    nodes = _need(request, "nodes", dict, "request")
    modules = request.get("modules") or {}
    if not isinstance(modules, dict):
        raise BadRequest("request: 'modules' should be an object")
    if package not in nodes:
        raise BadRequest("request: the package {} is not among the nodes".format(package))
    for h, node in nodes.items():
        where = "nodes.{}".format(h)
        if not isinstance(node, dict):
            raise BadRequest("{} should be an object".format(where))
        _need(node, "name", str, where)
        _need(node, "version", str, where)
        mod = node.get("module")
        if mod is not None and mod not in modules:
            raise BadRequest("{}: module {} is not in 'modules'".format(where, mod))
        for i, d in enumerate(node.get("dependencies") or []):
            dwhere = "{}.dependencies[{}]".format(where, i)
            dh = _need(d, "hash", str, dwhere)
            if dh not in nodes:
                raise BadRequest("{}: {} is not among the nodes".format(dwhere, dh))
    if nodes[package].get("module") is None:
        raise BadRequest("request: the package's node has no module")
    return request


def read_request(path):
    try:
        with open(path, encoding="utf-8") as f:
            request = json.load(f)
    except OSError as e:
        raise BadRequest("cannot read: {}".format(e))
    except ValueError as e:
        raise BadRequest("not JSON: {}".format(e))
    return validate(request)
