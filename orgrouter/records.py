"""Records: ``dataclasses`` for the classes on the hot path, with nothing compiled at import.

A dataclass compiles its methods from source when its module is imported (0.3 to 1 ms a
class: 40 of them were a seventh of a ``route --stdin`` run). A record's methods are
shared functions that read the class's field list, so a class costs nothing to build and
an instance a little more to make: records are for classes made per run, document or
request, not per headline. Type checkers see ``dataclasses`` itself, so every
construction and frozen field is checked as before; the runtime keeps those semantics:
fields in order (bases first), positional or keyword arguments, ``field(default,
default_factory, init, repr)``, ``__post_init__``, equality within one class, frozen
records immutable and hashable, others unhashable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["field", "fields", "record", "replace"]

if TYPE_CHECKING:
    from dataclasses import dataclass as record
    from dataclasses import field, replace
else:
    _MISSING = object()

    class _Field(tuple):  # (default, factory, init, repr)
        pass

    def field(*, default=_MISSING, default_factory=_MISSING, init=True, repr=True):
        """Describe one field: its default (or a factory of one), in __init__ and repr."""
        return _Field((default, default_factory, init, repr))

    def record(cls=None, /, *, frozen=False):
        """Make ``cls`` a record (``@record`` or ``@record(frozen=True)``)."""

        def wrap(cls):
            specs = {s[0]: s for base in reversed(cls.__mro__[1:])
                     for s in vars(base).get("__record_fields__", ())}  # fmt: skip
            for name, annotation in vars(cls).get("__annotations__", {}).items():
                if not str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                    value = vars(cls).get(name, _MISSING)
                    spec = value if isinstance(value, _Field) else (value, _MISSING, True, True)
                    if spec[0] is not _MISSING:
                        setattr(cls, name, spec[0])
                    elif name in vars(cls):
                        delattr(cls, name)
                    specs[name] = (name, *spec)
            cls.__record_fields__ = tuple(specs.values())
            cls.__match_args__ = tuple(s[0] for s in cls.__record_fields__ if s[3])
            for name, method in (("__init__", _init), ("__eq__", _eq), ("__repr__", _repr)):
                if name not in vars(cls):
                    setattr(cls, name, method)
            if frozen:
                cls.__setattr__ = cls.__delattr__ = _refuse
                if vars(cls).get("__hash__") is None:
                    cls.__hash__ = _hash
            elif "__eq__" not in vars(cls) or vars(cls).get("__hash__") is None:
                cls.__hash__ = None
            return cls

        return wrap if cls is None else wrap(cls)

    def _init(self, *args, **kwargs):
        cls = type(self)
        if len(args) > len(cls.__match_args__):
            raise TypeError(f"{cls.__name__}() takes {len(cls.__match_args__)} arguments")
        positional = iter(args)
        for name, default, factory, init, _repr in cls.__record_fields__:
            value = next(positional, _MISSING) if init else _MISSING
            if value is not _MISSING:
                if name in kwargs:
                    raise TypeError(f"{cls.__name__}() got two values for {name!r}")
            elif init and name in kwargs:
                value = kwargs.pop(name)
            elif factory is not _MISSING:
                value = factory()
            elif default is not _MISSING:
                value = default
            elif init:
                raise TypeError(f"{cls.__name__}() is missing the field {name!r}")
            else:
                continue
            object.__setattr__(self, name, value)
        if kwargs:
            raise TypeError(f"{cls.__name__}() got an unexpected argument {next(iter(kwargs))!r}")
        if hasattr(self, "__post_init__"):
            self.__post_init__()

    def _values(self):
        return tuple(getattr(self, spec[0]) for spec in type(self).__record_fields__)

    def _eq(self, other):
        same = other.__class__ is self.__class__
        return _values(self) == _values(other) if same else NotImplemented

    def _hash(self):
        return hash(_values(self))

    def _repr(self):
        shown = (f"{s[0]}={getattr(self, s[0])!r}" for s in type(self).__record_fields__ if s[4])
        return f"{type(self).__qualname__}({', '.join(shown)})"

    def _refuse(self, name, *_value):
        raise AttributeError(f"cannot assign to or delete the field {name!r} of a frozen record")

    def replace(obj, /, **changes):
        """Return a copy of ``obj`` (a record or a dataclass) with ``changes``."""
        if not hasattr(obj, "__record_fields__"):
            import dataclasses

            return dataclasses.replace(obj, **changes)
        for name, _default, _factory, init, _repr in obj.__record_fields__:
            if init and name not in changes:
                changes[name] = getattr(obj, name)
        return type(obj)(**changes)


def fields(obj: Any) -> tuple[str, ...]:
    """Return the names of a record's fields, in order."""
    return tuple(spec[0] for spec in obj.__record_fields__)
