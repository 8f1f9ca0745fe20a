"""The Elasticsearch store's history: events in the ``<index>-history`` index beside the memories index.

An event's ``_id`` is tenant-proof, from (workspace_id, event_id); it is written with bulk
``create`` (a rerun changes nothing) and stores ``seq``, its recording order (wall-clock ns, never
decreasing in a store object): events of one write share a ``time`` to the second, and reads sort by
(``time``, ``seq``) so they come back in the order they were given.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from flowmem.schema.history import HistoryEvent
from flowmem.vector_store.elasticsearch import bulk as es_bulk
from flowmem.vector_store.elasticsearch import query as q
from flowmem.vector_store.elasticsearch.errors import BulkWriteError
from flowmem.vector_store.elasticsearch.index import make_searchable

if TYPE_CHECKING:
    from flowmem.vector_store.elasticsearch.store import ElasticsearchStore


def seq_block(store: ElasticsearchStore, n: int) -> int:
    """The first of ``n`` consecutive recording-order numbers: wall-clock ns, never below one handed out."""
    first = max(time.time_ns(), store._last_seq + 1)
    store._last_seq = first + n - 1
    return first


async def record_history(store: ElasticsearchStore, workspace_id: str, events: list[HistoryEvent]) -> None:
    """Record the events (bulk ``create``: an event already recorded stays as it was)."""
    actions, names = await event_actions(store, workspace_id, events)
    succeeded, failures = await es_bulk.bulk(
        store, actions, es_bulk.as_given, names, index=store._events.name, ignore_status=409
    )
    if failures:
        raise BulkWriteError(
            "record", store._events.name, failures, succeeded, noun=("history event", "history events")
        )


async def event_actions(
    store: ElasticsearchStore, workspace_id: str, events: list[HistoryEvent]
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The bulk actions recording the events (the history index made first if missing), and ``_id`` → event id."""
    side = store._events
    await store._has_side(side, create=True)
    first = seq_block(store, len(events))
    # `create`, not `index`: a rerun keeps the event as first recorded, with its first seq (so
    # its place in the order), as the local store's INSERT OR IGNORE does.
    ids = [q.doc_id(workspace_id, e.event_id) for e in events]
    actions: list[dict[str, Any]] = [
        {"_op_type": "create", "_index": side.name, "_id": _id, "_source": q.history_doc(e, first + i)}
        for i, (_id, e) in enumerate(zip(ids, events, strict=True))
    ]
    return actions, {_id: e.event_id for _id, e in zip(ids, events, strict=True)}


async def history(
    store: ElasticsearchStore, workspace_id: str, memory_id: str | None, limit: int
) -> list[HistoryEvent]:
    """The workspace's latest ``limit`` events (of one memory, if given), oldest first."""
    side = store._events
    if limit <= 0 or not await store._has_side(side, create=False):
        return []
    await make_searchable(store, side)
    client = await store._ready()
    request: dict[str, Any] = {
        "index": side.name,
        "query": q.history_query(workspace_id, memory_id),
        # newest first, so `limit` keeps the latest events (as the other stores do); reversed below
        "sort": q.HISTORY_NEWEST_FIRST,
        "track_total_hits": False,
    }
    events: list[HistoryEvent] = []
    while len(events) < limit:
        page = min(limit - len(events), q.MAX_PAGE)
        hits = (await store._call(client.search(**request, size=page), side.name))["hits"]["hits"]
        events.extend(q.event_from_source(hit["_source"]) for hit in hits)
        if len(hits) < page:
            break
        request["search_after"] = hits[-1]["sort"]
    events.reverse()
    return events
