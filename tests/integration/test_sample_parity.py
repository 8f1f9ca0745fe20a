"""The same answers on the local store and on Elasticsearch: every shipped sample question, the default flow.

personal_retrieve recalls by vector and by words (BM25) on both; the stores compute both themselves
(the local store in process, Elasticsearch with kNN and ``match``), so this is where a difference in
tokenising, scoring or filtering would show.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from flowmem import App
from flowmem.eval.questions import load, shipped_questions_path
from flowmem.eval.samples import DEMO_NOW, load_memories
from tests.integration.conftest import delete_store_indices

pytestmark = pytest.mark.elasticsearch


@pytest.fixture
def index(es_url: str) -> Iterator[str]:
    name = f"flowmem-test-parity-{uuid.uuid4().hex[:10]}"
    yield name
    delete_store_indices(es_url, name)


async def _answers(overrides: list[str]) -> dict[str, list[str]]:
    questions = load(shipped_questions_path())
    found: dict[str, list[str]] = {}
    async with App(overrides=overrides) as app:
        await app.memories.import_(load_memories(), workspace_id="demo", reason="parity test")
        for question in questions:
            asked = question.asked_at or DEMO_NOW
            response = await app.run("personal_retrieve", query=question.question, user_id=question.user,
                                     workspace_id="demo", timestamp=asked, top_k=10)  # fmt: skip
            found[question.id] = [m.memory_id for m in response.memories]
    return found


def test_every_sample_question_gets_the_same_memories_in_the_same_order(
    es_url: str, index: str, tmp_path: Path
) -> None:
    local = asyncio.run(_answers([f"vector_store.default.params.directory={tmp_path / 'store'}"]))
    on_es = asyncio.run(_answers([
        "vector_store.default.backend=elasticsearch", f"vector_store.default.params.hosts={es_url}",
        f"vector_store.default.params.index={index}",
    ]))  # fmt: skip
    assert len(local) >= 40 and all(local.values())
    differing = {q: (local[q], on_es[q]) for q in local if local[q] != on_es[q]}
    assert not differing, differing
