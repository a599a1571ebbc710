"""`tty`: messages to the build log (`tty.msg`, `tty.warn`, `tty.debug`, …)."""

import sys

from .errors import SpackError


def _say(prefix, args):
    text = " ".join(str(a) for a in args)
    sys.stdout.write("{}{}\n".format(prefix, text))
    sys.stdout.flush()


def msg(message, *args, **kwargs):
    _say("==> ", (message,) + args)


def info(message, *args, **kwargs):
    _say("==> ", (message,) + args)


def verbose(message, *args, **kwargs):
    _say("==> ", (message,) + args)


def debug(message, *args, **kwargs):
    _say("==> [debug] ", (message,) + args)


def warn(message, *args, **kwargs):
    _say("==> Warning: ", (message,) + args)


def error(message, *args, **kwargs):
    _say("==> Error: ", (message,) + args)


def die(message, *args, **kwargs):
    error(message, *args)
    raise SpackError(str(message))


def is_verbose():
    return False


def is_debug(level=1):
    return False


def set_verbose(flag):
    pass


def set_debug(level):
    pass
