"""Issue 10 item 6: ``route --stdin --file-name F`` tangles the text it was given, and
writes a file besides stdout only under the notes root's run lock (exit 75 if held).

On 0.1 it tangled F as it was on disk and wrote targets while a directory run held
the lock.
"""

from __future__ import annotations

from pathlib import Path

from orgrouter.runlock import RunLock

from .hostile import NOW, environment, run

DISK = "* Code\n#+begin_src sh :tangle run.sh\necho on disk\n#+end_src\n"
BUFFER = DISK.replace("on disk", "in the buffer") + "* @agent tangle this\n"


def notes(tmp: Path) -> Path:
    root = tmp / "home" / "notes"
    root.mkdir(parents=True)
    (root / "orgrouter.toml").write_text("")
    note = root / "n.org"
    note.write_text(DISK)
    return note


def stdin_route(tmp: Path, note: Path, text: str) -> tuple[int, bytes, str]:
    args = ["route", "--stdin", "--file-name", str(note), "--now", NOW]
    return run(args, tmp, stdin=text.encode())


def test_stdin_tangles_the_buffer_not_the_file_on_disk(tmp_path: Path) -> None:
    note = notes(tmp_path)
    code, out, err = stdin_route(tmp_path, note, BUFFER)
    assert code == 0, err
    assert (note.parent / "run.sh").read_text() == "echo in the buffer\n"
    assert note.read_text() == DISK  # the file itself is never written by a filter run
    assert b"Tangled: 1 written" in out


def test_stdin_tangle_waits_for_the_run_lock(tmp_path: Path) -> None:
    note = notes(tmp_path)
    lock = RunLock(note.parent, environment(tmp_path))
    with lock:
        code, out, err = stdin_route(tmp_path, note, BUFFER)
        assert code == 75, err
        assert "another orgrouter run" in err
        assert not (note.parent / "run.sh").exists()
        # A request that writes nothing but stdout is not held up by the lock.
        code, out, err = stdin_route(tmp_path, note, "* @agent todo buy milk\n")
        assert code == 0, err
        assert b"buy milk" in out
    code, out, err = stdin_route(tmp_path, note, BUFFER)
    assert code == 0, err
    assert (note.parent / "run.sh").read_text() == "echo in the buffer\n"


def test_stdin_check_writes_no_target_and_takes_no_lock(tmp_path: Path) -> None:
    note = notes(tmp_path)
    with RunLock(note.parent, environment(tmp_path)):
        args = ["route", "--stdin", "--check", "--file-name", str(note), "--now", NOW]
        code, _out, err = run(args, tmp_path, stdin=BUFFER.encode())
    assert code == 1, err
    assert not (note.parent / "run.sh").exists()
