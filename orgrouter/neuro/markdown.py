"""Convert a model's Markdown to Org that cannot break the note's structure.

Models answer in Markdown; pasted into Org, a ``* item`` line becomes a headline and
a ``#+TITLE:`` line changes the file's settings (the complaints about gptel and
org-ai). Here headings become bold lines, ``*``/``+`` bullets become ``-`` items,
fences become ``#+begin_src`` blocks with their contents escaped as Org escapes
them, emphasis, code and links take Org's syntax, and any line left that Org would
read as structure gets the comma Org itself uses. Tables are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from orgrouter.org.escape import (
    defuse_settings,
    escape_code,
    escape_line,
    is_structural,
    strip_controls,
)

_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$")
_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^[ \t]{0,3}=+[ \t]*$")
_RULE = re.compile(r"^[ \t]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_BULLET = re.compile(r"^([ \t]*)[*+-][ \t]+(?:\[([ xX])\][ \t]+)?(.*)$")
_ORDERED = re.compile(r"^([ \t]*)(\d{1,9})[.)][ \t]+(.*)$")
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?(.*)$")
_TABLE = re.compile(r"^[ \t]*\|")

_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(([^)\s]+)(?:[ \t]+\"[^\"\n]*\")?\)")
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)(?:[ \t]+\"[^\"\n]*\")?\)")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]+)>")
_ITALIC_STAR = re.compile(r"(?<![\w*\\])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])")
_ITALIC_UNDER = re.compile(r"(?<![\w\\])_(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?!\w)")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_SLOT = re.compile("\x00(\\d+)\x00")

LANGUAGES = {
    "py": "python",
    "python3": "python",
    "bash": "sh",
    "shell": "sh",
    "zsh": "sh",
    "console": "sh",
    "elisp": "emacs-lisp",
    "el": "emacs-lisp",
    "js": "js",
    "javascript": "js",
    "ts": "typescript",
    "yml": "yaml",
    "c++": "C++",
    "cpp": "C++",
    "c": "C",
}


def markdown_to_org(markdown: str) -> str:
    """Return ``markdown`` as Org body text that can never create or break structure."""
    out: list[str] = []
    text = strip_controls(markdown.replace("\x00", ""))
    lines = text.strip("\n").split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence:
            index = _code_block(lines, index, fence, out)
            continue
        if _QUOTE.match(line):
            index = _quote_block(lines, index, out)
            continue
        out.append(convert_line(line, out[-1] if out else ""))
        if out[-1] == "\x00setext":
            out.pop()
            out[-1] = _bold(out[-1])
        index += 1
    return defuse_settings("\n".join(out).strip("\n"))


def _code_block(lines: list[str], index: int, fence: re.Match[str], out: list[str]) -> int:
    """Append the fenced block starting at ``index``; return the index after it."""
    indent, marker, lang = fence.group(1), fence.group(2), fence.group(3).lower()
    closing = re.compile(rf"^[ \t]*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
    body: list[str] = []
    index += 1
    while index < len(lines) and not closing.match(lines[index]):
        text = lines[index]
        body.append(text[len(indent) :] if text.startswith(indent) else text.lstrip())
        index += 1
    kind = "src" if lang else "example"
    head = f"#+begin_src {LANGUAGES.get(lang, lang)}" if lang else "#+begin_example"
    out.append(indent + head)
    out.extend(indent + escape_code(text) if text else "" for text in body)
    out.append(f"{indent}#+end_{kind}")
    return index + 1  # past the closing fence (or the end: an unclosed fence is closed)


def _quote_block(lines: list[str], index: int, out: list[str]) -> int:
    """Append the block quote starting at ``index``; return the index after it."""
    out.append("#+begin_quote")
    while index < len(lines):
        quoted = _QUOTE.match(lines[index])
        if quoted is None:
            break
        out.append(convert_line(quoted.group(1), out[-1]))
        index += 1
    if out[-1] == "\x00setext":
        out[-1] = ""
    out.append("#+end_quote")
    return index


def convert_line(line: str, previous: str) -> str:
    """Return one Markdown line (outside fences and quotes) as a safe Org line."""
    if _TABLE.match(line):
        return line
    heading = _HEADING.match(line)
    if heading:
        return _bold(inline(heading.group(2)))
    if _SETEXT.match(line) and previous.strip() and not is_structural(previous):
        return "\x00setext"  # the caller turns the previous line into a heading
    if _RULE.match(line):
        return "-----"
    bullet = _BULLET.match(line)
    if bullet:
        box = bullet.group(2)
        check = "" if box is None else ("[X] " if box in "xX" else "[ ] ")
        return f"{bullet.group(1)}- {check}{inline(bullet.group(3))}".rstrip()
    ordered = _ORDERED.match(line)
    if ordered:
        return f"{ordered.group(1)}{ordered.group(2)}. {inline(ordered.group(3))}"
    return escape_line(inline(line))


def _bold(text: str) -> str:
    """Return a heading's text as a bold line (never a headline)."""
    plain = text.replace("*", "").strip()
    return f"*{plain}*" if plain else ""


def inline(text: str) -> str:
    """Return Markdown inline markup (code, links, emphasis) as Org markup."""
    slots: list[str] = []

    def keep(replace: Callable[[re.Match[str]], str]) -> Callable[[re.Match[str]], str]:
        def hold(match: re.Match[str]) -> str:
            slots.append(replace(match))
            return f"\x00{len(slots) - 1}\x00"

        return hold

    text = _CODE_SPAN.sub(keep(lambda m: _code(m.group(2))), text)
    text = _IMAGE.sub(keep(lambda m: f"[[{m.group(2)}]]"), text)
    text = _LINK.sub(keep(lambda m: f"[[{m.group(2)}][{m.group(1)}]]"), text)
    text = _AUTOLINK.sub(keep(lambda m: f"[[{m.group(1)}]]"), text)
    text = _ITALIC_STAR.sub(r"/\1/", text)
    text = _ITALIC_UNDER.sub(r"/\1/", text)
    text = _BOLD.sub(r"*\2*", text)
    text = _STRIKE.sub(r"+\1+", text)
    while _SLOT.search(text):  # a link's text may itself hold a code span
        text = _SLOT.sub(lambda m: slots[int(m.group(1))], text)
    return text


def _code(code: str) -> str:
    """Return inline code in Org's ``~code~`` (or ``=code=``) markup when it can hold it."""
    stripped = code.strip() if code.strip() else code
    if stripped != stripped.strip():
        return stripped
    for marker in "~=":
        if marker not in stripped:
            return f"{marker}{stripped}{marker}"
    return stripped
