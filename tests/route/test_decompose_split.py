"""The decomposer: steps, coordination, delegation, items, spans, and its Lisp output."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orgrouter.route.decompose import decompose, decompose_items
from orgrouter.route.intent import FAILED_TEXT
from orgrouter.route.lexicon import edits_within
from orgrouter.route.rules import default_rules
from orgrouter.route.segment import tokenize

RULES = default_rules()


def test_sequence_gives_exact_intents() -> None:
    result = decompose("summarize this section, then create todos for the action items", RULES)
    assert result.kind == "sequence"
    assert [intent.to_json() for intent in result.intents] == [
        {
            "order": 1, "skill": "summarize", "verb": "summarize", "object": "this section",
            "agent": None, "depends_on": [], "start": 0, "end": 22,
            "text": "summarize this section", "basis": "verb", "confidence": 0.9,
            "risk": "low", "needs_approval": False, "risk_reason": None,
        },
        {
            "order": 2, "skill": "todo", "verb": "create",
            "object": "todos for the action items", "agent": None, "depends_on": [1],
            "start": 29, "end": 62, "text": "create todos for the action items",
            "basis": "generic_noun", "confidence": 0.85, "risk": "low",
            "needs_approval": False, "risk_reason": None,
        },
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("summarize X and create todos for Y", [("summarize", "X"), ("todo", "todos for Y")]),
        ("list pros and cons", [("ask", "pros and cons")]),
        ("summarize and tag this section", [("summarize", "this section"),
                                            ("tag", "this section")]),
        ("find notes and then summarize them", [("search", "notes"), ("summarize", "them")]),
        ("tag it; schedule it", [("tag", "it"), ("schedule", "it")]),
        ("summarize it after that tag it", [("summarize", "it"), ("tag", "it")]),
        ("the network drops and then comes back", [("ask", "network drops and then comes back")]),
    ],
)
def test_split_points(text: str, expected: list[tuple[str, str]]) -> None:
    got = [(i.skill, i.object) for i in decompose(text, RULES).intents]
    assert got == expected


def test_coordinated_intents_are_independent_and_steps_depend() -> None:
    result = decompose("proofread it, tag it and then schedule it", RULES)
    assert [(i.order, i.depends_on) for i in result.intents] == [(1, []), (2, []), (3, [1, 2])]


def test_numbered_steps_need_consecutive_markers_from_one() -> None:
    numbered = decompose("1) summarize this 2) tag it", RULES)
    assert numbered.kind == "numbered"
    assert [(i.skill, i.depends_on) for i in numbered.intents] == [("summarize", []),
                                                                   ("tag", [1])]
    not_numbered = decompose("schedule it for 2) later", RULES)
    assert [i.skill for i in not_numbered.intents] == ["schedule"]


def test_delegation_to_named_agents() -> None:
    result = decompose("ask @coder to refactor this and @writer to polish the intro", RULES)
    assert result.kind == "delegation"
    assert [(i.agent, i.verb, i.object, i.text) for i in result.intents] == [
        ("coder", "refactor", "this", "refactor this"),
        ("writer", "polish", "the intro", "polish the intro"),
    ]


@pytest.mark.parametrize(
    "text",
    ["hey @coder, refactor this", "please ask @coder to refactor this",
     "Hi @coder: refactor this", "@agent, ask @coder to refactor this"],
)
def test_courtesy_before_a_delegation(text: str) -> None:
    assert [(i.agent, i.verb, i.object) for i in decompose(text, RULES).intents] == [
        ("coder", "refactor", "this")
    ]


def test_own_address_is_not_a_delegation() -> None:
    result = decompose("@Agent summarize this", RULES, selves=["agent"])
    assert [(i.agent, i.skill, i.start) for i in result.intents] == [(None, "summarize", 7)]
    named = decompose("@jarvis tag this", RULES, selves=["agent", "jarvis"])
    assert [i.agent for i in named.intents] == [None]


def test_items_are_independent_with_spans_into_each_item() -> None:
    result = decompose_items(["call the plumber", "find the lease then summarize it"], RULES)
    assert result.kind == "items"
    assert [(i.order, i.item, i.skill, i.depends_on, i.start, i.end) for i in result.intents] == [
        (1, 0, "todo", [], 0, 16),  # an errand: the user does it
        (2, 1, "search", [], 0, 14),
        (3, 1, "summarize", [2], 20, 32),
    ]


def test_risky_verbs_and_outside_writes_need_approval() -> None:
    result = decompose("delete the drafts and save the list to /etc/x", RULES)
    assert [(i.verb, i.risk, i.needs_approval, i.risk_reason) for i in result.intents] == [
        ("delete", "high", True, "'delete' is a risky verb (high risk)"),
        ("save", "high", True, "writes outside the notes root"),
    ]
    safe = decompose("save the list to notes/x.org", RULES)
    assert [i.needs_approval for i in safe.intents] == [False]


def test_sexp_single_multi_and_failure() -> None:
    assert decompose("", RULES).to_sexp() == f'(:type :LOG :payload (:text "{FAILED_TEXT}"))'
    assert decompose("tag it", RULES).to_sexp() == (
        '(:type :DELEGATION :payload (:order 1 :skill :tag :verb "tag" :object "it" '
        ':agent nil :depends-on () :start 0 :end 6 :text "tag it" :basis "verb" '
        ":confidence 0.9 :risk :low :needs-approval nil :risk-reason nil))"
    )
    multi = decompose('tag it then draft "hi"', RULES).to_sexp()
    assert multi.startswith("(:type :MULTI-DELEGATION :intents ((:order 1 :skill :tag ")
    assert ':text "draft \\"hi\\""' in multi


def test_greeting_and_compact_are_whole_requests() -> None:
    assert [(i.skill, i.basis) for i in decompose(" Hello there! ", RULES).intents] == [
        ("greet", "greeting")
    ]
    hello = decompose(" Hello there! ", RULES).intents[0]
    assert (hello.start, hello.end, hello.text) == (1, 13, "Hello there!")
    assert [i.skill for i in decompose("/compact", RULES).intents] == ["compact"]


def test_typo_reads_as_nearest_verb_with_less_confidence() -> None:
    intent = decompose("sumarize it", RULES).intents[0]
    assert (intent.skill, intent.verb, intent.basis, intent.confidence) == (
        "summarize", "summarize", "fuzzy", 0.7
    )


def test_tokenize_keeps_paths_urls_and_sentence_ends_apart() -> None:
    tokens = [(t.kind, t.text) for t in tokenize("see https://x.org/a. 1) e.g. file.org, ok")]
    assert tokens == [
        ("word", "see"), ("word", "https://x.org/a"), ("punct", "."), ("num", "1)"),
        ("word", "e.g"), ("punct", "."), ("word", "file.org"), ("punct", ","), ("word", "ok"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('translate "oui, ça va?" into English and then explain it',
         [("translate", '"oui, ça va?" into English'), ("explain", "it")]),
        ("summarize [[file:a.org::*B][the b; c]] and tag it",
         [("summarize", "[[file:a.org::*B][the b; c]]"), ("tag", "it")]),
        ("tag =a, b= and ~c; d~", [("tag", "=a, b= and ~c; d~")]),
        ("run `make; make install` then tag it", [("ask", "`make; make install`"), ("tag", "it")]),
        ("don't forget to tag 'this, then that'", [("tag", "'this, then that'")]),
    ],
)
def test_quotes_code_and_links_split_nothing(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(i.skill, i.object) for i in decompose(text, RULES).intents] == expected


def _osa_distance(a: str, b: str) -> int:
    """Optimal string alignment distance, the textbook dynamic programme."""
    table = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1,
                              table[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
    return table[-1][-1]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="abc", max_size=7), st.text(alphabet="abc", max_size=7),
       st.sampled_from([1, 2]))
def test_typo_distance_matches_the_textbook(a: str, b: str, limit: int) -> None:
    assert edits_within(a, b, limit) == (_osa_distance(a, b) <= limit)


def test_a_block_belongs_to_the_clause_before_it() -> None:
    text = "rewrite this:\n#+begin_src python\nx = 1; y = 2\n#+end_src\nthen tag it"
    result = decompose(text, RULES)
    assert [(i.skill, i.object) for i in result.intents] == [
        ("rewrite", "this:\n#+begin_src python\nx = 1; y = 2\n#+end_src"), ("tag", "it")
    ]
    fenced = decompose("explain\n```\na. b; c\n```", RULES)
    assert [(i.skill, i.object) for i in fenced.intents] == [("explain", "```\na. b; c\n```")]


def test_statements_beside_instructions_are_context() -> None:
    result = decompose("Summarize this. It is long. We meet on Monday.", RULES)
    assert [i.skill for i in result.intents] == ["summarize"]
    assert result.context == ["It is long", "We meet on Monday"]
    assert result.to_json()["context"] == ["It is long", "We meet on Monday"]
    alone = decompose("It is long.", RULES)  # nothing else understood: ask, don't drop
    assert [(i.skill, i.basis) for i in alone.intents] == [("ask", "unknown")]
    unknown_verb = decompose("summarize this. blorp it.", RULES)  # an instruction: kept
    assert [i.verb for i in unknown_verb.intents] == ["summarize", "blorp"]


def test_contracted_question_words() -> None:
    intent = decompose("where's the tax folder?", RULES).intents[0]
    assert (intent.skill, intent.verb, intent.basis) == ("search", "where", "question")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=list("ab @1).,;:!?\n\t'\"-~é東"), max_size=40))
def test_any_text_decomposes_with_consistent_spans(text: str) -> None:
    result = decompose(text, RULES)
    for number, intent in enumerate(result.intents, start=1):
        assert intent.order == number
        assert text[intent.start : intent.end] == intent.text
        assert all(0 < d < number for d in intent.depends_on)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(
    ["summarize", "and", "then", "tag", "this", "@writer", "ask", "to", ",", ";", "1)", "2)",
     "delete", "the", "notes", "please", "hi", "after that", "/compact", "?", "@agent", "tell",
     "@b:", "and then", "3.", "\n", "create", "todos", "for", "list", "pros", "cons", "have",
     "hey", "@agent,", "please ask", "@c,", "then please", "can you"]
), max_size=14))
def test_word_salad_always_parses(words: list[str]) -> None:
    text = " ".join(words)
    result = decompose(text, RULES)
    assert result.error is None  # the lexer never feeds the grammar what it refuses
    assert all(text[i.start : i.end] == i.text for i in result.intents)


def test_no_instruction_imports_lark() -> None:
    # One grammar, read by orgrouter.route.grammar: steps and delegations need no lark.
    code = (
        "import sys\n"
        "from orgrouter.route import gate, golden, rules, decompose\n"
        "r = rules.default_rules()\n"
        "gate.classify('hello!', r)\n"
        "gate.classify('summarize this, then create todos for the action items', r)\n"
        "gate.classify('1) summarize this 2) tag it', r)\n"
        "gate.classify('ask @coder to refactor the parser and @writer to polish it', r)\n"
        "heavy = [m for m in sys.modules if m.startswith(('lark', 'httpx', 'orgrouter.neuro'))]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_real_headlines_always_parse_with_exact_spans(corpus_dir: Path) -> None:
    # Every tenth corpus file: real titles (links, timestamps, tags, stray '@') never
    # make the lexer feed the grammar something it refuses.
    files = sorted(corpus_dir.rglob("*.org"))[::10]
    titles = [
        found.group(1)
        for path in files
        for found in re.finditer(r"(?m)^\*+ (.*)$", path.read_bytes().decode("utf-8", "replace"))
    ]
    assert len(titles) > 500
    for title in titles:
        result = decompose(title, RULES)
        assert result.error is None, title
        assert all(title[i.start : i.end] == i.text for i in result.intents), title


def test_emacs_reads_the_sexp_as_the_seed_router_expects(emacs: str) -> None:
    text = 'ask @coder to refactor "the parser" and @writer to polish the intro; then tag it'
    sexp = decompose(text, RULES).to_sexp()
    program = (
        f"(let* ((action (car (read-from-string {json.dumps(sexp)}))) "
        "(intents (plist-get action :intents))) "
        "(princ (format \"%S %d %S %S %S\" (plist-get action :type) (length intents) "
        "(mapcar (lambda (i) (plist-get i :skill)) intents) "
        "(plist-get (car intents) :agent) (plist-get (nth 2 intents) :depends-on))))"
    )
    done = subprocess.run([emacs, "--batch", "-Q", "--eval", program], capture_output=True,
                          text=True, check=True)
    assert done.stdout == ':MULTI-DELEGATION 3 (:rewrite :rewrite :tag) "coder" (1 2)'
