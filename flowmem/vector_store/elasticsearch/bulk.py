"""Writing to the Elasticsearch store: bulk requests, and when they refresh.

Every write goes out as bulk requests (:func:`bulk`: ``helpers.async_bulk``, ``bulk_chunk_size``
documents each, up to ``bulk_concurrency`` in flight, the last chunk alone with the refresh). A
write of the write path (memories, history, deletes, ledger: several bulk calls) sends them all
without refresh and refreshes what it wrote once at its end (:func:`refresh_at_end`, shared with
the writes ending meanwhile: :mod:`~flowmem.vector_store.elasticsearch.refresh`); a bulk load refreshes once
when it ends. The store's module docstring says why.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from flowmem.core.concurrency import gather_cancelling
from flowmem.core.errors import InputError, Problem
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.vector_store.elasticsearch import query as q
from flowmem.vector_store.elasticsearch.errors import BulkWriteError
from flowmem.vector_store.rules import check_width

if TYPE_CHECKING:
    from flowmem.vector_store.elasticsearch.store import ElasticsearchStore

T = TypeVar("T")


@dataclass
class _DeferredRefresh:
    """One write in progress whose bulk requests go without refresh: the indices they wrote, refreshed at its end."""

    store: ElasticsearchStore
    indices: dict[str, None]  # an ordered set


# Per asyncio task (a context variable, not a store attribute): a server runs many writes of one store at
# once, and each must refresh what it wrote itself before returning, whatever the others are doing.
_DEFERRED: ContextVar[_DeferredRefresh | None] = ContextVar("flowmem_es_deferred_refresh", default=None)


def current_write(store: ElasticsearchStore) -> _DeferredRefresh | None:
    """The write of ``store`` the current task is in, if any (its bulk requests go without refresh)."""
    deferred = _DEFERRED.get()
    return deferred if deferred is not None and deferred.store is store else None


@asynccontextmanager
async def refresh_at_end(store: ElasticsearchStore) -> AsyncIterator[None]:
    """One write of several bulk calls: they go without refresh, and the indices they wrote are
    refreshed once when the block ends (not when it raises)."""
    deferred = _DeferredRefresh(store, {})
    token = _DEFERRED.set(deferred)
    try:
        yield
    finally:
        _DEFERRED.reset(token)
    await store._shared_refresh.refresh(deferred.indices)


async def bulk(
    store: ElasticsearchStore,
    items: Sequence[T],
    action: Callable[[T], dict[str, Any]],
    names: dict[str, str],
    *,
    index: str,
    ignore_status: int | None = None,
) -> tuple[int, dict[str, str]]:
    """Send one bulk ``action`` (on ``index``) per item, in chunks; returns (succeeded, id → reason per failure).

    ``names`` maps document ``_id`` to the id a reader knows (memory, event or message id).
    Chunks go out ``bulk_concurrency`` at a time without refresh; the last chunk goes alone,
    after the others, with the refresh (which then covers the whole write). Actions are built
    as their chunk is sent, so the event loop is never held longer than one chunk's encoding.
    An item answered with ``ignore_status`` (404: deleting a missing document; 409: creating
    one that is already there) is neither a failure nor counted as succeeded.
    """
    from elasticsearch.helpers import async_bulk

    client = await store._ready()
    size = store.params.bulk_chunk_size
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    gate = asyncio.Semaphore(store.params.bulk_concurrency)
    refresh: str | bool = store.params.refresh == "true"
    deferred = current_write(store)
    if store._refreshed_by_reads(index):
        refresh = False  # its searches refresh it first (es_index.make_searchable)
    elif deferred is not None:
        refresh = False  # one step of a write: refreshed with the others when the write ends (see refresh_at_end)
        deferred.indices[index] = None
    elif store._in_bulk_load:
        refresh = False  # a bulk load: one refresh when it ends (see _end_bulk_load)
    elif store.params.refresh == "wait_for":
        # Same guarantee (searchable on return), two ways: a small write waits for the next
        # scheduled refresh, which concurrent writers share; a write of a full chunk or more
        # forces one refresh instead of idling up to refresh_interval (its segment is big anyway).
        refresh = True if len(items) >= size else "wait_for"

    async def send(chunk: Sequence[T], refresh: str | bool) -> tuple[int, list[Any]]:
        async with gate:
            ok, errors = await store._call(
                async_bulk(
                    client, map(action, chunk), chunk_size=len(chunk), raise_on_error=False, refresh=refresh,
                    max_retries=store.params.max_retries, initial_backoff=1, max_backoff=10,
                ),
                index,
            )  # fmt: skip
            return ok, errors if isinstance(errors, list) else []

    results = await gather_cancelling([send(chunk, False) for chunk in chunks[:-1]])
    results.append(await send(chunks[-1], refresh))
    succeeded, failures = 0, {}
    for ok, errors in results:
        succeeded += ok
        for item in errors:
            info = next(iter(item.values()))
            if ignore_status is not None and info.get("status") == ignore_status:
                continue
            failures[names.get(info.get("_id", ""), info.get("_id", "?"))] = q.short_reason(
                info.get("error") or f"status {info.get('status')}"
            )
    return succeeded, failures


async def upsert(
    store: ElasticsearchStore,
    workspace_id: str,
    memories: list[Memory],
    vectors: np.ndarray,
    *,
    versions: dict[str, tuple[int, int]] | None = None,
) -> None:
    """Index the memories with their vectors (the first upsert into no index creates it, with their width).

    ``versions`` (memory id → ``_seq_no``, ``_primary_term``): those memories are written only over that stored
    version (a changed or deleted one fails with a ``version_conflict_engine_exception``)."""
    items, names = await memory_items(store, workspace_id, memories, vectors)
    succeeded, failures = await bulk(store, items, memory_action(store, versions), names, index=store.index)
    if store._in_bulk_load:
        store._bulk_loaded += succeeded  # es_index.merge_after_import reads it when the load ends
    if failures:
        raise BulkWriteError("upsert", store.index, failures, succeeded)


async def upsert_with_history(
    store: ElasticsearchStore,
    workspace_id: str,
    memories: list[Memory],
    vectors: np.ndarray,
    events: list[HistoryEvent],
) -> None:
    """:func:`upsert` of the memories and :func:`~.history.record_history` of the events as one bulk request, for a
    write whose two first steps fit in one chunk (``ElasticsearchStore._steps``): what the two requests did, in one
    HTTP exchange.

    Raises:
        BulkWriteError: Memories refused ("upsert", as :func:`upsert`), else events refused ("record").
    """
    from flowmem.vector_store.elasticsearch import history as es_history

    items, names = await memory_items(store, workspace_id, memories, vectors)
    recorded, event_names = await es_history.event_actions(store, workspace_id, events)
    actions = [*map(memory_action(store, None), items), *recorded]
    # 409 is "already recorded" for an event (`create`); a memory's `index` without a version never answers it
    _, failures = await bulk(store, actions, as_given, names | event_names, index=store.index, ignore_status=409)
    memory_ids = set(names.values())
    refused = {i: why for i, why in failures.items() if i in memory_ids}
    if store._in_bulk_load:
        store._bulk_loaded += len(memories) - len(refused)
    if refused:
        raise BulkWriteError("upsert", store.index, refused, len(memories) - len(refused))
    if failures:
        side = store._events.name
        raise BulkWriteError(
            "record", side, failures, len(events) - len(failures), noun=("history event", "history events")
        )


MemoryItem = tuple[str, Memory, np.ndarray]  # (_id, memory, its vector)


async def memory_items(
    store: ElasticsearchStore, workspace_id: str, memories: list[Memory], vectors: np.ndarray
) -> tuple[list[MemoryItem], dict[str, str]]:
    """The memories to index as (``_id``, memory, vector), and ``_id`` → memory id; the index is created first if
    there is none, and vectors of the wrong width or all zeros are refused."""
    await store._ready()
    width = vectors.shape[1]
    if store._width is None:
        if not store._exists:
            await store._load_mapping(create_with=width)
        store._width = store._width or width
        # The base checked the width against no index; another process may have created it since.
        check_width(store._place(), store._width, width, "vectors")
    zero = [m.memory_id for m, norm in zip(memories, np.linalg.norm(vectors, axis=1), strict=True) if norm == 0]
    if zero:
        why = f"has an all-zero vector, which similarity '{store._similarity}' cannot store"
        raise InputError([Problem(f"memory {i}", why) for i in zero])
    ids = [q.doc_id(workspace_id, m.memory_id) for m in memories]
    return list(zip(ids, memories, vectors, strict=True)), {
        _id: m.memory_id for _id, m in zip(ids, memories, strict=True)
    }


def memory_action(
    store: ElasticsearchStore, versions: dict[str, tuple[int, int]] | None
) -> Callable[[MemoryItem], dict[str, Any]]:
    """The bulk action indexing one memory item (over its stored version, if ``versions`` names it); built as its
    chunk is sent (:func:`bulk`)."""

    def index(item: MemoryItem) -> dict[str, Any]:
        _id, memory, vector = item
        action: dict[str, Any] = {
            "_op_type": "index",
            "_index": store.index,
            "_id": _id,
            "_source": q.to_doc(memory, vector),
        }
        version = (versions or {}).get(memory.memory_id)
        if version is not None:
            action.update(if_seq_no=version[0], if_primary_term=version[1])
        return action

    return index


def as_given(action: dict[str, Any]) -> dict[str, Any]:
    return action


async def delete_memories(store: ElasticsearchStore, workspace_id: str, ids: list[str]) -> int:
    """Delete the workspace's memories of these ids; returns how many there were."""
    if not await store._has_index():
        return 0
    names = {q.doc_id(workspace_id, i): i for i in ids}

    def delete(_id: str) -> dict[str, Any]:
        return {"_op_type": "delete", "_index": store.index, "_id": _id}

    deleted, failures = await bulk(store, list(names), delete, names, index=store.index, ignore_status=404)
    if failures:
        raise BulkWriteError("delete", store.index, failures, deleted)
    return deleted
