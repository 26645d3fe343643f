"""How a routed skill writes a file besides its note: the run's write policy and record.

Every skill with such a write (tangle; archive and refile) follows the same steps::

    policy = policy_for(ctx, note)             # root, own files, what orgrouter wrote
    verdict = policy.check(note, target)       # Allowed | NeedsApproval | Forbidden
    ...                                        # Forbidden: refuse; NeedsApproval: ask
    before_write(ctx)                          # orgrouter.skills.base: the run lock
    ...                                        # write through io.transaction
    record_for(ctx).remember(str(real), data, str(note))   # now it is ours

NeedsApproval is asked with ``orgrouter.route.binding.require_approval`` and an
``Effect`` naming each target and its bytes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orgrouter.babel.record import TargetRecord
    from orgrouter.io.policy import WritePolicy
    from orgrouter.skills.base import Context


def record_for(ctx: Context) -> TargetRecord | None:
    """Return the record of files orgrouter wrote besides notes, if the run has state."""
    from orgrouter.babel.record import TargetRecord

    return TargetRecord(ctx.state) if ctx.state is not None else None


def policy_for(
    ctx: Context, note: Path, *, allow: Sequence[Path] = (), record: TargetRecord | None = None
) -> WritePolicy:
    """Return the write policy of a request in ``note`` (``allow``: extra directories)."""
    from orgrouter.io.policy import WritePolicy, protected_paths

    root = ctx.notes_root or note.parent
    state = getattr(ctx.state, "path", None) if ctx.state is not None else None
    config = ctx.config
    # User skills and routing tables are code and rules orgrouter loads: never targets.
    own = [config.state.path, state, config.rules.dir, config.refine.golden, *config.skills.paths]
    protected = protected_paths(os.environ, own)
    return WritePolicy(root, tuple(allow), protected, record or record_for(ctx))
