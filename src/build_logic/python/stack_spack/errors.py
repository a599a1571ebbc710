"""Errors of the package API and the location of package code in tracebacks.

An API that the layer does not implement is never skipped: it raises
`ApiNotImplemented`, whose message names the package.py file and line that
used it.  The runner turns it into exit status 3.
"""

import os
import sys

DOC_ANCHOR = "docs/import.md#supported-api"

# Real paths of the package.py files being run (filled by the finder).
PACKAGE_FILES = set()

_LAYER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def register_package_file(path):
    PACKAGE_FILES.add(os.path.realpath(path))


def is_package_file(path):
    return os.path.realpath(path) in PACKAGE_FILES


def caller_location(skip=1):
    """(file, line) of the innermost frame running package code; else the
    innermost frame outside the layer; else the immediate caller."""
    frame = sys._getframe(skip)
    first_outside = None
    while frame is not None:
        fname = frame.f_code.co_filename
        if fname in PACKAGE_FILES or (
            fname.endswith("package.py") and is_package_file(fname)
        ):
            return fname, frame.f_lineno
        if first_outside is None and not os.path.abspath(fname).startswith(_LAYER_DIR):
            first_outside = (fname, frame.f_lineno)
        frame = frame.f_back
    if first_outside is not None:
        return first_outside
    frame = sys._getframe(skip)
    return frame.f_code.co_filename, frame.f_lineno


class ApiNotImplemented(Exception):
    """A part of Spack's package API that stack's layer does not implement."""

    def __init__(self, call, location=None):
        self.call = call
        self.file, self.line = location or caller_location(2)
        super().__init__(self.message())

    def message(self):
        return "stack: {}:{}: {} is not implemented by stack's package API ({})".format(
            self.file, self.line, self.call, DOC_ANCHOR
        )


def not_implemented(call):
    return ApiNotImplemented(call, caller_location(2))


class SpackError(Exception):
    """Base of the errors package code raises or catches (Spack's SpackError)."""

    def __init__(self, message="", long_message=None):
        super().__init__(message)
        self.message = message
        self.long_message = long_message

    def __str__(self):
        if self.long_message:
            return "{}\n    {}".format(self.message, self.long_message)
        return self.message


class InstallError(SpackError):
    """Raised by packages when an installation cannot proceed."""

    def __init__(self, message="", long_msg=None, pkg=None):
        super().__init__(message, long_msg)
        self.pkg = pkg


class ChildError(InstallError):
    pass


class NoLibrariesError(SpackError):
    def __init__(self, message_or_name, prefix=None):
        if prefix is None:
            super().__init__(message_or_name)
        else:
            super().__init__("Unable to locate {} libraries in {}".format(message_or_name, prefix))


class NoHeadersError(SpackError):
    pass


class CompilerError(SpackError):
    pass


class UnsupportedCompilerFlag(SpackError):
    pass


class ProcessError(SpackError):
    """A command run through `Executable` failed."""


class CommandNotFoundError(SpackError):
    pass


class NoSuchMethodError(SpackError):
    """No `@when` variant of a method matches the spec."""

    def __init__(self, cls, method_name, spec, possible_specs):
        super().__init__(
            "Package {} does not support {} called with {}.  Options are: {}".format(
                getattr(cls, "__name__", cls), method_name, spec,
                ", ".join(str(s) for s in possible_specs),
            )
        )


class SkipTest(Exception):
    """Raised by stand-alone test parts to skip themselves."""


class FetchError(SpackError):
    pass


class StopPhase(SpackError):
    pass


class UnsatisfiableSpecError(SpackError):
    pass


class SpecSyntaxError(SpackError, ValueError):
    pass


class VersionError(SpackError, ValueError):
    pass


class InvalidPackageOpError(SpackError):
    pass


class PackageError(SpackError):
    pass
