"""What the vector store conformance suites share: vectors, memories, and the per-test store harness.

:mod:`flowmem.testing.conformance` (the suite every store passes) is built on it; so are its parts
in other modules (:mod:`flowmem.testing.conformance_erase`).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import numpy as np

from flowmem.schema.memory import Memory
from flowmem.vector_store.base import VectorStore

DIMS = 16


def unit(seed: int, dims: int = DIMS) -> np.ndarray:
    """A reproducible random unit vector."""
    vector = np.random.default_rng(seed).standard_normal(dims).astype(np.float32)
    normalised: np.ndarray = vector / np.linalg.norm(vector)
    return normalised


def memory(workspace: str, memory_id: str, seed: int, **fields: object) -> Memory:
    values: dict[str, object] = {"content": f"memory {memory_id}", **fields}
    return Memory(workspace_id=workspace, memory_id=memory_id, vector=unit(seed), **values)


class StoreHarness:
    """Opens a store per test (subclasses implement :meth:`open_store`) in a fresh event loop."""

    async def open_store(self) -> VectorStore:
        raise NotImplementedError

    def run_case(self, case: Callable[[VectorStore], Awaitable[None]]) -> None:
        async def main() -> None:
            store = await self.open_store()
            try:
                await case(store)
            finally:
                await store.aclose()

        asyncio.run(main())

    @staticmethod
    def workspace() -> str:
        return f"ws-{uuid.uuid4().hex[:12]}"
