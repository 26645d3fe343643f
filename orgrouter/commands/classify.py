"""``orgrouter classify TEXT``: run the sensor gate on a request and print its JSON."""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING

import click

from orgrouter.commands.options import CONFIG, verbosity, warn_environment
from orgrouter.errors import UsageError

if TYPE_CHECKING:
    from orgrouter.config import Config
    from orgrouter.configload import LoadedConfig
    from orgrouter.route.rules import Rules


def parse_now(value: str | None) -> float | None:
    """Return an ISO 8601 timestamp (``--now`` / ``ORGROUTER_NOW``) as epoch seconds."""
    if not value:
        return None  # the gate reads the clock itself
    from orgrouter.clock import parse_now as parse_clock

    moment = parse_clock(value)
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def read_text(text: str) -> str:
    """Return ``text``, or standard input when it is ``-``."""
    return sys.stdin.read() if text == "-" else text


RULES = click.option("--rules", "rules_dir", type=click.Path(file_okay=False, exists=True),
                     help="Take routing tables from this directory (overrides [rules] dir).")


def loaded_rules(
    loaded: LoadedConfig, base: Path, rules_dir: str | None = None
) -> tuple[Rules, tuple[str, ...]]:
    """Return the routing tables ``loaded`` names (``rules_dir`` first) and the agent's names."""
    from orgrouter.address import address_names
    from orgrouter.route.rules import configured_rules
    from orgrouter.skills.registry import configured_targets

    config = loaded.config
    targets = configured_targets(config, base_dir=loaded.directory)
    rules = configured_rules(rules_dir or config.rules.dir, base=base, targets=targets)
    return rules, address_names(config.agent.name, ())


def configured(
    config_file: str | None, rules_dir: str | None
) -> tuple[Config, Rules, tuple[str, ...]]:
    """Load the configuration (warning about misspelt variables), its rules and names."""
    from orgrouter.configload import load_config

    loaded = load_config(Path.cwd(), cli_file=config_file)
    warn_environment(loaded)
    return loaded.config, *loaded_rules(loaded, Path.cwd(), rules_dir)


@click.command()
@click.argument("text", required=False)
@click.option("--item", "items", multiple=True,
              help="A body list item (repeatable), instead of TEXT.")
@click.option("--session", default="cli", show_default=True,
              help="The conversation whose spawn window this request counts against.")
@click.option("--origin", type=click.Choice(["user", "result", "delegation"]), default="user",
              show_default=True, help="Who wrote TEXT: a user, orgrouter, or a sub-agent.")
@RULES
@CONFIG
@click.option("--state", "state_path", type=click.Path(dir_okay=False),
              help="The state database holding the spawn windows.")
@click.option("--record", is_flag=True,
              help="Count this request's spawns in the session's window (as a routed "
                   "request would); without it the window is only read.")
@click.option("--no-rate-limit", is_flag=True,
              help="Ignore the session's window: show the spawns the gate wants.")
@click.option("--now", "now_text", help="Fix the clock (ISO 8601); default $ORGROUTER_NOW.")
@verbosity
def classify(
    text: str | None,
    items: tuple[str, ...],
    session: str,
    origin: str,
    rules_dir: str | None,
    config_file: str | None,
    state_path: str | None,
    record: bool,
    no_rate_limit: bool,
    now_text: str | None,
) -> None:
    """Print the sensor gate's JSON for TEXT (or stdin when TEXT is -).

    A request that cannot be classified is REJECTED, never approved; one below
    sensor_gate.min_confidence has "clarify": true and nothing would run. A query
    changes nothing: the spawn window is read, and written only with --record.
    """
    from orgrouter.route.gate import classify as run_gate
    from orgrouter.route.ratelimit import RateLimiter
    from orgrouter.state import StateDB, resolve_state_path

    if (text is None) == (not items):
        raise UsageError("give either TEXT (- for stdin) or one or more --item")
    if record and no_rate_limit:
        raise UsageError("--record counts spawns in the window --no-rate-limit ignores: "
                         "give one of them")  # fmt: skip
    if record and origin != "user":
        raise UsageError(f"--record: a request from --origin {origin} spawns nothing to count")
    request = read_text(text or "")
    config, rules, selves = configured(config_file, rules_dir)
    now = parse_now(now_text or os.environ.get("ORGROUTER_NOW"))
    gate = config.sensor_gate
    if no_rate_limit or origin != "user":
        result = run_gate(request, rules, config=gate, origin=origin,  # type: ignore[arg-type]
                          items=items or None, now=now, selves=selves)
    else:
        path = resolve_state_path(state_path, os.environ, config, Path.cwd())
        # Only --record opens the database for writing (creating it if need be).
        with StateDB.open(path) if record else StateDB.open_readonly(path) as db:
            limiter = RateLimiter(
                db, limit=gate.rate_limit_spawns, window_s=gate.rate_limit_window_s,
                record=record,
            )  # fmt: skip
            result = run_gate(request, rules, config=gate, origin="user", limiter=limiter,
                              items=items or None, session=session, now=now, selves=selves)
    click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
