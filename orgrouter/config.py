"""The configuration schema: every section, key, type and default.

Loading (file discovery, ``ORGROUTER_*`` variables, CLI overrides, validation with
suggestions, provenance) lives in ``orgrouter.configload``; this module is only the
shape, so that every other module can depend on it cheaply.
"""

from __future__ import annotations

from typing import Any, dataclass_transform


@dataclass_transform(kw_only_default=True)  # mypy checks each record's keywords
class Record:
    """A mutable record: built from keywords over its class's defaults, compared by value.

    Not dataclasses: the configuration's were a tenth of a ``--stdin`` run's start-up
    (a dataclass compiles its methods at import, 0.3 to 1 ms each). A default that is a
    list, a dict or a record is copied for each instance, as ``default_factory`` did.
    """

    def __init__(self, **values: Any) -> None:
        for key in _keys(type(self)):
            setattr(self, key, values.pop(key) if key in values else _fresh(getattr(self, key)))
        if values:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(values))!r}")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __repr__(self) -> str:
        fields = ", ".join(f"{key}={value!r}" for key, value in vars(self).items())
        return f"{type(self).__name__}({fields})"


def _keys(cls: type) -> list[str]:
    """Return the fields of a record class, its bases' first, in declaration order."""
    return [k for c in reversed(cls.__mro__) for k in vars(c).get("__annotations__", ())]


def _fresh(default: Any) -> Any:
    """Return ``default`` for a new record: lists, dicts and records copied."""
    if isinstance(default, Record):
        return type(default)()
    return type(default)(default) if isinstance(default, list | dict) else default


class AgentConfig(Record):
    """Who the agent is: the names it answers to besides ``@agent``."""

    name: str | None = None
    sub_agents: list[str] = []
    approve_keyword: str = "APPROVED"
    reject_keyword: str = "REJECTED"


class SensorGateConfig(Record):
    """The sensor gate's switches and limits (seed 000)."""

    enabled: bool = True
    min_confidence: float = 0.5
    max_personas: int = 5
    rate_limit_spawns: int = 5
    rate_limit_window_s: int = 300


BACKENDS = ("rules", "openai")  # the values neuro.backend may take


class NeuroConfig(Record):
    """The model backend; ``rules`` is offline and deterministic."""

    backend: str = "rules"
    endpoint: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    timeout_s: float = 60.0
    max_retries: int = 2
    budget_tokens: int | None = None
    temperature: float = 0.2
    run_timeout_s: float | None = None  # model time a whole run may spend; None: no cap


class LimitsConfig(Record):
    """How much one result may add to a note (text from skills and models is untrusted)."""

    result_bytes: int = 32 * 1024  # a result's body, then a "… (truncated)" line
    echo_chars: int = 200  # a title or property value that repeats a request's words
    instruction_chars: int = 20_000  # longer requests get a clarification, not a route


class PrivacyConfig(Record):
    """Tags whose subtrees never leave the machine (inherited)."""

    tags: list[str] = ["@personal"]


class ScanConfig(Record):
    """Which files under a notes root are notes."""

    include: list[str] = ["*.org"]
    exclude: list[str] = []


class TangleConfig(Record):
    """Where tangled files may be written besides the notes root."""

    allow: list[str] = []


class RefineConfig(Record):
    """The refinement gate (seed 002)."""

    mode: str = "report"  # report | propose | auto_apply
    golden: str | None = None  # a directory of cases; None = the package's own set
    files: list[str] = []  # the write allowlist
    tolerance: float = 0.0
    auto_apply_max_edits: int = 1
    budget_tokens: int | None = None


class RulesConfig(Record):
    """The user's routing rules: a directory whose tables override the package's."""

    dir: str | None = None  # relative to the config file; None = the package's tables only


class SkillsConfig(Record):
    """Directories of opt-in user skills (never the notes being routed)."""

    paths: list[str] = []


class StateConfig(Record):
    """Where the SQLite state database lives (None = XDG state dir, keyed by root)."""

    path: str | None = None


class Config(Record):
    """The whole effective configuration."""

    agent: AgentConfig = AgentConfig()
    sensor_gate: SensorGateConfig = SensorGateConfig()
    neuro: NeuroConfig = NeuroConfig()
    agents: dict[str, NeuroConfig] = {}  # [agents.NAME.neuro]
    privacy: PrivacyConfig = PrivacyConfig()
    scan: ScanConfig = ScanConfig()
    tangle: TangleConfig = TangleConfig()
    refine: RefineConfig = RefineConfig()
    rules: RulesConfig = RulesConfig()
    skills: SkillsConfig = SkillsConfig()
    state: StateConfig = StateConfig()
    limits: LimitsConfig = LimitsConfig()

    def neuro_for(self, agent: str | None) -> NeuroConfig:
        """Return the model settings for ``agent`` (its override, else the default)."""
        if agent is not None and agent.lower() in self.agents:
            return self.agents[agent.lower()]
        return self.neuro
