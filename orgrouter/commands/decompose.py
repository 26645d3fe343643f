"""``orgrouter decompose TEXT``: split an instruction into atomic intents."""

from __future__ import annotations

import json

import click

from orgrouter.commands.classify import RULES, configured, read_text
from orgrouter.commands.options import CONFIG, verbosity


@click.command()
@click.argument("text", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the default).")
@click.option("--sexp", "as_sexp", is_flag=True,
              help="Print the Lisp plist the seed's verify-skill-router consumes.")
@click.option("--item", "items", multiple=True,
              help="A body list item (repeatable), instead of TEXT.")
@RULES
@CONFIG
@verbosity
def decompose(
    text: str | None,
    as_json: bool,
    as_sexp: bool,
    items: tuple[str, ...],
    rules_dir: str | None,
    config_file: str | None,
) -> None:
    """Split TEXT (or stdin when TEXT is -) into ordered atomic intents."""
    from orgrouter.errors import UsageError
    from orgrouter.route.decompose import decompose as split
    from orgrouter.route.decompose import decompose_items

    if as_json and as_sexp:
        raise UsageError("--json and --sexp are exclusive: choose one output")
    if (text is None) == (not items):
        raise UsageError("give either TEXT (- for stdin) or one or more --item")
    _config, rules, selves = configured(config_file, rules_dir)
    if items:
        result = decompose_items(list(items), rules, selves=selves)
    else:
        result = split(read_text(text or ""), rules, selves=selves)
    if as_sexp:
        click.echo(result.to_sexp())
    else:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
