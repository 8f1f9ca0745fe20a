"""The ``elasticsearch`` store: memories in one Elasticsearch index, searched with filtered kNN.

Design choices, and why:

* **One index, explicit ``dynamic: strict`` mapping** (:mod:`flowmem.vector_store.elasticsearch.query`):
  a typo'd or unexpected field is a rejected write, never a silently guessed mapping. The index
  is created on first use: on open when ``dims`` is configured, else by the first upsert (dims
  taken from its vectors). Opening an existing index reads its dims back; any disagreement
  (with ``dims``, an upsert or a query) is a :class:`DimensionMismatchError` naming both widths.
* **Tenant-proof ids.** A document's ``_id`` is a sha256 of (workspace_id, memory_id), length-
  prefixed so no two pairs share it (:func:`~flowmem.vector_store.elasticsearch.query.doc_id`): the same
  memory id in two workspaces is two documents, so get/upsert/delete by id cannot cross tenants.
  Every query also carries a ``workspace_id`` term (inside the kNN ``filter`` for search, so it
  is a pre-filter and ``k`` hits survive it), and results are checked again on the way out.
* **Scores equal the local store's.** Vectors are unit length (the base class normalises), so
  ``similarity: dot_product`` (the default; Elasticsearch's unit-length check tolerates float32
  normalisation error) ranks like cosine and is cheaper. kNN ``_score`` is ``(1 + cos) / 2``;
  it is turned back into the cosine for ``scores["similarity"]``.
* **Float ``hnsw``, always explicit** in a new index's mapping: a 384-dim ``dense_vector`` left to
  the server becomes ``int8_hnsw`` on 8.x and ``bbq_hnsw`` (1-bit) on 9.1+. Quantised vectors make
  scores approximate and top-k differ from brute force; flowmem's thresholds and score fusion want
  the true cosine. ``index_options`` can choose a quantised type (``int8_hnsw`` needs a quarter of
  the memory); searches then rescore 2× oversampled candidates with the float vectors, so scores
  stay exact. An index whose mapping has no explicit options (made by hand or another tool) opens
  as it is: the server reports the options it chose, and the rescore follows them.
* **Vectors out of ``_source`` on 9.2+.** Indices created by 9.2+ keep dense vectors out of the
  stored ``_source`` (``index.mapping.exclude_source_vectors``); the store reads that setting on
  open and asks for the vectors back only in reads that want them (``with_vectors``).
* **One client per server major.** The 9.x Python client (flowmem's default) sends
  ``compatible-with=9`` headers, which 8.x servers refuse; the 8.x client talks to 8.x and (REST
  compatibility) 9.x servers. A refusal names the client to install.
* **Writes are bulk requests** (``helpers.async_bulk``, orjson-encoded, ``bulk_chunk_size``
  documents each, up to ``bulk_concurrency`` in flight). The chunks go out without refresh; the
  last one, sent after the others finished, carries the refresh, so an upsert returns when all of
  it is searchable (``refresh: wait_for``, the default). A small write waits for the next
  scheduled refresh (shared by concurrent writers, no extra segments); a write of a full chunk
  or more forces one refresh rather than idling up to a second. A write of several steps (memories,
  history, ledger) refreshes once at its end, shared with the writes ending meanwhile and at most
  one every ``refresh_spacing`` seconds (:mod:`~flowmem.vector_store.elasticsearch.refresh`). The index's
  ``refresh_interval`` is never changed: that would stall every other writer's ``wait_for``. A partly failed bulk
  raises :class:`BulkWriteError` naming each failed memory and why; the rest stay written.
* **A large import ends merged.** A bulk load (``store import``) of at least ``merge_after_import`` memories
  (10,000) force-merges the memories index into one segment before it returns: every segment is an HNSW graph
  each kNN search walks, and a large load leaves tens (:func:`.index.merge_after_import`).
* **Similarities computed by the node.** :meth:`similarities` (the cosines of memories word recall alone found) is
  a kNN search filtered to those ids, exact for so few; no vector is rendered as JSON or parsed.
* **The write path's history and message ledger live in two more indices** beside the memories
  index and named from it, ``<index>-history`` and ``<index>-messages`` (``dynamic: strict`` too,
  same shards and replicas), created by their first write; an index made before they existed
  simply gains them then. Their documents get the same tenant-proof ids, from (workspace_id,
  event_id) and (workspace_id, user_id, message_id) — a message is identified by its user too; a
  ledger from before that is migrated on first use (:mod:`~flowmem.vector_store.elasticsearch.ledger` says
  how) — and are written with bulk ``create`` (a 409 means "already there"), so a rerun changes
  nothing. The ledger is refreshed as memory writes are; the history, written with every change
  and read rarely, is refreshed by its readers instead (``history``, ``forget``:
  :func:`~flowmem.vector_store.elasticsearch.index.make_searchable`), one refresh per read rather than a
  segment per write. An event also stores ``seq``, its recording order (wall-clock ns, never
  decreasing in a store object): events of one write share a ``time`` to the second, and
  ``history`` sorts by (``time``, ``seq``) so they come back in the order they were given.
  ``write`` is the base class's four idempotent steps in order (memories, history, deletes,
  messages), each acknowledged before the next starts: a ledger entry never exists without the
  memories it stands for, nor a deleted memory without its ``delete`` event (a rerun after a crash
  finishes the delete). Memories and their history events, which nothing orders, go as one bulk
  request when together they fit in one chunk (an add: one request, not two).
* **No ``delete_by_query`` or scripts**: the minimal distributions (and some managed offerings)
  lack them. Deletes are bulk deletes by ``_id``; paging is ``search_after`` on
  ``(created_at, memory_id)`` (``_id`` is not sortable). ``forget`` finds what to erase with such
  searches and bulk-deletes it (:mod:`~flowmem.vector_store.elasticsearch.forget`).
* **Failing fast.** The first request (``nodes.info``, never ``GET /`` or ``ping``, which
  minimal distributions refuse) has no retries and a short timeout; any unreachable host or
  timeout becomes ``BackendUnavailableError("cannot reach Elasticsearch at URL: reason")``
  (exit code 2 at the CLI).

The ``elasticsearch`` package is imported when a store is created, so flowmem imports without it.

This module holds the store's connection and state; each part of the work has a module of its own in this
package (``flowmem.vector_store.elasticsearch``): the request bodies and mappings in :mod:`.query`, opening
(creating, checking, migrating) the indices in :mod:`.index`, writes and their refreshes in :mod:`.bulk` and
:mod:`.refresh`, reads in :mod:`.reads` (the searches of one moment sent together by :mod:`.batching`), lexical
search in :mod:`.lexical`, history, message ledger and chat sessions in :mod:`.history`, :mod:`.ledger` and
:mod:`.sessions`, ``forget`` in :mod:`.forget`, errors in :mod:`.errors`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from loguru import logger

from flowmem.core.backend import BackendParams, register_backend
from flowmem.core.errors import BackendUnavailableError, InputError, Problem
from flowmem.core.redact import redact_url
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.schema.session import ChatSession
from flowmem.vector_store.base import ForgetCounts, VectorStore, WriteBatch
from flowmem.vector_store.batch import AdjacentRead
from flowmem.vector_store.elasticsearch import bulk as es_bulk  # fmt: skip
from flowmem.vector_store.elasticsearch import forget as es_forget
from flowmem.vector_store.elasticsearch import guard as es_guard
from flowmem.vector_store.elasticsearch import history as es_history
from flowmem.vector_store.elasticsearch import index as es_index
from flowmem.vector_store.elasticsearch import ledger as es_ledger
from flowmem.vector_store.elasticsearch import lexical as es_lexical
from flowmem.vector_store.elasticsearch import query as q
from flowmem.vector_store.elasticsearch import reads as es_reads
from flowmem.vector_store.elasticsearch import sessions as es_sessions
from flowmem.vector_store.elasticsearch.batching import SearchBatcher
from flowmem.vector_store.elasticsearch.errors import BulkWriteError, ElasticsearchError, translate
from flowmem.vector_store.elasticsearch.index import SideIndex
from flowmem.vector_store.elasticsearch.params import ElasticsearchStoreParams
from flowmem.vector_store.elasticsearch.refresh import SharedRefresh
from flowmem.vector_store.erasure import Fence
from flowmem.vector_store.filters import MemoryFilter

if TYPE_CHECKING:
    from elasticsearch import AsyncElasticsearch

# Kept importable from here, where they were defined before es_errors.py.
__all__ = ["INSTALL_HINT", "SIDE_SUFFIXES", "BulkWriteError", "ElasticsearchError", "ElasticsearchStore"]

# Every index a store uses beside its memories index is named `<index><suffix>`, one of these.
SIDE_SUFFIXES = (
    q.HISTORY_SUFFIX, q.MESSAGES_SUFFIX, es_sessions.SESSIONS_SUFFIX, es_guard.FENCES_SUFFIX, es_guard.INTENTS_SUFFIX,
)  # fmt: skip

T = TypeVar("T")
# The client is one of flowmem's own dependencies: missing only from an environment set up by hand.
INSTALL_HINT = "pip install 'elasticsearch[async]>=8.19,<10' (for an 8.x server: 'elasticsearch[async]>=8.19,<9')"
# The first request only finds out whether anybody is there: no retries, at most this long.
FIRST_CONTACT_TIMEOUT = 5.0


def _orjson_serializers() -> dict[str, Any]:
    """orjson for JSON bodies and for NDJSON ones (``_msearch``): the client's NDJSON serializer uses the stdlib json
    even when given an orjson one for JSON, and a time-scoped recall's ``_msearch`` (three kNN searches, each with the
    384 floats of the query vector) took 1.4 ms to encode that way, 0.03 ms with orjson (the same bytes)."""
    import orjson
    from elasticsearch.serializer import NdjsonSerializer, OrjsonSerializer

    class OrjsonNdjsonSerializer(NdjsonSerializer):
        def json_dumps(self, data: Any) -> bytes:
            return orjson.dumps(data, default=self.default, option=orjson.OPT_SERIALIZE_NUMPY)

        def json_loads(self, data: bytes) -> Any:
            return orjson.loads(data)

    return {OrjsonSerializer.mimetype: OrjsonSerializer(), NdjsonSerializer.mimetype: OrjsonNdjsonSerializer()}


@register_backend("vector_store", "elasticsearch")
class ElasticsearchStore(VectorStore):
    """Memories in an Elasticsearch index, searched with kNN on a ``dense_vector`` field."""

    Params = ElasticsearchStoreParams
    params: ElasticsearchStoreParams
    filter_subjects = frozenset(q.FILTER_FIELDS)

    def __init__(self, params: BackendParams | None = None, *, name: str = "default"):
        super().__init__(params, name=name)
        _import_client()
        hosts = self.params.hosts if isinstance(self.params.hosts, list) else [self.params.hosts]
        self.url = ", ".join(redact_url(h) for h in hosts)
        self.index = self.params.index
        self._client: AsyncElasticsearch | None = None
        self._lock: asyncio.Lock | None = None
        self._version: str | None = None
        self._exists = False
        self._width: int | None = None
        self._similarity: str = self.params.similarity
        self._index_options: dict[str, Any] = dict(self.params.index_options)
        self._vectors_excluded = False  # the index keeps vectors out of `_source` (9.2+), see es_query.vectors_excluded
        self.history_index = f"{self.index}{q.HISTORY_SUFFIX}"
        self.messages_index = f"{self.index}{q.MESSAGES_SUFFIX}"
        # History events come with every change and are read rarely (history, forget): readers refresh.
        self._events = SideIndex(
            self.history_index, "history", "event_id", q.history_properties(), refreshed_by_reads=True
        )
        self._ledger = SideIndex(self.messages_index, "message ledger", "message_id", q.messages_properties())
        self.sessions_index = f"{self.index}{es_sessions.SESSIONS_SUFFIX}"
        self._sessions = SideIndex(self.sessions_index, "chat sessions", "session_id", es_sessions.properties())
        # erasure fences and write intents (es_guard): fences read with realtime GETs, never refreshed; intents
        # refreshed by the forget that looks for them, and kept without a translog fsync per request (es_guard)
        self._fences = SideIndex(
            f"{self.index}{es_guard.FENCES_SUFFIX}", "erasure fences", "user_id", es_guard.properties()
        )
        self._intents = SideIndex(
            f"{self.index}{es_guard.INTENTS_SUFFIX}", "write intents", "user_id", es_guard.properties(),
            settings=es_guard.INTENT_SETTINGS,
        )  # fmt: skip
        self._last_seq = 0
        self._bulk_loaded = 0  # memories upserted by the bulk loads under way (es_index.merge_after_import)
        self._ledger_migrated = False  # legacy ledger entries looked for (and migrated) by this store object
        self._lexical_pending: dict[str, Any] | None = None  # the index's mapping _meta, while its lexical text is due
        # the refreshes ending writes, shared and spaced (es_refresh)
        self._shared_refresh = SharedRefresh(self._refresh, self.params.refresh_spacing)
        # the searches of one event-loop turn, sent as one request (es_batching)
        self._searches = SearchBatcher(self)
        self._views: dict[tuple[tuple[str, Any], ...], AsyncElasticsearch] = {}  # see _with

    # -- connection and index ------------------------------------------------------------------
    def _new_client(self) -> AsyncElasticsearch:
        from elasticsearch import AsyncElasticsearch

        options: dict[str, Any] = {
            "request_timeout": self.params.request_timeout,
            "max_retries": self.params.max_retries,
            "retry_on_timeout": False,
            "verify_certs": self.params.verify_certs,
        }
        if self.params.ca_certs:
            options["ca_certs"] = self.params.ca_certs
        if self.params.api_key:
            options["api_key"] = self.params.api_key
        if self.params.username and self.params.password is not None:
            options["basic_auth"] = (self.params.username, self.params.password)
        try:
            options["serializers"] = _orjson_serializers()
        except ImportError:  # orjson is in the extra; without it writes are ~2× slower, nothing else changes
            logger.warning("orjson is not installed: Elasticsearch requests use the slower stdlib json")
        return AsyncElasticsearch(self.params.hosts, **options)

    def _with(self, client: AsyncElasticsearch, **options: Any) -> AsyncElasticsearch:
        """``client.options(**options)``, made once: each call of it builds a new client object (~0.2 ms of CPU, on
        every fenced write several times); the object shares the client's transport and holds only the options."""
        key = tuple(sorted(options.items()))
        view = self._views.get(key)
        if view is None or view.transport is not client.transport:
            view = self._views[key] = client.options(**options)
        return view

    async def _ready(self) -> AsyncElasticsearch:
        """The client, after the first contact (server version, index mapping) succeeded once."""
        if self._client is not None and self._version is not None:
            if self._lexical_pending is not None:
                await self._lexical_backfill()
            return self._client
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._client is None:
                self._client = self._new_client()
            if self._version is None:
                probe = self._client.options(
                    request_timeout=min(self.params.request_timeout, FIRST_CONTACT_TIMEOUT), max_retries=0
                )
                info = await self._call(probe.nodes.info(node_id="_local", filter_path="nodes.*.version"))
                nodes: dict[str, Any] = info.body.get("nodes") or {}
                first: dict[str, Any] = next(iter(nodes.values()), {})
                version = str(first.get("version", "unknown"))
                await self._load_mapping(create_with=self.params.dims)
                self._version = version
                logger.debug(
                    "vector_store '{}': Elasticsearch {} at {}, index '{}'", self.name, version, self.url, self.index
                )
        if self._lexical_pending is not None:
            await self._lexical_backfill()
        return self._client

    async def _lexical_backfill(self) -> None:
        # Outside _ready's lock: the backfill's own requests go through _ready. Taken first, so it runs once.
        meta, self._lexical_pending = self._lexical_pending, None
        if meta is not None:
            await es_lexical.backfill(self, meta)

    async def _load_mapping(self, create_with: int | None = None) -> None:
        """Read the index's vector settings; create the index (``create_with`` dims) if it is missing."""
        await es_index.open_memories_index(self, create_with)

    async def _has_side(self, side: SideIndex, *, create: bool) -> bool:
        """Whether a write-path index exists; with ``create``, make it if it does not (see es_index.has_side)."""
        return await es_index.has_side(self, side, create=create)

    async def _has_index(self) -> bool:
        """Whether the index exists (looked up again while it does not: another process may create it)."""
        await self._ready()
        if not self._exists:
            await self._load_mapping()
        return self._exists

    def _place(self) -> str:
        return f"vector_store '{self.name}' (Elasticsearch index '{self.index}' at {self.url})"

    async def _dims(self) -> int | None:
        await self._has_index()
        return self._width

    # -- error translation ---------------------------------------------------------------------
    async def _call(self, request: Awaitable[T], index: str | None = None) -> T:
        """Await one client request, turning client exceptions into flowmem errors naming ``index``
        (the memories index unless given)."""
        try:
            return await request
        except Exception as exc:
            translated = translate(exc, self.url, self.params.request_timeout, index or self.index)
            if translated is None:
                raise
            raise translated from exc

    # -- the VectorStore interface -------------------------------------------------------------
    async def _upsert(self, workspace_id: str, memories: list[Memory], vectors: np.ndarray) -> None:
        await es_bulk.upsert(self, workspace_id, memories, vectors)

    async def _get(self, workspace_id: str, ids: list[str], with_vectors: bool) -> list[Memory]:
        return await es_reads.get(self, workspace_id, ids, with_vectors)

    async def _stored_vectors(self, workspace_id: str, ids: list[str]) -> dict[str, np.ndarray]:
        return await es_reads.stored_vectors(self, workspace_id, ids)

    async def _similarities(self, workspace_id: str, query: np.ndarray, ids: list[str]) -> dict[str, float]:
        return await es_reads.similarities(self, workspace_id, query, ids)

    async def _delete(self, workspace_id: str, ids: list[str]) -> int:
        return await es_bulk.delete_memories(self, workspace_id, ids)

    async def _search(self, workspace_id: str, query: np.ndarray, top_k: int, filters: MemoryFilter) -> list[Memory]:
        return await es_reads.search(self, workspace_id, query, top_k, filters)

    async def _search_many(
        self, workspace_id: str, query: np.ndarray, searches: list[tuple[int, MemoryFilter]]
    ) -> list[list[Memory]]:
        return await es_reads.search_many(self, workspace_id, query, searches)

    async def _lexical_search(
        self, workspace_id: str, terms: list[str], top_k: int, filters: MemoryFilter
    ) -> list[Memory]:
        if not await self._has_index():
            return []
        if top_k > q.MAX_PAGE:
            raise InputError(Problem("lexical search", f"top_k is at most {q.MAX_PAGE} on Elasticsearch, got {top_k}"))
        return await es_lexical.search(self, workspace_id, terms, top_k, filters)

    def _iterate(
        self, workspace_id: str, filters: MemoryFilter, batch_size: int, with_vectors: bool
    ) -> AsyncIterator[list[Memory]]:
        return es_reads.iterate(self, workspace_id, filters, batch_size, with_vectors)

    async def _count(self, workspace_id: str, filters: MemoryFilter) -> int:
        return await es_reads.count(self, workspace_id, filters)

    async def _targets(self, workspace_id: str) -> set[str]:
        return await es_reads.targets(self, workspace_id)

    async def _adjacent(self, workspace_id: str, read: AdjacentRead) -> tuple[list[Memory], list[Memory]]:
        return await es_reads.adjacent(self, workspace_id, read)

    async def _adjacent_many(
        self, workspace_id: str, reads: list[AdjacentRead]
    ) -> list[tuple[list[Memory], list[Memory]]]:
        return await es_reads.adjacent_many(self, workspace_id, reads)

    # -- the write path's history and message ledger -------------------------------------------
    async def _record_history(self, workspace_id: str, events: list[HistoryEvent]) -> None:
        await es_history.record_history(self, workspace_id, events)

    async def _history(self, workspace_id: str, memory_id: str | None, limit: int) -> list[HistoryEvent]:
        return await es_history.history(self, workspace_id, memory_id, limit)

    async def _forget(self, workspace_id: str, user_id: str | None, dry_run: bool) -> ForgetCounts:
        return await es_forget.forget(self, workspace_id, user_id, dry_run)

    # Chat sessions: es_sessions says how (their own index, compare-and-set writes).
    async def _get_session(self, workspace_id: str, user_id: str, session_id: str) -> ChatSession | None:
        return await es_sessions.get(self, workspace_id, user_id, session_id)

    async def _put_session(self, session: ChatSession, fence: Fence | None) -> bool:
        return await es_sessions.put(self, session, fence)

    async def _delete_session(self, workspace_id: str, user_id: str, session_id: str) -> bool:
        return await es_sessions.delete(self, workspace_id, user_id, session_id)

    # The message ledger: es_ledger says how.
    async def _has_ledger(self, *, create: bool) -> bool:
        return await es_ledger.has_ledger(self, create=create)

    async def _mark_memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> None:
        await es_ledger.mark_memorized(self, workspace_id, user_id, message_ids)

    async def _memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> set[str]:
        return await es_ledger.memorized(self, workspace_id, user_id, message_ids)

    async def stats(self) -> dict[str, Any]:
        """Server, index and vector settings, memories per workspace (a composite aggregation),
        and how many history events and memorized messages the write path has recorded."""
        exists = await self._has_index()
        workspaces = await es_reads.workspace_counts(self) if exists else {}
        return {
            "backend": "elasticsearch",
            "url": self.url,
            "server_version": self._version,
            "index": self.index,
            "index_exists": exists,
            "dims": self._width,
            "similarity": self._similarity,
            "index_options": self._index_options,
            "memories": sum(workspaces.values()),
            "workspaces": workspaces,
            "history_index": self.history_index,
            "history_events": await es_index.side_count(self, self._events),
            "messages_index": self.messages_index,
            "memorized_messages": await es_index.side_count(self, self._ledger),
        }

    async def _generations(self, workspace_id: str, keys: list[str]) -> dict[str, int]:
        return await es_guard.generations(self, workspace_id, keys)

    async def _write(self, workspace_id: str, batch: WriteBatch) -> int:
        # Memories, then history, then deletes, then the ledger, each durable when Elasticsearch
        # acknowledges it (a crash between steps leaves earlier ones whole — a delete event before
        # its delete; reruns are idempotent) — but made searchable together by one refresh at the
        # end, instead of a refresh wait per step (3 s → tens of ms): a refresh of the indices this
        # write wrote, shared with the writes that end while another refresh runs (es_refresh).
        # The fence and must-exist rules around it: es_guard.
        return await es_guard.guarded_write(self, workspace_id, batch, lambda rest: self._steps(workspace_id, rest))

    async def _steps(self, workspace_id: str, batch: WriteBatch) -> int:
        if self._in_bulk_load or es_bulk.current_write(self) is not None or self.params.refresh == "false":
            return await self._write_steps(workspace_id, batch)
        async with es_bulk.refresh_at_end(self):
            return await self._write_steps(workspace_id, batch)

    async def _write_steps(self, workspace_id: str, batch: WriteBatch) -> int:
        # The base's four steps (memories, history, deletes, ledger), each acknowledged before the next, except that
        # memories and history go as one bulk request when together they fit in one chunk (an add: one HTTP exchange
        # less). Nothing orders those two: the order guards a ledger entry (after its memories) and a delete (after its
        # `delete` event), and both still come after them.
        together = len(batch.memories) + len(batch.history)
        if batch.memories and batch.history and batch.vectors is not None and together <= self.params.bulk_chunk_size:
            await es_bulk.upsert_with_history(self, workspace_id, batch.memories, batch.vectors, batch.history)
            batch = replace(batch, memories=[], vectors=None, history=[])
        return await super()._write(workspace_id, batch)

    async def _end_bulk_load(self) -> None:
        # Only indices this store object knows exist: the block's writes made (or found) each one they used.
        if self._client is not None:
            names = [self.index] if self._exists else []
            sides = (self._events, self._ledger, self._sessions)
            await self._refresh(names + [side.name for side in sides if side.exists])
            loaded, self._bulk_loaded = self._bulk_loaded, 0
            await es_index.merge_after_import(self, loaded)

    async def refresh(self) -> None:
        """Make every write so far searchable now (a forced refresh of the memories, history and message indices).

        For bulk loads: with ``refresh: "false"`` writes return as soon as Elasticsearch has the
        documents, and one ``refresh()`` at the end replaces a refresh wait per write.
        """
        names = [self.index] if await self._has_index() else []
        for side in (self._events, self._ledger, self._sessions):
            if await self._has_side(side, create=False):
                names.append(side.name)
        await self._refresh(names)

    def _refreshed_by_reads(self, index: str) -> bool:
        """Whether writes of ``index`` skip the refresh (its searches refresh it: es_index.make_searchable)."""
        sides = (self._events, self._ledger, self._sessions)
        return any(side.refreshed_by_reads and side.name == index for side in sides)

    async def _refresh(self, names: list[str]) -> None:
        if names:
            client = await self._ready()
            await self._call(client.indices.refresh(index=names), ", ".join(names))

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            self._version = None
            self._views.clear()
            await client.close()


def _import_client() -> None:
    try:
        import aiohttp  # noqa: F401  (the async client's transport)
        import elasticsearch  # noqa: F401
    except ImportError as exc:
        raise BackendUnavailableError(
            f"vector_store backend 'elasticsearch' needs the Elasticsearch client ({exc}); install it: {INSTALL_HINT}"
        ) from None
