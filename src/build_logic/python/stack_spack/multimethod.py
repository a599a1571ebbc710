"""`@when(spec)` multimethods: several definitions of one method, the first
whose condition the instance's spec satisfies runs; else the undecorated
definition; else the method of a base class."""

import functools
import sys

from .errors import NoSuchMethodError


class SpecMultiMethod:
    def __init__(self, default=None):
        self.default = default
        self.method_list = []  # [(condition text or bool, function)]
        self.__name__ = getattr(default, "__name__", None)
        self.owner = None
        if default is not None:
            functools.update_wrapper(self, default)

    def register(self, condition, method):
        if self.__name__ is None:
            self.__name__ = method.__name__
            functools.update_wrapper(self, method)
        self.method_list.append((condition, method))

    def __set_name__(self, owner, name):
        self.owner = owner
        self.__name__ = name

    def _choose(self, instance):
        spec = getattr(instance, "spec", None)
        for condition, method in self.method_list:
            if condition is True or condition is False:
                if condition:
                    return method
                continue
            if spec is not None and spec.satisfies(condition):
                return method
        return self.default

    def __get__(self, instance, owner):
        if instance is None:
            return self
        return functools.partial(self.__call__, instance)

    def __call__(self, instance, *args, **kwargs):
        method = self._choose(instance)
        if method is not None:
            return method(instance, *args, **kwargs)
        # fall back on a base class's method of the same name
        owner = self.owner or type(instance)
        mro = type(instance).__mro__
        start = mro.index(owner) + 1 if owner in mro else 1
        for cls in mro[start:]:
            if self.__name__ in cls.__dict__:
                attr = cls.__dict__[self.__name__]
                if isinstance(attr, SpecMultiMethod):
                    return attr(instance, *args, **kwargs)
                if isinstance(attr, property):
                    return attr.fget(instance)
                return attr.__get__(instance, type(instance))(*args, **kwargs)
        raise NoSuchMethodError(type(instance), self.__name__, getattr(instance, "spec", None),
                                [c for c, _ in self.method_list])

    def matches_none(self, instance):
        return self._choose(instance) is None

    def __repr__(self):
        return "<multimethod {} {}>".format(self.__name__, [c for c, _ in self.method_list])


def register_when(condition, method, depth=2):
    """Implement the decorator form of `when`: called from the class body."""
    frame = sys._getframe(depth)
    namespace = frame.f_locals
    is_property = isinstance(method, property)
    func = method.fget if is_property else method
    name = func.__name__
    existing = namespace.get(name)
    existing_fn = existing.fget if isinstance(existing, property) else existing
    if isinstance(existing_fn, SpecMultiMethod):
        mm = existing_fn
    else:
        mm = SpecMultiMethod(existing_fn if callable(existing_fn) else None)
    mm.register(condition, func)
    if is_property or isinstance(existing, property):
        return property(mm)
    return mm
