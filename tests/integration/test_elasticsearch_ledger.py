"""The message ledger on Elasticsearch is per (workspace, user, message id), and a ledger from before is migrated."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from flowmem import App
from flowmem.schema.history import HistoryEvent
from flowmem.testing.conformance import memory
from flowmem.vector_store.elasticsearch import query as es_query
from flowmem.vector_store.elasticsearch.store import ElasticsearchStore
from tests.integration.conftest import delete_store_indices
from tests.unit.ops.test_shared_workspace import ALICE, BOB, by_user, facts, ingest, memories_of, write_chat

pytestmark = pytest.mark.elasticsearch


@pytest.fixture
def index(es_url: str) -> Iterator[str]:
    name = f"flowmem-test-ledger-{uuid.uuid4().hex[:10]}"
    yield name
    delete_store_indices(es_url, name)


def on_es(es_url: str, index: str) -> list[str]:
    return ["vector_store.default.backend=elasticsearch", f"vector_store.default.params.hosts={es_url}",
            f"vector_store.default.params.index={index}"]  # fmt: skip


def test_cli_ingest_of_two_users_with_the_same_message_ids_keeps_both(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, es_url: str, index: str
) -> None:
    es = on_es(es_url, index)
    a, b = write_chat(tmp_path / "a.jsonl", "alice", ALICE), write_chat(tmp_path / "b.jsonl", "bob", BOB)
    assert "messages 2" in ingest(capsys, a, "alice", *es)
    assert ingest(capsys, b, "bob", *es) == f"add {len(facts(BOB))}, messages 1, messages already memorized 0"
    with App(overrides=es) as app:
        stored = by_user(memories_of(app, "shared"))
    assert stored == {"alice": facts(ALICE), "bob": facts(BOB)}
    assert ingest(capsys, a, "alice", *es) == "messages already memorized 2"  # re-running either adds nothing
    assert ingest(capsys, b, "bob", *es) == "messages already memorized 1"
    with App(overrides=es) as app:
        assert by_user(memories_of(app, "shared")) == stored


def test_a_ledger_from_before_users_is_migrated_on_first_use(es_url: str, index: str) -> None:
    ws = "shared"
    ledger = index + es_query.MESSAGES_SUFFIX

    async def main() -> None:
        store = ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index))
        client = store._new_client()
        try:
            alice = memory(ws, "a1", 1, target="alice", source=["m1", "m5"])
            bob = memory(ws, "b5", 2, target="bob", source=["m5"])
            carol = memory(ws, "c1", 3, target="carol", source=["c1"])
            await store.write(ws, [alice, bob, carol], history=[HistoryEvent.of("add", new=m) for m in (alice, bob)])
            await store.delete(ws, ["c1"])
            await store.record_history(ws, [HistoryEvent.of("delete", old=carol)])
            # The ledger as an older flowmem wrote it: no user_id field, ids from (workspace, message id).
            old_fields = {k: v for k, v in es_query.messages_properties().items() if k != "user_id"}
            await client.indices.create(index=ledger, mappings={"dynamic": "strict", "properties": old_fields})
            for message_id in ("m1", "m5", "c1", "orphan"):
                source = {"workspace_id": ws, "message_id": message_id, "memorized_at": "2024-05-01T00:00:00"}
                await client.create(index=ledger, id=es_query.doc_id(ws, message_id), document=source)
            await client.indices.refresh(index=ledger)

            reopened = ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index))
            try:
                assert await reopened.memorized(ws, "alice", ["m1", "m5", "orphan"]) == {"m1", "m5"}
                assert await reopened.memorized(ws, "bob", ["m1", "m5"]) == {"m5"}
                assert await reopened.memorized(ws, "carol", ["c1"]) == {"c1"}  # a deleted memory's message
                assert await reopened.memorized(ws, "dave", ["m1", "orphan"]) == set()
                await reopened.write(ws, user_id="dave", memorized=["m1"])  # new users get entries of their own
                assert await reopened.memorized(ws, "dave", ["m1"]) == {"m1"}
            finally:
                await reopened.aclose()
            await client.indices.refresh(index=ledger)
            mapping = (await client.indices.get_mapping(index=ledger))[ledger]["mappings"]["properties"]
            assert mapping["user_id"]["type"] == "keyword"
            legacy = await client.count(index=ledger, query=es_query.legacy_ledger_query())
            assert legacy["count"] == 0  # migrated or dropped (the orphan), none left behind
            hits = (await client.search(index=ledger, size=100))["hits"]["hits"]
            assert sorted((h["_source"]["user_id"], h["_source"]["message_id"]) for h in hits) == [
                ("alice", "m1"), ("alice", "m5"), ("bob", "m5"), ("carol", "c1"), ("dave", "m1"),
            ]  # fmt: skip
            assert {h["_source"]["memorized_at"] for h in hits if h["_source"]["user_id"] != "dave"} == {
                "2024-05-01T00:00:00"
            }
        finally:
            await client.close()
            await store.aclose()

    asyncio.run(main())
