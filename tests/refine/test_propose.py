"""Proposals: the offline verb proposer, and the model panel against a real HTTP server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from orgrouter.errors import RefusedError
from orgrouter.refine.gate import gate_run
from orgrouter.refine.propose import propose_candidates
from orgrouter.refine.run import run_refinement
from orgrouter.refine.workspace import Workspace


class Model:
    """A chat-completions endpoint on 127.0.0.1 answering with queued reply texts."""

    def __init__(self) -> None:
        self.replies: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self.url = ""


@pytest.fixture
def model() -> Iterator[Model]:
    state = Model()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            state.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            text = state.replies.pop(0) if state.replies else "no reply queued"
            payload = json.dumps(
                {
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


def use_model(ws: Workspace, model: Model) -> None:
    ws.config.neuro.backend = "openai"
    ws.config.neuro.endpoint = model.url
    ws.config.neuro.model = "test-model"
    ws.config.neuro.max_retries = 0


def test_offline_proposer_teaches_the_unknown_verbs(workspace: Workspace) -> None:
    run_id = run_refinement(workspace).run_id
    [candidate] = propose_candidates(workspace, run_id)
    assert candidate.to_json() == {
        "proposer": "offline",
        "rationale": 'teach the decomposer verbs ([skills.summarize]: "precis", "skim")',
        "edits": [
            {
                "file": "verbs.toml",
                "op": "replace",
                "anchor": "[skills.summarize]",
                "before": "verbs = [",
                "after": 'verbs = ["precis", "skim", ',
                "addresses": ["precis", "skim"],
            }
        ],
    }
    result = gate_run(workspace, run_id, [candidate])
    assert result.status == "awaiting_approval"
    assert result.chosen.verdict is not None
    assert result.chosen.verdict.fixed == ("precis", "skim")


def test_nothing_to_propose_is_refused(workspace: Workspace) -> None:
    run_refinement(workspace)
    quiet = run_refinement(workspace).run_id  # no new findings
    with pytest.raises(RefusedError, match=f"nothing to propose for run {quiet}"):
        propose_candidates(workspace, quiet)


def test_report_mode_refuses_before_a_model_is_called(workspace: Workspace, model: Model) -> None:
    use_model(workspace, model)
    workspace.config.refine.mode = "report"
    run_id = run_refinement(workspace).run_id
    with pytest.raises(RefusedError, match="report"):
        propose_candidates(workspace, run_id)
    assert model.bodies == []


def test_model_panel_candidate_is_gated_with_the_offline_one(
    workspace: Workspace, model: Model
) -> None:
    use_model(workspace, model)
    reply = {
        "rationale": "precis means summary",
        "edits": [
            {
                "file": "verbs.toml",
                "op": "replace",
                "anchor": "[skills.summarize]",
                "before": "verbs = [",
                "after": 'verbs = ["precis", ',
                "addresses": ["precis"],
            }
        ],
    }
    model.replies.append("Here you go:\n```json\n" + json.dumps(reply) + "\n```")
    run_id = run_refinement(workspace).run_id
    candidates = propose_candidates(workspace, run_id)
    assert [c.proposer for c in candidates] == ["offline", "model default"]
    assert candidates[1].rationale == "precis means summary"
    [body] = model.bodies
    prompt = body["messages"][1]["content"]
    assert "- skim: 'skim the chapter on parsing'" in prompt
    assert "--- verbs.toml ---" in prompt
    result = gate_run(workspace, run_id, candidates)
    # Both pass; the offline one fixes two cases, the model's one: the best is shown.
    assert (result.status, result.chosen.candidate.proposer, len(result.panel)) == (
        "awaiting_approval",
        "offline",
        2,
    )


def test_model_garbage_and_budget_are_notes_not_crashes(workspace: Workspace, model: Model) -> None:
    use_model(workspace, model)
    model.replies.append("I think you should add more verbs.")
    run_id = run_refinement(workspace).run_id
    assert [c.proposer for c in propose_candidates(workspace, run_id)] == ["offline"]
    workspace.config.refine.budget_tokens = 10  # far below one prompt: no call is made
    calls = len(model.bodies)
    assert [c.proposer for c in propose_candidates(workspace, run_id)] == ["offline"]
    assert len(model.bodies) == calls


def test_the_fallback_skill_is_never_taught_a_verb(workspace: Workspace, tmp_path: Path) -> None:
    golden = tmp_path / "golden"
    golden.mkdir()
    (golden / "cases.toml").write_text(
        '[[case]]\nid = "swallowed"\ntext = "summarize this and blorp"\n'
        'intents = [{ skill = "summarize" }, { skill = "ask", verb = "blorp" }]\n',
        encoding="utf-8",
    )
    workspace.golden_dir = golden
    run_id = run_refinement(workspace).run_id
    assert [f["case"] for f in workspace.store.get(run_id).findings] == ["swallowed"]
    with pytest.raises(RefusedError, match="nothing to propose"):
        propose_candidates(workspace, run_id)
