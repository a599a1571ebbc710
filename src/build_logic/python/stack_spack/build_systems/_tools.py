"""How the builders reach the build tools: the package module's variable
(set for the build, possibly by the tool's own package), else the context's
lookup (a dependency's bin directory, then PATH)."""

from ..executable import Executable


def tool(pkg, name, make_like=False):
    exe = getattr(pkg.module, name, None)
    if isinstance(exe, Executable):
        return exe
    ctx = pkg._ctx()
    return ctx.tool(name, make_like=make_like, jobs=ctx.make_jobs(pkg) if make_like else None)
