"""File-system helpers of the package API: `filter_file`, `FileFilter`,
`install`, `install_tree`, `copy`, `copy_tree`, `mkdirp`, `working_dir`,
`join_path`, `ancestor`, `touch`, `force_remove`, `symlink`, …"""

import contextlib
import errno
import glob
import os
import re
import shutil
import stat
import sys

from .errors import SpackError


def join_path(prefix, *args):
    return os.path.join(str(prefix), *(str(a) for a in args))


def ancestor(dir, n=1):
    parent = os.path.abspath(str(dir))
    for _ in range(n):
        parent = os.path.dirname(parent)
    return parent


def mkdirp(*paths, mode=None, default_perms=None):
    for path in paths:
        path = str(path)
        if not os.path.exists(path):
            try:
                if mode is not None:
                    os.makedirs(path, mode)
                else:
                    os.makedirs(path)
            except OSError as e:
                if e.errno != errno.EEXIST or not os.path.isdir(path):
                    raise
        elif not os.path.isdir(path):
            raise OSError(errno.EEXIST, "File already exists", path)


@contextlib.contextmanager
def working_dir(dirname, create=False):
    dirname = str(dirname)
    if create:
        mkdirp(dirname)
    orig = os.getcwd()
    os.chdir(dirname)
    try:
        yield
    finally:
        os.chdir(orig)


def touch(*paths):
    for path in paths:
        with open(str(path), "a"):
            os.utime(str(path), None)


def touchp(path):
    mkdirp(os.path.dirname(str(path)))
    touch(path)


def force_remove(*paths):
    for path in paths:
        try:
            os.remove(str(path))
        except OSError:
            pass


def safe_remove(*files_or_dirs):
    for p in files_or_dirs:
        p = str(p)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            force_remove(p)


def remove_linked_tree(path):
    path = str(path)
    if os.path.exists(path):
        if os.path.islink(path):
            shutil.rmtree(os.path.realpath(path), ignore_errors=True)
            os.unlink(path)
        else:
            shutil.rmtree(path, ignore_errors=True)


def remove_directory_contents(dir):
    dir = str(dir)
    if os.path.exists(dir):
        for entry in os.listdir(dir):
            p = os.path.join(dir, entry)
            if os.path.isfile(p) or os.path.islink(p):
                os.unlink(p)
            else:
                shutil.rmtree(p)


def rename(src, dst):
    os.replace(str(src), str(dst))


def symlink(source_path, link_path, allow_broken_symlinks=True):
    os.symlink(str(source_path), str(link_path))


def force_symlink(src, dest):
    try:
        os.symlink(str(src), str(dest))
    except OSError:
        os.remove(str(dest))
        os.symlink(str(src), str(dest))


def readlink(path, *, dir_fd=None):
    return os.readlink(str(path))


def is_exe(path):
    path = str(path)
    return os.path.isfile(path) and os.access(path, os.X_OK)


def can_access(file_name):
    return os.access(str(file_name), os.R_OK | os.W_OK)


def set_executable(path):
    path = str(path)
    mode = os.stat(path).st_mode
    if mode & stat.S_IRUSR:
        mode |= stat.S_IXUSR
    if mode & stat.S_IRGRP:
        mode |= stat.S_IXGRP
    if mode & stat.S_IROTH:
        mode |= stat.S_IXOTH
    os.chmod(path, mode)


def unset_executable_mode(path):
    mode = os.stat(str(path)).st_mode
    os.chmod(str(path), mode & ~(stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))


def copy_mode(src, dest):
    src_mode = os.stat(str(src)).st_mode
    dest_mode = os.stat(str(dest)).st_mode
    if src_mode & stat.S_IXUSR:
        dest_mode |= stat.S_IXUSR
    if src_mode & stat.S_IXGRP:
        dest_mode |= stat.S_IXGRP
    if src_mode & stat.S_IXOTH:
        dest_mode |= stat.S_IXOTH
    os.chmod(str(dest), dest_mode)


def set_install_permissions(path):
    path = str(path)
    if os.path.islink(path):
        return
    if os.path.isdir(path):
        os.chmod(path, 0o755)
    else:
        os.chmod(path, 0o644)


@contextlib.contextmanager
def keep_modification_time(*filenames):
    mtimes = {}
    for f in filenames:
        if os.path.exists(str(f)):
            mtimes[str(f)] = os.path.getmtime(str(f))
    yield
    for f, mtime in mtimes.items():
        if os.path.exists(f):
            os.utime(f, (os.path.getatime(f), mtime))


def path_contains_subdirectory(path, root):
    norm_root = os.path.abspath(str(root)).rstrip(os.sep) + os.sep
    norm_path = os.path.abspath(str(path)).rstrip(os.sep) + os.sep
    return norm_path.startswith(norm_root)


def has_shebang(path):
    try:
        with open(str(path), "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def library_extensions():
    return ["a", "so"]


def windows_sfn(path):
    return path


def fix_darwin_install_name(path):
    """Only meaningful on macOS; nothing to do on Linux."""


def _has_glob(path):
    return any(c in str(path) for c in "*?[")


def _expand(src):
    src = str(src)
    if _has_glob(src):
        matches = sorted(glob.glob(src))
        if not matches:
            raise OSError(errno.ENOENT, "No such file or directory", src)
        return matches
    return [src]


def copy(src, dest, _permissions=False):
    """Copy a file (or the files a glob matches) to `dest` (a file, or a
    directory when several match)."""
    files = _expand(src)
    dest = str(dest)
    if len(files) > 1 and not os.path.isdir(dest):
        raise ValueError("'{}' matches several files but '{}' is not a directory".format(src, dest))
    for f in files:
        target = os.path.join(dest, os.path.basename(f)) if os.path.isdir(dest) else dest
        shutil.copy(f, target)
        if _permissions:
            set_install_permissions(target)
            copy_mode(f, target)


def install(src, dest):
    """Copy a file (or glob) to `dest` with installation permissions."""
    copy(src, dest, _permissions=True)


def _copy_tree_one(src, dest, symlinks, ignore, permissions):
    src = os.path.abspath(src)
    dest = os.path.abspath(dest)
    if not os.path.isdir(src):
        raise OSError(errno.ENOTDIR, "Not a directory", src)
    mkdirp(dest)
    for root, dirs, files in os.walk(src, followlinks=not symlinks):
        rel = os.path.relpath(root, src)
        rel = "" if rel == "." else rel
        if ignore is not None and rel and ignore(rel):
            dirs[:] = []
            continue
        target_root = os.path.join(dest, rel)
        keep_dirs = []
        for d in sorted(dirs):
            s = os.path.join(root, d)
            r = os.path.join(rel, d)
            if ignore is not None and ignore(r):
                continue
            t = os.path.join(target_root, d)
            if symlinks and os.path.islink(s):
                _copy_link(s, t, src, dest)
                continue
            mkdirp(t)
            if permissions:
                set_install_permissions(t)
            keep_dirs.append(d)
        dirs[:] = keep_dirs
        for f in sorted(files):
            s = os.path.join(root, f)
            r = os.path.join(rel, f)
            if ignore is not None and ignore(r):
                continue
            t = os.path.join(target_root, f)
            if symlinks and os.path.islink(s):
                _copy_link(s, t, src, dest)
                continue
            if os.path.lexists(t) and not os.path.isdir(t):
                os.remove(t)
            shutil.copy2(s, t)
            if permissions:
                set_install_permissions(t)
                copy_mode(s, t)


def _copy_link(s, t, src_root, dest_root):
    target = os.readlink(s)
    if os.path.isabs(target) and path_contains_subdirectory(target, src_root):
        target = os.path.join(dest_root, os.path.relpath(target, src_root))
    if os.path.lexists(t):
        if os.path.isdir(t) and not os.path.islink(t):
            shutil.rmtree(t)
        else:
            os.remove(t)
    os.symlink(target, t)


def copy_tree(src, dest, symlinks=True, ignore=None, _permissions=False):
    """Copy a directory's contents (or of each directory a glob matches)
    into `dest`, merging with what is there; symlinks stay symlinks."""
    for s in _expand(src):
        _copy_tree_one(s, dest, symlinks, ignore, _permissions)


def install_tree(src, dest, symlinks=True, ignore=None, allow_broken_symlinks=False):
    copy_tree(src, dest, symlinks=symlinks, ignore=ignore, _permissions=True)


# --- filter_file ------------------------------------------------------------------


def filter_file(regex, repl, *filenames, string=False, backup=False, ignore_absent=False,
                start_at=None, stop_at=None, encoding="utf-8"):
    """Like sed: replace `regex` (a Python regular expression, or plain text
    with `string=True`) by `repl` on every line of each file."""
    if string:
        regex = re.escape(regex)
    pattern = re.compile(regex)
    if not callable(repl):
        repl = str(repl)
    for filename in filenames:
        filename = str(filename)
        if not os.path.exists(filename):
            if ignore_absent:
                continue
            raise OSError(errno.ENOENT, "filter_file: no such file", filename)
        backup_name = filename + "~"
        shutil.copy2(filename, backup_name)
        try:
            with open(backup_name, "r", encoding=encoding, errors="surrogateescape", newline="") as fin:
                lines = fin.readlines()
            out = []
            started = start_at is None
            stopped = False
            for line in lines:
                if stopped:
                    out.append(line)
                    continue
                if not started:
                    out.append(line)
                    if start_at in line:
                        started = True
                    continue
                if stop_at is not None and stop_at in line:
                    stopped = True
                    out.append(line)
                    continue
                out.append(pattern.sub(repl, line))
            with open(filename, "w", encoding=encoding, errors="surrogateescape", newline="") as fout:
                fout.writelines(out)
            shutil.copymode(backup_name, filename)
        except BaseException:
            shutil.move(backup_name, filename)
            raise
        if not backup:
            os.remove(backup_name)


class FileFilter:
    """`FileFilter(*files).filter(regex, repl, **kwargs)`."""

    def __init__(self, *filenames):
        self.filenames = filenames

    def filter(self, regex, repl, **kwargs):
        return filter_file(regex, repl, *self.filenames, **kwargs)


def change_sed_delimiter(old_delim, new_delim, *filenames):
    """Change the delimiter of `s` commands in sed scripts."""
    assert len(old_delim) == 1 and len(new_delim) == 1
    whole = r"^s@([^@]*)@(.*)@[gIp]$".replace("@", re.escape(old_delim))
    single = r"'s@((?:\\\\'|[^@'])*)@((?:\\\\'|[^'])*)@[gIp]?'".replace("@", re.escape(old_delim))
    double = r'"s@((?:\\\\"|[^@"])*)@((?:\\\\"|[^@"])*)@[gIp]?"'.replace("@", re.escape(old_delim))
    repl = r"s@\1@\2@".replace("@", new_delim)
    for f in filenames:
        filter_file(whole, "^" + repl, f)
        filter_file(single, "'" + repl + "'", f)
        filter_file(double, '"' + repl + '"', f)


def filter_shebang(path):
    """Shebang lines are left as they are (stack installs into short prefixes)."""


def find_required_file(root, filename, expected=1, recursive=True):
    from .filelists import find

    files = find(root, filename, recursive=recursive)
    if expected is not None and len(files) != expected:
        raise SpackError("Expected {} {} files under {}; found {}".format(expected, filename, root, files))
    return files if expected != 1 else files[0]


def get_filetype(path_name):
    from .executable import Executable

    return Executable("file")("-b", "-h", str(path_name), output=str, error=str).strip()


@contextlib.contextmanager
def _stdout_to(stream):
    old = sys.stdout
    sys.stdout = stream
    try:
        yield
    finally:
        sys.stdout = old
