"""Plan what tangling one Org file writes: targets, their bytes and modes.

Follows org-babel-tangle (Org 9.5.5) block by block; nothing is written here and no
Lisp is evaluated. A block Org would only tangle by evaluating Lisp or running code
is reported in ``FilePlan.skipped`` and left out.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from orgrouter.babel import body as bodies
from orgrouter.babel.comments import (
    block_link,
    comment_lines,
    comment_syntax,
    org_text_before,
    source_name,
)
from orgrouter.babel.document import Document
from orgrouter.babel.headers import Params, is_lisp_value, parse_mode
from orgrouter.babel.noweb import NowebContext, NowebRefused, expand, expands_when_tangling
from orgrouter.org.blocks import SrcBlock, parse_header_args, read_value
from orgrouter.sexp import dumps as lisp_dumps

# org-babel-tangle-lang-exts once each language's ob-LANG.el is loaded (Org 9.5.5), as
# in a user's Emacs, plus "shell" -> "sh" (TANGLE.md). Under `emacs -Q' only the Lisp
# entries exist and a `:tangle yes' python block goes to NAME.python; no corpus file in
# the conformance manifest depends on that. Other languages use their own name.
LANG_EXTS: dict[str, str] = {
    "emacs-lisp": "el", "elisp": "el", "C++": "cpp", "D": "d", "LilyPond": "ly",
    "awk": "awk", "clojure": "clj", "clojurescript": "cljs", "fortran": "F90",
    "groovy": "groovy", "haskell": "hs", "java": "java", "julia": "jl", "latex": "tex",
    "lisp": "lisp", "lua": "lua", "maxima": "max", "ocaml": "ml", "perl": "pl",
    "processing": "pde", "python": "py", "ruby": "rb", "sed": "sed", "shell": "sh",
}  # fmt: skip
LINK_COMMENTS = frozenset({"both", "link", "yes", "noweb"})
_NUMBER_RE = re.compile(r"^[ \t]*[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?[ \t]*$")
_END_SRC_RE = re.compile(r"#\+end_src", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A block left out, and why (``elisp-form``, ``code-execution``, ...)."""

    line: int
    reason: str
    detail: str


@dataclass
class BlockSpec:
    """One block's contribution to a target."""

    block: SrcBlock
    params: Params
    text: str  # the processed body, without its final newline
    link: str | None
    name: str
    org_comment: str | None


@dataclass
class TargetPlan:
    """One file to write: where, what, and with which mode."""

    name: str  # the target as Babel names it (relative to the Org file's directory)
    path: Path  # normalised absolute path (symlinks not resolved)
    content: bytes = b""
    mode: int | None = None  # an explicit mode (:shebang, :tangle-mode); None = default
    mkdirp: bool = False
    blocks: list[BlockSpec] = field(default_factory=list)


@dataclass
class FilePlan:
    """Everything tangling one Org file would write, and what it left out."""

    source: Path
    targets: list[TargetPlan]
    skipped: list[Skipped]
    warnings: list[Skipped] = field(default_factory=list)  # tangled, but not as Org 9.5 would


def effective_filename(source: Path, language: str, tangle: str | None) -> str | None:
    """Return the target a ``:tangle`` value names (org-babel-effective-tangled-filename)."""
    if tangle is None or tangle == "no" or tangle == "":
        return None
    if tangle == "yes":
        return f"{source.stem}.{LANG_EXTS.get(language, language)}"
    return tangle


def _var_problem(ctx: NowebContext, block: SrcBlock, params: Params) -> Skipped | None:
    """Return why a block's ``:var`` needs Org to evaluate something, if it does."""
    for assignment in params.vars:
        _, _, value = assignment.partition("=")
        value = value.strip()
        if _NUMBER_RE.match(value) or (value.startswith('"') and value.endswith('"')):
            continue
        if _var_is_lisp(assignment):
            return Skipped(block.line, "elisp-form", f":var {assignment}")
        ref = value.split("[", 1)[0]
        if "(" in value or ctx.named(ref) is not None:
            return Skipped(block.line, "code-execution", f":var {assignment} runs a block")
        if block.language == "emacs-lisp":
            return Skipped(block.line, "var-reference", f":var {assignment} is not supported")
    return None


def lisp_forms(doc: Document) -> list[Skipped]:
    """Return every header value in the file's blocks that Org would evaluate as Lisp.

    Org evaluates these only for blocks it tangles (those are skipped and reported in
    ``FilePlan.skipped``); the others are listed so a user sees nothing ran.
    """
    found: list[Skipped] = []
    for block in doc.blocks:
        lines = [(block.line, block.parameters or "")]
        first_header_line = block.line - len(block.headers)
        lines += [(first_header_line + i, h) for i, h in enumerate(block.headers)]
        for line, text in sorted(lines):
            for key, value in parse_header_args(text):
                if value is not None and (
                    is_lisp_value(value) or (key == ":var" and _var_is_lisp(value))
                ):
                    found.append(Skipped(line, "elisp-form", f"{key} {value}"))
    return found


def _var_is_lisp(value: str) -> bool:
    """Return True when a ``:var`` assignment's value is a Lisp form."""
    _, _, assigned = value.partition("=")
    return assigned.strip().startswith(("(", "'", "`", "["))


def _elisp_value(raw: str) -> str:
    """Print a literal :var value the way Emacs prints it inside a quoted form."""
    if _NUMBER_RE.match(raw):
        return raw.strip()
    return lisp_dumps(read_value(raw))


def _expand_body(block: SrcBlock, params: Params, body: str) -> str:
    """Expand a body for its language (org-babel-expand-body:LANG, as in emacs -Q)."""
    if ":no-expand" in params.values:
        return body
    if block.language == "emacs-lisp":
        if not params.vars:
            return body + "\n"
        pairs = (assignment.partition("=") for assignment in params.vars)
        bindings = [f"({name.strip()} '{_elisp_value(value.strip())})" for name, _, value in pairs]
        return "(let ({})\n{}\n)".format("\n      ".join(bindings), body)
    parts = [params.get(":prologue"), body, params.get(":epilogue")]
    return "\n".join(part for part in parts if part is not None)


def plan_document(doc: Document) -> FilePlan:
    """Return what tangling ``doc`` writes (no file is touched)."""
    ctx = NowebContext(doc)
    skipped: list[Skipped] = []
    targets: dict[str, TargetPlan] = {}
    previous_end = 0
    for block in doc.babel_blocks:
        index = doc.heading_index(block.post_affiliated)
        counter = ctx.counter_of(block)
        block_prev_end = previous_end
        end_match = _END_SRC_RE.search(doc.text, block.contents_end)
        previous_end = block.contents_end if end_match is None else end_match.end()
        if doc.in_commented(index) or doc.in_archived(index) or block.language is None:
            continue
        params = ctx.params_of(block)
        if params.values.get(":tangle") == "no":
            continue
        if params.lisp:
            skipped.append(Skipped(block.line, "elisp-form", params.lisp[0]))
            continue
        problem = _var_problem(ctx, block, params)
        if problem is not None:
            skipped.append(problem)
            continue
        name = effective_filename(doc.path, block.language, params.get(":tangle"))
        if name is None:
            continue
        try:
            spec = _block_spec(ctx, block, params, counter, block_prev_end)
        except NowebRefused as refused:
            skipped.append(Skipped(block.line, refused.reason, refused.detail))
            continue
        target = targets.get(name)
        if target is None:
            path = Path(os.path.normpath(doc.path.parent / os.path.expanduser(name)))
            target = targets[name] = TargetPlan(name, path)
        target.blocks.append(spec)
    plans = list(targets.values())
    warnings: list[Skipped] = []
    for target in plans:
        _assemble(target, warnings)
    return FilePlan(doc.path, plans, skipped, warnings)


def _block_spec(
    ctx: NowebContext, block: SrcBlock, params: Params, counter: int, previous_end: int
) -> BlockSpec:
    """Process one block's body and comments (org-babel-tangle-single-block)."""
    text = bodies.normalize_body(block.value)
    if expands_when_tangling(params):
        text = expand(ctx, block, text)
    text = _expand_body(block, params, text)
    if block.switches and "-r" in block.switches:
        text = bodies.remove_coderefs(text, block.switches)
    text = bodies.org_trim(bodies.remove_indentation(text))
    comments = params.get(":comments")
    link = None
    if comments in LINK_COMMENTS:
        link = block_link(ctx.doc, block, params.get(":tangle") or "")
    org_comment = None
    if comments in ("both", "org"):
        org_comment = bodies.remove_indentation(org_text_before(ctx.doc, block, previous_end))
    return BlockSpec(block, params, text, link, source_name(ctx.doc, block, counter), org_comment)


def _assemble(target: TargetPlan, warnings: list[Skipped]) -> None:
    """Fill in ``target``'s bytes and mode from its blocks (org-babel-tangle)."""
    out: list[str] = []
    she_banged = False
    modes: list[int] = []
    for spec in target.blocks:
        params = spec.params
        shebang = params.get(":shebang") or None
        mode_value = params.get(":tangle-mode")
        mode = None
        if mode_value is not None:
            mode, warning = parse_mode(mode_value)
            if warning:
                warnings.append(Skipped(spec.block.line, "tangle-mode", warning))
        if shebang and mode is None:
            mode = 0o755
        if mode is not None and mode not in modes:
            modes.insert(0, mode)  # add-to-list: the first block's mode is applied last
        if params.get(":mkdirp") not in (None, "no") and os.path.dirname(target.name):
            target.mkdirp = True
        if params.get(":padline") != "no" and out:
            out.append("\n")
        if shebang and not she_banged:
            out.append(shebang + "\n")
            she_banged = True
        syntax = comment_syntax(spec.block.language or "")
        comments = params.get(":comments")
        if spec.org_comment is not None and comments != "no" and spec.org_comment.strip():
            out.append(comment_lines(spec.org_comment, syntax))
        if spec.link is not None:
            out.append(comment_lines(f"[[{spec.link}][{spec.name}]]", syntax))
        out.append(spec.text + "\n")
        if spec.link is not None:
            out.append(comment_lines(f"{spec.name} ends here", syntax))
    target.content = "".join(out).encode("utf-8")
    target.mode = modes[-1] if modes else None
