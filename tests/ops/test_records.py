"""Records behave as the dataclasses they stand for: each case is built both ways."""

from __future__ import annotations

import dataclasses
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


@pytest.mark.parametrize("frozen", [False, True])
def test_a_record_does_what_the_same_dataclass_does(frozen: bool) -> None:
    dataclass, record = pair(frozen)
    assert facts(record) == facts(dataclass)
    assert records.fields(record(1)) == ("x", "y", "tags", "note", "seen")
