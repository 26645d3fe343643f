"""``orgrouter parse``: print Org files' AST (JSON or Lisp) or their headlines."""

from __future__ import annotations

import json
import sys

import click

from orgrouter.commands.options import ExistingPath, verbosity
from orgrouter.errors import EXIT_FAILED, EXIT_OK, OrgRouterError


@click.command()
@click.argument("files", nargs=-1, required=True, type=ExistingPath(allow_dash=True))
@click.option(
    "--json", "mode", flag_value="json", default=True, help="Print each file's AST as JSON."
)
@click.option("--sexp", "mode", flag_value="sexp", help="Print each file's AST as a Lisp plist.")
@click.option(
    "--headlines",
    "mode",
    flag_value="headlines",
    help="Print one JSON object per headline (the Emacs oracle's format).",
)
@verbosity
def parse(files: tuple[str, ...], mode: str) -> int:
    """Parse Org FILES and print their AST (--json, --sexp) or headlines (--headlines).

    FILE "-" reads standard input (from Emacs: shell-command-on-region). A file that
    cannot be read is reported on stderr with its name and line; the other files are
    still printed, and the exit status is then 3.
    """
    from orgrouter.org.document import Document, headline_records

    failed = False
    for name in files:
        # --headlines reads files as the reference oracle does (utf-8-unix: a CR
        # stays text); the AST follows the file's line ends as Emacs visiting it.
        newline = b"\n" if mode == "headlines" else None
        try:
            if name == "-":
                data = sys.stdin.buffer.read()
                document = Document.from_input(data, "<stdin>", newline=newline)
            else:
                document = Document.from_file(name, newline=newline)
            if mode == "headlines":
                records = headline_records(document, name)
                lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in records]
            else:
                from orgrouter.org.ast import to_json, to_sexp

                tree = document.ast()
                lines = [to_json(tree) if mode == "json" else to_sexp(tree)]
        except OrgRouterError as error:
            failed = True
            click.echo(f"orgrouter: error: {error}", err=True)
            continue
        if lines:
            click.echo("\n".join(lines))
    return EXIT_FAILED if failed else EXIT_OK
