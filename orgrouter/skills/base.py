"""The skill interface and the stimulus types the kernel passes between skills.

Mirrors the Lisp kernel of seed 003: a stimulus is ``(:type :EVENT :payload (:sensor
...))``; the highest-priority skill whose ``trigger`` matches runs ``neuro`` (propose)
then ``symbolic`` (verify, act, or veto with ``None``). An action injects more stimuli,
emits results to write back, adds tags to earlier results, or logs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from orgrouter.config import Config
from orgrouter.records import NamedTuple, field, record, replace

if TYPE_CHECKING:
    from orgrouter.neuro.backend import NeuroBackend
    from orgrouter.org.document import Document
    from orgrouter.route.gate import GateResult
    from orgrouter.route.ratelimit import RateLimiter
    from orgrouter.route.rules import Rules
    from orgrouter.skills.executor import Move
    from orgrouter.state import StateDB


class StimulusType(StrEnum):
    """What kind of thing a stimulus is (seed 003's ``:type``)."""

    EVENT = "EVENT"
    REQUEST = "REQUEST"
    RESPONSE = "RESPONSE"
    LOG = "LOG"


class Sensor(StrEnum):
    """Where a stimulus came from (seed 003's ``:sensor``)."""

    USER_COMMAND = "user-command"  # an @agent headline found in a file
    CHAT_MESSAGE = "chat-message"  # text given on the command line or stdin
    DELEGATION = "delegation"  # one atomic intent handed on by the router


class Stimulus(NamedTuple):
    """One message through the kernel: a type and a payload naming its sensor.

    Payload keys by sensor: ``user-command`` and ``chat-message`` carry ``text`` (the
    instruction); ``delegation`` carries the intent's ``skill``, ``verb``, ``object``,
    ``agent``, ``order``, ``depends_on``, ``text`` and ``span``.
    """

    type: StimulusType
    payload: Mapping[str, Any]
    depth: int = 0  # how many injections led here; the kernel stops at 10

    @property
    def sensor(self) -> str:
        """Return the payload's sensor name, or '' when it has none."""
        return str(self.payload.get("sensor", ""))

    @property
    def text(self) -> str:
        """Return the payload's text (instruction or intent), or ''."""
        return str(self.payload.get("text", ""))


ResultKind = Literal["result", "clarification", "approval", "error"]
MAX_TITLE_CHARS = 200


@record(frozen=True)
class Result:
    """One child headline a skill wants written under the request.

    ``body`` is Org text; write-back escapes it so it can never create structure.
    ``todo`` is a keyword for the result headline (``TODO``, ``WAITING``), ``planning``
    a planning line (``SCHEDULED: <2026-12-04 Fri>``), ``properties`` extra drawer
    entries beside the ``ORGROUTER_*`` ones. ``org_safe`` says the body is Org made
    safe already (``markdown_to_org``'s output): its blocks and ``*bold*`` lines are
    kept, and only true headlines and keyword lines are escaped.
    """

    title: str
    body: str = ""
    kind: ResultKind = "result"
    todo: str | None = None
    tags: tuple[str, ...] = ()
    planning: str | None = None
    properties: tuple[tuple[str, str], ...] = ()
    org_safe: bool = False

    def __post_init__(self) -> None:
        """Make the title one line of bounded length (a list item can be a page long)."""
        title = " ".join(self.title.split())
        if len(title) > MAX_TITLE_CHARS:
            title = title[: MAX_TITLE_CHARS - 1].rstrip() + "…"
        object.__setattr__(self, "title", title)


class Inject(NamedTuple):
    """Hand more stimuli to the kernel (one level deeper)."""

    stimuli: tuple[Stimulus, ...]


class Retag(NamedTuple):
    """Add ``tags`` to existing headlines of this file (by 1-based line)."""

    lines: tuple[int, ...]
    tags: tuple[str, ...]


class Emit(NamedTuple):
    """Write these results back under the request (and add tags, if any)."""

    results: tuple[Result, ...]
    retags: tuple[Retag, ...] = ()


class Log(NamedTuple):
    """Record a message; the run's report shows it, nothing is written to the note."""

    text: str


Action = Inject | Emit | Retag | Log


class ResultRef(NamedTuple):
    """A result headline an earlier run wrote under the request."""

    line: int  # 1-based line of its headline
    title: str
    run: str  # its ORGROUTER_RUN stamp
    tags: tuple[str, ...] = ()
    owner: int = 0  # 1-based line of the request it answers


class Heading(NamedTuple):
    """A headline inside the section a request is about (never a request or a result)."""

    line: int  # 1-based
    depth: int  # 1: a direct child of the section's headline
    title: str
    todo: str | None = None
    tags: tuple[str, ...] = ()
    body: str = ""  # its own section, up to its first child


class Request(NamedTuple):
    """An addressed headline, as skills see it."""

    path: Path | None  # None for text given on stdin without --file-name
    line: int  # 1-based line of the headline
    headline: str  # the headline's title, as written
    instruction: str  # the text after the address (or taken from the body)
    agent: str  # the address used, lower-case: "agent" or a configured name
    section: str = ""  # its own section below the headline ("" when that is the instruction)
    parent_section: str = ""  # the parent headline's section (what "this section" means)
    private: bool = False  # under a privacy tag: never sent to a model
    tags: tuple[str, ...] = ()  # inherited and own tags
    own_tags: tuple[str, ...] = ()  # the request headline's own Org tags (typed by the user)
    parent_line: int | None = None  # 1-based line of the parent headline, if any
    parent_title: str = ""
    # Results earlier runs wrote: the request's own; for ``/compact``, those of the
    # request it sits under, or of every request in the file when it stands alone.
    results: tuple[ResultRef, ...] = ()
    # The headlines of the section "this" means (the request's children when it has a
    # body of its own, else its parent's other children), requests and results left out.
    outline: tuple[Heading, ...] = ()


@record
class Handback:
    """What skills hand forward to the pipeline while one request is routed."""

    gate: GateResult | None = None  # the router's verdict (the report's "gate")
    notes: list[str] = field(default_factory=list)  # the decomposer's vetoes and fallbacks
    moves: list[Move] = field(default_factory=list)  # what approved executors planned


@record
class Context:
    """Everything a skill may consult; a skill writes no file unless asked (``dry_run``)."""

    config: Config
    now: datetime
    request: Request | None = None
    backend: NeuroBackend | None = None  # None for `rules` and for private subtrees
    notes_root: Path | None = None
    state: StateDB | None = None
    rules: Rules | None = None  # the run's routing tables (None: the router loads them)
    limiter: RateLimiter | None = None  # the spawn window (None: nothing spawns)
    session: str = "cli"  # the rate-limit session (the file)
    selves: tuple[str, ...] = ("agent",)  # the names the agent answers to
    targets: tuple[str, ...] = ()  # the intent skills a model may propose (registry.targets)
    self_binding: frozenset[str] = frozenset()  # skills that bind their own approvals
    # The note being routed: a skill that reads "this note" reads these bytes, not the
    # disk (under --stdin the buffer differs from the file); the executors cut and paste
    # the document's subtrees.
    note_bytes: bytes | None = None
    document: Document | None = None
    # What to call before writing any file besides the note. A run that does not hold
    # the notes root's lock yet (route --stdin) takes it there, or raises LockedError
    # (exit 75); a directory run holds it from the start and sets nothing.
    write_lock: Callable[[], None] | None = None
    handback: Handback = field(default_factory=Handback)  # one per request, shared by copies
    # --diff, --check, --dry-run: a skill with effects beyond its results (tangling
    # files) must only say what it would do.
    dry_run: bool = False
    # The backend of another agent (a delegation to @NAME); None: only ``backend``.
    backend_for: Callable[[str], NeuroBackend | None] | None = None
    # The gate's verdict on the request, reached already by this run (``Router.plan``),
    # with the text and items it was reached on: the router classifies nothing twice.
    classified: tuple[str, tuple[str, ...], GateResult] | None = None

    def for_stimulus(self, stimulus: Stimulus) -> Context:
        """Return the context for ``stimulus``: a delegation to @NAME gets NAME's model."""
        agent = stimulus.payload.get("agent")
        if not isinstance(agent, str) or not agent or self.backend_for is None:
            return self
        backend = None if self.private else self.backend_for(agent.lower())
        return replace(self, backend=backend)

    @property
    def private(self) -> bool:
        """Return whether the request sits under a privacy tag."""
        return self.request is not None and self.request.private

    def subject(self) -> str:
        """Return the text "this section" means: the request's body, else its parent's.

        The section's other headlines follow as Org (a weekly review is its DONE
        children): readers of the section's own text stop at the first headline, and
        a model sees the whole section, privacy-tagged subtrees removed before sending.
        """
        if self.request is None:
            return ""
        own = self.request.section
        text = own if own.strip() else self.request.parent_section
        if not self.request.outline:
            return text
        joint = "" if not text or text.endswith("\n") else "\n"
        return text + joint + outline_text(self.request.outline)

    def withheld(self) -> bool:
        """Return whether a model is configured but kept from this private request."""
        if self.request is None or not self.request.private:
            return False
        return self.config.neuro_for(self.request.agent).backend != "rules"

    def model(self) -> NeuroBackend | None:
        """Return the backend a skill may use: never one for a private request."""
        return None if self.private else self.backend


@runtime_checkable
class Skill(Protocol):
    """A named handler of stimuli (seed 003's ``defskill``)."""

    name: str
    priority: int

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether this skill wants to handle ``stimulus``."""
        ...

    def neuro(self, stimulus: Stimulus, ctx: Context) -> object:
        """Return a proposal for ``stimulus`` (a model's, or the stimulus itself)."""
        ...

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Verify ``proposal`` and return the action to take, or None to veto."""
        ...


class BaseSkill:
    """A convenient base: ``neuro`` passes the stimulus through unchanged.

    Subclasses set ``name`` and ``priority`` and implement ``trigger`` and ``symbolic``;
    ``delegated_to`` makes the usual trigger (a delegation naming this skill) one line.
    """

    name: str = ""
    priority: int = 50

    def trigger(self, stimulus: Stimulus, ctx: Context) -> bool:
        """Return whether ``stimulus`` is a delegation naming this skill."""
        return self.delegated_to(stimulus)

    def neuro(self, stimulus: Stimulus, ctx: Context) -> object:
        """Return the stimulus itself: symbolic skills need no proposal."""
        return stimulus

    def symbolic(self, proposal: object, ctx: Context) -> Action | None:
        """Return the action for ``proposal``; the base vetoes everything."""
        return None

    def delegated_to(self, stimulus: Stimulus) -> bool:
        """Return whether ``stimulus`` is a delegation whose skill is this one."""
        return (
            stimulus.sensor == Sensor.DELEGATION
            and str(stimulus.payload.get("skill", "")).lower() == self.name
        )


def outline_text(outline: tuple[Heading, ...]) -> str:
    """Return headlines as Org text, one star per level below the section's headline."""
    lines: list[str] = []
    for heading in outline:
        keyword = f"{heading.todo} " if heading.todo else ""
        tags = f" :{':'.join(heading.tags)}:" if heading.tags else ""
        lines.append(f"{'*' * heading.depth} {keyword}{heading.title}{tags}\n{heading.body}")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def clarify(title: str, body: str) -> Emit:
    """Return the action that asks the user what they meant (a clarification result)."""
    return Emit((Result(title=title, body=body, kind="clarification"),))


def delegation(intent: Mapping[str, Any], depth: int = 0) -> Stimulus:
    """Return the delegation stimulus for one atomic ``intent``."""
    return Stimulus(StimulusType.EVENT, {**intent, "sensor": Sensor.DELEGATION.value}, depth)


def proposal_stimulus(proposal: object) -> Stimulus:
    """Return ``proposal`` as a Stimulus, for skills whose neuro passes it through."""
    if not isinstance(proposal, Stimulus):
        raise TypeError(f"expected a Stimulus proposal, got {type(proposal).__name__}")
    return proposal


def before_write(ctx: Context) -> None:
    """Take the run lock for a write besides the note, where the run does not hold it."""
    if ctx.write_lock is not None:
        ctx.write_lock()
