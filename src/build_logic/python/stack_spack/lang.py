"""Small language helpers of the package API (`memoized`, `classproperty`,
`dedupe`, `match_predicate`, …)."""

import functools


def memoized(func):
    """Cache the results of a function of hashable arguments."""
    cache = {}

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        key = (args, tuple(sorted(kwargs.items())))
        try:
            return cache[key]
        except KeyError:
            cache[key] = result = func(*args, **kwargs)
            return result
        except TypeError:
            return func(*args, **kwargs)

    wrapper.cache = cache
    return wrapper


class classproperty:
    """A read-only property of the class (`cls.homepage` computed from
    `cls.pypi`)."""

    def __init__(self, callback):
        self.callback = callback
        self.__doc__ = callback.__doc__

    def __get__(self, instance, owner):
        return self.callback(owner)

    def __class_getitem__(cls, item):
        # `ClassProperty[Optional[str]]` in annotations
        return cls


ClassProperty = classproperty


def dedupe(sequence, key=None):
    seen = set()
    for x in sequence:
        k = x if key is None else key(x)
        if k not in seen:
            seen.add(k)
            yield x


def match_predicate(*args):
    import re

    def match(string):
        for arg in args:
            if isinstance(arg, str):
                if re.search(arg, string):
                    return True
            elif isinstance(arg, (list, tuple)):
                if any(re.search(a, string) for a in arg):
                    return True
            elif callable(arg):
                if arg(string):
                    return True
        return False

    return match


def stable_partition(input_iterable, predicate_fn):
    yes, no = [], []
    for item in input_iterable:
        (yes if predicate_fn(item) else no).append(item)
    return yes, no


def union_dicts(*dicts):
    out = {}
    for d in dicts:
        out.update(d)
    return out


def index_by(objects, *funcs):
    if not funcs:
        return objects
    f = funcs[0]
    result = {}
    for o in objects:
        result.setdefault(f(o) if callable(f) else getattr(o, f), []).append(o)
    return result


def key_ordering(cls):
    def _cmp_key(self):
        return self._cmp_key()

    cls.__eq__ = lambda a, b: _cmp_key(a) == _cmp_key(b)
    cls.__lt__ = lambda a, b: _cmp_key(a) < _cmp_key(b)
    cls.__hash__ = lambda a: hash(_cmp_key(a))
    return cls
