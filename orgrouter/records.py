"""Records: ``dataclasses`` and ``NamedTuple``s for the package's classes, built cheaply.

A dataclass compiles its methods as its module is imported (0.3 to 1 ms a class: 40 were
a seventh of a ``route --stdin`` run); a record's are shared functions reading the field
list, a little slower per instance. Type checkers see ``dataclasses`` itself, so every
construction and frozen field is checked as before; tests/ops/test_records.py holds the
runtime to the same answers.

``NamedTuple`` is ``typing.NamedTuple`` to type checkers and at run time the same
``collections.namedtuple`` class without the type check of each field's annotation: under
``from __future__ import annotations`` that check compiles every annotation's text as an
expression (about 0.6 M instructions a class, a twentieth of a ``route --stdin`` run), to
keep a ``ForwardRef`` nobody reads. The annotations stay as their text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["NamedTuple", "field", "fields", "record", "replace"]

if TYPE_CHECKING:
    from dataclasses import dataclass as record
    from dataclasses import field, replace
    from typing import NamedTuple
else:
    import collections

    # What typing.NamedTupleMeta refuses or leaves out of the class body, as it does.
    _PROHIBITED = frozenset({
        "__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
        "_make", "_replace", "_asdict", "_source",
    })  # fmt: skip
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _NamedTupleMeta(type):
        def __new__(cls, typename, bases, namespace):
            if not bases:  # NamedTuple itself
                return super().__new__(cls, typename, bases, namespace)
            if bases != (NamedTuple,):
                raise TypeError("can only inherit from NamedTuple")
            annotations = namespace.get("__annotations__", {})
            defaults = []
            for name in annotations:
                if name in namespace:
                    defaults.append(namespace[name])
                elif defaults:
                    raise TypeError(f"{typename}: field {name} without a default follows one")
            made = collections.namedtuple(
                typename, list(annotations), defaults=defaults, module=namespace["__module__"]
            )
            made.__annotations__ = made.__new__.__annotations__ = dict(annotations)
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
                if key not in _SPECIAL and key not in annotations:
                    setattr(made, key, value)
            return made

    class NamedTuple(metaclass=_NamedTupleMeta):
        """The base of a typed named tuple (``class Point(NamedTuple): x: int``)."""

    _MISSING = object()

    class _Field(tuple):  # (default, default_factory, init)
        pass

    def field(*, default=_MISSING, default_factory=_MISSING, init=True):
        """Describe a field: its default (or a factory of one), and whether __init__ sets it."""
        return _Field((default, default_factory, init))

    def record(cls=None, /, *, frozen=False):
        """Make ``cls`` a record (``@record`` or ``@record(frozen=True)``)."""

        def wrap(cls):
            specs = {s[0]: s for c in cls.__mro__[:0:-1] for s in vars(c).get("_record_fields", ())}
            for name, annotation in vars(cls).get("__annotations__", {}).items():
                value = vars(cls).get(name, _MISSING)
                spec = value if isinstance(value, _Field) else (value, _MISSING, True)
                if spec[0] is not _MISSING:
                    setattr(cls, name, spec[0])
                elif name in vars(cls):
                    delattr(cls, name)
                if not str(annotation).startswith("ClassVar"):
                    specs[name] = (name, *spec)
            cls._record_fields = tuple(specs.values())
            # Every field set by position, in order: the common call, one dict update.
            every = all(spec[3] for spec in cls._record_fields)
            cls._record_names = tuple(specs) if every else None
            cls._record_post = getattr(cls, "__post_init__", None)  # as dataclass decides it
            cls._record_made = 0
            cls.__init__, cls.__eq__, cls.__repr__ = _init, _eq, _repr
            cls.__hash__ = _hash if frozen else None
            if frozen:
                cls.__setattr__ = cls.__delattr__ = _refuse
            return cls

        return wrap if cls is None else wrap(cls)

    # A class built this often gets its own __init__, compiled as dataclass compiles one
    # (some 60 us): a run that makes a few of it never pays that, a route of 400 requests
    # makes 15,000 records, whose shared __init__ below walks the field list each time.
    COMPILE_AFTER = 32

    def _init(self, *args, **kwargs):
        # Values go into the instance's dict in field order, as dataclass sets them,
        # without a __setattr__ call each (a frozen record refuses those anyway).
        cls = type(self)
        cls._record_made += 1
        if cls._record_made == COMPILE_AFTER:
            cls.__init__ = compiled_init(cls) or _init
        values = self.__dict__
        names = self._record_names
        if names is not None and not kwargs and len(args) == len(names):
            values.update(zip(names, args, strict=True))
        else:
            given, at = len(args), 0
            for name, default, factory, init in self._record_fields:
                if init and at < given:
                    value, at = args[at], at + 1
                elif init and kwargs and name in kwargs:
                    value = kwargs.pop(name)
                elif default is not _MISSING:
                    value = default
                elif factory is not _MISSING:
                    value = factory()
                elif init:
                    raise TypeError(f"{type(self).__name__}() is missing the field {name!r}")
                else:
                    continue
                values[name] = value
            if kwargs or at < given:
                unexpected = kwargs or args
                raise TypeError(f"{type(self).__name__}() got unexpected arguments {unexpected}")
        if self._record_post is not None:
            self.__post_init__()

    def compiled_init(cls):
        """Return an ``__init__`` doing what ``_init`` does for ``cls``, or None if it cannot.

        None for a field without a default after one with (the shared one raises only
        when such a field is not given) and for a field named like the code's locals.
        """
        params, lines, env = [], [], {"_MISSING": _MISSING}
        defaulted = False
        for at, (name, default, factory, init) in enumerate(cls._record_fields):
            if not name.isidentifier() or name.startswith("_rec_") or name == "_MISSING":
                return None
            if default is not _MISSING:
                env[f"_rec_{at}"] = default
                value = name if init else f"_rec_{at}"
                params += [f"{name}=_rec_{at}"] if init else []
                defaulted = defaulted or init
            elif factory is not _MISSING:
                env[f"_rec_{at}"] = factory
                value = f"_rec_{at}() if {name} is _MISSING else {name}" if init else f"_rec_{at}()"
                params += [f"{name}=_MISSING"] if init else []
                defaulted = defaulted or init
            elif init:
                if defaulted:
                    return None
                value = name
                params.append(name)
            else:
                continue
            lines.append(f"    _rec_values[{name!r}] = {value}\n")
        if cls._record_post is not None:
            lines.append("    _rec_self.__post_init__()\n")
        source = (
            f"def __init__(_rec_self, {', '.join(params)}):\n"
            "    _rec_values = _rec_self.__dict__\n" + "".join(lines)
        )
        exec(source, env)  # field names checked above; the rest is this function's text
        made = env["__init__"]
        made.__qualname__ = f"{cls.__qualname__}.__init__"
        return made

    def _values(self):
        return tuple(getattr(self, spec[0]) for spec in self._record_fields)

    def _eq(self, other):
        return _values(self) == _values(other) if type(other) is type(self) else NotImplemented

    def _hash(self):
        return hash(_values(self))

    def _repr(self):
        shown = ", ".join(f"{s[0]}={getattr(self, s[0])!r}" for s in self._record_fields)
        return f"{type(self).__qualname__}({shown})"

    def _refuse(self, name, *_value):
        raise AttributeError(f"cannot assign to or delete the field {name!r} of a frozen record")

    def replace(obj, /, **changes):
        """Return a copy of ``obj`` (a record or a dataclass) with ``changes``."""
        if not hasattr(obj, "_record_fields"):
            import dataclasses

            return dataclasses.replace(obj, **changes)
        return type(obj)(**{s[0]: getattr(obj, s[0]) for s in obj._record_fields if s[3]} | changes)


def fields(obj: Any) -> tuple[str, ...]:
    """Return the names of a record's fields, in order."""
    return tuple(spec[0] for spec in obj._record_fields)
