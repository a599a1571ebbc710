"""`spack.util.environment`."""
from ..api import set_env  # noqa: F401
from ..envmods import EnvironmentModifications, filter_system_paths, is_system_path  # noqa: F401


def get_path(name):
    import os

    return [p for p in os.environ.get(name, "").split(os.pathsep) if p]


def path_put_first(var_name, directories):
    import os

    parts = [p for p in os.environ.get(var_name, "").split(os.pathsep) if p]
    rest = [p for p in parts if p not in directories]
    os.environ[var_name] = os.pathsep.join(list(directories) + rest)


def env_flag(name):
    import os

    return os.environ.get(name, "").lower() in ("true", "1")
