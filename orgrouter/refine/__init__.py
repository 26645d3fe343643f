"""Refinement: change the routing rules only through a golden-set gate (seed 002).

The public API, as the ``refine`` command uses it:

- ``workspace.open_workspace(start, ...)``: config, rules tree, golden dir, state, log;
- ``run.run_refinement(ws, full=False) -> RunResult``;
- ``propose.propose_candidates(ws, run_id) -> list[Candidate]``;
- ``gate.gate_run(ws, run_id, candidates, tolerance=None) -> GateResult``;
- ``apply.approve_run`` / ``apply.reject_run`` / ``apply.rollback``.
"""
