"""Opening the Elasticsearch store's indices: one create/verify/migrate sequence for all of them.

The store keeps the memories index and, beside it, the write path's side indices (history,
message ledger, chat sessions: :class:`SideIndex`). Each is opened the same way
(:func:`open_index`): read its mapping; if it is missing and the caller wants it, create it —
another process may win that race, and then what it made is checked like any existing index;
check that an existing index is a flowmem index of its kind (a stranger's index of the same
name is a :class:`~flowmem.core.errors.ConfigError`, never written to); and add the fields that
flowmem versions since its creation have added (``put_mapping``: adding a field is always
allowed). What differs between the kinds is only the mapping and the check. The memories
index's check also reads its vector settings (:func:`adopt_mapping`), and
its documents' lexical text is migrated later (:mod:`~flowmem.vector_store.elasticsearch.lexical`); the
ledger's legacy entries are migrated on first use (:mod:`~flowmem.vector_store.elasticsearch.ledger`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from loguru import logger

from flowmem.core.errors import ConfigError, Problem
from flowmem.vector_store.elasticsearch import lexical as es_lexical
from flowmem.vector_store.elasticsearch import query as q
from flowmem.vector_store.elasticsearch.errors import ElasticsearchError, error_type
from flowmem.vector_store.elasticsearch.params import ElasticsearchStoreParams
from flowmem.vector_store.rules import check_width

if TYPE_CHECKING:
    from elasticsearch import AsyncElasticsearch

    from flowmem.vector_store.elasticsearch.store import ElasticsearchStore

# Checks an index's mapping (raises ConfigError if it is not a flowmem index of its kind) and
# returns the properties it should have (those it lacks are added).
Check = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass
class SideIndex:
    """One of the write path's indices beside the memories index.

    Attributes:
        name: The index name (the memories index's plus a suffix).
        kind: What it holds, for messages ("history", "message ledger").
        key_field: A keyword field every flowmem index of this kind has (tells it from a stranger's).
        properties: Its mapping's properties.
        exists: Known to exist (with a flowmem mapping); until then looked up on each use.
        refreshed_by_reads: Writes leave it unrefreshed and every search of it refreshes it first
            (:func:`make_searchable`): for an index written with every change and read rarely (the
            history), one refresh per read instead of one Lucene segment per write.
    """

    name: str
    kind: str
    key_field: str
    properties: dict[str, Any]
    exists: bool = False
    refreshed_by_reads: bool = False
    settings: dict[str, Any] = field(default_factory=dict)  # index settings beyond the store's own, at creation


def index_settings(params: ElasticsearchStoreParams) -> dict[str, Any]:
    """The settings every index of the store is created with."""
    return {"number_of_shards": params.shards, "number_of_replicas": params.replicas}


async def open_index(
    store: ElasticsearchStore,
    client: AsyncElasticsearch,
    name: str,
    check: Check,
    *,
    create: dict[str, Any] | None = None,
    created: str = "",
    read_back: bool = False,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Open index ``name``: read its mapping (creating the index first if missing), check it, add missing fields.

    Args:
        store: The store (for its name, requests and settings).
        client: The client to send the requests with.
        name: The index.
        check: Checks the mapping and returns the properties the index should have.
        create: The mappings to create the index with if it is missing; ``None``: it stays missing.
        created: What a creation made, for the log ("history index 'x-history'").
        read_back: After creating the index, read its mapping back rather than use the one sent
            (the server fills in defaults, e.g. a ``dense_vector``'s ``m`` and ``ef_construction``).

    Returns:
        The index's mapping (``properties``, ``_meta``, ...), or ``None`` if it is missing.

    Raises:
        ElasticsearchError: The index is missing and Elasticsearch refused to create it.
        ConfigError: The index exists but ``check`` found it is not a flowmem index of its kind.
    """
    response = await store._call(client.options(ignore_status=404).indices.get_mapping(index=name), name)
    if response.meta.status == 404:
        if create is None:
            return None
        made = await store._call(
            client.options(ignore_status=400).indices.create(
                index=name, mappings=create, settings={**index_settings(store.params), **(settings or {})}
            ),
            name,
        )
        if made.meta.status == 400:
            if error_type(made.body) != "resource_already_exists_exception":
                raise ElasticsearchError(f"cannot create index '{name}': {q.short_reason(made.body)}")
            return await open_index(store, client, name, check)  # another process won: check what it made
        logger.info("vector_store '{}': created {}", store.name, created)
        if read_back:
            return await open_index(store, client, name, check)
        mapping = create
    else:
        [found] = list(response.body.values())[:1]
        mapping = found.get("mappings", {})
    props: dict[str, Any] = mapping.get("properties", {})
    wanted = await check(mapping)
    # Made by an older flowmem, it may lack fields added since; adding fields is always allowed.
    missing = {k: v for k, v in wanted.items() if k not in props}
    if missing:
        await store._call(client.indices.put_mapping(index=name, properties=missing), name)
        logger.info("vector_store '{}': added fields {} to index '{}'", store.name, sorted(missing), name)
    return mapping


async def has_side(store: ElasticsearchStore, side: SideIndex, *, create: bool) -> bool:
    """Whether a write-path index exists; with ``create``, make it if it does not.

    Reads pass ``create=False``: nothing was written, so there is nothing to find, and a read
    should not create indices. A missing index is looked up again next time, like the
    memories index (another process may create it).

    Raises:
        ConfigError: The index exists but is not a flowmem index of its kind.
    """
    client = await store._ready()
    if side.exists:
        return True

    async def check(mapping: dict[str, Any]) -> dict[str, Any]:
        props: dict[str, Any] = mapping.get("properties", {})
        if props.get(side.key_field, {}).get("type") != "keyword" or "workspace_id" not in props:
            raise ConfigError(
                Problem(
                    f"vector_store '{store.name}'",
                    f"index '{side.name}' at {store.url} exists but is not a flowmem {side.kind} index "
                    f"(no keyword field '{side.key_field}'); set params.index to another name",
                )
            )
        return side.properties

    mappings = {"dynamic": "strict", "properties": side.properties} if create else None
    created = f"{side.kind} index '{side.name}'"
    made = await open_index(store, client, side.name, check, create=mappings, created=created, settings=side.settings)
    side.exists = made is not None
    return side.exists


async def open_memories_index(store: ElasticsearchStore, create_with: int | None = None) -> None:
    """Read the index's vector settings; create the index (``create_with`` dims) if it is missing."""
    assert store._client is not None  # called inside _ready's lock, so not through _ready
    create = None
    if create_with is not None:
        create = q.mappings(create_with, store.params.similarity, store.params.index_options)
    created = f"index '{store.index}' ({create_with} dims)"
    mapping = await open_index(
        store, store._client, store.index, partial(adopt_mapping, store), create=create, created=created, read_back=True
    )
    meta = (mapping or {}).get("_meta") or {}
    if mapping is not None and not es_lexical.is_current(meta):
        store._lexical_pending = meta  # documents from before lexical search: given their text by _ready


async def adopt_mapping(store: ElasticsearchStore, mapping: dict[str, Any]) -> dict[str, Any]:
    """Take the vector settings of the index's mapping (es_index.open_index's check); returns its properties due."""
    assert store._client is not None
    props: dict[str, Any] = mapping.get("properties", {})
    vector = props.get(q.VECTOR_FIELD, {})
    if vector.get("type") != "dense_vector":
        raise ConfigError(
            Problem(
                f"vector_store '{store.name}'",
                f"index '{store.index}' at {store.url} exists but has no dense_vector field '{q.VECTOR_FIELD}': "
                "it is not a flowmem index; set params.index to another name",
            )
        )
    store._exists = True
    store._width = vector.get("dims")
    store._similarity = vector.get("similarity", "cosine")
    store._index_options = vector.get("index_options", {})
    settings = await store._call(
        store._client.indices.get_settings(
            index=store.index, include_defaults=True, filter_path="*.*.index.mapping.exclude_source_vectors"
        )
    )
    store._vectors_excluded = q.vectors_excluded(settings.body)
    if store.params.dims is not None:
        check_width(store._place(), store._width, store.params.dims, f"vectors configured (dims={store.params.dims})")
    return q.properties(store._width or 1, store._similarity, store._index_options)


async def make_searchable(store: ElasticsearchStore, side: SideIndex) -> None:
    """Before a search of ``side``: if its writes skip the refresh, refresh it (shared with the writes
    ending now), so the search sees every write acknowledged before it, by any process."""
    if side.refreshed_by_reads:
        await store._shared_refresh.refresh([side.name])


async def side_count(store: ElasticsearchStore, side: SideIndex) -> int:
    """How many documents a side index holds (0 if it does not exist)."""
    if not await store._has_side(side, create=False):
        return 0
    await make_searchable(store, side)
    client = await store._ready()
    return int((await store._call(client.count(index=side.name), side.name))["count"])


# A force-merge waits for the node to rewrite the index: minutes for millions of vectors, far beyond a request's
# usual timeout. If even this passes, the merge goes on on the node; the import has written everything already.
MERGE_TIMEOUT = 3600.0


async def merge_after_import(store: ElasticsearchStore, loaded: int) -> None:
    """After a bulk load (``store import``) that upserted ``loaded`` memories: when that is at least
    ``params.merge_after_import``, force-merge the memories index into one segment and wait for it.

    Every Lucene segment is an HNSW graph of its own, searched one after another by each kNN search, and a load of
    many memories leaves tens of segments (each bulk request and refresh makes new ones) that the node's background
    merging joins only slowly and never into one. One merge after the import is what Elasticsearch recommends for
    an index written in bulk; on the 100k benchmark store it cut the node's CPU per query (see BENCHMARKS.md).
    Later writes add small segments again, which background merging handles as usual; a merged segment larger
    than the merge policy's 5 GB ceiling is merged again only once a large share of it is deleted — so the
    setting is a count, and imports smaller than it leave the index as it is. A merge that fails or is refused
    (some managed offerings forbid it) is logged, never raised: the memories are written and searchable.
    """
    wanted = store.params.merge_after_import
    if not wanted or loaded < wanted or not store._exists or store._client is None:
        return
    started = time.perf_counter()
    try:
        await store._call(
            store._client.options(request_timeout=max(MERGE_TIMEOUT, store.params.request_timeout)).indices.forcemerge(
                index=store.index, max_num_segments=1
            )
        )
    except Exception as exc:  # the import itself succeeded: say why the index was left unmerged
        logger.warning("vector_store '{}': index '{}' not merged after the import: {}", store.name, store.index, exc)
        return
    logger.info(
        "vector_store '{}': index '{}' merged into one segment after importing {} memories ({:.1f} s)",
        store.name, store.index, loaded, time.perf_counter() - started,
    )  # fmt: skip
