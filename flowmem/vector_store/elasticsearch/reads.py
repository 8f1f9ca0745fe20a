"""Reading the Elasticsearch store's memories: get by id, kNN search (one or several), paging, counts.

Every request carries the workspace (a term inside the kNN ``filter``, so a pre-filter), and
results are checked again on the way out where a document is fetched by ``_id``. Scores: kNN's
``_score`` turned back into the cosine (:func:`~flowmem.vector_store.elasticsearch.query.cosine_from_score`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import numpy as np

from flowmem.core.errors import InputError, Problem
from flowmem.schema.memory import Memory
from flowmem.vector_store.base import SIMILARITY
from flowmem.vector_store.batch import AdjacentRead
from flowmem.vector_store.elasticsearch import query as q
from flowmem.vector_store.filters import NO_FILTER, MemoryFilter

if TYPE_CHECKING:
    from flowmem.vector_store.elasticsearch.store import ElasticsearchStore


async def get(store: ElasticsearchStore, workspace_id: str, ids: list[str], with_vectors: bool) -> list[Memory]:
    """The workspace's memories of these ids that exist (by ``_id``, checked again on the way out)."""
    return [q.from_source(source) for _, source in await _mget(store, workspace_id, ids, with_vectors)]


async def stored_vectors(store: ElasticsearchStore, workspace_id: str, ids: list[str]) -> dict[str, np.ndarray]:
    """The stored vectors of the workspace's memories of these ids: only the ids and vectors come back (recall_fuse_op
    wants the cosines of the memories words alone found), no record is parsed — the same float32 values
    :func:`get` with vectors gives (``np.asarray(..., float32)`` of the same numbers, as ``Memory.vector``)."""
    found = await _mget(store, workspace_id, ids, True, includes=(q.VECTOR_FIELD,))
    return {
        i: np.asarray(source[q.VECTOR_FIELD], dtype=np.float32) for i, source in found if source.get(q.VECTOR_FIELD)
    }


async def similarities(
    store: ElasticsearchStore, workspace_id: str, query: np.ndarray, ids: list[str]
) -> dict[str, float]:
    """The cosine of ``query`` with each of the workspace's memories of these ids, computed by the node: a kNN search
    filtered to the ids, ``k`` and ``num_candidates`` their number, so Lucene scores every one of them exactly (a
    filter matching no more documents than ``k`` is searched exhaustively) and no vector or ``_source`` travels.

    The same cosines as the dot products of :func:`stored_vectors` (within float32 rounding: the node's score is
    ``(1 + cos) / 2``), on a node CPU a fraction of what rendering the vectors as JSON costs (``_mget`` of 20
    vectors of 384 floats, as recall_fuse_op asked, was the dearest request of a query)."""
    if not await store._has_index() or store._width != len(query) or not np.any(query):
        return {}
    unit = query / np.linalg.norm(query)  # the node refuses a dot_product query that is not unit length
    found: dict[str, float] = {}
    for start in range(0, len(ids), q.MAX_PAGE):
        chunk = ids[start : start + q.MAX_PAGE]
        named = {q.doc_id(workspace_id, i): i for i in chunk}
        clauses: list[dict[str, Any]] = [{"term": {"workspace_id": workspace_id}}, {"ids": {"values": list(named)}}]
        knn = q.knn_clause(unit, len(chunk), len(chunk), clauses, store._index_options)
        body = {"knn": knn, "size": len(chunk), "_source": False, "track_total_hits": False}
        response = await store._searches.search(store.index, body)
        for hit in response["hits"]["hits"]:
            if hit["_id"] in named:
                found[named[hit["_id"]]] = q.cosine_from_score(store._similarity, hit["_score"])
    return found


async def _mget(
    store: ElasticsearchStore, workspace_id: str, ids: list[str], with_vectors: bool, includes: tuple[str, ...] = ()
) -> list[tuple[str, dict[str, Any]]]:
    """``(id, _source)`` of the workspace's memories of these ids that exist, in the order asked (by ``_id``, the
    workspace and id checked again on the way out); with ``includes``, only those fields (and the two checked)."""
    if not await store._has_index():
        return []
    client = await store._ready()
    doc_ids = [q.doc_id(workspace_id, i) for i in ids]
    kept = ["workspace_id", "memory_id", *includes] if includes else None
    left_out = None if includes else q.excluded_source(with_vectors)
    if with_vectors and store._vectors_excluded:
        # Neither client's mget() knows the parameter that brings excluded vectors back (9.x's get()
        # and search() do), so this one request goes raw, with the same headers mget() sends.
        fields = {"_source_includes": kept} if kept else {"_source_excludes": left_out or []}
        request = client.perform_request(
            "POST", f"/{quote(store.index, safe='')}/_mget",
            params={name: ",".join(value) for name, value in fields.items()} | q.KEEP_VECTORS,
            headers={"accept": "application/json", "content-type": "application/json"},
            body={"ids": doc_ids}, endpoint_id="mget", path_parts={"index": store.index},
        )  # fmt: skip
    else:
        request = client.mget(index=store.index, ids=doc_ids, source_includes=kept, source_excludes=left_out)
    response = await store._call(request)
    found = []
    for wanted, doc in zip(ids, response["docs"], strict=True):
        source = doc.get("_source") if doc.get("found") else None
        if source and source.get("workspace_id") == workspace_id and source.get("memory_id") == wanted:
            found.append((wanted, source))
    return found


async def search(
    store: ElasticsearchStore, workspace_id: str, query: np.ndarray, top_k: int, filters: MemoryFilter
) -> list[Memory]:
    """The ``top_k`` memories of the workspace meeting ``filters`` nearest ``query``, with ``scores["similarity"]``."""
    if not await store._has_index():
        return []
    return knn_hits(
        store, await store._searches.search(store.index, knn_body(store, workspace_id, query, top_k, filters))
    )


async def search_many(
    store: ElasticsearchStore, workspace_id: str, query: np.ndarray, searches: list[tuple[int, MemoryFilter]]
) -> list[list[Memory]]:
    """Several searches with one query vector, each ``(top_k, filters)``: issued together, so they go to the node as
    one ``_msearch`` (one search: ``_search``) with whatever else is searched at the same moment (es_batching)."""
    # One `_msearch`: a time-scoped recall was three searches one after another (three round trips,
    # three requests for the server's event loop and the node's transport to handle), now one.
    if not await store._has_index():
        return [[] for _ in searches]
    bodies = [knn_body(store, workspace_id, query, top_k, filters) for top_k, filters in searches]
    answers = await asyncio.gather(*[store._searches.submit(store.index, body) for body in bodies])
    return [knn_hits(store, answer) for answer in answers]


def knn_body(
    store: ElasticsearchStore, workspace_id: str, query: np.ndarray, top_k: int, filters: MemoryFilter
) -> dict[str, Any]:
    """The request body of one kNN search (no vectors, derived fields or lexical text in its hits)."""
    knn = checked_knn(store, workspace_id, query, top_k, filters)
    return {"knn": knn, "size": top_k, "_source": q.search_source(False, False), "track_total_hits": False}


def checked_knn(
    store: ElasticsearchStore, workspace_id: str, query: np.ndarray, top_k: int, filters: MemoryFilter
) -> dict[str, Any]:
    """The ``knn`` clause of one search, after the checks only this store needs."""
    if top_k > q.MAX_PAGE:
        raise InputError(Problem("search", f"top_k is at most {q.MAX_PAGE} on Elasticsearch, got {top_k}"))
    if not np.any(query):
        raise InputError(Problem("search", "the query vector is all zeros; it has no direction to search in"))
    return q.knn_clause(
        query, top_k, q.candidates(top_k, store.params.num_candidates),
        q.filter_clauses(workspace_id, filters), store._index_options,
    )  # fmt: skip


def knn_hits(store: ElasticsearchStore, response: Any) -> list[Memory]:
    """The memories of a kNN search's answer, each with its cosine similarity."""
    return [
        q.from_source(hit["_source"], {SIMILARITY: q.cosine_from_score(store._similarity, hit["_score"])})
        for hit in response["hits"]["hits"]
    ]


async def iterate(
    store: ElasticsearchStore, workspace_id: str, filters: MemoryFilter, batch_size: int, with_vectors: bool
) -> AsyncIterator[list[Memory]]:
    """The workspace's memories meeting ``filters`` in batches, oldest first (``search_after`` paging)."""
    if not await store._has_index():
        return
    client = await store._ready()
    page = min(batch_size, q.MAX_PAGE)
    request: dict[str, Any] = {
        "index": store.index,
        "query": q.bool_query(workspace_id, filters),
        # memory_id is unique in a workspace, so this order is total and search_after never skips
        "sort": [{"created_at": "asc"}, {"memory_id": "asc"}],
        "size": page,
        "track_total_hits": False,
        "source": q.search_source(with_vectors, store._vectors_excluded),
    }
    pending: list[Memory] = []
    while True:
        hits = (await store._call(client.search(**request)))["hits"]["hits"]
        pending.extend(q.from_source(hit["_source"]) for hit in hits)
        while len(pending) >= batch_size:
            yield pending[:batch_size]
            pending = pending[batch_size:]
        if len(hits) < page:
            break
        request["search_after"] = hits[-1]["sort"]
    if pending:
        yield pending


async def adjacent(
    store: ElasticsearchStore, workspace_id: str, read: AdjacentRead
) -> tuple[list[Memory], list[Memory]]:
    """The memories just before and just after ``(at, memory_id)`` in :func:`iterate`'s order, nearest first:
    per side one search sorted away from that place (``search_after`` it), of ``size`` that side's count,
    both in one ``_msearch``."""
    return (await adjacent_many(store, workspace_id, [read]))[0]


async def adjacent_many(
    store: ElasticsearchStore, workspace_id: str, reads: list[AdjacentRead]
) -> list[tuple[list[Memory], list[Memory]]]:
    """:func:`adjacent` for each read, every side of every read in one ``_msearch``: one round trip for the places
    around a query's hits (``neighbour_context_op`` reads around several), not one per place."""
    if not reads or not await store._has_index():
        return [([], []) for _ in reads]
    bodies: list[dict[str, Any]] = []
    for read in reads:
        place = [q.epoch_millis(read.at), read.memory_id]
        for count, direction in zip((read.before, read.after), ("desc", "asc"), strict=True):
            if count > 0:
                bodies.append({
                    "query": q.bool_query(workspace_id, read.filters),
                    "sort": [{"created_at": direction}, {"memory_id": direction}],
                    "search_after": place,
                    "size": count,
                    "track_total_hits": False,
                    "_source": q.search_source(read.with_vectors, store._vectors_excluded),
                })  # fmt: skip
    answers = iter(await asyncio.gather(*[store._searches.submit(store.index, body) for body in bodies]))
    found: list[tuple[list[Memory], list[Memory]]] = []
    for read in reads:
        sides = []
        for count in (read.before, read.after):
            answer = next(answers) if count > 0 else {"hits": {"hits": []}}
            sides.append([q.from_source(hit["_source"]) for hit in answer["hits"]["hits"]])
        found.append((sides[0], sides[1]))
    return found


async def count(store: ElasticsearchStore, workspace_id: str, filters: MemoryFilter) -> int:
    """How many of the workspace's memories meet ``filters``."""
    if not await store._has_index():
        return 0
    client = await store._ready()
    response = await store._call(client.count(index=store.index, query=q.bool_query(workspace_id, filters)))
    return int(response["count"])


async def workspace_counts(store: ElasticsearchStore) -> dict[str, int]:
    """Memories per workspace, sorted by workspace; the index must exist."""
    return dict(sorted((await _term_counts(store, "workspace_id")).items()))


async def targets(store: ElasticsearchStore, workspace_id: str) -> set[str]:
    """The distinct targets of the workspace's memories (no document is read)."""
    if not await store._has_index():
        return set()
    return set(await _term_counts(store, "target", q.bool_query(workspace_id, NO_FILTER)))


async def _term_counts(store: ElasticsearchStore, field: str, query: dict[str, Any] | None = None) -> dict[str, int]:
    """Documents per value of the keyword ``field`` (among those ``query`` matches): a composite aggregation, paged."""
    counts: dict[str, int] = {}
    client = await store._ready()
    composite: dict[str, Any] = {"size": 1000, "sources": [{"value": {"terms": {"field": field}}}]}
    while True:
        response = await store._call(client.search(index=store.index, size=0, query=query,
                                                    aggs={"values": {"composite": composite}}))  # fmt: skip
        agg = response["aggregations"]["values"]
        counts.update({b["key"]["value"]: b["doc_count"] for b in agg["buckets"]})
        if not agg["buckets"] or "after_key" not in agg:
            break
        composite["after"] = agg["after_key"]
    return counts
