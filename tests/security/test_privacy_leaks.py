"""Private notes stay private: search lists none of them, and no model request holds them.

A real tree of hostile-to-privacy notes: headlines tagged ``@personal`` directly, by
inheritance, by ``#+FILETAGS``, and by a ``#+SETUPFILE`` whose file carries the tag.
The real CLI routes a public ``search`` and model requests (the model is a real HTTP
server on 127.0.0.1, recording every request it receives), then the files and the
recorded requests are checked.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "neuro"))
from chatserver import run_orgrouter, serve

NOW = ("--now", "2026-11-30T09:00:00")
SECRETS = ("DIRECT", "INHERITED", "FILETAGS", "SETUPFILE", "NESTEDSETUP", "CRLF")
PRIVATE_NOTES = {
    "direct.org": "* Kubernetes DIRECT salary :@personal:\nMy salary.\n",
    "inherited.org": "* Health :@personal:\n** Kubernetes INHERITED doctor visit\n",
    "filetags.org": "#+FILETAGS: :work:@personal:\n* Kubernetes FILETAGS diary\n",
    "setup.org": "#+SETUPFILE: private.setup\n* Kubernetes SETUPFILE plan\n",
    "private.setup": "#+FILETAGS: :@personal:\n",
    "nested/deep.org": '#+SETUPFILE: "../nested/outer.setup"\n* Kubernetes NESTEDSETUP\n',
    "nested/outer.setup": "#+SETUPFILE: inner.setup\n",
    "nested/inner.setup": "#+FILETAGS: :@personal:\n",
    "crlf.org": "* Home\t:@personal:\r\n** Kubernetes CRLF keys\r\n",
}
PUBLIC = "* Kubernetes upgrade :work:\n* Team\n** Kubernetes rollout\n"


def _tree(root: Path) -> None:
    (root / "orgrouter.toml").write_text("")
    for name, text in {**PRIVATE_NOTES, "public.org": PUBLIC}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode())


def _route_with_model(root: Path, reply: str) -> tuple[subprocess.CompletedProcess[str], str, int]:
    """Route ``root`` with a real model server answering ``reply``; return what it got."""
    with serve() as server:
        server.always(reply)
        (root / "orgrouter.toml").write_text(
            f'[neuro]\nbackend = "openai"\nendpoint = "{server.url}"\nmodel = "m"\n'
            "timeout_s = 10\nmax_retries = 0\n"
        )
        done = run_orgrouter(root, "route", ".", *NOW)
        return done, "\n".join(r.body for r in server.received), len(server.received)


def test_search_lists_no_private_headline(tmp_path: Path) -> None:
    _tree(tmp_path)
    request = tmp_path / "ops.org"
    request.write_text("* Ops\n** @agent find notes about kubernetes\n")
    done = run_orgrouter(tmp_path, "route", ".", *NOW)
    assert done.returncode == 0, done.stderr
    text = request.read_text()
    assert "[[file:public.org::*Kubernetes upgrade][Kubernetes upgrade]]" in text
    assert "[[file:public.org::*Kubernetes rollout][Kubernetes rollout]]" in text
    for secret in SECRETS:
        assert secret not in text


def test_search_lists_no_private_headline_even_for_a_private_request(tmp_path: Path) -> None:
    """A private search still lists public hits only (what the index may hold)."""
    _tree(tmp_path)
    request = tmp_path / "mine.org"
    request.write_text("* Mine :@personal:\n** @agent find notes about kubernetes\n")
    done = run_orgrouter(tmp_path, "route", ".", *NOW)
    assert done.returncode == 0, done.stderr
    text = request.read_text()
    assert "Kubernetes rollout" in text
    assert not any(secret in text for secret in SECRETS)


def test_an_index_built_before_a_setup_file_turned_private_leaks_nothing(
    tmp_path: Path,
) -> None:
    _tree(tmp_path)
    (tmp_path / "later.setup").write_text("#+STARTUP: overview\n")
    (tmp_path / "later.org").write_text("#+SETUPFILE: later.setup\n* Kubernetes LATER\n")
    first = tmp_path / "first.org"
    first.write_text("* Ops\n** @agent find notes about kubernetes\n")
    done = run_orgrouter(tmp_path, "route", ".", *NOW)
    assert done.returncode == 0, done.stderr
    assert "Kubernetes LATER" in first.read_text()  # public then, and indexed
    # The setup file turns private; later.org itself is untouched (same size, mtime).
    (tmp_path / "later.setup").write_text("#+FILETAGS: :@personal:\n")
    second = tmp_path / "second.org"
    second.write_text("* Ops\n** @agent find notes about kubernetes\n")
    done = run_orgrouter(tmp_path, "route", ".", *NOW)
    assert done.returncode == 0, done.stderr
    text = second.read_text()
    assert "Kubernetes rollout" in text and "LATER" not in text


def test_no_model_request_holds_private_text(tmp_path: Path) -> None:
    _tree(tmp_path)
    notes = {
        "section.org": (
            "* Launch\nWe ship on Friday.\n** Salary :@personal:\nPRIVATE-CHILD 4711\n"
            "** @agent summarize this section\n"
        ),
        "whole.org": "#+FILETAGS: :@personal:\n* Diary\nPRIVATE-FILE\n** @agent explain this\n",
        "viasetup.org": (
            "#+SETUPFILE: private.setup\n* Diary\nPRIVATE-SETUP\n** @agent explain this\n"
        ),
    }
    for name, text in notes.items():
        (tmp_path / name).write_text(text)
    done, sent, received = _route_with_model(tmp_path, "A summary.")
    assert done.returncode == 0, done.stderr
    assert received  # the public request did go to the model
    for secret in ("PRIVATE-CHILD", "4711", "PRIVATE-FILE", "PRIVATE-SETUP", *SECRETS):
        assert secret not in sent
    for name in ("whole.org", "viasetup.org"):  # answered offline, saying why
        assert "private (tagged @personal), so it is never sent to a model" in (
            (tmp_path / name).read_text()
        )


def test_one_rule_decides() -> None:
    from orgrouter.neuro.privacy import is_private, private_headlines, shareable

    tags = ["@personal"]
    data = b"* a\n** b :@personal:\n*** c\n** d\n* e :x:@personal:\n"
    assert private_headlines(data, None, tags) == {2, 3, 5}
    assert private_headlines(b"#+FILETAGS: :@personal:\n* a\n* b\n", None, tags) == {2, 3}
    assert private_headlines(data, None, []) == set()
    # Tags are compared casefolded: a note spelling the tag otherwise is read in full.
    assert private_headlines("* a :@PERſONAL:\n** b\n".encode(), None, tags) == {1, 2}
    assert private_headlines(b"* a :@personalx:\n", None, tags) == set()
    assert is_private(("work", "@personal"), tags) and is_private(("@Personal",), tags)
    assert not is_private(("personal", "work"), tags)
    assert shareable("x\n** b :@personal:\nsecret\n** d\ny\n", tags) == "x\n** d\ny\n"


def test_file_tags_from_a_setup_file_keep_a_note_private(tmp_path: Path) -> None:
    # The note never spells the tag: its #+SETUPFILE does, so it is read in full.
    from orgrouter.neuro.privacy import private_headlines

    (tmp_path / "tags.setup").write_text("#+FILETAGS: :@personal:\n")
    note = tmp_path / "diary.org"
    data = b"#+setupfile: tags.setup\n* Monday\n** Tuesday\n"
    note.write_bytes(data)
    assert private_headlines(data, note, ["@personal"]) == {2, 3}


# Org's `org-get-tags' (what tag inheritance and agenda matching use) reads tags with
# `org-tag-line-re', so a tag group right after a TODO keyword or a priority cookie is a
# tag; Emacs drops a BOM before `#+FILETAGS' on the first line (checked in Emacs 28.2).
ODD_PRIVATE = {
    "todo.org": "* TODO :@personal:\nTODO-SECRET\n** @agent explain this\n",
    "priority.org": "* [#A] :@personal:\nPRIORITY-SECRET\n** @agent explain this\n",
    "bom.org": "\ufeff#+FILETAGS: :@personal:\n* Diary\nBOM-SECRET\n** @agent explain this\n",
}


def test_tags_org_sees_after_a_keyword_or_a_bom_keep_a_note_private(tmp_path: Path) -> None:
    (tmp_path / "orgrouter.toml").write_text("")
    for name, text in ODD_PRIVATE.items():
        (tmp_path / name).write_bytes(text.encode())
    (tmp_path / "hits.org").write_text(
        "* TODO :@personal:\n** Kubernetes TODOHIT\n* [#B] :@personal:\n** Kubernetes PRIOHIT\n"
    )
    (tmp_path / "bomhits.org").write_bytes(
        "\ufeff#+FILETAGS: :@personal:\n* Kubernetes BOMHIT\n".encode()
    )
    (tmp_path / "public.org").write_text("* Kubernetes upgrade\n")
    (tmp_path / "ops.org").write_text("* Ops\n** @agent find notes about kubernetes\n")
    done, sent, _ = _route_with_model(tmp_path, "An answer.")
    assert done.returncode == 0, done.stderr
    for secret in ("TODO-SECRET", "PRIORITY-SECRET", "BOM-SECRET"):
        assert secret not in sent
    listed = (tmp_path / "ops.org").read_text()
    assert "Kubernetes upgrade" in listed
    for secret in ("TODOHIT", "PRIOHIT", "BOMHIT"):
        assert secret not in listed


def test_the_rule_reads_tags_as_org_get_tags_does() -> None:
    from orgrouter.neuro.privacy import private_headlines, shareable

    tags = ["@personal"]
    assert private_headlines(b"* TODO :@personal:\n** c\n* d\n", None, tags) == {1, 2}
    assert private_headlines(b"* TODO [#A] :x:@personal:\n", None, tags) == {1}
    assert private_headlines("\ufeff#+FILETAGS: @personal\n* a\n".encode(), None, tags) == {2}
    assert shareable("x\n** TODO :@personal:\nsecret\n** d\n", tags) == "x\n** d\n"
    # A CR before LF is no part of the tags, even in a file of mixed line ends (which
    # Emacs visits as LF, its CRs text): privacy errs on the safe side.
    mixed = b"* a :@personal:\r\n** b\n*** c\n* d\n"
    assert private_headlines(mixed, None, tags) == {1, 2, 3}
    # The file's own TODO keywords: the keyword is not the title, the tags are still tags.
    assert private_headlines(b"#+TODO: NEXT | DONE\n* NEXT :@personal:\n** c\n", None, tags) == {
        2,
        3,
    }


def test_a_refile_clarification_lists_no_private_headline(tmp_path: Path) -> None:
    """'No such headline' and 'which one?' list headlines: never the private ones."""
    (tmp_path / "orgrouter.toml").write_text("")
    (tmp_path / "projects.org").write_text(
        "* Website SECRETA :@personal:\n** Website\n* Health :@personal:\n** Website\n"
        "* Website public\n* Team\n** Website\n"
    )
    (tmp_path / "diary.org").write_text("#+FILETAGS: :@personal:\n* Website SECRETD\n")
    inbox = tmp_path / "inbox.org"
    inbox.write_text(
        "* Mine SECRETE :@personal:\n* Idea\n** @agent refile this to projects.org under Nothing\n"
        "* Other\n** @agent refile this to diary.org under Nothing\n"
        "* Third\n** @agent refile this to projects.org under Website\n"
        "* Fourth\n** @agent refile this under Nothing\n"
    )
    done = run_orgrouter(tmp_path, "route", ".", *NOW)
    assert done.returncode == 0, done.stderr
    text = inbox.read_text()
    assert text.count("Clarification needed") == 4
    assert "- Website public\n- Team\n" in text  # the public candidates are still listed
    assert "- Team/Website (line 7)\n" in text
    for secret in ("SECRETA", "SECRETD", "SECRETE", "Health"):
        assert secret not in text.replace("* Mine SECRETE :@personal:", "")
