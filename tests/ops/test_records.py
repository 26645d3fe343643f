"""Records behave as the dataclasses they stand for: each case is built both ways."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, ClassVar

import pytest

from orgrouter import records


def pair(frozen: bool) -> tuple[type, type]:
    """Return one class declared as a dataclass and as a record, field for field."""
    made = []
    for decorate, field in (
        (dataclasses.dataclass(frozen=frozen), dataclasses.field),
        (records.record(frozen=frozen), records.field),
    ):

        class Point:
            """A point with a required, a defaulted, a factory and a hidden field."""

            limit: ClassVar[int] = 3
            x: int
            y: int = 2
            tags: list[str] = field(default_factory=list)
            note: str = field(default="")
            seen: int = field(default=0, init=False)

            def __post_init__(self) -> None:
                object.__setattr__(self, "seen", self.x + self.y)

        made.append(decorate(Point))
    return made[0], made[1]


def outcome(call: Any) -> object:
    """Return what ``call()`` gives, or the type of what it raises."""
    try:
        return call()
    except (TypeError, AttributeError) as error:  # FrozenInstanceError is an AttributeError
        return TypeError if isinstance(error, TypeError) else AttributeError


def facts(cls: type) -> list[object]:
    """Return what a record-like class does, as comparable values."""
    one, two = cls(1), cls(1, 5, ["a"], note="n")
    copy = records.replace(two, y=7)  # dataclasses.replace for a dataclass
    return [
        repr(one).split("(", 1)[1],
        (one.x, one.y, one.tags, one.note, one.seen),
        (two.x, two.y, two.tags, two.note, two.seen),
        one == cls(1), one == two, one != cls(2), one == (1, 2),
        one.tags is not cls(1).tags,
        (copy.y, copy.tags is two.tags, copy.seen),
        outcome(lambda: hash(one) == hash(cls(1))),
        outcome(lambda: setattr(one, "x", 9)),
        outcome(lambda: delattr(one, "y")),
        outcome(lambda: cls()),
        outcome(lambda: cls(1, 2, [], "", 4)),
        outcome(lambda: cls(1, x=1)),
        outcome(lambda: cls(1, seen=1)),
        outcome(lambda: cls(1, z=1)),
        cls.limit,
    ]  # fmt: skip


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("frozen", [False, True])
def test_a_record_does_what_the_same_dataclass_does(frozen: bool, compiled: bool) -> None:
    # A class built COMPILE_AFTER times gets its own compiled __init__: both must agree.
    dataclass, record = pair(frozen)
    if compiled:
        record.__init__ = records.compiled_init(record)  # type: ignore[attr-defined]
    assert facts(record) == facts(dataclass)
    assert records.fields(record(1)) == ("x", "y", "tags", "note", "seen")


@pytest.mark.parametrize("frozen", [False, True])
def test_a_record_of_init_fields_only_is_built_as_the_dataclass_is(frozen: bool) -> None:
    # Every field given by position takes one dict update: the same values, in the
    # same order (vars() is what to_json reads), the same __post_init__ and errors.
    made = []
    for decorate in (dataclasses.dataclass(frozen=frozen), records.record(frozen=frozen)):

        class Pair:
            left: str
            right: str = "r"

            def __post_init__(self) -> None:
                object.__setattr__(self, "left", self.left.upper())

        made.append(decorate(Pair))

    def built(cls: Any) -> list[object]:
        return [
            vars(cls("a", "b")), vars(cls("a")), vars(cls(right="c", left="d")),
            cls("a", "b") == cls("A", right="b"),
            outcome(lambda: cls("a", "b", "c")), outcome(lambda: cls()),
            outcome(lambda: cls("a", left="b")),
        ]  # fmt: skip

    assert built(made[1]) == built(made[0])
    assert list(vars(made[1]("a", "b"))) == ["left", "right"]
    shared = made[1].__init__
    for _ in range(records.COMPILE_AFTER):  # type: ignore[attr-defined]
        made[1]("a")
    assert made[1].__init__ is not shared  # compiled now, and still the same answers
    assert built(made[1]) == built(made[0])


def test_a_field_without_a_default_after_one_with_keeps_the_shared_init() -> None:
    @records.record
    class Late:
        early: int = 1
        late: int = records.field()  # type: ignore[misc]

    assert records.compiled_init(Late) is None  # type: ignore[attr-defined]
    assert vars(Late(2, 3)) == {"early": 2, "late": 3}
    assert outcome(lambda: Late(2)) is TypeError


def tuple_pair() -> tuple[type, type]:
    """Return one class declared as a typing.NamedTuple and as a records.NamedTuple."""
    made = []
    for base in (typing.NamedTuple, records.NamedTuple):

        class Span(base):  # type: ignore[valid-type,misc]
            """A span with a required, a defaulted field, a method and a property."""

            begin: int
            end: Span | None = None
            label: str = "x"

            def width(self) -> int:
                return 1

            @property
            def empty(self) -> bool:
                return self.begin == 0

        made.append(Span)
    return made[0], made[1]


def tuple_facts(cls: Any) -> list[object]:
    """Return what a named tuple class does, as comparable values."""
    one, two = cls(1), cls(0, None, "y")
    return [
        repr(one), repr(two), one == (1, None, "x"), two == cls(0, label="y"),
        cls._fields, cls._field_defaults, cls.__doc__, cls.__module__, cls.__qualname__,
        one._replace(label="z"), one._asdict(), cls._make([4, None, "w"]),
        one.width(), one.empty, two.empty, tuple.__new__ is not cls.__new__,
        list(cls.__annotations__), cls.__bases__, hash(one) == hash((1, None, "x")),
        outcome(lambda: cls()), outcome(lambda: cls(1, 2, 3, 4)), outcome(lambda: cls(1, z=1)),
        outcome(lambda: setattr(one, "begin", 2)),
    ]  # fmt: skip


def test_a_named_tuple_does_what_typings_does() -> None:
    typed, ours = tuple_pair()
    assert tuple_facts(ours) == tuple_facts(typed)
    # The one difference: the annotations stay as their text (no ForwardRef compiled).
    assert ours.__annotations__ == {"begin": "int", "end": "Span | None", "label": "str"}


@pytest.mark.parametrize(
    "body",
    [
        "a: int = 1\n    b: int",  # a field without a default after one with
        "a: int\n    def _replace(self): pass",  # a namedtuple attribute overwritten
    ],
)
def test_a_named_tuple_refuses_what_typings_refuses(body: str) -> None:
    refused = []
    for base in (typing.NamedTuple, records.NamedTuple):
        with pytest.raises((TypeError, AttributeError)) as error:
            exec(f"class Bad(base):\n    {body}\n", {"base": base})
        refused.append(error.type)
    assert refused[0] is refused[1]
