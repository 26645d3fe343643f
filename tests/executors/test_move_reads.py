"""A move reads its target as route reads a note: one reader, the same refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from orgrouter.errors import InputError
from orgrouter.io.text import read_org_file
from orgrouter.org.document import Document
from orgrouter.route.moves import apply_moves
from orgrouter.skills.executor import Move, full, index_at_line, subject_at


@pytest.mark.parametrize(
    "target_bytes",
    [b"* W\n\xff here\n", b"\xef\xbb\xbf* W\r\nok\r\n\xc3(\r\n", b"* W\n\0\n"],
    ids=["invalid-utf8", "bom-crlf-invalid-utf8", "nul"],
)
def test_a_bad_target_is_refused_naming_file_and_line_as_route_does(
    tmp_path: Path, target_bytes: bytes
) -> None:
    source, target = tmp_path / "a.org", tmp_path / "p.org"
    source.write_bytes(b"* A\n** B\nbody\n")
    target.write_bytes(target_bytes)
    document = full(Document(source.read_bytes(), source))
    move = Move(subject_at(document, index_at_line(document, 2)), "refile", str(target), "", ())
    with pytest.raises(InputError) as route:
        read_org_file(target)
    with pytest.raises(InputError) as moved:
        apply_moves(document.data, [move], str(source), document.newline)
    assert str(moved.value) == str(route.value)
    assert moved.value.line is not None and str(moved.value).startswith(f"{target}:")
    assert target.read_bytes() == target_bytes


def test_a_good_bom_crlf_target_takes_the_move(tmp_path: Path) -> None:
    source, target = tmp_path / "a.org", tmp_path / "p.org"
    source.write_bytes(b"* A\n** B\nbody\n")
    target.write_bytes(b"\xef\xbb\xbf* W\r\n")
    document = full(Document(source.read_bytes(), source))
    move = Move(subject_at(document, index_at_line(document, 2)), "refile", str(target), "", ())
    data, (write,) = apply_moves(document.data, [move], str(source), document.newline)
    assert data == b"* A\n"
    assert write.data == b"\xef\xbb\xbf* W\r\n* B\r\nbody\r\n"


def test_two_moves_to_one_file_under_two_names_write_it_once(tmp_path: Path) -> None:
    # A symlink and its target are one file: two writes of it planned from the same
    # bytes made the first and then conflicted, a half move held until a state reset.
    source, target = tmp_path / "a.org", tmp_path / "p.org"
    source.write_bytes(b"* A\n** B\nbody\n** C\n")
    target.write_bytes(b"* W\n")
    (tmp_path / "link.org").symlink_to("p.org")
    document = full(Document(source.read_bytes(), source))
    moves = [
        Move(subject_at(document, index_at_line(document, line)), "refile", str(to), "", ())
        for line, to in ((2, target), (4, tmp_path / "link.org"))
    ]
    data, writes = apply_moves(document.data, moves, str(source), document.newline)
    assert data == b"* A\n"
    assert [(w.before, w.data) for w in writes] == [(b"* W\n", b"* W\n* B\nbody\n* C\n")]
