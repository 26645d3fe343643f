"""Turn a parsed instruction into intents: skills read from verbs and their objects,
context and courtesy set aside, dependencies between steps, risk marked."""

from __future__ import annotations

import re
from collections.abc import Callable

from orgrouter.route.grammar import Clause, Group, Parse, Span
from orgrouter.route.greeting import is_greeting
from orgrouter.route.intent import Head, Intent
from orgrouter.route.risk import mark_risk, retimes
from orgrouter.route.rules import Rules
from orgrouter.route.segment import Segmenter

_PLACES = ("in", "on", "onto", "to")
# "what's in the list below? boil it down": a question about what a part holds, then
# a request about "it", is one request.
_CONTENTS = re.compile(r"(?i)^what(?:'s|\u2019s| is| are|'re)? (?:in|on|under|inside)\b")
_PRONOUN = re.compile(r"(?i)^(?:it|them|that|this|these|those)\b")
# "every open checkbox should become a todo": what something should become names the skill.
_BECOME = re.compile(
    r"(?i)\b(?:should|must|can|could|needs? to|has to|have to|to)\s+(?:all\s+|each\s+)?"
    r"(?:become|be|turn into|be turned into|be made into|go into|end up as)\s+"
    r"(?:an?\s+|my\s+|real\s+|proper\s+|separate\s+)?([\w-]+)"
)
# Words a reminder may hold beside its time ("remind me about it next wednesday").
_REMINDER_REST = frozenset({"on", "at", "by", "in", "the", "me", "about", "it", "of", "then",
                            "to", "do", "that", "this", "again", "around", "before", "until",
                            "next", "coming", "following", "every"})
# What a follow-up clause's object may hold when it only points back at the previous
# intent's answer and says where it goes ("link them here", "list those below").
_POINTING = frozenset({"them", "it", "those", "these", "all", "results", "ones", "links"})
_ANAPHORA = _POINTING | frozenset({"here", "there", "below", "above", "in", "into", "to",
                                   "on", "under", "at", "the", "of", "this", "that", "note",
                                   "section", "page", "heading", "entry", "me", "for"})
_PLACE = frozenset({"here", "there", "below", "above", "in", "into", "under"})
# Verbs that write an answer somewhere, never remove it ("drop them" deletes: not here).
_PRESENTING = frozenset({"link", "list", "show", "put", "paste", "insert", "collect",
                         "gather", "add", "bring"})
_PAST = re.compile(r"(?i)\b(yesterday|last|ago|from|since)\b")  # not a date still to come


class Builder:
    """Turn the parse into intents, in order, with their dependencies."""

    def __init__(self, text: str, segmenter: Segmenter, rules: Rules) -> None:
        self.text = text
        self.segmenter = segmenter
        self.rules = rules
        self.groups: list[list[Intent]] = []
        self.context: list[str] = []  # statements and courtesy dropped beside the intents
        self.greeted = False  # a clause was a greeting ("Hello!", "thanks!")
        self.delegated = False

    def build(self, parsed: Parse) -> tuple[str, list[Intent]]:
        """Return the decomposition kind and its intents."""
        for group in parsed.groups:
            self.groups.append(self._group(group))
        self._drop_context()
        self._drop_preparatory()
        self._fold_into_previous(self._join_reminder)
        self._fold_into_previous(self._follow_up)
        return self._finish(parsed.numbered)

    def _fold_into_previous(self, folds: Callable[[Intent, Intent], bool]) -> None:
        """Set aside each intent that ``folds`` into the one before it (which it may change)."""
        previous: Intent | None = None
        for group in self.groups:
            for intent in list(group):
                if previous is not None and folds(previous, intent):
                    self.context.append(intent.text)
                    group.remove(intent)
                    continue
                previous = intent
        self.groups = [group for group in self.groups if group]

    def _join_reminder(self, previous: Intent, intent: Intent) -> bool:
        """Give a bare reminder's time to the task before it ("book the MOT - remind me friday")."""
        if (
            previous.skill in ("todo", "schedule")
            and intent.skill in ("todo", "schedule")
            and intent.verb.startswith("remind")
            and _only_time(intent.object, self.rules)
        ):
            previous.object = f"{previous.object} {intent.object}".strip()
            return True
        return False

    @staticmethod
    def _follow_up(previous: Intent, intent: Intent) -> bool:
        """Return whether ``intent`` only says where the previous one's answer goes.

        "find notes about budget and link them here", "search for X and list them
        below": the second verb acts on "them" (what the first one found) and names no
        new thing, so it is how the first intent's result is written, not a second
        search for the words "them here".
        """
        if not intent.object or not _only_anaphora(intent.object):
            return False
        placed = bool(_PLACE & set(re.findall(r"[\w']+", intent.object.lower())))
        presents = previous.skill == "search" and intent.verb in _PRESENTING and placed
        return intent.skill == previous.skill or presents

    def _finish(self, numbered: bool) -> tuple[str, list[Intent]]:
        """Number the groups' intents, link each group to the one before, name the kind."""
        intents: list[Intent] = []
        previous: list[int] = []
        for group_intents in self.groups:
            current = []
            for intent in group_intents:
                intent.order = len(intents) + 1
                intent.depends_on = list(previous)
                intents.append(intent)
                current.append(intent.order)
            previous = current or previous
        kind = (
            "numbered"
            if numbered
            else "delegation"
            if self.delegated
            else "sequence"
            if len(self.groups) > 1
            else "coordination"
            if len(intents) > 1
            else "single"
        )
        return kind, intents

    def _context(self, intent: Intent) -> bool:
        """Return whether ``intent`` is a statement or courtesy, not a request.

        A clause that starts with a subject word ("It is used by the scheduler.", "my
        sister's visiting") or is only greetings and courtesy ("Hello!", "thanks") and
        holds no verb we know.
        """
        if intent.basis != "unknown" or intent.agent is not None:
            return False
        if is_greeting(intent.text, self.rules, self.segmenter.selves, courtesy_only=True):
            self.greeted = self.greeted or is_greeting(
                intent.text, self.rules, self.segmenter.selves
            )
            return True
        # "finished the report, now ...": a past form opens a statement too.
        past = len(intent.verb) > 4 and intent.verb.endswith("ed") and intent.verb[-3] != "e"
        # "Meeting was chaotic.": a noun and a statement verb.
        second = intent.text.lower().split()[1:2]
        stated = bool(second) and second[0] in self.rules.statement_verbs
        return intent.verb in self.rules.subjects or past or stated

    def _drop_context(self) -> None:
        """Drop statements and courtesy beside real instructions.

        Dropped only when another intent was understood, so a request that is only a
        statement still gets a clarification.
        """
        flags = [[self._context(i) for i in group] for group in self.groups]
        for at, group in enumerate(self.groups[:-1]):
            after = self.groups[at + 1][0]
            if (
                len(group) == 1
                and group[0].basis == "question"
                and _CONTENTS.match(group[0].text)
                and _PRONOUN.match(after.object)
            ):
                flags[at][0] = True
        if any(not flag for group in flags for flag in group):
            for group, marks in zip(self.groups, flags, strict=True):
                self.context.extend(i.text for i, mark in zip(group, marks, strict=True) if mark)
                group[:] = [i for i, mark in zip(group, marks, strict=True) if not mark]
            self.groups = [group for group in self.groups if group]
        else:
            self.greeted = False

    def _drop_preparatory(self) -> None:
        """Drop "go through X" joined to a second verb: the second verb is the intent."""
        for group in self.groups:
            drop = {
                at
                for at, intent in enumerate(group[:-1])
                if tuple(intent.verb.split(" ")) in self.rules.preparatory
                and group[at + 1].agent == intent.agent
            }
            self.context.extend(group[at].text for at in sorted(drop))
            group[:] = [intent for at, intent in enumerate(group) if at not in drop]

    def _group(self, group: Group) -> list[Intent]:
        if not group.delegations:
            return self._coord(group.clauses, None, None)
        self.delegated = True
        intents: list[Intent] = []
        for delegation in group.delegations:
            agent = self.text[delegation.mention[0] + 1 : delegation.mention[1]]
            by = delegation.by
            if delegation.clauses is not None:
                intents.extend(self._coord(delegation.clauses, agent, by))
            else:  # "ask @coder." : the sub-agent gets the request as written
                start = (by or delegation.mention)[0]
                intents.append(
                    self._intent(
                        Head("delegation", "ask", "ask"), start, delegation.mention[1], "", agent
                    )
                )
        return intents

    def _coord(
        self, clauses: tuple[Clause, ...], agent: str | None, by: Span | None
    ) -> list[Intent]:
        return _share_objects([self._clause(clause, agent, by) for clause in clauses])

    def _clause(self, clause: Clause, agent: str | None, by: Span | None) -> Intent:
        """Return the intent of one clause: its HEAD's span and its WORDs' spans."""
        start = clause.head[0]
        head_end = clause.head[1] or start
        end = (clause.words[-1][1] if clause.words else None) or head_end
        head = self.segmenter.heads[start]
        obj = self.text[head_end:end].strip()
        # The clause without its verb: "tomorrow morning remind me to X", "boil it down".
        late = self.segmenter.late_verbs.get(start)
        if late is not None:
            obj = " ".join(f"{self.text[start : late[0]]} {self.text[late[1] : end]}".split())
        particle = self.segmenter.particles.get(start)
        if particle is not None and head_end <= particle[0] < end:
            before, after = self.text[head_end : particle[0]], self.text[particle[1] : end]
            if not after.lstrip().lower().startswith("of "):  # "out of this list" stays
                obj = " ".join(f"{before} {after}".split())
        words = [self.text[a:b].lower() for a, b in clause.words]
        if head.basis == "generic":
            head = self._by_noun(head, words)
        if head.verb in self.rules.listing and head.basis == "verb":
            listed = self._noun_in(words, stop=True)
            if listed is not None:
                head = Head("generic_noun", head.verb, listed)  # "list the main ideas"
        if head.basis == "generic" and all(w.strip(".,;:!?") in self.rules.vague for w in words):
            head = Head("unknown", head.verb, "ask")  # "do the usual": no task named
        head = self._by_target(head, words)
        if head.basis == "unknown":
            head = self._unknown(head, self.text[start:end], obj)
        if head.basis == "unknown" and self.text[end:].lstrip().startswith("?"):
            head = Head("question", head.verb, self.rules.questions.get(head.verb, "ask"))
        if agent is not None and head.basis in ("unknown", "noun", "question"):
            # "ask @coder about the build": the sub-agent gets the whole clause.
            verb = self.text[by[0] : by[1]].lower() if by is not None else "ask"
            head, obj = Head("delegation", verb, "ask"), self.text[start:end].strip()
        listed = self.segmenter.list_skill
        if listed is not None and agent is None and head.skill not in ("todo",):
            head = Head(head.basis, head.verb, listed)  # "To do: 1) book the campsite ..."
        return self._intent(head, start, end, obj, agent)

    def _unknown(self, head: Head, clause: str, obj: str) -> Head:
        """Read a clause whose verb we do not know, when the rest of it says enough.

        What it should become ("every open checkbox should become a todo"), or a time
        still to come ("waterproof the boots on saturday": the user's own task).
        """
        rules = self.rules
        found = _BECOME.search(clause)
        if found is not None:
            skill = rules.nouns.get((found.group(1).lower(),))
            if skill is not None:
                return Head("noun", "", skill)
        statement = head.verb in rules.subjects or head.verb.endswith(("ed", "'s"))
        courtesy = is_greeting(clause, rules, self.segmenter.selves, courtesy_only=True)
        statement = statement or courtesy
        if not statement and head.verb.isalpha() and _ahead(obj, rules):
            return Head("generic", head.verb, "todo")
        return head

    def _by_target(self, head: Head, words: list[str]) -> Head:
        """Let what the object is turned into decide, whatever the verb.

        "list the action items as todos" (an output skill), "put the German paragraph
        into English" (a language, after a converting verb).
        """
        rules = self.rules
        if head.basis in ("unknown", "question"):
            return head
        for at, word in enumerate(words):
            if word in rules.targets and head.skill != "tag":
                skill = self._noun_in(words[at + 1 :], stop=True)
                if skill in rules.outputs:
                    return Head(head.basis, head.verb, skill)
            if word in ("into", "in", "to") and tuple(head.verb.split(" ")) in rules.converters:
                following = words[at + 1 : at + 2]
                if following and following[0].strip(".,;:!?") in rules.languages:
                    return Head(head.basis, head.verb, "translate")
        return head

    def _by_noun(self, head: Head, words: list[str]) -> Head:
        """Pick a generic verb's skill from the nouns of its object.

        What it is turned "into" (or made "as", or put "in") decides first ("turn this
        email into a todo", "put it in the calendar"); then an adjective it is made
        ("make this sound less robotic"); else the nouns before the first preposition
        ("create todos for X").
        """
        rules = self.rules
        for at, word in enumerate(words):
            if word in rules.targets or (word in _PLACES and head.verb == "put"):
                skill = self._noun_in(words[at + 1 :], stop=word not in rules.targets)
                if skill is not None:
                    return Head("generic_noun", head.verb, skill)
        skill = self._noun_in(words, stop=True)
        if skill is not None:
            return Head("generic_noun", head.verb, skill)
        for word in words:
            adjective = rules.adjectives.get(word.strip(".,;:!?"))
            if adjective is not None:
                return Head("generic_noun", head.verb, adjective)
        return head

    def _noun_in(self, words: list[str], stop: bool) -> str | None:
        """Return the skill of the first noun in ``words`` (up to a preposition if ``stop``)."""
        for at, word in enumerate(words):
            if stop and word in self.rules.prepositions:
                return None
            if word in self.rules.containers and words[at + 1 : at + 2] == ["of"]:
                return self._noun_in(words[at + 2 :], stop)  # "a list of todos"
            for size in range(min(self.rules.max_phrase, len(words) - at), 0, -1):
                key = tuple(w.strip(".,;:!?") for w in words[at : at + size])
                skill = self.rules.nouns.get(key)
                if skill is not None:
                    return skill
        return None

    def _intent(self, head: Head, start: int, end: int, obj: str, agent: str | None) -> Intent:
        rules = self.rules
        if head.skill != "schedule" and retimes(head.verb, obj, rules):
            head = Head(head.basis, head.verb, "schedule")  # "move the standup to 10am"
        elif head.verb in rules.dated_errands and _ahead(obj, rules):
            head = Head(head.basis, head.verb, "todo")  # "fix the squeaky door next monday"
        confidence = rules.confidence[head.basis]
        if agent is not None:
            confidence = max(confidence, rules.confidence["delegation"])
        where = (start, end, self.text[start:end])
        intent = Intent(0, head.skill, head.verb, obj, agent, *where, head.basis, confidence)
        mark_risk(intent, rules)
        return intent


def _ahead(obj: str, rules: Rules) -> bool:
    """Return whether ``obj`` names a time still to come ("next monday", not "yesterday")."""
    return rules.retime_when.search(obj) is not None and _PAST.search(obj) is None


def _only_time(obj: str, rules: Rules) -> bool:
    """Return whether ``obj`` names only a time ("next wednesday", "about it on friday")."""
    if rules.retime_when.search(obj) is None:
        return False
    rest = rules.retime_when.sub(" ", obj.lower())
    return all(word in _REMINDER_REST for word in re.findall(r"[\w']+", rest))


def _only_anaphora(obj: str) -> bool:
    """Return whether ``obj`` points back and says where, naming nothing ("them here")."""
    words = re.findall(r"[\w']+", obj.lower())
    return bool(words) and all(word in _ANAPHORA for word in words) and any(
        word in _POINTING for word in words
    )


def _share_objects(intents: list[Intent]) -> list[Intent]:
    """Give a verb without an object the next one's ("summarize and tag this section")."""
    for index in range(len(intents) - 2, -1, -1):
        if not intents[index].object:
            intents[index].object = intents[index + 1].object
    return intents
