"""A request's inherited tags cost what its tags do, however many there are.

Repeated tags were once dropped by looking each one up in the rest of the list
(quadratic: a headline of 100,000 tags took minutes); the order Org gives them is kept.
"""

from __future__ import annotations

from pathlib import Path

from guard import finishes

from orgrouter.org.document import Document


def test_many_tags_are_inherited_within_the_guard(tmp_path: Path) -> None:
    code = """
        from orgrouter.org.document import Document
        tags = ":" + ":".join(f"t{i}" for i in range(100_000)) + ":"
        text = f"* top {tags}\\n** @agent create a todo to buy milk {tags}\\n"
        document = Document.from_input(text.encode(), "many.org")
        print(len(document.tags(1)))
    """
    assert finishes(code, tmp_path).strip() == "100000"


def test_the_most_local_place_of_a_repeated_tag_wins() -> None:
    text = "#+FILETAGS: :a:b:\n* top :b:c:\n** mid :a:\n*** @agent hi :c:d:\n"
    document = Document.from_input(text.encode(), "order.org")
    index = len(document.entries) - 1
    assert document.tags(index) == ("b", "a", "c", "d")
