"""Validation: each drop reason, and what is kept, on real files in a temp rules dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from orgrouter.errors import ConfigError
from orgrouter.refine.candidate import Candidate, Edit
from orgrouter.refine.tree import RulesTree
from orgrouter.refine.validate import (
    MISSING,
    NOT_ALLOWED,
    STALE,
    TOO_LARGE,
    TOO_MANY,
    TOO_MUCH_GROWTH,
    StaleEdit,
    apply_edit,
    locate,
    reapply,
    validate,
)

TABLE = (
    b"# The decomposer's verbs, padded so 15% growth leaves room for a few edits.\n" * 4
    + b'[skills.todo]\nverbs = ["todo", "track"]\n\n[skills.tag]\nverbs = ["tag"]\n'
    + b'[skills.label]\nverbs = ["tag"]\n'
)


@pytest.fixture
def tree(tmp_path: Path) -> RulesTree:
    live = tmp_path / "live"
    default = tmp_path / "default"
    live.mkdir()
    default.mkdir()
    (live / "verbs.toml").write_bytes(TABLE)
    (default / "verbs.toml").write_bytes(b"not the live one\n")
    (default / "risk.toml").write_bytes(b'[risk]\nhigh = ["delete"]\n' * 10)
    return RulesTree(live=live, default=default)


def edit(
    before: str,
    after: str,
    *,
    file: str = "verbs.toml",
    op: str = "replace",
    anchor: str | None = None,
) -> Edit:
    return Edit(file=file, op=op, before=before, after=after, anchor=anchor)  # type: ignore[arg-type]


def test_replace_with_anchor_kept(tree: RulesTree) -> None:
    # "[skills.tag]" occurs 4 times in TABLE; an anchor that occurs once narrows it.
    (tree.live / "verbs.toml").write_bytes(b'[a]\nverbs = ["x"]\n[b]\nverbs = ["x"]\n')  # type: ignore[operator]
    result = validate(
        Candidate((edit('verbs = ["x"]', 'verbs = ["x", "y"]', anchor="[b]"),)),
        tree,
        ["verbs.toml"],
    )
    assert result.dropped == ()
    assert result.results == {"verbs.toml": b'[a]\nverbs = ["x"]\n[b]\nverbs = ["x", "y"]\n'}
    assert result.originals == {"verbs.toml": b'[a]\nverbs = ["x"]\n[b]\nverbs = ["x"]\n'}


def test_not_on_allowlist_dropped(tree: RulesTree) -> None:
    result = validate(Candidate((edit("todo", "todos"),)), tree, ["risk.toml"])
    assert [(d.index, d.reason) for d in result.dropped] == [(0, NOT_ALLOWED)]
    assert result.kept == ()


def test_empty_allowlist_means_nothing_writable(tree: RulesTree) -> None:
    result = validate(Candidate((edit('"track"', '"track", "note"'),)), tree, [])
    assert [d.reason for d in result.dropped] == [NOT_ALLOWED]


@pytest.mark.parametrize("name", ["../verbs.toml", "/etc/passwd", "a/../../x", "", "a\\b"])
def test_paths_leaving_the_rules_dir_dropped(tree: RulesTree, name: str) -> None:
    result = validate(Candidate((edit("x", "y", file=name),)), tree, ["verbs.toml"])
    assert [d.reason for d in result.dropped] == [NOT_ALLOWED]


@pytest.mark.parametrize("name", ["../verbs.toml", "/etc/passwd", ""])
def test_an_allowlist_entry_leaving_the_rules_dir_is_a_config_error(
    tree: RulesTree, name: str
) -> None:
    with pytest.raises(ConfigError, match="is not a path inside the rules dir"):
        validate(Candidate((edit("x", "y"),)), tree, [name])


def test_symlink_out_of_rules_dir_dropped(tree: RulesTree, tmp_path: Path) -> None:
    outside = tmp_path / "outside.toml"
    outside.write_bytes(b"secret = 1\n")
    (tree.live / "link.toml").symlink_to(outside)  # type: ignore[operator]
    result = validate(
        Candidate((edit("secret", "s", file="link.toml"),)),
        tree,
        ["link.toml"],
    )
    assert [d.reason for d in result.dropped] == [NOT_ALLOWED]
    assert outside.read_bytes() == b"secret = 1\n"


def test_before_not_found_is_stale(tree: RulesTree) -> None:
    result = validate(Candidate((edit("no such text", "x"),)), tree, ["verbs.toml"])
    assert [(d.reason, d.detail) for d in result.dropped] == [
        (STALE, "`before` is not in the file (stale)")
    ]


def test_before_found_twice_is_stale(tree: RulesTree) -> None:
    result = validate(Candidate((edit('"tag"', '"tag", "label"'),)), tree, ["verbs.toml"])
    assert [(d.reason, d.detail) for d in result.dropped] == [
        (STALE, "`before` occurs more than once in the file (ambiguous)")
    ]


def test_anchor_not_found_is_stale(tree: RulesTree) -> None:
    result = validate(
        Candidate((edit('"tag"', '"tags"', anchor="[skills.none]"),)), tree, ["verbs.toml"]
    )
    assert [(d.reason, d.detail) for d in result.dropped] == [
        (STALE, "`anchor` is not in the file (stale)")
    ]


def test_more_than_three_edits_dropped(tree: RulesTree) -> None:
    (tree.live / "verbs.toml").write_bytes(b"a b c d e\n" * 40)  # type: ignore[operator]
    edits = tuple(edit("", f"# {n}\n", op="append") for n in range(5))
    result = validate(Candidate(edits), tree, ["verbs.toml"])
    assert [index for index, _ in result.kept] == [0, 1, 2]
    assert [(d.index, d.reason) for d in result.dropped] == [(3, TOO_MANY), (4, TOO_MANY)]
    assert result.results["verbs.toml"] == b"a b c d e\n" * 40 + b"# 0\n# 1\n# 2\n"


def test_edit_over_1200_bytes_dropped(tree: RulesTree) -> None:
    big = "x" * 1201
    result = validate(Candidate((edit('"track"', big),)), tree, ["verbs.toml"])
    assert [(d.reason, d.detail) for d in result.dropped] == [
        (TOO_LARGE, "1201 bytes, over the limit of 1200 per edit")
    ]
    # 1,200 bytes exactly (counted in UTF-8 bytes, not characters) is within the limit.
    (tree.live / "verbs.toml").write_bytes(b"x" * 10_000)  # type: ignore[operator]
    ok = validate(Candidate((edit("", "é" * 600, op="append"),)), tree, ["verbs.toml"])
    assert ok.dropped == ()
    over = validate(Candidate((edit("", "é" * 601, op="append"),)), tree, ["verbs.toml"])
    assert [d.detail for d in over.dropped] == ["1202 bytes, over the limit of 1200 per edit"]


def test_growth_over_15_percent_dropped(tree: RulesTree) -> None:
    size = len(TABLE)
    limit = int(size * 0.15)
    fits = edit("", "x" * limit, op="append")
    over = edit("", "y", op="append")
    result = validate(Candidate((fits, over)), tree, ["verbs.toml"])
    assert [index for index, _ in result.kept] == [0]
    assert [(d.index, d.reason) for d in result.dropped] == [(1, TOO_MUCH_GROWTH)]
    assert result.dropped[0].detail == (
        f"verbs.toml would grow by {limit + 1} bytes, over 15% of its {size} ({limit} bytes)"
    )


def test_missing_file_dropped(tree: RulesTree) -> None:
    result = validate(Candidate((edit("a", "b", file="nope.toml"),)), tree, ["nope.toml"])
    assert [d.reason for d in result.dropped] == [MISSING]


def test_overlay_reads_package_default_when_user_has_no_copy(tree: RulesTree) -> None:
    result = validate(
        Candidate(
            (edit('"delete"', '"delete", "purge"', anchor="[risk]\nhigh", file="risk.toml"),)
        ),
        tree,
        ["risk.toml"],
    )
    # The anchor occurs ten times: stale, and nothing is read from the live dir.
    assert [d.reason for d in result.dropped] == [STALE]
    single = validate(
        Candidate((edit("", "low = []\n", op="append", file="risk.toml"),)), tree, ["risk.toml"]
    )
    assert single.originals["risk.toml"] == b'[risk]\nhigh = ["delete"]\n' * 10
    assert single.results["risk.toml"].endswith(b"low = []\n")


def test_edits_apply_in_order_each_to_the_result_of_the_last(tree: RulesTree) -> None:
    first = edit(
        'verbs = ["todo", "track"]\n\n[skills.tag]\nverbs = ["tag"]\n'
        '[skills.label]\nverbs = ["tag"]\n',
        'verbs = ["todo"]\n',
    )
    # The first edit makes the file much smaller, so growth is measured against it.
    result = validate(Candidate((first, edit('["todo"]', '["todo", "jot"]'))), tree, ["verbs.toml"])
    assert result.dropped == ()
    assert result.results["verbs.toml"] == TABLE[: TABLE.index(b"[skills.todo]")] + (
        b'[skills.todo]\nverbs = ["todo", "jot"]\n'
    )


def test_locate_and_apply_append_after_before() -> None:
    data = b"one\ntwo\nthree\n"
    append = edit("two\n", "2.5\n", op="append")
    assert locate(data, append) == (8, 8)
    assert apply_edit(data, append) == b"one\ntwo\n2.5\nthree\n"
    assert apply_edit(data, edit("two", "2")) == b"one\n2\nthree\n"


def test_reapply_raises_on_stale(tree: RulesTree) -> None:
    good = edit('"track"', '"track", "jot"')
    assert reapply([good], tree)["verbs.toml"].count(b'"jot"') == 1
    with pytest.raises(StaleEdit) as raised:
        reapply([good, edit("gone", "x")], tree)
    assert str(raised.value) == "edit 2 (verbs.toml): `before` is not in the file (stale)"


def test_anchor_narrows_to_its_section() -> None:
    data = b'[skills.todo]\nverbs = ["todo"]\n\n[skills.tag]\nverbs = ["tag"]\n'
    into_tag = edit("verbs = [", 'verbs = ["label", ', anchor="[skills.tag]")
    assert apply_edit(data, into_tag) == data.replace(b'["tag"]', b'["label", "tag"]')
    into_todo = edit("verbs = [", 'verbs = ["jot", ', anchor="[skills.todo]")
    assert apply_edit(data, into_todo) == data.replace(b'["todo"]', b'["jot", "todo"]')
    # Without the anchor the same `before` is ambiguous.
    assert apply_edit(data, edit("verbs = [", "x")) == (
        "`before` occurs more than once in the file (ambiguous)"
    )
    # An anchored append with an empty `before` ends the anchor's section.
    end_of_todo = edit("", "nouns = []\n", op="append", anchor="[skills.todo]")
    assert apply_edit(data, end_of_todo) == (
        b'[skills.todo]\nverbs = ["todo"]\n\nnouns = []\n[skills.tag]\nverbs = ["tag"]\n'
    )
    # Text in a later section is out of reach of the anchor.
    assert apply_edit(data, edit('["tag"]', "x", anchor="[skills.todo]")) == (
        "`before` is not in the file (stale)"
    )


def test_anchored_sections_end_at_org_headlines() -> None:
    data = b"* Phase A\nverbs: a\n* Phase B\nverbs: b\n"
    assert apply_edit(data, edit("verbs:", "words:", anchor="* Phase B")) == (
        b"* Phase A\nverbs: a\n* Phase B\nwords: b\n"
    )
