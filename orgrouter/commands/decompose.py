"""``orgrouter decompose TEXT``: split an instruction into atomic intents."""

from __future__ import annotations

import json
from pathlib import Path

import click

from orgrouter.commands.classify import read_text
from orgrouter.commands.options import CONFIG, verbosity, warn_environment


@click.command()
@click.argument("text", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the default).")
@click.option("--sexp", "as_sexp", is_flag=True,
              help="Print the Lisp plist the seed's verify-skill-router consumes.")
@click.option("--item", "items", multiple=True,
              help="A body list item (repeatable), instead of TEXT.")
@click.option("--rules", "rules_dir", type=click.Path(file_okay=False, exists=True),
              help="Take routing tables from this directory (overrides [rules] dir).")
@CONFIG
@verbosity
def decompose(
    text: str | None,
    as_json: bool,
    as_sexp: bool,
    items: tuple[str, ...],
    rules_dir: str | None,
    config_file: str | None,
    quiet: bool,
    verbose: bool,
) -> None:
    """Split TEXT (or stdin when TEXT is -) into ordered atomic intents."""
    from orgrouter.address import address_names
    from orgrouter.configload import load_config
    from orgrouter.errors import UsageError
    from orgrouter.route.decompose import decompose as split
    from orgrouter.route.decompose import decompose_items
    from orgrouter.route.rules import configured_rules
    from orgrouter.skills.registry import configured_targets

    if as_json and as_sexp:
        raise UsageError("--json and --sexp are exclusive: choose one output")
    if (text is None) == (not items):
        raise UsageError("give either TEXT (- for stdin) or one or more --item")
    loaded = load_config(Path.cwd(), cli_file=config_file)
    config = loaded.config
    warn_environment(config)
    targets = configured_targets(config, base_dir=loaded.directory)
    rules = configured_rules(rules_dir or config.rules.dir, base=Path.cwd(), targets=targets)
    selves = address_names(config.agent.name, ())
    if items:
        result = decompose_items(list(items), rules, selves=selves)
    else:
        result = split(read_text(text or ""), rules, selves=selves)
    if as_sexp:
        click.echo(result.to_sexp())
    else:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
