"""Lists of libraries and headers (`LibraryList`, `HeaderList`) and the
searches that build them (`find_libraries`, `find_headers`, …)."""

import collections.abc
import fnmatch
import glob
import os
import re

from .errors import NoHeadersError, NoLibrariesError


def _dedupe(items):
    seen = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


class FileList(collections.abc.Sequence):
    """An ordered list of files without duplicates."""

    def __init__(self, files):
        if isinstance(files, str):
            files = [files]
        self.files = _dedupe(str(f) for f in files)

    @property
    def directories(self):
        return _dedupe(os.path.dirname(x) for x in self.files if os.path.dirname(x))

    @property
    def basenames(self):
        return _dedupe(os.path.basename(x) for x in self.files)

    def __getitem__(self, item):
        cls = type(self)
        if isinstance(item, int):
            return self.files[item]
        return cls(self.files[item])

    def __add__(self, other):
        if isinstance(other, str):
            other = [other]
        return type(self)(list(self.files) + list(other))

    def __radd__(self, other):
        return type(self)(list(other) + list(self.files))

    def __eq__(self, other):
        return list(self.files) == list(other)

    def __hash__(self):
        return hash(tuple(self.files))

    def __len__(self):
        return len(self.files)

    def joined(self, separator=" "):
        return separator.join(self.files)

    def __repr__(self):
        return "{}({!r})".format(type(self).__name__, self.files)

    def __str__(self):
        return self.joined()


class HeaderList(FileList):
    """Header files; `include_flags` gives `-I` for their directories."""

    include_regex = re.compile(r"(.*?)(\binclude\b)(.*)")

    def __init__(self, files):
        super().__init__(files)
        self._macro_definitions = []
        self._directories = None

    @property
    def directories(self):
        if self._directories is not None:
            return list(self._directories)
        out = []
        for h in self.files:
            d = os.path.dirname(h)
            m = self.include_regex.match(d)
            out.append("".join(m.group(1, 2)) if m else d)
        return _dedupe(x for x in out if x)

    @directories.setter
    def directories(self, value):
        if isinstance(value, str):
            value = [value]
        self._directories = [os.path.normpath(x) for x in value]

    @property
    def headers(self):
        return self.files

    @property
    def names(self):
        out = []
        for x in self.basenames:
            name = x
            for ext in (".cuh", ".hpp", ".hh", ".h"):
                if name.endswith(ext):
                    name = name[: -len(ext)]
                    break
            out.append(name)
        return _dedupe(out)

    @property
    def include_flags(self):
        return " ".join("-I" + x for x in self.directories)

    @property
    def macro_definitions(self):
        return " ".join(self._macro_definitions)

    @property
    def cpp_flags(self):
        flags = self.include_flags
        if self._macro_definitions:
            flags += " " + self.macro_definitions
        return flags

    def add_macro(self, macro):
        self._macro_definitions.append(macro)


class LibraryList(FileList):
    """Library files; `ld_flags` gives `-L` and `-l` for them."""

    @property
    def libraries(self):
        return self.files

    @property
    def names(self):
        out = []
        for x in self.basenames:
            name = x
            if name.startswith("lib"):
                name = name[3:]
            name = re.sub(r"\.(so|a|dylib|dll|lib)(\.[0-9.]+)?$", "", name)
            name = re.sub(r"\.so(\.[0-9]+)*$", "", name)
            out.append(name)
        return _dedupe(out)

    @property
    def search_flags(self):
        return " ".join("-L" + x for x in self.directories)

    @property
    def link_flags(self):
        return " ".join("-l" + name for name in self.names)

    @property
    def ld_flags(self):
        return (self.search_flags + " " + self.link_flags).strip()


# --- searching ----------------------------------------------------------


def _find(root, patterns, recursive=True, max_depth=None):
    """Files under `root` (one directory or several) whose name matches one
    of the glob `patterns`, in pattern order, then walk order."""
    if isinstance(patterns, str):
        patterns = [patterns]
    roots = [root] if isinstance(root, str) else list(root)
    out = []
    for r in roots:
        r = str(r)
        if not os.path.isdir(r):
            continue
        if not recursive:
            names = sorted(os.listdir(r))
            for p in patterns:
                for n in names:
                    if fnmatch.fnmatchcase(n, p):
                        out.append(os.path.join(r, n))
            continue
        found = {p: [] for p in patterns}
        base_depth = r.rstrip(os.sep).count(os.sep)
        for dirpath, dirnames, filenames in os.walk(r, followlinks=True):
            dirnames.sort()
            depth = dirpath.rstrip(os.sep).count(os.sep) - base_depth
            if max_depth is not None and depth >= max_depth:
                dirnames[:] = []
            entries = sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))])
            for p in patterns:
                for n in entries:
                    if fnmatch.fnmatchcase(n, p):
                        found[p].append(os.path.join(dirpath, n))
        for p in patterns:
            out.extend(found[p])
    return _dedupe(out)


def find(root, files, recursive=True, max_depth=None):
    """Paths under `root` matching the glob(s) `files` (`find(prefix, "*.so")`)."""
    return _find(root, files, recursive=recursive, max_depth=max_depth)


def find_first(root, files, bfs_depth=2):
    found = _find(root, files, recursive=True)
    return found[0] if found else None


def find_headers(headers, root, recursive=False):
    """`find_headers("hdf5", prefix.include)`: `hdf5.h` (and .hpp, .hh, .cuh…)."""
    if isinstance(headers, str):
        headers = [headers]
    suffixes = ["h", "hpp", "hh", "hxx", "cuh", "H", "inc", "cxx", "cc", "cpp"]
    patterns = []
    for h in headers:
        if "." in os.path.basename(h) and not h.endswith("*"):
            patterns.append(h)
        else:
            patterns.extend("{}.{}".format(h, s) for s in suffixes)
    return HeaderList(_find(root, patterns, recursive=recursive))


def find_all_headers(root):
    return find_headers("*", root=root, recursive=True)


def find_libraries(libraries, root, shared=True, recursive=False, runtime=True, max_depth=None):
    """`find_libraries("libz", prefix, shared=True, recursive=True)`: the
    `libz.so` files under the prefix (shared) or `libz.a` (static)."""
    if isinstance(libraries, str):
        libraries = [libraries]
    suffixes = ["so"] if shared else ["a"]
    patterns = []
    for lib in libraries:
        for s in suffixes:
            patterns.append("{}.{}".format(lib, s))
    if not recursive:
        return LibraryList(_find(root, patterns, recursive=False))
    # Look in the usual library directories first, then everywhere.
    roots = [root] if isinstance(root, str) else list(root)
    for r in roots:
        for sub in ("lib", "lib64"):
            d = os.path.join(str(r), sub)
            if os.path.isdir(d):
                hits = _find(d, patterns, recursive=False)
                if hits:
                    return LibraryList(hits)
    return LibraryList(_find(root, patterns, recursive=True, max_depth=max_depth))


def find_system_libraries(libraries, shared=True):
    roots = ["/lib64", "/lib", "/usr/lib64", "/usr/lib", "/usr/local/lib64", "/usr/local/lib"]
    for r in roots:
        found = find_libraries(libraries, r, shared=shared, recursive=False)
        if found:
            return found
    return LibraryList([])


def library_glob(pattern):
    return sorted(glob.glob(pattern))


def default_libs(name, home, shared_pref=None):
    """Spack's default `.libs` of a package: `lib<name>` under its prefix,
    recursively; a dash in the name may be any character.  `shared_pref`:
    True (+shared), False (~shared) or None (shared first, then static)."""
    pattern = name.replace("-", "?")
    if not pattern.startswith("lib"):
        pattern = "lib" + pattern
    order = [shared_pref] if shared_pref is not None else [True, False]
    for shared in order:
        libs = find_libraries(pattern, home, shared=shared, recursive=True)
        if libs:
            return libs
    raise NoLibrariesError("Unable to recursively locate {} libraries in {}".format(name, home))


def default_headers(name, home):
    """Spack's default `.headers`: every header under `<prefix>/include`."""
    hdrs = find_all_headers(os.path.join(str(home), "include"))
    if hdrs:
        return hdrs
    raise NoHeadersError("Unable to locate {} headers in {}".format(name, home))
