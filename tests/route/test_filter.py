"""--stdin: the per-file agent keyword still counts when the filter skips looking for it."""

from __future__ import annotations

from pathlib import Path

from route_cli import run_cli

NOW = "2026-11-30T09:00"


def stdin(tmp: Path, data: bytes) -> tuple[int, bytes, str]:
    return run_cli(["route", "--stdin", "--now", NOW], tmp, stdin=data)


def test_a_file_agent_keyword_makes_its_name_an_address(tmp_path: Path) -> None:
    data = b"#+orgrouter_agent: Bob\n* @bob create a todo to call Ann\n"
    code, out, err = stdin(tmp_path, data)
    assert (code, err) == (0, "routed 1 request, 1 result\n")
    assert b"** TODO call Ann\n" in out
    # Without the keyword @bob is nobody, and the buffer comes back unchanged.
    plain = data.replace(b"#+orgrouter_agent: Bob\n", b"#+TITLE: x\n")
    assert stdin(tmp_path, plain) == (0, plain, "")


def test_a_bad_file_agent_keyword_is_an_error_naming_the_line(tmp_path: Path) -> None:
    data = b"#+TITLE: x\n  #+ORGROUTER_AGENT: 42 bad\n* @agent hello\n"
    name = tmp_path / "n.org"
    code, out, err = run_cli(["route", "--stdin", "--file-name", str(name)], tmp_path, stdin=data)
    assert (code, out) == (3, b"")
    assert err == (
        f"orgrouter: error: {name}:2: #+ORGROUTER_AGENT: '42 bad' is not an agent name "
        "(one word: letters, digits, -, _)\n"
    )


def test_the_keyword_inside_a_line_is_not_one(tmp_path: Path) -> None:
    data = b"* text #+ORGROUTER_AGENT: 42 bad\n* @agent create a todo to call Ann\n"
    code, out, err = stdin(tmp_path, data)
    assert (code, err) == (0, "routed 1 request, 1 result\n")
    assert b"** TODO call Ann\n" in out


def test_a_configured_name_written_with_its_at_is_an_address(tmp_path: Path) -> None:
    # configload accepts name = "@bob" (it checks the name without the "@"); the
    # request finder must read it as "bob" too, as the prefilter always did.
    (tmp_path / "orgrouter.toml").write_text('[agent]\nname = "@Bob"\n')
    data = b"* @bob create a todo to call Ann\n"
    name = str(tmp_path / "n.org")
    args = ["route", "--stdin", "--file-name", name, "--now", NOW]
    code, out, err = run_cli(args, tmp_path, stdin=data)
    assert (code, err) == (0, "routed 1 request, 1 result\n")
    assert b"** TODO call Ann\n" in out
