"""Whom a workspace's memories are about, read from the in-process index (the ``memory`` and ``local`` stores)."""

from __future__ import annotations

import numpy as np

from flowmem.vector_store.index import WorkspaceIndex


def live_targets(index: WorkspaceIndex | None) -> set[str]:
    """The ``target`` of every live row of ``index``: one pass over its target codes, no record read."""
    if index is None or index.n == 0:
        return set()
    live = set(np.unique(index.target[: index.n][index.alive[: index.n]]).tolist())
    # The code table keeps targets whose rows are all gone: only codes of live rows count.
    return {target for target, code in index._target_codes.items() if code in live}
