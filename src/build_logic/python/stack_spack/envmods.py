"""`EnvironmentModifications`: a list of changes to environment variables,
recorded by `setup_*_environment` hooks and applied in order."""

import os
import sys

SYSTEM_DIRS = ["/", "/usr", "/usr/local"]
SYSTEM_PATHS = [os.path.join(p, s) for p in SYSTEM_DIRS for s in ("bin", "lib", "lib64", "include")] + SYSTEM_DIRS


def is_system_path(path):
    return bool(path) and os.path.normpath(str(path)) in SYSTEM_PATHS


def filter_system_paths(paths):
    return [p for p in paths if not is_system_path(p)]


class NameModifier:
    op = None

    def __init__(self, name, value=None, separator=os.pathsep, trace=None):
        self.name = name
        self.value = value
        self.separator = separator
        self.trace = trace

    def __eq__(self, other):
        return (
            type(self) is type(other) and self.name == other.name
            and self.value == other.value and self.separator == other.separator
        )

    def __repr__(self):
        return "{}({!r}, {!r})".format(type(self).__name__, self.name, self.value)

    def to_json(self):
        return {"op": self.op, "name": self.name, "value": None if self.value is None else str(self.value)}


class SetEnv(NameModifier):
    op = "set"

    def __init__(self, name, value, trace=None, force=False, raw=False):
        super().__init__(name, str(value), trace=trace)
        self.force = force
        self.raw = raw

    def execute(self, env):
        env[self.name] = str(self.value)


class UnsetEnv(NameModifier):
    op = "unset"

    def execute(self, env):
        env.pop(self.name, None)

    def to_json(self):
        return {"op": "unset", "name": self.name}


def _split(env, name, sep):
    current = env.get(name, "")
    return [p for p in current.split(sep) if p] if current else []


class AppendPath(NameModifier):
    op = "append_path"

    def execute(self, env):
        parts = _split(env, self.name, self.separator)
        parts.append(str(self.value))
        env[self.name] = self.separator.join(parts)


class PrependPath(NameModifier):
    op = "prepend_path"

    def execute(self, env):
        parts = _split(env, self.name, self.separator)
        env[self.name] = self.separator.join([str(self.value)] + parts)


class RemovePath(NameModifier):
    op = "remove_path"

    def execute(self, env):
        parts = _split(env, self.name, self.separator)
        env[self.name] = self.separator.join(p for p in parts if os.path.normpath(p) != os.path.normpath(str(self.value)))


class SetPath(NameModifier):
    op = "set"

    def __init__(self, name, value, separator=os.pathsep, trace=None):
        if not isinstance(value, str):
            value = separator.join(str(v) for v in value)
        super().__init__(name, value, separator, trace)

    def execute(self, env):
        env[self.name] = self.value


class AppendFlagsEnv(NameModifier):
    op = "append_flags"

    def execute(self, env):
        cur = env.get(self.name, "")
        env[self.name] = (cur + self.separator + str(self.value)) if cur else str(self.value)

    def to_json(self):
        return {"op": "append_path", "name": self.name, "value": str(self.value), "separator": self.separator}


class PrependFlagsEnv(NameModifier):
    op = "prepend_flags"

    def execute(self, env):
        cur = env.get(self.name, "")
        env[self.name] = (str(self.value) + self.separator + cur) if cur else str(self.value)

    def to_json(self):
        return {"op": "prepend_path", "name": self.name, "value": str(self.value), "separator": self.separator}


class RemoveFlagsEnv(NameModifier):
    op = "remove_flags"

    def execute(self, env):
        cur = env.get(self.name, "")
        env[self.name] = self.separator.join(f for f in cur.split(self.separator) if f and f != str(self.value))

    def to_json(self):
        return {"op": "remove_path", "name": self.name, "value": str(self.value), "separator": self.separator}


class DeprioritizeSystemPaths(NameModifier):
    op = "deprioritize_system_paths"

    def execute(self, env):
        parts = _split(env, self.name, self.separator)
        env[self.name] = self.separator.join(
            [p for p in parts if not is_system_path(p)] + [p for p in parts if is_system_path(p)]
        )

    def to_json(self):
        return None


class PruneDuplicatePaths(NameModifier):
    op = "prune_duplicate_paths"

    def execute(self, env):
        seen = []
        for p in _split(env, self.name, self.separator):
            if p not in seen:
                seen.append(p)
        env[self.name] = self.separator.join(seen)

    def to_json(self):
        return None


class EnvironmentModifications:
    """Changes to environment variables, kept in order."""

    def __init__(self, other=None, traced=None):
        self.env_modifications = []
        if other is not None:
            self.extend(other)

    def __iter__(self):
        return iter(self.env_modifications)

    def __len__(self):
        return len(self.env_modifications)

    def __bool__(self):
        return True

    def extend(self, other):
        self.env_modifications.extend(other.env_modifications if isinstance(other, EnvironmentModifications) else other)

    def set(self, name, value, *, force=False, raw=False):
        self.env_modifications.append(SetEnv(name, value, force=force, raw=raw))

    def unset(self, name):
        self.env_modifications.append(UnsetEnv(name))

    def set_path(self, name, elements, separator=os.pathsep):
        self.env_modifications.append(SetPath(name, elements, separator))

    def append_path(self, name, path, separator=os.pathsep):
        self.env_modifications.append(AppendPath(name, str(path), separator))

    def prepend_path(self, name, path, separator=os.pathsep):
        self.env_modifications.append(PrependPath(name, str(path), separator))

    def remove_path(self, name, path, separator=os.pathsep):
        self.env_modifications.append(RemovePath(name, str(path), separator))

    def append_flags(self, name, value, sep=" "):
        self.env_modifications.append(AppendFlagsEnv(name, str(value), sep))

    def prepend_flags(self, name, value, sep=" "):
        self.env_modifications.append(PrependFlagsEnv(name, str(value), sep))

    def remove_flags(self, name, value, sep=" "):
        self.env_modifications.append(RemoveFlagsEnv(name, str(value), sep))

    def deprioritize_system_paths(self, name, separator=os.pathsep):
        self.env_modifications.append(DeprioritizeSystemPaths(name, None, separator))

    def prune_duplicate_paths(self, name, separator=os.pathsep):
        self.env_modifications.append(PruneDuplicatePaths(name, None, separator))

    def group_by_name(self):
        out = {}
        for m in self.env_modifications:
            out.setdefault(m.name, []).append(m)
        return out

    def is_unset(self, name):
        mods = [m for m in self.env_modifications if m.name == name]
        return bool(mods) and isinstance(mods[-1], UnsetEnv)

    def drop(self, *names):
        old = len(self.env_modifications)
        self.env_modifications = [m for m in self.env_modifications if m.name not in names]
        return len(self.env_modifications) != old

    def clear(self):
        self.env_modifications = []

    def reversed(self):
        rev = EnvironmentModifications()
        for m in reversed(self.env_modifications):
            if isinstance(m, SetEnv):
                rev.unset(m.name)
            elif isinstance(m, AppendPath):
                rev.remove_path(m.name, m.value, m.separator)
            elif isinstance(m, PrependPath):
                rev.remove_path(m.name, m.value, m.separator)
            elif isinstance(m, AppendFlagsEnv):
                rev.remove_flags(m.name, m.value, m.separator)
        return rev

    def apply_modifications(self, env=None):
        env = os.environ if env is None else env
        for m in self.env_modifications:
            m.execute(env)

    def to_json(self):
        out = []
        for m in self.env_modifications:
            j = m.to_json()
            if j is not None:
                out.append(j)
        return out

    def __repr__(self):
        return "EnvironmentModifications({!r})".format(self.env_modifications)

    @staticmethod
    def from_sourcing_file(filename, *arguments, **kwargs):
        """The changes that sourcing a shell script makes to the environment."""
        import shlex
        import subprocess

        filename = str(filename)
        if not os.path.isfile(filename):
            raise RuntimeError("Trying to source non-existing file: {}".format(filename))
        shell = kwargs.get("shell", "/bin/bash")
        script = "{} >/dev/null 2>&1; {} -c 'import os, json; print(json.dumps(dict(os.environ)))'".format(
            " ".join(["."] + [shlex.quote(filename)] + [shlex.quote(str(a)) for a in arguments]),
            shlex.quote(sys.executable),
        )
        out = subprocess.run([shell, "-c", script], stdout=subprocess.PIPE, check=True).stdout
        import json

        after = json.loads(out.decode().strip().splitlines()[-1])
        before = dict(os.environ)
        mods = EnvironmentModifications()
        ignore = set(kwargs.get("exclude", [])) | {"SHLVL", "_", "PWD", "OLDPWD", "PS1", "PS2"}
        for name in sorted(set(before) | set(after)):
            if name in ignore:
                continue
            if name not in after:
                mods.unset(name)
            elif before.get(name) != after[name]:
                old = [p for p in before.get(name, "").split(os.pathsep) if p]
                new = [p for p in after[name].split(os.pathsep) if p]
                if old and new[len(new) - len(old):] == old and os.sep in after[name]:
                    for p in reversed(new[: len(new) - len(old)]):
                        mods.prepend_path(name, p)
                elif old and new[: len(old)] == old and os.sep in after[name]:
                    for p in new[len(old):]:
                        mods.append_path(name, p)
                else:
                    mods.set(name, after[name])
        return mods

