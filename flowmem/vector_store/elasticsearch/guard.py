"""Forget wins on Elasticsearch: erasure fences and must-exist writes without transactions.

The rules are :mod:`flowmem.vector_store.erasure`'s; here is how this store keeps them.

* **Fences** are documents of the ``<index>-fences`` index, one per (workspace, user) and one per workspace
  (tenant-proof ``_id`` as everywhere), holding a generation: ``forget`` writes a new one (wall-clock ns)
  before it erases anything. They are read with realtime ``mget`` (a ``GET`` sees a write at once, no refresh
  needed). They hold a user id and a number, nothing anybody said, and ``forget`` never erases them.
* **A fenced write** first records an *intent* (a document of ``<index>-intents`` naming its workspace and users),
  then checks its fence (a forget that already began: nothing is written), writes (searchable before it goes on),
  and removes its intent *on the condition that nobody touched it* (``if_seq_no``/``if_primary_term`` of its own
  write). **A forget**, after advancing the fence, makes the intents searchable, takes those of its
  workspace (and user) that exist at that moment, *marks* each (an update: its version moves on), and waits until
  each is gone before it erases: a write whose intent it did not see recorded it after the fence moved, so its
  own first check refuses it. A write whose intent was marked finds its removal refused (409): a forget began
  meanwhile, so it checks its fence again, erases what it wrote — memories, events, ledger entries — and is
  refused. The conditional removal is the second check in the same request: a forget whose mark came after
  it finds the intent gone and erases the write, which was searchable by then. The fence is read again (as it
  always was before the intents were marked) when the removal finds no intent (lost with a node's translog) or
  comes :data:`RECHECK_AFTER` seconds or more after the intent was recorded (a forget that took its writer for
  dead may not have marked it). So no write that started before a forget — in this process or any other — is
  readable once the forget answers. An intent left by a writer that died is waited for at most :func:`lease`
  seconds (then the forget erases whatever that writer wrote). Within one store object the same holds without a
  request (:class:`~flowmem.vector_store.erasure.ErasureGate`).
* **Must-exist memories** are read back with a realtime ``mget`` (their ``_seq_no``/``_primary_term``) and
  written with ``if_seq_no``/``if_primary_term``: a delete landing in between makes the write a 409 and the
  memory stays deleted. A 409 from a concurrent *edit* (the memory still there) is retried with the new
  version, up to :data:`ATTEMPTS` times. They are written before the rest of the batch, so a memory found gone
  stops the write before its history (the ``update`` event holding its text) is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from loguru import logger

from flowmem.core.errors import WriteConflictError
from flowmem.schema.memory import Memory
from flowmem.vector_store.batch import WriteBatch
from flowmem.vector_store.elasticsearch import bulk as es_bulk
from flowmem.vector_store.elasticsearch import query as q
from flowmem.vector_store.erasure import WORKSPACE, Fence, gone

if TYPE_CHECKING:
    from flowmem.vector_store.elasticsearch.store import ElasticsearchStore

FENCES_SUFFIX = "-fences"
INTENTS_SUFFIX = "-intents"
# An intent lives for one write: its index keeps no fsync per request (Elasticsearch's default fsyncs the translog
# on every write, which made each fenced write ~90 ms slower under load). An intent lost to a node crash belongs to
# a write that failed with the node; the forget after the restart erases whatever that write had stored.
INTENT_SETTINGS = {"translog.durability": "async"}
ATTEMPTS = 3  # a must-exist write that keeps meeting concurrent edits gives up after this many tries
# A write that removes its intent this long after recording it reads its fence again first: a forget (of this
# version, or of one from before intents were marked) takes a writer for dead after lease() >= 30 s, and may then
# have erased without marking the intent. Half the least lease: a margin for clocks and for the removal's own trip.
RECHECK_AFTER = 15.0
Version = tuple[int, int]  # (_seq_no, _primary_term)


FENCE, INTENT = "fence", "intent"  # the two kinds of document of the fences index
POLL = 0.05  # seconds between a forget's looks at the intents it waits for


def properties() -> dict[str, Any]:
    """The ``properties`` of the fences index (``dynamic: strict`` like the others): fences (a user, or the
    workspace as ``user_id`` ``""``, and a generation) and write intents (the users a write is about, when it began)."""
    keyword = {"type": "keyword"}
    return {
        "workspace_id": keyword, "user_id": keyword, "kind": keyword, "generation": {"type": "long"},
        "started": {"type": "long"},
    }  # fmt: skip


def lease(store: ElasticsearchStore) -> float:
    """How long a forget waits for a write intent before taking its writer for dead (seconds)."""
    return max(30.0, 3 * store.params.request_timeout)


def fence_doc_id(workspace_id: str, key: str) -> str:
    return q.doc_id(workspace_id, f"fence\x00{key}")


async def generations(store: ElasticsearchStore, workspace_id: str, keys: list[str]) -> dict[str, int]:
    """The stored generations of ``keys`` (realtime); keys never forgotten are left out."""
    side = store._fences
    if not keys:
        return {}
    client = await store._ready()
    ids = {fence_doc_id(workspace_id, key): key for key in keys}
    # One request, on every write: no index yet (nobody was ever forgotten) is the mget's 404, not a lookup first.
    response = await store._call(
        store._with(client, ignore_status=404).mget(index=side.name, ids=list(ids), realtime=True), side.name
    )
    if response.meta.status == 404:
        return {}
    docs = response["docs"]
    return {
        ids[doc["_id"]]: int(doc["_source"]["generation"])
        for doc in docs
        if doc.get("found") and doc["_source"].get("workspace_id") == workspace_id
    }


async def advance(store: ElasticsearchStore, workspace_id: str, user_id: str | None) -> None:
    """A forget of ``user_id`` (the workspace without one) starts: every fence read before it is stale from now."""
    side = store._fences
    await store._has_side(side, create=True)
    client = await store._ready()
    key = WORKSPACE if user_id is None else user_id
    document = {"workspace_id": workspace_id, "user_id": key, "kind": FENCE, "generation": time.time_ns()}
    await store._call(
        client.index(index=side.name, id=fence_doc_id(workspace_id, key), document=document, refresh=False), side.name
    )
    await _outwait(store, workspace_id, user_id)


async def _outwait(store: ElasticsearchStore, workspace_id: str, user_id: str | None) -> None:
    """Wait until every write intent of the workspace (about ``user_id``, if given) recorded so far is gone."""
    side = store._intents
    if not await store._has_side(side, create=False):
        return  # no fenced write has ever run on this store
    client = await store._ready()
    await store._call(client.indices.refresh(index=side.name), side.name)
    clauses: list[dict[str, Any]] = [{"term": {"workspace_id": workspace_id}}, {"term": {"kind": INTENT}}]
    if user_id is not None:
        clauses.append({"term": {"user_id": user_id}})  # (every intent names WORKSPACE too: not that)
    found = await store._call(
        client.search(index=side.name, query={"bool": {"filter": clauses}}, size=10_000, source=False), side.name
    )
    waiting = [hit["_id"] for hit in found["hits"]["hits"]]
    await _mark(store, waiting)
    deadline = time.monotonic() + lease(store)
    while waiting and time.monotonic() < deadline:
        docs = (await store._call(client.mget(index=side.name, ids=waiting, realtime=True), side.name))["docs"]
        waiting = [doc["_id"] for doc in docs if doc.get("found")]
        if waiting:
            await asyncio.sleep(POLL)
    if waiting:
        logger.warning(
            "forget in workspace '{}': {} write intents still there after {:g} s; their writers are taken for dead",
            workspace_id, len(waiting), lease(store),
        )  # fmt: skip


@contextlib.asynccontextmanager
async def fenced(
    store: ElasticsearchStore, fence: Fence | None, undo: Callable[[], Awaitable[None]]
) -> AsyncIterator[None]:
    """A write under ``fence`` (module docstring): its intent recorded, the fence checked before and after,
    ``undo`` run (and the write refused) if a forget began meanwhile, the intent removed at the end."""
    if fence is None:
        yield
        return
    side = store._intents
    await store._has_side(side, create=True)
    client = await store._ready()
    intent = q.doc_id(fence.workspace_id, f"intent\x00{uuid.uuid4().hex}")
    document = {
        "workspace_id": fence.workspace_id, "user_id": list(fence.generations), "kind": INTENT,
        "started": time.time_ns(),
    }  # fmt: skip
    recorded = await store._call(client.index(index=side.name, id=intent, document=document, refresh=False), side.name)
    since = time.monotonic()
    removed = False
    try:
        await check(store, fence)
        try:
            yield
        finally:
            # Removed only if untouched: a forget that began meanwhile marked it (module docstring).
            removed = await _remove_unmarked(store, intent, recorded)
            if not removed or time.monotonic() - since >= RECHECK_AFTER:
                try:
                    await check(store, fence)
                except WriteConflictError:
                    await undo()
                    raise
    finally:
        if not removed:
            await store._call(store._with(client, ignore_status=404).delete(index=side.name, id=intent), side.name)


async def _remove_unmarked(store: ElasticsearchStore, intent: str, recorded: Any) -> bool:
    """Delete the intent over the version its writer recorded; ``False`` when it is not there as recorded (a forget
    marked it, or it is gone: both a 409 for a conditional delete; 404 taken alike)."""
    side = store._intents
    client = await store._ready()
    version = {"if_seq_no": recorded["_seq_no"], "if_primary_term": recorded["_primary_term"]}
    response = await store._call(
        store._with(client, ignore_status=(404, 409)).delete(index=side.name, id=intent, **version), side.name
    )
    return bool(response.meta.status < 300)


async def _mark(store: ElasticsearchStore, intents: list[str]) -> None:
    """A forget found these write intents: move each one's version on, so its writer's conditional removal fails and
    the writer erases what it wrote (module docstring). One bulk request, no refresh (intents are read in realtime);
    an intent already removed is skipped (404)."""
    from flowmem.vector_store.elasticsearch.errors import BulkWriteError

    if not intents:
        return
    side = store._intents
    client = await store._ready()
    marked = {"doc": {"generation": time.time_ns()}}
    operations: list[dict[str, Any]] = []
    for _id in intents:
        operations += [{"update": {"_index": side.name, "_id": _id, "retry_on_conflict": 3}}, marked]
    response = await store._call(client.bulk(operations=operations, refresh=False), side.name)
    items = [item["update"] for item in response["items"]]
    failures = {
        item["_id"]: q.short_reason(item.get("error") or f"status {item.get('status')}")
        for item in items
        if item.get("status", 200) >= 300 and item.get("status") != 404
    }
    if failures:
        raise BulkWriteError(
            "mark", side.name, failures, len(items) - len(failures), noun=("write intent", "write intents")
        )


async def check(store: ElasticsearchStore, fence: Fence | None) -> None:
    """Raise :class:`~flowmem.core.errors.WriteConflictError` if ``fence`` is stale."""
    if fence is not None:
        fence.check(await generations(store, fence.workspace_id, list(fence.generations)))


async def guarded_write(
    store: ElasticsearchStore, workspace_id: str, batch: WriteBatch, write: Callable[[WriteBatch], Awaitable[int]]
) -> int:
    """``write`` (the store's step-wise write) under the batch's fence and must-exist rule (module docstring)."""
    async with fenced(store, batch.fence, lambda: _undo(store, workspace_id, batch)):
        rest = batch
        if batch.must_exist:
            await _write_existing(store, workspace_id, batch)
            memories, vectors = _selected(batch, lambda memory_id: memory_id not in batch.must_exist)
            rest = replace(batch, memories=memories, vectors=vectors, must_exist=[])
        existed = await write(rest)
    return existed


async def _write_existing(store: ElasticsearchStore, workspace_id: str, batch: WriteBatch) -> None:
    """Write the batch's must-exist memories, each only over the stored version read just before."""
    from flowmem.vector_store.elasticsearch.errors import BulkWriteError

    todo = set(batch.must_exist)
    for _ in range(ATTEMPTS):
        memories, vectors = _selected(batch, todo.__contains__)
        versions = await _versions(store, workspace_id, [m.memory_id for m in memories])
        missing = [m.memory_id for m in memories if m.memory_id not in versions]
        if missing:
            raise gone(workspace_id, missing)
        try:
            await es_bulk.upsert(store, workspace_id, memories, vectors, versions=versions)
            return
        except BulkWriteError as exc:
            conflicted = {i for i, reason in exc.failures.items() if "version_conflict" in reason}
            if conflicted != set(exc.failures):
                raise
            todo = conflicted
    ids = ", ".join(repr(i) for i in sorted(todo))
    raise WriteConflictError(f"memory {ids} kept changing while this write was under way; try again")


async def _versions(store: ElasticsearchStore, workspace_id: str, memory_ids: list[str]) -> dict[str, Version]:
    """memory id → (_seq_no, _primary_term) of the stored document, read in realtime; missing ids left out."""
    if not memory_ids or not await store._has_index():
        return {}
    client = await store._ready()
    names = {q.doc_id(workspace_id, i): i for i in memory_ids}
    response = await store._call(
        client.mget(index=store.index, ids=list(names), realtime=True, source_includes=["workspace_id"])
    )
    return {
        names[doc["_id"]]: (int(doc["_seq_no"]), int(doc["_primary_term"]))
        for doc in response["docs"]
        if doc.get("found") and doc["_source"].get("workspace_id") == workspace_id
    }


async def _undo(store: ElasticsearchStore, workspace_id: str, batch: WriteBatch) -> None:
    """Erase what ``batch`` wrote (its user was forgotten meanwhile): memories, history events, ledger entries."""
    if batch.memories:
        await es_bulk.delete_memories(store, workspace_id, [m.memory_id for m in batch.memories])
    sides: list[tuple[str, list[str]]] = []
    if batch.history:
        sides.append((store._events.name, [q.doc_id(workspace_id, e.event_id) for e in batch.history]))
    if batch.ledger is not None:
        user_id, message_ids = batch.ledger
        sides.append((store._ledger.name, [q.message_doc_id(workspace_id, user_id, m) for m in message_ids]))
    for index, ids in sides:
        names = {_id: _id for _id in ids}

        def delete(_id: str, index: str = index) -> dict[str, Any]:
            return {"_op_type": "delete", "_index": index, "_id": _id}

        await es_bulk.bulk(store, ids, delete, names, index=index, ignore_status=404)
    await store._refresh([store.index] + [index for index, _ in sides])


def _selected(batch: WriteBatch, chosen: Callable[[str], bool]) -> tuple[list[Memory], np.ndarray]:
    """The batch's memories whose ids are ``chosen``, and their vector rows."""
    rows = [i for i, memory in enumerate(batch.memories) if chosen(memory.memory_id)]
    assert batch.vectors is not None or not rows
    vectors = np.zeros((0, 0), dtype=np.float32) if batch.vectors is None else batch.vectors[rows]
    return [batch.memories[i] for i in rows], vectors
