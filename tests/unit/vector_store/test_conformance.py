"""The conformance suite on the embedded stores (Elasticsearch: tests/integration)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowmem.testing.conformance import VectorStoreConformance
from flowmem.vector_store.base import VectorStore
from flowmem.vector_store.local.store import LocalStore
from flowmem.vector_store.memory import MemoryStore


class TestMemoryStore(VectorStoreConformance):
    async def open_store(self) -> VectorStore:
        return MemoryStore()


class TestLocalStore(VectorStoreConformance):
    @pytest.fixture(autouse=True)
    def _directory(self, tmp_path: Path) -> None:
        self.directory = tmp_path / "store"

    async def open_store(self) -> VectorStore:
        return LocalStore(LocalStore.Params(directory=str(self.directory), synchronous="normal"))
