"""Erasing a user's (or a whole workspace's) share of an Elasticsearch store: ``forget``.

Without ``delete_by_query`` (minimal distributions lack it, as they lack scripts), erasure is
search and bulk delete by ``_id``: each of the four indices (memories, ledger, history, chat sessions)
is paged with ``search_after`` on a total order, filtered by the workspace (and the user), and each
page's documents are deleted before the next page is read (deleted documents lie behind the cursor,
so paging never skips one). Memories are found by their ``target``, ledger entries and sessions by
their ``user_id``, history events by the ``target``s of the records they carry: new events have them indexed
(:data:`~flowmem.vector_store.elasticsearch.query.TARGET_FIELD`); events written before that lack the field
and are read too, every candidate's records then checked here
(:func:`~flowmem.schema.history.record_targets`, the rule every store uses).

The order is memories, ledger, history, and each step is idempotent (a missing document is not
an error), so a run stopped half-way is finished by the next one. A refresh first makes what any
write stored searchable (a write refreshes when it ends, not when it raises: one that failed
part-way left its documents unrefreshed); one refresh at the end makes the erasure visible to
every search and count; a dry run only pages and counts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flowmem.schema.history import record_targets
from flowmem.vector_store.base import ForgetCounts
from flowmem.vector_store.elasticsearch import bulk as es_bulk
from flowmem.vector_store.elasticsearch import guard as es_guard
from flowmem.vector_store.elasticsearch import query as q
from flowmem.vector_store.elasticsearch.index import make_searchable

if TYPE_CHECKING:
    from flowmem.vector_store.elasticsearch.store import ElasticsearchStore

PAGE = 1000
# Total orders (the last key is unique in a workspace), so `search_after` never skips or repeats a document.
MEMORY_ORDER: list[dict[str, Any]] = [{"created_at": "asc"}, {"memory_id": "asc"}]
LEDGER_ORDER: list[dict[str, Any]] = [{"user_id": "asc"}, {"message_id": "asc"}]
SESSION_ORDER: list[dict[str, Any]] = [{"user_id": "asc"}, {"session_id": "asc"}]
Hit = dict[str, Any]


async def forget(store: ElasticsearchStore, workspace_id: str, user_id: str | None, dry_run: bool) -> ForgetCounts:
    """Erase (or with ``dry_run`` count) ``user_id``'s share of ``workspace_id`` — everything of it without a user."""
    from flowmem.vector_store.elasticsearch.errors import BulkWriteError

    if not dry_run:  # first: every write prepared before this is refused from now on (es_guard)
        await es_guard.advance(store, workspace_id, user_id)
    # A write that failed part-way left what it wrote unrefreshed (a write refreshes when it ends, not when it
    # raises), and its intent removed: made searchable now, it is erased with the rest.
    stored = [store.index] if await store._has_index() else []
    stored += [side.name for side in (store._ledger, store._sessions) if await store._has_side(side, create=False)]
    await store._shared_refresh.refresh(stored)
    steps: list[_Step] = []
    if await store._has_index():
        mine, keys = memory_query(workspace_id, user_id), ["workspace_id", "target"]
        steps.append(_Step("memories", store.index, mine, MEMORY_ORDER, keys, _memory_of(user_id)))
    if await store._has_ledger(create=False):  # legacy entries (no user) are migrated first
        entries = ledger_query(workspace_id, user_id)
        keys = ["workspace_id", "user_id"]
        steps.append(_Step("messages", store._ledger.name, entries, LEDGER_ORDER, keys, _entry_of(user_id)))
    if await store._has_side(store._events, create=False):
        await make_searchable(store, store._events)  # every event acknowledged so far is erased
        events = history_query(workspace_id, user_id)
        keys = ["workspace_id", "old.target", "new.target"]
        steps.append(_Step("history", store._events.name, events, q.HISTORY_NEWEST_FIRST, keys, _event_of(user_id)))
    if await store._has_side(store._sessions, create=False):
        sessions, keys = ledger_query(workspace_id, user_id), ["workspace_id", "user_id"]
        steps.append(_Step("sessions", store._sessions.name, sessions, SESSION_ORDER, keys, _entry_of(user_id)))
    found = {"memories": 0, "messages": 0, "history": 0, "sessions": 0}
    touched: list[str] = []
    with store._refresh_deferred():  # no refresh per bulk request: one at the end
        for step in steps:
            async for ids in _pages(store, workspace_id, step):
                found[step.kind] += len(ids)
                if dry_run or not ids:
                    continue
                names = {_id: _id for _id in ids}
                ok, failures = await es_bulk.bulk(store, ids, step.delete, names, index=step.index, ignore_status=404)
                if failures:
                    raise BulkWriteError("erase", step.index, failures, ok, noun=("document", "documents"))
                touched.append(step.index)
    if touched:
        await store._refresh(list(dict.fromkeys(touched)))
    return ForgetCounts(
        memories=found["memories"], messages=found["messages"], history=found["history"], sessions=found["sessions"]
    )


@dataclass
class _Step:
    """One index to erase from: what to search for, in which total order, and the check of each hit."""

    kind: str  # its count's key
    index: str
    query: dict[str, Any]
    order: list[dict[str, Any]]
    keys: list[str]  # the `_source` fields `belongs` reads
    belongs: Callable[[Hit], bool]

    def delete(self, _id: str) -> dict[str, Any]:
        return {"_op_type": "delete", "_index": self.index, "_id": _id}


def memory_query(workspace_id: str, user_id: str | None) -> dict[str, Any]:
    """The workspace's memories, or those about ``user_id``."""
    clauses: list[dict[str, Any]] = [{"term": {"workspace_id": workspace_id}}]
    if user_id is not None:
        clauses.append({"term": {"target": user_id}})
    return {"bool": {"filter": clauses}}


def ledger_query(workspace_id: str, user_id: str | None) -> dict[str, Any]:
    """The workspace's message-ledger entries, or ``user_id``'s."""
    clauses: list[dict[str, Any]] = [{"term": {"workspace_id": workspace_id}}]
    if user_id is not None:
        clauses.append({"term": {"user_id": user_id}})
    return {"bool": {"filter": clauses}}


def history_query(workspace_id: str, user_id: str | None) -> dict[str, Any]:
    """The workspace's history events that may carry a record of ``user_id`` (all of them without a user):
    those whose indexed targets name the user, and those from before targets were indexed."""
    workspace = {"term": {"workspace_id": workspace_id}}
    if user_id is None:
        return {"bool": {"filter": [workspace]}}
    candidates = [
        {"term": {q.TARGET_FIELD: user_id}},
        {"bool": {"must_not": [{"exists": {"field": q.TARGET_FIELD}}]}},
    ]
    return {"bool": {"filter": [workspace, {"bool": {"should": candidates, "minimum_should_match": 1}}]}}


async def _pages(store: ElasticsearchStore, workspace_id: str, step: _Step) -> AsyncIterator[list[str]]:
    """The ``_id``s of the documents of ``step`` that belong to the share, a page at a time (checked again here)."""
    client = await store._ready()
    request: dict[str, Any] = {
        "index": step.index, "query": step.query, "sort": step.order, "size": PAGE,
        "source_includes": step.keys, "track_total_hits": False,
    }  # fmt: skip
    while True:
        hits = (await store._call(client.search(**request), step.index))["hits"]["hits"]
        yield [hit["_id"] for hit in hits if hit["_source"].get("workspace_id") == workspace_id and step.belongs(hit)]
        if len(hits) < PAGE:
            return
        request["search_after"] = hits[-1]["sort"]


def _memory_of(user_id: str | None) -> Callable[[Hit], bool]:
    return lambda hit: user_id is None or hit["_source"].get("target") == user_id


def _entry_of(user_id: str | None) -> Callable[[Hit], bool]:
    return lambda hit: user_id is None or hit["_source"].get("user_id") == user_id


def _event_of(user_id: str | None) -> Callable[[Hit], bool]:
    def belongs(hit: Hit) -> bool:
        source = hit["_source"]
        return user_id is None or user_id in record_targets(source.get("old"), source.get("new"))

    return belongs
