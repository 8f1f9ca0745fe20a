"""The ``elasticsearch`` store: memories in one Elasticsearch index, searched with filtered kNN.

Design choices, and why:

* **One index, explicit ``dynamic: strict`` mapping** (:mod:`flowmem.vector_store.es_query`):
  a typo'd or unexpected field is a rejected write, never a silently guessed mapping. The index
  is created on first use: on open when ``dims`` is configured, else by the first upsert (dims
  taken from its vectors). Opening an existing index reads its dims back; any disagreement
  (with ``dims``, an upsert or a query) is a :class:`DimensionMismatchError` naming both widths.
* **Tenant-proof ids.** A document's ``_id`` is a sha256 of (workspace_id, memory_id), length-
  prefixed so no two pairs share it (:func:`~flowmem.vector_store.es_query.doc_id`): the same
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
  or more forces one refresh rather than idling up to a second. The index's ``refresh_interval``
  is never changed: that would stall every other writer's ``wait_for``. A partly failed bulk
  raises :class:`BulkWriteError` naming each failed memory and why; the rest stay written.
* **The write path's history and message ledger live in two more indices** beside the memories
  index and named from it, ``<index>-history`` and ``<index>-messages`` (``dynamic: strict``
  too, same shards and replicas), created by their first write; an index made before they
  existed simply gains them then. Their documents get the same tenant-proof ids, from
  (workspace_id, event_id) and (workspace_id, user_id, message_id) — a message is identified by
  its user too; a ledger from before that is migrated on first use (:mod:`~flowmem.vector_store.es_ledger`
  says how) — and are written with bulk ``create``
  (a 409 means "already there"), so a rerun changes nothing, with the same refresh as memory
  writes. An event also stores ``seq``, its recording order (wall-clock ns, never decreasing in
  a store object): events of one write share a ``time`` to the second, and ``history`` sorts by
  (``time``, ``seq``) so they come back in the order they were given. ``write`` is the base
  class's four idempotent steps in order (memories, history, deletes, messages), each acknowledged
  before the next starts: a ledger entry never exists without the memories it stands for, nor
  a deleted memory without its ``delete`` event (a rerun after a crash finishes the delete).
* **No ``delete_by_query`` or scripts**: the minimal distributions (and some managed offerings)
  lack them. Deletes are bulk deletes by ``_id``; paging is ``search_after`` on
  ``(created_at, memory_id)`` (``_id`` is not sortable). ``forget`` finds what to erase with such
  searches and bulk-deletes it (:mod:`~flowmem.vector_store.es_forget`).
* **Failing fast.** The first request (``nodes.info``, never ``GET /`` or ``ping``, which
  minimal distributions refuse) has no retries and a short timeout; any unreachable host or
  timeout becomes ``BackendUnavailableError("cannot reach Elasticsearch at URL: reason")``
  (exit code 2 at the CLI).

The ``elasticsearch`` package is imported when a store is created, so flowmem imports without it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

import numpy as np
from loguru import logger

from flowmem.backend import BackendParams, register_backend
from flowmem.concurrency import gather_cancelling
from flowmem.errors import BackendUnavailableError, ConfigError, InputError, Problem
from flowmem.redact import redact_url
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.schema.session import ChatSession
from flowmem.vector_store import es_forget, es_lexical, es_sessions
from flowmem.vector_store import es_query as q
from flowmem.vector_store.base import SIMILARITY, ForgetCounts, Ledger, VectorStore
from flowmem.vector_store.es_errors import BulkWriteError, ElasticsearchError, translate
from flowmem.vector_store.es_index import SideIndex, has_side, open_index
from flowmem.vector_store.es_ledger import migrate_legacy_ledger
from flowmem.vector_store.es_query import ElasticsearchStoreParams
from flowmem.vector_store.es_refresh import SharedRefresh
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.rules import check_width

if TYPE_CHECKING:
    from elasticsearch import AsyncElasticsearch

# Kept importable from here, where they were defined before es_errors.py.
__all__ = ["INSTALL_HINT", "BulkWriteError", "ElasticsearchError", "ElasticsearchStore"]

T = TypeVar("T")
# The client is one of flowmem's own dependencies: missing only from an environment set up by hand.
INSTALL_HINT = "pip install 'elasticsearch[async]>=8.19,<10' (for an 8.x server: 'elasticsearch[async]>=8.19,<9')"
# The first request only finds out whether anybody is there: no retries, at most this long.
FIRST_CONTACT_TIMEOUT = 5.0
# Message ids per ledger lookup: one search each, well below the ids query's and page's limits.
MEMORIZED_CHUNK = 1000


@dataclass
class _DeferredRefresh:
    """One write in progress whose bulk requests go without refresh: the indices they wrote, refreshed at its end."""

    store: ElasticsearchStore
    indices: dict[str, None]  # an ordered set


# Per asyncio task (a context variable, not a store attribute): a server runs many writes of one store at
# once, and each must refresh what it wrote itself before returning, whatever the others are doing.
_DEFERRED: ContextVar[_DeferredRefresh | None] = ContextVar("flowmem_es_deferred_refresh", default=None)


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
        self._events = SideIndex(self.history_index, "history", "event_id", q.history_properties())
        self._ledger = SideIndex(self.messages_index, "message ledger", "message_id", q.messages_properties())
        self.sessions_index = f"{self.index}{es_sessions.SESSIONS_SUFFIX}"
        self._sessions = SideIndex(self.sessions_index, "chat sessions", "session_id", es_sessions.properties())
        self._last_seq = 0
        self._ledger_migrated = False  # legacy ledger entries looked for (and migrated) by this store object
        self._lexical_pending: dict[str, Any] | None = None  # the index's mapping _meta, while its lexical text is due
        self._shared_refresh = SharedRefresh(self._refresh)  # the refreshes ending writes, shared (es_refresh)

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
            from elasticsearch.serializer import OrjsonSerializer

            options["serializer"] = OrjsonSerializer()
        except ImportError:  # orjson is in the extra; without it writes are ~2× slower, nothing else changes
            logger.warning("orjson is not installed: Elasticsearch requests use the slower stdlib json")
        return AsyncElasticsearch(self.params.hosts, **options)

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
        assert self._client is not None  # called inside _ready's lock, so not through _ready
        create = None
        if create_with is not None:
            create = q.mappings(create_with, self.params.similarity, self.params.index_options)
        created = f"index '{self.index}' ({create_with} dims)"
        mapping = await open_index(
            self, self._client, self.index, self._adopt_mapping, create=create, created=created, read_back=True
        )
        meta = (mapping or {}).get("_meta") or {}
        if mapping is not None and not es_lexical.is_current(meta):
            self._lexical_pending = meta  # documents from before lexical search: given their text by _ready

    async def _adopt_mapping(self, mapping: dict[str, Any]) -> dict[str, Any]:
        """Take the vector settings of the index's mapping (es_index.open_index's check); returns its properties due."""
        assert self._client is not None
        props: dict[str, Any] = mapping.get("properties", {})
        vector = props.get(q.VECTOR_FIELD, {})
        if vector.get("type") != "dense_vector":
            raise ConfigError(
                Problem(
                    f"vector_store '{self.name}'",
                    f"index '{self.index}' at {self.url} exists but has no dense_vector field '{q.VECTOR_FIELD}': "
                    "it is not a flowmem index; set params.index to another name",
                )
            )
        self._exists = True
        self._width = vector.get("dims")
        self._similarity = vector.get("similarity", "cosine")
        self._index_options = vector.get("index_options", {})
        settings = await self._call(
            self._client.indices.get_settings(
                index=self.index, include_defaults=True, filter_path="*.*.index.mapping.exclude_source_vectors"
            )
        )
        self._vectors_excluded = q.vectors_excluded(settings.body)
        if self.params.dims is not None:
            check_width(self._place(), self._width, self.params.dims, f"vectors configured (dims={self.params.dims})")
        return q.properties(self._width or 1, self._similarity, self._index_options)

    async def _has_side(self, side: SideIndex, *, create: bool) -> bool:
        """Whether a write-path index exists; with ``create``, make it if it does not (see es_index.has_side)."""
        return await has_side(self, side, create=create)

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

    # -- bulk ----------------------------------------------------------------------------------
    async def _bulk(
        self,
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

        client = await self._ready()
        size = self.params.bulk_chunk_size
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        gate = asyncio.Semaphore(self.params.bulk_concurrency)
        refresh: str | bool = self.params.refresh == "true"
        deferred = self._deferred()
        if deferred is not None:
            refresh = False  # one step of a write: refreshed with the others when the write ends (see _write)
            deferred.indices[index] = None
        elif self._in_bulk_load:
            refresh = False  # a bulk load: one refresh when it ends (see _end_bulk_load)
        elif self.params.refresh == "wait_for":
            # Same guarantee (searchable on return), two ways: a small write waits for the next
            # scheduled refresh, which concurrent writers share; a write of a full chunk or more
            # forces one refresh instead of idling up to refresh_interval (its segment is big anyway).
            refresh = True if len(items) >= size else "wait_for"

        async def send(chunk: Sequence[T], refresh: str | bool) -> tuple[int, list[Any]]:
            async with gate:
                ok, errors = await self._call(
                    async_bulk(
                        client, map(action, chunk), chunk_size=len(chunk), raise_on_error=False, refresh=refresh,
                        max_retries=self.params.max_retries, initial_backoff=1, max_backoff=10,
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

    # -- the VectorStore interface -------------------------------------------------------------
    async def _upsert(self, workspace_id: str, memories: list[Memory], vectors: np.ndarray) -> None:
        await self._ready()
        width = vectors.shape[1]
        if self._width is None:
            if not self._exists:
                await self._load_mapping(create_with=width)
            self._width = self._width or width
            # The base checked the width against no index; another process may have created it since.
            check_width(self._place(), self._width, width, "vectors")
        zero = [m.memory_id for m, norm in zip(memories, np.linalg.norm(vectors, axis=1), strict=True) if norm == 0]
        if zero:
            why = f"has an all-zero vector, which similarity '{self._similarity}' cannot store"
            raise InputError([Problem(f"memory {i}", why) for i in zero])
        ids = [q.doc_id(workspace_id, m.memory_id) for m in memories]

        def index(item: tuple[str, Memory, np.ndarray]) -> dict[str, Any]:
            _id, memory, vector = item
            return {"_op_type": "index", "_index": self.index, "_id": _id, "_source": q.to_doc(memory, vector)}

        items = list(zip(ids, memories, vectors, strict=True))
        names = {_id: m.memory_id for _id, m in zip(ids, memories, strict=True)}
        succeeded, failures = await self._bulk(items, index, names, index=self.index)
        if failures:
            raise BulkWriteError("upsert", self.index, failures, succeeded)

    async def _get(self, workspace_id: str, ids: list[str], with_vectors: bool) -> list[Memory]:
        if not await self._has_index():
            return []
        client = await self._ready()
        doc_ids = [q.doc_id(workspace_id, i) for i in ids]
        excludes = q.excluded_source(with_vectors)
        if with_vectors and self._vectors_excluded:
            # Neither client's mget() knows the parameter that brings excluded vectors back (9.x's get()
            # and search() do), so this one request goes raw, with the same headers mget() sends.
            request = client.perform_request(
                "POST", f"/{quote(self.index, safe='')}/_mget",
                params={"_source_excludes": ",".join(excludes), **q.KEEP_VECTORS},
                headers={"accept": "application/json", "content-type": "application/json"},
                body={"ids": doc_ids}, endpoint_id="mget", path_parts={"index": self.index},
            )  # fmt: skip
        else:
            request = client.mget(index=self.index, ids=doc_ids, source_excludes=excludes)
        response = await self._call(request)
        found = []
        for wanted, doc in zip(ids, response["docs"], strict=True):
            source = doc.get("_source") if doc.get("found") else None
            if source and source.get("workspace_id") == workspace_id and source.get("memory_id") == wanted:
                found.append(q.from_source(source))
        return found

    async def _delete(self, workspace_id: str, ids: list[str]) -> int:
        if not await self._has_index():
            return 0
        names = {q.doc_id(workspace_id, i): i for i in ids}

        def delete(_id: str) -> dict[str, Any]:
            return {"_op_type": "delete", "_index": self.index, "_id": _id}

        deleted, failures = await self._bulk(list(names), delete, names, index=self.index, ignore_status=404)
        if failures:
            raise BulkWriteError("delete", self.index, failures, deleted)
        return deleted

    async def _search(self, workspace_id: str, query: np.ndarray, top_k: int, filters: MemoryFilter) -> list[Memory]:
        if not await self._has_index():
            return []
        client = await self._ready()
        knn = self._knn(workspace_id, query, top_k, filters)
        response = await self._call(
            client.search(
                index=self.index, knn=knn, size=top_k, source_excludes=q.excluded_source(False), track_total_hits=False
            )
        )
        return self._knn_hits(response)

    async def _search_many(
        self, workspace_id: str, query: np.ndarray, searches: list[tuple[int, MemoryFilter]]
    ) -> list[list[Memory]]:
        # One `_msearch`: a time-scoped recall was three searches one after another (three round trips,
        # three requests for the server's event loop and the node's transport to handle), now one.
        if len(searches) == 1 or not await self._has_index():
            return [await self._search(workspace_id, query, top_k, filters) for top_k, filters in searches]
        client = await self._ready()
        body: list[dict[str, Any]] = []
        for top_k, filters in searches:
            knn = self._knn(workspace_id, query, top_k, filters)
            body += [{"index": self.index}, {"knn": knn, "size": top_k, "_source": q.search_source(False, False),
                                             "track_total_hits": False}]  # fmt: skip
        response = await self._call(client.msearch(searches=body))
        results = []
        for answer in response["responses"]:
            if "error" in answer:  # one search of the batch failed: as if it had been sent alone
                status, reason = answer.get("status", "?"), q.short_reason(answer["error"])
                raise ElasticsearchError(
                    f"Elasticsearch at {self.url} answered {status} for index '{self.index}': {reason}"
                )
            results.append(self._knn_hits(answer))
        return results

    def _knn(self, workspace_id: str, query: np.ndarray, top_k: int, filters: MemoryFilter) -> dict[str, Any]:
        """The ``knn`` clause of one search, after the checks only this store needs."""
        if top_k > q.MAX_PAGE:
            raise InputError(Problem("search", f"top_k is at most {q.MAX_PAGE} on Elasticsearch, got {top_k}"))
        if not np.any(query):
            raise InputError(Problem("search", "the query vector is all zeros; it has no direction to search in"))
        return q.knn_clause(
            query, top_k, q.candidates(top_k, self.params.num_candidates),
            q.filter_clauses(workspace_id, filters), self._index_options,
        )  # fmt: skip

    def _knn_hits(self, response: Any) -> list[Memory]:
        return [
            q.from_source(hit["_source"], {SIMILARITY: q.cosine_from_score(self._similarity, hit["_score"])})
            for hit in response["hits"]["hits"]
        ]

    async def _lexical_search(
        self, workspace_id: str, terms: list[str], top_k: int, filters: MemoryFilter
    ) -> list[Memory]:
        if not await self._has_index():
            return []
        if top_k > q.MAX_PAGE:
            raise InputError(Problem("lexical search", f"top_k is at most {q.MAX_PAGE} on Elasticsearch, got {top_k}"))
        return await es_lexical.search(self, workspace_id, terms, top_k, filters)

    async def _iterate(
        self, workspace_id: str, filters: MemoryFilter, batch_size: int, with_vectors: bool
    ) -> AsyncIterator[list[Memory]]:
        if not await self._has_index():
            return
        client = await self._ready()
        page = min(batch_size, q.MAX_PAGE)
        request: dict[str, Any] = {
            "index": self.index,
            "query": q.bool_query(workspace_id, filters),
            # memory_id is unique in a workspace, so this order is total and search_after never skips
            "sort": [{"created_at": "asc"}, {"memory_id": "asc"}],
            "size": page,
            "track_total_hits": False,
            "source": q.search_source(with_vectors, self._vectors_excluded),
        }
        pending: list[Memory] = []
        while True:
            hits = (await self._call(client.search(**request)))["hits"]["hits"]
            pending.extend(q.from_source(hit["_source"]) for hit in hits)
            while len(pending) >= batch_size:
                yield pending[:batch_size]
                pending = pending[batch_size:]
            if len(hits) < page:
                break
            request["search_after"] = hits[-1]["sort"]
        if pending:
            yield pending

    async def _count(self, workspace_id: str, filters: MemoryFilter) -> int:
        if not await self._has_index():
            return 0
        client = await self._ready()
        response = await self._call(client.count(index=self.index, query=q.bool_query(workspace_id, filters)))
        return int(response["count"])

    # -- the write path's history and message ledger -------------------------------------------
    def _seq_block(self, n: int) -> int:
        """The first of ``n`` consecutive recording-order numbers: wall-clock ns, never below one handed out."""
        first = max(time.time_ns(), self._last_seq + 1)
        self._last_seq = first + n - 1
        return first

    async def _record_history(self, workspace_id: str, events: list[HistoryEvent]) -> None:
        side = self._events
        await self._has_side(side, create=True)
        first = self._seq_block(len(events))
        items = [(q.doc_id(workspace_id, e.event_id), e, first + i) for i, e in enumerate(events)]
        names = {_id: event.event_id for _id, event, _ in items}

        # `create`, not `index`: a rerun keeps the event as first recorded, with its first seq (so
        # its place in the order), as the local store's INSERT OR IGNORE does.
        def create(item: tuple[str, HistoryEvent, int]) -> dict[str, Any]:
            _id, event, seq = item
            return {"_op_type": "create", "_index": side.name, "_id": _id, "_source": q.history_doc(event, seq)}

        succeeded, failures = await self._bulk(items, create, names, index=side.name, ignore_status=409)
        if failures:
            raise BulkWriteError("record", side.name, failures, succeeded, noun=("history event", "history events"))

    async def _forget(self, workspace_id: str, user_id: str | None, dry_run: bool) -> ForgetCounts:
        return await es_forget.forget(self, workspace_id, user_id, dry_run)

    # Chat sessions: es_sessions says how (their own index, compare-and-set writes).
    async def _get_session(self, workspace_id: str, user_id: str, session_id: str) -> ChatSession | None:
        return await es_sessions.get(self, workspace_id, user_id, session_id)

    async def _put_session(self, session: ChatSession) -> bool:
        return await es_sessions.put(self, session)

    async def _delete_session(self, workspace_id: str, user_id: str, session_id: str) -> bool:
        return await es_sessions.delete(self, workspace_id, user_id, session_id)

    async def _history(self, workspace_id: str, memory_id: str | None, limit: int) -> list[HistoryEvent]:
        side = self._events
        if limit <= 0 or not await self._has_side(side, create=False):
            return []
        client = await self._ready()
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
            hits = (await self._call(client.search(**request, size=page), side.name))["hits"]["hits"]
            events.extend(q.event_from_source(hit["_source"]) for hit in hits)
            if len(hits) < page:
                break
            request["search_after"] = hits[-1]["sort"]
        events.reverse()
        return events

    async def _has_ledger(self, *, create: bool) -> bool:
        """Whether the message ledger exists (see :meth:`_has_side`); the first time it does, legacy
        entries (from before the ledger was per user) are migrated (:mod:`~flowmem.vector_store.es_ledger`)."""
        if not await self._has_side(self._ledger, create=create):
            return False
        if not self._ledger_migrated:
            await migrate_legacy_ledger(self)
            self._ledger_migrated = True
        return True

    async def _mark_memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> None:
        side = self._ledger
        await self._has_ledger(create=True)
        now = datetime.now().replace(microsecond=0)
        names = {q.message_doc_id(workspace_id, user_id, m): m for m in message_ids}

        def create(item: tuple[str, str]) -> dict[str, Any]:  # `create`: a rerun keeps the first memorized_at
            _id, message_id = item
            source = q.message_doc(workspace_id, user_id, message_id, now)
            return {"_op_type": "create", "_index": side.name, "_id": _id, "_source": source}

        succeeded, failures = await self._bulk(list(names.items()), create, names, index=side.name, ignore_status=409)
        if failures:
            raise BulkWriteError("mark as memorized", side.name, failures, succeeded, noun=("message", "messages"))

    async def _memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> set[str]:
        side = self._ledger
        if not await self._has_ledger(create=False):
            return set()
        client = await self._ready()
        found: set[str] = set()
        for start in range(0, len(message_ids), MEMORIZED_CHUNK):
            chunk = message_ids[start : start + MEMORIZED_CHUNK]
            response = await self._call(
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

    async def _side_count(self, side: SideIndex) -> int:
        if not await self._has_side(side, create=False):
            return 0
        client = await self._ready()
        return int((await self._call(client.count(index=side.name), side.name))["count"])

    async def stats(self) -> dict[str, Any]:
        """Server, index and vector settings, memories per workspace (a composite aggregation),
        and how many history events and memorized messages the write path has recorded."""
        exists = await self._has_index()
        workspaces: dict[str, int] = {}
        if exists:
            client = await self._ready()
            composite: dict[str, Any] = {"size": 1000, "sources": [{"ws": {"terms": {"field": "workspace_id"}}}]}
            while True:
                response = await self._call(
                    client.search(index=self.index, size=0, aggs={"ws": {"composite": composite}})
                )
                agg = response["aggregations"]["ws"]
                workspaces.update({b["key"]["ws"]: b["doc_count"] for b in agg["buckets"]})
                if not agg["buckets"] or "after_key" not in agg:
                    break
                composite["after"] = agg["after_key"]
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
            "workspaces": dict(sorted(workspaces.items())),
            "history_index": self.history_index,
            "history_events": await self._side_count(self._events),
            "messages_index": self.messages_index,
            "memorized_messages": await self._side_count(self._ledger),
        }

    async def _write(
        self,
        workspace_id: str,
        memories: list[Memory],
        vectors: np.ndarray | None,
        history: list[HistoryEvent],
        ledger: Ledger | None,
        deleted: list[str],
    ) -> int:
        # Memories, then history, then deletes, then the ledger, each durable when Elasticsearch
        # acknowledges it (a crash between steps leaves earlier ones whole — a delete event before
        # its delete; reruns are idempotent) — but made searchable together by one refresh at the
        # end, instead of a refresh wait per step (3 s → tens of ms): a refresh of the indices this
        # write wrote, shared with the writes that end while another refresh runs (es_refresh).
        if self._in_bulk_load or self._deferred() is not None or self.params.refresh == "false":
            return await super()._write(workspace_id, memories, vectors, history, ledger, deleted)
        deferred = _DeferredRefresh(self, {})
        token = _DEFERRED.set(deferred)
        try:
            existed = await super()._write(workspace_id, memories, vectors, history, ledger, deleted)
        finally:
            _DEFERRED.reset(token)
        await self._shared_refresh.refresh(deferred.indices)
        return existed

    def _deferred(self) -> _DeferredRefresh | None:
        """The write of this store the current task is in, if any (its bulk requests go without refresh)."""
        deferred = _DEFERRED.get()
        return deferred if deferred is not None and deferred.store is self else None

    async def _end_bulk_load(self) -> None:
        # Only indices this store object knows exist: the block's writes made (or found) each one they used.
        if self._client is not None:
            names = [self.index] if self._exists else []
            sides = (self._events, self._ledger, self._sessions)
            await self._refresh(names + [side.name for side in sides if side.exists])

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

    async def _refresh(self, names: list[str]) -> None:
        if names:
            client = await self._ready()
            await self._call(client.indices.refresh(index=names), ", ".join(names))

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            self._version = None
            await client.close()


def _import_client() -> None:
    try:
        import aiohttp  # noqa: F401  (the async client's transport)
        import elasticsearch  # noqa: F401
    except ImportError as exc:
        raise BackendUnavailableError(
            f"vector_store backend 'elasticsearch' needs the Elasticsearch client ({exc}); install it: {INSTALL_HINT}"
        ) from None
