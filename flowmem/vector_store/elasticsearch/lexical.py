"""Lexical (BM25) search on the Elasticsearch store, and bringing older indices up to it.

The text field :data:`LEXICAL_FIELD` holds each memory's
:func:`~flowmem.vector_store.lexical_text.lexical_document`, already tokenised by flowmem's one
tokeniser, and is analysed by Elasticsearch's built-in ``whitespace`` analyser: it only splits
at the spaces, so the index holds exactly the terms the other stores hold (the text is already
lower-cased; a custom analyser would need index settings an existing index cannot gain while
open, and the ``analysis-common`` module, which minimal distributions lack). Scores are Lucene's
BM25 (k1 1.2, b 0.75), the formula the other stores compute, but over the statistics of the index
(per shard: one shard, the default, keeps them whole) where the other stores take the workspace's
— the same ranking where the statistics agree, not the same scores (see lexical_text).

A search is a ``match`` of the query's terms (any of them) with the workspace and the filters as
a ``bool`` filter (no scoring, cacheable), sorted by score and then memory id, as the other
stores break ties.

Older indices: the field is added by ``put_mapping`` (as every added field is, see
:func:`~flowmem.vector_store.elasticsearch.index.open_index`); documents written before it are re-indexed by
:func:`backfill` — paged with ``search_after``, each given its lexical text by a bulk partial
``update`` (no scripts, ``update_by_query`` or reindex, which minimal distributions lack) — and
then the index's mapping ``_meta`` records :data:`LEXICAL_VERSION`, so it runs once per index
(a crash before that only repeats the idempotent updates). It runs on a store object's first
request after it found the index unmarked. A new index is created with the mark.
A change of the tokeniser bumps the version, which re-indexes every document; so does a new field derived
from the record the same way (version 2: the slot index, ``es_query.SLOTS_FIELD``, written with the text).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loguru import logger

from flowmem.schema.memory import Memory
from flowmem.vector_store.elasticsearch import bulk as es_bulk
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.lexical_text import LEXICAL, lexical_document, query_text

if TYPE_CHECKING:
    from flowmem.vector_store.elasticsearch.store import ElasticsearchStore

LEXICAL_FIELD = "lexical"
LEXICAL_MAPPING: dict[str, Any] = {"type": "text", "analyzer": "whitespace"}
# The `_meta` key of the memories index's mapping that says which lexical text its documents hold.
META_KEY = "flowmem_lexical"
LEXICAL_VERSION = 2  # 1: the lexical text; 2: and the slot index
PAGE = 1000


def search_body(workspace_id: str, terms: list[str], top_k: int, clauses: list[dict[str, Any]]) -> dict[str, Any]:
    """The search request of a lexical search: ``clauses`` are the workspace and filter clauses."""
    return {
        "query": {"bool": {"must": [{"match": {LEXICAL_FIELD: {"query": query_text(terms)}}}], "filter": clauses}},
        "sort": [{"_score": "desc"}, {"memory_id": "asc"}],
        "track_scores": True,
        "size": top_k,
        "track_total_hits": False,
    }


async def search(
    store: ElasticsearchStore, workspace_id: str, terms: list[str], top_k: int, filters: MemoryFilter
) -> list[Memory]:
    """The ``top_k`` memories of the workspace meeting ``filters`` by BM25 of ``terms``, with ``scores["lexical"]``."""
    from flowmem.vector_store.elasticsearch import query as q

    body = search_body(workspace_id, terms, top_k, q.filter_clauses(workspace_id, filters))
    body["_source"] = q.search_source(False, False)
    response = await store._searches.search(store.index, body)  # with the searches of the same moment (es_batching)
    return [q.from_source(hit["_source"], {LEXICAL: float(hit["_score"])}) for hit in response["hits"]["hits"]]


def is_current(meta: dict[str, Any]) -> bool:
    """Whether an index's mapping ``_meta`` says its documents hold the current lexical text."""
    return bool(meta.get(META_KEY) == LEXICAL_VERSION)


async def backfill(store: ElasticsearchStore, meta: dict[str, Any]) -> None:
    """Give every document of an index from before the lexical field (or an older version) its lexical text.

    Raises:
        BulkWriteError: Elasticsearch refused some updates (the index is not marked; the next open retries).
    """
    from flowmem.vector_store.elasticsearch import query as q
    from flowmem.vector_store.elasticsearch.errors import BulkWriteError

    if is_current(meta):
        return
    client = await store._ready()
    request: dict[str, Any] = {
        "index": store.index,
        "query": {"match_all": {}},
        # (workspace, memory id) is unique, so this order is total and search_after never skips one
        "sort": [{"workspace_id": "asc"}, {"memory_id": "asc"}],
        "size": PAGE,
        "track_total_hits": False,
        "source_excludes": q.excluded_source(False),
    }
    updated = 0
    while True:
        hits = (await store._call(client.search(**request)))["hits"]["hits"]
        items = [(hit["_id"], q.from_source(dict(hit["_source"]))) for hit in hits]
        names = {_id: memory.memory_id for _id, memory in items}

        def update(item: tuple[str, Memory]) -> dict[str, Any]:
            return {
                "_op_type": "update", "_index": store.index, "_id": item[0],
                "doc": {LEXICAL_FIELD: lexical_document(item[1]), q.SLOTS_FIELD: q.slot_index(item[1])},
            }  # fmt: skip

        if items:
            ok, failures = await es_bulk.bulk(store, items, update, names, index=store.index, ignore_status=404)
            if failures:
                raise BulkWriteError("index for lexical search", store.index, failures, ok)
            updated += ok
        if len(hits) < PAGE:
            break
        request["search_after"] = hits[-1]["sort"]
    await store._call(client.indices.put_mapping(index=store.index, meta={**meta, META_KEY: LEXICAL_VERSION}))
    logger.info("vector_store '{}': {} memories indexed for lexical search in '{}'", store.name, updated, store.index)
