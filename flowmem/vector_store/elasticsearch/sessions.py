"""Chat sessions in Elasticsearch: the ``<index>-sessions`` index beside the memories index.

One document per (workspace, user, session), its ``_id`` tenant-proof like the ledger's
(:func:`session_doc_id`); the session itself is kept verbatim in ``record`` (``enabled: false``,
like a memory's metadata). Optimistic versioning (:mod:`flowmem.vector_store.sessions`): version 1
is a ``create`` (refused when one exists); a later version reads the stored document, checks its
version is the one before, and writes with ``if_seq_no``/``if_primary_term`` of that read, so a
write landing in between makes this one a 409 and two writes from one read cannot both land. Reads are
realtime ``GET``s by id; writes and deletes refresh as memory writes do (so ``forget``, which
searches, finds a session written just before).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flowmem.schema.session import ChatSession
from flowmem.vector_store.elasticsearch import guard as es_guard
from flowmem.vector_store.elasticsearch import query as q
from flowmem.vector_store.erasure import Fence

if TYPE_CHECKING:
    from flowmem.vector_store.elasticsearch.store import ElasticsearchStore

SESSIONS_SUFFIX = "-sessions"


def properties() -> dict[str, Any]:
    """The ``properties`` of the sessions index (``dynamic: strict`` like the others)."""
    keyword, date = {"type": "keyword"}, {"type": "date"}
    return {
        "workspace_id": keyword, "user_id": keyword, "session_id": keyword, "version": {"type": "long"},
        "updated_at": date, "record": {"type": "object", "enabled": False},
    }  # fmt: skip


def session_doc_id(workspace_id: str, user_id: str, session_id: str) -> str:
    """The ``_id`` of a session: one per (workspace, user, session), length-prefixed (two users may have ``s1``)."""
    return q.doc_id(workspace_id, f"session\x00{len(user_id)}\x00{user_id}\x00{session_id}")


async def get(store: ElasticsearchStore, workspace_id: str, user_id: str, session_id: str) -> ChatSession | None:
    side = store._sessions
    if not await store._has_side(side, create=False):
        return None
    client = await store._ready()
    _id = session_doc_id(workspace_id, user_id, session_id)
    response = await store._call(store._with(client, ignore_status=404).get(index=side.name, id=_id), side.name)
    if response.meta.status == 404 or not response.body.get("found"):
        return None
    return ChatSession.model_validate(response.body["_source"]["record"])


async def put(store: ElasticsearchStore, session: ChatSession, fence: Fence | None = None) -> bool:
    """Store the session over the version before it (see the module docstring), under ``fence`` (es_guard: checked
    before and after; a session written as its user was forgotten is erased again and the write refused)."""

    async def undo() -> None:
        await delete(store, session.workspace_id, session.user_id, session.session_id)

    async with es_guard.fenced(store, fence, undo):
        stored = await _put(store, session)
    return stored


async def _put(store: ElasticsearchStore, session: ChatSession) -> bool:
    side = store._sessions
    await store._has_side(side, create=True)
    client = await store._ready()
    _id = session_doc_id(session.workspace_id, session.user_id, session.session_id)
    document = {
        "workspace_id": session.workspace_id, "user_id": session.user_id, "session_id": session.session_id,
        "version": session.version, "updated_at": q.iso(session.updated_at), "record": session.model_dump(mode="json"),
    }  # fmt: skip
    condition: dict[str, Any] = {"op_type": "create"}  # version 1: only if none is stored
    if session.version > 1:
        got = await store._call(store._with(client, ignore_status=404).get(index=side.name, id=_id), side.name)
        if got.meta.status == 404 or got.body["_source"].get("version") != session.version - 1:
            return False
        # Compare-and-set on the document we read: a write landing in between makes this one a 409.
        condition = {"if_seq_no": got.body["_seq_no"], "if_primary_term": got.body["_primary_term"]}
    response = await store._call(
        store._with(client, ignore_status=409).index(
            index=side.name, id=_id, document=document, refresh=store.params.refresh, **condition
        ),
        side.name,
    )
    return bool(response.meta.status != 409)


async def delete(store: ElasticsearchStore, workspace_id: str, user_id: str, session_id: str) -> bool:
    side = store._sessions
    if not await store._has_side(side, create=False):
        return False
    client = await store._ready()
    _id = session_doc_id(workspace_id, user_id, session_id)
    response = await store._call(
        store._with(client, ignore_status=404).delete(index=side.name, id=_id, refresh=store.params.refresh), side.name
    )
    return bool(response.meta.status != 404)
