"""Variant definitions as directives record them, and the value-set helpers
(`any_combination_of`, `auto_or_any_combination_of`, `disjoint_sets`,
`conditional`)."""


class ConditionalValue:
    """One value of `conditional(...)`, allowed only when `when` holds."""

    def __init__(self, value, when):
        self.value = value
        self.when = when

    def __str__(self):
        return str(self.value)

    def __repr__(self):
        return "ConditionalValue({!r}, when={!r})".format(self.value, str(self.when) if self.when else None)

    def __eq__(self, other):
        return str(self.value) == str(other)

    def __hash__(self):
        return hash(str(self.value))


class ConditionalVariantValues(list):
    """`conditional("a", "b", when="@2:")` inside `values=`."""

    def __init__(self, values=(), when=None):
        super().__init__(values)
        self.when = when


def conditional(*values, when=None):
    from .directives import when_spec

    w = when_spec(when)
    return ConditionalVariantValues((ConditionalValue(v, w) for v in values), when=w)


class DisjointSetsOfValues:
    """Values that may be combined within a set but not across sets
    (`disjoint_sets(("auto",), ("a", "b"))`)."""

    def __init__(self, *sets):
        self.sets = [tuple(str(v) for v in s) for s in sets]
        self.default = "none" if ("none",) in self.sets else None
        self.multi = True
        self.error_fmt = None
        self.feature_values = tuple(v for s in self.sets for v in s)
        self.non_feature_values = ()

    def with_default(self, default):
        self.default = default
        return self

    def with_error(self, error_fmt):
        self.error_fmt = error_fmt
        return self

    def with_non_feature_values(self, *values):
        self.non_feature_values = tuple(values)
        self.feature_values = tuple(v for v in self.feature_values if v not in values)
        return self

    def allow_empty_set(self):
        if ("none",) not in self.sets:
            self.sets.append(("none",))
        self.non_feature_values = tuple(set(self.non_feature_values) | {"none"})
        return self

    def prohibit_empty_set(self):
        self.sets = [s for s in self.sets if s != ("none",)]
        self.non_feature_values = tuple(v for v in self.non_feature_values if v != "none")
        if self.default == "none":
            self.default = None
        return self

    @property
    def values(self):
        out = []
        for s in self.sets:
            for v in s:
                if v not in out:
                    out.append(v)
        return tuple(out)

    def __iter__(self):
        return iter(self.values)

    def __contains__(self, item):
        return str(item) in self.values

    def __call__(self, values):
        return all(str(v) in self.values for v in values)

    def __repr__(self):
        return "DisjointSetsOfValues({!r})".format(self.sets)


def any_combination_of(*values):
    """Any combination of `values`, or `none` (the default)."""
    return DisjointSetsOfValues(("none",), tuple(values)).with_default("none").with_non_feature_values("none")


def auto_or_any_combination_of(*values):
    """`auto` (the default), or any combination of `values`."""
    return DisjointSetsOfValues(("auto",), tuple(values)).with_default("auto").with_non_feature_values("auto")


def disjoint_sets(*sets):
    return DisjointSetsOfValues(*sets)


class Variant:
    """A variant as `variant(...)` declares it."""

    def __init__(self, name, default=None, description="", values=None, multi=None,
                 validator=None, sticky=False, precedence=0):
        self.name = name
        self.description = description
        self.sticky = sticky
        self.validator = validator
        self.precedence = precedence
        self.values_source = values
        if isinstance(values, DisjointSetsOfValues):
            self.values = values.values
            self.multi = True
            if default is None:
                default = values.default
        elif callable(values) and not isinstance(values, (list, tuple, set)):
            self.values = None  # any value accepted by the callable
            self.multi = bool(multi)
        elif values is None:
            if default is None:
                default = False
            if isinstance(default, bool):
                self.values = (True, False)
            else:
                self.values = None
            self.multi = bool(multi)
        else:
            vals = []
            for v in values:
                if isinstance(v, ConditionalVariantValues):
                    vals.extend(v)
                elif isinstance(v, (set, frozenset)) and not isinstance(v, ConditionalVariantValues):
                    vals.extend(v)
                else:
                    vals.append(v)
            self.values = tuple(vals)
            self.multi = bool(multi)
        self.default = default

    @property
    def kind(self):
        if self.values == (True, False):
            return "bool"
        return "multi" if self.multi else "single"

    def make_default(self):
        return self.default

    def allowed_values(self):
        if self.values is None:
            return "*"
        return ", ".join(str(v) for v in self.values)

    def __repr__(self):
        return "Variant({!r}, default={!r}, values={!r}, multi={!r})".format(
            self.name, self.default, self.values, self.multi
        )
