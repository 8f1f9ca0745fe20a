"""The searches of a vector store: by vector (one, several filters, several vectors), by words, and the stored
vectors and cosines of named memories.

Part of the :class:`~flowmem.vector_store.base.VectorStore` base (a mixin only to keep modules small): the scope,
id, width and filter rules of these calls live here, once, before any backend sees a call, and what a backend
returns of another workspace is dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import numpy as np

from flowmem.schema.memory import Memory
from flowmem.scoring.tokens import query_terms
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.rules import check_ids, check_scope, check_width, normalise, one_width

SIMILARITY = "similarity"


class SearchReads:
    """The search half of the store interface. Backends implement ``_search`` and ``_lexical_search``, and may
    override ``_search_many``, ``_search_each``, ``_stored_vectors`` and ``_similarities`` to answer in one step."""

    # The store's own (VectorStore): the filter check, its name in messages, its vectors' width, its records.
    _checked: Callable[[MemoryFilter | None], MemoryFilter]
    _place: Callable[[], str]
    _dims: Callable[[], Awaitable[int | None]]
    _get: Callable[[str, list[str], bool], Awaitable[list[Memory]]]

    async def stored_vectors(self, workspace_id: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored (unit) vectors of the memories with these ids in ``workspace_id``; unknown ids are left out.
        What :meth:`get` with ``with_vectors`` gives, without reading the records where a store holds the vectors
        apart (local: its index)."""
        check_scope(workspace_id)
        check_ids("memory", ids)
        return await self._stored_vectors(workspace_id, list(dict.fromkeys(ids))) if ids else {}

    async def similarities(self, workspace_id: str, vector: Any, ids: Sequence[str]) -> dict[str, float]:
        """The dot product of ``vector`` (unit length, as a query embedding is) with the stored vector of each memory
        of these ids in ``workspace_id`` — their cosine similarity; unknown ids, and vectors of another width, are
        left out. What ``np.dot`` of :meth:`stored_vectors` with ``vector`` gives, computed where the vectors are:
        Elasticsearch scores the ids on the node (a kNN search restricted to them), so no vector travels."""
        check_scope(workspace_id)
        check_ids("memory", ids)
        query = np.asarray(vector, dtype=np.float32)
        return await self._similarities(workspace_id, query, list(dict.fromkeys(ids))) if ids else {}

    async def search(
        self, workspace_id: str, vector: Any, top_k: int, filters: MemoryFilter | None = None
    ) -> list[Memory]:
        """The ``top_k`` memories most similar to ``vector``, best first, with ``scores["similarity"]``.

        Raises:
            DimensionMismatchError: ``vector`` is not as wide as the store's vectors.
            UnsupportedFilterError: ``filters`` has a condition this store cannot apply.
        """
        check_scope(workspace_id)
        filters = self._checked(filters)
        query = normalise(np.asarray(vector, dtype=np.float32))[0]
        check_width(self._place(), await self._dims(), len(query), "query vector")
        if top_k <= 0:
            return []
        found = await self._search(workspace_id, query, top_k, filters)
        return [m for m in found if m.workspace_id == workspace_id]

    async def search_many(
        self, workspace_id: str, vector: Any, searches: Sequence[tuple[int, MemoryFilter | None]]
    ) -> list[list[Memory]]:
        """Several searches (as :meth:`search`) with one query vector, each with its own ``top_k`` and filters,
        sent together where the store can (Elasticsearch: one ``_msearch`` instead of a round trip each).

        Returns:
            One result list per search, in order, each exactly what :meth:`search` returns for it.

        Raises:
            DimensionMismatchError: ``vector`` is not as wide as the store's vectors.
            UnsupportedFilterError: a search's filters have a condition this store cannot apply
                (checked for every search before any runs).
        """
        check_scope(workspace_id)
        checked = [(top_k, self._checked(filters)) for top_k, filters in searches]
        query = normalise(np.asarray(vector, dtype=np.float32))[0]
        check_width(self._place(), await self._dims(), len(query), "query vector")
        wanted = [(top_k, filters) for top_k, filters in checked if top_k > 0]
        results = iter(await self._search_many(workspace_id, query, wanted) if wanted else [])
        return [[m for m in next(results) if m.workspace_id == workspace_id] if k > 0 else [] for k, _ in checked]

    async def search_each(
        self, workspace_id: str, vectors: Sequence[Any], top_k: int, filters: MemoryFilter | None = None
    ) -> list[list[Memory]]:
        """:meth:`search` once for each of ``vectors``, with one ``top_k`` and filters, in one read where the store can
        (``local`` and ``memory``: one mask and one hop for all; otherwise a search each, sent together).

        Returns:
            One result list per vector, in order, each exactly what :meth:`search` returns for it.

        Raises:
            DimensionMismatchError: a vector is not as wide as the store's vectors.
            UnsupportedFilterError: ``filters`` has a condition this store cannot apply.
        """
        check_scope(workspace_id)
        filters = self._checked(filters)
        if not vectors:
            return []
        width = one_width(np.asarray(v) for v in vectors)
        check_width(self._place(), await self._dims(), width, "query vector")
        if top_k <= 0:
            return [[] for _ in vectors]
        queries = np.stack([normalise(np.asarray(v, dtype=np.float32))[0] for v in vectors])  # each as search does
        found = await self._search_each(workspace_id, queries, top_k, filters)
        return [[m for m in hits if m.workspace_id == workspace_id] for hits in found]

    async def lexical_search(
        self, workspace_id: str, text: str, top_k: int, filters: MemoryFilter | None = None
    ) -> list[Memory]:
        """The ``top_k`` memories best matching the words of ``text`` (BM25), best first, with ``scores["lexical"]``.

        Scope and filters as :meth:`search`; the query's terms are :func:`~flowmem.scoring.tokens.query_terms`
        (stop words left out), a memory's :func:`~flowmem.vector_store.lexical_text.lexical_document`.
        Only memories sharing a term come back. Scores rank within one search (see lexical_text).
        """
        check_scope(workspace_id)
        filters = self._checked(filters)
        terms = query_terms(text)
        if top_k <= 0 or not terms:
            return []
        found = await self._lexical_search(workspace_id, terms, top_k, filters)
        return [m for m in found if m.workspace_id == workspace_id]

    async def _stored_vectors(self, workspace_id: str, ids: list[str]) -> dict[str, np.ndarray]:
        """The vectors of :meth:`stored_vectors`; this default reads the records (:meth:`_get`)."""
        found = await self._get(workspace_id, ids, True)
        return {m.memory_id: m.vector for m in found if m.workspace_id == workspace_id and m.vector is not None}

    async def _similarities(self, workspace_id: str, query: np.ndarray, ids: list[str]) -> dict[str, float]:
        """The cosines of :meth:`similarities`; this default takes the dot products of :meth:`_stored_vectors`."""
        vectors = await self._stored_vectors(workspace_id, ids)
        return {i: float(np.dot(v, query)) for i, v in vectors.items() if len(v) == len(query)}

    async def _search(self, workspace_id: str, query: np.ndarray, top_k: int, filters: MemoryFilter) -> list[Memory]:
        raise NotImplementedError

    async def _search_many(
        self, workspace_id: str, query: np.ndarray, searches: list[tuple[int, MemoryFilter]]
    ) -> list[list[Memory]]:
        """One :meth:`_search` result per (``top_k`` > 0, filters); override to send them in one request."""
        return [await self._search(workspace_id, query, top_k, filters) for top_k, filters in searches]

    async def _search_each(
        self, workspace_id: str, queries: np.ndarray, top_k: int, filters: MemoryFilter
    ) -> list[list[Memory]]:
        """One :meth:`_search` result per row of ``queries``, the searches sent together; override to make it one
        read."""
        return list(await asyncio.gather(*(self._search(workspace_id, query, top_k, filters) for query in queries)))

    async def _lexical_search(
        self, workspace_id: str, terms: list[str], top_k: int, filters: MemoryFilter
    ) -> list[Memory]:
        """The ``top_k`` memories of ``workspace_id`` meeting ``filters``, by BM25 of ``terms`` (``lexical``)."""
        raise NotImplementedError
