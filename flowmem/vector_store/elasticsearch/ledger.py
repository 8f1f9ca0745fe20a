"""The Elasticsearch store's message ledger (``<index>-messages``), and migrating one from before it was per user.

The ledger says which messages of which user the write path has memorized: one entry per
(workspace, user, message id), written with bulk ``create`` (a rerun keeps the first
``memorized_at``) and looked up in chunks of :data:`MEMORIZED_CHUNK` ids.

Before, a ledger entry was keyed by (workspace, message id): its ``_id`` was
``doc_id(workspace, message_id)`` and it had no ``user_id``. Two users of a workspace who both
sent ``m1`` shared one entry, so the second user's message was skipped as "already memorized".
Now an entry is keyed by (workspace, user, message id)
(:func:`~flowmem.vector_store.elasticsearch.query.message_doc_id`) and carries a ``user_id`` keyword, which an
existing ledger index gains by ``put_mapping``.

Legacy entries are treated as the local store treats them (:mod:`flowmem.vector_store.local.migrate`):
each is attributed to every user a memory derived from the message belongs to — a memory of the
workspace whose ``source`` names the message, in the memories index (any status) or deleted (a
``delete`` event in the history keeps the memory as it was) — and entries no memory names are
dropped (processing such a message again is harmless). The migration runs once per store object,
on the first use of the ledger, when entries without ``user_id`` exist. It uses only search and
bulk (no scripts, ``update_by_query`` or reindex, which minimal distributions lack): per page of
legacy entries, bulk ``create`` the per-user entries, then bulk ``delete`` the legacy ones, so a
crash at any point leaves a state the next run finishes (creates of existing entries are 409s,
ignored). Until then, legacy entries match no lookup: a lookup names the user.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

from loguru import logger

from flowmem.vector_store.elasticsearch import bulk as es_bulk
from flowmem.vector_store.elasticsearch import query as q
from flowmem.vector_store.elasticsearch.errors import BulkWriteError
from flowmem.vector_store.elasticsearch.index import make_searchable

if TYPE_CHECKING:
    from flowmem.vector_store.elasticsearch.store import ElasticsearchStore

PAGE = 1000
# Message ids per ledger lookup: one search each, well below the ids query's and page's limits.
MEMORIZED_CHUNK = 1000
Attribution = dict[str, set[str]]  # message id → users whose memories name it


async def has_ledger(store: ElasticsearchStore, *, create: bool) -> bool:
    """Whether the message ledger exists (see :func:`~flowmem.vector_store.elasticsearch.index.has_side`); the first
    time it does, legacy entries (from before the ledger was per user) are migrated (:func:`migrate_legacy_ledger`)."""
    if not await store._has_side(store._ledger, create=create):
        return False
    if not store._ledger_migrated:
        await migrate_legacy_ledger(store)
        store._ledger_migrated = True
    return True


async def mark_memorized(store: ElasticsearchStore, workspace_id: str, user_id: str, message_ids: list[str]) -> None:
    """Mark the user's messages memorized (bulk ``create``: an entry already there keeps its ``memorized_at``)."""
    side = store._ledger
    await has_ledger(store, create=True)
    now = datetime.now().replace(microsecond=0)
    names = {q.message_doc_id(workspace_id, user_id, m): m for m in message_ids}

    def create(item: tuple[str, str]) -> dict[str, Any]:  # `create`: a rerun keeps the first memorized_at
        _id, message_id = item
        source = q.message_doc(workspace_id, user_id, message_id, now)
        return {"_op_type": "create", "_index": side.name, "_id": _id, "_source": source}

    succeeded, failures = await es_bulk.bulk(
        store, list(names.items()), create, names, index=side.name, ignore_status=409
    )
    if failures:
        raise BulkWriteError("mark as memorized", side.name, failures, succeeded, noun=("message", "messages"))


async def memorized(store: ElasticsearchStore, workspace_id: str, user_id: str, message_ids: list[str]) -> set[str]:
    """Which of the user's messages are memorized in the workspace."""
    side = store._ledger
    if not await has_ledger(store, create=False):
        return set()
    client = await store._ready()
    found: set[str] = set()
    for start in range(0, len(message_ids), MEMORIZED_CHUNK):
        chunk = message_ids[start : start + MEMORIZED_CHUNK]
        response = await store._call(
            client.search(
                index=side.name, query=q.memorized_query(workspace_id, user_id, chunk), size=len(chunk),
                source_includes=["workspace_id", "user_id", "message_id"], track_total_hits=False,
            ),
            side.name,
        )  # fmt: skip
        found.update(
            hit["_source"]["message_id"]
            for hit in response["hits"]["hits"]
            if hit["_source"].get("workspace_id") == workspace_id and hit["_source"].get("user_id") == user_id
        )
    return found & set(message_ids)


async def migrate_legacy_ledger(store: ElasticsearchStore) -> None:
    """Turn every legacy ledger entry into per-user entries (or drop it); see the module docstring.

    Raises:
        BulkWriteError: Elasticsearch refused some of the new entries (the legacy ones are then kept).
    """
    client = await store._ready()
    ledger = store._ledger.name
    legacy = q.legacy_ledger_query()
    if not int((await store._call(client.count(index=ledger, query=legacy), ledger))["count"]):
        return
    deleted_cache: dict[str, Attribution] = {}
    request: dict[str, Any] = {
        "index": ledger, "query": legacy, "sort": q.LEGACY_LEDGER_ORDER, "size": PAGE, "track_total_hits": False,
    }  # fmt: skip
    moved = dropped = 0
    while True:
        hits = (await store._call(client.search(**request), ledger))["hits"]["hits"]
        by_workspace: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for hit in hits:
            by_workspace[hit["_source"]["workspace_id"]].append(hit)
        entries: list[tuple[str, dict[str, Any]]] = []
        for workspace_id, group in by_workspace.items():
            message_ids = [hit["_source"]["message_id"] for hit in group]
            users = await _memory_users(store, workspace_id, message_ids)
            if workspace_id not in deleted_cache:
                deleted_cache[workspace_id] = await _deleted_memory_users(store, workspace_id)
            for message_id, user_id in _pairs(message_ids, users, deleted_cache[workspace_id]):
                source = next(h["_source"] for h in group if h["_source"]["message_id"] == message_id)
                doc = q.message_doc(workspace_id, user_id, message_id, source["memorized_at"])
                entries.append((q.message_doc_id(workspace_id, user_id, message_id), doc))
        names = {_id: doc["message_id"] for _id, doc in entries}

        def create(entry: tuple[str, dict[str, Any]]) -> dict[str, Any]:
            return {"_op_type": "create", "_index": ledger, "_id": entry[0], "_source": entry[1]}

        if entries:
            ok, failures = await es_bulk.bulk(store, entries, create, names, index=ledger, ignore_status=409)
            if failures:
                raise BulkWriteError("migrate", ledger, failures, ok, noun=("ledger entry", "ledger entries"))

        def delete(_id: str) -> dict[str, Any]:
            return {"_op_type": "delete", "_index": ledger, "_id": _id}

        old = {hit["_id"]: hit["_source"]["message_id"] for hit in hits}
        if old:
            ok, failures = await es_bulk.bulk(store, list(old), delete, old, index=ledger, ignore_status=404)
            if failures:  # the per-user entries exist; the next open deletes these
                noun = ("legacy ledger entry", "legacy ledger entries")
                raise BulkWriteError("delete", ledger, failures, ok, noun=noun)
        attributed = len({(d["workspace_id"], d["message_id"]) for _, d in entries})
        moved, dropped = moved + attributed, dropped + len(hits) - attributed
        if len(hits) < PAGE:
            break
        request["search_after"] = hits[-1]["sort"]
    logger.info(
        "vector_store '{}': message ledger '{}' migrated to per-user entries: {} legacy entries attributed to "
        "their users, {} that no memory names dropped (they will be processed again)",
        store.name, ledger, moved, dropped,
    )  # fmt: skip


def _pairs(message_ids: list[str], *attributions: Attribution) -> list[tuple[str, str]]:
    return [
        (message_id, user_id)
        for message_id in message_ids
        for user_id in sorted(set().union(*(a.get(message_id, set()) for a in attributions)))
        if user_id
    ]


async def _memory_users(store: ElasticsearchStore, workspace_id: str, message_ids: list[str]) -> Attribution:
    """Who the workspace's stored memories derived from these messages belong to."""
    found: Attribution = defaultdict(set)
    if not await store._has_index():
        return found
    client = await store._ready()
    wanted = set(message_ids)
    request: dict[str, Any] = {
        "index": store.index, "query": q.derived_from_query(workspace_id, message_ids),
        "sort": [{"created_at": "asc"}, {"memory_id": "asc"}], "size": PAGE,
        "source_includes": ["target", "source"], "track_total_hits": False,
    }  # fmt: skip
    while True:
        hits = (await store._call(client.search(**request)))["hits"]["hits"]
        for hit in hits:
            for message_id in set(hit["_source"].get("source") or []) & wanted:
                found[message_id].add(hit["_source"].get("target") or "")
        if len(hits) < PAGE:
            return found
        request["search_after"] = hits[-1]["sort"]


async def _deleted_memory_users(store: ElasticsearchStore, workspace_id: str) -> Attribution:
    """Who the workspace's deleted memories belonged to, by the messages they came from (from the history)."""
    found: Attribution = defaultdict(set)
    side = store._events
    if not await store._has_side(side, create=False):
        return found
    await make_searchable(store, side)
    client = await store._ready()
    query = {"bool": {"filter": [{"term": {"workspace_id": workspace_id}}, {"term": {"event": "delete"}}]}}
    request: dict[str, Any] = {
        "index": side.name, "query": query, "sort": q.HISTORY_NEWEST_FIRST, "size": PAGE,
        "source_includes": ["old.target", "old.source"], "track_total_hits": False,
    }  # fmt: skip
    while True:
        hits = (await store._call(client.search(**request), side.name))["hits"]["hits"]
        for hit in hits:
            old = hit["_source"].get("old") or {}
            for message_id in old.get("source") or []:
                found[message_id].add(old.get("target") or "")
        if len(hits) < PAGE:
            return found
        request["search_after"] = hits[-1]["sort"]
