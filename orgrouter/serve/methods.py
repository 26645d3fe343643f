"""The serve methods: ``route``, ``classify``, ``decompose``, ``tangle`` and ``pending``.

Each takes the request's params and the server's settings and returns what goes in the
reply's ``result``. The configuration is read again when a file it comes from changed
(``configcache``); routing tables and skills are loaded for every call, so an edit to
``orgrouter.toml`` or a rules table counts from the next call on. Nothing of a note
outlives the call that brought it. Anything a call writes besides its reply (the state
database, tangle targets) is written under the notes root's run lock, as a directory
run holds it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orgrouter.serve.configcache import ConfigCache
from orgrouter.serve.params import Params

if TYPE_CHECKING:
    from orgrouter.configload import LoadedConfig


@dataclass
class Settings:
    """What ``orgrouter serve`` was started with; every call shares it."""

    config_file: str | None = None
    state_path: str | None = None
    agent: str | None = None
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    cwd: Path = field(default_factory=Path.cwd)
    configs: ConfigCache = field(default_factory=ConfigCache)

    def start_of(self, path: str | None) -> Path:
        """Return where configuration is looked for: the note's directory, else cwd.

        Relative to the server's directory, as ``route --stdin --file-name`` run there.
        """
        return Path(os.path.expanduser(path)).parent if path else Path(".")

    def absolute(self, path: str) -> Path:
        """Return ``path`` made absolute against the server's directory."""
        return Path(os.path.join(self.cwd, os.path.expanduser(path)))

    def load(self, path: str | None) -> LoadedConfig:
        """Return the configuration for a note at ``path`` (read again if its files changed)."""
        overrides = {"agent.name": self.agent} if self.agent else None
        return self.configs.load(
            self.start_of(path), cli_file=self.config_file, env=self.environ, overrides=overrides
        )


Method = Callable[[Params, Settings], Any]


def route(params: Params, settings: Settings) -> dict[str, Any]:
    """Route ``text`` as ``route --stdin --file-name path`` does; return text and edits.

    ``within`` (``[begin, end]``, characters) routes only the requests whose headline
    starts there: the subtree at point; the rest of the text is their context.
    """
    from orgrouter.clock import NOW_ENV, parse_now
    from orgrouter.route.filter import route_stdin, stdin_root
    from orgrouter.route.router import RunOptions
    from orgrouter.serve.splices import editor_splices, text_edits
    from orgrouter.state import resolve_state_path
    from orgrouter.xdg import cache_dir

    text = params.required_str("text")
    path = params.optional_str("path")
    now_text = params.optional_str("now")
    force = params.flag("force")
    with_text = params.flag("return_text", default=True)
    within = params.char_range("within")
    params.done()
    data = params.encoded("text", text)
    loaded = settings.load(path)  # path as given: route --stdin names the note as it was named
    config = loaded.config
    options = RunOptions(
        now=parse_now(now_text or settings.environ.get(NOW_ENV)),
        force=force,
        config_dir=loaded.files[-1].parent if loaded.files else None,
        within=_byte_range(text, within),
        rules_cache=cache_dir(settings.environ),
    )
    root = stdin_root(path)

    def locate_state() -> Path:
        return resolve_state_path(settings.state_path, settings.environ, config, root)

    # route_stdin takes the notes root's lock itself, before a skill writes a file.
    outcome, warnings = route_stdin(
        data, path, config, options, locate_state=locate_state, environ=settings.environ
    )
    routed = outcome.data
    edits = text_edits(data, editor_splices(data, outcome.stages, routed))
    result: dict[str, Any] = {
        "changed": routed != data,
        "edits": [edit.to_json() for edit in edits],
        "routed": outcome.routed,
        "results": outcome.results,
        "requests": [request.to_json() for request in outcome.requests],
        "warnings": warnings,
    }
    if with_text:
        result["text"] = routed.decode("utf-8")
    return result


def _byte_range(text: str, chars: tuple[int, int] | None) -> tuple[int, int] | None:
    """Return a character range of ``text`` in UTF-8 bytes."""
    if chars is None:
        return None
    begin = len(text[: chars[0]].encode("utf-8"))
    return begin, begin + len(text[chars[0] : chars[1]].encode("utf-8"))


def classify(params: Params, settings: Settings) -> dict[str, Any]:
    """Return the sensor gate's JSON for ``text`` (or ``items``), as ``classify`` prints.

    Nothing is stored: the call counts no spawn against a rate window (a preview).
    """
    from orgrouter.commands.classify import parse_now
    from orgrouter.route.gate import classify as run_gate

    text, items = _text_or_items(params)
    path = params.optional_str("path")
    now = parse_now(params.optional_str("now") or settings.environ.get("ORGROUTER_NOW"))
    origin = params.choice("origin", ("user", "result", "delegation"), default="user")
    params.done()
    config, rules, selves = _rules(settings, path)
    result = run_gate(
        text,
        rules,
        config=config.sensor_gate,
        origin=origin,  # type: ignore[arg-type]
        items=items or None,
        now=now,
        selves=selves,
    )
    return dict(result.to_json())


def decompose(params: Params, settings: Settings) -> dict[str, Any]:
    """Return the atomic intents of ``text`` (or ``items``), as ``decompose --json``."""
    from orgrouter.route.decompose import decompose as split
    from orgrouter.route.decompose import decompose_items

    text, items = _text_or_items(params)
    path = params.optional_str("path")
    params.done()
    _config, rules, selves = _rules(settings, path)
    if items:
        return dict(decompose_items(items, rules, selves=selves).to_json())
    return dict(split(text, rules, selves=selves).to_json())


def tangle(params: Params, settings: Settings) -> dict[str, Any]:
    """Tangle ``text`` as the contents of the note at ``path``; return the tangle report.

    Under the rules of a routed tangle (``route --stdin`` tangling its buffer): the
    skill's write policy decides each target, with the same library calls. A new
    file in the note's tree, or one orgrouter wrote from it and nobody changed since,
    is written; a hidden, git, config or state path is refused; anything else is
    ``held`` (written only through an approval in the note, never by this call).
    ``mode`` (write, dry-run, check, diff) says whether to write at all.
    """
    from orgrouter.babel.record import TargetRecord
    from orgrouter.babel.run import Tangler
    from orgrouter.clock import parse_now
    from orgrouter.discover import find_notes_root
    from orgrouter.errors import OrgRouterError
    from orgrouter.runlock import RunLock
    from orgrouter.skills.base import Context
    from orgrouter.skills.tangle_skill import write_policy
    from orgrouter.state import StateDB, resolve_state_path
    from orgrouter.writemode import WriteMode

    text = params.required_str("text")
    path = params.required_str("path")
    mode = WriteMode(params.choice("mode", tuple(m.value for m in WriteMode), default="write"))
    params.done()
    data = params.encoded("text", text)
    note = settings.absolute(path)
    if not note.is_file():
        # The note is on disk, so its notes root (which bounds the targets) is the one
        # its directory really has, not one a made-up name would imply.
        raise OrgRouterError("tangle: the note is not a file on disk; save it first", path=path)
    root = find_notes_root([note.parent]).resolve()
    config = settings.load(os.fspath(note)).config
    state = resolve_state_path(settings.state_path, settings.environ, config, root)
    lock = RunLock(root, settings.environ)
    if mode is WriteMode.WRITE:
        lock.acquire()  # as a routed tangle takes it before it writes
    try:
        with StateDB.open(state) as db:
            ctx = Context(config=config, now=parse_now(None), notes_root=root, state=db)
            record = TargetRecord(db)
            policy = write_policy(ctx, note, record)
            tangler = Tangler([policy.root], mode, record=record, display_base=root,
                              policy=policy)  # fmt: skip
            report = tangler.tangle_bytes(note, data)
    finally:
        lock.release()
    return {**report.to_json(), "exit_code": report.exit_code}


def pending(params: Params, settings: Settings) -> dict[str, Any]:
    """Return the requests, clarifications and approvals waiting on the user."""
    from orgrouter.serve.pending import find_pending

    path = params.optional_str("path")
    params.done()
    items, errors = find_pending(settings.start_of(path), settings.load(path).config)
    return {"items": items, "errors": errors}


def _text_or_items(params: Params) -> tuple[str, list[str]]:
    """Return the params' ``text`` or ``items`` (exactly one of them)."""
    text = params.optional_str("text")
    items = params.str_list("items")
    if (text is None) == (not items):
        params.invalid("give either text or a non-empty items list")
    return text or "", items


def _rules(settings: Settings, path: str | None) -> tuple[Any, Any, tuple[str, ...]]:
    """Return the configuration, routing tables and agent names for a note at ``path``."""
    from orgrouter.commands.classify import loaded_rules

    loaded = settings.load(path)
    return loaded.config, *loaded_rules(loaded, loaded.directory or settings.start_of(path))


METHODS: dict[str, Method] = {
    "route": route,
    "classify": classify,
    "decompose": decompose,
    "tangle": tangle,
    "pending": pending,
}
