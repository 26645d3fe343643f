"""The configuration schema: every section, key, type and default.

Loading (file discovery, ``ORGROUTER_*`` variables, CLI overrides, validation with
suggestions, provenance) lives in ``orgrouter.configload``; this module is only the
shape, so that every other module can depend on it cheaply.
"""

from __future__ import annotations

from orgrouter.records import field, record


@record
class AgentConfig:
    """Who the agent is: the names it answers to besides ``@agent``."""

    name: str | None = None
    sub_agents: list[str] = field(default_factory=list)
    approve_keyword: str = "APPROVED"
    reject_keyword: str = "REJECTED"


@record
class SensorGateConfig:
    """The sensor gate's switches and limits (seed 000)."""

    enabled: bool = True
    min_confidence: float = 0.5
    max_personas: int = 5
    rate_limit_spawns: int = 5
    rate_limit_window_s: int = 300


BACKENDS = ("rules", "openai")  # the values neuro.backend may take


@record
class NeuroConfig:
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


@record
class LimitsConfig:
    """How much one result may add to a note (text from skills and models is untrusted)."""

    result_bytes: int = 32 * 1024  # a result's body, then a "… (truncated)" line
    echo_chars: int = 200  # a title or property value that repeats a request's words
    instruction_chars: int = 20_000  # longer requests get a clarification, not a route


@record
class PrivacyConfig:
    """Tags whose subtrees never leave the machine (inherited)."""

    tags: list[str] = field(default_factory=lambda: ["@personal"])


@record
class ScanConfig:
    """Which files under a notes root are notes."""

    include: list[str] = field(default_factory=lambda: ["*.org"])
    exclude: list[str] = field(default_factory=list)


@record
class TangleConfig:
    """Where tangled files may be written besides the notes root."""

    allow: list[str] = field(default_factory=list)


@record
class RefineConfig:
    """The refinement gate (seed 002)."""

    mode: str = "report"  # report | propose | auto_apply
    golden: str | None = None  # a directory of cases; None = the package's own set
    files: list[str] = field(default_factory=list)  # the write allowlist
    tolerance: float = 0.0
    auto_apply_max_edits: int = 1
    budget_tokens: int | None = None


@record
class RulesConfig:
    """The user's routing rules: a directory whose tables override the package's."""

    dir: str | None = None  # relative to the config file; None = the package's tables only


@record
class SkillsConfig:
    """Directories of opt-in user skills (never the notes being routed)."""

    paths: list[str] = field(default_factory=list)


@record
class StateConfig:
    """Where the SQLite state database lives (None = XDG state dir, keyed by root)."""

    path: str | None = None


@record
class Config:
    """The whole effective configuration."""

    agent: AgentConfig = field(default_factory=AgentConfig)
    sensor_gate: SensorGateConfig = field(default_factory=SensorGateConfig)
    neuro: NeuroConfig = field(default_factory=NeuroConfig)
    agents: dict[str, NeuroConfig] = field(default_factory=dict)  # [agents.NAME.neuro]
    privacy: PrivacyConfig = field(default_factory=PrivacyConfig)
    scan: ScanConfig = field(default_factory=ScanConfig)
    tangle: TangleConfig = field(default_factory=TangleConfig)
    refine: RefineConfig = field(default_factory=RefineConfig)
    rules: RulesConfig = field(default_factory=RulesConfig)
    skills: SkillsConfig = field(default_factory=SkillsConfig)
    state: StateConfig = field(default_factory=StateConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)

    def neuro_for(self, agent: str | None) -> NeuroConfig:
        """Return the model settings for ``agent`` (its override, else the default)."""
        if agent is not None and agent.lower() in self.agents:
            return self.agents[agent.lower()]
        return self.neuro
