"""The baseline for bench/serve.py: a JSON-RPC echo server with orgrouter serve's framing.

It reads each call, parses its JSON, and answers ``{"text": params.text}``: the least a
server can do with the same message on the same pipes (framing, JSON both ways).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orgrouter.serve.framing import read_message, write_message


def main() -> int:
    reader, writer = sys.stdin.buffer, sys.stdout.buffer
    while (body := read_message(reader)) is not None:
        call = json.loads(body)
        reply = {"jsonrpc": "2.0", "id": call["id"], "result": {"text": call["params"]["text"]}}
        write_message(writer, json.dumps(reply, ensure_ascii=False).encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
