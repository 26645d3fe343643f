"""For any document: read, write and read back gives exactly the bytes written."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.io.text import read_org_file
from orgrouter.io.transaction import Status, write_snapshot

TEXT = st.text(alphabet=st.characters(codec="utf-8", blacklist_characters="\0"), max_size=200)
NEWLINES = st.sampled_from(["\n", "\r\n"])


@settings(max_examples=150, deadline=None)
@given(
    old=TEXT,
    new=TEXT,
    newline=NEWLINES,
    bom=st.booleans(),
    mode=st.sampled_from([0o600, 0o644, 0o755]),
)
def test_round_trip(old: str, new: str, newline: str, bom: bool, mode: int) -> None:
    prefix = b"\xef\xbb\xbf" if bom else b""
    old_bytes = prefix + old.replace("\n", newline).encode("utf-8")
    new_bytes = prefix + new.replace("\n", newline).encode("utf-8")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "n.org"
        path.write_bytes(old_bytes)
        path.chmod(mode)
        snap = read_org_file(path)
        assert snap.data == old_bytes
        assert snap.has_bom == bom
        outcome = write_snapshot(snap, new_bytes)
        assert outcome.status is (Status.UNCHANGED if new_bytes == old_bytes else Status.WRITTEN)
        assert path.read_bytes() == new_bytes
        assert stat.S_IMODE(path.stat().st_mode) == mode
        assert os.listdir(directory) == ["n.org"]
        again = read_org_file(path)
        assert write_snapshot(again, new_bytes).status is Status.UNCHANGED
        assert path.stat().st_mtime_ns == again.mtime_ns
