"""The memory service's contract on the embedded stores (Elasticsearch: tests/integration)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowmem.testing.memory_service import MemoryServiceContract


class TestOnTheMemoryStore(MemoryServiceContract):
    def store_overrides(self) -> list[str]:
        return ["vector_store.default.backend=memory"]


class TestOnTheLocalStore(MemoryServiceContract):
    @pytest.fixture(autouse=True)
    def _directory(self, tmp_path: Path) -> None:
        self.directory = tmp_path / "store"

    def store_overrides(self) -> list[str]:
        return ["vector_store.default.backend=local", f"vector_store.default.params.directory={self.directory}"]
