"""`Executable`, `which` and the `make`-like executables with parallel jobs.

Calling an Executable runs it with the build environment; stdout and stderr
go to the build log unless `output=`/`error=` says otherwise (`str`: captured
and returned; a path: written to that file; a file object).  A non-zero exit
raises `ProcessError` unless `fail_on_error=False` or the code is in
`ignore_errors`; `returncode` keeps the last exit code.
"""

import os
import shlex
import subprocess
import sys

from .errors import CommandNotFoundError, ProcessError


# every command run through an Executable, for result.json
COMMANDS = []


def _log_command(cmd):
    COMMANDS.append([str(c) for c in cmd])
    sys.stdout.write("==> " + " ".join(shlex.quote(str(c)) for c in cmd) + "\n")
    sys.stdout.flush()


class Executable:
    def __init__(self, name):
        if isinstance(name, Executable):
            self.exe = list(name.exe)
            self.default_env = dict(name.default_env)
            self.default_envmod = list(name.default_envmod)
            self.returncode = None
            return
        self.exe = shlex.split(str(name))
        self.default_env = {}
        self.default_envmod = []
        self.returncode = None
        if not self.exe:
            raise ProcessError("Cannot construct executable for '{}'".format(name))

    def add_default_arg(self, *args):
        self.exe.extend(str(a) for a in args)

    def with_default_args(self, *args):
        new = Executable(self)
        new.add_default_arg(*args)
        return new

    def add_default_env(self, key, value):
        self.default_env[key] = value

    def add_default_envmod(self, envmod):
        self.default_envmod.append(envmod)

    @property
    def command(self):
        return " ".join(self.exe)

    @property
    def name(self):
        return os.path.basename(self.path)

    @property
    def path(self):
        return self.exe[0]

    def __call__(self, *args, **kwargs):
        fail_on_error = kwargs.pop("fail_on_error", True)
        ignore_errors = kwargs.pop("ignore_errors", ())
        if isinstance(ignore_errors, int):
            ignore_errors = (ignore_errors,)
        kwargs.pop("ignore_quotes", None)
        timeout = kwargs.pop("timeout", None)
        env_arg = kwargs.pop("env", None)
        extra_env = kwargs.pop("extra_env", None)
        output = kwargs.pop("output", None)
        error = kwargs.pop("error", None)
        input_ = kwargs.pop("input", None)
        kwargs.pop("_dump_env", None)
        if kwargs:
            raise TypeError("Executable call got unexpected arguments {}".format(sorted(kwargs)))

        env = dict(os.environ) if env_arg is None else {k: str(v) for k, v in dict(env_arg).items()}
        env.update({k: str(v) for k, v in self.default_env.items()})
        for mod in self.default_envmod:
            mod.apply_modifications(env)
        if extra_env:
            if hasattr(extra_env, "apply_modifications"):
                extra_env.apply_modifications(env)
            else:
                env.update({k: str(v) for k, v in dict(extra_env).items()})

        cmd = self.exe + [str(a) for a in args]
        to_close = []

        def stream(arg, mode):
            if arg is None or arg is str or arg is bytes:
                return subprocess.PIPE if arg in (str, bytes) else None
            if isinstance(arg, str):
                f = open(arg, mode)
                to_close.append(f)
                return f
            return arg

        out_s = stream(output, "w")
        err_s = stream(error, "w")
        if out_s is None:
            sys.stdout.flush()
        in_s = None
        if input_ is not None:
            in_s = stream(input_, "r") if not (input_ is str) else None
        _log_command(cmd)
        try:
            proc = subprocess.Popen(cmd, stdout=out_s, stderr=err_s, stdin=in_s, env=env)
            out, err = proc.communicate(timeout=timeout)
        except FileNotFoundError as e:
            self.returncode = 127
            if fail_on_error:
                raise ProcessError("{}: {}".format(cmd[0], e.strerror), "Command: {}".format(" ".join(cmd)))
            return "" if (output is str or error is str) else None
        except OSError as e:
            self.returncode = 126
            if fail_on_error:
                raise ProcessError("{}: {}".format(cmd[0], e), "Command: {}".format(" ".join(cmd)))
            return "" if (output is str or error is str) else None
        finally:
            for f in to_close:
                f.close()
        self.returncode = proc.returncode
        result = None
        if output in (str, bytes) or error in (str, bytes):
            parts = []
            if output in (str, bytes) and out is not None:
                parts.append(out)
            if error in (str, bytes) and err is not None:
                parts.append(err)
            raw = b"".join(parts)
            result = raw if (output is bytes or error is bytes) else raw.decode("utf-8", "replace")
        if fail_on_error and proc.returncode != 0 and proc.returncode not in ignore_errors:
            long_msg = "Command: {}".format(" ".join(shlex.quote(c) for c in cmd))
            if result and isinstance(result, str):
                long_msg += "\n" + result
            raise ProcessError(
                "Command exited with status {}:".format(proc.returncode), long_msg
            )
        return result

    def __eq__(self, other):
        return isinstance(other, Executable) and self.exe == other.exe

    def __hash__(self):
        return hash(tuple(self.exe))

    def __repr__(self):
        return "<exe: {}>".format(self.exe)

    def __str__(self):
        return " ".join(self.exe)


def _jobserver_active():
    flags = os.environ.get("MAKEFLAGS", "")
    return "--jobserver-auth" in flags or "--jobserver-fds" in flags


class MakeExecutable(Executable):
    """`make`, `ninja`: add `-j<jobs>` when `parallel` (and no jobserver is
    handed down by the caller); `jobs_env` also sets that variable."""

    def __init__(self, name, jobs=1, supports_jobserver=True, **kwargs):
        super().__init__(name)
        self.jobs = jobs
        self.supports_jobserver = supports_jobserver

    def __call__(self, *args, **kwargs):
        parallel = kwargs.pop("parallel", True)
        jobs_env = kwargs.pop("jobs_env", None)
        kwargs.pop("jobs_env_supports_jobserver", None)
        jobs = self.jobs if parallel else 1
        if os.environ.get("SPACK_NO_PARALLEL_MAKE"):
            jobs = 1
        extra = []
        if not parallel:
            extra = ["-j1"]
        elif jobs > 1 and not (self.supports_jobserver and _jobserver_active()):
            extra = ["-j{}".format(jobs)]
        if jobs_env:
            env = dict(kwargs.pop("extra_env", {}) or {})
            env[jobs_env] = str(jobs)
            kwargs["extra_env"] = env
        return super().__call__(*(extra + list(args)), **kwargs)


class MissingExecutable(Executable):
    """A module-level tool (`cmake`, `perl`, …) that is neither a dependency
    nor on PATH: calling it fails with a clear message."""

    def __init__(self, name):
        self.exe = [name]
        self.default_env = {}
        self.default_envmod = []
        self.returncode = None

    def __call__(self, *args, **kwargs):
        raise CommandNotFoundError(
            "'{}' is not available: it is neither a dependency of the package nor on PATH".format(self.exe[0])
        )


def _search_path(path):
    if path is None:
        path = os.environ.get("PATH", "")
    if isinstance(path, str):
        path = path.split(os.pathsep)
    return [str(p) for p in path if p]


def which_string(*args, path=None, required=False):
    search = _search_path(path)
    for name in args:
        name = str(name)
        if os.sep in name:
            if os.path.isfile(name) and os.access(name, os.X_OK):
                return name
            continue
        for d in search:
            candidate = os.path.join(d, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    if required:
        raise CommandNotFoundError("'{}' is required. Make sure it is in your path.".format(args[0] if args else ""))
    return None


def which(*args, path=None, required=False):
    p = which_string(*args, path=path, required=required)
    return Executable(shlex.quote(p)) if p else None
