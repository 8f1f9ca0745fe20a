"""The memory service's contract (every verb of ``app.memories``) on a real Elasticsearch node."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from flowmem.testing.memory_service import MemoryServiceContract
from tests.integration.conftest import delete_store_indices

pytestmark = pytest.mark.elasticsearch


@pytest.fixture(scope="module")
def service_index(es_url: str) -> Iterator[str]:
    name = f"flowmem-test-service-{uuid.uuid4().hex[:10]}"
    yield name
    delete_store_indices(es_url, name)


class TestOnElasticsearch(MemoryServiceContract):
    @pytest.fixture(autouse=True)
    def _node(self, es_url: str, service_index: str) -> None:
        self.es_url, self.index = es_url, service_index

    def store_overrides(self) -> list[str]:
        return [
            "vector_store.default.backend=elasticsearch",
            f"vector_store.default.params.hosts={self.es_url}",
            f"vector_store.default.params.index={self.index}",
        ]
