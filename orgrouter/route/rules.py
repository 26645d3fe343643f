"""Load and validate the routing tables (``orgrouter/rules/*.toml``) into ``Rules``.

The tables are data, not code, so that the refinement gate can edit them and a user
can override any one of them: ``load_rules(dir)`` takes each table file from ``dir``
when it is there, else the package's own (an overlay). A malformed table is a
``ConfigError`` naming the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from orgrouter.errors import ConfigError
from orgrouter.records import NamedTuple
from orgrouter.tomlwhere import did_you_mean, line_of

TABLES = ("verbs.toml", "intents.toml", "domains.toml", "risk.toml", "chains.toml", "personas.toml")
LEVELS = ("low", "medium", "high")

Phrase = tuple[str, ...]


class Persona(NamedTuple):
    """A specialist the gate may spawn, and what it is good at."""

    name: str
    role: str
    domains: tuple[str, ...]
    skills: tuple[str, ...]
    innovation: bool = False


class Rules(NamedTuple):
    """Every routing table, parsed and compiled; build it with ``load_rules``."""

    verbs: Mapping[Phrase, str]  # verb phrase -> skill
    generic: Mapping[Phrase, str]  # generic verb -> default skill (its object decides)
    nouns: Mapping[Phrase, str]  # noun phrase -> skill
    ambiguous: frozenset[str]
    determiners: frozenset[str]
    prepositions: frozenset[str]
    targets: frozenset[str]
    subjects: frozenset[str]
    # first word -> the phrases starting with it, longest first
    fillers: Mapping[str, tuple[Phrase, ...]]
    sequence: Mapping[str, tuple[Phrase, ...]]
    delegators: Mapping[str, tuple[Phrase, ...]]
    questions: Mapping[str, str]
    particles: frozenset[str]  # the second words of phrasal verbs that may come later
    joiners: frozenset[str]  # words that may join two clauses ("and", "but", "+")
    preparatory: frozenset[Phrase]  # "go through X and sum up": the second verb is the intent
    outputs: frozenset[str]  # skills whose noun after "into"/"as" decides, whatever the verb
    languages: frozenset[str]
    converters: frozenset[Phrase]  # verbs that put text "into <language>": translate
    time_openers: frozenset[str]  # "every tuesday at 8 schedule ...": a time before the verb
    statement_verbs: frozenset[str]  # "the meeting ran long": a statement, not a request
    dated_errands: frozenset[str]  # "fix the door next monday": with a date, a todo
    vague: frozenset[str]  # "do the usual": a generic verb's object that names nothing
    listing: frozenset[str]  # "list the main ideas": the object's noun decides
    containers: frozenset[str]  # "a list of todos": the noun after "of" decides
    adjectives: Mapping[str, str]  # "make this shorter": the adjective decides the skill
    courtesy_frames: re.Pattern[str]  # "would you mind", "it'd be lovely if you could"
    desire_frames: re.Pattern[str]  # "I need", "it would be great to have": a noun may follow
    greetings: re.Pattern[str]
    courtesy: tuple[str, ...]
    compact: re.Pattern[str]
    skill_categories: Mapping[str, str]
    innovation: re.Pattern[str]
    simplicity: tuple[str, ...]
    code: re.Pattern[str]
    long_prompt: int
    confidence: Mapping[str, float]
    domains: Mapping[Phrase, tuple[str, ...]]  # word phrase -> domains, in file order
    domain_order: tuple[str, ...]
    domain_words: int  # the most words a domain phrase has (bounds matching)
    risk_verbs: Mapping[str, str]  # verb phrase (words joined by a space) -> level
    retime_verbs: frozenset[str]  # "move the standup to 10am": with a time, a reschedule
    retime_when: re.Pattern[str]
    retime_places: re.Pattern[str]  # "... to next week's file": a place, so a move
    risk_words: tuple[tuple[re.Pattern[str], str], ...]
    outside_verbs: frozenset[str]
    outside_paths: re.Pattern[str]
    always: frozenset[str]
    support: Mapping[str, tuple[str, ...]]
    personas: tuple[Persona, ...]
    sources: Mapping[str, str]  # table file name -> where it was read from
    max_phrase: int  # the most words a verb, noun or domain phrase has (bounds matching)
    spellings: Mapping[int, tuple[tuple[str, str, str], ...]]  # length -> (verb, skill, basis)
    # first word -> (particle, skill, basis) of the phrasal verbs whose particle may come
    # after the object ("boil it down")
    separable: Mapping[str, tuple[tuple[str, str, str], ...]]


CONFIDENCE_KEYS = ("verb", "generic_noun", "delegation", "greeting", "compact", "question",
                   "generic", "noun", "fuzzy", "unknown")  # fmt: skip


class _Table:
    """One table file's text and data, with errors that name its file and line."""

    def __init__(self, name: str, source: str, text: str, *, packaged: bool = False) -> None:
        self.name = name
        self.source = source
        self.text = text
        self.packaged = packaged  # the package's own table (the test suite checks it)
        self.targets: Collection[str] = ()  # the skills intents may be sent to

    @cached_property
    def data(self) -> dict[str, Any]:
        """Return the table's TOML, parsed (only on a cache miss: see route/rulecache.py)."""
        import tomllib

        try:
            return tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as error:
            found = re.search(r"line (\d+)", str(error))
            raise ConfigError(
                f"invalid TOML in routing table: {error}",
                path=self.source,
                line=int(found.group(1)) if found else None,
            ) from error

    def error(self, message: str, key: str, section: str | None = None) -> ConfigError:
        """Return a ConfigError about ``key``, at the first line (in ``section``) naming it."""
        return ConfigError(
            f"routing table {self.name}: {message}",
            path=self.source,
            line=self.line_of(key.split(".")[-1], section),
        )

    def line_of(self, key: str, section: str | None = None) -> int | None:
        """Return the 1-based line where ``key`` is written, skipping comments."""
        lines = self.text.splitlines()
        start, stop = 0, len(lines)
        if section is not None:
            start = next((i for i, text in enumerate(lines) if text.strip() == section), 0)
            # Within the section first: its key may be a value of a later list too.
            stop = next(
                (i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), stop
            )
        for span in ((start, stop), (start, len(lines))):
            for needle in (f'"{key}"', f"'{key}'", f"{key} =", f".{key}]", key):
                if (number := line_of(lines, needle, *span)) is not None:
                    return number
        return None

    def section(self, key: str, *, required: bool = True) -> dict[str, Any]:
        """Return the table ``key`` (dotted), or {} when it is optional and absent."""
        value: Any = self.data
        for part in key.split("."):
            if not isinstance(value, dict) or part not in value:
                if required:
                    raise self.error(f"missing table [{key}]", key)
                return {}
            value = value[part]
        if not isinstance(value, dict):
            raise self.error(f"[{key}] must be a table", key)
        return value

    def strings(self, parent: Mapping[str, Any], key: str, where: str) -> list[str]:
        """Return ``parent[key]`` as a list of non-empty strings."""
        value = parent.get(key)
        if not isinstance(value, list) or not all(
            isinstance(item, str) and item.strip() for item in value
        ):
            raise self.error(f"{where}.{key} must be a list of non-empty strings", key)
        return [item.strip() for item in value]

    def pattern(self, text: str, key: str) -> re.Pattern[str]:
        """Compile ``text`` case-insensitively, as a ConfigError when it is not a regex."""
        try:
            return re.compile(text, re.IGNORECASE)
        except re.error as error:
            raise ConfigError(
                f"routing table {self.name}: bad regular expression {text!r} in {key}: {error}",
                path=self.source,
                line=self.line_of(text) or self.line_of(key),
            ) from None

    def unknown_keys(self, table: Mapping[str, Any], allowed: set[str], where: str) -> None:
        """Reject keys the schema does not know (a typo would silently do nothing)."""
        for key in table:
            if key not in allowed:
                hint = did_you_mean(key, sorted(allowed), listing=len(allowed), label="expected")
                raise self.error(f"unknown key {key!r} in {where}{hint}", key)


def phrase(text: str) -> Phrase:
    """Return ``text`` as a lower-case word tuple, the key form of every lexicon."""
    return tuple(text.lower().split())


def _read(name: str, rules_dir: Path | None) -> _Table:
    """Read table ``name`` from ``rules_dir`` if it holds one, else the package's."""
    if rules_dir is not None:
        candidate = rules_dir / name
        if candidate.is_file():
            try:
                return _Table(name, str(candidate), candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as error:
                raise ConfigError(f"cannot read routing table: {error}", path=candidate) from None
    packaged = resources.files("orgrouter.rules").joinpath(name)
    text = packaged.read_text(encoding="utf-8")
    return _Table(name, f"orgrouter/rules/{name}", text, packaged=True)


def _skill(table: _Table, value: object, key: str) -> str:
    if not isinstance(value, str) or value not in table.targets:
        # The key's own table first: a word such as "set" is also a value of other lists.
        where = f"[{key.rsplit('.', 1)[0]}]" if "." in key else None
        hint = did_you_mean(str(value), table.targets, listing=len(table.targets), label="skills")
        raise table.error(f"{key} = {value!r} is not a skill{hint}", key, where)
    return value


def _level(table: _Table, value: object, key: str) -> str:
    if not isinstance(value, str) or value not in LEVELS:
        raise table.error(f"{key} = {value!r} must be one of {', '.join(LEVELS)}", key)
    return value


def _add_unique(
    table: _Table, into: dict[Phrase, str], words: list[str], skill: str, kind: str
) -> None:
    for word in words:
        key = phrase(word)
        if key in into and into[key] != skill:
            raise table.error(
                f"{kind} {word!r} is listed for both {into[key]!r} and {skill!r}", word,
                f"[skills.{skill}]",
            )
        into[key] = skill


def _longest_first(words: list[str]) -> dict[str, tuple[Phrase, ...]]:
    by_first: dict[str, tuple[Phrase, ...]] = {}
    for found in sorted({phrase(word) for word in words} - {()}, key=lambda p: (-len(p), p)):
        by_first[found[0]] = (*by_first.get(found[0], ()), found)
    return by_first


def _any_of(table: _Table, patterns: list[str], key: str) -> re.Pattern[str]:
    if not table.packaged:
        # Each alone first, so an error names the bad one. The package's own tables
        # skip it (every route would compile them twice): tests load them as a user's.
        for text in patterns:
            table.pattern(text, key)
    return table.pattern("|".join(f"(?:{text})" for text in patterns), key)


# The [words] lists: sets of words, phrases longest first, optional sets (lower-cased),
# and the optional lists read into other shapes.
_WORD_SETS = ("determiners", "prepositions", "targets", "subjects")
_LONGEST = ("fillers", "sequence", "delegators")
_OPTIONAL_WORDS = ("particles", "languages", "statement_verbs", "time_openers", "vague",
                   "listing", "containers")  # fmt: skip
_KNOWN_WORDS = {*_WORD_SETS, *_LONGEST, *_OPTIONAL_WORDS, "joiners", "preparatory", "outputs",
                "converters", "dated_errands"}  # fmt: skip


def _verbs(table: _Table) -> dict[str, Any]:
    skills = table.section("skills")
    verbs: dict[Phrase, str] = {}
    nouns: dict[Phrase, str] = {}
    for name, entry in skills.items():
        skill = _skill(table, name, f"skills.{name}")
        if not isinstance(entry, dict):
            raise table.error(f"[skills.{name}] must be a table", name)
        table.unknown_keys(entry, {"verbs", "nouns"}, f"[skills.{name}]")
        _add_unique(table, verbs, table.strings(entry, "verbs", f"skills.{name}"), skill, "verb")
        _add_unique(table, nouns, table.strings(entry, "nouns", f"skills.{name}"), skill, "noun")
    other = table.section("languages", required=False)
    table.unknown_keys(other, {"verbs", "nouns", "generic", "words"}, "[languages]")
    for kind, into in (("verbs", verbs), ("nouns", nouns)):
        where = f"languages.{kind}"
        for name, _ in (other.get(kind) or {}).items():
            skill = _skill(table, name, f"{where}.{name}")
            listed = table.strings(other[kind], name, where)
            _add_unique(table, into, listed, skill, kind[:-1])
    generic: dict[Phrase, str] = {}
    generic_table = {**table.section("generic"), **(other.get("generic") or {})}
    for verb, skill in generic_table.items():
        if phrase(verb) in verbs:
            raise table.error(
                f"verb {verb!r} is both generic and a verb of {verbs[phrase(verb)]!r}", verb
            )
        generic[phrase(verb)] = _skill(table, skill, f"generic.{verb}")
    words = dict(table.section("words"))
    for key in other.get("words") or {}:
        if key not in words:
            raise table.error(f"languages.words.{key} extends no [words] list", key)
        more = table.strings(other["words"], key, "languages.words")
        words[key] = [*table.strings(words, key, "words"), *more]
    table.unknown_keys(words, _KNOWN_WORDS, "[words]")
    frames = table.section("frames", required=False)
    table.unknown_keys(frames, {"courtesy", "desire"}, "[frames]")
    adjectives = {
        word.lower(): _skill(table, skill, f"adjectives.{word}")
        for word, skill in table.section("adjectives", required=False).items()
    }

    def optional(key: str) -> list[str]:
        """Return the optional ``[words]`` list ``key`` in lower case (old tables may lack it)."""
        return [w.lower() for w in table.strings(words, key, "words")] if key in words else []

    def patterns(key: str) -> re.Pattern[str]:
        found = table.strings(frames, key, "frames") if key in frames else []
        # Matched at a clause's start; each frame must end at a word's end.
        return _any_of(table, [f"(?:{p})(?![\\w'])" for p in found] or ["(?!)"], f"frames.{key}")

    outputs = [_skill(table, skill, "words.outputs") for skill in optional("outputs")]
    questions = {
        word.lower(): _skill(table, skill, f"questions.{word}")
        for word, skill in table.section("questions").items()
    }
    ambiguous = table.section("ambiguous")
    return {
        "verbs": verbs,
        "generic": generic,
        "nouns": nouns,
        "ambiguous": frozenset(w.lower() for w in table.strings(ambiguous, "words", "ambiguous")),
        **{
            key: frozenset(w.lower() for w in table.strings(words, key, "words"))
            for key in _WORD_SETS
        },
        **{key: _longest_first(table.strings(words, key, "words")) for key in _LONGEST},
        **{key: frozenset(optional(key)) for key in _OPTIONAL_WORDS},
        "questions": questions,
        "joiners": frozenset(optional("joiners") or ["and", "&", "plus"]),
        "preparatory": frozenset(phrase(w) for w in optional("preparatory")),
        "outputs": frozenset(outputs),
        "converters": frozenset(phrase(w) for w in optional("converters")),
        "dated_errands": frozenset(" ".join(phrase(w)) for w in optional("dated_errands")),
        "adjectives": adjectives,
        "courtesy_frames": patterns("courtesy"),
        "desire_frames": patterns("desire"),
    }


def _intents(table: _Table) -> dict[str, Any]:
    greeting = table.section("greeting")
    compact = table.section("compact")
    categories = table.section("skill_categories")
    mode = table.section("mode")
    spawn = table.section("spawn")
    confidence = table.section("confidence")
    scores: dict[str, float] = {}
    for key in CONFIDENCE_KEYS:
        value = confidence.get(key)
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
            raise table.error(f"confidence.{key} must be a number from 0 to 1", key)
        scores[key] = float(value)
    table.unknown_keys(confidence, set(CONFIDENCE_KEYS), "[confidence]")
    long_prompt = spawn.get("long_prompt")
    if not isinstance(long_prompt, int) or isinstance(long_prompt, bool) or long_prompt < 0:
        raise table.error("spawn.long_prompt must be a whole number of characters", "long_prompt")
    return {
        "greetings": _any_of(table, table.strings(greeting, "patterns", "greeting"), "greeting"),
        "courtesy": tuple(
            sorted(table.strings(greeting, "courtesy", "greeting"), key=lambda w: -len(w))
        ),
        "compact": _any_of(table, table.strings(compact, "patterns", "compact"), "compact"),
        "skill_categories": {
            _skill(table, skill, f"skill_categories.{skill}"): str(category)
            for skill, category in categories.items()
        },
        "innovation": _any_of(table, table.strings(mode, "innovation", "mode"), "innovation"),
        "simplicity": tuple(w.lower() for w in table.strings(spawn, "simplicity", "spawn")),
        "code": _any_of(table, table.strings(spawn, "code", "spawn"), "code"),
        "long_prompt": long_prompt,
        "confidence": scores,
    }


def _domains(table: _Table) -> dict[str, Any]:
    domains: dict[Phrase, tuple[str, ...]] = {}
    order: list[str] = []
    for name, entry in table.section("domains").items():
        if not isinstance(entry, dict):
            raise table.error(f"[domains.{name}] must be a table", name)
        table.unknown_keys(entry, {"words"}, f"[domains.{name}]")
        order.append(name)
        for word in table.strings(entry, "words", f"domains.{name}"):
            key = phrase(word)
            if name not in domains.get(key, ()):
                domains[key] = (*domains.get(key, ()), name)
    longest = max(map(len, domains), default=1)
    return {"domains": domains, "domain_order": tuple(order), "domain_words": longest}


def _risk(table: _Table) -> dict[str, Any]:
    outside = table.section("outside")
    retime = table.section("retime", required=False)
    table.unknown_keys(retime, {"verbs", "when", "places"}, "[retime]")
    when = table.strings(retime, "when", "retime") if "when" in retime else ["(?!)"]
    places = table.strings(retime, "places", "retime") if "places" in retime else ["(?!)"]
    return {
        "risk_verbs": {
            " ".join(phrase(verb)): _level(table, level, f"verbs.{verb}")
            for verb, level in table.section("verbs").items()
        },
        "retime_verbs": frozenset(
            " ".join(phrase(verb))
            for verb in (table.strings(retime, "verbs", "retime") if "verbs" in retime else [])
        ),
        "retime_when": _any_of(table, when, "retime.when"),
        "retime_places": _any_of(table, places, "retime.places"),
        "risk_words": tuple(
            (table.pattern(text, "words"), _level(table, level, text))
            for text, level in table.section("words").items()
        ),
        "outside_verbs": frozenset(w.lower() for w in table.strings(outside, "verbs", "outside")),
        "outside_paths": _any_of(table, table.strings(outside, "paths", "outside"), "paths"),
    }


def _chains(table: _Table) -> dict[str, Any]:
    table.unknown_keys(table.data, {"always", "support"}, "chains.toml")
    always = [_skill(table, s, "always") for s in table.strings(table.data, "always", "chains")]
    support = {
        _skill(table, skill, f"support.{skill}"): tuple(
            _skill(table, helper, f"support.{skill}")
            for helper in table.strings(table.section("support"), skill, "support")
        )
        for skill in table.section("support")
    }
    return {"always": frozenset(always), "support": support}


def _personas(table: _Table) -> dict[str, Any]:
    entries = table.data.get("persona")
    if not isinstance(entries, list) or not entries:
        raise table.error("needs at least one [[persona]]", "persona")
    personas = []
    for entry in entries:
        keys = {"name", "role", "domains", "skills", "innovation"}
        table.unknown_keys(entry, keys, "[[persona]]")
        name, role = entry.get("name"), entry.get("role")
        if not isinstance(name, str) or not isinstance(role, str):
            raise table.error("every [[persona]] needs a name and a role", "persona")
        personas.append(
            Persona(
                name=name,
                role=role,
                domains=tuple(entry.get("domains", [])),
                skills=tuple(_skill(table, s, name) for s in entry.get("skills", [])),
                innovation=bool(entry.get("innovation", False)),
            )
        )
    return {"personas": tuple(personas)}


_LOADERS: dict[str, Callable[[_Table], dict[str, Any]]] = {
    "verbs.toml": _verbs,
    "intents.toml": _intents,
    "domains.toml": _domains,
    "risk.toml": _risk,
    "chains.toml": _chains,
    "personas.toml": _personas,
}


def load_rules(rules_dir: Path | None = None, targets: Collection[str] | None = None) -> Rules:
    """Load every routing table, each from ``rules_dir`` if there, else the package's.

    ``targets`` are the skills an intent may be sent to (``registry.targets``: with a
    run's user skills); by default the built-ins'.
    """
    return build_rules(read_tables(rules_dir), targets)


def read_tables(rules_dir: Path | None = None) -> dict[str, _Table]:
    """Return every table's text (unparsed), each from ``rules_dir`` if there."""
    return {name: _read(name, rules_dir) for name in TABLES}


def build_rules(tables: Mapping[str, _Table], targets: Collection[str] | None = None) -> Rules:
    """Return the ``Rules`` of ``tables``: parsed, validated against ``targets``, compiled."""
    if targets is None:
        from orgrouter.skills.registry import ROUTABLE

        targets = ROUTABLE
    fields: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name in TABLES:
        table = tables[name]
        table.targets = targets
        sources[name] = table.source
        fields.update(_LOADERS[name](table))
    for persona in fields["personas"]:
        # A persona naming a domain no table defines could never be chosen for it.
        unknown = [d for d in persona.domains if d not in fields["domain_order"]]
        if unknown:
            raise tables["personas.toml"].error(
                f"persona {persona.name!r} names unknown domain {unknown[0]!r} "
                f"(domains.toml has {', '.join(fields['domain_order'])})",
                unknown[0],
            )
    phrases = [*fields["verbs"], *fields["generic"], *fields["nouns"], *fields["domains"]]
    longest = max((len(words) for words in phrases), default=1)
    spellings: dict[int, tuple[tuple[str, str, str], ...]] = {}  # a typo's length is near
    for basis, table in (("generic", fields["generic"]), ("fuzzy", fields["verbs"])):
        for key, skill in table.items():
            if len(key) == 1 and len(key[0]) >= 4:
                spellings[len(key[0])] = (*spellings.get(len(key[0]), ()), (key[0], skill, basis))
    separable: dict[str, list[tuple[str, str, str]]] = {}
    for basis, table in (("verb", fields["verbs"]), ("generic", fields["generic"])):
        for key, skill in table.items():
            if len(key) == 2 and key[1] in fields["particles"]:
                separable.setdefault(key[0], []).append((key[1], skill, basis))
    return Rules(
        sources=sources,
        max_phrase=longest,
        spellings=spellings,
        separable={word: tuple(entries) for word, entries in separable.items()},
        **fields,
    )


_DEFAULT: list[Rules] = []


def default_rules() -> Rules:
    """Return the package's own tables, loaded once per process."""
    if not _DEFAULT:
        _DEFAULT.append(load_rules(None))
    return _DEFAULT[0]


def configured_rules(
    rules_dir: str | None, *, base: Path | None = None, targets: Collection[str] | None = None
) -> Rules:
    """Return the rules for a ``[rules] dir`` setting (None: the package's own tables).

    ``targets``: the skills an intent may be sent to, when a run has user skills.
    """
    path = rules_path(rules_dir, base=base)
    return default_rules() if path is None else load_rules(path, targets)


def rules_path(rules_dir: str | None, *, base: Path | None = None) -> Path | None:
    """Return the directory a ``[rules] dir`` setting names (relative to ``base``), checked."""
    if rules_dir is None:
        return None
    path = Path(rules_dir).expanduser()
    if not path.is_absolute() and base is not None:
        path = base / path
    if not path.is_dir():
        raise ConfigError("rules.dir is not a directory", path=path)
    return path
